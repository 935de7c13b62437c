//! Reading routing tables and update streams into [`Route`]s and [`Update`]s.
//!
//! [`read_table`] detects the format from the (decompressed) content:
//!
//! * **MRT** (RFC 6396) if the stream starts with a plausible MRT common header (TABLE_DUMP,
//!   TABLE_DUMP_V2, BGP4MP); only TABLE_DUMP / TABLE_DUMP_V2 unicast RIB records yield routes;
//! * **pyasn** (`prefix<TAB>asn`, `;` comment lines) if the first non-comment line starts
//!   with `;` or is exactly `prefix<TAB>digits`;
//! * **text** otherwise: `prefix/len [nexthop]` per line, whitespace separated.
//!
//! In the text formats `#` starts a comment (to end of line) and blank lines are ignored.
//! Lines of the other address family are skipped silently but counted
//! ([`ReadReport::other_family`]), so one mixed file can be read once per family. Garbage
//! lines are skipped and counted, keeping the first few messages with their `file:line:`
//! position; if nothing at all is usable, the first failure becomes the error. Reading
//! never panics on bad input.

use super::nexthop::{asn_nexthop, hash_nexthop, NextHopScheme};
use super::{open_maybe_compressed, peek_stream, IoError};
use crate::net::{Address, Family, NextHop, Prefix};
use crate::util::splitmix64;
use bgpkit_parser::models::{Attributes, MrtMessage, Safi, TableDumpV2Message, TableDumpV2Type};
use bgpkit_parser::ParserError;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufRead, Read};
use std::net::IpAddr;
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadReport {
    /// The path as given.
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
    fn new(path: &str, format: &'static str) -> Self {
        ReadReport {
            path: path.to_string(),
            format,
            ..ReadReport::default()
        }
    }

    /// Counts a skipped item; builds its message only if it is among the first few.
    fn skip(&mut self, msg: impl FnOnce() -> String) {
        self.skipped += 1;
        if self.first_errors.len() < MAX_ERRORS {
            self.first_errors.push(msg());
        }
    }

    /// Counts a skipped text line, keeping its `file:line: message` among the first errors.
    fn skip_line(&mut self, lineno: u64, msg: &str) {
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
    fn nothing_usable(&self, what: &'static str) -> Option<IoError> {
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

/// A routing table read from a file, with its read report.
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

/// A fast hasher for prefix keys (splitmix64 finaliser over the written words). Inputs are
/// local files, so hash flooding is not a concern.
#[derive(Default)]
pub(crate) struct PrefixHasher(u64);

impl PrefixHasher {
    #[inline]
    fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Hasher for PrefixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        splitmix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.mix(v as u64);
    }
    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.mix(v as u64);
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.mix(v);
    }
    #[inline]
    fn write_u128(&mut self, v: u128) {
        self.mix((v >> 64) as u64);
        self.mix(v as u64);
    }
    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.mix(v as u64);
    }
}

/// A `HashMap` keyed by prefixes with [`PrefixHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<PrefixHasher>>;
/// A `HashSet` of prefixes with [`PrefixHasher`].
pub(crate) type FastSet<K> = HashSet<K, BuildHasherDefault<PrefixHasher>>;

/// The text table formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextFormat {
    /// `prefix [nexthop]`.
    Text,
    /// `prefix<TAB>asn`.
    Pyasn,
}

/// True if the prefix token is of the other family than `A` (so it is skipped silently).
#[inline]
fn is_other_family<A: Address>(tok: &str) -> bool {
    // Byte scans: `str::contains(char)` is much slower on a hot path of a million lines.
    let b = tok.as_bytes();
    let colon = b.contains(&b':');
    match A::FAMILY {
        Family::V4 => colon,
        Family::V6 => !colon && b.contains(&b'.'),
    }
}

/// Parses a positive next-hop id no larger than [`NextHop::MAX`].
fn parse_nexthop_id(tok: Option<&str>) -> Result<NextHop, String> {
    let tok =
        tok.ok_or_else(|| "missing next hop (scheme file needs a second column)".to_string())?;
    tok.parse::<u32>()
        .ok()
        .and_then(NextHop::new)
        .ok_or_else(|| format!("next hop {tok:?} is not an integer in 1..={}", NextHop::MAX))
}

/// Parses an AS number (`0..=u32::MAX`, an optional `AS` prefix is accepted).
fn parse_asn(tok: Option<&str>) -> Result<u32, String> {
    let tok = tok.ok_or_else(|| "missing ASN column".to_string())?;
    let digits = tok
        .strip_prefix("AS")
        .or_else(|| tok.strip_prefix("as"))
        .unwrap_or(tok);
    digits
        .parse::<u32>()
        .map_err(|_| format!("ASN {tok:?} is not an integer in 0..=4294967295"))
}

/// Parses one data line of a text or pyasn table (comment already stripped, not blank).
/// `Ok(None)` means the prefix is of the other family.
fn parse_table_line<A: Address>(
    line: &str,
    format: TextFormat,
    scheme: NextHopScheme,
) -> Result<Option<(Prefix<A>, NextHop)>, String> {
    let mut it = line.split_ascii_whitespace();
    let ptok = it.next().ok_or_else(|| "empty line".to_string())?;
    let col2 = it.next();
    if let Some(extra) = it.next() {
        return Err(format!("unexpected extra field {extra:?}"));
    }
    if is_other_family::<A>(ptok) {
        return Ok(None);
    }
    let p: Prefix<A> = ptok.parse().map_err(|e| format!("{e}"))?;
    let nh = match (scheme, format) {
        (NextHopScheme::Hash(n), _) => hash_nexthop(&p, n),
        (NextHopScheme::File, TextFormat::Text) => parse_nexthop_id(col2)?,
        (NextHopScheme::File, TextFormat::Pyasn) => {
            let asn = parse_asn(col2)?;
            NextHop::new(asn).ok_or_else(|| {
                format!(
                    "ASN {asn} cannot be used as a next-hop id (scheme file needs 1..={})",
                    NextHop::MAX
                )
            })?
        }
        (NextHopScheme::Asn(n), TextFormat::Pyasn) => asn_nexthop(parse_asn(col2)?, n),
        (NextHopScheme::Asn(_), TextFormat::Text) => {
            return Err("asn:N needs an ASN column".to_string())
        }
    };
    Ok(Some((p, nh)))
}

/// Decides between text and pyasn from the first non-blank, non-`#` line.
fn detect_text_format(line: &str) -> TextFormat {
    if line.starts_with(';') {
        return TextFormat::Pyasn;
    }
    match line.trim().split_once('\t') {
        Some((p, asn))
            if p.contains('/')
                && !p.contains(char::is_whitespace)
                && !asn.is_empty()
                && asn.bytes().all(|b| b.is_ascii_digit()) =>
        {
            TextFormat::Pyasn
        }
        _ => TextFormat::Text,
    }
}

/// Feeds every non-blank line of `r` (with any `#` comment removed and whitespace trimmed)
/// to `f` with its 1-based line number. Counts lines in `report`; invalid UTF-8 lines are
/// skipped and counted; a read error ends the input and sets `report.truncated`. An `Err`
/// from `f` aborts reading.
fn for_each_line(
    r: &mut dyn BufRead,
    report: &mut ReadReport,
    mut f: impl FnMut(u64, &str, &mut ReadReport) -> Result<(), IoError>,
) -> Result<(), IoError> {
    let mut buf = Vec::with_capacity(256);
    let mut lineno = 0u64;
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                report.truncated = Some(format!(
                    "{}:{}: input ends early after {lineno} complete lines: {e}",
                    report.path,
                    lineno + 1
                ));
                break;
            }
        }
        lineno += 1;
        report.lines_or_records = lineno;
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

/// Reads a routing table from `path`, detecting MRT, pyasn or text format from the content
/// (gzip and bzip2 compression are transparent), and assigns next hops by `scheme`.
///
/// Unusable lines or entries are skipped and counted in the report; duplicate prefixes keep
/// the last line (text, pyasn) or the first RIB record (MRT). A truncated MRT input keeps
/// the routes read so far and sets [`ReadReport::truncated`]. Errors: the file cannot be
/// opened or read; nothing at all is usable (the error names the first failure); or
/// `asn:N` is used on a text table, which has no ASN column.
pub fn read_table<A: Address>(path: &Path, scheme: &NextHopScheme) -> Result<Table<A>, IoError> {
    let path_str = path.display().to_string();
    let reader = open_maybe_compressed(path)?;
    let (head, mut reader) = peek_stream(reader, 12).map_err(|error| IoError::Read {
        path: path_str.clone(),
        pos: "byte 0".to_string(),
        error,
    })?;
    if looks_like_mrt(&head) {
        return read_mrt(reader, path_str, *scheme);
    }

    let scheme = *scheme;
    let mut report = ReadReport::new(&path_str, "text");
    let mut format: Option<TextFormat> = None;
    let mut routes: Vec<Route<A>> = Vec::new();
    let mut index: FastMap<Prefix<A>, usize> = FastMap::default();
    for_each_line(&mut reader, &mut report, |lineno, line, report| {
        let fmt = match format {
            Some(f) => f,
            None => {
                let f = detect_text_format(line);
                report.format = match f {
                    TextFormat::Text => "text",
                    TextFormat::Pyasn => "pyasn",
                };
                if f == TextFormat::Text && matches!(scheme, NextHopScheme::Asn(_)) {
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
        if fmt == TextFormat::Pyasn && line.starts_with(';') {
            return Ok(());
        }
        match parse_table_line::<A>(line, fmt, scheme) {
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
            Err(msg) => report.skip_line(lineno, &msg),
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

/// Reads an update stream: lines `A prefix/len [nexthop]` (announce) and `W prefix/len`
/// (withdraw), with `#` comments and blank lines ignored and gzip/bzip2 transparent.
///
/// Announcements get their next hop from the optional third column (`file`) or from
/// [`hash_nexthop`] (`hash:N`); `asn:N` is rejected because the stream has no ASN column.
/// Events of the other family are skipped silently and counted; bad lines are skipped and
/// counted. If no line is usable but some failed, the error names the first failure.
pub fn read_updates<A: Address>(
    path: &Path,
    scheme: &NextHopScheme,
) -> Result<(Vec<Update<A>>, ReadReport), IoError> {
    let path_str = path.display().to_string();
    if let NextHopScheme::Asn(_) = scheme {
        return Err(IoError::Unsupported {
            path: path_str,
            msg: format!("next-hop scheme {scheme}: asn:N needs an ASN column, which update streams do not have"),
        });
    }
    let scheme = *scheme;
    let reader = open_maybe_compressed(path)?;
    let (head, mut reader) = peek_stream(reader, 12).map_err(|error| IoError::Read {
        path: path_str.clone(),
        pos: "byte 0".to_string(),
        error,
    })?;
    if looks_like_mrt(&head) {
        return Err(IoError::Unsupported {
            path: path_str,
            msg: "MRT input is not supported as an update stream; expected text lines \
                  `A prefix/len [nexthop]` / `W prefix/len`"
                .to_string(),
        });
    }
    let mut report = ReadReport::new(&path_str, "updates");
    let mut updates = Vec::new();
    for_each_line(&mut reader, &mut report, |lineno, line, report| {
        match parse_update_line::<A>(line, scheme) {
            Ok(Some(u)) => updates.push(u),
            Ok(None) => report.other_family += 1,
            Err(msg) => report.skip_line(lineno, &msg),
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
fn parse_update_line<A: Address>(
    line: &str,
    scheme: NextHopScheme,
) -> Result<Option<Update<A>>, String> {
    let mut it = line.split_ascii_whitespace();
    let kind = it.next().ok_or_else(|| "empty line".to_string())?;
    let withdraw = match kind {
        "A" | "a" => false,
        "W" | "w" => true,
        _ => return Err(format!("expected 'A' or 'W', found {kind:?}")),
    };
    let ptok = it
        .next()
        .ok_or_else(|| format!("missing prefix after {kind:?}"))?;
    let col3 = it.next();
    if let Some(extra) = it.next() {
        return Err(format!("unexpected extra field {extra:?}"));
    }
    if withdraw {
        if let Some(extra) = col3 {
            return Err(format!("unexpected extra field {extra:?} after withdrawal"));
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
        NextHopScheme::File => {
            parse_nexthop_id(col3).map_err(|e| e.replace("second column", "third column"))?
        }
        NextHopScheme::Asn(_) => return Err("asn:N needs an ASN column".to_string()),
    };
    Ok(Some(Update::Announce(p, nh)))
}

// ---------------------------------------------------------------------------------------
// MRT
// ---------------------------------------------------------------------------------------

/// True if `h` (the first 12 bytes) is a plausible MRT common header: type TABLE_DUMP (12),
/// TABLE_DUMP_V2 (13) or BGP4MP / BGP4MP_ET (16, 17), a known subtype and a sane length.
fn looks_like_mrt(h: &[u8]) -> bool {
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

/// Converts a standard IP address to `A` if it is of `A`'s family.
fn ip_to_addr<A: Address>(ip: IpAddr) -> Option<A> {
    match (ip, A::FAMILY) {
        // `from_random` is specified bit-exactly: IPv4 takes the high 32 bits of `hi`,
        // IPv6 is `hi:lo`.
        (IpAddr::V4(a), Family::V4) => Some(A::from_random((u32::from(a) as u64) << 32, 0)),
        (IpAddr::V6(a), Family::V6) => {
            let v = u128::from(a);
            Some(A::from_random((v >> 64) as u64, v as u64))
        }
        _ => None,
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
    nh_ids: HashMap<IpAddr, u32>,
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
        let Some(a) = ip_to_addr::<A>(addr) else {
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

/// Strips bgpkit's `"Error: "` prefix from an error message.
fn parser_msg(e: &ParserError) -> String {
    let s = e.to_string();
    s.strip_prefix("Error: ").map(str::to_string).unwrap_or(s)
}

/// Reads MRT RIB records until a clean end of input, or until a record cannot be framed
/// (truncation), in which case the routes so far are kept and `report.truncated` is set.
fn read_mrt<A: Address>(
    reader: Box<dyn BufRead>,
    path: String,
    scheme: NextHopScheme,
) -> Result<Table<A>, IoError> {
    let mut st = MrtState::<A> {
        scheme,
        routes: Vec::new(),
        seen: FastSet::default(),
        nh_ids: HashMap::new(),
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
                let net = m.prefix.prefix;
                st.add(
                    start,
                    net.addr(),
                    net.prefix_len(),
                    std::iter::once(&m.attributes),
                );
            }
            MrtMessage::TableDumpMessageBatch(ms) => {
                rib_records += 1;
                for m in &ms {
                    let net = m.prefix.prefix;
                    st.add(
                        start,
                        net.addr(),
                        net.prefix_len(),
                        std::iter::once(&m.attributes),
                    );
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
    use super::*;
    use crate::io::tests::temp_path;
    use std::io::Write;
    use std::path::PathBuf;

    fn write(name: &str, text: &str) -> PathBuf {
        let p = temp_path(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn write_gz(name: &str, text: &str) -> PathBuf {
        let p = temp_path(name);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        std::fs::write(&p, e.finish().unwrap()).unwrap();
        p
    }

    fn pfx4(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }

    fn shared_data() -> Option<PathBuf> {
        let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
        if p.exists() {
            Some(p)
        } else {
            println!("skipped: no shared data at {}", p.display());
            None
        }
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
        let p = write("t.txt", TEXT);
        let t = read_table::<u32>(&p, &NextHopScheme::File).unwrap();
        let r = &t.report;
        assert_eq!(r.format, "text");
        assert_eq!(r.lines_or_records, 10);
        assert_eq!(r.other_family, 1);
        assert_eq!(r.skipped, 3);
        assert_eq!(r.duplicates, 1);
        let path = p.display().to_string();
        assert_eq!(r.first_errors.len(), 3);
        assert_eq!(
            r.first_errors[0],
            format!("{path}:6: unexpected extra field \"too\"")
        );
        assert_eq!(
            r.first_errors[1],
            format!("{path}:7: host bits set in prefix \"10.0.0.1/8\" (not canonical)")
        );
        assert!(r.first_errors[2].starts_with(&format!("{path}:10: prefix length 33")));
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
            s.starts_with(&format!(
                "{path}: skipped 3 unparsable lines (first: {path}:6:"
            )),
            "{s}"
        );
        assert!(s.contains("1 duplicate prefixes (last wins)"), "{s}");
        assert!(!s.contains('\n'));

        // The same file read as IPv6 yields the one v6 route; v4 lines count as other family.
        let t6 = read_table::<u128>(&p, &NextHopScheme::File).unwrap();
        assert_eq!(t6.routes.len(), 1);
        assert_eq!(t6.routes[0].prefix.to_string(), "2001:db8::/32");
        assert_eq!(t6.routes[0].nexthop.get(), 3);
        assert_eq!(t6.report.other_family, 6);
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn text_table_gz_hash_and_clean_summary() {
        let text = "# hdr\n10.0.0.0/8\n192.168.1.0/24\n\n0.0.0.0/0\n";
        let p = write_gz("t.gz", text);
        let t = read_table::<u32>(&p, &NextHopScheme::Hash(16)).unwrap();
        assert_eq!(t.routes.len(), 3);
        assert_eq!(t.routes[0].nexthop.get(), 9);
        assert_eq!(
            t.routes[1].nexthop,
            hash_nexthop(&pfx4("192.168.1.0/24"), 16)
        );
        assert_eq!(t.routes[2].nexthop.get(), 16);
        assert_eq!(t.report.summary(), None);
        // File scheme without a next-hop column: every line fails -> error naming line 2.
        let e = read_table::<u32>(&p, &NextHopScheme::File).unwrap_err();
        let path = p.display().to_string();
        let msg = e.to_string();
        assert!(
            msg.starts_with(&format!("{path}:2: missing next hop")),
            "{msg}"
        );
        assert!(!msg.contains('\n'));
        // asn:N on a text table is refused.
        let e = read_table::<u32>(&p, &NextHopScheme::Asn(4)).unwrap_err();
        assert!(e.to_string().contains("needs an ASN column"), "{e}");
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn all_garbage_is_an_error_and_empty_is_ok() {
        let p = write("g.txt", "# c\nhello\nworld\n");
        let e = read_table::<u32>(&p, &NextHopScheme::Hash(4)).unwrap_err();
        let path = p.display().to_string();
        assert!(
            e.to_string()
                .starts_with(&format!("{path}:2: missing '/len'")),
            "{e}"
        );
        let q = write("e.txt", "# nothing\n\n");
        let t = read_table::<u32>(&q, &NextHopScheme::Hash(4)).unwrap();
        assert!(t.routes.is_empty());
        assert_eq!(t.report.summary(), None);
        let missing = temp_path("does-not-exist");
        let e = read_table::<u32>(&missing, &NextHopScheme::Hash(4)).unwrap_err();
        assert!(e.to_string().contains(&missing.display().to_string()));
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_file(q);
    }

    #[test]
    fn bad_utf8_and_bad_nexthop_are_skipped() {
        let p = temp_path("u.txt");
        std::fs::write(
            &p,
            b"10.0.0.0/8 1\n\xff\xfe/8 2\n11.0.0.0/8 0\n12.0.0.0/8 2147483648\n",
        )
        .unwrap();
        let t = read_table::<u32>(&p, &NextHopScheme::File).unwrap();
        assert_eq!(t.routes.len(), 1);
        assert_eq!(t.report.skipped, 3);
        assert!(t.report.first_errors[0].ends_with(":2: line is not valid UTF-8"));
        assert!(t.report.first_errors[1].contains(":3: next hop \"0\""));
        assert!(t.report.first_errors[2].contains(":4: next hop \"2147483648\""));
        let _ = std::fs::remove_file(p);
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
        let p = write_gz("trunc.gz", &text);
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
        let t = read_table::<u32>(&p, &NextHopScheme::File).unwrap();
        assert!(!t.routes.is_empty() && t.routes.len() < 20000);
        let tr = t.report.truncated.clone().unwrap();
        assert!(tr.contains("input ends early"), "{tr}");
        let s = t.report.summary().unwrap();
        assert!(s.contains("input truncated at"), "{s}");
        let _ = std::fs::remove_file(p);
    }

    #[test]
    fn pyasn_sample() {
        let text = "; IP-ASN32-DAT file\n; Prefixes      : 4\n; \n\
                    1.0.0.0/24\t15169\n1.0.4.0/24\t56203\n2001:db8::/32\t3333\n\
                    1.0.5.0/24\t0\n1.0.6.0/24\tx\n";
        let p = write("p.dat", text);
        let t = read_table::<u32>(&p, &NextHopScheme::Asn(16)).unwrap();
        assert_eq!(t.report.format, "pyasn");
        assert_eq!(t.report.other_family, 1);
        assert_eq!(t.report.skipped, 1); // "x"
        assert_eq!(t.routes.len(), 3);
        assert_eq!(t.routes[0].nexthop.get(), 1 + 15169 % 16);
        assert_eq!(t.routes[2].nexthop.get(), 1); // AS0 -> 1 + 0 % 16
                                                  // File: the ASN is the id; AS0 is refused.
        let t = read_table::<u32>(&p, &NextHopScheme::File).unwrap();
        assert_eq!(t.routes.len(), 2);
        assert_eq!(t.routes[0].nexthop.get(), 15169);
        assert_eq!(t.report.skipped, 2);
        assert!(t.report.first_errors[0].contains(":7: ASN 0 cannot be used"));
        // Without ';' header, `prefix<TAB>digits` is still pyasn.
        let q = write("q.dat", "1.0.0.0/24\t15169\n");
        let t = read_table::<u32>(&q, &NextHopScheme::Asn(16)).unwrap();
        assert_eq!(t.report.format, "pyasn");
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_file(q);
    }

    #[test]
    fn updates_inline() {
        let text = "# updates\nA 10.0.0.0/8 5\nW 10.0.0.0/8\nA 2001:db8::/32 1\nX 1.0.0.0/8\n\
                    A 11.0.0.0/8\nW 12.0.0.0/8 3\nA 13.0.0.0/8 7\n";
        let p = write("u.txt", text);
        let path = p.display().to_string();
        let (u, r) = read_updates::<u32>(&p, &NextHopScheme::File).unwrap();
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
        assert_eq!(
            r.first_errors[0],
            format!("{path}:5: expected 'A' or 'W', found \"X\"")
        );
        assert!(r.first_errors[1].starts_with(&format!("{path}:6: missing next hop")));
        assert!(r.first_errors[2].starts_with(&format!("{path}:7: unexpected extra field")));
        let (u, r) = read_updates::<u32>(&p, &NextHopScheme::Hash(8)).unwrap();
        assert_eq!(u.len(), 4);
        assert_eq!(r.skipped, 2);
        assert_eq!(
            u[2],
            Update::Announce(pfx4("11.0.0.0/8"), hash_nexthop(&pfx4("11.0.0.0/8"), 8))
        );
        let e = read_updates::<u32>(&p, &NextHopScheme::Asn(8)).unwrap_err();
        assert!(e.to_string().contains("asn:N needs an ASN column"), "{e}");
        let (u6, _) = read_updates::<u128>(&p, &NextHopScheme::Hash(8)).unwrap();
        assert_eq!(u6.len(), 1);
        if let Some(data) = shared_data() {
            let mrt = data.join("routes/mrt-samples/rib.20140523.0600_firstMB.bz2");
            let e = read_updates::<u32>(&mrt, &NextHopScheme::Hash(8)).unwrap_err();
            assert!(e.to_string().contains("MRT input is not supported"), "{e}");
        }
        let _ = std::fs::remove_file(p);
    }

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
        let p = temp_path("junk.mrt");
        std::fs::write(&p, &bytes).unwrap();
        match read_table::<u32>(&p, &NextHopScheme::Hash(4)) {
            Ok(t) => assert!(t.report.truncated.is_some() || t.report.skipped > 0),
            Err(e) => assert!(!e.to_string().contains('\n')),
        }
        let _ = std::fs::remove_file(p);
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
