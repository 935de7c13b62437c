//! Content Store (CS) — the cache of Data packets in a CCN router (paper 003 §4: Cefore's CS,
//! whose size drives the router's forwarding rate). The replacement policies are the cache
//! engine's rules ([`crate::flowcache`]: one file per rule) on its O(1) fully associative
//! layout ([`crate::flowcache::store::Linked`]): this module only adapts them to the
//! [`ContentStore`] interface the forwarder uses.
//!
//! Contract of [`ContentStore`]: fixed capacity chosen at construction (all memory allocated
//! then, nothing per packet), O(1) `lookup` and `insert` (O(log n) for LFU). Keys are 64-bit
//! name hashes (the forwarder verifies the stored name on a hit); a store hands out **slot**
//! numbers in `0..capacity` so that the caller can keep the cached packets in its own fixed
//! arena; a slot stays with its key while the key is cached.

use crate::flowcache::store::Linked;
use crate::flowcache::{self as fc, Cache, Policy as _, Rule};

pub use crate::flowcache::store::KeyIndex;

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

/// A content store: rule `R` on one fully associative set of `capacity` entries.
#[derive(Clone, Debug)]
pub struct Cs<R: Rule> {
    c: Cache<R, Linked<R::Meta>>,
    capacity: usize,
}

impl<R: Rule> Cs<R> {
    /// An empty store of `capacity` entries under `rule`.
    pub fn with_rule(rule: R, capacity: usize) -> Self {
        Cs {
            c: Cache::new(rule, 1, capacity.max(1)),
            capacity,
        }
    }
}

impl<R: Rule> ContentStore for Cs<R> {
    fn capacity(&self) -> usize {
        self.capacity
    }
    fn len(&self) -> usize {
        self.c.len()
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        match self.c.access(0, key, fc::NEVER) {
            fc::Access::Miss => None,
            _ => self.c.slot_of(0, key),
        }
    }
    #[inline]
    fn insert(&mut self, key: u64) -> u32 {
        if let Some(s) = self.lookup(key) {
            return s;
        }
        self.c.insert(0, key, fc::NEVER);
        self.c
            .slot_of(0, key)
            .expect("content-store rules always admit a new key")
    }
}

/// Least-recently-used content store (the policy of Che's approximation, Che, Tung & Wang,
/// IEEE JSAC 2002, used in paper 003's evaluation setting).
pub type Lru = Cs<fc::Lru>;
/// First-in-first-out content store (Cefore's simplest CS policy).
pub type Fifo = Cs<fc::Fifo>;
/// Least-frequently-used content store (in-cache counts, LRU among ties).
pub type Lfu = Cs<fc::Lfu>;
/// Random-replacement content store.
pub type RandomCs = Cs<fc::Random>;

impl Cs<fc::Lru> {
    /// An empty LRU store of `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Cs::with_rule(fc::Lru, capacity)
    }
}
impl Cs<fc::Fifo> {
    /// An empty FIFO store of `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Cs::with_rule(fc::Fifo, capacity)
    }
}
impl Cs<fc::Lfu> {
    /// An empty LFU store of `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Cs::with_rule(fc::Lfu::default(), capacity)
    }
}
impl Cs<fc::Random> {
    /// An empty random-replacement store of `capacity` entries; `seed` drives the victims.
    pub fn new(capacity: usize, seed: u64) -> Self {
        Cs::with_rule(fc::Random::new(seed), capacity)
    }
}

macro_rules! cs_policies {
    ($(($v:ident, $name:literal, $rule:ty, $make:expr, $doc:literal)),* $(,)?) => {
        /// The replacement policies, by name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Policy {
            $(#[doc = $doc] $v,)*
        }

        impl Policy {
            /// Every policy, in report order.
            pub const ALL: &'static [Policy] = &[$(Policy::$v,)*];

            /// Parses a policy name (see [`Policy::as_str`]).
            pub fn parse(s: &str) -> Option<Policy> {
                match s {
                    $($name => Some(Policy::$v),)*
                    _ => None,
                }
            }

            /// The policy's name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Policy::$v => $name,)*
                }
            }
        }

        /// Any policy behind enum dispatch (one match per call, no virtual call).
        #[allow(missing_docs)]
        #[derive(Clone, Debug)]
        pub enum AnyCs {
            $($v(Cs<$rule>),)*
        }

        impl AnyCs {
            /// A store of `policy` with `capacity` entries (`seed` drives the random policy).
            pub fn new(policy: Policy, capacity: usize, seed: u64) -> AnyCs {
                let _ = seed;
                match policy {
                    $(Policy::$v => AnyCs::$v(Cs::with_rule($make(seed), capacity)),)*
                }
            }
        }

        impl ContentStore for AnyCs {
            fn capacity(&self) -> usize {
                match self { $(AnyCs::$v(c) => c.capacity(),)* }
            }
            fn len(&self) -> usize {
                match self { $(AnyCs::$v(c) => c.len(),)* }
            }
            #[inline]
            fn lookup(&mut self, key: u64) -> Option<u32> {
                match self { $(AnyCs::$v(c) => c.lookup(key),)* }
            }
            #[inline]
            fn insert(&mut self, key: u64) -> u32 {
                match self { $(AnyCs::$v(c) => c.insert(key),)* }
            }
        }
    };
}

cs_policies!(
    (Lru, "lru", fc::Lru, |_| fc::Lru, "Least recently used."),
    (Fifo, "fifo", fc::Fifo, |_| fc::Fifo, "First in, first out."),
    (
        Lfu,
        "lfu",
        fc::Lfu,
        |_| fc::Lfu::default(),
        "Least frequently used (in-cache counts, LRU among ties)."
    ),
    (
        Random,
        "random",
        fc::Random,
        fc::Random::new,
        "Uniformly random victim."
    ),
    (
        Clock,
        "clock",
        fc::Clock,
        |_| fc::Clock,
        "CLOCK (FIFO with one reference bit)."
    ),
    (
        Slru,
        "slru",
        fc::Slru,
        |_| fc::Slru::default(),
        "Segmented LRU, two equal segments."
    ),
    (
        Spc,
        "spc",
        fc::Spc,
        |_| fc::Spc,
        "Saturating priority (one step up per hit)."
    ),
    (
        Hpc4,
        "hpc4",
        fc::Hpc,
        |_| fc::Hpc::new(4),
        "Hit Priority Cache, n = 4 (paper 000)."
    ),
    (
        Arc,
        "arc",
        fc::Arc,
        |_| fc::Arc::default(),
        "ARC (Megiddo & Modha)."
    ),
    (
        S3Fifo,
        "s3fifo",
        fc::S3Fifo,
        |_| fc::S3Fifo::default(),
        "S3-FIFO (SOSP'23)."
    ),
    (Sieve, "sieve", fc::Sieve, |_| fc::Sieve, "SIEVE (NSDI'24)."),
    (
        TinyLfu,
        "tinylfu",
        fc::TinyLfu,
        |_| fc::TinyLfu::default(),
        "W-TinyLFU (Einziger et al.)."
    ),
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Properties every policy must satisfy.
    #[test]
    fn common_contract() {
        for &p in Policy::ALL {
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
                // HPC's hit region fills only through promotions (n hits within the normal
                // region), which uniform keys rarely earn; every other policy fills up.
                if i > 1000 && p != Policy::Hpc4 {
                    assert_eq!(cs.len(), 64, "{p:?}");
                }
            }
            // Slots are unique among resident keys.
            let mut seen = std::collections::HashSet::new();
            for k in 0..200 {
                if let Some(s) = cs.lookup(k) {
                    assert!(seen.insert(s), "{p:?}: slot {s} shared");
                }
            }
            assert_eq!(seen.len(), cs.len());
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
