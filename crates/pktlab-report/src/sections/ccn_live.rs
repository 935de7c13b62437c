//! Section `ccn-live`: paper 003's case study on real sockets — a Zipf consumer, the pktlab
//! CCN router and a producer on 127.0.0.1 (Cefore's v0.12 wire format), for growing
//! content-store sizes: Data/s at the consumer and the CS hit ratio next to the FIFO and LRU
//! approximations. Runs `pktlab_lab::ccn_live::run_case_study`.

use crate::model::{Body, Cell, CmpRow, Comparison, Figure, Input, Plot, Series, Table};
use crate::verdict::Rule;
use crate::{Ctx, SectionDef};
use pktlab_lab::ccn_live::{paired_router_rates, run_case_study, CaseStudyConfig};
use pktlab_lab::Result;
use std::time::Duration;

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "ccn-live",
    title: "CCN on the wire: consumer, router and producer on loopback",
    paper: "003 — P4-based CCN packet generator and Cefore evaluation (Endo, Takemasa, Koizumi, Hasegawa), §4 case study",
    claim: "Requests for 2^26 names with Zipf α = 0.8 at a Cefore router: without a content store the router is bound by packets per second; with one, the forwarding rate falls as the number of cached contents grows.",
    run,
};

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    let cfg = CaseStudyConfig {
        cs_entries: ctx.pick(
            vec![0, 1 << 8],
            vec![0, 1 << 10, 1 << 14, 1 << 16],
            vec![0, 1 << 10, 1 << 14, 1 << 16, 1 << 18],
        ),
        contents: ctx.pick(1 << 14, 1 << 20, 1 << 26),
        warmup: Duration::from_secs_f64(ctx.pick(0.3, 1.0, 5.0)),
        duration: Duration::from_secs_f64(ctx.pick(0.3, 1.0, 5.0)),
        ..CaseStudyConfig::default()
    };
    b.inputs.push(Input::new(
        "traffic",
        format!(
            "pktlab ccn consumer → router → producer, UDP on 127.0.0.1 in this process, Cefore {} dialect; Zipf({}) over {} contents, window {}, {} B payload; CS policy {} (Cefore's local cache); {} s warm-up + {} s measured per size",
            cfg.dialect.as_str(),
            cfg.alpha,
            cfg.contents,
            cfg.window,
            cfg.payload,
            cfg.policy.as_str(),
            cfg.warmup.as_secs_f64(),
            cfg.duration.as_secs_f64()
        ),
    ));
    let r = run_case_study(&cfg, ctx.progress)?;
    b.commands.push(format!(
        "pktlab ccn producer / router --cs-entries C --cs-policy {} / consumer on udp:127.0.0.1 (see tools/cefore-case-study.sh); the sweep is pktlab_lab::ccn_live::run_case_study",
        cfg.policy.as_str()
    ));
    let with_cs: Vec<_> = r.rows.iter().filter(|x| x.cs_entries > 0).collect();
    b.comparisons.push(
        Comparison::new(
            "ccn-live-hit",
            "Measured CS hit ratio against the FIFO approximation",
            "characteristic-time approximation for FIFO (model; the paper publishes no hit ratios)",
            "hit ratio (router counters, measured run)",
            with_cs
                .iter()
                .map(|x| {
                    CmpRow::new(
                        format!("{} entries", x.cs_entries),
                        Some(x.che_fifo),
                        Some(x.hit_ratio),
                    )
                })
                .collect(),
            Rule::Values {
                rel_tol: 0.1,
                tie: 0.0,
            },
        )
        .against("FIFO model"),
    );
    let pts = |f: fn(&pktlab_lab::ccn_live::CaseStudyRow) -> f64| -> Vec<[f64; 2]> {
        with_cs
            .iter()
            .map(|x| [x.cs_entries as f64, f(x)])
            .collect()
    };
    b.figures.push(Figure::new(
        "ccn-live-hit",
        "CS hit ratio on the wire vs CS size",
        "paper 003 case study",
        "CS entries",
        "hit ratio",
        Plot::Lines {
            series: vec![
                Series::new("measured (router)", pts(|x| x.hit_ratio)),
                Series::new(
                    "measured (from producer)",
                    pts(|x| x.hit_ratio_from_producer),
                ),
                Series::reference("FIFO approximation", pts(|x| x.che_fifo)),
                Series::reference("Che (LRU)", pts(|x| x.che_lru)),
            ],
            log_x: true,
            log_y: false,
        },
    ));
    let off = r
        .rows
        .iter()
        .find(|x| x.cs_entries == 0)
        .map(|x| x.data_per_s);
    let mut rate = vec![
        Series::new("Data/s at the consumer", pts(|x| x.data_per_s)),
        Series::new(
            "router: datagrams per CPU-second",
            pts(|x| x.router_pps_cpu),
        ),
    ];
    if let (Some(o), Some(f), Some(l)) = (off, with_cs.first(), with_cs.last()) {
        rate.push(Series::reference(
            "consumer Data/s, CS off",
            vec![[f.cs_entries as f64, o], [l.cs_entries as f64, o]],
        ));
    }
    b.figures.push(Figure::new(
        "ccn-live-rate",
        "Data received per second at the consumer, and the router's own rate, vs CS size",
        "paper 003 case study (forwarding rate)",
        "CS entries",
        "per second",
        Plot::Lines {
            series: rate,
            log_x: true,
            log_y: false,
        },
    ));
    // The rate claim rests on rounds of the smallest and the largest store, timed as the
    // router's own rate (datagrams per CPU-second of its worker): the consumer's Data/s moves
    // with how the host schedules three busy threads on two cores — from run to run by 2× —
    // far more than the stores differ. Each round runs both stores' routers side by side and
    // alternates short consumer runs between them, so that the host's drift weighs on both.
    let sizes: Vec<usize> = cfg.cs_entries.iter().copied().filter(|&c| c > 0).collect();
    if let (Some(&small), Some(&large)) = (sizes.first(), sizes.last()) {
        let slices = 8;
        let rc = CaseStudyConfig {
            warmup: cfg.warmup / 2,
            ..cfg.clone()
        };
        let mut round_no = 0;
        super::rate_falls(
            &mut b,
            "With a CS the forwarding rate falls as the number of cached contents grows (smallest vs largest store; the router's datagrams received and sent per CPU-second, the two routers timed side by side)",
            "rate_rounds",
            (small as u64, large as u64),
            ctx.pick(2, 9, 9),
            |small_first| {
                round_no += 1;
                let order = if small_first { [small, large] } else { [large, small] };
                let r = paired_router_rates(&rc, order, slices, round_no)?;
                let (s, l) = if small_first { (r[0], r[1]) } else { (r[1], r[0]) };
                Ok((Some(s), Some(l)))
            },
        )?;
        b.notes.push(format!(
            "The rate check: each round starts a router (with its producer) of {small} and one of {large} CS entries side by side, warms each for {:.1} s, then alternates {slices} consumer runs of {:.2} s between them; a router's datagrams and CPU time count over its own runs only (results.json: rate_rounds).",
            rc.warmup.as_secs_f64(),
            (rc.duration / slices).as_secs_f64()
        ));
    }
    b.tables.push(Table {
        id: "ccn-live".into(),
        title: "Every point".into(),
        columns: [
            "CS entries",
            "Data/s",
            "Interests/s",
            "router pkt/CPU-s",
            "hit ratio",
            "hit (producer)",
            "FIFO approx.",
            "CS fill",
            "timeouts",
            "RTT p50 µs",
        ]
        .map(String::from)
        .to_vec(),
        rows: r
            .rows
            .iter()
            .map(|x| {
                vec![
                    Cell::from(x.cs_entries as f64),
                    x.data_per_s.into(),
                    x.interests_per_s.into(),
                    x.router_pps_cpu.into(),
                    x.hit_ratio.into(),
                    x.hit_ratio_from_producer.into(),
                    x.che_fifo.into(),
                    x.cs_fill.into(),
                    Cell::from(x.timeouts as f64),
                    serde_json::to_value(x.rtt_us)
                        .ok()
                        .and_then(|v| v.get("p50").and_then(|p| p.as_f64()))
                        .into(),
                ]
            })
            .collect(),
    });
    b.notes.push("On loopback the consumer, router and producer share this machine's two cores, so the rate measures the software path (and the other load), not a 40 Gb/s NIC; the Cefore side of the comparison is tools/cefore-case-study.sh (docs/results/ccn-live.md).".into());
    b.raw("case_study", &r);
    Ok(b)
}
