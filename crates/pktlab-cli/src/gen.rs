//! `pktlab gen zipf|flows|ccn`: the paper-003 Zipf table sampler (error report and sampling
//! speed next to rand_distr's exact Zipf) and pcap writers for Zipf destination streams, Zipf
//! 5-tuple flow traces and CCNx-over-UDP Interest/Data traffic; with `--tx afpacket:IFACE`
//! the same streams go out on a live interface (`pktlab_lab::live::gen`).

use crate::live::{rate, secs, stop_flag, Rate};
use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::{anyhow, bail, Result};
use clap::{Args, Subcommand};
use pktlab::port::TxSpec;
use pktlab_lab::live::{self, GenConfig, GenStream};
use pktlab_lab::traffic::{self, CcnPcapConfig, FlowsConfig, ZipfConfig, ZipfSpec};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

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

/// Output options shared by the pcap writers and the live sender.
#[derive(Args, Clone)]
pub struct OutArgs {
    /// Packets to write (default 1M to a pcap; unlimited on a live interface).
    #[arg(long, value_parser = parse_size)]
    count: Option<u64>,
    /// Output pcap file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Send on a live interface instead: afpacket:IFACE.
    #[arg(long)]
    tx: Option<String>,
    /// Live: packets per second (token bucket) or max.
    #[arg(long, default_value = "max", value_parser = rate)]
    rate: Rate,
    /// Live: stop after this many seconds (default: --count, or until SIGINT).
    #[arg(long, value_parser = secs)]
    duration: Option<Duration>,
    /// Live: frame size on the wire including FCS, 64..1518 (zipf, flows; default: the
    /// stream's own sizes).
    #[arg(long, value_parser = parse_size)]
    size: Option<u64>,
    /// Live: packets per burst (one ring kick per burst).
    #[arg(long, default_value_t = 32)]
    burst: usize,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

const PCAP_COUNT: u64 = 1 << 20;

impl OutArgs {
    /// The live interface of `--tx afpacket:IFACE`, if given.
    fn live_iface(&self) -> Result<Option<String>> {
        match &self.tx {
            None => Ok(None),
            Some(t) => match t.parse::<TxSpec>() {
                Ok(TxSpec::AfPacket(i)) => Ok(Some(i)),
                _ => bail!("--tx {t:?}: expected afpacket:IFACE"),
            },
        }
    }
}

/// Sends `stream` on the live interface and prints the result.
fn send_live(
    iface: String,
    stream: GenStream,
    routes: Option<PathBuf>,
    t: &TableArgs,
    o: &OutArgs,
) -> Result<i32> {
    let cfg = GenConfig {
        stream,
        table: t.spec(),
        iface,
        rate: o.rate.0,
        duration: o.duration.map(|d| d.as_secs_f64()),
        count: o.count,
        size: o.size.map(|s| s as usize),
        burst: o.burst,
        routes,
    };
    let stop = stop_flag();
    let r = live::gen(&cfg, &stop, &Bars::new()).map_err(|e| anyhow!(e))?;
    if !o.json {
        println!(
            "sent {} packets ({} bytes) on {} in {:.3} s: {:.0} pps, {:.1} Mb/s ({:.1} Mb/s on the wire)",
            r.packets,
            r.bytes,
            r.iface,
            r.seconds,
            r.pps,
            r.bps / 1e6,
            r.wire_bps / 1e6
        );
        return Ok(0);
    }
    finish_out(o, serde_json::to_value(&r)?)
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
    /// Live: move each flow's destination into a prefix of this routing table (so that
    /// every packet is routable by a router holding the table).
    #[arg(long)]
    routes: Option<PathBuf>,
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
    if let Some(i) = a.o.live_iface()? {
        return send_live(i, GenStream::Zipf, None, &a.t, &a.o);
    }
    let cfg = ZipfConfig {
        table: a.t.spec(),
        samples: a.samples,
        runs: a.runs,
        baseline_samples: a.baseline_samples,
        compare: a.compare,
        count: a.o.count.unwrap_or(PCAP_COUNT),
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
    if let Some(i) = a.o.live_iface()? {
        return send_live(i, GenStream::Flows, a.routes.clone(), &a.t, &a.o);
    }
    let Some(out) = a.o.out.clone() else {
        a.t.spec().build()?;
        bail!("gen flows: --out FILE.pcap or --tx afpacket:IFACE is required");
    };
    let cfg = FlowsConfig {
        table: a.t.spec(),
        count: a.o.count.unwrap_or(PCAP_COUNT),
        out,
    };
    let r = traffic::flows(&cfg, &Bars::new())?;
    finish_out(&a.o, serde_json::to_value(&r)?)
}

fn ccn(a: CcnArgs) -> Result<i32> {
    if let Some(i) = a.o.live_iface()? {
        let s = GenStream::Ccn {
            prefix: a.prefix.clone(),
            chunks: a.chunks,
            payload: a.payload,
            interests_only: a.interests_only,
        };
        return send_live(i, s, None, &a.t, &a.o);
    }
    let Some(out) = a.o.out.clone() else {
        a.t.spec().build()?;
        bail!("gen ccn: --out FILE.pcap or --tx afpacket:IFACE is required");
    };
    let cfg = CcnPcapConfig {
        table: a.t.spec(),
        prefix: a.prefix.clone(),
        chunks: a.chunks,
        payload: a.payload,
        interests_only: a.interests_only,
        count: a.o.count.unwrap_or(PCAP_COUNT),
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
