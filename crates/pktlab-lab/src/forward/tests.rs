use super::*;
use crate::Silent;

fn small() -> ForwardConfig {
    ForwardConfig {
        table: TableSpec::Synthetic(20_000, 5_000),
        packets: 20_000,
        ..ForwardConfig::default()
    }
}

#[test]
fn every_packet_is_accounted_for() {
    for (stages, meta, workers) in [
        (Stages::Io, MetaKind::Dpdk, 1),
        (Stages::L3, MetaKind::CompactAlloc, 2),
        (Stages::Full, MetaKind::CompactConst, 1),
        (Stages::Full, MetaKind::Dpdk, 2),
    ] {
        let cfg = ForwardConfig {
            stages,
            meta,
            workers,
            batch: 64,
            repeat: 2,
            ..small()
        };
        let r = forward(&cfg, &Silent).unwrap();
        let d = r.dropped;
        assert_eq!(r.packets, 40_000, "{stages:?}");
        assert_eq!(
            r.packets,
            r.forwarded + d.parse + d.ttl + d.no_route + d.aqm
        );
        assert!(r.forwarded > 0);
        if stages == Stages::Full {
            assert!(r.cache.hit_rate.unwrap() > 0.0, "{:?}", r.cache);
        }
    }
}

#[test]
fn bad_parameters_are_one_line_errors() {
    let e = forward(
        &ForwardConfig {
            batch: 0,
            ..small()
        },
        &Silent,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--batch"));
    let e = forward(
        &ForwardConfig {
            meta_bytes: 8,
            ..small()
        },
        &Silent,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("--meta-bytes") && e.contains("(got 8)"), "{e}");
    assert!(!e.contains('\n'));
}
