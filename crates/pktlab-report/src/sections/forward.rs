//! Section `forward`: paper 001 (message-buffer redesign, Yamada, Kawashima et al.) — the
//! forwarding rate of the three metadata layouts (DPDK's 128 B mbuf, compact metadata
//! allocated per packet, compact metadata in a constant per-batch region) across batch sizes,
//! and the whole data plane (parse → flow cache → Poptrie → TTL rewrite → AQM queue). Runs
//! `pktlab_lab::forward`.

use crate::model::{Body, Cell, CmpRow, Comparison, Figure, Input, Plot, Series, Table};
use crate::verdict::Rule;
use crate::{Ctx, SectionDef};
use pktlab::mbuf::MetaKind;
use pktlab::pipeline::Stages;
use pktlab::port::RxSpec;
use pktlab_lab::forward::{forward, ForwardConfig, ForwardResult, TableSpec};
use pktlab_lab::{Error, Result};

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "forward",
    title: "Message buffers and the batched data plane",
    paper: "001 — Message-buffer redesign for cache-efficient CNFs (Yamada, Kawashima et al., NITech)",
    claim: "DPDK's 128-byte mbuf metadata stops fitting L1 when batches are large; shrinking the metadata and aggregating a batch's metadata into a constant region of few cache lines forwards several times faster (EIVU: 14.9 Mpps with 128 B metadata at batch 32, 96.7 Mpps with 16 B aggregated metadata at batch 512).",
    run,
};

/// DIGEST.md §001, EIVU (Xeon w7-2475X): (layout, batch, Mpps).
const EIVU: &[(&str, usize, f64)] = &[("dpdk", 32, 14.9), ("compact-constant", 512, 96.7)];

const LAYOUTS: &[&str] = &["dpdk", "compact-alloc", "compact-constant"];

fn param(e: impl std::fmt::Display) -> Error {
    Error::param(e.to_string())
}

/// Median Mpps of `rounds` runs of each (layout, batch), interleaved round by round.
fn layout_sweep(
    ctx: &Ctx<'_>,
    batches: &[usize],
    packets: u64,
    rounds: usize,
) -> Result<Vec<(String, usize, Vec<ForwardResult>)>> {
    let mut out: Vec<(String, usize, Vec<ForwardResult>)> = Vec::new();
    for l in LAYOUTS {
        for &b in batches {
            out.push((l.to_string(), b, Vec::new()));
        }
    }
    ctx.progress.start(
        "forward: layouts × batch",
        Some((out.len() * rounds) as u64),
    );
    let mut done = 0;
    for _ in 0..rounds {
        for (l, b, runs) in out.iter_mut() {
            let cfg = ForwardConfig {
                rx: "null:64".parse::<RxSpec>().map_err(param)?,
                stages: Stages::Io,
                meta: l.parse::<MetaKind>().map_err(param)?,
                meta_bytes: 16,
                batch: *b,
                packets,
                ..ForwardConfig::default()
            };
            runs.push(forward(&cfg, &pktlab_lab::Silent)?);
            done += 1;
            ctx.progress.set(done);
        }
    }
    ctx.progress.finish();
    Ok(out)
}

fn median(runs: &[ForwardResult]) -> f64 {
    let mut v: Vec<f64> = runs.iter().map(|r| r.mpps).collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    let batches: Vec<usize> = vec![32, 128, 512, 1024];
    // Interleaved rounds at every size: the two timed comparisons below rest on them (one run
    // per point once put the quick run's speed-up at 2.9× and 5.5× in runs minutes apart),
    // and 10M packets per run at quick size too: 1M packets last 2–15 ms here, and one host
    // stall in such a run cut a round of compact-constant@512 from ≈ 300 to 36 Mpps.
    let packets = ctx.pick(50_000, 10_000_000, 10_000_000);
    let rounds = ctx.pick(3, 5, 5);
    b.inputs.push(Input::new(
        "layouts × batch",
        format!("null:64 receive port (64-byte frames made in place), stages io (rx → tx, metadata written and freed), {packets} packets per run, median of {rounds} interleaved round(s)"),
    ));
    let sweep = layout_sweep(ctx, &batches, packets, rounds)?;
    for l in LAYOUTS {
        b.commands.push(format!(
            "pktlab forward --rx null:64 --stages io --meta {l} --meta-bytes 16 --batch B --packets {packets} --json   # B in {batches:?}"
        ));
    }
    let runs_of = |l: &str, bt: usize| {
        sweep
            .iter()
            .find(|(x, y, _)| x == l && *y == bt)
            .map(|(_, _, r)| r.as_slice())
    };
    let mpps = |l: &str, bt: usize| runs_of(l, bt).map(median);
    let rounds_of = |l: &str, bt: usize| -> Vec<f64> {
        runs_of(l, bt).map_or_else(Vec::new, |r| r.iter().map(|x| x.mpps).collect())
    };
    b.figures.push(Figure::new(
        "mbuf-layouts",
        "Forwarding rate (io stages) by metadata layout and batch size",
        "paper 001 (layouts × batch; EIVU's published points)",
        "batch size, packets",
        "Mpps (1 worker)",
        Plot::Lines {
            series: LAYOUTS
                .iter()
                .map(|l| {
                    Series::new(
                        *l,
                        batches
                            .iter()
                            .filter_map(|&bt| Some([bt as f64, mpps(l, bt)?]))
                            .collect(),
                    )
                })
                .collect(),
            log_x: true,
            log_y: false,
        },
    ));
    b.comparisons.push(Comparison::new(
        "mbuf-eivu",
        "EIVU's two published points",
        "DIGEST.md §001, EIVU (Xeon w7-2475X)",
        "Mpps",
        EIVU.iter()
            .map(|&(l, bt, v)| CmpRow::timed(format!("{l}, batch {bt}"), Some(v), rounds_of(l, bt)))
            .collect(),
        Rule::Ordering { tie: 0.0 },
    ));
    let speedup = |a: Option<f64>, bb: Option<f64>| a.zip(bb).map(|(a, b)| a / b);
    b.comparisons.push(Comparison::new(
        "mbuf-speedup",
        "Speed-up of 16 B aggregated metadata at batch 512 over DPDK's 128 B at batch 32",
        "derived from DIGEST.md §001 (96.7 / 14.9)",
        "ratio",
        // One ratio per round (both runs of a round minutes apart at most); ours = their median.
        vec![CmpRow::timed(
            "compact-constant@512 ÷ dpdk@32",
            Some(EIVU[1].2 / EIVU[0].2),
            rounds_of("compact-constant", 512)
                .iter()
                .zip(rounds_of("dpdk", 32))
                .map(|(a, b)| a / b)
                .collect(),
        )],
        Rule::Values {
            rel_tol: 0.3,
            tie: 0.0,
        },
    ));
    b.tables.push(Table {
        id: "mbuf-layouts".into(),
        title: "Mpps per layout and batch (median), and × dpdk".into(),
        columns: std::iter::once("batch".to_string())
            .chain(
                LAYOUTS
                    .iter()
                    .flat_map(|l| [format!("{l} Mpps"), format!("{l} × dpdk")]),
            )
            .collect(),
        rows: batches
            .iter()
            .map(|&bt| {
                let mut row = vec![Cell::from(bt as f64)];
                for l in LAYOUTS {
                    row.push(mpps(l, bt).into());
                    row.push(speedup(mpps(l, bt), mpps("dpdk", bt)).into());
                }
                row
            })
            .collect(),
    });

    // The whole pipeline.
    let (v4, v6) = ctx.pick((10_000, 2_000), (200_000, 50_000), (1_000_000, 250_000));
    let pk = ctx.pick(20_000, 500_000, 1_000_000);
    let repeat = ctx.pick(1, 1, 3);
    let workers: Vec<usize> = ctx.pick(vec![1], vec![1], vec![1, 2]);
    b.inputs.push(Input::new(
        "pipeline",
        format!("synthetic trace of {pk} packets × {repeat}, synthetic tables {v4} IPv4 + {v6} IPv6 routes (hash:16), poptrie18, HPC4 flow cache 1,024 entries, ZL-RED queue, 10 Gb/s link"),
    ));
    let mut pipe = Vec::new();
    ctx.progress
        .start("forward: full pipeline", Some((workers.len() * 2) as u64));
    for &w in &workers {
        for bt in [32usize, 256] {
            let cfg = ForwardConfig {
                table: TableSpec::Synthetic(v4, v6),
                stages: Stages::Full,
                batch: bt,
                workers: w,
                packets: pk,
                repeat,
                ..ForwardConfig::default()
            };
            b.commands.push(format!(
                "pktlab forward --stages full --batch {bt} --workers {w} --packets {pk} --repeat {repeat} --json   # tables: synthetic {v4}+{v6} routes"
            ));
            pipe.push(forward(&cfg, &pktlab_lab::Silent)?);
            ctx.progress.set(pipe.len() as u64);
        }
    }
    ctx.progress.finish();
    b.tables.push(Table {
        id: "forward-pipeline".into(),
        title: "Full pipeline: parse → flow cache → Poptrie → TTL → ZL-RED → tx".into(),
        columns: [
            "workers",
            "batch",
            "Mpps",
            "ns/packet",
            "packets",
            "forwarded",
            "no route",
            "AQM drops",
            "cache hit rate",
        ]
        .map(String::from)
        .to_vec(),
        rows: pipe
            .iter()
            .map(|r| {
                vec![
                    Cell::from(r.workers as f64),
                    Cell::from(r.batch as f64),
                    r.mpps.into(),
                    r.ns_per_packet.into(),
                    Cell::from(r.packets as f64),
                    Cell::from(r.forwarded as f64),
                    Cell::from(r.dropped.no_route as f64),
                    Cell::from(r.dropped.aqm as f64),
                    r.cache.hit_rate.into(),
                ]
            })
            .collect(),
    });
    b.notes.push("The paper's L1 hit ratios and replacements per packet need cachegrind (docs/results/mbuf.md has them); this section measures rates only. Rates are wall-clock on a shared machine: compare layouts within the run.".into());
    let raw: Vec<_> = sweep
        .iter()
        .map(|(l, bt, r)| serde_json::json!({"meta": l, "batch": bt, "median_mpps": median(r), "runs": r}))
        .collect();
    b.raw("layouts", &raw);
    b.raw("pipeline", &pipe);
    Ok(b)
}
