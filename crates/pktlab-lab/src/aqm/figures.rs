//! Paper 002's figure sweeps (fig. 2, figs. 5–8) over points × seeds ([`study`]).

use super::*;
use super::{check, Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, AqmSpec, RedParams};
use pktlab::netsim::scenarios::dumbbell::{DumbbellConfig, DumbbellResult};
use pktlab::netsim::{secs, MS};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
            check::int_range("--ms", m as u64, 1, pktlab::aqm::sred::MAX_ZOMBIES as u64)?;
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
    cfg.validate().map_err(|e| Error::Param(e.to_string()))?;
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
    pub(super) fn of(v: &[f64]) -> Stat {
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

/// A figure of paper 002 planned as jobs (see [`Study`]): its points and one job per
/// (point, seed). [`study`] runs it locally; the Python package's Ray backend runs the same
/// plan's jobs on a cluster.
pub struct StudyPlan {
    points: Vec<Point>,
    jobs: Jobs,
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
        let jobs = Jobs::plan(
            &cfg.fig,
            &points,
            (cfg.seeds, cfg.seed),
            (cfg.duration, cfg.warmup),
            |pt, seed| study_run_config(cfg, pt, seed),
        )?;
        Ok(StudyPlan { points, jobs })
    }
}

impl Study for StudyPlan {
    type Row = StudyRow;
    type Run = StudyRun;

    fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    fn summarize(&self, job: &Job, r: &DumbbellResult, wall_s: f64) -> StudyRun {
        StudyRun {
            point: job.point,
            seed: job.seed,
            run: Summary::of(r),
            wall_s,
        }
    }

    fn collect(&self, runs: Vec<StudyRun>, threads: usize, wall_s: f64) -> Result<StudyResult> {
        check_runs(&self.jobs, runs.iter().map(|r| (r.point, r.seed)))?;
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
        Ok(self.jobs.sweep(
            "002 Kurata, Hasegawa & Murata (ZL-RED)",
            threads,
            wall_s,
            rows,
            runs,
        ))
    }
}

/// Runs a figure of paper 002 as a sweep over its points × `cfg.seeds` seeds, in parallel
/// on `cfg.threads` threads ([`run_local`]); each point is aggregated into mean/min/max per
/// metric.
pub fn study(cfg: &StudyConfig, p: &dyn Progress) -> Result<StudyResult> {
    run_local(&StudyPlan::new(cfg)?, cfg.threads, p)
}

/// Result of [`study`] (what `figN.json` holds).
pub type StudyResult = Sweep<StudyRow, StudyRun>;

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
