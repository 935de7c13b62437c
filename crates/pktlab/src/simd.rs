//! Branch-free "which lanes hold `x`" masks over small fixed-length arrays: the set scans of
//! the flow cache's small store and the data plane's next-hop cache (u32 keys, 4/8/16 ways)
//! and the buckets of ZL-RED's occurrence table (u64 flow ids, 8 ways).
//!
//! Where a key sits in its set is data, so a branch per way mispredicts; a mask of all the
//! comparisons, then `trailing_zeros`, does not. LLVM vectorises the plain scalar loop poorly
//! on x86-64's base ISA (it keeps scalar compares for some lanes and ORs the vector lanes
//! together one by one — ≈ 29 instructions for 8 ways), so on x86-64 these use SSE2, which
//! every x86-64 CPU has: one compare and one `movmskps` per four u32 lanes, and for the eight
//! u64 keys of a 64-byte line ([`eq_mask_line`]) four 32-bit compares packed into one
//! `pmovmskb`. Elsewhere, and for lengths that are not a multiple of four, the scalar loop.

/// Bit `i` set where `w[i] == x` (`N ≤ 32`).
#[inline(always)]
pub fn eq_mask_u32<const N: usize>(w: &[u32; N], x: u32) -> u32 {
    const { assert!(N <= 32) };
    #[cfg(target_arch = "x86_64")]
    if N.is_multiple_of(4) {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 base ISA (always enabled for this target); the
        // loads read `w[4c..4c + 4]` for `c < N / 4`, inside the array (unaligned loads).
        return unsafe {
            let xv = _mm_set1_epi32(x as i32);
            let p = w.as_ptr() as *const __m128i;
            let mut m = 0u32;
            for c in 0..N / 4 {
                let e = _mm_cmpeq_epi32(_mm_loadu_si128(p.add(c)), xv);
                m |= (_mm_movemask_ps(_mm_castsi128_ps(e)) as u32) << (4 * c);
            }
            m
        };
    }
    scalar(w, x)
}

/// Eight u64 lanes in one 64-byte-aligned cache line: the operand of [`eq_mask_line`]
/// (ZL-RED's occurrence-table buckets keep their keys in one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Line64(pub [u64; 8]);

/// Bit `2i` set where `w.0[i] == x`, every odd bit clear ("spread" mask: lane `i` is bit
/// `2i`, so the lane index of a bit is its position halved).
///
/// On x86-64 this is the cheapest exact 64-bit compare SSE2 allows: the four aligned loads fold
/// into the 32-bit compares, two saturating packs bring the sixteen 32-bit results down to
/// sixteen bytes in lane order (low half, high half, …) for one `pmovmskb`, and a key matches
/// where both of its halves do — one shift and two ANDs on the scalar mask, instead of the
/// shuffles a `movmskps` over 64-bit lanes would need to gather the halves first (callgrind:
/// 5 instructions fewer per ZL-RED arrival in `pktlab aqm bench`).
#[inline(always)]
pub fn eq_mask_line(w: &Line64, x: u64) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 base ISA; the four aligned loads read the 64
        // bytes of `w`, which `Line64` aligns to 64.
        let m = unsafe {
            let xv = _mm_set1_epi64x(x as i64);
            let p = w.0.as_ptr() as *const __m128i;
            let e = |c: usize| _mm_cmpeq_epi32(_mm_load_si128(p.add(c)), xv);
            let ab = _mm_packs_epi32(e(0), e(1));
            let cd = _mm_packs_epi32(e(2), e(3));
            _mm_movemask_epi8(_mm_packs_epi16(ab, cd)) as u32
        };
        m & (m >> 1) & 0x5555
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &k) in w.0.iter().enumerate() {
            m |= ((k == x) as u32) << (2 * i);
        }
        m
    }
}

/// The portable form: one compare per lane, folded into a mask.
#[inline(always)]
fn scalar<T: PartialEq + Copy, const N: usize>(w: &[T; N], x: T) -> u32 {
    let mut m = 0u32;
    for (i, &k) in w.iter().enumerate() {
        m |= ((k == x) as u32) << i;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lanes<T: Copy, const N: usize>(x: T, other: T, near: T, pick: &[u8]) -> [T; N] {
        std::array::from_fn(|i| match pick[i % pick.len()] % 3 {
            0 => x,
            1 => near,
            _ => other,
        })
    }

    proptest! {
        /// SIMD masks equal the scalar ones, with lanes that share half their bits with `x`
        /// (the case a half-width compare would get wrong).
        #[test]
        fn masks_equal_scalar_compares(x in any::<u64>(), other in any::<u64>(), pick in proptest::collection::vec(any::<u8>(), 1..40)) {
            let (x32, o32, n32) = (x as u32, other as u32, (x as u32) ^ 0xFFFF_0000);
            prop_assert_eq!(eq_mask_u32::<4>(&lanes(x32, o32, n32, &pick), x32), scalar(&lanes::<u32, 4>(x32, o32, n32, &pick), x32));
            prop_assert_eq!(eq_mask_u32::<8>(&lanes(x32, o32, n32, &pick), x32), scalar(&lanes::<u32, 8>(x32, o32, n32, &pick), x32));
            prop_assert_eq!(eq_mask_u32::<16>(&lanes(x32, o32, n32, &pick), x32), scalar(&lanes::<u32, 16>(x32, o32, n32, &pick), x32));
            prop_assert_eq!(eq_mask_u32::<6>(&lanes(x32, o32, n32, &pick), x32), scalar(&lanes::<u32, 6>(x32, o32, n32, &pick), x32));
            for near in [x ^ 0xFFFF_FFFF, x ^ 0xFFFF_FFFF_0000_0000] {
                let line = Line64(lanes(x, other, near, &pick));
                let want = scalar(&line.0, x);
                let spread = (0..8).fold(0u32, |m, i| m | ((want >> i) & 1) << (2 * i));
                prop_assert_eq!(eq_mask_line(&line, x), spread);
            }
        }
    }

    #[test]
    fn every_lane_and_none() {
        let w: [u32; 16] = std::array::from_fn(|i| i as u32 * 3);
        for i in 0..16 {
            assert_eq!(eq_mask_u32(&w, i as u32 * 3), 1 << i);
        }
        assert_eq!(eq_mask_u32(&w, 1), 0);
        assert_eq!(eq_mask_u32(&[7u32; 8], 7), 0xFF);
        assert_eq!(eq_mask_line(&Line64([u64::MAX; 8]), u64::MAX), 0x5555);
        let l = Line64(std::array::from_fn(|i| (i as u64) << 32 | 5));
        for i in 0..8 {
            assert_eq!(eq_mask_line(&l, (i as u64) << 32 | 5), 1 << (2 * i));
        }
        assert_eq!(eq_mask_line(&l, 5 | 9 << 32), 0);
    }
}
