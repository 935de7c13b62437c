//! Least-recently-used replacement — the paper's baseline "4-way LRU" (paper 000, §3, after
//! Li et al.): a hit moves the entry to the MRU position; a new entry goes to MRU and evicts
//! the LRU entry.

use super::{find, first_empty, fixed, to_front, Access, Policy, EMPTY};

/// Per-set LRU; ways ordered MRU (index 0) → LRU (last).
#[derive(Clone, Debug)]
pub struct Lru {
    pub(crate) keys: Vec<u32>,
    ways: usize,
}

impl Lru {
    /// An empty cache of `sets × ways` entries.
    pub fn new(sets: usize, ways: usize) -> Self {
        Lru {
            keys: vec![EMPTY; sets * ways.max(1)],
            ways: ways.max(1),
        }
    }
}

impl Policy for Lru {
    fn name(&self) -> String {
        "lru".into()
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
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        fixed(w, |w| match find(w, key) {
            Some(i) => {
                to_front(w, i);
                Access::Hit
            }
            None => Access::Miss,
        })
    }
    /// Fused lookup + insert: on a hit and on a miss alike the entry ends at MRU and the
    /// ways before its slot (the hit way, else the first empty way, else the LRU way) shift
    /// back by one — computed with selects instead of branches.
    #[inline(always)]
    fn access_insert(&mut self, set: usize, key: u32, _next_use: u64) -> Access {
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        fixed(w, |w| {
            let n = w.len();
            let (mut hit, mut empty) = (n, n - 1);
            for i in (0..n).rev() {
                hit = if w[i] == key { i } else { hit };
            }
            for i in (0..n).rev() {
                empty = if w[i] == EMPTY { i } else { empty };
            }
            let p = if hit < n { hit } else { empty };
            for j in (1..n).rev() {
                w[j] = if j <= p { w[j - 1] } else { w[j] };
            }
            w[0] = key;
            if hit < n {
                Access::Hit
            } else {
                Access::Miss
            }
        })
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u32, _next_use: u64) {
        let w = &mut self.keys[set * self.ways..(set + 1) * self.ways];
        fixed(w, |w| {
            let victim = first_empty(w, 0).unwrap_or(w.len() - 1);
            to_front(w, victim);
            w[0] = key;
        })
    }
}
