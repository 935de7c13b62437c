//! The transmit side: a TPACKET_V2 ring with qdisc bypass.

use super::*;
use crate::mbuf::Layout;
use crate::port::{free_all, Bufs, Burst, TxPort};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A transmit queue on a live interface.
pub struct AfPacketTx {
    fd: OwnedFd,
    ring: Mmap,
    iface: Iface,
    head: usize,
    queued: usize,
    wait_when_full: bool,
    counters: Arc<PortCounters>,
    packets: u64,
    bytes: u64,
    full: u64,
    rejected: u64,
}

impl std::fmt::Debug for AfPacketTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AfPacketTx")
            .field("iface", &self.iface)
            .finish()
    }
}

impl AfPacketTx {
    /// Opens a transmit queue on `iface`. With `wait_when_full` a full ring makes the sender
    /// wait for free slots (a generator); without, the frame is dropped and counted (a
    /// router's full tx queue).
    pub fn open(iface: &str, wait_when_full: bool) -> Result<AfPacketTx, String> {
        let ifc = Iface::lookup(iface)?;
        let fd = packet_socket(iface)?;
        let v = libc::tpacket_versions::TPACKET_V2 as libc::c_int;
        setopt(&fd, libc::SOL_PACKET, libc::PACKET_VERSION, &v)
            .map_err(|e| format!("afpacket:{iface}: TPACKET_V2 unsupported: {e}"))?;
        let _ = setopt(&fd, libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, &1i32);
        let req = libc::tpacket_req {
            tp_block_size: TX_BLOCK as u32,
            tp_block_nr: (TX_FRAMES * TX_FRAME / TX_BLOCK) as u32,
            tp_frame_size: TX_FRAME as u32,
            tp_frame_nr: TX_FRAMES as u32,
        };
        setopt(&fd, libc::SOL_PACKET, libc::PACKET_TX_RING, &req)
            .map_err(|e| format!("afpacket:{iface}: cannot set up the tx ring: {e}"))?;
        let ring = map_ring(&fd, TX_FRAMES * TX_FRAME, iface)?;
        bind(&fd, &ifc, 0)?;
        Ok(AfPacketTx {
            fd,
            ring,
            iface: ifc,
            head: 0,
            queued: 0,
            wait_when_full,
            counters: Arc::new(PortCounters::default()),
            packets: 0,
            bytes: 0,
            full: 0,
            rejected: 0,
        })
    }

    /// The interface.
    pub fn iface(&self) -> &Iface {
        &self.iface
    }

    /// The counters this queue updates.
    pub fn counters(&self) -> Arc<PortCounters> {
        self.counters.clone()
    }

    /// Largest frame a slot holds.
    pub const MAX_FRAME: usize = TX_FRAME - TX_DATA_OFF;

    fn slot(&self, i: usize) -> *mut u8 {
        // SAFETY: i < TX_FRAMES, inside the mapping.
        unsafe { self.ring.base.add(i * TX_FRAME) }
    }

    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: tp_status is the first u32 of the slot's tpacket2_hdr (4-aligned); the
        // kernel writes it concurrently.
        unsafe { AtomicU32::from_ptr(self.slot(i).cast::<u32>()) }
    }

    /// Queues `frame` in the next ring slot (kicking the kernel every [`TX_KICK`] frames);
    /// false if it was dropped (ring full and not waiting, or too long).
    pub fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > Self::MAX_FRAME {
            self.rejected += 1;
            return false;
        }
        let mut st = self.status(self.head).load(Ordering::Acquire);
        if st & libc::TP_STATUS_WRONG_FORMAT != 0 {
            self.rejected += 1;
            st = libc::TP_STATUS_AVAILABLE;
        }
        if st != libc::TP_STATUS_AVAILABLE {
            self.flush();
            loop {
                st = self.status(self.head).load(Ordering::Acquire);
                if st == libc::TP_STATUS_AVAILABLE || st & libc::TP_STATUS_WRONG_FORMAT != 0 {
                    break;
                }
                if !self.wait_when_full {
                    self.full += 1;
                    return false;
                }
                poll_fd(&self.fd, libc::POLLOUT, 10);
            }
        }
        let s = self.slot(self.head);
        // SAFETY: the slot is AVAILABLE, hence ours; data fits (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(frame.as_ptr(), s.add(TX_DATA_OFF), frame.len());
            let h = s.cast::<libc::tpacket2_hdr>();
            (*h).tp_len = frame.len() as u32;
            (*h).tp_snaplen = frame.len() as u32;
        }
        self.status(self.head)
            .store(libc::TP_STATUS_SEND_REQUEST, Ordering::Release);
        self.head = (self.head + 1) % TX_FRAMES;
        self.queued += 1;
        self.packets += 1;
        self.bytes += frame.len() as u64;
        if self.queued >= TX_KICK {
            self.flush();
        }
        true
    }

    /// Asks the kernel to send every queued frame.
    pub fn flush(&mut self) {
        if self.queued > 0 {
            // SAFETY: send with no data on a tx-ring socket transmits the ring's requests.
            unsafe { libc::send(self.fd.as_raw_fd(), std::ptr::null(), 0, libc::MSG_DONTWAIT) };
            self.queued = 0;
        }
        self.counters.tx.store(self.packets, Ordering::Relaxed);
        self.counters.tx_bytes.store(self.bytes, Ordering::Relaxed);
        self.counters
            .tx_ring_full
            .store(self.full, Ordering::Relaxed);
        self.counters
            .tx_rejected
            .store(self.rejected, Ordering::Relaxed);
    }

    /// Waits until the kernel has sent every queued frame (or `timeout_ms` passed).
    pub fn drain(&mut self, timeout_ms: u64) {
        self.flush();
        let t = std::time::Instant::now();
        let last = (self.head + TX_FRAMES - 1) % TX_FRAMES;
        while self.status(last).load(Ordering::Acquire)
            & (libc::TP_STATUS_SEND_REQUEST | libc::TP_STATUS_SENDING)
            != 0
            && t.elapsed().as_millis() < timeout_ms as u128
        {
            // SAFETY: as in `flush`.
            unsafe { libc::send(self.fd.as_raw_fd(), std::ptr::null(), 0, libc::MSG_DONTWAIT) };
            poll_fd(&self.fd, libc::POLLOUT, 1);
        }
    }

    /// Frames dropped because the ring was full.
    pub fn ring_full(&self) -> u64 {
        self.full
    }

    /// Frames rejected (too long, or refused by the kernel).
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// Frame bytes queued for sending.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl TxPort for AfPacketTx {
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], _t: &[u64]) {
        let (pool, cache, layout) = c.parts();
        for (b, &len) in bufs.iter().zip(lens) {
            self.push(&pool.data(b)[..len as usize]);
        }
        self.flush();
        free_all(pool, cache, layout, bufs);
    }

    fn packets(&self) -> u64 {
        self.packets
    }
}

impl Drop for AfPacketTx {
    fn drop(&mut self) {
        self.drain(200);
    }
}
