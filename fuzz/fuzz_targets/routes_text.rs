//! Fuzz target for the text routing-table reader (`prefix/len [nexthop]` lines), through
//! [`pktlab_fuzz::check_line_table`]: no panic, whole = dribbled, every route re-prints to an
//! equal prefix, lines account for every route and skip, and the table printed back as text
//! reads back to the same routes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::NextHopScheme;
use pktlab_fuzz::{check_line_table, LineFormat};

/// A first data line makes the input a text table whatever follows.
const TEXT: LineFormat = LineFormat {
    head: b"# fuzz\n0.0.0.0/0 1\n",
    name: "text",
    sep: ' ',
    reprint_head: "# printed back\n",
};

fuzz_target!(|data: &[u8]| {
    let step = data.first().copied().unwrap_or(0);
    check_line_table::<u32>(&TEXT, data, NextHopScheme::File, step);
    check_line_table::<u32>(&TEXT, data, NextHopScheme::Hash(16), step);
    check_line_table::<u128>(&TEXT, data, NextHopScheme::File, step);
});
