//! Packet processing cache (paper 000, Hit Priority Cache, §3–§5): a set-associative cache of
//! flow keys in front of the slow table lookups, with one replacement policy per file behind the
//! [`Policy`] trait, and the paper's timing simulator ([`sim`], fig. 7).
//!
//! Keys are dense flow ids (`u32`, assigned per distinct 5-tuple by the trace reader, so
//! comparing ids is exactly comparing 5-tuples); the set index comes from a hash of the
//! 5-tuple ([`SetIndex`]: CRC-32 as in the paper, or XOR folding).
//!
//! Every policy keeps a set's ways in one slice ordered by priority (index 0 = most
//! protected, last = next victim) and moves entries with slice rotations: with ≤ 16 ways this
//! is a few register moves, allocation-free and branch-light.
//!
//! Policies: [`lru`], [`slru`], [`hpc`] (HPC-n), [`spc`] (Saturating Priority), [`random`],
//! [`fifo`], [`belady`] (offline optimum for the same set structure).

pub mod belady;
pub mod fifo;
pub mod hpc;
pub mod lru;
pub mod random;
pub mod sim;
pub mod slru;
pub mod source;
pub mod spc;

pub use belady::Belady;
pub use fifo::Fifo;
pub use hpc::Hpc;
pub use lru::Lru;
pub use random::Random;
pub use sim::{AnySim, Counters, DelayModel, Sim, SimConfig};
pub use slru::Slru;
pub use source::{TracePacket, TraceSource};
pub use spc::Spc;

/// Marks an empty way.
pub const EMPTY: u32 = u32::MAX;

/// "Never used again" for [`Policy`]'s `next_use` argument.
pub const NEVER: u64 = u64::MAX;

/// Outcome of a cache lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The key is not cached.
    Miss,
    /// The key is cached.
    Hit,
    /// The key is cached and the hit caused an entry exchange between regions (HPC), which
    /// costs the extra exchange latency of the paper's delay model.
    Exchange,
}

/// A replacement policy over `sets × ways` entries.
///
/// Contract: [`Policy::access`] looks `key` up in `set` and updates the policy's state for a
/// hit; it never inserts. [`Policy::insert`] is called only for a key that is not cached in
/// `set` (after a miss, possibly later — when the table lookup finishes) and places it,
/// evicting a victim if the set is full (an offline policy may decline to cache it).
/// `next_use` is the index of the packet that will next use `key` ([`NEVER`] if none); only
/// offline policies ([`Belady`]) read it. Neither method allocates.
pub trait Policy {
    /// Short name, e.g. `lru` or `hpc4`.
    fn name(&self) -> String;
    /// Ways per set.
    fn ways(&self) -> usize;
    /// Number of sets.
    fn sets(&self) -> usize;
    /// Looks `key` up in `set`, updating priorities on a hit.
    fn access(&mut self, set: usize, key: u32, next_use: u64) -> Access;
    /// Inserts `key` (not cached) into `set`.
    fn insert(&mut self, set: usize, key: u32, next_use: u64);
    /// The keys `set` holds, in way order ([`EMPTY`] for an empty way) — for callers that
    /// keep a value beside each cached key (the data plane's next-hop cache).
    fn set_keys(&self, set: usize) -> &[u32];
    /// The no-timing model's step: [`Policy::access`], then on a miss [`Policy::insert`] at
    /// once. Policies may override it with a fused, branch-free version of the same effect.
    #[inline(always)]
    fn access_insert(&mut self, set: usize, key: u32, next_use: u64) -> Access {
        let a = self.access(set, key, next_use);
        if a == Access::Miss {
            self.insert(set, key, next_use);
        }
        a
    }
}

/// How the set index is computed from the 5-tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SetIndex {
    /// CRC-32 of the flow ID (the paper: reduced to 7 bits for 128 sets).
    #[default]
    Crc,
    /// XOR folding of the flow ID.
    Xor,
}

/// Position of `key` in a set's ways.
#[inline(always)]
pub(crate) fn find(ways: &[u32], key: u32) -> Option<usize> {
    // Branch-free scan: sets are small, and a data-dependent early exit mispredicts.
    let mut hit = usize::MAX;
    for (i, &k) in ways.iter().enumerate().rev() {
        if k == key {
            hit = i;
        }
    }
    (hit != usize::MAX).then_some(hit)
}

/// Moves `w[i]` to the front, shifting `w[..i]` back by one (a small `rotate_right(1)` on
/// `w[..=i]` without the generic rotation's call overhead).
#[inline(always)]
pub(crate) fn to_front<T: Copy>(w: &mut [T], i: usize) {
    let x = w[i];
    let mut j = i;
    while j > 0 {
        w[j] = w[j - 1];
        j -= 1;
    }
    w[0] = x;
}

/// Calls `f` on `w`, giving the optimiser a compile-time length for the common 4- and 8-way
/// sets (the scans and shifts then unroll completely); other sizes take the generic path.
#[inline(always)]
pub(crate) fn fixed<R>(w: &mut [u32], mut f: impl FnMut(&mut [u32]) -> R) -> R {
    if let Ok(a) = <&mut [u32; 4]>::try_from(&mut *w) {
        return f(&mut a[..]);
    }
    if let Ok(a) = <&mut [u32; 8]>::try_from(&mut *w) {
        return f(&mut a[..]);
    }
    f(w)
}

/// First empty way at or after `from`, or `None`.
#[inline(always)]
pub(crate) fn first_empty(ways: &[u32], from: usize) -> Option<usize> {
    ways[from..]
        .iter()
        .position(|&k| k == EMPTY)
        .map(|i| i + from)
}

/// A policy built from its CLI name (`lru, slru, hpc1…hpc16, spc, random, fifo, belady`) for
/// `entries` total entries; `ways = None` takes the policy's natural associativity (4 for the
/// 4-way baselines, 8 = two 4-way halves for SLRU/HPC/Belady).
pub fn policy_ways(name: &str, ways: Option<usize>) -> Option<usize> {
    let natural = match name {
        "lru" | "fifo" | "random" | "spc" => 4,
        "slru" | "belady" => 8,
        n if n.starts_with("hpc") => 8,
        _ => return None,
    };
    Some(ways.unwrap_or(natural))
}

/// All policy names the CLI accepts, in report order.
pub const POLICY_NAMES: &[&str] = &[
    "lru", "slru", "hpc1", "hpc2", "hpc4", "hpc8", "hpc16", "spc", "random", "fifo", "belady",
];

#[cfg(test)]
mod tests;
