//! `pktlab lpm bench` and `pktlab lpm verify`.

use crate::size::parse_size;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use pktlab::io::nexthop::NextHopScheme;
use pktlab::io::routes::{read_table, read_updates, Update};
use pktlab::io::synth::{synthetic_table, DEFAULT_V4_ROUTES, DEFAULT_V6_ROUTES};
use pktlab::lpm::shared::{concurrent, Op};
use pktlab::lpm::{Algo, Lpm, Radix, Visit};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::traffic::ZipfTable;
use pktlab::util::{splitmix64, Xor128};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// `pktlab lpm …`
#[derive(Subcommand)]
pub enum LpmCmd {
    /// Measure lookup rate, memory and build time of LPM algorithms on a table.
    Bench(BenchArgs),
    /// Check every algorithm against the radix-trie oracle (exit 0 only if all agree).
    Verify(VerifyArgs),
}

/// Where the routes come from.
#[derive(Args, Clone)]
pub struct TableArgs {
    /// Routing table: `prefix/len [nexthop]` text, pyasn (`prefix<TAB>asn`) or MRT
    /// TABLE_DUMP_V2, each optionally gzip/bzip2-compressed (detected from content);
    /// `synthetic` = the embedded seeded full-table generator.
    #[arg(long, default_value = "synthetic")]
    table: String,
    /// Address family: v4, v6, or auto (v4 unless the file holds only IPv6 prefixes).
    #[arg(long, default_value = "auto")]
    family: String,
    /// Next-hop assignment: `file`, `asn:N` (1 + origin AS mod N) or `hash:N`
    /// (1 + splitmix64(addr ^ len<<56) mod N).
    #[arg(long, default_value = "hash:16")]
    nexthops: String,
    /// Seed of the synthetic table and of the traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Routes in the synthetic table (default 1M for v4, 250K for v6).
    #[arg(long, value_parser = parse_size)]
    synthetic_routes: Option<u64>,
    /// Algorithms: radix, poptrie0, poptrie16, poptrie18, poptrie18-basic, poptrie18-leafvec,
    /// or any poptrie<S>[-basic|-leafvec] with S ≤ 24.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "radix,poptrie0,poptrie16,poptrie18"
    )]
    algo: Vec<String>,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

/// `pktlab lpm bench`
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Traffic: random (uniform addresses from Marsaglia's xor128 with his published seed,
    /// generated on the fly, as in the paper's harness), prefixes (a table prefix chosen
    /// uniformly, index = xor128 % routes, with random host bits: exercises long prefixes,
    /// the meaningful IPv6 workload), sequential (consecutive addresses from a random start), repeat (each random
    /// address 16 times in a row), zipf:ALPHA (a Zipf(ALPHA)-popular table prefix
    /// from a 64K-entry pktlab::traffic table, with random host bits), trace:PATH (destination
    /// addresses of a pcap/pcapng, cycled).
    #[arg(long, default_value = "random")]
    traffic: String,
    /// Lookups per run (all threads together).
    #[arg(long, default_value = "2^26", value_parser = parse_size)]
    lookups: u64,
    /// Lookup threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Runs per algorithm; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Generate this many addresses of the traffic before timing and cycle through them,
    /// so that only lookups are timed (0 = generate on the fly, as the paper's harness).
    #[arg(long, default_value = "0", value_parser = parse_size)]
    pregen: u64,
    /// Addresses per `lookup_batch` call.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Also apply this update stream (`A prefix` / `W prefix`) while a reader thread keeps
    /// looking up, and report the update rate.
    #[arg(long)]
    updates: Option<PathBuf>,
    /// With --updates: publish to readers after this many updates.
    #[arg(long, default_value_t = 64)]
    publish_every: usize,
}

/// `pktlab lpm verify`
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Random addresses checked (besides the first/last address of every prefix and their
    /// neighbours).
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    samples: u64,
    /// Apply this update stream and re-verify along the way.
    #[arg(long)]
    updates: Option<PathBuf>,
    /// With --updates: re-verify (updated prefixes + 64K random addresses) every N events.
    #[arg(long, default_value = "100K", value_parser = parse_size)]
    check_every: u64,
}

/// Runs an `lpm` subcommand; returns the process exit code.
pub fn run(cmd: LpmCmd) -> Result<i32> {
    let t = match &cmd {
        LpmCmd::Bench(b) => &b.t,
        LpmCmd::Verify(v) => &v.t,
    };
    let family = match t.family.as_str() {
        "v4" | "4" => "v4",
        "v6" | "6" => "v6",
        "auto" => detect_family(&t.table)?,
        f => bail!("--family {f:?}: expected v4, v6 or auto"),
    };
    match (cmd, family) {
        (LpmCmd::Bench(b), "v4") => bench::<u32>(&b),
        (LpmCmd::Bench(b), _) => bench::<u128>(&b),
        (LpmCmd::Verify(v), "v4") => verify::<u32>(&v),
        (LpmCmd::Verify(v), _) => verify::<u128>(&v),
    }
}

/// `v6` if the file's first data line holds an IPv6 prefix, else `v4`.
fn detect_family(table: &str) -> Result<&'static str> {
    if table == "synthetic" {
        return Ok("v4");
    }
    let rd = pktlab::io::open_maybe_compressed(Path::new(table))?;
    let mut first_bytes = Vec::new();
    for line in std::io::BufRead::split(rd, b'\n').take(64) {
        let line = line.with_context(|| format!("{table}: read error"))?;
        first_bytes.extend_from_slice(&line);
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

/// The loaded table plus what describes it in reports.
struct Loaded<A: Address> {
    routes: Vec<(Prefix<A>, NextHop)>,
    info: Value,
}

fn load<A: Address>(t: &TableArgs) -> Result<Loaded<A>> {
    let scheme: NextHopScheme = t
        .nexthops
        .parse()
        .map_err(|e| anyhow!("--nexthops {:?}: {e}", t.nexthops))?;
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
            eprintln!("pktlab: {s}");
        }
        (tab.routes, t.table.clone(), Some(tab.report))
    };
    if routes.is_empty() {
        bail!("{path}: no {} routes", A::FAMILY.as_str());
    }
    let routes: Vec<(Prefix<A>, NextHop)> = routes.iter().map(|r| (r.prefix, r.nexthop)).collect();
    let mut nhs: Vec<u32> = routes.iter().map(|r| r.1.get()).collect();
    nhs.sort_unstable();
    nhs.dedup();
    eprintln!(
        "pktlab: {path}: {} {} routes, {} distinct next hops ({}), read in {:.2} s",
        routes.len(),
        A::FAMILY.as_str(),
        nhs.len(),
        t.nexthops,
        started.elapsed().as_secs_f64()
    );
    let mut info = json!({
        "path": path,
        "family": A::FAMILY.as_str(),
        "prefixes": routes.len(),
        "nexthops": t.nexthops,
        "distinct_nexthops": nhs.len(),
    });
    if let Some(r) = report {
        info["skipped"] = json!(r.skipped);
        if let Some(tr) = r.truncated {
            info["truncated"] = json!(tr);
        }
    }
    Ok(Loaded { routes, info })
}

fn algos(t: &TableArgs) -> Result<Vec<Algo>> {
    t.algo
        .iter()
        .map(|a| a.trim().parse::<Algo>().map_err(|e| anyhow!("--algo: {e}")))
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
enum Traffic<A: Address> {
    Random,
    Sequential,
    Repeat,
    Trace(Arc<Vec<A>>),
    /// (network address, host mask) of every table prefix, in table order.
    Prefixes(Arc<Vec<(A, A)>>),
    /// Zipf(α)-popular prefixes (rank r → prefix splitmix64(r) mod len, as
    /// `pktlab::traffic::DestStream`) with random host bits; the table has 64K entries.
    Zipf(Arc<Vec<(A, A)>>, Arc<ZipfTable>),
}

impl<A: Address> Traffic<A> {
    fn parse(s: &str, routes: &[(Prefix<A>, NextHop)]) -> Result<Self> {
        Ok(match s {
            "random" => Traffic::Random,
            "prefixes" => Traffic::Prefixes(Arc::new(
                routes
                    .iter()
                    .map(|(p, _)| (p.addr(), A::mask(p.len() as u32).not()))
                    .collect(),
            )),
            "sequential" => Traffic::Sequential,
            "repeat" => Traffic::Repeat,
            _ if s.starts_with("zipf:") => {
                let alpha: f64 = s[5..]
                    .parse()
                    .map_err(|_| anyhow!("--traffic {s:?}: expected zipf:ALPHA, e.g. zipf:0.8"))?;
                let table = ZipfTable::new(alpha, routes.len().max(1) as u64, 1 << 16)?;
                let ps = routes
                    .iter()
                    .map(|(p, _)| (p.addr(), A::mask(p.len() as u32).not()))
                    .collect();
                Traffic::Zipf(Arc::new(ps), Arc::new(table))
            }
            _ => match s.strip_prefix("trace:") {
                Some(p) => {
                    let (addrs, rep) = pktlab::io::pcap::destinations::<A>(Path::new(p))?;
                    if let Some(s) = rep.summary() {
                        eprintln!("pktlab: {s}");
                    }
                    if addrs.is_empty() {
                        bail!("{p}: no {} destination addresses", A::FAMILY.as_str());
                    }
                    Traffic::Trace(Arc::new(addrs))
                }
                None => bail!(
                    "--traffic {s:?}: expected random, prefixes, sequential, repeat, zipf:ALPHA or trace:PATH"
                ),
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
    let mut addrs = vec![A::ZERO; batch];
    let mut out = vec![None; batch];
    let mut sum = 0u64;
    let mut done = 0u64;
    let mut st = GenState::new(traffic, &mut rng);
    while done < n {
        let k = batch.min((n - done) as usize);
        st.fill(traffic, &mut rng, &mut addrs[..k]);
        t.lookup_batch(&addrs[..k], &mut out[..k]);
        for o in &out[..k] {
            sum = sum.wrapping_add(NextHop::raw(*o) as u64);
        }
        done += k as u64;
    }
    sum
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn bench<A: Address>(args: &BenchArgs) -> Result<i32> {
    if args.threads == 0 || args.runs == 0 || args.batch == 0 || args.lookups == 0 {
        bail!("--threads, --runs, --batch and --lookups must be at least 1");
    }
    let algos = algos(&args.t)?;
    let table = load::<A>(&args.t)?;
    let mut traffic = Traffic::<A>::parse(&args.traffic, &table.routes)?;
    if args.pregen > 0 {
        let mut buf = Vec::with_capacity(args.pregen as usize);
        let mut rng = Xor128::new(stream(args.t.seed, 0));
        let mut st = GenState::new(&traffic, &mut rng);
        let mut chunk = [A::ZERO; 4096];
        while (buf.len() as u64) < args.pregen {
            let k = chunk.len().min(args.pregen as usize - buf.len());
            st.fill(&traffic, &mut rng, &mut chunk[..k]);
            buf.extend_from_slice(&chunk[..k]);
        }
        traffic = Traffic::Trace(Arc::new(buf));
    }
    let updates = match &args.updates {
        Some(p) => Some(load_updates::<A>(p, &args.t)?),
        None => None,
    };
    let mut results = Vec::new();
    for algo in algos {
        let (t, build_s) = build(algo, &table.routes);
        let stats = t.stats();
        let mut mlps = Vec::new();
        let mut checksum = 0;
        for run in 0..args.runs {
            let per = args.lookups / args.threads as u64;
            let start = Instant::now();
            let sums: Vec<u64> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..args.threads)
                    .map(|i| {
                        let t = &*t;
                        let tr = traffic.clone_ref();
                        let seed = stream(args.t.seed, i);
                        s.spawn(move || lookups(t, &tr, per, args.batch, seed))
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap_or(0)).collect()
            });
            let secs = start.elapsed().as_secs_f64();
            mlps.push((per * args.threads as u64) as f64 / secs / 1e6);
            checksum = sums.iter().fold(0u64, |a, b| a.wrapping_add(*b));
            eprintln!("pktlab: {algo} run {}: {:.2} Mlps", run + 1, mlps[run]);
        }
        let runs = mlps.clone();
        let m = median(&mut mlps);
        let mut r = json!({
            "algo": algo.to_string(),
            "mlps": m,
            "ns_per_lookup": 1e3 / m * args.threads as f64,
            "memory_bytes": t.memory_bytes(),
            "internal_nodes": stats.internal_nodes,
            "leaves": stats.leaves,
            "build_s": build_s,
            "build_routes_per_s": table.routes.len() as f64 / build_s,
            "runs_mlps": runs,
            "checksum": checksum,
        });
        drop(t);
        if let Some((ups, _)) = &updates {
            r["updates"] = bench_updates::<A>(algo, &table.routes, ups, args)?;
        }
        results.push(r);
    }
    let out = json!({
        "table": table.info,
        "traffic": args.traffic,
        "pregen": args.pregen,
        "lookups": args.lookups,
        "threads": args.threads,
        "batch": args.batch,
        "runs": args.runs,
        "results": results,
    });
    if args.t.json {
        println!("{out}");
    } else {
        print_bench(&out);
    }
    Ok(0)
}

fn print_bench(v: &Value) {
    println!(
        "table {} ({} prefixes, next hops {}), traffic {}, {} lookups x {} runs, {} thread(s)",
        v["table"]["path"].as_str().unwrap_or(""),
        v["table"]["prefixes"],
        v["table"]["nexthops"].as_str().unwrap_or(""),
        v["traffic"].as_str().unwrap_or(""),
        v["lookups"],
        v["runs"],
        v["threads"]
    );
    println!(
        "{:<20} {:>9} {:>8} {:>10} {:>10} {:>11} {:>8}",
        "algo", "Mlps", "ns/look", "MiB", "int.nodes", "leaves", "build s"
    );
    for r in v["results"].as_array().into_iter().flatten() {
        println!(
            "{:<20} {:>9.2} {:>8.2} {:>10.2} {:>10} {:>11} {:>8.3}",
            r["algo"].as_str().unwrap_or(""),
            r["mlps"].as_f64().unwrap_or(0.0),
            r["ns_per_lookup"].as_f64().unwrap_or(0.0),
            r["memory_bytes"].as_f64().unwrap_or(0.0) / 1048576.0,
            r["internal_nodes"],
            r["leaves"],
            r["build_s"].as_f64().unwrap_or(0.0)
        );
        if let Some(u) = r.get("updates") {
            println!(
                "{:<20} updates: {} events in {:.2} s ({:.0}/s), reader {:.1} Mlps meanwhile",
                "",
                u["events"],
                u["apply_s"].as_f64().unwrap_or(0.0),
                u["events_per_s"].as_f64().unwrap_or(0.0),
                u["reader_mlps"].as_f64().unwrap_or(0.0)
            );
        }
    }
}

fn load_updates<A: Address>(path: &Path, t: &TableArgs) -> Result<(Vec<Update<A>>, Value)> {
    let scheme: NextHopScheme = t
        .nexthops
        .parse()
        .map_err(|e| anyhow!("--nexthops {:?}: {e}", t.nexthops))?;
    let (ups, report) = read_updates::<A>(path, &scheme)?;
    if let Some(s) = report.summary() {
        eprintln!("pktlab: {s}");
    }
    eprintln!("pktlab: {}: {} update events", path.display(), ups.len());
    let info =
        json!({"path": path.display().to_string(), "events": ups.len(), "skipped": report.skipped});
    Ok((ups, info))
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
    args: &BenchArgs,
) -> Result<Value> {
    fn go<A: Address, T: Lpm<A> + Clone + 'static>(
        t: T,
        ups: &[Update<A>],
        args: &BenchArgs,
    ) -> Value {
        let (mut w, r) = concurrent::<A, T>(t);
        let stop = Arc::new(AtomicBool::new(false));
        let (stop2, batch, seed) = (stop.clone(), args.batch, args.t.seed);
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
        let every = args.publish_every.max(1);
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
        json!({
            "events": ups.len(),
            "apply_s": secs,
            "events_per_s": ups.len() as f64 / secs,
            "publish_every": every,
            "reader_lookups": n,
            "reader_mlps": n as f64 / rs / 1e6,
        })
    }
    eprintln!(
        "pktlab: {algo}: applying {} updates with a concurrent reader",
        ups.len()
    );
    /// Builds the concrete table and runs `go` on it.
    struct Build<'a, A: Address> {
        routes: &'a [(Prefix<A>, NextHop)],
        ups: &'a [Update<A>],
        args: &'a BenchArgs,
    }
    impl<A: Address> Visit<A> for Build<'_, A> {
        type Out = Value;
        fn visit<T: Lpm<A> + Clone + 'static>(self, mut t: T) -> Value {
            t.build(self.routes);
            go(t, self.ups, self.args)
        }
    }
    Ok(algo.visit(Build { routes, ups, args }))
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

fn verify<A: Address>(args: &VerifyArgs) -> Result<i32> {
    let algos = algos(&args.t)?;
    let table = load::<A>(&args.t)?;
    let updates = match &args.updates {
        Some(p) => Some(load_updates::<A>(p, &args.t)?),
        None => None,
    };
    let mut oracle = Radix::<A>::new();
    oracle.build(&table.routes);
    let mut rng = Xor128::new(stream(args.t.seed, 0xFFFF));
    let mut addrs: Vec<A> = (0..args.samples).map(|_| random_addr(&mut rng)).collect();
    boundary_addrs(table.routes.iter().map(|r| r.0), &mut addrs);
    let want = oracle_answers(&oracle, &addrs);
    let mut per_algo = Vec::new();
    let (mut checked, mut mismatches) = (0u64, 0u64);
    for algo in algos {
        let (mut t, build_s) = build(algo, &table.routes);
        let mut tally = Tally {
            checked: 0,
            mismatches: 0,
            examples: Vec::new(),
        };
        check(&*t, &addrs, &want, &mut tally);
        let mut upd = Value::Null;
        if let Some((ups, info)) = &updates {
            let mut o = oracle.clone();
            let every = args.check_every.max(1) as usize;
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
            let mut a: Vec<A> = (0..args.samples).map(|_| random_addr(&mut rng)).collect();
            boundary_addrs(o.routes().into_iter().map(|r| r.0), &mut a);
            let w = oracle_answers(&o, &a);
            check(&*t, &a, &w, &mut tally);
            let mut fresh = algo.make::<A>();
            fresh.build(&o.routes());
            upd = json!({
                "path": info["path"],
                "events": ups.len(),
                "skipped": info["skipped"],
                "final_prefixes": o.len(),
                "seconds": start.elapsed().as_secs_f64(),
                "apply_s_both": apply_s,
                "stats_equal_fresh_build": fresh.stats() == t.stats(),
            });
        }
        eprintln!(
            "pktlab: {algo}: {} checked, {} mismatches{}",
            tally.checked,
            tally.mismatches,
            tally
                .examples
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default()
        );
        checked += tally.checked;
        mismatches += tally.mismatches;
        let mut r = json!({
            "algo": algo.to_string(),
            "checked": tally.checked,
            "mismatches": tally.mismatches,
            "examples": tally.examples,
            "build_s": build_s,
        });
        if !upd.is_null() {
            r["updates"] = upd;
        }
        per_algo.push(r);
    }
    let out = json!({
        "table": table.info,
        "samples": args.samples,
        "checked": checked,
        "mismatches": mismatches,
        "ok": mismatches == 0,
        "algos": per_algo,
    });
    if args.t.json {
        println!("{out}");
    } else {
        for r in &per_algo {
            println!(
                "{:<20} checked {:>10}  mismatches {:>6}{}",
                r["algo"].as_str().unwrap_or(""),
                r["checked"],
                r["mismatches"],
                r.get("updates")
                    .map(|u| format!("  (after {} updates)", u["events"]))
                    .unwrap_or_default()
            );
        }
        println!(
            "{}: {checked} lookups checked, {mismatches} mismatches",
            if mismatches == 0 { "OK" } else { "FAILED" }
        );
    }
    Ok(if mismatches == 0 { 0 } else { 1 })
}
