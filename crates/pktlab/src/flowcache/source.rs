//! Trace sources for the simulator (paper 000, §5.1 "Flow Extractor"): a pcap/pcapng capture,
//! a compact trace ([`crate::io::compact`]), the AGH-calibrated synthetic generator or a trace
//! held in memory ([`MemoryTrace`], e.g. flow keys handed over from Python), all
//! streamed in chunks of [`TracePacket`]s with dense flow ids and precomputed set-index hashes.
//!
//! Memory: one chunk of packets plus one entry per distinct flow (the 5-tuple → id map; the
//! cache itself compares ids, which is exact because ids are unique per 5-tuple). Nothing grows
//! with the number of packets.

use super::FlowcacheError;
use crate::io::compact::CompactReader;
use crate::io::packets::{PacketReader, PacketReport};
use crate::io::{open_maybe_compressed, IoError};
use crate::net::FlowKey;
use crate::traffic::{SynthConfig, SynthTrace};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

/// One packet as the simulator sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TracePacket {
    /// Timestamp, ns.
    pub ts_ns: u64,
    /// Dense flow id (unique per 5-tuple, in order of first appearance).
    pub flow: u32,
    /// CRC-32 of the flow's 5-tuple ([`FlowKey::crc32`]).
    pub crc: u32,
    /// XOR folding of the flow's 5-tuple ([`FlowKey::xor32`]).
    pub xor: u32,
}

/// Where packets come from.
#[derive(Clone, Debug)]
pub enum TraceSource {
    /// A pcap or pcapng capture.
    Pcap(PathBuf),
    /// A compact trace file.
    Compact(PathBuf),
    /// The synthetic generator.
    Synthetic(SynthConfig),
    /// Packets held in memory.
    Memory(Arc<MemoryTrace>),
}

/// A trace held in memory: one timestamp and one dense flow id per packet, one 5-tuple per
/// flow (ids in order of first appearance, as for a capture).
pub struct MemoryTrace {
    name: String,
    ts_ns: Vec<u64>,
    flow: Vec<u32>,
    keys: Vec<FlowKey>,
    hashes: Vec<(u32, u32)>,
}

impl std::fmt::Debug for MemoryTrace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MemoryTrace({}: {} packets, {} flows)",
            self.name,
            self.flow.len(),
            self.keys.len()
        )
    }
}

impl MemoryTrace {
    /// Builds a trace from the flow key of every packet. `ts_ns` gives each packet's
    /// timestamp (it must have one per key and never decrease); without it packets are
    /// `interval_ns` apart from time 0. `name` appears in reports.
    pub fn new(
        name: &str,
        keys: impl IntoIterator<Item = FlowKey>,
        ts_ns: Option<Vec<u64>>,
        interval_ns: u64,
    ) -> Result<MemoryTrace, FlowcacheError> {
        let mut ids: HashMap<FlowKey, u32, BuildHasherDefault<FlowHasher>> = HashMap::default();
        let mut t = MemoryTrace {
            name: name.to_string(),
            ts_ns: Vec::new(),
            flow: Vec::new(),
            keys: Vec::new(),
            hashes: Vec::new(),
        };
        for k in keys {
            let next = t.keys.len() as u32;
            let id = *ids.entry(k).or_insert(next);
            if id == next {
                t.keys.push(k);
                t.hashes.push(hashes_of(&k));
            }
            t.flow.push(id);
        }
        t.ts_ns = match ts_ns {
            Some(ts) => {
                if ts.len() != t.flow.len() {
                    return Err(format!(
                        "{name}: {} timestamps for {} packets",
                        ts.len(),
                        t.flow.len()
                    )
                    .into());
                }
                if let Some(i) = ts.windows(2).position(|w| w[1] < w[0]) {
                    return Err(format!(
                        "{name}: packet {}: timestamp {} is before the previous one ({})",
                        i + 1,
                        ts[i + 1],
                        ts[i]
                    )
                    .into());
                }
                ts
            }
            None => (0..t.flow.len() as u64).map(|i| i * interval_ns).collect(),
        };
        Ok(t)
    }

    /// Packets.
    pub fn len(&self) -> usize {
        self.flow.len()
    }

    /// True when the trace has no packet.
    pub fn is_empty(&self) -> bool {
        self.flow.is_empty()
    }
}

/// Counts of a finished (or partial) pass over a source.
#[derive(Clone, Debug, Default)]
pub struct SourceReport {
    /// Path, or `synthetic`.
    pub path: String,
    /// Packets delivered (IP packets with a flow key).
    pub packets: u64,
    /// Distinct flows (5-tuples).
    pub flows: u64,
    /// Records skipped (non-IP or broken).
    pub skipped: u64,
    /// Set when the input ended in the middle of a record or was corrupt.
    pub truncated: Option<String>,
}

/// FxHash-style hasher for the flow map (no SipHash on the hot path).
#[derive(Default, Clone, Copy)]
pub struct FlowHasher(u64);

impl Hasher for FlowHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        crate::util::splitmix64(self.0)
    }
}

enum Inner {
    Pcap {
        rd: PacketReader,
        ids: HashMap<FlowKey, u32, BuildHasherDefault<FlowHasher>>,
        keys: Vec<FlowKey>,
        hashes: Vec<(u32, u32)>,
    },
    Compact {
        rd: CompactReader<Box<dyn BufRead + Send>>,
        hashes: Vec<(u32, u32)>,
    },
    Synth {
        g: SynthTrace,
        hashes: Vec<(u32, u32)>,
    },
    Memory {
        t: Arc<MemoryTrace>,
        pos: usize,
        seen: usize,
    },
}

/// An open pass over a [`TraceSource`].
pub struct TraceStream {
    inner: Inner,
    report: SourceReport,
}

impl TraceSource {
    /// A short name for reports.
    pub fn name(&self) -> String {
        match self {
            TraceSource::Pcap(p) | TraceSource::Compact(p) => p.display().to_string(),
            TraceSource::Synthetic(c) => format!("synthetic:{}:seed{}", c.packets, c.seed),
            TraceSource::Memory(t) => t.name.clone(),
        }
    }

    /// Opens a pass. A file whose first bytes are the compact magic is read as compact
    /// whatever the variant says.
    pub fn open(&self) -> Result<TraceStream, IoError> {
        let inner = match self {
            TraceSource::Synthetic(c) => Inner::Synth {
                g: SynthTrace::new(c.clone()),
                hashes: Vec::new(),
            },
            TraceSource::Memory(t) => Inner::Memory {
                t: t.clone(),
                pos: 0,
                seen: 0,
            },
            TraceSource::Pcap(p) | TraceSource::Compact(p) => {
                let mut rd = open_maybe_compressed(p)?;
                let magic = rd.fill_buf().map(|b| b.starts_with(b"PKTLFT01"));
                if matches!(magic, Ok(true)) {
                    Inner::Compact {
                        rd: CompactReader::new(rd, &p.display().to_string())?,
                        hashes: Vec::new(),
                    }
                } else {
                    drop(rd);
                    Inner::Pcap {
                        rd: PacketReader::open(p)?,
                        ids: HashMap::default(),
                        keys: Vec::new(),
                        hashes: Vec::new(),
                    }
                }
            }
        };
        Ok(TraceStream {
            inner,
            report: SourceReport {
                path: self.name(),
                ..SourceReport::default()
            },
        })
    }
}

fn hashes_of(k: &FlowKey) -> (u32, u32) {
    (k.crc32(), k.xor32())
}

impl TraceStream {
    /// Clears `buf` and fills it with up to `max` packets; returns false when the source is
    /// exhausted and nothing was added.
    pub fn fill(&mut self, buf: &mut Vec<TracePacket>, max: usize) -> bool {
        buf.clear();
        while buf.len() < max {
            let Some((ts_ns, flow, (crc, xor))) = self.next() else {
                break;
            };
            buf.push(TracePacket {
                ts_ns,
                flow,
                crc,
                xor,
            });
        }
        self.report.packets += buf.len() as u64;
        !buf.is_empty()
    }

    /// The next `(ts, flow id, (crc, xor))`.
    #[inline]
    fn next(&mut self) -> Option<(u64, u32, (u32, u32))> {
        match &mut self.inner {
            Inner::Synth { g, hashes } => {
                let (t, id) = g.next_packet()?;
                if id as usize == hashes.len() {
                    hashes.push(hashes_of(&g.key(id)));
                }
                Some((t, id, hashes[id as usize]))
            }
            Inner::Memory { t, pos, seen } => {
                let i = *pos;
                let id = *t.flow.get(i)?;
                *pos += 1;
                *seen = (*seen).max(id as usize + 1);
                Some((t.ts_ns[i], id, t.hashes[id as usize]))
            }
            Inner::Compact { rd, hashes } => {
                let (t, id) = rd.next_packet()?;
                if id as usize == hashes.len() {
                    hashes.push(hashes_of(rd.key(id)?));
                }
                Some((t, id, hashes[id as usize]))
            }
            Inner::Pcap {
                rd,
                ids,
                keys,
                hashes,
            } => loop {
                let r = rd.next_record()?;
                let Some(k) = r.key else { continue };
                let next = keys.len() as u32;
                let id = *ids.entry(k).or_insert(next);
                if id == next {
                    keys.push(k);
                    hashes.push(hashes_of(&k));
                }
                return Some((r.ts_ns, id, hashes[id as usize]));
            },
        }
    }

    /// The 5-tuple of flow `id` (seen in this pass).
    pub fn key(&self, id: u32) -> Option<FlowKey> {
        match &self.inner {
            Inner::Synth { g, hashes } => ((id as usize) < hashes.len()).then(|| g.key(id)),
            Inner::Compact { rd, .. } => rd.key(id).copied(),
            Inner::Pcap { keys, .. } => keys.get(id as usize).copied(),
            Inner::Memory { t, seen, .. } => ((id as usize) < *seen).then(|| t.keys[id as usize]),
        }
    }

    /// Counts so far (final after [`TraceStream::fill`] returned false).
    pub fn report(&self) -> SourceReport {
        let mut r = self.report.clone();
        match &self.inner {
            Inner::Synth { hashes, .. } | Inner::Compact { hashes, .. } => {
                r.flows = hashes.len() as u64
            }
            Inner::Memory { seen, .. } => r.flows = *seen as u64,
            Inner::Pcap { rd, keys, .. } => {
                r.flows = keys.len() as u64;
                let PacketReport {
                    skipped, truncated, ..
                } = rd.report();
                r.skipped = *skipped;
                r.truncated = truncated.clone();
            }
        }
        if let Inner::Compact { rd, .. } = &self.inner {
            r.truncated = rd.truncated.clone();
        }
        r
    }
}

/// Next-use indices for an offline policy: `out[i]` = index of the next packet of packet
/// `i`'s flow, `u32::MAX` if none. One streaming pass; 4 bytes per packet.
pub fn next_uses(src: &TraceSource, chunk: usize) -> Result<Vec<u32>, IoError> {
    let mut s = src.open()?;
    let mut buf = Vec::with_capacity(chunk);
    let mut last: Vec<u32> = Vec::new();
    let mut out: Vec<u32> = Vec::new();
    while s.fill(&mut buf, chunk) {
        for p in &buf {
            let i = out.len() as u32;
            out.push(u32::MAX);
            let f = p.flow as usize;
            if f >= last.len() {
                last.resize(f + 1, u32::MAX);
            }
            if last[f] != u32::MAX {
                out[last[f] as usize] = i;
            }
            last[f] = i;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u8) -> FlowKey {
        FlowKey::v4([10, 0, 0, i], [10, 0, 1, 1], 1000 + i as u16, 80, 6)
    }

    #[test]
    fn memory_trace_assigns_dense_ids_and_streams_in_order() {
        let keys = [1, 2, 1, 3, 2, 1].map(key);
        let t = MemoryTrace::new("mem", keys, None, 10).unwrap();
        let src = TraceSource::Memory(Arc::new(t));
        let mut s = src.open().unwrap();
        let mut buf = Vec::new();
        assert!(s.fill(&mut buf, 4));
        let ids: Vec<u32> = buf.iter().map(|p| p.flow).collect();
        assert_eq!(ids, [0, 1, 0, 2]);
        assert_eq!(buf[3].ts_ns, 30);
        assert_eq!(buf[1].crc, key(2).crc32());
        assert_eq!(s.key(2), Some(key(3)));
        assert!(s.fill(&mut buf, 4));
        assert_eq!(buf.len(), 2);
        assert!(!s.fill(&mut buf, 4));
        let r = s.report();
        assert_eq!((r.packets, r.flows, r.path.as_str()), (6, 3, "mem"));
        assert_eq!(
            next_uses(&src, 2).unwrap(),
            [2, 4, 5, u32::MAX, u32::MAX, u32::MAX]
        );
    }

    #[test]
    fn memory_trace_rejects_bad_timestamps() {
        let e = MemoryTrace::new("x", [1, 2, 3].map(key), Some(vec![5, 4, 6]), 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x: packet 1: timestamp 4 is before the previous one (5)"
        );
        let e = MemoryTrace::new("x", [1, 2].map(key), Some(vec![5]), 1).unwrap_err();
        assert_eq!(e.to_string(), "x: 1 timestamps for 2 packets");
    }
}
