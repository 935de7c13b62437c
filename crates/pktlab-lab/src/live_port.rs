//! The live ports `gen` and `sink` ([`super::live`]) send and receive on: an interface
//! (`afpacket:IFACE`, given as the bare name) or a CNF's virtio NIC on a vhost-user switch
//! (`virtio-user:PATH`, [`pktlab::port::virtio_user`]). One `match` per call; the frame
//! loops stay in `live`.

use pktlab::port::afpacket::{AfPacketRx, AfPacketTx};
use pktlab::port::virtio_stats::VirtioStats;
use pktlab::port::virtio_user::{self, VirtioUserRx, VirtioUserTx};
use pktlab::port::TxPort as _;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long `gen`/`sink` wait for a vhost-user switch's socket.
const CONNECT_WAIT: Duration = Duration::from_secs(10);

/// The virtio-user socket of a live port name, if it is one.
pub(crate) fn virtio_path(port: &str) -> Option<&Path> {
    port.strip_prefix("virtio-user:").map(Path::new)
}

fn connect(path: &Path) -> Result<(VirtioUserRx, VirtioUserTx), String> {
    let never = Arc::new(AtomicBool::new(false));
    virtio_user::connect(path, 0, false, CONNECT_WAIT, never).map_err(|e| e.to_string())
}

/// A generator's transmit port.
pub(crate) enum LiveTx {
    /// An interface.
    Af(AfPacketTx),
    /// A virtio-user port (its unused receive half is dropped; the connection stays).
    Virtio(VirtioUserTx),
}

impl LiveTx {
    /// Opens `port` (an interface name or `virtio-user:PATH`); a full ring makes `push` wait.
    pub(crate) fn open(port: &str) -> Result<LiveTx, String> {
        match virtio_path(port) {
            Some(p) => connect(p).map(|(_, t)| LiveTx::Virtio(t)),
            None => AfPacketTx::open(port, true).map(LiveTx::Af),
        }
    }

    /// Queues a frame; false if it was dropped (counted by the port).
    #[inline]
    pub(crate) fn push(&mut self, f: &[u8]) -> bool {
        match self {
            LiveTx::Af(t) => t.push(f),
            LiveTx::Virtio(t) => t.push(f),
        }
    }

    /// Hands what was queued to the other side.
    pub(crate) fn flush(&mut self) {
        match self {
            LiveTx::Af(t) => t.flush(),
            LiveTx::Virtio(t) => t.flush(),
        }
    }

    /// Waits up to `ms` for everything queued to be taken.
    pub(crate) fn drain(&mut self, ms: u64) {
        match self {
            LiveTx::Af(t) => t.drain(ms),
            LiveTx::Virtio(t) => t.drain(Duration::from_millis(ms)),
        }
    }

    /// Frames sent.
    pub(crate) fn packets(&self) -> u64 {
        match self {
            LiveTx::Af(t) => t.packets(),
            LiveTx::Virtio(t) => t.packets(),
        }
    }

    /// Frame bytes sent.
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            LiveTx::Af(t) => t.bytes(),
            LiveTx::Virtio(t) => t.stats().tx_bytes,
        }
    }

    /// Frames refused or dropped by the port.
    pub(crate) fn rejected(&self) -> u64 {
        match self {
            LiveTx::Af(t) => t.rejected(),
            LiveTx::Virtio(t) => t.stats().tx_dropped(),
        }
    }

    /// The virtio counters, for a virtio port.
    pub(crate) fn virtio(&self) -> Option<VirtioStats> {
        match self {
            LiveTx::Af(_) => None,
            LiveTx::Virtio(t) => Some(t.stats()),
        }
    }
}

/// A sink's receive port.
pub(crate) enum LiveRx {
    /// An interface.
    Af(AfPacketRx),
    /// A virtio-user port (its unused transmit half is dropped; the connection stays) and
    /// a frame buffer.
    Virtio(VirtioUserRx, Vec<u8>),
}

impl LiveRx {
    /// Opens `port` (an interface name or `virtio-user:PATH`).
    pub(crate) fn open(port: &str) -> Result<LiveRx, String> {
        match virtio_path(port) {
            Some(p) => connect(p).map(|(r, _)| LiveRx::Virtio(r, Vec::new())),
            None => {
                let never = Arc::new(AtomicBool::new(false));
                AfPacketRx::open(port, 0, None, never).map(LiveRx::Af)
            }
        }
    }

    /// Waits up to `ms` for frames (a virtio port only yields the CPU: its peer may need it).
    pub(crate) fn wait(&self, ms: i32) {
        match self {
            LiveRx::Af(r) => r.wait(ms),
            LiveRx::Virtio(..) => std::thread::yield_now(),
        }
    }

    /// Calls `f(frame)` for up to `max` received frames; returns how many.
    pub(crate) fn visit(&mut self, max: usize, mut f: impl FnMut(&[u8])) -> usize {
        match self {
            LiveRx::Af(r) => r.visit(max, |d, _, _| f(d)),
            LiveRx::Virtio(r, scratch) => r.visit(max, scratch, f),
        }
    }

    /// Frames lost before they could be counted: the kernel's ring drops, or malformed
    /// virtio buffers.
    pub(crate) fn drops(&mut self) -> u64 {
        match self {
            LiveRx::Af(r) => {
                r.poll_kernel_stats();
                r.counters().snapshot().rx_ring_drops
            }
            LiveRx::Virtio(r, ..) => r.stats().rx_dropped(),
        }
    }

    /// The virtio counters, for a virtio port.
    pub(crate) fn virtio(&self) -> Option<VirtioStats> {
        match self {
            LiveRx::Af(_) => None,
            LiveRx::Virtio(r, ..) => Some(r.stats()),
        }
    }
}
