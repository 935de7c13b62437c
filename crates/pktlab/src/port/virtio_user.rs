//! `virtio-user:PATH` — pktlab as a vhost-user *frontend* (a CNF's virtio NIC, as DPDK's
//! `net_virtio_user`): it connects to a vhost-user backend (a virtual switch: pktlab's
//! [`super::vhost_user`], DPDK's `net_vhost`, OVS-DPDK) at PATH and shares one queue pair
//! with it, so `pktlab gen … --tx virtio-user:PATH` and `pktlab sink --rx virtio-user:PATH`
//! are CNFs on either side of a switch.
//!
//! * Protocol: rust-vmm's `vhost` crate ([`Frontend`]) sends the messages: owner, features
//!   (`VIRTIO_F_VERSION_1`, `VIRTIO_NET_F_MRG_RXBUF`, protocol features), one memory region,
//!   the two rings, their call/kick eventfds, enable.
//! * Memory: one memfd (or a hugetlbfs memfd) holding both split rings and one fixed buffer
//!   per descriptor; driver-physical addresses are this process's virtual addresses, as
//!   DPDK's virtio-user does. Mapped once at connect.
//! * Data path: [`VirtioUserTx::tx_burst`] writes header + frame into free descriptors of the
//!   device's receive queue (queue 1, our transmit) and waits for free ones when the ring is
//!   full, up to [`TX_STALL`] (a generator's back-pressure; then the burst's rest is dropped
//!   and counted); [`VirtioUserRx::rx_burst`] copies used buffers of queue 0 into pool
//!   buffers and gives the buffers straight back. Both poll (`VRING_AVAIL_F_NO_INTERRUPT`),
//!   and kick only if the backend did not set `VRING_USED_F_NO_NOTIFY`.

use crate::mbuf::{Buf, Layout, RxMeta, DATA_ROOM};
use crate::port::virtio_stats::{VirtioCounters, VirtioStats};
use crate::port::virtq::{
    copy_from_shared, copy_to_shared, flow_hash, read_num_buffers, ring_bytes, write_net_hdr,
    DriverQueue, MemTable, RingAddrs, VirtqError, NET_HDR_LEN,
};
use crate::port::{Bufs, RxPort, TxPort};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vhost::vhost_user::message::{VhostUserProtocolFeatures, VhostUserVirtioFeatures};
use vhost::vhost_user::{Frontend, VhostUserFrontend};
use vhost::{VhostBackend, VhostUserMemoryRegionInfo, VringConfigData};
use virtio_bindings::virtio_config::VIRTIO_F_VERSION_1;
use virtio_bindings::virtio_net::VIRTIO_NET_F_MRG_RXBUF;
use vmm_sys_util::eventfd::{EventFd, EFD_NONBLOCK};

/// Descriptors per ring (DPDK's virtio-user default is 256; more absorbs a descheduled peer).
pub const QUEUE_SIZE: u16 = 1024;
/// Bytes per descriptor buffer: header + a full data room, cache-line multiple.
const BUF_LEN: u32 = ((NET_HDR_LEN + DATA_ROOM) as u32).next_multiple_of(64);
/// How long a transmit burst waits for the backend to free descriptors.
pub const TX_STALL: Duration = Duration::from_secs(1);

/// Errors of connecting a virtio-user port (one line each, naming the socket).
#[derive(Debug, thiserror::Error)]
pub enum VirtioUserError {
    /// Nothing listened on the socket in time.
    #[error("virtio-user:{path}: cannot connect to the vhost-user socket: {source}")]
    Connect {
        /// Socket path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The backend refused a step of the set-up.
    #[error("virtio-user:{path}: {step} failed: {source}")]
    Protocol {
        /// Socket path.
        path: String,
        /// The message that failed.
        step: &'static str,
        /// The cause.
        source: vhost::Error,
    },
    /// The backend lacks a feature this frontend needs.
    #[error("virtio-user:{path}: the backend does not offer VIRTIO_F_VERSION_1 or MRG_RXBUF (features {features:#x})")]
    Features {
        /// Socket path.
        path: String,
        /// What it offered.
        features: u64,
    },
    /// Shared memory could not be set up.
    #[error("virtio-user:{path}: {source}")]
    Memory {
        /// Socket path.
        path: String,
        /// The cause.
        source: VirtqError,
    },
    /// An eventfd could not be created.
    #[error("virtio-user:{path}: eventfd: {source}")]
    EventFd {
        /// Socket path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// The connection both halves share (closed when both are dropped).
struct Conn {
    path: String,
    _fe: Frontend,
    sock: UnixStream,
    _mem: MemTable,
    kick: [EventFd; 2],
    _call: [EventFd; 2],
    lost: AtomicBool,
}

impl Conn {
    /// True once the backend hung up (checked only when a ring stalls).
    fn check_lost(&self) -> bool {
        if self.lost.load(Ordering::Relaxed) {
            return true;
        }
        let mut p = libc::pollfd {
            fd: self.sock.as_raw_fd(),
            events: libc::POLLRDHUP,
            revents: 0,
        };
        // SAFETY: one valid pollfd, no wait.
        let r = unsafe { libc::poll(&mut p, 1, 0) };
        let lost = r > 0 && p.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0;
        if lost {
            self.lost.store(true, Ordering::Relaxed);
        }
        lost
    }
}

/// Where queue `q`'s parts start in the shared region.
fn layout(q: u64) -> (u64, u64, u64, u64, u64) {
    let (dl, al, ul) = ring_bytes(QUEUE_SIZE);
    let per = dl + al.next_multiple_of(64) + ul.next_multiple_of(4096);
    let bufs = QUEUE_SIZE as u64 * BUF_LEN as u64;
    let base = q * (per + bufs).next_multiple_of(4096);
    let d = base;
    let a = d + dl;
    let u = a + al.next_multiple_of(64);
    let b = base + per;
    (d, a, u, b, (per + bufs).next_multiple_of(4096))
}

/// Connects to the backend at `path` (waiting up to `wait` for the socket to appear, or
/// until `stop`) and sets up one queue pair. `huge`: back the shared memory with 2 MiB
/// pages. Returns the receive half (input port `port`) and the transmit half.
pub fn connect(
    path: &Path,
    port: u16,
    huge: bool,
    wait: Duration,
    stop: Arc<AtomicBool>,
) -> Result<(VirtioUserRx, VirtioUserTx), VirtioUserError> {
    let name = path.display().to_string();
    let t = Instant::now();
    let sock = loop {
        match UnixStream::connect(path) {
            Ok(s) => break s,
            Err(e) => {
                if t.elapsed() >= wait || stop.load(Ordering::Relaxed) {
                    return Err(VirtioUserError::Connect {
                        path: name,
                        source: e,
                    });
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    let sock2 = sock
        .try_clone()
        .map_err(|source| VirtioUserError::Connect {
            path: name.clone(),
            source,
        })?;
    let mut fe = Frontend::from_stream(sock, 2);
    let perr = |step: &'static str| {
        let name = name.clone();
        move |source| VirtioUserError::Protocol {
            path: name,
            step,
            source,
        }
    };
    fe.set_owner().map_err(perr("SET_OWNER"))?;
    let offered = fe.get_features().map_err(perr("GET_FEATURES"))?;
    let need = 1u64 << VIRTIO_F_VERSION_1 | 1 << VIRTIO_NET_F_MRG_RXBUF;
    if offered & need != need {
        return Err(VirtioUserError::Features {
            path: name,
            features: offered,
        });
    }
    let proto = VhostUserVirtioFeatures::PROTOCOL_FEATURES.bits();
    fe.set_features(need | (offered & proto))
        .map_err(perr("SET_FEATURES"))?;
    if offered & proto != 0 {
        fe.get_protocol_features()
            .map_err(perr("GET_PROTOCOL_FEATURES"))?;
        fe.set_protocol_features(VhostUserProtocolFeatures::empty())
            .map_err(perr("SET_PROTOCOL_FEATURES"))?;
    }
    let total = 2 * layout(0).4;
    let (mem, file) = MemTable::create(total, huge).map_err(|source| VirtioUserError::Memory {
        path: name.clone(),
        source,
    })?;
    let r = mem.descs()[0];
    fe.set_mem_table(&[VhostUserMemoryRegionInfo {
        guest_phys_addr: r.gpa,
        memory_size: r.size,
        userspace_addr: r.uva,
        mmap_offset: 0,
        mmap_handle: file.as_raw_fd(),
    }])
    .map_err(perr("SET_MEM_TABLE"))?;
    let efd = || {
        EventFd::new(EFD_NONBLOCK).map_err(|source| VirtioUserError::EventFd {
            path: name.clone(),
            source,
        })
    };
    let kick = [efd()?, efd()?];
    let call = [efd()?, efd()?];
    let mut queues = Vec::new();
    for q in 0..2usize {
        let (d, a, u, b, _) = layout(q as u64);
        let (d, a, u, b) = (r.gpa + d, r.gpa + a, r.gpa + u, r.gpa + b);
        let ring =
            RingAddrs::new(QUEUE_SIZE as u32, d, a, u, |x, l| mem.uva(x, l)).map_err(|source| {
                VirtioUserError::Memory {
                    path: name.clone(),
                    source,
                }
            })?;
        let host =
            mem.gpa(b, QUEUE_SIZE as u32 * BUF_LEN)
                .ok_or_else(|| VirtioUserError::Memory {
                    path: name.clone(),
                    source: VirtqError::RingOutside("buffer", b),
                })?;
        let mut dq = DriverQueue::new(ring, host, b, BUF_LEN);
        if q == 0 {
            while dq.give(true, |_, cap| cap) {}
            dq.publish();
        }
        queues.push(dq);
        fe.set_vring_num(q, QUEUE_SIZE)
            .map_err(perr("SET_VRING_NUM"))?;
        fe.set_vring_addr(
            q,
            &VringConfigData {
                queue_max_size: QUEUE_SIZE,
                queue_size: QUEUE_SIZE,
                flags: 0,
                desc_table_addr: d,
                used_ring_addr: u,
                avail_ring_addr: a,
                log_addr: None,
            },
        )
        .map_err(perr("SET_VRING_ADDR"))?;
        fe.set_vring_base(q, 0).map_err(perr("SET_VRING_BASE"))?;
        fe.set_vring_call(q, &call[q])
            .map_err(perr("SET_VRING_CALL"))?;
        fe.set_vring_kick(q, &kick[q])
            .map_err(perr("SET_VRING_KICK"))?;
    }
    if offered & proto != 0 {
        for q in 0..2 {
            fe.set_vring_enable(q, true)
                .map_err(perr("SET_VRING_ENABLE"))?;
        }
    }
    let conn = Arc::new(Conn {
        path: name,
        _fe: fe,
        sock: sock2,
        _mem: mem,
        kick,
        _call: call,
        lost: AtomicBool::new(false),
    });
    let txq = queues.pop().expect("two queues");
    let rxq = queues.pop().expect("two queues");
    Ok((
        VirtioUserRx {
            conn: conn.clone(),
            q: rxq,
            port,
            stop,
            counters: Arc::new(VirtioCounters::default()),
            st: VirtioStats::default(),
            hash: true,
        },
        VirtioUserTx {
            conn,
            q: txq,
            counters: Arc::new(VirtioCounters::default()),
            st: VirtioStats::default(),
        },
    ))
}

/// Kicks queue `i` if the backend wants notifications.
#[inline(always)]
fn publish(conn: &Conn, q: &mut DriverQueue, i: usize) {
    if q.publish() {
        let _ = conn.kick[i].write(1);
    }
}

/// Checks a used receive buffer at `p` of `len` bytes (header + frame): the frame length,
/// or `None` with the reason counted (short, spread over several buffers, or too long).
#[inline(always)]
fn frame_len(p: *const u8, len: usize, st: &mut VirtioStats) -> Option<usize> {
    if len < NET_HDR_LEN {
        st.rx_bad_desc += 1;
        return None;
    }
    // SAFETY: `p` is a reclaimed descriptor's own buffer of at least `len` >= header bytes.
    if unsafe { read_num_buffers(p) } != 1 {
        st.rx_bad_desc += 1;
        return None;
    }
    let flen = len - NET_HDR_LEN;
    if flen > DATA_ROOM {
        st.rx_oversize += 1;
        return None;
    }
    Some(flen)
}

/// The receive half: packets the backend writes into queue 0.
pub struct VirtioUserRx {
    conn: Arc<Conn>,
    q: DriverQueue,
    port: u16,
    stop: Arc<AtomicBool>,
    counters: Arc<VirtioCounters>,
    st: VirtioStats,
    /// Whether to compute each frame's flow hash ([`RxPort::want_flow_hash`]).
    hash: bool,
}

impl std::fmt::Debug for VirtioUserRx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtioUserRx")
            .field("path", &self.conn.path)
            .finish()
    }
}

impl VirtioUserRx {
    /// This half's counters (updated once per burst).
    pub fn counters(&self) -> Arc<VirtioCounters> {
        self.counters.clone()
    }

    /// True once the backend hung up.
    pub fn lost(&self) -> bool {
        self.conn.check_lost()
    }

    /// Calls `f(frame)` for up to `max` received frames (copied out of the shared buffer into
    /// `scratch` first) without waiting; returns how many were visited. Malformed buffers
    /// are counted, not visited.
    pub fn visit(&mut self, max: usize, scratch: &mut Vec<u8>, mut f: impl FnMut(&[u8])) -> usize {
        scratch.resize(DATA_ROOM, 0);
        let st = &mut self.st;
        let mut seen = 0;
        let (_, bad) = self.q.reclaim(max, |p, len| {
            let Some(flen) = frame_len(p, len, st) else {
                return;
            };
            // SAFETY: p + NET_HDR_LEN .. p + len is inside the buffer.
            unsafe { copy_from_shared(&mut scratch[..flen], p.add(NET_HDR_LEN)) };
            st.rx += 1;
            st.rx_bytes += flen as u64;
            seen += 1;
            f(&scratch[..flen]);
        });
        self.st.rx_bad_desc += bad;
        while self.q.give(true, |_, cap| cap) {}
        publish(&self.conn, &mut self.q, 0);
        self.counters.store(&self.st);
        seen
    }

    /// Counts so far.
    pub fn stats(&self) -> VirtioStats {
        self.st
    }
}

impl RxPort for VirtioUserRx {
    fn rx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        out: &mut Vec<Buf>,
        max: usize,
    ) -> usize {
        let (pool, cache, layout) = ctx.parts();
        let n = self.q.used_pending().min(max);
        if n == 0 {
            return 0;
        }
        let at = out.len();
        if !cache.get_bulk(pool, n, out) {
            return 0;
        }
        let (port, hash) = (self.port, self.hash);
        let mut kept = at;
        let st = &mut self.st;
        let (_, bad) = self.q.reclaim(n, |p, len| {
            let b = &mut out[kept];
            let Some(flen) = frame_len(p, len, st) else {
                return;
            };
            // SAFETY: p + NET_HDR_LEN .. p + len is inside the buffer.
            unsafe { copy_from_shared(&mut pool.data_mut(b)[..flen], p.add(NET_HDR_LEN)) };
            let m = RxMeta {
                len: flen as u16,
                port,
                rss: if hash {
                    flow_hash(&pool.data(b)[..flen])
                } else {
                    0
                },
                ts_ns: 0,
            };
            layout.rx_init(pool, b, kept, &m);
            st.rx += 1;
            st.rx_bytes += flen as u64;
            kept += 1;
        });
        self.st.rx_bad_desc += bad;
        while self.q.give(true, |_, cap| cap) {}
        publish(&self.conn, &mut self.q, 0);
        if kept < at + n {
            let mut spare: Vec<Buf> = out.drain(kept..).collect();
            cache.put_bulk(pool, &mut spare);
        }
        self.counters.store(&self.st);
        kept - at
    }

    fn exhausted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn want_flow_hash(&mut self, wanted: bool) {
        self.hash = wanted;
    }
}

/// The transmit half: packets into queue 1.
pub struct VirtioUserTx {
    conn: Arc<Conn>,
    q: DriverQueue,
    counters: Arc<VirtioCounters>,
    st: VirtioStats,
}

impl std::fmt::Debug for VirtioUserTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtioUserTx")
            .field("path", &self.conn.path)
            .finish()
    }
}

impl VirtioUserTx {
    /// This half's counters (updated once per burst).
    pub fn counters(&self) -> Arc<VirtioCounters> {
        self.counters.clone()
    }

    /// Sends one frame, waiting up to [`TX_STALL`] for a free descriptor; false (counted)
    /// if it was dropped.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        if frame.len() > DATA_ROOM {
            self.st.tx_too_long += 1;
            return false;
        }
        let mut t: Option<Instant> = None;
        loop {
            if self.conn.lost.load(Ordering::Relaxed) {
                self.st.tx_not_ready += 1;
                return false;
            }
            let ok = self.q.give(false, |p, _| {
                // SAFETY: p is a free descriptor's buffer of BUF_LEN >= hdr + DATA_ROOM bytes.
                unsafe {
                    write_net_hdr(p, NET_HDR_LEN, 0);
                    copy_to_shared(p.add(NET_HDR_LEN), frame);
                }
                NET_HDR_LEN + frame.len()
            });
            if ok {
                self.st.tx += 1;
                self.st.tx_bytes += frame.len() as u64;
                return true;
            }
            publish(&self.conn, &mut self.q, 1);
            let (_, bad) = self.q.reclaim(usize::MAX, |_, _| {});
            self.st.tx_bad_desc += bad;
            if self.q.free() > 0 {
                continue;
            }
            let start = *t.get_or_insert_with(Instant::now);
            if start.elapsed() >= TX_STALL {
                if self.conn.check_lost() {
                    self.st.tx_not_ready += 1;
                } else {
                    self.st.tx_no_buffers += 1;
                }
                return false;
            }
            if self.conn.check_lost() {
                continue;
            }
            std::hint::spin_loop();
        }
    }

    /// Makes everything pushed visible to the backend.
    pub fn flush(&mut self) {
        publish(&self.conn, &mut self.q, 1);
        let (_, bad) = self.q.reclaim(usize::MAX, |_, _| {});
        self.st.tx_bad_desc += bad;
        self.counters.store(&self.st);
    }

    /// Waits up to `timeout` until the backend has taken every frame pushed.
    pub fn drain(&mut self, timeout: Duration) {
        let t = Instant::now();
        self.flush();
        while self.q.free() < QUEUE_SIZE as usize
            && t.elapsed() < timeout
            && !self.conn.check_lost()
        {
            std::thread::sleep(Duration::from_micros(100));
            self.flush();
        }
    }

    /// Counts so far.
    pub fn stats(&self) -> VirtioStats {
        self.st
    }
}

impl TxPort for VirtioUserTx {
    fn tx_burst<L: Layout>(
        &mut self,
        ctx: &mut Bufs<'_, L>,
        bufs: &mut Vec<Buf>,
        lens: &[u16],
        _ts: &[u64],
    ) {
        let (_, bad) = self.q.reclaim(usize::MAX, |_, _| {});
        self.st.tx_bad_desc += bad;
        for (b, &len) in bufs.iter().zip(lens) {
            self.push(&ctx.pool.data(b)[..len as usize]);
        }
        self.flush();
        ctx.free_all(bufs);
    }

    fn packets(&self) -> u64 {
        self.st.tx
    }
}

impl Drop for VirtioUserTx {
    fn drop(&mut self) {
        self.drain(Duration::from_millis(500));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mbuf::{CompactConst, Dpdk, PoolCache};
    use crate::port::vhost_user::VhostUserDev;
    use std::path::PathBuf;

    fn sock(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("pktlab-test-{}-{name}.sock", std::process::id()))
    }

    fn frame(i: u32) -> Vec<u8> {
        let mut f = vec![0u8; 60 + (i % 7) as usize * 100];
        f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
        f[14] = 0x45;
        f[23] = 17;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&i.to_be_bytes());
        let n = f.len();
        f[n - 4..].copy_from_slice(&i.to_be_bytes());
        f
    }

    /// One worker's layout for batches of `n`.
    fn new_layout<L: Layout>(n: usize) -> L {
        L::new(Arc::new(L::shared(n, 1)), n)
    }

    fn wait_running(d: &VhostUserDev) {
        let t = Instant::now();
        while !d.running(0) {
            assert!(t.elapsed() < Duration::from_secs(5), "rings never started");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// gen (virtio-user) -> switch A (vhost-user) ... switch B (vhost-user) -> sink
    /// (virtio-user), in one process: every frame arrives intact, counters agree, and both
    /// receive ports give each frame its flow hash exactly when `hash` asks for it (0 else).
    fn chain<L: Layout>(hash: bool) {
        let stop = Arc::new(AtomicBool::new(false));
        // One pair of sockets per call: the tests calling `chain` run in parallel.
        let (pa, pb) = (
            sock(&format!("a-{}-{hash}", L::NAME)),
            sock(&format!("b-{}-{hash}", L::NAME)),
        );
        let a = VhostUserDev::open(&pa, false, 1, stop.clone()).unwrap();
        let b = VhostUserDev::open(&pb, false, 1, stop.clone()).unwrap();
        let (mut sw_rx, mut sw_tx) = (a.rx(0, 0), b.tx(0));
        let w = Duration::from_secs(5);
        let (_g_rx, mut gen) = connect(&pa, 0, false, w, stop.clone()).unwrap();
        let (mut sink, _s_tx) = connect(&pb, 1, false, w, stop.clone()).unwrap();
        sw_rx.want_flow_hash(hash);
        sink.want_flow_hash(hash);
        let want = |f: &[u8]| if hash { flow_hash(f) } else { 0 };
        let mut hashed = 0;
        wait_running(&a);
        wait_running(&b);
        let pool = L::mbuf_pool(4096);
        let mut layout = new_layout::<L>(64);
        let mut cache = PoolCache::new(64);
        let total = 5000u32;
        let mut sent = 0u32;
        let mut got: Vec<Vec<u8>> = Vec::new();
        let (mut bufs, mut lens) = (Vec::new(), Vec::new());
        let t = Instant::now();
        while got.len() < total as usize && t.elapsed() < Duration::from_secs(20) {
            while sent < total && gen.q.free() > 0 {
                assert!(gen.push(&frame(sent)));
                sent += 1;
            }
            gen.flush();
            assert!(layout.begin(64));
            let n = sw_rx.rx_burst(
                &mut Bufs::new(&pool, &mut cache, &mut layout),
                &mut bufs,
                64,
            );
            lens.clear();
            for (i, b) in bufs.iter().enumerate() {
                let (l, rss) = (layout.data_len(&pool, b, i), layout.rss(&pool, b, i));
                assert_eq!(rss, want(&pool.data(b)[..l as usize]));
                hashed += u64::from(rss != 0);
                lens.push(l);
            }
            let ts = vec![0; n];
            sw_tx.tx_burst(
                &mut Bufs::new(&pool, &mut cache, &mut layout),
                &mut bufs,
                &lens,
                &ts,
            );
            layout.end();
            assert!(layout.begin(64));
            let m = sink.rx_burst(
                &mut Bufs::new(&pool, &mut cache, &mut layout),
                &mut bufs,
                64,
            );
            for (i, b) in bufs.iter().enumerate() {
                let l = layout.data_len(&pool, b, i) as usize;
                assert_eq!(layout.rss(&pool, b, i), want(&pool.data(b)[..l]));
                got.push(pool.data(b)[..l].to_vec());
            }
            assert_eq!(m, bufs.len());
            crate::port::free_all(&pool, &mut cache, &mut layout, &mut bufs);
            layout.end();
        }
        assert_eq!(got.len(), total as usize, "{}", L::NAME);
        for (i, f) in got.iter().enumerate() {
            assert_eq!(f, &frame(i as u32), "frame {i} ({})", L::NAME);
        }
        let (r, x, s) = (
            sw_rx.counters().snapshot(),
            sw_tx.counters().snapshot(),
            sink.counters().snapshot(),
        );
        assert_eq!(r.rx, total as u64);
        assert_eq!(x.tx, total as u64);
        assert_eq!(x.tx_dropped(), 0);
        assert_eq!(s.rx, total as u64);
        assert_eq!(gen.stats().tx, total as u64);
        assert_eq!(a.counters().snapshot().connects, 1);
        // The frames are UDP over IPv4: every hash is non-zero when computed.
        assert_eq!(hashed, if hash { total as u64 } else { 0 });
    }

    #[test]
    fn a_chain_of_two_switches_delivers_every_frame_intact() {
        chain::<Dpdk>(true);
        chain::<CompactConst<16>>(true);
    }

    #[test]
    fn receive_ports_skip_the_flow_hash_nobody_reads() {
        chain::<Dpdk>(false);
        chain::<CompactConst<16>>(false);
    }

    #[test]
    fn the_switch_survives_frontends_that_leave_and_garbage() {
        let stop = Arc::new(AtomicBool::new(false));
        let p = sock("reconnect");
        let d = VhostUserDev::open(&p, false, 1, stop.clone()).unwrap();
        let mut tx = d.tx(0);
        let pool = Dpdk::mbuf_pool(256);
        let mut layout = new_layout::<Dpdk>(32);
        let mut cache = PoolCache::new(32);
        let mut send = |tx: &mut crate::port::vhost_user::VhostUserTx, n: usize| {
            let mut bufs = Vec::new();
            assert!(cache.get_bulk(&pool, n, &mut bufs));
            let f = frame(7);
            for b in bufs.iter_mut() {
                pool.data_mut(b)[..f.len()].copy_from_slice(&f);
            }
            let lens = vec![f.len() as u16; n];
            let mut ctx = Bufs::new(&pool, &mut cache, &mut layout);
            tx.tx_burst(&mut ctx, &mut bufs, &lens, &vec![0; n]);
        };
        // Nobody connected: dropped and counted.
        send(&mut tx, 10);
        assert_eq!(tx.counters().snapshot().tx_not_ready, 10);
        // Garbage instead of vhost-user messages.
        {
            let mut s = UnixStream::connect(&p).unwrap();
            use std::io::Write;
            s.write_all(&[0xffu8; 64]).unwrap();
        }
        for round in 0..3u64 {
            let w = Duration::from_secs(5);
            let (mut rx, _t) = connect(&p, 0, false, w, stop.clone()).unwrap();
            wait_running(&d);
            send(&mut tx, 20);
            let mut got = 0;
            let t = Instant::now();
            let mut bufs = Vec::new();
            let mut l2 = new_layout::<Dpdk>(32);
            let mut c2 = PoolCache::new(32);
            while got < 20 && t.elapsed() < Duration::from_secs(5) {
                l2.begin(32);
                got += rx.rx_burst(&mut Bufs::new(&pool, &mut c2, &mut l2), &mut bufs, 32);
                crate::port::free_all(&pool, &mut c2, &mut l2, &mut bufs);
                l2.end();
            }
            assert_eq!(got, 20, "round {round}");
            drop(rx);
            drop(_t);
            let t = Instant::now();
            while d.connected() && t.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(2));
            }
            let c = d.counters().snapshot();
            assert_eq!(
                c.connects,
                round + 2,
                "garbage connection + {round} frontends"
            );
            assert_eq!(c.disconnects, round + 2);
        }
        assert!(d.counters().snapshot().protocol_errors >= 1);
        let s = tx.counters().snapshot();
        assert_eq!(s.tx, 60);
        drop(tx);
        drop(d);
        assert!(!p.exists(), "the socket file is removed");
    }
}
