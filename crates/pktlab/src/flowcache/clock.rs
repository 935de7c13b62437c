//! CLOCK (Corbató, "A paging experiment with the Multics system", MIT Project MAC, 1968) as
//! FIFO with reinsertion — the form libCacheSim's `Clock` uses: a hit sets the entry's
//! reference bit; to evict, the back entry is examined: a set bit is cleared and the entry
//! goes back to the front (the hand passes it), a clear bit makes it the victim. New entries
//! enter at the front with a clear bit. One bit of state per entry.

use super::engine::{steps, Rule};
use super::store::{Layout, Store};
use super::Access;

/// CLOCK with one reference bit per entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock;

impl Rule for Clock {
    type Meta = u8;
    fn name(&self) -> String {
        "clock".into()
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
        if s.len(set, 0) < s.layout().ways {
            s.push_front(set, 0, key, 0);
            return;
        }
        while let Some(b) = s.back(set, 0) {
            if s.meta(set, b) == 0 {
                s.replace(set, b, key, 0);
                s.move_front(set, b, 0);
                return;
            }
            s.set_meta(set, b, 0);
            s.move_front(set, b, 0);
        }
    }
}
