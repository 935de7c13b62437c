//! Segmented LRU (Karedla, Love & Wherry, IEEE Computer 1994) as paper 000 describes it (§5,
//! fig. 6): each set is split into a protected and a probationary segment (half the ways
//! each). A new entry goes to the front of the probationary segment, evicting its back; a hit
//! in the probationary segment moves the entry to the protected front, demoting the protected
//! back to the probationary front when the protected segment is full; a hit in the protected
//! segment moves it to the protected front. With a full protected segment this is exactly
//! "8-way LRU with insertion at the 4th position", as the paper notes.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

const PROT: usize = 0;
const PROB: usize = 1;

/// SLRU with two equal segments.
#[derive(Clone, Copy, Debug, Default)]
pub struct Slru {
    prot: usize,
}

impl Rule for Slru {
    type Meta = ();
    fn name(&self) -> String {
        "slru".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        let ways = ways.max(2);
        self.prot = ways / 2;
        Layout::plain(sets, ways, 2)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        let Some(h) = s.find(set, key) else {
            return Access::Miss;
        };
        let from = s.queue(set, h);
        s.move_front(set, h, PROT);
        if from == PROB && s.len(set, PROT) > self.prot {
            let d = s.back(set, PROT).expect("protected segment");
            s.move_front(set, d, PROB);
        }
        Access::Hit
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        if s.len(set, PROB) < s.layout().ways - self.prot {
            s.push_front(set, PROB, key, ());
        } else if let Some(b) = s.back(set, PROB) {
            s.replace(set, b, key, ());
            s.move_front(set, b, PROB);
        }
    }
}
