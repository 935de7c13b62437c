//! What a dumbbell run reports: the discipline, TCP and run configuration echoed, per-flow
//! and per-algorithm results, the summary metrics the studies aggregate.

use pktlab::aqm::{AqmSpec, FlowKey};
use pktlab::netsim::scenarios::dumbbell::{DumbbellConfig, DumbbellResult, Series};
use pktlab::netsim::tcp::VegasLoss;
use pktlab::netsim::MS;
use serde::{Deserialize, Serialize};

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
    pub(super) fn of(s: &AqmSpec) -> Self {
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
    pub(super) fn of(r: &DumbbellResult) -> Self {
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

    /// A metric by name ([`METRICS`](super::figures::METRICS)); NaN if absent.
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
    /// The queue and cwnd time series, when [`AqmSimConfig::keep_series`](super::sim::AqmSimConfig::keep_series) was set (not part
    /// of the JSON form).
    #[serde(skip)]
    pub series: Option<Series>,
    /// Per algorithm: its throughput share.
    pub shares: Vec<ShareInfo>,
}

impl RunResult {
    pub(super) fn of(c: &DumbbellConfig, r: &DumbbellResult, wall: f64) -> Self {
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

/// Result of [`sim()`](super::sim::sim): one run per discipline, in the order asked.
#[derive(Clone, Debug, Serialize)]
pub struct AqmSimResult {
    /// The runs.
    pub runs: Vec<RunResult>,
}
