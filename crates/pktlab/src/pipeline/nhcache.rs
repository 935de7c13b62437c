//! The data plane's flow cache (paper 000, Hit Priority Cache, used as the paper intends: a
//! packet processing cache in front of the route lookup): a set-associative cache keyed by
//! the flow's 32-bit RSS hash, whose value is the next hop, with the replacement decisions of
//! a [`WayPolicy`]: any [`Policy`], asked by key, or [`HpcWays`] (HPC kept per way).
//!
//! The policy decides which keys a set holds; beside each held key this cache keeps the
//! value and what validates it: the destination address (two flows whose hashes collide, or
//! a collision of the 32-bit key, never get each other's next hop — the next hop depends on
//! the destination only) and the routing-table epoch (a route update since the value was
//! filled makes it stale). A policy hit whose value does not validate counts as a miss: the
//! route is looked up again and the value refreshed in place. The value slots mirror the
//! policy's set exactly: after an insertion, the way the policy names
//! ([`WayPolicy::fill_way`]: the evicted key's, else an empty one) takes the new key. No
//! allocation after construction.

use super::compact::Compact;
use super::hpc_ways::HpcWays;
use super::parse::Hdr;
use super::PipelineError;
use crate::flowcache::engine::fits_small;
use crate::flowcache::{
    Access, Cache, Evicted, Fifo, Hpc, Lru, Policy, Random, Rule, Slru, Small, Spc,
};

// `way_of` finds the way in a 64-bit mask.
const _: () = assert!(crate::flowcache::engine::SMALL_MAX <= 64);

/// Marks an empty value slot.
pub(super) const EMPTY: u32 = u32::MAX;

/// A policy on the small (slice) layout of the cache engine: the data plane's sets are small.
pub type SmallCache<R> = Cache<R, Small<<R as Rule>::Meta>>;

/// The replacement side of a [`NextHopCache`]: which keys a set holds, told by way (the
/// cache keeps the keys in its tag array, so a hit names the way it was found in). Every
/// online [`Policy`] is one (it is asked by key), and so is [`HpcWays`] (HPC kept per way, in
/// place).
pub trait WayPolicy {
    /// The policy's name.
    fn name(&self) -> String;
    /// Sets (a power of two).
    fn sets(&self) -> usize;
    /// Ways per set.
    fn ways(&self) -> usize;
    /// `key` was found in way `way` of set `set`: the policy's access for a hit.
    fn hit(&mut self, set: usize, way: usize, key: u32);
    /// `key`, absent from set `set` (whose tags are `tags`, `u32::MAX` for an empty way),
    /// enters it: the way it takes — the evicted key's, else an empty way — or `None` when
    /// the policy declines it.
    fn fill_way(&mut self, set: usize, key: u32, tags: &[u32]) -> Option<usize>;
    /// Keys held.
    fn len(&self) -> usize;
    /// True when no key is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether the policy holds `key` in way `way` of set `set` (a consistency check).
    fn holds(&self, set: usize, way: usize, key: u32) -> bool;
}

impl<P: Policy> WayPolicy for P {
    fn name(&self) -> String {
        Policy::name(self)
    }
    fn sets(&self) -> usize {
        Policy::sets(self)
    }
    fn ways(&self) -> usize {
        Policy::ways(self)
    }
    #[inline(always)]
    fn hit(&mut self, set: usize, _way: usize, key: u32) {
        let a = self.access(set, key as u64, 0);
        debug_assert_ne!(a, Access::Miss, "tag without a policy entry");
    }
    #[inline]
    fn fill_way(&mut self, set: usize, key: u32, tags: &[u32]) -> Option<usize> {
        // The way whose key the policy no longer holds takes the new key: the victim's way
        // when the policy names it, else the first way of a key it no longer holds, else an
        // empty way.
        match self.insert_evict(set, key as u64, 0) {
            Evicted::Nothing => way_of(tags, EMPTY),
            Evicted::Key(old) => way_of(tags, old as u32).or_else(|| way_of(tags, EMPTY)),
            Evicted::Unknown => {
                let held = |k: u32| self.contains(set, k as u64);
                if !held(key) {
                    return None; // the policy declined to cache it
                }
                tags.iter()
                    .position(|&t| t != EMPTY && !held(t))
                    .or_else(|| way_of(tags, EMPTY))
            }
        }
    }
    fn len(&self) -> usize {
        Policy::len(self)
    }
    fn holds(&self, set: usize, _way: usize, key: u32) -> bool {
        self.contains(set, key as u64)
    }
}

/// What validates and carries a cached next hop (its key is in the tag array beside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Val {
    nh: u32,
    epoch: u32,
    v6: bool,
    dst: u128,
}

impl Val {
    /// The next hop, if this value is for `dst` of family `v6` and filled under `epoch`;
    /// else 0 (also for a free slot, whose `nh` is 0).
    #[inline(always)]
    fn validated(&self, v6: bool, dst: u128, epoch: u32) -> u32 {
        if self.dst == dst && self.v6 == v6 && self.epoch == epoch && self.nh != 0 {
            return self.nh;
        }
        0
    }
}

const FREE: Val = Val {
    nh: 0,
    epoch: 0,
    v6: false,
    dst: 0,
};

/// A next-hop cache under policy `P`. The tags of a set are always exactly the keys the
/// policy holds in it: a fill takes the way of the one key the policy evicted, else an empty
/// way, and every online policy evicts at most one key per insertion. Keys and values are
/// two arrays in the same `set × ways + way` order: a lookup compares the set's 4-byte tags
/// at once (a mask of the matching ways, [`crate::simd::eq_mask_u32`]; where a key sits in
/// its set is data, so a branch per way would mispredict), asks the policy only about a key
/// found there, and reads one value.
#[derive(Debug)]
pub struct NextHopCache<P: WayPolicy> {
    policy: P,
    ways: usize,
    set_shift: u32,
    tags: Vec<u32>,
    vals: Vec<Val>,
    epoch: u32,
    hits: u64,
    misses: u64,
}

/// The way of `key` among a set's `tags` (≤ 64 of them), if present (`EMPTY`: the first empty
/// way): 4, 8 and 16 ways (the
/// paper's sets) as fixed-length arrays, any other count as a loop.
#[inline(always)]
pub(super) fn way_of(tags: &[u32], key: u32) -> Option<usize> {
    use crate::simd::eq_mask_u32;
    let m = if let Ok(t) = <&[u32; 8]>::try_from(tags) {
        eq_mask_u32(t, key) as u64
    } else if let Ok(t) = <&[u32; 4]>::try_from(tags) {
        eq_mask_u32(t, key) as u64
    } else if let Ok(t) = <&[u32; 16]>::try_from(tags) {
        eq_mask_u32(t, key) as u64
    } else {
        let mut m = 0u64;
        for (j, &t) in tags.iter().enumerate() {
            m |= ((t == key) as u64) << (j & 63);
        }
        m
    };
    (m != 0).then(|| m.trailing_zeros() as usize)
}

/// The cache key of an RSS hash (never [`EMPTY`]).
#[inline(always)]
fn key_of(rss: u32) -> u32 {
    if rss == EMPTY {
        EMPTY - 1
    } else {
        rss
    }
}

impl<P: WayPolicy> NextHopCache<P> {
    /// A cache over `policy` (its sets must be a power of two).
    pub fn new(policy: P) -> Self {
        let (sets, ways) = (policy.sets(), policy.ways());
        assert!(sets.is_power_of_two(), "sets must be a power of two");
        NextHopCache {
            ways,
            set_shift: 32 - sets.trailing_zeros(),
            tags: vec![EMPTY; sets * ways],
            vals: vec![FREE; sets * ways],
            policy,
            epoch: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The set of a key: high bits of a multiplicative mix (independent of the low bits the
    /// RSS redirection table used to pick the worker).
    #[inline(always)]
    fn set_of(&self, key: u32) -> usize {
        // A 64-bit shift: one set (`set_shift` 32) gives 0 without a branch.
        (key.wrapping_mul(0x9E37_79B1) as u64 >> self.set_shift) as usize
    }

    /// Sets the routing-table epoch: values filled under another epoch are stale.
    #[inline]
    pub fn set_epoch(&mut self, epoch: u32) {
        self.epoch = epoch;
    }

    /// Looks a packet up: its next hop on a validated hit, 0 on a miss.
    #[inline]
    pub fn lookup(&mut self, rss: u32, v6: bool, dst: u128) -> u32 {
        let nh = self.probe(rss, v6, dst);
        self.count(nh != 0);
        nh
    }

    /// Counts one lookup's outcome (a validated hit or a miss).
    #[inline(always)]
    fn count(&mut self, hit: bool) {
        self.hits += hit as u64;
        self.misses += !hit as u64;
    }

    /// [`NextHopCache::lookup`] of every packet `i` with `ok[i]` (headers `hdr[i]`, hash
    /// `rss[i]`): writes `nh[i]` and leaves the others; writes the indices of the valid
    /// packets that missed (`nh[i] == 0`), in order, to the front of `miss` and returns how
    /// many; counts as `lookup` does, once per batch. Panics if `miss` is shorter than `ok`.
    ///
    /// The set size is matched once per batch: 4, 8 and 16 ways (the paper's sets) run a loop
    /// whose tag compare has a compile-time width, any other count the general probe.
    #[inline]
    pub fn lookup_batch(
        &mut self,
        ok: &[bool],
        hdr: &[Hdr],
        rss: &[u32],
        nh: &mut [u32],
        miss: &mut [u32],
    ) -> usize {
        match self.ways {
            4 => self.lookup_batch_with(ok, hdr, rss, nh, miss, |c, r, v6, d| {
                // SAFETY: this arm runs for 4 ways only.
                unsafe { c.probe_n::<4>(r, v6, d) }
            }),
            8 => self.lookup_batch_with(ok, hdr, rss, nh, miss, |c, r, v6, d| {
                // SAFETY: this arm runs for 8 ways only.
                unsafe { c.probe_n::<8>(r, v6, d) }
            }),
            16 => self.lookup_batch_with(ok, hdr, rss, nh, miss, |c, r, v6, d| {
                // SAFETY: this arm runs for 16 ways only.
                unsafe { c.probe_n::<16>(r, v6, d) }
            }),
            _ => self.lookup_batch_with(ok, hdr, rss, nh, miss, Self::probe),
        }
    }

    /// [`NextHopCache::lookup_batch`] with the probe `probe`.
    #[inline(always)]
    fn lookup_batch_with(
        &mut self,
        ok: &[bool],
        hdr: &[Hdr],
        rss: &[u32],
        nh: &mut [u32],
        miss: &mut [u32],
        probe: impl Fn(&mut Self, u32, bool, u128) -> u32,
    ) -> usize {
        assert!(miss.len() >= ok.len(), "miss list shorter than the batch");
        // The miss list is written without a branch on hit or miss (data: see
        // `super::compact`), in the loop that has the verdict in a register.
        let mut m = Compact::new(&mut miss[..ok.len()]);
        let mut looked = 0u64;
        let packets = ok.iter().zip(hdr).zip(rss).zip(nh.iter_mut()).enumerate();
        for (i, (((&ok, h), &r), out)) in packets {
            if ok {
                let v = probe(self, r, h.v6, h.dst);
                *out = v;
                looked += 1;
                // SAFETY: at most one call per packet of `ok`, the list's length.
                unsafe { m.put(i as u32, v == 0) };
            }
        }
        let misses = m.len();
        self.hits += looked - misses as u64;
        self.misses += misses as u64;
        misses
    }

    /// The validated next hop of a packet, 0 on a miss (uncounted).
    #[inline(always)]
    fn probe(&mut self, rss: u32, v6: bool, dst: u128) -> u32 {
        let key = key_of(rss);
        let set = self.set_of(key);
        let base = set * self.ways;
        // The tags hold exactly the keys the policy holds (see [`NextHopCache::fill`]), so a
        // key absent from them is a policy miss, which changes no policy state: only a key
        // found here is accessed (the same accesses, the same decisions).
        let Some(j) = way_of(&self.tags[base..base + self.ways], key) else {
            return 0;
        };
        self.hit(set, j, base + j, key, v6, dst)
    }

    /// [`NextHopCache::probe`] for sets of exactly `N` ways: the set's tags as one
    /// `[u32; N]`, compared at once, and the set's tags and value read without index checks.
    ///
    /// # Safety
    /// `N == self.ways`.
    #[inline(always)]
    unsafe fn probe_n<const N: usize>(&mut self, rss: u32, v6: bool, dst: u128) -> u32 {
        debug_assert_eq!(self.ways, N);
        let key = key_of(rss);
        let set = self.set_of(key);
        // `set < sets` (`set_of`: the top log2(sets) bits of a 32-bit product), and `tags`
        // and `vals` hold `sets × ways` = `sets × N` entries (`new`; N = ways by contract).
        let sets = self.tags.as_chunks::<N>().0;
        debug_assert!(set < sets.len() && self.vals.len() == sets.len() * N);
        // SAFETY: `set < sets.len()` (above).
        let m = crate::simd::eq_mask_u32(unsafe { sets.get_unchecked(set) }, key);
        if m == 0 {
            return 0;
        }
        // `way < N`: the lowest set lane of an N-lane mask.
        let way = m.trailing_zeros() as usize;
        self.policy.hit(set, way, key);
        // SAFETY: `set × N + way < sets × N = vals.len()` (above).
        let v = unsafe { self.vals.get_unchecked(set * N + way) };
        v.validated(v6, dst, self.epoch)
    }

    /// A key found in its set's tags at slot `at` (`set × ways + way`): the policy's access,
    /// then the value's validation; the next hop, or 0 when it does not validate.
    #[inline(always)]
    fn hit(&mut self, set: usize, way: usize, at: usize, key: u32, v6: bool, dst: u128) -> u32 {
        self.policy.hit(set, way, key);
        self.vals[at].validated(v6, dst, self.epoch)
    }

    /// Stores the looked-up next hop `nh` (non-zero) of a packet that missed.
    #[inline]
    pub fn fill(&mut self, rss: u32, v6: bool, dst: u128, nh: u32) {
        let key = key_of(rss);
        let set = self.set_of(key);
        let base = set * self.ways;
        let new = Val {
            nh,
            epoch: self.epoch,
            v6,
            dst,
        };
        let tags = &self.tags[base..base + self.ways];
        if let Some(j) = way_of(tags, key) {
            // held already: stale value, collision, or a second miss in a batch
            self.vals[base + j] = new;
            return;
        }
        if let Some(j) = self.policy.fill_way(set, key, tags) {
            self.tags[base + j] = key;
            self.vals[base + j] = new;
        }
    }

    /// Validated hits so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Misses so far.
    pub fn misses(&self) -> u64 {
        self.misses
    }

    /// The policy's name.
    pub fn policy_name(&self) -> String {
        self.policy.name()
    }
}

/// A next-hop cache under any online policy (static dispatch: the pipeline matches once per
/// batch and runs the monomorphised loop).
#[derive(Debug)]
pub enum AnyCache {
    /// LRU.
    Lru(NextHopCache<SmallCache<Lru>>),
    /// Segmented LRU.
    Slru(NextHopCache<SmallCache<Slru>>),
    /// HPC-n on sets of up to eight ways, kept per way ([`HpcWays`]).
    Hpc(NextHopCache<HpcWays>),
    /// HPC-n on wider sets (the slice store; the same decisions).
    HpcWide(NextHopCache<SmallCache<Hpc>>),
    /// Saturating priority.
    Spc(NextHopCache<SmallCache<Spc>>),
    /// Random replacement.
    Random(NextHopCache<SmallCache<Random>>),
    /// FIFO.
    Fifo(NextHopCache<SmallCache<Fifo>>),
}

/// Runs `$e` with `$x` bound to the concrete cache inside an [`AnyCache`] (one match per
/// batch; the loop in `$e` is monomorphised per policy).
macro_rules! with_cache {
    ($c:expr, $x:ident => $e:expr) => {
        match $c {
            $crate::pipeline::nhcache::AnyCache::Lru($x) => $e,
            $crate::pipeline::nhcache::AnyCache::Slru($x) => $e,
            $crate::pipeline::nhcache::AnyCache::Hpc($x) => $e,
            $crate::pipeline::nhcache::AnyCache::HpcWide($x) => $e,
            $crate::pipeline::nhcache::AnyCache::Spc($x) => $e,
            $crate::pipeline::nhcache::AnyCache::Random($x) => $e,
            $crate::pipeline::nhcache::AnyCache::Fifo($x) => $e,
        }
    };
}
pub(crate) use with_cache;

impl AnyCache {
    /// A cache of `entries` entries (rounded down to a power-of-two number of sets) for policy
    /// `name` (`lru, slru, hpc1…hpc255, spc, random, fifo`; natural associativity unless
    /// `ways` is given). Errors name the policy.
    pub fn new(
        name: &str,
        entries: usize,
        ways: Option<usize>,
        seed: u64,
    ) -> Result<Self, PipelineError> {
        let w = crate::flowcache::policy_ways(name, ways)
            .filter(|_| name != "belady")
            .ok_or_else(|| {
                format!("unknown or offline cache policy {name:?} (known: lru, slru, hpcN, spc, random, fifo)")
            })?
            .max(crate::flowcache::min_ways(name));
        let sets = (entries / w).max(1);
        let sets = 1usize << (usize::BITS - 1 - sets.leading_zeros());
        fn small<R: Rule + Clone>(
            r: R,
            sets: usize,
            w: usize,
        ) -> Result<NextHopCache<SmallCache<R>>, PipelineError> {
            if !fits_small(&r, sets, w) {
                return Err(format!(
                    "--ways {w}: the data plane's flow cache takes at most {} ways per set",
                    crate::flowcache::engine::SMALL_MAX
                )
                .into());
            }
            Ok(NextHopCache::new(Cache::new(r, sets, w)))
        }
        Ok(match name {
            "lru" => AnyCache::Lru(small(Lru, sets, w)?),
            "slru" => AnyCache::Slru(small(Slru::default(), sets, w)?),
            "spc" => AnyCache::Spc(small(Spc, sets, w)?),
            "random" => AnyCache::Random(small(Random::new(seed), sets, w)?),
            "fifo" => AnyCache::Fifo(small(Fifo, sets, w)?),
            n => {
                let k: u8 = n
                    .strip_prefix("hpc")
                    .and_then(|k| k.parse().ok())
                    .filter(|&k| k > 0)
                    .ok_or_else(|| format!("unknown cache policy {name:?}"))?;
                match HpcWays::new(k, sets, w) {
                    Some(h) => AnyCache::Hpc(NextHopCache::new(h)),
                    None => AnyCache::HpcWide(small(Hpc::new(k), sets, w)?),
                }
            }
        })
    }

    /// (hits, misses) so far.
    pub fn counts(&self) -> (u64, u64) {
        with_cache!(self, c => (c.hits(), c.misses()))
    }

    /// The policy's name.
    pub fn policy_name(&self) -> String {
        with_cache!(self, c => c.policy_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a model: a hit returns exactly the value last filled for that destination
        /// under the current epoch, for every policy.
        #[test]
        fn hits_return_the_filled_value(
            ops in proptest::collection::vec((0u32..64, 0u8..3, any::<bool>()), 1..2000),
            policy in proptest::sample::select(vec!["lru", "slru", "hpc2", "hpc4", "spc", "random", "fifo"]),
        ) {
            let mut c = AnyCache::new(policy, 32, None, 1).unwrap();
            check(&mut c, &ops)?;
        }
    }

    fn check(c: &mut AnyCache, ops: &[(u32, u8, bool)]) -> Result<(), TestCaseError> {
        macro_rules! run {
            ($c:expr) => {{
                let c = $c;
                let mut epoch = 0u32;
                // rss values collide on purpose: flow f's rss is f % 40, its dst f.
                for &(f, dst_shift, bump) in ops {
                    if bump && f % 16 == 0 {
                        epoch += 1;
                        c.set_epoch(epoch);
                    }
                    let dst = (f as u128) << dst_shift;
                    let truth = 1 + (f ^ epoch) % 7;
                    let nh = c.lookup(f % 40, false, dst);
                    if nh != 0 {
                        prop_assert_eq!(nh, truth);
                    } else {
                        c.fill(f % 40, false, dst, truth);
                    }
                    for (set, tags) in c.tags.chunks(c.ways).enumerate() {
                        for (w, &t) in tags.iter().enumerate() {
                            prop_assert!(t == EMPTY || c.policy.holds(set, w, t));
                        }
                    }
                    // … and the policy holds no other key (the lookup skips the policy when
                    // the tags miss).
                    let held = c.tags.iter().filter(|&&t| t != EMPTY).count();
                    prop_assert_eq!(held, WayPolicy::len(&c.policy));
                }
            }};
        }
        with_cache!(c, x => run!(x));
        Ok(())
    }

    /// A policy that does not name its victims (the default [`Policy::insert_evict`]).
    struct Blind<P>(P);

    impl<P: Policy> Policy for Blind<P> {
        fn name(&self) -> String {
            self.0.name()
        }
        fn ways(&self) -> usize {
            self.0.ways()
        }
        fn sets(&self) -> usize {
            self.0.sets()
        }
        fn access(&mut self, set: usize, key: u64, next_use: u64) -> Access {
            self.0.access(set, key, next_use)
        }
        fn insert(&mut self, set: usize, key: u64, next_use: u64) {
            self.0.insert(set, key, next_use)
        }
        fn len(&self) -> usize {
            self.0.len()
        }
        fn slot_of(&self, set: usize, key: u64) -> Option<u32> {
            self.0.slot_of(set, key)
        }
    }

    proptest! {
        /// HPC names its victim: the fill that reuses the victim's way leaves the same tags
        /// and values as the fill that asks the policy about every way.
        #[test]
        fn named_victims_fill_as_the_search_does(
            ops in proptest::collection::vec((0u32..96, any::<bool>()), 1..3000),
            n in 1u8..5, sets in proptest::sample::select(vec![1usize, 2, 4]),
        ) {
            let mk = || Cache::<Hpc, Small<u8>>::new(Hpc::new(n), sets, 8);
            let mut named = NextHopCache::new(mk());
            let mut blind = NextHopCache::new(Blind(mk()));
            let mut evicting = 0;
            for &(f, v6) in &ops {
                let dst = f as u128 * 3;
                let a = named.lookup(f, v6, dst);
                prop_assert_eq!(a, blind.lookup(f, v6, dst));
                if a == 0 {
                    let before = named.tags.iter().filter(|&&t| t != EMPTY).count();
                    named.fill(f, v6, dst, 1 + f % 5);
                    blind.fill(f, v6, dst, 1 + f % 5);
                    evicting += (named.tags.iter().filter(|&&t| t != EMPTY).count() == before) as u32;
                }
                prop_assert_eq!(&named.tags, &blind.tags);
                prop_assert_eq!(&named.vals, &blind.vals);
                // The tags are exactly the policy's keys on the search path too.
                let held = blind.tags.iter().filter(|&&t| t != EMPTY).count();
                prop_assert_eq!(held, WayPolicy::len(&blind.policy));
            }
            // Long runs evict (96 flows into ≤ 32 entries), so the named path was taken.
            prop_assert!(ops.len() < 500 || evicting > 0);
        }
    }

    proptest! {
        /// HPC kept per way ([`HpcWays`]) decides exactly as HPC on the slice store (the
        /// paper-000 implementation): after every lookup and fill the two caches hold the same
        /// tags and values in the same ways and return the same next hops, for 2–8 ways,
        /// 1–5 hits to promote and skewed flows (hot flows reach the hit region, exchanges
        /// and cold-start promotions both happen).
        #[test]
        fn hpc_per_way_decides_as_hpc_on_the_slice_store(
            ops in proptest::collection::vec((0u32..1000, any::<bool>()), 1..4000),
            n in 1u8..6,
            ways in 2usize..9,
            sets in proptest::sample::select(vec![1usize, 2, 4]),
        ) {
            let mut fast = NextHopCache::new(HpcWays::new(n, sets, ways).unwrap());
            let mut slice = NextHopCache::new(Cache::<Hpc, Small<u8>>::new(Hpc::new(n), sets, ways));
            for &(r, v6) in &ops {
                // A few hot flows and many cold ones.
                let f = if r % 3 == 0 { r % 5 } else { r % 64 };
                let dst = f as u128 * 7;
                let a = fast.lookup(f, v6, dst);
                prop_assert_eq!(a, slice.lookup(f, v6, dst));
                if a == 0 {
                    fast.fill(f, v6, dst, 1 + f % 5);
                    slice.fill(f, v6, dst, 1 + f % 5);
                }
                prop_assert_eq!(&fast.tags, &slice.tags);
                prop_assert_eq!(&fast.vals, &slice.vals);
                prop_assert_eq!(WayPolicy::len(&fast.policy), WayPolicy::len(&slice.policy));
            }
            prop_assert_eq!((fast.hits(), fast.misses()), (slice.hits(), slice.misses()));
        }
    }

    proptest! {
        /// `lookup_batch` (its fixed-width probes for 4, 8 and 16 ways, the general probe for
        /// other counts) gives every valid packet what `lookup` gives it, leaves the others'
        /// slots alone and counts alike.
        #[test]
        fn batch_lookups_match_single_lookups(
            batches in proptest::collection::vec(
                proptest::collection::vec((0u32..96, any::<bool>(), any::<bool>()), 1..40), 1..60),
            ways in proptest::sample::select(vec![2usize, 4, 6, 8, 16]),
            policy in proptest::sample::select(vec!["lru", "hpc4", "fifo"]),
        ) {
            let mut a = AnyCache::new(policy, 64, Some(ways), 1).unwrap();
            let mut b = AnyCache::new(policy, 64, Some(ways), 1).unwrap();
            for batch in &batches {
                let ok: Vec<bool> = batch.iter().map(|p| p.1).collect();
                let rss: Vec<u32> = batch.iter().map(|p| p.0 % 50).collect();
                let hdr: Vec<Hdr> = batch
                    .iter()
                    .map(|&(f, _, v6)| Hdr { l3: 14, v6, dst: f as u128 * 3, src_dst: 0, len: 60 })
                    .collect();
                let mut got = vec![u32::MAX; batch.len()];
                let mut miss = vec![u32::MAX; batch.len()];
                let k = with_cache!(&mut a, x => x.lookup_batch(&ok, &hdr, &rss, &mut got, &mut miss));
                let want: Vec<u32> = (0..batch.len())
                    .map(|i| match ok[i] {
                        true => with_cache!(&mut b, x => x.lookup(rss[i], hdr[i].v6, hdr[i].dst)),
                        false => u32::MAX,
                    })
                    .collect();
                prop_assert_eq!(&got, &want);
                let want_miss: Vec<u32> = (0..batch.len() as u32)
                    .filter(|&i| ok[i as usize] && got[i as usize] == 0)
                    .collect();
                prop_assert_eq!(&miss[..k], &want_miss[..]);
                for i in (0..batch.len()).filter(|&i| ok[i] && got[i] == 0) {
                    let nh = 1 + batch[i].0 % 7;
                    with_cache!(&mut a, x => x.fill(rss[i], hdr[i].v6, hdr[i].dst, nh));
                    with_cache!(&mut b, x => x.fill(rss[i], hdr[i].v6, hdr[i].dst, nh));
                }
            }
            prop_assert_eq!(a.counts(), b.counts());
        }
    }

    /// A value just filled is found by the next lookup of the same packet (same epoch), for
    /// every policy; another destination behind the same hash is not.
    #[test]
    fn a_fill_is_hit_by_the_next_lookup() {
        for policy in ["lru", "slru", "hpc2", "hpc4", "spc", "random", "fifo"] {
            let mut c = AnyCache::new(policy, 32, None, 1).unwrap();
            macro_rules! run {
                ($c:expr) => {{
                    let c = $c;
                    for f in 0..200u32 {
                        assert_eq!(c.lookup(f, false, f as u128), 0, "{policy}: cold miss");
                        c.fill(f, false, f as u128, 1 + f % 7);
                        assert_eq!(c.lookup(f, false, f as u128), 1 + f % 7, "{policy}: hit");
                        assert_eq!(c.lookup(f, false, f as u128 + 1), 0, "{policy}: other dst");
                    }
                }};
            }
            with_cache!(&mut c, x => run!(x));
        }
    }

    #[test]
    fn names() {
        assert_eq!(
            AnyCache::new("hpc4", 1024, None, 1).unwrap().policy_name(),
            "hpc4"
        );
        assert!(AnyCache::new("belady", 1024, None, 1).is_err());
        assert!(AnyCache::new("hpc0", 1024, None, 1).is_err());
        assert!(AnyCache::new("nope", 1024, None, 1).is_err());
    }
}
