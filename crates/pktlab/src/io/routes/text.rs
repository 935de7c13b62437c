//! The text table format: one route per line, `prefix/len [nexthop]`, whitespace separated,
//! `#` comments and blank lines ignored. The next-hop column is a positive integer id
//! (needed by the `file` scheme, ignored by `hash:N`); there is no ASN column, so `asn:N` is
//! refused.

use super::lines::parse_nexthop_id;
use super::FieldError;
use crate::io::nexthop::{hash_nexthop, NextHopScheme};
use crate::net::{Address, NextHop, Prefix};

/// The next hop of a text-table route with prefix `p` and optional second column `col2`.
pub(super) fn nexthop<A: Address>(
    p: &Prefix<A>,
    col2: Option<&str>,
    scheme: NextHopScheme,
) -> Result<NextHop, FieldError> {
    match scheme {
        NextHopScheme::Hash(n) => Ok(hash_nexthop(p, n)),
        NextHopScheme::File => parse_nexthop_id(col2, "second"),
        NextHopScheme::Asn(_) => Err("asn:N needs an ASN column".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_table_from, Route};
    use crate::io::nexthop::{hash_nexthop, NextHopScheme};
    use crate::net::Prefix;

    fn pfx4(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }

    const TEXT: &str = "\
# a small table
10.0.0.0/8 1

192.168.0.0/16\t2   # trailing comment
2001:db8::/32 3
garbage here too
10.0.0.1/8 4
172.16.0.0/12 5
10.0.0.0/8 6
1.2.3.0/33 7
";

    #[test]
    fn text_table_file_scheme() {
        let t = read_table_from::<u32>(TEXT.as_bytes(), "t.txt", &NextHopScheme::File).unwrap();
        let r = &t.report;
        assert_eq!(r.format, "text");
        assert_eq!(r.lines_or_records, 10);
        assert_eq!(r.other_family, 1);
        assert_eq!(r.skipped, 3);
        assert_eq!(r.duplicates, 1);
        assert_eq!(r.first_errors.len(), 3);
        assert_eq!(r.first_errors[0], "t.txt:6: unexpected extra field \"too\"");
        assert_eq!(
            r.first_errors[1],
            "t.txt:7: host bits set in prefix \"10.0.0.1/8\" (not canonical)"
        );
        assert!(r.first_errors[2].starts_with("t.txt:10: prefix length 33"));
        // Last duplicate wins, position of first appearance kept.
        let got: Vec<(String, u32)> = t
            .routes
            .iter()
            .map(|r| (r.prefix.to_string(), r.nexthop.get()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("10.0.0.0/8".to_string(), 6),
                ("192.168.0.0/16".to_string(), 2),
                ("172.16.0.0/12".to_string(), 5),
            ]
        );
        assert_eq!(t.distinct_nexthops(), 3);
        let s = r.summary().unwrap();
        assert!(
            s.starts_with("t.txt: skipped 3 unparsable lines (first: t.txt:6:"),
            "{s}"
        );
        assert!(s.contains("1 duplicate prefixes (last wins)"), "{s}");
        assert!(!s.contains('\n'));

        // The same input read as IPv6 yields the one v6 route; v4 lines count as other family.
        let t6 = read_table_from::<u128>(TEXT.as_bytes(), "t.txt", &NextHopScheme::File).unwrap();
        assert_eq!(t6.routes.len(), 1);
        assert_eq!(t6.routes[0].prefix.to_string(), "2001:db8::/32");
        assert_eq!(t6.routes[0].nexthop.get(), 3);
        assert_eq!(t6.report.other_family, 6);
    }

    #[test]
    fn hash_scheme_and_missing_column() {
        let text = "# hdr\n10.0.0.0/8\n192.168.1.0/24\n\n0.0.0.0/0\n";
        let t = read_table_from::<u32>(text.as_bytes(), "h", &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(t.routes.len(), 3);
        assert_eq!(t.routes[0].nexthop.get(), 9);
        assert_eq!(
            t.routes[1].nexthop,
            hash_nexthop(&pfx4("192.168.1.0/24"), 16)
        );
        assert_eq!(t.routes[2].nexthop.get(), 16);
        assert_eq!(t.report.summary(), None);
        // File scheme without a next-hop column: every line fails -> error naming line 2.
        let e = read_table_from::<u32>(text.as_bytes(), "h", &NextHopScheme::File).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("h:2: missing next hop"), "{msg}");
        assert!(!msg.contains('\n'));
        // asn:N on a text table is refused.
        let e = read_table_from::<u32>(text.as_bytes(), "h", &NextHopScheme::Asn(4)).unwrap_err();
        assert!(e.to_string().contains("needs an ASN column"), "{e}");
    }

    #[test]
    fn all_garbage_is_an_error_and_empty_is_ok() {
        let e = read_table_from::<u32>(&b"# c\nhello\nworld\n"[..], "g", &NextHopScheme::Hash(4))
            .unwrap_err();
        assert!(e.to_string().starts_with("g:2: missing '/len'"), "{e}");
        let t =
            read_table_from::<u32>(&b"# nothing\n\n"[..], "e", &NextHopScheme::Hash(4)).unwrap();
        assert!(t.routes.is_empty());
        assert_eq!(t.report.summary(), None);
        let t = read_table_from::<u32>(&b""[..], "e", &NextHopScheme::Hash(4)).unwrap();
        assert!(t.routes.is_empty());
    }

    #[test]
    fn bad_utf8_and_bad_nexthop_are_skipped() {
        let bytes = b"10.0.0.0/8 1\n\xff\xfe/8 2\n11.0.0.0/8 0\n12.0.0.0/8 2147483648\n";
        let t = read_table_from::<u32>(&bytes[..], "u", &NextHopScheme::File).unwrap();
        assert_eq!(
            t.routes,
            vec![Route {
                prefix: pfx4("10.0.0.0/8"),
                nexthop: crate::net::NextHop::new(1).unwrap()
            }]
        );
        assert_eq!(t.report.skipped, 3);
        assert_eq!(t.report.first_errors[0], "u:2: line is not valid UTF-8");
        assert!(t.report.first_errors[1].starts_with("u:3: next hop \"0\""));
        assert!(t.report.first_errors[2].starts_with("u:4: next hop \"2147483648\""));
    }
}
