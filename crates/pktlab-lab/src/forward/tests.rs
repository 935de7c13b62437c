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

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("pktlab-fwd-t-{}-{name}", std::process::id()))
}

/// Packets in a pcap, read back by pktlab's reader (which must find it complete).
fn pcap_packets(p: &std::path::Path) -> u64 {
    let mut r = pktlab::io::packets::PacketReader::open(p).unwrap();
    let mut n = 0;
    while r.next_frame(|_, _, _| ()).is_some() {
        n += 1;
    }
    assert!(r.report().truncated.is_none(), "{:?}", r.report());
    n
}

/// Fails on the old code: a replay ignored `stop` (and the capture was only written at the
/// end, all of it from memory).
#[test]
fn a_stopped_replay_keeps_what_it_forwarded() {
    for workers in [1, 2] {
        let out = temp(&format!("stop-{workers}.pcap"));
        let stop = Arc::new(AtomicBool::new(false));
        let cfg = ForwardConfig {
            tx: TxSpec::Pcap(out.clone()),
            workers,
            repeat: 1 << 30,
            stop: Some(stop.clone()),
            ..small()
        };
        // Stop as soon as packets have gone through (the progress loop reports them).
        let p = |e: crate::Event<'_>| {
            if let crate::Event::Set { done } = e {
                if done > 100_000 {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        };
        let r = forward(&cfg, &p).unwrap();
        assert!(r.interrupted);
        assert!(r.forwarded > 0 && r.packets < 1 << 40, "{r:?}");
        let d = r.dropped;
        assert_eq!(
            r.packets,
            r.forwarded + d.parse + d.ttl + d.no_route + d.aqm
        );
        assert_eq!(pcap_packets(&out), r.forwarded, "{workers} workers");
        assert!(r.max_rss_bytes > 0);
        let _ = std::fs::remove_file(&out);
    }
}

/// Fails on the old code: the input (a missing capture here) was read, and the tables built,
/// before the output was found impossible.
#[test]
fn the_output_is_checked_before_the_work() {
    let cfg = ForwardConfig {
        rx: RxSpec::Pcap("/nonexistent-pktlab-input.pcap".into()),
        tx: TxSpec::Pcap("/nonexistent-pktlab-dir/out.pcap".into()),
        ..small()
    };
    let e = forward(&cfg, &Silent).unwrap_err().to_string();
    assert!(
        e.starts_with("--tx: /nonexistent-pktlab-dir/out.pcap: cannot create: "),
        "{e}"
    );
}
