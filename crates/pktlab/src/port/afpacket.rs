//! `afpacket:IFACE` — live Linux interfaces through AF_PACKET sockets with memory-mapped
//! rings, the software stand-in for the NIC queues of paper 001's data plane (DPDK's
//! `net_af_packet` PMD works the same way).
//!
//! * Receive: a `TPACKET_V3` rx ring (blocks of variable-length frames, 64 KiB × 256 per
//!   socket, block retirement timeout 1 ms so a lightly loaded port still delivers within about
//!   a millisecond). [`AfPacketRx::rx_burst`] copies frames straight from the ring into pool
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

use super::{free_all, Bufs, RxPort, TxPort};
use crate::mbuf::{Buf, Layout, RxMeta, DATA_ROOM};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

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

fn os_err(port: &str, what: &str) -> String {
    let e = io::Error::last_os_error();
    let hint = match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => {
            " (needs CAP_NET_RAW: run as root or grant it with `setcap cap_net_raw+ep`)"
        }
        _ => "",
    };
    format!("afpacket:{port}: {what}: {e}{hint}")
}

impl Iface {
    /// Looks `name` up in the current network namespace.
    pub fn lookup(name: &str) -> Result<Iface, String> {
        let c = CString::new(name)
            .map_err(|_| format!("afpacket:{name:?}: interface name contains a NUL byte"))?;
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(format!(
                "afpacket:{name:?}: interface names have 1 to {} bytes",
                libc::IFNAMSIZ - 1
            ));
        }
        // SAFETY: `c` is a valid NUL-terminated string.
        let index = unsafe { libc::if_nametoindex(c.as_ptr()) } as i32;
        if index == 0 {
            return Err(format!(
                "afpacket:{name}: no such interface (in this network namespace)"
            ));
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

fn packet_socket(port: &str) -> Result<OwnedFd, String> {
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

fn bind(fd: &OwnedFd, ifc: &Iface, proto: u16) -> Result<(), String> {
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

fn map_ring(fd: &OwnedFd, len: usize, port: &str) -> Result<Mmap, String> {
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
    ) -> Result<AfPacketRx, String> {
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
    fn rx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        out: &mut Vec<Buf>,
        max: usize,
    ) -> usize {
        let (pool, cache, layout) = ctx.parts();
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
    fn tx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        bufs: &mut Vec<Buf>,
        lens: &[u16],
        _ts: &[u64],
    ) {
        let (pool, cache, layout) = ctx.parts();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_interface_is_a_one_line_error_naming_it() {
        let stop = Arc::new(AtomicBool::new(false));
        let e = AfPacketRx::open("pktlab-nosuch0", 0, None, stop).unwrap_err();
        assert!(
            e.contains("afpacket:pktlab-nosuch0: no such interface"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        let e = AfPacketTx::open("pktlab-nosuch0", false).unwrap_err();
        assert!(e.contains("no such interface"), "{e}");
        let e = Iface::lookup("a-name-longer-than-ifnamsiz").unwrap_err();
        assert!(e.contains("1 to 15 bytes"), "{e}");
    }

    #[test]
    fn loopback_round_trip_when_permitted() {
        // Needs CAP_NET_RAW; otherwise the error must name the capability.
        let stop = Arc::new(AtomicBool::new(false));
        let mut rx = match AfPacketRx::open("lo", 0, None, stop) {
            Ok(r) => r,
            Err(e) => {
                assert!(e.contains("CAP_NET_RAW") || e.contains("no such"), "{e}");
                eprintln!("skipped: {e}");
                return;
            }
        };
        let mut tx = AfPacketTx::open("lo", true).unwrap();
        // A frame with an unused EtherType, so the stack ignores it.
        let mut f = vec![0u8; 60];
        f[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
        f[14..22].copy_from_slice(b"pktlabrx");
        for i in 0..10u8 {
            f[22] = i;
            assert!(tx.push(&f));
        }
        tx.flush();
        let mut seen = Vec::new();
        let t = std::time::Instant::now();
        while seen.len() < 10 && t.elapsed().as_secs() < 5 {
            rx.wait(20);
            rx.visit(64, |d, _, _| {
                if d.len() >= 23 && &d[14..22] == b"pktlabrx" {
                    seen.push(d[22]);
                }
            });
        }
        assert_eq!(seen, (0..10).collect::<Vec<u8>>());
    }
}
