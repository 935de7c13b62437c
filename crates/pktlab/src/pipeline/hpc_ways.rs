//! HPC-n kept *in place* for the data plane's flow cache (paper 000, §4.2: the hardware view
//! of a set — entries never move, each way carries its priority bits). The decisions are
//! exactly those of [`crate::flowcache::Hpc`] on the slice store (same hits, same victims,
//! held to it by a proptest in [`super::nhcache`]); only the representation differs:
//!
//! * the slice store keeps a set's keys *ordered* (hit region first, then the normal region,
//!   each front = MRU), so every hit finds the key again and shifts keys and counters;
//! * here the keys stay in the ways the next-hop cache's tag array already has, and each way
//!   has one *position byte* — the region (16 = hit region, 0 = normal) plus the entry's rank
//!   in its region's LRU order (0 = MRU) — and one hit-counter byte. A set's eight position
//!   bytes are one `u64`, so a move to the front of a region is a few word operations on all
//!   ways at once (SWAR: increment the ranks below the moved one in the same region), with
//!   no per-way branch and nothing moved.
//!
//! Empty ways hold the position byte 0x40, which no region range contains. Up to eight
//! ways per set (the default HPC set); wider sets use the slice store.

use super::nhcache::{way_of, WayPolicy, EMPTY as EMPTY_TAG};
use std::fmt;

/// Ways per set this representation holds (one position byte each in a `u64`).
pub const MAX_WAYS: usize = 8;

/// The position byte of an empty way (outside both regions' ranges, below 0x80).
const EMPTY: u8 = 0x40;
/// Region bits of a position byte: the hit region's ranks are 16 + rank.
const HIT: u8 = 16;
/// A byte of ones in every lane.
const LANES: u64 = 0x0101_0101_0101_0101;
/// The top bit of every lane.
const TOPS: u64 = 0x8080_8080_8080_8080;

/// `v` in every byte.
#[inline(always)]
fn splat(v: u8) -> u64 {
    v as u64 * LANES
}

/// The lanes of `x` (bytes ≤ 0x40) in `lo..hi` (`hi ≤ 0x30`), as their top bits: each byte
/// of `0x7f + hi − x` and `0x80 + x − lo` stays within 0x3f..=0xc0, so no lane borrows or
/// carries into the next.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let below_hi = splat(0x7f + hi).wrapping_sub(x);
    let from_lo = x.wrapping_add(splat(0x80 - lo));
    below_hi & from_lo & TOPS
}

/// The way whose position byte is `v` (the caller knows exactly one is).
#[inline(always)]
fn lane_of(x: u64, v: u8) -> usize {
    let t = x ^ splat(v);
    // Exact zero-byte test (no false lanes): a lane's top bit survives only where t's byte
    // is 0.
    let z = !(((t & !TOPS).wrapping_add(!TOPS)) | t) & TOPS;
    debug_assert!(z != 0, "position byte {v:#x} not in {x:#x}");
    (z.trailing_zeros() / 8) as usize
}

#[inline(always)]
fn byte(x: u64, w: usize) -> u8 {
    (x >> (8 * w)) as u8
}

#[inline(always)]
fn with_byte(x: u64, w: usize, v: u8) -> u64 {
    (x & !(0xff << (8 * w))) | (v as u64) << (8 * w)
}

/// One set's replacement state.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Set {
    /// Position byte per way (region + rank, or [`EMPTY`]).
    pos: u64,
    /// Hit counter per way (below n).
    count: u64,
    /// Entries in the hit region and in the normal region.
    hit_len: u8,
    normal_len: u8,
}

/// HPC-n over `sets × ways` entries (`2 ≤ ways ≤ 8`), half of each set's ways the hit
/// region, the state per way.
#[derive(Clone)]
pub struct HpcWays {
    n: u8,
    ways: usize,
    hit_ways: u8,
    normal_ways: u8,
    sets: Vec<Set>,
}

impl HpcWays {
    /// HPC-`n` (`n ≥ 1`) over `sets` sets of `ways` ways; `None` unless `2 ≤ ways ≤ 8`.
    pub fn new(n: u8, sets: usize, ways: usize) -> Option<HpcWays> {
        if !(2..=MAX_WAYS).contains(&ways) {
            return None;
        }
        let hit_ways = ways / 2;
        Some(HpcWays {
            n: n.max(1),
            ways,
            hit_ways: hit_ways as u8,
            normal_ways: (ways - hit_ways) as u8,
            sets: vec![
                Set {
                    pos: splat(EMPTY),
                    count: 0,
                    hit_len: 0,
                    normal_len: 0,
                };
                sets
            ],
        })
    }

    /// A hit on the entry in way `way` of set `set` (it must hold one): HPC's access.
    #[inline(always)]
    fn access(&mut self, set: usize, way: usize) {
        let n = self.n;
        let s = &mut self.sets[set];
        let b = byte(s.pos, way);
        debug_assert!(b != EMPTY && way < MAX_WAYS);
        let region = b & HIT;
        // Move to the front of its region: the region's entries ranked before it move back.
        let x = s.pos;
        s.pos = with_byte(x + (in_range(x, region, b) >> 7), way, region);
        if region == HIT {
            return;
        }
        let c = byte(s.count, way).saturating_add(1);
        if c < n {
            s.count = with_byte(s.count, way, c);
            return;
        }
        self.promote(set, way);
    }

    /// The n-th hit of a normal-region entry, now at the normal region's front: it enters
    /// the hit region — at its back while the hit region has room, else by exchange with the
    /// hit region's LRU entry, which takes the normal region's front (both counters 0).
    #[cold]
    fn promote(&mut self, set: usize, way: usize) {
        let hit_ways = self.hit_ways;
        let s = &mut self.sets[set];
        s.count = with_byte(s.count, way, 0);
        if s.hit_len < hit_ways {
            // It leaves the normal region's front: the rest of the region moves up.
            let x = s.pos;
            let x = x - (in_range(x, 1, HIT) >> 7);
            s.pos = with_byte(x, way, HIT + s.hit_len);
            s.hit_len += 1;
            s.normal_len -= 1;
        } else {
            let back = HIT + s.hit_len - 1;
            let d = lane_of(s.pos, back);
            s.pos = with_byte(with_byte(s.pos, d, 0), way, back);
            s.count = with_byte(s.count, d, 0);
        }
    }
}

impl WayPolicy for HpcWays {
    fn name(&self) -> String {
        format!("hpc{}", self.n)
    }
    fn sets(&self) -> usize {
        self.sets.len()
    }
    fn ways(&self) -> usize {
        self.ways
    }
    #[inline(always)]
    fn hit(&mut self, set: usize, way: usize, _key: u32) {
        self.access(set, way)
    }
    /// A missed key enters the set at the normal region's back, counter 0: in the first empty
    /// way while the region has room, else in place of the region's LRU entry (its way).
    #[inline]
    fn fill_way(&mut self, set: usize, _key: u32, tags: &[u32]) -> Option<usize> {
        let s = &mut self.sets[set];
        let w = if s.normal_len < self.normal_ways {
            // The set has room (the normal region is below its size), so an empty way exists.
            let w = way_of(tags, EMPTY_TAG)?;
            debug_assert_eq!(byte(s.pos, w), EMPTY);
            s.pos = with_byte(s.pos, w, s.normal_len);
            s.normal_len += 1;
            w
        } else {
            lane_of(s.pos, s.normal_len - 1)
        };
        s.count = with_byte(s.count, w, 0);
        Some(w)
    }
    fn len(&self) -> usize {
        self.sets
            .iter()
            .map(|s| (s.hit_len + s.normal_len) as usize)
            .sum()
    }
    fn holds(&self, set: usize, way: usize, _key: u32) -> bool {
        byte(self.sets[set].pos, way) != EMPTY
    }
}

impl fmt::Debug for HpcWays {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HpcWays")
            .field("n", &self.n)
            .field("sets", &self.sets.len())
            .field("ways", &self.ways)
            .field("len", &WayPolicy::len(self))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_in_range_and_way_of_are_exact() {
        // Every byte value a set can hold, in every lane.
        let vals: Vec<u8> = (0..8).chain(16..24).chain([EMPTY]).collect();
        for (i, &a) in vals.iter().enumerate() {
            for &b in &vals[i..] {
                let x = with_byte(with_byte(splat(EMPTY), 3, a), 6, b);
                for (lo, hi) in [(0, 5), (0, 16), (16, 20), (1, 16), (16, 24)] {
                    let m = in_range(x, lo, hi);
                    for w in 0..8 {
                        let v = byte(x, w);
                        assert_eq!(
                            m >> (8 * w + 7) & 1 == 1,
                            (lo..hi).contains(&v),
                            "{x:#x} {w}"
                        );
                    }
                }
                if a != b {
                    assert_eq!(lane_of(x, a), if a == EMPTY { 0 } else { 3 });
                    assert_eq!(lane_of(x, b), if b == EMPTY { 0 } else { 6 });
                }
            }
        }
    }

    #[test]
    fn only_two_to_eight_ways() {
        assert!(HpcWays::new(4, 1, 1).is_none());
        assert!(HpcWays::new(4, 1, 9).is_none());
        let h = HpcWays::new(4, 2, 8).unwrap();
        assert_eq!(
            (h.sets(), h.ways(), h.len(), h.name()),
            (2, 8, 0, "hpc4".into())
        );
    }
}
