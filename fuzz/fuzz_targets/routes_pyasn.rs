//! Fuzz target for the pyasn routing-table reader (`prefix<TAB>asn`, `;` comment lines),
//! through [`pktlab_fuzz::check_line_table`]: no panic, whole = dribbled, every route
//! re-prints to an equal prefix, lines account for every route and skip, `asn:N` next hops
//! are in 1..=N, and under `file` (the ASN is the next hop) the table printed back in pyasn
//! form reads back to the same routes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pktlab::io::NextHopScheme;
use pktlab_fuzz::{check_line_table, LineFormat};

/// A `;` header line makes the input a pyasn table whatever follows.
const PYASN: LineFormat = LineFormat {
    head: b"; IP-ASN32-DAT file\n",
    name: "pyasn",
    sep: '\t',
    reprint_head: "; printed back\n",
};

fuzz_target!(|data: &[u8]| {
    let step = data.first().copied().unwrap_or(0);
    check_line_table::<u32>(&PYASN, data, NextHopScheme::File, step);
    check_line_table::<u32>(&PYASN, data, NextHopScheme::Asn(64), step);
    check_line_table::<u128>(&PYASN, data, NextHopScheme::Asn(7), step);
});
