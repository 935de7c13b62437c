//! `afxdp:IFACE[,queue=N][,copy|zerocopy][,drv]` — a live interface through an AF_XDP socket and
//! a small XDP program that redirects to it only what the router forwards.
//!
//! * The XDP program (`bpf/xdp_redirect.bpf.c`) redirects IPv4/IPv6 unicast not addressed to
//!   this host into the socket of the receive queue (`XSKMAP`), and `XDP_PASS`es everything
//!   else to the kernel: ARP, IPv6 neighbour discovery (multicast and link-local
//!   destinations), broadcast/multicast frames, packets to the host's own addresses (read
//!   with `getifaddrs` when the port opens), VLAN-tagged and non-IP frames. So the kernel keeps
//!   resolving neighbours and answering pings to the router while it no longer sees the
//!   forwarded traffic at all (unlike AF_PACKET, which taps a copy of every frame).
//! * The program is compiled from source by `build.rs` with clang's BPF target against
//!   Debian's `libbpf-dev` headers, and loaded by **aya** (the userspace crate: pure Rust,
//!   stable toolchain, loads any BTF-carrying object). Why this pair: aya's own eBPF side
//!   would need a nightly toolchain and `bpf-linker` (an LLVM build) on every machine and in
//!   CI; `libbpf-rs` links the C libbpf (a vendored C build or `libbpf`/`libelf` link
//!   dependencies) for what is here one program and four maps. clang + libbpf-dev are
//!   Debian packages `.ci/run` installs; without clang the crate still builds and an afxdp
//!   port fails at open with a one-line error saying so.
//! * The socket: one UMEM of [`FRAMES`] × [`FRAME`] bytes, its first half for receive (all in
//!   the fill ring at start, each frame back in the fill ring as soon as its packet is copied
//!   out), its second half for transmit (a free list refilled from the completion ring).
//!   Packets are **copied** between the UMEM and pktlab's pool (the pool's buffers are not
//!   UMEM-shaped: every layout puts metadata beside the data), as `afpacket` copies from
//!   its ring. `copy` / `zerocopy` select the bind mode (`XDP_COPY` / `XDP_ZEROCOPY`, the
//!   driver's DMA into the UMEM); by default the kernel picks. The program is attached in
//!   generic (skb) mode; `drv` attaches it in the driver (native XDP), falling back to
//!   generic where the driver has none. Generic is the default because native XDP on veth
//!   (kernel 6.18, the test machines) redirected only the first of frames arriving one at a
//!   time (a ping every 300 ms: 1 of 3 reached the socket, the rest were lost before the
//!   program), while generic mode delivered every one; a burst injected at once works in
//!   both (the port's live test runs in driver mode).
//! * Every drop is counted: rx frames over the data room, tx with no free frame or ring slot
//!   ([`XdpStats::tx_ring_full`]), and the kernel's own (`XDP_STATISTICS`: fill ring empty,
//!   rx ring full, invalid descriptors) plus the program's verdicts.
//!
//! Errors are one line naming the port (`afxdp:IFACE`) and, for permissions, what is needed.

use crate::mbuf::{Buf, Layout, RxMeta, DATA_ROOM};
mod prog;
mod ring;

pub use prog::{iface_mac, local_addresses};
use ring::{getopt, mmap, os, setopt, Map, Ring};

use crate::port::{Bufs, RxPort, TxPort};
// The socket has no NIC hash: the software flow hash the virtio ports use (addresses,
// protocol, ports).
use crate::port::virtq::flow_hash as frame_hash;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes per UMEM frame.
pub const FRAME: usize = 2048;
/// UMEM frames (half for receive, half for transmit).
pub const FRAMES: usize = 4096;
/// Entries per ring (fill, rx, tx, completion): each half's frames fit its rings whole.
const RING: u32 = (FRAMES / 2) as u32;
/// How long an idle receive burst waits, ms.
const IDLE_POLL_MS: i32 = 20;

/// Errors of afxdp ports.
#[derive(Debug, thiserror::Error)]
pub enum AfXdpError {
    /// The port text does not parse.
    #[error("port {0:?}: {1}")]
    Spec(String, String),
    /// An interface or system call failed.
    #[error("afxdp:{port}: {what}: {err}{hint}")]
    Os {
        /// Interface.
        port: String,
        /// What was being done.
        what: &'static str,
        /// The OS error.
        err: io::Error,
        /// A hint for permission errors.
        hint: &'static str,
    },
    /// The XDP program could not be loaded or attached.
    #[error("afxdp:{port}: {what}: {err}")]
    Xdp {
        /// Interface.
        port: String,
        /// What failed.
        what: &'static str,
        /// Why (one line).
        err: String,
    },
    /// This build has no XDP program.
    #[error("afxdp:{0}: this pktlab was built without its XDP program: {1}")]
    Unavailable(String, String),
}

/// Bind mode of the socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum XdpBind {
    /// Let the kernel choose (zero-copy where the driver has it).
    #[default]
    Auto,
    /// `XDP_COPY`.
    Copy,
    /// `XDP_ZEROCOPY` (fails where the driver cannot).
    ZeroCopy,
}

/// An `afxdp:` port as the CLI names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AfXdpSpec {
    /// Interface.
    pub iface: String,
    /// Receive (and transmit) queue.
    pub queue: u32,
    /// Bind mode.
    pub bind: XdpBind,
    /// Attach the program in the driver (native XDP) instead of generic (skb) mode.
    pub drv: bool,
}

impl std::str::FromStr for AfXdpSpec {
    type Err = AfXdpError;
    fn from_str(s: &str) -> Result<Self, AfXdpError> {
        let bad = |m: &str| AfXdpError::Spec(s.to_string(), m.to_string());
        let rest = s
            .strip_prefix("afxdp:")
            .ok_or_else(|| bad("not an afxdp:IFACE port"))?;
        let mut parts = rest.split(',');
        let iface = parts.next().unwrap_or_default();
        if iface.is_empty() || iface.len() >= libc::IFNAMSIZ {
            return Err(bad("afxdp:IFACE needs an interface name of 1 to 15 bytes"));
        }
        let mut spec = AfXdpSpec {
            iface: iface.to_string(),
            queue: 0,
            bind: XdpBind::Auto,
            drv: false,
        };
        for (i, p) in parts.enumerate() {
            let pos = i + 2;
            match p {
                "copy" => spec.bind = XdpBind::Copy,
                "drv" => spec.drv = true,
                "zerocopy" => spec.bind = XdpBind::ZeroCopy,
                _ => match p.strip_prefix("queue=").map(str::parse::<u32>) {
                    Some(Ok(q)) if q < 64 => spec.queue = q,
                    _ => {
                        return Err(bad(&format!(
                            "option {pos} {p:?}: expected queue=N (N < 64), copy, zerocopy or drv"
                        )))
                    }
                },
            }
        }
        Ok(spec)
    }
}

impl std::fmt::Display for AfXdpSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "afxdp:{}", self.iface)?;
        if self.queue != 0 {
            write!(f, ",queue={}", self.queue)?;
        }
        match self.bind {
            XdpBind::Auto => {}
            XdpBind::Copy => f.write_str(",copy")?,
            XdpBind::ZeroCopy => f.write_str(",zerocopy")?,
        }
        if self.drv {
            f.write_str(",drv")?;
        }
        Ok(())
    }
}

/// Counters of an afxdp port (updated once per burst).
#[derive(Debug, Default)]
pub struct XdpCounters {
    rx: AtomicU64,
    rx_oversize: AtomicU64,
    tx: AtomicU64,
    tx_bytes: AtomicU64,
    tx_ring_full: AtomicU64,
    tx_rejected: AtomicU64,
}

/// A snapshot of an afxdp port's counters, with the kernel's and the program's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct XdpStats {
    /// Frames received from the rx ring.
    pub rx: u64,
    /// Frames longer than a buffer's data room (dropped).
    pub rx_oversize: u64,
    /// Frames put on the tx ring.
    pub tx: u64,
    /// Their bytes.
    pub tx_bytes: u64,
    /// Frames dropped for want of a free UMEM frame or tx ring slot.
    pub tx_ring_full: u64,
    /// Frames too long for a UMEM frame (dropped).
    pub tx_rejected: u64,
    /// Kernel: frames dropped for other reasons (`rx_dropped`).
    pub k_rx_dropped: u64,
    /// Kernel: frames dropped because the rx ring was full.
    pub k_rx_ring_full: u64,
    /// Kernel: times the fill ring was empty when a frame arrived.
    pub k_fill_ring_empty: u64,
    /// Kernel: invalid rx/tx descriptors.
    pub k_invalid_descs: u64,
    /// Program: frames redirected to the socket.
    pub xdp_redirected: u64,
    /// Program: frames passed to the kernel (local, ARP/ND, multicast, non-IP).
    pub xdp_passed: u64,
    /// Program: redirects that failed (no socket on the queue: passed to the kernel).
    pub xdp_redirect_failed: u64,
}

/// What both halves of a port share: the socket, the UMEM and the attached program.
struct Xsk {
    fd: OwnedFd,
    umem: Map,
    port: String,
    counts: Mutex<Option<prog::Counts>>,
    // Detaches the program when the last half goes (aya detaches on drop).
    _prog: Option<prog::Loaded>,
    /// Where the XDP program runs (`drv` or `skb`) and whether the socket is zero-copy.
    mode: (&'static str, bool),
}

impl Xsk {
    fn frame(&self, addr: u64) -> *mut u8 {
        // SAFETY: addresses are frame starts below FRAMES × FRAME (we hand them out).
        unsafe { self.umem.base.add(addr as usize) }
    }

    fn kick_tx(&self) {
        // SAFETY: a zero-length send on an AF_XDP socket starts transmission of the tx ring.
        unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
    }

    fn wait(&self, ms: i32) {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut p, 1, ms) };
    }
}

/// Opens `spec` as router port `port`: the receive and the transmit half of one socket.
/// `rx_burst` waits for frames until `stop` is set, then returns 0.
pub fn open(
    spec: &AfXdpSpec,
    port: u16,
    stop: Arc<AtomicBool>,
) -> Result<(AfXdpRx, AfXdpTx), AfXdpError> {
    let name = spec.iface.as_str();
    let c =
        CString::new(name).map_err(|_| AfXdpError::Spec(spec.to_string(), "NUL in name".into()))?;
    // SAFETY: valid NUL-terminated string.
    let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if ifindex == 0 {
        return Err(AfXdpError::Os {
            port: name.into(),
            what: "no such interface (in this network namespace)",
            err: io::Error::from_raw_os_error(libc::ENODEV),
            hint: "",
        });
    }
    // SAFETY: plain socket call; owned right away.
    let fd = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(os(name, "cannot open an AF_XDP socket"));
    }
    // SAFETY: fresh descriptor we own.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let umem = mmap(None, FRAMES * FRAME, 0, name)?;
    let reg = libc::xdp_umem_reg {
        addr: umem.base as u64,
        len: (FRAMES * FRAME) as u64,
        chunk_size: FRAME as u32,
        headroom: 0,
        flags: 0,
        tx_metadata_len: 0,
    };
    setopt(&fd, libc::XDP_UMEM_REG, &reg, name, "UMEM registration")?;
    for (opt, what) in [
        (libc::XDP_UMEM_FILL_RING, "fill ring"),
        (libc::XDP_UMEM_COMPLETION_RING, "completion ring"),
        (libc::XDP_RX_RING, "rx ring"),
        (libc::XDP_TX_RING, "tx ring"),
    ] {
        setopt(&fd, opt, &RING, name, what)?;
    }
    // SAFETY: xdp_mmap_offsets is plain data.
    let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of_val(&off) as libc::socklen_t;
    // SAFETY: `off`/`len` describe a writable xdp_mmap_offsets.
    let r = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_XDP,
            libc::XDP_MMAP_OFFSETS,
            (&mut off as *mut libc::xdp_mmap_offsets).cast(),
            &mut len,
        )
    };
    if r < 0 {
        return Err(os(name, "ring offsets"));
    }
    let fill = Ring::map(&fd, &off.fr, 8, libc::XDP_UMEM_PGOFF_FILL_RING, name)?;
    let comp = Ring::map(&fd, &off.cr, 8, libc::XDP_UMEM_PGOFF_COMPLETION_RING, name)?;
    let dsz = std::mem::size_of::<libc::xdp_desc>();
    let rxr = Ring::map(&fd, &off.rx, dsz, libc::XDP_PGOFF_RX_RING as u64, name)?;
    let txr = Ring::map(&fd, &off.tx, dsz, libc::XDP_PGOFF_TX_RING as u64, name)?;
    let mut rx = RxHalf { fill, rx: rxr };
    // Every receive frame goes into the fill ring (it holds RING entries: all of them).
    for i in 0..RING {
        // SAFETY: slot i of the fill ring, ours before the first submit.
        unsafe { *rx.fill.addr(i) = i as u64 * FRAME as u64 };
    }
    rx.fill.local = RING;
    rx.fill.submit();
    let flags = libc::XDP_USE_NEED_WAKEUP
        | match spec.bind {
            XdpBind::Auto => 0,
            XdpBind::Copy => libc::XDP_COPY,
            XdpBind::ZeroCopy => libc::XDP_ZEROCOPY,
        };
    let sa = libc::sockaddr_xdp {
        sxdp_family: libc::AF_XDP as u16,
        sxdp_flags: flags,
        sxdp_ifindex: ifindex,
        sxdp_queue_id: spec.queue,
        sxdp_shared_umem_fd: 0,
    };
    // SAFETY: `sa` is a valid sockaddr_xdp of the size passed.
    let r = unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&sa as *const libc::sockaddr_xdp).cast(),
            std::mem::size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
        )
    };
    if r < 0 {
        return Err(os(name, "bind (queue, copy/zerocopy mode)"));
    }
    let zc = getopt::<libc::xdp_options>(&fd, libc::XDP_OPTIONS)
        .is_some_and(|o| o.flags & libc::XDP_OPTIONS_ZEROCOPY != 0);
    let (loaded, counts, where_) = prog::attach(name, ifindex, spec.queue, spec.drv, &fd)?;
    let xsk = Arc::new(Xsk {
        fd,
        umem,
        port: name.to_string(),
        counts: Mutex::new(Some(counts)),
        _prog: Some(loaded),
        mode: (where_, zc),
    });
    let counters = Arc::new(XdpCounters::default());
    let tx_free = (RING as u64..2 * RING as u64)
        .map(|i| i * FRAME as u64)
        .collect();
    Ok((
        AfXdpRx {
            xsk: xsk.clone(),
            half: rx,
            port,
            stop,
            idle_ms: IDLE_POLL_MS,
            counters: counters.clone(),
            rx: 0,
            oversize: 0,
            hash: true,
        },
        AfXdpTx {
            xsk,
            tx: txr,
            comp,
            free: tx_free,
            counters,
            packets: 0,
            bytes: 0,
            full: 0,
            rejected: 0,
        },
    ))
}

struct RxHalf {
    fill: Ring,
    rx: Ring,
}

/// The receive half of an afxdp port.
pub struct AfXdpRx {
    xsk: Arc<Xsk>,
    half: RxHalf,
    port: u16,
    stop: Arc<AtomicBool>,
    idle_ms: i32,
    counters: Arc<XdpCounters>,
    rx: u64,
    oversize: u64,
    /// Whether to compute each frame's flow hash ([`RxPort::want_flow_hash`]).
    hash: bool,
}

impl RxPort for AfXdpRx {
    fn rx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        out: &mut Vec<Buf>,
        max: usize,
    ) -> usize {
        let (pool, cache, layout) = ctx.parts();
        let h = &mut self.half;
        let mut n = h.rx.ready(max as u32);
        if n == 0 {
            if self.stop.load(Ordering::Relaxed) {
                return 0;
            }
            // Need-wakeup mode: the kernel waits for a poll before it refills from the fill
            // ring, so a flagged ring gets a poll even when the caller wants no waiting (a
            // zero timeout still wakes the kernel). Otherwise wait only as long as the caller
            // allows: a router polling several ports waits on all of them at once, never on
            // one empty port while another has frames.
            let ms = if h.fill.needs_wakeup() {
                self.idle_ms.min(1)
            } else {
                self.idle_ms
            };
            if ms > 0 || h.fill.needs_wakeup() {
                self.xsk.wait(ms);
            }
            n = h.rx.ready(max as u32);
            if n == 0 {
                return 0;
            }
        }
        let at = out.len();
        if !cache.get_bulk(pool, n as usize, out) {
            return 0; // pool exhausted: frames stay in the ring
        }
        let mut kept = at;
        for k in 0..n {
            let i = h.rx.local.wrapping_add(k);
            // SAFETY: the kernel produced descriptors up to its producer index (acquired).
            let d = unsafe { *h.rx.xdesc(i) };
            let len = d.len as usize;
            let f = self.xsk.frame(d.addr);
            if len <= DATA_ROOM && d.addr as usize + len <= FRAMES * FRAME / 2 {
                out.swap(kept, at + k as usize);
                let b = &mut out[kept];
                // SAFETY: a receive frame the kernel filled with `len` bytes; ours until it
                // goes back to the fill ring below.
                let data = unsafe { std::slice::from_raw_parts(f, len) };
                pool.data_mut(b)[..len].copy_from_slice(data);
                let m = RxMeta {
                    len: len as u16,
                    port: self.port,
                    rss: if self.hash { frame_hash(data) } else { 0 },
                    ts_ns: 0,
                };
                layout.rx_init(pool, b, kept, &m);
                kept += 1;
            } else {
                self.oversize += 1;
            }
            // Back to the fill ring (it has room for every receive frame).
            // SAFETY: the fill slot is free: at most RING receive frames exist.
            unsafe { *h.fill.addr(h.fill.local) = d.addr & !(FRAME as u64 - 1) };
            h.fill.local = h.fill.local.wrapping_add(1);
        }
        h.rx.release(n);
        h.fill.submit();
        if kept < out.len() {
            let mut spare: Vec<Buf> = out.drain(kept..).collect();
            cache.put_bulk(pool, &mut spare);
        }
        self.rx += n as u64;
        self.counters.rx.store(self.rx, Ordering::Relaxed);
        self.counters
            .rx_oversize
            .store(self.oversize, Ordering::Relaxed);
        kept - at
    }

    fn exhausted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn want_flow_hash(&mut self, wanted: bool) {
        self.hash = wanted;
    }
}

impl AfXdpRx {
    /// How long an empty `rx_burst` waits for frames (default 20 ms; 0: never waits — a
    /// worker serving several ports waits on all of them together).
    pub fn set_idle_poll_ms(&mut self, ms: i32) {
        self.idle_ms = ms.max(0);
    }

    /// The socket (to wait on it with others).
    pub fn fd(&self) -> std::os::fd::RawFd {
        self.xsk.fd.as_raw_fd()
    }

    /// Frames waiting in the rx ring.
    pub fn pending(&self) -> bool {
        self.half.rx.ready(1) > 0
    }

    /// The port's counters with the kernel's and the program's.
    pub fn stats(&self) -> XdpStats {
        stats(&self.xsk, &self.counters)
    }

    /// Where the program runs (`drv` / `skb`) and whether the socket is zero-copy.
    pub fn mode(&self) -> (&'static str, bool) {
        self.xsk.mode
    }
}

fn stats(x: &Xsk, c: &XdpCounters) -> XdpStats {
    let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
    // SAFETY: plain data; all-zero is valid.
    let zero: libc::xdp_statistics = unsafe { std::mem::zeroed() };
    let k = getopt::<libc::xdp_statistics>(&x.fd, libc::XDP_STATISTICS).unwrap_or(zero);
    let p = x
        .counts
        .lock()
        .ok()
        .and_then(|m| m.as_ref().map(prog::read))
        .unwrap_or_default();
    XdpStats {
        rx: g(&c.rx),
        rx_oversize: g(&c.rx_oversize),
        tx: g(&c.tx),
        tx_bytes: g(&c.tx_bytes),
        tx_ring_full: g(&c.tx_ring_full),
        tx_rejected: g(&c.tx_rejected),
        k_rx_dropped: k.rx_dropped,
        k_rx_ring_full: k.rx_ring_full,
        k_fill_ring_empty: k.rx_fill_ring_empty_descs,
        k_invalid_descs: k.rx_invalid_descs + k.tx_invalid_descs,
        xdp_redirected: p[0],
        xdp_passed: p[1],
        xdp_redirect_failed: p[2],
    }
}

/// The transmit half of an afxdp port.
pub struct AfXdpTx {
    xsk: Arc<Xsk>,
    tx: Ring,
    comp: Ring,
    free: Vec<u64>,
    counters: Arc<XdpCounters>,
    packets: u64,
    bytes: u64,
    full: u64,
    rejected: u64,
}

impl AfXdpTx {
    /// Takes the frames the kernel has sent back into the free list.
    fn reclaim(&mut self) {
        let n = self.comp.ready(RING);
        for k in 0..n {
            // SAFETY: completion entries up to the kernel's producer index (acquired).
            let a = unsafe { *self.comp.addr(self.comp.local.wrapping_add(k)) };
            self.free.push(a);
        }
        self.comp.release(n);
    }

    /// Queues one frame; false if dropped (counted).
    fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > FRAME {
            self.rejected += 1;
            return false;
        }
        if self.free.is_empty() || self.tx.free() == 0 {
            self.tx.submit();
            self.xsk.kick_tx();
            self.reclaim();
            if self.free.is_empty() || self.tx.free() == 0 {
                self.full += 1;
                return false;
            }
        }
        let a = self.free.pop().expect("checked non-empty");
        // SAFETY: a free transmit frame (not on the tx ring, not in the completion ring):
        // ours to write; the frame fits (checked).
        unsafe { std::ptr::copy_nonoverlapping(frame.as_ptr(), self.xsk.frame(a), frame.len()) };
        let d = self.tx.xdesc(self.tx.local);
        // SAFETY: a free tx ring slot (free() > 0), ours until submit.
        unsafe {
            *d = libc::xdp_desc {
                addr: a,
                len: frame.len() as u32,
                options: 0,
            }
        };
        self.tx.local = self.tx.local.wrapping_add(1);
        self.packets += 1;
        self.bytes += frame.len() as u64;
        true
    }

    fn flush(&mut self) {
        self.tx.submit();
        if self.tx.needs_wakeup() || !self.xsk.mode.1 {
            self.xsk.kick_tx();
        }
        self.reclaim();
        let c = &self.counters;
        c.tx.store(self.packets, Ordering::Relaxed);
        c.tx_bytes.store(self.bytes, Ordering::Relaxed);
        c.tx_ring_full.store(self.full, Ordering::Relaxed);
        c.tx_rejected.store(self.rejected, Ordering::Relaxed);
    }

    /// The port's counters with the kernel's and the program's.
    pub fn stats(&self) -> XdpStats {
        stats(&self.xsk, &self.counters)
    }

    /// The interface.
    pub fn iface(&self) -> &str {
        &self.xsk.port
    }
}

impl TxPort for AfXdpTx {
    fn tx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        bufs: &mut Vec<Buf>,
        lens: &[u16],
        _ts: &[u64],
    ) {
        for (b, &len) in bufs.iter().zip(lens) {
            self.push(&ctx.pool.data(b)[..len as usize]);
        }
        self.flush();
        ctx.free_all(bufs);
    }

    fn packets(&self) -> u64 {
        self.packets
    }
}

impl Drop for AfXdpTx {
    fn drop(&mut self) {
        // Let queued frames leave before the socket closes (bounded).
        for _ in 0..100 {
            self.flush();
            if self.free.len() == RING as usize {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
mod tests;
