//! Reading routing tables and update streams into [`Route`]s and [`Update`]s, one file per
//! input format:
//!
//! * [`mrt`] — **MRT** (RFC 6396), chosen if the stream starts with a plausible MRT common
//!   header (TABLE_DUMP, TABLE_DUMP_V2, BGP4MP); only TABLE_DUMP / TABLE_DUMP_V2 unicast RIB
//!   records yield routes;
//! * [`pyasn`] — **pyasn** (`prefix<TAB>asn`, `;` comment lines), chosen if the first
//!   non-comment line starts with `;` or is exactly `prefix<TAB>digits`;
//! * [`text`] — **text** otherwise: `prefix/len [nexthop]` per line, whitespace separated;
//! * [`updates`] — update streams, `A prefix/len [nexthop]` / `W prefix/len` per line.
//!
//! [`read_table`] detects the table format from the (decompressed) content; [`read_table_from`]
//! and [`read_updates_from`] read any [`Read`] (a byte slice, stdin), the path functions are
//! thin wrappers that open the file and name it in messages.
//!
//! In the line formats `#` starts a comment (to end of line) and blank lines are ignored.
//! Lines of the other address family are skipped silently but counted
//! ([`ReadReport::other_family`]), so one mixed file can be read once per family. Garbage
//! lines are skipped and counted, keeping the first few messages with their `name:line:`
//! position; if nothing at all is usable, the first failure becomes the error. Reading
//! never panics on bad input.

mod lines;
pub mod mrt;
pub mod pyasn;
pub mod text;
pub mod updates;

pub use updates::{read_updates, read_updates_from, read_updates_mixed, MixedUpdates};

crate::util::message_error!(
    /// The error type of one route line's fields (a next hop or ASN that does not parse);
    /// the readers add the file and line.
    FieldError
);

use super::nexthop::NextHopScheme;
use super::{decompress, open_maybe_compressed, peek_stream, IoError};
use crate::net::{Address, NextHop, Prefix};
use crate::util::FastMap;
use std::collections::HashSet;
use std::io::{BufRead, Read};
use std::path::Path;

/// How many error messages a [`ReadReport`] keeps.
const MAX_ERRORS: usize = 5;

/// One route: a prefix and its next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Route<A: Address> {
    /// The destination prefix.
    pub prefix: Prefix<A>,
    /// Where matching packets go.
    pub nexthop: NextHop,
}

/// One event of an update stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Update<A: Address> {
    /// Insert the prefix, or replace its next hop.
    Announce(Prefix<A>, NextHop),
    /// Remove the prefix.
    Withdraw(Prefix<A>),
}

/// What happened while reading one input: counts of records, skips and duplicates, and the
/// first few problems, each a one-line message with its position.
///
/// This is the one way every command reports what a reader skipped: [`ReadReport::summary`]
/// is its human line (count and first position), and the report itself is what JSON results
/// carry (it serializes with these field names).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadReport {
    /// The input's name: the path as given, or the name passed to a `…_from` reader.
    pub path: String,
    /// The detected format: `"text"`, `"pyasn"`, `"mrt"` or `"updates"`.
    pub format: &'static str,
    /// Lines read (text formats, comments and blank lines included) or complete MRT records.
    pub lines_or_records: u64,
    /// Lines, records or RIB prefixes that were skipped because they could not be used.
    pub skipped: u64,
    /// The first (at most five) skip reasons, e.g. `rib.txt:17: bad address in prefix "x/8"`.
    pub first_errors: Vec<String>,
    /// Set if the input ended mid-record (or became unreadable); reading stopped there and
    /// everything before it was kept.
    pub truncated: Option<String>,
    /// Prefixes seen more than once (text/pyasn: the last one wins; MRT: the first one).
    pub duplicates: u64,
    /// Prefixes of the other address family, skipped silently.
    pub other_family: u64,
}

impl ReadReport {
    pub(super) fn new(path: &str, format: &'static str) -> Self {
        ReadReport {
            path: path.to_string(),
            format,
            ..ReadReport::default()
        }
    }

    /// Counts a skipped item; builds its message only if it is among the first few.
    pub(super) fn skip(&mut self, msg: impl FnOnce() -> String) {
        self.skipped += 1;
        if self.first_errors.len() < MAX_ERRORS {
            self.first_errors.push(msg());
        }
    }

    /// Counts a skipped text line, keeping its `file:line: message` among the first errors.
    pub(super) fn skip_line(&mut self, lineno: u64, msg: &str) {
        let path = &self.path;
        let full = format!("{path}:{lineno}: {msg}");
        self.skip(|| full);
    }

    /// A one-line account of the problems (skips, duplicates, truncation), or `None` if the
    /// input was clean. Lines of the other family are not a problem and are not mentioned.
    pub fn summary(&self) -> Option<String> {
        let unit = if self.format == "mrt" {
            "entries"
        } else {
            "lines"
        };
        let mut parts = Vec::new();
        if self.skipped > 0 {
            let first = self
                .first_errors
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default();
            parts.push(format!("skipped {} unparsable {unit}{first}", self.skipped));
        }
        if self.duplicates > 0 {
            let rule = if self.format == "mrt" {
                "first kept"
            } else {
                "last wins"
            };
            parts.push(format!("{} duplicate prefixes ({rule})", self.duplicates));
        }
        if let Some(t) = &self.truncated {
            let t = t
                .strip_prefix(self.path.as_str())
                .and_then(|t| t.strip_prefix(": ").or_else(|| t.strip_prefix(':')))
                .unwrap_or(t);
            parts.push(format!("input truncated at {t}"));
        }
        if parts.is_empty() {
            None
        } else {
            Some(format!("{}: {}", self.path, parts.join("; ")))
        }
    }

    /// The error to return when nothing usable was read: only if something failed and no
    /// item was merely of the other family (an empty result for one family of a mixed or
    /// other-family input is not an error).
    pub(super) fn nothing_usable(&self, what: &'static str) -> Option<IoError> {
        if self.other_family > 0 {
            return None;
        }
        let first = self
            .first_errors
            .first()
            .or(self.truncated.as_ref())?
            .clone();
        Some(IoError::NothingUsable {
            path: self.path.clone(),
            what,
            first,
        })
    }
}

/// A routing table read from a file or stream, with its read report.
#[derive(Clone, Debug)]
pub struct Table<A: Address> {
    /// The routes, one per prefix, in order of first appearance.
    pub routes: Vec<Route<A>>,
    /// What happened while reading.
    pub report: ReadReport,
}

impl<A: Address> Table<A> {
    /// The number of distinct next-hop ids among the routes.
    pub fn distinct_nexthops(&self) -> usize {
        self.routes
            .iter()
            .map(|r| r.nexthop)
            .collect::<HashSet<_>>()
            .len()
    }
}

/// Reads a routing table from the file `path` (see [`read_table_from`]); messages name the
/// file.
pub fn read_table<A: Address>(path: &Path, scheme: &NextHopScheme) -> Result<Table<A>, IoError> {
    let reader = open_maybe_compressed(path)?;
    read_decompressed(reader, &path.display().to_string(), scheme)
}

/// Reads a routing table from any reader (a file, a byte slice, stdin), detecting MRT, pyasn
/// or text format from the content (gzip and bzip2 compression are transparent), and assigns
/// next hops by `scheme`. `name` names the input in messages (`name:line: …`,
/// `name: byte N: …`).
///
/// Unusable lines or entries are skipped and counted in the report; duplicate prefixes keep
/// the last line (text, pyasn) or the first RIB record (MRT). A truncated MRT input keeps
/// the routes read so far and sets [`ReadReport::truncated`]. Errors: the input cannot be
/// read; nothing at all is usable (the error names the first failure); or `asn:N` is used on
/// a text table, which has no ASN column.
pub fn read_table_from<A: Address>(
    r: impl Read + Send,
    name: &str,
    scheme: &NextHopScheme,
) -> Result<Table<A>, IoError> {
    let reader = decompress(r).map_err(|error| IoError::Read {
        path: name.to_string(),
        pos: "byte 0".to_string(),
        error,
    })?;
    read_decompressed(reader, name, scheme)
}

/// The line formats of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineFormat {
    /// [`text`]: `prefix [nexthop]`.
    Text,
    /// [`pyasn`]: `prefix<TAB>asn`.
    Pyasn,
}

/// Format detection and the table reader proper, on decompressed input.
fn read_decompressed<A: Address>(
    reader: Box<dyn BufRead + Send + '_>,
    name: &str,
    scheme: &NextHopScheme,
) -> Result<Table<A>, IoError> {
    let (head, mut reader) = peek_stream(reader, 12).map_err(|error| IoError::Read {
        path: name.to_string(),
        pos: "byte 0".to_string(),
        error,
    })?;
    if mrt::looks_like_mrt(&head) {
        return mrt::read_mrt(reader, name.to_string(), *scheme);
    }

    // Text or pyasn: one loop, the line parser chosen by the first data line. Duplicates:
    // the last line wins, at the position of the first.
    let scheme = *scheme;
    let mut report = ReadReport::new(name, "text");
    let mut format: Option<LineFormat> = None;
    let mut routes: Vec<Route<A>> = Vec::new();
    let mut index: FastMap<Prefix<A>, usize> = FastMap::default();
    lines::for_each_line(&mut reader, &mut report, |lineno, line, report| {
        let fmt = match format {
            Some(f) => f,
            None => {
                let f = if pyasn::looks_like_pyasn(line) {
                    LineFormat::Pyasn
                } else {
                    LineFormat::Text
                };
                report.format = match f {
                    LineFormat::Text => "text",
                    LineFormat::Pyasn => "pyasn",
                };
                if f == LineFormat::Text && matches!(scheme, NextHopScheme::Asn(_)) {
                    return Err(IoError::Unsupported {
                        path: report.path.clone(),
                        msg: format!(
                            "next-hop scheme {scheme} needs an ASN column, which a text table \
                             does not have (use file or hash:N, or a pyasn/MRT table)"
                        ),
                    });
                }
                format = Some(f);
                f
            }
        };
        if fmt == LineFormat::Pyasn && line.starts_with(';') {
            return Ok(());
        }
        let parsed = lines::prefix_and_column::<A>(line).and_then(|pc| {
            pc.map(|(p, col2)| {
                let nh = match fmt {
                    LineFormat::Pyasn => pyasn::nexthop(&p, col2, scheme),
                    LineFormat::Text => text::nexthop(&p, col2, scheme),
                };
                nh.map(|nh| (p, nh))
            })
            .transpose()
        });
        match parsed {
            Ok(Some((prefix, nexthop))) => {
                let route = Route { prefix, nexthop };
                match index.entry(prefix) {
                    std::collections::hash_map::Entry::Occupied(e) => {
                        report.duplicates += 1;
                        if let Some(slot) = routes.get_mut(*e.get()) {
                            *slot = route;
                        }
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(routes.len());
                        routes.push(route);
                    }
                }
            }
            Ok(None) => report.other_family += 1,
            Err(msg) => report.skip_line(lineno, &msg.to_string()),
        }
        Ok(())
    })?;
    if routes.is_empty() {
        if let Some(e) = report.nothing_usable("lines") {
            return Err(e);
        }
    }
    Ok(Table { routes, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::tests::temp_path;
    use std::io::Write;
    use std::path::PathBuf;

    fn shared_data() -> Option<PathBuf> {
        let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
        if p.exists() {
            Some(p)
        } else {
            println!("skipped: no shared data at {}", p.display());
            None
        }
    }

    /// A reader that hands out one byte per `read` call, to check that nothing relies on a
    /// read filling the buffer.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.is_empty()) {
                (Some((b, rest)), false) => {
                    buf[0] = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn path_wrappers_name_the_file_and_match_the_byte_readers() {
        let text = "# hdr\n10.0.0.0/8\n192.168.1.0/24\n\n0.0.0.0/0\n";
        let p = temp_path("t.gz");
        std::fs::write(&p, gz(text.as_bytes())).unwrap();
        let path = p.display().to_string();
        let t = read_table::<u32>(&p, &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(t.routes.len(), 3);
        assert_eq!(t.report.path, path);
        // The same bytes, compressed or not, whole or dribbled, read the same.
        for bytes in [text.as_bytes().to_vec(), gz(text.as_bytes())] {
            let b = read_table_from::<u32>(&bytes[..], &path, &NextHopScheme::Hash(16)).unwrap();
            assert_eq!(b.routes, t.routes);
            assert_eq!(b.report, t.report);
            let d = read_table_from::<u32>(OneByte(&bytes), "x", &NextHopScheme::Hash(16)).unwrap();
            assert_eq!(d.routes, t.routes);
        }
        // Errors name the file and the line.
        let msg = read_table::<u32>(&p, &NextHopScheme::File)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with(&format!("{path}:2: missing next hop")),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
        let missing = temp_path("does-not-exist");
        let e = read_table::<u32>(&missing, &NextHopScheme::Hash(4)).unwrap_err();
        assert!(e
            .to_string()
            .starts_with(&format!("{}: cannot open", missing.display())));
        let e = read_updates::<u32>(&missing, &NextHopScheme::Hash(4)).unwrap_err();
        assert!(e
            .to_string()
            .starts_with(&format!("{}: cannot open", missing.display())));
        // Update streams through the path wrapper.
        std::fs::write(&p, gz(b"A 10.0.0.0/8 5\nW 10.0.0.0/8\nbad\n")).unwrap();
        let (u, r) = read_updates::<u32>(&p, &NextHopScheme::File).unwrap();
        assert_eq!(u.len(), 2);
        assert_eq!(
            r.first_errors,
            vec![format!("{path}:3: expected 'A' or 'W', found \"bad\"")]
        );
        let _ = std::fs::remove_file(p);
        if let Some(data) = shared_data() {
            let mrt = data.join("routes/mrt-samples/rib.20140523.0600_firstMB.bz2");
            let e = read_updates::<u32>(&mrt, &NextHopScheme::Hash(8)).unwrap_err();
            assert!(e.to_string().contains("MRT input is not supported"), "{e}");
        }
    }

    #[test]
    fn truncated_gzip_text_keeps_prefix_of_input() {
        let mut text = String::new();
        for i in 0..20000u32 {
            text.push_str(&format!(
                "{}.{}.{}.0/24 {}\n",
                1 + i / 65536,
                (i / 256) % 256,
                i % 256,
                1 + i % 7
            ));
        }
        let bytes = gz(text.as_bytes());
        let cut = &bytes[..bytes.len() / 2];
        let t = read_table_from::<u32>(cut, "trunc.gz", &NextHopScheme::File).unwrap();
        assert!(!t.routes.is_empty() && t.routes.len() < 20000);
        let tr = t.report.truncated.clone().unwrap();
        assert!(tr.starts_with("trunc.gz:"), "{tr}");
        assert!(tr.contains("input ends early"), "{tr}");
        let s = t.report.summary().unwrap();
        assert!(s.contains("input truncated at"), "{s}");
    }

    #[test]
    fn mrt_real_samples() {
        let Some(data) = shared_data() else { return };
        let dir = data.join("routes/mrt-samples");
        let v4 = dir.join("rib.20140523.0600_firstMB.bz2");
        let t = read_table::<u32>(&v4, &NextHopScheme::File).unwrap();
        println!(
            "v4 file: {} routes, {} nexthops, {:?}",
            t.routes.len(),
            t.distinct_nexthops(),
            t.report
        );
        assert_eq!(t.report.format, "mrt");
        assert_eq!(t.routes[0].prefix.to_string(), "0.0.0.0/0");
        assert_eq!(t.routes[1].prefix.to_string(), "1.0.0.0/24");
        assert_eq!(t.routes[0].nexthop.get(), 1); // first next-hop address seen
        assert!(t.routes.len() > 1000);
        assert!(t
            .report
            .truncated
            .as_deref()
            .unwrap_or("")
            .contains("truncated"));
        assert!(t.routes.iter().all(|r| r.prefix.len() <= 32));
        let ta = read_table::<u32>(&v4, &NextHopScheme::Asn(16)).unwrap();
        println!(
            "v4 asn:16: {} routes, summary {:?}",
            ta.routes.len(),
            ta.report.summary()
        );
        assert!(ta.routes.len() + ta.report.skipped as usize >= t.routes.len());
        let t6v4 = read_table::<u128>(&v4, &NextHopScheme::Hash(16));
        println!(
            "v4 file read as v6: {:?}",
            t6v4.as_ref()
                .map(|t| (t.routes.len(), t.report.other_family))
        );

        let v6 = dir.join("rib6.20151101.0600_firstMB.bz2");
        let t = read_table::<u128>(&v6, &NextHopScheme::File).unwrap();
        println!(
            "v6 file: {} routes, {} nexthops, {:?}",
            t.routes.len(),
            t.distinct_nexthops(),
            t.report
        );
        assert_eq!(t.routes[0].prefix.to_string(), "2001::/32");
        assert_eq!(t.routes[1].prefix.to_string(), "2001:4:112::/48");
        assert!(t.routes.len() > 1000);
        assert!(t.report.truncated.is_some());
        let th = read_table::<u128>(&v6, &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(th.routes.len(), t.routes.len());
    }

    #[test]
    fn ris_tables_and_updates() {
        let Some(data) = shared_data() else { return };
        let dir = data.join("routes/ris-rrc00-as3333-2026-05-11");
        let t = read_table::<u32>(&dir.join("rib-v4.txt.gz"), &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(t.routes.len(), 1_042_325);
        assert_eq!(t.report.summary(), None);
        assert_eq!(t.distinct_nexthops(), 16);
        let t6 = read_table::<u128>(&dir.join("rib-v6.txt.gz"), &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(t6.routes.len(), 246_175);
        let (u, r) =
            read_updates::<u32>(&dir.join("updates-v4.txt.gz"), &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(u.len(), 1_393_421);
        assert_eq!(r.summary(), None);
        let (u6, _) =
            read_updates::<u128>(&dir.join("updates-v6.txt.gz"), &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(u6.len(), 1_238_235);
    }

    #[test]
    fn routeviews_pyasn() {
        let Some(data) = shared_data() else { return };
        let p = data.join("routes/routeviews-2014-05-13/ipasn_20140513.dat.gz");
        let t = read_table::<u32>(&p, &NextHopScheme::Asn(64)).unwrap();
        println!("pyasn: {} routes, {:?}", t.routes.len(), t.report.summary());
        assert_eq!(t.report.format, "pyasn");
        assert!(t.routes.len() > 500_000);
    }

    /// Timing of the full RIS IPv4 table; run with
    /// `cargo test --release -- --ignored --nocapture time_read_rib_v4`.
    #[test]
    #[ignore]
    fn time_read_rib_v4() {
        let Some(data) = shared_data() else { return };
        let p = data.join("routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz");
        for _ in 0..3 {
            let t0 = std::time::Instant::now();
            let t = read_table::<u32>(&p, &NextHopScheme::Hash(16)).unwrap();
            println!("read {} routes in {:?}", t.routes.len(), t0.elapsed());
        }
    }
}
