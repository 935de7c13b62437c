//! Compact binary flow trace: convert a capture once, replay it fast (paper 000's simulator
//! needs only `(timestamp, flow ID)` per packet, §5.1).
//!
//! Layout: the 8-byte magic `PKTLFT01`, then one record per packet:
//! `zigzag-LEB128(ts_ns − previous ts_ns)`, `LEB128(flow id)`, and — only when the id is new,
//! which it must be exactly when it equals the number of flows seen so far — the 38-byte
//! [`FlowKey::to_bytes`]. Flow ids are dense in first-appearance order. A typical packet costs
//! 3–5 bytes; the reader keeps one `FlowKey` per flow.

use super::pcap_write::{fold, sum16, PcapWriter, TsResolution, LINKTYPE_RAW};
use super::IoError;
use crate::net::{FlowKey, FLOW_KEY_BYTES};
use std::io::{BufRead, Write};

/// The file magic.
pub const COMPACT_MAGIC: &[u8; 8] = b"PKTLFT01";

/// Writes the compact format.
pub struct CompactWriter<W: Write> {
    out: W,
    last_ts: u64,
    flows: u32,
}

fn put_varint<W: Write>(w: &mut W, mut v: u64) -> std::io::Result<()> {
    let mut buf = [0u8; 10];
    let mut n = 0;
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            buf[n] = b;
            n += 1;
            break;
        }
        buf[n] = b | 0x80;
        n += 1;
    }
    w.write_all(&buf[..n])
}

impl<W: Write> CompactWriter<W> {
    /// Starts a trace (writes the magic).
    pub fn new(mut out: W) -> std::io::Result<Self> {
        out.write_all(COMPACT_MAGIC)?;
        Ok(CompactWriter {
            out,
            last_ts: 0,
            flows: 0,
        })
    }

    /// Appends a packet of flow `flow` (dense ids: a new flow's id must equal the number of
    /// flows written so far; `key` is stored only then).
    pub fn write(&mut self, ts_ns: u64, flow: u32, key: &FlowKey) -> std::io::Result<()> {
        let d = ts_ns.wrapping_sub(self.last_ts) as i64;
        self.last_ts = ts_ns;
        put_varint(&mut self.out, ((d << 1) ^ (d >> 63)) as u64)?;
        put_varint(&mut self.out, flow as u64)?;
        if flow >= self.flows {
            if flow != self.flows {
                return Err(std::io::Error::other("flow ids must be dense"));
            }
            self.flows += 1;
            self.out.write_all(&key.to_bytes())?;
        }
        Ok(())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads the compact format; stops (with [`CompactReader::truncated`] set) at a cut or
/// corrupt record, never panicking.
pub struct CompactReader<R: BufRead> {
    rd: R,
    path: String,
    last_ts: u64,
    keys: Vec<FlowKey>,
    pos: u64,
    packets: u64,
    /// Set when the stream ended inside a record or met a corrupt one.
    pub truncated: Option<String>,
}

impl<R: BufRead> CompactReader<R> {
    /// Checks the magic; `path` names the input in messages.
    pub fn new(mut rd: R, path: &str) -> Result<Self, IoError> {
        let mut m = [0u8; 8];
        if rd.read_exact(&mut m).is_err() || &m != COMPACT_MAGIC {
            return Err(IoError::Unsupported {
                path: path.into(),
                msg: "byte 0: not a pktlab compact trace (magic PKTLFT01)".into(),
            });
        }
        Ok(CompactReader {
            rd,
            path: path.into(),
            last_ts: 0,
            keys: Vec::new(),
            pos: 8,
            packets: 0,
            truncated: None,
        })
    }

    fn byte(&mut self) -> Option<u8> {
        let buf = self.rd.fill_buf().ok()?;
        let b = *buf.first()?;
        self.rd.consume(1);
        self.pos += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn fail(&mut self, start: u64, what: &str) -> Option<(u64, u32)> {
        self.truncated = Some(format!(
            "{}: byte {start}: {what} after {} packets",
            self.path, self.packets
        ));
        None
    }

    /// Fast path: decodes a whole record straight from the read buffer when it holds one
    /// (the common case); `None` to fall back to the byte-wise path.
    #[inline]
    fn next_fast(&mut self) -> Option<(u64, u32)> {
        const MAX: usize = 10 + 10 + FLOW_KEY_BYTES;
        let buf = self.rd.fill_buf().ok()?;
        if buf.len() < MAX {
            return None;
        }
        let mut i = 0;
        let mut var = || {
            let mut v = 0u64;
            for shift in (0..64).step_by(7) {
                let b = buf[i];
                i += 1;
                v |= ((b & 0x7f) as u64) << shift;
                if b & 0x80 == 0 {
                    return Some(v);
                }
            }
            None
        };
        let z = var()?;
        let id = var()?;
        if id > self.keys.len() as u64 {
            return None;
        }
        if id == self.keys.len() as u64 {
            let mut b = [0u8; FLOW_KEY_BYTES];
            b.copy_from_slice(&buf[i..i + FLOW_KEY_BYTES]);
            self.keys.push(FlowKey::from_bytes(&b)?);
            i += FLOW_KEY_BYTES;
        }
        self.rd.consume(i);
        self.pos += i as u64;
        let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.last_ts = self.last_ts.wrapping_add(d as u64);
        self.packets += 1;
        Some((self.last_ts, id as u32))
    }

    /// The next `(ts_ns, flow id)`, or `None` at the end.
    pub fn next_packet(&mut self) -> Option<(u64, u32)> {
        if self.truncated.is_some() {
            return None;
        }
        if let Some(r) = self.next_fast() {
            return Some(r);
        }
        let start = self.pos;
        // Clean end of file?
        match self.rd.fill_buf() {
            Ok([]) => return None,
            Ok(_) => {}
            Err(_) => return self.fail(start, "read error"),
        }
        let Some(z) = self.varint() else {
            return self.fail(start, "truncated record");
        };
        let Some(id) = self.varint() else {
            return self.fail(start, "truncated record");
        };
        let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
        self.last_ts = self.last_ts.wrapping_add(d as u64);
        if id > self.keys.len() as u64 {
            return self.fail(start, "corrupt flow id");
        }
        if id == self.keys.len() as u64 {
            let mut b = [0u8; FLOW_KEY_BYTES];
            if self.rd.read_exact(&mut b).is_err() {
                return self.fail(start, "truncated record");
            }
            self.pos += FLOW_KEY_BYTES as u64;
            let Some(k) = FlowKey::from_bytes(&b) else {
                return self.fail(start, "corrupt flow key");
            };
            self.keys.push(k);
        }
        self.packets += 1;
        Some((self.last_ts, id as u32))
    }

    /// The key of flow `id` (seen so far).
    pub fn key(&self, id: u32) -> Option<&FlowKey> {
        self.keys.get(id as usize)
    }

    /// Flows seen so far.
    pub fn flows(&self) -> usize {
        self.keys.len()
    }
}

/// Exports a flow trace as a pcap (nanosecond timestamps, link type RAW) through
/// [`super::pcap_write::PcapWriter`], with one minimal IPv4/IPv6 packet per record carrying
/// the flow's 5-tuple (TCP: 20-byte header, UDP: 8 bytes, other protocols: no transport
/// header; valid IPv4 header checksum, transport checksums left zero). Used to export
/// synthetic traces for other tools.
pub struct PcapExport<W: Write> {
    out: PcapWriter<W>,
    buf: Vec<u8>,
}

impl<W: Write> PcapExport<W> {
    /// Starts a capture (writes the global header).
    pub fn new(out: W) -> std::io::Result<Self> {
        Ok(PcapExport {
            out: PcapWriter::with_format(out, LINKTYPE_RAW, TsResolution::Nanos)?,
            buf: Vec::with_capacity(128),
        })
    }

    /// Appends one packet of flow `key` at `ts_ns`.
    pub fn write(&mut self, ts_ns: u64, key: &FlowKey) -> std::io::Result<()> {
        let l4: usize = match key.proto {
            6 => 20,
            17 => 8,
            _ => 0,
        };
        let b = &mut self.buf;
        b.clear();
        if key.v6 {
            b.extend_from_slice(&[0x60, 0, 0, 0]);
            b.extend_from_slice(&(l4 as u16).to_be_bytes());
            b.extend_from_slice(&[key.proto, 64]);
            b.extend_from_slice(&key.src);
            b.extend_from_slice(&key.dst);
        } else {
            b.extend_from_slice(&[0x45, 0]);
            b.extend_from_slice(&((20 + l4) as u16).to_be_bytes());
            b.extend_from_slice(&[0, 0, 0x40, 0, 64, key.proto, 0, 0]);
            b.extend_from_slice(&key.src[..4]);
            b.extend_from_slice(&key.dst[..4]);
            let c = fold(sum16(0, &b[..20]));
            b[10..12].copy_from_slice(&c.to_be_bytes());
        }
        if l4 > 0 {
            b.extend_from_slice(&key.sport.to_be_bytes());
            b.extend_from_slice(&key.dport.to_be_bytes());
            if l4 == 8 {
                b.extend_from_slice(&8u16.to_be_bytes());
                b.extend_from_slice(&[0, 0]);
            } else {
                b.extend_from_slice(&[0; 8]);
                b.extend_from_slice(&[0x50, 0x10, 0xff, 0xff, 0, 0, 0, 0]);
            }
        }
        self.out.write(ts_ns, b)
    }

    /// Flushes and returns the writer.
    pub fn finish(self) -> std::io::Result<W> {
        self.out.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_round_trip_and_cuts() {
        let a = FlowKey::v4([1, 2, 3, 4], [5, 6, 7, 8], 1, 2, 6);
        let b = FlowKey::v6([9; 16], [8; 16], 3, 4, 17);
        let pk = [
            (100u64, 0u32, a),
            (90, 1, b),
            (5_000_000_000, 0, a),
            (5_000_000_001, 1, b),
        ];
        let mut w = CompactWriter::new(Vec::new()).unwrap();
        for (t, f, k) in &pk {
            w.write(*t, *f, k).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r = CompactReader::new(&bytes[..], "t").unwrap();
        for (t, f, _) in &pk {
            assert_eq!(r.next_packet(), Some((*t, *f)));
        }
        assert_eq!(r.next_packet(), None);
        assert!(r.truncated.is_none());
        assert_eq!(r.key(1), Some(&b));
        // Every cut either ends cleanly at a record boundary or is reported.
        for cut in 8..bytes.len() {
            let mut r = CompactReader::new(&bytes[..cut], "t").unwrap();
            let mut n = 0;
            while r.next_packet().is_some() {
                n += 1;
            }
            assert!(n < pk.len());
        }
        assert!(CompactReader::new(&b"garbage!"[..], "g").is_err());
        // Dense ids are enforced.
        let mut w = CompactWriter::new(Vec::new()).unwrap();
        assert!(w.write(0, 3, &a).is_err());
    }

    #[test]
    fn pcap_writer_output_reads_back() {
        let dir = std::env::temp_dir().join(format!("pktlab-pw-{}.pcap", std::process::id()));
        let a = FlowKey::v4([1, 2, 3, 4], [5, 6, 7, 8], 1000, 80, 6);
        let b = FlowKey::v6([9; 16], [8; 16], 3, 4, 17);
        let c = FlowKey::v4([1, 2, 3, 4], [5, 6, 7, 8], 0, 0, 1);
        let f = std::fs::File::create(&dir).unwrap();
        let mut w = PcapExport::new(std::io::BufWriter::new(f)).unwrap();
        for (i, k) in [a, b, c].iter().enumerate() {
            w.write(1_000_000_007 * (i as u64 + 1), k).unwrap();
        }
        w.finish().unwrap();
        let mut r = super::super::packets::PacketReader::open(&dir).unwrap();
        let mut got = Vec::new();
        while let Some(p) = r.next_record() {
            got.push((p.ts_ns, p.key.unwrap()));
        }
        let _ = std::fs::remove_file(&dir);
        assert_eq!(
            got,
            vec![(1_000_000_007, a), (2_000_000_014, b), (3_000_000_021, c)]
        );
    }
}
