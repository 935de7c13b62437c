//! `pktlab aqm sim`: the dumbbell of paper 002 (fig. 4) under one or more AQM disciplines.

use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::Result;
use clap::{Args, Subcommand};
use pktlab_lab::aqm::{self, AqmBenchConfig, AqmSimConfig, ZombieParams};
use serde_json::{json, Value};

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
    /// The library's zombie-list parameters.
    pub fn params(&self) -> ZombieParams {
        ZombieParams {
            zombies: self.zombies,
            p_max: self.p_max,
            p_swap: self.p_swap,
            alpha: self.alpha,
            flow_key: self.flow_key.clone(),
            zl_a: self.zl_a,
            th_min: self.th_min,
            w_avg: self.w_avg,
        }
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
    /// TCP CUBIC senders (RFC 9438 + HyStart; access delay --reno-delay).
    #[arg(long, default_value_t = 0)]
    cubic: u32,
    /// TCP BBR v1 senders (paced; access delay --reno-delay).
    #[arg(long, default_value_t = 0)]
    bbr: u32,
    /// SACK (RFC 2018) with RFC 6675 loss recovery in every TCP flow.
    #[arg(long)]
    sack: bool,
    /// ECN (RFC 3168): ECT senders; RED, SRED, ZL-RED, CHOKe, FQ-CoDel mark instead of dropping.
    #[arg(long)]
    ecn: bool,
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
    /// ns-2/ns-3's RED enqueue rules: no drop while at most one packet is queued, and the
    /// first arrival above min_th only restarts the drop count (for comparisons with ns-3).
    #[arg(long)]
    red_ns: bool,
    /// ns-3's event order on the access links: a packet's arrival at the router is scheduled
    /// when its serialisation starts, not when its host sends it (decides DropTail ties as
    /// ns-3 does; for comparisons with ns-3).
    #[arg(long)]
    ns3_order: bool,
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

/// Runs `pktlab aqm …`; returns the exit code.
pub fn run_cmd(cmd: AqmCmd) -> Result<i32> {
    match cmd {
        AqmCmd::Sim(a) => sim(a),
        AqmCmd::Study(a) => crate::aqm_study::study(a),
        AqmCmd::Bench(a) => bench(a),
    }
}

fn sim(a: SimArgs) -> Result<i32> {
    let cfg = AqmSimConfig {
        aqm: a.aqm.clone(),
        reno: a.reno,
        vegas: a.vegas,
        cubic: a.cubic,
        bbr: a.bbr,
        sack: a.sack,
        ecn: a.ecn,
        udp: a.udp,
        udp_rate: a.udp_rate,
        buffer: a.buffer,
        duration: a.duration,
        warmup: a.warmup,
        start_spread: a.start_spread,
        seed: a.seed,
        bw: a.bw,
        delay: a.delay,
        access_bw: a.access_bw,
        reno_delay: a.reno_delay,
        vegas_delay: a.vegas_delay,
        red_min: a.red_min,
        red_max: a.red_max,
        red_maxp: a.red_maxp,
        red_wq: a.red_wq,
        red_no_gentle: a.red_no_gentle,
        red_wait: a.red_wait,
        red_ns: a.red_ns,
        ns3_order: a.ns3_order,
        newreno: a.newreno,
        delayed_ack: a.delayed_ack,
        mss: a.mss,
        init_cwnd: a.init_cwnd,
        rwnd: a.rwnd,
        min_rto: a.min_rto,
        vegas_alpha: a.vegas_alpha,
        vegas_beta: a.vegas_beta,
        vegas_gamma: a.vegas_gamma,
        vegas_loss: a.vegas_loss.clone(),
        series: a.series.clone(),
        sample_ms: a.sample_ms,
        keep_series: false,
        zombie: a.zombie.params(),
    };
    let r = aqm::sim(&cfg, &Bars::new())?;
    let mut runs: Vec<(String, Value)> = Vec::new();
    for run in &r.runs {
        let v = serde_json::to_value(run)?;
        runs.push((v["config"]["aqm"]["name"].as_str().unwrap_or("").into(), v));
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
        println!("\nthroughput share per algorithm:");
        for (name, v) in &runs {
            let shares = v["shares"].as_array().cloned().unwrap_or_default();
            let parts: Vec<String> = shares
                .iter()
                .map(|s| {
                    format!(
                        "{} {:.3} ({:.2} Mb/s/flow, loss {:.4})",
                        s["kind"].as_str().unwrap_or(""),
                        s["share"].as_f64().unwrap_or(f64::NAN),
                        s["mean_mbps"].as_f64().unwrap_or(f64::NAN),
                        s["loss_rate"].as_f64().unwrap_or(f64::NAN)
                    )
                })
                .collect();
            println!("  {name:<9} {}", parts.join(", "));
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
    /// Buffer, packets (accepts 1K etc.).
    #[arg(long, default_value = "5000", value_parser = parse_size)]
    buffer: u64,
    /// Arrivals per measurement (accepts 100K, 4M, 2^22 etc.).
    #[arg(long, default_value = "4000000", value_parser = parse_size)]
    packets: u64,
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

fn bench(a: BenchArgs) -> Result<i32> {
    let cfg = AqmBenchConfig {
        aqm: a.aqm.clone(),
        flows: a.flows.clone(),
        buffer: usize::try_from(a.buffer).unwrap_or(usize::MAX),
        packets: usize::try_from(a.packets).unwrap_or(usize::MAX),
        reps: a.reps,
        seed: a.seed,
        zombie: a.zombie.params(),
    };
    let r = aqm::bench(&cfg, &Bars::new())?;
    let out = serde_json::to_value(&r)?;
    if a.json {
        println!("{out}");
    } else {
        println!(
            "{:<9} {:>8} {:>12} {:>8}",
            "aqm", "flows", "ns/packet", "drops"
        );
        for r in out["rows"].as_array().into_iter().flatten() {
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
