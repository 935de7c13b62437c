//! W-TinyLFU (Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient Cache Admission
//! Policy", ACM ToS 2017, §4 and fig. 5; the design of Caffeine): a small LRU *window* (1% of
//! the ways, at least one) in front of a segmented-LRU main cache (20% probationary, 80%
//! protected), and a frequency sketch deciding admission: when the window overflows, its LRU
//! entry enters the main cache if there is room, else it must beat the main cache's victim
//! (the probationary back) on estimated frequency, or it is dropped.
//!
//! The sketch is a count-min sketch over the whole cache: 4 rows of 4-bit counters (width the
//! next power of two ≥ the number of entries), incremented on every request (conservative
//! update: only the minimal counters), all halved after 10 × entries increments (the paper's
//! reset, sample size W = 10·C). No doorkeeper.

use super::engine::Rule;
use super::store::{Layout, Store};
use super::Access;

const WIN: usize = 0;
const PROB: usize = 1;
const PROT: usize = 2;

/// Count-min sketch with 4-bit counters and periodic halving.
#[derive(Clone, Debug, Default)]
pub(crate) struct Sketch {
    rows: Vec<u8>,
    mask: usize,
    added: u64,
    sample: u64,
}

impl Sketch {
    pub(crate) fn new(entries: usize) -> Sketch {
        let w = entries.max(16).next_power_of_two();
        Sketch {
            rows: vec![0; 4 * w],
            mask: w - 1,
            added: 0,
            sample: 10 * entries.max(1) as u64,
        }
    }
    #[inline(always)]
    fn cells(&self, key: u64) -> [usize; 4] {
        let h = crate::util::splitmix64(key);
        let g = crate::util::splitmix64(h);
        let w = self.mask + 1;
        [
            (h as usize) & self.mask,
            w + ((h >> 32) as usize & self.mask),
            2 * w + (g as usize & self.mask),
            3 * w + ((g >> 32) as usize & self.mask),
        ]
    }
    #[inline(always)]
    pub(crate) fn estimate(&self, key: u64) -> u8 {
        self.cells(key)
            .iter()
            .map(|&c| self.rows[c])
            .min()
            .unwrap_or(0)
    }
    #[inline(always)]
    pub(crate) fn add(&mut self, key: u64) {
        let c = self.cells(key);
        let m = c.iter().map(|&i| self.rows[i]).min().unwrap_or(0);
        if m < 15 {
            for i in c {
                if self.rows[i] == m {
                    self.rows[i] += 1;
                }
            }
        }
        self.added += 1;
        if self.added >= self.sample {
            self.added /= 2;
            for x in &mut self.rows {
                *x >>= 1;
            }
        }
    }
}

/// W-TinyLFU: window LRU + sketch admission + SLRU main cache.
#[derive(Clone, Debug, Default)]
pub struct TinyLfu {
    window: usize,
    prot: usize,
    sketch: Sketch,
}

impl Rule for TinyLfu {
    type Meta = ();
    fn name(&self) -> String {
        "tinylfu".into()
    }
    fn layout(&mut self, sets: usize, ways: usize) -> Layout {
        let ways = ways.max(2);
        self.window = ((ways as f64 * 0.01) as usize).max(1);
        self.prot = ((ways - self.window) as f64 * 0.8) as usize;
        self.sketch = Sketch::new(sets * ways);
        Layout::plain(sets, ways, 3)
    }
    #[inline(always)]
    fn access<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) -> Access {
        self.sketch.add(key);
        let Some(h) = s.find(set, key) else {
            return Access::Miss;
        };
        match s.queue(set, h) {
            WIN => {
                s.move_front(set, h, WIN);
            }
            _ => {
                let from = s.queue(set, h);
                s.move_front(set, h, PROT);
                if from == PROB && s.len(set, PROT) > self.prot {
                    let d = s.back(set, PROT).expect("protected segment");
                    s.move_front(set, d, PROB);
                }
            }
        }
        Access::Hit
    }
    fn insert<S: Store<Meta = ()>>(&mut self, s: &mut S, set: usize, key: u64, _: u64) {
        let ways = s.layout().ways;
        if s.len(set, WIN) >= self.window {
            let w = s.back(set, WIN).expect("window");
            let main = s.len(set, PROB) + s.len(set, PROT);
            if main + self.window >= ways {
                let v = s
                    .back(set, PROB)
                    .or_else(|| s.back(set, PROT))
                    .expect("main");
                let wk = s.key(set, w);
                if self.sketch.estimate(wk) > self.sketch.estimate(s.key(set, v)) {
                    s.remove(set, v);
                    let w = s.find(set, wk).expect("window victim");
                    s.move_front(set, w, PROB);
                } else {
                    s.remove(set, w);
                }
            } else {
                s.move_front(set, w, PROB);
            }
        }
        s.push_front(set, WIN, key, ());
    }
}
