//! Hit Priority Cache, HPC-n (paper 000, §4.2 and §5.2, figs. 5 and 10). Each set is a pseudo
//! 8-way set split into two halves with their own LRU order: the *hit* region and the *normal*
//! region.
//!
//! * A new entry replaces the normal region's LRU entry and **stays at the LRU position** (no
//!   priority transition), so one-packet flows leave first.
//! * A hit in the normal region increments the entry's hit counter and moves it to the normal
//!   MRU position; on its n-th hit (counter overflow) it **exchanges** its data with the hit
//!   region's LRU entry: the promoted flow takes the hit region's LRU slot (the hit region's
//!   order does not change), the demoted flow takes the normal MRU slot with a zero counter.
//! * A hit in the hit region updates only the hit region's LRU order.
//!
//! While the hit region still has empty ways (cold start), a promotion moves the entry into
//! the first empty way (its LRU end) and counts as an exchange too.

use super::{find, first_empty, to_front, Access, Policy, EMPTY};

/// Per-set HPC-n; ways `[0, ways/2)` are the hit region, `[ways/2, ways)` the normal region,
/// each ordered MRU → LRU; one hit counter per way.
#[derive(Clone, Debug)]
pub struct Hpc {
    keys: Vec<u32>,
    hits: Vec<u8>,
    ways: usize,
    n: u8,
}

impl Hpc {
    /// An empty HPC-`n` cache of `sets × ways` entries (`ways ≥ 2`, `1 ≤ n ≤ 255`).
    pub fn new(sets: usize, ways: usize, n: u8) -> Self {
        let ways = ways.max(2);
        Hpc {
            keys: vec![EMPTY; sets * ways],
            hits: vec![0; sets * ways],
            ways,
            n: n.max(1),
        }
    }
}

impl Policy for Hpc {
    fn name(&self) -> String {
        format!("hpc{}", self.n)
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
        let r = set * self.ways..(set + 1) * self.ways;
        let w = &mut self.keys[r.clone()];
        let Some(i) = find(w, key) else {
            return Access::Miss;
        };
        if i < h {
            to_front(w, i);
            return Access::Hit;
        }
        let c = &mut self.hits[r];
        c[i] = c[i].saturating_add(1);
        to_front(&mut w[h..], i - h);
        to_front(&mut c[h..], i - h);
        if c[h] < self.n {
            return Access::Hit;
        }
        match first_empty(&w[..h], 0) {
            Some(e) => {
                w[e] = key;
                w[h..].rotate_left(1);
                c[h..].rotate_left(1);
                let last = w.len() - 1;
                w[last] = EMPTY;
                c[last] = 0;
            }
            None => {
                w.swap(h - 1, h);
                c[h] = 0;
            }
        }
        Access::Exchange
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u32, _next_use: u64) {
        let h = self.ways / 2;
        let r = set * self.ways..(set + 1) * self.ways;
        let w = &mut self.keys[r.clone()];
        let victim = first_empty(w, h).unwrap_or(w.len() - 1);
        w[victim] = key;
        self.hits[r][victim] = 0;
    }
}
