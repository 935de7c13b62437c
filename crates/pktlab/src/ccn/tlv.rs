//! CCNx packet codec — RFC 8609 (CCNx messages in TLV format) §3 fixed header, §3.4–3.5
//! message TLVs, as carried by Cefore over UDP port 9896 (paper 003's router). Parsing is
//! bounded: every length is checked against its enclosing TLV and the packet, names hold at most
//! [`MAX_SEGMENTS`] segments, and malformed input yields a [`TlvError`] naming the byte offset —
//! never a panic. Building writes into a caller-owned buffer (no allocation once it has grown).
//!
//! Segment type `T_CHUNK` = 0x0010 follows Cefore (the chunk-number draft), not RFC 8609 itself.

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
/// Chunk-number name segment (Cefore).
pub const T_CHUNK: u16 = 0x0010;
/// Fixed header length.
pub const FIXED_HEADER: usize = 8;
/// Most name segments accepted.
pub const MAX_SEGMENTS: usize = 32;
/// UDP port Cefore listens on.
pub const CEFORE_PORT: u16 = 9896;

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
    let mut at = FIXED_HEADER;
    while at < hl {
        at = tlv(buf, at, hl)?.2;
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
    })
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
fn seg_hash(t: u16, v: &[u8]) -> u64 {
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
        h = mix(h, seg_hash(t, v));
        out[n] = h;
        n += 1;
    }
    n
}

/// Hash of the empty name (the default route in a FIB).
pub const EMPTY_NAME_HASH: u64 = 0x1319_8A2E_0370_7344;

/// Hash of a validated name (all segments).
pub fn name_hash(name: &[u8]) -> u64 {
    segments(name).fold(EMPTY_NAME_HASH, |h, (t, v)| mix(h, seg_hash(t, v)))
}

/// Appends one segment TLV to a name value being built.
pub fn push_segment(name: &mut Vec<u8>, t: u16, v: &[u8]) {
    name.extend_from_slice(&t.to_be_bytes());
    name.extend_from_slice(&(v.len() as u16).to_be_bytes());
    name.extend_from_slice(v);
}

/// Builds the name value of a URI such as `/video/42/chunk=3` (generic segments; `chunk=N`
/// becomes a T_CHUNK segment holding N big-endian, minimal length).
pub fn name_from_uri(uri: &str, out: &mut Vec<u8>) {
    out.clear();
    for seg in uri.split('/').filter(|s| !s.is_empty()) {
        match seg
            .strip_prefix("chunk=")
            .and_then(|c| c.parse::<u64>().ok())
        {
            Some(c) => {
                let b = c.to_be_bytes();
                let skip = (c.leading_zeros() / 8).min(7) as usize;
                push_segment(out, T_CHUNK, &b[skip..]);
            }
            None => push_segment(out, T_NAMESEGMENT, seg.as_bytes()),
        }
    }
}

fn finish(out: &mut [u8]) {
    let n = out.len() as u16;
    out[2..4].copy_from_slice(&n.to_be_bytes());
}

/// Writes an Interest for `name` (a name value) into `out` (cleared first).
pub fn build_interest(out: &mut Vec<u8>, name: &[u8], hop_limit: u8) {
    out.clear();
    out.extend_from_slice(&[
        VERSION,
        PT_INTEREST,
        0,
        0,
        hop_limit,
        0,
        0,
        FIXED_HEADER as u8,
    ]);
    out.extend_from_slice(&T_INTEREST.to_be_bytes());
    out.extend_from_slice(&((4 + name.len()) as u16).to_be_bytes());
    out.extend_from_slice(&T_NAME.to_be_bytes());
    out.extend_from_slice(&(name.len() as u16).to_be_bytes());
    out.extend_from_slice(name);
    finish(out);
}

/// Writes a Content Object for `name` carrying `payload` into `out` (cleared first).
pub fn build_data(out: &mut Vec<u8>, name: &[u8], payload: &[u8]) {
    out.clear();
    out.extend_from_slice(&[VERSION, PT_CONTENT, 0, 0, 0, 0, 0, FIXED_HEADER as u8]);
    out.extend_from_slice(&T_OBJECT.to_be_bytes());
    out.extend_from_slice(&((8 + name.len() + payload.len()) as u16).to_be_bytes());
    out.extend_from_slice(&T_NAME.to_be_bytes());
    out.extend_from_slice(&(name.len() as u16).to_be_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(&T_PAYLOAD.to_be_bytes());
    out.extend_from_slice(&(payload.len() as u16).to_be_bytes());
    out.extend_from_slice(payload);
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
}
