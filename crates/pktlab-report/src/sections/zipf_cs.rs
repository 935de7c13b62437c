//! Section `zipf-cs`: paper 003 (P4 CCN packet generator, Endo et al.) — the Zipf table's
//! error against the exact distribution as a function of the table budget and merge rule, the
//! table sampler's speed, and the content-store hit ratio under Zipf requests next to Che's
//! approximation, with the forwarder's rate as the CS grows. Runs `pktlab_lab::traffic` and
//! `pktlab_lab::ccn`.

use crate::model::{Body, Cell, Check, CmpRow, Comparison, Figure, Input, Plot, Series, Table};
use crate::verdict::Rule;
use crate::{Ctx, SectionDef};
use pktlab_lab::ccn::{paired_rates, sim, CcnSimConfig};
use pktlab_lab::traffic::{zipf, zipf_error_sweep, ZipfConfig, ZipfErrorConfig, ZipfSpec};
use pktlab_lab::Result;

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "zipf-cs",
    title: "Zipf names and the CCN content store",
    paper: "003 — P4-based CCN packet generator and Cefore evaluation (Endo, Takemasa, Koizumi, Hasegawa)",
    claim: "Zipf-popular names over 2^32 can be drawn by inverse transform from a table small enough for a switch if consecutive low-frequency ranks are merged so that the frequency-weighted error is smallest; with a content store, the router's forwarding rate falls as the number of cached contents grows (DIGEST.md §003 gives the method and the case study's observations, no error table).",
    run,
};

const POLICIES: &[&str] = &["lru", "fifo", "lfu", "random"];

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    // Table error vs budget.
    let ecfg = ZipfErrorConfig {
        entries: ctx.pick(
            vec![1 << 8, 1 << 10],
            vec![1 << 10, 1 << 12, 1 << 14, 1 << 16],
            (10..=20).step_by(2).map(|k| 1u64 << k).collect(),
        ),
        ..ZipfErrorConfig::default()
    };
    b.inputs.push(Input::new(
        "names",
        format!(
            "Zipf(α) over {} ranks, α ∈ {:?}, table budgets {:?} (computed, no input file)",
            ecfg.names, ecfg.alphas, ecfg.entries
        ),
    ));
    let err = zipf_error_sweep(&ecfg, ctx.progress)?;
    b.notes.push("The error sweep is the library function pktlab_lab::traffic::zipf_error_sweep (no CLI subcommand of its own); `pktlab gen zipf --entries N --compare --json` gives one budget's error under every merge rule.".into());
    let mut s = Vec::new();
    for &alpha in &ecfg.alphas {
        for m in &ecfg.merges {
            let pts: Vec<[f64; 2]> = err
                .points
                .iter()
                .filter(|p| p.alpha == alpha && p.stats.merge == m.as_str())
                .map(|p| [p.budget as f64, p.stats.tv])
                .collect();
            s.push(Series::new(format!("α = {alpha}, {m}"), pts));
        }
    }
    b.figures.push(Figure::new(
        "zipf-error",
        "Zipf table error (total variation) vs table budget",
        "paper 003 §table merging (no published figure values)",
        "table entries",
        "total variation distance to the exact Zipf",
        Plot::Lines {
            series: s,
            log_x: true,
            log_y: true,
        },
    ));
    let mut wins = 0;
    let mut total = 0;
    let mut worst = String::new();
    for p in err.points.iter().filter(|p| p.stats.merge == "optimal") {
        let others: Vec<f64> = err
            .points
            .iter()
            .filter(|q| q.alpha == p.alpha && q.budget == p.budget && q.stats.merge != "optimal")
            .map(|q| q.stats.tv)
            .collect();
        total += 1;
        if others.iter().all(|&o| p.stats.tv <= o) {
            wins += 1;
        } else if worst.is_empty() {
            worst = format!(
                "; not at α = {}, {} entries (optimal {:.2e} vs {:?})",
                p.alpha, p.budget, p.stats.tv, others
            );
        }
    }
    b.checks.push(Check::new(
        "Merging the tail optimally gives the smallest error of the merge rules at every budget",
        total > 0 && wins == total,
        format!("optimal has the lowest TV at {wins} of {total} (α, budget) points{worst}"),
    ));
    // Sampler speed.
    let zcfg = ZipfConfig {
        table: ZipfSpec::default(),
        samples: ctx.pick(1 << 16, 1 << 23, 1 << 27),
        runs: ctx.pick(1, 1, 3),
        baseline_samples: ctx.pick(1 << 14, 1 << 20, 1 << 23),
        compare: true,
        ..ZipfConfig::default()
    };
    let z = zipf(&zcfg, ctx.progress)?;
    b.commands.push(format!(
        "pktlab gen zipf --alpha {} --names {} --entries {} --samples {} --runs {} --compare --json",
        zcfg.table.alpha, zcfg.table.names, zcfg.table.entries, zcfg.samples, zcfg.runs
    ));
    b.tables.push(Table {
        id: "zipf-sampler".into(),
        title: format!(
            "Table sampler, α = {}, {} names, {} entries: speed and error",
            z.alpha, z.names, z.entries
        ),
        columns: ["sampler", "M samples/s", "ns/sample", "TV", "KL", "KS"]
            .map(String::from)
            .to_vec(),
        rows: {
            let mut rows = vec![
                vec![
                    Cell::from("table, one at a time"),
                    z.msamples_per_s.into(),
                    z.ns_per_sample.into(),
                    z.tv.into(),
                    z.kl.into(),
                    z.ks.into(),
                ],
                vec![
                    Cell::from("table, batched"),
                    z.batch_msamples_per_s.into(),
                    Cell::from(1e3 / z.batch_msamples_per_s),
                    Cell::Empty,
                    Cell::Empty,
                    Cell::Empty,
                ],
            ];
            if let Some(bl) = &z.baseline_rand_distr {
                rows.push(vec![
                    Cell::from("rand_distr::Zipf (exact)"),
                    bl.msamples_per_s.into(),
                    bl.ns_per_sample.into(),
                    Cell::from(0.0),
                    Cell::from(0.0),
                    Cell::from(0.0),
                ]);
            }
            rows
        },
    });

    // Content store: hit ratio vs Che, forwarding rate.
    let ccfg = CcnSimConfig {
        contents: ctx.pick(1 << 16, 1 << 22, 1 << 26),
        cs_entries: ctx.pick(
            vec![0, 1 << 6, 1 << 8],
            vec![0, 1 << 8, 1 << 10, 1 << 12, 1 << 14, 1 << 16],
            vec![0, 1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22],
        ),
        policy: POLICIES.iter().map(|s| s.to_string()).collect(),
        requests: ctx.pick(1 << 14, 1 << 20, 1 << 24),
        warmup: ctx.pick(1 << 12, 1 << 18, 1 << 22),
        fwd_requests: ctx.pick(1 << 12, 1 << 17, 1 << 20),
        table_entries: ctx.pick(1 << 12, 1 << 16, 1 << 20),
        ..CcnSimConfig::default()
    };
    b.inputs.push(Input::new(
        "requests",
        format!(
            "Zipf({}) over {} contents from a {}-entry table, seed {}",
            ccfg.alpha, ccfg.contents, ccfg.table_entries, ccfg.seed
        ),
    ));
    let cs = sim(&ccfg, ctx.progress)?;
    b.commands.push(format!(
        "pktlab ccn sim --contents {} --alpha {} --cs-entries {} --policy {} --requests {} --warmup {} --fwd-requests {} --table-entries {} --json",
        ccfg.contents,
        ccfg.alpha,
        ccfg.cs_entries.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(","),
        POLICIES.join(","),
        ccfg.requests,
        ccfg.warmup,
        ccfg.fwd_requests,
        ccfg.table_entries
    ));
    let rows = &cs.results;
    let lru: Vec<_> = rows.iter().filter(|r| r.policy == "lru").collect();
    b.comparisons.push(
        Comparison::new(
            "cs-che",
            "LRU content-store hit ratio against Che's approximation",
            "Che's approximation for LRU under Zipf (model; the paper publishes no hit ratios)",
            "hit ratio",
            lru.iter()
                .map(|r| {
                    CmpRow::new(
                        format!("{} entries", r.cs_entries),
                        Some(r.che_lru),
                        Some(r.hit_ratio),
                    )
                })
                .collect(),
            Rule::Values {
                rel_tol: 0.05,
                tie: 0.0,
            },
        )
        .against("Che model"),
    );
    let mut hs: Vec<Series> = POLICIES
        .iter()
        .map(|p| {
            Series::new(
                *p,
                rows.iter()
                    .filter(|r| r.policy == *p)
                    .map(|r| [r.cs_entries as f64, r.hit_ratio])
                    .collect(),
            )
        })
        .collect();
    hs.push(Series::reference(
        "Che (LRU model)",
        lru.iter()
            .map(|r| [r.cs_entries as f64, r.che_lru])
            .collect(),
    ));
    hs.push(Series::reference(
        "ideal (static top-C)",
        lru.iter().map(|r| [r.cs_entries as f64, r.ideal]).collect(),
    ));
    b.figures.push(Figure::new(
        "cs-hit-ratio",
        &format!(
            "Content-store hit ratio vs size, Zipf({}) over {} contents",
            cs.alpha, cs.contents
        ),
        "paper 003 case study (CS) with Che's approximation",
        "CS entries",
        "hit ratio",
        Plot::Lines {
            series: hs,
            log_x: true,
            log_y: false,
        },
    ));
    let off = rows.iter().find(|r| r.cs_entries == 0).and_then(|r| r.mpps);
    let mut rs: Vec<Series> = POLICIES
        .iter()
        .map(|p| {
            Series::new(
                *p,
                rows.iter()
                    .filter(|r| r.policy == *p)
                    .filter_map(|r| Some([r.cs_entries as f64, r.mpps?]))
                    .collect(),
            )
        })
        .collect();
    if let (Some(o), Some(first), Some(last)) = (off, lru.first(), lru.last()) {
        rs.push(Series::reference(
            "CS off",
            vec![[first.cs_entries as f64, o], [last.cs_entries as f64, o]],
        ));
    }
    b.figures.push(Figure::new(
        "cs-rate",
        "Forwarder request rate (consumer → router → producer in one thread) vs CS size",
        "paper 003 case study (forwarding rate plots)",
        "CS entries",
        "M requests/s",
        Plot::Lines {
            series: rs,
            log_x: true,
            log_y: false,
        },
    ));
    // The rate claim rests on rounds of the smallest and the largest store (LRU), each round
    // timing the two side by side in alternating slices on the thread's CPU clock (the sweep
    // above times each size once, at its own moment: the host's drift between two moments
    // moved the ratio of two consecutive timings from 0.5 to 1.1). Each round builds both
    // stores afresh.
    let sizes: Vec<u64> = ccfg.cs_entries.iter().copied().filter(|&c| c > 0).collect();
    if let (Some(&small), Some(&large)) = (sizes.first(), sizes.last()) {
        let slices = 16;
        let rc = CcnSimConfig {
            policy: vec!["lru".into()],
            fwd_requests: ccfg.fwd_requests * 4,
            ..ccfg.clone()
        };
        super::rate_falls(
            &mut b,
            "With a content store the forwarding rate falls as the number of cached contents grows (LRU, smallest vs largest store, M requests per CPU-second, the two timed side by side)",
            "cs_rate_rounds",
            (small, large),
            ctx.pick(3, 9, 9),
            |small_first| {
                let order = if small_first { [small, large] } else { [large, small] };
                let r = paired_rates(&rc, order, slices)?;
                let (s, l) = if small_first { (r[0], r[1]) } else { (r[1], r[0]) };
                Ok((Some(s), Some(l)))
            },
        )?;
        b.notes.push(format!(
            "The rate check: each round builds an LRU store of {small} and one of {large} entries, warms each with {n} requests, then runs {n} more on each in {slices} alternating slices timed on the thread's CPU clock, so that a change of the host's speed weighs on both alike (results.json: cs_rate_rounds).",
            n = rc.fwd_requests
        ));
    }
    b.notes.push("Hit ratios are measured after the store is full plus a warm-up; the forwarding rate runs consumer, router and producer in one thread (packet encode/decode, PIT, FIB, CS), so it shows the CS's cost, not a NIC's.".into());
    b.raw("zipf_error", &err);
    b.raw("zipf_sampler", &z);
    b.raw("content_store", &cs);
    Ok(b)
}
