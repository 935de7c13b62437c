use super::*;
use crate::Silent;

#[test]
fn sim_accepts_cubic_or_bbr_only_and_refuses_no_sender() {
    let cfg = AqmSimConfig {
        reno: 0,
        vegas: 0,
        cubic: 2,
        bbr: 1,
        sack: true,
        duration: 2.0,
        warmup: 0.5,
        buffer: 100,
        ..AqmSimConfig::default()
    };
    let r = sim(&cfg, &Silent).unwrap();
    assert_eq!(r.runs[0].flows.len(), 3);
    let none = AqmSimConfig {
        cubic: 0,
        bbr: 0,
        ..cfg
    };
    let e = sim(&none, &Silent).unwrap_err().to_string();
    assert!(e.contains("senders in all"), "{e}");
}

#[test]
fn sim_runs_every_discipline_and_vegas_gets_a_share() {
    let cfg = AqmSimConfig {
        aqm: ["droptail", "red", "zlred"].map(String::from).to_vec(),
        reno: 3,
        vegas: 3,
        // 8 s measured: with a 1 s minimum RTO, a 2 s window can be half idle after one
        // timeout (utilisation below 0.1 on some seeds), which is no sign of a broken
        // discipline.
        duration: 10.0,
        warmup: 2.0,
        buffer: 200,
        ..AqmSimConfig::default()
    };
    let r = sim(&cfg, &Silent).unwrap();
    assert_eq!(r.runs.len(), 3);
    for run in &r.runs {
        assert_eq!(run.flows.len(), 6);
        let s = &run.summary;
        assert!(s.utilization > 0.1 && s.utilization <= 1.0 + 1e-9);
        assert!((0.0..=1.0).contains(&s.vegas_share));
    }
    assert!(matches!(r.runs[2].config.aqm, AqmInfo::ZlRed { .. }));
    assert!(r.runs[2].summary.flow_estimate.is_some());
}

#[test]
fn study_aggregates_seeds_and_writes_csv() {
    let cfg = StudyConfig {
        fig: "fig7".into(),
        conns: Some(vec![4]),
        a: Some(vec![1.0, 4.0]),
        seeds: 2,
        duration: 3.0,
        warmup: 1.0,
        threads: Some(2),
        ..StudyConfig::default()
    };
    let r = study(&cfg, &Silent).unwrap();
    assert_eq!((r.rows.len(), r.runs.len()), (3, 6));
    for row in &r.rows {
        assert_eq!(row.seeds, 2);
        let j = row.jain;
        assert!(j.min <= j.mean && j.mean <= j.max);
    }
    assert_eq!(r.rows[0].a, None);
    assert_eq!(r.rows[2].a, Some(4.0));
    let csv = r.csv();
    assert_eq!(csv.lines().count(), 4);
    assert!(csv
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("fig7,sred,5000,1000,,4,2,2,"));
    assert!(study(
        &StudyConfig {
            fig: "fig9".into(),
            ..cfg
        },
        &Silent
    )
    .is_err());
}

/// FNV-1a over the bits of every metric (and drop counts) of every run, in run order.
fn digest(r: &StudyResult) -> u64 {
    let mut h = pktlab::util::Fnv1a::default();
    let mut eat = |x: u64| h.eat(x);
    for run in &r.runs {
        for k in METRICS {
            eat(run.run.metric(k).to_bits());
        }
        eat(run.run.early_drops);
        eat(run.run.forced_drops);
    }
    h.finish()
}

/// Paper 002's presets (SACK and ECN off) stay bit-identical: SACK, CUBIC, BBR, ECN and the
/// SRED/ZL-RED fast paths were each added without moving them. The digests are those of
/// SRED's and ZL-RED's one-draw stream (one 64-bit draw per arrival for the zombie, the swap
/// and the early drop), taken when it replaced three draws per arrival; before that they
/// had been unchanged since commit 262c56f (`tools/preset_digest.py` computes them from a
/// study's JSON).
#[test]
fn paper_presets_are_bit_identical() {
    let v = |x: &[&str]| Some(x.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let base = StudyConfig {
        seeds: 1,
        duration: 20.0,
        warmup: 5.0,
        threads: Some(2),
        buffers: Some(vec![1000]),
        ..StudyConfig::default()
    };
    let cases = [
        (
            StudyConfig {
                fig: "fig2".into(),
                conns: Some(vec![40]),
                ..base.clone()
            },
            PRESET_DIGESTS[0],
        ),
        (
            StudyConfig {
                fig: "fig5".into(),
                conns: Some(vec![20]),
                aqm: v(&[
                    "sred", "zlred", "red", "droptail", "choke", "drr", "fq_codel",
                ]),
                ..base.clone()
            },
            PRESET_DIGESTS[1],
        ),
        (
            StudyConfig {
                fig: "fig6".into(),
                conns: Some(vec![20]),
                ms: Some(vec![10, 10000]),
                ..base.clone()
            },
            PRESET_DIGESTS[2],
        ),
        (
            StudyConfig {
                fig: "fig7".into(),
                conns: Some(vec![20]),
                a: Some(vec![1.0, 8.0]),
                ..base.clone()
            },
            PRESET_DIGESTS[3],
        ),
        (
            StudyConfig {
                fig: "fig8".into(),
                conns: Some(vec![10]),
                a: Some(vec![4.0]),
                delays: Some(vec![5.0, 160.0]),
                ..base.clone()
            },
            PRESET_DIGESTS[4],
        ),
    ];
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for (cfg, w) in cases {
        got.push(format!(
            "{} {:#018x}",
            cfg.fig,
            digest(&study(&cfg, &Silent).unwrap())
        ));
        want.push(format!("{} {w:#018x}", cfg.fig));
    }
    assert_eq!(got, want, "paper 002 presets changed");
}

/// Digests of the five cases of `paper_presets_are_bit_identical`.
const PRESET_DIGESTS: [u64; 5] = [
    0xe892_d463_d578_cb06,
    0x79b9_2f3d_3fa1_428a,
    0x7928_4bbc_637c_6fbd,
    0x24a7_6227_6cbc_572c,
    0xb2d9_7df3_e26a_ed83,
];

#[test]
fn mix_study_rows_and_csv() {
    let cfg = MixStudyConfig {
        mix: "cubic-vs-bbr".into(),
        aqm: v2(&["zlred", "fq_codel"]),
        conns: vec![4],
        seeds: 1,
        duration: 6.0,
        warmup: 2.0,
        threads: Some(2),
        ..MixStudyConfig::default()
    };
    let r = mix_study(&cfg, &Silent).unwrap();
    assert_eq!((r.rows.len(), r.runs.len()), (4, 4));
    for row in &r.rows {
        assert_eq!((row.a, row.b), ("cubic", "bbr"));
        assert!((0.0..=1.0).contains(&row.b_share.mean));
        assert!(row.a_mbps.mean > 0.0 && row.b_mbps.mean > 0.0);
        if !row.ecn {
            assert_eq!(row.ecn_marks.mean, 0.0);
        }
    }
    let cfg_example = r.config_example.as_ref().unwrap();
    assert_eq!((cfg_example.cubic, cfg_example.bbr), (2, 2));
    assert!(cfg_example.tcp.sack);
    assert_eq!(r.csv().lines().count(), 5);
    assert!(mix_study(
        &MixStudyConfig {
            mix: "reno-vs-quic".into(),
            ..cfg
        },
        &Silent
    )
    .is_err());
}

fn v2(x: &[&str]) -> Vec<String> {
    x.iter().map(|s| s.to_string()).collect()
}

#[test]
fn bench_reports_every_discipline() {
    let cfg = AqmBenchConfig {
        flows: vec![10],
        packets: 5000,
        reps: 1,
        ..AqmBenchConfig::default()
    };
    let r = bench(&cfg, &Silent).unwrap();
    assert_eq!(r.rows.len(), 7);
    // Droptail drops nothing below its buffer at 25 % overload over 5000 arrivals with a
    // 5000-packet buffer; RED drops early.
    assert_eq!(r.rows[0].drop_fraction, 0.0);
    assert!(r.rows[1].drop_fraction > 0.0);
}
