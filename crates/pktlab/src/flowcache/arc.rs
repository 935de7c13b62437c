//! Adaptive Replacement Cache (Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement
//! Cache", FAST 2003, fig. 4), per set with c = ways: resident lists T1 (seen once recently)
//! and T2 (seen at least twice), ghost lists B1 and B2 of keys recently evicted from them, and
//! a target size p for T1 that grows on B1 ghost hits (by max(|B2|/|B1|, 1)) and shrinks on
//! B2 ghost hits. REPLACE evicts T1's back into B1 when |T1| > p (or = p on a B2 hit, or T2
//! is empty), else T2's back into B2. On a complete miss with |T1| + |B1| = c the back of B1
//! (or, with B1 empty, of T1) is dropped; with the four lists at 2c the back of B2 is dropped.
//! State: the list of each entry plus c ghost keys and one real number per set.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

const T1: usize = 0;
const T2: usize = 1;
const B1: usize = 2;
const B2: usize = 3;

/// ARC with one adaptation target per set.
#[derive(Clone, Debug, Default)]
pub struct Arc {
    p: Vec<f64>,
}

impl Arc {
    /// REPLACE(x, p): demote T1's or T2's back into its ghost list.
    #[inline(always)]
    fn replace<S: Store<Meta = ()>>(&self, s: &mut S, set: usize, in_b2: bool) {
        let t1 = s.len(set, T1);
        let p = self.p[set];
        let from_t1 =
            (t1 > 0 && ((t1 as f64) > p || ((t1 as f64) == p && in_b2))) || s.len(set, T2) == 0;
        let (q, g) = if from_t1 { (T1, B1) } else { (T2, B2) };
        if let Some(b) = s.back(set, q) {
            s.move_front(set, b, g);
        }
    }
}

impl Rule for Arc {
    type Meta = ();
    fn name(&self) -> String {
        "arc".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        self.p = vec![0.0; sets];
        Layout {
            ghosts: ways,
            ghost_mask: 1 << B1 | 1 << B2,
            ..Layout::plain(sets, ways, 4)
        }
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        match s.find(set, key) {
            Some(h) if s.queue(set, h) <= T2 => {
                s.move_front(set, h, T2);
                Access::Hit
            }
            _ => Access::Miss,
        }
    }
    #[inline(always)]
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        let ghost = s.find(set, key).map(|h| (h, s.queue(set, h)));
        self.place(s, set, key, ghost);
    }
    /// [`Rule::access`] then, on a miss, [`Rule::insert`], with one index lookup: the miss
    /// already knows whether `key` is a ghost.
    #[inline(always)]
    fn access_insert<S: Store<Meta = ()>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        _: u64,
    ) -> Access {
        match s.find(set, key).map(|h| (h, s.queue(set, h))) {
            Some((h, q)) if q <= T2 => {
                s.move_front(set, h, T2);
                Access::Hit
            }
            ghost => {
                self.place(s, set, key, ghost);
                Access::Miss
            }
        }
    }
}

impl Arc {
    /// The body of [`Rule::insert`]: `key` is not resident; `ghost` is its handle and queue
    /// when it is in B1 or B2.
    #[inline(always)]
    fn place<S: Store<Meta = ()>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        ghost: Option<(u32, usize)>,
    ) {
        let c = s.layout().ways;
        let (b1, b2) = (s.len(set, B1), s.len(set, B2));
        let mut in_b2 = false;
        if let Some((h, q)) = ghost {
            if q == B1 {
                let d = (b2 as f64 / b1 as f64).max(1.0);
                self.p[set] = (self.p[set] + d).min(c as f64);
            } else {
                let d = (b1 as f64 / b2 as f64).max(1.0);
                self.p[set] = (self.p[set] - d).max(0.0);
                in_b2 = true;
            }
            s.remove(set, h);
        }
        if s.len(set, T1) + s.len(set, T2) >= c {
            if ghost.is_some() {
                self.replace(s, set, in_b2);
            } else if s.len(set, T1) + s.len(set, B1) >= c {
                if let Some(g) = s.back(set, B1) {
                    s.remove(set, g);
                    self.replace(s, set, false);
                } else if let Some(t) = s.back(set, T1) {
                    s.remove(set, t);
                }
            } else {
                let total = s.len(set, T1) + s.len(set, T2) + s.len(set, B1) + s.len(set, B2);
                if total >= 2 * c {
                    if let Some(g) = s.back(set, B2) {
                        s.remove(set, g);
                    }
                }
                self.replace(s, set, false);
            }
        }
        s.push_front(set, if ghost.is_some() { T2 } else { T1 }, key, ());
    }
}
