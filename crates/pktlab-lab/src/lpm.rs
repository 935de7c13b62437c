//! LPM experiments (paper 004, Poptrie): the lookup-rate benchmark with its traffic
//! generators ([`bench`]), including updates applied under a concurrent reader, and the
//! verification of every algorithm against the radix-trie oracle ([`verify`]).
//!
//! Traffic generation follows the paper's harness: uniform random addresses from Marsaglia's
//! xor128 with his published seed, generated on the fly inside the timed loop.

use super::{check, median, Error, Progress, Result};
use pktlab::io::nexthop::NextHopScheme;
use pktlab::io::routes::{read_table, read_updates, Update};
use pktlab::io::synth::{synthetic_table, DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab::lpm::shared::{concurrent, Op};
use pktlab::lpm::{by_depth, Algo, Lpm, Radix, Visit};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::traffic::ZipfTable;
use pktlab::util::{splitmix64, Xor128};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Where the routes come from and which algorithms to build.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct TableSpec {
    /// Routing table: text (`prefix/len [nexthop]`), pyasn or MRT TABLE_DUMP_V2 file,
    /// optionally gzip/bzip2-compressed; `synthetic` = the embedded seeded generator.
    pub table: String,
    /// `v4`, `v6` or `auto` (v4 unless the file holds IPv6 prefixes).
    pub family: String,
    /// Next-hop scheme: `file`, `asn:N` or `hash:N` (see DESIGN.md).
    pub nexthops: String,
    /// Seed of the synthetic table and of the traffic.
    pub seed: u64,
    /// Routes of the synthetic table (default 1M for v4, 250K for v6).
    pub synthetic_routes: Option<u64>,
    /// Algorithm names (see [`Algo`]).
    pub algos: Vec<String>,
}

impl TableSpec {
    /// Refuses impossible values (one-line error naming the flag and the accepted range):
    /// a synthetic table of no route, no algorithm.
    pub fn validate(&self) -> Result<()> {
        if let Some(n) = self.synthetic_routes {
            check::int_range("--synthetic-routes", n, 1, 1 << 26)?;
        }
        check::require(!self.algos.is_empty(), "--algo", || {
            "needs at least one algorithm".into()
        })?;
        Ok(())
    }
}

impl Default for TableSpec {
    fn default() -> Self {
        TableSpec {
            table: "synthetic".into(),
            family: "auto".into(),
            nexthops: "hash:16".into(),
            seed: 1,
            synthetic_routes: None,
            algos: ["radix", "poptrie0", "poptrie16", "poptrie18"]
                .map(String::from)
                .to_vec(),
        }
    }
}

/// What describes a loaded table in results.
#[derive(Clone, Debug, Serialize)]
pub struct TableInfo {
    /// Path, or `synthetic(seed=S,routes=N)`.
    pub path: String,
    /// `v4` or `v6`.
    pub family: String,
    /// Routes loaded.
    pub prefixes: usize,
    /// The next-hop scheme.
    pub nexthops: String,
    /// Distinct next hops among the routes.
    pub distinct_nexthops: usize,
    /// Lines or records skipped by the reader (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<u64>,
    /// Set when the file ended mid-record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

/// Configuration of [`bench`].
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
    /// Runs per algorithm (the median is reported).
    pub runs: usize,
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
    /// With `by_depth`: lookups timed (the first N addresses of the traffic, thread 0).
    pub depth_samples: u64,
}

impl BenchConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range),
    /// before any table is loaded.
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--lookups", self.lookups, 1, 1 << 48)?;
        check::int_range("--threads", self.threads as u64, 1, 1024)?;
        check::int_range("--runs", self.runs as u64, 1, 10_000)?;
        check::int_range("--pregen", self.pregen, 0, 1 << 32)?;
        check::int_range("--batch", self.batch as u64, 1, 1 << 16)?;
        check::int_range("--publish-every", self.publish_every as u64, 1, 1 << 32)?;
        if self.by_depth {
            check::int_range("--depth-samples", self.depth_samples, 1, 1 << 32)?;
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
            pregen: 0,
            batch: 256,
            updates: None,
            publish_every: 64,
            by_depth: false,
            depth_samples: 1 << 20,
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
    /// Wrapping sum of the next-hop ids looked up in the last run (0 for no route).
    pub checksum: u64,
    /// The update benchmark, when an update stream was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updates: Option<UpdateBench>,
    /// Single-lookup cost by matched prefix length, with `by_depth`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_depth: Option<DepthReport>,
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
}

/// The `by_depth` part of an [`AlgoBench`] (see [`pktlab::lpm::by_depth`]).
#[derive(Clone, Debug, Serialize)]
pub struct DepthReport {
    /// Always `tsc_ticks`.
    pub unit: String,
    /// Median cost of an empty timing window, subtracted from every sample.
    pub timer_overhead: u64,
    /// Lookups timed.
    pub lookups: u64,
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

fn oncpu_since(c0: Option<u64>) -> f64 {
    oncpu_ns()
        .zip(c0)
        .map_or(f64::NAN, |(b, a)| b.saturating_sub(a) as f64 * 1e-9)
}

/// `by_depth`: builds `algo` as its concrete type and times the first `depth_samples`
/// addresses of the traffic one by one.
fn depth_costs<A: Address>(
    algo: Algo,
    routes: &[(Prefix<A>, NextHop)],
    traffic: &Traffic<A>,
    cfg: &BenchConfig,
) -> Result<DepthReport> {
    struct Run<'a, A: Address> {
        routes: &'a [(Prefix<A>, NextHop)],
        oracle: &'a Radix<A>,
        addrs: &'a [A],
    }
    impl<A: Address> Visit<A> for Run<'_, A> {
        type Out = Option<by_depth::ByDepth>;
        fn visit<T: Lpm<A> + Clone + 'static>(self, mut t: T) -> Self::Out {
            t.build(self.routes);
            by_depth::by_depth(&t, self.oracle, self.addrs)
        }
    }
    let mut oracle = Radix::<A>::new();
    oracle.build(routes);
    let mut rng = Xor128::new(stream(cfg.table.seed, 0));
    let mut st = GenState::new(traffic, &mut rng);
    let mut addrs = vec![A::ZERO; cfg.depth_samples.max(1) as usize];
    st.fill(traffic, &mut rng, &mut addrs);
    let r = algo
        .visit(Run {
            routes,
            oracle: &oracle,
            addrs: &addrs,
        })
        .ok_or_else(|| Error::param("--by-depth needs an x86-64 time-stamp counter"))?;
    let deeper: u64 = r
        .per_depth
        .iter()
        .filter(|d| d.depth.is_some_and(|x| x > 24))
        .map(|d| d.count)
        .sum();
    Ok(DepthReport {
        unit: "tsc_ticks".into(),
        timer_overhead: r.timer_overhead,
        lookups: r.lookups,
        share_deeper_than_24: deeper as f64 / r.lookups.max(1) as f64,
        checksum: r.checksum,
        depths: r
            .per_depth
            .iter()
            .map(|d| DepthRow {
                depth: d.depth,
                count: d.count,
                p5: d.p5,
                p25: d.p25,
                p50: d.p50,
                p75: d.p75,
                p95: d.p95,
            })
            .collect(),
    })
}

/// Result of [`bench`].
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
    /// Runs per algorithm.
    pub runs: usize,
    /// One entry per algorithm, in the order asked.
    pub results: Vec<AlgoBench>,
}

/// Configuration of [`verify`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyConfig {
    /// Table and algorithms.
    pub table: TableSpec,
    /// Random addresses checked besides the boundaries of every prefix.
    pub samples: u64,
    /// Update stream to apply, re-verifying along the way.
    pub updates: Option<PathBuf>,
    /// Re-verify (updated prefixes + 64K random addresses) every this many events.
    pub check_every: u64,
}

impl VerifyConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--samples", self.samples, 0, 1 << 40)?;
        check::int_range("--check-every", self.check_every, 1, 1 << 40).map_err(Error::from)
    }
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            table: TableSpec::default(),
            samples: 1 << 20,
            updates: None,
            check_every: 100 << 10,
        }
    }
}

/// The update part of one algorithm's verification.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyUpdates {
    /// The update file.
    pub path: String,
    /// Events applied.
    pub events: usize,
    /// Lines skipped by the reader.
    pub skipped: u64,
    /// Prefixes after all updates.
    pub final_prefixes: usize,
    /// Seconds for applying and checking.
    pub seconds: f64,
    /// Seconds applying to the algorithm and the oracle.
    pub apply_s_both: f64,
    /// Whether the incrementally updated structure has the node and leaf counts of a fresh
    /// build of the final table.
    pub stats_equal_fresh_build: bool,
}

/// One algorithm's verification.
#[derive(Clone, Debug, Serialize)]
pub struct AlgoVerify {
    /// Algorithm name.
    pub algo: String,
    /// Lookups checked (scalar and batched count once).
    pub checked: u64,
    /// Lookups that disagreed with the oracle.
    pub mismatches: u64,
    /// Up to five mismatches, as text.
    pub examples: Vec<String>,
    /// Build time, seconds.
    pub build_s: f64,
    /// Present when an update stream was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updates: Option<VerifyUpdates>,
}

/// Result of [`verify`].
#[derive(Clone, Debug, Serialize)]
pub struct VerifyResult {
    /// The table.
    pub table: TableInfo,
    /// Random samples asked for.
    pub samples: u64,
    /// Lookups checked, all algorithms.
    pub checked: u64,
    /// Mismatches, all algorithms.
    pub mismatches: u64,
    /// `mismatches == 0`.
    pub ok: bool,
    /// Per algorithm.
    pub algos: Vec<AlgoVerify>,
}

/// `v6` if the file's first data line holds an IPv6 prefix, else `v4`.
fn detect_family(table: &str) -> Result<&'static str> {
    if table == "synthetic" {
        return Ok("v4");
    }
    let rd = pktlab::io::open_maybe_compressed(Path::new(table))?;
    for line in std::io::BufRead::split(rd, b'\n').take(64) {
        let line = line.map_err(|e| Error::output(table, "read error", e))?;
        let s = String::from_utf8_lossy(&line);
        let s = s.trim();
        if s.is_empty() || s.starts_with('#') || s.starts_with(';') {
            continue;
        }
        let word = s.split_whitespace().find(|w| w.contains('/')).unwrap_or(s);
        return Ok(if word.contains(':') { "v6" } else { "v4" });
    }
    // Binary (MRT) or empty: look at the file name.
    Ok(if table.contains("v6") || table.contains("rib6") {
        "v6"
    } else {
        "v4"
    })
}

/// The family `spec` resolves to (`v4` or `v6`).
pub fn family(spec: &TableSpec) -> Result<&'static str> {
    match spec.family.as_str() {
        "v4" | "4" => Ok("v4"),
        "v6" | "6" => Ok("v6"),
        "auto" => detect_family(&spec.table),
        f => Err(Error::param(format!(
            "--family {f:?}: expected v4, v6 or auto"
        ))),
    }
}

/// A loaded table: routes and their description.
pub struct Loaded<A: Address> {
    /// Routes in table order.
    pub routes: Vec<(Prefix<A>, NextHop)>,
    /// Description for results.
    pub info: TableInfo,
}

fn scheme(t: &TableSpec) -> Result<NextHopScheme> {
    t.nexthops
        .parse()
        .map_err(|e| Error::param(format!("--nexthops {:?}: {e}", t.nexthops)))
}

/// Loads (or generates) the table of `t` for family `A`.
pub fn load<A: Address>(t: &TableSpec, p: &dyn Progress) -> Result<Loaded<A>> {
    let scheme = scheme(t)?;
    let started = Instant::now();
    let (routes, path, report) = if t.table == "synthetic" {
        let n = t
            .synthetic_routes
            .map(|n| n as usize)
            .unwrap_or(if A::BITS == 32 {
                DEFAULT_V4_ROUTES
            } else {
                DEFAULT_V6_ROUTES
            });
        let r = synthetic_table::<A>(n, t.seed, &scheme);
        (r, format!("synthetic(seed={},routes={n})", t.seed), None)
    } else {
        let tab = read_table::<A>(Path::new(&t.table), &scheme)?;
        if let Some(s) = tab.report.summary() {
            p.note(&s);
        }
        (tab.routes, t.table.clone(), Some(tab.report))
    };
    if routes.is_empty() {
        return Err(Error::param(format!(
            "--table: {path}: no {} routes (a table needs at least one)",
            A::FAMILY.as_str()
        )));
    }
    let routes: Vec<(Prefix<A>, NextHop)> = routes.iter().map(|r| (r.prefix, r.nexthop)).collect();
    let mut nhs: Vec<u32> = routes.iter().map(|r| r.1.get()).collect();
    nhs.sort_unstable();
    nhs.dedup();
    p.note(&format!(
        "{path}: {} {} routes, {} distinct next hops ({}), read in {:.2} s",
        routes.len(),
        A::FAMILY.as_str(),
        nhs.len(),
        t.nexthops,
        started.elapsed().as_secs_f64()
    ));
    let info = TableInfo {
        path,
        family: A::FAMILY.as_str().into(),
        prefixes: routes.len(),
        nexthops: t.nexthops.clone(),
        distinct_nexthops: nhs.len(),
        skipped: report.as_ref().map(|r| r.skipped),
        truncated: report.and_then(|r| r.truncated),
    };
    Ok(Loaded { routes, info })
}

/// Parses the algorithm names of `t`.
pub fn algos(t: &TableSpec) -> Result<Vec<Algo>> {
    t.algos
        .iter()
        .map(|a| {
            a.trim()
                .parse::<Algo>()
                .map_err(|e| Error::param(format!("--algo: {e}")))
        })
        .collect()
}

/// Builds one algorithm; returns it with the build time in seconds.
fn build<A: Address>(algo: Algo, routes: &[(Prefix<A>, NextHop)]) -> (Box<dyn Lpm<A>>, f64) {
    let mut t = algo.make::<A>();
    let s = Instant::now();
    t.build(routes);
    (t, s.elapsed().as_secs_f64())
}

/// Lookup traffic for the benchmark.
pub enum Traffic<A: Address> {
    /// Uniform random addresses (xor128).
    Random,
    /// Consecutive addresses from a random start.
    Sequential,
    /// Each random address 16 times in a row.
    Repeat,
    /// Addresses of a capture (or pre-generated), cycled.
    Trace(Arc<Vec<A>>),
    /// (network address, host mask) of every table prefix, in table order.
    Prefixes(Arc<Vec<(A, A)>>),
    /// Zipf(α)-popular prefixes (rank r → prefix splitmix64(r) mod len, as
    /// `pktlab::traffic::DestStream`) with random host bits; the table has 64K entries.
    Zipf(Arc<Vec<(A, A)>>, Arc<ZipfTable>),
}

impl<A: Address> Traffic<A> {
    /// Parses a traffic name (`random`, `prefixes`, `sequential`, `repeat`, `zipf:ALPHA`,
    /// `trace:PATH`) for a table.
    pub fn parse(s: &str, routes: &[(Prefix<A>, NextHop)], p: &dyn Progress) -> Result<Self> {
        let nets = || {
            routes
                .iter()
                .map(|(p, _)| (p.addr(), A::mask(p.len() as u32).not()))
                .collect::<Vec<_>>()
        };
        Ok(match s {
            "random" => Traffic::Random,
            "prefixes" => Traffic::Prefixes(Arc::new(nets())),
            "sequential" => Traffic::Sequential,
            "repeat" => Traffic::Repeat,
            _ if s.starts_with("zipf:") => {
                let alpha: f64 = s[5..].parse().map_err(|_| {
                    Error::param(format!("--traffic {s:?}: expected zipf:ALPHA, e.g. zipf:0.8"))
                })?;
                let table = ZipfTable::new(alpha, routes.len().max(1) as u64, 1 << 16)?;
                Traffic::Zipf(Arc::new(nets()), Arc::new(table))
            }
            _ => match s.strip_prefix("trace:") {
                Some(path) => {
                    let (addrs, rep) = pktlab::io::pcap::destinations::<A>(Path::new(path))?;
                    if let Some(s) = rep.summary() {
                        p.note(&s);
                    }
                    if addrs.is_empty() {
                        return Err(Error::param(format!(
                            "{path}: no {} destination addresses",
                            A::FAMILY.as_str()
                        )));
                    }
                    Traffic::Trace(Arc::new(addrs))
                }
                None => return Err(Error::param(format!(
                    "--traffic {s:?}: expected random, prefixes, sequential, repeat, zipf:ALPHA or trace:PATH"
                ))),
            },
        })
    }

    fn clone_ref(&self) -> Self {
        match self {
            Traffic::Random => Traffic::Random,
            Traffic::Sequential => Traffic::Sequential,
            Traffic::Repeat => Traffic::Repeat,
            Traffic::Trace(v) => Traffic::Trace(v.clone()),
            Traffic::Prefixes(v) => Traffic::Prefixes(v.clone()),
            Traffic::Zipf(v, t) => Traffic::Zipf(v.clone(), t.clone()),
        }
    }
}

/// A uniform random address from xor128: one output for IPv4; for IPv6 four outputs, the
/// first the most significant word (the reference harness's convention).
#[inline(always)]
fn random_addr<A: Address>(rng: &mut Xor128) -> A {
    if A::BITS == 32 {
        A::from_random((rng.next() as u64) << 32, 0)
    } else {
        let hi = ((rng.next() as u64) << 32) | rng.next() as u64;
        let lo = ((rng.next() as u64) << 32) | rng.next() as u64;
        A::from_random(hi, lo)
    }
}

/// The xor128 stream of lookup thread `thread` for `--seed seed`: seed 1, thread 0 is
/// Marsaglia's published seed, i.e. the reference harness's address sequence.
fn stream(seed: u64, thread: usize) -> u64 {
    (seed.wrapping_sub(1) << 16) | thread as u64
}

/// Generator state of a traffic pattern (position in a trace, next sequential address).
struct GenState<A: Address> {
    seq: A,
    pos: usize,
}

impl<A: Address> GenState<A> {
    fn new(traffic: &Traffic<A>, rng: &mut Xor128) -> Self {
        // Only sequential traffic draws its start address, so that `random` is exactly the
        // xor128 stream (the reference harness's first 2^24 addresses give the same checksum).
        let seq = match traffic {
            Traffic::Sequential => random_addr(rng),
            _ => A::ZERO,
        };
        GenState { seq, pos: 0 }
    }

    /// Fills `addrs` with the next addresses of `traffic`.
    #[inline(always)]
    fn fill(&mut self, traffic: &Traffic<A>, rng: &mut Xor128, addrs: &mut [A]) {
        match traffic {
            Traffic::Random => addrs.iter_mut().for_each(|a| *a = random_addr(rng)),
            Traffic::Sequential => addrs.iter_mut().for_each(|a| {
                *a = self.seq;
                self.seq = self.seq.wrapping_add(1);
            }),
            Traffic::Repeat => {
                for c in addrs.chunks_mut(16) {
                    let a = random_addr(rng);
                    c.iter_mut().for_each(|x| *x = a);
                }
            }
            Traffic::Prefixes(v) => addrs.iter_mut().for_each(|a| {
                let (net, host) = v[rng.next() as usize % v.len()];
                *a = net.or(random_addr::<A>(rng).and(host));
            }),
            Traffic::Zipf(v, t) => addrs.iter_mut().for_each(|a| {
                let x = ((rng.next() as u64) << 32) | rng.next() as u64;
                let y = ((rng.next() as u64) << 32) | rng.next() as u64;
                let r = t.sample_with(x, y);
                let (net, host) = v[(splitmix64(r) % v.len() as u64) as usize];
                *a = net.or(random_addr::<A>(rng).and(host));
            }),
            Traffic::Trace(v) => addrs.iter_mut().for_each(|a| {
                *a = v[self.pos];
                self.pos = if self.pos + 1 >= v.len() {
                    0
                } else {
                    self.pos + 1
                };
            }),
        }
    }
}

/// Runs `n` lookups of `traffic` through `t` in batches; returns a checksum of the results
/// (the wrapping sum of the next-hop ids, 0 for no route).
fn lookups<A: Address>(
    t: &dyn Lpm<A>,
    traffic: &Traffic<A>,
    n: u64,
    batch: usize,
    seed: u64,
) -> u64 {
    let mut rng = Xor128::new(seed);
    // `batch == 1` times the scalar `lookup`, one call per address; addresses are still
    // generated 256 at a time so that generation costs the same in both modes.
    let scalar = batch == 1;
    let batch = if scalar { 256 } else { batch };
    let mut addrs = vec![A::ZERO; batch];
    let mut out = vec![None; batch];
    let mut sum = 0u64;
    let mut done = 0u64;
    let mut st = GenState::new(traffic, &mut rng);
    // Pre-generated addresses (`pregen`, `trace:`) are looked up in place, cycling through
    // the buffer, so that only lookups are timed (no copy).
    let stored = match traffic {
        Traffic::Trace(v) => Some(v.as_slice()),
        _ => None,
    };
    while done < n {
        let mut k = batch.min((n - done) as usize);
        let a = match stored {
            Some(v) => {
                k = k.min(v.len() - st.pos);
                let a = &v[st.pos..st.pos + k];
                st.pos = if st.pos + k == v.len() { 0 } else { st.pos + k };
                a
            }
            None => {
                st.fill(traffic, &mut rng, &mut addrs[..k]);
                &addrs[..k]
            }
        };
        if scalar {
            for (a, o) in a.iter().zip(&mut out[..k]) {
                *o = t.lookup(*a);
            }
        } else {
            t.lookup_batch(a, &mut out[..k]);
        }
        for o in &out[..k] {
            sum = sum.wrapping_add(NextHop::raw(*o) as u64);
        }
        done += k as u64;
    }
    sum
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
    let mut traffic = Traffic::<A>::parse(&cfg.traffic, &table.routes, p)?;
    if cfg.pregen > 0 {
        let mut buf = Vec::with_capacity(cfg.pregen as usize);
        let mut rng = Xor128::new(stream(cfg.table.seed, 0));
        let mut st = GenState::new(&traffic, &mut rng);
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
    let mut results = Vec::new();
    for algo in algos {
        let c0 = oncpu_ns();
        let (t, build_s) = build(algo, &table.routes);
        let build_oncpu_s = oncpu_since(c0);
        let stats = t.stats();
        let mut mlps = Vec::new();
        let (mut thread_mlps, mut oncpu_mlps, mut thread_oncpu) =
            (Vec::new(), Vec::new(), Vec::new());
        let mut checksum = 0;
        p.start(&format!("{algo} lookups"), Some(cfg.runs as u64));
        for run in 0..cfg.runs {
            let per = cfg.lookups / cfg.threads as u64;
            let start = Instant::now();
            // Each thread times its own share: (checksum, wall seconds, on-CPU seconds).
            let per_thread: Vec<(u64, f64, f64)> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..cfg.threads)
                    .map(|i| {
                        let t = &*t;
                        let tr = traffic.clone_ref();
                        let seed = stream(cfg.table.seed, i);
                        let batch = cfg.batch;
                        s.spawn(move || {
                            let (st, c0) = (Instant::now(), oncpu_ns());
                            let sum = lookups(t, &tr, per, batch, seed);
                            (sum, st.elapsed().as_secs_f64(), oncpu_since(c0))
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().unwrap_or((0, f64::INFINITY, f64::NAN)))
                    .collect()
            });
            let secs = start.elapsed().as_secs_f64();
            mlps.push((per * cfg.threads as u64) as f64 / secs / 1e6);
            checksum = per_thread.iter().fold(0u64, |a, b| a.wrapping_add(b.0));
            thread_mlps.push(
                per_thread
                    .iter()
                    .map(|&(_, s, _)| per as f64 / s / 1e6)
                    .collect::<Vec<f64>>(),
            );
            let oncpu: Vec<f64> = per_thread
                .iter()
                .map(|&(_, _, c)| per as f64 / c / 1e6)
                .collect();
            oncpu_mlps.push(oncpu.iter().sum::<f64>());
            thread_oncpu.push(oncpu);
            p.note(&format!("{algo} run {}: {:.2} Mlps", run + 1, mlps[run]));
            p.set(run as u64 + 1);
        }
        p.finish();
        let runs_mlps = mlps.clone();
        let m = median(&mut mlps);
        let mut r = AlgoBench {
            algo: algo.to_string(),
            mlps: m,
            ns_per_lookup: 1e3 / m * cfg.threads as f64,
            memory_bytes: t.memory_bytes(),
            internal_nodes: stats.internal_nodes,
            leaves: stats.leaves,
            build_s,
            build_routes_per_s: table.routes.len() as f64 / build_s,
            runs_mlps,
            build_oncpu_s,
            mlps_oncpu: median(&mut oncpu_mlps.clone()),
            runs_oncpu_mlps: oncpu_mlps,
            runs_per_thread_mlps: thread_mlps,
            runs_per_thread_oncpu_mlps: thread_oncpu,
            checksum,
            updates: None,
            by_depth: None,
        };
        drop(t);
        if let Some((ups, _)) = &updates {
            r.updates = Some(bench_updates::<A>(algo, &table.routes, ups, cfg, p));
        }
        if cfg.by_depth {
            p.note(&format!(
                "{algo}: timing {} single lookups by depth",
                cfg.depth_samples
            ));
            r.by_depth = Some(depth_costs::<A>(algo, &table.routes, &traffic, cfg)?);
        }
        results.push(r);
    }
    Ok(BenchResult {
        table: table.info,
        traffic: cfg.traffic.clone(),
        pregen: cfg.pregen,
        lookups: cfg.lookups,
        threads: cfg.threads,
        batch: cfg.batch,
        runs: cfg.runs,
        results,
    })
}

/// Reads an update stream; returns the events and the number of skipped lines.
fn load_updates<A: Address>(
    path: &Path,
    t: &TableSpec,
    p: &dyn Progress,
) -> Result<(Vec<Update<A>>, u64)> {
    let (ups, report) = read_updates::<A>(path, &scheme(t)?)?;
    if let Some(s) = report.summary() {
        p.note(&s);
    }
    p.note(&format!("{}: {} update events", path.display(), ups.len()));
    Ok((ups, report.skipped))
}

fn to_op<A: Address>(u: &Update<A>) -> Op<A> {
    match *u {
        Update::Announce(p, nh) => Op::Insert(p, nh),
        Update::Withdraw(p) => Op::Remove(p),
    }
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

/// Addresses to check for a set of prefixes: first, last and their neighbours.
fn boundary_addrs<A: Address>(prefixes: impl Iterator<Item = Prefix<A>>, out: &mut Vec<A>) {
    for p in prefixes {
        for a in [p.first(), p.last()] {
            out.push(a);
            out.push(a.wrapping_add(1));
            out.push(a.wrapping_sub(1));
        }
    }
}

/// Per-algorithm verification tally.
struct Tally {
    checked: u64,
    mismatches: u64,
    examples: Vec<String>,
}

/// Compares `t` with the oracle answers `want` on `addrs` (both scalar and batched lookups).
fn check<A: Address>(t: &dyn Lpm<A>, addrs: &[A], want: &[Option<NextHop>], tally: &mut Tally) {
    let mut got = vec![None; addrs.len()];
    t.lookup_batch(addrs, &mut got);
    for ((a, w), g) in addrs.iter().zip(want).zip(&got) {
        let s = t.lookup(*a);
        tally.checked += 1;
        if s != *w || g != w {
            tally.mismatches += 1;
            if tally.examples.len() < 5 {
                tally.examples.push(format!(
                    "{}: want {} got {} (batch {})",
                    a.to_std(),
                    NextHop::raw(*w),
                    NextHop::raw(s),
                    NextHop::raw(*g)
                ));
            }
        }
    }
}

fn oracle_answers<A: Address>(o: &Radix<A>, addrs: &[A]) -> Vec<Option<NextHop>> {
    addrs.iter().map(|a| o.lookup(*a)).collect()
}

/// Checks every algorithm of `cfg.table` against the radix-trie oracle, scalar and batched,
/// on `cfg.samples` random addresses plus the first/last address of every prefix and their
/// neighbours; with `cfg.updates`, applies the stream to both and re-checks every
/// `cfg.check_every` events, then fully, and compares with a fresh build of the final table.
pub fn verify(cfg: &VerifyConfig, p: &dyn Progress) -> Result<VerifyResult> {
    cfg.validate()?;
    match family(&cfg.table)? {
        "v4" => verify_family::<u32>(cfg, p),
        _ => verify_family::<u128>(cfg, p),
    }
}

fn verify_family<A: Address>(cfg: &VerifyConfig, p: &dyn Progress) -> Result<VerifyResult> {
    let algos = algos(&cfg.table)?;
    let table = load::<A>(&cfg.table, p)?;
    let updates = match &cfg.updates {
        Some(path) => Some((path, load_updates::<A>(path, &cfg.table, p)?)),
        None => None,
    };
    let mut oracle = Radix::<A>::new();
    oracle.build(&table.routes);
    let mut rng = Xor128::new(stream(cfg.table.seed, 0xFFFF));
    let mut addrs: Vec<A> = (0..cfg.samples).map(|_| random_addr(&mut rng)).collect();
    boundary_addrs(table.routes.iter().map(|r| r.0), &mut addrs);
    let want = oracle_answers(&oracle, &addrs);
    let mut per_algo = Vec::new();
    let (mut checked, mut mismatches) = (0u64, 0u64);
    for algo in algos {
        p.start(&format!("verify {algo}"), None);
        let (mut t, build_s) = build(algo, &table.routes);
        let mut tally = Tally {
            checked: 0,
            mismatches: 0,
            examples: Vec::new(),
        };
        check(&*t, &addrs, &want, &mut tally);
        let mut upd = None;
        if let Some((path, (ups, skipped))) = &updates {
            let mut o = oracle.clone();
            let every = cfg.check_every.max(1) as usize;
            let start = Instant::now();
            let mut apply_s = 0.0;
            for chunk in ups.chunks(every) {
                let s = Instant::now();
                for u in chunk {
                    match *u {
                        Update::Announce(p, nh) => {
                            t.insert(p, nh);
                            o.insert(p, nh);
                        }
                        Update::Withdraw(p) => {
                            t.remove(p);
                            o.remove(p);
                        }
                    }
                }
                apply_s += s.elapsed().as_secs_f64();
                let mut a: Vec<A> = (0..65536).map(|_| random_addr(&mut rng)).collect();
                boundary_addrs(
                    chunk.iter().map(|u| match u {
                        Update::Announce(p, _) | Update::Withdraw(p) => *p,
                    }),
                    &mut a,
                );
                let w = oracle_answers(&o, &a);
                check(&*t, &a, &w, &mut tally);
            }
            // Final full check on the updated table.
            let mut a: Vec<A> = (0..cfg.samples).map(|_| random_addr(&mut rng)).collect();
            boundary_addrs(o.routes().into_iter().map(|r| r.0), &mut a);
            let w = oracle_answers(&o, &a);
            check(&*t, &a, &w, &mut tally);
            let mut fresh = algo.make::<A>();
            fresh.build(&o.routes());
            upd = Some(VerifyUpdates {
                path: path.display().to_string(),
                events: ups.len(),
                skipped: *skipped,
                final_prefixes: o.len(),
                seconds: start.elapsed().as_secs_f64(),
                apply_s_both: apply_s,
                stats_equal_fresh_build: fresh.stats() == t.stats(),
            });
        }
        p.finish();
        p.note(&format!(
            "{algo}: {} checked, {} mismatches{}",
            tally.checked,
            tally.mismatches,
            tally
                .examples
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default()
        ));
        checked += tally.checked;
        mismatches += tally.mismatches;
        per_algo.push(AlgoVerify {
            algo: algo.to_string(),
            checked: tally.checked,
            mismatches: tally.mismatches,
            examples: tally.examples,
            build_s,
            updates: upd,
        });
    }
    Ok(VerifyResult {
        table: table.info,
        samples: cfg.samples,
        checked,
        mismatches,
        ok: mismatches == 0,
        algos: per_algo,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;

    fn spec(routes: u64) -> TableSpec {
        TableSpec {
            synthetic_routes: Some(routes),
            algos: vec!["radix".into(), "poptrie16".into()],
            ..TableSpec::default()
        }
    }

    #[test]
    fn bench_checksums_agree_between_algorithms() {
        for traffic in ["random", "prefixes", "repeat", "zipf:0.9"] {
            let cfg = BenchConfig {
                table: spec(5000),
                traffic: traffic.into(),
                lookups: 20_000,
                runs: 1,
                pregen: if traffic == "repeat" { 3000 } else { 0 },
                ..BenchConfig::default()
            };
            let r = bench(&cfg, &Silent).unwrap();
            assert_eq!(r.results.len(), 2);
            assert_eq!(r.table.prefixes, 5000);
            // Same traffic, same table: both structures must return the same next hops.
            assert_eq!(r.results[0].checksum, r.results[1].checksum, "{traffic}");
            assert!(r.results[0].checksum > 0, "{traffic}: every lookup missed");
            assert!(r.results.iter().all(|a| a.mlps > 0.0 && a.memory_bytes > 0));
        }
    }

    #[test]
    fn bench_rejects_bad_parameters() {
        let mut cfg = BenchConfig {
            table: spec(100),
            ..BenchConfig::default()
        };
        cfg.runs = 0;
        assert!(bench(&cfg, &Silent)
            .unwrap_err()
            .to_string()
            .contains("--runs"));
        cfg.runs = 1;
        cfg.traffic = "nope".into();
        assert!(bench(&cfg, &Silent)
            .unwrap_err()
            .to_string()
            .starts_with("--traffic"));
    }

    #[test]
    fn verify_finds_no_mismatch_on_v4_and_v6() {
        for fam in ["v4", "v6"] {
            let cfg = VerifyConfig {
                table: TableSpec {
                    family: fam.into(),
                    ..spec(3000)
                },
                samples: 5000,
                ..VerifyConfig::default()
            };
            let r = verify(&cfg, &Silent).unwrap();
            assert!(
                r.ok && r.mismatches == 0,
                "{fam}: {:?}",
                r.algos[1].examples
            );
            // 5000 random + 6 boundary addresses per prefix, for each of 2 algorithms.
            assert_eq!(r.checked, 2 * (5000 + 6 * 3000));
            assert_eq!(r.table.family, fam);
        }
    }

    #[test]
    fn verify_with_updates_reaches_the_fresh_build() {
        let dir = std::env::temp_dir().join(format!("pktlab-lab-lpm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ups.txt");
        std::fs::write(
            &path,
            "A 10.0.0.0/8\nA 10.1.0.0/16\nW 10.0.0.0/8\nbad line\n",
        )
        .unwrap();
        let cfg = VerifyConfig {
            table: spec(500),
            samples: 1000,
            updates: Some(path),
            check_every: 2,
        };
        let r = verify(&cfg, &Silent).unwrap();
        assert!(r.ok);
        let u = r.algos[1].updates.as_ref().unwrap();
        assert_eq!((u.events, u.skipped), (3, 1));
        assert!(u.stats_equal_fresh_build);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
