//! First-in first-out replacement (a comparator named in paper 000's related work): hits do
//! not change the order; a new entry evicts the oldest.

use super::{find, first_empty, to_front, Access, Policy, EMPTY};

/// Per-set FIFO; ways ordered newest (index 0) → oldest (last).
#[derive(Clone, Debug)]
pub struct Fifo {
    keys: Vec<u32>,
    ways: usize,
}

impl Fifo {
    /// An empty cache of `sets × ways` entries.
    pub fn new(sets: usize, ways: usize) -> Self {
        Fifo {
            keys: vec![EMPTY; sets * ways.max(1)],
            ways: ways.max(1),
        }
    }
}

impl Policy for Fifo {
    fn name(&self) -> String {
        "fifo".into()
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
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        let victim = first_empty(w, 0).unwrap_or(w.len() - 1);
        to_front(w, victim);
        w[0] = key;
    }
}
