//! `vhost-user:PATH[,client]` — pktlab as the vhost-user *backend* (the virtual switch of
//! paper 001's CNF setting): a frontend (DPDK's `net_virtio_user`, QEMU, or pktlab's own
//! [`super::virtio_user`]) shares its memory and its virtio-net rings over a Unix socket, and
//! this port moves packets between those rings and pktlab's mbuf pool.
//!
//! * Protocol: rust-vmm's `vhost` crate parses every vhost-user message
//!   ([`BackendReqHandler`]); `Control` answers them on a control thread. Offered:
//!   `VIRTIO_F_VERSION_1`, `VIRTIO_NET_F_MRG_RXBUF`, `VHOST_USER_F_PROTOCOL_FEATURES` (with
//!   `MQ` and `REPLY_ACK`), `VIRTIO_NET_F_MQ` when there are several queue pairs; split rings
//!   only (no packed ring, indirect descriptors or event index).
//! * Memory: mapped once per `SET_MEM_TABLE` ([`MemTable`]). A ring is handed to the data path
//!   as an `Arc<Active>` (mapping + checked ring addresses) behind an epoch counter: the data
//!   path loads the epoch once per burst, and takes the lock only when it changed (ring
//!   started, stopped, memory replaced) — no lock, allocation or dynamic dispatch per packet.
//! * Data path: [`VhostUserRx::rx_burst`] copies packets from the guest's transmit ring
//!   (queue `2p + 1`) into pool buffers, stripping the virtio-net header and building the
//!   metadata layout at receive as paper 001 does; [`VhostUserTx::tx_burst`] copies into the
//!   guest's receive ring (queue `2p`), spreading a packet over several buffers with
//!   `MRG_RXBUF`. The backend polls: it asks the guest not to kick (`VRING_USED_F_NO_NOTIFY`)
//!   and signals the call eventfd only when the guest did not set `VRING_AVAIL_F_NO_INTERRUPT`.
//! * A frontend may disconnect and reconnect at any time: the rings stop, the socket is
//!   listened on (or, `,client`, reconnected) again, and the switch runs on; packets to send
//!   meanwhile are dropped and counted. Every packet is forwarded or in a named counter.

mod control;

use crate::mbuf::{Buf, Layout, RxMeta, DATA_ROOM};
use crate::port::virtq::{
    copy_from_shared, copy_to_shared, flow_hash, write_net_hdr, ChainError, DeviceQueue, MemTable,
    RingAddrs,
};
use crate::port::{Bufs, RxPort, TxPort};
use control::Control;
use std::fs::File;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vhost::vhost_user::{BackendReqHandler, Error as VuError, Listener};

pub use crate::port::virtio_stats::{VirtioCounters, VirtioStats};

/// Most queue pairs a port serves.
pub const MAX_QUEUE_PAIRS: u16 = 8;
/// How long a stopping ring waits for its worker to let go of it.
const STOP_WAIT: Duration = Duration::from_millis(200);

/// Errors of opening a vhost-user port (one line each, naming the socket).
#[derive(Debug, thiserror::Error)]
pub enum VhostUserError {
    /// The listening socket could not be created.
    #[error("vhost-user:{path}: cannot listen on the socket: {source}")]
    Listen {
        /// Socket path.
        path: String,
        /// The cause.
        source: VuError,
    },
    /// A bad queue-pair count.
    #[error("vhost-user:{path}: {pairs} queue pairs (1 to {MAX_QUEUE_PAIRS})")]
    Pairs {
        /// Socket path.
        path: String,
        /// Requested pairs.
        pairs: u16,
    },
    /// The control thread could not start.
    #[error("vhost-user:{path}: cannot start the control thread: {source}")]
    Thread {
        /// Socket path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// A ring the data path may use: the mapping it lives in and its checked addresses.
struct Active {
    mem: Arc<MemTable>,
    ring: RingAddrs,
    base: u16,
    call: Option<File>,
    hdr_len: usize,
    mrg: bool,
}

/// The hand-over point of one virtqueue between the control thread and the data path.
#[derive(Default)]
struct Slot {
    epoch: AtomicU64,
    active: Mutex<Option<Arc<Active>>>,
    acked: AtomicU64,
    last_avail: AtomicU32,
    attached: AtomicBool,
}

/// What the control thread and the ports share.
struct Shared {
    path: String,
    pairs: u16,
    slots: Vec<Slot>,
    stop: Arc<AtomicBool>,
    conn: Mutex<Option<UnixStream>>,
    counters: Arc<VirtioCounters>,
}

impl Shared {
    /// Publishes `a` (or nothing) on queue `q` and, when taking a ring away from a worker,
    /// waits until the worker has let go of it; returns the worker's next available index.
    fn publish(&self, q: usize, a: Option<Arc<Active>>) -> u16 {
        let s = &self.slots[q];
        let e = {
            let mut g = s.active.lock().unwrap_or_else(|p| p.into_inner());
            *g = a;
            s.epoch.fetch_add(1, Ordering::AcqRel) + 1
        };
        if s.attached.load(Ordering::Acquire) {
            let t = Instant::now();
            while s.acked.load(Ordering::Acquire) != e && t.elapsed() < STOP_WAIT {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        s.last_avail.load(Ordering::Acquire) as u16
    }
}

/// A vhost-user socket served by pktlab: the control thread and the queue pairs.
pub struct VhostUserDev {
    sh: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for VhostUserDev {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VhostUserDev")
            .field("path", &self.sh.path)
            .field("pairs", &self.sh.pairs)
            .finish()
    }
}

impl VhostUserDev {
    /// Serves the socket at `path` with `pairs` queue pairs: creates it (replacing a stale
    /// file), or with `client` connects to a frontend listening there (retrying until
    /// `stop`). Returns at once; frontends come and go on the control thread.
    pub fn open(
        path: &Path,
        client: bool,
        pairs: u16,
        stop: Arc<AtomicBool>,
    ) -> Result<VhostUserDev, VhostUserError> {
        let name = path.display().to_string();
        if !(1..=MAX_QUEUE_PAIRS).contains(&pairs) {
            return Err(VhostUserError::Pairs { path: name, pairs });
        }
        let listener = if client {
            None
        } else {
            let l = Listener::new(path, true).map_err(|source| VhostUserError::Listen {
                path: name.clone(),
                source,
            })?;
            l.set_nonblocking(true)
                .map_err(|source| VhostUserError::Listen {
                    path: name.clone(),
                    source,
                })?;
            Some(l)
        };
        let sh = Arc::new(Shared {
            path: name.clone(),
            pairs,
            slots: (0..2 * pairs).map(|_| Slot::default()).collect(),
            stop,
            conn: Mutex::new(None),
            counters: Arc::new(VirtioCounters::default()),
        });
        let sh2 = sh.clone();
        let path = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("vhost-user-ctl".into())
            .spawn(move || control_loop(sh2, listener, path))
            .map_err(|source| VhostUserError::Thread { path: name, source })?;
        Ok(VhostUserDev {
            sh,
            thread: Some(thread),
        })
    }

    /// Queue pairs.
    pub fn pairs(&self) -> u16 {
        self.sh.pairs
    }

    /// The receive side of queue pair `pair` (the guest's transmit ring), as input port
    /// `port`. Panics if `pair >= pairs()`.
    pub fn rx(&self, pair: u16, port: u16) -> VhostUserRx {
        assert!(
            pair < self.sh.pairs,
            "queue pair {pair} of {}",
            self.sh.pairs
        );
        VhostUserRx {
            q: Worker::attach(self.sh.clone(), 2 * pair as usize + 1),
            port,
            counters: Arc::new(VirtioCounters::default()),
            st: VirtioStats::default(),
            hash: true,
        }
    }

    /// The transmit side of queue pair `pair` (the guest's receive ring). Panics if
    /// `pair >= pairs()`.
    pub fn tx(&self, pair: u16) -> VhostUserTx {
        assert!(
            pair < self.sh.pairs,
            "queue pair {pair} of {}",
            self.sh.pairs
        );
        VhostUserTx {
            q: Worker::attach(self.sh.clone(), 2 * pair as usize),
            counters: Arc::new(VirtioCounters::default()),
            st: VirtioStats::default(),
        }
    }

    /// The device's own counters (connections, refused set-ups, protocol errors).
    pub fn counters(&self) -> Arc<VirtioCounters> {
        self.sh.counters.clone()
    }

    /// True while both rings of queue pair `pair` are running (a frontend set them up).
    pub fn running(&self, pair: u16) -> bool {
        let on = |q: usize| {
            self.sh.slots[q]
                .active
                .lock()
                .map(|a| a.is_some())
                .unwrap_or(false)
        };
        on(2 * pair as usize) && on(2 * pair as usize + 1)
    }

    /// True while a frontend is connected.
    pub fn connected(&self) -> bool {
        self.sh.conn.lock().map(|c| c.is_some()).unwrap_or(false)
    }
}

impl Drop for VhostUserDev {
    fn drop(&mut self) {
        self.sh.stop.store(true, Ordering::Release);
        {
            let conn = self.sh.conn.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(c) = conn.as_ref() {
                // Unblocks the control thread's read.
                let _ = c.shutdown(std::net::Shutdown::Both);
            }
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Accepts (or connects to) frontends one after another until `stop`.
fn control_loop(sh: Arc<Shared>, listener: Option<Listener>, path: PathBuf) {
    let c = &sh.counters;
    while !sh.stop.load(Ordering::Acquire) {
        let stream = match &listener {
            Some(l) => match l.accept() {
                Ok(Some(s)) => s,
                Ok(None) => {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                Err(_) => {
                    c.protocol_errors.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
            },
            None => match UnixStream::connect(&path) {
                Ok(s) => s,
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(100));
                    continue;
                }
            },
        };
        let _ = stream.set_nonblocking(false);
        let ctl = Arc::new(Mutex::new(Control::new(sh.clone())));
        let mut req = BackendReqHandler::from_stream(stream, ctl.clone());
        if let Ok(s) = req.try_clone_connection() {
            *sh.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some(s);
        }
        c.connects.fetch_add(1, Ordering::Relaxed);
        while !sh.stop.load(Ordering::Acquire) {
            match req.handle_request() {
                Ok(()) => {}
                Err(VuError::Disconnected) | Err(VuError::PartialMessage) => break,
                Err(VuError::SocketBroken(_)) => break,
                Err(_) => {
                    // A request the frontend should not have sent: the connection is unusable.
                    c.protocol_errors.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
        }
        ctl.lock().unwrap_or_else(|p| p.into_inner()).stop_all();
        c.disconnects.fetch_add(1, Ordering::Relaxed);
        *sh.conn.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// A data-path handle on one virtqueue: follows the control thread's epoch.
struct Worker {
    sh: Arc<Shared>,
    qi: usize,
    epoch: u64,
    act: Option<Arc<Active>>,
    dq: Option<DeviceQueue>,
    /// Chains left in the driver's ring when it was taken away (a transmit ring's packets).
    abandoned: u64,
}

impl Worker {
    fn attach(sh: Arc<Shared>, qi: usize) -> Worker {
        sh.slots[qi].attached.store(true, Ordering::Release);
        Worker {
            sh,
            qi,
            epoch: 0,
            act: None,
            dq: None,
            abandoned: 0,
        }
    }

    /// Picks up a ring change (cold: once per start/stop).
    #[cold]
    fn refresh(&mut self, e: u64) {
        let s = &self.sh.slots[self.qi];
        if let Some(dq) = &mut self.dq {
            s.last_avail
                .store(dq.last_avail() as u32, Ordering::Release);
            // The mapping is still ours (the Arc): count what the driver left behind.
            self.abandoned += dq.pending().min(dq.size()) as u64;
        }
        let a = s.active.lock().unwrap_or_else(|p| p.into_inner()).clone();
        self.dq = a.as_ref().map(|a| DeviceQueue::new(a.ring, a.base));
        self.act = a;
        self.epoch = e;
        s.acked.store(e, Ordering::Release);
    }

    /// The queue if a ring is running (one atomic load when nothing changed).
    #[inline(always)]
    fn get(&mut self) -> Option<(&Active, &mut DeviceQueue)> {
        let e = self.sh.slots[self.qi].epoch.load(Ordering::Acquire);
        if e != self.epoch {
            self.refresh(e);
        }
        match (&self.act, &mut self.dq) {
            (Some(a), Some(q)) => Some((a, q)),
            _ => None,
        }
    }

    #[inline(always)]
    fn done(&self) {
        if let Some(q) = &self.dq {
            self.sh.slots[self.qi]
                .last_avail
                .store(q.last_avail() as u32, Ordering::Relaxed);
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.done();
        let s = &self.sh.slots[self.qi];
        s.attached.store(false, Ordering::Release);
    }
}

/// Signals the guest's call eventfd if it wants an interrupt.
#[inline(always)]
fn notify(q: &mut DeviceQueue, a: &Active) {
    if q.publish() {
        if let Some(mut f) = a.call.as_ref() {
            let _ = f.write(&1u64.to_ne_bytes());
        }
    }
}

fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Copies chain `head` (a guest transmit: header + frame, read-only buffers) into `dst`;
/// returns the frame length.
#[inline(always)]
fn read_chain(q: &DeviceQueue, a: &Active, head: u16, dst: &mut [u8]) -> Result<usize, ChainError> {
    let mut skip = a.hdr_len;
    let mut len = 0usize;
    q.walk(&a.mem, head, false, |p, l| {
        let l = l as usize;
        let s = skip.min(l);
        skip -= s;
        let n = l - s;
        if len + n > dst.len() {
            return Err(ChainError::TooLong);
        }
        // SAFETY: walk checked p..p+l against the mapping; s + n == l.
        unsafe { copy_from_shared(&mut dst[len..len + n], p.add(s)) };
        len += n;
        Ok(())
    })?;
    Ok(len)
}

/// The receive side of a queue pair: packets the guest transmits.
pub struct VhostUserRx {
    q: Worker,
    port: u16,
    counters: Arc<VirtioCounters>,
    st: VirtioStats,
    /// Whether to compute each frame's flow hash ([`RxPort::want_flow_hash`]).
    hash: bool,
}

impl std::fmt::Debug for VhostUserRx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VhostUserRx")
            .field("path", &self.q.sh.path)
            .field("queue", &self.q.qi)
            .finish()
    }
}

impl VhostUserRx {
    /// This queue's counters (updated once per burst).
    pub fn counters(&self) -> Arc<VirtioCounters> {
        self.counters.clone()
    }
}

impl RxPort for VhostUserRx {
    fn rx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        out: &mut Vec<Buf>,
        max: usize,
    ) -> usize {
        let (pool, cache, layout) = ctx.parts();
        let Some((a, q)) = self.q.get() else {
            if self.st.rx_abandoned != self.q.abandoned {
                self.st.rx_abandoned = self.q.abandoned;
                self.counters.store(&self.st);
            }
            return 0;
        };
        let n = (q.pending() as usize).min(max);
        if n == 0 {
            return 0;
        }
        let at = out.len();
        if !cache.get_bulk(pool, n, out) {
            return 0; // pool exhausted: the packets wait in the guest's ring
        }
        q.prefetch(&a.mem, n as u16, false);
        let ts = now_ns();
        let mut kept = at;
        for k in 0..n {
            let head = q.pop();
            out.swap(kept, at + k);
            let b = &mut out[kept];
            let r = read_chain(q, a, head, &mut pool.data_mut(b)[..DATA_ROOM]);
            q.push_used(head, 0);
            match r {
                Ok(len) => {
                    let d = &pool.data(b)[..len];
                    let m = RxMeta {
                        len: len as u16,
                        port: self.port,
                        rss: if self.hash { flow_hash(d) } else { 0 },
                        ts_ns: ts,
                    };
                    layout.rx_init(pool, b, kept, &m);
                    self.st.rx += 1;
                    self.st.rx_bytes += len as u64;
                    kept += 1;
                }
                Err(ChainError::TooLong) => self.st.rx_oversize += 1,
                Err(ChainError::Bad) => self.st.rx_bad_desc += 1,
            }
        }
        notify(q, a);
        self.st.rx_abandoned = self.q.abandoned;
        if kept < at + n {
            let mut spare: Vec<Buf> = out.drain(kept..).collect();
            cache.put_bulk(pool, &mut spare);
        }
        self.q.done();
        self.counters.store(&self.st);
        kept - at
    }

    fn exhausted(&self) -> bool {
        self.q.sh.stop.load(Ordering::Relaxed)
    }

    fn want_flow_hash(&mut self, wanted: bool) {
        self.hash = wanted;
    }
}

/// The transmit side of a queue pair: packets to the guest.
pub struct VhostUserTx {
    q: Worker,
    counters: Arc<VirtioCounters>,
    st: VirtioStats,
}

impl std::fmt::Debug for VhostUserTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VhostUserTx")
            .field("path", &self.q.sh.path)
            .field("queue", &self.q.qi)
            .finish()
    }
}

impl VhostUserTx {
    /// This queue's counters (updated once per burst).
    pub fn counters(&self) -> Arc<VirtioCounters> {
        self.counters.clone()
    }
}

/// Why a packet could not be given to the guest.
enum TxFail {
    NoBuffers,
    TooLong,
    Bad,
}

/// Copies `data` into the guest's receive ring (header first; several chains with
/// `MRG_RXBUF`). On failure nothing is published and the ring is as before.
#[inline(always)]
fn write_packet(q: &mut DeviceQueue, a: &Active, data: &[u8]) -> Result<(), TxFail> {
    let mut done = 0usize; // frame bytes written
    let mut first: *mut u8 = std::ptr::null_mut();
    let mut chains: u16 = 0;
    while first.is_null() || done < data.len() {
        if !q.has_pending() {
            q.unpop(chains);
            q.unpush(chains);
            return Err(TxFail::NoBuffers);
        }
        let head = q.pop();
        chains += 1;
        let mut written = 0usize;
        let r = q.walk(&a.mem, head, true, |p, l| {
            let mut l = l as usize;
            let mut p = p;
            if first.is_null() {
                if l < a.hdr_len {
                    return Err(ChainError::Bad);
                }
                first = p;
                // SAFETY: walk checked p..p+l, l >= hdr_len.
                p = unsafe { p.add(a.hdr_len) };
                l -= a.hdr_len;
                written += a.hdr_len;
            }
            let n = l.min(data.len() - done);
            // SAFETY: p..p+n lies in the checked descriptor range.
            unsafe { copy_to_shared(p, &data[done..done + n]) };
            done += n;
            written += n;
            Ok(())
        });
        q.push_used(head, written as u32);
        let fail = match r {
            Err(_) => Some(TxFail::Bad),
            Ok(()) if done < data.len() && !a.mrg => Some(TxFail::TooLong),
            Ok(()) => None,
        };
        if let Some(f) = fail {
            q.unpop(chains);
            q.unpush(chains);
            return Err(f);
        }
    }
    // SAFETY: `first` is the checked start of the first buffer, at least hdr_len long.
    unsafe { write_net_hdr(first, a.hdr_len, chains) };
    Ok(())
}

impl TxPort for VhostUserTx {
    fn tx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        bufs: &mut Vec<Buf>,
        lens: &[u16],
        _ts: &[u64],
    ) {
        let pool = ctx.pool;
        match self.q.get() {
            None => self.st.tx_not_ready += bufs.len() as u64,
            Some((a, q)) => {
                q.prefetch(&a.mem, bufs.len().min(u16::MAX as usize) as u16, true);
                for (b, &len) in bufs.iter().zip(lens) {
                    let data = &pool.data(b)[..len as usize];
                    match write_packet(q, a, data) {
                        Ok(()) => {
                            self.st.tx += 1;
                            self.st.tx_bytes += len as u64;
                        }
                        Err(TxFail::NoBuffers) => self.st.tx_no_buffers += 1,
                        Err(TxFail::TooLong) => self.st.tx_too_long += 1,
                        Err(TxFail::Bad) => self.st.tx_bad_desc += 1,
                    }
                }
                notify(q, a);
                self.q.done();
            }
        }
        self.counters.store(&self.st);
        ctx.free_all(bufs);
    }

    fn packets(&self) -> u64 {
        self.st.tx
    }
}
