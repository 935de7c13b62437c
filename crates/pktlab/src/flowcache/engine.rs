//! The cache engine: a replacement [`Rule`] (one file per policy, holding only the rule, as
//! libCacheSim's eviction files do) over a [`Store`] (the storage layouts of [`super::store`]),
//! put together as a [`Cache`] that implements [`Policy`] for the simulators and the content
//! stores. The rule decides; the store keeps keys, queues, metadata and the index.

use super::store::{Layout, Store};
#[allow(unused_imports)]
use super::store::{Linked, Small};
use super::{Access, Evicted, Policy};

/// A replacement rule over any [`Store`]. Contract as for [`Policy`]: `access` looks up and
/// updates the rule's state on a hit, never inserts; `insert` is called only for a key that is
/// not cached (ghost entries count as not cached) and places it, evicting as the rule says.
pub trait Rule {
    /// Per-entry state the rule keeps in the store.
    type Meta: Copy + Default + Ord + std::fmt::Debug;
    /// Short name, e.g. `lru` or `hpc4`.
    fn name(&self) -> String;
    /// The storage this rule needs for `sets × ways` (it may size its own per-set state here).
    fn layout(&mut self, sets: usize, ways: usize) -> Layout;
    /// Looks `key` up in `set`, updating the rule's state on a hit.
    fn access<S: Store<Meta = Self::Meta>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        next_use: u64,
    ) -> Access;
    /// Inserts `key` (not cached) into `set`.
    fn insert<S: Store<Meta = Self::Meta>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        next_use: u64,
    );
    /// [`Rule::insert`], telling which resident key left (see [`Policy::insert_evict`]); the
    /// default says [`Evicted::Unknown`].
    #[inline(always)]
    fn insert_evict<S: Store<Meta = Self::Meta>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        next_use: u64,
    ) -> Evicted {
        self.insert(s, set, key, next_use);
        Evicted::Unknown
    }
    /// [`Rule::access`], then [`Rule::insert`] on a miss (rules may fuse the two).
    #[inline(always)]
    fn access_insert<S: Store<Meta = Self::Meta>>(
        &mut self,
        s: &mut S,
        set: usize,
        key: u64,
        next_use: u64,
    ) -> Access {
        let a = self.access(s, set, key, next_use);
        if a == Access::Miss {
            self.insert(s, set, key, next_use);
        }
        a
    }
}

/// A rule and its storage: the [`Policy`] the simulators and content stores run.
#[derive(Clone, Debug)]
pub struct Cache<R: Rule, S> {
    rule: R,
    store: S,
}

impl<R: Rule, S: Store<Meta = R::Meta>> Cache<R, S> {
    /// An empty cache of `sets × ways` entries under `rule`.
    pub fn new(mut rule: R, sets: usize, ways: usize) -> Self {
        let l = rule.layout(sets.max(1), ways.max(1));
        Cache {
            store: S::build(l),
            rule,
        }
    }
    /// The storage (for inspection).
    pub fn store(&self) -> &S {
        &self.store
    }
    /// The rule (for inspection).
    pub fn rule(&self) -> &R {
        &self.rule
    }
}

impl<R: Rule, S: Store<Meta = R::Meta>> Policy for Cache<R, S> {
    const PREFETCH: bool = S::PREFETCH;
    fn name(&self) -> String {
        self.rule.name()
    }
    fn ways(&self) -> usize {
        self.store.layout().ways
    }
    fn sets(&self) -> usize {
        self.store.layout().sets
    }
    #[inline(always)]
    fn access(&mut self, set: usize, key: u64, next_use: u64) -> Access {
        self.rule.access(&mut self.store, set, key, next_use)
    }
    #[inline(always)]
    fn insert(&mut self, set: usize, key: u64, next_use: u64) {
        self.rule.insert(&mut self.store, set, key, next_use)
    }
    #[inline(always)]
    fn insert_evict(&mut self, set: usize, key: u64, next_use: u64) -> Evicted {
        self.rule.insert_evict(&mut self.store, set, key, next_use)
    }
    #[inline(always)]
    fn access_insert(&mut self, set: usize, key: u64, next_use: u64) -> Access {
        self.rule.access_insert(&mut self.store, set, key, next_use)
    }
    fn len(&self) -> usize {
        self.store.resident()
    }
    fn prefetch_distance(&self) -> usize {
        self.store.prefetch_distance()
    }
    #[inline(always)]
    fn prefetch(&self, set: usize, key: u64, stage: u8) {
        self.store.prefetch(set, key, stage)
    }
    #[inline]
    fn slot_of(&self, set: usize, key: u64) -> Option<u32> {
        let h = self.store.find(set, key)?;
        let q = self.store.queue(set, h);
        (self.store.layout().ghost_mask >> q & 1 == 0).then(|| self.store.slot(set, h))
    }
    /// One `find`; the entry's queue is looked up only for rules that keep ghosts.
    #[inline(always)]
    fn contains(&self, set: usize, key: u64) -> bool {
        let g = self.store.layout().ghost_mask;
        match self.store.find(set, key) {
            None => false,
            Some(h) => g == 0 || g >> self.store.queue(set, h) & 1 == 0,
        }
    }
}

/// Shared steps of the one-queue rules.
pub(crate) mod steps {
    use super::super::store::Store;
    use super::super::Access;

    /// Hit if `key` is cached (no state change), else miss.
    #[inline(always)]
    pub fn present<S: Store>(s: &S, set: usize, key: u64) -> Access {
        if s.find(set, key).is_some() {
            Access::Hit
        } else {
            Access::Miss
        }
    }

    /// Hit if `key` is cached, setting its metadata to `mark` (the reference bit of CLOCK,
    /// the visited bit of SIEVE), else miss.
    #[inline(always)]
    pub fn mark<S: Store>(s: &mut S, set: usize, key: u64, mark: S::Meta) -> Access {
        match s.find(set, key) {
            Some(h) => {
                s.set_meta(set, h, mark);
                Access::Hit
            }
            None => Access::Miss,
        }
    }

    /// Puts `key` at the back of queue 0, replacing the back when the set is full.
    #[inline(always)]
    pub fn insert_back<S: Store>(s: &mut S, set: usize, key: u64, m: S::Meta) {
        if s.len(set, 0) < s.layout().ways {
            s.push_back(set, 0, key, m);
        } else if let Some(b) = s.back(set, 0) {
            s.replace(set, b, key, m);
        }
    }
}

/// Largest set (ways + ghosts) kept in the [`Small`] layout; larger sets use [`Linked`].
pub const SMALL_MAX: usize = 32;

/// True when `rule` at `sets × ways` should use the [`Small`] layout (32-bit keys only).
pub fn fits_small<R: Rule + Clone>(rule: &R, sets: usize, ways: usize) -> bool {
    let l = rule.clone().layout(sets.max(1), ways.max(1));
    l.ways + l.ghosts <= SMALL_MAX
}
