//! AQM experiments (paper 002, Kurata, Hasegawa & Murata, ZL-RED): the dumbbell of fig. 4
//! under one or more disciplines ([`sim`]), the figure sweeps fig. 2 and figs. 5–8 run in
//! parallel over points × seeds ([`study`], with [`StudyResult::csv`] and [`write_study`]),
//! and the per-packet cost of each discipline ([`bench`]).

use super::{check, median, Error, Progress, Result};
use crate::aqm::{AqmParamSet, AqmSpec, FlowKey, RedParams, SredParams, ZlRedParams};
use crate::netsim::scenarios::dumbbell::{run, DumbbellConfig, DumbbellResult};
use crate::netsim::tcp::{TcpConfig, VegasLoss};
use crate::netsim::{secs, MS};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Parameters of the zombie-list disciplines (SRED, ZL-RED).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ZombieParams {
    /// Zombie list size m.
    pub zombies: usize,
    /// p_max.
    pub p_max: f64,
    /// p_swap.
    pub p_swap: f64,
    /// Hit-frequency weight α (default 1/m).
    pub alpha: Option<f64>,
    /// Flow id: `src-dst` (paper 002) or `5-tuple`.
    pub flow_key: String,
    /// ZL-RED mis-behaving multiplier a (≥ 1).
    pub zl_a: f64,
    /// ZL-RED th_min, packets.
    pub th_min: f64,
    /// ZL-RED EWMA weight of P_avg.
    pub w_avg: f64,
}

impl Default for ZombieParams {
    fn default() -> Self {
        ZombieParams {
            zombies: 1000,
            p_max: 0.15,
            p_swap: 0.25,
            alpha: None,
            flow_key: "src-dst".into(),
            zl_a: 1.0,
            th_min: 5.0,
            w_avg: 0.001,
        }
    }
}

impl ZombieParams {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        check::int_range("--zombies", self.zombies as u64, 1, 1 << 26)?;
        check::real_range("--p-max", self.p_max, 0.0, 1.0)?;
        check::real_range("--p-swap", self.p_swap, 0.0, 1.0)?;
        if let Some(a) = self.alpha {
            check::positive("--alpha", a)?;
            check::real_range("--alpha", a, 0.0, 1.0)?;
        }
        check::real_range("--zl-a", self.zl_a, 1.0, 1e9)?;
        check::non_negative("--th-min", self.th_min)?;
        check::positive("--w-avg", self.w_avg)?;
        check::real_range("--w-avg", self.w_avg, 0.0, 1.0)
    }

    /// Fills the SRED/ZL-RED parts of a parameter set.
    pub fn apply(&self, ps: &mut AqmParamSet) -> Result<()> {
        self.validate()?;
        let flow_key = match self.flow_key.as_str() {
            "src-dst" => FlowKey::SrcDst,
            "5-tuple" | "five-tuple" => FlowKey::FiveTuple,
            o => {
                return Err(Error::param(format!(
                    "--flow-key must be src-dst or 5-tuple (got '{o}')"
                )))
            }
        };
        ps.sred = SredParams {
            m: self.zombies,
            p_max: self.p_max,
            p_swap: self.p_swap,
            alpha: self.alpha,
            flow_key,
        };
        ps.sred.validate().map_err(Error::Param)?;
        ps.zlred = ZlRedParams {
            sred: ps.sred.clone(),
            a: self.zl_a,
            th_min: self.th_min,
            w_avg: self.w_avg,
        };
        ps.zlred.validate().map_err(Error::Param)?;
        Ok(())
    }
}

/// Configuration of [`sim`]: the dumbbell in the paper's units (Mbit/s, ms, packets).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct AqmSimConfig {
    /// Disciplines at the bottleneck (one run each): droptail, red, sred, zlred, choke, drr,
    /// fq_codel.
    pub aqm: Vec<String>,
    /// TCP Reno senders (Nr).
    pub reno: u32,
    /// TCP Vegas senders (Nv).
    pub vegas: u32,
    /// UDP CBR senders.
    pub udp: u32,
    /// Rate of each UDP sender, Mbit/s.
    pub udp_rate: f64,
    /// Router buffer B, packets.
    pub buffer: u64,
    /// Simulated seconds.
    pub duration: f64,
    /// Seconds excluded from the measurement at the start.
    pub warmup: f64,
    /// Senders start uniformly at random within this many seconds.
    pub start_spread: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Bottleneck bandwidth BW, Mbit/s.
    pub bw: f64,
    /// Bottleneck propagation delay, ms.
    pub delay: f64,
    /// Access-link bandwidth, Mbit/s.
    pub access_bw: f64,
    /// Access-link delay of Reno (and UDP) senders τ_rx, ms.
    pub reno_delay: f64,
    /// Access-link delay of Vegas senders τ_vx, ms.
    pub vegas_delay: f64,
    /// RED min threshold, packets.
    pub red_min: f64,
    /// RED max threshold, packets.
    pub red_max: f64,
    /// RED max_p.
    pub red_maxp: f64,
    /// RED EWMA weight w_q.
    pub red_wq: f64,
    /// Disable gentle RED.
    pub red_no_gentle: bool,
    /// ns-style "wait" spacing between RED drops.
    pub red_wait: bool,
    /// NewReno partial-ACK recovery.
    pub newreno: bool,
    /// Delayed ACKs.
    pub delayed_ack: bool,
    /// Segment payload, bytes.
    pub mss: u32,
    /// Initial congestion window, segments.
    pub init_cwnd: u32,
    /// Receiver window, segments.
    pub rwnd: u32,
    /// Minimum RTO, ms.
    pub min_rto: f64,
    /// Vegas alpha.
    pub vegas_alpha: f64,
    /// Vegas beta.
    pub vegas_beta: f64,
    /// Vegas gamma.
    pub vegas_gamma: f64,
    /// Vegas loss reaction: `quarter` or `one-segment`.
    pub vegas_loss: String,
    /// Write a time series CSV here (with several disciplines: `PATH.AQM.csv` each).
    pub series: Option<String>,
    /// Sampling interval of the series, ms.
    pub sample_ms: f64,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl Default for AqmSimConfig {
    fn default() -> Self {
        AqmSimConfig {
            aqm: vec!["droptail".into()],
            reno: 10,
            vegas: 10,
            udp: 0,
            udp_rate: 10.0,
            buffer: 1000,
            duration: 60.0,
            warmup: 10.0,
            start_spread: 1.0,
            seed: 1,
            bw: 45.0,
            delay: 20.0,
            access_bw: 45.0,
            reno_delay: 20.0,
            vegas_delay: 20.0,
            red_min: 5.0,
            red_max: 15.0,
            red_maxp: 0.1,
            red_wq: 0.002,
            red_no_gentle: false,
            red_wait: false,
            newreno: false,
            delayed_ack: false,
            mss: 1000,
            init_cwnd: 2,
            rwnd: 4096,
            min_rto: 1000.0,
            vegas_alpha: 1.0,
            vegas_beta: 3.0,
            vegas_gamma: 1.0,
            vegas_loss: "quarter".into(),
            series: None,
            sample_ms: 10.0,
            zombie: ZombieParams::default(),
        }
    }
}

fn positive(name: &str, v: f64) -> Result<f64> {
    check::positive(&format!("--{name}"), v).map(|_| v)
}

fn non_negative(name: &str, v: f64) -> Result<f64> {
    check::non_negative(&format!("--{name}"), v).map(|_| v)
}

fn mbps(name: &str, v: f64) -> Result<u64> {
    Ok((positive(name, v)? * 1e6).round() as u64)
}

fn ms(name: &str, v: f64) -> Result<u64> {
    Ok((non_negative(name, v)? * MS as f64).round() as u64)
}

impl AqmSimConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range),
    /// before any simulation starts.
    pub fn validate(&self) -> Result<()> {
        let senders = self.reno as u64 + self.vegas as u64 + self.udp as u64;
        check::int_range(
            "--reno/--vegas/--udp (senders in all)",
            senders,
            1,
            1_000_000,
        )?;
        if self.udp > 0 {
            check::positive("--udp-rate", self.udp_rate)?;
        }
        check::int_range("--buffer", self.buffer, 1, u32::MAX as u64)?;
        check::warmup_duration(self.warmup, self.duration)?;
        check::non_negative("--start-spread", self.start_spread)?;
        check::positive("--bw", self.bw)?;
        check::non_negative("--delay", self.delay)?;
        check::positive("--access-bw", self.access_bw)?;
        check::non_negative("--reno-delay", self.reno_delay)?;
        check::non_negative("--vegas-delay", self.vegas_delay)?;
        check::non_negative("--red-min", self.red_min)?;
        check::positive("--red-max", self.red_max)?;
        check::require(self.red_min < self.red_max, "--red-max", || {
            format!(
                "must be above --red-min {} (got {})",
                self.red_min, self.red_max
            )
        })?;
        check::positive("--red-maxp", self.red_maxp)?;
        check::real_range("--red-maxp", self.red_maxp, 0.0, 1.0)?;
        check::positive("--red-wq", self.red_wq)?;
        check::real_range("--red-wq", self.red_wq, 0.0, 1.0)?;
        check::int_range("--mss", self.mss as u64, 1, 65_000)?;
        check::int_range("--rwnd", self.rwnd as u64, 2, 1 << 20)?;
        check::int_range("--init-cwnd", self.init_cwnd as u64, 1, self.rwnd as u64)?;
        check::positive("--min-rto", self.min_rto)?;
        check::non_negative("--vegas-alpha", self.vegas_alpha)?;
        check::require(self.vegas_alpha <= self.vegas_beta, "--vegas-beta", || {
            format!(
                "must be at least --vegas-alpha {} (got {})",
                self.vegas_alpha, self.vegas_beta
            )
        })?;
        check::non_negative("--vegas-gamma", self.vegas_gamma)?;
        if self.series.is_some() {
            check::positive("--sample-ms", self.sample_ms)?;
        }
        self.zombie.validate()
    }

    /// The simulator's configuration for one discipline.
    pub fn dumbbell(&self, spec: AqmSpec) -> Result<DumbbellConfig> {
        let a = self;
        let vegas_loss = match a.vegas_loss.as_str() {
            "quarter" => VegasLoss::ThreeQuarters,
            "one-segment" => VegasLoss::OneSegment,
            o => {
                return Err(Error::param(format!(
                    "--vegas-loss must be quarter or one-segment (got '{o}')"
                )))
            }
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
        let buffer = u32::try_from(a.buffer).map_err(|_| Error::param("--buffer too large"))?;
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
        cfg.validate().map_err(Error::Param)?;
        Ok(cfg)
    }

    /// The discipline specs of `self.aqm`, with the RED and zombie parameters applied.
    pub fn specs(&self) -> Result<Vec<AqmSpec>> {
        let red = RedParams {
            min_th: self.red_min,
            max_th: self.red_max,
            max_p: self.red_maxp,
            w_q: self.red_wq,
            gentle: !self.red_no_gentle,
            wait: self.red_wait,
        };
        let mut ps = AqmParamSet {
            red,
            ..AqmParamSet::default()
        };
        self.zombie.apply(&mut ps)?;
        let specs = self
            .aqm
            .iter()
            .map(|n| AqmSpec::parse_with(n, &ps).map_err(|e| Error::param(format!("--aqm: {e}"))))
            .collect::<Result<Vec<_>>>()?;
        if specs.is_empty() {
            return Err(Error::param("--aqm: empty list"));
        }
        Ok(specs)
    }
}

/// The discipline of a run with its parameters, as echoed in results.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "name")]
#[allow(missing_docs)] // fields are the parameters of the named discipline
pub enum AqmInfo {
    /// Tail drop.
    #[serde(rename = "droptail")]
    DropTail,
    /// RED.
    #[serde(rename = "red")]
    Red {
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
        gentle: bool,
        wait: bool,
    },
    /// SRED.
    #[serde(rename = "sred")]
    Sred {
        m: usize,
        p_max: f64,
        p_swap: f64,
        alpha: f64,
        flow_key: &'static str,
    },
    /// CHOKe.
    #[serde(rename = "choke")]
    Choke {
        min_th: f64,
        max_th: f64,
        max_p: f64,
        w_q: f64,
    },
    /// DRR.
    #[serde(rename = "drr")]
    Drr {
        quantum_bytes: u32,
        queues: &'static str,
        overflow: &'static str,
    },
    /// FQ-CoDel.
    #[serde(rename = "fq_codel")]
    FqCodel {
        buckets: usize,
        quantum_bytes: u32,
        target_ms: f64,
        interval_ms: f64,
    },
    /// ZL-RED.
    #[serde(rename = "zlred")]
    ZlRed {
        m: usize,
        p_max: f64,
        p_swap: f64,
        alpha: f64,
        flow_key: &'static str,
        a: f64,
        th_min: f64,
        w_avg: f64,
    },
}

fn flow_key_name(k: FlowKey) -> &'static str {
    match k {
        FlowKey::SrcDst => "src-dst",
        FlowKey::FiveTuple => "5-tuple",
    }
}

impl AqmInfo {
    fn of(s: &AqmSpec) -> Self {
        match s {
            AqmSpec::DropTail => AqmInfo::DropTail,
            AqmSpec::Red(p) => AqmInfo::Red {
                min_th: p.min_th,
                max_th: p.max_th,
                max_p: p.max_p,
                w_q: p.w_q,
                gentle: p.gentle,
                wait: p.wait,
            },
            AqmSpec::Sred(p) => AqmInfo::Sred {
                m: p.m,
                p_max: p.p_max,
                p_swap: p.p_swap,
                alpha: p.alpha.unwrap_or(1.0 / p.m as f64),
                flow_key: flow_key_name(p.flow_key),
            },
            AqmSpec::Choke(p) => AqmInfo::Choke {
                min_th: p.min_th,
                max_th: p.max_th,
                max_p: p.max_p,
                w_q: p.w_q,
            },
            AqmSpec::Drr(q) => AqmInfo::Drr {
                quantum_bytes: *q,
                queues: "exact per flow",
                overflow: "drop head of longest queue",
            },
            AqmSpec::FqCodel(p) => AqmInfo::FqCodel {
                buckets: p.buckets,
                quantum_bytes: p.quantum,
                target_ms: p.target as f64 / 1e6,
                interval_ms: p.interval as f64 / 1e6,
            },
            AqmSpec::ZlRed(z) => {
                let p = &z.sred;
                AqmInfo::ZlRed {
                    m: p.m,
                    p_max: p.p_max,
                    p_swap: p.p_swap,
                    alpha: p.alpha.unwrap_or(1.0 / p.m as f64),
                    flow_key: flow_key_name(p.flow_key),
                    a: z.a,
                    th_min: z.th_min,
                    w_avg: z.w_avg,
                }
            }
        }
    }
}

/// TCP options of a run, as echoed in results.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // field names say it; units in the suffix
pub struct TcpInfo {
    pub mss: u32,
    pub header_bytes: u32,
    pub ack_bytes: u32,
    pub init_cwnd: u32,
    pub rwnd_segments: u32,
    pub min_rto_ms: f64,
    pub initial_rto_ms: f64,
    pub max_rto_ms: f64,
    pub granularity_ms: f64,
    pub dupack_threshold: u32,
    pub recovery: &'static str,
    pub sack: bool,
    pub timestamps: bool,
    pub delayed_ack: bool,
    pub delack_timeout_ms: f64,
    pub vegas_alpha: f64,
    pub vegas_beta: f64,
    pub vegas_gamma: f64,
    pub vegas_loss: &'static str,
}

/// The dumbbell of a run, as echoed in results (Mbit/s, ms, s).
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // field names say it; units in the suffix
pub struct RunConfigInfo {
    pub scenario: &'static str,
    pub reno: u32,
    pub vegas: u32,
    pub udp: u32,
    pub udp_rate_mbps: f64,
    pub access_bw_mbps: f64,
    pub reno_delay_ms: f64,
    pub vegas_delay_ms: f64,
    pub bottleneck_bw_mbps: f64,
    pub bottleneck_delay_ms: f64,
    pub buffer_pkts: u32,
    pub aqm: AqmInfo,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub start_spread_s: f64,
    pub seed: u64,
    pub access_queues: &'static str,
    pub tcp: TcpInfo,
}

impl RunConfigInfo {
    /// The echo of a simulator configuration.
    pub fn of(c: &DumbbellConfig) -> Self {
        let t = &c.tcp;
        let msf = |x: u64| x as f64 / MS as f64;
        RunConfigInfo {
            scenario: "dumbbell",
            reno: c.reno,
            vegas: c.vegas,
            udp: c.udp,
            udp_rate_mbps: c.udp_rate_bps as f64 / 1e6,
            access_bw_mbps: c.access_bw_bps as f64 / 1e6,
            reno_delay_ms: msf(c.reno_delay),
            vegas_delay_ms: msf(c.vegas_delay),
            bottleneck_bw_mbps: c.bottleneck_bw_bps as f64 / 1e6,
            bottleneck_delay_ms: msf(c.bottleneck_delay),
            buffer_pkts: c.buffer,
            aqm: AqmInfo::of(&c.aqm),
            duration_s: c.duration as f64 / 1e9,
            warmup_s: c.warmup as f64 / 1e9,
            start_spread_s: c.start_spread as f64 / 1e9,
            seed: c.seed,
            access_queues: "unbounded FIFO (losses only at the bottleneck)",
            tcp: TcpInfo {
                mss: t.mss,
                header_bytes: t.header,
                ack_bytes: t.ack_size,
                init_cwnd: t.init_cwnd,
                rwnd_segments: t.rwnd,
                min_rto_ms: msf(t.min_rto),
                initial_rto_ms: msf(t.initial_rto),
                max_rto_ms: msf(t.max_rto),
                granularity_ms: msf(t.granularity),
                dupack_threshold: t.dupack_threshold,
                recovery: if t.newreno { "newreno" } else { "reno" },
                sack: false,
                timestamps: false,
                delayed_ack: t.delayed_ack,
                delack_timeout_ms: msf(t.delack_timeout),
                vegas_alpha: t.vegas_alpha,
                vegas_beta: t.vegas_beta,
                vegas_gamma: t.vegas_gamma,
                vegas_loss: match t.vegas_loss {
                    VegasLoss::ThreeQuarters => "quarter",
                    VegasLoss::OneSegment => "one-segment",
                },
            },
        }
    }
}

/// One flow of a run.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // mirrors netsim's FlowResult
pub struct FlowInfo {
    pub id: u32,
    pub kind: &'static str,
    pub goodput_mbps: f64,
    pub loss_rate: f64,
    pub drops: u64,
    pub arrivals: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub final_cwnd: f64,
}

/// Aggregates of a run (over the measurement window).
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // mirrors netsim's DumbbellResult
pub struct Summary {
    pub reno_mbps: f64,
    pub vegas_mbps: f64,
    pub udp_mbps: f64,
    pub vegas_share: f64,
    pub jain: f64,
    pub utilization: f64,
    pub loss_rate: f64,
    pub reno_loss_rate: f64,
    pub vegas_loss_rate: f64,
    pub mean_queue_pkts: f64,
    pub mean_queue_delay_ms: f64,
    pub early_drops: u64,
    pub forced_drops: u64,
    /// The discipline's estimate of the number of active flows (SRED/ZL-RED's 1/P).
    pub flow_estimate: Option<f64>,
}

impl Summary {
    fn of(r: &DumbbellResult) -> Self {
        Summary {
            reno_mbps: r.reno_mbps,
            vegas_mbps: r.vegas_mbps,
            udp_mbps: r.udp_mbps,
            vegas_share: r.vegas_share,
            jain: r.jain,
            utilization: r.utilization,
            loss_rate: r.loss_rate,
            reno_loss_rate: r.reno_loss_rate,
            vegas_loss_rate: r.vegas_loss_rate,
            mean_queue_pkts: r.mean_queue_pkts,
            mean_queue_delay_ms: r.mean_queue_delay_ms,
            early_drops: r.early_drops,
            forced_drops: r.forced_drops,
            flow_estimate: r.flow_estimate,
        }
    }

    /// A metric by name ([`METRICS`]); NaN if absent.
    pub fn metric(&self, k: &str) -> f64 {
        match k {
            "reno_mbps" => self.reno_mbps,
            "vegas_mbps" => self.vegas_mbps,
            "vegas_share" => self.vegas_share,
            "jain" => self.jain,
            "loss_rate" => self.loss_rate,
            "reno_loss_rate" => self.reno_loss_rate,
            "vegas_loss_rate" => self.vegas_loss_rate,
            "utilization" => self.utilization,
            "mean_queue_pkts" => self.mean_queue_pkts,
            "flow_estimate" => self.flow_estimate.unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }
}

/// One simulation run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Its configuration.
    pub config: RunConfigInfo,
    /// Wall-clock seconds it took.
    pub wall_s: f64,
    /// Simulator events processed.
    pub events: u64,
    /// Per flow.
    pub flows: Vec<FlowInfo>,
    /// Aggregates.
    pub summary: Summary,
}

impl RunResult {
    fn of(c: &DumbbellConfig, r: &DumbbellResult, wall: f64) -> Self {
        RunResult {
            config: RunConfigInfo::of(c),
            wall_s: wall,
            events: r.events,
            flows: r
                .flows
                .iter()
                .map(|f| FlowInfo {
                    id: f.id,
                    kind: f.kind.name(),
                    goodput_mbps: f.goodput_mbps,
                    loss_rate: f.loss_rate,
                    drops: f.drops,
                    arrivals: f.arrivals,
                    fast_retransmits: f.fast_retransmits,
                    timeouts: f.timeouts,
                    final_cwnd: f.final_cwnd,
                })
                .collect(),
            summary: Summary::of(r),
        }
    }
}

/// Result of [`sim`]: one run per discipline, in the order asked.
#[derive(Clone, Debug, Serialize)]
pub struct AqmSimResult {
    /// The runs.
    pub runs: Vec<RunResult>,
}

fn write_series(path: &str, r: &DumbbellResult, aqm: &str, many: bool) -> Result<String> {
    let Some(s) = &r.series else {
        return Ok(String::new());
    };
    let path = if many {
        format!("{path}.{aqm}.csv")
    } else {
        path.to_string()
    };
    let f = std::fs::File::create(&path).map_err(|e| Error::output(&path, "cannot create", e))?;
    let mut w = std::io::BufWriter::new(f);
    let mut out = || -> std::io::Result<()> {
        let mut head = String::from("t_s,queue_pkts,avg_pkts");
        for i in 0..s.tcp_flows {
            head.push_str(&format!(",cwnd{i}"));
        }
        writeln!(w, "{head}")?;
        for (i, t) in s.t.iter().enumerate() {
            let mut line = format!("{t:.4},{},{:.3}", s.queue[i], s.avg[i]);
            for c in &s.cwnd[i * s.tcp_flows..(i + 1) * s.tcp_flows] {
                line.push_str(&format!(",{c:.2}"));
            }
            writeln!(w, "{line}")?;
        }
        w.flush()
    };
    out().map_err(|e| Error::output(&path, "write failed", e))?;
    Ok(path)
}

/// Simulates the dumbbell of paper 002 fig. 4 once per discipline of `cfg.aqm`: goodput of
/// the Reno and Vegas groups, Vegas' share, Jain's index, losses, queue; with `cfg.series`,
/// writes the queue/cwnd time series as CSV.
pub fn sim(cfg: &AqmSimConfig, p: &dyn Progress) -> Result<AqmSimResult> {
    cfg.validate()?;
    let specs = cfg.specs()?;
    let many = specs.len() > 1;
    let mut runs = Vec::new();
    for spec in specs {
        let name = spec.name();
        let dc = cfg.dumbbell(spec)?;
        p.note(&format!(
            "aqm sim {name}: {} reno + {} vegas + {} udp, {} s simulated…",
            dc.reno, dc.vegas, dc.udp, cfg.duration
        ));
        p.start(&format!("aqm sim {name}"), None);
        let t0 = Instant::now();
        let r = run(&dc).map_err(Error::Param)?;
        let wall = t0.elapsed().as_secs_f64();
        p.finish();
        p.note(&format!(
            "aqm sim {name}: {:.3} s wall, {} events ({:.1} M events/s)",
            wall,
            r.events,
            r.events as f64 / wall / 1e6
        ));
        if let Some(path) = &cfg.series {
            let w = write_series(path, &r, name, many)?;
            if !w.is_empty() {
                p.note(&format!("wrote {w}"));
            }
        }
        runs.push(RunResult::of(&dc, &r, wall));
    }
    Ok(AqmSimResult { runs })
}

/// Configuration of [`study`]: a figure of paper 002 and its sweep.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct StudyConfig {
    /// `fig2`, `fig5`, `fig6`, `fig7` or `fig8`.
    pub fig: String,
    /// Disciplines (default: fig2 sred; others sred,zlred).
    pub aqm: Option<Vec<String>>,
    /// Total TCP connections per point (fig5–7: half Reno, half Vegas; fig2: all Reno).
    pub conns: Option<Vec<u32>>,
    /// Buffer sizes B, packets.
    pub buffers: Option<Vec<u32>>,
    /// Zombie list sizes m.
    pub ms: Option<Vec<usize>>,
    /// ZL-RED a values.
    pub a: Option<Vec<f64>>,
    /// fig8: access delays τ_vx of the second Reno group, ms.
    pub delays: Option<Vec<f64>>,
    /// Seeds per point (seed, seed+1, …).
    pub seeds: u64,
    /// First seed.
    pub seed: u64,
    /// Simulated seconds per run (paper: 500).
    pub duration: f64,
    /// Seconds excluded from the measurement at the start.
    pub warmup: f64,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl StudyConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range),
    /// before any run starts.
    pub fn validate(&self) -> Result<()> {
        check::int_range("--seeds", self.seeds, 1, 10_000)?;
        check::warmup_duration(self.warmup, self.duration)?;
        if let Some(t) = self.threads {
            check::int_range("--threads", t as u64, 1, 1024)?;
        }
        let min_conns = if self.fig == "fig2" { 1 } else { 2 };
        for &c in self.conns.iter().flatten() {
            check::int_range("--conns", c as u64, min_conns, 1_000_000)?;
        }
        for &b in self.buffers.iter().flatten() {
            check::int_range("--buffers", b as u64, 1, u32::MAX as u64)?;
        }
        for &m in self.ms.iter().flatten() {
            check::int_range("--ms", m as u64, 1, 1 << 26)?;
        }
        for &a in self.a.iter().flatten() {
            check::real_range("--a", a, 1.0, 1e9)?;
        }
        for &d in self.delays.iter().flatten() {
            check::non_negative("--delays", d)?;
        }
        self.zombie.validate()
    }
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            fig: "fig5".into(),
            aqm: None,
            conns: None,
            buffers: None,
            ms: None,
            a: None,
            delays: None,
            seeds: 3,
            seed: 1,
            duration: 500.0,
            warmup: 50.0,
            threads: None,
            zombie: ZombieParams::default(),
        }
    }
}

/// One point of a study's sweep.
#[derive(Clone, Debug)]
struct Point {
    aqm: String,
    spec: AqmSpec,
    buffer: u32,
    m: usize,
    a: f64,
    reno: u32,
    vegas: u32,
    vegas_delay_ms: f64,
    reno_only: bool,
}

/// The metrics a study aggregates over seeds, in CSV column order.
pub const METRICS: [&str; 10] = [
    "reno_mbps",
    "vegas_mbps",
    "vegas_share",
    "jain",
    "loss_rate",
    "reno_loss_rate",
    "vegas_loss_rate",
    "utilization",
    "mean_queue_pkts",
    "flow_estimate",
];

fn points(a: &StudyConfig, base: &AqmParamSet) -> Result<Vec<Point>> {
    let fig = a.fig.as_str();
    let def_aqm: Vec<String> = match fig {
        "fig2" => vec!["sred".into()],
        "fig5" | "fig6" | "fig7" | "fig8" => vec!["sred".into(), "zlred".into()],
        o => {
            return Err(Error::param(format!(
                "unknown study '{o}' (known: fig2, fig5, fig6, fig7, fig8)"
            )))
        }
    };
    let aqms = a.aqm.clone().unwrap_or(def_aqm);
    let conns = a.conns.clone().unwrap_or(match fig {
        "fig2" => vec![10, 20, 40, 80, 160, 320, 640, 1280],
        "fig8" => vec![10, 100],
        _ => vec![2, 10, 20, 50, 100, 200],
    });
    let buffers = a.buffers.clone().unwrap_or(match fig {
        "fig5" => vec![1000, 5000, 10000],
        _ => vec![5000],
    });
    let ms = a.ms.clone().unwrap_or(match fig {
        "fig2" => vec![100, 1000],
        "fig6" => vec![10, 100, 1000, 10000],
        _ => vec![a.zombie.zombies],
    });
    let avals = a.a.clone().unwrap_or(match fig {
        "fig7" => vec![1.0, 2.0, 4.0, 8.0],
        "fig8" => vec![1.0, 4.0],
        _ => vec![a.zombie.zl_a],
    });
    let delays = a.delays.clone().unwrap_or(match fig {
        "fig8" => vec![5.0, 10.0, 20.0, 40.0, 80.0, 160.0],
        _ => vec![20.0],
    });
    for &c in &conns {
        if c == 0 || (fig != "fig2" && c < 2) {
            return Err(Error::param(format!(
                "--conns: need at least {} connections (got {c})",
                if fig == "fig2" { 1 } else { 2 }
            )));
        }
    }
    let mut out = Vec::new();
    for name in &aqms {
        let zombie = name.starts_with("sred") || name.starts_with("zl");
        let is_zl = name.starts_with("zl");
        for &b in &buffers {
            for &m in if zombie { &ms[..] } else { &ms[..1] } {
                for &av in if is_zl { &avals[..] } else { &avals[..1] } {
                    let mut ps = base.clone();
                    ps.sred.m = m;
                    ps.zlred.sred.m = m;
                    ps.zlred.a = av;
                    ps.sred
                        .validate()
                        .map_err(|e| Error::param(format!("--ms: {e}")))?;
                    ps.zlred
                        .validate()
                        .map_err(|e| Error::param(format!("--a: {e}")))?;
                    let spec = AqmSpec::parse_with(name, &ps)
                        .map_err(|e| Error::param(format!("--aqm: {e}")))?;
                    for &d in &delays {
                        for &c in &conns {
                            let (reno, vegas) = if fig == "fig2" {
                                (c, 0)
                            } else {
                                (c - c / 2, c / 2)
                            };
                            out.push(Point {
                                aqm: spec.name().to_string(),
                                spec: spec.clone(),
                                buffer: b,
                                m: if zombie { m } else { 0 },
                                a: if is_zl { av } else { f64::NAN },
                                reno,
                                vegas,
                                vegas_delay_ms: d,
                                reno_only: fig == "fig8",
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

fn study_run_config(a: &StudyConfig, p: &Point, seed: u64) -> Result<DumbbellConfig> {
    let cfg = DumbbellConfig {
        reno: p.reno,
        vegas: p.vegas,
        buffer: p.buffer,
        aqm: p.spec.clone(),
        duration: secs(a.duration),
        warmup: secs(a.warmup),
        vegas_delay: (p.vegas_delay_ms * MS as f64).round() as u64,
        vegas_uses_reno: p.reno_only,
        seed,
        ..DumbbellConfig::default()
    };
    cfg.validate().map_err(Error::Param)?;
    Ok(cfg)
}

/// Mean, minimum and maximum of a metric over seeds (null when no seed produced it).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Stat {
    /// Mean.
    pub mean: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Stat {
    fn of(v: &[f64]) -> Stat {
        if v.is_empty() {
            return Stat {
                mean: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        Stat {
            mean: v.iter().sum::<f64>() / v.len() as f64,
            min: v.iter().cloned().fold(f64::INFINITY, f64::min),
            max: v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// One point of a study, aggregated over its seeds.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // metric fields are those of `Summary`, see `METRICS`
pub struct StudyRow {
    /// Discipline.
    pub aqm: String,
    /// Buffer B, packets.
    pub buffer: u32,
    /// Zombie list size (0 for disciplines without one).
    pub m: usize,
    /// ZL-RED's a (None for other disciplines).
    pub a: Option<f64>,
    /// Reno + Vegas connections.
    pub conns: u32,
    /// Reno connections.
    pub reno: u32,
    /// Vegas (fig8: second Reno group) connections.
    pub vegas: u32,
    /// Access delay of the second group, ms.
    pub vegas_delay_ms: f64,
    /// Seeds aggregated.
    pub seeds: usize,
    pub reno_mbps: Stat,
    pub vegas_mbps: Stat,
    pub vegas_share: Stat,
    pub jain: Stat,
    pub loss_rate: Stat,
    pub reno_loss_rate: Stat,
    pub vegas_loss_rate: Stat,
    pub utilization: Stat,
    pub mean_queue_pkts: Stat,
    pub flow_estimate: Stat,
}

impl StudyRow {
    /// A metric's statistics by name ([`METRICS`]).
    pub fn metric(&self, k: &str) -> Option<&Stat> {
        Some(match k {
            "reno_mbps" => &self.reno_mbps,
            "vegas_mbps" => &self.vegas_mbps,
            "vegas_share" => &self.vegas_share,
            "jain" => &self.jain,
            "loss_rate" => &self.loss_rate,
            "reno_loss_rate" => &self.reno_loss_rate,
            "vegas_loss_rate" => &self.vegas_loss_rate,
            "utilization" => &self.utilization,
            "mean_queue_pkts" => &self.mean_queue_pkts,
            "flow_estimate" => &self.flow_estimate,
            _ => return None,
        })
    }
}

/// One run of a study.
#[derive(Clone, Debug, Serialize)]
pub struct StudyRun {
    /// Index of its point in `rows`.
    pub point: usize,
    /// Its seed.
    pub seed: u64,
    /// Its aggregates.
    pub run: Summary,
    /// Wall-clock seconds.
    pub wall_s: f64,
}

/// Result of [`study`] (what `figN.json` holds).
#[derive(Clone, Debug, Serialize)]
pub struct StudyResult {
    /// The figure.
    pub study: String,
    /// The paper.
    pub paper: &'static str,
    /// Simulated seconds per run.
    pub duration_s: f64,
    /// Warm-up seconds.
    pub warmup_s: f64,
    /// Seeds per point.
    pub seeds: u64,
    /// First seed.
    pub first_seed: u64,
    /// Worker threads used.
    pub threads: usize,
    /// Runs in total.
    pub runs_total: usize,
    /// Wall-clock seconds of the whole study.
    pub wall_s: f64,
    /// The configuration of the first run.
    pub config_example: Option<RunConfigInfo>,
    /// Points aggregated over seeds.
    pub rows: Vec<StudyRow>,
    /// Every run.
    pub runs: Vec<StudyRun>,
}

/// Runs a figure of paper 002 as a sweep over its points × `cfg.seeds` seeds, in parallel
/// on `cfg.threads` threads (rayon); each point is aggregated into mean/min/max per metric.
pub fn study(cfg: &StudyConfig, p: &dyn Progress) -> Result<StudyResult> {
    cfg.validate()?;
    let mut ps = AqmParamSet {
        red: RedParams::default(),
        ..AqmParamSet::default()
    };
    cfg.zombie.apply(&mut ps)?;
    let pts = points(cfg, &ps)?;
    let mut jobs = Vec::new();
    for (i, pt) in pts.iter().enumerate() {
        for s in 0..cfg.seeds {
            let seed = cfg.seed.wrapping_add(s);
            jobs.push((i, seed, study_run_config(cfg, pt, seed)?));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::param(format!("--threads: {e}")))?;
    p.note(&format!(
        "aqm study {}: {} points × {} seeds = {} runs of {} s on {} threads…",
        cfg.fig,
        pts.len(),
        cfg.seeds,
        jobs.len(),
        cfg.duration,
        pool.current_num_threads()
    ));
    let done = AtomicUsize::new(0);
    let total = jobs.len();
    let t0 = Instant::now();
    p.start(&format!("{} runs", cfg.fig), Some(total as u64));
    let results: Vec<(usize, u64, RunResult)> = pool.install(|| {
        jobs.par_iter()
            .map(|(i, seed, dc)| {
                let t = Instant::now();
                let r = run(dc).map_err(Error::Param)?;
                let wall = t.elapsed().as_secs_f64();
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                p.set(k as u64);
                Ok((*i, *seed, RunResult::of(dc, &r, wall)))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    p.finish();
    let wall = t0.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    for (i, pt) in pts.iter().enumerate() {
        let rs: Vec<&Summary> = results
            .iter()
            .filter(|r| r.0 == i)
            .map(|r| &r.2.summary)
            .collect();
        let stat = |k: &str| {
            let v: Vec<f64> = rs
                .iter()
                .map(|r| r.metric(k))
                .filter(|x| x.is_finite())
                .collect();
            Stat::of(&v)
        };
        rows.push(StudyRow {
            aqm: pt.aqm.clone(),
            buffer: pt.buffer,
            m: pt.m,
            a: pt.a.is_finite().then_some(pt.a),
            conns: pt.reno + pt.vegas,
            reno: pt.reno,
            vegas: pt.vegas,
            vegas_delay_ms: pt.vegas_delay_ms,
            seeds: rs.len(),
            reno_mbps: stat("reno_mbps"),
            vegas_mbps: stat("vegas_mbps"),
            vegas_share: stat("vegas_share"),
            jain: stat("jain"),
            loss_rate: stat("loss_rate"),
            reno_loss_rate: stat("reno_loss_rate"),
            vegas_loss_rate: stat("vegas_loss_rate"),
            utilization: stat("utilization"),
            mean_queue_pkts: stat("mean_queue_pkts"),
            flow_estimate: stat("flow_estimate"),
        });
    }
    let config_example = results.first().map(|r| r.2.config.clone());
    let runs = results
        .into_iter()
        .map(|(i, seed, r)| StudyRun {
            point: i,
            seed,
            run: r.summary,
            wall_s: r.wall_s,
        })
        .collect();
    Ok(StudyResult {
        study: cfg.fig.clone(),
        paper: "002 Kurata, Hasegawa & Murata (ZL-RED)",
        duration_s: cfg.duration,
        warmup_s: cfg.warmup,
        seeds: cfg.seeds,
        first_seed: cfg.seed,
        threads: pool.current_num_threads(),
        runs_total: total,
        wall_s: wall,
        config_example,
        rows,
        runs,
    })
}

impl StudyResult {
    /// The rows as CSV: point columns, then mean, min and max of every metric of [`METRICS`].
    pub fn csv(&self) -> String {
        let mut csv = String::from("fig,aqm,buffer,m,a,conns,reno,vegas,vegas_delay_ms,seeds");
        for k in METRICS {
            csv.push_str(&format!(",{k},{k}_min,{k}_max"));
        }
        csv.push('\n');
        let f = |x: f64| {
            if x.is_finite() {
                format!("{x:.6}")
            } else {
                String::new()
            }
        };
        for r in &self.rows {
            csv.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{}",
                self.study,
                r.aqm,
                r.buffer,
                r.m,
                r.a.map(|a| a.to_string()).unwrap_or_default(),
                r.conns,
                r.reno,
                r.vegas,
                r.vegas_delay_ms,
                r.seeds
            ));
            for k in METRICS {
                if let Some(s) = r.metric(k) {
                    csv.push_str(&format!(",{},{},{}", f(s.mean), f(s.min), f(s.max)));
                }
            }
            csv.push('\n');
        }
        csv
    }
}

/// Writes `DIR/figN.json` and `DIR/figN.csv` of a study; returns their paths.
pub fn write_study(r: &StudyResult, dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let d = dir.display().to_string();
    std::fs::create_dir_all(dir).map_err(|e| Error::output(&d, "cannot create", e))?;
    let jp = dir.join(format!("{}.json", r.study));
    let cp = dir.join(format!("{}.csv", r.study));
    let json = serde_json::to_value(r)
        .map_err(|e| Error::output(jp.display(), "cannot serialise", std::io::Error::other(e)))?;
    std::fs::write(&jp, format!("{json}\n"))
        .map_err(|e| Error::output(jp.display(), "write failed", e))?;
    std::fs::write(&cp, r.csv()).map_err(|e| Error::output(cp.display(), "write failed", e))?;
    Ok((jp, cp))
}

/// Configuration of [`bench`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct AqmBenchConfig {
    /// Disciplines to measure.
    pub aqm: Vec<String>,
    /// Numbers of active flows (arrivals pick a flow uniformly at random).
    pub flows: Vec<u32>,
    /// Buffer, packets.
    pub buffer: usize,
    /// Arrivals per measurement.
    pub packets: usize,
    /// Repetitions (the median is reported).
    pub reps: usize,
    /// Seed.
    pub seed: u64,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl AqmBenchConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        check::require(!self.flows.is_empty(), "--flows", || {
            "needs at least one value".into()
        })?;
        for &f in &self.flows {
            check::int_range("--flows", f as u64, 1, 1 << 26)?;
        }
        check::int_range("--buffer", self.buffer as u64, 2, 1 << 24)?;
        check::int_range("--packets", self.packets as u64, 1, 1 << 32)?;
        check::int_range("--reps", self.reps as u64, 1, 10_000)?;
        self.zombie.validate()
    }
}

impl Default for AqmBenchConfig {
    fn default() -> Self {
        AqmBenchConfig {
            aqm: [
                "droptail", "red", "sred", "zlred", "choke", "drr", "fq_codel",
            ]
            .map(String::from)
            .to_vec(),
            flows: vec![1000, 100_000],
            buffer: 5000,
            packets: 4_000_000,
            reps: 3,
            seed: 1,
            zombie: ZombieParams::default(),
        }
    }
}

/// One discipline at one number of flows.
#[derive(Clone, Debug, Serialize)]
pub struct AqmBenchRow {
    /// Discipline.
    pub aqm: &'static str,
    /// Active flows.
    pub flows: u32,
    /// Median ns per arrival.
    pub ns_per_packet: f64,
    /// Every repetition, sorted.
    pub ns_all_reps: Vec<f64>,
    /// Dropped / arrivals in the last repetition.
    pub drop_fraction: f64,
}

/// Result of [`bench`].
#[derive(Clone, Debug, Serialize)]
pub struct AqmBenchResult {
    /// What was measured.
    pub bench: &'static str,
    /// Buffer, packets.
    pub buffer: usize,
    /// Arrivals per measurement.
    pub packets: usize,
    /// Repetitions.
    pub reps: usize,
    /// Seed.
    pub seed: u64,
    /// Flows-major, then disciplines.
    pub rows: Vec<AqmBenchRow>,
}

/// Per-packet cost of each discipline under 25 % overload: every arrival is one `enqueue`,
/// and four of every five arrivals are followed by one `dequeue`, so each discipline settles
/// in its own dropping regime; reported as ns per arrival (enqueue + its share of dequeues).
pub fn bench(a: &AqmBenchConfig, p: &dyn Progress) -> Result<AqmBenchResult> {
    use crate::aqm::{Aqm, Discipline, Drops};
    use crate::netsim::{Packet, PktKind};
    use crate::util::SplitMix64;
    a.validate()?;
    let mut ps = AqmParamSet::default();
    a.zombie.apply(&mut ps)?;
    let mut rows = Vec::new();
    p.start("aqm bench", Some((a.flows.len() * a.aqm.len()) as u64));
    for &nf in &a.flows {
        let mut rng = SplitMix64::new(a.seed ^ nf as u64);
        // Sparse 32-bit flow ids, chosen uniformly among `nf`.
        let ids: Vec<u32> = (0..nf)
            .map(|i| crate::util::splitmix64(i as u64 ^ a.seed) as u32)
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
            let spec =
                AqmSpec::parse_with(name, &ps).map_err(|e| Error::param(format!("--aqm: {e}")))?;
            let mut times = Vec::new();
            let mut drops_total = 0u64;
            for rep in 0..a.reps {
                let mut q: Discipline<Packet> = spec
                    .build(a.buffer, 185_000, a.seed + rep as u64)
                    .map_err(Error::Param)?;
                let mut d: Drops<Packet> = Drops::default();
                let t0 = Instant::now();
                for (i, pk) in pkts.iter().enumerate() {
                    let now = i as u64 * 185_000;
                    q.enqueue(*pk, now, &mut d);
                    if i % 5 != 4 && q.len_pkts() > 0 {
                        std::hint::black_box(q.dequeue(now, &mut d));
                    }
                    d.clear();
                }
                times.push(t0.elapsed().as_secs_f64() * 1e9 / a.packets as f64);
                let s = q.stats();
                drops_total = s.early_drops + s.forced_drops;
            }
            let med = median(&mut times);
            p.note(&format!(
                "aqm bench {} flows={nf}: {med:.1} ns/packet",
                spec.name()
            ));
            rows.push(AqmBenchRow {
                aqm: spec.name(),
                flows: nf,
                ns_per_packet: med,
                ns_all_reps: times,
                drop_fraction: drops_total as f64 / a.packets as f64,
            });
            p.set(rows.len() as u64);
        }
    }
    p.finish();
    Ok(AqmBenchResult {
        bench: "aqm enqueue+dequeue",
        buffer: a.buffer,
        packets: a.packets,
        reps: a.reps,
        seed: a.seed,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Silent;

    #[test]
    fn sim_runs_every_discipline_and_vegas_gets_a_share() {
        let cfg = AqmSimConfig {
            aqm: ["droptail", "red", "zlred"].map(String::from).to_vec(),
            reno: 3,
            vegas: 3,
            duration: 3.0,
            warmup: 1.0,
            buffer: 200,
            ..AqmSimConfig::default()
        };
        let r = sim(&cfg, &Silent).unwrap();
        assert_eq!(r.runs.len(), 3);
        for run in &r.runs {
            assert_eq!(run.flows.len(), 6);
            let s = &run.summary;
            assert!(s.utilization > 0.1 && s.utilization <= 1.0 + 1e-9);
            assert!((0.0..=1.0).contains(&s.vegas_share));
        }
        assert!(matches!(r.runs[2].config.aqm, AqmInfo::ZlRed { .. }));
        assert!(r.runs[2].summary.flow_estimate.is_some());
    }

    #[test]
    fn study_aggregates_seeds_and_writes_csv() {
        let cfg = StudyConfig {
            fig: "fig7".into(),
            conns: Some(vec![4]),
            a: Some(vec![1.0, 4.0]),
            seeds: 2,
            duration: 3.0,
            warmup: 1.0,
            threads: Some(2),
            ..StudyConfig::default()
        };
        let r = study(&cfg, &Silent).unwrap();
        assert_eq!((r.rows.len(), r.runs.len()), (3, 6));
        for row in &r.rows {
            assert_eq!(row.seeds, 2);
            let j = row.jain;
            assert!(j.min <= j.mean && j.mean <= j.max);
        }
        assert_eq!(r.rows[0].a, None);
        assert_eq!(r.rows[2].a, Some(4.0));
        let csv = r.csv();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("fig7,sred,5000,1000,,4,2,2,"));
        assert!(study(
            &StudyConfig {
                fig: "fig9".into(),
                ..cfg
            },
            &Silent
        )
        .is_err());
    }

    #[test]
    fn bench_reports_every_discipline() {
        let cfg = AqmBenchConfig {
            flows: vec![10],
            packets: 5000,
            reps: 1,
            ..AqmBenchConfig::default()
        };
        let r = bench(&cfg, &Silent).unwrap();
        assert_eq!(r.rows.len(), 7);
        // Droptail drops nothing below its buffer at 25 % overload over 5000 arrivals with a
        // 5000-packet buffer; RED drops early.
        assert_eq!(r.rows[0].drop_fraction, 0.0);
        assert!(r.rows[1].drop_fraction > 0.0);
    }
}
