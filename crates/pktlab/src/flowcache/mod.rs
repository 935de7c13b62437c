//! Packet processing cache (paper 000, Hit Priority Cache, §3–§5) and the cache engine shared
//! with the CCN content stores: a set-associative (or fully associative) cache of keys, one
//! replacement [`Rule`] per file over one storage engine ([`store`]: a branch-light slice
//! layout for small sets, an O(1) index + intrusive-list layout for large ones), and the
//! paper's timing simulator ([`sim`], fig. 7).
//!
//! Keys of the flow cache are dense flow ids (`u32`, assigned per distinct 5-tuple by the
//! trace reader, so comparing ids is exactly comparing 5-tuples); the set index comes from a
//! hash of the 5-tuple ([`SetIndex`]: CRC-32 as in the paper, or XOR folding).
//!
//! Rules: [`lru`], [`fifo`], [`random`], [`clock`], [`slru`], [`hpc`] (HPC-n), [`spc`]
//! (Saturating Priority), [`lfu`], [`arc`], [`s3fifo`], [`sieve`], [`tinylfu`] (W-TinyLFU),
//! [`belady`] (offline optimum for the same set structure).

pub mod arc;
pub mod belady;
pub mod clock;
pub mod engine;
pub mod fifo;
pub mod hpc;
pub mod lfu;
pub mod lru;
pub mod random;
pub mod s3fifo;
pub mod sieve;
pub mod sim;
pub mod slru;
pub mod source;
pub mod spc;
pub mod store;
pub mod tinylfu;

pub use arc::Arc;
pub use belady::Belady;
pub use clock::Clock;
pub use engine::{Cache, Rule};
pub use fifo::Fifo;
pub use hpc::Hpc;
pub use lfu::Lfu;
pub use lru::Lru;
pub use random::Random;
pub use s3fifo::S3Fifo;
pub use sieve::Sieve;
pub use sim::{AnySim, Counters, DelayModel, Sim, SimConfig};
pub use slru::Slru;
pub use source::{TracePacket, TraceSource};
pub use spc::Spc;
pub use store::{Layout, Linked, Small, Store};
pub use tinylfu::TinyLfu;

crate::util::message_error!(
    /// The error type of the flow-cache module (an inconsistent in-memory trace).
    FlowcacheError
);

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

/// What an insertion did to the set's resident keys ([`Policy::insert_evict`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evicted {
    /// The key is resident now and no resident key left (the set had room).
    Nothing,
    /// The key is resident now and this key left (its way is the new key's).
    Key(u64),
    /// The policy does not say (it may also have declined the key): ask [`Policy::contains`].
    Unknown,
}

/// A replacement policy over `sets × ways` entries (a [`Cache`]: a [`Rule`] on a [`Store`]).
///
/// Contract: [`Policy::access`] looks `key` up in `set` and updates the policy's state for a
/// hit; it never inserts. [`Policy::insert`] is called only for a key that is not cached in
/// `set` (after a miss, possibly later — when the table lookup finishes) and places it,
/// evicting a victim if the set is full (an offline policy may decline to cache it).
/// `next_use` is the index of the request that will next use `key` ([`NEVER`] if none); only
/// offline policies ([`Belady`]) read it. Neither method allocates.
pub trait Policy {
    /// Short name, e.g. `lru` or `hpc4`.
    fn name(&self) -> String;
    /// Ways per set.
    fn ways(&self) -> usize;
    /// Number of sets.
    fn sets(&self) -> usize;
    /// Looks `key` up in `set`, updating priorities on a hit.
    fn access(&mut self, set: usize, key: u64, next_use: u64) -> Access;
    /// Inserts `key` (not cached) into `set`.
    fn insert(&mut self, set: usize, key: u64, next_use: u64);
    /// [`Policy::insert`], telling which resident key left the set if the policy knows it
    /// (the data plane's next-hop cache then reuses that key's way without asking
    /// [`Policy::contains`] about every way). The default says [`Evicted::Unknown`].
    #[inline(always)]
    fn insert_evict(&mut self, set: usize, key: u64, next_use: u64) -> Evicted {
        self.insert(set, key, next_use);
        Evicted::Unknown
    }
    /// The no-timing model's step: [`Policy::access`], then on a miss [`Policy::insert`] at
    /// once. Policies may override it with a fused, branch-free version of the same effect.
    #[inline(always)]
    fn access_insert(&mut self, set: usize, key: u64, next_use: u64) -> Access {
        let a = self.access(set, key, next_use);
        if a == Access::Miss {
            self.insert(set, key, next_use);
        }
        a
    }
    /// True when [`Policy::prefetch`] may do something; when false the simulators do not
    /// compile their prefetching loop in.
    const PREFETCH: bool = false;
    /// How many requests ahead the simulators should call [`Policy::prefetch`] (0: never, the
    /// default).
    fn prefetch_distance(&self) -> usize {
        0
    }
    /// A hint that `key` will be looked up in `set` soon (see [`store::Store::prefetch`]);
    /// changes nothing observable.
    #[inline(always)]
    fn prefetch(&self, set: usize, key: u64, stage: u8) {
        let _ = (set, key, stage);
    }
    /// Cached entries.
    fn len(&self) -> usize;
    /// True when nothing is cached.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The storage slot of cached `key` (content stores keep their data by slot), without
    /// touching the policy's state.
    fn slot_of(&self, set: usize, key: u64) -> Option<u32>;
    /// True if `key` is cached in `set` (resident, not a ghost), without touching the policy's
    /// state: `slot_of(set, key).is_some()`, which implementations may answer more cheaply
    /// (the data plane's next-hop cache asks it for every way of a set after an insertion).
    #[inline(always)]
    fn contains(&self, set: usize, key: u64) -> bool {
        self.slot_of(set, key).is_some()
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

/// The natural associativity of policy `name` when `ways` is `None`: 4 for the paper's 4-way
/// baselines (LRU, FIFO, random, SPC), 8 = two 4-way halves for SLRU, HPC-n and Belady, and 8
/// (HPC's budget) for the other policies; `None` for an unknown name.
pub fn policy_ways(name: &str, ways: Option<usize>) -> Option<usize> {
    let natural = match name {
        "lru" | "fifo" | "random" | "spc" => 4,
        "slru" | "belady" | "clock" | "lfu" | "arc" | "s3fifo" | "sieve" | "tinylfu" => 8,
        n if n
            .strip_prefix("hpc")
            .and_then(|k| k.parse::<u8>().ok())
            .is_some_and(|k| k > 0) =>
        {
            8
        }
        _ => return None,
    };
    Some(ways.unwrap_or(natural))
}

/// The paper-000 policies (Table 2), in report order.
pub const PAPER_POLICIES: &[&str] = &[
    "lru", "slru", "hpc1", "hpc2", "hpc4", "hpc8", "hpc16", "spc", "random", "fifo", "belady",
];

/// All policy names the CLI accepts (`hpcN` for any 1 ≤ N ≤ 255; these five listed), in
/// report order.
pub const POLICY_NAMES: &[&str] = &[
    "lru", "slru", "hpc1", "hpc2", "hpc4", "hpc8", "hpc16", "spc", "random", "fifo", "belady",
    "clock", "lfu", "arc", "s3fifo", "sieve", "tinylfu",
];

/// Minimum ways per set of policy `name` (2 for the split-set policies).
pub fn min_ways(name: &str) -> usize {
    match name {
        "slru" | "s3fifo" | "tinylfu" => 2,
        n if n.starts_with("hpc") => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests;
