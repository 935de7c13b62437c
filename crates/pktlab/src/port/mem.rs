//! `pcap:PATH` and `synthetic` receive ports: frames held in memory (read whole before any
//! timing starts), split over the workers' receive queues by the RSS hash as a NIC would,
//! and replayed `repeat` times; rx copies each frame into a pool buffer (the NIC's DMA) and
//! writes its metadata.
//!
//! The synthetic port builds one 60-byte Ethernet frame (64 B on the wire with the FCS) per
//! packet of the AGH-calibrated flow trace ([`crate::traffic::flows`]): IPv4 + TCP, UDP or
//! ICMP echo headers with valid checksums and no payload, padded to the Ethernet minimum.
//! Timestamps are the trace's; each replay round shifts them by the trace's span plus one
//! mean inter-packet gap, so time keeps increasing.

use super::rss::{flow_hash, queue_of};
use super::{Bufs, Burst, RxPort};
use crate::io::packets::{flow_key, PacketReader};
use crate::io::pcap_write::{build_frame, tcp_flags, Ips, L4, LINKTYPE_ETHERNET};
use crate::io::IoError;
use crate::mbuf::{Layout, RxMeta, DATA_ROOM};
use crate::traffic::{SynthConfig, SynthTrace};
use pcap_parser::Linktype;
use std::path::Path;

/// One frame of a [`MemFrames`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemRec {
    /// Offset of the frame in the data.
    pub off: usize,
    /// Frame length.
    pub len: u16,
    /// RSS hash of the frame's flow (0 for non-IP).
    pub rss: u32,
    /// Timestamp, ns.
    pub ts_ns: u64,
}

/// Frames in memory: one receive queue's worth.
#[derive(Clone, Debug, Default)]
pub struct MemFrames {
    /// Concatenated frame bytes.
    pub data: Vec<u8>,
    /// The frames, in receive order.
    pub recs: Vec<MemRec>,
}

/// What loading an input found.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Input name.
    pub path: String,
    /// Link type of the frames (pcap LINKTYPE_*).
    pub linktype: u32,
    /// Frames read (one replay round).
    pub frames: u64,
    /// Frames not loaded, counted as parse drops: larger than a buffer's data room, or of
    /// a link type other than the first packet's.
    pub unloadable: u64,
    /// First and last timestamp.
    pub ts_range: (u64, u64),
    /// A note when the input was cut (truncated capture).
    pub truncated: Option<String>,
}

impl MemFrames {
    fn push(&mut self, frame: &[u8], rss: u32, ts_ns: u64) {
        let off = self.data.len();
        self.data.extend_from_slice(frame);
        self.recs.push(MemRec {
            off,
            len: frame.len() as u16,
            rss,
            ts_ns,
        });
    }

    /// Frames in this queue.
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// True when the queue has no frame.
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }
}

/// Reads a capture into `queues` receive queues (by RSS hash of each frame's 5-tuple).
pub fn load_pcap(path: &Path, queues: usize) -> Result<(Vec<MemFrames>, LoadReport), IoError> {
    let mut rd = PacketReader::open(path)?;
    let mut out = vec![MemFrames::default(); queues.max(1)];
    let mut rep = LoadReport {
        path: path.display().to_string(),
        ts_range: (u64::MAX, 0),
        ..LoadReport::default()
    };
    let mut lt0: Option<Linktype> = None;
    while let Some(()) = rd.next_frame(|ts, lt, data| {
        rep.frames += 1;
        let lt = match (lt, lt0) {
            (Some(l), None) => {
                lt0 = Some(l);
                l
            }
            (Some(l), Some(l0)) if l == l0 => l,
            _ => {
                rep.unloadable += 1;
                return;
            }
        };
        if data.len() > DATA_ROOM {
            rep.unloadable += 1;
            return;
        }
        let rss = flow_key(lt, data).map(|k| flow_hash(&k)).unwrap_or(0);
        rep.ts_range = (rep.ts_range.0.min(ts), rep.ts_range.1.max(ts));
        let q = queue_of(rss, out.len());
        out[q].push(data, rss, ts);
    }) {}
    rep.truncated = rd.report().truncated.clone();
    rep.linktype = lt0.map(|l| l.0 as u32).unwrap_or(LINKTYPE_ETHERNET);
    if rep.ts_range.0 > rep.ts_range.1 {
        rep.ts_range = (0, 0);
    }
    Ok((out, rep))
}

/// Bytes of every synthetic frame (64 on the wire with the FCS).
pub const SYNTH_FRAME: usize = 60;

/// The AGH-calibrated synthetic trace (`packets` packets, `seed`) as Ethernet frames split
/// into `queues` receive queues.
pub fn load_synthetic(packets: u64, seed: u64, queues: usize) -> (Vec<MemFrames>, LoadReport) {
    let mut g = SynthTrace::new(SynthConfig {
        packets,
        seed,
        ..SynthConfig::default()
    });
    let mut out = vec![MemFrames::default(); queues.max(1)];
    for q in out.iter_mut() {
        q.data
            .reserve(packets as usize * SYNTH_FRAME / queues.max(1));
    }
    let mut rep = LoadReport {
        path: format!("synthetic:{packets}:seed{seed}"),
        linktype: LINKTYPE_ETHERNET,
        ts_range: (u64::MAX, 0),
        ..LoadReport::default()
    };
    let mut f = Vec::with_capacity(128);
    let mut seq = 0u32;
    while let Some((ts, id)) = g.next_packet() {
        let k = g.key(id);
        let l4 = match k.proto {
            6 => L4::Tcp {
                sport: k.sport,
                dport: k.dport,
                seq,
                ack: 1,
                flags: tcp_flags::ACK,
            },
            17 => L4::Udp {
                sport: k.sport,
                dport: k.dport,
            },
            _ => L4::Echo {
                id: (id & 0xffff) as u16,
                seq: seq as u16,
            },
        };
        seq = seq.wrapping_add(1);
        build_frame(&mut f, Ips::from_key(&k), l4, &[]).expect("no payload");
        f.resize(SYNTH_FRAME.max(f.len()), 0);
        let rss = flow_hash(&k);
        rep.frames += 1;
        rep.ts_range = (rep.ts_range.0.min(ts), rep.ts_range.1.max(ts));
        let q = queue_of(rss, out.len());
        out[q].push(&f, rss, ts);
    }
    if rep.ts_range.0 > rep.ts_range.1 {
        rep.ts_range = (0, 0);
    }
    (out, rep)
}

/// A receive queue replaying a [`MemFrames`] `repeat` times.
#[derive(Debug)]
pub struct MemRx {
    frames: MemFrames,
    port: u16,
    pos: usize,
    round: u64,
    repeat: u64,
    shift: u64,
}

impl MemRx {
    /// Replays `frames` `repeat` times on input port `port`, shifting timestamps by `shift`
    /// ns per round.
    pub fn new(frames: MemFrames, port: u16, repeat: u64, shift: u64) -> MemRx {
        MemRx {
            frames,
            port,
            pos: 0,
            round: 0,
            repeat,
            shift,
        }
    }

    /// Packets this queue delivers in all.
    pub fn total(&self) -> u64 {
        self.frames.len() as u64 * self.repeat
    }
}

impl RxPort for MemRx {
    #[inline]
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize {
        let (pool, cache, layout) = c.parts();
        if self.pos == self.frames.recs.len() {
            if self.round + 1 >= self.repeat || self.frames.recs.is_empty() {
                return 0;
            }
            self.round += 1;
            self.pos = 0;
        }
        let n = max.min(self.frames.recs.len() - self.pos);
        let start = out.len();
        if n == 0 || !cache.get_bulk(pool, n, out) {
            return 0;
        }
        let shift = self.round * self.shift;
        let recs = &self.frames.recs[self.pos..self.pos + n];
        for (b, r) in out[start..].iter_mut().zip(recs) {
            let len = r.len as usize;
            // SAFETY: `get_bulk` appended `out[start..]`, all handles of `pool`.
            let d = unsafe { pool.data_mut_unchecked(b) };
            d[..len].copy_from_slice(&self.frames.data[r.off..r.off + len]);
        }
        let port = self.port;
        let metas = recs.iter().map(|r| RxMeta {
            len: r.len,
            port,
            rss: r.rss,
            ts_ns: r.ts_ns + shift,
        });
        layout.rx_init_batch(pool, &mut out[start..], start, metas);
        self.pos += n;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mbuf::CompactConst;
    use std::sync::Arc;

    #[test]
    fn synthetic_frames_split_by_rss_and_replay() {
        let (qs, rep) = load_synthetic(5000, 1, 2);
        assert_eq!(rep.frames, 5000);
        assert_eq!(qs.iter().map(|q| q.len()).sum::<usize>(), 5000);
        assert!(qs.iter().all(|q| q.len() > 1000), "RSS spreads flows");
        for (w, q) in qs.iter().enumerate() {
            for r in &q.recs {
                assert_eq!(queue_of(r.rss, 2), w);
                assert_eq!(r.len as usize, SYNTH_FRAME);
                let k = flow_key(Linktype::ETHERNET, &q.data[r.off..r.off + SYNTH_FRAME]);
                assert_eq!(flow_hash(&k.unwrap()), r.rss);
            }
        }
        let q = qs[0].clone();
        let n = q.len();
        let pool = CompactConst::<16>::mbuf_pool(256);
        let mut cache = crate::mbuf::PoolCache::new(64);
        let mut l = CompactConst::<16>::new(Arc::new(()), 32);
        let mut rx = MemRx::new(q, 0, 2, 1_000_000);
        let (mut got, mut bufs, mut last) = (0, Vec::with_capacity(32), 0);
        loop {
            assert!(l.begin(32));
            let k = rx.rx_burst(&mut Bufs::new(&pool, &mut cache, &mut l), &mut bufs, 32);
            if k == 0 {
                l.end();
                break;
            }
            for (i, b) in bufs.iter().enumerate() {
                let t = l.ts_ns(&pool, b, i);
                assert!(t >= last || got + i == n, "time goes on across rounds");
                last = t;
                assert_eq!(l.data_len(&pool, b, i) as usize, SYNTH_FRAME);
            }
            got += k;
            l.end();
            cache.put_bulk(&pool, &mut bufs);
        }
        assert_eq!(got, 2 * n);
    }
}
