//! Fuzz target for the pcap/pcapng capture reader (`PacketReader`) and the destination
//! reader on top of it: reading never panics; records = packets returned, skipped = records
//! without a flow key; whole and dribbled input read the same; a cut input reads a prefix of
//! the records of the whole one; for each family, addresses + skipped = packets; and messages
//! are single lines naming the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::packets::{PacketReader, PacketRecord};
use pktlab::io::pcap::destinations_from;
use pktlab::net::Address;
use pktlab_fuzz::{assert_one_line, Dribble};
use std::io::{Cursor, Read};

/// Every record of `r` and the final counts (records, skipped, truncated?).
fn read_all(r: impl Read + Send + 'static) -> Option<(Vec<PacketRecord>, (u64, u64, bool))> {
    let mut rd = match PacketReader::from_reader(r, "in") {
        Ok(rd) => rd,
        Err(e) => {
            assert_one_line(&e.to_string(), "in");
            return None;
        }
    };
    let mut v = Vec::new();
    while let Some(p) = rd.next_record() {
        v.push(p);
    }
    let rep = rd.report();
    assert_eq!(
        rep.records,
        v.len() as u64,
        "records counted = records returned"
    );
    let none = v.iter().filter(|p| p.key.is_none()).count() as u64;
    assert_eq!(rep.skipped, none, "skipped = records without a key");
    if let Some(t) = &rep.truncated {
        assert!(!t.contains('\n'), "{t:?}");
    }
    Some((v, (rep.records, rep.skipped, rep.truncated.is_some())))
}

fn destinations<A: Address>(data: &[u8], records: &[PacketRecord]) {
    let (addrs, rep) = destinations_from::<A>(Cursor::new(data.to_vec()), "in").expect("opens");
    assert_eq!(rep.packets, records.len() as u64);
    assert_eq!(addrs.len() as u64 + rep.skipped, rep.packets);
    if let Some(s) = rep.summary() {
        assert_one_line(&s, "in");
    }
}

fuzz_target!(|data: &[u8]| {
    let step = data.last().copied().unwrap_or(0);
    let whole = read_all(Cursor::new(data.to_vec()));
    let dribbled = read_all(Dribble::new(data, step));
    assert_eq!(whole, dribbled, "whole and dribbled input read differently");
    let Some((records, _)) = whole else { return };
    destinations::<u32>(data, &records);
    destinations::<u128>(data, &records);
    // A cut keeps a prefix of the records.
    let cut = (step as usize * 7919) % (data.len() + 1);
    if let Some((part, _)) = read_all(Cursor::new(data[..cut].to_vec())) {
        assert!(part.len() <= records.len(), "cut at {cut} reads more");
        assert_eq!(part[..], records[..part.len()], "cut at {cut}");
    }
});
