//! tx `pcap:PATH`: the frames sent are copied into memory during the run (no file I/O in the
//! timed loop) and written afterwards as one pcap in the input's link type with nanosecond
//! timestamps, the workers' outputs merged in time order.

use super::{free_all, Bufs, Burst, TxPort};
use crate::io::pcap_write::{PcapWriter, TsResolution};
use crate::mbuf::Layout;
use std::io::Write;

/// Frames sent by one worker.
#[derive(Debug, Default)]
pub struct CaptureTx {
    data: Vec<u8>,
    recs: Vec<(u64, usize, u16)>,
}

impl CaptureTx {
    /// An empty capture with room for about `packets` frames of `bytes` total.
    pub fn with_capacity(packets: usize, bytes: usize) -> CaptureTx {
        CaptureTx {
            data: Vec::with_capacity(bytes),
            recs: Vec::with_capacity(packets),
        }
    }

    /// Writes the frames of every capture in `parts`, merged by timestamp (ties keep the
    /// order of `parts`, then of sending), as a pcap of link type `linktype`.
    pub fn write_merged<W: Write>(
        parts: &[CaptureTx],
        linktype: u32,
        w: W,
    ) -> std::io::Result<u64> {
        let mut order: Vec<(u64, usize, usize)> = Vec::new();
        for (p, c) in parts.iter().enumerate() {
            order.extend(c.recs.iter().enumerate().map(|(i, r)| (r.0, p, i)));
        }
        order.sort_by_key(|&(ts, p, i)| (ts, p, i));
        let mut out = PcapWriter::with_format(w, linktype, TsResolution::Nanos)?;
        for (ts, p, i) in order {
            let (_, off, len) = parts[p].recs[i];
            out.write(ts, &parts[p].data[off..off + len as usize])?;
        }
        let n = out.records();
        out.finish()?;
        Ok(n)
    }
}

impl TxPort for CaptureTx {
    #[inline]
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], ts: &[u64]) {
        let (pool, cache, layout) = c.parts();
        for ((b, &len), &t) in bufs.iter().zip(lens).zip(ts) {
            let off = self.data.len();
            self.data.extend_from_slice(&pool.data(b)[..len as usize]);
            self.recs.push((t, off, len));
        }
        free_all(pool, cache, layout, bufs);
    }

    fn packets(&self) -> u64 {
        self.recs.len() as u64
    }

    fn wants_timestamps(&self) -> bool {
        true
    }
}
