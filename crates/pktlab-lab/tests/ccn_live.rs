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
            let cfg = RouterConfig {
                routes: vec![("/cefore".into(), paddr)],
                ..rcfg
            };
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
