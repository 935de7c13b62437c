//! One dumbbell run per discipline ([`sim`]).

use super::*;
use super::{check, Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, AqmSpec, RedParams};
use pktlab::io::{check_output, OutFile};
use pktlab::netsim::scenarios::dumbbell::{run_until_stopped, DumbbellConfig, DumbbellResult};
use pktlab::netsim::secs;
use pktlab::netsim::tcp::{TcpConfig, VegasLoss};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

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
    /// min_th only restarts the count; [`pktlab::aqm::red`]), for comparisons with ns-3.
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
        cfg.validate().map_err(|e| Error::Param(e.to_string()))?;
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

/// The series file of discipline `aqm`: `path` itself, or `path.AQM.csv` with several.
fn series_path(path: &str, aqm: &str, many: bool) -> String {
    if many {
        format!("{path}.{aqm}.csv")
    } else {
        path.to_string()
    }
}

fn write_series(path: &str, r: &DumbbellResult, aqm: &str, many: bool) -> Result<String> {
    let Some(s) = &r.series else {
        return Ok(String::new());
    };
    let path = series_path(path, aqm, many);
    let mut w = OutFile::create(std::path::Path::new(&path))?;
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
    w.commit()?;
    Ok(path)
}

/// Simulates the dumbbell of paper 002 fig. 4 once per discipline of `cfg.aqm`: goodput of
/// the Reno and Vegas groups, Vegas' share, Jain's index, losses, queue; with `cfg.series`,
/// writes the queue/cwnd time series as CSV.
pub fn sim(cfg: &AqmSimConfig, p: &dyn Progress) -> Result<AqmSimResult> {
    cfg.validate()?;
    let specs = cfg.specs()?;
    let many = specs.len() > 1;
    if let Some(path) = &cfg.series {
        // Every series file can be written: checked before the first simulation.
        for spec in &specs {
            check_output(std::path::Path::new(&series_path(path, spec.name(), many)))?;
        }
    }
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
        let never = AtomicBool::new(false);
        let r = run_until_stopped(&dc, p.stop_flag().unwrap_or(&never))?;
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
