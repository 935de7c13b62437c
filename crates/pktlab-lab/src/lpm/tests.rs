use super::*;
use crate::Silent;

fn spec(routes: u64) -> TableSpec {
    TableSpec {
        synthetic_routes: Some(routes),
        algos: vec!["radix".into(), "poptrie16".into()],
        ..TableSpec::default()
    }
}

#[test]
fn bench_checksums_agree_between_algorithms() {
    for traffic in ["random", "prefixes", "repeat", "zipf:0.9"] {
        let cfg = BenchConfig {
            table: spec(5000),
            traffic: traffic.into(),
            lookups: 20_000,
            runs: 1,
            pregen: if traffic == "repeat" { 3000 } else { 0 },
            ..BenchConfig::default()
        };
        let r = bench(&cfg, &Silent).unwrap();
        assert_eq!(r.results.len(), 2);
        assert_eq!(r.table.prefixes, 5000);
        // Same traffic, same table: both structures must return the same next hops.
        assert_eq!(r.results[0].checksum, r.results[1].checksum, "{traffic}");
        assert!(r.results[0].checksum > 0, "{traffic}: every lookup missed");
        assert!(r.results.iter().all(|a| a.mlps > 0.0 && a.memory_bytes > 0));
    }
}

#[test]
fn bench_rejects_bad_parameters() {
    let mut cfg = BenchConfig {
        table: spec(100),
        ..BenchConfig::default()
    };
    cfg.runs = 0;
    assert!(bench(&cfg, &Silent)
        .unwrap_err()
        .to_string()
        .contains("--runs"));
    cfg.runs = 1;
    cfg.traffic = "nope".into();
    assert!(bench(&cfg, &Silent)
        .unwrap_err()
        .to_string()
        .starts_with("--traffic"));
}

#[test]
fn verify_finds_no_mismatch_on_v4_and_v6() {
    for fam in ["v4", "v6"] {
        let cfg = VerifyConfig {
            table: TableSpec {
                family: fam.into(),
                ..spec(3000)
            },
            samples: 5000,
            ..VerifyConfig::default()
        };
        let r = verify(&cfg, &Silent).unwrap();
        assert!(
            r.ok && r.mismatches == 0,
            "{fam}: {:?}",
            r.algos[1].examples
        );
        // 5000 random + 6 boundary addresses per prefix, for each of 2 algorithms.
        assert_eq!(r.checked, 2 * (5000 + 6 * 3000));
        assert_eq!(r.table.family, fam);
    }
}

#[test]
fn verify_with_updates_reaches_the_fresh_build() {
    let dir = std::env::temp_dir().join(format!("pktlab-lab-lpm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ups.txt");
    std::fs::write(
        &path,
        "A 10.0.0.0/8\nA 10.1.0.0/16\nW 10.0.0.0/8\nbad line\n",
    )
    .unwrap();
    let cfg = VerifyConfig {
        table: spec(500),
        samples: 1000,
        updates: Some(path),
        check_every: 2,
    };
    let r = verify(&cfg, &Silent).unwrap();
    assert!(r.ok);
    let u = r.algos[1].updates.as_ref().unwrap();
    assert_eq!((u.events, u.skipped), (3, 1));
    assert!(u.stats_equal_fresh_build);
    let _ = std::fs::remove_dir_all(&dir);
}
