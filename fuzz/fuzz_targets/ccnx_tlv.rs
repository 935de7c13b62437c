//! Fuzz target for the CCNx TLV parser (RFC 8609) and everything that consumes its output:
//! parsing must never panic, and a packet that parses must survive segment iteration, hashing,
//! a rebuild round trip (plain, and with the Cefore fields it carries: InterestLifetime, cache
//! time + ExpiryTime, EndChunkNumber) and the forwarder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::ccn::cs::Lru;
use pktlab::ccn::tlv::{self, CacheTimes, DataOpts, Dialect, InterestOpts, Kind, MAX_SEGMENTS};
use pktlab::ccn::{Fib, Forwarder, Pit};

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = tlv::parse(data) {
        let mut h = [0u64; MAX_SEGMENTS];
        let n = tlv::prefix_hashes(p.name, &mut h);
        assert!(n <= MAX_SEGMENTS);
        assert_eq!(tlv::segments(p.name).count(), n);
        if n > 0 {
            assert_eq!(h[n - 1], tlv::name_hash(p.name));
        }
        // Rebuild and reparse: the name and payload must survive.
        let mut b = Vec::new();
        if p.name.len() + p.payload.len() < 60_000 {
            match p.kind {
                Kind::Interest => tlv::build_interest(&mut b, p.name, p.hop_limit),
                Kind::Data => tlv::build_data(&mut b, p.name, p.payload),
            }
            let q = tlv::parse(&b).expect("rebuilt packet parses");
            assert_eq!(q.name, p.name);
            if p.kind == Kind::Data {
                assert_eq!(q.payload, p.payload);
            }
            // With the Cefore fields the packet carried.
            match p.kind {
                Kind::Interest => {
                    let o = InterestOpts {
                        hop_limit: p.hop_limit,
                        lifetime_ms: p.lifetime_ms,
                    };
                    tlv::build_interest_opts(&mut b, p.name, &o);
                }
                Kind::Data => {
                    let cache = match (p.cache_time_ms, p.expiry_ms) {
                        (Some(c), Some(e)) => Some(CacheTimes {
                            cache_time_ms: c,
                            expiry_ms: e,
                        }),
                        _ => None,
                    };
                    let o = DataOpts {
                        cache,
                        end_chunk: p.end_chunk,
                    };
                    tlv::build_data_opts(&mut b, p.name, p.payload, &o);
                }
            }
            let q = tlv::parse(&b).expect("rebuilt packet with options parses");
            assert_eq!(
                (q.name, q.payload),
                (
                    p.name,
                    if p.kind == Kind::Data {
                        p.payload
                    } else {
                        q.payload
                    }
                )
            );
            assert_eq!((q.lifetime_ms, q.end_chunk), (p.lifetime_ms, p.end_chunk));
            if p.cache_time_ms.is_some() && p.expiry_ms.is_some() {
                assert_eq!(
                    (q.cache_time_ms, q.expiry_ms),
                    (p.cache_time_ms, p.expiry_ms)
                );
            }
            for d in Dialect::ALL {
                let _ = tlv::chunk_number(p.name, d);
            }
        }
    }
    // The forwarder must drop garbage gracefully.
    let mut fib = Fib::new();
    fib.add(&[], 1);
    let mut f = Forwarder::new(Some(Lru::new(4)), 512, Pit::new(4, 10), fib);
    let _ = f.handle(data, 0, 0, &mut |_, _| {});
    let _ = f.handle(data, 1, 1, &mut |_, _| {});
});
