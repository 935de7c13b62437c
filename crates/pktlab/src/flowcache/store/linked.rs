//! The O(1) layout for any associativity, fully associative included (the structure of
//! libCacheSim and of most software caches): a hash index from key to slot ([`KeyIndex`]),
//! per-slot key, metadata and intrusive `prev`/`next` links in flat arrays, per set and queue
//! a head, tail and length, and per set a free list of slots. Resident entries use the slots
//! `set × ways ..` of the resident pool, ghost entries a separate pool, so resident slots are
//! always below `sets × ways`. With [`Layout::heap`] an indexed binary max-heap per set orders
//! the entries by metadata for priority policies (LFU, Belady).

use super::{KeyIndex, Layout, Store, NIL};
use crate::lpm::prefetch;

/// Stores with at least this many slots prefetch (their index and nodes outgrow L2).
const PREFETCH_MIN_SLOTS: usize = 1 << 16;
/// Requests between prefetch stages ([`Store::prefetch`]).
const PREFETCH_DISTANCE: usize = 4;
/// The `prev` link of a free slot: marks it dead, so a stale handle is refused.
const FREED: u32 = NIL - 1;

/// A slot's key and list links, side by side (one cache line per node touched).
#[derive(Clone, Copy, Debug)]
struct Node {
    key: u64,
    prev: u32,
    next: u32,
}

/// A per-slot array indexed by slot number without a bounds check per access.
///
/// Invariant of this module: every slot number the store keeps (in links, heads, tails, free
/// lists, the hand, the heap and the index's values) is either [`NIL`] or below the number of
/// slots, `sets × (ways + ghosts)`, which is the length of every `SlotVec`: they are built at
/// that length (`hpos` only with [`Layout::heap`], the only case in which it is read) and
/// only ever store slots taken from those same places ([`FREED`], the `prev` of a free
/// slot, is a mark that is never followed: free slots are never linked). [`NIL`] is tested
/// before a link is followed (or asserted absent where the lists' shape implies it), and
/// handles passed in through [`Store`] methods are checked once at the entry
/// ([`Linked::check`]: a live slot of that set), so a stale handle cannot relink a free slot
/// and make the lists point at [`NIL`]. The per-access check of a `Vec` was about 30 % of the
/// instructions of a fully associative ARC or LRU request.
#[derive(Clone, Debug)]
struct SlotVec<T>(Box<[T]>);

impl<T> std::ops::Index<u32> for SlotVec<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, s: u32) -> &T {
        debug_assert!((s as usize) < self.0.len(), "slot {s} out of range");
        // SAFETY: `s < len` by the module invariant above.
        unsafe { self.0.get_unchecked(s as usize) }
    }
}

impl<T> std::ops::IndexMut<u32> for SlotVec<T> {
    #[inline(always)]
    fn index_mut(&mut self, s: u32) -> &mut T {
        debug_assert!((s as usize) < self.0.len(), "slot {s} out of range");
        // SAFETY: as in `index`.
        unsafe { self.0.get_unchecked_mut(s as usize) }
    }
}

impl<T> std::ops::Deref for SlotVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> From<Vec<T>> for SlotVec<T> {
    fn from(v: Vec<T>) -> Self {
        SlotVec(v.into_boxed_slice())
    }
}

/// Index + intrusive lists + free lists (+ optional heap) in flat arrays.
#[derive(Clone, Debug)]
pub struct Linked<M> {
    index: KeyIndex,
    nodes: SlotVec<Node>,
    meta: SlotVec<M>,
    queue: SlotVec<u8>,
    /// Per (set, queue): head, tail, len.
    heads: Vec<u32>,
    tails: Vec<u32>,
    lens: Vec<u32>,
    /// Per set: first free resident slot and first free ghost slot (threaded through `next`).
    free: Vec<u32>,
    free_ghost: Vec<u32>,
    hand: Vec<u32>,
    /// Per set heap of slots (region `set × ways`), its length, and each slot's heap position.
    heap: Vec<u32>,
    hlen: Vec<u32>,
    hpos: SlotVec<u32>,
    resident: usize,
    /// Large enough to prefetch ([`PREFETCH_MIN_SLOTS`]).
    prefetch: bool,
    layout: Layout,
}

impl<M: Copy + Default + Ord> Linked<M> {
    #[inline(always)]
    fn lq(&self, set: usize, q: usize) -> usize {
        set * self.layout.queues + q
    }
    #[inline(always)]
    fn ghost(&self, q: usize) -> bool {
        self.layout.ghost_mask >> q & 1 == 1
    }
    #[inline(always)]
    fn unlink(&mut self, set: usize, s: u32) {
        let q = self.queue[s] as usize;
        let l = self.lq(set, q);
        let (p, n) = (self.nodes[s].prev, self.nodes[s].next);
        if p == NIL {
            self.heads[l] = n;
        } else {
            self.nodes[p].next = n;
        }
        if n == NIL {
            self.tails[l] = p;
            self.prefetch_new_back(p);
        } else {
            self.nodes[n].prev = p;
        }
        self.lens[l] -= 1;
    }
    /// `p` just became a queue's back, the next victim: on large stores bring in its index
    /// cell and its predecessor (the back after it) while this request finishes.
    #[inline(always)]
    fn prefetch_new_back(&self, p: u32) {
        if self.prefetch && p != NIL {
            let b = self.nodes[p];
            self.index.prefetch(b.key);
            if b.prev != NIL {
                prefetch(self.nodes.as_ptr().wrapping_add(b.prev as usize));
            }
        }
    }
    #[inline(always)]
    fn link_front(&mut self, set: usize, s: u32, q: usize) {
        let l = self.lq(set, q);
        let h = self.heads[l];
        self.nodes[s].prev = NIL;
        self.nodes[s].next = h;
        if h == NIL {
            self.tails[l] = s;
        } else {
            self.nodes[h].prev = s;
        }
        self.heads[l] = s;
        self.queue[s] = q as u8;
        self.lens[l] += 1;
    }
    #[inline(always)]
    fn link_back(&mut self, set: usize, s: u32, q: usize) {
        let l = self.lq(set, q);
        let t = self.tails[l];
        self.nodes[s].next = NIL;
        self.nodes[s].prev = t;
        if t == NIL {
            self.heads[l] = s;
        } else {
            self.nodes[t].next = s;
        }
        self.tails[l] = s;
        self.queue[s] = q as u8;
        self.lens[l] += 1;
    }
    /// Takes a free slot of `set` from the pool of queue `q`.
    #[inline(always)]
    fn alloc(&mut self, set: usize, q: usize, key: u64, m: M) -> u32 {
        let pool = if self.ghost(q) {
            &mut self.free_ghost
        } else {
            self.resident += 1;
            &mut self.free
        };
        let s = pool[set];
        assert!(s != NIL, "cache store: set {set} queue {q} overfull");
        pool[set] = self.nodes[s].next;
        self.nodes[s].key = key;
        self.meta[s] = m;
        self.index.insert(key, s);
        if self.layout.heap {
            self.heap_push(set, s);
        }
        s
    }
    #[inline(always)]
    fn release(&mut self, set: usize, s: u32) {
        if self.layout.heap {
            self.heap_remove(set, s);
        }
        self.index.remove(self.nodes[s].key);
        let pool = if self.ghost(self.queue[s] as usize) {
            &mut self.free_ghost
        } else {
            self.resident -= 1;
            &mut self.free
        };
        self.nodes[s].next = pool[set];
        self.nodes[s].prev = FREED;
        pool[set] = s;
    }
    /// Moves slot `s` into queue `q`, re-allocating when it crosses between the resident and
    /// the ghost pool; returns the (possibly new) slot, unlinked.
    #[inline(always)]
    fn rehome(&mut self, set: usize, s: u32, q: usize) -> u32 {
        let from = self.queue[s] as usize;
        self.unlink(set, s);
        if self.ghost(from) == self.ghost(q) {
            return s;
        }
        // Same slots as `release` then `alloc`, but the key stays in the index: its cell is
        // overwritten in place instead of removed (backward shift) and probed for again.
        let (k, m) = (self.nodes[s].key, self.meta[s]);
        if self.layout.heap {
            self.heap_remove(set, s);
        }
        let (src, dst) = if self.ghost(q) {
            self.resident -= 1;
            (&mut self.free, &mut self.free_ghost)
        } else {
            self.resident += 1;
            (&mut self.free_ghost, &mut self.free)
        };
        self.nodes[s].next = src[set];
        self.nodes[s].prev = FREED;
        src[set] = s;
        let t = dst[set];
        assert!(t != NIL, "cache store: set {set} queue {q} overfull");
        dst[set] = self.nodes[t].next;
        self.nodes[t].key = k;
        self.meta[t] = m;
        self.index.insert(k, t);
        if self.layout.heap {
            self.heap_push(set, t);
        }
        t
    }

    // --- one-queue fast paths (LRU, FIFO: one resident queue, no ghosts, no heap, no hand) ---

    /// Moves resident slot `s` of `set`'s only queue to the front (no-op at the front): the
    /// LRU hit, without `rehome`'s pool checks.
    #[inline(always)]
    fn move_front0(&mut self, set: usize, s: u32) {
        let head = self.heads[set];
        if head == s {
            return;
        }
        let Node {
            prev: p, next: n, ..
        } = self.nodes[s];
        // `s` (a live slot of the set's only queue, checked by the caller) is not the head,
        // so the queue is not empty and `s` has a predecessor; asserted all the same, as
        // `SlotVec` must never see `NIL`.
        assert!(
            p != NIL && head != NIL,
            "cache store: set {set} lists corrupt"
        );
        self.nodes[p].next = n;
        if n == NIL {
            self.tails[set] = p;
            self.prefetch_new_back(p);
        } else {
            self.nodes[n].prev = p;
        }
        self.nodes[s].prev = NIL;
        self.nodes[s].next = head;
        self.nodes[head].prev = s;
        self.heads[set] = s;
    }

    /// The miss of LRU/FIFO: `key` (absent) goes to the front of `set`'s only queue; a full
    /// set hands the back's slot over to it (index cell, key and metadata rewritten; no trip
    /// through the free list).
    #[inline(always)]
    fn insert_front0(&mut self, set: usize, key: u64, m: M) {
        if (self.lens[set] as usize) < self.layout.ways {
            let s = self.alloc(set, 0, key, m);
            self.link_front(set, s, 0);
            return;
        }
        let b = self.tails[set];
        assert!(b != NIL, "cache store: set {set} lists corrupt");
        self.index.remove(self.nodes[b].key);
        self.nodes[b].key = key;
        self.meta[b] = m;
        self.index.insert(key, b);
        self.move_front0(set, b);
    }

    /// A handle from a caller must name a live slot of `set` ([`SlotVec`]'s invariant, and
    /// what keeps the lists whole): a removed entry's handle, one of another set or an
    /// out-of-range number panics.
    #[inline(always)]
    fn check(&self, set: usize, h: u32) {
        assert!(
            self.live_in(set, h),
            "cache store: bad handle {h} for set {set}"
        );
    }

    /// True if `h` is a slot of `set` (resident or ghost) that holds an entry.
    #[inline(always)]
    fn live_in(&self, set: usize, h: u32) -> bool {
        let Layout {
            sets, ways, ghosts, ..
        } = self.layout;
        let h = h as usize;
        // `set < sets`, so none of these products overflows (`build` checked the total).
        set < sets
            && ((h >= set * ways && h < (set + 1) * ways)
                || (h >= sets * ways + set * ghosts && h < sets * ways + (set + 1) * ghosts))
            && self.nodes[h as u32].prev != FREED
    }

    #[inline(always)]
    fn one_queue(&self) -> bool {
        self.layout.queues == 1 && self.layout.ghost_mask == 0 && !self.layout.heap
    }

    // --- heap (max by metadata) over the slots of one set ---

    #[inline(always)]
    fn hbase(&self, set: usize) -> usize {
        set * (self.layout.ways + self.layout.ghosts)
    }
    fn heap_push(&mut self, set: usize, s: u32) {
        let n = self.hlen[set] as usize;
        let b = self.hbase(set);
        self.heap[b + n] = s;
        self.hpos[s] = n as u32;
        self.hlen[set] += 1;
        self.sift_up(set, n);
    }
    fn heap_remove(&mut self, set: usize, s: u32) {
        let b = self.hbase(set);
        let i = self.hpos[s] as usize;
        let last = self.hlen[set] as usize - 1;
        self.hlen[set] -= 1;
        if i != last {
            let t = self.heap[b + last];
            self.heap[b + i] = t;
            self.hpos[t] = i as u32;
            self.sift_up(set, i);
            let i = self.hpos[t] as usize;
            self.sift_down(set, i);
        }
    }
    fn sift_up(&mut self, set: usize, mut i: usize) {
        let b = self.hbase(set);
        let s = self.heap[b + i];
        while i > 0 {
            let p = (i - 1) / 2;
            let t = self.heap[b + p];
            if self.meta[t] >= self.meta[s] {
                break;
            }
            self.heap[b + i] = t;
            self.hpos[t] = i as u32;
            i = p;
        }
        self.heap[b + i] = s;
        self.hpos[s] = i as u32;
    }
    fn sift_down(&mut self, set: usize, mut i: usize) {
        let b = self.hbase(set);
        let n = self.hlen[set] as usize;
        let s = self.heap[b + i];
        loop {
            let mut c = 2 * i + 1;
            if c >= n {
                break;
            }
            if c + 1 < n && self.meta[self.heap[b + c + 1]] > self.meta[self.heap[b + c]] {
                c += 1;
            }
            let t = self.heap[b + c];
            if self.meta[t] <= self.meta[s] {
                break;
            }
            self.heap[b + i] = t;
            self.hpos[t] = i as u32;
            i = c;
        }
        self.heap[b + i] = s;
        self.hpos[s] = i as u32;
    }
}

impl<M: Copy + Default + Ord + std::fmt::Debug> Store for Linked<M> {
    type Meta = M;
    const PREFETCH: bool = true;

    fn build(layout: Layout) -> Self {
        let (sets, ways, ghosts) = (layout.sets, layout.ways, layout.ghosts);
        let res = sets * ways;
        let total = res + sets * ghosts;
        assert!(total < FREED as usize, "cache store: too many entries");
        // Free lists: each set's resident slots, then its ghost slots, chained in order.
        let mut next = vec![NIL; total];
        for s in 0..sets {
            for w in 0..ways {
                let i = s * ways + w;
                next[i] = if w + 1 < ways { (i + 1) as u32 } else { NIL };
            }
            for g in 0..ghosts {
                let i = res + s * ghosts + g;
                next[i] = if g + 1 < ghosts { (i + 1) as u32 } else { NIL };
            }
        }
        let nl = sets * layout.queues;
        Linked {
            index: KeyIndex::new(total),
            nodes: next
                .into_iter()
                .map(|n| Node {
                    key: 0,
                    prev: FREED,
                    next: n,
                })
                .collect::<Vec<_>>()
                .into(),
            meta: vec![M::default(); total].into(),
            queue: vec![0; total].into(),
            heads: vec![NIL; nl],
            tails: vec![NIL; nl],
            lens: vec![0; nl],
            free: (0..sets).map(|s| (s * ways) as u32).collect(),
            free_ghost: (0..sets)
                .map(|s| {
                    if ghosts > 0 {
                        (res + s * ghosts) as u32
                    } else {
                        NIL
                    }
                })
                .collect(),
            hand: vec![NIL; sets],
            heap: if layout.heap {
                vec![NIL; total]
            } else {
                Vec::new()
            },
            hlen: vec![0; if layout.heap { sets } else { 0 }],
            // Read only with `Layout::heap` (the heap paths), so empty otherwise.
            hpos: if layout.heap {
                vec![NIL; total]
            } else {
                Vec::new()
            }
            .into(),
            resident: 0,
            prefetch: total >= PREFETCH_MIN_SLOTS,
            layout,
        }
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }
    #[inline(always)]
    fn find(&self, _set: usize, key: u64) -> Option<u32> {
        self.index.get(key)
    }
    #[inline(always)]
    fn key(&self, set: usize, h: u32) -> u64 {
        self.check(set, h);
        self.nodes[h].key
    }
    #[inline(always)]
    fn queue(&self, set: usize, h: u32) -> usize {
        self.check(set, h);
        self.queue[h] as usize
    }
    #[inline(always)]
    fn len(&self, set: usize, q: usize) -> usize {
        self.lens[self.lq(set, q)] as usize
    }
    #[inline(always)]
    fn front(&self, set: usize, q: usize) -> Option<u32> {
        let h = self.heads[self.lq(set, q)];
        (h != NIL).then_some(h)
    }
    #[inline(always)]
    fn back(&self, set: usize, q: usize) -> Option<u32> {
        let t = self.tails[self.lq(set, q)];
        (t != NIL).then_some(t)
    }
    #[inline(always)]
    fn prev(&self, set: usize, h: u32) -> Option<u32> {
        self.check(set, h);
        let p = self.nodes[h].prev;
        (p != NIL).then_some(p)
    }
    #[inline(always)]
    fn next(&self, set: usize, h: u32) -> Option<u32> {
        self.check(set, h);
        let n = self.nodes[h].next;
        (n != NIL).then_some(n)
    }
    #[inline(always)]
    fn meta(&self, set: usize, h: u32) -> M {
        self.check(set, h);
        self.meta[h]
    }
    #[inline(always)]
    fn set_meta(&mut self, set: usize, h: u32, m: M) {
        self.check(set, h);
        let old = std::mem::replace(&mut self.meta[h], m);
        if self.layout.heap {
            let i = self.hpos[h] as usize;
            if m > old {
                self.sift_up(set, i);
            } else {
                self.sift_down(set, i);
            }
        }
    }
    #[inline(always)]
    fn move_front(&mut self, set: usize, h: u32, q: usize) -> u32 {
        self.check(set, h);
        let s = self.rehome(set, h, q);
        self.link_front(set, s, q);
        s
    }
    #[inline(always)]
    fn move_back(&mut self, set: usize, h: u32, q: usize) -> u32 {
        self.check(set, h);
        let s = self.rehome(set, h, q);
        self.link_back(set, s, q);
        s
    }
    fn swap_prev(&mut self, set: usize, h: u32) {
        self.check(set, h);
        let p = self.nodes[h].prev;
        if p == NIL {
            return;
        }
        // Unlink h and relink it just in front of p.
        let q = self.queue[h] as usize;
        self.unlink(set, h);
        let pp = self.nodes[p].prev;
        let l = self.lq(set, q);
        self.nodes[h].prev = pp;
        self.nodes[h].next = p;
        self.nodes[p].prev = h;
        if pp == NIL {
            self.heads[l] = h;
        } else {
            self.nodes[pp].next = h;
        }
        self.lens[l] += 1;
    }
    #[inline(always)]
    fn push_front(&mut self, set: usize, q: usize, key: u64, m: M) -> u32 {
        let s = self.alloc(set, q, key, m);
        self.link_front(set, s, q);
        s
    }
    #[inline(always)]
    fn push_back(&mut self, set: usize, q: usize, key: u64, m: M) -> u32 {
        let s = self.alloc(set, q, key, m);
        self.link_back(set, s, q);
        s
    }
    #[inline(always)]
    fn replace(&mut self, set: usize, h: u32, key: u64, m: M) {
        self.check(set, h);
        self.index.remove(self.nodes[h].key);
        self.nodes[h].key = key;
        self.index.insert(key, h);
        self.set_meta(set, h, m);
    }
    #[inline(always)]
    fn remove(&mut self, set: usize, h: u32) {
        self.check(set, h);
        if self.hand[set] == h {
            self.hand[set] = self.nodes[h].prev;
        }
        self.unlink(set, h);
        self.release(set, h);
    }
    #[inline(always)]
    fn way(&self, set: usize, i: usize) -> u32 {
        (set * self.layout.ways + i) as u32
    }
    fn max_meta(&self, set: usize) -> Option<u32> {
        assert!(self.layout.heap, "max_meta needs Layout::heap");
        (self.hlen[set] > 0).then(|| self.heap[self.hbase(set)])
    }
    #[inline(always)]
    fn hand(&self, set: usize) -> Option<u32> {
        let h = self.hand[set];
        (h != NIL).then_some(h)
    }
    #[inline(always)]
    fn set_hand(&mut self, set: usize, h: Option<u32>) {
        if let Some(h) = h {
            self.check(set, h);
        }
        self.hand[set] = h.unwrap_or(NIL);
        if let (true, Some(h)) = (self.prefetch, h) {
            // The next sweep starts here.
            prefetch(self.nodes.as_ptr().wrapping_add(h as usize));
            prefetch(self.meta.as_ptr().wrapping_add(h as usize));
        }
    }
    fn prefetch_distance(&self) -> usize {
        // Index cells and nodes of this many slots outgrow the L2 cache.
        if self.prefetch {
            PREFETCH_DISTANCE
        } else {
            0
        }
    }
    /// Stage 0: the key's home index cell; 1: its node, queue and metadata (when the home
    /// cell holds the key); 2: the neighbours a move will relink.
    #[inline(always)]
    fn prefetch(&self, _set: usize, key: u64, stage: u8) {
        if stage == 0 {
            return self.index.prefetch(key);
        }
        let Some(s) = self.index.peek(key) else {
            return;
        };
        let s = s as usize;
        if stage == 1 {
            prefetch(self.nodes.as_ptr().wrapping_add(s));
            if self.layout.queues > 1 {
                prefetch(self.queue.as_ptr().wrapping_add(s));
            }
            if std::mem::size_of::<M>() > 0 {
                prefetch(self.meta.as_ptr().wrapping_add(s));
            }
        } else if let Some(n) = self.nodes.get(s) {
            for x in [n.prev, n.next] {
                if x != NIL {
                    prefetch(self.nodes.as_ptr().wrapping_add(x as usize));
                }
            }
        }
    }
    #[inline(always)]
    fn touch(&mut self, set: usize, key: u64) -> bool {
        assert!(self.one_queue(), "touch needs a one-queue layout");
        debug_assert!(self.hand[set] == NIL);
        match self.index.get(key) {
            Some(h) => {
                self.check(set, h);
                self.move_front0(set, h);
                true
            }
            None => false,
        }
    }
    #[inline(always)]
    fn insert_front(&mut self, set: usize, key: u64, m: M) {
        assert!(self.one_queue(), "insert_front needs a one-queue layout");
        debug_assert!(self.hand[set] == NIL);
        self.insert_front0(set, key, m);
    }
    #[inline(always)]
    fn touch_front(&mut self, set: usize, key: u64) -> bool {
        let hit = self.touch(set, key);
        if !hit {
            self.insert_front0(set, key, M::default());
        }
        hit
    }
    #[inline(always)]
    fn prefetch_remove(&self, set: usize, h: u32) {
        self.check(set, h);
        if !self.prefetch {
            return;
        }
        let n = self.nodes[h];
        self.index.prefetch(n.key);
        for x in [n.prev, n.next] {
            if x != NIL {
                prefetch(self.nodes.as_ptr().wrapping_add(x as usize));
            }
        }
    }
    fn resident(&self) -> usize {
        self.resident
    }
    fn slot(&self, _set: usize, h: u32) -> u32 {
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` and tells whether it panicked.
    fn panics(f: impl FnOnce()) -> bool {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
    }

    #[test]
    fn a_stale_handle_is_refused() {
        // The sequence insert_front, move_front, touch, remove, then the removed handle again.
        let mut s = Linked::<u8>::build(Layout::plain(1, 4, 1));
        s.insert_front(0, 10, 0);
        s.insert_front(0, 11, 0);
        let h = s.find(0, 10).expect("10 is cached");
        assert_eq!(s.move_front(0, h, 0), h);
        assert!(s.touch(0, 11));
        s.remove(0, h);
        assert!(!s.touch(0, 10));
        assert!(panics(|| s.remove(0, h)), "remove of a removed handle");
        assert!(
            panics(|| {
                let _ = s.move_front(0, h, 0);
            }),
            "move of a removed handle"
        );
        assert!(
            panics(|| s.swap_prev(0, h)),
            "swap_prev of a removed handle"
        );
        assert!(
            panics(|| s.set_meta(0, h, 1)),
            "set_meta of a removed handle"
        );
        assert!(
            panics(|| s.set_hand(0, Some(h))),
            "hand on a removed handle"
        );
        // The store still works: 11 is the only entry, and the slot is reused.
        assert_eq!(s.len(0, 0), 1);
        assert!(s.touch(0, 11));
        s.insert_front(0, 12, 0);
        assert_eq!(s.len(0, 0), 2);
        assert_eq!(s.front(0, 0).map(|h| s.key(0, h)), Some(12));
    }

    #[test]
    fn a_handle_of_another_set_is_refused() {
        let mut s = Linked::<u8>::build(Layout::plain(2, 2, 1));
        s.insert_front(0, 1, 0);
        let h = s.find(0, 1).expect("1 is cached");
        assert!(panics(|| {
            let _ = s.move_front(1, h, 0);
        }));
        assert!(panics(|| s.remove(1, h)));
        assert_eq!(s.len(0, 0), 1);
        assert_eq!(s.len(1, 0), 0);
    }

    #[test]
    fn the_one_queue_fast_paths_refuse_other_layouts() {
        // `touch` on a two-queue layout would walk queue 0's list for an entry of queue 1.
        let mut s = Linked::<u8>::build(Layout::plain(1, 4, 2));
        s.push_front(0, 1, 5, 0);
        assert!(panics(|| {
            let _ = s.touch(0, 5);
        }));
        assert!(panics(|| s.insert_front(0, 6, 0)));
        assert_eq!(s.len(0, 1), 1);
    }

    #[test]
    fn a_handle_out_of_range_is_refused() {
        let mut s = Linked::<u8>::build(Layout::plain(1, 2, 1));
        for h in [2, 3, NIL - 1, NIL] {
            assert!(panics(|| s.remove(0, h)), "handle {h}");
        }
    }
}
