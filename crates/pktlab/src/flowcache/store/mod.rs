//! Cache storage shared by every replacement policy (flow caches of paper 000 and the CCN
//! content stores of paper 003): `sets × ways` entries, each set holding up to four ordered
//! **queues** (front = most protected, back = next victim), some of which may be *ghost*
//! queues that remember evicted keys without caching them (ARC, S3-FIFO). A policy
//! ([`crate::flowcache::Rule`]) is written once against the [`Store`] trait; two layouts
//! implement it:
//!
//! * [`Small`] — today's branch-light layout for small sets (≤ 32 entries per set including
//!   ghosts): a set is one slice of keys ordered queue after queue, moves are slice
//!   rotations, lookups a branch-free scan. Handles are positions and change on every move.
//! * [`Linked`] — any associativity in O(1): a hash index (key → slot) plus intrusive doubly
//!   linked lists over flat slot arrays (libCacheSim's structure), a free list per set, and an
//!   optional indexed max-heap for priority policies (LFU, Belady: O(log n)). Handles are
//!   slots and stay valid while the entry stays in a resident queue (moving into or out of a
//!   ghost queue re-allocates, since ghosts live in their own slot pool). Resident slots are
//!   `0..sets × ways`, so a content store can keep its data in an arena indexed by slot.
//!
//! Nothing here allocates after construction.

pub mod index;
pub mod linked;
pub mod small;

pub use index::KeyIndex;
pub use linked::Linked;
pub use small::Small;

/// Marks "no entry" in handles and links.
pub const NIL: u32 = u32::MAX;

/// What a policy asks of the storage: queues per set and which of them are ghosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Number of sets.
    pub sets: usize,
    /// Resident entries per set.
    pub ways: usize,
    /// Ghost entries per set (keys remembered in ghost queues, not cached).
    pub ghosts: usize,
    /// Queues per set (1–4).
    pub queues: usize,
    /// Bit `q` set: queue `q` is a ghost queue.
    pub ghost_mask: u8,
    /// Keep an indexed max-heap over the entries' metadata ([`Store::max_meta`] in O(log n)).
    pub heap: bool,
}

impl Layout {
    /// One resident queue, no ghosts, no heap.
    pub fn plain(sets: usize, ways: usize, queues: usize) -> Layout {
        Layout {
            sets: sets.max(1),
            ways: ways.max(1),
            ghosts: 0,
            queues,
            ghost_mask: 0,
            heap: false,
        }
    }
}

/// Storage for `sets × ways` entries in per-set queues. `h` arguments are handles obtained from
/// the same store (see the layouts' docs for how long they stay valid); `q` arguments are queue
/// numbers below [`Layout::queues`]. Callers keep queue lengths within the layout (resident
/// queues together ≤ ways, ghost queues together ≤ ghosts).
pub trait Store {
    /// Per-entry policy state (hit counter, reference bit, frequency, next use …).
    type Meta: Copy + Default + Ord + std::fmt::Debug;
    /// True when [`Store::prefetch`] may do something (a compile-time gate: the simulators'
    /// prefetching loop is not even compiled in for stores where it is false).
    const PREFETCH: bool = false;
    /// An empty store.
    fn build(layout: Layout) -> Self;
    /// The layout it was built with.
    fn layout(&self) -> &Layout;
    /// Handle of `key` in `set` (any queue, ghosts included).
    fn find(&self, set: usize, key: u64) -> Option<u32>;
    /// Key of entry `h`.
    fn key(&self, set: usize, h: u32) -> u64;
    /// Queue of entry `h`.
    fn queue(&self, set: usize, h: u32) -> usize;
    /// Entries in queue `q` of `set`.
    fn len(&self, set: usize, q: usize) -> usize;
    /// Front (most protected) entry of queue `q`.
    fn front(&self, set: usize, q: usize) -> Option<u32>;
    /// Back (next victim) entry of queue `q`.
    fn back(&self, set: usize, q: usize) -> Option<u32>;
    /// The entry just in front of `h` in its queue.
    fn prev(&self, set: usize, h: u32) -> Option<u32>;
    /// The entry just behind `h` in its queue.
    fn next(&self, set: usize, h: u32) -> Option<u32>;
    /// Metadata of `h`.
    fn meta(&self, set: usize, h: u32) -> Self::Meta;
    /// Sets the metadata of `h`.
    fn set_meta(&mut self, set: usize, h: u32, m: Self::Meta);
    /// Moves `h` to the front of queue `q` (its own or another); returns its new handle.
    fn move_front(&mut self, set: usize, h: u32, q: usize) -> u32;
    /// Moves `h` to the back of queue `q`; returns its new handle.
    fn move_back(&mut self, set: usize, h: u32, q: usize) -> u32;
    /// Exchanges `h` with the entry in front of it (same queue; no-op at the front).
    fn swap_prev(&mut self, set: usize, h: u32);
    /// Adds `key` (not present) at the front of queue `q`; returns its handle.
    fn push_front(&mut self, set: usize, q: usize, key: u64, m: Self::Meta) -> u32;
    /// Adds `key` (not present) at the back of queue `q`; returns its handle.
    fn push_back(&mut self, set: usize, q: usize, key: u64, m: Self::Meta) -> u32;
    /// Replaces entry `h` by `key` (not present) in place.
    fn replace(&mut self, set: usize, h: u32, key: u64, m: Self::Meta);
    /// Removes entry `h`.
    fn remove(&mut self, set: usize, h: u32);
    /// The entry in physical way `i` (`i < ways`) of a set whose resident part is full.
    fn way(&self, set: usize, i: usize) -> u32;
    /// The entry with the largest metadata (the first in way order on ties for [`Small`]);
    /// needs [`Layout::heap`] for [`Linked`].
    fn max_meta(&self, set: usize) -> Option<u32>;
    /// The clock hand of queue 0 (SIEVE), `None` = start at the back. It follows its entry
    /// across [`Store::push_front`] and removals of other entries behind it.
    fn hand(&self, set: usize) -> Option<u32>;
    /// Sets the clock hand of queue 0.
    fn set_hand(&mut self, set: usize, h: Option<u32>);
    /// The LRU hit step: when `key` is cached in queue 0 it moves to the front. Returns true
    /// on a hit; a miss changes nothing. Only for one-queue layouts without ghosts (LRU, FIFO).
    #[inline(always)]
    fn touch(&mut self, set: usize, key: u64) -> bool
    where
        Self: Sized,
    {
        touch_any(self, set, key)
    }
    /// Puts `key` (not present) at the front of queue 0, taking the back's place when the
    /// resident part of the set is full (the insert of LRU and FIFO). Only for one-queue
    /// layouts without ghosts.
    #[inline(always)]
    fn insert_front(&mut self, set: usize, key: u64, m: Self::Meta)
    where
        Self: Sized,
    {
        insert_front_any(self, set, key, m)
    }
    /// The fused LRU step on a one-queue store: a hit moves `key` to the front, a miss puts
    /// it at the front, evicting the back if the set is full. Returns true on a hit.
    fn touch_front(&mut self, set: usize, key: u64) -> bool
    where
        Self: Sized,
    {
        touch_front_any(self, set, key)
    }
    /// How many requests ahead [`Store::prefetch`] pays off (0: never, the default — small
    /// stores live in the CPU caches anyway).
    fn prefetch_distance(&self) -> usize {
        0
    }
    /// A hint that `key` will be looked up in `set` soon; `stage` 0 is called furthest ahead,
    /// then 1, then 2 (each stage may follow what the previous one brought in). Changes
    /// nothing observable.
    #[inline(always)]
    fn prefetch(&self, set: usize, key: u64, stage: u8) {
        let _ = (set, key, stage);
    }
    /// A hint that entry `h` of `set` will be removed soon: bring in what [`Store::remove`]
    /// touches (its index cell and its neighbours). Changes nothing observable; a no-op where
    /// [`Store::prefetch_distance`] is 0.
    #[inline(always)]
    fn prefetch_remove(&self, set: usize, h: u32) {
        let _ = (set, h);
    }
    /// Resident entries in all sets.
    fn resident(&self) -> usize;
    /// Resident slot of `h` for content stores (`0..sets × ways`, stable while resident);
    /// [`Small`] returns `set × stride + position`.
    fn slot(&self, set: usize, h: u32) -> u32;
}

/// [`Store::insert_front`] through the queue operations (any layout).
#[inline(always)]
pub fn insert_front_any<S: Store>(s: &mut S, set: usize, key: u64, m: S::Meta) {
    if s.len(set, 0) < s.layout().ways {
        s.push_front(set, 0, key, m);
    } else if let Some(b) = s.back(set, 0) {
        s.replace(set, b, key, m);
        s.move_front(set, b, 0);
    }
}

/// [`Store::touch_front`] through the queue operations (any store with one queue; the new
/// entry's metadata is `Meta::default()`).
#[inline(always)]
pub fn touch_front_any<S: Store>(s: &mut S, set: usize, key: u64) -> bool {
    if touch_any(s, set, key) {
        return true;
    }
    if s.len(set, 0) >= s.layout().ways {
        if let Some(b) = s.back(set, 0) {
            s.remove(set, b);
        }
    }
    s.push_front(set, 0, key, S::Meta::default());
    false
}

/// [`Store::touch`] through the queue operations (any layout).
#[inline(always)]
pub fn touch_any<S: Store>(s: &mut S, set: usize, key: u64) -> bool {
    match s.find(set, key) {
        Some(h) => {
            s.move_front(set, h, 0);
            true
        }
        None => false,
    }
}
