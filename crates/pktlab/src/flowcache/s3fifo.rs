//! S3-FIFO (Yang, Zhang, Qiu, Yue & Rashmi, "FIFO queues are all you need for cache eviction",
//! SOSP 2023), with libCacheSim's defaults: a small FIFO S (10% of the ways), a main FIFO M
//! (the rest) and a ghost FIFO G of keys (90% of the ways); a 2-bit frequency per entry,
//! incremented on hits. New keys enter S, keys found in G enter M. Eviction takes from M when
//! M is over its share (or S is empty), else from S: S's back moves to M when its frequency
//! is ≥ 2 (frequency reset) and otherwise leaves, its key going to G; M's back is reinserted
//! at M's front with its frequency decremented while the frequency is ≥ 1, else evicted.
//! Per set: S gets at least one way (so sets need ≥ 2 ways).

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

const S: usize = 0;
const M: usize = 1;
const G: usize = 2;

/// S3-FIFO with the paper's 10% small queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct S3Fifo {
    small: usize,
    main: usize,
    ghost: usize,
}

impl S3Fifo {
    #[inline(always)]
    fn evict_small<St: Store<Meta = u8>>(&self, s: &mut St, set: usize) {
        while let Some(t) = s.back(set, S) {
            if s.meta(set, t) >= 2 {
                s.set_meta(set, t, 0);
                s.move_front(set, t, M);
                continue;
            }
            if self.ghost == 0 {
                s.remove(set, t);
                return;
            }
            if s.len(set, G) >= self.ghost {
                let g = s.back(set, G).expect("ghost queue");
                s.remove(set, g);
                // Positions may have moved (small layout): find the victim again.
                let t = s.back(set, S).expect("small queue");
                s.move_front(set, t, G);
            } else {
                s.move_front(set, t, G);
            }
            return;
        }
    }
    #[inline(always)]
    fn evict_main<St: Store<Meta = u8>>(&self, s: &mut St, set: usize) {
        while let Some(t) = s.back(set, M) {
            let f = s.meta(set, t);
            if f == 0 {
                s.remove(set, t);
                return;
            }
            s.set_meta(set, t, f.min(3) - 1);
            s.move_front(set, t, M);
        }
    }
}

impl Rule for S3Fifo {
    type Meta = u8;
    fn name(&self) -> String {
        "s3fifo".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        let ways = ways.max(2);
        self.small = ((ways as f64 * 0.1) as usize).max(1);
        self.main = ways - self.small;
        self.ghost = (ways as f64 * 0.9) as usize;
        Layout {
            ghosts: self.ghost,
            ghost_mask: 1 << G,
            ..Layout::plain(sets, ways, 3)
        }
    }
    #[inline(always)]
    fn access<St: Store<Meta = u8>>(&mut self, s: &mut St, set: usize, key: u64, _: u64) -> Access {
        match s.find(set, key) {
            Some(h) if s.queue(set, h) != G => {
                let f = s.meta(set, h);
                s.set_meta(set, h, (f + 1).min(3));
                Access::Hit
            }
            _ => Access::Miss,
        }
    }
    fn insert<St: Store<Meta = u8>>(&mut self, s: &mut St, set: usize, key: u64, _: u64) {
        let from_ghost = match s.find(set, key) {
            Some(h) => {
                s.remove(set, h);
                true
            }
            None => false,
        };
        while s.len(set, S) + s.len(set, M) >= self.small + self.main {
            if s.len(set, M) > self.main || s.len(set, S) == 0 {
                self.evict_main(s, set);
            } else {
                self.evict_small(s, set);
            }
        }
        s.push_front(set, if from_ghost { M } else { S }, key, 0);
    }
}
