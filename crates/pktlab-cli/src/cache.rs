//! `pktlab cache sim|sweep` and `pktlab trace stats|convert`: the packet processing cache study
//! of paper 000 (Hit Priority Cache): Table 2 (miss rate, exchange rate, average delay per
//! policy), fig. 2 (miss rate vs cache size) and fig. 3 (flow-length CDF).

use crate::size::parse_size;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use pktlab::flowcache::source::{next_uses, SourceReport};
use pktlab::flowcache::{
    min_ways, policy_ways, AnySim, DelayModel, SetIndex, SimConfig, TracePacket, TraceSource,
    PAPER_POLICIES, POLICY_NAMES,
};
use pktlab::io::compact::{CompactWriter, PcapExport};
use pktlab::traffic::{LengthHist, SynthConfig};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Instant;

/// `pktlab cache …`
#[derive(Subcommand)]
pub enum CacheCmd {
    /// Simulate cache policies on a trace (paper 000, Table 2 / fig. 8–9).
    Sim(SimArgs),
    /// Miss rate vs cache size, 1 KB … 1 MB at 32 B/entry (paper 000, fig. 2).
    Sweep(SweepArgs),
}

/// `pktlab trace …`
#[derive(Subcommand)]
pub enum TraceCmd {
    /// Packets, flows and the flow-length CDF of a trace (paper 000, fig. 3).
    Stats(StatsArgs),
    /// Convert a trace (pcap, compact or synthetic) to the compact format or to pcap.
    Convert(ConvertArgs),
}

/// Where packets come from.
#[derive(Args, Clone)]
pub struct TraceArgs {
    /// `synthetic` (AGH-calibrated generator), a pcap/pcapng capture, or a compact trace.
    #[arg(long, default_value = "synthetic")]
    trace: String,
    /// Packets of the synthetic trace.
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    packets: u64,
    /// Seed (synthetic trace, random policy).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// New flows per second of the synthetic trace (default: AGH's 1810.4).
    #[arg(long)]
    flow_rate: Option<f64>,
    /// Flow-length histogram CSV for the synthetic trace (default: embedded AGH bins).
    #[arg(long)]
    flowstats: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Cache geometry and timing model.
#[derive(Args, Clone)]
pub struct ModelArgs {
    /// Comma-separated policies: lru, slru, hpcN (hpc1, hpc2, hpc4, hpc8, hpc16 …), spc,
    /// random, fifo, belady, clock, lfu, arc, s3fifo, sieve, tinylfu; `paper` (Table 2's) or
    /// `all`.
    #[arg(long, default_value = "lru,slru,hpc1,hpc2,hpc4,hpc8,hpc16")]
    policy: String,
    /// Ways per set, or `full` (fully associative: one set) (default: 4 for
    /// lru/fifo/random/spc, 8 = two 4-way halves for slru/hpc/belady, 8 for the others).
    #[arg(long, value_parser = parse_ways)]
    ways: Option<Ways>,
    /// Set index hash: crc (paper) or xor.
    #[arg(long, default_value = "crc")]
    index: String,
    /// Insert immediately on a miss (no PE/CMT timing model).
    #[arg(long)]
    no_timing: bool,
    /// Processing elements.
    #[arg(long, default_value_t = 64)]
    pes: usize,
    /// Table-lookup latency of a PE, ns.
    #[arg(long, default_value_t = 100)]
    lookup_ns: u64,
    /// Delay model: hit latency, ns.
    #[arg(long, default_value_t = 2.0)]
    hit_ns: f64,
    /// Delay model: miss latency, ns.
    #[arg(long, default_value_t = 55.0)]
    miss_ns: f64,
    /// Delay model: exchange latency, ns.
    #[arg(long, default_value_t = 4.0)]
    exchange_ns: f64,
    /// Packets per streamed chunk (4K keeps a chunk in L2).
    #[arg(long, default_value = "4K", value_parser = parse_size)]
    chunk: u64,
}

/// `--ways`: a number of ways or fully associative.
#[derive(Clone, Copy, Debug)]
pub enum Ways {
    /// Ways per set.
    N(usize),
    /// One set holding every entry.
    Full,
}

fn parse_ways(s: &str) -> Result<Ways, String> {
    if s == "full" {
        return Ok(Ways::Full);
    }
    match parse_size(s) {
        Ok(0) => Err("ways must be ≥ 1".into()),
        Ok(n) => Ok(Ways::N(n as usize)),
        Err(e) => Err(format!("{e} (or `full`)")),
    }
}

/// Ways for policy `p` at `entries` entries under `--ways`.
fn ways_for(p: &str, w: Option<Ways>, entries: usize) -> usize {
    let w = match w {
        Some(Ways::Full) => entries,
        Some(Ways::N(n)) => n,
        None => policy_ways(p, None).unwrap_or(4),
    };
    w.clamp(min_ways(p), entries.max(min_ways(p)))
}

/// `pktlab cache sim`
#[derive(Args)]
pub struct SimArgs {
    #[command(flatten)]
    t: TraceArgs,
    #[command(flatten)]
    m: ModelArgs,
    /// Total cache entries (paper: 1024 = 32 KB at 32 B/entry).
    #[arg(long, default_value = "1024", value_parser = parse_size)]
    entries: u64,
}

/// `pktlab cache sweep`
#[derive(Args)]
pub struct SweepArgs {
    #[command(flatten)]
    t: TraceArgs,
    #[command(flatten)]
    m: ModelArgs,
    /// Bytes per entry.
    #[arg(long, default_value_t = 32)]
    entry_bytes: u64,
    /// Smallest cache, bytes.
    #[arg(long, default_value = "1K", value_parser = parse_size)]
    min_bytes: u64,
    /// Largest cache, bytes.
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    max_bytes: u64,
}

/// `pktlab trace stats`
#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    t: TraceArgs,
}

/// `pktlab trace convert`
#[derive(Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    t: TraceArgs,
    /// Output file.
    #[arg(long)]
    out: PathBuf,
    /// Output format: compact, pcap, or oracle (libCacheSim oracleGeneral, for speed
    /// comparisons) (default: pcap if the name ends in .pcap, else compact).
    #[arg(long)]
    format: Option<String>,
}

/// Runs `pktlab cache …`.
pub fn run(cmd: CacheCmd) -> Result<i32> {
    match cmd {
        CacheCmd::Sim(a) => sim(a),
        CacheCmd::Sweep(a) => sweep(a),
    }
}

/// Runs `pktlab trace …`.
pub fn run_trace(cmd: TraceCmd) -> Result<i32> {
    match cmd {
        TraceCmd::Stats(a) => stats(a),
        TraceCmd::Convert(a) => convert(a),
    }
}

fn source(t: &TraceArgs) -> Result<TraceSource> {
    if t.trace == "synthetic" {
        let lengths = match &t.flowstats {
            Some(p) => LengthHist::from_csv(p)?,
            None => LengthHist::agh(),
        };
        let mut c = SynthConfig {
            packets: t.packets,
            seed: t.seed,
            lengths,
            ..SynthConfig::default()
        };
        if let Some(r) = t.flow_rate {
            if r.is_nan() || r <= 0.0 {
                bail!("--flow-rate: must be positive");
            }
            c.flow_rate = r;
        }
        Ok(TraceSource::Synthetic(c))
    } else {
        Ok(TraceSource::Pcap(PathBuf::from(&t.trace)))
    }
}

fn config(m: &ModelArgs) -> Result<SimConfig> {
    Ok(SimConfig {
        timing: !m.no_timing,
        pes: m.pes.max(1),
        lookup_ns: m.lookup_ns,
        index: match m.index.as_str() {
            "crc" => SetIndex::Crc,
            "xor" => SetIndex::Xor,
            o => bail!("--index {o}: expected crc or xor"),
        },
        delay: DelayModel {
            hit_ns: m.hit_ns,
            miss_ns: m.miss_ns,
            exchange_ns: m.exchange_ns,
        },
    })
}

fn policies(list: &str) -> Result<Vec<String>> {
    let v: Vec<String> = if list == "all" {
        POLICY_NAMES.iter().map(|s| s.to_string()).collect()
    } else if list == "paper" {
        PAPER_POLICIES.iter().map(|s| s.to_string()).collect()
    } else {
        list.split(',').map(|s| s.trim().to_lowercase()).collect()
    };
    for p in &v {
        if policy_ways(p, None).is_none() || AnySim::new(p, 8, 8, SimConfig::default(), 1).is_none()
        {
            bail!(
                "--policy {p}: unknown (expected {})",
                POLICY_NAMES.join(", ")
            );
        }
    }
    Ok(v)
}

fn trace_json(r: &SourceReport) -> Value {
    let mut v =
        json!({"path": r.path, "packets": r.packets, "flows": r.flows, "skipped": r.skipped});
    if let Some(t) = &r.truncated {
        v["truncated"] = json!(t);
    }
    v
}

struct Run {
    name: String,
    entries: usize,
    ways: usize,
    sim: AnySim,
    secs: f64,
}

/// Streams the source once through every simulator; returns the source report.
fn drive(src: &TraceSource, runs: &mut [Run], chunk: usize, quiet: bool) -> Result<SourceReport> {
    let future = runs.iter().any(|r| r.sim.needs_future());
    let nu = if future {
        eprintln!("computing next-use indices for belady (one extra pass) …");
        next_uses(src, chunk)?
    } else {
        Vec::new()
    };
    let mut s = src.open()?;
    let mut buf: Vec<TracePacket> = Vec::with_capacity(chunk);
    let mut off = 0usize;
    let mut next_note = 10_000_000u64;
    while s.fill(&mut buf, chunk) {
        for r in runs.iter_mut() {
            let n = if r.sim.needs_future() {
                &nu[off..off + buf.len()]
            } else {
                &[][..]
            };
            let t0 = Instant::now();
            r.sim.run(&buf, n);
            r.secs += t0.elapsed().as_secs_f64();
        }
        off += buf.len();
        if !quiet && off as u64 >= next_note {
            eprintln!("… {} M packets", off / 1_000_000);
            next_note += 10_000_000;
        }
    }
    let rep = s.report();
    if let Some(t) = &rep.truncated {
        eprintln!("pktlab: warning: {t}");
    }
    if rep.skipped > 0 {
        eprintln!(
            "pktlab: note: {}: skipped {} non-IP or unparsable packets",
            rep.path, rep.skipped
        );
    }
    if rep.packets == 0 {
        bail!("{}: no IP packets", rep.path);
    }
    Ok(rep)
}

fn result_json(r: &Run, d: &DelayModel) -> Value {
    let c = r.sim.counters();
    json!({
        "policy": r.name,
        "entries": r.entries,
        "ways": r.ways,
        "sets": r.entries / r.ways,
        "packets": c.packets,
        "misses": c.misses,
        "miss_rate": c.miss_rate(),
        "cmt_hits": c.cmt_hits,
        "exchanges": c.exchanges,
        "exchange_rate": c.exchange_rate(),
        "avg_delay_ns": c.avg_delay_ns(d),
        "pe_wait_ns_per_packet": c.pe_wait_ns as f64 / c.packets.max(1) as f64,
        "mpps": c.packets as f64 / r.secs.max(1e-12) / 1e6,
    })
}

fn sim(a: SimArgs) -> Result<i32> {
    let src = source(&a.t)?;
    let cfg = config(&a.m)?;
    let entries = a.entries.max(1) as usize;
    let mut runs = Vec::new();
    for p in policies(&a.m.policy)? {
        let ways = ways_for(&p, a.m.ways, entries);
        runs.push(Run {
            sim: AnySim::new(&p, entries, ways, cfg, a.t.seed).context("policy")?,
            name: p,
            entries: (entries / ways).max(1) * ways,
            ways,
            secs: 0.0,
        });
    }
    let rep = drive(&src, &mut runs, a.m.chunk.max(1) as usize, a.t.json)?;
    let results: Vec<Value> = runs.iter().map(|r| result_json(r, &cfg.delay)).collect();
    let out = json!({
        "trace": trace_json(&rep),
        "model": {"timing": cfg.timing, "pes": cfg.pes, "lookup_ns": cfg.lookup_ns,
                   "index": a.m.index, "hit_ns": cfg.delay.hit_ns, "miss_ns": cfg.delay.miss_ns,
                   "exchange_ns": cfg.delay.exchange_ns},
        "results": results,
    });
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows, {} skipped; timing {}",
            rep.path, rep.packets, rep.flows, rep.skipped, cfg.timing
        );
        println!(
            "{:<8} {:>8} {:>5} {:>10} {:>10} {:>12} {:>10} {:>8}",
            "policy", "entries", "ways", "miss_rate", "cmt_hits", "exch_rate", "delay_ns", "Mpps"
        );
        for r in &out["results"].as_array().cloned().unwrap_or_default() {
            println!(
                "{:<8} {:>8} {:>5} {:>10.5} {:>10} {:>12.5} {:>10.3} {:>8.1}",
                r["policy"].as_str().unwrap_or(""),
                r["entries"],
                r["ways"],
                r["miss_rate"].as_f64().unwrap_or(0.0),
                r["cmt_hits"],
                r["exchange_rate"].as_f64().unwrap_or(0.0),
                r["avg_delay_ns"].as_f64().unwrap_or(0.0),
                r["mpps"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(0)
}

fn sweep(a: SweepArgs) -> Result<i32> {
    let src = source(&a.t)?;
    let cfg = config(&a.m)?;
    let pols = policies(&a.m.policy)?;
    let eb = a.entry_bytes.max(1);
    let mut runs = Vec::new();
    let mut bytes = a.min_bytes.max(eb);
    while bytes <= a.max_bytes {
        for p in &pols {
            let entries = (bytes / eb) as usize;
            let ways = ways_for(p, a.m.ways, entries);
            runs.push(Run {
                sim: AnySim::new(p, entries, ways, cfg, a.t.seed).context("policy")?,
                name: p.clone(),
                entries: (entries / ways).max(1) * ways,
                ways,
                secs: 0.0,
            });
        }
        bytes *= 2;
    }
    let rep = drive(&src, &mut runs, a.m.chunk.max(1) as usize, a.t.json)?;
    let points: Vec<Value> = runs
        .iter()
        .map(|r| {
            let mut v = result_json(r, &cfg.delay);
            v["bytes"] = json!(r.entries as u64 * eb);
            v
        })
        .collect();
    let out = json!({"trace": trace_json(&rep), "entry_bytes": eb, "timing": cfg.timing, "points": points});
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows",
            rep.path, rep.packets, rep.flows
        );
        println!(
            "{:>9} {:>8} {:<8} {:>10}",
            "bytes", "entries", "policy", "miss_rate"
        );
        for p in &points {
            println!(
                "{:>9} {:>8} {:<8} {:>10.5}",
                p["bytes"],
                p["entries"],
                p["policy"].as_str().unwrap_or(""),
                p["miss_rate"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(0)
}

fn stats(a: StatsArgs) -> Result<i32> {
    let src = source(&a.t)?;
    let mut s = src.open()?;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut len: Vec<u32> = Vec::new();
    let (mut first, mut last) = (u64::MAX, 0u64);
    while s.fill(&mut buf, 1 << 16) {
        for p in &buf {
            let f = p.flow as usize;
            if f >= len.len() {
                len.resize(f + 1, 0);
            }
            len[f] += 1;
            first = first.min(p.ts_ns);
            last = last.max(p.ts_ns);
        }
    }
    let rep = s.report();
    if let Some(t) = &rep.truncated {
        eprintln!("pktlab: warning: {t}");
    }
    let flows = len.len() as f64;
    let pk = rep.packets as f64;
    let mut cdf = Vec::new();
    let mut k = 1u64;
    let max = len.iter().copied().max().unwrap_or(0) as u64;
    loop {
        let (mut f, mut p) = (0u64, 0u64);
        for &l in &len {
            if l as u64 <= k {
                f += 1;
                p += l as u64;
            }
        }
        cdf.push(json!({"length_le": k, "flows": f as f64 / flows.max(1.0),
                        "packets": p as f64 / pk.max(1.0)}));
        if k >= max {
            break;
        }
        k *= 2;
    }
    let dur = if last >= first {
        (last - first) as f64 / 1e9
    } else {
        0.0
    };
    let out = json!({
        "trace": trace_json(&rep),
        "duration_s": dur,
        "mean_flow_length": pk / flows.max(1.0),
        "packets_per_s": if dur > 0.0 { pk / dur } else { 0.0 },
        "length_cdf": cdf,
    });
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows, {} skipped, {:.3} s, mean flow length {:.2}",
            rep.path,
            rep.packets,
            rep.flows,
            rep.skipped,
            dur,
            pk / flows.max(1.0)
        );
        println!("{:>10} {:>10} {:>10}", "length<=", "flows", "packets");
        for c in &cdf {
            println!(
                "{:>10} {:>10.4} {:>10.4}",
                c["length_le"],
                c["flows"].as_f64().unwrap_or(0.0),
                c["packets"].as_f64().unwrap_or(0.0)
            );
        }
    }
    Ok(0)
}

fn convert(a: ConvertArgs) -> Result<i32> {
    let src = source(&a.t)?;
    let fmt = a.format.clone().unwrap_or_else(|| {
        let n = a.out.to_string_lossy().to_lowercase();
        if n.ends_with(".pcap") {
            "pcap"
        } else {
            "compact"
        }
        .into()
    });
    let name = a.out.display().to_string();
    let f = std::fs::File::create(&a.out).with_context(|| format!("{name}: cannot create"))?;
    let w = std::io::BufWriter::with_capacity(1 << 20, f);
    let mut s = src.open()?;
    let mut buf = Vec::with_capacity(1 << 16);
    let io = |e: std::io::Error| anyhow::anyhow!("{name}: write error: {e}");
    match fmt.as_str() {
        "compact" => {
            let mut cw = CompactWriter::new(w).map_err(io)?;
            while s.fill(&mut buf, 1 << 16) {
                for p in &buf {
                    let k = s.key(p.flow).context("flow key")?;
                    cw.write(p.ts_ns, p.flow, &k).map_err(io)?;
                }
            }
            cw.finish().map_err(io)?;
        }
        "pcap" => {
            let mut pw = PcapExport::new(w).map_err(io)?;
            while s.fill(&mut buf, 1 << 16) {
                for p in &buf {
                    let k = s.key(p.flow).context("flow key")?;
                    pw.write(p.ts_ns, &k).map_err(io)?;
                }
            }
            pw.finish().map_err(io)?;
        }
        "oracle" => {
            // libCacheSim's oracleGeneral binary records (for speed comparisons only):
            // u32 timestamp (s), u64 object id, u32 size, i64 next access (-1: unknown).
            let mut w = w;
            use std::io::Write;
            while s.fill(&mut buf, 1 << 16) {
                for p in &buf {
                    let mut r = [0u8; 24];
                    r[0..4].copy_from_slice(&((p.ts_ns / 1_000_000_000) as u32).to_le_bytes());
                    r[4..12].copy_from_slice(&(p.flow as u64 + 1).to_le_bytes());
                    r[12..16].copy_from_slice(&1u32.to_le_bytes());
                    r[16..24].copy_from_slice(&(-1i64).to_le_bytes());
                    w.write_all(&r).map_err(io)?;
                }
            }
            w.flush().map_err(io)?;
        }
        o => bail!("--format {o}: expected compact, pcap or oracle"),
    }
    let rep = s.report();
    let bytes = std::fs::metadata(&a.out).map(|m| m.len()).unwrap_or(0);
    let out = json!({"trace": trace_json(&rep), "out": name, "format": fmt, "bytes": bytes});
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "wrote {name} ({fmt}, {bytes} bytes): {} packets, {} flows",
            rep.packets, rep.flows
        );
    }
    Ok(0)
}
