//! Branch-free "which lanes hold `x`" masks over small fixed-length arrays: the set scans of
//! the flow cache's small store and the data plane's next-hop cache (u32 keys, 4/8/16 ways)
//! and the buckets of ZL-RED's occurrence table (u64 flow ids, 8 ways).
//!
//! Where a key sits in its set is data, so a branch per way mispredicts; a mask of all the
//! comparisons, then `trailing_zeros`, does not. LLVM vectorises the plain scalar loop poorly
//! on x86-64's base ISA (it keeps scalar compares for some lanes and ORs the vector lanes
//! together one by one — ≈ 29 instructions for 8 ways), so on x86-64 these use SSE2, which
//! every x86-64 CPU has: one compare and one `movmskps` per four u32 lanes. Elsewhere, and
//! for lengths that are not a multiple of four, the scalar loop.

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

/// Bit `i` set where `w[i] == x` (`N ≤ 32`).
#[inline(always)]
pub fn eq_mask_u64<const N: usize>(w: &[u64; N], x: u64) -> u32 {
    const { assert!(N <= 32) };
    #[cfg(target_arch = "x86_64")]
    if N.is_multiple_of(4) {
        use std::arch::x86_64::*;
        // SAFETY: as in `eq_mask_u32`; the loads read `w[2c..2c + 2]` for `c < N / 2`.
        // SSE2 has no 64-bit compare: each key's two 32-bit halves are compared, the low
        // and the high halves of four keys gathered by two shuffles, and ANDed.
        return unsafe {
            let xv = _mm_set1_epi64x(x as i64);
            let p = w.as_ptr() as *const __m128i;
            let e = |c: usize| _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_loadu_si128(p.add(c)), xv));
            let mut m = 0u32;
            for c in 0..N / 4 {
                let (a, b) = (e(2 * c), e(2 * c + 1));
                let lo = _mm_shuffle_ps::<0b10_00_10_00>(a, b);
                let hi = _mm_shuffle_ps::<0b11_01_11_01>(a, b);
                m |= (_mm_movemask_ps(_mm_and_ps(lo, hi)) as u32) << (4 * c);
            }
            m
        };
    }
    scalar(w, x)
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
                prop_assert_eq!(eq_mask_u64::<8>(&lanes(x, other, near, &pick), x), scalar(&lanes::<u64, 8>(x, other, near, &pick), x));
                prop_assert_eq!(eq_mask_u64::<4>(&lanes(x, other, near, &pick), x), scalar(&lanes::<u64, 4>(x, other, near, &pick), x));
                prop_assert_eq!(eq_mask_u64::<2>(&lanes(x, other, near, &pick), x), scalar(&lanes::<u64, 2>(x, other, near, &pick), x));
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
        assert_eq!(eq_mask_u64(&[u64::MAX; 8], u64::MAX), 0xFF);
    }
}
