//! ZL-RED's per-flow Occurrence table (Kurata, Hasegawa & Murata, paper 002, §5.2.3): the
//! exact multiset count `F(id) = Σ_{zombies of flow id} (count + 1)`, kept in `2m` slots of
//! closed hashing so that every arrival costs O(1).
//!
//! Layout (this implementation's choice; the paper fixes only "2m entries, closed hashing"):
//! the `2m` slots (rounded up to a power of two, at least two buckets) are grouped in
//! **buckets of eight** — eight keys in one 64-byte cache line, their eight occurrences in
//! the next — and a flow lives in its home bucket (Fibonacci hashing: one multiply, the top
//! bits) or, when that bucket was full at insertion, in one of the buckets after it (linear
//! probing by bucket). Beside the buckets, a small array of meta words keeps, per bucket,
//! which ways are used and an **overflow count**: how many live flows whose home bucket lies
//! at or before it are stored after it (as Folly's F14 tables do). A lookup therefore reads
//! one bucket and stops there unless the key is absent *and* the bucket's overflow count is
//! non-zero; deletion decrements the counts of the buckets the flow had passed, so no
//! tombstones are needed and chains never break.
//!
//! Why buckets: at most `m` flows are live, so the load is ≤ 1/2 and the home bucket resolves
//! almost every operation. Within it the keys are compared without branches (a match mask,
//! and the meta word's free ways), so "flow present or not" — a coin toss on real traffic,
//! and the largest source of mispredicted branches in linear probing — becomes a select.
//! Why eight: measured in `pktlab aqm bench` (docs/results/aqm.md), buckets of four sent
//! 20 % of the lookups to the overflow path at 100,000 flows (≈ 1,000 live flows in 2,048
//! slots); eight ways keep a full table's overflow rare for a few more compares. The result
//! is exactly the same count as any other exact table (tested against a `HashMap` oracle), so
//! ZL-RED's drop decisions do not change.
//!
//! A live entry never moves (an insertion takes a free way, a deletion clears its own), so its
//! [`Slot`] stays valid while the flow's occurrence is above zero: ZL-RED keeps each zombie's
//! slot and updates the occurrence of the zombie it hits or overwrites there directly
//! ([`OccurrenceTable::add_at`], [`OccurrenceTable::sub_at`]) — no hashing, no key compare.

/// Slots per bucket: 8 keys (one 64-byte cache line) + 8 counts (the next line).
const WAYS: usize = 8;

/// Bits of a bucket's meta word that mark its used ways — way `w` is bit `2w`, the lane
/// layout of [`crate::simd::eq_mask_line`]'s match masks, so the two combine without
/// conversion; the overflow count sits above them.
const USED: u32 = 0x5555;

/// One overflowing flow in a meta word.
const OVER_ONE: u32 = 1 << (2 * WAYS);

/// Slot of way `w` in bucket `b`.
#[inline(always)]
fn slot(b: usize, w: usize) -> Slot {
    (b * WAYS + w) as Slot
}

/// The mask bit of way `w`.
#[inline(always)]
fn bit(w: usize) -> u32 {
    1 << (2 * w)
}

/// The way of the lowest set bit of a (spread) mask; way 0 for an empty mask.
#[inline(always)]
fn way(m: u32) -> usize {
    (m.trailing_zeros() as usize >> 1) & (WAYS - 1)
}

/// Where a live flow's occurrence sits: `bucket · 8 + way`, plus bit 31 if that is not the
/// flow's home bucket. ZL-RED's m ≤ 2^26 gives at most 2^27 slots; a table needs 16 bytes per
/// slot, so any table that fits in memory (m < 2^30) numbers its slots in 31 bits.
pub type Slot = u32;

/// The [`Slot`] bit of an entry stored after its home bucket (its deletion must also undo
/// the overflow counts it added on the way).
const AWAY: Slot = 1 << 31;

/// Two cache lines: eight keys, then their eight occurrences.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Bucket {
    keys: crate::simd::Line64,
    occ: [u64; WAYS],
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        keys: crate::simd::Line64([0; WAYS]),
        occ: [0; WAYS],
    };

    /// Bit `2i` set where `keys[i] == k`, without branches ([`crate::simd::eq_mask_line`];
    /// the caller keeps only the used ways).
    #[inline(always)]
    fn mask(&self, k: u64) -> u32 {
        crate::simd::eq_mask_line(&self.keys, k)
    }
}

/// The Occurrence table of §5.2.3 (see the module header for the layout).
#[derive(Clone, Debug)]
pub struct OccurrenceTable {
    buckets: Vec<Bucket>,
    /// Per bucket: even bits 0–14 = used ways (way `w` at bit `2w`), bits 16… = live flows with an earlier-or-equal home
    /// bucket stored after it (the overflow count).
    meta: Vec<u32>,
    /// log2(buckets); the home bucket is the top `bits` bits of a product.
    shift: u32,
    mask: usize,
}

impl OccurrenceTable {
    /// A table for a zombie list of `m` entries: `2m` slots rounded up to a power of two (at
    /// least two buckets).
    pub fn new(m: usize) -> Self {
        let n = (2 * m).next_power_of_two().div_ceil(WAYS).max(2);
        OccurrenceTable {
            buckets: vec![Bucket::EMPTY; n],
            meta: vec![0; n],
            shift: 64 - n.trailing_zeros(),
            mask: n - 1,
        }
    }

    /// Slots in the table (`2m` rounded up to a power of two, at least 8).
    pub fn capacity(&self) -> usize {
        self.buckets.len() * WAYS
    }

    /// Home bucket of key `k` (Fibonacci hashing: the top bits of `k · 2^64/φ`, < n).
    #[inline(always)]
    fn home(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Bucket and way of slot `s`; the bucket is masked, so it is `≤ mask` for any `s`.
    #[inline(always)]
    fn split(&self, s: Slot) -> (usize, usize) {
        let s = (s & !AWAY) as usize;
        ((s / WAYS) & self.mask, s % WAYS)
    }

    /// Bucket `b` (`b ≤ mask`).
    #[inline(always)]
    fn at(&self, b: usize) -> &Bucket {
        debug_assert!(b < self.buckets.len());
        // SAFETY: every index is `home(..)` (the top log2(n) bits of a 64-bit product, < n),
        // a successor masked with `mask = n − 1`, or a slot's bucket masked the same way
        // (`split`), and `buckets.len() == n` never changes.
        unsafe { self.buckets.get_unchecked(b) }
    }

    /// Bucket `b` (`b ≤ mask`), mutable.
    #[inline(always)]
    fn at_mut(&mut self, b: usize) -> &mut Bucket {
        debug_assert!(b < self.buckets.len());
        // SAFETY: as in `at`.
        unsafe { self.buckets.get_unchecked_mut(b) }
    }

    /// Meta word of bucket `b` (`b ≤ mask`).
    #[inline(always)]
    fn meta(&self, b: usize) -> u32 {
        debug_assert!(b < self.meta.len());
        // SAFETY: `meta.len() == buckets.len()`; `b` as in `at`.
        unsafe { *self.meta.get_unchecked(b) }
    }

    /// Meta word of bucket `b` (`b ≤ mask`), mutable.
    #[inline(always)]
    fn meta_mut(&mut self, b: usize) -> &mut u32 {
        debug_assert!(b < self.meta.len());
        // SAFETY: as in `meta`.
        unsafe { self.meta.get_unchecked_mut(b) }
    }

    /// Bucket and way of key `k`, if present.
    #[inline]
    fn find(&self, k: u64) -> Option<(usize, usize)> {
        let mut b = self.home(k);
        loop {
            let mt = self.meta(b);
            let fm = self.at(b).mask(k) & mt;
            if fm != 0 {
                return Some((b, way(fm)));
            }
            if mt < OVER_ONE {
                return None;
            }
            b = (b + 1) & self.mask;
        }
    }

    /// Occurrence of `id` (0 if absent).
    #[inline]
    pub fn get(&self, id: u64) -> u64 {
        let b = self.home(id);
        let mt = self.meta(b);
        let bk = self.at(b);
        let fm = bk.mask(id) & mt;
        // Resolved in the home bucket (almost always): present → its count, else 0 — as a
        // select, not a branch (presence is data, not a pattern). The test is one OR of
        // integers so that the compiler cannot split it into a branch on `fm`.
        if fm | (mt < OVER_ONE) as u32 != 0 {
            let v = bk.occ[way(fm)];
            return std::hint::select_unpredictable(fm != 0, v, 0);
        }
        self.get_slow(id)
    }

    #[cold]
    #[inline(never)]
    fn get_slow(&self, k: u64) -> u64 {
        match self.find(k) {
            Some((b, w)) => self.at(b).occ[w],
            None => 0,
        }
    }

    /// Adds `d ≥ 1` to the occurrence of `id` (inserting it if absent); returns the new value.
    #[inline]
    pub fn add(&mut self, id: u64, d: u64) -> u64 {
        self.add_slot(id, d).0
    }

    /// As [`OccurrenceTable::add`], and also returns where the entry of `id` sits (valid until
    /// its occurrence drops to zero).
    #[inline]
    pub fn add_slot(&mut self, id: u64, d: u64) -> (u64, Slot) {
        debug_assert!(d > 0);
        let b = self.home(id);
        let mt = self.meta(b);
        let bk = self.at_mut(b);
        let fm = bk.mask(id) & mt;
        // Present in the home bucket, or absent from the table with room at home (`room` is
        // the free ways when nothing overflowed from here, else 0): one integer test, as in
        // `get`.
        let room = !mt & USED & 0u32.wrapping_sub((mt < OVER_ONE) as u32);
        if fm | room != 0 {
            let hit = fm != 0;
            let w = way(std::hint::select_unpredictable(hit, fm, room));
            let v = std::hint::select_unpredictable(hit, bk.occ[w], 0) + d;
            bk.keys.0[w] = id;
            bk.occ[w] = v;
            *self.meta_mut(b) = mt | bit(w);
            return (v, slot(b, w));
        }
        self.add_slow(id, d)
    }

    #[cold]
    #[inline(never)]
    fn add_slow(&mut self, k: u64, d: u64) -> (u64, Slot) {
        if let Some((b, w)) = self.find(k) {
            let away = b != self.home(k);
            let s = &mut self.at_mut(b).occ[w];
            *s += d;
            return (*s, slot(b, w) | (away as Slot) << 31);
        }
        // Absent: the first bucket with room along the chain; every full bucket passed counts
        // one more overflowing flow. At most m ≤ capacity/2 flows are live, so one has room
        // (a caller that keeps more live flows gets a panic, not an endless search).
        let mut b = self.home(k);
        for _ in 0..self.buckets.len() {
            let free = !self.meta(b) & USED;
            if free != 0 {
                let w = way(free);
                let bk = self.at_mut(b);
                bk.keys.0[w] = k;
                bk.occ[w] = d;
                *self.meta_mut(b) |= bit(w);
                let away = b != self.home(k);
                return (d, slot(b, w) | (away as Slot) << 31);
            }
            *self.meta_mut(b) += OVER_ONE;
            b = (b + 1) & self.mask;
        }
        panic!(
            "occurrence table full: more than {} live flows",
            self.capacity()
        );
    }

    /// Subtracts `d` (≤ the current value) from the occurrence of `id`, deleting the entry
    /// at zero; an absent `id` is left alone.
    #[inline]
    pub fn sub(&mut self, id: u64, d: u64) {
        let b = self.home(id);
        let mt = self.meta(b);
        let bk = self.at_mut(b);
        let fm = bk.mask(id) & mt;
        if fm != 0 {
            let w = way(fm);
            let v = bk.occ[w].saturating_sub(d);
            bk.occ[w] = v;
            *self.meta_mut(b) = mt & !(((v == 0) as u32) << (2 * w));
            return;
        }
        self.sub_slow(id, d);
    }

    #[cold]
    #[inline(never)]
    fn sub_slow(&mut self, k: u64, d: u64) {
        let Some((b, w)) = self.find(k) else {
            return;
        };
        let bk = self.at_mut(b);
        bk.occ[w] = bk.occ[w].saturating_sub(d);
        if bk.occ[w] > 0 {
            return;
        }
        *self.meta_mut(b) &= !bit(w);
        self.unchain(k, b);
    }

    /// The deleted flow `k`, which was stored in bucket `b`, no longer passes the buckets from
    /// its home up to (not including) `b`: their overflow counts drop by one.
    #[cold]
    #[inline(never)]
    fn unchain(&mut self, k: u64, b: usize) {
        let mut h = self.home(k);
        while h != b {
            *self.meta_mut(h) -= OVER_ONE;
            h = (h + 1) & self.mask;
        }
    }

    /// Adds `d` to the occurrence of `id`, whose entry sits at `s` (from
    /// [`OccurrenceTable::add_slot`], its occurrence above zero ever since); returns the new
    /// value. Another slot than that of `id` is a caller bug: checked in debug builds; in
    /// release builds it corrupts counts, never memory.
    #[inline]
    pub fn add_at(&mut self, s: Slot, id: u64, d: u64) -> u64 {
        let (b, w) = self.split(s);
        debug_assert!(self.at(b).keys.0[w] == id && self.meta(b) & bit(w) != 0);
        let o = &mut self.at_mut(b).occ[w];
        *o += d;
        *o
    }

    /// Subtracts `d` (≤ the current value) from the occurrence of `id`, whose entry sits at
    /// `s` (as in [`OccurrenceTable::add_at`]), deleting the entry at zero.
    #[inline]
    pub fn sub_at(&mut self, s: Slot, id: u64, d: u64) {
        let (b, w) = self.split(s);
        debug_assert!(self.at(b).keys.0[w] == id && self.meta(b) & bit(w) != 0);
        let bk = self.at_mut(b);
        let v = bk.occ[w].saturating_sub(d);
        bk.occ[w] = v;
        let gone = v == 0;
        let mt = self.meta(b);
        *self.meta_mut(b) = mt & !((gone as u32) << (2 * w));
        // Away from its home bucket (rare: the home was full at insertion), a deleted flow
        // also leaves the overflow counts it added on the way.
        if gone & (s & AWAY != 0) {
            self.unchain(id, b);
        }
    }

    /// Number of live flows.
    pub fn len(&self) -> usize {
        self.meta
            .iter()
            .map(|m| (m & USED).count_ones() as usize)
            .sum()
    }

    /// True if no flow is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn deletes_without_breaking_chains() {
        let mut t = OccurrenceTable::new(8);
        for id in 0..8u64 {
            t.add(id, id + 1);
        }
        for id in (0..8u64).step_by(2) {
            t.sub(id, id + 1);
        }
        for id in 0..8u64 {
            assert_eq!(t.get(id), if id % 2 == 0 { 0 } else { id + 1 });
        }
        assert_eq!(t.len(), 4);
    }

    #[test]
    fn overflow_chains_hold_when_every_key_has_the_same_home() {
        // Ids whose products share the top bits all land in one bucket; with 8 of them the
        // home bucket and its successor overflow, and deleting from the middle of the chain
        // must keep the rest reachable.
        let mut t = OccurrenceTable::new(16); // 32 slots, 8 buckets
        let home = t.home(1);
        let same: Vec<u64> = (1..1_000_000u64)
            .filter(|&i| t.home(i) == home)
            .take(10)
            .collect();
        assert_eq!(same.len(), 10);
        for (i, &id) in same.iter().enumerate() {
            assert_eq!(t.add(id, i as u64 + 1), i as u64 + 1);
        }
        assert!(t.meta(home) >= OVER_ONE);
        for &id in same.iter().skip(1).step_by(3) {
            let v = t.get(id);
            t.sub(id, v);
        }
        for (i, &id) in same.iter().enumerate() {
            let want = if i % 3 == 1 { 0 } else { i as u64 + 1 };
            assert_eq!(t.get(id), want, "id #{i}");
        }
        for &id in &same {
            let v = t.get(id);
            t.sub(id, v);
        }
        assert!(t.is_empty());
        assert!(t.meta.iter().all(|&o| o == 0), "{:?}", t.meta);
    }

    #[test]
    fn slot_deletes_undo_the_overflow_of_flows_away_from_home() {
        // Ten flows with one home bucket: eight fill it, two go to the next buckets (their
        // slots carry the away bit); deleting through the slots, in any order, restores
        // every overflow count.
        let mut t = OccurrenceTable::new(16);
        let home = t.home(1);
        let same: Vec<u64> = (1..1_000_000u64)
            .filter(|&i| t.home(i) == home)
            .take(10)
            .collect();
        let slots: Vec<Slot> = same.iter().map(|&id| t.add_slot(id, 3).1).collect();
        let away = slots.iter().filter(|&&s| s & AWAY != 0).count();
        assert_eq!(away, 2, "{slots:x?}");
        assert_eq!(t.meta(home) / OVER_ONE, 2);
        let mut gone = [false; 10];
        for i in [9, 0, 5, 8, 1, 2, 3, 4, 6, 7] {
            assert_eq!(t.add_at(slots[i], same[i], 1), 4);
            t.sub_at(slots[i], same[i], 2);
            assert_eq!(t.get(same[i]), 2);
            t.sub_at(slots[i], same[i], 2);
            gone[i] = true;
            for (j, &id) in same.iter().enumerate() {
                let want = if gone[j] { 0 } else { 3 };
                assert_eq!(t.get(id), want, "flow #{j} after deleting #{i}");
            }
        }
        assert!(t.is_empty());
        assert!(t.meta.iter().all(|&o| o == 0), "{:?}", t.meta);
    }

    #[test]
    fn zero_and_all_ones_ids_are_flows_like_any_other() {
        let mut t = OccurrenceTable::new(4);
        assert_eq!(t.get(0), 0);
        assert_eq!(t.add(0, 2), 2);
        assert_eq!(t.add(u64::MAX, 3), 3);
        assert_eq!(t.get(u64::MAX), 3);
        assert_eq!(t.get(0), 2);
        assert_eq!(t.len(), 2);
        t.sub(u64::MAX, 3);
        t.sub(0, 2);
        assert!(t.is_empty());
    }

    proptest! {
        /// The slot-addressed updates against the same oracle: an entry's slot never changes
        /// while it is live (`add_slot` of a present id returns the slot it was given), and
        /// `add_at`/`sub_at` at that slot — including deletions of flows stored away from
        /// their home bucket — leave the table exactly as the hashed `add`/`sub` would.
        #[test]
        fn slot_updates_match_a_hashmap(m in 1usize..24, ops in proptest::collection::vec((0u64..40, 1u64..5, 0u8..4), 1..600)) {
            let mut t = OccurrenceTable::new(m);
            let mut o: HashMap<u64, (u64, Slot)> = HashMap::new();
            for (x, d, op) in ops {
                // At most 23 live flows in 2 to 8 buckets: overflow chains form and shrink.
                let id = x.wrapping_mul(0x0123_4567_89AB_CDEF);
                match (op, o.get(&id).copied()) {
                    (0, cur) => {
                        if cur.is_none() && o.len() >= m {
                            continue;
                        }
                        let v = cur.map_or(0, |c| c.0) + d;
                        let (got, s) = t.add_slot(id, d);
                        prop_assert_eq!(got, v);
                        if let Some((_, s0)) = cur {
                            prop_assert_eq!(s, s0, "a live entry moved");
                        }
                        o.insert(id, (v, s));
                    }
                    (1, Some((v, s))) => {
                        prop_assert_eq!(t.add_at(s, id, d), v + d);
                        o.insert(id, (v + d, s));
                    }
                    (2, Some((v, s))) => {
                        let d = d.min(v);
                        t.sub_at(s, id, d);
                        if v == d { o.remove(&id); } else { o.insert(id, (v - d, s)); }
                    }
                    (3, Some((v, _))) => {
                        // The hashed delete, for a mix of both kinds of updates.
                        t.sub(id, v);
                        o.remove(&id);
                    }
                    _ => {}
                }
                prop_assert_eq!(t.len(), o.len());
                for x in 0..40u64 {
                    let id = x.wrapping_mul(0x0123_4567_89AB_CDEF);
                    prop_assert_eq!(t.get(id), o.get(&id).map_or(0, |c| c.0));
                }
            }
            // Emptied, every overflow count is back to zero.
            for (id, (v, s)) in o.drain() {
                t.sub_at(s, id, v);
            }
            prop_assert!(t.is_empty());
            prop_assert!(t.meta.iter().all(|&w| w == 0), "{:?}", t.meta);
        }
    }

    proptest! {
        /// Against a `HashMap` oracle, with at most m live flows (ZL-RED's invariant):
        /// few distinct ids in a small table, so chains overflow, grow and shrink.
        #[test]
        fn matches_a_hashmap(m in 1usize..24, ops in proptest::collection::vec((0u64..40, 1u64..5, any::<bool>()), 1..600)) {
            let mut t = OccurrenceTable::new(m);
            let mut o: HashMap<u64, u64> = HashMap::new();
            for (x, d, add) in ops {
                // Spread ids over the whole range, keep a few near the reserved key.
                let id = if x < 3 { u64::MAX - x } else { x.wrapping_mul(0x0123_4567_89AB_CDEF) };
                if add {
                    if !o.contains_key(&id) && o.len() >= m {
                        continue;
                    }
                    let e = o.entry(id).or_insert(0);
                    *e += d;
                    prop_assert_eq!(t.add(id, d), *e);
                } else if let Some(&v) = o.get(&id) {
                    let d = d.min(v);
                    t.sub(id, d);
                    if v == d { o.remove(&id); } else { o.insert(id, v - d); }
                } else {
                    t.sub(id, d);
                }
                prop_assert_eq!(t.len(), o.len());
                for x in 0..40u64 {
                    let id = if x < 3 { u64::MAX - x } else { x.wrapping_mul(0x0123_4567_89AB_CDEF) };
                    prop_assert_eq!(t.get(id), o.get(&id).copied().unwrap_or(0));
                }
            }
        }
    }
}
