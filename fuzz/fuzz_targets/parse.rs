//! Fuzz target for the data plane's in-place packet parser and rewrite
//! (`pktlab::pipeline::parse`): on a frame of any link kind, `parse` never panics and never
//! reads past the frame (it gets an exact-size heap copy, so ASan sees any overread); a frame
//! it accepts has its whole IP header inside the frame and is read by the capture reader's
//! `flow_key` (the oracle) at the same destination; `forward_rewrite` keeps the IPv4 header
//! checksum valid and lowers the TTL / hop limit by exactly one, so the rewritten frame parses
//! again to the same header unless its TTL ran out.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pcap_parser::Linktype;
use pktlab::io::packets::flow_key;
use pktlab::pipeline::parse::{forward_rewrite, parse, LinkKind, Verdict};

/// The link types the first input byte chooses among (every kind, and one unknown type).
const LINK_TYPES: [u32; 10] = [1, 101, 228, 229, 113, 276, 0, 108, 9, 147];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, frame)) = data.split_first() else {
        return;
    };
    let lt = LINK_TYPES[sel as usize % LINK_TYPES.len()];
    let link = LinkKind::of(lt);
    let frame = frame.to_vec().into_boxed_slice();
    let Ok(h) = parse(link, &frame) else { return };
    let l3 = h.l3 as usize;
    let (hdr_len, ttl_at) = if h.v6 {
        (40, 7)
    } else {
        ((frame[l3] & 0x0f) as usize * 4, 8)
    };
    assert!(l3 + hdr_len <= frame.len(), "header past the frame");
    let k = flow_key(Linktype(lt as i32), &frame).expect("the oracle reads an accepted frame");
    let dst = if k.v6 {
        u128::from_be_bytes(k.dst)
    } else {
        u32::from_be_bytes([k.dst[0], k.dst[1], k.dst[2], k.dst[3]]) as u128
    };
    assert_eq!((h.v6, h.dst), (k.v6, dst), "parse and flow_key disagree");

    let mut out = frame.clone();
    forward_rewrite(link, &mut out, &h, u32::from(sel) * 0x0101_0101);
    let ttl = frame[l3 + ttl_at];
    assert_eq!(out[l3 + ttl_at], ttl - 1);
    match parse(link, &out) {
        Ok(h2) => assert_eq!(h2, h),
        Err(Verdict::Ttl) => assert_eq!(ttl, 2),
        Err(v) => panic!("rewritten frame rejected: {v:?}"),
    }
});
