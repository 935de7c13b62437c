//! Fuzz target for the compact flow-trace reader (`CompactReader`): reading never panics;
//! every flow id returned is known (its key is there); whole and dribbled input read the same
//! packets and end the same way (clean, or cut/corrupt with the same one-line message); and
//! the packets re-encoded with `CompactWriter` read back identically and cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::compact::{CompactReader, CompactWriter};
use pktlab::net::FlowKey;
use pktlab_fuzz::{assert_one_line, Dribble};
use std::io::{BufRead, BufReader};

/// Every `(ts, flow id)` of `r`, the flow keys, and how reading ended.
fn read_all<R: BufRead>(r: R) -> Option<(Vec<(u64, u32)>, Vec<FlowKey>, Option<String>)> {
    let mut rd = match CompactReader::new(r, "in") {
        Ok(rd) => rd,
        Err(e) => {
            assert_one_line(&e.to_string(), "in");
            return None;
        }
    };
    let mut v = Vec::new();
    while let Some((ts, id)) = rd.next_packet() {
        assert!(
            (id as usize) < rd.flows(),
            "id {id} of {} flows",
            rd.flows()
        );
        assert!(rd.key(id).is_some());
        v.push((ts, id));
    }
    assert_eq!(rd.next_packet(), None, "the end is sticky");
    if let Some(t) = &rd.truncated {
        assert_one_line(t, "in");
    }
    let keys = (0..rd.flows() as u32)
        .map(|i| *rd.key(i).unwrap())
        .collect();
    Some((v, keys, rd.truncated.clone()))
}

fuzz_target!(|data: &[u8]| {
    let step = data.last().copied().unwrap_or(0);
    let whole = read_all(data);
    // A small buffer over a dribbling source forces the byte-wise slow path.
    let cap = 1 + step as usize % 64;
    let dribbled = read_all(BufReader::with_capacity(cap, Dribble::new(data, step)));
    assert_eq!(whole, dribbled, "whole and dribbled input read differently");
    let Some((packets, keys, _)) = whole else {
        return;
    };
    let mut w = CompactWriter::new(Vec::new()).unwrap();
    let mut next = 0u32;
    for &(ts, id) in &packets {
        next = next.max(id + 1);
        w.write(ts, id, &keys[id as usize])
            .expect("dense ids re-encode");
    }
    let bytes = w.finish().unwrap();
    let (again, keys2, end) = read_all(&bytes[..]).expect("re-encoded trace opens");
    assert_eq!(again, packets);
    assert_eq!(keys2[..], keys[..next as usize]);
    assert_eq!(end, None);
});
