//! `null:LEN` — DPDK's `net_null` (drivers/net/null, non-copy mode): rx takes buffers from
//! the pool and sets their length, port and nothing else (no packet data is written), tx
//! frees them. The forwarding-only measurement of paper 001 and of testpmd's `io` mode.

use super::{free_all, Bufs, Burst, RxPort, TxPort};
use crate::mbuf::{Layout, RxMeta};

/// Receive side: `remaining` packets of `len` bytes.
#[derive(Debug)]
pub struct NullRx {
    meta: RxMeta,
    remaining: u64,
}

impl NullRx {
    /// A queue that delivers `packets` packets of `len` bytes on input port `port`.
    pub fn new(len: u16, port: u16, packets: u64) -> NullRx {
        NullRx {
            meta: RxMeta {
                len,
                port,
                ..RxMeta::default()
            },
            remaining: packets,
        }
    }
}

impl RxPort for NullRx {
    #[inline]
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize {
        let (pool, cache, layout) = c.parts();
        let n = (max as u64).min(self.remaining) as usize;
        let start = out.len();
        if n == 0 || !cache.get_bulk(pool, n, out) {
            return 0;
        }
        for (i, b) in out[start..].iter_mut().enumerate() {
            layout.rx_init(pool, b, start + i, &self.meta);
        }
        self.remaining -= n as u64;
        n
    }
}

/// Transmit side: counts and frees.
#[derive(Debug, Default)]
pub struct NullTx {
    packets: u64,
    bytes: u64,
}

impl NullTx {
    /// Bytes "sent".
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl TxPort for NullTx {
    #[inline]
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], _t: &[u64]) {
        let (pool, cache, layout) = c.parts();
        self.packets += bufs.len() as u64;
        self.bytes += lens.iter().map(|&l| l as u64).sum::<u64>();
        free_all(pool, cache, layout, bufs);
    }

    fn packets(&self) -> u64 {
        self.packets
    }
}
