//! MRT routing table dumps (RFC 6396), parsed with bgpkit-parser: TABLE_DUMP and
//! TABLE_DUMP_V2 unicast RIB records yield routes (the first RIB record of a prefix wins);
//! other records are counted and passed over. Positions in messages are byte offsets of the
//! record in the decompressed stream. A record cut short ends the input with
//! [`ReadReport::truncated`] set and everything before it kept.

use super::{ReadReport, Route, Table};
use crate::io::nexthop::{asn_nexthop, hash_nexthop, NextHopScheme};
use crate::io::IoError;
use crate::net::{Address, NextHop, Prefix};
use crate::util::{FastMap, FastSet};
use bgpkit_parser::models::{
    Attributes, MrtMessage, Safi, TableDumpMessage, TableDumpV2Message, TableDumpV2Type,
};
use bgpkit_parser::ParserError;
use std::io::{BufRead, Read};
use std::net::IpAddr;

/// True if `h` (the first 12 bytes) is a plausible MRT common header: type TABLE_DUMP (12),
/// TABLE_DUMP_V2 (13) or BGP4MP / BGP4MP_ET (16, 17), a known subtype and a sane length.
pub(super) fn looks_like_mrt(h: &[u8]) -> bool {
    let [_, _, _, _, t0, t1, s0, s1, l0, l1, l2, l3] = match <[u8; 12]>::try_from(h) {
        Ok(a) => a,
        Err(_) => return false,
    };
    let ty = u16::from_be_bytes([t0, t1]);
    let sub = u16::from_be_bytes([s0, s1]);
    let len = u32::from_be_bytes([l0, l1, l2, l3]);
    let sub_ok = match ty {
        12 => (1..=2).contains(&sub),
        13 => (1..=12).contains(&sub),
        16 | 17 => sub <= 11,
        _ => false,
    };
    sub_ok && len <= 16 << 20
}

/// Counts the bytes read through it, for byte positions in MRT messages.
struct CountingReader<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// The origin AS of a path: the last ASN of a trailing AS_SEQUENCE, or the smallest ASN of
/// a trailing AS_SET. AS4_PATH is merged in (RFC 6793) when present.
fn origin_asn(a: &Attributes) -> Option<u32> {
    if a.as4_path().is_some() {
        let p = a.effective_as_path()?;
        return p.iter_origins().map(u32::from).min();
    }
    a.as_path()?.iter_origins().map(u32::from).min()
}

/// The next-hop address of a RIB entry: NEXT_HOP, else the MP_REACH_NLRI next hop.
fn nexthop_ip(a: &Attributes) -> Option<IpAddr> {
    a.next_hop().or_else(|| {
        a.get_reachable_nlri()
            .and_then(|n| n.next_hop.as_ref())
            .map(|h| h.addr())
    })
}

/// State of an MRT table read.
struct MrtState<A: Address> {
    scheme: NextHopScheme,
    routes: Vec<Route<A>>,
    seen: FastSet<Prefix<A>>,
    nh_ids: FastMap<IpAddr, u32>,
    report: ReadReport,
}

impl<A: Address> MrtState<A> {
    /// Adds the route for one RIB prefix given its entries' attributes.
    fn add<'a>(
        &mut self,
        pos: u64,
        addr: IpAddr,
        len: u8,
        attrs: impl Iterator<Item = &'a Attributes>,
    ) {
        let Some(a) = A::from_ip(addr) else {
            self.report.other_family += 1;
            return;
        };
        let path = &self.report.path;
        let p = match Prefix::new(a, len) {
            Ok(p) => p,
            Err(e) => {
                let msg = format!("{path}: byte {pos}: {e}");
                self.report.skip(|| msg);
                return;
            }
        };
        if self.seen.contains(&p) {
            self.report.duplicates += 1;
            return;
        }
        let nh = match self.scheme {
            NextHopScheme::Hash(n) => Ok(hash_nexthop(&p, n)),
            NextHopScheme::Asn(n) => attrs
                .filter_map(origin_asn)
                .next()
                .map(|asn| asn_nexthop(asn, n))
                .ok_or("no origin AS (empty or confederation-only AS path)"),
            NextHopScheme::File => match attrs.filter_map(nexthop_ip).next() {
                None => Err("no next-hop address"),
                Some(ip) => {
                    let next = self.nh_ids.len() as u32 + 1;
                    let id = *self.nh_ids.entry(ip).or_insert(next);
                    NextHop::new(id).ok_or("too many distinct next-hop addresses")
                }
            },
        };
        match nh {
            Ok(nexthop) => {
                self.seen.insert(p);
                self.routes.push(Route { prefix: p, nexthop });
            }
            Err(why) => {
                let msg = format!("{path}: byte {pos}: {p}: {why}");
                self.report.skip(|| msg);
            }
        }
    }
}

impl<A: Address> MrtState<A> {
    /// Adds the route of one (legacy) TABLE_DUMP entry.
    fn add_v1(&mut self, pos: u64, m: &TableDumpMessage) {
        let net = m.prefix.prefix;
        self.add(
            pos,
            net.addr(),
            net.prefix_len(),
            std::iter::once(&m.attributes),
        );
    }
}

/// Strips bgpkit's `"Error: "` prefix from an error message.
fn parser_msg(e: &ParserError) -> String {
    let s = e.to_string();
    s.strip_prefix("Error: ").map(str::to_string).unwrap_or(s)
}

/// Reads MRT RIB records until a clean end of input, or until a record cannot be framed
/// (truncation), in which case the routes so far are kept and `report.truncated` is set.
pub(super) fn read_mrt<A: Address>(
    reader: Box<dyn BufRead + Send + '_>,
    path: String,
    scheme: NextHopScheme,
) -> Result<Table<A>, IoError> {
    let mut st = MrtState::<A> {
        scheme,
        routes: Vec::new(),
        seen: FastSet::default(),
        nh_ids: FastMap::default(),
        report: ReadReport::new(&path, "mrt"),
    };
    let mut r = CountingReader {
        inner: reader,
        count: 0,
    };
    let mut records = 0u64;
    let mut rib_records = 0u64;
    loop {
        let start = r.count;
        let raw = match bgpkit_parser::chunk_mrt_record(&mut r) {
            Ok(raw) => raw,
            Err(e) => {
                let what = match e.error {
                    ParserError::EofExpected => break,
                    ParserError::IoError(_) | ParserError::EofError(_) => "MRT record truncated",
                    _ => "unreadable MRT record",
                };
                st.report.truncated = Some(format!(
                    "{path}: byte {start}: {what} after {records} records ({})",
                    parser_msg(&e.error)
                ));
                break;
            }
        };
        records += 1;
        st.report.lines_or_records = records;
        let rec = match raw.parse() {
            Ok(rec) => rec,
            Err(e) => {
                let msg = format!(
                    "{path}: byte {start}: unparsable MRT record: {}",
                    parser_msg(&e)
                );
                st.report.skip(|| msg);
                continue;
            }
        };
        match rec.message {
            MrtMessage::TableDumpV2Message(TableDumpV2Message::RibAfi(e)) => {
                rib_records += 1;
                let unicast = matches!(
                    e.rib_type,
                    TableDumpV2Type::RibIpv4Unicast
                        | TableDumpV2Type::RibIpv6Unicast
                        | TableDumpV2Type::RibIpv4UnicastAddPath
                        | TableDumpV2Type::RibIpv6UnicastAddPath
                );
                if unicast {
                    let net = e.prefix.prefix;
                    let attrs = e.rib_entries.iter().map(|x| &x.attributes);
                    st.add(start, net.addr(), net.prefix_len(), attrs);
                }
            }
            MrtMessage::TableDumpV2Message(TableDumpV2Message::RibGeneric(g)) => {
                rib_records += 1;
                if g.safi == Safi::Unicast {
                    let net = g.nlri.prefix;
                    let attrs = g.rib_entries.iter().map(|x| &x.attributes);
                    st.add(start, net.addr(), net.prefix_len(), attrs);
                }
            }
            MrtMessage::TableDumpMessage(m) => {
                rib_records += 1;
                st.add_v1(start, &m);
            }
            MrtMessage::TableDumpMessageBatch(ms) => {
                rib_records += 1;
                for m in &ms {
                    st.add_v1(start, m);
                }
            }
            _ => {}
        }
    }
    let report = st.report;
    if st.routes.is_empty() {
        if let Some(e) = report.nothing_usable("records") {
            return Err(e);
        }
        if records > 0 && rib_records == 0 {
            return Err(IoError::Unsupported {
                path,
                msg: format!("MRT input has {records} records but no RIB records (TABLE_DUMP/TABLE_DUMP_V2); is it an update dump?"),
            });
        }
    }
    Ok(Table {
        routes: st.routes,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::super::read_table_from;
    use super::*;

    #[test]
    fn mrt_header_detection() {
        let mut h = [0u8; 12];
        h[5] = 13;
        h[7] = 2;
        h[11] = 100;
        assert!(looks_like_mrt(&h));
        h[5] = 99;
        assert!(!looks_like_mrt(&h));
        assert!(!looks_like_mrt(b"1.0.0.0/24\n1"));
        assert!(!looks_like_mrt(b"; IP-ASN32-D"));
        assert!(!looks_like_mrt(b"short"));
    }

    #[test]
    fn mrt_garbage_never_panics() {
        // A valid-looking header followed by junk bodies and a truncated tail.
        let mut bytes = Vec::new();
        for (ty, sub, body) in [
            (13u16, 2u16, vec![0xffu8; 40]),
            (13, 1, vec![1, 2, 3]),
            (13, 4, vec![0; 5]),
        ] {
            bytes.extend(0u32.to_be_bytes());
            bytes.extend(ty.to_be_bytes());
            bytes.extend(sub.to_be_bytes());
            bytes.extend((body.len() as u32).to_be_bytes());
            bytes.extend(&body);
        }
        bytes.extend([0, 0, 0, 0, 0, 13, 0, 2, 0, 0, 1, 0, 1, 2]);
        match read_table_from::<u32>(&bytes[..], "junk.mrt", &NextHopScheme::Hash(4)) {
            Ok(t) => assert!(t.report.truncated.is_some() || t.report.skipped > 0),
            Err(e) => {
                let e = e.to_string();
                assert!(e.starts_with("junk.mrt"), "{e}");
                assert!(!e.contains('\n'));
            }
        }
    }
}
