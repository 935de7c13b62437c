//! Least-recently-used replacement — the paper's baseline "4-way LRU" (paper 000, §3, after
//! Li et al.) and the classic fully associative LRU: a hit moves the entry to the front; a new
//! entry goes to the front and evicts the back.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

/// LRU: one queue, most recent first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lru;

impl Rule for Lru {
    type Meta = ();
    fn name(&self) -> String {
        "lru".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout::plain(sets, ways, 1)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        if s.touch(set, key) {
            Access::Hit
        } else {
            Access::Miss
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        s.insert_front(set, key, ());
    }
    /// The store's fused step (branch-free on small sets): same effect as access + insert.
    #[inline(always)]
    fn access_insert<S: Store<Meta = ()>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        _: u64,
    ) -> Access {
        if s.touch_front(set, key) {
            Access::Hit
        } else {
            Access::Miss
        }
    }
}
