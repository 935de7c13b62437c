//! What the pktlab fuzz targets share: a reader that dribbles its bytes out in small,
//! input-chosen pieces (so a target can check that a reader's result does not depend on how
//! its input arrives), the re-print checks of prefixes and routes, and [`Ops`], the input
//! read as a stream of operations by the data-structure targets.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

use pktlab::io::{ReadReport, Route};
use pktlab::net::{Address, Prefix};
use std::io::Read;

/// The input as a stream of small numbers (the operations of a data-structure target).
pub struct Ops<'a>(pub &'a [u8]);

impl Ops<'_> {
    /// The next byte, if any.
    pub fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    /// The next byte modulo `n` (as 0 when `n` is 0), if any.
    pub fn below(&mut self, n: usize) -> Option<usize> {
        Some(self.byte()? as usize % n.max(1))
    }
}

/// A reader over owned bytes that hands out at most `step` bytes per `read` call (1..=8),
/// exercising every "short read" path of a reader under test.
pub struct Dribble {
    data: Vec<u8>,
    at: usize,
    step: usize,
}

impl Dribble {
    /// Dribbles `data` out in pieces of at most `1 + seed % 8` bytes.
    pub fn new(data: &[u8], seed: u8) -> Self {
        Dribble {
            data: data.to_vec(),
            at: 0,
            step: 1 + (seed as usize % 8),
        }
    }
}

impl Read for Dribble {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Asserts that `p` re-prints to text that parses back to an equal prefix.
pub fn assert_reprints<A: Address>(p: &Prefix<A>) {
    let s = p.to_string();
    let q: Prefix<A> = s
        .parse()
        .unwrap_or_else(|e| panic!("{p:?} prints as {s:?}, which does not parse: {e}"));
    assert_eq!(&q, p, "{s:?} re-parses to another prefix");
    assert!(u32::from(p.len()) <= A::BITS);
}

/// Asserts what holds of any table a reader returned: every prefix re-prints, prefixes are
/// distinct, the report's messages are single lines naming the input, and no more than five
/// are kept.
pub fn assert_table<A: Address>(routes: &[Route<A>], report: &ReadReport, name: &str) {
    let mut seen = std::collections::HashSet::new();
    for r in routes {
        assert_reprints(&r.prefix);
        assert!(
            seen.insert(r.prefix),
            "duplicate prefix {} in a table",
            r.prefix
        );
    }
    assert_report(report, name);
}

/// Asserts that a read report's messages are single lines that name the input.
pub fn assert_report(report: &ReadReport, name: &str) {
    assert!(report.first_errors.len() <= 5);
    assert!(report.first_errors.len() as u64 <= report.skipped);
    for e in report.first_errors.iter().chain(report.truncated.iter()) {
        assert_one_line(e, name);
    }
    if let Some(s) = report.summary() {
        assert_one_line(&s, name);
    }
}

/// Asserts that `msg` is one line starting with the input's `name`.
pub fn assert_one_line(msg: &str, name: &str) {
    assert!(!msg.contains('\n'), "multi-line message: {msg:?}");
    assert!(
        msg.starts_with(name),
        "message does not name the input: {msg:?}"
    );
}

/// Reads `input` whole and dribbled with `read` and asserts both give the same result (or
/// the same one-line error naming the input `"in"`); returns the whole read's result.
pub fn read_both<T: PartialEq + std::fmt::Debug, E: std::fmt::Display>(
    input: &[u8],
    step: u8,
    read: impl Fn(Box<dyn Read + Send + '_>) -> Result<T, E>,
) -> Option<T> {
    let whole = read(Box::new(input));
    let dribbled = read(Box::new(Dribble::new(input, step)));
    match (whole, dribbled) {
        (Ok(t), Ok(d)) => {
            assert_eq!(t, d, "whole and dribbled input read differently");
            Some(t)
        }
        (Err(e), Err(d)) => {
            let (e, d) = (e.to_string(), d.to_string());
            assert_eq!(e, d);
            assert_one_line(&e, "in");
            None
        }
        (w, d) => panic!("whole ok {} vs dribbled ok {}", w.is_ok(), d.is_ok()),
    }
}

/// The line table formats a target checks: the header forcing the format, its name in the
/// report, and how a route prints back in it.
pub struct LineFormat {
    /// Lines put in front of the fuzz input so that the format detection picks this format.
    pub head: &'static [u8],
    /// [`ReadReport::format`] of the result.
    pub name: &'static str,
    /// Separator between prefix and next hop when printing the table back.
    pub sep: char,
    /// What goes in front of the table printed back: a header that keeps the format, without
    /// the routes `head` may hold.
    pub reprint_head: &'static str,
}

/// The whole check of a line-format table (text or pyasn) read from `head + data` under
/// `scheme`: no panic; whole and dribbled input read the same; the format is `fmt`; every
/// route re-prints to an equal prefix and prefixes are distinct; lines account for routes,
/// duplicates, skips and other-family lines; `hash:N`/`asn:N` next hops are in 1..=N; and
/// under `file` the table printed back in the same format reads back to the same routes.
pub fn check_line_table<A: Address>(
    fmt: &LineFormat,
    data: &[u8],
    scheme: pktlab::io::NextHopScheme,
    step: u8,
) {
    use pktlab::io::{read_table_from, NextHopScheme};
    let input = [fmt.head, data].concat();
    let Some((routes, report)) = read_both(&input, step, |r| {
        read_table_from::<A>(r, "in", &scheme).map(|t| (t.routes, t.report))
    }) else {
        return;
    };
    assert_eq!(report.format, fmt.name);
    assert_table(&routes, &report, "in");
    let r = &report;
    let accounted = routes.len() as u64 + r.duplicates + r.skipped + r.other_family;
    assert!(
        accounted <= r.lines_or_records,
        "{accounted} items in {r:?}"
    );
    if let NextHopScheme::Asn(n) | NextHopScheme::Hash(n) = scheme {
        assert!(routes.iter().all(|r| r.nexthop.get() <= n));
    }
    if scheme == NextHopScheme::File {
        let mut text = fmt.reprint_head.to_string();
        for r in &routes {
            text.push_str(&format!("{}{}{}\n", r.prefix, fmt.sep, r.nexthop));
        }
        let back = read_table_from::<A>(text.as_bytes(), "back", &NextHopScheme::File);
        let back = back.unwrap_or_else(|e| panic!("printed table does not read back: {e}"));
        assert_eq!(back.routes, routes);
        assert_eq!(back.report.skipped + back.report.duplicates, 0);
    }
}
