//! AQM experiments (paper 002, Kurata, Hasegawa & Murata, ZL-RED): the dumbbell of fig. 4
//! under one or more disciplines ([`sim`]), the figure sweeps fig. 2 and figs. 5–8 run in
//! parallel over points × seeds ([`study`], with [`StudyResult::csv`] and [`write_study`]),
//! and the per-packet cost of each discipline ([`bench`]).

use super::{check, median, Error, Progress, Result};
use crate::aqm::{AqmParamSet, AqmSpec, FlowKey, RedParams, SredParams, ZlRedParams};
use crate::netsim::scenarios::dumbbell::{run, DumbbellConfig, DumbbellResult, FlowKind, Series};
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
    /// TCP CUBIC senders (access delay `reno_delay`).
    pub cubic: u32,
    /// TCP BBR v1 senders (access delay `reno_delay`).
    pub bbr: u32,
    /// SACK (RFC 2018 / RFC 6675) in every TCP sender and receiver.
    pub sack: bool,
    /// ECN (RFC 3168): ECT senders, AQMs mark instead of dropping early.
    pub ecn: bool,
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
    /// ns-2/ns-3's RED enqueue rules (no drop while ≤ 1 packet is queued, first arrival above
    /// min_th only restarts the count; [`crate::aqm::red`]), for comparisons with ns-3.
    pub red_ns: bool,
    /// ns-3's event order on the access links: a packet's arrival at the router is scheduled
    /// when its serialisation starts, not when it is sent (DropTail ties then fall as in ns-3;
    /// [`DumbbellConfig::ns3_order`]), for comparisons with ns-3.
    pub ns3_order: bool,
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
    /// Keep the time series in memory ([`RunResult::series`]) instead of (or as well as)
    /// writing it to `series`.
    pub keep_series: bool,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl Default for AqmSimConfig {
    fn default() -> Self {
        AqmSimConfig {
            aqm: vec!["droptail".into()],
            reno: 10,
            vegas: 10,
            cubic: 0,
            bbr: 0,
            sack: false,
            ecn: false,
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
            red_ns: false,
            ns3_order: false,
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
            keep_series: false,
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
        let senders = self.reno as u64
            + self.vegas as u64
            + self.cubic as u64
            + self.bbr as u64
            + self.udp as u64;
        check::int_range(
            "--reno/--vegas/--cubic/--bbr/--udp (senders in all)",
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
            sack: a.sack,
            ecn: a.ecn,
            ..TcpConfig::default()
        };
        let buffer = u32::try_from(a.buffer).map_err(|_| Error::param("--buffer too large"))?;
        let sample_every = if a.series.is_some() || a.keep_series {
            Some(ms("sample-ms", positive("sample-ms", a.sample_ms)?)?)
        } else {
            None
        };
        let cfg = DumbbellConfig {
            reno: a.reno,
            vegas: a.vegas,
            cubic: a.cubic,
            bbr: a.bbr,
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
            ns3_order: a.ns3_order,
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
            ns: self.red_ns,
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
        ns: bool,
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
                ns: p.ns,
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
    #[serde(skip_serializing_if = "is_false")]
    pub ecn: bool,
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
    #[serde(skip_serializing_if = "is_zero")]
    pub cubic: u32,
    #[serde(skip_serializing_if = "is_zero")]
    pub bbr: u32,
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
    /// Only shown when set ([`DumbbellConfig::ns3_order`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ns3_order: bool,
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
            cubic: c.cubic,
            bbr: c.bbr,
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
            ns3_order: c.ns3_order,
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
                recovery: if t.sack {
                    "sack"
                } else if t.newreno {
                    "newreno"
                } else {
                    "reno"
                },
                sack: t.sack,
                ecn: t.ecn,
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// ECN marks at the bottleneck (absent when 0, so read back as 0).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub ecn_marks: u64,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(x: &u32) -> bool {
    *x == 0
}
fn is_zero_u64(x: &u64) -> bool {
    *x == 0
}

/// One algorithm's part of a run's goodput.
#[derive(Clone, Debug, Serialize)]
pub struct ShareInfo {
    /// `reno`, `vegas`, `cubic`, `bbr` or `udp`.
    pub kind: &'static str,
    /// Its flows.
    pub flows: u32,
    /// Their total goodput, Mbit/s.
    pub total_mbps: f64,
    /// Mean goodput per flow, Mbit/s.
    pub mean_mbps: f64,
    /// Share of the total goodput.
    pub share: f64,
    /// Loss rate of its packets at the bottleneck.
    pub loss_rate: f64,
}

impl ShareInfo {
    fn all(r: &DumbbellResult) -> Vec<Self> {
        r.shares
            .iter()
            .map(|s| ShareInfo {
                kind: s.kind.name(),
                flows: s.flows,
                total_mbps: s.total_mbps,
                mean_mbps: s.mean_mbps,
                share: s.share,
                loss_rate: s.loss_rate,
            })
            .collect()
    }
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
            ecn_marks: r.ecn_marks,
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
    /// The queue and cwnd time series, when [`AqmSimConfig::keep_series`] was set (not part
    /// of the JSON form).
    #[serde(skip)]
    pub series: Option<Series>,
    /// Per algorithm: its throughput share.
    pub shares: Vec<ShareInfo>,
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
            series: None,
            shares: ShareInfo::all(r),
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
            "aqm sim {name}: {} reno + {} vegas + {} cubic + {} bbr + {} udp, {} s simulated…",
            dc.reno, dc.vegas, dc.cubic, dc.bbr, dc.udp, cfg.duration
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
        let mut rr = RunResult::of(&dc, &r, wall);
        if cfg.keep_series {
            rr.series = r.series;
        }
        runs.push(rr);
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
#[derive(Clone, Debug, Serialize, Deserialize)]
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
pub type StudyResult = Sweep<StudyRow, StudyRun>;

/// A sweep's result: its setting, the points aggregated over seeds (`R`) and every run (`U`).
#[derive(Clone, Debug, Serialize)]
pub struct Sweep<R, U> {
    /// The figure or mix.
    pub study: String,
    /// The paper (or "beyond paper 002").
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
    pub rows: Vec<R>,
    /// Every run.
    pub runs: Vec<U>,
}

/// A study's runs, planned: its points and one job per (point, seed), each with the
/// simulator's configuration. [`study`] runs the jobs on a thread pool; a distributed runner
/// (the Python package's Ray backend) plans the same study on every worker, runs job `k`
/// there with [`StudyPlan::run`] and hands the runs back to [`StudyPlan::collect`], which
/// gives exactly the result of [`study`] (but for the wall times).
pub struct StudyPlan {
    cfg: StudyConfig,
    points: Vec<Point>,
    jobs: Vec<(usize, u64, DumbbellConfig)>,
}

impl StudyPlan {
    /// Checks `cfg` and lists its points and jobs (points in sweep order, seeds inner).
    pub fn new(cfg: &StudyConfig) -> Result<StudyPlan> {
        cfg.validate()?;
        let mut ps = AqmParamSet {
            red: RedParams::default(),
            ..AqmParamSet::default()
        };
        cfg.zombie.apply(&mut ps)?;
        let points = points(cfg, &ps)?;
        let mut jobs = Vec::new();
        for (i, pt) in points.iter().enumerate() {
            for s in 0..cfg.seeds {
                let seed = cfg.seed.wrapping_add(s);
                jobs.push((i, seed, study_run_config(cfg, pt, seed)?));
            }
        }
        Ok(StudyPlan {
            cfg: cfg.clone(),
            points,
            jobs,
        })
    }

    /// Number of jobs (simulation runs).
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// True if the study has no run.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Number of points (rows of the result).
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// Runs job `k` (0-based, `k < len()`).
    pub fn run(&self, k: usize) -> Result<StudyRun> {
        let (i, seed, dc) = self.jobs.get(k).ok_or_else(|| {
            Error::param(format!(
                "study job {k} out of range (the study has {} runs)",
                self.jobs.len()
            ))
        })?;
        let t = Instant::now();
        let r = run(dc).map_err(Error::Param)?;
        Ok(StudyRun {
            point: *i,
            seed: *seed,
            run: Summary::of(&r),
            wall_s: t.elapsed().as_secs_f64(),
        })
    }

    /// Aggregates the runs of every job, in job order, into the study's result; `threads`
    /// and `wall_s` describe how they were run.
    pub fn collect(&self, runs: Vec<StudyRun>, threads: usize, wall_s: f64) -> Result<StudyResult> {
        if runs.len() != self.jobs.len()
            || runs
                .iter()
                .zip(&self.jobs)
                .any(|(r, j)| (r.point, r.seed) != (j.0, j.1))
        {
            return Err(Error::param(format!(
                "study {}: the {} runs given do not match the plan's {} jobs",
                self.cfg.fig,
                runs.len(),
                self.jobs.len()
            )));
        }
        let cfg = &self.cfg;
        let mut rows = Vec::new();
        for (i, pt) in self.points.iter().enumerate() {
            let rs: Vec<&Summary> = runs
                .iter()
                .filter(|r| r.point == i)
                .map(|r| &r.run)
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
        Ok(StudyResult {
            study: cfg.fig.clone(),
            paper: "002 Kurata, Hasegawa & Murata (ZL-RED)",
            duration_s: cfg.duration,
            warmup_s: cfg.warmup,
            seeds: cfg.seeds,
            first_seed: cfg.seed,
            threads,
            runs_total: runs.len(),
            wall_s,
            config_example: self.jobs.first().map(|j| RunConfigInfo::of(&j.2)),
            rows,
            runs,
        })
    }
}

/// Runs a figure of paper 002 as a sweep over its points × `cfg.seeds` seeds, in parallel
/// on `cfg.threads` threads (rayon); each point is aggregated into mean/min/max per metric.
pub fn study(cfg: &StudyConfig, p: &dyn Progress) -> Result<StudyResult> {
    let plan = StudyPlan::new(cfg)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::param(format!("--threads: {e}")))?;
    p.note(&format!(
        "aqm study {}: {} points × {} seeds = {} runs of {} s on {} threads…",
        cfg.fig,
        plan.points(),
        cfg.seeds,
        plan.len(),
        cfg.duration,
        pool.current_num_threads()
    ));
    let done = AtomicUsize::new(0);
    let t0 = Instant::now();
    p.start(&format!("{} runs", cfg.fig), Some(plan.len() as u64));
    let runs: Vec<StudyRun> = pool.install(|| {
        (0..plan.len())
            .into_par_iter()
            .map(|k| {
                let r = plan.run(k)?;
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                p.set(k as u64);
                Ok(r)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    p.finish();
    plan.collect(runs, pool.current_num_threads(), t0.elapsed().as_secs_f64())
}

/// What [`run_parallel`] returns: every run (point, seed, result, wall seconds) in job order.
struct ParallelRuns {
    runs: Vec<(usize, u64, DumbbellResult, f64)>,
    threads: usize,
    wall_s: f64,
}

/// Runs dumbbell jobs `(point, seed, config)` on a rayon pool of `threads` (None: all cores),
/// reporting progress; results come back in job order.
fn run_parallel(
    name: &str,
    points: usize,
    seeds: u64,
    duration: f64,
    threads: Option<usize>,
    jobs: &[(usize, u64, DumbbellConfig)],
    p: &dyn Progress,
) -> Result<ParallelRuns> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::param(format!("--threads: {e}")))?;
    p.note(&format!(
        "aqm study {name}: {points} points × {seeds} seeds = {} runs of {duration} s on {} threads…",
        jobs.len(),
        pool.current_num_threads()
    ));
    let done = AtomicUsize::new(0);
    let t0 = Instant::now();
    p.start(&format!("{name} runs"), Some(jobs.len() as u64));
    let runs = pool.install(|| {
        jobs.par_iter()
            .map(|(i, seed, dc)| {
                let t = Instant::now();
                let r = run(dc).map_err(Error::Param)?;
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                p.set(k as u64);
                Ok((*i, *seed, r, t.elapsed().as_secs_f64()))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    p.finish();
    Ok(ParallelRuns {
        runs,
        threads: pool.current_num_threads(),
        wall_s: t0.elapsed().as_secs_f64(),
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
    write_json_csv(r, &r.study, &r.csv(), dir)
}

/// Writes `DIR/NAME.json` (`r` as one JSON line) and `DIR/NAME.csv`; returns their paths.
fn write_json_csv<T: Serialize>(
    r: &T,
    name: &str,
    csv: &str,
    dir: &Path,
) -> Result<(PathBuf, PathBuf)> {
    let d = dir.display().to_string();
    std::fs::create_dir_all(dir).map_err(|e| Error::output(&d, "cannot create", e))?;
    let jp = dir.join(format!("{name}.json"));
    let cp = dir.join(format!("{name}.csv"));
    let json = serde_json::to_value(r)
        .map_err(|e| Error::output(jp.display(), "cannot serialise", std::io::Error::other(e)))?;
    std::fs::write(&jp, format!("{json}\n"))
        .map_err(|e| Error::output(jp.display(), "write failed", e))?;
    std::fs::write(&cp, csv).map_err(|e| Error::output(cp.display(), "write failed", e))?;
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
                ecn: 0,
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
                // One match per measurement, a monomorphised loop inside (as the data
                // plane's output queue runs it): the per-packet cost is the discipline's.
                crate::with_discipline!(&mut q, x => bench_loop(x, &pkts, &mut d));
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

/// The arrival pattern of [`bench`]: packet `i` arrives at `i` × 185 µs; after each arrival
/// but every fifth, one packet departs (a 25 % overload, so the queue fills and stays full). Not inlined, so that profilers see it as one function.
#[inline(never)]
fn bench_loop<Q: crate::aqm::Aqm<crate::netsim::Packet>>(
    q: &mut Q,
    pkts: &[crate::netsim::Packet],
    d: &mut crate::aqm::Drops<crate::netsim::Packet>,
) {
    for (i, pk) in pkts.iter().enumerate() {
        let now = i as u64 * 185_000;
        q.enqueue(*pk, now, d);
        if i % 5 != 4 && q.len_pkts() > 0 {
            std::hint::black_box(q.dequeue(now, d));
        }
        d.clear();
    }
}

/// The mixes of today's TCPs that [`mix_study`] runs ("beyond the paper"): the first
/// algorithm named gets half of the connections, the second the other half.
pub const MIXES: [&str; 3] = ["cubic-vs-bbr", "reno-vs-cubic", "cubic-vs-vegas"];

/// Configuration of [`mix_study`]: one mix over disciplines × ECN off/on × connection counts.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct MixStudyConfig {
    /// One of [`MIXES`].
    pub mix: String,
    /// Disciplines at the bottleneck.
    pub aqm: Vec<String>,
    /// ECN settings to run (false = drops, true = ECT senders and marking AQMs).
    pub ecn: Vec<bool>,
    /// Total TCP connections per point (half each algorithm).
    pub conns: Vec<u32>,
    /// Buffer B, packets.
    pub buffer: u32,
    /// SACK in every sender and receiver.
    pub sack: bool,
    /// Seeds per point.
    pub seeds: u64,
    /// First seed.
    pub seed: u64,
    /// Simulated seconds per run.
    pub duration: f64,
    /// Seconds excluded at the start.
    pub warmup: f64,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl Default for MixStudyConfig {
    fn default() -> Self {
        MixStudyConfig {
            mix: "cubic-vs-bbr".into(),
            aqm: ["droptail", "red", "sred", "zlred", "fq_codel", "drr"]
                .map(String::from)
                .to_vec(),
            ecn: vec![false, true],
            conns: vec![20],
            buffer: 1000,
            sack: true,
            seeds: 3,
            seed: 1,
            duration: 200.0,
            warmup: 50.0,
            threads: None,
            zombie: ZombieParams::default(),
        }
    }
}

/// One point of a mix study, aggregated over its seeds. `a`/`b` are the mix's two
/// algorithms; `b_share` is b's share of the TCP goodput (0.5 = fair between the groups).
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // metric fields: mean/min/max over seeds
pub struct MixRow {
    pub mix: String,
    pub aqm: String,
    pub ecn: bool,
    pub conns: u32,
    pub a: &'static str,
    pub b: &'static str,
    pub seeds: usize,
    pub a_mbps: Stat,
    pub b_mbps: Stat,
    pub b_share: Stat,
    pub jain: Stat,
    pub utilization: Stat,
    pub loss_rate: Stat,
    pub mean_queue_pkts: Stat,
    pub mean_queue_delay_ms: Stat,
    pub ecn_marks: Stat,
    /// Verdict: |b_share − 0.5| ≤ 0.1 and Jain ≥ 0.9 (means over seeds).
    pub fair: bool,
}

/// One run of a mix study.
#[derive(Clone, Debug, Serialize)]
#[allow(missing_docs)] // as in `MixRow`, one seed
pub struct MixRun {
    pub point: usize,
    pub seed: u64,
    pub a_mbps: f64,
    pub b_mbps: f64,
    pub b_share: f64,
    pub jain: f64,
    pub utilization: f64,
    pub loss_rate: f64,
    pub mean_queue_pkts: f64,
    pub mean_queue_delay_ms: f64,
    pub ecn_marks: f64,
    pub wall_s: f64,
}

/// Result of [`mix_study`] (what `MIX.json` holds).
pub type MixStudyResult = Sweep<MixRow, MixRun>;

fn mix_kinds(mix: &str) -> Result<(FlowKind, FlowKind)> {
    Ok(match mix {
        "cubic-vs-bbr" => (FlowKind::Cubic, FlowKind::Bbr),
        "reno-vs-cubic" => (FlowKind::Reno, FlowKind::Cubic),
        "cubic-vs-vegas" => (FlowKind::Cubic, FlowKind::Vegas),
        o => {
            return Err(Error::param(format!(
                "unknown mix '{o}' (known: {})",
                MIXES.join(", ")
            )))
        }
    })
}

fn set_count(c: &mut DumbbellConfig, k: FlowKind, n: u32) {
    match k {
        FlowKind::Reno => c.reno = n,
        FlowKind::Vegas => c.vegas = n,
        FlowKind::Cubic => c.cubic = n,
        FlowKind::Bbr => c.bbr = n,
        FlowKind::Udp => c.udp = n,
    }
}

/// Runs a mix of today's TCPs ([`MIXES`]) on paper 002's dumbbell over disciplines × ECN
/// × connection counts × seeds, in parallel (rayon): which AQM shares the bottleneck fairly
/// between the two algorithms.
pub fn mix_study(cfg: &MixStudyConfig, p: &dyn Progress) -> Result<MixStudyResult> {
    let (ka, kb) = mix_kinds(&cfg.mix)?;
    if cfg.seeds == 0 {
        return Err(Error::param("--seeds must be at least 1"));
    }
    if cfg.ecn.is_empty() || cfg.conns.is_empty() || cfg.aqm.is_empty() {
        return Err(Error::param(
            "--aqm, --ecn and --conns need at least one value",
        ));
    }
    let mut ps = AqmParamSet::default();
    cfg.zombie.apply(&mut ps)?;
    let mut pts = Vec::new();
    for name in &cfg.aqm {
        let spec =
            AqmSpec::parse_with(name, &ps).map_err(|e| Error::param(format!("--aqm: {e}")))?;
        for &ecn in &cfg.ecn {
            for &n in &cfg.conns {
                if n < 2 {
                    return Err(Error::param("--conns: need at least 2 connections"));
                }
                pts.push((spec.clone(), ecn, n));
            }
        }
    }
    let mut jobs = Vec::new();
    for (i, (spec, ecn, n)) in pts.iter().enumerate() {
        for s in 0..cfg.seeds {
            let mut c = DumbbellConfig {
                reno: 0,
                vegas: 0,
                buffer: cfg.buffer,
                aqm: spec.clone(),
                duration: secs(positive("duration", cfg.duration)?),
                warmup: secs(non_negative("warmup", cfg.warmup)?),
                seed: cfg.seed.wrapping_add(s),
                ..DumbbellConfig::default()
            };
            c.tcp.sack = cfg.sack;
            c.tcp.ecn = *ecn;
            set_count(&mut c, ka, n / 2);
            set_count(&mut c, kb, n - n / 2);
            c.validate().map_err(Error::Param)?;
            jobs.push((i, c.seed, c));
        }
    }
    let par = run_parallel(
        &cfg.mix,
        pts.len(),
        cfg.seeds,
        cfg.duration,
        cfg.threads,
        &jobs,
        p,
    )?;
    let runs: Vec<MixRun> = par
        .runs
        .iter()
        .map(|(i, seed, r, wall)| {
            let get = |k: FlowKind| r.shares.iter().find(|s| s.kind == k);
            let (a, b) = (get(ka), get(kb));
            let at = a.map_or(0.0, |s| s.total_mbps);
            let bt = b.map_or(0.0, |s| s.total_mbps);
            MixRun {
                point: *i,
                seed: *seed,
                a_mbps: a.map_or(0.0, |s| s.mean_mbps),
                b_mbps: b.map_or(0.0, |s| s.mean_mbps),
                b_share: if at + bt > 0.0 { bt / (at + bt) } else { 0.0 },
                jain: r.jain,
                utilization: r.utilization,
                loss_rate: r.loss_rate,
                mean_queue_pkts: r.mean_queue_pkts,
                mean_queue_delay_ms: r.mean_queue_delay_ms,
                ecn_marks: r.ecn_marks as f64,
                wall_s: *wall,
            }
        })
        .collect();
    let rows = pts
        .iter()
        .enumerate()
        .map(|(i, (spec, ecn, n))| {
            let rs: Vec<&MixRun> = runs.iter().filter(|r| r.point == i).collect();
            let st = |f: fn(&MixRun) -> f64| Stat::of(&rs.iter().map(|r| f(r)).collect::<Vec<_>>());
            let (b_share, jain) = (st(|r| r.b_share), st(|r| r.jain));
            MixRow {
                mix: cfg.mix.clone(),
                aqm: spec.name().to_string(),
                ecn: *ecn,
                conns: *n,
                a: ka.name(),
                b: kb.name(),
                seeds: rs.len(),
                a_mbps: st(|r| r.a_mbps),
                b_mbps: st(|r| r.b_mbps),
                b_share,
                jain,
                utilization: st(|r| r.utilization),
                loss_rate: st(|r| r.loss_rate),
                mean_queue_pkts: st(|r| r.mean_queue_pkts),
                mean_queue_delay_ms: st(|r| r.mean_queue_delay_ms),
                ecn_marks: st(|r| r.ecn_marks),
                fair: (b_share.mean - 0.5).abs() <= 0.1 && jain.mean >= 0.9,
            }
        })
        .collect();
    Ok(Sweep {
        study: cfg.mix.clone(),
        paper: "beyond paper 002: today's TCP mixes (CUBIC RFC 9438, BBR v1, SACK, ECN)",
        duration_s: cfg.duration,
        warmup_s: cfg.warmup,
        seeds: cfg.seeds,
        first_seed: cfg.seed,
        threads: par.threads,
        runs_total: jobs.len(),
        wall_s: par.wall_s,
        config_example: jobs.first().map(|j| RunConfigInfo::of(&j.2)),
        rows,
        runs,
    })
}

impl MixStudyResult {
    /// The rows as CSV: point columns, then mean, min and max of every metric.
    pub fn csv(&self) -> String {
        const M: [&str; 9] = [
            "a_mbps",
            "b_mbps",
            "b_share",
            "jain",
            "utilization",
            "loss_rate",
            "mean_queue_pkts",
            "mean_queue_delay_ms",
            "ecn_marks",
        ];
        let mut csv = String::from("mix,aqm,ecn,conns,a,b,seeds");
        for k in M {
            csv.push_str(&format!(",{k},{k}_min,{k}_max"));
        }
        csv.push_str(",fair\n");
        for r in &self.rows {
            csv.push_str(&format!(
                "{},{},{},{},{},{},{}",
                r.mix, r.aqm, r.ecn, r.conns, r.a, r.b, r.seeds
            ));
            for s in [
                r.a_mbps,
                r.b_mbps,
                r.b_share,
                r.jain,
                r.utilization,
                r.loss_rate,
                r.mean_queue_pkts,
                r.mean_queue_delay_ms,
                r.ecn_marks,
            ] {
                csv.push_str(&format!(",{:.6},{:.6},{:.6}", s.mean, s.min, s.max));
            }
            csv.push_str(&format!(",{}\n", r.fair));
        }
        csv
    }
}

/// Writes `DIR/MIX.json` and `DIR/MIX.csv` of a mix study; returns their paths.
pub fn write_mix_study(r: &MixStudyResult, dir: &Path) -> Result<(PathBuf, PathBuf)> {
    write_json_csv(r, &r.study, &r.csv(), dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Silent;

    #[test]
    fn sim_accepts_cubic_or_bbr_only_and_refuses_no_sender() {
        let cfg = AqmSimConfig {
            reno: 0,
            vegas: 0,
            cubic: 2,
            bbr: 1,
            sack: true,
            duration: 2.0,
            warmup: 0.5,
            buffer: 100,
            ..AqmSimConfig::default()
        };
        let r = sim(&cfg, &Silent).unwrap();
        assert_eq!(r.runs[0].flows.len(), 3);
        let none = AqmSimConfig {
            cubic: 0,
            bbr: 0,
            ..cfg
        };
        let e = sim(&none, &Silent).unwrap_err().to_string();
        assert!(e.contains("senders in all"), "{e}");
    }

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

    /// FNV-1a over the bits of every metric (and drop counts) of every run, in run order.
    fn digest(r: &StudyResult) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |x: u64| {
            for b in x.to_le_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        };
        for run in &r.runs {
            for k in METRICS {
                eat(run.run.metric(k).to_bits());
            }
            eat(run.run.early_drops);
            eat(run.run.forced_drops);
        }
        h
    }

    /// Paper 002's presets (SACK and ECN off) give bit-identical results to the code before
    /// SACK, CUBIC, BBR, ECN and the SRED/ZL-RED fast path: the digests were computed from
    /// the JSON of `pktlab aqm study` built from commit 262c56f (tools/preset_digest.py).
    #[test]
    fn paper_presets_are_bit_identical() {
        let v = |x: &[&str]| Some(x.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let base = StudyConfig {
            seeds: 1,
            duration: 20.0,
            warmup: 5.0,
            threads: Some(2),
            buffers: Some(vec![1000]),
            ..StudyConfig::default()
        };
        let cases = [
            (
                StudyConfig {
                    fig: "fig2".into(),
                    conns: Some(vec![40]),
                    ..base.clone()
                },
                PRESET_DIGESTS[0],
            ),
            (
                StudyConfig {
                    fig: "fig5".into(),
                    conns: Some(vec![20]),
                    aqm: v(&[
                        "sred", "zlred", "red", "droptail", "choke", "drr", "fq_codel",
                    ]),
                    ..base.clone()
                },
                PRESET_DIGESTS[1],
            ),
            (
                StudyConfig {
                    fig: "fig6".into(),
                    conns: Some(vec![20]),
                    ms: Some(vec![10, 10000]),
                    ..base.clone()
                },
                PRESET_DIGESTS[2],
            ),
            (
                StudyConfig {
                    fig: "fig7".into(),
                    conns: Some(vec![20]),
                    a: Some(vec![1.0, 8.0]),
                    ..base.clone()
                },
                PRESET_DIGESTS[3],
            ),
            (
                StudyConfig {
                    fig: "fig8".into(),
                    conns: Some(vec![10]),
                    a: Some(vec![4.0]),
                    delays: Some(vec![5.0, 160.0]),
                    ..base.clone()
                },
                PRESET_DIGESTS[4],
            ),
        ];
        for (cfg, want) in cases {
            let r = study(&cfg, &Silent).unwrap();
            assert_eq!(digest(&r), want, "{} changed", cfg.fig);
        }
    }

    /// Digests of the five cases of `paper_presets_are_bit_identical`.
    const PRESET_DIGESTS: [u64; 5] = [
        0x05d1_81ab_ba18_44c3,
        0xb8c0_b512_ed5f_7398,
        0xc09c_8ce2_847b_3482,
        0x1090_3b2d_a958_12d2,
        0x525a_dd51_4639_82d3,
    ];

    #[test]
    fn mix_study_rows_and_csv() {
        let cfg = MixStudyConfig {
            mix: "cubic-vs-bbr".into(),
            aqm: v2(&["zlred", "fq_codel"]),
            conns: vec![4],
            seeds: 1,
            duration: 6.0,
            warmup: 2.0,
            threads: Some(2),
            ..MixStudyConfig::default()
        };
        let r = mix_study(&cfg, &Silent).unwrap();
        assert_eq!((r.rows.len(), r.runs.len()), (4, 4));
        for row in &r.rows {
            assert_eq!((row.a, row.b), ("cubic", "bbr"));
            assert!((0.0..=1.0).contains(&row.b_share.mean));
            assert!(row.a_mbps.mean > 0.0 && row.b_mbps.mean > 0.0);
            if !row.ecn {
                assert_eq!(row.ecn_marks.mean, 0.0);
            }
        }
        let cfg_example = r.config_example.as_ref().unwrap();
        assert_eq!((cfg_example.cubic, cfg_example.bbr), (2, 2));
        assert!(cfg_example.tcp.sack);
        assert_eq!(r.csv().lines().count(), 5);
        assert!(mix_study(
            &MixStudyConfig {
                mix: "reno-vs-quic".into(),
                ..cfg
            },
            &Silent
        )
        .is_err());
    }

    fn v2(x: &[&str]) -> Vec<String> {
        x.iter().map(|s| s.to_string()).collect()
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
