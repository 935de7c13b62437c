//! The one study runner. A sweep (a figure of paper 002, a TCP mix) is planned as
//! [`Job`]s — one dumbbell run per (point, seed) — behind the [`Study`] trait; [`run_local`]
//! runs every job on a local thread pool, and a distributed runner (the Python package's Ray
//! backend) plans the same study on every worker, runs job `k` there with [`Study::run`] and
//! hands the runs back to [`Study::collect`], which gives exactly the local result (but for
//! the wall times).

use super::{Error, Progress, Result, RunConfigInfo};
use pktlab::netsim::scenarios::dumbbell::{run_until_stopped, DumbbellConfig, DumbbellResult};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

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

/// One simulation run of a sweep: the index of its point, its seed and the simulator's
/// configuration.
#[derive(Clone, Debug)]
pub struct Job {
    /// Index of its point (row of the result).
    pub point: usize,
    /// Its seed.
    pub seed: u64,
    /// The dumbbell to simulate.
    pub config: DumbbellConfig,
}

/// A study's jobs with what the runner reports about them.
#[derive(Clone, Debug)]
pub struct Jobs {
    /// The study's name (figure or mix).
    pub name: String,
    /// Number of points (rows of the result).
    pub points: usize,
    /// Seeds per point.
    pub seeds: u64,
    /// Simulated seconds per run.
    pub duration: f64,
    /// Seconds excluded at the start of each run.
    pub warmup: f64,
    /// The first seed.
    pub first_seed: u64,
    /// Every job, points in sweep order, seeds inner.
    pub list: Vec<Job>,
}

impl Jobs {
    /// Plans `seeds` runs of every point (seeds `first_seed`, `first_seed + 1`, …), each
    /// configured by `config(point, seed)`.
    pub fn plan<P>(
        name: &str,
        points: &[P],
        (seeds, first_seed): (u64, u64),
        (duration, warmup): (f64, f64),
        config: impl Fn(&P, u64) -> Result<DumbbellConfig>,
    ) -> Result<Jobs> {
        let mut list = Vec::new();
        for (i, pt) in points.iter().enumerate() {
            for s in 0..seeds {
                let seed = first_seed.wrapping_add(s);
                list.push(Job {
                    point: i,
                    seed,
                    config: config(pt, seed)?,
                });
            }
        }
        Ok(Jobs {
            name: name.to_string(),
            points: points.len(),
            seeds,
            duration,
            warmup,
            first_seed,
            list,
        })
    }

    /// The study's result: its setting from the plan, the aggregated `rows` and every run.
    pub fn sweep<R, U>(
        &self,
        paper: &'static str,
        threads: usize,
        wall_s: f64,
        rows: Vec<R>,
        runs: Vec<U>,
    ) -> Sweep<R, U> {
        Sweep {
            study: self.name.clone(),
            paper,
            duration_s: self.duration,
            warmup_s: self.warmup,
            seeds: self.seeds,
            first_seed: self.first_seed,
            threads,
            runs_total: runs.len(),
            wall_s,
            config_example: self.list.first().map(|j| RunConfigInfo::of(&j.config)),
            rows,
            runs,
        }
    }
}

/// A sweep planned as jobs: what a run reports and how runs aggregate into rows is the
/// study's; running them is [`run_local`]'s or a distributed runner's.
pub trait Study: Sync {
    /// A point aggregated over its seeds.
    type Row;
    /// What one run reports.
    type Run: Send;
    /// The planned jobs.
    fn jobs(&self) -> &Jobs;
    /// What job `job` reports, from its simulation result and wall-clock seconds.
    fn summarize(&self, job: &Job, r: &DumbbellResult, wall_s: f64) -> Self::Run;
    /// Aggregates the runs of every job, in job order, into the study's result; `threads`
    /// and `wall_s` describe how they were run.
    fn collect(
        &self,
        runs: Vec<Self::Run>,
        threads: usize,
        wall_s: f64,
    ) -> Result<Sweep<Self::Row, Self::Run>>;

    /// Number of jobs (simulation runs).
    fn len(&self) -> usize {
        self.jobs().list.len()
    }

    /// True if the study has no run.
    fn is_empty(&self) -> bool {
        self.jobs().list.is_empty()
    }

    /// Number of points (rows of the result).
    fn points(&self) -> usize {
        self.jobs().points
    }

    /// Runs job `k` (0-based, `k < len()`).
    fn run(&self, k: usize) -> Result<Self::Run> {
        self.run_until_stopped(k, &AtomicBool::new(false))
    }

    /// [`Study::run`] that ends with [`Error::Interrupted`] once `stop` is set.
    fn run_until_stopped(&self, k: usize, stop: &AtomicBool) -> Result<Self::Run> {
        let job = self.jobs().list.get(k).ok_or_else(|| {
            Error::param(format!(
                "study job {k} out of range (the study has {} runs)",
                self.len()
            ))
        })?;
        let t = Instant::now();
        let r = run_until_stopped(&job.config, stop)?;
        Ok(self.summarize(job, &r, t.elapsed().as_secs_f64()))
    }
}

/// Checks that `runs` answer `jobs` one for one (the same point and seed, in order).
pub(super) fn check_runs(
    jobs: &Jobs,
    runs: impl ExactSizeIterator<Item = (usize, u64)>,
) -> Result<()> {
    let (name, jobs) = (&jobs.name, &jobs.list);
    let n = runs.len();
    let mut ok = n == jobs.len();
    if ok {
        ok = runs.zip(jobs).all(|(r, j)| r == (j.point, j.seed));
    }
    if ok {
        Ok(())
    } else {
        Err(Error::param(format!(
            "study {name}: the {n} runs given do not match the plan's {} jobs",
            jobs.len()
        )))
    }
}

/// Runs every job of `study` on a rayon pool of `threads` (None: all cores), reporting
/// progress, and collects the result.
pub fn run_local<S: Study>(
    study: &S,
    threads: Option<usize>,
    p: &dyn Progress,
) -> Result<Sweep<S::Row, S::Run>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::param(format!("--threads: {e}")))?;
    let j = study.jobs();
    let name = &j.name;
    p.note(&format!(
        "aqm study {name}: {} points × {} seeds = {} runs of {} s on {} threads…",
        j.points,
        j.seeds,
        j.list.len(),
        j.duration,
        pool.current_num_threads()
    ));
    let done = AtomicUsize::new(0);
    let t0 = Instant::now();
    p.start(&format!("{name} runs"), Some(study.len() as u64));
    let never = AtomicBool::new(false);
    let stop = p.stop_flag().unwrap_or(&never);
    let runs = pool.install(|| {
        (0..study.len())
            .into_par_iter()
            .map(|k| {
                p.check_stop()?;
                let r = study.run_until_stopped(k, stop)?;
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                p.set(k as u64);
                Ok(r)
            })
            .collect::<Result<Vec<_>>>()
    })?;
    p.finish();
    study.collect(runs, pool.current_num_threads(), t0.elapsed().as_secs_f64())
}

/// Writes `DIR/NAME.json` (`r` as one JSON line) and `DIR/NAME.csv`; returns their paths.
pub(super) fn write_json_csv<T: Serialize>(
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
    pktlab::io::write_whole(&jp, format!("{json}\n").as_bytes())?;
    pktlab::io::write_whole(&cp, csv.as_bytes())?;
    Ok((jp, cp))
}
