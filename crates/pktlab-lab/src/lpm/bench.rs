//! The lookup-rate benchmark ([`bench`]), its per-depth costs and updates under a reader.

use super::rounds::time_rounds;
use super::*;
use super::{check, median, Error, Progress, Result};
use pktlab::io::routes::Update;
use pktlab::lpm::shared::concurrent;
use pktlab::lpm::{by_depth, Algo, Lpm, Radix, Visit};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::traffic::lpm::{random_addr, stream, LookupGen};
use pktlab::util::Xor128;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Configuration of [`bench()`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchConfig {
    /// Table and algorithms.
    pub table: TableSpec,
    /// Traffic: `random`, `prefixes`, `sequential`, `repeat`, `zipf:ALPHA` or `trace:PATH`.
    pub traffic: String,
    /// Lookups per run (all threads together).
    pub lookups: u64,
    /// Lookup threads.
    pub threads: usize,
    /// Rounds: every round times each algorithm once, round-robin, so that a phase of host
    /// noise hits all structures of a round alike (the median is reported, every round kept).
    pub runs: usize,
    /// Slices per round: each round's `lookups` are cut into this many slices, and every
    /// slice times each structure in turn, in an order rotated per slice, after untimed
    /// warm-up lookups (1 = each structure timed once per round, without warm-up). Slices
    /// make a round's values averages over the same second for every structure.
    pub slices: usize,
    /// Pre-generate this many addresses and cycle through them in place (0 = generate on the
    /// fly); keep it cache-sized (e.g. 64K) or the run also measures memory streaming.
    pub pregen: u64,
    /// Addresses per `lookup_batch` call; 1 = the scalar `lookup`, one call per address.
    pub batch: usize,
    /// Update stream applied while a reader thread keeps looking up.
    pub updates: Option<PathBuf>,
    /// With `updates`: publish to readers after this many updates.
    pub publish_every: usize,
    /// Also time single lookups and group their cost by matched prefix length
    /// ([`pktlab::lpm::by_depth`], paper 004's box plot).
    pub by_depth: bool,
    /// With `by_depth`: lookups timed (the first N addresses of the traffic, thread 0), cut
    /// into `depth_rounds` slices timed round-robin over the structures.
    pub depth_samples: u64,
    /// With `by_depth`: interleaved rounds of the single-lookup timings (`None`: `runs`).
    /// A pair test over rounds needs many of them to tell an ordering from one disturbed
    /// round: with 5 rounds every round must agree (the signed-rank test cannot go below
    /// p = 1/32), with 15 one or two rounds hit by the host can disagree.
    pub depth_rounds: Option<usize>,
    /// With `threads` > 1: each round also times the structure on 1 thread right beside the
    /// `threads`-thread run (before it in even rounds, after it in odd ones), so that the
    /// scaling ratio compares two back-to-back runs.
    pub pair_one_thread: bool,
    /// Builds every structure afresh (new memory) before each round after the first, so the
    /// rounds sample the memory layouts a structure can get (page placement, TLB and cache
    /// conflicts) instead of repeating one. The build is not timed.
    pub rebuild: bool,
    /// Builds every structure on transparent huge pages ([`pktlab::thp::huge_pages`]; needs
    /// [`pktlab::thp::ThpAllocator`] as the program's global allocator, as in the `pktlab`
    /// binary): a data plane's table placement, without a TLB miss per random lookup.
    pub huge_pages: bool,
}

impl BenchConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range),
    /// before any table is loaded.
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--lookups", self.lookups, 1, 1 << 48)?;
        check::int_range("--threads", self.threads as u64, 1, 1024)?;
        check::int_range("--runs", self.runs as u64, 1, 10_000)?;
        check::int_range("--slices", self.slices as u64, 1, self.lookups.min(4096))?;
        // Every (slice, thread) draws from a stream of its own, and the warm-up from the
        // next one: the stream index has 16 bits (`pktlab::traffic::lpm::stream`).
        if self.slices * self.threads > 0xffff {
            return Err(Error::param(format!(
                "--slices × --threads must be at most 65535 (got {} × {})",
                self.slices, self.threads
            )));
        }
        check::int_range("--pregen", self.pregen, 0, 1 << 32)?;
        check::int_range("--batch", self.batch as u64, 1, 1 << 16)?;
        check::int_range("--publish-every", self.publish_every as u64, 1, 1 << 32)?;
        if self.by_depth {
            check::int_range("--depth-samples", self.depth_samples, 1, 1 << 32)?;
            if let Some(r) = self.depth_rounds {
                check::int_range(
                    "--depth-rounds",
                    r as u64,
                    1,
                    self.depth_samples.min(10_000),
                )?;
            }
        }
        if let Some(a) = self.traffic.strip_prefix("zipf:") {
            let alpha: f64 = a.parse().map_err(|_| {
                Error::param(format!(
                    "--traffic: expected zipf:ALPHA, e.g. zipf:0.8 (got {:?})",
                    self.traffic
                ))
            })?;
            check::positive("--traffic zipf:ALPHA", alpha)?;
        }
        Ok(())
    }
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            table: TableSpec::default(),
            traffic: "random".into(),
            lookups: 1 << 26,
            threads: 1,
            runs: 3,
            slices: 1,
            pregen: 0,
            batch: 256,
            updates: None,
            publish_every: 64,
            by_depth: false,
            depth_samples: 1 << 20,
            depth_rounds: None,
            pair_one_thread: false,
            rebuild: false,
            huge_pages: false,
        }
    }
}

/// Updates applied through the concurrent wrapper while a reader looks up.
#[derive(Clone, Debug, Serialize)]
pub struct UpdateBench {
    /// Update events applied.
    pub events: usize,
    /// Seconds to apply (and publish) them all.
    pub apply_s: f64,
    /// Events per second.
    pub events_per_s: f64,
    /// Updates per publication.
    pub publish_every: usize,
    /// Lookups the reader did meanwhile.
    pub reader_lookups: u64,
    /// The reader's lookup rate meanwhile, millions per second.
    pub reader_mlps: f64,
}

/// One algorithm's benchmark result.
#[derive(Clone, Debug, Serialize)]
pub struct AlgoBench {
    /// Algorithm name.
    pub algo: String,
    /// Median lookup rate, millions of lookups per second (all threads).
    pub mlps: f64,
    /// Nanoseconds per lookup per thread.
    pub ns_per_lookup: f64,
    /// Bytes of the lookup structure.
    pub memory_bytes: usize,
    /// Internal nodes.
    pub internal_nodes: usize,
    /// Leaves.
    pub leaves: usize,
    /// Build time, seconds.
    pub build_s: f64,
    /// Routes per second of the build.
    pub build_routes_per_s: f64,
    /// Rate of every run.
    pub runs_mlps: Vec<f64>,
    /// Build time on a CPU (the thread's run time, see [`oncpu_ns`]), seconds.
    pub build_oncpu_s: f64,
    /// Median over runs of the sum over threads of lookups per on-CPU second.
    pub mlps_oncpu: f64,
    /// On-CPU rate (all threads) of every run.
    pub runs_oncpu_mlps: Vec<f64>,
    /// Wall-clock rate of each thread, per run.
    pub runs_per_thread_mlps: Vec<Vec<f64>>,
    /// On-CPU rate of each thread, per run.
    pub runs_per_thread_oncpu_mlps: Vec<Vec<f64>>,
    /// TSC ticks per lookup on one thread at the median on-CPU rate (`tsc_hz × threads /
    /// mlps_oncpu`), comparable across machines as cycles; `None` without a TSC.
    pub tsc_per_lookup: Option<f64>,
    /// With `pair_one_thread`: the 1-thread wall-clock rate of every round, timed right
    /// beside that round's multi-thread run (before it in even rounds, after it in odd ones).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs_one_thread_mlps: Vec<f64>,
    /// With `pair_one_thread`: the 1-thread on-CPU rate of every round.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs_one_thread_oncpu_mlps: Vec<f64>,
    /// Wrapping sum of the next-hop ids looked up in the last run (0 for no route).
    pub checksum: u64,
    /// The update benchmark, when an update stream was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updates: Option<UpdateBench>,
    /// Single-lookup cost by matched prefix length, with `by_depth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_depth: Option<DepthReport>,
}

impl AlgoBench {
    /// Sets the medians from the rounds: wall-clock and on-CPU rate, ns per lookup per thread
    /// and TSC ticks per lookup (`tsc_hz × threads / mlps_oncpu`). No change without rounds.
    pub(super) fn set_medians(&mut self, threads: usize, tsc_hz: Option<f64>) {
        if self.runs_mlps.is_empty() || self.runs_oncpu_mlps.is_empty() {
            return;
        }
        self.mlps = median(&mut self.runs_mlps.clone());
        self.ns_per_lookup = 1e3 / self.mlps * threads as f64;
        let oncpu = median(&mut self.runs_oncpu_mlps.clone());
        self.mlps_oncpu = oncpu;
        self.tsc_per_lookup = tsc_hz
            .filter(|_| oncpu.is_finite() && oncpu > 0.0)
            .map(|hz| hz * threads as f64 / (oncpu * 1e6));
    }
}

/// Cost percentiles of the lookups that matched routes of one prefix length.
#[derive(Clone, Debug, Serialize)]
pub struct DepthRow {
    /// Prefix length of the matched route (`None`: no route).
    pub depth: Option<u8>,
    /// Lookups with that depth.
    pub count: u64,
    /// 5th percentile, TSC ticks.
    pub p5: u64,
    /// 25th percentile.
    pub p25: u64,
    /// Median.
    pub p50: u64,
    /// 75th percentile.
    pub p75: u64,
    /// 95th percentile.
    pub p95: u64,
    /// The 95th percentile of every round, in round order (`None`: no lookup of this depth
    /// in that round's slice).
    pub rounds_p95: Vec<Option<u64>>,
}

/// The `by_depth` part of an [`AlgoBench`] (see [`pktlab::lpm::by_depth`]).
#[derive(Clone, Debug, Serialize)]
pub struct DepthReport {
    /// Always `tsc_ticks`.
    pub unit: String,
    /// Median cost of an empty timing window, subtracted from every sample.
    pub timer_overhead: u64,
    /// Lookups timed (all rounds).
    pub lookups: u64,
    /// Interleaved rounds (each times one slice of the samples in every structure).
    pub rounds: usize,
    /// Share of the timed lookups whose route is longer than /24.
    pub share_deeper_than_24: f64,
    /// Wrapping sum of the next hops returned.
    pub checksum: u64,
    /// One row per depth that occurred.
    pub depths: Vec<DepthRow>,
}

/// Time the calling thread has spent on a CPU, in ns (Linux `/proc/thread-self/schedstat`,
/// first field). On a shared, overloaded machine lookups per on-CPU second is the rate the
/// thread achieved while it actually ran; wall-clock Mlps also count time spent descheduled.
pub fn oncpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

pub(super) fn oncpu_since(c0: Option<u64>) -> f64 {
    oncpu_ns()
        .zip(c0)
        .map_or(f64::NAN, |(b, a)| b.saturating_sub(a) as f64 * 1e-9)
}

/// One algorithm built as its concrete type (lookups inlined, as in the throughput loop),
/// timing single lookups: `(warm, addrs)` → [`by_depth::by_depth_warm`].
type DepthTimer<'a, A> = Box<dyn FnMut(&[A], &[A]) -> Option<by_depth::ByDepth> + 'a>;

fn depth_timer<'a, A: Address>(
    algo: Algo,
    routes: &[(Prefix<A>, NextHop)],
    oracle: &'a Radix<A>,
) -> DepthTimer<'a, A> {
    struct Make<'r, 'a, A: Address> {
        routes: &'r [(Prefix<A>, NextHop)],
        oracle: &'a Radix<A>,
    }
    impl<'a, A: Address> Visit<A> for Make<'_, 'a, A> {
        type Out = DepthTimer<'a, A>;
        fn visit<T: Lpm<A> + Clone + 'static>(self, mut t: T) -> Self::Out {
            t.build(self.routes);
            let oracle = self.oracle;
            Box::new(move |warm, addrs| by_depth::by_depth_warm(&t, oracle, warm, addrs))
        }
    }
    algo.visit(Make { routes, oracle })
}

/// `by_depth`: times the first `depth_samples` addresses of the traffic one by one in every
/// structure, in interleaved rounds: the samples are cut into `depth_rounds` slices (default
/// `runs`), and round r times slice r in each structure in turn (after an untimed warm-up on
/// 65,536 other addresses of the stream), so a phase of host noise falls on every structure
/// of a round alike. Each depth's percentiles are the median over the rounds of that round's
/// percentile.
fn depth_rounds<A: Address>(
    algos: &[Algo],
    routes: &[(Prefix<A>, NextHop)],
    traffic: &Traffic<A>,
    cfg: &BenchConfig,
    p: &dyn Progress,
) -> Result<Vec<DepthReport>> {
    let mut oracle = Radix::<A>::new();
    oracle.build(routes);
    let n = cfg.depth_samples.max(1) as usize;
    let mut rng = Xor128::new(stream(cfg.table.seed, 0));
    let mut st = LookupGen::new(traffic, &mut rng);
    let mut addrs = vec![A::ZERO; n + WARM_LOOKUPS];
    st.fill(traffic, &mut rng, &mut addrs);
    let (addrs, warm) = addrs.split_at(n);
    let chunk = n.div_ceil(cfg.depth_rounds.unwrap_or(cfg.runs).clamp(1, n));
    let mut timers: Vec<_> = algos
        .iter()
        .map(|&a| {
            p.note(&format!("{a}: building for single lookups by depth"));
            depth_timer(a, routes, &oracle)
        })
        .collect();
    let mut per: Vec<Vec<by_depth::ByDepth>> = vec![Vec::new(); algos.len()];
    let rounds = n.div_ceil(chunk);
    p.start(
        "single lookups by depth",
        Some((rounds * algos.len()) as u64),
    );
    for (r, part) in addrs.chunks(chunk).enumerate() {
        for (i, t) in timers.iter_mut().enumerate() {
            let b = t(warm, part)
                .ok_or_else(|| Error::param("--by-depth needs an x86-64 time-stamp counter"))?;
            per[i].push(b);
            p.set((r * algos.len() + i) as u64 + 1);
            p.check_stop()?;
        }
    }
    p.finish();
    Ok(per.iter().map(|rs| merge_depths(rs)).collect())
}

/// Untimed lookups before each timed slice of [`depth_rounds`].
const WARM_LOOKUPS: usize = 1 << 16;

/// Median of integers (the upper median for an even count; 0 for none).
fn median_u64(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

/// One [`DepthReport`] from the rounds of one structure.
fn merge_depths(rounds: &[by_depth::ByDepth]) -> DepthReport {
    let mut depths: Vec<Option<u8>> = rounds
        .iter()
        .flat_map(|r| r.per_depth.iter().map(|d| d.depth))
        .collect();
    depths.sort_unstable();
    depths.dedup();
    let lookups: u64 = rounds.iter().map(|r| r.lookups).sum();
    let rows: Vec<DepthRow> = depths
        .into_iter()
        .map(|depth| {
            let of: Vec<Option<&by_depth::DepthCost>> = rounds
                .iter()
                .map(|r| r.per_depth.iter().find(|d| d.depth == depth))
                .collect();
            let med = |f: fn(&by_depth::DepthCost) -> u64| {
                median_u64(of.iter().flatten().map(|d| f(d)).collect())
            };
            DepthRow {
                depth,
                count: of.iter().flatten().map(|d| d.count).sum(),
                p5: med(|d| d.p5),
                p25: med(|d| d.p25),
                p50: med(|d| d.p50),
                p75: med(|d| d.p75),
                p95: med(|d| d.p95),
                rounds_p95: of.iter().map(|d| d.map(|d| d.p95)).collect(),
            }
        })
        .collect();
    let deeper: u64 = rows
        .iter()
        .filter(|d| d.depth.is_some_and(|x| x > 24))
        .map(|d| d.count)
        .sum();
    DepthReport {
        unit: "tsc_ticks".into(),
        timer_overhead: median_u64(rounds.iter().map(|r| r.timer_overhead).collect()),
        lookups,
        rounds: rounds.len(),
        share_deeper_than_24: deeper as f64 / lookups.max(1) as f64,
        checksum: rounds.iter().fold(0, |c, r| c.wrapping_add(r.checksum)),
        depths: rows,
    }
}

/// Result of [`bench()`].
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// The table.
    pub table: TableInfo,
    /// The traffic pattern.
    pub traffic: String,
    /// Pre-generated addresses (0 = on the fly).
    pub pregen: u64,
    /// Lookups per run.
    pub lookups: u64,
    /// Lookup threads.
    pub threads: usize,
    /// Addresses per batch.
    pub batch: usize,
    /// Rounds (each times every algorithm once, round-robin).
    pub runs: usize,
    /// Slices per round (each times every algorithm once, in a rotating order).
    pub slices: usize,
    /// TSC ticks per second on this machine (`None` without a TSC).
    pub tsc_hz: Option<f64>,
    /// Bytes of the structures' allocations advised as huge pages (0 without
    /// [`BenchConfig::huge_pages`], or when the program's allocator is not
    /// [`pktlab::thp::ThpAllocator`]).
    pub huge_page_bytes: u64,
    /// What `auto` Poptries run for batches of at least
    /// [`pktlab::lpm::poptrie::SIMD_MIN_BATCH`] addresses on this CPU, as timed when the first
    /// large table of the family was built (`None` without AVX-512, or when no `auto` Poptrie
    /// of at least [`pktlab::lpm::poptrie::MIN_ROUTES`] routes was built).
    pub poptrie_auto_batch: Option<pktlab::lpm::poptrie::Calibration>,
    /// One entry per algorithm, in the order asked.
    pub results: Vec<AlgoBench>,
}

/// Lookup-rate benchmark (paper 004 §5): builds every algorithm of `cfg.table`, times
/// `cfg.runs` runs of `cfg.lookups` lookups of `cfg.traffic` on `cfg.threads` threads
/// (median reported), with memory, node counts and build time; with `cfg.updates`, also the
/// update rate through the concurrent wrapper while one reader keeps looking up.
pub fn bench(cfg: &BenchConfig, p: &dyn Progress) -> Result<BenchResult> {
    cfg.validate()?;
    match family(&cfg.table)? {
        "v4" => bench_family::<u32>(cfg, p),
        _ => bench_family::<u128>(cfg, p),
    }
}

fn bench_family<A: Address>(cfg: &BenchConfig, p: &dyn Progress) -> Result<BenchResult> {
    let algos = algos(&cfg.table)?;
    let table = load::<A>(&cfg.table, p)?;
    let mut traffic = parse_traffic::<A>(&cfg.traffic, &table.routes, p)?;
    if cfg.pregen > 0 {
        let mut buf = Vec::with_capacity(cfg.pregen as usize);
        let mut rng = Xor128::new(stream(cfg.table.seed, 0));
        let mut st = LookupGen::new(&traffic, &mut rng);
        let mut chunk = [A::ZERO; 4096];
        while (buf.len() as u64) < cfg.pregen {
            let k = chunk.len().min(cfg.pregen as usize - buf.len());
            st.fill(&traffic, &mut rng, &mut chunk[..k]);
            buf.extend_from_slice(&chunk[..k]);
        }
        traffic = Traffic::Trace(Arc::new(buf));
    }
    let updates = match &cfg.updates {
        Some(path) => Some(load_updates::<A>(path, &cfg.table, p)?),
        None => None,
    };
    // Build every structure first, then time them round-robin: round r runs each structure
    // once, so a phase of host noise between rounds hits every structure of a round alike.
    let advised0 = pktlab::thp::advised_bytes();
    let build = |algo: Algo, routes: &[(Prefix<A>, NextHop)]| {
        if cfg.huge_pages {
            pktlab::thp::huge_pages(|| build(algo, routes))
        } else {
            build(algo, routes)
        }
    };
    let mut built = Vec::with_capacity(algos.len());
    let mut build_times = Vec::with_capacity(algos.len());
    for algo in algos {
        p.note(&format!("{algo}: building"));
        let c0 = oncpu_ns();
        let (t, build_s) = build(algo, &table.routes);
        built.push((algo, t));
        build_times.push((build_s, oncpu_since(c0)));
    }
    let rebuild = |algo: Algo| build(algo, &table.routes).0;
    let timed = time_rounds(&mut built, &traffic, cfg, &rebuild, p)?;
    let tsc_hz = by_depth::tsc_hz(std::time::Duration::from_millis(50));
    let algo_list: Vec<Algo> = built.iter().map(|b| b.0).collect();
    let mut results = Vec::new();
    for (((algo, t), (build_s, build_oncpu_s)), tm) in built.into_iter().zip(build_times).zip(timed)
    {
        let stats = t.stats();
        let mut r = AlgoBench {
            algo: algo.to_string(),
            mlps: f64::NAN,
            ns_per_lookup: f64::NAN,
            memory_bytes: t.memory_bytes(),
            internal_nodes: stats.internal_nodes,
            leaves: stats.leaves,
            build_s,
            build_routes_per_s: table.routes.len() as f64 / build_s,
            runs_mlps: tm.mlps,
            build_oncpu_s,
            mlps_oncpu: f64::NAN,
            runs_oncpu_mlps: tm.oncpu,
            runs_per_thread_mlps: tm.thread_wall,
            runs_per_thread_oncpu_mlps: tm.thread_oncpu,
            tsc_per_lookup: None,
            runs_one_thread_mlps: tm.one_wall,
            runs_one_thread_oncpu_mlps: tm.one_oncpu,
            checksum: tm.checksum,
            updates: None,
            by_depth: None,
        };
        r.set_medians(cfg.threads, tsc_hz);
        drop(t);
        if let Some((ups, _)) = &updates {
            r.updates = Some(bench_updates::<A>(algo, &table.routes, ups, cfg, p));
        }
        results.push(r);
    }
    if cfg.by_depth {
        let reps = depth_rounds::<A>(&algo_list, &table.routes, &traffic, cfg, p)?;
        for (r, d) in results.iter_mut().zip(reps) {
            r.by_depth = Some(d);
        }
    }
    Ok(BenchResult {
        table: table.info,
        traffic: cfg.traffic.clone(),
        pregen: cfg.pregen,
        lookups: cfg.lookups,
        threads: cfg.threads,
        batch: cfg.batch,
        runs: cfg.runs,
        slices: cfg.slices,
        tsc_hz,
        huge_page_bytes: (pktlab::thp::advised_bytes() - advised0) as u64,
        poptrie_auto_batch: pktlab::lpm::poptrie::auto_batch::<A>(),
        results,
    })
}

/// Applies `ups` through the concurrent wrapper while one reader thread looks up random
/// addresses; reports the update rate and the reader's lookup rate meanwhile.
fn bench_updates<A: Address>(
    algo: Algo,
    routes: &[(Prefix<A>, NextHop)],
    ups: &[Update<A>],
    cfg: &BenchConfig,
    p: &dyn Progress,
) -> UpdateBench {
    fn go<A: Address, T: Lpm<A> + Clone + 'static>(
        t: T,
        ups: &[Update<A>],
        cfg: &BenchConfig,
    ) -> UpdateBench {
        let (mut w, r) = concurrent::<A, T>(t);
        let stop = Arc::new(AtomicBool::new(false));
        let (stop2, batch, seed) = (stop.clone(), cfg.batch, cfg.table.seed);
        let reader = std::thread::spawn(move || {
            let mut rng = Xor128::new(stream(seed, 1));
            let mut addrs = vec![A::ZERO; batch];
            let mut out = vec![None; batch];
            let mut n = 0u64;
            let start = Instant::now();
            while !stop2.load(Ordering::Relaxed) {
                addrs.iter_mut().for_each(|a| *a = random_addr(&mut rng));
                if !r.lookup_batch(&addrs, &mut out) {
                    break;
                }
                n += batch as u64;
            }
            (n, start.elapsed().as_secs_f64())
        });
        let start = Instant::now();
        let every = cfg.publish_every.max(1);
        for (i, u) in ups.iter().enumerate() {
            w.apply(to_op(u));
            if (i + 1) % every == 0 {
                w.publish();
            }
        }
        w.publish();
        let secs = start.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        let (n, rs) = reader.join().unwrap_or((0, 1.0));
        UpdateBench {
            events: ups.len(),
            apply_s: secs,
            events_per_s: ups.len() as f64 / secs,
            publish_every: every,
            reader_lookups: n,
            reader_mlps: n as f64 / rs / 1e6,
        }
    }
    p.note(&format!(
        "{algo}: applying {} updates with a concurrent reader",
        ups.len()
    ));
    /// Builds the concrete table and runs `go` on it.
    struct Build<'a, A: Address> {
        routes: &'a [(Prefix<A>, NextHop)],
        ups: &'a [Update<A>],
        cfg: &'a BenchConfig,
    }
    impl<A: Address> Visit<A> for Build<'_, A> {
        type Out = UpdateBench;
        fn visit<T: Lpm<A> + Clone + 'static>(self, mut t: T) -> UpdateBench {
            t.build(self.routes);
            go(t, self.ups, self.cfg)
        }
    }
    algo.visit(Build { routes, ups, cfg })
}
