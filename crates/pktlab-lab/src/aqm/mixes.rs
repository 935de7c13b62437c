//! Mixes of today's TCPs on paper 002's dumbbell ([`mix_study`]).

use super::*;
use super::{Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, AqmSpec};
use pktlab::netsim::scenarios::dumbbell::{DumbbellConfig, DumbbellResult, FlowKind};
use pktlab::netsim::secs;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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

/// A mix study planned as jobs (see [`Study`]): one point per discipline × ECN setting ×
/// connection count, one job per (point, seed).
pub struct MixPlan {
    cfg: MixStudyConfig,
    kinds: (FlowKind, FlowKind),
    points: Vec<(AqmSpec, bool, u32)>,
    jobs: Jobs,
}

impl MixPlan {
    /// Checks `cfg` and lists its points and jobs (points in sweep order, seeds inner).
    pub fn new(cfg: &MixStudyConfig) -> Result<MixPlan> {
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
        let mut points = Vec::new();
        for name in &cfg.aqm {
            let spec =
                AqmSpec::parse_with(name, &ps).map_err(|e| Error::param(format!("--aqm: {e}")))?;
            for &ecn in &cfg.ecn {
                for &n in &cfg.conns {
                    if n < 2 {
                        return Err(Error::param("--conns: need at least 2 connections"));
                    }
                    points.push((spec.clone(), ecn, n));
                }
            }
        }
        let (duration, warmup) = (
            secs(positive("duration", cfg.duration)?),
            secs(non_negative("warmup", cfg.warmup)?),
        );
        let jobs = Jobs::plan(
            &cfg.mix,
            &points,
            (cfg.seeds, cfg.seed),
            (cfg.duration, cfg.warmup),
            |(spec, ecn, n), seed| {
                let mut c = DumbbellConfig {
                    reno: 0,
                    vegas: 0,
                    buffer: cfg.buffer,
                    aqm: spec.clone(),
                    duration,
                    warmup,
                    seed,
                    ..DumbbellConfig::default()
                };
                c.tcp.sack = cfg.sack;
                c.tcp.ecn = *ecn;
                set_count(&mut c, ka, n / 2);
                set_count(&mut c, kb, n - n / 2);
                c.validate().map_err(Error::Param)?;
                Ok(c)
            },
        )?;
        Ok(MixPlan {
            cfg: cfg.clone(),
            kinds: (ka, kb),
            points,
            jobs,
        })
    }
}

impl Study for MixPlan {
    type Row = MixRow;
    type Run = MixRun;

    fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    fn summarize(&self, job: &Job, r: &DumbbellResult, wall_s: f64) -> MixRun {
        let get = |k: FlowKind| r.shares.iter().find(|s| s.kind == k);
        let (a, b) = (get(self.kinds.0), get(self.kinds.1));
        let at = a.map_or(0.0, |s| s.total_mbps);
        let bt = b.map_or(0.0, |s| s.total_mbps);
        MixRun {
            point: job.point,
            seed: job.seed,
            a_mbps: a.map_or(0.0, |s| s.mean_mbps),
            b_mbps: b.map_or(0.0, |s| s.mean_mbps),
            b_share: if at + bt > 0.0 { bt / (at + bt) } else { 0.0 },
            jain: r.jain,
            utilization: r.utilization,
            loss_rate: r.loss_rate,
            mean_queue_pkts: r.mean_queue_pkts,
            mean_queue_delay_ms: r.mean_queue_delay_ms,
            ecn_marks: r.ecn_marks as f64,
            wall_s,
        }
    }

    fn collect(&self, runs: Vec<MixRun>, threads: usize, wall_s: f64) -> Result<MixStudyResult> {
        check_runs(&self.jobs, runs.iter().map(|r| (r.point, r.seed)))?;
        let cfg = &self.cfg;
        let (ka, kb) = self.kinds;
        let rows = self
            .points
            .iter()
            .enumerate()
            .map(|(i, (spec, ecn, n))| {
                let rs: Vec<&MixRun> = runs.iter().filter(|r| r.point == i).collect();
                let st =
                    |f: fn(&MixRun) -> f64| Stat::of(&rs.iter().map(|r| f(r)).collect::<Vec<_>>());
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
        Ok(self.jobs.sweep(
            "beyond paper 002: today's TCP mixes (CUBIC RFC 9438, BBR v1, SACK, ECN)",
            threads,
            wall_s,
            rows,
            runs,
        ))
    }
}

/// Runs a mix of today's TCPs ([`MIXES`]) on paper 002's dumbbell over disciplines × ECN
/// × connection counts × seeds, in parallel ([`run_local`]): which AQM shares the bottleneck
/// fairly between the two algorithms.
pub fn mix_study(cfg: &MixStudyConfig, p: &dyn Progress) -> Result<MixStudyResult> {
    run_local(&MixPlan::new(cfg)?, cfg.threads, p)
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
