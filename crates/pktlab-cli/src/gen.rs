//! `pktlab gen zipf|flows|ccn`: the paper-003 Zipf table sampler (error report and sampling
//! speed next to rand_distr's exact Zipf) and pcap writers for Zipf destination streams, Zipf
//! 5-tuple flow traces and CCNx-over-UDP Interest/Data traffic.

use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use pktlab::lab::traffic::{self, CcnPcapConfig, FlowsConfig, ZipfConfig, ZipfSpec};
use serde_json::Value;
use std::path::PathBuf;

/// `pktlab gen …`
#[derive(Subcommand)]
pub enum GenCmd {
    /// Build a Zipf table, report its error against the exact distribution and its sampling
    /// speed (and rand_distr's); with --out, write IPv4/UDP packets to Zipf-ranked destinations.
    Zipf(ZipfArgs),
    /// Write a pcap of packets from Zipf-popular 5-tuple flows (TCP and UDP).
    Flows(FlowArgs),
    /// Write a pcap of CCNx Interests (and the producer's Content Objects) over UDP port 9896.
    Ccn(CcnArgs),
}

/// Table parameters shared by the generators.
#[derive(Args, Clone)]
pub struct TableArgs {
    /// Zipf exponent α (> 0).
    #[arg(long, default_value_t = 0.8)]
    alpha: f64,
    /// Number of names (ranks), up to 2^32.
    #[arg(long, default_value = "2^32", value_parser = parse_size)]
    names: u64,
    /// Table budget (entries).
    #[arg(long, default_value = "64K", value_parser = parse_size)]
    entries: u64,
    /// Merge rule for the tail: optimal, geometric or uniform.
    #[arg(long, default_value = "optimal")]
    merge: String,
    /// Seed of every random stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Output options shared by the pcap writers.
#[derive(Args, Clone)]
pub struct OutArgs {
    /// Packets to write.
    #[arg(long, default_value = "1M", value_parser = parse_size)]
    count: u64,
    /// Output pcap file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// `pktlab gen zipf`
#[derive(Args)]
pub struct ZipfArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Samples per timed run (median of --runs runs).
    #[arg(long, default_value = "2^27", value_parser = parse_size)]
    samples: u64,
    /// Timed runs.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Samples for the rand_distr baseline (0 = skip it).
    #[arg(long, default_value = "2^23", value_parser = parse_size)]
    baseline_samples: u64,
    /// Also report the error of every merge rule at this budget.
    #[arg(long)]
    compare: bool,
    #[command(flatten)]
    o: OutArgs,
}

/// `pktlab gen flows`
#[derive(Args)]
pub struct FlowArgs {
    #[command(flatten)]
    t: TableArgs,
    #[command(flatten)]
    o: OutArgs,
}

/// `pktlab gen ccn`
#[derive(Args)]
pub struct CcnArgs {
    #[command(flatten)]
    t: TableArgs,
    /// Name prefix.
    #[arg(long, default_value = "/cefore")]
    prefix: String,
    /// Chunks per content (0 or 1 = unchunked names).
    #[arg(long, default_value_t = 0)]
    chunks: u32,
    /// Content Object payload bytes.
    #[arg(long, default_value_t = 64)]
    payload: usize,
    /// Interests only (default: every Interest is followed by the producer's Content Object).
    #[arg(long)]
    interests_only: bool,
    #[command(flatten)]
    o: OutArgs,
}

/// Runs a `gen` subcommand.
pub fn run(cmd: GenCmd) -> Result<i32> {
    match cmd {
        GenCmd::Zipf(a) => zipf(a),
        GenCmd::Flows(a) => flows(a),
        GenCmd::Ccn(a) => ccn(a),
    }
}

impl TableArgs {
    fn spec(&self) -> ZipfSpec {
        ZipfSpec {
            alpha: self.alpha,
            names: self.names,
            entries: self.entries,
            merge: self.merge.clone(),
            seed: self.seed,
        }
    }
}

fn zipf(a: ZipfArgs) -> Result<i32> {
    let cfg = ZipfConfig {
        table: a.t.spec(),
        samples: a.samples,
        runs: a.runs,
        baseline_samples: a.baseline_samples,
        compare: a.compare,
        count: a.o.count,
        out: a.o.out.clone(),
    };
    let r = traffic::zipf(&cfg, &Bars::new())?;
    let out = serde_json::to_value(&r)?;
    let (msps, baseline, compare) = (
        r.msamples_per_s,
        out["baseline_rand_distr"].clone(),
        out["compare"].clone(),
    );
    if a.o.json {
        println!("{out}");
    } else {
        println!(
            "Zipf(α={}) n={} entries={} ({}): TV {:.3e}  KL {:.3e}  max rel err (ranks ≤ 2^20) {:.3e}  KS {:.3e}",
            a.t.alpha, a.t.names, r.entries, a.t.merge, r.tv, r.kl, r.max_rel_err, r.ks
        );
        println!(
            "table sampler: {msps:.1} M samples/s ({:.2} ns/sample)",
            1e3 / msps
        );
        if let Some(b) = baseline.get("msamples_per_s") {
            println!(
                "rand_distr::Zipf: {:.2} M samples/s ({:.1} ns/sample); speedup {:.1}x",
                b.as_f64().unwrap(),
                baseline["ns_per_sample"].as_f64().unwrap(),
                baseline["speedup"].as_f64().unwrap()
            );
        }
        if let Value::Array(v) = &compare {
            for s in v {
                println!(
                    "  {:<9} TV {:.3e}  KL {:.3e}  max rel {:.3e}  KS {:.3e}",
                    s["merge"].as_str().unwrap(),
                    s["tv"].as_f64().unwrap(),
                    s["kl"].as_f64().unwrap(),
                    s["max_rel_err"].as_f64().unwrap(),
                    s["ks"].as_f64().unwrap()
                );
            }
        }
    }
    Ok(0)
}

fn flows(a: FlowArgs) -> Result<i32> {
    let Some(out) = a.o.out.clone() else {
        a.t.spec().build()?;
        bail!("gen flows: --out FILE.pcap is required");
    };
    let cfg = FlowsConfig {
        table: a.t.spec(),
        count: a.o.count,
        out,
    };
    let r = traffic::flows(&cfg, &Bars::new())?;
    finish_out(&a.o, serde_json::to_value(&r)?)
}

fn ccn(a: CcnArgs) -> Result<i32> {
    let Some(out) = a.o.out.clone() else {
        a.t.spec().build()?;
        bail!("gen ccn: --out FILE.pcap is required");
    };
    let cfg = CcnPcapConfig {
        table: a.t.spec(),
        prefix: a.prefix.clone(),
        chunks: a.chunks,
        payload: a.payload,
        interests_only: a.interests_only,
        count: a.o.count,
        out,
    };
    let r = traffic::ccn_pcap(&cfg, &Bars::new())?;
    finish_out(&a.o, serde_json::to_value(&r)?)
}

fn finish_out(o: &OutArgs, v: Value) -> Result<i32> {
    if o.json {
        println!("{v}");
    } else {
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(0)
}
