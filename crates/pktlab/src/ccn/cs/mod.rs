//! Content Store (CS) — the cache of Data packets in a CCN router (paper 003 §4: Cefore's CS,
//! whose size drives the router's forwarding rate), with one replacement policy per file:
//! [`lru`], [`fifo`], [`lfu`], [`random`].
//!
//! Contract of [`ContentStore`]: fixed capacity chosen at construction (all memory allocated
//! then, nothing per packet), O(1) `lookup` and `insert`. Keys are 64-bit name hashes (the
//! forwarder verifies the stored name on a hit); a store hands out **slot** numbers in
//! `0..capacity` so that the caller can keep the cached packets in its own fixed arena.

pub mod fifo;
pub mod index;
pub mod lfu;
pub mod lru;
pub mod random;

pub use fifo::Fifo;
pub use index::KeyIndex;
pub use lfu::Lfu;
pub use lru::Lru;
pub use random::RandomCs;

/// A fixed-capacity cache of keys mapped to slots.
pub trait ContentStore {
    /// Maximum number of entries.
    fn capacity(&self) -> usize;
    /// Current number of entries.
    fn len(&self) -> usize;
    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Looks `key` up; on a hit updates the policy state and returns its slot.
    fn lookup(&mut self, key: u64) -> Option<u32>;
    /// Inserts `key` (evicting a victim chosen by the policy when full) and returns its slot;
    /// a key already present is treated as a hit. Capacity must be > 0.
    fn insert(&mut self, key: u64) -> u32;
}

/// The replacement policies, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Least recently used.
    Lru,
    /// First in, first out.
    Fifo,
    /// Least frequently used (in-cache counts, LRU among ties).
    Lfu,
    /// Uniformly random victim.
    Random,
}

impl Policy {
    /// Parses `lru`, `fifo`, `lfu` or `random`.
    pub fn parse(s: &str) -> Option<Policy> {
        Some(match s {
            "lru" => Policy::Lru,
            "fifo" => Policy::Fifo,
            "lfu" => Policy::Lfu,
            "random" => Policy::Random,
            _ => return None,
        })
    }

    /// The policy's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Lru => "lru",
            Policy::Fifo => "fifo",
            Policy::Lfu => "lfu",
            Policy::Random => "random",
        }
    }
}

/// Any policy behind enum dispatch (one match per call, no virtual call).
#[derive(Clone, Debug)]
pub enum AnyCs {
    /// LRU.
    Lru(Lru),
    /// FIFO.
    Fifo(Fifo),
    /// LFU.
    Lfu(Lfu),
    /// Random.
    Random(RandomCs),
}

impl AnyCs {
    /// A store of `policy` with `capacity` entries (`seed` drives the random policy).
    pub fn new(policy: Policy, capacity: usize, seed: u64) -> AnyCs {
        match policy {
            Policy::Lru => AnyCs::Lru(Lru::new(capacity)),
            Policy::Fifo => AnyCs::Fifo(Fifo::new(capacity)),
            Policy::Lfu => AnyCs::Lfu(Lfu::new(capacity)),
            Policy::Random => AnyCs::Random(RandomCs::new(capacity, seed)),
        }
    }
}

macro_rules! dispatch {
    ($s:expr, $c:ident => $e:expr) => {
        match $s {
            AnyCs::Lru($c) => $e,
            AnyCs::Fifo($c) => $e,
            AnyCs::Lfu($c) => $e,
            AnyCs::Random($c) => $e,
        }
    };
}

impl ContentStore for AnyCs {
    fn capacity(&self) -> usize {
        dispatch!(self, c => c.capacity())
    }
    fn len(&self) -> usize {
        dispatch!(self, c => c.len())
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        dispatch!(self, c => c.lookup(key))
    }
    #[inline]
    fn insert(&mut self, key: u64) -> u32 {
        dispatch!(self, c => c.insert(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Properties every policy must satisfy.
    #[test]
    fn common_contract() {
        for p in [Policy::Lru, Policy::Fifo, Policy::Lfu, Policy::Random] {
            let mut cs = AnyCs::new(p, 64, 1);
            let mut x = 1u64;
            for i in 0..10_000u64 {
                x = crate::util::splitmix64(x);
                let k = x % 200;
                match cs.lookup(k) {
                    Some(s) => assert!((s as usize) < 64),
                    None => {
                        let s = cs.insert(k);
                        assert!((s as usize) < 64);
                        assert!(cs.lookup(k).is_some(), "{p:?} key just inserted");
                    }
                }
                assert!(cs.len() <= 64);
                if i > 1000 {
                    assert_eq!(cs.len(), 64);
                }
            }
            // Slots are unique among resident keys.
            let mut seen = std::collections::HashSet::new();
            for k in 0..200 {
                if let Some(s) = cs.lookup(k) {
                    assert!(seen.insert(s), "{p:?}: slot {s} shared");
                }
            }
            assert_eq!(seen.len(), 64);
        }
    }

    #[test]
    fn eviction_orders() {
        // LRU keeps the recently touched key, FIFO evicts the oldest regardless.
        let mut lru = Lru::new(2);
        let mut fifo = Fifo::new(2);
        for c in [&mut lru as &mut dyn ContentStore, &mut fifo] {
            c.insert(1);
            c.insert(2);
            c.lookup(1);
            c.insert(3);
        }
        assert!(lru.lookup(1).is_some() && lru.lookup(2).is_none());
        assert!(fifo.lookup(1).is_none() && fifo.lookup(2).is_some());
        // LFU keeps the frequent key.
        let mut lfu = Lfu::new(2);
        lfu.insert(1);
        for _ in 0..5 {
            lfu.lookup(1);
        }
        lfu.insert(2);
        lfu.insert(3);
        assert!(lfu.lookup(1).is_some() && lfu.lookup(2).is_none() && lfu.lookup(3).is_some());
    }
}
