//! IP longest-prefix match (LPM).
//!
//! One trait, [`Lpm`], and one file per algorithm:
//! * [`radix`] — plain binary trie, the oracle every other structure is tested against;
//! * [`poptrie`] — Poptrie (Asai & Ohara, SIGCOMM 2015) with direct pointing, leafvec and
//!   route aggregation, for IPv4 (`u32`) and IPv6 (`u128`);
//! * [`treebitmap`] — Tree BitMap (Eatherton, Varghese & Dittia, CCR 2004) with an initial
//!   array, IPv4 and IPv6;
//! * [`sail`] — SAIL_L (Yang et al., SIGCOMM 2014): arrays at pivot levels 16/24/32 with
//!   pivot pushing;
//! * [`dxr`] — DXR (Zec, Rizzo & Mikuc, CCR 2012): direct table plus binary search over
//!   ranges, as D16R and D18R;
//! * [`dir24_8`] — DIR-24-8 in DPDK `rte_lpm`'s layout and update algorithm (IPv6: the
//!   `rte_lpm6` chain of 8-bit groups);
//! * [`by_depth`] — cost of single lookups by the depth of the matched route (the paper's box
//!   plot), timed with a serialised TSC;
//! * [`shared`] — concurrent access: one updater and many lookup threads, with atomic
//!   publication and reclamation after a grace period (left-right).
//!
//! The multibit structures keep their routes in a [`Radix`] trie and build or repair their
//! lookup structure from it (`walk`). [`Algo`] names the configurations the CLI and
//! benchmarks accept; [`Algo::visit`] hands a caller the concrete type of one, so timing
//! loops run without dynamic dispatch per lookup.
//!
//! Which have a published IPv6 form: Poptrie and Tree BitMap (both papers treat IPv6);
//! DIR-24-8's IPv6 form is DPDK's `rte_lpm6` layout (24-bit table, then 8-bit groups). The
//! SAIL paper evaluates IPv4 only and DXR's entry formats are IPv4-only: their `u128`
//! versions work and are tested, but are pktlab's generalisations.

pub mod by_depth;
pub mod dir24_8;
pub mod dxr;
pub mod poptrie;
pub mod radix;
pub mod sail;
pub mod shared;
pub mod treebitmap;
mod walk;

use crate::net::{Address, NextHop, Prefix};
pub use dir24_8::Dir24_8;
pub use dxr::Dxr;
pub use poptrie::{Poptrie, PoptrieConfig, Variant};
pub use radix::Radix;
pub use sail::Sail;
use std::fmt;
use std::str::FromStr;
pub use treebitmap::{TbmConfig, TreeBitmap};

crate::util::message_error!(
    /// The error type of the LPM module (a configuration name that does not parse, or a
    /// kernel this CPU cannot run).
    LpmError
);

/// Size statistics of an LPM structure, in the paper's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LpmStats {
    /// Routes stored.
    pub prefixes: usize,
    /// Internal (non-leaf) nodes of the lookup structure.
    pub internal_nodes: usize,
    /// Leaf entries of the lookup structure (for Poptrie: entries of the leaf array, not
    /// counting leaves held directly in the direct-pointing array).
    pub leaves: usize,
}

/// A longest-prefix-match table for addresses of family `A`.
///
/// Contract:
/// * `lookup(a)` returns the next hop of the longest stored prefix containing `a`, or `None`;
/// * `insert` replaces the next hop of an equal prefix and returns the previous one;
/// * `remove` returns the removed next hop, `None` if the prefix was absent;
/// * after any sequence of `build`/`insert`/`remove`, lookups agree with [`Radix`] fed the
///   same sequence (checked by property tests for every implementation);
/// * `lookup_batch` gives exactly the results of `lookup` on each address (implementations
///   overlap the memory accesses of several lookups);
/// * `memory_bytes` counts the bytes of the lookup structure itself (what a forwarding plane
///   must keep in cache), not the routing information base kept for updates.
pub trait Lpm<A: Address>: Send + Sync {
    /// Short name of the configuration, e.g. `poptrie18`.
    fn name(&self) -> String;
    /// Replaces the whole content with `routes` (bulk build; later duplicates win).
    fn build(&mut self, routes: &[(Prefix<A>, NextHop)]);
    /// Adds or replaces a route; returns the previous next hop of that exact prefix.
    fn insert(&mut self, prefix: Prefix<A>, nh: NextHop) -> Option<NextHop>;
    /// Removes a route; returns its next hop if it was present.
    fn remove(&mut self, prefix: Prefix<A>) -> Option<NextHop>;
    /// Longest-prefix match of one address.
    fn lookup(&self, addr: A) -> Option<NextHop>;
    /// Longest-prefix match of a standard-library address of the table's family
    /// (`Ipv4Addr` for `u32` tables, `Ipv6Addr` for `u128` tables).
    fn lookup_ip(&self, ip: A::Std) -> Option<NextHop> {
        self.lookup(A::from_std(ip))
    }
    /// Longest-prefix match of any `IpAddr`: `None` for an address of the other family.
    fn lookup_ip_any(&self, ip: std::net::IpAddr) -> Option<NextHop> {
        A::from_ip(ip).and_then(|a| self.lookup(a))
    }
    /// Looks up `addrs[i]` into `out[i]` for every `i < min(addrs.len(), out.len())`.
    /// Structures with a batched walk override it; the default is [`Lpm::lookup_each`].
    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.lookup_each(addrs, out);
    }
    /// Looks up `addrs[i]` into `out[i]` one address at a time with [`Lpm::lookup`]: the
    /// scalar loop, compiled for the implementing type (the call to `lookup` is static and
    /// may be inlined, as in a caller that holds the concrete structure), so that a caller
    /// behind `dyn Lpm` pays one dynamic call per slice rather than per address. Not to be
    /// overridden with a batched walk: it is what `--batch 1` measures.
    fn lookup_each(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        for (a, o) in addrs.iter().zip(out.iter_mut()) {
            *o = self.lookup(*a);
        }
    }
    /// Bytes used by the lookup structure.
    fn memory_bytes(&self) -> usize;
    /// Node and leaf counts.
    fn stats(&self) -> LpmStats;
}

/// A zeroed table of `n` entries for a large directly indexed array (DIR-24-8's 64 MiB
/// `tbl24`), whose whole 2 MiB pages the kernel is asked to back with transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`, effective when THP is `always` or `madvise`, as on Debian). With
/// 4 KiB pages a random lookup in a 64 MiB table misses the TLB almost every time; with 2 MiB
/// pages the table needs 32 TLB entries. The contents are plain zeros either way; on other
/// systems, or if the kernel refuses, it is an ordinary vector.
pub(crate) fn huge_table<T: Copy + Default>(n: usize) -> Vec<T> {
    let v = vec![T::default(); n];
    crate::thp::advise(&v);
    v
}

/// A copy of `src` made with [`huge_table`] (so clones keep the huge-page advice).
pub(crate) fn huge_copy<T: Copy + Default>(src: &[T]) -> Vec<T> {
    let mut v = huge_table(src.len());
    v.copy_from_slice(src);
    v
}

/// Hints the CPU to bring the cache line at `p` into L1. Never faults, whatever `p` is.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
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

/// The LPM configurations pktlab knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algo {
    /// Binary radix trie (oracle).
    Radix,
    /// Poptrie with the given direct-pointing bits and variant.
    Poptrie(PoptrieConfig),
    /// Tree BitMap with the given initial array.
    TreeBitmap(TbmConfig),
    /// SAIL_L.
    Sail,
    /// DXR with a direct table of 2^k chunks (`d16r`, `d18r`).
    Dxr(u8),
    /// DIR-24-8 (DPDK `rte_lpm`).
    Dir24_8,
}

/// Code run with the concrete type of an [`Algo`]: see [`Algo::visit`].
pub trait Visit<A: Address> {
    /// What the visit returns.
    type Out;
    /// Called with an empty table of the algorithm's concrete type.
    fn visit<T: Lpm<A> + Clone + 'static>(self, table: T) -> Self::Out;
}

impl Algo {
    /// Every named configuration, in the order benchmarks list them.
    pub const ALL: [&'static str; 14] = [
        "radix",
        "poptrie0",
        "poptrie16",
        "poptrie18",
        "poptrie18-basic",
        "poptrie18-leafvec",
        "poptrie0-basic",
        "poptrie0-leafvec",
        "poptrie16-basic",
        "treebitmap",
        "sail",
        "d16r",
        "d18r",
        "dir24_8",
    ];

    /// The algorithms of the Poptrie paper's comparison table, plus DPDK's DIR-24-8.
    pub const PAPER: [&'static str; 7] = [
        "treebitmap",
        "sail",
        "d16r",
        "d18r",
        "poptrie16",
        "poptrie18",
        "dir24_8",
    ];

    /// Calls `v` with an empty table of this configuration, as its concrete type.
    pub fn visit<A: Address, V: Visit<A>>(self, v: V) -> V::Out {
        match self {
            Algo::Radix => v.visit(Radix::<A>::new()),
            Algo::Poptrie(c) => v.visit(Poptrie::<A>::new(c)),
            Algo::TreeBitmap(c) => v.visit(TreeBitmap::<A>::new(c)),
            Algo::Sail => v.visit(Sail::<A>::new()),
            Algo::Dxr(k) => v.visit(Dxr::<A>::new(k)),
            Algo::Dir24_8 => v.visit(Dir24_8::<A>::new()),
        }
    }

    /// Makes an empty structure of this configuration, boxed behind the trait.
    pub fn make<A: Address>(self) -> Box<dyn Lpm<A>> {
        struct Boxed;
        impl<A: Address> Visit<A> for Boxed {
            type Out = Box<dyn Lpm<A>>;
            fn visit<T: Lpm<A> + Clone + 'static>(self, table: T) -> Box<dyn Lpm<A>> {
                Box::new(table)
            }
        }
        self.visit(Boxed)
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Algo::Radix => f.write_str("radix"),
            Algo::Poptrie(c) => c.fmt(f),
            Algo::TreeBitmap(c) => c.fmt(f),
            Algo::Sail => f.write_str("sail"),
            Algo::Dxr(k) => write!(f, "d{k}r"),
            Algo::Dir24_8 => f.write_str("dir24_8"),
        }
    }
}

/// An unknown algorithm name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown LPM algorithm {0:?} (known: radix, poptrieS[-basic|-leafvec][@generic|@popcnt|@avx2|@avx512] with S in 0..=24, e.g. poptrie18; treebitmap[I] with I in 0..=20; sail; d16r, d18r (dKr, K in 1..=24); dir24_8)")]
pub struct UnknownAlgo(pub String);

impl FromStr for Algo {
    type Err = UnknownAlgo;

    /// Parses `radix`, `poptrie<S>[-basic|-leafvec]` (S = direct-pointing bits, 0..=24),
    /// `treebitmap[<I>]`, `sail`, `d<K>r` or `dir24_8`.
    fn from_str(s: &str) -> Result<Self, UnknownAlgo> {
        let unknown = || UnknownAlgo(s.to_string());
        match s {
            "radix" => return Ok(Algo::Radix),
            "sail" => return Ok(Algo::Sail),
            "dir24_8" => return Ok(Algo::Dir24_8),
            _ => {}
        }
        if s.starts_with("treebitmap") {
            return s.parse().map(Algo::TreeBitmap).map_err(|_| unknown());
        }
        if let Some(k) = s.strip_prefix('d').and_then(|r| r.strip_suffix('r')) {
            return match k.parse::<u8>() {
                Ok(n) if (1..=24).contains(&n) && n.to_string() == k => Ok(Algo::Dxr(n)),
                _ => Err(unknown()),
            };
        }
        s.parse::<PoptrieConfig>()
            .map(Algo::Poptrie)
            .map_err(|_| unknown())
    }
}

#[cfg(test)]
mod tests;
