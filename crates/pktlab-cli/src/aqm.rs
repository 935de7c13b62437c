//! `pktlab aqm sim`: the dumbbell of paper 002 (fig. 4) under one or more AQM disciplines.

use crate::size::parse_size;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use pktlab::aqm::{AqmParamSet, AqmSpec, FlowKey, RedParams, SredParams, ZlRedParams};
use pktlab::netsim::scenarios::dumbbell::{run, DumbbellConfig, DumbbellResult};
use pktlab::netsim::tcp::{TcpConfig, VegasLoss};
use pktlab::netsim::{secs, MS};
use serde_json::{json, Value};
use std::io::Write;
use std::time::Instant;

/// `pktlab aqm …`
#[derive(Subcommand)]
pub enum AqmCmd {
    /// Simulate Reno/Vegas (and UDP) senders sharing a bottleneck router (paper 002 fig. 4).
    Sim(SimArgs),
    /// Reproduce a figure of paper 002 as a parallel sweep (writes JSON + CSV).
    Study(crate::aqm_study::StudyArgs),
    /// Measure ns per packet (enqueue + dequeue) of each discipline at many active flows.
    Bench(BenchArgs),
}

/// Parameters of the zombie-list disciplines (SRED, ZL-RED).
#[derive(Args, Clone)]
pub struct ZombieArgs {
    /// SRED/ZL-RED zombie list size m.
    #[arg(long, default_value_t = 1000)]
    pub zombies: usize,
    /// SRED/ZL-RED p_max.
    #[arg(long, default_value_t = 0.15)]
    pub p_max: f64,
    /// SRED/ZL-RED p_swap.
    #[arg(long, default_value_t = 0.25)]
    pub p_swap: f64,
    /// SRED/ZL-RED hit-frequency weight α (default 1/m).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// SRED/ZL-RED flow id: src-dst (paper 002) or 5-tuple.
    #[arg(long, default_value = "src-dst")]
    pub flow_key: String,
    /// ZL-RED mis-behaving multiplier a (>= 1).
    #[arg(long, default_value_t = 1.0)]
    pub zl_a: f64,
    /// ZL-RED th_min, packets.
    #[arg(long, default_value_t = 5.0)]
    pub th_min: f64,
    /// ZL-RED EWMA weight of P_avg.
    #[arg(long, default_value_t = 0.001)]
    pub w_avg: f64,
}

impl ZombieArgs {
    /// Fills the SRED/ZL-RED parts of a parameter set.
    pub fn apply(&self, ps: &mut AqmParamSet) -> Result<()> {
        let flow_key = match self.flow_key.as_str() {
            "src-dst" => FlowKey::SrcDst,
            "5-tuple" | "five-tuple" => FlowKey::FiveTuple,
            o => bail!("--flow-key must be src-dst or 5-tuple (got '{o}')"),
        };
        ps.sred = SredParams {
            m: self.zombies,
            p_max: self.p_max,
            p_swap: self.p_swap,
            alpha: self.alpha,
            flow_key,
        };
        ps.sred.validate().map_err(|e| anyhow!(e))?;
        ps.zlred = ZlRedParams {
            sred: ps.sred.clone(),
            a: self.zl_a,
            th_min: self.th_min,
            w_avg: self.w_avg,
        };
        ps.zlred.validate().map_err(|e| anyhow!(e))?;
        Ok(())
    }
}

/// `pktlab aqm sim`
#[derive(Args)]
pub struct SimArgs {
    /// Disciplines at the bottleneck, comma-separated: droptail, red, sred, zlred, ….
    #[arg(long, value_delimiter = ',', default_value = "droptail")]
    aqm: Vec<String>,
    /// TCP Reno senders (Nr).
    #[arg(long, default_value_t = 10)]
    reno: u32,
    /// TCP Vegas senders (Nv).
    #[arg(long, default_value_t = 10)]
    vegas: u32,
    /// UDP CBR senders.
    #[arg(long, default_value_t = 0)]
    udp: u32,
    /// Rate of each UDP sender, Mbit/s.
    #[arg(long, default_value_t = 10.0)]
    udp_rate: f64,
    /// Router buffer B, packets (accepts 1K etc.).
    #[arg(long, default_value = "1000", value_parser = parse_size)]
    buffer: u64,
    /// Simulated seconds.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Seconds excluded from the measurement at the start.
    #[arg(long, default_value_t = 10.0)]
    warmup: f64,
    /// Senders start uniformly at random within this many seconds.
    #[arg(long, default_value_t = 1.0)]
    start_spread: f64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Bottleneck bandwidth BW, Mbit/s.
    #[arg(long, default_value_t = 45.0)]
    bw: f64,
    /// Bottleneck propagation delay router → receiver, ms.
    #[arg(long, default_value_t = 20.0)]
    delay: f64,
    /// Access-link bandwidth bw, Mbit/s.
    #[arg(long, default_value_t = 45.0)]
    access_bw: f64,
    /// Access-link delay of Reno (and UDP) senders τ_rx, ms.
    #[arg(long, default_value_t = 20.0)]
    reno_delay: f64,
    /// Access-link delay of Vegas senders τ_vx, ms (paper 002 fig. 8 varies it).
    #[arg(long, default_value_t = 20.0)]
    vegas_delay: f64,
    /// RED min threshold, packets.
    #[arg(long, default_value_t = 5.0)]
    red_min: f64,
    /// RED max threshold, packets.
    #[arg(long, default_value_t = 15.0)]
    red_max: f64,
    /// RED max_p.
    #[arg(long, default_value_t = 0.1)]
    red_maxp: f64,
    /// RED EWMA weight w_q.
    #[arg(long, default_value_t = 0.002)]
    red_wq: f64,
    /// Disable gentle RED.
    #[arg(long)]
    red_no_gentle: bool,
    /// ns-style "wait" spacing between RED drops.
    #[arg(long)]
    red_wait: bool,
    /// NewReno partial-ACK recovery (RFC 6582) instead of Reno's.
    #[arg(long)]
    newreno: bool,
    /// Delayed ACKs (every 2nd segment, 200 ms timer).
    #[arg(long)]
    delayed_ack: bool,
    /// Segment payload, bytes.
    #[arg(long, default_value_t = 1000)]
    mss: u32,
    /// Initial congestion window, segments.
    #[arg(long, default_value_t = 2)]
    init_cwnd: u32,
    /// Receiver window, segments.
    #[arg(long, default_value_t = 4096)]
    rwnd: u32,
    /// Minimum RTO, ms.
    #[arg(long, default_value_t = 1000.0)]
    min_rto: f64,
    /// Vegas alpha, packets of backlog (Brakmo & Peterson 1; Linux/ns-3 2).
    #[arg(long, default_value_t = 1.0)]
    vegas_alpha: f64,
    /// Vegas beta, packets of backlog (Brakmo & Peterson 3; Linux/ns-3 4).
    #[arg(long, default_value_t = 3.0)]
    vegas_beta: f64,
    /// Vegas gamma, packets of backlog that end slow start.
    #[arg(long, default_value_t = 1.0)]
    vegas_gamma: f64,
    /// Vegas window reduction on loss: quarter (Brakmo & Peterson, ×3/4) or one-segment (ns-3).
    #[arg(long, default_value = "quarter")]
    vegas_loss: String,
    /// Write a time series (time, queue, avg, cwnd per TCP flow) to this CSV file.
    #[arg(long)]
    series: Option<String>,
    /// Sampling interval of --series, ms.
    #[arg(long, default_value_t = 10.0)]
    sample_ms: f64,
    #[command(flatten)]
    zombie: ZombieArgs,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

fn positive(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        bail!("--{name} must be a positive number (got {v})")
    }
}

fn non_negative(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        bail!("--{name} must be a non-negative number (got {v})")
    }
}

fn mbps(name: &str, v: f64) -> Result<u64> {
    Ok((positive(name, v)? * 1e6).round() as u64)
}

fn ms(name: &str, v: f64) -> Result<u64> {
    Ok((non_negative(name, v)? * MS as f64).round() as u64)
}

fn config(a: &SimArgs, spec: AqmSpec) -> Result<DumbbellConfig> {
    let vegas_loss = match a.vegas_loss.as_str() {
        "quarter" => VegasLoss::ThreeQuarters,
        "one-segment" => VegasLoss::OneSegment,
        o => bail!("--vegas-loss must be quarter or one-segment (got '{o}')"),
    };
    let tcp = TcpConfig {
        mss: a.mss,
        init_cwnd: a.init_cwnd,
        rwnd: a.rwnd,
        min_rto: ms("min-rto", a.min_rto)?,
        newreno: a.newreno,
        delayed_ack: a.delayed_ack,
        vegas_loss,
        vegas_alpha: a.vegas_alpha,
        vegas_beta: a.vegas_beta,
        vegas_gamma: a.vegas_gamma,
        ..TcpConfig::default()
    };
    let buffer = u32::try_from(a.buffer).map_err(|_| anyhow!("--buffer too large"))?;
    let sample_every = match &a.series {
        Some(_) => Some(ms("sample-ms", positive("sample-ms", a.sample_ms)?)?),
        None => None,
    };
    let cfg = DumbbellConfig {
        reno: a.reno,
        vegas: a.vegas,
        udp: a.udp,
        udp_rate_bps: mbps("udp-rate", a.udp_rate)?,
        access_bw_bps: mbps("access-bw", a.access_bw)?,
        reno_delay: ms("reno-delay", a.reno_delay)?,
        vegas_delay: ms("vegas-delay", a.vegas_delay)?,
        udp_delay: ms("reno-delay", a.reno_delay)?,
        bottleneck_bw_bps: mbps("bw", a.bw)?,
        bottleneck_delay: ms("delay", a.delay)?,
        buffer,
        aqm: spec,
        tcp,
        duration: secs(positive("duration", a.duration)?),
        warmup: secs(non_negative("warmup", a.warmup)?),
        start_spread: secs(non_negative("start-spread", a.start_spread)?).max(1),
        seed: a.seed,
        sample_every,
        vegas_uses_reno: false,
        drop_once: Vec::new(),
    };
    cfg.validate().map_err(|e| anyhow!(e))?;
    Ok(cfg)
}

fn flow_key_name(k: FlowKey) -> &'static str {
    match k {
        FlowKey::SrcDst => "src-dst",
        FlowKey::FiveTuple => "5-tuple",
    }
}

pub(crate) fn config_json(c: &DumbbellConfig) -> Value {
    let aqm = match &c.aqm {
        AqmSpec::DropTail => json!({"name": "droptail"}),
        AqmSpec::Red(p) => json!({"name": "red", "min_th": p.min_th, "max_th": p.max_th,
            "max_p": p.max_p, "w_q": p.w_q, "gentle": p.gentle, "wait": p.wait}),
        AqmSpec::Sred(p) => json!({"name": "sred", "m": p.m, "p_max": p.p_max,
            "p_swap": p.p_swap, "alpha": p.alpha.unwrap_or(1.0 / p.m as f64),
            "flow_key": flow_key_name(p.flow_key)}),
        AqmSpec::Choke(p) => json!({"name": "choke", "min_th": p.min_th, "max_th": p.max_th,
            "max_p": p.max_p, "w_q": p.w_q}),
        AqmSpec::Drr(q) => json!({"name": "drr", "quantum_bytes": q, "queues": "exact per flow",
            "overflow": "drop head of longest queue"}),
        AqmSpec::FqCodel(p) => json!({"name": "fq_codel", "buckets": p.buckets,
            "quantum_bytes": p.quantum, "target_ms": p.target as f64 / 1e6,
            "interval_ms": p.interval as f64 / 1e6}),
        AqmSpec::ZlRed(z) => {
            let p = &z.sred;
            json!({"name": "zlred", "m": p.m, "p_max": p.p_max,
            "p_swap": p.p_swap, "alpha": p.alpha.unwrap_or(1.0 / p.m as f64),
            "flow_key": flow_key_name(p.flow_key), "a": z.a, "th_min": z.th_min,
            "w_avg": z.w_avg})
        }
    };
    let t = &c.tcp;
    json!({
        "scenario": "dumbbell",
        "reno": c.reno, "vegas": c.vegas, "udp": c.udp,
        "udp_rate_mbps": c.udp_rate_bps as f64 / 1e6,
        "access_bw_mbps": c.access_bw_bps as f64 / 1e6,
        "reno_delay_ms": c.reno_delay as f64 / MS as f64,
        "vegas_delay_ms": c.vegas_delay as f64 / MS as f64,
        "bottleneck_bw_mbps": c.bottleneck_bw_bps as f64 / 1e6,
        "bottleneck_delay_ms": c.bottleneck_delay as f64 / MS as f64,
        "buffer_pkts": c.buffer,
        "aqm": aqm,
        "duration_s": c.duration as f64 / 1e9,
        "warmup_s": c.warmup as f64 / 1e9,
        "start_spread_s": c.start_spread as f64 / 1e9,
        "seed": c.seed,
        "access_queues": "unbounded FIFO (losses only at the bottleneck)",
        "tcp": {
            "mss": t.mss, "header_bytes": t.header, "ack_bytes": t.ack_size,
            "init_cwnd": t.init_cwnd, "rwnd_segments": t.rwnd,
            "min_rto_ms": t.min_rto as f64 / MS as f64,
            "initial_rto_ms": t.initial_rto as f64 / MS as f64,
            "max_rto_ms": t.max_rto as f64 / MS as f64,
            "granularity_ms": t.granularity as f64 / MS as f64,
            "dupack_threshold": t.dupack_threshold,
            "recovery": if t.newreno { "newreno" } else { "reno" },
            "sack": false, "timestamps": false,
            "delayed_ack": t.delayed_ack,
            "delack_timeout_ms": t.delack_timeout as f64 / MS as f64,
            "vegas_alpha": t.vegas_alpha, "vegas_beta": t.vegas_beta,
            "vegas_gamma": t.vegas_gamma,
            "vegas_loss": match t.vegas_loss { VegasLoss::ThreeQuarters => "quarter",
                VegasLoss::OneSegment => "one-segment" },
        },
    })
}

pub(crate) fn result_json(c: &DumbbellConfig, r: &DumbbellResult, wall: f64) -> Value {
    let flows: Vec<Value> = r
        .flows
        .iter()
        .map(|f| {
            json!({"id": f.id, "kind": f.kind.name(), "goodput_mbps": f.goodput_mbps,
                "loss_rate": f.loss_rate, "drops": f.drops, "arrivals": f.arrivals,
                "fast_retransmits": f.fast_retransmits, "timeouts": f.timeouts,
                "final_cwnd": f.final_cwnd})
        })
        .collect();
    json!({
        "config": config_json(c),
        "wall_s": wall,
        "events": r.events,
        "flows": flows,
        "summary": {
            "reno_mbps": r.reno_mbps,
            "vegas_mbps": r.vegas_mbps,
            "udp_mbps": r.udp_mbps,
            "vegas_share": r.vegas_share,
            "jain": r.jain,
            "utilization": r.utilization,
            "loss_rate": r.loss_rate,
            "reno_loss_rate": r.reno_loss_rate,
            "vegas_loss_rate": r.vegas_loss_rate,
            "mean_queue_pkts": r.mean_queue_pkts,
            "mean_queue_delay_ms": r.mean_queue_delay_ms,
            "early_drops": r.early_drops,
            "forced_drops": r.forced_drops,
            "flow_estimate": r.flow_estimate,
        },
    })
}

fn write_series(path: &str, r: &DumbbellResult, aqm: &str, many: bool) -> Result<()> {
    let Some(s) = &r.series else { return Ok(()) };
    let path = if many {
        format!("{path}.{aqm}.csv")
    } else {
        path.to_string()
    };
    let f = std::fs::File::create(&path).with_context(|| format!("{path}: cannot create"))?;
    let mut w = std::io::BufWriter::new(f);
    let mut head = String::from("t_s,queue_pkts,avg_pkts");
    for i in 0..s.tcp_flows {
        head.push_str(&format!(",cwnd{i}"));
    }
    writeln!(w, "{head}").with_context(|| format!("{path}: write failed"))?;
    for (i, t) in s.t.iter().enumerate() {
        let mut line = format!("{t:.4},{},{:.3}", s.queue[i], s.avg[i]);
        for c in &s.cwnd[i * s.tcp_flows..(i + 1) * s.tcp_flows] {
            line.push_str(&format!(",{c:.2}"));
        }
        writeln!(w, "{line}").with_context(|| format!("{path}: write failed"))?;
    }
    w.flush().with_context(|| format!("{path}: write failed"))?;
    eprintln!("pktlab: wrote {path}");
    Ok(())
}

/// Runs `pktlab aqm …`; returns the exit code.
pub fn run_cmd(cmd: AqmCmd) -> Result<i32> {
    match cmd {
        AqmCmd::Sim(a) => sim(a),
        AqmCmd::Study(a) => crate::aqm_study::study(a),
        AqmCmd::Bench(a) => bench(a),
    }
}

fn sim(a: SimArgs) -> Result<i32> {
    let red = RedParams {
        min_th: a.red_min,
        max_th: a.red_max,
        max_p: a.red_maxp,
        w_q: a.red_wq,
        gentle: !a.red_no_gentle,
        wait: a.red_wait,
    };
    let mut ps = AqmParamSet {
        red,
        ..AqmParamSet::default()
    };
    a.zombie.apply(&mut ps)?;
    let specs = a
        .aqm
        .iter()
        .map(|n| AqmSpec::parse_with(n, &ps).map_err(|e| anyhow!("--aqm: {e}")))
        .collect::<Result<Vec<_>>>()?;
    if specs.is_empty() {
        bail!("--aqm: empty list");
    }
    let mut runs = Vec::new();
    for spec in specs {
        let name = spec.name();
        let cfg = config(&a, spec)?;
        eprintln!(
            "pktlab: aqm sim {name}: {} reno + {} vegas + {} udp, {} s simulated…",
            cfg.reno, cfg.vegas, cfg.udp, a.duration
        );
        let t0 = Instant::now();
        let r = run(&cfg).map_err(|e| anyhow!(e))?;
        let wall = t0.elapsed().as_secs_f64();
        eprintln!(
            "pktlab: aqm sim {name}: {:.3} s wall, {} events ({:.1} M events/s)",
            wall,
            r.events,
            r.events as f64 / wall / 1e6
        );
        if let Some(p) = &a.series {
            write_series(p, &r, name, a.aqm.len() > 1)?;
        }
        runs.push((name, result_json(&cfg, &r, wall)));
    }
    if a.json {
        let out = if runs.len() == 1 {
            runs.pop().map(|(_, v)| v).unwrap_or(Value::Null)
        } else {
            json!({"runs": runs.into_iter().map(|(_, v)| v).collect::<Vec<_>>()})
        };
        println!("{out}");
    } else {
        println!(
            "{:<9} {:>9} {:>9} {:>7} {:>6} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8}",
            "aqm",
            "reno_Mb/s",
            "vegas_Mb/s",
            "v_share",
            "jain",
            "util",
            "loss",
            "loss_R",
            "loss_V",
            "queue_pkt",
            "wall_s"
        );
        for (name, v) in &runs {
            let s = &v["summary"];
            let f = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
            println!(
                "{:<9} {:>9.3} {:>10.3} {:>7.3} {:>6.3} {:>6.3} {:>8.5} {:>8.5} {:>8.5} {:>9.1} {:>8.3}",
                name,
                f("reno_mbps"),
                f("vegas_mbps"),
                f("vegas_share"),
                f("jain"),
                f("utilization"),
                f("loss_rate"),
                f("reno_loss_rate"),
                f("vegas_loss_rate"),
                f("mean_queue_pkts"),
                v["wall_s"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    Ok(0)
}

/// `pktlab aqm bench`
#[derive(Args)]
pub struct BenchArgs {
    /// Disciplines to measure.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "droptail,red,sred,zlred,choke,drr,fq_codel"
    )]
    aqm: Vec<String>,
    /// Numbers of active flows (arrivals pick a flow uniformly at random).
    #[arg(long, value_delimiter = ',', default_value = "1000,100000")]
    flows: Vec<u32>,
    /// Buffer, packets.
    #[arg(long, default_value_t = 5000)]
    buffer: usize,
    /// Arrivals per measurement.
    #[arg(long, default_value_t = 4_000_000)]
    packets: usize,
    /// Repetitions (the median is reported).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    zombie: ZombieArgs,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

/// Per-packet cost of each discipline under 25 % overload: every arrival is one `enqueue`,
/// and four of every five arrivals are followed by one `dequeue`, so each discipline settles
/// in its own dropping regime; reported as ns per arrival (enqueue + its share of dequeues).
pub(crate) fn bench(a: BenchArgs) -> Result<i32> {
    use pktlab::aqm::{Aqm, Discipline, Drops};
    use pktlab::netsim::{Packet, PktKind};
    use pktlab::util::SplitMix64;
    if a.packets == 0 || a.reps == 0 || a.buffer < 2 {
        bail!("--packets and --reps must be positive and --buffer at least 2");
    }
    let mut ps = AqmParamSet::default();
    a.zombie.apply(&mut ps)?;
    let mut rows = Vec::new();
    for &nf in &a.flows {
        if nf == 0 {
            bail!("--flows: need at least 1 flow");
        }
        let mut rng = SplitMix64::new(a.seed ^ nf as u64);
        // Sparse 32-bit flow ids, chosen uniformly among `nf`.
        let ids: Vec<u32> = (0..nf)
            .map(|i| pktlab::util::splitmix64(i as u64 ^ a.seed) as u32)
            .collect();
        let pkts: Vec<Packet> = (0..a.packets)
            .map(|i| Packet {
                flow: ids[(rng.next_u64() % nf as u64) as usize],
                seq: i as u32,
                size: 1040,
                kind: PktKind::Data,
                enq_at: 0,
            })
            .collect();
        for name in &a.aqm {
            let spec = AqmSpec::parse_with(name, &ps).map_err(|e| anyhow!("--aqm: {e}"))?;
            let mut times = Vec::new();
            let mut drops_total = 0u64;
            for rep in 0..a.reps {
                let mut q: Discipline<Packet> = spec
                    .build(a.buffer, 185_000, a.seed + rep as u64)
                    .map_err(|e| anyhow!(e))?;
                let mut d: Drops<Packet> = Drops::default();
                let t0 = Instant::now();
                for (i, p) in pkts.iter().enumerate() {
                    let now = i as u64 * 185_000;
                    q.enqueue(*p, now, &mut d);
                    if i % 5 != 4 && q.len_pkts() > 0 {
                        std::hint::black_box(q.dequeue(now, &mut d));
                    }
                    d.clear();
                }
                times.push(t0.elapsed().as_secs_f64() * 1e9 / a.packets as f64);
                let s = q.stats();
                drops_total = s.early_drops + s.forced_drops;
            }
            times.sort_by(|x, y| x.total_cmp(y));
            let med = times[times.len() / 2];
            eprintln!(
                "pktlab: aqm bench {} flows={nf}: {med:.1} ns/packet",
                spec.name()
            );
            rows.push(
                json!({"aqm": spec.name(), "flows": nf, "ns_per_packet": med,
                "ns_all_reps": times, "drop_fraction": drops_total as f64 / a.packets as f64}),
            );
        }
    }
    if a.json {
        println!(
            "{}",
            json!({"bench": "aqm enqueue+dequeue", "buffer": a.buffer, "packets": a.packets,
                "reps": a.reps, "seed": a.seed, "rows": rows})
        );
    } else {
        println!(
            "{:<9} {:>8} {:>12} {:>8}",
            "aqm", "flows", "ns/packet", "drops"
        );
        for r in &rows {
            println!(
                "{:<9} {:>8} {:>12.1} {:>8.4}",
                r["aqm"].as_str().unwrap_or(""),
                r["flows"],
                r["ns_per_packet"].as_f64().unwrap_or(f64::NAN),
                r["drop_fraction"].as_f64().unwrap_or(f64::NAN)
            );
        }
    }
    Ok(0)
}
