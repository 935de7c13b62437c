//! The dumbbell of paper 002 (Kurata, Hasegawa & Murata), §4.1 fig. 4: Nr TCP Reno senders
//! and Nv TCP Vegas senders (plus optional UDP CBR sources), each on its own access link
//! (bw, τ) to the bottleneck router, whose output link (BW, τ_xd) leads to the receiver.
//! The router's output queue runs the chosen AQM discipline with a buffer of B packets.
//!
//! Beyond the paper, CUBIC and BBR senders can join (flow order: Reno, Vegas, CUBIC, BBR,
//! UDP; CUBIC and BBR hosts use the Reno access delay τ_rx), with SACK and ECN options.
//!
//! Modelling choices: access links and the reverse (ACK) path have unbounded FIFOs computed
//! analytically ([`crate::netsim::link::Pipe`]), so every loss happens at the bottleneck queue; flows start at
//! uniformly random times in `[0, start_spread)`; metrics cover `[warmup, duration)`. SACK
//! blocks travel beside their ACK in a per-flow FIFO (the reverse path is lossless and in
//! order, so each ACK meets its own blocks) to keep packets at 24 bytes.

mod run;
#[cfg(test)]
mod tests;

pub use run::{run, run_until_stopped};

use crate::aqm::AqmSpec;
use crate::netsim::tcp::TcpConfig;
use crate::netsim::NetsimError;
use crate::netsim::{Time, MS, SEC};

/// Kind of a flow in the dumbbell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// TCP Reno (or NewReno).
    Reno,
    /// TCP Vegas.
    Vegas,
    /// TCP CUBIC.
    Cubic,
    /// TCP BBR (v1).
    Bbr,
    /// UDP CBR.
    Udp,
}

impl FlowKind {
    /// Every kind, in flow order.
    pub const ALL: [FlowKind; 5] = [
        FlowKind::Reno,
        FlowKind::Vegas,
        FlowKind::Cubic,
        FlowKind::Bbr,
        FlowKind::Udp,
    ];

    /// `reno`, `vegas`, `cubic`, `bbr` or `udp`.
    pub fn name(self) -> &'static str {
        match self {
            FlowKind::Reno => "reno",
            FlowKind::Vegas => "vegas",
            FlowKind::Cubic => "cubic",
            FlowKind::Bbr => "bbr",
            FlowKind::Udp => "udp",
        }
    }
}

/// One algorithm's part of the bottleneck (over the measurement window).
#[derive(Clone, Debug, PartialEq)]
pub struct KindShare {
    /// The kind.
    pub kind: FlowKind,
    /// Its flows.
    pub flows: u32,
    /// Sum of their goodputs, Mbit/s.
    pub total_mbps: f64,
    /// Mean goodput per flow, Mbit/s.
    pub mean_mbps: f64,
    /// Share of the total goodput of all flows (UDP included).
    pub share: f64,
    /// Loss rate of its packets at the bottleneck.
    pub loss_rate: f64,
}

/// All parameters of a dumbbell run (every default explicit here).
#[derive(Clone, Debug)]
pub struct DumbbellConfig {
    /// Number of TCP Reno senders (Nr).
    pub reno: u32,
    /// Number of TCP Vegas senders (Nv).
    pub vegas: u32,
    /// Number of TCP CUBIC senders (access delay τ_rx).
    pub cubic: u32,
    /// Number of TCP BBR senders (access delay τ_rx).
    pub bbr: u32,
    /// Number of UDP CBR senders.
    pub udp: u32,
    /// Rate of each UDP source, bit/s.
    pub udp_rate_bps: u64,
    /// Bandwidth of each access link (bw), bit/s.
    pub access_bw_bps: u64,
    /// Propagation delay of Reno senders' access links (τ_rx), ns.
    pub reno_delay: Time,
    /// Propagation delay of Vegas senders' access links (τ_vx; fig. 8 varies it), ns.
    pub vegas_delay: Time,
    /// Propagation delay of UDP senders' access links, ns.
    pub udp_delay: Time,
    /// Bottleneck bandwidth (BW), bit/s.
    pub bottleneck_bw_bps: u64,
    /// Bottleneck propagation delay router → receiver (τ_xd), ns.
    pub bottleneck_delay: Time,
    /// Router buffer B, packets.
    pub buffer: u32,
    /// Queueing discipline at the bottleneck.
    pub aqm: AqmSpec,
    /// TCP options shared by all senders.
    pub tcp: TcpConfig,
    /// Simulated time, ns.
    pub duration: Time,
    /// Start of the measurement window, ns.
    pub warmup: Time,
    /// Senders start uniformly at random in `[0, start_spread)`, ns.
    pub start_spread: Time,
    /// Seed of every random choice (start times, AQM decisions).
    pub seed: u64,
    /// Record queue and cwnd every this many ns (None: no time series).
    pub sample_every: Option<Time>,
    /// Paper 002 fig. 8: the second sender group (SV hosts, delay `vegas_delay`) runs TCP
    /// Reno instead of Vegas (results still report it as the "vegas" group).
    pub vegas_uses_reno: bool,
    /// Test hook: (flow, segment) pairs dropped at the router the first time they arrive.
    pub drop_once: Vec<(u32, u32)>,
    /// ns-3's event order on the access links (for the ns-3 comparisons; off by default, so
    /// the paper-002 presets are unchanged): a packet's arrival at the router is scheduled
    /// when its serialisation on the access link starts, as ns-3's
    /// `PointToPointNetDevice::TransmitStart` does, not when its host sends it. Arrival times
    /// are the same; only which of two packets arriving at the same nanosecond the router
    /// sees first changes — under DropTail, which one a full queue drops. See `AccessLink` (`run.rs`).
    pub ns3_order: bool,
}

impl Default for DumbbellConfig {
    fn default() -> Self {
        DumbbellConfig {
            reno: 10,
            vegas: 10,
            cubic: 0,
            bbr: 0,
            udp: 0,
            udp_rate_bps: 10_000_000,
            access_bw_bps: 45_000_000,
            reno_delay: 20 * MS,
            vegas_delay: 20 * MS,
            udp_delay: 20 * MS,
            bottleneck_bw_bps: 45_000_000,
            bottleneck_delay: 20 * MS,
            buffer: 1000,
            aqm: AqmSpec::DropTail,
            tcp: TcpConfig::default(),
            duration: 60 * SEC,
            warmup: 10 * SEC,
            start_spread: SEC,
            seed: 1,
            sample_every: None,
            vegas_uses_reno: false,
            drop_once: Vec::new(),
            ns3_order: false,
        }
    }
}

impl DumbbellConfig {
    /// Checks the parameters; the error is one line.
    pub fn validate(&self) -> Result<(), NetsimError> {
        self.tcp.validate()?;
        let n = self.reno as u64
            + self.vegas as u64
            + self.cubic as u64
            + self.bbr as u64
            + self.udp as u64;
        if n == 0 {
            return Err(
                "dumbbell: need at least one sender (--reno/--vegas/--cubic/--bbr/--udp)".into(),
            );
        }
        if n > 1_000_000 {
            return Err(format!("dumbbell: too many senders ({n})").into());
        }
        if self.access_bw_bps == 0 || self.bottleneck_bw_bps == 0 {
            return Err("dumbbell: bandwidths must be positive".into());
        }
        if self.udp > 0 && self.udp_rate_bps == 0 {
            return Err("dumbbell: UDP rate must be positive".into());
        }
        if self.buffer == 0 {
            return Err("dumbbell: buffer must be at least 1 packet".into());
        }
        if self.duration == 0 || self.warmup >= self.duration {
            return Err(format!(
                "dumbbell: need 0 <= warmup < duration (got {} s and {} s)",
                self.warmup as f64 / SEC as f64,
                self.duration as f64 / SEC as f64
            )
            .into());
        }
        if let Some(0) = self.sample_every {
            return Err("dumbbell: sampling interval must be positive".into());
        }
        Ok(())
    }

    fn kind_of(&self, i: u32) -> FlowKind {
        let v = self.reno + self.vegas;
        if i < self.reno {
            FlowKind::Reno
        } else if i < v {
            FlowKind::Vegas
        } else if i < v + self.cubic {
            FlowKind::Cubic
        } else if i < v + self.cubic + self.bbr {
            FlowKind::Bbr
        } else {
            FlowKind::Udp
        }
    }

    /// TCP senders (all kinds but UDP).
    pub fn tcp_flows(&self) -> u32 {
        self.reno + self.vegas + self.cubic + self.bbr
    }
}

/// Per-flow results over the measurement window.
#[derive(Clone, Debug)]
pub struct FlowResult {
    /// Flow index (Reno first, then Vegas, then UDP).
    pub id: u32,
    /// Kind.
    pub kind: FlowKind,
    /// Payload delivered in order to the receiver, Mbit/s.
    pub goodput_mbps: f64,
    /// Packets of this flow dropped at the bottleneck / packets that arrived there.
    pub loss_rate: f64,
    /// Packets of this flow that arrived at the bottleneck.
    pub arrivals: u64,
    /// Packets of this flow dropped at the bottleneck.
    pub drops: u64,
    /// TCP: segments sent (whole run, retransmissions included).
    pub sent: u64,
    /// TCP: fast retransmits (whole run).
    pub fast_retransmits: u64,
    /// TCP: retransmitted segments (whole run).
    pub retransmits: u64,
    /// TCP: ECN window reductions (whole run).
    pub ecn_reductions: u64,
    /// TCP: timeouts (whole run).
    pub timeouts: u64,
    /// TCP: congestion window at the end, segments.
    pub final_cwnd: f64,
}

/// Time series sampled every `sample_every`.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Sample times, s.
    pub t: Vec<f64>,
    /// Bottleneck queue, packets.
    pub queue: Vec<u32>,
    /// The discipline's average-queue estimate (RED avg; DropTail: instantaneous).
    pub avg: Vec<f64>,
    /// cwnd of every TCP flow, row-major (`tcp_flows` values per sample).
    pub cwnd: Vec<f32>,
    /// TCP flows per row of `cwnd`.
    pub tcp_flows: usize,
}

/// Results of a dumbbell run.
#[derive(Clone, Debug)]
pub struct DumbbellResult {
    /// Per-flow results.
    pub flows: Vec<FlowResult>,
    /// Events processed.
    pub events: u64,
    /// Mean goodput per Reno flow, Mbit/s.
    pub reno_mbps: f64,
    /// Mean goodput per Vegas flow, Mbit/s.
    pub vegas_mbps: f64,
    /// Mean goodput per UDP flow, Mbit/s.
    pub udp_mbps: f64,
    /// Vegas' share of the total TCP goodput.
    pub vegas_share: f64,
    /// Jain's fairness index over all TCP flows' goodputs.
    pub jain: f64,
    /// Bytes sent on the bottleneck / capacity (headers included).
    pub utilization: f64,
    /// Bottleneck drops / arrivals, all flows.
    pub loss_rate: f64,
    /// Loss rate of Reno packets.
    pub reno_loss_rate: f64,
    /// Loss rate of Vegas packets.
    pub vegas_loss_rate: f64,
    /// Time-averaged bottleneck queue, packets.
    pub mean_queue_pkts: f64,
    /// Mean queueing delay of packets leaving the bottleneck, ms.
    pub mean_queue_delay_ms: f64,
    /// Early (AQM) drops at the bottleneck in the window.
    pub early_drops: u64,
    /// Forced (buffer-full) drops at the bottleneck in the window.
    pub forced_drops: u64,
    /// The discipline's flow-count estimate over the measurement window (SRED/ZL-RED:
    /// 1/mean(P(t)), P averaged over bottleneck arrivals — the mean of 1/P itself is dominated
    /// by rare near-zero P); `None` for disciplines without one.
    pub flow_estimate: Option<f64>,
    /// Per algorithm present in the run (flow order), its part of the goodput.
    pub shares: Vec<KindShare>,
    /// ECN marks at the bottleneck in the window.
    pub ecn_marks: u64,
    /// Optional time series.
    pub series: Option<Series>,
}
