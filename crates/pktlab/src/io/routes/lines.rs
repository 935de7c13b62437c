//! What the line formats (text and pyasn tables, update streams) share: the line loop with
//! `#` comments, positions and UTF-8 checks; the split of a line into prefix and columns; the
//! other-family test; and the next-hop id column.

use super::FieldError;
use super::ReadReport;
use crate::io::IoError;
use crate::net::{Address, Family, NextHop, Prefix};
use crate::util::quote;
use std::io::{BufRead, Read};

/// True if the prefix token is of the other family than `A` (so it is skipped silently).
#[inline]
pub(super) fn is_other_family<A: Address>(tok: &str) -> bool {
    // Byte scans: `str::contains(char)` is much slower on a hot path of a million lines.
    let b = tok.as_bytes();
    let colon = b.contains(&b':');
    match A::FAMILY {
        Family::V4 => colon,
        Family::V6 => !colon && b.contains(&b'.'),
    }
}

/// A parsed `prefix [column]` line: the prefix and its optional second column.
pub(super) type PrefixColumn<'l, A> = (Prefix<A>, Option<&'l str>);

/// Splits a data line (comment stripped, not blank) of the form `prefix [column]` into the
/// prefix and its optional second column, refusing a third. `Ok(None)` means the prefix is of
/// the other family.
pub(super) fn prefix_and_column<A: Address>(
    line: &str,
) -> Result<Option<PrefixColumn<'_, A>>, FieldError> {
    let mut it = line.split_ascii_whitespace();
    let ptok = it.next().ok_or_else(|| "empty line".to_string())?;
    let col2 = it.next();
    if let Some(extra) = it.next() {
        return Err(format!("unexpected extra field {}", quote(extra)).into());
    }
    if is_other_family::<A>(ptok) {
        return Ok(None);
    }
    let p: Prefix<A> = ptok.parse().map_err(|e| format!("{e}"))?;
    Ok(Some((p, col2)))
}

/// Parses a positive next-hop id no larger than [`NextHop::MAX`] from the column `which`
/// (`"second"`, `"third"`).
pub(super) fn parse_nexthop_id(tok: Option<&str>, which: &str) -> Result<NextHop, FieldError> {
    let tok =
        tok.ok_or_else(|| format!("missing next hop (scheme file needs a {which} column)"))?;
    tok.parse::<u32>()
        .ok()
        .and_then(NextHop::new)
        .ok_or_else(|| {
            format!(
                "next hop {} is not an integer in 1..={}",
                quote(tok),
                NextHop::MAX
            )
            .into()
        })
}

/// The longest line the line formats read (newline included); a longer one is skipped and
/// counted without being held in memory (a "table" of a gigabyte of zeros costs no more than
/// this).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// What [`read_line`] found.
enum Line {
    /// End of input.
    End,
    /// A line (with its newline, unless it is the last one), in the buffer.
    Text,
    /// A line longer than [`MAX_LINE`], consumed and dropped.
    TooLong,
}

/// Reads the next line into `buf` (cleared first), holding at most [`MAX_LINE`] + 1 bytes.
fn read_line(r: &mut dyn BufRead, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let cap = MAX_LINE as u64 + 1;
    if Read::take(&mut *r, cap).read_until(b'\n', buf)? == 0 {
        return Ok(Line::End);
    }
    if buf.len() <= MAX_LINE || buf.ends_with(b"\n") {
        return Ok(Line::Text);
    }
    // Too long: drop the rest of the line, a bounded piece at a time.
    loop {
        buf.clear();
        let n = Read::take(&mut *r, cap).read_until(b'\n', buf)?;
        if n == 0 || buf.ends_with(b"\n") {
            buf.clear();
            return Ok(Line::TooLong);
        }
    }
}

/// Feeds every non-blank line of `r` (with any `#` comment removed and whitespace trimmed)
/// to `f` with its 1-based line number. Counts lines in `report`; invalid UTF-8 lines and
/// lines longer than [`MAX_LINE`] are skipped and counted; a read error ends the input and
/// sets `report.truncated`. An `Err` from `f` aborts reading.
pub(super) fn for_each_line(
    r: &mut dyn BufRead,
    report: &mut ReadReport,
    mut f: impl FnMut(u64, &str, &mut ReadReport) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let mut buf = Vec::with_capacity(256);
    let mut lineno = 0u64;
    loop {
        let line = match read_line(r, &mut buf) {
            Ok(Line::End) => break,
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                report.truncated = Some(format!(
                    "{}:{}: input ends early after {lineno} complete lines: {e}",
                    report.path,
                    lineno + 1
                ));
                break;
            }
        };
        lineno += 1;
        report.lines_or_records = lineno;
        if let Line::TooLong = line {
            let path = &report.path;
            let msg = format!("{path}:{lineno}: line longer than {MAX_LINE} bytes (not read)");
            report.skip(|| msg);
            continue;
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(s) => s,
            Err(_) => {
                let path = &report.path;
                let msg = format!("{path}:{lineno}: line is not valid UTF-8");
                report.skip(|| msg);
                continue;
            }
        };
        let line = match line.bytes().position(|b| b == b'#') {
            Some(i) => &line[..i],
            None => line,
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        f(lineno, line, report)?;
    }
    Ok(())
}
