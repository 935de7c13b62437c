//! `pktlab cache sim|sweep` and `pktlab trace stats|convert`: the packet processing cache study
//! of paper 000 (Hit Priority Cache): Table 2 (miss rate, exchange rate, average delay per
//! policy), fig. 2 (miss rate vs cache size) and fig. 3 (flow-length CDF).

use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::Result;
use clap::{Args, Subcommand};
use pktlab_lab::cache::{
    self, CacheSimConfig, CacheSweepConfig, ConvertConfig, ModelSpec, TraceSpec,
};
use std::path::PathBuf;

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
    ways: Option<usize>,
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

/// `--ways`: a number of ways, or `full` (passed on as `usize::MAX`: one set).
fn parse_ways(s: &str) -> Result<usize, String> {
    if s == "full" {
        return Ok(usize::MAX);
    }
    match parse_size(s) {
        Ok(0) => Err("ways must be ≥ 1".into()),
        Ok(n) => Ok(n as usize),
        Err(e) => Err(format!("{e} (or `full`)")),
    }
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

impl TraceArgs {
    fn spec(&self) -> TraceSpec {
        TraceSpec {
            trace: self.trace.clone(),
            packets: self.packets,
            seed: self.seed,
            flow_rate: self.flow_rate,
            flowstats: self.flowstats.clone(),
            memory: None,
        }
    }
}

impl ModelArgs {
    fn spec(&self) -> ModelSpec {
        ModelSpec {
            policy: self.policy.clone(),
            ways: self.ways,
            index: self.index.clone(),
            no_timing: self.no_timing,
            pes: self.pes,
            lookup_ns: self.lookup_ns,
            hit_ns: self.hit_ns,
            miss_ns: self.miss_ns,
            exchange_ns: self.exchange_ns,
            chunk: self.chunk,
        }
    }
}

fn sim(a: SimArgs) -> Result<i32> {
    let cfg = CacheSimConfig {
        trace: a.t.spec(),
        model: a.m.spec(),
        entries: a.entries,
    };
    let r = cache::sim(&cfg, &Bars::new())?;
    let out = serde_json::to_value(&r)?;
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows, {} skipped; timing {}",
            r.trace.path, r.trace.packets, r.trace.flows, r.trace.skipped, r.model.timing
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
    let cfg = CacheSweepConfig {
        trace: a.t.spec(),
        model: a.m.spec(),
        entry_bytes: a.entry_bytes,
        min_bytes: a.min_bytes,
        max_bytes: a.max_bytes,
    };
    let r = cache::sweep(&cfg, &Bars::new())?;
    let out = serde_json::to_value(&r)?;
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows",
            r.trace.path, r.trace.packets, r.trace.flows
        );
        println!(
            "{:>9} {:>8} {:<8} {:>10}",
            "bytes", "entries", "policy", "miss_rate"
        );
        for p in out["points"].as_array().into_iter().flatten() {
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
    let r = cache::trace_stats(&a.t.spec(), &Bars::new())?;
    let out = serde_json::to_value(&r)?;
    if a.t.json {
        println!("{out}");
    } else {
        println!(
            "trace {}: {} packets, {} flows, {} skipped, {:.3} s, mean flow length {:.2}",
            r.trace.path,
            r.trace.packets,
            r.trace.flows,
            r.trace.skipped,
            r.duration_s,
            r.mean_flow_length
        );
        println!("{:>10} {:>10} {:>10}", "length<=", "flows", "packets");
        for c in out["length_cdf"].as_array().into_iter().flatten() {
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
    let cfg = ConvertConfig {
        trace: a.t.spec(),
        out: a.out,
        format: a.format,
    };
    let r = cache::convert(&cfg, &Bars::new())?;
    if a.t.json {
        println!("{}", serde_json::to_value(&r)?);
    } else {
        println!(
            "wrote {} ({}, {} bytes): {} packets, {} flows",
            r.out, r.format, r.bytes, r.trace.packets, r.trace.flows
        );
    }
    Ok(0)
}
