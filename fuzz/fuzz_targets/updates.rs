//! Fuzz target for the update-stream reader (`A prefix/len [nexthop]` / `W prefix/len`):
//! reading never panics; whole and dribbled input read the same; every prefix re-prints to
//! an equal prefix; lines account for events, skips and other-family lines; messages are
//! single lines naming the input; and the stream printed back reads back to the same events.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::{read_updates_from, NextHopScheme, Update};
use pktlab::net::Address;
use pktlab_fuzz::{assert_report, assert_reprints, read_both};

fn check<A: Address>(data: &[u8], scheme: NextHopScheme, step: u8) {
    let Some((events, report)) =
        read_both(data, step, |r| read_updates_from::<A>(r, "in", &scheme))
    else {
        return;
    };
    assert_report(&report, "in");
    let accounted = events.len() as u64 + report.skipped + report.other_family;
    assert!(
        accounted <= report.lines_or_records,
        "{accounted} items in {report:?}"
    );
    let mut text = String::new();
    for e in &events {
        match e {
            Update::Announce(p, nh) => {
                assert_reprints(p);
                if let NextHopScheme::Hash(n) = scheme {
                    assert!(nh.get() <= n);
                }
                text.push_str(&format!("A {p} {nh}\n"));
            }
            Update::Withdraw(p) => {
                assert_reprints(p);
                text.push_str(&format!("W {p}\n"));
            }
        }
    }
    let back = read_updates_from::<A>(text.as_bytes(), "back", &NextHopScheme::File);
    let (back, r) = back.unwrap_or_else(|e| panic!("printed stream does not read back: {e}"));
    assert_eq!(back, events);
    assert_eq!(r.skipped, 0);
}

fuzz_target!(|data: &[u8]| {
    let step = data.first().copied().unwrap_or(0);
    check::<u32>(data, NextHopScheme::File, step);
    check::<u32>(data, NextHopScheme::Hash(16), step);
    check::<u128>(data, NextHopScheme::File, step);
});
