//! pktlab's CCNx codec against real Cefore v0.12.0 traffic captured on loopback
//! (`tests/fixtures/cefore/README.md` says how each capture was made): every packet parses, the
//! Cefore fields are read, pktlab's builders reproduce Cefore's packets byte for byte, and
//! CCNinfo packets are skipped as unhandled rather than refused as garbage.

use pktlab::ccn::cs::Lru;
use pktlab::ccn::tlv::{
    self, CacheTimes, DataOpts, Dialect, InterestOpts, Kind, TlvError, PT_CCNINFO_REPLY,
    PT_CCNINFO_REQUEST,
};
use pktlab::ccn::{Fib, Forwarder, Pit};

/// (source port, destination port, UDP payload) of every IPv4/UDP packet of a little-endian
/// microsecond pcap with Ethernet framing (what tcpdump writes on Linux loopback).
fn udp_payloads(file: &str) -> Vec<(u16, u16, Vec<u8>)> {
    let path = format!(
        "{}/tests/fixtures/cefore/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let b = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        &b[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "{path}: little-endian pcap"
    );
    assert_eq!(
        u32::from_le_bytes(b[20..24].try_into().unwrap()),
        1,
        "Ethernet"
    );
    let mut at = 24;
    let mut out = Vec::new();
    while at + 16 <= b.len() {
        let incl = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        let f = &b[at + 16..at + 16 + incl];
        at += 16 + incl;
        assert_eq!(&f[12..14], &[0x08, 0x00], "IPv4");
        let ip = &f[14..];
        assert_eq!(ip[9], 17, "UDP");
        let ihl = (ip[0] & 15) as usize * 4;
        let udp = &ip[ihl..];
        let (sp, dp) = (
            u16::from_be_bytes([udp[0], udp[1]]),
            u16::from_be_bytes([udp[2], udp[3]]),
        );
        let ulen = u16::from_be_bytes([udp[4], udp[5]]) as usize;
        out.push((sp, dp, udp[8..ulen].to_vec()));
    }
    assert_eq!(at, b.len(), "{path}: trailing bytes");
    out
}

/// Rebuilds a parsed packet with pktlab's builders.
fn rebuild(p: &tlv::Packet) -> Vec<u8> {
    let mut b = Vec::new();
    match p.kind {
        Kind::Interest => tlv::build_interest_opts(
            &mut b,
            p.name,
            &InterestOpts {
                hop_limit: p.hop_limit,
                lifetime_ms: p.lifetime_ms,
            },
        ),
        Kind::Data => {
            let cache = match (p.cache_time_ms, p.expiry_ms) {
                (Some(c), Some(e)) => Some(CacheTimes {
                    cache_time_ms: c,
                    expiry_ms: e,
                }),
                (None, None) => None,
                _ => panic!("cache time and expiry come together"),
            };
            let opts = DataOpts {
                cache,
                end_chunk: p.end_chunk,
            };
            tlv::build_data_opts(&mut b, p.name, p.payload, &opts)
        }
    }
    b
}

#[test]
fn cefgetfile_through_two_cefnetd() {
    let pkts = udp_payloads("cefgetfile-2hop.pcap");
    let (mut interests, mut data, mut payload) = (0, 0, 0);
    for (sp, dp, b) in &pkts {
        let p = tlv::parse(b).unwrap_or_else(|e| panic!("{sp}->{dp}: {e}"));
        let segs: Vec<_> = tlv::segments(p.name).collect();
        assert_eq!(segs[0], (tlv::T_NAMESEGMENT, &b"fix"[..]));
        assert_eq!(segs[1], (tlv::T_NAMESEGMENT, &b"file"[..]));
        let chunk = tlv::chunk_number(p.name, Dialect::V012).expect("v0.12 chunk segment");
        match p.kind {
            Kind::Interest => {
                interests += 1;
                assert_eq!((*sp, *dp), (9695, 9696));
                assert_eq!(p.lifetime_ms, Some(2000));
                assert_eq!(p.hop_limit, 32);
            }
            Kind::Data => {
                data += 1;
                payload += p.payload.len();
                assert_eq!((*sp, *dp), (9696, 9695));
                let (c, e) = (p.cache_time_ms.unwrap(), p.expiry_ms.unwrap());
                // cefputfile -t 3000 -e 3000: both 3000 s after the put, absolute ms (2026).
                assert!(c > 1_700_000_000_000 && c == e, "{c} {e}");
                // The 3000-byte file in 1000-byte chunks: chunk 2 is the last.
                assert_eq!(p.end_chunk, (chunk == 2).then_some(2));
            }
        }
        // pktlab writes Cefore's packets byte for byte.
        assert_eq!(&rebuild(&p), b, "{sp}->{dp} chunk {chunk}");
    }
    assert_eq!((interests, data, payload), (9, 3, 3000));
}

#[test]
fn ccninfo_is_skipped_not_refused() {
    let pkts = udp_payloads("ccninfo.pcap");
    assert_eq!(pkts.len(), 2);
    assert_eq!(
        tlv::parse(&pkts[0].2),
        Err(TlvError::Unhandled(PT_CCNINFO_REQUEST))
    );
    assert_eq!(
        tlv::parse(&pkts[1].2),
        Err(TlvError::Unhandled(PT_CCNINFO_REPLY))
    );
    let mut fib = Fib::new();
    fib.add(&[], 1);
    let mut f = Forwarder::new(Some(Lru::new(4)), 512, Pit::new(4, 10), fib);
    for (_, _, b) in &pkts {
        assert!(f.handle(b, 0, 0, &mut |_, _| {}).is_err());
    }
    assert_eq!((f.counters.skipped, f.counters.dropped), (2, 0));
}

#[test]
fn pktlab_consumer_through_cefnetd_to_pktlab_producer() {
    let pkts = udp_payloads("pktlab-consumer-cefnetd.pcap");
    let consumer_port = pkts[0].0;
    let (mut sent, mut forwarded, mut answered, mut delivered) = (0, 0, 0, 0);
    let mut names_sent = Vec::new();
    for (sp, dp, b) in &pkts {
        let p = tlv::parse(b).unwrap_or_else(|e| panic!("{sp}->{dp}: {e}"));
        assert_eq!(tlv::chunk_number(p.name, Dialect::V012), Some(0));
        match (*sp, *dp) {
            (s, 9695) if s == consumer_port => {
                // pktlab's Interest, as pktlab builds it.
                assert_eq!((p.kind, p.lifetime_ms), (Kind::Interest, Some(4000)));
                assert_eq!(&rebuild(&p), b);
                names_sent.push(p.name.to_vec());
                sent += 1;
            }
            (9695, 9700) => {
                // Cefore forwards it to the producer (same name).
                assert_eq!(p.kind, Kind::Interest);
                assert!(names_sent.iter().any(|n| n == p.name));
                forwarded += 1;
            }
            (9700, 9695) => {
                // pktlab's Data: cache time and expiry, EndChunkNumber 0 (one-chunk objects).
                assert_eq!(p.kind, Kind::Data);
                assert!(p.cache_time_ms.is_some() && p.expiry_ms.is_some());
                assert_eq!(p.end_chunk, Some(0));
                assert_eq!(p.payload.len(), 100);
                assert_eq!(&rebuild(&p), b);
                answered += 1;
            }
            (9695, d) if d == consumer_port => {
                assert_eq!(p.kind, Kind::Data);
                assert_eq!(p.payload.len(), 100);
                delivered += 1;
            }
            other => panic!("unexpected flow {other:?}"),
        }
    }
    assert!(sent >= 9 && forwarded >= 9 && answered == forwarded && delivered == answered);
}
