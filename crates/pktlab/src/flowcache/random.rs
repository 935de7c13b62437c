//! Random replacement ("RR" in Li et al., which paper 000 cites for LRU beating LFU and RR):
//! a new entry fills an empty way, else replaces a uniformly random way. Seeded, deterministic.

use super::{find, first_empty, Access, Policy, EMPTY};
use crate::util::XorShift64;

/// Per-set random replacement.
#[derive(Clone, Debug)]
pub struct Random {
    keys: Vec<u32>,
    ways: usize,
    rng: XorShift64,
}

impl Random {
    /// An empty cache of `sets × ways` entries; victims drawn from xorshift64(`seed`).
    pub fn new(sets: usize, ways: usize, seed: u64) -> Self {
        Random {
            keys: vec![EMPTY; sets * ways.max(1)],
            ways: ways.max(1),
            rng: XorShift64::new(crate::util::splitmix64(seed)),
        }
    }
}

impl Policy for Random {
    fn name(&self) -> String {
        "random".into()
    }
    fn ways(&self) -> usize {
        self.ways
    }
    fn sets(&self) -> usize {
        self.keys.len() / self.ways
    }
    fn set_keys(&self, set: usize) -> &[u32] {
        &self.keys[set * self.ways..(set + 1) * self.ways]
    }
    #[inline(always)]
    fn access(&mut self, set: usize, key: u32, _next_use: u64) -> Access {
        let w = &self.keys[set * self.ways..(set + 1) * self.ways];
        if find(w, key).is_some() {
            Access::Hit
        } else {
            Access::Miss
        }
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u32, _next_use: u64) {
        let ways = self.ways;
        let r = self.rng.next();
        let w = &mut self.keys[set * ways..(set + 1) * ways];
        let victim = first_empty(w, 0)
            .unwrap_or_else(|| ((r >> 32).wrapping_mul(ways as u64) >> 32) as usize);
        w[victim] = key;
    }
}
