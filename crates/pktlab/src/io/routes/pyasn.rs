//! The pyasn table format (`pyasn_util_convert.py` output): `prefix<TAB>asn` per line, `;`
//! header/comment lines. The ASN maps to a next hop by `asn:N` or, under `file`, is itself
//! the next-hop id (AS0 and ASNs above [`NextHop::MAX`] are refused then).

use super::FieldError;
use crate::io::nexthop::{asn_nexthop, hash_nexthop, NextHopScheme};
use crate::net::{Address, NextHop, Prefix};
use crate::util::quote;

/// True if the first data line (not blank, not a `#` comment) says the table is pyasn: a `;`
/// header line, or exactly `prefix<TAB>digits`.
pub(super) fn looks_like_pyasn(line: &str) -> bool {
    if line.starts_with(';') {
        return true;
    }
    match line.trim().split_once('\t') {
        Some((p, asn)) => {
            p.contains('/')
                && !p.contains(char::is_whitespace)
                && !asn.is_empty()
                && asn.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// Parses an AS number (`0..=u32::MAX`, an optional `AS` prefix is accepted).
fn parse_asn(tok: Option<&str>) -> Result<u32, FieldError> {
    let tok = tok.ok_or_else(|| "missing ASN column".to_string())?;
    let digits = tok
        .strip_prefix("AS")
        .or_else(|| tok.strip_prefix("as"))
        .unwrap_or(tok);
    digits
        .parse::<u32>()
        .map_err(|_| format!("ASN {} is not an integer in 0..=4294967295", quote(tok)).into())
}

/// The next hop of a pyasn route with prefix `p` and ASN column `col2`.
pub(super) fn nexthop<A: Address>(
    p: &Prefix<A>,
    col2: Option<&str>,
    scheme: NextHopScheme,
) -> Result<NextHop, FieldError> {
    Ok(match scheme {
        NextHopScheme::Hash(n) => hash_nexthop(p, n),
        NextHopScheme::File => {
            let asn = parse_asn(col2)?;
            NextHop::new(asn).ok_or_else(|| {
                format!(
                    "ASN {asn} cannot be used as a next-hop id (scheme file needs 1..={})",
                    NextHop::MAX
                )
            })?
        }
        NextHopScheme::Asn(n) => asn_nexthop(parse_asn(col2)?, n),
    })
}

#[cfg(test)]
mod tests {
    use super::super::read_table_from;
    use super::*;

    #[test]
    fn pyasn_sample() {
        let text = "; IP-ASN32-DAT file\n; Prefixes      : 4\n; \n\
                    1.0.0.0/24\t15169\n1.0.4.0/24\t56203\n2001:db8::/32\t3333\n\
                    1.0.5.0/24\t0\n1.0.6.0/24\tx\n";
        let t = read_table_from::<u32>(text.as_bytes(), "p", &NextHopScheme::Asn(16)).unwrap();
        assert_eq!(t.report.format, "pyasn");
        assert_eq!(t.report.other_family, 1);
        assert_eq!(t.report.skipped, 1); // "x"
        assert_eq!(t.routes.len(), 3);
        assert_eq!(t.routes[0].nexthop.get(), 1 + 15169 % 16);
        assert_eq!(t.routes[2].nexthop.get(), 1); // AS0 -> 1 + 0 % 16
                                                  // File: the ASN is the id; AS0 is refused.
        let t = read_table_from::<u32>(text.as_bytes(), "p", &NextHopScheme::File).unwrap();
        assert_eq!(t.routes.len(), 2);
        assert_eq!(t.routes[0].nexthop.get(), 15169);
        assert_eq!(t.report.skipped, 2);
        assert!(t.report.first_errors[0].starts_with("p:7: ASN 0 cannot be used"));
        // Without ';' header, `prefix<TAB>digits` is still pyasn.
        let t = read_table_from::<u32>(&b"1.0.0.0/24\t15169\n"[..], "q", &NextHopScheme::Asn(16))
            .unwrap();
        assert_eq!(t.report.format, "pyasn");
        assert_eq!(t.routes.len(), 1);
        // `AS` prefix accepted.
        assert_eq!(parse_asn(Some("AS3333")), Ok(3333));
        assert!(parse_asn(Some("AS")).is_err());
    }

    #[test]
    fn detection() {
        assert!(looks_like_pyasn("; header"));
        assert!(looks_like_pyasn("1.0.0.0/24\t15169"));
        assert!(!looks_like_pyasn("1.0.0.0/24 15169"));
        assert!(!looks_like_pyasn("1.0.0.0/24\tx"));
        assert!(!looks_like_pyasn("1.0.0.0/24\t"));
    }
}
