//! The `lpm` section's thread scaling: every structure timed on 1 thread and on 2, paired per
//! round, judged on on-CPU rates pooled over the structures ([`crate::verdict::at_least`]).

use super::{algo_list, bench, find};
use crate::model::{Body, Cell, Check, Table};
use crate::Ctx;
use pktlab_lab::lpm::{BenchConfig, BenchResult, TableSpec};
use pktlab_lab::Result;

/// Times the prior-work structures (`prior_names`, built from `spec`) on 1 and 2 threads,
/// adds the command, the table and the check (or a note on a 1-core process) to `b`, and
/// returns the benchmark for the raw results. `tflag` and `nexthops` spell the table in the
/// command.
pub(super) fn thread_scaling(
    ctx: &Ctx<'_>,
    b: &mut Body,
    spec: &TableSpec,
    prior_names: &[String],
    tflag: &str,
    nexthops: &str,
) -> Result<BenchResult> {
    // Thread scaling: every structure is read-only during lookups, so two threads on two
    // cores should give about twice the rate (paper 004 §5 runs its multi-core numbers so).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let scale_lookups = ctx.pick(1u64 << 20, 1 << 23, 1 << 25);
    let scale_runs = ctx.pick(3, 9, 9);
    // Tightly paired: each round times 1 thread, then 2 threads, back to back, per structure.
    let scaled = bench(
        &BenchConfig {
            table: TableSpec {
                algos: prior_names.to_vec(),
                ..spec.clone()
            },
            traffic: "random".into(),
            lookups: scale_lookups,
            threads: 2,
            runs: scale_runs,
            pair_one_thread: true,
            huge_pages: true,
            ..BenchConfig::default()
        },
        ctx.progress,
    )?;
    b.commands.push(format!(
        "pktlab lpm bench {tflag} --nexthops {nexthops} --algo {} --traffic random --lookups {scale_lookups} --runs {scale_runs} --threads 2 --pair-one-thread --huge-pages --json",
        algo_list(prior_names)
    ));
    // Per structure and round: the 2-thread rate over the paired 1-thread rate, on the threads'
    // own CPU time (the capacity the two cores give while the threads run; the time the host
    // slices to its other guests or to this machine's other processes does not count) and on
    // the wall clock (what a user sees, moved by that slicing).
    let per_round = |two: &[f64], one: &[f64]| -> Vec<f64> {
        two.iter().zip(one).map(|(t, o)| t / o).collect()
    };
    // (name, 1-thread on-CPU Mlps, 2-thread on-CPU Mlps, on-CPU ratios, wall-clock ratios)
    type Scaling = (String, f64, f64, Vec<f64>, Vec<f64>);
    let ratios: Vec<Scaling> = prior_names
        .iter()
        .filter_map(|n| {
            let a = find(prior_names, &scaled.results, n)?;
            let oncpu = per_round(&a.runs_oncpu_mlps, &a.runs_one_thread_oncpu_mlps);
            let wall = per_round(&a.runs_mlps, &a.runs_one_thread_mlps);
            let one = crate::verdict::median(&a.runs_one_thread_oncpu_mlps)?;
            Some((n.clone(), one, a.mlps_oncpu, oncpu, wall))
        })
        .collect();
    // How many cores the 2-thread runs had: the threads' CPU time over the run's wall time
    // (each thread does the same number of lookups, so its CPU and wall times are inversely
    // its on-CPU and wall-clock rates). Per-thread on-CPU rates only show scaling when the
    // threads ran at once: two threads sliced onto one core keep their per-thread rates too.
    let cores_used: Vec<f64> = scaled
        .results
        .iter()
        .flat_map(|a| {
            a.runs_per_thread_oncpu_mlps
                .iter()
                .zip(&a.runs_per_thread_mlps)
        })
        .filter_map(|(oncpu, wall)| {
            let cpu: f64 = oncpu.iter().map(|r| 1.0 / r).sum();
            let span = wall.iter().map(|r| 1.0 / r).fold(0.0, f64::max);
            (cpu.is_finite() && span > 0.0).then(|| cpu / span)
        })
        .collect();
    let cores_used = crate::verdict::median(&cores_used);
    let med = |v: &[f64]| Cell::from(crate::verdict::median(v));
    let list = |v: &[f64]| {
        Cell::from(
            v.iter()
                .map(|r| format!("{r:.2}"))
                .collect::<Vec<_>>()
                .join(", "),
        )
    };
    b.tables.push(Table {
        id: "lpm-threads".into(),
        title: format!("Thread scaling (random traffic): aggregate rate of 2 lookup threads vs 1, paired per round ({scale_runs} rounds)"),
        columns: ["algorithm", "1 thread on-CPU Mlps (median)", "2 threads on-CPU Mlps (median)", "on-CPU ratio (median)", "on-CPU ratio per round", "wall-clock ratio (median)", "wall-clock ratio per round"]
            .map(String::from)
            .to_vec(),
        rows: ratios
            .iter()
            .map(|(n, a, c, oncpu, wall)| {
                vec![Cell::from(n.as_str()), Cell::from(*a), Cell::from(*c), med(oncpu), list(oncpu), med(wall), list(wall)]
            })
            .collect(),
    });
    if cores >= 2 {
        let series: Vec<(&str, &[f64])> = ratios
            .iter()
            .map(|(n, _, _, oncpu, _)| (n.as_str(), &oncpu[..]))
            .collect();
        let mut v = crate::verdict::at_least(&series, 1.8, "×");
        let used = cores_used.unwrap_or(0.0);
        v.why = format!("{}; the 2-thread runs had {used:.2} cores (median of the threads' CPU time / wall time)", v.why);
        if used < 1.5 {
            // Sliced onto one core, each thread keeps its speed whatever the structure does.
            v.kind = crate::verdict::Kind::TieWithinNoise;
            v.why = format!("not testable on this run: {}", v.why);
        }
        b.checks.push(Check {
            claim: "Lookups scale with cores: 2 threads give ≥ 1.8× the rate of 1 (on-CPU rates: the median of every structure's rounds, and no structure below beyond noise)".into(),
            verdict: crate::verdict::Verdict {
                why: format!(
                    "{}; each of {scale_runs} rounds times 1 thread and 2 threads back to back per structure ({scale_lookups} lookups; the 1-thread run first in even rounds, second in odd ones), ratio of on-CPU rates per round (the wall-clock ratios beside them in the table)",
                    v.why
                ),
                ..v
            },
        });
    } else {
        b.notes.push(
            "Thread scaling not checked: this process may run on 1 core only (CPU affinity), so the 2-thread row measures time sharing.".into(),
        );
    }
    Ok(scaled)
}
