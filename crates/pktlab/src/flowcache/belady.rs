//! Belady's offline optimum (MIN, Belady 1966, with bypass) for the same set structure: on an
//! insertion into a full set, evict whichever of the residents and the new key is next used
//! farthest in the future (the new key itself is then not cached). Paper 000 has no optimum;
//! this gives the bound any policy with the same sets and ways can reach (in the no-timing
//! model it is a true lower bound on misses; with delayed insertion it is the optimum of the
//! same decisions). Needs the future: the caller passes each request's next-use index, kept
//! as the entry's metadata (the store's priority: a scan or an indexed heap).

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

/// Belady's MIN with bypass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Belady;

impl Rule for Belady {
    type Meta = u64;
    fn name(&self) -> String {
        "belady".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        Layout {
            heap: true,
            ..Layout::plain(sets, ways, 1)
        }
    }
    #[inline(always)]
    fn access<S: Store<Meta = u64>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        next_use: u64,
    ) -> Access {
        match s.find(set, key) {
            Some(h) => {
                s.set_meta(set, h, next_use);
                Access::Hit
            }
            None => Access::Miss,
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = u64>>(&mut self, s: &mut S, set: usize, key: u64, next_use: u64) {
        if s.len(set, 0) < s.layout().ways {
            s.push_back(set, 0, key, next_use);
        } else if let Some(v) = s.max_meta(set) {
            if next_use < s.meta(set, v) {
                s.replace(set, v, key, next_use);
            }
        }
    }
}
