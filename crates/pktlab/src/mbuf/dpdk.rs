//! The `dpdk` metadata layout: 128 bytes (two cache lines) in front of every buffer, with
//! `struct rte_mbuf`'s fields, sizes and order (DPDK 22.11 `rte_mbuf_core.h`, x86-64 build
//! with `RTE_IOVA_AS_PA`) — the baseline of paper 001 ("DPDK (128 B metadata)").
//!
//! Per-packet work mirrors what DPDK does on the forwarding-only path:
//! * rx: `rte_pktmbuf_alloc_bulk` resets every mbuf (`rte_pktmbuf_reset`: `next`, `pkt_len`,
//!   `tx_offload`, `vlan_tci`, `vlan_tci_outer`, `nb_segs`, `port`, `ol_flags`,
//!   `packet_type`, `data_off`, `data_len` — both cache lines), then the driver sets
//!   `data_len`, `pkt_len`, `port` (and the RSS hash and timestamp when it has them);
//! * tx: the driver reads `pkt_len`/`data_len`, and `rte_pktmbuf_free` →
//!   `rte_pktmbuf_prefree_seg` reads `refcnt` and `next` (second line) before the mbuf
//!   returns to the mempool.
//!
//! Element layout in the pool: a 64-byte mempool object header, the 128-byte `rte_mbuf`,
//! `RTE_PKTMBUF_HEADROOM` (128) and the 2,048-byte data room = 2,368 bytes (37 lines).

use super::pool::{Buf, Plain, Pool};
use super::{Layout, RxMeta, DATA_ROOM, HEADROOM};
use std::sync::Arc;

/// `struct rte_mbuf` (DPDK 22.11, `RTE_IOVA_AS_PA` = 1), field for field. Pointers are kept
/// as `u64` (they are never dereferenced here).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default)]
pub struct RteMbuf {
    // --- cache line 0 ---
    /// Virtual address of the segment buffer.
    pub buf_addr: u64,
    /// IO address of the segment buffer.
    pub buf_iova: u64,
    /// Data offset in the segment buffer (rearm_data starts here).
    pub data_off: u16,
    /// Reference counter.
    pub refcnt: u16,
    /// Number of segments.
    pub nb_segs: u16,
    /// Input port.
    pub port: u16,
    /// Offload features (`RTE_MBUF_F_*`).
    pub ol_flags: u64,
    /// L2/L3/L4 and tunnel packet type (rx_descriptor_fields1 starts here).
    pub packet_type: u32,
    /// Total packet length (all segments).
    pub pkt_len: u32,
    /// Data length of this segment.
    pub data_len: u16,
    /// VLAN TCI.
    pub vlan_tci: u16,
    /// RSS hash (`hash.rss`), low 32 bits of the hash union.
    pub hash_rss: u32,
    /// High 32 bits of the hash union (FDIR id, sched, …).
    pub hash_hi: u32,
    /// Outer VLAN TCI.
    pub vlan_tci_outer: u16,
    /// Length of the segment buffer.
    pub buf_len: u16,
    /// The mempool the mbuf came from.
    pub pool: u64,
    // --- cache line 1 ---
    /// Next segment.
    pub next: u64,
    /// TX offload lengths (l2_len, l3_len, l4_len, tso_segsz, outer lengths).
    pub tx_offload: u64,
    /// Shared info of an external buffer.
    pub shinfo: u64,
    /// Size of the application private area.
    pub priv_size: u16,
    /// Timesync flags.
    pub timesync: u16,
    /// Dynamic fields (pktlab keeps the rx timestamp in the first two, as DPDK's
    /// `rte_mbuf_dynfield_timestamp` does).
    pub dynfield1: [u32; 9],
}

// SAFETY: repr(C), integers and an integer array only; every bit pattern is valid.
unsafe impl Plain for RteMbuf {}

const _: () = assert!(std::mem::size_of::<RteMbuf>() == 128);
const _: () = assert!(std::mem::offset_of!(RteMbuf, packet_type) == 32);
const _: () = assert!(std::mem::offset_of!(RteMbuf, pool) == 56);
const _: () = assert!(std::mem::offset_of!(RteMbuf, next) == 64);
const _: () = assert!(std::mem::offset_of!(RteMbuf, dynfield1) == 92);

/// Size of the mempool object header in front of each mbuf.
pub const OBJ_HEADER: usize = 64;
/// `RTE_MBUF_PORT_INVALID`.
const PORT_INVALID: u16 = u16::MAX;
/// `RTE_MBUF_F_RX_RSS_HASH`.
const F_RX_RSS_HASH: u64 = 1 << 1;
/// `RTE_MBUF_F_EXTERNAL` (kept across resets).
const F_EXTERNAL: u64 = 1 << 61;

/// The `dpdk` layout: metadata lives in each buffer's `rte_mbuf`.
#[derive(Debug, Default)]
pub struct Dpdk;

impl Dpdk {
    /// A pool of `count` mbufs with this layout's element format, every `rte_mbuf`
    /// initialised once as `rte_pktmbuf_init` does (buffer address, length, pool, refcnt).
    pub fn pool(count: u32) -> Pool {
        let mut p = Pool::new(count, OBJ_HEADER + 128 + HEADROOM, DATA_ROOM, true);
        let pool_id = &p as *const Pool as u64;
        p.init_each(|mut e| {
            let buf_addr = e.data_addr() as u64 - HEADROOM as u64;
            let m: &mut RteMbuf = e.header_mut(OBJ_HEADER);
            *m = RteMbuf {
                buf_addr,
                buf_iova: buf_addr,
                data_off: HEADROOM as u16,
                refcnt: 1,
                nb_segs: 1,
                port: PORT_INVALID,
                buf_len: (HEADROOM + DATA_ROOM) as u16,
                pool: pool_id,
                ..RteMbuf::default()
            };
        });
        p
    }
}

impl Layout for Dpdk {
    const NAME: &'static str = "dpdk";
    const META_BYTES: usize = 128;
    type Shared = ();

    fn shared(_max_batch: usize, _workers: usize) {}

    fn new(_shared: Arc<()>, _max_batch: usize) -> Self {
        Dpdk
    }

    fn mbuf_pool(count: u32) -> Pool {
        Dpdk::pool(count)
    }

    #[inline(always)]
    fn begin(&mut self, _n: usize) -> bool {
        true
    }

    #[inline(always)]
    fn rx_init(&mut self, pool: &Pool, buf: &mut Buf, _i: usize, rx: &RxMeta) {
        let m: &mut RteMbuf = pool.header_mut(buf, OBJ_HEADER);
        // rte_pktmbuf_reset
        m.next = 0;
        m.pkt_len = 0;
        m.tx_offload = 0;
        m.vlan_tci = 0;
        m.vlan_tci_outer = 0;
        m.nb_segs = 1;
        m.port = PORT_INVALID;
        m.ol_flags &= F_EXTERNAL;
        m.packet_type = 0;
        m.data_off = HEADROOM as u16;
        m.data_len = 0;
        // the driver's rx
        m.data_len = rx.len;
        m.pkt_len = rx.len as u32;
        m.port = rx.port;
        m.hash_rss = rx.rss;
        m.ol_flags |= F_RX_RSS_HASH;
        m.dynfield1[0] = rx.ts_ns as u32;
        m.dynfield1[1] = (rx.ts_ns >> 32) as u32;
    }

    #[inline(always)]
    fn data_len(&self, pool: &Pool, buf: &Buf, _i: usize) -> u16 {
        pool.header::<RteMbuf>(buf, OBJ_HEADER).data_len
    }

    #[inline(always)]
    fn rss(&self, pool: &Pool, buf: &Buf, _i: usize) -> u32 {
        pool.header::<RteMbuf>(buf, OBJ_HEADER).hash_rss
    }

    #[inline(always)]
    fn ts_ns(&self, pool: &Pool, buf: &Buf, _i: usize) -> u64 {
        let m = pool.header::<RteMbuf>(buf, OBJ_HEADER);
        m.dynfield1[0] as u64 | (m.dynfield1[1] as u64) << 32
    }

    #[inline(always)]
    fn release(&mut self, pool: &Pool, buf: &mut Buf) {
        // rte_pktmbuf_prefree_seg: refcnt 1 → no atomic; reset next/nb_segs if chained.
        let m: &mut RteMbuf = pool.header_mut(buf, OBJ_HEADER);
        if m.refcnt == 1 && m.next != 0 {
            m.next = 0;
            m.nb_segs = 1;
        }
    }

    #[inline(always)]
    fn end(&mut self) {}

    fn finish(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rx_writes_and_reads_back_fields() {
        let p = Dpdk::pool(4);
        let mut v = Vec::new();
        assert!(p.take(2, &mut v));
        let mut l = Dpdk;
        let rx = RxMeta {
            len: 60,
            port: 1,
            rss: 0xdead_beef,
            ts_ns: 0x1234_5678_9abc,
        };
        assert!(l.begin(2));
        l.rx_init(&p, &mut v[1], 1, &rx);
        assert_eq!(l.data_len(&p, &v[1], 1), 60);
        assert_eq!(l.rss(&p, &v[1], 1), 0xdead_beef);
        assert_eq!(l.ts_ns(&p, &v[1], 1), 0x1234_5678_9abc);
        let m = p.header::<RteMbuf>(&v[1], OBJ_HEADER);
        assert_eq!(
            (m.refcnt, m.nb_segs, m.data_off, m.buf_len),
            (1, 1, 128, 2176)
        );
        assert_eq!(m.buf_addr + 128, p.data(&v[1]).as_ptr() as u64);
        assert_eq!(p.stride(), 2368);
        l.release(&p, &mut v[1]);
        l.end();
    }
}
