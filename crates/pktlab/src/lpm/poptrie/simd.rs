//! SIMD batch walk of a Poptrie (x86-64): eight lookups per vector, every memory read of a
//! level issued at once by gather instructions.
//!
//! Same algorithm as the paper's lookup (004, §3.1 and §3.3, Algorithm 1) and as the scalar
//! batch in the parent module, restated for vectors:
//! 1. **direct pointing** — the top `s` bits of eight keys index the direct-pointing array
//!    through one gather; lanes whose entry is a leaf write their result with one masked
//!    store, the others are *compressed* into a work list (position, node index, key);
//! 2. **one level per pass** — for eight listed lookups at a time, one gather each reads the
//!    nodes' `vector`, `leafvec` and the packed `base0 | base1` word; the 6-bit stride `v` is
//!    the top of the shifted key; `vector` bit `v` says internal child or leaf; the popcount
//!    of `vector` (child) or `leafvec` (leaf) masked to bits `0..=v` plus the matching base,
//!    minus one, is the next index. Lanes that reached a leaf are compressed into a leaf list,
//!    the others back into the work list (in place), with keys shifted by 6;
//! 3. the leaves (16- or 32-bit) are read by scalar loads: there is no 16-bit gather, and the
//!    loads are independent, so they overlap anyway.
//!
//! Keys are 128 bits wide in two 64-bit lanes (`hi`, `lo`); IPv4 uses only `hi`. Indices into
//! the node array are gathered with scale 8 from `3 × index` (a node is 24 bytes), so the
//! kernel needs fewer than 2^31 / 3 nodes; the caller falls back to the scalar batch beyond.

// The AVX-512 intrinsics are stable since Rust 1.89; the workspace still declares 1.85 (raising
// it turns on newer lints across unrelated files), so this module states the need here.
#![allow(clippy::incompatible_msrv)]

use super::{Leaves, Poptrie, DIR_LEAF};
use crate::net::{Address, NextHop};
use std::arch::x86_64::*;

/// Lookups processed per block (the work lists live on the stack).
const B: usize = 256;

/// The largest node count the gathers can index (`3 × index` must fit in an `i32`).
pub(super) const MAX_NODES: usize = (i32::MAX / 3) as usize;

/// `addrs[j]` as (`hi`, `lo`): the first and second 64 address bits, left-aligned.
#[inline(always)]
fn split<A: Address>(a: A) -> (u64, u64) {
    if A::BITS == 32 {
        ((a.top(32) as u64) << 32, 0)
    } else {
        let hi = ((a.top(32) as u64) << 32) | a.shl(32).top(32) as u64;
        let lo = ((a.shl(64).top(32) as u64) << 32) | a.shl(96).top(32) as u64;
        (hi, lo)
    }
}

/// Work lists of one block: lookups still inside nodes, and lookups that reached a leaf.
///
/// Entries are appended eight at a time: a lane-compressed vector is stored whole at the
/// list's end (compressing in a register and storing is far faster than a compressing store
/// to memory on AMD Zen 4), so each list has 8 spare entries. Compacting in place is safe:
/// the append position never passes the end of the eight entries just read.
struct Lists {
    pos: [u32; B + 8],
    idx: [u32; B + 8],
    hi: [u64; B + 8],
    lo: [u64; B + 8],
    leaf_pos: [u32; B + 8],
    leaf_idx: [u32; B + 8],
}

/// Batched lookup with AVX-512 (F, VL, BW), the population count done in 16-bit halves.
///
/// # Safety
/// The CPU must support AVX-512F/VL/BW and POPCNT (detected at run time by the caller), and
/// the Poptrie must have fewer than [`MAX_NODES`] nodes.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,popcnt")]
pub(super) unsafe fn batch_avx512<A: Address>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    // SAFETY: the caller's contract.
    unsafe { batch::<A, false>(t, addrs, out) }
}

/// [`batch_avx512`] with VPOPCNTQ for the population count.
///
/// # Safety
/// As [`batch_avx512`], and the CPU must support AVX512-VPOPCNTDQ (detected at run time by
/// the caller).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,popcnt,avx512vpopcntdq")]
pub(super) unsafe fn batch_avx512_vpop<A: Address>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    // SAFETY: the caller's contract (which covers VPOPCNTDQ for `VPOP = true`).
    unsafe { batch::<A, true>(t, addrs, out) }
}

/// The blocks of a batch (inlined into the two entry points above).
///
/// # Safety
/// As [`batch_avx512`], and AVX512-VPOPCNTDQ if `VPOP`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,popcnt")]
#[inline]
unsafe fn batch<A: Address, const VPOP: bool>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    let n = addrs.len().min(out.len());
    let mut l = Lists {
        pos: [0; B + 8],
        idx: [0; B + 8],
        hi: [0; B + 8],
        lo: [0; B + 8],
        leaf_pos: [0; B + 8],
        leaf_idx: [0; B + 8],
    };
    for start in (0..n).step_by(B) {
        let end = (start + B).min(n);
        // SAFETY: the caller guarantees the CPU features and the node count.
        unsafe { block::<A, VPOP>(t, &addrs[start..end], &mut out[start..end], &mut l) };
    }
}

/// One block of at most `B` lookups.
///
/// # Safety
/// As [`batch_avx512`]; `addrs.len() == out.len() <= B`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,popcnt")]
unsafe fn block<A: Address, const VPOP: bool>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
    l: &mut Lists,
) {
    // SAFETY: the caller guarantees AVX-512F/VL/BW and POPCNT (this function enables them),
    // so every intrinsic is supported. Memory: the masked loads read `l.*[c..c + 8]` with
    // `c < n <= B` from lists of `B + 8` entries; the stores write 8 entries at `nw`/`nn`/`nl`
    // `<= c < B` (each counts only lanes already read); the masked output store writes
    // positions `c..c + 8` masked to `< n = out.len()`; the gathers read `dir[top s bits]`
    // (`dir` has `2^s` entries) and nodes `3 × idx` words in, where every `idx` is a child
    // index the structure holds (its invariant, as in the scalar `Poptrie::find`) and the
    // node count is below `MAX_NODES` (caller), so `3 × idx` fits the 32-bit gather index.
    unsafe {
        let n = addrs.len();
        debug_assert!(n <= B && out.len() == n);
        let s = t.cfg.s as u64;
        let dir = t.t.dir.as_ptr();
        let nodes = t.t.nodes.items.as_ptr() as *const u8;
        // `Option<NextHop>` is a `u32` (NextHop is a transparent NonZeroU32): 0 = no route.
        let outp = out.as_mut_ptr() as *mut u32;
        for (j, a) in addrs.iter().enumerate() {
            let (h, lo) = split(*a);
            l.hi[j] = h;
            l.lo[j] = lo;
        }
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let dir_shift = _mm512_set1_epi64(64 - s as i64);
        let s_v = _mm512_set1_epi64(s as i64);
        let dir_flag = _mm256_set1_epi32(DIR_LEAF as i32);
        // Direct pointing: read eight entries, finish the leaves, list the rest.
        let mut nw = 0usize;
        for c in (0..n).step_by(8) {
            let k: __mmask8 = if c + 8 <= n {
                0xFF
            } else {
                (1u8 << (n - c)) - 1
            };
            let hi = _mm512_maskz_loadu_epi64(k, l.hi.as_ptr().add(c) as *const _);
            let lo = _mm512_maskz_loadu_epi64(k, l.lo.as_ptr().add(c) as *const _);
            // s = 0 shifts by 64, which gives index 0 (the single entry).
            let di = _mm512_srlv_epi64(hi, dir_shift);
            let d =
                _mm512_mask_i64gather_epi32::<4>(_mm256_setzero_si256(), k, di, dir as *const _);
            let leaf = _mm256_mask_test_epi32_mask(k, d, dir_flag);
            _mm256_mask_storeu_epi32(
                outp.add(c) as *mut _,
                leaf,
                _mm256_andnot_si256(dir_flag, d),
            );
            let node = k & !leaf;
            let pos = _mm256_add_epi32(iota, _mm256_set1_epi32(c as i32));
            // Keys shifted past the direct-pointing bits (128-bit shift; s = 0 leaves them).
            let nhi = _mm512_or_si512(_mm512_sllv_epi64(hi, s_v), _mm512_srlv_epi64(lo, dir_shift));
            let nlo = _mm512_sllv_epi64(lo, s_v);
            _mm256_storeu_si256(
                l.pos.as_mut_ptr().add(nw) as *mut _,
                _mm256_maskz_compress_epi32(node, pos),
            );
            _mm256_storeu_si256(
                l.idx.as_mut_ptr().add(nw) as *mut _,
                _mm256_maskz_compress_epi32(node, d),
            );
            _mm512_storeu_si512(
                l.hi.as_mut_ptr().add(nw) as *mut _,
                _mm512_maskz_compress_epi64(node, nhi),
            );
            _mm512_storeu_si512(
                l.lo.as_mut_ptr().add(nw) as *mut _,
                _mm512_maskz_compress_epi64(node, nlo),
            );
            nw += node.count_ones() as usize;
        }
        let ones = _mm512_set1_epi64(-1);
        let one = _mm512_set1_epi64(1);
        let c63 = _mm512_set1_epi64(63);
        let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
        while nw != 0 {
            let mut nn = 0usize;
            let mut nl = 0usize;
            for c in (0..nw).step_by(8) {
                let k: __mmask8 = if c + 8 <= nw {
                    0xFF
                } else {
                    (1u8 << (nw - c)) - 1
                };
                let idx = _mm256_maskz_loadu_epi32(k, l.idx.as_ptr().add(c) as *const _);
                let pos = _mm256_maskz_loadu_epi32(k, l.pos.as_ptr().add(c) as *const _);
                let hi = _mm512_maskz_loadu_epi64(k, l.hi.as_ptr().add(c) as *const _);
                let lo = _mm512_maskz_loadu_epi64(k, l.lo.as_ptr().add(c) as *const _);
                // Byte offset 24 × idx = (3 × idx) × 8.
                let i3 = _mm256_add_epi32(_mm256_add_epi32(idx, idx), idx);
                let z = _mm512_setzero_si512();
                let vector = _mm512_mask_i32gather_epi64::<8>(z, k, i3, nodes as *const _);
                let leafvec = _mm512_mask_i32gather_epi64::<8>(z, k, i3, nodes.add(8) as *const _);
                let bases = _mm512_mask_i32gather_epi64::<8>(z, k, i3, nodes.add(16) as *const _);
                let v = _mm512_srli_epi64::<58>(hi);
                let is_node = _mm512_mask_test_epi64_mask(k, _mm512_srlv_epi64(vector, v), one);
                let is_leaf = k & !is_node;
                let upto = _mm512_srlv_epi64(ones, _mm512_sub_epi64(c63, v));
                let sel = _mm512_and_si512(_mm512_mask_blend_epi64(is_node, leafvec, vector), upto);
                let pc = if VPOP {
                    popcnt_vpop(sel)
                } else {
                    popcnt_bw(sel)
                };
                // base1 is the high half of the packed word, base0 the low half.
                let base =
                    _mm512_and_si512(_mm512_mask_srli_epi64::<32>(bases, is_node, bases), low32);
                let next = _mm512_sub_epi64(_mm512_add_epi64(base, pc), one);
                let next32 = _mm512_cvtepi64_epi32(next);
                // Lookups that continue: back into the work list, keys shifted by one stride.
                let nhi = _mm512_or_si512(_mm512_slli_epi64::<6>(hi), _mm512_srli_epi64::<58>(lo));
                let nlo = _mm512_slli_epi64::<6>(lo);
                _mm256_storeu_si256(
                    l.idx.as_mut_ptr().add(nn) as *mut _,
                    _mm256_maskz_compress_epi32(is_node, next32),
                );
                _mm256_storeu_si256(
                    l.pos.as_mut_ptr().add(nn) as *mut _,
                    _mm256_maskz_compress_epi32(is_node, pos),
                );
                _mm512_storeu_si512(
                    l.hi.as_mut_ptr().add(nn) as *mut _,
                    _mm512_maskz_compress_epi64(is_node, nhi),
                );
                _mm512_storeu_si512(
                    l.lo.as_mut_ptr().add(nn) as *mut _,
                    _mm512_maskz_compress_epi64(is_node, nlo),
                );
                nn += is_node.count_ones() as usize;
                // Lookups that reached a leaf: into the leaf list.
                _mm256_storeu_si256(
                    l.leaf_idx.as_mut_ptr().add(nl) as *mut _,
                    _mm256_maskz_compress_epi32(is_leaf, next32),
                );
                _mm256_storeu_si256(
                    l.leaf_pos.as_mut_ptr().add(nl) as *mut _,
                    _mm256_maskz_compress_epi32(is_leaf, pos),
                );
                nl += is_leaf.count_ones() as usize;
            }
            match &t.t.leaves {
                Leaves::Narrow(a) => read_leaves(&a.items, l, nl, outp),
                Leaves::Wide(a) => read_leaves(&a.items, l, nl, outp),
            }
            nw = nn;
        }
    }
}

/// Writes the leaves listed in `l.leaf_*[..nl]` to their output positions.
///
/// # Safety
/// `outp` points to the block's output, which every listed position lies inside.
#[inline(always)]
unsafe fn read_leaves<L: Copy + Into<u32>>(leaves: &[L], l: &Lists, nl: usize, outp: *mut u32) {
    for (&p, &i) in l.leaf_pos[..nl].iter().zip(&l.leaf_idx[..nl]) {
        debug_assert!((i as usize) < leaves.len());
        // SAFETY: the leaf index is derived as in the scalar lookup (see `Poptrie::find`,
        // the structure's invariant) and `p` is a position of this block.
        unsafe { *outp.add(p as usize) = (*leaves.get_unchecked(i as usize)).into() };
    }
}

/// Population count of each 64-bit lane with VPOPCNTQ: the only place that instruction is
/// used, in a function that enables its feature.
///
/// # Safety
/// The CPU must support AVX-512F and AVX512-VPOPCNTDQ (callers reach this only through
/// [`batch_avx512_vpop`], whose caller detected both at run time).
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
unsafe fn popcnt_vpop(x: __m512i) -> __m512i {
    _mm512_popcnt_epi64(x)
}

/// Population count of each 64-bit lane without VPOPCNTQ: nibble table lookup (VPSHUFB) and
/// a sum of absolute differences per 8 bytes.
#[inline(always)]
unsafe fn popcnt_bw(x: __m512i) -> __m512i {
    // SAFETY: register-only intrinsics of AVX-512F/BW; this function is inlined into
    // `block`, whose `#[target_feature]` and caller's run-time detection guarantee both.
    unsafe {
        let table = _mm512_broadcast_i32x4(_mm_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
        ));
        let nib = _mm512_set1_epi8(0x0F);
        let lo = _mm512_shuffle_epi8(table, _mm512_and_si512(x, nib));
        let hi = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi64::<4>(x), nib));
        _mm512_sad_epu8(_mm512_add_epi8(lo, hi), _mm512_setzero_si512())
    }
}

/// Batched lookup with AVX2: the same passes as [`batch_avx512`], four lookups per vector
/// (64-bit lanes), the lane compaction done by branch-free scalar appends (AVX2 has no
/// compress instruction) and the population count by nibble table (VPSHUFB + VPSADBW).
///
/// # Safety
/// The CPU must support AVX2 and POPCNT, and the Poptrie must have fewer than
/// [`MAX_NODES`] nodes.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn batch_avx2<A: Address>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    let n = addrs.len().min(out.len());
    let mut l = Lists {
        pos: [0; B + 8],
        idx: [0; B + 8],
        hi: [0; B + 8],
        lo: [0; B + 8],
        leaf_pos: [0; B + 8],
        leaf_idx: [0; B + 8],
    };
    for start in (0..n).step_by(B) {
        let end = (start + B).min(n);
        // SAFETY: the caller guarantees the CPU features and the node count.
        unsafe { block_avx2(t, &addrs[start..end], &mut out[start..end], &mut l) };
    }
}

/// Lane mask (all ones in each of the first `k` of four 64-bit lanes).
#[inline(always)]
unsafe fn lanes4(k: usize) -> __m256i {
    // SAFETY: register-only AVX2 intrinsics; inlined into `block_avx2`, whose
    // `#[target_feature]` and caller's run-time detection guarantee AVX2.
    unsafe { _mm256_cmpgt_epi64(_mm256_set1_epi64x(k as i64), _mm256_setr_epi64x(0, 1, 2, 3)) }
}

/// The low 32 bits of four 64-bit lanes, packed into a 128-bit vector.
#[inline(always)]
unsafe fn low32x4(x: __m256i) -> __m128i {
    // SAFETY: register-only AVX2 intrinsics; inlined into `block_avx2`, whose
    // `#[target_feature]` and caller's run-time detection guarantee AVX2.
    unsafe {
        let p = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
        _mm256_castsi256_si128(p)
    }
}

/// Population count of each 64-bit lane (AVX2 has no VPOPCNTQ).
#[inline(always)]
unsafe fn popcnt4(x: __m256i) -> __m256i {
    // SAFETY: register-only AVX2 intrinsics; inlined into `block_avx2`, whose
    // `#[target_feature]` and caller's run-time detection guarantee AVX2.
    unsafe {
        let table = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let nib = _mm256_set1_epi8(0x0F);
        let lo = _mm256_shuffle_epi8(table, _mm256_and_si256(x, nib));
        let hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi64::<4>(x), nib));
        _mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256())
    }
}

/// One block of at most `B` lookups, four lanes at a time.
///
/// # Safety
/// As [`batch_avx2`]; `addrs.len() == out.len() <= B`.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn block_avx2<A: Address>(
    t: &Poptrie<A>,
    addrs: &[A],
    out: &mut [Option<NextHop>],
    l: &mut Lists,
) {
    // SAFETY: the caller guarantees AVX2 and POPCNT (this function enables them), so every
    // intrinsic is supported. Memory: the masked loads (`lanes4`) read at most `n - c` or
    // `nw - c` live entries from lists of `B + 8` entries; the unchecked appends write entry
    // `nw`/`nn`/`nl` `<= c + i < B`; the masked output store writes positions `< n =
    // out.len()`; the gathers read `dir[top s bits]` (`2^s` entries) and nodes at child
    // indices the structure holds (its invariant, as in the scalar `Poptrie::find`), whose
    // count is below `MAX_NODES` (caller) so `3 × idx` fits the 32-bit gather index.
    unsafe {
        let n = addrs.len();
        debug_assert!(n <= B && out.len() == n);
        let s = t.cfg.s as u64;
        let dir = t.t.dir.as_ptr() as *const i32;
        let nodes = t.t.nodes.items.as_ptr() as *const i64;
        // `Option<NextHop>` is a `u32` (NextHop is a transparent NonZeroU32): 0 = no route.
        let outp = out.as_mut_ptr() as *mut u32;
        for (j, a) in addrs.iter().enumerate() {
            let (h, lo) = split(*a);
            l.hi[j] = h;
            l.lo[j] = lo;
        }
        let dir_shift = _mm256_set1_epi64x(64 - s as i64);
        let s_v = _mm256_set1_epi64x(s as i64);
        let flag = _mm_set1_epi32(DIR_LEAF as i32);
        let mut tmp_d = [0u32; 4];
        let mut tmp_hi = [0u64; 4];
        let mut tmp_lo = [0u64; 4];
        let mut nw = 0usize;
        for c in (0..n).step_by(4) {
            let m = lanes4(n - c);
            let hi = _mm256_maskload_epi64(l.hi.as_ptr().add(c) as *const _, m);
            let lo = _mm256_maskload_epi64(l.lo.as_ptr().add(c) as *const _, m);
            let di = _mm256_srlv_epi64(hi, dir_shift);
            let m32 = low32x4(m);
            let d = _mm256_mask_i64gather_epi32::<4>(_mm_setzero_si128(), dir, di, m32);
            let is_leaf = _mm_cmpeq_epi32(_mm_and_si128(d, flag), flag);
            _mm_maskstore_epi32(
                outp.add(c) as *mut _,
                _mm_and_si128(is_leaf, m32),
                _mm_andnot_si128(flag, d),
            );
            let node_bits =
                (_mm_movemask_ps(_mm_castsi128_ps(_mm_andnot_si128(is_leaf, m32))) as u32) & 0xF;
            let nhi = _mm256_or_si256(_mm256_sllv_epi64(hi, s_v), _mm256_srlv_epi64(lo, dir_shift));
            let nlo = _mm256_sllv_epi64(lo, s_v);
            _mm_storeu_si128(tmp_d.as_mut_ptr() as *mut _, d);
            _mm256_storeu_si256(tmp_hi.as_mut_ptr() as *mut _, nhi);
            _mm256_storeu_si256(tmp_lo.as_mut_ptr() as *mut _, nlo);
            for i in 0..4 {
                // Branch-free append: always write, advance only for listed lanes.
                *l.pos.get_unchecked_mut(nw) = (c + i) as u32;
                *l.idx.get_unchecked_mut(nw) = tmp_d[i];
                *l.hi.get_unchecked_mut(nw) = tmp_hi[i];
                *l.lo.get_unchecked_mut(nw) = tmp_lo[i];
                nw += ((node_bits >> i) & 1) as usize;
            }
        }
        let ones = _mm256_set1_epi64x(-1);
        let one = _mm256_set1_epi64x(1);
        let c63 = _mm256_set1_epi64x(63);
        let low32 = _mm256_set1_epi64x(0xFFFF_FFFF);
        let c32 = _mm256_set1_epi64x(32);
        let mut tmp_next = [0u32; 4];
        let mut tmp_pos = [0u32; 4];
        while nw != 0 {
            let mut nn = 0usize;
            let mut nl = 0usize;
            for c in (0..nw).step_by(4) {
                let m = lanes4(nw - c);
                let m32 = low32x4(m);
                let idx = _mm_maskload_epi32(l.idx.as_ptr().add(c) as *const _, m32);
                let pos = _mm_maskload_epi32(l.pos.as_ptr().add(c) as *const _, m32);
                let hi = _mm256_maskload_epi64(l.hi.as_ptr().add(c) as *const _, m);
                let lo = _mm256_maskload_epi64(l.lo.as_ptr().add(c) as *const _, m);
                let i3 = _mm_add_epi32(_mm_add_epi32(idx, idx), idx);
                let z = _mm256_setzero_si256();
                let vector = _mm256_mask_i32gather_epi64::<8>(z, nodes, i3, m);
                let leafvec = _mm256_mask_i32gather_epi64::<8>(z, nodes.add(1), i3, m);
                let bases = _mm256_mask_i32gather_epi64::<8>(z, nodes.add(2), i3, m);
                let v = _mm256_srli_epi64::<58>(hi);
                let bit = _mm256_and_si256(_mm256_srlv_epi64(vector, v), one);
                let is_node = _mm256_and_si256(_mm256_cmpeq_epi64(bit, one), m);
                let upto = _mm256_srlv_epi64(ones, _mm256_sub_epi64(c63, v));
                let sel = _mm256_and_si256(_mm256_blendv_epi8(leafvec, vector, is_node), upto);
                let base = _mm256_and_si256(
                    _mm256_srlv_epi64(bases, _mm256_and_si256(is_node, c32)),
                    low32,
                );
                let next = _mm256_sub_epi64(_mm256_add_epi64(base, popcnt4(sel)), one);
                let nhi = _mm256_or_si256(_mm256_slli_epi64::<6>(hi), _mm256_srli_epi64::<58>(lo));
                let nlo = _mm256_slli_epi64::<6>(lo);
                let node_bits = _mm256_movemask_pd(_mm256_castsi256_pd(is_node)) as u32;
                let leaf_bits =
                    _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_andnot_si256(is_node, m))) as u32;
                _mm_storeu_si128(tmp_next.as_mut_ptr() as *mut _, low32x4(next));
                _mm_storeu_si128(tmp_pos.as_mut_ptr() as *mut _, pos);
                _mm256_storeu_si256(tmp_hi.as_mut_ptr() as *mut _, nhi);
                _mm256_storeu_si256(tmp_lo.as_mut_ptr() as *mut _, nlo);
                for i in 0..4 {
                    // In place: `nn <= c + i`, so entry `c + i` has been read already.
                    *l.idx.get_unchecked_mut(nn) = tmp_next[i];
                    *l.pos.get_unchecked_mut(nn) = tmp_pos[i];
                    *l.hi.get_unchecked_mut(nn) = tmp_hi[i];
                    *l.lo.get_unchecked_mut(nn) = tmp_lo[i];
                    nn += ((node_bits >> i) & 1) as usize;
                    *l.leaf_idx.get_unchecked_mut(nl) = tmp_next[i];
                    *l.leaf_pos.get_unchecked_mut(nl) = tmp_pos[i];
                    nl += ((leaf_bits >> i) & 1) as usize;
                }
            }
            match &t.t.leaves {
                Leaves::Narrow(a) => read_leaves(&a.items, l, nl, outp),
                Leaves::Wide(a) => read_leaves(&a.items, l, nl, outp),
            }
            nw = nn;
        }
    }
}
