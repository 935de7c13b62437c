//! Fuzz target for the MRT (RFC 6396) table reader: reading never panics; whole and dribbled
//! input read the same; every route re-prints to an equal prefix and prefixes are distinct;
//! `hash:N`/`asn:N` next hops are in 1..=N; messages are single lines naming the input; and a
//! cut input keeps a prefix of the routes of the whole one (records before the cut are read
//! alike).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::{read_table_from, NextHopScheme};
use pktlab::net::Address;
use pktlab_fuzz::{assert_table, read_both};

fn check<A: Address>(data: &[u8], scheme: NextHopScheme, step: u8) {
    let read = |d: &[u8]| read_table_from::<A>(d, "in", &scheme).ok();
    let Some((routes, report)) = read_both(data, step, |r| {
        read_table_from::<A>(r, "in", &scheme).map(|t| (t.routes, t.report))
    }) else {
        return;
    };
    assert_table(&routes, &report, "in");
    if let NextHopScheme::Asn(n) | NextHopScheme::Hash(n) = scheme {
        assert!(routes.iter().all(|r| r.nexthop.get() <= n));
    }
    if report.format == "mrt" && data.len() > 12 {
        // A cut keeps a prefix of the routes (the cut record is lost, not misread).
        let cut = 12 + (step as usize * 7919) % (data.len() - 12);
        if let Some(t) = read(&data[..cut]) {
            if t.report.format == "mrt" {
                assert!(t.routes.len() <= routes.len());
                assert_eq!(t.routes[..], routes[..t.routes.len()]);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let step = data.last().copied().unwrap_or(0);
    check::<u32>(data, NextHopScheme::File, step);
    check::<u32>(data, NextHopScheme::Asn(16), step);
    check::<u128>(data, NextHopScheme::Hash(16), step);
});
