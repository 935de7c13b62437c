//! Update streams: lines `A prefix/len [nexthop]` (announce) and `W prefix/len` (withdraw),
//! `#` comments and blank lines ignored, gzip/bzip2 transparent. MRT update dumps are
//! recognised and refused with a one-line message (only text streams are supported).

use super::lines::{for_each_line, is_other_family, parse_nexthop_id};
use super::mrt::looks_like_mrt;
use super::{FieldError, ReadReport, Update};
use crate::io::nexthop::{hash_nexthop, NextHopScheme};
use crate::io::{decompress, open_maybe_compressed, peek_stream, IoError};
use crate::net::{Address, Prefix};
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

/// The stream reader proper, on decompressed input.
fn read_decompressed<A: Address>(
    reader: Box<dyn BufRead + Send + '_>,
    name: &str,
    scheme: NextHopScheme,
) -> Result<(Vec<Update<A>>, ReadReport), IoError> {
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
    let mut updates = Vec::new();
    for_each_line(&mut reader, &mut report, |lineno, line, report| {
        match parse_line::<A>(line, scheme) {
            Ok(Some(u)) => updates.push(u),
            Ok(None) => report.other_family += 1,
            Err(msg) => report.skip_line(lineno, &msg.to_string()),
        }
        Ok(())
    })?;
    if updates.is_empty() {
        if let Some(e) = report.nothing_usable("lines") {
            return Err(e);
        }
    }
    Ok((updates, report))
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
        _ => return Err(format!("expected 'A' or 'W', found {kind:?}").into()),
    };
    let ptok = it
        .next()
        .ok_or_else(|| format!("missing prefix after {kind:?}"))?;
    let col3 = it.next();
    if let Some(extra) = it.next() {
        return Err(format!("unexpected extra field {extra:?}").into());
    }
    if withdraw {
        if let Some(extra) = col3 {
            return Err(format!("unexpected extra field {extra:?} after withdrawal").into());
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
