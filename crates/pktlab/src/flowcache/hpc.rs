//! Hit Priority Cache, HPC-n (paper 000, §4.2 and §5.2, figs. 5 and 10). Each set is split
//! into two halves with their own LRU order: the *hit* region and the *normal* region.
//!
//! * A new entry replaces the normal region's LRU entry and **stays at the LRU position** (no
//!   priority transition), so one-packet flows leave first.
//! * A hit in the normal region increments the entry's hit counter and moves it to the normal
//!   MRU position; on its n-th hit it **exchanges** with the hit region's LRU entry: the
//!   promoted flow takes the hit region's LRU slot (the hit region's order does not change),
//!   the demoted flow takes the normal MRU slot with a zero counter.
//! * A hit in the hit region updates only the hit region's LRU order.
//!
//! While the hit region still has empty ways (cold start), a promotion moves the entry to the
//! hit region's LRU end and counts as an exchange too. State: LRU order within each half plus
//! a ⌈log2(n+1)⌉-bit hit counter per entry.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::{Access, Evicted};

const HIT: usize = 0;
const NORMAL: usize = 1;

/// HPC-n with a hit counter per entry.
#[derive(Clone, Copy, Debug)]
pub struct Hpc {
    n: u8,
    hit_ways: usize,
}

impl Hpc {
    /// HPC-`n` (`1 ≤ n ≤ 255`).
    pub fn new(n: u8) -> Self {
        Hpc {
            n: n.max(1),
            hit_ways: 0,
        }
    }
}

impl Rule for Hpc {
    type Meta = u8;
    fn name(&self) -> String {
        format!("hpc{}", self.n)
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        let ways = ways.max(2);
        self.hit_ways = ways / 2;
        Layout::plain(sets, ways, 2)
    }
    #[inline(always)]
    fn access<S: Store<Meta = u8>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        let Some(h) = s.find(set, key) else {
            return Access::Miss;
        };
        if s.queue(set, h) == HIT {
            s.move_front(set, h, HIT);
            return Access::Hit;
        }
        let c = s.meta(set, h).saturating_add(1);
        let h = s.move_front(set, h, NORMAL);
        if c < self.n {
            s.set_meta(set, h, c);
            return Access::Hit;
        }
        s.set_meta(set, h, 0);
        if s.len(set, HIT) < self.hit_ways {
            s.move_back(set, h, HIT);
        } else {
            // Exchange: the hit region's LRU entry drops to the normal MRU slot (counter 0),
            // the promoted entry (now just behind it) takes the hit region's LRU slot.
            let d = s.back(set, HIT).expect("hit region");
            let d = s.move_front(set, d, NORMAL);
            s.set_meta(set, d, 0);
            let f = s.front(set, NORMAL).expect("normal region");
            let p = s.next(set, f).expect("promoted entry");
            s.move_back(set, p, HIT);
        }
        Access::Exchange
    }
    #[inline(always)]
    fn insert<S: Store<Meta = u8>>(&mut self, s: &mut S, set: usize, key: u64, nu: u64) {
        self.insert_evict(s, set, key, nu);
    }
    /// The new entry takes a free normal way, else replaces the normal region's LRU entry
    /// (the victim this returns).
    #[inline(always)]
    fn insert_evict<S: Store<Meta = u8>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        _: u64,
    ) -> Evicted {
        if s.len(set, NORMAL) < s.layout().ways - self.hit_ways {
            s.push_back(set, NORMAL, key, 0);
            Evicted::Nothing
        } else if let Some(b) = s.back(set, NORMAL) {
            let old = s.key(set, b);
            s.replace(set, b, key, 0);
            Evicted::Key(old)
        } else {
            Evicted::Unknown // no normal way at all: cannot happen with ≥ 2 ways
        }
    }
}
