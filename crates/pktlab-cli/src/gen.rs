//! `pktlab gen zipf|flows|ccn`: the paper-003 Zipf table sampler (error report and sampling
//! speed next to rand_distr's exact Zipf) and pcap writers for Zipf destination streams, Zipf
//! 5-tuple flow traces and CCNx-over-UDP Interest/Data traffic.

use crate::size::parse_size;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pktlab::ccn::tlv;
use pktlab::io::pcap_write::{build_frame, tcp_flags, Ips, PcapWriter, L4};
use pktlab::traffic::{FlowStream, Merge, NameStream, SplitMix64, ZipfTable};
use pktlab::util::splitmix64;
use serde_json::{json, Value};
use std::hint::black_box;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;

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

impl TableArgs {
    fn build(&self) -> Result<ZipfTable> {
        let m = Merge::parse(&self.merge).with_context(|| {
            format!(
                "--merge {:?}: expected optimal, geometric or uniform",
                self.merge
            )
        })?;
        Ok(ZipfTable::with_merge(
            self.alpha,
            self.names,
            self.entries,
            m,
        )?)
    }
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn progress(n: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {per_sec} eta {eta}")
            .unwrap()
            .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}

fn stats_json(t: &ZipfTable) -> Value {
    let s = t.stats();
    json!({"tv": s.tv, "kl": s.kl, "max_rel_err": s.max_rel_err, "ks": s.ks})
}

fn zipf(a: ZipfArgs) -> Result<i32> {
    let t0 = Instant::now();
    let t = a.t.build()?;
    let build_s = t0.elapsed().as_secs_f64();
    let st = t.stats();
    eprintln!(
        "pktlab: Zipf({}) over {} names, {} entries ({} KiB) built in {:.2} s; tv {:.3e}",
        a.t.alpha,
        a.t.names,
        t.entries(),
        t.bytes() / 1024,
        build_s,
        st.tv
    );
    // Timed sampling runs.
    let mut rates = Vec::new();
    for run in 0..a.runs.max(1) {
        let mut rng = SplitMix64::new(a.t.seed + run as u64);
        let t1 = Instant::now();
        let mut acc = 0u64;
        for _ in 0..a.samples {
            acc = acc.wrapping_add(t.sample(&mut rng));
        }
        black_box(acc);
        let r = a.samples as f64 / t1.elapsed().as_secs_f64() / 1e6;
        eprintln!(
            "pktlab: table sampler run {}: {:.1} M samples/s",
            run + 1,
            r
        );
        rates.push(r);
    }
    let msps = median(rates);
    // Batched sampling (ZipfTable::fill: slot prefetch 16 samples ahead) into a 4096 buffer.
    let mut rates = Vec::new();
    let mut buf = vec![0u64; 4096];
    for run in 0..a.runs.max(1) {
        let mut rng = SplitMix64::new(a.t.seed + run as u64);
        let t1 = Instant::now();
        let mut acc = 0u64;
        for _ in 0..a.samples.div_ceil(4096) {
            t.fill(&mut rng, &mut buf);
            acc = acc.wrapping_add(buf[4095]);
        }
        black_box(acc);
        let r = (a.samples.div_ceil(4096) * 4096) as f64 / t1.elapsed().as_secs_f64() / 1e6;
        eprintln!(
            "pktlab: table sampler, batched fill, run {}: {:.1} M samples/s",
            run + 1,
            r
        );
        rates.push(r);
    }
    let batch_msps = median(rates);
    let mut baseline = Value::Null;
    if a.baseline_samples > 0 {
        use rand::RngExt;
        use rand::SeedableRng;
        let z = rand_distr::Zipf::new(a.t.names as f64, a.t.alpha)
            .context("rand_distr::Zipf rejected the parameters")?;
        let mut rates = Vec::new();
        for run in 0..a.runs.max(1) {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(a.t.seed + run as u64);
            let t1 = Instant::now();
            let mut acc = 0.0f64;
            for _ in 0..a.baseline_samples {
                acc += rng.sample(z);
            }
            black_box(acc);
            let r = a.baseline_samples as f64 / t1.elapsed().as_secs_f64() / 1e6;
            eprintln!(
                "pktlab: rand_distr Zipf run {}: {:.2} M samples/s",
                run + 1,
                r
            );
            rates.push(r);
        }
        let b = median(rates);
        baseline = json!({"msamples_per_s": b, "ns_per_sample": 1e3 / b, "speedup": msps / b});
    }
    let mut compare = Value::Null;
    if a.compare {
        let mut v = Vec::new();
        for m in [Merge::Optimal, Merge::Geometric, Merge::Uniform] {
            let tm = ZipfTable::with_merge(a.t.alpha, a.t.names, a.t.entries, m)?;
            let mut s = stats_json(&tm);
            s["merge"] = json!(m.as_str());
            v.push(s);
        }
        compare = Value::Array(v);
    }
    let mut written = Value::Null;
    if let Some(path) = &a.o.out {
        let mut rng = SplitMix64::new(a.t.seed ^ 0x7A1F);
        written = write_pcap(path, a.o.count, "zipf pcap", |_, f| {
            let r = t.sample(&mut rng);
            build_frame(
                f,
                Ips::V4(0x0A00_0001, splitmix64(r) as u32),
                L4::Udp {
                    sport: 49152 + (r % 16384) as u16,
                    dport: 9,
                },
                &[0u8; 18],
            )
        })?;
    }
    let out = json!({
        "alpha": a.t.alpha, "names": a.t.names, "entries": t.entries(), "merge": a.t.merge,
        "table_bytes": t.bytes(), "build_s": build_s,
        "tv": st.tv, "kl": st.kl, "max_rel_err": st.max_rel_err, "ks": st.ks,
        "msamples_per_s": msps, "ns_per_sample": 1e3 / msps, "batch_msamples_per_s": batch_msps,
        "baseline_rand_distr": baseline, "compare": compare, "pcap": written,
    });
    if a.o.json {
        println!("{out}");
    } else {
        println!(
            "Zipf(α={}) n={} entries={} ({}): TV {:.3e}  KL {:.3e}  max rel err (ranks ≤ 2^20) {:.3e}  KS {:.3e}",
            a.t.alpha, a.t.names, t.entries(), a.t.merge, st.tv, st.kl, st.max_rel_err, st.ks
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

fn create(path: &Path) -> Result<std::fs::File> {
    std::fs::File::create(path).with_context(|| format!("{}: cannot create", path.display()))
}

/// Writes `count` frames produced by `frame(i, buf)` to `path` (1 µs apart), with a progress
/// bar on stderr; returns the JSON summary.
fn write_pcap(
    path: &Path,
    count: u64,
    what: &str,
    mut frame: impl FnMut(u64, &mut Vec<u8>) -> std::io::Result<()>,
) -> Result<Value> {
    let pb = progress(count, what);
    let mut w = PcapWriter::new(BufWriter::with_capacity(1 << 20, create(path)?))
        .with_context(|| format!("{}: write", path.display()))?;
    let mut f = Vec::with_capacity(2048);
    let mut bytes = 0u64;
    for i in 0..count {
        frame(i, &mut f).with_context(|| format!("{}: packet {i}", path.display()))?;
        bytes += f.len() as u64;
        w.write((1_700_000_000_000_000 + i) * 1_000, &f)
            .with_context(|| format!("{}: write", path.display()))?;
        if i % 65536 == 0 {
            pb.set_position(i);
        }
    }
    w.finish()
        .with_context(|| format!("{}: write", path.display()))?;
    pb.finish_and_clear();
    eprintln!(
        "pktlab: wrote {count} packets ({bytes} frame bytes) to {}",
        path.display()
    );
    Ok(json!({"path": path.display().to_string(), "packets": count, "frame_bytes": bytes}))
}

fn flows(a: FlowArgs) -> Result<i32> {
    let t = a.t.build()?;
    let Some(path) = &a.o.out else {
        bail!("gen flows: --out FILE.pcap is required");
    };
    let mut s = FlowStream::new(&t, a.t.seed);
    let zeros = [0u8; 1500];
    let written = write_pcap(path, a.o.count, "flows pcap", |i, f| {
        let (k, len) = s.next_packet();
        let ips = Ips::from_key(&k);
        if k.proto == 6 {
            let payload = &zeros[..len as usize - 40];
            build_frame(
                f,
                ips,
                L4::Tcp {
                    sport: k.sport,
                    dport: k.dport,
                    seq: i as u32,
                    ack: 1,
                    flags: tcp_flags::ACK | tcp_flags::PSH,
                },
                payload,
            )
        } else {
            let payload = &zeros[..len as usize - 28];
            build_frame(
                f,
                ips,
                L4::Udp {
                    sport: k.sport,
                    dport: k.dport,
                },
                payload,
            )
        }
    })?;
    finish_out(
        &a.o,
        json!({"alpha": a.t.alpha, "flows": a.t.names, "entries": t.entries(), "pcap": written}),
    )
}

fn ccn(a: CcnArgs) -> Result<i32> {
    let t = a.t.build()?;
    let Some(path) = &a.o.out else {
        bail!("gen ccn: --out FILE.pcap is required");
    };
    let mut s = NameStream::new(&t, a.t.seed, a.chunks);
    let (mut uri, mut name, mut pkt) = (String::new(), Vec::new(), Vec::new());
    let payload = vec![0x5Au8; a.payload];
    let (consumer, router) = (0x0A00_0002u32, 0x0A00_0001u32);
    let mut pending = false;
    let written = write_pcap(path, a.o.count, "ccn pcap", |_, f| {
        if pending {
            // The producer's Content Object for the previous Interest.
            pending = false;
            tlv::build_data(&mut pkt, &name, &payload);
            let udp = L4::Udp {
                sport: tlv::CEFORE_PORT,
                dport: tlv::CEFORE_PORT,
            };
            return build_frame(f, Ips::V4(router, consumer), udp, &pkt);
        }
        let (r, c) = s.next_name();
        NameStream::write_uri(&a.prefix, r, c, &mut uri);
        tlv::name_from_uri(&uri, &mut name);
        tlv::build_interest(&mut pkt, &name, 32);
        pending = !a.interests_only;
        let udp = L4::Udp {
            sport: tlv::CEFORE_PORT,
            dport: tlv::CEFORE_PORT,
        };
        build_frame(f, Ips::V4(consumer, router), udp, &pkt)
    })?;
    finish_out(
        &a.o,
        json!({"alpha": a.t.alpha, "names": a.t.names, "entries": t.entries(), "prefix": a.prefix, "pcap": written}),
    )
}

fn finish_out(o: &OutArgs, v: Value) -> Result<i32> {
    if o.json {
        println!("{v}");
    } else {
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(0)
}
