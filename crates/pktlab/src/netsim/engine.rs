//! The event engine: integer-nanosecond time and a binary-heap event queue whose ties are
//! broken by insertion order, so a run is a pure function of its inputs and seed.

use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

pub use crate::util::SplitMix64 as SimRng;

struct Entry<E> {
    at: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed: the heap pops the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// A future-event list: `push` events at absolute times, `pop` them in (time, push order).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Current simulated time (time of the last popped event).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events popped so far.
    #[inline]
    pub fn events(&self) -> u64 {
        self.popped
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `ev` at absolute time `at` (times in the past are clamped to now).
    #[inline]
    pub fn push(&mut self, at: Time, ev: E) {
        let at = at.max(self.now);
        self.heap.push(Entry {
            at,
            seq: self.seq,
            ev,
        });
        self.seq += 1;
    }

    /// Pops the next event if it is not later than `until`, advancing the clock.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at;
        self.popped += 1;
        Some((e.at, e.ev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::new();
        q.push(5, 'a');
        q.push(3, 'b');
        q.push(5, 'c');
        q.push(3, 'd');
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(10)).collect();
        assert_eq!(got, vec![(3, 'b'), (3, 'd'), (5, 'a'), (5, 'c')]);
        q.push(20, 'e');
        assert_eq!(q.pop_until(10), None);
        assert_eq!(q.events(), 4);
    }
}
