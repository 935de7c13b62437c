use super::*;
use crate::Silent;

fn small() -> TraceSpec {
    TraceSpec {
        packets: 30_000,
        ..TraceSpec::default()
    }
}

#[test]
fn belady_misses_least_and_counts_add_up() {
    let cfg = CacheSimConfig {
        trace: small(),
        model: ModelSpec {
            policy: "lru,hpc4,belady".into(),
            ..ModelSpec::default()
        },
        entries: 256,
    };
    let r = sim(&cfg, &Silent).unwrap();
    assert_eq!(r.trace.packets, 30_000);
    assert_eq!(r.results.len(), 3);
    for x in &r.results {
        assert_eq!(x.packets, 30_000);
        assert!((x.miss_rate - x.misses as f64 / 30_000.0).abs() < 1e-12);
    }
    // Belady's optimal replacement can be beaten by nothing.
    assert!(r.results[2].miss_rate <= r.results[0].miss_rate);
    assert!(r.results[2].miss_rate <= r.results[1].miss_rate);
}

#[test]
fn sweep_miss_rate_falls_with_size() {
    let cfg = CacheSweepConfig {
        trace: small(),
        model: ModelSpec {
            policy: "lru".into(),
            ..ModelSpec::default()
        },
        min_bytes: 1024,
        max_bytes: 16 * 1024,
        ..CacheSweepConfig::default()
    };
    let r = sweep(&cfg, &Silent).unwrap();
    let b: Vec<u64> = r.points.iter().map(|p| p.bytes).collect();
    assert_eq!(b, [1024, 2048, 4096, 8192, 16384]);
    assert!(r
        .points
        .windows(2)
        .all(|w| w[1].result.miss_rate <= w[0].result.miss_rate));
}

#[test]
fn stats_cdf_ends_at_one_and_convert_round_trips() {
    let st = trace_stats(&small(), &Silent).unwrap();
    let last = st.length_cdf.last().unwrap();
    assert!((last.flows - 1.0).abs() < 1e-12 && (last.packets - 1.0).abs() < 1e-12);
    assert!(st.mean_flow_length > 1.0);
    let dir = std::env::temp_dir().join(format!("pktlab-lab-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.compact");
    let c = convert(
        &ConvertConfig {
            trace: small(),
            out: out.clone(),
            format: None,
        },
        &Silent,
    )
    .unwrap();
    assert_eq!(c.format, "compact");
    let back = trace_stats(
        &TraceSpec {
            trace: out.display().to_string(),
            ..small()
        },
        &Silent,
    )
    .unwrap();
    assert_eq!(
        (back.trace.packets, back.trace.flows),
        (30_000, st.trace.flows)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_policy_is_a_parameter_error() {
    let cfg = CacheSimConfig {
        model: ModelSpec {
            policy: "nope".into(),
            ..ModelSpec::default()
        },
        ..CacheSimConfig::default()
    };
    assert!(sim(&cfg, &Silent)
        .unwrap_err()
        .to_string()
        .starts_with("--policy nope"));
}
