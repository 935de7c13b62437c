//! Least-frequently-used replacement with in-cache counts and LRU among equal counts (the LFU
//! of Li et al., which paper 000 cites, and of libCacheSim; the O(1) bucket structure of Shah,
//! Mitra & Matani 2010 gives the same order). The victim is the entry with the smallest
//! (count, time of its last access); counts are forgotten on eviction. The order is kept by
//! the store's priority (a scan on small sets, an indexed heap on large ones: O(log n)).
//! Metadata: the count (24 bits, saturating) above the inverted access time (40 bits).

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

const TBITS: u32 = 40;
const TMASK: u64 = (1 << TBITS) - 1;
const FMAX: u64 = (1 << 24) - 1;

/// LFU with an access clock for tie-breaking.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lfu {
    tick: u64,
}

/// Priority of an entry with count `f` last used at `t`: larger = evicted first.
#[inline(always)]
fn prio(f: u64, t: u64) -> u64 {
    (FMAX - f.min(FMAX)) << TBITS | (TMASK - (t & TMASK))
}

impl Rule for Lfu {
    type Meta = u64;
    fn name(&self) -> String {
        "lfu".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout {
            heap: true,
            ..Layout::plain(sets, ways, 1)
        }
    }
    #[inline(always)]
    fn access<S: Store<Meta = u64>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        self.tick += 1;
        match s.find(set, key) {
            Some(h) => {
                let f = FMAX - (s.meta(set, h) >> TBITS);
                s.set_meta(set, h, prio(f + 1, self.tick));
                Access::Hit
            }
            None => Access::Miss,
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = u64>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        self.tick += 1;
        let m = prio(1, self.tick);
        if s.len(set, 0) < s.layout().ways {
            s.push_back(set, 0, key, m);
        } else if let Some(v) = s.max_meta(set) {
            s.replace(set, v, key, m);
        }
    }
}
