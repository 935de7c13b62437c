//! The small-set layout (paper 000's hardware view of a set: a few ways compared in parallel,
//! priorities as positions). Each set is one slice of `stride = ways + ghosts` 32-bit keys
//! with the queues laid out one after another (queue 0 first, each ordered front → back) and
//! the empty ways last; per set, four queue lengths (`u8`). A lookup is a branch-free scan of
//! the slice; a move is one slice rotation between the old and the new position plus two
//! length updates — a few register moves for ≤ 16 ways. Handles are positions in the slice.
//!
//! Keys are 32-bit (dense flow ids); `u32::MAX` marks an empty way.

use super::{Layout, Store};

const EMPTY: u32 = u32::MAX;

/// Sets as slices of queues ordered by priority; metadata `M` moves with its key.
#[derive(Clone, Debug)]
pub struct Small<M> {
    keys: Vec<u32>,
    meta: Vec<M>,
    lens: Vec<[u8; 4]>,
    hand: Vec<u8>,
    stride: usize,
    layout: Layout,
}

/// First position of `x` in the fixed-length `w`, or `N` when absent: the comparisons are
/// gathered into a bit mask ([`crate::simd::eq_mask_u32`]: one vector compare and a mask
/// extract per four ways), no data-dependent branch.
#[inline(always)]
fn first_eq<const N: usize>(w: &[u32; N], x: u32) -> usize {
    const { assert!(N < 32) };
    (crate::simd::eq_mask_u32(w, x) | 1 << N).trailing_zeros() as usize
}

/// The `N` keys of set `set` as an array (`N` = the stride); the length check folds away.
#[inline(always)]
fn set_ref<const N: usize>(keys: &[u32], set: usize) -> &[u32; N] {
    let b = set * N;
    keys[b..b + N]
        .try_into()
        .expect("set slice has the stride's length")
}

/// [`set_ref`], mutable.
#[inline(always)]
fn set_mut<const N: usize>(keys: &mut [u32], set: usize) -> &mut [u32; N] {
    let b = set * N;
    (&mut keys[b..b + N])
        .try_into()
        .expect("set slice has the stride's length")
}

/// Position of `key` in `w`: a scan without data-dependent exits (the generic path for set
/// sizes other than 4, 8 and 16).
#[inline(always)]
fn scan(w: &[u32], key: u32) -> Option<usize> {
    let mut hit = usize::MAX;
    for (i, &k) in w.iter().enumerate().rev() {
        if k == key {
            hit = i;
        }
    }
    (hit != usize::MAX).then_some(hit)
}

/// Moves `w[i]` to `w[to]` (`to ≤ i`), shifting `w[to..i]` back by one.
#[inline(always)]
fn shift_right<T: Copy>(w: &mut [T], to: usize, i: usize) {
    let x = w[i];
    let mut j = i;
    while j > to {
        w[j] = w[j - 1];
        j -= 1;
    }
    w[to] = x;
}

/// Moves `w[i]` to `w[to]` (`to ≥ i`), shifting `w[i+1..=to]` forward by one.
#[inline(always)]
fn shift_left<T: Copy>(w: &mut [T], i: usize, to: usize) {
    let x = w[i];
    let mut j = i;
    while j < to {
        w[j] = w[j + 1];
        j += 1;
    }
    w[to] = x;
}

impl<M: Copy + Default> Small<M> {
    #[inline(always)]
    fn base(&self, set: usize) -> usize {
        set * self.stride
    }
    /// True when entries carry metadata (a zero-sized `M` moves for free and is skipped).
    const META: bool = std::mem::size_of::<M>() > 0;

    #[inline(always)]
    fn start(&self, set: usize, q: usize) -> usize {
        if q == 0 || self.layout.queues == 1 {
            return 0;
        }
        let l = &self.lens[set];
        let mut s = 0;
        for &x in &l[..q] {
            s += x as usize;
        }
        s
    }
    #[inline(always)]
    fn total(&self, set: usize) -> usize {
        let l = self.lens[set];
        l[0] as usize + l[1] as usize + l[2] as usize + l[3] as usize
    }
    #[inline(always)]
    fn add_len(&mut self, set: usize, q: usize, d: i32) {
        let l = &mut self.lens[set][q];
        *l = (*l as i32 + d) as u8;
    }
    /// Moves position `i` to position `to` within the set, shifting what lies between.
    #[inline(always)]
    fn shift(&mut self, set: usize, i: usize, to: usize) {
        let b = self.base(set);
        let r = b..b + self.stride;
        if to <= i {
            shift_right(&mut self.keys[r.clone()], to, i);
            if Self::META {
                shift_right(&mut self.meta[r], to, i);
            }
        } else {
            shift_left(&mut self.keys[r.clone()], i, to);
            if Self::META {
                shift_left(&mut self.meta[r], i, to);
            }
        }
    }
}

impl<M> Small<M> {
    /// The fused one-queue step: `key` goes to the front and the ways before slot `p` shift
    /// back by one, where `p` is the way holding `key` (looked for only when `LOOK`; the
    /// caller knows it is absent otherwise), else — when `INSERT` — the first empty way, else
    /// the back; without `INSERT` a miss changes nothing. All by selects, no data-dependent
    /// branch. Returns true when `key` was found.
    #[inline(always)]
    fn front_shift<const LOOK: bool, const INSERT: bool>(&mut self, set: usize, key: u32) -> bool {
        /// The step on a set of compile-time length `N`; returns (found, the set grew).
        #[inline(always)]
        fn fixed<const N: usize, const LOOK: bool, const INSERT: bool>(
            w: &mut [u32; N],
            key: u32,
        ) -> (bool, bool) {
            // One load and one store of the whole set (a value copy), so the next packet's
            // read of this set is forwarded from a store of the same width.
            let mut v = *w;
            let r = fixed_on::<N, LOOK, INSERT>(&mut v, key);
            *w = v;
            r
        }
        #[inline(always)]
        fn fixed_on<const N: usize, const LOOK: bool, const INSERT: bool>(
            w: &mut [u32; N],
            key: u32,
        ) -> (bool, bool) {
            use std::hint::select_unpredictable as pick;
            let grows = w[N - 1] == EMPTY;
            let hit = if LOOK { first_eq(w, key) } else { N };
            let found = hit < N;
            // Both candidates computed, then selected without a branch: whether a packet
            // hits, and where, is data (cachegrind: 2.6 mispredicts per 4 packets when these
            // were branches).
            let empty = if INSERT {
                // The first empty way, else the back.
                first_eq(w, EMPTY).min(N - 1)
            } else {
                0
            };
            let p = pick(found, hit, empty);
            for j in (1..N).rev() {
                w[j] = pick(j <= p, w[j - 1], w[j]);
            }
            w[0] = pick(INSERT || found, key, w[0]);
            (found, grows && !found)
        }
        /// The same step on a set of any length.
        #[inline(always)]
        fn any<const LOOK: bool, const INSERT: bool>(w: &mut [u32], key: u32) -> (bool, bool) {
            let n = w.len();
            let grows = w[n - 1] == EMPTY;
            let (mut hit, mut empty) = (n, n - 1);
            if LOOK {
                for i in (0..n).rev() {
                    hit = if w[i] == key { i } else { hit };
                }
            }
            if INSERT {
                for i in (0..n).rev() {
                    empty = if w[i] == EMPTY { i } else { empty };
                }
            }
            let found = hit < n;
            let p = if found {
                hit
            } else if INSERT {
                empty
            } else {
                0
            };
            for j in (1..n).rev() {
                w[j] = if j <= p { w[j - 1] } else { w[j] };
            }
            w[0] = if INSERT || found { key } else { w[0] };
            (found, grows && !found)
        }
        let (hit, grew) = match self.stride {
            4 => fixed::<4, LOOK, INSERT>(set_mut(&mut self.keys, set), key),
            8 => fixed::<8, LOOK, INSERT>(set_mut(&mut self.keys, set), key),
            n => any::<LOOK, INSERT>(&mut self.keys[set * n..set * n + n], key),
        };
        if INSERT {
            // The set is packed (empty ways last), so it grew iff its last way was empty.
            self.lens[set][0] += grew as u8;
        }
        hit
    }
}

impl<M: Copy + Default + Ord + std::fmt::Debug> Store for Small<M> {
    type Meta = M;

    fn build(layout: Layout) -> Self {
        let stride = layout.ways + layout.ghosts;
        assert!(
            layout.queues <= 4 && stride <= 255,
            "small layout: ≤ 4 queues, ≤ 255 entries per set"
        );
        Small {
            keys: vec![EMPTY; layout.sets * stride],
            meta: vec![M::default(); layout.sets * stride],
            lens: vec![[0; 4]; layout.sets],
            hand: vec![0; layout.sets],
            stride,
            layout,
        }
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    #[inline(always)]
    fn find(&self, set: usize, key: u64) -> Option<u32> {
        debug_assert!(key < EMPTY as u64, "small layout keys are 32-bit");
        let (k, n) = (key as u32, self.stride);
        let p = match n {
            4 => first_eq::<4>(set_ref(&self.keys, set), k),
            8 => first_eq::<8>(set_ref(&self.keys, set), k),
            16 => first_eq::<16>(set_ref(&self.keys, set), k),
            _ => return scan(&self.keys[set * n..set * n + n], k).map(|p| p as u32),
        };
        (p < n).then_some(p as u32)
    }
    #[inline(always)]
    fn key(&self, set: usize, h: u32) -> u64 {
        self.keys[self.base(set) + h as usize] as u64
    }
    #[inline(always)]
    fn queue(&self, set: usize, h: u32) -> usize {
        if self.layout.queues == 1 {
            return 0;
        }
        let l = self.lens[set];
        let mut end = 0;
        for (q, &x) in l.iter().enumerate() {
            end += x as usize;
            if (h as usize) < end {
                return q;
            }
        }
        3
    }
    #[inline(always)]
    fn len(&self, set: usize, q: usize) -> usize {
        self.lens[set][q] as usize
    }
    #[inline(always)]
    fn front(&self, set: usize, q: usize) -> Option<u32> {
        (self.lens[set][q] > 0).then(|| self.start(set, q) as u32)
    }
    #[inline(always)]
    fn back(&self, set: usize, q: usize) -> Option<u32> {
        let n = self.lens[set][q] as usize;
        (n > 0).then(|| (self.start(set, q) + n - 1) as u32)
    }
    #[inline(always)]
    fn prev(&self, set: usize, h: u32) -> Option<u32> {
        let q = self.queue(set, h);
        (h as usize > self.start(set, q)).then(|| h - 1)
    }
    #[inline(always)]
    fn next(&self, set: usize, h: u32) -> Option<u32> {
        let q = self.queue(set, h);
        ((h as usize + 1) < self.start(set, q) + self.len(set, q)).then(|| h + 1)
    }
    #[inline(always)]
    fn meta(&self, set: usize, h: u32) -> M {
        self.meta[self.base(set) + h as usize]
    }
    #[inline(always)]
    fn set_meta(&mut self, set: usize, h: u32, m: M) {
        let i = self.base(set) + h as usize;
        self.meta[i] = m;
    }
    #[inline(always)]
    fn move_front(&mut self, set: usize, h: u32, q: usize) -> u32 {
        let (i, qo) = (h as usize, self.queue(set, h));
        let s = self.start(set, q);
        let to = if s <= i { s } else { s - 1 };
        self.shift(set, i, to);
        if qo != q {
            self.add_len(set, qo, -1);
            self.add_len(set, q, 1);
        }
        to as u32
    }
    #[inline(always)]
    fn move_back(&mut self, set: usize, h: u32, q: usize) -> u32 {
        let (i, qo) = (h as usize, self.queue(set, h));
        let end = self.start(set, q) + self.len(set, q);
        let to = if i < end { end - 1 } else { end };
        self.shift(set, i, to);
        if qo != q {
            self.add_len(set, qo, -1);
            self.add_len(set, q, 1);
        }
        to as u32
    }
    #[inline(always)]
    fn swap_prev(&mut self, set: usize, h: u32) {
        if let Some(p) = self.prev(set, h) {
            let b = self.base(set);
            self.keys.swap(b + p as usize, b + h as usize);
            self.meta.swap(b + p as usize, b + h as usize);
        }
    }
    #[inline(always)]
    fn push_front(&mut self, set: usize, q: usize, key: u64, m: M) -> u32 {
        let i = self.total(set);
        debug_assert!(i < self.stride, "push into a full set");
        let b = self.base(set);
        self.keys[b + i] = key as u32;
        self.meta[b + i] = m;
        let to = self.start(set, q);
        self.shift(set, i, to);
        self.add_len(set, q, 1);
        to as u32
    }
    #[inline(always)]
    fn push_back(&mut self, set: usize, q: usize, key: u64, m: M) -> u32 {
        let i = self.total(set);
        debug_assert!(i < self.stride, "push into a full set");
        let b = self.base(set);
        self.keys[b + i] = key as u32;
        self.meta[b + i] = m;
        let to = self.start(set, q) + self.len(set, q);
        self.shift(set, i, to);
        self.add_len(set, q, 1);
        to as u32
    }
    #[inline(always)]
    fn replace(&mut self, set: usize, h: u32, key: u64, m: M) {
        let i = self.base(set) + h as usize;
        self.keys[i] = key as u32;
        self.meta[i] = m;
    }
    #[inline(always)]
    fn remove(&mut self, set: usize, h: u32) {
        let q = self.queue(set, h);
        let last = self.total(set) - 1;
        self.shift(set, h as usize, last);
        let b = self.base(set);
        self.keys[b + last] = EMPTY;
        self.meta[b + last] = M::default();
        self.add_len(set, q, -1);
    }
    #[inline(always)]
    fn way(&self, _set: usize, i: usize) -> u32 {
        i as u32
    }
    fn max_meta(&self, set: usize) -> Option<u32> {
        let b = self.base(set);
        let n = self.total(set);
        let m = &self.meta[b..b + n];
        let mut j = 0;
        for (k, x) in m.iter().enumerate() {
            if *x > m[j] {
                j = k;
            }
        }
        (n > 0).then_some(j as u32)
    }
    #[inline(always)]
    fn hand(&self, set: usize) -> Option<u32> {
        // Stored as the distance from the back of queue 0 (1 = the back), which is what stays
        // put when entries are pushed at the front or removed at the hand.
        let d = self.hand[set] as usize;
        let n = self.len(set, 0);
        (d >= 1 && d <= n).then(|| (n - d) as u32)
    }
    #[inline(always)]
    fn set_hand(&mut self, set: usize, h: Option<u32>) {
        self.hand[set] = match h {
            Some(p) => (self.len(set, 0) - p as usize) as u8,
            None => 0,
        };
    }
    /// Branch-free without metadata: on a hit and on a miss alike the key ends at the front
    /// and the ways before its old slot (the hit way, else the first empty way, else the back)
    /// shift by one.
    #[inline(always)]
    fn touch_front(&mut self, set: usize, key: u64) -> bool {
        debug_assert_eq!(self.layout.queues, 1);
        if Self::META {
            // The branch-free shift moves keys only; with metadata the entries move whole.
            super::touch_front_any(self, set, key)
        } else {
            self.front_shift::<true, true>(set, key as u32)
        }
    }
    #[inline(always)]
    fn touch(&mut self, set: usize, key: u64) -> bool {
        debug_assert!(self.layout.queues == 1 && self.layout.ghosts == 0);
        if !Self::META {
            self.front_shift::<true, false>(set, key as u32)
        } else {
            super::touch_any(self, set, key)
        }
    }
    #[inline(always)]
    fn insert_front(&mut self, set: usize, key: u64, m: M) {
        debug_assert!(self.layout.queues == 1 && self.layout.ghosts == 0);
        if !Self::META {
            self.front_shift::<false, true>(set, key as u32);
        } else {
            super::insert_front_any(self, set, key, m);
        }
    }
    fn resident(&self) -> usize {
        let g = self.layout.ghost_mask;
        self.lens
            .iter()
            .map(|l| {
                (0..4)
                    .filter(|&q| g >> q & 1 == 0)
                    .map(|q| l[q] as usize)
                    .sum::<usize>()
            })
            .sum()
    }
    fn slot(&self, set: usize, h: u32) -> u32 {
        (self.base(set) + h as usize) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Layout, Store};
    use super::Small;

    /// The fused LRU step on a store with metadata keeps each key's metadata with it (the
    /// key-only shift once moved keys and left the metadata behind; found by the
    /// `structures` fuzz target).
    #[test]
    fn touch_front_with_metadata_moves_whole_entries() {
        let mut s = Small::<u8>::build(Layout::plain(1, 4, 1));
        for (k, m) in [(10u64, 1u8), (20, 2), (30, 3)] {
            s.push_front(0, 0, k, m);
        }
        // Queue: 30 20 10. A hit on 10 moves it, with its metadata, to the front.
        assert!(s.touch_front(0, 10));
        let order: Vec<(u64, u8)> = std::iter::successors(s.front(0, 0), |&h| s.next(0, h))
            .map(|h| (s.key(0, h), s.meta(0, h)))
            .collect();
        assert_eq!(order, [(10, 1), (30, 3), (20, 2)]);
        // A miss on a full set evicts the back and enters with default metadata.
        s.push_front(0, 0, 40, 4);
        assert!(!s.touch_front(0, 50));
        let order: Vec<(u64, u8)> = std::iter::successors(s.front(0, 0), |&h| s.next(0, h))
            .map(|h| (s.key(0, h), s.meta(0, h)))
            .collect();
        assert_eq!(order, [(50, 0), (40, 4), (10, 1), (30, 3)]);
    }
}
