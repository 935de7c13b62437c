//! Random replacement for the content store (a baseline policy in CCN caching studies compared
//! with LRU in paper 003's setting): when full, a uniformly random slot is evicted
//! (deterministic given the seed).

use super::{ContentStore, KeyIndex};
use crate::util::XorShift64;

/// Random-replacement content store.
#[derive(Clone, Debug)]
pub struct RandomCs {
    index: KeyIndex,
    keys: Vec<u64>,
    len: usize,
    rng: XorShift64,
}

impl RandomCs {
    /// An empty store of `capacity` entries; `seed` drives victim selection.
    pub fn new(capacity: usize, seed: u64) -> RandomCs {
        RandomCs {
            index: KeyIndex::new(capacity),
            keys: vec![0; capacity],
            len: 0,
            rng: XorShift64::new(seed),
        }
    }
}

impl ContentStore for RandomCs {
    fn capacity(&self) -> usize {
        self.keys.len()
    }
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn lookup(&mut self, key: u64) -> Option<u32> {
        self.index.get(key)
    }
    #[inline]
    fn insert(&mut self, key: u64) -> u32 {
        if let Some(s) = self.index.get(key) {
            return s;
        }
        let s = if self.len < self.keys.len() {
            self.len += 1;
            self.len - 1
        } else {
            let v = (((self.rng.next() >> 32) * self.keys.len() as u64) >> 32) as usize;
            self.index.remove(self.keys[v]);
            v
        };
        self.keys[s] = key;
        self.index.insert(key, s as u32);
        s as u32
    }
}
