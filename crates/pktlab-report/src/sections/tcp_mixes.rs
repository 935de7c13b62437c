//! Section `tcp-mixes` (beyond paper 002): today's TCP mixes — CUBIC vs BBR v1, Reno vs CUBIC,
//! CUBIC vs Vegas, half the connections each, SACK on — on paper 002's fig. 4 dumbbell under
//! DropTail, RED, SRED, ZL-RED, FQ-CoDel and DRR, with ECN off and on.
//! Runs `pktlab_lab::aqm::mix_study` once per mix; the verdict "fair" is the library's
//! (`MixRow::fair`: the first algorithm's share within [0.4, 0.6] and Jain's index ≥ 0.9).

use crate::model::{BarSeries, Body, Cell, Check, Figure, Input, Plot, Table};
use crate::{Ctx, Scale, SectionDef};
use pktlab_lab::aqm::{mix_study, MixRow, MixStudyConfig, MixStudyResult, MIXES};
use pktlab_lab::Result;

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "tcp-mixes",
    title: "Beyond the paper: which AQM is fair for today's TCP mixes",
    paper: "beyond 002 — paper 002's dumbbell and fairness question posed for CUBIC (RFC 9438), BBR v1 (Cardwell et al. 2016), Reno and Vegas with SACK and ECN",
    claim: "Paper 002 asks which AQM shares a bottleneck fairly between Reno and Vegas. Asked of today's mixes: per-flow scheduling (DRR, FQ-CoDel) should be fair whatever the senders do; a single queue (DropTail, RED, SRED, ZL-RED) leaves the share to the congestion controllers' reaction to loss and delay (no published numbers: the verdicts are computed from these runs).",
    run,
};

/// The disciplines compared, with DropTail as the baseline.
const AQMS: &[&str] = &["droptail", "red", "sred", "zlred", "fq_codel", "drr"];

/// The first algorithm's share of the pair's goodput (the library stores the second's).
fn a_share(r: &MixRow) -> f64 {
    1.0 - r.b_share.mean
}

fn command(c: &MixStudyConfig) -> String {
    format!(
        "pktlab aqm study {} --aqm {} --conns {} --seeds {} --duration {} --warmup {} --json",
        c.mix,
        c.aqm.join(","),
        c.conns
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(","),
        c.seeds,
        c.duration,
        c.warmup
    )
}

/// Bars: the first algorithm's share per discipline, ECN off and on.
fn share_figure(r: &MixStudyResult) -> Figure {
    let (a, b) = r.rows.first().map_or(("a", "b"), |x| (x.a, x.b));
    let series = [false, true]
        .iter()
        .map(|&ecn| BarSeries {
            name: format!("ECN {}", if ecn { "on" } else { "off" }),
            values: AQMS
                .iter()
                .map(|q| {
                    r.rows
                        .iter()
                        .find(|x| x.aqm == *q && x.ecn == ecn)
                        .map(a_share)
                })
                .collect(),
        })
        .collect();
    Figure::new(
        &format!("tcp-mixes-{}", r.study),
        &format!("{a} vs {b}: {a}'s share of the goodput per discipline (0.5 = fair)"),
        "beyond the paper",
        "discipline at the bottleneck",
        &format!("{a} share"),
        Plot::Bars {
            categories: AQMS.iter().map(|s| s.to_string()).collect(),
            series,
        },
    )
}

fn names(rows: &[&MixRow]) -> String {
    if rows.is_empty() {
        return "none".into();
    }
    rows.iter()
        .map(|r| format!("{} ({:.2})", r.aqm, a_share(r)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    let base = MixStudyConfig {
        aqm: AQMS.iter().map(|s| s.to_string()).collect(),
        ecn: vec![false, true],
        conns: vec![ctx.pick(4, 20, 20)],
        seeds: ctx.pick(1, 1, 3),
        duration: ctx.pick(2.0, 20.0, 200.0),
        warmup: ctx.pick(0.5, 5.0, 50.0),
        ..MixStudyConfig::default()
    };
    b.inputs.push(Input::new(
        "scenario",
        format!(
            "paper 002 fig. 4 dumbbell simulated by pktlab's netsim: 45 Mb/s links, 20 ms one-way, B = {} packets, 1000-byte segments, SACK (RFC 6675) in every sender; {} connections per point (half each algorithm), {} s simulated per run ({} s warm-up excluded), {} seed(s) per point",
            base.buffer, base.conns[0], base.duration, base.warmup, base.seeds
        ),
    ));
    let mut res = Vec::new();
    for mix in MIXES {
        let c = MixStudyConfig {
            mix: mix.into(),
            ..base.clone()
        };
        b.commands.push(command(&c));
        res.push(mix_study(&c, ctx.progress)?);
    }
    let mut verdict = Table {
        id: "tcp-mixes-verdict".into(),
        title: "Which AQM is fair for which mix (fair: first algorithm's share in [0.4, 0.6] and Jain ≥ 0.9, means over seeds)".into(),
        columns: [
            "mix", "aqm", "ECN", "a Mb/s", "b Mb/s", "a share", "Jain", "utilisation", "loss",
            "queue ms", "CE marks", "fair",
        ]
        .map(String::from)
        .to_vec(),
        rows: Vec::new(),
    };
    for r in &res {
        b.figures.push(share_figure(r));
        for x in &r.rows {
            verdict.rows.push(vec![
                Cell::from(x.mix.as_str()),
                Cell::from(x.aqm.as_str()),
                Cell::from(if x.ecn { "on" } else { "off" }),
                x.a_mbps.mean.into(),
                x.b_mbps.mean.into(),
                a_share(x).into(),
                x.jain.mean.into(),
                x.utilization.mean.into(),
                x.loss_rate.mean.into(),
                x.mean_queue_delay_ms.mean.into(),
                x.ecn_marks.mean.into(),
                Cell::from(if x.fair { "yes" } else { "no" }),
            ]);
        }
        let (a, bb) = r.rows.first().map_or(("a", "b"), |x| (x.a, x.b));
        for ecn in [false, true] {
            let fair: Vec<&MixRow> = r.rows.iter().filter(|x| x.ecn == ecn && x.fair).collect();
            let unfair: Vec<&MixRow> = r.rows.iter().filter(|x| x.ecn == ecn && !x.fair).collect();
            b.checks.push(Check::new(
                &format!(
                    "{a} vs {bb}, ECN {}: some discipline shares the link fairly",
                    if ecn { "on" } else { "off" }
                ),
                !fair.is_empty(),
                format!(
                    "fair ({a} share): {}; unfair: {}",
                    names(&fair),
                    names(&unfair)
                ),
            ));
        }
    }
    // Per-flow round robin gives every backlogged flow the same rate whatever its sender does.
    let drr: Vec<&MixRow> = res
        .iter()
        .flat_map(|r| r.rows.iter())
        .filter(|x| x.aqm == "drr")
        .collect();
    b.checks.push(Check::new(
        "DRR (per-flow round robin) is fair for every mix, ECN off and on",
        !drr.is_empty() && drr.iter().all(|x| x.fair),
        format!(
            "first algorithm's share / Jain under DRR: {}",
            drr.iter()
                .map(|x| format!(
                    "{} ECN {}: {:.2} / {:.3}",
                    x.mix,
                    if x.ecn { "on" } else { "off" },
                    a_share(x),
                    x.jain.mean
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    // DropTail and DRR never drop early, so ECN changes nothing there: a consistency check
    // of the ECN plumbing (no marks, same goodput).
    let mut same = true;
    let mut worst = 0f64;
    for r in &res {
        for q in ["droptail", "drr"] {
            let get = |e: bool| r.rows.iter().find(|x| x.aqm == q && x.ecn == e);
            if let (Some(off), Some(on)) = (get(false), get(true)) {
                let d = (off.b_share.mean - on.b_share.mean).abs();
                worst = worst.max(d);
                same &= d < 1e-9 && on.ecn_marks.max == 0.0;
            }
        }
    }
    b.checks.push(Check::new(
        "ECN changes nothing under DropTail and DRR (they never drop early, so never mark)",
        same,
        format!("largest share difference ECN off vs on: {worst:.2e}; CE marks there: none"),
    ));
    b.tables.push(verdict);
    b.notes.push(
        "a = the first algorithm named in the mix, b = the second; share = a's goodput ÷ (a + b); Jain = Jain's index over all connections; values are means over seeds (min and max per point in results.json). ECN on: ECT senders, RED/SRED/ZL-RED/FQ-CoDel mark instead of dropping early (RFC 3168); BBR v1 ignores ECE, as Linux's does.".into(),
    );
    b.notes.push("Validation against ns-3 3.44 (docs/results/netsim.md, \"Current result: modern TCP, pktlab vs ns-3\", 3 seeds each side): CUBIC, NewReno and BBR v1 with SACK, alone and as the 10 CUBIC + 10 BBR mix, agree under RED and FQ-CoDel (mix: CUBIC's share 0.03 vs 0.04 under RED, 0.50 vs 0.50 under FQ-CoDel). Under DropTail utilisation and queue agree, but with equal access and bottleneck rates pktlab's full queue concentrates its losses on a few flows (a tie-breaking artefact of the event order, explained there), so DropTail shares and Jain are less reliable than the AQM rows.".into());
    if ctx.scale != Scale::Full {
        b.notes.push(format!(
            "Quick run: {} s simulated per run, one seed; the full run uses 200 s (50 s warm-up) and 3 seeds.",
            base.duration
        ));
    }
    for r in &res {
        b.raw(&r.study, r);
    }
    Ok(b)
}
