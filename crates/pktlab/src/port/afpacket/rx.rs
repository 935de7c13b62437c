//! The receive side: a TPACKET_V3 ring of blocks, frames copied into pool buffers.

use super::*;
use crate::mbuf::{Buf, Layout, RxMeta, DATA_ROOM};
use crate::port::{Bufs, Burst, RxPort};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// A receive queue on a live interface.
pub struct AfPacketRx {
    fd: OwnedFd,
    ring: Mmap,
    iface: Iface,
    port: u16,
    block: usize,
    /// Packets left in the current block (`in_block`), and the offset of the next one.
    left: u32,
    next: usize,
    in_block: bool,
    stop: Arc<AtomicBool>,
    idle_poll_ms: i32,
    counters: Arc<PortCounters>,
    rx: u64,
    oversize: u64,
}

impl std::fmt::Debug for AfPacketRx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AfPacketRx")
            .field("iface", &self.iface)
            .finish()
    }
}

impl AfPacketRx {
    /// Opens a receive queue on `iface` as input port `port`. `fanout`: the group id to join
    /// with `PACKET_FANOUT_HASH` (several workers on one interface), or `None`. `rx_burst`
    /// waits for frames until `stop` is set, then returns 0.
    pub fn open(
        iface: &str,
        port: u16,
        fanout: Option<u16>,
        stop: Arc<AtomicBool>,
    ) -> Result<AfPacketRx, PortError> {
        let ifc = Iface::lookup(iface)?;
        let fd = packet_socket(iface)?;
        let v = libc::tpacket_versions::TPACKET_V3 as libc::c_int;
        setopt(&fd, libc::SOL_PACKET, libc::PACKET_VERSION, &v)
            .map_err(|e| format!("afpacket:{iface}: TPACKET_V3 unsupported: {e}"))?;
        let req = libc::tpacket_req3 {
            tp_block_size: RX_BLOCK as u32,
            tp_block_nr: RX_BLOCKS as u32,
            tp_frame_size: 2048,
            tp_frame_nr: (RX_BLOCK * RX_BLOCKS / 2048) as u32,
            tp_retire_blk_tov: RX_RETIRE_MS,
            tp_sizeof_priv: 0,
            tp_feature_req_word: libc::TP_FT_REQ_FILL_RXHASH,
        };
        setopt(&fd, libc::SOL_PACKET, libc::PACKET_RX_RING, &req)
            .map_err(|e| format!("afpacket:{iface}: cannot set up the rx ring: {e}"))?;
        let ring = map_ring(&fd, RX_BLOCK * RX_BLOCKS, iface)?;
        // Best effort: not seeing our own transmissions on this interface (Linux >= 4.20).
        let _ = setopt(&fd, libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, &1i32);
        bind(&fd, &ifc, libc::ETH_P_ALL as u16)?;
        if let Some(group) = fanout {
            let arg: u32 = group as u32 | (libc::PACKET_FANOUT_HASH << 16);
            setopt(&fd, libc::SOL_PACKET, libc::PACKET_FANOUT, &arg)
                .map_err(|e| format!("afpacket:{iface}: PACKET_FANOUT_HASH: {e}"))?;
        }
        Ok(AfPacketRx {
            fd,
            ring,
            iface: ifc,
            port,
            block: 0,
            left: 0,
            next: 0,
            in_block: false,
            stop,
            idle_poll_ms: IDLE_POLL_MS,
            counters: Arc::new(PortCounters::default()),
            rx: 0,
            oversize: 0,
        })
    }

    /// The interface.
    pub fn iface(&self) -> &Iface {
        &self.iface
    }

    /// How long an empty `rx_burst` waits for frames (default [`IDLE_POLL_MS`]); a worker
    /// whose tx port holds packets for later (a delay line) needs to come back sooner.
    pub fn set_idle_poll_ms(&mut self, ms: i32) {
        self.idle_poll_ms = ms.max(0);
    }

    /// The counters this queue updates.
    pub fn counters(&self) -> Arc<PortCounters> {
        self.counters.clone()
    }

    /// The socket (to wait on it together with other ports).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.fd.as_raw_fd()
    }

    /// Adds the kernel's drop count since the last call (`PACKET_STATISTICS` resets on read).
    pub fn poll_kernel_stats(&mut self) {
        // SAFETY: tpacket_stats_v3 is plain data.
        let mut st: libc::tpacket_stats_v3 = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tpacket_stats_v3>() as libc::socklen_t;
        // SAFETY: `st`/`len` describe a writable tpacket_stats_v3.
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                (&mut st as *mut libc::tpacket_stats_v3).cast(),
                &mut len,
            )
        };
        if r == 0 {
            self.counters
                .rx_ring_drops
                .fetch_add(st.tp_drops as u64, Ordering::Relaxed);
        }
    }

    fn block_desc(&self, b: usize) -> *mut libc::tpacket_block_desc {
        // SAFETY: b < RX_BLOCKS, inside the mapping.
        unsafe { self.ring.base.add(b * RX_BLOCK).cast() }
    }

    fn block_status(&self, b: usize) -> &AtomicU32 {
        let d = self.block_desc(b);
        // SAFETY: block_status is the first u32 of the (8-aligned) v1 header inside the
        // mapped block; the kernel writes it concurrently, hence the atomic view.
        unsafe { AtomicU32::from_ptr(std::ptr::addr_of_mut!((*d).hdr.bh1.block_status)) }
    }

    /// Hands the current block back to the kernel and moves to the next.
    fn release_block(&mut self) {
        self.block_status(self.block)
            .store(libc::TP_STATUS_KERNEL, Ordering::Release);
        self.block = (self.block + 1) % RX_BLOCKS;
        self.in_block = false;
    }

    /// Opens the next block if the kernel has handed it over.
    fn open_block(&mut self) -> bool {
        let st = self.block_status(self.block).load(Ordering::Acquire);
        if st & libc::TP_STATUS_USER == 0 {
            return false;
        }
        if st & libc::TP_STATUS_LOSING != 0 {
            self.poll_kernel_stats();
        }
        let d = self.block_desc(self.block);
        // SAFETY: the block is ours (status USER) until released; fields are plain u32s.
        let (n, first) = unsafe { ((*d).hdr.bh1.num_pkts, (*d).hdr.bh1.offset_to_first_pkt) };
        self.left = n;
        self.next = first as usize;
        self.in_block = true;
        true
    }

    /// Calls `f(frame, rxhash, ts_ns)` for up to `max` received frames without waiting;
    /// returns how many were visited.
    pub fn visit(&mut self, max: usize, mut f: impl FnMut(&[u8], u32, u64)) -> usize {
        let mut got = 0;
        while got < max {
            if !self.in_block || self.left == 0 {
                if self.in_block {
                    self.release_block();
                }
                if !self.open_block() {
                    break;
                }
                continue;
            }
            let base = self.block_desc(self.block) as *const u8;
            // SAFETY: `next` is the kernel-written offset of a tpacket3_hdr inside this block.
            let h = unsafe { &*(base.add(self.next) as *const libc::tpacket3_hdr) };
            let len = h.tp_snaplen as usize;
            // SAFETY: the frame lies at tp_mac inside the block (kernel invariant).
            let data =
                unsafe { std::slice::from_raw_parts(base.add(self.next + h.tp_mac as usize), len) };
            let ts = h.tp_sec as u64 * 1_000_000_000 + h.tp_nsec as u64;
            f(data, h.hv1.tp_rxhash, ts);
            self.next += h.tp_next_offset as usize;
            self.left -= 1;
            got += 1;
        }
        self.rx += got as u64;
        self.counters.rx.store(self.rx, Ordering::Relaxed);
        got
    }

    /// Waits up to `timeout_ms` for frames to arrive.
    pub fn wait(&self, timeout_ms: i32) {
        if self.in_block && self.left > 0 {
            return;
        }
        if self.block_status(self.block).load(Ordering::Acquire) & libc::TP_STATUS_USER != 0 {
            return;
        }
        poll_fd(&self.fd, libc::POLLIN | libc::POLLERR, timeout_ms);
    }

    /// Frames received so far (all visited frames, oversize ones included).
    pub fn received(&self) -> u64 {
        self.rx
    }
}

impl RxPort for AfPacketRx {
    /// Waits up to [`IDLE_POLL_MS`] (or [`AfPacketRx::set_idle_poll_ms`]) for frames when
    /// none is ready; returns 0 if none came.
    fn rx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, out: &mut Burst, max: usize) -> usize {
        let (pool, cache, layout) = c.parts();
        let start = out.len();
        let mut polled = false;
        loop {
            // Take as many buffers as frames are ready in the current block (or one block).
            if !self.in_block || self.left == 0 {
                if self.in_block {
                    self.release_block();
                }
                if !self.open_block() {
                    if out.len() > start || polled {
                        break;
                    }
                    if self.stop.load(Ordering::Relaxed) {
                        self.poll_kernel_stats();
                        return 0;
                    }
                    poll_fd(&self.fd, libc::POLLIN | libc::POLLERR, self.idle_poll_ms);
                    polled = true;
                }
                continue;
            }
            let want = (max - (out.len() - start)).min(self.left as usize);
            if want == 0 {
                break;
            }
            let at = out.len();
            if !cache.get_bulk(pool, want, out) {
                // Pool exhausted: leave the frames in the ring for the next burst.
                break;
            }
            let base = self.block_desc(self.block) as *const u8;
            let mut kept = at;
            for k in 0..want {
                let off = self.next;
                // SAFETY: as in `visit`.
                let h = unsafe { &*(base.add(off) as *const libc::tpacket3_hdr) };
                let len = h.tp_snaplen as usize;
                // The last frame of a block has tp_next_offset 0; `left` ends the walk.
                self.next += h.tp_next_offset as usize;
                self.left -= 1;
                self.rx += 1;
                if len > DATA_ROOM {
                    self.oversize += 1;
                    continue;
                }
                // SAFETY: as in `visit`.
                let data =
                    unsafe { std::slice::from_raw_parts(base.add(off + h.tp_mac as usize), len) };
                out.swap(kept, at + k);
                let b = &mut out[kept];
                pool.data_mut(b)[..len].copy_from_slice(data);
                let m = RxMeta {
                    len: len as u16,
                    port: self.port,
                    rss: h.hv1.tp_rxhash,
                    ts_ns: h.tp_sec as u64 * 1_000_000_000 + h.tp_nsec as u64,
                };
                layout.rx_init(pool, b, kept, &m);
                kept += 1;
            }
            if kept < at + want {
                // Oversize frames: their buffers go straight back.
                let mut spare: Vec<Buf> = out.drain(kept..).collect();
                cache.put_bulk(pool, &mut spare);
            }
            if out.len() - start >= max {
                break;
            }
        }
        let n = out.len() - start;
        self.counters.rx.store(self.rx, Ordering::Relaxed);
        self.counters
            .rx_oversize
            .store(self.oversize, Ordering::Relaxed);
        n
    }

    fn exhausted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl Drop for AfPacketRx {
    fn drop(&mut self) {
        self.poll_kernel_stats();
    }
}
