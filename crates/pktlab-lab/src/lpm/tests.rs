use super::*;
use crate::Silent;
use pktlab::lpm::poptrie::Kernel;

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
        // poptrie16 is `auto` on a table of 5,000 routes: its batch walk was timed where the
        // CPU has AVX-512 (the checksum above then covers the walk it chose), and not
        // otherwise.
        match r.poptrie_auto_batch {
            Some(c) => {
                assert!(Kernel::Avx512.supported(), "{c:?}");
                assert!(matches!(c.kernel, Kernel::Avx512 | Kernel::Popcnt), "{c:?}");
                assert!(c.speedup > 0.0 && c.routes >= pktlab::lpm::poptrie::MIN_ROUTES);
            }
            None => assert!(!Kernel::Avx512.supported()),
        }
    }
}

#[test]
fn bench_keeps_every_interleaved_round_and_pairs_thread_counts() {
    let cfg = BenchConfig {
        table: spec(3000),
        lookups: 20_000,
        runs: 3,
        threads: 2,
        pair_one_thread: true,
        ..BenchConfig::default()
    };
    let r = bench(&cfg, &Silent).unwrap();
    assert_eq!(r.table.longest_prefix, r.table.longest_prefix.clamp(1, 32));
    for a in &r.results {
        assert_eq!(a.runs_mlps.len(), 3, "{}", a.algo);
        assert_eq!(a.runs_oncpu_mlps.len(), 3, "{}", a.algo);
        assert_eq!(a.runs_one_thread_mlps.len(), 3, "{}", a.algo);
        assert_eq!(a.runs_one_thread_oncpu_mlps.len(), 3, "{}", a.algo);
        assert!(a.runs_one_thread_mlps.iter().all(|m| *m > 0.0), "{a:?}");
        // A run too short for the thread clock to tick has no on-CPU rate, hence no ticks.
        assert!(
            a.tsc_per_lookup.is_none_or(|t| t.is_finite() && t > 0.0),
            "{a:?}"
        );
    }
    // Without pairing (or on 1 thread) no 1-thread rounds are taken.
    let one = bench(&BenchConfig { threads: 1, ..cfg }, &Silent).unwrap();
    assert!(one
        .results
        .iter()
        .all(|a| a.runs_one_thread_mlps.is_empty()));
}

#[test]
fn sliced_rounds_feed_every_structure_the_same_addresses() {
    // The slices of a round add up to the round's lookups, whatever the remainder.
    for (total, slices) in [(20_000u64, 7usize), (16, 16), (1 << 23, 8)] {
        let parts: Vec<u64> = (0..slices)
            .map(|s| super::rounds::slice_lookups(total, slices, s))
            .collect();
        assert_eq!(parts.iter().sum::<u64>(), total, "{total} in {slices}");
        assert!(parts.iter().max().unwrap() - parts.iter().min().unwrap() <= 1);
    }
    for traffic in ["random", "zipf:0.9"] {
        let cfg = BenchConfig {
            table: spec(5000),
            traffic: traffic.into(),
            lookups: 20_000,
            runs: 3,
            slices: 7,
            threads: 2,
            pair_one_thread: true,
            pregen: if traffic == "random" { 0 } else { 3000 },
            ..BenchConfig::default()
        };
        let r = bench(&cfg, &Silent).unwrap();
        assert_eq!(r.slices, 7);
        // Every slice timed both structures on the same addresses, in whichever order.
        assert_eq!(r.results[0].checksum, r.results[1].checksum, "{traffic}");
        assert!(r.results[0].checksum > 0, "{traffic}: every lookup missed");
        for a in &r.results {
            assert_eq!(a.runs_oncpu_mlps.len(), 3, "{}", a.algo);
            assert_eq!(a.runs_one_thread_mlps.len(), 3, "{}", a.algo);
            assert!(
                a.runs_mlps.iter().all(|m| m.is_finite() && *m > 0.0),
                "{a:?}"
            );
        }
        // Slice 0 draws from the unsliced run's streams, the others from streams of their
        // own: one slice gives another checksum than seven.
        let one = bench(&BenchConfig { slices: 1, ..cfg }, &Silent).unwrap();
        assert_ne!(one.results[0].checksum, r.results[0].checksum, "{traffic}");
    }
    let bad = BenchConfig {
        table: spec(100),
        slices: 0,
        ..BenchConfig::default()
    };
    assert!(bench(&bad, &Silent)
        .unwrap_err()
        .to_string()
        .contains("--slices"));
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

/// Joined blocks keep every round in block order, recompute the medians over all of them and
/// refuse blocks that measured something else.
#[test]
fn join_concatenates_rounds_and_recomputes_medians() {
    let cfg = |runs, traffic: &str| BenchConfig {
        table: spec(3000),
        traffic: traffic.into(),
        lookups: 20_000,
        runs,
        ..BenchConfig::default()
    };
    let a = bench(&cfg(3, "random"), &Silent).unwrap();
    let b = bench(&cfg(2, "random"), &Silent).unwrap();
    let rounds: Vec<Vec<f64>> = a
        .results
        .iter()
        .zip(&b.results)
        .map(|(x, y)| [x.runs_oncpu_mlps.clone(), y.runs_oncpu_mlps.clone()].concat())
        .collect();
    let j = BenchResult::join(vec![a, b]).unwrap();
    assert_eq!(j.runs, 5);
    for (r, all) in j.results.iter().zip(&rounds) {
        assert_eq!(&r.runs_oncpu_mlps, all);
        assert_eq!(r.runs_mlps.len(), 5);
        let mut s = all.clone();
        s.sort_by(f64::total_cmp);
        assert_eq!(r.mlps_oncpu, s[2], "the median of the five rounds");
    }
    let other = bench(&cfg(1, "prefixes"), &Silent).unwrap();
    let again = bench(&cfg(1, "random"), &Silent).unwrap();
    let e = BenchResult::join(vec![again, other])
        .unwrap_err()
        .to_string();
    assert!(e.contains("block 2 measured something else"), "{e}");
    assert!(BenchResult::join(Vec::new()).is_err());
}

#[test]
#[cfg(target_arch = "x86_64")]
fn by_depth_rounds_are_their_own_count() {
    let cfg = BenchConfig {
        table: spec(3000),
        lookups: 4096,
        runs: 2,
        by_depth: true,
        depth_samples: 4000,
        depth_rounds: Some(5),
        ..BenchConfig::default()
    };
    let r = bench(&cfg, &Silent).unwrap();
    for a in &r.results {
        assert_eq!(a.runs_mlps.len(), 2, "{}", a.algo);
        let d = a.by_depth.as_ref().expect("by-depth report");
        // 4,000 samples in 5 rounds of 800; every depth row has one p95 slot per round.
        assert_eq!((d.rounds, d.lookups), (5, 4000), "{}", a.algo);
        assert!(d.depths.iter().all(|row| row.rounds_p95.len() == 5));
        assert_eq!(d.depths.iter().map(|row| row.count).sum::<u64>(), 4000);
    }
    // Without `depth_rounds` the by-depth rounds are the bench's rounds.
    let r = bench(
        &BenchConfig {
            depth_rounds: None,
            ..cfg.clone()
        },
        &Silent,
    )
    .unwrap();
    assert_eq!(r.results[0].by_depth.as_ref().unwrap().rounds, 2);
    // More rounds than samples, or none, is refused before any table is built.
    for bad in [0, 4001] {
        let e = BenchConfig {
            depth_rounds: Some(bad),
            ..cfg.clone()
        }
        .validate();
        assert!(
            e.unwrap_err().to_string().contains("--depth-rounds"),
            "{bad}"
        );
    }
}
