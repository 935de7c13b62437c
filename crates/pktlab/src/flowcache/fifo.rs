//! First-in first-out replacement (a comparator named in paper 000's related work; Cefore's
//! simplest content-store policy, paper 003 §4): hits do not change the order; a new entry
//! goes to the front and evicts the back.

use super::engine::{steps, Rule};
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
        steps::present(s, set, key)
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        s.insert_front(set, key, ());
    }
}
