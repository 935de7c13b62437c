//! The CCN router of paper 003's case study (§4: a Cefore router with or without a Content
//! Store, measured in Data packets forwarded per second) on real UDP faces: pktlab's
//! [`Forwarder`] (CS → PIT → FIB) behind batched `recvmmsg` / `sendmmsg`.
//!
//! Faces are UDP peers. Each worker owns a downstream socket on the listen address (shared with
//! `SO_REUSEPORT` when there are several workers, so the kernel spreads downstream peers over
//! them) and an upstream socket on an ephemeral port from which it sends to the routes' next
//! hops, so that Data comes back to the worker whose PIT holds the Interest. Each worker has its
//! own forwarder and a 1/N share of the CS. A PIT entry lives for its Interest's
//! InterestLifetime (the configured default when the Interest carries none).

use super::Control;
use crate::ccn::cs::{AnyCs, ContentStore, Policy};
use crate::ccn::forwarder::{Action, Forwarder};
use crate::ccn::tlv::{self, Dialect, TlvError};
use crate::ccn::udp::{self, PeerKey, RxBatch, TxBatch};
use crate::ccn::{Fib, Pit};
use serde::Serialize;
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// Default of [`RouterConfig::max_faces`]: faces (UDP peers, next hops included) per worker.
/// A new peer takes a free slot, else evicts a downstream face with no pending Interest (the
/// least recently used of the next [`EVICT_SAMPLE`] such faces from a clock hand); faces idle
/// for [`RouterConfig::face_idle_ms`] with nothing pending are freed.
pub const MAX_FACES: usize = 4096;

/// Evictable faces compared per eviction (approximate LRU in O(1), as Redis samples keys).
pub const EVICT_SAMPLE: usize = 16;

/// The largest [`RouterConfig::max_faces`]: face numbers are `u16` below the PIT's `NO_FACE`.
pub const MAX_FACES_LIMIT: usize = crate::ccn::pit::NO_FACE as usize;

/// Router settings.
#[derive(Clone, Debug)]
pub struct RouterConfig {
    /// Downstream address to listen on.
    pub listen: SocketAddr,
    /// Routes: name prefix (URI) → next hop.
    pub routes: Vec<(String, SocketAddr)>,
    /// Content-store entries in total (0 = CS off).
    pub cs_entries: usize,
    /// Replacement policy.
    pub cs_policy: Policy,
    /// Largest Data packet the CS keeps (bytes per arena slot).
    pub slot_bytes: usize,
    /// Worker threads.
    pub workers: usize,
    /// Wire dialect (reported; the forwarder itself is dialect-agnostic: names are bytes).
    pub dialect: Dialect,
    /// PIT entries per worker.
    pub pit_entries: usize,
    /// PIT lifetime (ms) of an Interest without an InterestLifetime.
    pub lifetime_ms: u64,
    /// PIT entries one downstream face may hold per worker (0 = a quarter of the PIT).
    pub pit_per_face: usize,
    /// PIT entries that may wait on one next hop per worker (0 = half the PIT with two or more
    /// routes, the whole PIT with one).
    pub pit_per_route: usize,
    /// A downstream face with nothing pending is freed after this many idle milliseconds.
    pub face_idle_ms: u64,
    /// Faces per worker (UDP peers, the routes' next hops included); about 150 bytes each
    /// (slot and index). When all are taken, a new peer evicts an idle face or is dropped
    /// (`face_overflow`).
    pub max_faces: usize,
    /// Datagrams per system call.
    pub batch: usize,
    /// Stop after this long (`None` = until stopped).
    pub duration: Option<Duration>,
    /// Seed of the random replacement policy.
    pub seed: u64,
}

impl RouterConfig {
    /// Refuses impossible values (one-line error naming the CLI flag and the accepted range).
    pub fn validate(&self) -> crate::params::Result<()> {
        use crate::params as check;
        check::int_range("--cs-entries", self.cs_entries as u64, 0, 1 << 26)?;
        check::int_range("--slot-bytes", self.slot_bytes as u64, 64, 65_535)?;
        check::int_range("--workers", self.workers as u64, 1, 64)?;
        check::int_range("--pit-entries", self.pit_entries as u64, 1, 1 << 26)?;
        check::int_range("--lifetime-ms", self.lifetime_ms, 1, 3_600_000)?;
        check::int_range("--face-idle-ms", self.face_idle_ms, 1, 3_600_000)?;
        check::int_range(
            "--max-faces",
            self.max_faces as u64,
            self.routes.len() as u64 + 1,
            MAX_FACES_LIMIT as u64,
        )?;
        check::int_range("--batch", self.batch as u64, 1, 1024)?;
        if let Some(d) = self.duration {
            check::positive("--duration", d.as_secs_f64())?;
        }
        Ok(())
    }
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            listen: "127.0.0.1:9695".parse().unwrap(),
            routes: Vec::new(),
            cs_entries: 0,
            cs_policy: Policy::Lru,
            slot_bytes: 2048,
            workers: 1,
            dialect: Dialect::default(),
            pit_entries: 65536,
            lifetime_ms: 4000,
            pit_per_face: 0,
            pit_per_route: 0,
            face_idle_ms: 10_000,
            max_faces: MAX_FACES,
            batch: 64,
            duration: None,
            seed: 1,
        }
    }
}

/// Live counter indices in [`Control`] for the router (sums over workers).
pub mod ctr {
    /// Datagrams received.
    pub const RECEIVED: usize = 0;
    /// Interests received.
    pub const INTERESTS: usize = 1;
    /// Interests answered from the CS.
    pub const CS_HITS: usize = 2;
    /// Data packets sent downstream (CS hits + Data delivered to PIT faces).
    pub const DATA_OUT: usize = 3;
    /// Interests forwarded upstream.
    pub const FORWARDED: usize = 4;
    /// Malformed datagrams.
    pub const MALFORMED: usize = 5;
    /// Interest Return / CCNinfo packets skipped.
    pub const SKIPPED: usize = 6;
    /// On-CPU time of the workers so far, nanoseconds ([`RouterStats::cpu_ns`](super::RouterStats::cpu_ns)).
    pub const CPU_NS: usize = 7;
    /// Datagrams sent (upstream and downstream).
    pub const SENT: usize = 8;
    /// How many live counters there are.
    pub(crate) const COUNT: usize = 9;
}

/// Router counters (sums over workers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RouterStats {
    /// Datagrams received.
    pub received: u64,
    /// Datagrams sent.
    pub sent: u64,
    /// Interests received.
    pub interests: u64,
    /// Interests answered from the CS.
    pub cs_hits: u64,
    /// Interests forwarded upstream.
    pub forwarded: u64,
    /// Interests aggregated into a pending PIT entry.
    pub aggregated: u64,
    /// Interests dropped (no route, hop limit 0, PIT full).
    pub dropped: u64,
    /// Data packets received.
    pub data: u64,
    /// Data packets sent downstream (CS hits + deliveries to PIT faces).
    pub data_out: u64,
    /// Data without a pending Interest.
    pub unsolicited: u64,
    /// Malformed datagrams (counted, dropped).
    pub malformed: u64,
    /// Interest Return / CCNinfo packets (counted, skipped).
    pub skipped: u64,
    /// PIT entries freed by expiry.
    pub pit_expired: u64,
    /// Interests dropped for lack of a route.
    pub no_route: u64,
    /// Interests dropped with hop limit 0.
    pub hop_limit: u64,
    /// Interests refused: PIT full.
    pub pit_full: u64,
    /// Interests refused: their face already held its PIT share.
    pub pit_face_limit: u64,
    /// Interests refused: their next hop already had its share of waiting PIT entries.
    pub pit_route_limit: u64,
    /// Datagrams dropped because all [`RouterConfig::max_faces`] faces of a worker had
    /// Interests pending.
    pub face_overflow: u64,
    /// Faces recycled for a new peer (least recently used, nothing pending).
    pub face_evicted: u64,
    /// Faces freed after idling.
    pub face_expired: u64,
    /// Sends the kernel refused.
    pub send_errors: u64,
    /// Datagrams cut at the receive buffer size.
    pub truncated: u64,
    /// Faces known at the end.
    pub faces: u64,
    /// `recvmmsg` calls that returned datagrams (received / this = mean receive batch).
    pub rx_calls: u64,
    /// `sendmmsg` calls (sent / this = mean send batch).
    pub tx_calls: u64,
    /// On-CPU time (user + system) of the workers, nanoseconds, read once per receive loop:
    /// the router's own rate is packets per CPU-second, which the scheduling of the other
    /// processes sharing the cores moves far less than packets per wall-clock second.
    pub cpu_ns: u64,
}

impl RouterStats {
    fn add(&mut self, o: &RouterStats) {
        self.received += o.received;
        self.sent += o.sent;
        self.interests += o.interests;
        self.cs_hits += o.cs_hits;
        self.forwarded += o.forwarded;
        self.aggregated += o.aggregated;
        self.dropped += o.dropped;
        self.data += o.data;
        self.data_out += o.data_out;
        self.unsolicited += o.unsolicited;
        self.malformed += o.malformed;
        self.skipped += o.skipped;
        self.pit_expired += o.pit_expired;
        self.no_route += o.no_route;
        self.hop_limit += o.hop_limit;
        self.pit_full += o.pit_full;
        self.pit_face_limit += o.pit_face_limit;
        self.pit_route_limit += o.pit_route_limit;
        self.face_overflow += o.face_overflow;
        self.face_evicted += o.face_evicted;
        self.face_expired += o.face_expired;
        self.send_errors += o.send_errors;
        self.truncated += o.truncated;
        self.faces += o.faces;
        self.rx_calls += o.rx_calls;
        self.tx_calls += o.tx_calls;
        self.cpu_ns += o.cpu_ns;
    }

    fn live(&self) -> [u64; ctr::COUNT] {
        [
            self.received,
            self.interests,
            self.cs_hits,
            self.data_out,
            self.forwarded,
            self.malformed,
            self.skipped,
            self.cpu_ns,
            self.sent,
        ]
    }
}

/// Content-store summary.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CsReport {
    /// Replacement policy.
    pub policy: String,
    /// Capacity (entries, all workers).
    pub capacity: usize,
    /// Entries held at the end.
    pub entries: usize,
    /// Interests answered from the CS.
    pub hits: u64,
    /// hits / Interests received.
    pub hit_ratio: f64,
}

/// What the router did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RouterResult {
    /// Dialect spoken.
    pub dialect: String,
    /// Downstream address.
    pub listen: String,
    /// Worker threads.
    pub workers: usize,
    /// Routes as `PREFIX=udp:ADDR:PORT`.
    pub routes: Vec<String>,
    /// Content store.
    pub cs: CsReport,
    /// Counters.
    pub stats: RouterStats,
    /// Seconds run.
    pub elapsed_s: f64,
    /// Data packets sent downstream per second over the run.
    pub data_per_s: f64,
    /// Interests received per second over the run.
    pub interests_per_s: f64,
}

/// One face slot: socket index (0 downstream, 1 upstream), peer, last use (ms).
#[derive(Clone, Copy)]
struct Face {
    sock: u8,
    peer: PeerKey,
    last: u64,
    used: bool,
}

/// The faces of one worker: a slot list, an index by peer (SipHash with a random key, so
/// that peers cannot choose colliding addresses), the slots freed by idling, and the clock
/// hand of eviction. Upstream faces (next hops) are never recycled.
struct Faces {
    list: Vec<Face>,
    index: HashMap<(u8, PeerKey), u16>,
    free: Vec<u16>,
    max: usize,
    last: usize,
    hand: usize,
}

/// How [`Faces::find_or_add`] placed a peer.
enum Placed {
    /// Known or given a free slot.
    Face(u16),
    /// Given the slot of an evicted idle face.
    Evicted(u16),
    /// Every slot has Interests pending.
    Full,
}

impl Faces {
    /// No face yet; at most `max` at once.
    fn new(max: usize) -> Faces {
        Faces {
            list: Vec::new(),
            index: HashMap::new(),
            free: Vec::new(),
            max,
            last: 0,
            hand: 0,
        }
    }

    /// The face of (`sock`, `peer`), added if new; `load(f)` = PIT entries recording face `f`.
    #[inline]
    fn find_or_add(
        &mut self,
        sock: u8,
        peer: PeerKey,
        now: u64,
        load: impl Fn(u16) -> u32,
    ) -> Placed {
        // Consecutive datagrams mostly come from one peer: no hashing for them.
        if let Some(f) = self.list.get_mut(self.last) {
            if f.used && f.sock == sock && f.peer == peer {
                f.last = now;
                return Placed::Face(self.last as u16);
            }
        }
        if let Some(&i) = self.index.get(&(sock, peer)) {
            self.list[i as usize].last = now;
            self.last = i as usize;
            return Placed::Face(i);
        }
        let new = Face {
            sock,
            peer,
            last: now,
            used: true,
        };
        let placed = if let Some(i) = self.free.pop() {
            self.list[i as usize] = new;
            Placed::Face(i)
        } else if self.list.len() < self.max {
            self.list.push(new);
            Placed::Face((self.list.len() - 1) as u16)
        } else {
            let Some(i) = self.victim(load) else {
                return Placed::Full;
            };
            let old = self.list[i];
            self.index.remove(&(old.sock, old.peer));
            self.list[i] = new;
            Placed::Evicted(i as u16)
        };
        if let Placed::Face(i) | Placed::Evicted(i) = placed {
            self.index.insert((sock, peer), i);
            self.last = i as usize;
        }
        placed
    }

    /// The downstream face with nothing pending to evict: the least recently used of the next
    /// [`EVICT_SAMPLE`] such faces from the clock hand (all slots are in use). Scans further
    /// only while faces have Interests pending; `None` if every one does.
    fn victim(&mut self, load: impl Fn(u16) -> u32) -> Option<usize> {
        let n = self.list.len();
        let (mut best, mut seen) = (None::<usize>, 0);
        let mut i = self.hand % n.max(1);
        for _ in 0..n {
            let f = &self.list[i];
            if f.used && f.sock == 0 && load(i as u16) == 0 {
                if best.is_none_or(|b| f.last < self.list[b].last) {
                    best = Some(i);
                }
                seen += 1;
                if seen == EVICT_SAMPLE {
                    break;
                }
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
        self.hand = i;
        best
    }

    /// Frees downstream faces idle since before `before` with nothing pending; returns how many.
    fn expire(&mut self, before: u64, load: impl Fn(u16) -> u32) -> u64 {
        let mut n = 0;
        for (i, f) in self.list.iter_mut().enumerate() {
            if f.used && f.sock == 0 && f.last < before && load(i as u16) == 0 {
                f.used = false;
                self.index.remove(&(f.sock, f.peer));
                self.free.push(i as u16);
                n += 1;
            }
        }
        n
    }

    /// Faces in use.
    fn len(&self) -> usize {
        self.list.len() - self.free.len()
    }
}

struct Worker {
    fwd: Forwarder<AnyCs>,
    faces: Faces,
    socks: [UdpSocket; 2],
    rx: [RxBatch; 2],
    tx: [TxBatch; 2],
    st: RouterStats,
    face_idle_ms: u64,
}

impl Worker {
    fn new(cfg: &RouterConfig, idx: usize, down: UdpSocket) -> io::Result<Worker> {
        let any: SocketAddr = if cfg.listen.is_ipv4() {
            "0.0.0.0:0".parse().unwrap()
        } else {
            "[::]:0".parse().unwrap()
        };
        let up = udp::bind(any, false)?;
        let mut faces = Faces::new(cfg.max_faces);
        let mut fib = Fib::new();
        let mut name = Vec::new();
        for (prefix, hop) in &cfg.routes {
            let Placed::Face(f) = faces.find_or_add(1, PeerKey::of(*hop), 0, |_| 1) else {
                return Err(io::Error::other("more next hops than --max-faces"));
            };
            tlv::name_from_uri_in(prefix, cfg.dialect, &mut name);
            fib.add(&name, f);
        }
        let w = cfg.workers.max(1);
        let cap = cfg.cs_entries.div_ceil(w);
        let cs = (cap > 0).then(|| AnyCs::new(cfg.cs_policy, cap, cfg.seed + idx as u64));
        let entries = cfg.pit_entries.max(16);
        let per_face = match cfg.pit_per_face {
            0 => entries / 4,
            n => n,
        };
        let per_route = match cfg.pit_per_route {
            0 if cfg.routes.len() > 1 => entries / 2,
            n => n,
        };
        let pit = Pit::new(entries, cfg.lifetime_ms).with_limits(per_face, per_route);
        Ok(Worker {
            fwd: Forwarder::new(cs, cfg.slot_bytes, pit, fib).with_interest_lifetimes(1),
            faces,
            socks: [down, up],
            rx: [RxBatch::new(cfg.batch), RxBatch::new(cfg.batch)],
            tx: [TxBatch::new(cfg.batch), TxBatch::new(cfg.batch)],
            st: RouterStats::default(),
            face_idle_ms: cfg.face_idle_ms,
        })
    }

    /// One pass over both sockets; returns datagrams handled.
    fn poll_once(&mut self, now: u64) -> io::Result<usize> {
        let mut got = 0;
        for s in 0..2 {
            let n = self.rx[s].recv(&self.socks[s])?;
            got += n;
            for i in 0..n {
                let (pkt, from) = self.rx[s].get(i);
                self.st.received += 1;
                let Some(peer) = from else {
                    self.st.face_overflow += 1;
                    continue;
                };
                let fwd = &self.fwd;
                let face = match self
                    .faces
                    .find_or_add(s as u8, peer, now, |f| fwd.face_load(f))
                {
                    Placed::Face(f) => f,
                    Placed::Evicted(f) => {
                        self.st.face_evicted += 1;
                        f
                    }
                    Placed::Full => {
                        self.st.face_overflow += 1;
                        continue;
                    }
                };
                let (faces, tx, socks) = (&self.faces, &mut self.tx, &self.socks);
                let mut err = None;
                let mut send = |f: u16, b: &[u8]| {
                    let Face { sock, peer, .. } = faces.list[f as usize];
                    let ss = sock as usize;
                    if tx[ss].is_full() {
                        if let Err(e) = tx[ss].flush(&socks[ss]) {
                            err = Some(e);
                        }
                    }
                    tx[ss].push(peer.addr(), b);
                };
                match self.fwd.handle(pkt, face, now, &mut send) {
                    Ok(Action::CsHit) => {
                        self.st.interests += 1;
                        self.st.cs_hits += 1;
                        self.st.data_out += 1;
                    }
                    Ok(Action::Forwarded) => {
                        self.st.interests += 1;
                        self.st.forwarded += 1;
                    }
                    Ok(Action::Aggregated) => {
                        self.st.interests += 1;
                        self.st.aggregated += 1;
                    }
                    Ok(Action::Dropped) => {
                        self.st.interests += 1;
                        self.st.dropped += 1;
                    }
                    Ok(Action::Delivered(k)) => {
                        self.st.data += 1;
                        self.st.data_out += k as u64;
                    }
                    Ok(Action::Unsolicited) => {
                        self.st.data += 1;
                        self.st.unsolicited += 1;
                    }
                    Err(TlvError::Unhandled(_)) => self.st.skipped += 1,
                    Err(_) => self.st.malformed += 1,
                }
                if let Some(e) = err {
                    return Err(e);
                }
            }
        }
        for s in 0..2 {
            if !self.tx[s].is_empty() {
                self.tx[s].flush(&self.socks[s])?;
            }
        }
        Ok(got)
    }

    fn finish_stats(&mut self) -> RouterStats {
        self.st.sent = self.tx[0].sent + self.tx[1].sent;
        self.st.send_errors = self.tx[0].send_errors + self.tx[1].send_errors;
        self.st.truncated = self.rx[0].truncated + self.rx[1].truncated;
        self.st.faces = self.faces.len() as u64;
        let c = &self.fwd.counters;
        self.st.no_route = c.no_route;
        self.st.hop_limit = c.hop_limit;
        self.st.pit_full = c.pit_full;
        self.st.pit_face_limit = c.pit_face_limit;
        self.st.pit_route_limit = c.pit_upstream_limit;
        self.st.rx_calls = self.rx[0].calls + self.rx[1].calls;
        self.st.tx_calls = self.tx[0].calls + self.tx[1].calls;
        self.st
    }

    fn run(&mut self, ctl: &Control) -> io::Result<()> {
        let t0 = Instant::now();
        let cpu0 = crate::util::thread_cpu_ns();
        let mut since_expire = 0usize;
        while !ctl.stopped() {
            // Milliseconds, +1 so that a PIT entry recorded at start never reads as expired.
            let now = t0.elapsed().as_millis() as u64 + 1;
            let got = self.poll_once(now)?;
            since_expire += got;
            if got == 0 || since_expire >= 4096 {
                self.st.pit_expired += self.fwd.expire(now, 1024) as u64;
                let fwd = &self.fwd;
                self.st.face_expired += self
                    .faces
                    .expire(now.saturating_sub(self.face_idle_ms), |f| fwd.face_load(f));
                since_expire = 0;
            }
            self.st.cpu_ns = crate::util::thread_cpu_ns() - cpu0;
            self.finish_stats();
            ctl.publish(&self.st.live());
            if got == 0 {
                let [a, b] = &self.socks;
                udp::wait_readable(&[a, b], 5);
            }
        }
        Ok(())
    }
}

/// Runs the router until `ctl` is stopped or the duration passes; `progress` gets the result
/// so far once per second.
pub fn run_router(
    cfg: &RouterConfig,
    ctl: &Control,
    progress: &mut dyn FnMut(&RouterResult),
) -> io::Result<RouterResult> {
    cfg.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let w = cfg.workers.max(1);
    let mut workers = Vec::with_capacity(w);
    for i in 0..w {
        let down = udp::bind(cfg.listen, w > 1)?;
        if i == 0 {
            ctl.set_bound(down.local_addr()?);
        }
        let listen = down.local_addr()?;
        let mut c = cfg.clone();
        c.listen = listen;
        workers.push(Worker::new(&c, i, down)?);
    }
    let listen = workers[0].socks[0].local_addr()?;
    let ctls: Vec<Control> = (0..w).map(|_| Control::new()).collect();
    let mut res = RouterResult {
        dialect: cfg.dialect.as_str().into(),
        listen: listen.to_string(),
        workers: w,
        routes: cfg
            .routes
            .iter()
            .map(|(p, a)| format!("{p}=udp:{a}"))
            .collect(),
        ..Default::default()
    };
    let t0 = Instant::now();
    let outcome: io::Result<Vec<Worker>> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .zip(&ctls)
            .map(|(mut wk, c)| {
                s.spawn(move || {
                    let r = wk.run(c);
                    // A failing worker stops the others.
                    c.stop();
                    r.map(|_| wk)
                })
            })
            .collect();
        let mut next = 1.0;
        loop {
            std::thread::sleep(Duration::from_millis(20));
            let el = t0.elapsed().as_secs_f64();
            let mut sum = [0u64; ctr::COUNT];
            for c in &ctls {
                for (k, v) in sum.iter_mut().enumerate() {
                    *v += c.get(k);
                }
            }
            ctl.publish(&sum);
            let done = ctl.stopped()
                || cfg.duration.is_some_and(|d| el >= d.as_secs_f64())
                || ctls.iter().any(|c| c.stopped());
            if el >= next && !done {
                next += 1.0;
                res.elapsed_s = el;
                res.stats.received = sum[ctr::RECEIVED];
                res.stats.interests = sum[ctr::INTERESTS];
                res.stats.cs_hits = sum[ctr::CS_HITS];
                res.stats.data_out = sum[ctr::DATA_OUT];
                res.stats.forwarded = sum[ctr::FORWARDED];
                res.stats.malformed = sum[ctr::MALFORMED];
                res.stats.skipped = sum[ctr::SKIPPED];
                res.stats.cpu_ns = sum[ctr::CPU_NS];
                res.stats.sent = sum[ctr::SENT];
                progress(&res);
            }
            if done {
                break;
            }
        }
        for c in &ctls {
            c.stop();
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| io::Error::other("router worker panicked"))?
            })
            .collect()
    });
    let mut workers = outcome?;
    res.elapsed_s = t0.elapsed().as_secs_f64();
    let mut st = RouterStats::default();
    let (mut cap, mut used) = (0, 0);
    for wk in &mut workers {
        st.add(&wk.finish_stats());
        if let Some(cs) = wk.fwd.cs() {
            cap += cs.capacity();
            used += cs.len();
        }
    }
    ctl.publish(&st.live());
    res.stats = st;
    res.cs = CsReport {
        policy: if cap > 0 {
            cfg.cs_policy.as_str().into()
        } else {
            "off".into()
        },
        capacity: cap,
        entries: used,
        hits: st.cs_hits,
        hit_ratio: st.cs_hits as f64 / st.interests.max(1) as f64,
    };
    res.data_per_s = st.data_out as f64 / res.elapsed_s.max(1e-9);
    res.interests_per_s = st.interests as f64 / res.elapsed_s.max(1e-9);
    Ok(res)
}
