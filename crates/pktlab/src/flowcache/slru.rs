//! Segmented LRU, as paper 000 describes it (§5, fig. 6): each set is split into a protected
//! and a probationary segment (half the ways each). A new entry goes to the MRU position of
//! the probationary segment, evicting the probationary LRU; a hit in the probationary segment
//! moves the entry to the protected MRU, demoting the protected LRU to the probationary MRU; a
//! hit in the protected segment moves it to the protected MRU. With a full protected segment
//! this is exactly "8-way LRU with insertion at the 4th position", as the paper notes.

use super::{find, first_empty, to_front, Access, Policy, EMPTY};

/// Per-set SLRU; ways `[0, ways/2)` are the protected segment, `[ways/2, ways)` the
/// probationary one, each ordered MRU → LRU.
#[derive(Clone, Debug)]
pub struct Slru {
    keys: Vec<u32>,
    ways: usize,
}

impl Slru {
    /// An empty cache of `sets × ways` entries (`ways ≥ 2`).
    pub fn new(sets: usize, ways: usize) -> Self {
        let ways = ways.max(2);
        Slru {
            keys: vec![EMPTY; sets * ways],
            ways,
        }
    }
}

impl Policy for Slru {
    fn name(&self) -> String {
        "slru".into()
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
        let h = self.ways / 2;
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        let Some(i) = find(w, key) else {
            return Access::Miss;
        };
        if i >= h {
            if let Some(e) = first_empty(&w[..h], 0) {
                // Protected segment not yet full: move in without demoting anybody.
                to_front(w, e);
                w[0] = key;
                w[i..].rotate_left(1);
                let last = w.len() - 1;
                w[last] = EMPTY;
                return Access::Hit;
            }
        }
        // Protected hit, or probationary hit with a full protected segment: the rotation
        // carries the protected LRU over to the probationary MRU.
        to_front(w, i);
        Access::Hit
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u32, _next_use: u64) {
        let h = self.ways / 2;
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        let victim = first_empty(w, h).unwrap_or(w.len() - 1);
        to_front(&mut w[h..], victim - h);
        w[h] = key;
    }
}
