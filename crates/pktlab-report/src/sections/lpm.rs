//! Section `lpm`: paper 004 (Poptrie, Asai & Ohara, SIGCOMM 2015) — the variant table
//! (basic / +leafvec / +route aggregation at s = 0, 16, 18 against the radix tree), the
//! comparison with prior work (Tree BitMap, SAIL, D16R, D18R; plus DIR-24-8 and radix) on
//! random and Zipf traffic, the cost per lookup by depth of the matched route (box plot), and
//! the aggregate rate of two lookup threads against one.
//! Runs `pktlab_lab::lpm::bench`.

use crate::model::{BarSeries, Body, BoxSeries, BoxStat, CmpRow, Comparison, Figure, Input, Plot};
use crate::model::{Cell, Check, Table};
use crate::verdict::Rule;
use crate::{Ctx, SectionDef};
use pktlab_lab::lpm::{bench, AlgoBench, BenchConfig, TableSpec};
use pktlab_lab::Result;

/// The section.
pub const SECTION: SectionDef = SectionDef {
    id: "lpm",
    title: "IP lookup: Poptrie and its baselines",
    paper: "004 — Poptrie: a compressed trie with population count for fast and scalable software IP routing table lookup (Asai & Ohara, SIGCOMM 2015)",
    claim: "A 64-ary trie indexed with popcount, with direct pointing, leafvec and route aggregation, is the fastest software lookup: Poptrie18 240.52 Mlps on a Tier-1 table in 2.40 MiB, faster than Tree BitMap, SAIL and DXR, with a low cost at every depth of the matched route.",
    run,
};

/// (algorithm, MiB, Mlps, internal nodes, leaves).
type Variant = (&'static str, f64, f64, Option<f64>, Option<f64>);

/// DIGEST.md §004, variant table (Tier-1 full table, random traffic, i7-4770K 3.9 GHz):
/// (algorithm, MiB, Mlps, internal nodes, leaves).
const VARIANTS: &[Variant] = &[
    ("radix", 30.47, 8.82, None, None),
    ("poptrie0-basic", 8.67, 87.71, Some(64_009.0), Some(4.03e6)),
    (
        "poptrie16-basic",
        23.60,
        130.72,
        Some(172_110.0),
        Some(10.86e6),
    ),
    (
        "poptrie18-basic",
        9.40,
        170.69,
        Some(61_282.0),
        Some(3.91e6),
    ),
    (
        "poptrie0-leafvec",
        2.00,
        89.15,
        Some(64_009.0),
        Some(280_673.0),
    ),
    (
        "poptrie16-leafvec",
        4.85,
        154.33,
        Some(172_110.0),
        Some(347_449.0),
    ),
    (
        "poptrie18-leafvec",
        2.91,
        191.95,
        Some(61_282.0),
        Some(269_320.0),
    ),
    ("poptrie0", 1.49, 96.27, Some(43_191.0), Some(263_381.0)),
    ("poptrie16", 2.75, 198.28, Some(86_171.0), Some(274_145.0)),
    ("poptrie18", 2.40, 240.52, Some(40_760.0), Some(245_034.0)),
];

/// DIGEST.md §004, comparison with prior work (research-network full table):
/// (algorithm, random Mlps, real-traffic Mlps); `None` = not in the paper.
const PRIOR: &[(&str, Option<f64>, Option<f64>)] = &[
    ("treebitmap", Some(62.34), Some(86.20)),
    ("sail", Some(160.98), Some(213.60)),
    ("d16r", Some(196.82), Some(101.07)),
    ("d18r", Some(269.73), Some(161.83)),
    ("poptrie16", Some(260.42), Some(182.79)),
    ("poptrie18", Some(300.97), Some(260.60)),
    ("dir24_8", None, None),
    ("radix", None, None),
];

/// DIGEST.md §004: share of lookups deeper than /24, (random, real traffic).
const DEEPER_THAN_24: (f64, f64) = (0.017, 0.218);

/// Algorithms of the by-depth box plot.
const BOX_ALGOS: &[&str] = &["poptrie18", "sail", "d18r", "treebitmap"];

const ZIPF: &str = "zipf:1.0";

fn find<'a>(names: &[String], r: &'a [AlgoBench], name: &str) -> Option<&'a AlgoBench> {
    names.iter().position(|n| n == name).and_then(|i| r.get(i))
}

/// A one-thread lookup rate for ranking structures: on-CPU (the lookup thread's own run
/// time), so that another process sharing the core slows no structure's figure by being
/// scheduled during its runs; wall clock where the platform has no thread clock.
fn rate(a: &AlgoBench) -> f64 {
    if a.mlps_oncpu > 0.0 {
        a.mlps_oncpu
    } else {
        a.mlps
    }
}

fn run(ctx: &Ctx<'_>) -> Result<Body> {
    let mut b = Body::default();
    let ris = ctx.data_file("routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz");
    let synth_routes = ctx.pick(20_000u64, 300_000, 1_000_000);
    let (table, origin) = match &ris {
        Some(p) => (
            p.display().to_string(),
            format!(
                "{}: RIPE RIS rrc00, peer AS3333, 2026-05-11 (1,042,325 IPv4 prefixes), next hops hash:16",
                p.display()
            ),
        ),
        None => (
            "synthetic".to_string(),
            format!("embedded synthetic full-table generator, seed 1, {synth_routes} IPv4 routes, next hops hash:16"),
        ),
    };
    b.inputs.push(Input::new("routing table", origin));
    b.inputs.push(Input::new(
        "traffic",
        format!("random = Marsaglia xor128 addresses generated in the timed loop; {ZIPF} = Zipf(1.0)-popular prefixes with random host bits (the paper's real-traffic stand-in)"),
    ));
    let mut names: Vec<String> = VARIANTS.iter().map(|v| v.0.to_string()).collect();
    for (n, ..) in PRIOR {
        if !names.iter().any(|x| x == n) {
            names.push(n.to_string());
        }
    }
    let spec = TableSpec {
        table: table.clone(),
        synthetic_routes: ris.is_none().then_some(synth_routes),
        algos: names.clone(),
        ..TableSpec::default()
    };
    let lookups = ctx.pick(1u64 << 16, 1 << 22, 1 << 25);
    let runs = ctx.pick(1, 1, 3);
    let depth_samples = ctx.pick(1u64 << 12, 1 << 15, 1 << 20);
    let random_cfg = BenchConfig {
        table: spec.clone(),
        traffic: "random".into(),
        lookups,
        runs,
        by_depth: true,
        depth_samples,
        ..BenchConfig::default()
    };
    let random = bench(&random_cfg, ctx.progress)?;
    let prior_names: Vec<String> = PRIOR.iter().map(|p| p.0.to_string()).collect();
    let zipf_cfg = BenchConfig {
        table: TableSpec {
            algos: prior_names.clone(),
            ..spec.clone()
        },
        traffic: ZIPF.into(),
        lookups,
        runs,
        pregen: 1 << 18,
        by_depth: true,
        depth_samples,
        ..BenchConfig::default()
    };
    let zipf = bench(&zipf_cfg, ctx.progress)?;
    let tflag = if ris.is_some() {
        format!("--table {table}")
    } else {
        format!("--synthetic-routes {synth_routes}")
    };
    b.commands.push(format!(
        "pktlab lpm bench {tflag} --nexthops hash:16 --algo {} --traffic random --lookups {lookups} --runs {runs} --by-depth --depth-samples {depth_samples} --json",
        names.join(",")
    ));
    b.commands.push(format!(
        "pktlab lpm bench {tflag} --nexthops hash:16 --algo {} --traffic {ZIPF} --pregen {} --lookups {lookups} --runs {runs} --by-depth --depth-samples {depth_samples} --json",
        prior_names.join(","),
        1 << 18
    ));

    // The variant table.
    let rr = &random.results;
    let var = |f: &dyn Fn(&AlgoBench) -> f64, pick: &dyn Fn(&Variant) -> Option<f64>| {
        VARIANTS
            .iter()
            .map(|v| CmpRow::new(v.0, pick(v), find(&names, rr, v.0).map(f)))
            .collect::<Vec<_>>()
    };
    let src = "DIGEST.md §004 variant table (Tier-1 full table, random traffic, i7-4770K)";
    b.comparisons.push(Comparison::new(
        "lpm-variants-mlps",
        "Variants: lookup rate, random traffic",
        src,
        "Mlps (million lookups per second, 1 thread, on-CPU time)",
        var(&rate, &|v| Some(v.2)),
        Rule::Ordering { tie: 0.03 },
    ));
    b.comparisons.push(Comparison::new(
        "lpm-variants-mib",
        "Variants: memory",
        src,
        "MiB of the lookup structure",
        var(&|a| a.memory_bytes as f64 / (1 << 20) as f64, &|v| {
            Some(v.1)
        }),
        Rule::Ordering { tie: 0.05 },
    ));
    b.comparisons.push(Comparison::new(
        "lpm-variants-leaves",
        "Variants: leaves",
        src,
        "leaves",
        var(&|a| a.leaves as f64, &|v| v.4),
        Rule::Ordering { tie: 0.05 },
    ));
    // Prior work.
    let zr = &zipf.results;
    let prior = |res: &[AlgoBench], nm: &[String], col: usize| {
        PRIOR
            .iter()
            .map(|p| {
                let pubv = if col == 0 { p.1 } else { p.2 };
                CmpRow::new(p.0, pubv, find(nm, res, p.0).map(rate))
            })
            .collect::<Vec<_>>()
    };
    let psrc = "DIGEST.md §004 comparison with prior work (research-network full table)";
    b.comparisons.push(Comparison::new(
        "lpm-prior-random",
        "Against prior work: random traffic",
        psrc,
        "Mlps",
        prior(rr, &names, 0),
        Rule::Ordering { tie: 0.03 },
    ));
    b.comparisons.push(Comparison::new(
        "lpm-prior-real",
        &format!("Against prior work: the paper's real traffic vs our {ZIPF}"),
        psrc,
        "Mlps",
        prior(zr, &prior_names, 1),
        Rule::Ordering { tie: 0.03 },
    ));
    let share = |r: &[AlgoBench], nm: &[String]| {
        find(nm, r, "poptrie18")
            .and_then(|a| a.by_depth.as_ref())
            .map(|d| d.share_deeper_than_24)
    };
    b.comparisons.push(Comparison::new(
        "lpm-deeper-than-24",
        "Share of lookups matching a route longer than /24",
        "DIGEST.md §004 (real traffic 21.8%, random 1.7%)",
        "fraction of lookups",
        vec![
            CmpRow::new("random", Some(DEEPER_THAN_24.0), share(rr, &names)),
            CmpRow::new(
                format!("real traffic / {ZIPF}"),
                Some(DEEPER_THAN_24.1),
                share(zr, &prior_names),
            ),
        ],
        Rule::Values {
            rel_tol: 0.25,
            tie: 0.0,
        },
    ));
    if share(rr, &names) == Some(0.0) {
        b.notes.push("This table has no prefix longer than /24 (like the RIS table), so no lookup can match deeper than /24 on it; the paper's 21.8% came from a real trace on a table with longer prefixes.".into());
    }

    // Figures: variants, prior work, by depth.
    let cats: Vec<String> = VARIANTS.iter().map(|v| v.0.to_string()).collect();
    b.figures.push(Figure::new(
        "lpm-variants",
        "Poptrie variants: lookup rate, random traffic",
        "paper 004 variant table",
        "variant",
        "Mlps",
        Plot::Bars {
            categories: cats.clone(),
            series: vec![
                BarSeries {
                    name: "paper (i7-4770K)".into(),
                    values: VARIANTS.iter().map(|v| Some(v.2)).collect(),
                },
                BarSeries {
                    name: "ours".into(),
                    values: cats.iter().map(|c| find(&names, rr, c).map(rate)).collect(),
                },
            ],
        },
    ));
    let pc: Vec<String> = PRIOR.iter().map(|p| p.0.to_string()).collect();
    b.figures.push(Figure::new(
        "lpm-prior",
        "Against prior work: random and real/Zipf traffic",
        "paper 004 comparison table",
        "algorithm",
        "Mlps",
        Plot::Bars {
            categories: pc.clone(),
            series: vec![
                BarSeries {
                    name: "paper random".into(),
                    values: PRIOR.iter().map(|p| p.1).collect(),
                },
                BarSeries {
                    name: "paper real".into(),
                    values: PRIOR.iter().map(|p| p.2).collect(),
                },
                BarSeries {
                    name: "ours random".into(),
                    values: pc.iter().map(|c| find(&names, rr, c).map(rate)).collect(),
                },
                BarSeries {
                    name: format!("ours {ZIPF}"),
                    values: pc
                        .iter()
                        .map(|c| find(&prior_names, zr, c).map(rate))
                        .collect(),
                },
            ],
        },
    ));
    // By depth (random traffic: the depths that occur).
    let mut depths: Vec<u8> = Vec::new();
    for a in BOX_ALGOS {
        if let Some(d) = find(&names, rr, a).and_then(|a| a.by_depth.as_ref()) {
            for row in &d.depths {
                if let Some(x) = row.depth {
                    if row.count * 1000 >= d.lookups && !depths.contains(&x) {
                        depths.push(x);
                    }
                }
            }
        }
    }
    depths.sort_unstable();
    let boxes: Vec<BoxSeries> = BOX_ALGOS
        .iter()
        .map(|a| BoxSeries {
            name: a.to_string(),
            boxes: depths
                .iter()
                .map(|&x| {
                    let d = find(&names, rr, a)?.by_depth.as_ref()?;
                    let r = d.depths.iter().find(|r| r.depth == Some(x))?;
                    Some(BoxStat {
                        p5: r.p5 as f64,
                        p25: r.p25 as f64,
                        p50: r.p50 as f64,
                        p75: r.p75 as f64,
                        p95: r.p95 as f64,
                    })
                })
                .collect(),
        })
        .collect();
    b.figures.push(Figure::new(
        "lpm-by-depth",
        "Cost per lookup by matched prefix length, random traffic",
        "paper 004 box plot of CPU cycles by depth",
        "prefix length of the matched route (depths with ≥ 0.1% of lookups)",
        "TSC ticks per lookup (p5, p25, median, p75, p95)",
        Plot::Boxes {
            categories: depths.iter().map(|d| format!("/{d}")).collect(),
            series: boxes.clone(),
        },
    ));
    // Claim: Poptrie stays low at every depth.
    let worst = |s: &BoxSeries, f: fn(&BoxStat) -> f64| {
        s.boxes.iter().flatten().map(f).fold(f64::NAN, f64::max)
    };
    let pop = &boxes[0];
    let others: Vec<String> = boxes[1..]
        .iter()
        .map(|s| format!("{} {:.0}", s.name, worst(s, |b| b.p95)))
        .collect();
    let holds = boxes[1..]
        .iter()
        .all(|s| worst(pop, |b| b.p95) <= worst(s, |b| b.p95));
    b.checks.push(Check::new(
        "Poptrie's cost stays low at every depth: its worst 95th percentile over depths is below SAIL's, DXR's and Tree BitMap's",
        holds,
        format!(
            "worst p95 over depths, TSC ticks: poptrie18 {:.0}; {}",
            worst(pop, |b| b.p95),
            others.join(", ")
        ),
    ));

    // All our numbers per algorithm.
    b.tables.push(Table {
        id: "lpm-all".into(),
        title: "Every algorithm, ours (random traffic; Zipf where run)".into(),
        columns: [
            "algorithm",
            "random Mlps",
            &format!("{ZIPF} Mlps"),
            "MiB",
            "internal nodes",
            "leaves",
            "build s",
        ]
        .map(String::from)
        .to_vec(),
        rows: names
            .iter()
            .filter_map(|n| {
                let a = find(&names, rr, n)?;
                Some(vec![
                    Cell::from(n.as_str()),
                    Cell::from(rate(a)),
                    Cell::from(find(&prior_names, zr, n).map(rate)),
                    Cell::from(a.memory_bytes as f64 / (1 << 20) as f64),
                    Cell::from(a.internal_nodes as f64),
                    Cell::from(a.leaves as f64),
                    Cell::from(a.build_s),
                ])
            })
            .collect(),
    });
    b.notes.push(format!(
        "{} lookups per run, median of {runs} run(s), 1 thread, batch 256; lookup rates are per second of the lookup thread's own CPU time (so time sliced to other processes does not count, though their cache traffic still does), on another CPU than the paper's: compare rankings, not values.",
        lookups
    ));

    // Thread scaling: every structure is read-only during lookups, so two threads on two
    // cores should give about twice the rate (paper 004 §5 runs its multi-core numbers so).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let scale_lookups = ctx.pick(1u64 << 20, 1 << 23, 1 << 25);
    let scale = |threads: usize| {
        bench(
            &BenchConfig {
                table: TableSpec {
                    algos: prior_names.clone(),
                    ..spec.clone()
                },
                traffic: "random".into(),
                lookups: scale_lookups,
                threads,
                runs,
                ..BenchConfig::default()
            },
            ctx.progress,
        )
    };
    let (one, two) = (scale(1)?, scale(2)?);
    b.commands.push(format!(
        "pktlab lpm bench {tflag} --nexthops hash:16 --algo {} --traffic random --lookups {scale_lookups} --runs {runs} --threads 1|2 --json",
        prior_names.join(",")
    ));
    let ratios: Vec<(String, f64, f64)> = prior_names
        .iter()
        .filter_map(|n| {
            let a = find(&prior_names, &one.results, n)?;
            let c = find(&prior_names, &two.results, n)?;
            Some((n.clone(), a.mlps, c.mlps))
        })
        .collect();
    b.tables.push(Table {
        id: "lpm-threads".into(),
        title: "Thread scaling (random traffic): aggregate rate of 2 lookup threads vs 1".into(),
        columns: ["algorithm", "1 thread Mlps", "2 threads Mlps", "ratio"]
            .map(String::from)
            .to_vec(),
        rows: ratios
            .iter()
            .map(|(n, a, c)| {
                vec![
                    Cell::from(n.as_str()),
                    Cell::from(*a),
                    Cell::from(*c),
                    Cell::from(c / a),
                ]
            })
            .collect(),
    });
    let worst = ratios
        .iter()
        .map(|r| r.2 / r.1)
        .fold(f64::INFINITY, f64::min);
    if cores >= 2 {
        b.checks.push(Check::new(
            "Lookups scale with cores: 2 threads give ≥ 1.8× the rate of 1 for every structure",
            worst >= 1.8,
            format!(
                "lowest ratio {worst:.2}; one invocation per thread count ({scale_lookups} lookups, median of {runs} run(s)), so host noise between the two invocations shows as scatter — docs/results/lpm.md pairs them tightly (tools/lpm_thread_scaling.sh)"
            ),
        ));
    } else {
        b.notes.push(
            "Thread scaling not checked: this process may run on 1 core only (CPU affinity), so the 2-thread row measures time sharing.".into(),
        );
    }
    b.raw("random", &random);
    b.raw("zipf", &zipf);
    b.raw("threads1", &one);
    b.raw("threads2", &two);
    Ok(b)
}
