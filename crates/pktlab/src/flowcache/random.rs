//! Random replacement ("RR" in Li et al., which paper 000 cites for LRU beating LFU and RR; a
//! baseline of CCN caching studies): a new entry fills an empty way, else replaces a uniformly
//! random way. Seeded, deterministic.

use super::engine::{steps, Rule};
use super::store::{Layout, Store};
use super::Access;
use crate::util::XorShift64;

/// Random victim from xorshift64.
#[derive(Clone, Debug)]
pub struct Random {
    rng: XorShift64,
}

impl Random {
    /// Victims drawn from xorshift64(splitmix64(`seed`)).
    pub fn new(seed: u64) -> Self {
        Random {
            rng: XorShift64::new(crate::util::splitmix64(seed)),
        }
    }
}

impl Rule for Random {
    type Meta = ();
    fn name(&self) -> String {
        "random".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout::plain(sets, ways, 1)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        steps::present(s, set, key)
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        let ways = s.layout().ways;
        let r = self.rng.next();
        if s.len(set, 0) < ways {
            s.push_back(set, 0, key, ());
        } else {
            let v = s.way(set, ((r >> 32).wrapping_mul(ways as u64) >> 32) as usize);
            s.replace(set, v, key, ());
        }
    }
}
