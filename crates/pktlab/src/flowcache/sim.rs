//! The packet processing cache simulator of paper 000 (§5.1, fig. 7) and its delay model
//! (§5.3, Table 2).
//!
//! Time follows the trace's timestamps. Each packet's flow is looked up in the cache; a hit
//! completes at once. On a cache miss the **Cache Miss Table** (CMT) is checked: if the flow's
//! table lookup is already in flight, the packet waits in the **Cache Miss Queue** (CMQ) and
//! completes with it (a *CMT hit*, not a miss). Otherwise the packet is a **miss**: it is
//! assigned to one of `P` processing elements (PEs; the earliest free one, waiting if all are
//! busy), which finishes `lookup_ns` later; at that instant the flow is inserted into the
//! cache. Lookups finishing at or before a packet's timestamp are inserted before that packet
//! is looked up. The "no timing" mode inserts at once on a miss (no CMT).
//!
//! Because every lookup takes the same time and PEs are taken in arrival order, lookups finish
//! in the order they start: the in-flight lookups are a FIFO ring, and the PE pool is a ring of
//! the last `P` finish times — no heap, no allocation per packet.
//!
//! Average lookup delay (paper §5.3): `hit_ns·(1−m) + miss_ns·m + exchange_ns·c`, defaults
//! 2, 55 and 4 ns (m = miss rate, c = exchanges per packet).

use super::engine::{fits_small, Cache, Rule};
use super::store::{Linked, Small};
use super::{
    Access, Arc, Belady, Clock, Fifo, Hpc, Lfu, Lru, Policy, Random, S3Fifo, SetIndex, Sieve, Slru,
    Spc, TinyLfu, TracePacket, NEVER,
};
use std::collections::VecDeque;

/// The paper's delay constants (ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelayModel {
    /// Hit latency (paper: 2 ns, an L1-class SRAM access).
    pub hit_ns: f64,
    /// Miss latency (paper: 55 ns).
    pub miss_ns: f64,
    /// Extra latency of an HPC entry exchange (paper: 4 ns).
    pub exchange_ns: f64,
}

impl Default for DelayModel {
    fn default() -> Self {
        DelayModel {
            hit_ns: 2.0,
            miss_ns: 55.0,
            exchange_ns: 4.0,
        }
    }
}

/// Simulator parameters.
#[derive(Clone, Copy, Debug)]
pub struct SimConfig {
    /// Use the PE/CMT timing model (`false`: insert immediately on a miss).
    pub timing: bool,
    /// Number of processing elements (paper: 64).
    pub pes: usize,
    /// Table-lookup latency of a PE in ns (paper: 100).
    pub lookup_ns: u64,
    /// Set-index hash.
    pub index: SetIndex,
    /// Delay constants.
    pub delay: DelayModel,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            timing: true,
            pes: 64,
            lookup_ns: 100,
            index: SetIndex::Crc,
            delay: DelayModel::default(),
        }
    }
}

/// What a simulation counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets simulated.
    pub packets: u64,
    /// Cache hits (including exchanges).
    pub hits: u64,
    /// Packets that missed the cache but found their flow in the CMT.
    pub cmt_hits: u64,
    /// Packets that missed both the cache and the CMT (each started a table lookup).
    pub misses: u64,
    /// Hits that caused an HPC exchange.
    pub exchanges: u64,
    /// Total ns packets waited for a free PE (0 unless all PEs were busy).
    pub pe_wait_ns: u64,
}

impl Counters {
    /// Miss rate m = misses / packets.
    pub fn miss_rate(&self) -> f64 {
        self.misses as f64 / self.packets.max(1) as f64
    }
    /// Exchange rate c = exchanges / packets.
    pub fn exchange_rate(&self) -> f64 {
        self.exchanges as f64 / self.packets.max(1) as f64
    }
    /// The paper's average lookup delay for these counts.
    pub fn avg_delay_ns(&self, d: &DelayModel) -> f64 {
        let m = self.miss_rate();
        d.hit_ns * (1.0 - m) + d.miss_ns * m + d.exchange_ns * self.exchange_rate()
    }
}

#[derive(Clone, Copy, Debug)]
struct Job {
    finish: u64,
    flow: u32,
    set: u32,
    next_use: u64,
}

/// One policy under simulation; feed packets in trace order with [`Sim::step`].
#[derive(Clone, Debug)]
pub struct Sim<P: Policy> {
    policy: P,
    cfg: SimConfig,
    sets: u32,
    mask: Option<u32>,
    c: Counters,
    pe_free: Vec<u64>,
    pe_next: usize,
    jobs: VecDeque<Job>,
    jobs_popped: u64,
    /// Per flow id: 1 + sequence number of its in-flight lookup, or 0.
    inflight: Vec<u64>,
}

impl<P: Policy> Sim<P> {
    /// A simulator around `policy`.
    pub fn new(policy: P, cfg: SimConfig) -> Self {
        let sets = policy.sets().max(1) as u32;
        Sim {
            mask: sets.is_power_of_two().then_some(sets - 1),
            sets,
            policy,
            cfg,
            c: Counters::default(),
            pe_free: vec![0; cfg.pes.max(1)],
            pe_next: 0,
            jobs: VecDeque::with_capacity(cfg.pes.max(1) * 4),
            jobs_popped: 0,
            inflight: Vec::new(),
        }
    }

    /// The policy (for its name and geometry).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// Counters so far.
    pub fn counters(&self) -> Counters {
        self.c
    }

    #[inline(always)]
    fn set_of(&self, p: &TracePacket) -> u32 {
        let h = match self.cfg.index {
            SetIndex::Crc => p.crc,
            SetIndex::Xor => p.xor,
        };
        match self.mask {
            Some(m) => h & m,
            None => h % self.sets,
        }
    }

    /// Inserts every lookup that finished at or before `now`.
    #[inline]
    fn complete(&mut self, now: u64) {
        while let Some(j) = self.jobs.front() {
            if j.finish > now {
                break;
            }
            let j = *j;
            self.jobs.pop_front();
            self.jobs_popped += 1;
            self.inflight[j.flow as usize] = 0;
            self.policy
                .insert(j.set as usize, j.flow as u64, j.next_use);
        }
    }

    /// Simulates one packet; `next_use` is the index of the flow's next packet (only
    /// [`Belady`] needs it; pass [`NEVER`] otherwise).
    #[inline(always)]
    pub fn step(&mut self, p: &TracePacket, next_use: u64) {
        self.c.packets += 1;
        let set = self.set_of(p);
        if !self.cfg.timing {
            let a = self
                .policy
                .access_insert(set as usize, p.flow as u64, next_use);
            self.c.misses += (a == Access::Miss) as u64;
            self.c.hits += (a != Access::Miss) as u64;
            self.c.exchanges += (a == Access::Exchange) as u64;
            return;
        }
        if self.jobs.front().is_some_and(|j| j.finish <= p.ts_ns) {
            self.complete(p.ts_ns);
        }
        match self.policy.access(set as usize, p.flow as u64, next_use) {
            Access::Hit => self.c.hits += 1,
            Access::Exchange => {
                self.c.hits += 1;
                self.c.exchanges += 1;
            }
            Access::Miss => {
                let f = p.flow as usize;
                if f >= self.inflight.len() {
                    self.inflight.resize((f + 1).next_power_of_two(), 0);
                }
                let tag = self.inflight[f];
                if tag != 0 {
                    // CMT hit: wait in the CMQ for the in-flight lookup.
                    self.c.cmt_hits += 1;
                    let idx = (tag - 1 - self.jobs_popped) as usize;
                    if let Some(j) = self.jobs.get_mut(idx) {
                        j.next_use = next_use;
                    }
                    return;
                }
                self.c.misses += 1;
                let free = self.pe_free[self.pe_next];
                let start = free.max(p.ts_ns);
                self.c.pe_wait_ns += start - p.ts_ns;
                let finish = start + self.cfg.lookup_ns;
                self.pe_free[self.pe_next] = finish;
                self.pe_next += 1;
                if self.pe_next == self.pe_free.len() {
                    self.pe_next = 0;
                }
                self.inflight[f] = self.jobs_popped + self.jobs.len() as u64 + 1;
                self.jobs.push_back(Job {
                    finish,
                    flow: p.flow,
                    set,
                    next_use,
                });
            }
        }
    }

    /// Simulates a batch; `next_use[i]` belongs to `pkts[i]` (empty slice: all [`NEVER`]).
    /// Not inlined: each store layout's loop is compiled on its own (a batch is 4 K packets,
    /// so the call costs nothing), and the large layout's prefetching loop does not disturb
    /// the register allocation of the small one.
    #[inline(never)]
    pub fn run(&mut self, pkts: &[TracePacket], next_use: &[u32]) {
        if P::PREFETCH {
            let d = self.policy.prefetch_distance();
            if d > 0 {
                return self.run_prefetching(pkts, next_use, d);
            }
        }
        if next_use.is_empty() {
            for p in pkts {
                self.step(p, NEVER);
            }
        } else {
            for (p, &n) in pkts.iter().zip(next_use) {
                self.step(p, if n == u32::MAX { NEVER } else { n as u64 });
            }
        }
    }
}

impl<P: Policy> Sim<P> {
    /// [`Sim::run`] for stores that are larger than the CPU caches: the lookups of the
    /// packets `d`, `2d` and `3d` ahead are prefetched (stages 2, 1, 0 of
    /// [`Policy::prefetch`]), so several DRAM misses overlap. Same results as without.
    fn run_prefetching(&mut self, pkts: &[TracePacket], next_use: &[u32], d: usize) {
        let n = pkts.len();
        let next = |i: usize| match next_use.get(i) {
            Some(&x) if x != u32::MAX => x as u64,
            _ => NEVER,
        };
        // Body: all three look-ahead packets lie in the batch, so the offset slices are
        // zipped (no per-packet bounds checks).
        let body = n.saturating_sub(3 * d);
        let ahead = pkts[d.min(n)..]
            .iter()
            .zip(&pkts[(2 * d).min(n)..])
            .zip(&pkts[(3 * d).min(n)..]);
        for (i, (p, ((a1, a2), a3))) in pkts[..body].iter().zip(ahead).enumerate() {
            self.prefetch_for(a3, 0);
            self.prefetch_for(a2, 1);
            self.prefetch_for(a1, 2);
            self.step(p, next(i));
        }
        // Tail: the look-ahead runs off the end of the batch.
        for i in body..n {
            for (stage, k) in [(0u8, 3 * d), (1, 2 * d), (2, d)] {
                if let Some(q) = pkts.get(i + k) {
                    self.prefetch_for(q, stage);
                }
            }
            self.step(&pkts[i], next(i));
        }
    }

    /// [`Policy::prefetch`] stage `stage` for packet `q`.
    #[inline(always)]
    fn prefetch_for(&self, q: &TracePacket, stage: u8) {
        self.policy
            .prefetch(self.set_of(q) as usize, q.flow as u64, stage);
    }
}

/// One rule's simulator on the layout that suits its geometry (one per run, so the size
/// difference between the variants does not matter).
#[allow(missing_docs, clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Layouts<R: Rule> {
    Small(Sim<Cache<R, Small<R::Meta>>>),
    Linked(Sim<Cache<R, Linked<R::Meta>>>),
}

impl<R: Rule + Clone> Layouts<R> {
    /// [`Small`] for sets of ≤ 32 entries (ghosts included), else [`Linked`].
    pub fn new(rule: R, sets: usize, ways: usize, cfg: SimConfig) -> Self {
        if fits_small(&rule, sets, ways) {
            Layouts::Small(Sim::new(Cache::new(rule, sets, ways), cfg))
        } else {
            Layouts::Linked(Sim::new(Cache::new(rule, sets, ways), cfg))
        }
    }
    fn run(&mut self, pkts: &[TracePacket], next_use: &[u32]) {
        match self {
            Layouts::Small(s) => s.run(pkts, next_use),
            Layouts::Linked(s) => s.run(pkts, next_use),
        }
    }
    fn counters(&self) -> Counters {
        match self {
            Layouts::Small(s) => s.counters(),
            Layouts::Linked(s) => s.counters(),
        }
    }
    /// True on the [`Linked`] layout.
    pub fn linked(&self) -> bool {
        matches!(self, Layouts::Linked(_))
    }
}

macro_rules! any_sim {
    ($($v:ident),*) => {
        /// Enum dispatch over the policies: one `match` per batch, monomorphised loops inside.
        #[allow(missing_docs)]
        #[derive(Clone, Debug)]
        pub enum AnySim {
            $($v(Layouts<$v>),)*
        }
        impl AnySim {
            /// Simulates a batch (see [`Sim::run`]).
            pub fn run(&mut self, pkts: &[TracePacket], next_use: &[u32]) {
                match self {
                    $(AnySim::$v(s) => s.run(pkts, next_use),)*
                }
            }
            /// Counters so far.
            pub fn counters(&self) -> Counters {
                match self {
                    $(AnySim::$v(s) => s.counters(),)*
                }
            }
            /// True when the cache uses the O(1) linked layout (large sets).
            pub fn linked(&self) -> bool {
                match self {
                    $(AnySim::$v(s) => s.linked(),)*
                }
            }
        }
    };
}

any_sim!(Lru, Fifo, Random, Clock, Slru, Hpc, Spc, Lfu, Arc, S3Fifo, Sieve, TinyLfu, Belady);

impl AnySim {
    /// A simulator for policy `name` (see [`super::POLICY_NAMES`]; `hpcN` for 1 ≤ N ≤ 255)
    /// with `entries` entries in sets of `ways` (`entries / ways` sets, at least one; ways
    /// below the policy's minimum are raised to it); `None` for an unknown name.
    pub fn new(name: &str, entries: usize, ways: usize, cfg: SimConfig, seed: u64) -> Option<Self> {
        let ways = ways.max(super::min_ways(name));
        let sets = (entries / ways).max(1);
        Some(match name {
            "lru" => AnySim::Lru(Layouts::new(Lru, sets, ways, cfg)),
            "fifo" => AnySim::Fifo(Layouts::new(Fifo, sets, ways, cfg)),
            "random" => AnySim::Random(Layouts::new(Random::new(seed), sets, ways, cfg)),
            "clock" => AnySim::Clock(Layouts::new(Clock, sets, ways, cfg)),
            "slru" => AnySim::Slru(Layouts::new(Slru::default(), sets, ways, cfg)),
            "spc" => AnySim::Spc(Layouts::new(Spc, sets, ways, cfg)),
            "lfu" => AnySim::Lfu(Layouts::new(Lfu::default(), sets, ways, cfg)),
            "arc" => AnySim::Arc(Layouts::new(Arc::default(), sets, ways, cfg)),
            "s3fifo" => AnySim::S3Fifo(Layouts::new(S3Fifo::default(), sets, ways, cfg)),
            "sieve" => AnySim::Sieve(Layouts::new(Sieve, sets, ways, cfg)),
            "tinylfu" => AnySim::TinyLfu(Layouts::new(TinyLfu::default(), sets, ways, cfg)),
            "belady" => AnySim::Belady(Layouts::new(Belady, sets, ways, cfg)),
            n => {
                let k: u8 = n.strip_prefix("hpc")?.parse().ok()?;
                if k == 0 {
                    return None;
                }
                AnySim::Hpc(Layouts::new(Hpc::new(k), sets, ways, cfg))
            }
        })
    }

    /// True for offline policies that need next-use indices.
    pub fn needs_future(&self) -> bool {
        matches!(self, AnySim::Belady(_))
    }
}
