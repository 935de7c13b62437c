//! SIEVE (Zhang, Yang, Yue, Vigfusson & Rashmi, "SIEVE is Simpler than LRU: an Efficient
//! Turn-Key Eviction Algorithm for Web Caches", NSDI 2024): a FIFO queue with one *visited*
//! bit per entry and a hand that persists between evictions. A hit sets the bit. To evict, the
//! hand (starting at the back, wrapping from the front to the back) moves toward the front,
//! clearing set bits, and evicts the first entry whose bit is clear; the hand stays at that
//! entry's predecessor. Unlike CLOCK, retained entries are not moved, so new entries (at the
//! front) and old survivors (behind the hand) stay apart.

use super::engine::{steps, Rule};
use super::store::{Layout, Store};
use super::Access;

/// Entries the eviction prefetch looks ahead along the hand's path (large stores only).
const LOOKAHEAD: usize = 8;

/// SIEVE with one visited bit per entry and one hand per set.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sieve;

impl Rule for Sieve {
    type Meta = u8;
    fn name(&self) -> String {
        "sieve".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout::plain(sets, ways, 1)
    }
    #[inline(always)]
    fn access<S: Store<Meta = u8>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        steps::mark(s, set, key, 1)
    }
    #[inline(always)]
    fn insert<S: Store<Meta = u8>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        if s.len(set, 0) >= s.layout().ways {
            let back = s.back(set, 0).expect("full set");
            let mut x = s.hand(set).unwrap_or(back);
            while s.meta(set, x) != 0 {
                s.set_meta(set, x, 0);
                x = s.prev(set, x).unwrap_or(back);
            }
            // The hand stays at the victim's predecessor (none: start at the back next time).
            let p = s.prev(set, x);
            s.remove(set, x);
            s.set_hand(set, p);
            if let (true, Some(back)) = (S::PREFETCH && s.prefetch_distance() > 0, s.back(set, 0)) {
                // The next victim is the first unvisited entry from the hand on, unless hits
                // set its bit first: bring in what its removal touches (a few steps at most).
                let mut y = p.unwrap_or(back);
                for _ in 0..LOOKAHEAD {
                    if s.meta(set, y) == 0 {
                        s.prefetch_remove(set, y);
                        break;
                    }
                    y = s.prev(set, y).unwrap_or(back);
                }
            }
        }
        s.push_front(set, 0, key, 0);
    }
}
