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

/// `--duplex` between two vhost-user sockets, a virtio-user frontend on each: both
/// directions carry traffic, and every packet is forwarded or in a port's drop counter, per
/// direction and per port.
#[test]
fn a_duplex_switch_accounts_for_both_directions() {
    use pktlab::port::{virtio_user, VhostSpec};
    let sock = |n: &str| {
        std::env::temp_dir().join(format!("pktlab-fwd-duplex-{}-{n}.sock", std::process::id()))
    };
    let (pa, pb) = (sock("a"), sock("b"));
    let stop = Arc::new(AtomicBool::new(false));
    let spec = |p: &std::path::Path| VhostSpec {
        path: p.to_path_buf(),
        client: false,
    };
    let cfg = ForwardConfig {
        rx: RxSpec::VhostUser(spec(&pa)),
        tx: TxSpec::VhostUser(spec(&pb)),
        stages: Stages::Io,
        meta: MetaKind::Dpdk,
        duplex: true,
        duration: Some(60.0),
        stop: Some(stop.clone()),
        ..small()
    };
    let frame = |dir: u8, i: u32| {
        let mut f = vec![0u8; 64];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[34] = dir;
        f[35..39].copy_from_slice(&i.to_be_bytes());
        f
    };
    let (na, nb) = (4000u32, 3000u32);
    let (r, got_a, got_b) = std::thread::scope(|s| {
        let h = s.spawn(|| forward(&cfg, &Silent));
        let w = Duration::from_secs(10);
        let fstop = Arc::new(AtomicBool::new(false));
        let (mut rx_a, mut tx_a) = virtio_user::connect(&pa, 0, false, w, fstop.clone()).unwrap();
        let (mut rx_b, mut tx_b) = virtio_user::connect(&pb, 1, false, w, fstop.clone()).unwrap();
        let (mut sa, mut sb, mut got_a, mut got_b) = (0u32, 0u32, 0u32, 0u32);
        let mut scratch = Vec::new();
        let t = Instant::now();
        while (got_a < nb || got_b < na) && t.elapsed() < Duration::from_secs(20) {
            // At most 256 frames in flight per direction.
            while sa < na && sa < got_b + 256 && tx_a.push(&frame(b'a', sa)) {
                sa += 1;
            }
            while sb < nb && sb < got_a + 256 && tx_b.push(&frame(b'b', sb)) {
                sb += 1;
            }
            tx_a.flush();
            tx_b.flush();
            rx_a.visit(64, &mut scratch, |f| got_a += u32::from(f[34] == b'b'));
            rx_b.visit(64, &mut scratch, |f| got_b += u32::from(f[34] == b'a'));
        }
        std::thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let r = h.join().unwrap().unwrap();
        // Frames forwarded after the loop ended.
        std::thread::sleep(Duration::from_millis(50));
        rx_a.visit(4096, &mut scratch, |f| got_a += u32::from(f[34] == b'b'));
        rx_b.visit(4096, &mut scratch, |f| got_b += u32::from(f[34] == b'a'));
        (r, got_a, got_b)
    });
    let [ab, ba] = &r.directions[..] else {
        panic!("two directions: {:?}", r.directions)
    };
    assert_eq!((ab.packets, ba.packets), (na as u64, nb as u64));
    assert_eq!((ab.forwarded, ba.forwarded), (got_b as u64, got_a as u64));
    assert!(ab.forwarded > 0 && ba.forwarded > 0);
    assert_eq!(r.packets, (na + nb) as u64);
    assert_eq!(r.packets, r.forwarded + r.dropped.port);
    let [a, b] = &r.ports[..] else {
        panic!("two ports: {:?}", r.ports)
    };
    assert_eq!((a.stats.rx, b.stats.tx), (na as u64, ab.forwarded));
    assert_eq!((b.stats.rx, a.stats.tx), (nb as u64, ba.forwarded));
    assert_eq!(
        ab.packets - ab.forwarded + ba.packets - ba.forwarded,
        a.stats.tx_dropped() + b.stats.tx_dropped()
    );
    assert_eq!(r.burst_log2.iter().sum::<u64>(), r.batches);
    assert!(!pa.exists() && !pb.exists(), "sockets removed");
}

#[test]
fn duplex_needs_two_vhost_user_ports() {
    let e = forward(
        &ForwardConfig {
            duplex: true,
            ..small()
        },
        &Silent,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("--duplex needs --rx vhost-user:A"),
        "{e}"
    );
}
