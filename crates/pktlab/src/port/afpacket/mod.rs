//! `afpacket:IFACE` — live Linux interfaces through AF_PACKET sockets with memory-mapped
//! rings, the software stand-in for the NIC queues of paper 001's data plane (DPDK's
//! `net_af_packet` PMD works the same way).
//!
//! * Receive: a `TPACKET_V3` rx ring (blocks of variable-length frames, 64 KiB × 256 per
//!   socket, block retirement timeout 1 ms so a lightly loaded port still delivers within about
//!   a millisecond). `AfPacketRx::rx_burst` copies frames straight from the ring into pool
//!   buffers (as a NIC's DMA would) and fills their metadata with the frame length, the
//!   kernel's flow hash (`tp_rxhash`, requested with `TP_FT_REQ_FILL_RXHASH`) and the
//!   kernel's receive timestamp. Several workers on one interface each open a socket joined
//!   to one `PACKET_FANOUT_HASH` group, so the kernel spreads flows over them as RSS does.
//!   Outgoing frames are ignored (`PACKET_IGNORE_OUTGOING`).
//! * Transmit: a `TPACKET_V2` tx ring (2,048-byte frames) on a socket with
//!   `PACKET_QDISC_BYPASS`: [`AfPacketTx`] copies each buffer into the next free ring frame,
//!   marks it `TP_STATUS_SEND_REQUEST`, and kicks the kernel with one `send()` per burst. The
//!   kernel attaches the ring pages to the skbs without a further copy. `sendmmsg` was measured
//!   against it (see `docs/results/ports.md`).
//!
//! Errors are one line naming the port and, for permissions, the missing capability.
//! Everything here is `libc`; no C shim.

mod rx;
#[cfg(test)]
mod tests;
mod tx;

pub use rx::AfPacketRx;
pub use tx::AfPacketTx;

use super::PortError;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes per rx ring block (about 500 minimum-size frames).
const RX_BLOCK: usize = 1 << 16;
/// Blocks per rx ring. At low rates every block retires after [`RX_RETIRE_MS`] with few
/// frames in it, so the ring covers `RX_BLOCKS` ms of a descheduled reader: 256 ms here
/// (64 blocks lost 2 of 115K frames on the loaded test machine).
const RX_BLOCKS: usize = 256;
/// Block retirement timeout, ms (the kernel hands a partly filled block over after this).
const RX_RETIRE_MS: u32 = 1;
/// Bytes per tx ring frame (header + up to 2,016 bytes of frame).
const TX_FRAME: usize = 2048;
/// Frames per tx ring.
const TX_FRAMES: usize = 4096;
/// Bytes per tx ring block (the kernel wants frames grouped in page-multiple blocks).
const TX_BLOCK: usize = 1 << 16;
/// Where a frame's data starts in a `TPACKET_V2` tx slot: `TPACKET_ALIGN(sizeof(tpacket2_hdr))`.
const TX_DATA_OFF: usize = 32;
/// How long an idle receive burst waits for frames, ms.
pub const IDLE_POLL_MS: i32 = 20;
/// At most this many frames per `send()` kick, so one kick cannot overflow a veth peer's
/// backlog (`netdev_max_backlog`, 1,000 by default).
const TX_KICK: usize = 256;

/// Counters a live port shares with whoever reports progress (updated once per burst).
#[derive(Debug, Default)]
pub struct PortCounters {
    /// Frames received from the ring.
    pub rx: AtomicU64,
    /// Frames the kernel dropped because the rx ring was full (`tp_drops`).
    pub rx_ring_drops: AtomicU64,
    /// Frames received but longer than a buffer's data room (dropped, counted).
    pub rx_oversize: AtomicU64,
    /// Frames handed to the kernel for transmission.
    pub tx: AtomicU64,
    /// Frame bytes handed to the kernel.
    pub tx_bytes: AtomicU64,
    /// Frames dropped because the tx ring had no free slot.
    pub tx_ring_full: AtomicU64,
    /// Frames the kernel rejected (`TP_STATUS_WRONG_FORMAT`).
    pub tx_rejected: AtomicU64,
}

/// A snapshot of [`PortCounters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PortStats {
    /// Frames received from the ring.
    pub rx: u64,
    /// Frames the kernel dropped because the rx ring was full.
    pub rx_ring_drops: u64,
    /// Frames longer than a buffer's data room (dropped).
    pub rx_oversize: u64,
    /// Frames handed to the kernel for transmission.
    pub tx: u64,
    /// Frame bytes handed to the kernel.
    pub tx_bytes: u64,
    /// Frames dropped for want of a free tx ring slot.
    pub tx_ring_full: u64,
    /// Frames the kernel rejected.
    pub tx_rejected: u64,
}

impl PortCounters {
    /// The current values.
    pub fn snapshot(&self) -> PortStats {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        PortStats {
            rx: g(&self.rx),
            rx_ring_drops: g(&self.rx_ring_drops),
            rx_oversize: g(&self.rx_oversize),
            tx: g(&self.tx),
            tx_bytes: g(&self.tx_bytes),
            tx_ring_full: g(&self.tx_ring_full),
            tx_rejected: g(&self.tx_rejected),
        }
    }
}

impl PortStats {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &PortStats) {
        self.rx += o.rx;
        self.rx_ring_drops += o.rx_ring_drops;
        self.rx_oversize += o.rx_oversize;
        self.tx += o.tx;
        self.tx_bytes += o.tx_bytes;
        self.tx_ring_full += o.tx_ring_full;
        self.tx_rejected += o.tx_rejected;
    }
}

/// An interface looked up by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iface {
    /// Name.
    pub name: String,
    /// Index.
    pub index: i32,
    /// Hardware address.
    pub mac: [u8; 6],
}

fn os_err(port: &str, what: &str) -> PortError {
    let e = io::Error::last_os_error();
    let hint = match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => {
            " (needs CAP_NET_RAW: run as root or grant it with `setcap cap_net_raw+ep`)"
        }
        _ => "",
    };
    format!("afpacket:{port}: {what}: {e}{hint}").into()
}

impl Iface {
    /// Looks `name` up in the current network namespace.
    pub fn lookup(name: &str) -> Result<Iface, PortError> {
        let c = CString::new(name)
            .map_err(|_| format!("afpacket:{name:?}: interface name contains a NUL byte"))?;
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(format!(
                "afpacket:{name:?}: interface names have 1 to {} bytes",
                libc::IFNAMSIZ - 1
            )
            .into());
        }
        // SAFETY: `c` is a valid NUL-terminated string.
        let index = unsafe { libc::if_nametoindex(c.as_ptr()) } as i32;
        if index == 0 {
            return Err(
                format!("afpacket:{name}: no such interface (in this network namespace)").into(),
            );
        }
        let mac = read_mac(name).unwrap_or([0; 6]);
        Ok(Iface {
            name: name.to_string(),
            index,
            mac,
        })
    }
}

/// The interface's hardware address (SIOCGIFHWADDR on a throw-away datagram socket).
pub(crate) fn read_mac(name: &str) -> Option<[u8; 6]> {
    // SAFETY: plain socket call; the fd is owned right away.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: `fd` is a fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: ifreq is plain data; all-zero is valid.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: SIOCGIFHWADDR reads ifr_name and writes ifr_hwaddr inside `req`.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFHWADDR, &mut req) };
    if r < 0 {
        return None;
    }
    // SAFETY: the ioctl filled the hwaddr member of the union.
    let sa = unsafe { req.ifr_ifru.ifru_hwaddr };
    let mut mac = [0u8; 6];
    for (d, s) in mac.iter_mut().zip(sa.sa_data.iter()) {
        *d = *s as u8;
    }
    Some(mac)
}

/// A memory-mapped ring, unmapped on drop.
struct Mmap {
    base: *mut u8,
    len: usize,
}

// SAFETY: the mapping is owned by one port, which is moved to one worker thread; the kernel
// side synchronises through the status words (atomics with acquire/release).
unsafe impl Send for Mmap {}

impl Drop for Mmap {
    fn drop(&mut self) {
        // SAFETY: `base`/`len` came from a successful mmap and are unmapped once.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

fn setopt<T>(fd: &OwnedFd, level: i32, opt: i32, v: &T) -> io::Result<()> {
    // SAFETY: `v` points to a live `T` of the size passed.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            opt,
            (v as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn packet_socket(port: &str) -> Result<OwnedFd, PortError> {
    // Protocol 0: the socket receives nothing until bound below, so no frame lands in the
    // socket's ordinary queue while the ring is being set up.
    // SAFETY: plain socket call; the fd is owned right away.
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(os_err(port, "cannot open an AF_PACKET socket"));
    }
    // SAFETY: fresh descriptor we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn bind(fd: &OwnedFd, ifc: &Iface, proto: u16) -> Result<(), PortError> {
    // SAFETY: sockaddr_ll is plain data.
    let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sa.sll_family = libc::AF_PACKET as u16;
    sa.sll_protocol = proto.to_be();
    sa.sll_ifindex = ifc.index;
    // SAFETY: `sa` is a valid sockaddr_ll of the size passed.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&sa as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(os_err(&ifc.name, "bind"));
    }
    Ok(())
}

fn map_ring(fd: &OwnedFd, len: usize, port: &str) -> Result<Mmap, PortError> {
    // SAFETY: maps the socket's ring (set up just before) shared, read/write.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_LOCKED | libc::MAP_POPULATE,
            fd.as_raw_fd(),
            0,
        )
    };
    let p = if p == libc::MAP_FAILED {
        // MAP_LOCKED needs RLIMIT_MEMLOCK room; retry without it.
        // SAFETY: as above.
        unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd.as_raw_fd(),
                0,
            )
        }
    } else {
        p
    };
    if p == libc::MAP_FAILED {
        return Err(os_err(port, "mmap of the packet ring"));
    }
    Ok(Mmap {
        base: p.cast(),
        len,
    })
}

fn poll_fd(fd: &OwnedFd, events: i16, timeout_ms: i32) {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, timeout_ms) };
}
