//! Lookups: the scalar path (Algorithm 1) and the batch kernels.

use super::*;

impl<A: Address> Poptrie<A> {
    /// Direct-pointing index of `a`: its top `s` bits (0 when `s` = 0), branch-free: the
    /// top 32 bits shifted right by `32 - s` (at least 8, so never an overlong shift).
    #[inline(always)]
    pub(super) fn dir_index(&self, a: A) -> usize {
        (a.top(32) as u64 >> (32 - self.cfg.s as u32)) as usize
    }

    /// One lookup (the scalar path): the direct-pointing entry, then one node per stride
    /// with the key shifted so that the next 6 bits are always its top bits, as in the
    /// paper's Algorithm 1. `P` is the population count (instruction or software).
    #[inline(always)]
    pub(super) fn find<P: PopCount, L: Copy + Into<u32>>(&self, leaves: &[L], a: A) -> u32 {
        let dir = &self.t.dir[..];
        let nodes = &self.t.nodes.items[..];
        let i = self.dir_index(a);
        debug_assert!(i < dir.len());
        // SAFETY: `dir` has 2^s entries and `dir_index` is the top `s` bits of the address.
        let d = unsafe { *dir.get_unchecked(i) };
        if d & DIR_LEAF != 0 {
            return d & !DIR_LEAF;
        }
        // SAFETY: (this and the two reads below) the structure's invariant, kept by `pack`
        // and `store_dir`: a direct-pointing entry without DIR_LEAF is a live node index; a
        // node's set `vector` bits have their children at `base1 ..`, one per bit, and its
        // leaf slots have their leaves at `base0 ..`, the first leaf slot always carrying a
        // `leafvec` bit, so the popcount-derived indices below stay inside live blocks.
        let mut n = unsafe { *nodes.get_unchecked(d as usize) };
        let mut key = a.shl(self.cfg.s as u32);
        loop {
            let v = key.top(STRIDE);
            key = key.shl(STRIDE);
            let mask = upto(v);
            if (n.vector >> v) & 1 == 0 {
                let r = (n.base0 + P::count(n.leafvec & mask) - 1) as usize;
                debug_assert!(r < leaves.len());
                // SAFETY: see above.
                return unsafe { *leaves.get_unchecked(r) }.into();
            }
            let c = (n.base1 + P::count(n.vector & mask) - 1) as usize;
            debug_assert!(c < nodes.len());
            // SAFETY: see above.
            n = unsafe { *nodes.get_unchecked(c) };
        }
    }

    /// The kernel this Poptrie runs (resolved: never `Auto`).
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The kernel of `lookup_batch` calls of at least [`SIMD_MIN_BATCH`] addresses (smaller
    /// ones run [`Poptrie::kernel`]): the same kernel when one was named; under `auto`, the
    /// walk this process's timing chose ([`auto_batch`]), else the scalar one. Fixed when the
    /// Poptrie is made and at each `build` (a Poptrie made before the timing and only
    /// updated since keeps the scalar walk).
    pub fn batch_kernel(&self) -> Kernel {
        self.batch_kernel
    }

    /// Batched lookup over groups of `G` addresses, level-synchronous and branch-free in the
    /// data: round 0 prefetches every direct-pointing entry of the group and writes the
    /// results of those that are leaves; the others go to a work list (compacted without
    /// branches: `list[n] = j; n += is_node`). Each later round advances every listed lookup
    /// by one node and prefetches what it reads next — a child node (kept on the list) or a
    /// leaf (moved to the leaf list) — and a last pass reads the leaves. Under random traffic
    /// the leaf-or-node outcomes are unpredictable, so avoiding branches on them matters as
    /// much as overlapping the cache misses.
    #[inline(always)]
    pub(super) fn batch<L: Copy + Into<u32>>(
        &self,
        leaves: &[L],
        addrs: &[A],
        out: &mut [Option<NextHop>],
    ) {
        const G: usize = 32;
        let dir = &self.t.dir[..];
        let nodes = &self.t.nodes.items[..];
        let s = self.cfg.s as u32;
        for (ac, oc) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            let mut cur = [0u32; G];
            for (c, a) in cur.iter_mut().zip(ac) {
                *c = self.dir_index(*a) as u32;
                prefetch(dir.as_ptr().wrapping_add(*c as usize));
            }
            // Keys shifted so that the next stride is always their top 6 bits; made on the
            // first node visit only (most random lookups end in the direct-pointing array).
            let mut key = [A::ZERO; G];
            // Work list of lookups still inside nodes (indices into the group).
            let mut work = [0u8; G];
            let mut nw = 0usize;
            for (j, (c, o)) in cur.iter_mut().zip(oc.iter_mut()).enumerate() {
                let d = dir[*c as usize];
                *c = d & !DIR_LEAF;
                *o = NextHop::from_raw(*c);
                work[nw & (G - 1)] = j as u8;
                nw += ((d >> 31) ^ 1) as usize;
                prefetch(nodes.as_ptr().wrapping_add(*c as usize));
            }
            for &j in &work[..nw.min(G)] {
                let j = j as usize & (G - 1);
                key[j] = if s == 0 { ac[j] } else { ac[j].shl(s) };
            }
            // Indices are masked with `G - 1` (a no-op: they are < G) so that the compiler
            // drops the bounds checks. A lookup that reaches a leaf writes its result at
            // once: nothing depends on that load, so out-of-order execution overlaps it with
            // the other lookups; one that continues writes a placeholder, later overwritten.
            while nw != 0 {
                let mut next = 0usize;
                for w in 0..nw {
                    let j = work[w & (G - 1)] as usize & (G - 1);
                    let n = &nodes[cur[j] as usize];
                    let k = key[j];
                    let v = k.top(STRIDE);
                    key[j] = k.shl(STRIDE);
                    let mask = upto(v);
                    let is_node = ((n.vector >> v) & 1) as u32;
                    let child = n
                        .base1
                        .wrapping_add((n.vector & mask).count_ones())
                        .wrapping_sub(1);
                    let leaf = n
                        .base0
                        .wrapping_add((n.leafvec & mask).count_ones())
                        .wrapping_sub(1);
                    // Select without branching: m = all ones if the slot is a node.
                    let m = 0u32.wrapping_sub(is_node);
                    cur[j] = child & m;
                    prefetch(nodes.as_ptr().wrapping_add((child & m) as usize));
                    // A node always has leaves below it, so `leaves` is not empty here.
                    oc[j] = NextHop::from_raw(leaves[(leaf & !m) as usize].into());
                    work[next & (G - 1)] = j as u8;
                    next += is_node as usize;
                }
                nw = next;
            }
        }
    }

    /// The batch walk of kernel `k` over `addrs` (the dispatch of `lookup_batch`).
    ///
    /// # Safety
    /// `k` must be supported by the running CPU ([`Kernel::supported`]), as every kernel
    /// [`Kernel::resolve`] returns is.
    pub(super) unsafe fn batch_with(&self, k: Kernel, addrs: &[A], out: &mut [Option<NextHop>]) {
        #[cfg(target_arch = "x86_64")]
        match k {
            Kernel::Avx512 if self.t.nodes.items.len() < simd::MAX_NODES => {
                // SAFETY: by the caller's contract `k` is supported on this CPU, which
                // therefore has AVX-512 F/VL/BW; `vpopcnt` is `has_vpopcnt()`, run-time
                // detection of VPOPCNTDQ (tests may only clear it); the node count was checked.
                unsafe {
                    if self.vpopcnt {
                        simd::batch_avx512_vpop::<A>(self, addrs, out)
                    } else {
                        simd::batch_avx512::<A>(self, addrs, out)
                    }
                }
            }
            Kernel::Avx2 if self.t.nodes.items.len() < simd::MAX_NODES => {
                // SAFETY: by the caller's contract `k` is supported on this CPU, which
                // therefore has AVX2 and POPCNT; the node count was checked.
                unsafe { simd::batch_avx2(self, addrs, out) }
            }
            Kernel::Generic | Kernel::Auto => self.batch_any(addrs, out),
            // SAFETY: by the caller's contract `k` (popcnt, or a SIMD kernel over too many
            // nodes) is supported on this CPU, which therefore has POPCNT.
            _ => unsafe { self.batch_popcnt(addrs, out) },
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = k;
            self.batch_any(addrs, out)
        }
    }

    #[inline(always)]
    pub(super) fn batch_any(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        match &self.t.leaves {
            Leaves::Narrow(l) => self.batch(&l.items, addrs, out),
            Leaves::Wide(l) => self.batch(&l.items, addrs, out),
        }
    }

    /// `batch_any` compiled with the POPCNT instruction.
    ///
    /// # Safety
    /// The CPU must support POPCNT (checked by the caller).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    pub(super) unsafe fn batch_popcnt(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.batch_any(addrs, out)
    }
}

/// Hints the CPU to bring the cache line at `p` into L1. Never faults, whatever `p` is.
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch is a hint; it does not dereference `p` architecturally and never
    // faults, even for invalid addresses. SSE is part of the x86-64 baseline.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(p as *const i8, _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// True if the CPU has AVX512-VPOPCNTDQ (a population count per 64-bit lane).
pub(super) fn has_vpopcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A population count, as an instruction or in software: the scalar lookup is generic over
/// it so that both forms inline into the caller (a `#[target_feature]` function cannot be
/// inlined into code compiled without that feature).
pub(super) trait PopCount {
    fn count(x: u64) -> u32;
}

/// Population count in portable code (a dozen instructions on baseline x86-64).
pub(super) struct SoftPop;

impl PopCount for SoftPop {
    #[inline(always)]
    fn count(x: u64) -> u32 {
        x.count_ones()
    }
}

/// Population count with the POPCNT instruction. Only used by a Poptrie whose kernel was
/// resolved at construction on a CPU that has POPCNT (see [`Kernel::resolve`]).
pub(super) struct HwPop;

impl PopCount for HwPop {
    #[inline(always)]
    fn count(x: u64) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            let r: u64;
            // SAFETY: POPCNT only reads and writes the two registers and the flags; it is
            // executed only by Poptries whose kernel resolved to one needing POPCNT, which
            // `Kernel::supported` checked on this CPU.
            unsafe {
                std::arch::asm!("popcnt {r}, {x}", x = in(reg) x, r = lateout(reg) r,
                    options(pure, nomem, nostack));
            }
            r as u32
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            x.count_ones()
        }
    }
}
