//! Saturating Priority Cache (Girish & Govindarajan, HiPC 2008; named in paper 000's related
//! work as ~7% fewer misses than LRU). Our reading of the scheme: entries of a set hold
//! priority positions; a new entry is inserted at the **lowest** priority position (evicting
//! the entry there), and each hit raises an entry by **one** position (swapping with the entry
//! above), saturating at the top. A flow must therefore keep hitting to climb, and one-packet
//! flows are evicted first.

use super::engine::{steps, Rule};
use super::store::{Layout, Store};
use super::Access;

/// Saturating priority: one queue, highest priority first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spc;

impl Rule for Spc {
    type Meta = ();
    fn name(&self) -> String {
        "spc".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout::plain(sets, ways, 1)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        match s.find(set, key) {
            Some(h) => {
                s.swap_prev(set, h);
                Access::Hit
            }
            None => Access::Miss,
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        steps::insert_back(s, set, key, ());
    }
}
