//! CCNx packet codec — RFC 8609 (CCNx messages in TLV format) §3 fixed header, §3.3 hop-by-hop
//! headers, §3.4–3.5 message TLVs, as Cefore puts them on UDP (paper 003's router; Cefore's
//! `src/include/cefore/cef_frame.h` and `src/lib/cef_frame.c`). Parsing is bounded: every length
//! is checked against its enclosing TLV and the packet, names hold at most [`MAX_SEGMENTS`]
//! segments, and malformed input yields a [`TlvError`] naming the byte offset — never a panic.
//! Building writes into a caller-owned buffer (no allocation once it has grown).
//!
//! What Cefore adds to RFC 8609, and what this codec reads and writes:
//! * the chunk-number name segment, whose type changed across Cefore versions ([`Dialect`]:
//!   0x0010 up to v0.10, 0x0004 in v0.11, 0x0005 in v0.12). Cefore caches only Data whose name
//!   carries it;
//! * hop-by-hop headers: InterestLifetime (0x0001, 2 B ms) in Interests, Recommended Cache Time
//!   (0x0002, 8 B absolute ms since the Unix epoch) in Data;
//! * ExpiryTime (0x0006, 8 B absolute ms) and EndChunkNumber (0x0008, minimal big-endian) in the
//!   Content Object message, before the payload;
//! * packet types 2 (Interest Return), 3 and 4 (CCNinfo request / reply, RFC 9344) — reported as
//!   [`TlvError::Unhandled`] so that a forwarder skips and counts them.
//!
//! Data with an ExpiryTime but no cache time made cefnetd v0.12.0 crash (segfault in its local
//! cache) at the first repeated name; [`DataOpts`] therefore only writes both or neither.
//!
//! The plain [`build_interest`] / [`build_data`] / [`name_from_uri`] and the constants
//! [`T_CHUNK`] / [`CEFORE_PORT`] keep the v0.10 shape pktlab's pcap generator has always used.

/// CCNx version carried in the fixed header.
pub const VERSION: u8 = 1;
/// Packet type: Interest.
pub const PT_INTEREST: u8 = 0;
/// Packet type: Content Object.
pub const PT_CONTENT: u8 = 1;
/// Message type: Interest.
pub const T_INTEREST: u16 = 0x0001;
/// Message type: Content Object.
pub const T_OBJECT: u16 = 0x0002;
/// Name TLV inside a message.
pub const T_NAME: u16 = 0x0000;
/// Payload TLV inside a message.
pub const T_PAYLOAD: u16 = 0x0001;
/// Generic name segment.
pub const T_NAMESEGMENT: u16 = 0x0001;
/// Chunk-number name segment of Cefore up to v0.10 (the paper's era; [`Dialect::V010`]).
pub const T_CHUNK: u16 = 0x0010;
/// Hop-by-hop InterestLifetime (2 bytes, ms).
pub const T_HBH_LIFETIME: u16 = 0x0001;
/// Hop-by-hop Recommended Cache Time (8 bytes, absolute ms).
pub const T_HBH_CACHETIME: u16 = 0x0002;
/// ExpiryTime in a Content Object (8 bytes, absolute ms).
pub const T_EXPIRY: u16 = 0x0006;
/// EndChunkNumber in a Content Object (minimal big-endian).
pub const T_ENDCHUNK: u16 = 0x0008;
/// Packet type: Interest Return.
pub const PT_RETURN: u8 = 2;
/// Packet type: CCNinfo request (RFC 9344).
pub const PT_CCNINFO_REQUEST: u8 = 3;
/// Packet type: CCNinfo reply (RFC 9344).
pub const PT_CCNINFO_REPLY: u8 = 4;
/// Fixed header length.
pub const FIXED_HEADER: usize = 8;
/// Most name segments accepted.
pub const MAX_SEGMENTS: usize = 32;
/// UDP port Cefore listened on up to v0.11 (see [`Dialect::port`] for the current one).
pub const CEFORE_PORT: u16 = 9896;

/// Which Cefore version's wire shape to speak: the chunk-number segment type and the default
/// UDP port changed across releases (checked in Cefore's git history).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Cefore up to v0.10 (paper 003's era): chunk segment 0x0010, port 9896.
    V010,
    /// Cefore v0.11: chunk segment 0x0004, port 9896.
    V011,
    /// Cefore v0.12 (current): chunk segment 0x0005, port 9695.
    #[default]
    V012,
}

impl Dialect {
    /// All dialects, oldest first.
    pub const ALL: [Dialect; 3] = [Dialect::V010, Dialect::V011, Dialect::V012];

    /// Parses `v0.10`, `v0.11` or `v0.12` (also without the `v`).
    pub fn parse(s: &str) -> Option<Dialect> {
        Some(match s.trim_start_matches('v') {
            "0.10" => Dialect::V010,
            "0.11" => Dialect::V011,
            "0.12" => Dialect::V012,
            _ => return None,
        })
    }

    /// The dialect's name (`v0.12` …).
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::V010 => "v0.10",
            Dialect::V011 => "v0.11",
            Dialect::V012 => "v0.12",
        }
    }

    /// Type of the chunk-number name segment.
    pub fn chunk_type(self) -> u16 {
        match self {
            Dialect::V010 => T_CHUNK,
            Dialect::V011 => 0x0004,
            Dialect::V012 => 0x0005,
        }
    }

    /// Cefore's default UDP port in this version.
    pub fn port(self) -> u16 {
        match self {
            Dialect::V010 | Dialect::V011 => CEFORE_PORT,
            Dialect::V012 => 9695,
        }
    }
}

/// A malformed CCNx packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlvError {
    /// Fewer bytes than a header or TLV needs.
    #[error("ccnx: truncated at byte {offset}: need {need} more bytes")]
    Truncated {
        /// Where the short read starts.
        offset: usize,
        /// Bytes missing.
        need: usize,
    },
    /// A CCNx packet type that is well known but not forwarded here (2 = Interest Return,
    /// 3/4 = CCNinfo request/reply): skip and count it rather than treat it as garbage.
    #[error("ccnx: byte 1: packet type {0} (Interest Return / CCNinfo) not handled")]
    Unhandled(u8),
    /// Unsupported version.
    #[error("ccnx: byte 0: unsupported version {0} (expected 1)")]
    Version(u8),
    /// Packet type other than Interest or Content Object.
    #[error("ccnx: byte 1: unsupported packet type {0}")]
    PacketType(u8),
    /// PacketLength disagrees with the buffer.
    #[error("ccnx: byte 2: packet length {declared} but {actual} bytes present")]
    Length {
        /// PacketLength field.
        declared: usize,
        /// Bytes given.
        actual: usize,
    },
    /// HeaderLength below 8 or beyond the packet.
    #[error("ccnx: byte 7: header length {0} out of range")]
    HeaderLength(u8),
    /// A structural problem at a byte offset.
    #[error("ccnx: byte {offset}: {what}")]
    Bad {
        /// Byte offset in the packet.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
}

/// Interest or Content Object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An Interest (request).
    Interest,
    /// A Content Object (Data).
    Data,
}

/// A parsed packet borrowing from the input buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Interest or Data.
    pub kind: Kind,
    /// Hop limit (Interests; 0 for Data).
    pub hop_limit: u8,
    /// The value of the Name TLV: a sequence of segment TLVs, already validated.
    pub name: &'a [u8],
    /// Payload TLV value (empty when absent).
    pub payload: &'a [u8],
    /// Hop-by-hop InterestLifetime in ms (Interests; a 1-byte zero value reads as 0).
    pub lifetime_ms: Option<u16>,
    /// Hop-by-hop Recommended Cache Time, absolute ms since the Unix epoch (Data).
    pub cache_time_ms: Option<u64>,
    /// ExpiryTime, absolute ms since the Unix epoch (Data).
    pub expiry_ms: Option<u64>,
    /// EndChunkNumber (Data).
    pub end_chunk: Option<u64>,
}

/// Big-endian unsigned value of up to 8 bytes (longer values keep their low 8 bytes).
#[inline]
fn be_uint(v: &[u8]) -> u64 {
    v.iter().fold(0u64, |a, &b| (a << 8) | b as u64)
}

#[inline]
fn rd16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Reads the TLV at `at` within `buf[..end]`: (type, value range).
#[inline]
fn tlv(buf: &[u8], at: usize, end: usize) -> Result<(u16, usize, usize), TlvError> {
    if end - at < 4 {
        return Err(TlvError::Truncated {
            offset: at,
            need: 4 - (end - at),
        });
    }
    let (t, l) = (rd16(buf, at), rd16(buf, at + 2) as usize);
    let v = at + 4;
    if end - v < l {
        return Err(TlvError::Truncated {
            offset: v,
            need: l - (end - v),
        });
    }
    Ok((t, v, v + l))
}

/// Validates a name value at `off..end` of `buf`; returns the number of segments.
fn check_name(buf: &[u8], off: usize, end: usize) -> Result<usize, TlvError> {
    let (mut at, mut n) = (off, 0);
    while at < end {
        let (_, _, e) = tlv(buf, at, end)?;
        n += 1;
        if n > MAX_SEGMENTS {
            return Err(TlvError::Bad {
                offset: at,
                what: "too many name segments",
            });
        }
        at = e;
    }
    Ok(n)
}

/// Parses and validates one CCNx packet (the whole UDP payload).
pub fn parse(buf: &[u8]) -> Result<Packet<'_>, TlvError> {
    if buf.len() < FIXED_HEADER {
        return Err(TlvError::Truncated {
            offset: 0,
            need: FIXED_HEADER - buf.len(),
        });
    }
    if buf[0] != VERSION {
        return Err(TlvError::Version(buf[0]));
    }
    let kind = match buf[1] {
        PT_INTEREST => Kind::Interest,
        PT_CONTENT => Kind::Data,
        t @ (PT_RETURN | PT_CCNINFO_REQUEST | PT_CCNINFO_REPLY) => {
            return Err(TlvError::Unhandled(t))
        }
        t => return Err(TlvError::PacketType(t)),
    };
    let declared = rd16(buf, 2) as usize;
    if declared != buf.len() {
        return Err(TlvError::Length {
            declared,
            actual: buf.len(),
        });
    }
    let hl = buf[7] as usize;
    if hl < FIXED_HEADER || hl > buf.len() {
        return Err(TlvError::HeaderLength(buf[7]));
    }
    // Optional hop-by-hop headers: well-formed TLVs filling the header exactly.
    let (mut lifetime_ms, mut cache_time_ms) = (None, None);
    let mut at = FIXED_HEADER;
    while at < hl {
        let (t, v, e) = tlv(buf, at, hl)?;
        match (kind, t, e - v) {
            (Kind::Interest, T_HBH_LIFETIME, 1 | 2) => {
                lifetime_ms = Some(be_uint(&buf[v..e]) as u16)
            }
            (Kind::Data, T_HBH_CACHETIME, 8) => cache_time_ms = Some(be_uint(&buf[v..e])),
            _ => {}
        }
        at = e;
    }
    let (mt, mv, me) = tlv(buf, hl, buf.len())?;
    let want = if kind == Kind::Interest {
        T_INTEREST
    } else {
        T_OBJECT
    };
    if mt != want {
        return Err(TlvError::Bad {
            offset: hl,
            what: "message type does not match packet type",
        });
    }
    let (mut name, mut payload) = (None, &buf[0..0]);
    let (mut expiry_ms, mut end_chunk) = (None, None);
    let mut at = mv;
    while at < me {
        let (t, v, e) = tlv(buf, at, me)?;
        match t {
            T_NAME if name.is_none() => {
                check_name(buf, v, e)?;
                name = Some(&buf[v..e]);
            }
            T_NAME => {
                return Err(TlvError::Bad {
                    offset: at,
                    what: "duplicate name",
                })
            }
            T_PAYLOAD => payload = &buf[v..e],
            T_EXPIRY if kind == Kind::Data && e - v == 8 => expiry_ms = Some(be_uint(&buf[v..e])),
            T_ENDCHUNK if kind == Kind::Data && (1..=8).contains(&(e - v)) => {
                end_chunk = Some(be_uint(&buf[v..e]))
            }
            _ => {}
        }
        at = e;
    }
    // Trailing validation TLVs must be well-formed too.
    let mut at = me;
    while at < buf.len() {
        at = tlv(buf, at, buf.len())?.2;
    }
    let name = name.ok_or(TlvError::Bad {
        offset: mv,
        what: "message has no name",
    })?;
    Ok(Packet {
        kind,
        hop_limit: if kind == Kind::Interest { buf[4] } else { 0 },
        name,
        payload,
        lifetime_ms,
        cache_time_ms,
        expiry_ms,
        end_chunk,
    })
}

/// The chunk number of a validated name, read from its last segment of `dialect`'s chunk type.
pub fn chunk_number(name: &[u8], dialect: Dialect) -> Option<u64> {
    let t = dialect.chunk_type();
    segments(name)
        .filter(|&(st, v)| st == t && v.len() <= 8)
        .last()
        .map(|(_, v)| be_uint(v))
}

/// Iterates over the (type, value) segments of a validated name value.
pub fn segments(name: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at + 4 > name.len() {
            return None;
        }
        let (t, l) = (rd16(name, at), rd16(name, at + 2) as usize);
        let v = &name[at + 4..(at + 4 + l).min(name.len())];
        at += 4 + l;
        Some((t, v))
    })
}

#[inline]
fn mix(h: u64, x: u64) -> u64 {
    let m = (h ^ x) as u128 * 0x9E37_79B9_7F4A_7C15u128;
    (m as u64) ^ ((m >> 64) as u64)
}

/// Hash of one segment's bytes (type and value).
#[inline]
pub fn segment_hash(t: u16, v: &[u8]) -> u64 {
    let mut h = mix(0x243F_6A88_85A3_08D3, t as u64 | (v.len() as u64) << 16);
    let mut c = v.chunks_exact(8);
    for w in &mut c {
        h = mix(h, u64::from_le_bytes(w.try_into().unwrap()));
    }
    let mut last = [0u8; 8];
    last[..c.remainder().len()].copy_from_slice(c.remainder());
    mix(h, u64::from_le_bytes(last))
}

/// Hashes of every prefix of a validated name: `out[k]` = hash of the first k+1 segments.
/// Returns the number of segments (≤ [`MAX_SEGMENTS`]). The full name's hash is
/// `out[n-1]` (or [`EMPTY_NAME_HASH`] for n = 0).
pub fn prefix_hashes(name: &[u8], out: &mut [u64; MAX_SEGMENTS]) -> usize {
    let mut h = EMPTY_NAME_HASH;
    let mut n = 0;
    for (t, v) in segments(name).take(MAX_SEGMENTS) {
        h = mix(h, segment_hash(t, v));
        out[n] = h;
        n += 1;
    }
    n
}

/// Hash of the empty name (the default route in a FIB).
pub const EMPTY_NAME_HASH: u64 = 0x1319_8A2E_0370_7344;

/// Hash of a validated name (all segments).
pub fn name_hash(name: &[u8]) -> u64 {
    segments(name).fold(EMPTY_NAME_HASH, |h, (t, v)| mix(h, segment_hash(t, v)))
}

/// Appends one segment TLV to a name value being built.
pub fn push_segment(name: &mut Vec<u8>, t: u16, v: &[u8]) {
    name.extend_from_slice(&t.to_be_bytes());
    name.extend_from_slice(&(v.len() as u16).to_be_bytes());
    name.extend_from_slice(v);
}

/// Appends a chunk-number segment of `dialect` holding `c` big-endian in minimal length (at
/// least one byte), as Cefore writes it.
pub fn push_chunk(name: &mut Vec<u8>, dialect: Dialect, c: u64) {
    let b = c.to_be_bytes();
    let skip = (c.leading_zeros() / 8).min(7) as usize;
    push_segment(name, dialect.chunk_type(), &b[skip..]);
}

/// Builds the name value of a URI such as `/video/42/chunk=3` (generic segments; `chunk=N`
/// becomes a [`T_CHUNK`] segment — the v0.10 dialect — holding N big-endian, minimal length).
pub fn name_from_uri(uri: &str, out: &mut Vec<u8>) {
    name_from_uri_in(uri, Dialect::V010, out)
}

/// [`name_from_uri`] in a given dialect (`chunk=N` becomes `dialect`'s chunk segment). A
/// leading `ccnx:` is ignored, so Cefore's URIs (`ccnx:/a/b`) work too.
pub fn name_from_uri_in(uri: &str, dialect: Dialect, out: &mut Vec<u8>) {
    out.clear();
    let uri = uri.strip_prefix("ccnx:").unwrap_or(uri);
    for seg in uri.split('/').filter(|s| !s.is_empty()) {
        match seg
            .strip_prefix("chunk=")
            .and_then(|c| c.parse::<u64>().ok())
        {
            Some(c) => push_chunk(out, dialect, c),
            None => push_segment(out, T_NAMESEGMENT, seg.as_bytes()),
        }
    }
}

fn finish(out: &mut [u8]) {
    let n = out.len() as u16;
    out[2..4].copy_from_slice(&n.to_be_bytes());
}

/// Options of an Interest beyond its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InterestOpts {
    /// Hop limit in the fixed header.
    pub hop_limit: u8,
    /// Hop-by-hop InterestLifetime in ms (what Cefore's own tools send; `None` = omit).
    pub lifetime_ms: Option<u16>,
}

/// Cache metadata of a Data packet: Cefore's hop-by-hop Recommended Cache Time and the
/// message's ExpiryTime, both absolute ms since the Unix epoch. They travel together because
/// an ExpiryTime without a cache time crashed cefnetd v0.12.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheTimes {
    /// Recommended Cache Time (absolute ms).
    pub cache_time_ms: u64,
    /// ExpiryTime (absolute ms).
    pub expiry_ms: u64,
}

/// Options of a Content Object beyond its name and payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataOpts {
    /// Cache time and expiry (`None` = neither).
    pub cache: Option<CacheTimes>,
    /// EndChunkNumber, on the last chunk of an object (Cefore's file tools stop on it).
    pub end_chunk: Option<u64>,
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_tl(out: &mut Vec<u8>, t: u16, l: usize) {
    put16(out, t);
    put16(out, l as u16);
}

/// Writes an Interest for `name` (a name value) into `out` (cleared first).
pub fn build_interest(out: &mut Vec<u8>, name: &[u8], hop_limit: u8) {
    build_interest_opts(
        out,
        name,
        &InterestOpts {
            hop_limit,
            lifetime_ms: None,
        },
    )
}

/// Writes an Interest for `name` with `opts` into `out` (cleared first).
pub fn build_interest_opts(out: &mut Vec<u8>, name: &[u8], opts: &InterestOpts) {
    out.clear();
    let hl = FIXED_HEADER + if opts.lifetime_ms.is_some() { 6 } else { 0 };
    out.extend_from_slice(&[VERSION, PT_INTEREST, 0, 0, opts.hop_limit, 0, 0, hl as u8]);
    if let Some(l) = opts.lifetime_ms {
        put_tl(out, T_HBH_LIFETIME, 2);
        put16(out, l);
    }
    put_tl(out, T_INTEREST, 4 + name.len());
    put_tl(out, T_NAME, name.len());
    out.extend_from_slice(name);
    finish(out);
}

/// Writes a Content Object for `name` carrying `payload` into `out` (cleared first).
pub fn build_data(out: &mut Vec<u8>, name: &[u8], payload: &[u8]) {
    build_data_opts(out, name, payload, &DataOpts::default())
}

/// Writes a Content Object for `name` carrying `payload` with `opts` into `out` (cleared first),
/// in Cefore's order: cache time in the hop-by-hop header; name, ExpiryTime, EndChunkNumber and
/// payload in the message.
pub fn build_data_opts(out: &mut Vec<u8>, name: &[u8], payload: &[u8], opts: &DataOpts) {
    out.clear();
    let hl = FIXED_HEADER + if opts.cache.is_some() { 12 } else { 0 };
    out.extend_from_slice(&[VERSION, PT_CONTENT, 0, 0, 0, 0, 0, hl as u8]);
    if let Some(c) = opts.cache {
        put_tl(out, T_HBH_CACHETIME, 8);
        out.extend_from_slice(&c.cache_time_ms.to_be_bytes());
    }
    let msg_at = out.len();
    put_tl(out, T_OBJECT, 0);
    put_tl(out, T_NAME, name.len());
    out.extend_from_slice(name);
    if let Some(c) = opts.cache {
        put_tl(out, T_EXPIRY, 8);
        out.extend_from_slice(&c.expiry_ms.to_be_bytes());
    }
    if let Some(e) = opts.end_chunk {
        let b = e.to_be_bytes();
        let skip = (e.leading_zeros() / 8).min(7) as usize;
        put_tl(out, T_ENDCHUNK, 8 - skip);
        out.extend_from_slice(&b[skip..]);
    }
    put_tl(out, T_PAYLOAD, payload.len());
    out.extend_from_slice(payload);
    let ml = (out.len() - msg_at - 4) as u16;
    out[msg_at + 2..msg_at + 4].copy_from_slice(&ml.to_be_bytes());
    finish(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut name = Vec::new();
        name_from_uri("/video/42/chunk=3", &mut name);
        assert_eq!(segments(&name).count(), 3);
        let mut b = Vec::new();
        build_interest(&mut b, &name, 32);
        let p = parse(&b).unwrap();
        assert_eq!(
            (p.kind, p.hop_limit, p.name),
            (Kind::Interest, 32, &name[..])
        );
        build_data(&mut b, &name, b"hello");
        let p = parse(&b).unwrap();
        assert_eq!(
            (p.kind, p.name, p.payload),
            (Kind::Data, &name[..], &b"hello"[..])
        );
        let segs: Vec<_> = segments(p.name).collect();
        assert_eq!(segs[2], (T_CHUNK, &[3u8][..]));
    }

    #[test]
    fn hashes_distinguish_names_and_prefixes() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        name_from_uri("/a/bc", &mut a);
        name_from_uri("/ab/c", &mut b);
        assert_ne!(name_hash(&a), name_hash(&b));
        let mut ph = [0; MAX_SEGMENTS];
        assert_eq!(prefix_hashes(&a, &mut ph), 2);
        assert_eq!(ph[1], name_hash(&a));
        let mut p = Vec::new();
        name_from_uri("/a", &mut p);
        assert_eq!(ph[0], name_hash(&p));
    }

    #[test]
    fn rejects_malformed() {
        let mut name = Vec::new();
        name_from_uri("/x/y", &mut name);
        let mut good = Vec::new();
        build_interest(&mut good, &name, 1);
        // Every truncation is an error, never a panic.
        for n in 0..good.len() {
            assert!(parse(&good[..n]).is_err(), "prefix {n}");
        }
        let mut b = good.clone();
        b[0] = 2;
        assert_eq!(parse(&b), Err(TlvError::Version(2)));
        let mut b = good.clone();
        b[1] = 9;
        assert_eq!(parse(&b), Err(TlvError::PacketType(9)));
        let mut b = good.clone();
        b[7] = 3;
        assert_eq!(parse(&b), Err(TlvError::HeaderLength(3)));
        let mut b = good.clone();
        b[11] = 0xFF; // message length beyond packet
        assert!(matches!(parse(&b), Err(TlvError::Truncated { .. })));
        let mut b = good.clone();
        b[1] = PT_CONTENT; // type mismatch
        assert!(matches!(parse(&b), Err(TlvError::Bad { .. })));
        let msg = parse(&good[..good.len() - 1]).unwrap_err().to_string();
        assert!(msg.starts_with("ccnx: byte 2"), "{msg}");
        // Too many segments.
        let uri: String = (0..40).map(|i| format!("/{i}")).collect();
        name_from_uri(&uri, &mut name);
        build_interest(&mut b, &name, 1);
        assert!(matches!(
            parse(&b),
            Err(TlvError::Bad {
                what: "too many name segments",
                ..
            })
        ));
    }

    /// The exact bytes of an Interest and a Data packet that Cefore v0.12.0's cefgetfile /
    /// cefputfile exchanged on loopback (tests/fixtures/cefore/README.md), and pktlab's own
    /// builders producing the same shape.
    #[test]
    fn cefore_v012_shapes() {
        let interest = [
            0x01, 0x00, 0x00, 0x2a, 0x20, 0x00, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x02, 0x07, 0xd0,
            0x00, 0x01, 0x00, 0x18, 0x00, 0x00, 0x00, 0x14, 0x00, 0x01, 0x00, 0x03, b'f', b'i',
            b'x', 0x00, 0x01, 0x00, 0x04, b'f', b'i', b'l', b'e', 0x00, 0x05, 0x00, 0x01, 0x00,
        ];
        let p = parse(&interest).unwrap();
        assert_eq!(
            (p.kind, p.hop_limit, p.lifetime_ms),
            (Kind::Interest, 32, Some(2000))
        );
        assert_eq!(chunk_number(p.name, Dialect::V012), Some(0));
        assert_eq!(chunk_number(p.name, Dialect::V010), None);
        let mut name = Vec::new();
        name_from_uri_in("ccnx:/fix/file/chunk=0", Dialect::V012, &mut name);
        assert_eq!(p.name, &name[..]);
        let mut b = Vec::new();
        let io = InterestOpts {
            hop_limit: 32,
            lifetime_ms: Some(2000),
        };
        build_interest_opts(&mut b, &name, &io);
        assert_eq!(b, interest);

        name_from_uri_in("/fix/file/chunk=2", Dialect::V012, &mut name);
        let t = 0x0000_01a2_0857_bfd8;
        let opts = DataOpts {
            cache: Some(CacheTimes {
                cache_time_ms: t,
                expiry_ms: t,
            }),
            end_chunk: Some(2),
        };
        build_data_opts(&mut b, &name, &[7; 5], &opts);
        let d = parse(&b).unwrap();
        assert_eq!(
            (d.kind, d.cache_time_ms, d.expiry_ms, d.end_chunk, d.payload),
            (Kind::Data, Some(t), Some(t), Some(2), &[7u8; 5][..])
        );
        assert_eq!(b[7], 20, "header length with a cache time");
        // Cefore's Data of the capture starts exactly like this.
        assert_eq!(
            &b[..20],
            &[1, 1, 0, 0x4a, 0, 0, 0, 0x14, 0, 2, 0, 8, 0, 0, 1, 0xa2, 0x08, 0x57, 0xbf, 0xd8]
        );
        // Plain builders are unchanged: no optional TLVs.
        build_data(&mut b, &name, b"x");
        let d = parse(&b).unwrap();
        assert_eq!(
            (d.cache_time_ms, d.expiry_ms, d.end_chunk),
            (None, None, None)
        );
        assert_eq!(b[7], 8);
    }

    #[test]
    fn dialects_and_unhandled_types() {
        for d in Dialect::ALL {
            assert_eq!(Dialect::parse(d.as_str()), Some(d));
            let mut n = Vec::new();
            name_from_uri_in("/a/chunk=258", d, &mut n);
            assert_eq!(chunk_number(&n, d), Some(258));
            assert_eq!(segments(&n).nth(1), Some((d.chunk_type(), &[1u8, 2][..])));
        }
        assert_eq!(Dialect::default().port(), 9695);
        assert_eq!(Dialect::V010.chunk_type(), T_CHUNK);
        let mut n = Vec::new();
        name_from_uri("/x", &mut n);
        let mut b = Vec::new();
        build_interest(&mut b, &n, 4);
        for t in [PT_RETURN, PT_CCNINFO_REQUEST, PT_CCNINFO_REPLY] {
            b[1] = t;
            assert_eq!(parse(&b), Err(TlvError::Unhandled(t)));
        }
        b[1] = 7;
        assert_eq!(parse(&b), Err(TlvError::PacketType(7)));
    }
}
