//! End to end on 127.0.0.1 (ephemeral ports): consumer → pktlab router → producer, and garbage
//! datagrams thrown at the router. Bounded: each run lasts about two seconds.

use pktlab::ccn::cs::Policy;
use pktlab::ccn::live::{
    run_consumer, run_producer, run_router, ConsumerConfig, Control, ProducerConfig,
    ProducerResult, RouterConfig, RouterResult,
};
use pktlab::ccn::tlv::{self, Dialect, InterestOpts};
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

fn lo() -> std::net::SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Runs `body` against a router (routes `/cefore` to a producer) and the producer, on ephemeral
/// loopback ports, then stops both and returns what each reported.
fn with_router<T>(
    pcfg: ProducerConfig,
    rcfg: RouterConfig,
    body: impl FnOnce(SocketAddr) -> T,
) -> (T, RouterResult, ProducerResult) {
    let (pc, rc) = (Control::new(), Control::new());
    std::thread::scope(|s| {
        let (pc, rc) = (&pc, &rc);
        let prod = s.spawn(move || run_producer(&pcfg, pc, &mut |_| {}).unwrap());
        let paddr = pc.wait_bound(Duration::from_secs(5)).unwrap();
        let router = s.spawn(move || {
            let mut routes = rcfg.routes.clone();
            routes.push(("/cefore".into(), paddr));
            let cfg = RouterConfig { routes, ..rcfg };
            run_router(&cfg, rc, &mut |_| {}).unwrap()
        });
        let raddr = rc.wait_bound(Duration::from_secs(5)).unwrap();
        let out = body(raddr);
        // Let stragglers land, then stop.
        std::thread::sleep(Duration::from_millis(100));
        rc.stop();
        pc.stop();
        (out, router.join().unwrap(), prod.join().unwrap())
    })
}

#[test]
fn consumer_router_producer_end_to_end() {
    for dialect in [Dialect::V012, Dialect::V010] {
        let pcfg = ProducerConfig {
            listen: lo(),
            prefix: "/cefore".into(),
            payload: 200,
            dialect,
            ..Default::default()
        };
        let rcfg = RouterConfig {
            listen: lo(),
            cs_entries: 256,
            cs_policy: Policy::Lru,
            dialect,
            ..Default::default()
        };
        let (c, r, p) = with_router(pcfg, rcfg, |raddr| {
            let ccfg = ConsumerConfig {
                to: raddr,
                bind: lo(),
                contents: 1 << 12,
                table_entries: 1 << 12,
                window: 16,
                duration: Duration::from_millis(1500),
                warmup: Duration::from_millis(300),
                timeout_ms: 500,
                dialect,
                ..Default::default()
            };
            run_consumer(&ccfg, &Control::new(), &mut |_| {}).unwrap()
        });
        eprintln!("{dialect:?}: consumer {c:?}\nrouter {r:?}\nproducer {p:?}");
        assert_eq!(c.dialect, dialect.as_str());
        assert!(c.data_received > 1000, "{c:?}");
        // Every Interest is answered, timed out, or still pending at the end.
        assert_eq!(
            c.interests_sent + c.carried_over,
            c.interests_satisfied + c.timeouts + c.pending_at_end,
            "{c:?}"
        );
        assert_eq!(c.malformed, 0);
        // CS hits: Data comes back without reaching the producer.
        assert!(r.stats.cs_hits > 100, "{r:?}");
        assert_eq!(
            p.interests, r.stats.forwarded,
            "producer sees only forwarded Interests"
        );
        assert_eq!(
            r.stats.interests,
            r.stats.cs_hits + r.stats.forwarded + r.stats.aggregated + r.stats.dropped
        );
        assert_eq!(r.stats.dropped, 0);
        assert_eq!(
            r.stats.data_out,
            r.stats.cs_hits + r.stats.data - r.stats.unsolicited
        );
        // LRU hit ratio near Che's approximation for 256 of 4096 contents (over the router's
        // whole life, fill phase included, hence the wider margin than the unit tests').
        let che = pktlab::ccn::sim::che_lru(0.8, 1 << 12, 256);
        assert!(
            (r.cs.hit_ratio - che).abs() < 0.08,
            "{} vs {che}",
            r.cs.hit_ratio
        );
    }
}

#[test]
fn router_survives_bad_datagrams() {
    let pcfg = ProducerConfig {
        listen: lo(),
        payload: 10,
        ..Default::default()
    };
    let rcfg = RouterConfig {
        listen: lo(),
        cs_entries: 16,
        ..Default::default()
    };
    let (nbad, r, _) = with_router(pcfg, rcfg, |raddr| {
        let sock = UdpSocket::bind(lo()).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut name = Vec::new();
        tlv::name_from_uri_in("/cefore/1/chunk=0", Dialect::V012, &mut name);
        let mut good = Vec::new();
        let opts = InterestOpts {
            hop_limit: 8,
            lifetime_ms: Some(1000),
        };
        tlv::build_interest_opts(&mut good, &name, &opts);
        let mut bad: Vec<Vec<u8>> = Vec::new();
        // Random bytes (deterministic).
        let mut x = 7u64;
        for len in [1usize, 7, 8, 40, 300, 1400] {
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    x = pktlab::util::splitmix64(x);
                    x as u8
                })
                .collect();
            bad.push(v);
        }
        // Truncations of a good Interest (its packet length then disagrees).
        for n in [4, 9, 13, good.len() - 1] {
            bad.push(good[..n].to_vec());
        }
        // Wrong inner lengths with a consistent packet length.
        let mut b = good.clone();
        b[16] = 0xFF; // message length beyond the packet
        bad.push(b);
        let mut b = good.clone();
        b[20] = 0x7F; // name length beyond the message
        bad.push(b);
        let mut b = good.clone();
        b[7] = 200; // header length beyond the packet
        bad.push(b);
        let mut ccninfo = good.clone();
        ccninfo[1] = tlv::PT_CCNINFO_REQUEST;
        for d in &bad {
            sock.send_to(d, raddr).unwrap();
        }
        sock.send_to(&ccninfo, raddr).unwrap();
        // The router still works afterwards.
        sock.send_to(&good, raddr).unwrap();
        let mut buf = [0u8; 2048];
        let (n, _) = sock.recv_from(&mut buf).expect("Data after garbage");
        let d = tlv::parse(&buf[..n]).unwrap();
        assert_eq!(d.name, &name[..]);
        assert_eq!(d.end_chunk, Some(0));
        assert!(d.cache_time_ms.is_some() && d.expiry_ms.is_some());
        bad.len() as u64
    });
    assert_eq!(r.stats.malformed, nbad, "{r:?}");
    assert_eq!(r.stats.skipped, 1);
    assert_eq!(r.stats.forwarded, 1);
}

/// A one-second consumer of `/cefore` through the router at `raddr`.
fn short_consumer(raddr: SocketAddr) -> pktlab::ccn::live::ConsumerResult {
    let ccfg = ConsumerConfig {
        to: raddr,
        bind: lo(),
        contents: 1 << 10,
        table_entries: 1 << 10,
        window: 8,
        duration: Duration::from_millis(1000),
        warmup: Duration::from_millis(100),
        timeout_ms: 500,
        ..Default::default()
    };
    run_consumer(&ccfg, &Control::new(), &mut |_| {}).unwrap()
}

/// One-byte datagrams from more source ports than a worker has face slots must not lock later
/// consumers out: idle faces with nothing pending are recycled.
#[test]
fn face_flood_does_not_lock_out_consumers() {
    let pcfg = ProducerConfig {
        listen: lo(),
        payload: 10,
        ..Default::default()
    };
    let rcfg = RouterConfig {
        listen: lo(),
        max_faces: 64,
        ..Default::default()
    };
    let (c, r, _) = with_router(pcfg, rcfg, |raddr| {
        let socks: Vec<UdpSocket> = (0..70).map(|_| UdpSocket::bind(lo()).unwrap()).collect();
        for s in &socks {
            s.send_to(&[0x55], raddr).unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
        short_consumer(raddr)
    });
    eprintln!("consumer {c:?}\nrouter {r:?}");
    assert_eq!(r.stats.malformed, 70, "{r:?}");
    assert!(c.data_received > 100, "{c:?}");
    assert_eq!(c.timeouts, 0, "{c:?}");
    assert!(r.stats.face_evicted >= 7, "{r:?}");
    assert_eq!(r.stats.face_overflow, 0, "{r:?}");
    assert!(r.stats.faces <= 64, "{r:?}");
}

/// More downstream faces with Interests pending at once than the old 64-bit face mask held:
/// every one gets a face and its Data.
#[test]
fn two_hundred_faces_with_pending_interests_are_all_served() {
    let pcfg = ProducerConfig {
        listen: lo(),
        payload: 10,
        ..Default::default()
    };
    let rcfg = RouterConfig {
        listen: lo(),
        ..Default::default()
    };
    let n = 200usize;
    let (got, r, _) = with_router(pcfg, rcfg, |raddr| {
        let (mut name, mut pkt) = (Vec::new(), Vec::new());
        let socks: Vec<UdpSocket> = (0..n).map(|_| UdpSocket::bind(lo()).unwrap()).collect();
        // Every peer asks for the same name first (one PIT entry, 200 downstream faces), then
        // for a name of its own.
        // Paced a little so that the router's receive buffer never overflows.
        let pace = |k: usize| {
            if k % 50 == 49 {
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        for (k, s) in socks.iter().enumerate() {
            tlv::name_from_uri_in("/cefore/shared/0", Dialect::V012, &mut name);
            tlv::build_interest(&mut pkt, &name, 8);
            s.send_to(&pkt, raddr).unwrap();
            pace(k);
        }
        for (k, s) in socks.iter().enumerate() {
            tlv::name_from_uri_in(&format!("/cefore/own/{k}"), Dialect::V012, &mut name);
            tlv::build_interest(&mut pkt, &name, 8);
            s.send_to(&pkt, raddr).unwrap();
            pace(k);
        }
        let mut buf = [0u8; 2048];
        let mut got = 0usize;
        for s in &socks {
            s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            for _ in 0..2 {
                if let Ok((len, _)) = s.recv_from(&mut buf) {
                    if tlv::parse(&buf[..len]).is_ok() {
                        got += 1;
                    }
                }
            }
        }
        got
    });
    eprintln!("router {r:?}");
    assert_eq!(r.stats.face_overflow, 0, "{r:?}");
    assert_eq!(r.stats.faces as usize, n + 1, "{r:?}"); // + the producer's face
    assert_eq!(got, 2 * n, "{r:?}");
}

/// A flood of Interests for distinct names under a prefix whose next hop never answers must not
/// take the whole PIT: per-face and per-route caps leave room for the answered prefix.
#[test]
fn unanswered_prefix_flood_does_not_starve_the_pit() {
    let silent = UdpSocket::bind(lo()).unwrap();
    let pcfg = ProducerConfig {
        listen: lo(),
        payload: 10,
        ..Default::default()
    };
    let rcfg = RouterConfig {
        listen: lo(),
        pit_entries: 1024,
        routes: vec![("/y".into(), silent.local_addr().unwrap())],
        ..Default::default()
    };
    let (c, r, _) = with_router(pcfg, rcfg, |raddr| {
        let opts = InterestOpts {
            hop_limit: 8,
            lifetime_ms: Some(4000),
        };
        let (mut name, mut pkt) = (Vec::new(), Vec::new());
        for k in 0..8u32 {
            let s = UdpSocket::bind(lo()).unwrap();
            for j in 0..600u32 {
                tlv::name_from_uri_in(&format!("/y/{k}/{j}"), Dialect::V012, &mut name);
                tlv::build_interest_opts(&mut pkt, &name, &opts);
                s.send_to(&pkt, raddr).unwrap();
                if j % 64 == 63 {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
        short_consumer(raddr)
    });
    eprintln!("consumer {c:?}\nrouter {r:?}");
    assert!(c.data_received > 100, "{c:?}");
    assert_eq!(c.timeouts, 0, "{c:?}");
    assert!(r.stats.pit_face_limit > 0, "{r:?}");
    assert!(r.stats.pit_route_limit > 0, "{r:?}");
    assert_eq!(r.stats.pit_full, 0, "{r:?}");
}
