//! Counters of the virtio ports ([`super::vhost_user`], [`super::virtio_user`]): every packet
//! a port takes from or gives to a virtio ring is counted, and every one it cannot move is in
//! a named drop counter.

use std::sync::atomic::{AtomicU64, Ordering};

/// A snapshot of a virtio port's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct VirtioStats {
    /// Packets received from the peer's ring.
    pub rx: u64,
    /// Frame bytes received (virtio-net header excluded).
    pub rx_bytes: u64,
    /// Received chains refused: a descriptor index, address or length outside the ring or
    /// the shared memory, a loop, an indirect or wrongly directed descriptor, or a used id
    /// the device made up (dropped).
    pub rx_bad_desc: u64,
    /// Received packets longer than a buffer's data room (dropped).
    pub rx_oversize: u64,
    /// Packets still in the peer's transmit ring when it stopped the ring (a frontend that
    /// shut down without waiting): they never reached this port.
    pub rx_abandoned: u64,
    /// Packets given to the peer's ring.
    pub tx: u64,
    /// Frame bytes given.
    pub tx_bytes: u64,
    /// Packets dropped because the peer's receive ring had no free buffer.
    pub tx_no_buffers: u64,
    /// Packets dropped because no peer was connected or its ring was not running.
    pub tx_not_ready: u64,
    /// Packets dropped because they did not fit the peer's buffers (no `MRG_RXBUF`).
    pub tx_too_long: u64,
    /// Packets dropped because the peer's receive chain was malformed.
    pub tx_bad_desc: u64,
    /// Frontend connections accepted (or made, `,client`).
    pub connects: u64,
    /// Connections that ended (the frontend left or broke the protocol).
    pub disconnects: u64,
    /// Connections dropped for a protocol error.
    pub protocol_errors: u64,
    /// Memory tables or rings refused at set-up (unmappable, outside the shared memory).
    pub bad_setup: u64,
}

impl VirtioStats {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &VirtioStats) {
        self.rx += o.rx;
        self.rx_bytes += o.rx_bytes;
        self.rx_bad_desc += o.rx_bad_desc;
        self.rx_oversize += o.rx_oversize;
        self.rx_abandoned += o.rx_abandoned;
        self.tx += o.tx;
        self.tx_bytes += o.tx_bytes;
        self.tx_no_buffers += o.tx_no_buffers;
        self.tx_not_ready += o.tx_not_ready;
        self.tx_too_long += o.tx_too_long;
        self.tx_bad_desc += o.tx_bad_desc;
        self.connects += o.connects;
        self.disconnects += o.disconnects;
        self.protocol_errors += o.protocol_errors;
        self.bad_setup += o.bad_setup;
    }

    /// Packets dropped on transmit, all causes.
    pub fn tx_dropped(&self) -> u64 {
        self.tx_no_buffers + self.tx_not_ready + self.tx_too_long + self.tx_bad_desc
    }

    /// Packets dropped on receive, all causes.
    pub fn rx_dropped(&self) -> u64 {
        self.rx_bad_desc + self.rx_oversize
    }
}

/// Counters a port shares with whoever reports progress: a port keeps a [`VirtioStats`] of
/// its own and stores it here once per burst; the control thread adds connection events.
#[derive(Debug, Default)]
pub struct VirtioCounters {
    pub(crate) rx: AtomicU64,
    pub(crate) rx_bytes: AtomicU64,
    pub(crate) rx_bad_desc: AtomicU64,
    pub(crate) rx_oversize: AtomicU64,
    pub(crate) rx_abandoned: AtomicU64,
    pub(crate) tx: AtomicU64,
    pub(crate) tx_bytes: AtomicU64,
    pub(crate) tx_no_buffers: AtomicU64,
    pub(crate) tx_not_ready: AtomicU64,
    pub(crate) tx_too_long: AtomicU64,
    pub(crate) tx_bad_desc: AtomicU64,
    pub(crate) connects: AtomicU64,
    pub(crate) disconnects: AtomicU64,
    pub(crate) protocol_errors: AtomicU64,
    pub(crate) bad_setup: AtomicU64,
}

impl VirtioCounters {
    /// Stores a port's packet counts (not the connection events).
    #[inline]
    pub(crate) fn store(&self, s: &VirtioStats) {
        let r = Ordering::Relaxed;
        self.rx.store(s.rx, r);
        self.rx_bytes.store(s.rx_bytes, r);
        self.rx_bad_desc.store(s.rx_bad_desc, r);
        self.rx_oversize.store(s.rx_oversize, r);
        self.rx_abandoned.store(s.rx_abandoned, r);
        self.tx.store(s.tx, r);
        self.tx_bytes.store(s.tx_bytes, r);
        self.tx_no_buffers.store(s.tx_no_buffers, r);
        self.tx_not_ready.store(s.tx_not_ready, r);
        self.tx_too_long.store(s.tx_too_long, r);
        self.tx_bad_desc.store(s.tx_bad_desc, r);
    }

    /// The current values.
    pub fn snapshot(&self) -> VirtioStats {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        VirtioStats {
            rx: g(&self.rx),
            rx_bytes: g(&self.rx_bytes),
            rx_bad_desc: g(&self.rx_bad_desc),
            rx_oversize: g(&self.rx_oversize),
            rx_abandoned: g(&self.rx_abandoned),
            tx: g(&self.tx),
            tx_bytes: g(&self.tx_bytes),
            tx_no_buffers: g(&self.tx_no_buffers),
            tx_not_ready: g(&self.tx_not_ready),
            tx_too_long: g(&self.tx_too_long),
            tx_bad_desc: g(&self.tx_bad_desc),
            connects: g(&self.connects),
            disconnects: g(&self.disconnects),
            protocol_errors: g(&self.protocol_errors),
            bad_setup: g(&self.bad_setup),
        }
    }
}
