//! Update streams: lines `A prefix/len [nexthop]` (announce) and `W prefix/len` (withdraw),
//! `#` comments and blank lines ignored, gzip/bzip2 transparent. MRT update dumps are
//! recognised and refused with a one-line message (only text streams are supported).

use super::lines::{for_each_line, is_other_family, parse_nexthop_id};
use super::mrt::looks_like_mrt;
use super::{FieldError, ReadReport, Update};
use crate::io::nexthop::{hash_nexthop, NextHopScheme};
use crate::io::{decompress, open_maybe_compressed, peek_stream, IoError};
use crate::net::{Address, Prefix};
use crate::util::quote;
use std::io::{BufRead, Read};
use std::path::Path;

/// Reads an update stream from the file `path` (see [`read_updates_from`]); messages name
/// the file.
pub fn read_updates<A: Address>(
    path: &Path,
    scheme: &NextHopScheme,
) -> Result<(Vec<Update<A>>, ReadReport), IoError> {
    let name = path.display().to_string();
    check_scheme(&name, scheme)?;
    read_decompressed(open_maybe_compressed(path)?, &name, *scheme)
}

/// Reads an update stream from any reader (a file, a byte slice, stdin): lines
/// `A prefix/len [nexthop]` (announce) and `W prefix/len` (withdraw), with `#` comments and
/// blank lines ignored and gzip/bzip2 transparent. `name` names the input in messages
/// (`name:line: …`).
///
/// Announcements get their next hop from the optional third column (`file`) or from
/// [`hash_nexthop`] (`hash:N`); `asn:N` is rejected because the stream has no ASN column.
/// Events of the other family are skipped silently and counted; bad lines are skipped and
/// counted. If no line is usable but some failed, the error names the first failure.
pub fn read_updates_from<A: Address>(
    r: impl Read + Send,
    name: &str,
    scheme: &NextHopScheme,
) -> Result<(Vec<Update<A>>, ReadReport), IoError> {
    check_scheme(name, scheme)?;
    let reader = decompress(r).map_err(|error| IoError::Read {
        path: name.to_string(),
        pos: "byte 0".to_string(),
        error,
    })?;
    read_decompressed(reader, name, *scheme)
}

/// Refuses `asn:N`, which needs a column update streams do not have.
fn check_scheme(name: &str, scheme: &NextHopScheme) -> Result<(), IoError> {
    match scheme {
        NextHopScheme::Asn(_) => Err(IoError::Unsupported {
            path: name.to_string(),
            msg: format!(
                "next-hop scheme {scheme}: asn:N needs an ASN column, which update streams \
                 do not have"
            ),
        }),
        _ => Ok(()),
    }
}

/// The update events of a stream with lines of both families: IPv4 events, IPv6 events, and
/// the one report of the single pass that read them.
pub type MixedUpdates = (Vec<Update<u32>>, Vec<Update<u128>>, ReadReport);

/// Reads an update stream with IPv4 and IPv6 lines from the file `path` in one pass (see
/// [`read_updates_from`] for the format): each event goes to its family's list, and every
/// skipped line is counted once in the report, whatever its family. An error if no line of
/// either family is usable but some failed.
pub fn read_updates_mixed(path: &Path, scheme: &NextHopScheme) -> Result<MixedUpdates, IoError> {
    let name = path.display().to_string();
    check_scheme(&name, scheme)?;
    let scheme = *scheme;
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    let report = read_lines(open_maybe_compressed(path)?, &name, |line| {
        if let Some(u) = parse_line::<u32>(line, scheme)? {
            v4.push(u);
            return Ok(true);
        }
        Ok(match parse_line::<u128>(line, scheme)? {
            Some(u) => {
                v6.push(u);
                true
            }
            None => false,
        })
    })?;
    Ok((v4, v6, report))
}

/// The stream reader proper, on decompressed input, for family `A`.
fn read_decompressed<A: Address>(
    reader: Box<dyn BufRead + Send + '_>,
    name: &str,
    scheme: NextHopScheme,
) -> Result<(Vec<Update<A>>, ReadReport), IoError> {
    let mut updates = Vec::new();
    let report = read_lines(reader, name, |line| {
        Ok(match parse_line::<A>(line, scheme)? {
            Some(u) => {
                updates.push(u);
                true
            }
            None => false,
        })
    })?;
    Ok((updates, report))
}

/// The line loop of every update reader: refuses MRT, hands each data line to `take`, which
/// returns whether it kept the event (`false`: a family it does not read, counted in
/// [`ReadReport::other_family`]) or why the line is bad (skipped and counted with its
/// position). If nothing was kept but something failed, the first failure is the error.
fn read_lines(
    reader: Box<dyn BufRead + Send + '_>,
    name: &str,
    mut take: impl FnMut(&str) -> Result<bool, FieldError>,
) -> Result<ReadReport, IoError> {
    let (head, mut reader) = peek_stream(reader, 12).map_err(|error| IoError::Read {
        path: name.to_string(),
        pos: "byte 0".to_string(),
        error,
    })?;
    if looks_like_mrt(&head) {
        return Err(IoError::Unsupported {
            path: name.to_string(),
            msg: "MRT input is not supported as an update stream; expected text lines \
                  `A prefix/len [nexthop]` / `W prefix/len`"
                .to_string(),
        });
    }
    let mut report = ReadReport::new(name, "updates");
    let mut kept = 0u64;
    for_each_line(&mut reader, &mut report, |lineno, line, report| {
        match take(line) {
            Ok(true) => kept += 1,
            Ok(false) => report.other_family += 1,
            Err(msg) => report.skip_line(lineno, &msg.to_string()),
        }
        Ok(())
    })?;
    if kept == 0 {
        if let Some(e) = report.nothing_usable("lines") {
            return Err(e);
        }
    }
    Ok(report)
}

/// Parses one update line (comment stripped, not blank); `Ok(None)` = other family.
fn parse_line<A: Address>(
    line: &str,
    scheme: NextHopScheme,
) -> Result<Option<Update<A>>, FieldError> {
    let mut it = line.split_ascii_whitespace();
    let kind = it.next().ok_or_else(|| "empty line".to_string())?;
    let withdraw = match kind {
        "A" | "a" => false,
        "W" | "w" => true,
        _ => return Err(format!("expected 'A' or 'W', found {}", quote(kind)).into()),
    };
    let ptok = it
        .next()
        .ok_or_else(|| format!("missing prefix after {}", quote(kind)))?;
    let col3 = it.next();
    if let Some(extra) = it.next() {
        return Err(format!("unexpected extra field {}", quote(extra)).into());
    }
    if withdraw {
        if let Some(extra) = col3 {
            return Err(format!("unexpected extra field {} after withdrawal", quote(extra)).into());
        }
    }
    if is_other_family::<A>(ptok) {
        return Ok(None);
    }
    let p: Prefix<A> = ptok.parse().map_err(|e| format!("{e}"))?;
    if withdraw {
        return Ok(Some(Update::Withdraw(p)));
    }
    let nh = match scheme {
        NextHopScheme::Hash(n) => hash_nexthop(&p, n),
        NextHopScheme::File => parse_nexthop_id(col3, "third")?,
        NextHopScheme::Asn(_) => return Err("asn:N needs an ASN column".into()),
    };
    Ok(Some(Update::Announce(p, nh)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NextHop;

    fn pfx4(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }

    #[test]
    fn updates_inline() {
        let text = "# updates\nA 10.0.0.0/8 5\nW 10.0.0.0/8\nA 2001:db8::/32 1\nX 1.0.0.0/8\n\
                    A 11.0.0.0/8\nW 12.0.0.0/8 3\nA 13.0.0.0/8 7\n";
        let b = text.as_bytes();
        let (u, r) = read_updates_from::<u32>(b, "u", &NextHopScheme::File).unwrap();
        assert_eq!(
            u,
            vec![
                Update::Announce(pfx4("10.0.0.0/8"), NextHop::new(5).unwrap()),
                Update::Withdraw(pfx4("10.0.0.0/8")),
                Update::Announce(pfx4("13.0.0.0/8"), NextHop::new(7).unwrap()),
            ]
        );
        assert_eq!(r.format, "updates");
        assert_eq!(r.other_family, 1);
        assert_eq!(r.skipped, 3);
        assert_eq!(r.first_errors[0], "u:5: expected 'A' or 'W', found \"X\"");
        assert!(r.first_errors[1].starts_with("u:6: missing next hop (scheme file needs a third"));
        assert!(r.first_errors[2].starts_with("u:7: unexpected extra field"));
        let (u, r) = read_updates_from::<u32>(b, "u", &NextHopScheme::Hash(8)).unwrap();
        assert_eq!(u.len(), 4);
        assert_eq!(r.skipped, 2);
        assert_eq!(
            u[2],
            Update::Announce(pfx4("11.0.0.0/8"), hash_nexthop(&pfx4("11.0.0.0/8"), 8))
        );
        let e = read_updates_from::<u32>(b, "u", &NextHopScheme::Asn(8)).unwrap_err();
        assert!(e.to_string().contains("asn:N needs an ASN column"), "{e}");
        let (u6, _) = read_updates_from::<u128>(b, "u", &NextHopScheme::Hash(8)).unwrap();
        assert_eq!(u6.len(), 1);
    }

    #[test]
    fn mixed_stream_is_read_in_one_pass() {
        let text = "A 10.0.0.0/8 5\nA 2001:db8::/32 1\nbad line here\nW 2001:db8::/32\n\
                    A 1.2.3.0/33 2\nA 2001:db8::/129 3\n";
        let p = crate::io::tests::temp_path("mixed.txt");
        std::fs::write(&p, text).unwrap();
        let (v4, v6, r) = read_updates_mixed(&p, &NextHopScheme::File).unwrap();
        let _ = std::fs::remove_file(&p);
        assert_eq!(v4.len(), 1);
        assert_eq!(v6.len(), 2);
        assert_eq!(v6[1], Update::Withdraw("2001:db8::/32".parse().unwrap()));
        // Each bad line counted once, whatever its family.
        assert_eq!(r.skipped, 3, "{r:?}");
        assert_eq!(r.other_family, 0);
        assert!(
            r.first_errors[0].ends_with(":3: expected 'A' or 'W', found \"bad\""),
            "{r:?}"
        );
        assert!(r.first_errors[1].contains(":5: prefix length 33"), "{r:?}");
        assert!(r.first_errors[2].contains(":6: prefix length 129"), "{r:?}");
    }

    #[test]
    fn mrt_is_refused_and_garbage_is_an_error() {
        let mut h = [0u8; 12];
        h[5] = 16; // BGP4MP
        h[7] = 4;
        h[11] = 20;
        let e = read_updates_from::<u32>(&h[..], "m", &NextHopScheme::Hash(8)).unwrap_err();
        assert!(e.to_string().contains("MRT input is not supported"), "{e}");
        let e =
            read_updates_from::<u32>(&b"hello\n"[..], "g", &NextHopScheme::Hash(8)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "g:1: expected 'A' or 'W', found \"hello\" (no usable lines in g)"
        );
    }
}
