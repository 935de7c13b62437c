//! First-in first-out replacement (a comparator named in paper 000's related work; Cefore's
//! simplest content-store policy, paper 003 §4): hits do not change the order; a new entry
//! goes to the front and evicts the back.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

/// FIFO: one queue, newest first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fifo;

impl Rule for Fifo {
    type Meta = ();
    fn name(&self) -> String {
        "fifo".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout::plain(sets, ways, 1)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        if s.find(set, key).is_some() {
            Access::Hit
        } else {
            Access::Miss
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        if s.len(set, 0) < s.layout().ways {
            s.push_front(set, 0, key, ());
        } else if let Some(b) = s.back(set, 0) {
            s.replace(set, b, key, ());
            s.move_front(set, b, 0);
        }
    }
}
