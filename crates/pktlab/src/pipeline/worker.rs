//! One worker's run-to-completion loop (paper 001's batched data plane): one batch of up to
//! N packets at a time goes rx burst → parse → flow cache → batched LPM of the misses →
//! TTL/checksum rewrite → output queue (AQM, line-rate link) → tx burst → buffers back to the
//! worker's pool cache.
//!
//! The loop is generic over the metadata [`Layout`] (monomorphised); ports, cache policy and
//! AQM discipline are enums matched once per batch, each stage's per-packet loop running on
//! the concrete type. Every buffer and scratch array is allocated before the first batch.

use super::compact::Compact;
use super::fib::{rewrite_macs, AdjTable, Probes};
use super::nhcache::{with_cache, AnyCache, NextHopCache, WayPolicy};
use super::parse::{forward_rewrite, parse_into, ttl_rewrite, Hdr, LinkKind, Verdict};
use super::queue::{OutQueue, QPkt};
use super::{Counters, Stages};
use crate::lpm::shared::LpmReader;
use crate::lpm::Poptrie;
use crate::mbuf::{Buf, Layout, Pool, PoolCache};
use crate::net::{Address, NextHop};
use crate::port::{AnyRx, AnyTx, Bufs, RxPort, TxPort};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// What one [`Worker::step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A burst of this many packets was received and processed.
    Batch(usize),
    /// A live port had nothing to receive.
    Idle,
    /// The input ended (or the run was stopped): call [`Worker::finish`].
    Done,
}

/// The shared routing tables a worker reads (either may be absent: no route for that family).
#[derive(Clone)]
pub struct Tables {
    /// IPv4 table.
    pub v4: Option<LpmReader<u32, Poptrie<u32>>>,
    /// IPv6 table.
    pub v6: Option<LpmReader<u128, Poptrie<u128>>>,
    /// Bumped by the updater after each published batch of route changes.
    pub epoch: Arc<AtomicU64>,
}

/// Everything a worker owns. The ports are any [`RxPort`] / [`TxPort`] (a user's own, or the
/// built-in [`AnyRx`] / [`AnyTx`] enums the CLI uses); everything is monomorphised.
pub struct Worker<L: Layout, R: RxPort = AnyRx, T: TxPort = AnyTx> {
    pool: Arc<Pool>,
    cache: PoolCache,
    layout: L,
    rx: R,
    tx: T,
    batch: usize,
    stages: Stages,
    link: LinkKind,
    tables: Option<Tables>,
    fcache: Option<AnyCache>,
    queue: Option<OutQueue>,
    router: Option<Router>,
    progress: Arc<AtomicU64>,
    stop: Option<Arc<AtomicBool>>,
    // Batch-length scratch, reused every batch.
    bufs: Vec<Buf>,
    keep: Vec<Buf>,
    free: Vec<Buf>,
    lens: Vec<u16>,
    ts: Vec<u64>,
    hdr: Vec<Hdr>,
    ok: Vec<bool>,
    rss: Vec<u32>,
    nh: Vec<u32>,
    /// The batch's misses (indices), collected without a branch per packet.
    miss: Vec<u32>,
    /// Raw handles and batch indices of the packets to forward, and raw handles of those to
    /// drop (the batch split without a branch per packet).
    fwd_raw: Vec<u32>,
    fwd_idx: Vec<u32>,
    drop_raw: Vec<u32>,
    /// The batch's IPv4 / IPv6 misses (batch indices) and their destinations: batch-length
    /// arrays written by index, the live prefixes' lengths counted per batch.
    m4: Vec<u32>,
    a4: Vec<u32>,
    r4: Vec<Option<NextHop>>,
    m6: Vec<u32>,
    a6: Vec<u128>,
    r6: Vec<Option<NextHop>>,
    qin: Vec<QPkt>,
    qout: Vec<QPkt>,
    /// Counters of this worker.
    pub counters: Counters,
}

/// What a worker needs besides its ports.
pub struct WorkerParts {
    /// The shared buffer pool.
    pub pool: Arc<Pool>,
    /// Pool-cache size (DPDK's mempool cache size).
    pub cache_size: usize,
    /// Packets per batch.
    pub batch: usize,
    /// Stages to run.
    pub stages: Stages,
    /// Link type of the input frames.
    pub link: LinkKind,
    /// Routing tables (l3, full).
    pub tables: Option<Tables>,
    /// Flow cache (full).
    pub fcache: Option<AnyCache>,
    /// Output queue (full).
    pub queue: Option<OutQueue>,
    /// Packets received so far (for progress reports).
    pub progress: Arc<AtomicU64>,
    /// Router mode: next hops are the kernel's, resolved to (port, neighbour MAC).
    pub router: Option<Router>,
    /// When set, the loop stops before its next batch (as if the input had ended: the
    /// output queue is drained and the tx port finished), e.g. on SIGINT during a replay.
    /// Live ports watch their own stop flag instead.
    pub stop: Option<Arc<AtomicBool>>,
}

/// What a router worker resolves next hops with.
#[derive(Clone, Debug)]
pub struct Router {
    /// Next hop → (output port, neighbour MAC); the source MAC is the port's.
    pub adj: Arc<AdjTable>,
    /// Where unresolved neighbours are reported for probing.
    pub probes: Probes,
}

impl Tables {
    /// IPv4 routes only (epoch 0).
    pub fn v4(v4: LpmReader<u32, Poptrie<u32>>) -> Tables {
        Tables {
            v4: Some(v4),
            v6: None,
            epoch: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl WorkerParts {
    /// Parts for `stages` over frames of `link` from `pool`: a pool cache of 256 buffers,
    /// batches of 32, and no routing tables, flow cache or output queue (set those fields for
    /// the stages that use them).
    pub fn new(pool: Arc<Pool>, stages: Stages, link: LinkKind) -> WorkerParts {
        WorkerParts {
            pool,
            cache_size: 256,
            batch: 32,
            stages,
            link,
            tables: None,
            fcache: None,
            queue: None,
            router: None,
            progress: Arc::new(AtomicU64::new(0)),
            stop: None,
        }
    }
}

/// Flow-cache lookups of the batch's valid packets; the misses' indices go to the front of
/// `miss` (their count returned) for the LPM.
/// Not inlined: one function per stage for profilers (`tools/forward_cost.py`).
#[inline(never)]
fn cache_lookup<P: WayPolicy>(
    c: &mut NextHopCache<P>,
    epoch: u32,
    ok: &[bool],
    hdr: &[Hdr],
    rss: &[u32],
    nh: &mut [u32],
    miss: &mut [u32],
) -> usize {
    c.set_epoch(epoch);
    c.lookup_batch(ok, hdr, rss, nh, miss)
}

/// Fills the cache with the looked-up next hops of the misses.
/// Not inlined: one function per stage for profilers (`tools/forward_cost.py`).
#[inline(never)]
fn cache_fill<P: WayPolicy>(
    c: &mut NextHopCache<P>,
    idx: &[u32],
    hdr: &[Hdr],
    rss: &[u32],
    nh: &[u32],
) {
    for &i in idx {
        let i = i as usize;
        if nh[i] != 0 {
            c.fill(rss[i], hdr[i].v6, hdr[i].dst, nh[i]);
        }
    }
}

/// Looks the batch's misses of one family up together (`addrs[k]` is packet `idx[k]`'s
/// destination) and writes their next hops (0: no route, or no table for the family).
/// Not inlined: one function per stage for profilers (`tools/forward_cost.py`).
#[inline(never)]
fn lookup_misses<A: Address>(
    table: Option<&LpmReader<A, Poptrie<A>>>,
    addrs: &[A],
    idx: &[u32],
    out: &mut [Option<NextHop>],
    nh: &mut [u32],
) {
    if addrs.is_empty() {
        return;
    }
    let out = &mut out[..addrs.len()];
    match table {
        Some(t) => {
            t.lookup_batch(addrs, out);
        }
        None => out.fill(None),
    }
    for (&i, r) in idx.iter().zip(out.iter()) {
        nh[i as usize] = NextHop::raw(*r);
    }
}

impl<L: Layout, R: RxPort, T: TxPort> Worker<L, R, T> {
    /// A worker with its ports, layout instance and parts; allocates all scratch space.
    /// Tells `rx` whether the flow hash is read (only the flow cache reads it).
    pub fn new(parts: WorkerParts, layout: L, mut rx: R, tx: T, queue_cap: usize) -> Self {
        rx.want_flow_hash(parts.fcache.is_some());
        let n = parts.batch;
        Worker {
            cache: PoolCache::new(parts.cache_size),
            pool: parts.pool,
            layout,
            rx,
            tx,
            batch: n,
            stages: parts.stages,
            link: parts.link,
            tables: parts.tables,
            fcache: parts.fcache,
            queue: parts.queue,
            router: parts.router,
            progress: parts.progress,
            stop: parts.stop,
            bufs: Vec::with_capacity(n),
            keep: Vec::with_capacity(n + queue_cap + 1),
            free: Vec::with_capacity(n + queue_cap + 1),
            lens: vec![0; n + queue_cap + 1],
            ts: vec![0; n + queue_cap + 1],
            hdr: vec![Hdr::default(); n],
            ok: vec![false; n],
            rss: vec![0; n],
            nh: vec![0; n],
            miss: vec![0; n],
            fwd_raw: vec![0; n],
            fwd_idx: vec![0; n],
            drop_raw: vec![0; n],
            m4: vec![0; n],
            a4: vec![0; n],
            r4: vec![None; n],
            m6: vec![0; n],
            a6: vec![0; n],
            r6: vec![None; n],
            qin: Vec::with_capacity(n),
            qout: Vec::with_capacity(n + queue_cap + 1),
            counters: Counters::default(),
        }
    }

    /// Runs until the receive port is exhausted, then drains the output queue and returns
    /// every buffer to the pool.
    pub fn run(&mut self) {
        while self.step() != Step::Done {}
        self.finish();
    }

    /// One pass of the loop: one burst received and processed ([`Step::Batch`]), an idle
    /// poll of a live port ([`Step::Idle`]), or the end of the input ([`Step::Done`]; call
    /// [`Worker::finish`] then). [`Worker::run`] is `step` until done, then `finish`;
    /// [`super::duplex::Duplex`] interleaves two workers' steps in one thread.
    pub fn step(&mut self) -> Step {
        if self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Step::Done;
        }
        if !self.layout.begin(self.batch) {
            return Step::Done;
        }
        let n = self.receive();
        if n == 0 {
            self.layout.end();
            if self.rx.exhausted() {
                return Step::Done;
            }
            // A live port with nothing to receive: by now the link has sent whatever
            // was queued (an idle poll lasts far longer than draining a full queue).
            self.drain_queue();
            self.tx.poll(&mut Bufs::new(
                &self.pool,
                &mut self.cache,
                &mut self.layout,
            ));
            return Step::Idle;
        }
        self.counters.rx += n as u64;
        self.counters.batches += 1;
        self.counters.burst_log2[(n.ilog2() as usize).min(7)] += 1;
        match self.stages {
            Stages::Io => self.io_batch(n),
            Stages::L3 | Stages::Full => self.l3_batch(n),
        }
        self.layout.end();
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Step::Batch(n)
    }

    /// Ends a run after [`Step::Done`]: drains the output queue, finishes the transmit port,
    /// collects the counters and returns every buffer to the pool.
    pub fn finish(&mut self) {
        self.drain_queue();
        self.tx.finish(&mut Bufs::new(
            &self.pool,
            &mut self.cache,
            &mut self.layout,
        ));
        self.counters.tx = self.tx.packets();
        if let Some(c) = &self.fcache {
            (self.counters.cache_hits, self.counters.cache_misses) = c.counts();
        }
        self.layout.finish();
        self.cache.flush_all(&self.pool);
    }

    /// Receives one burst into `bufs`. Not inlined: the I/O's rx as one function for
    /// profilers (`tools/forward_cost.py`).
    #[inline(never)]
    fn receive(&mut self) -> usize {
        self.rx.rx_burst(
            &mut Bufs::new(&self.pool, &mut self.cache, &mut self.layout),
            &mut self.bufs,
            self.batch,
        )
    }

    /// Sends everything the output queue holds (end of input, or an idle live port).
    fn drain_queue(&mut self) {
        if let Some(q) = &mut self.queue {
            self.qout.clear();
            let OutQueue { disc, link, drops } = q;
            crate::with_discipline!(disc, d => link.drain(d, drops, &mut self.qout, &mut self.free));
            self.counters.aqm = link.drops;
            self.send_departures();
        }
    }

    /// The counter of packets received so far (for progress reports from another thread).
    pub fn progress(&self) -> Arc<AtomicU64> {
        self.progress.clone()
    }

    /// The transmit port (to collect a capture after the run).
    pub fn into_tx(self) -> T {
        self.tx
    }

    /// Forwarding only: read each packet's length (and timestamp for a capture) from its
    /// metadata, transmit, free.
    #[inline]
    fn io_batch(&mut self, n: usize) {
        let with_ts = self.tx.wants_timestamps();
        for (i, b) in self.bufs.iter().enumerate() {
            self.lens[i] = self.layout.data_len(&self.pool, b, i);
            if with_ts {
                self.ts[i] = self.layout.ts_ns(&self.pool, b, i);
            }
        }
        self.tx.tx_burst(
            &mut Bufs::new(&self.pool, &mut self.cache, &mut self.layout),
            &mut self.bufs,
            &self.lens[..n],
            &self.ts[..n],
        );
    }

    /// Stage 1: parses the batch's headers into `hdr` / `ok` (drops counted by cause).
    /// Not inlined, so that profilers see the stage as one function (`tools/forward_cost.py`).
    /// Returns how many packets are valid (`ok`). Panics if the receive port handed in a
    /// buffer of another pool (checked once for the batch: the stages after it rely on it).
    #[inline(never)]
    fn parse_batch(&mut self) -> usize {
        let n = self.bufs.len();
        let (pool, layout, link) = (&*self.pool, &self.layout, self.link);
        // A port may hand in any `Buf`: one of another pool must not be read as one of this
        // pool here, nor rebuilt as one in `l3_batch` (checked for the batch in one pass).
        assert!(
            pool.owns_all(&self.bufs),
            "rx port returned a buffer of another pool"
        );
        layout.data_len_batch(pool, &self.bufs, &mut self.lens[..n]);
        // Drops by cause (slot per verdict, an exhaustive match: a new verdict must be given
        // a slot and a counter here), added to the counters once per batch.
        let mut drops = [0u64; 4];
        let outs = self.ok[..n].iter_mut().zip(&mut self.hdr[..n]);
        for ((b, &len), (ok_o, hdr_o)) in self.bufs.iter().zip(&self.lens[..n]).zip(outs) {
            // SAFETY: `b` is of `pool` (asserted above).
            let d = unsafe { pool.data_unchecked(b) };
            match parse_into(link, &d[..len as usize], hdr_o) {
                Ok(()) => *ok_o = true,
                Err(v) => {
                    *ok_o = false;
                    drops[match v {
                        Verdict::NonIp => 0,
                        Verdict::Malformed => 1,
                        Verdict::Checksum => 2,
                        Verdict::Ttl => 3,
                    }] += 1;
                }
            }
        }
        let c = &mut self.counters;
        let [non_ip, malformed, checksum, ttl] = drops;
        c.non_ip += non_ip;
        c.malformed += malformed;
        c.checksum += checksum;
        c.ttl += ttl;
        n - (non_ip + malformed + checksum + ttl) as usize
    }

    #[inline]
    fn l3_batch(&mut self, n: usize) {
        // 1. Parse.
        let valid = self.parse_batch();
        let c = &mut self.counters;
        // 2. Flow cache (full only).
        let tables = self.tables.as_ref().expect("l3 stages have tables");
        let epoch = tables.epoch.load(Ordering::Acquire) as u32;
        let miss = &mut self.miss[..n];
        let k = if let Some(fc) = &mut self.fcache {
            self.layout
                .rss_batch(&self.pool, &self.bufs, &mut self.rss[..n]);
            let (ok, hdr, rss, nh) = (
                &self.ok[..n],
                &self.hdr[..n],
                &self.rss[..n],
                &mut self.nh[..n],
            );
            // The misses are collected in the lookup's loop (branch-free, `Compact`).
            with_cache!(fc, x => cache_lookup(x, epoch, ok, hdr, rss, nh, miss))
        } else {
            // No cache: every valid packet is a miss. (A packet's `nh` is read only if it is
            // valid; the lookup writes those of the valid packets.)
            self.nh[..n].fill(0);
            let mut k = Compact::new(&mut *miss);
            for (i, &ok) in self.ok[..n].iter().enumerate() {
                // SAFETY: one call per packet of `ok[..n]`, and the list has room for n.
                unsafe { k.put(i as u32, ok) };
            }
            k.len()
        };
        // 3. The misses, looked up together per family: one predictable branch per miss on
        // its family.
        let (k4, k6);
        {
            let hdr = &self.hdr[..n];
            let (m4, a4) = (&mut self.m4[..n], &mut self.a4[..n]);
            let (m6, a6) = (&mut self.m6[..n], &mut self.a6[..n]);
            let (mut m4, mut a4) = (Compact::new(m4), Compact::new(a4));
            let (mut m6, mut a6) = (Compact::new(m6), Compact::new(a6));
            for &i in &miss[..k] {
                let h = &hdr[i as usize];
                // SAFETY: at most one call per list and miss, k ≤ n misses, room for n each.
                unsafe {
                    if h.v6 {
                        m6.put(i, true);
                        a6.put(h.dst, true);
                    } else {
                        m4.put(i, true);
                        a4.put(h.dst as u32, true);
                    }
                }
            }
            (k4, k6) = (m4.len(), m6.len());
        }
        let (m4, m6) = (&self.m4[..k4], &self.m6[..k6]);
        let nh = &mut self.nh[..n];
        lookup_misses(tables.v4.as_ref(), &self.a4[..k4], m4, &mut self.r4, nh);
        lookup_misses(tables.v6.as_ref(), &self.a6[..k6], m6, &mut self.r6, nh);
        if let Some(fc) = &mut self.fcache {
            let (hdr, rss, nh) = (&self.hdr[..n], &self.rss[..n], &self.nh[..n]);
            with_cache!(fc, x => {
                cache_fill(x, m4, hdr, rss, nh);
                cache_fill(x, m6, hdr, rss, nh);
            });
        }
        // 4. No route → drop; otherwise rewrite TTL/checksum/MAC and keep.
        let full = self.queue.is_some();
        self.keep.clear();
        self.free.clear();
        self.qin.clear();
        if self.router.is_none() && full {
            // The queue's timestamps (the path into the queue below), in one pass.
            self.layout
                .ts_batch(&self.pool, &self.bufs, &mut self.ts[..n]);
        }
        // Every handle of the batch is of `self.pool` (asserted in `parse_batch`), so the raw
        // indices below are of handles of this pool.
        // Split the batch without a branch per packet (whether a destination has a route is
        // data): each handle's raw index is written at the end of both lists, and only the
        // list it belongs to grows.
        let (mut fwd_raw, mut fwd_idx, mut drop_raw) = (
            Compact::new(&mut self.fwd_raw[..n]),
            Compact::new(&mut self.fwd_idx[..n]),
            Compact::new(&mut self.drop_raw[..n]),
        );
        let verdicts = self.ok[..n].iter().zip(&self.nh[..n]);
        for (i, (b, (&ok, &nh))) in self.bufs.iter().zip(verdicts).enumerate() {
            let fwd = ok & (nh != 0);
            let r = b.index();
            // SAFETY: one call per list and packet of `ok[..n]`; each list has room for n.
            unsafe {
                fwd_raw.put(r, fwd);
                fwd_idx.put(i as u32, fwd);
                drop_raw.put(r, !fwd);
            }
        }
        let (kf, kd) = (fwd_raw.len(), drop_raw.len());
        // A valid packet is forwarded or has no route (`fwd` above).
        c.no_route += (valid - kf) as u64;
        // The handles are given up for their raw indices (`Buf` has no drop glue: clearing
        // does what `into_raw` does).
        const _: () = assert!(!std::mem::needs_drop::<Buf>());
        self.bufs.clear();
        let (pool, pid) = (&*self.pool, self.pool.id());
        self.free.extend(self.drop_raw[..kd].iter().map(|&r| {
            // SAFETY: every raw index taken above is of a handle of `self.pool` (asserted in
            // `parse_batch`: so `r` and `pid` come from one handle), the handles themselves are gone (`bufs`
            // cleared), and each index is in exactly one of the two live prefixes
            // (`drop_raw[..kd]`, `fwd_raw[..kf]`), so each is rebuilt exactly once.
            unsafe { Buf::from_raw_id(pid, r) }
        }));
        // Packets `fwd_*[..general]` take the general loop below (router, or no queue).
        let mut general = kf;
        if let (None, Some(q)) = (&self.router, &mut self.queue) {
            // The file-table data plane into the output queue: no per-packet choice of
            // rewrite or destination; one pass builds the queue's input.
            let (link, ql) = (self.link, &mut q.link);
            let (nhs, hdr, rss, tss) =
                (&self.nh[..n], &self.hdr[..n], &self.rss[..n], &self.ts[..n]);
            // SAFETY: as above: each index is a given-up handle of this pool, and the queue
            // takes it over (the rewrite below borrows it back for the data only).
            unsafe { ql.park_raw(pid, &self.fwd_raw[..kf]) };
            let fwd = self.fwd_raw[..kf].iter().zip(&self.fwd_idx[..kf]);
            self.qin.extend(fwd.map(|(&r, &i)| {
                let i = i as usize;
                // SAFETY: as above; the handle is given up again before the next one.
                let mut b = unsafe { Buf::from_raw_id(pid, r) };
                let h = &hdr[i];
                // The frame length parse saw (`lens[i]`, a buffer's data length: ≤ its data
                // room, so 16 bits), read from the header slot: one array fewer live here.
                let len = h.len as u16;
                // SAFETY: `b` is of `pool` (rebuilt with its id).
                let d = unsafe { pool.data_mut_unchecked(&mut b) };
                forward_rewrite(link, &mut d[..len as usize], h, nhs[i]);
                QPkt {
                    buf: b.into_raw(),
                    len,
                    flow: rss[i],
                    pair: h.src_dst,
                    ts: tss[i],
                }
            }));
            general = 0;
        }
        let mut k = 0;
        for j in 0..general {
            let i = self.fwd_idx[j] as usize;
            // SAFETY: as above.
            let mut b = unsafe { Buf::from_raw_id(pid, self.fwd_raw[j]) };
            let nh = self.nh[i];
            let len = self.lens[i] as usize;
            let h = &self.hdr[i];
            let d = &mut self.pool.data_mut(&mut b)[..len];
            match &self.router {
                None => forward_rewrite(self.link, d, h, nh),
                Some(r) => match r.adj.get(nh) {
                    Some(a) => {
                        ttl_rewrite(d, h);
                        rewrite_macs(d, a, r.adj.port_mac(a.port));
                    }
                    None => {
                        // Never a made-up MAC: drop, and have the neighbour resolved.
                        c.neigh_unresolved += 1;
                        r.probes.request(nh, h.v6, h.dst);
                        self.free.push(b);
                        continue;
                    }
                },
            }
            let ts = self.layout.ts_ns(&self.pool, &b, i);
            if full {
                let q = self.queue.as_mut().expect("full has a queue");
                self.qin.push(QPkt {
                    buf: q.link.park(b),
                    len: len as u16,
                    flow: self.rss[i],
                    pair: self.hdr[i].src_dst,
                    ts,
                });
            } else {
                self.lens[k] = len as u16;
                self.ts[k] = ts;
                k += 1;
                self.keep.push(b);
            }
        }
        // 5. Output queue (full), then transmit; free what was dropped.
        if let Some(q) = &mut self.queue {
            self.qout.clear();
            let OutQueue { disc, link, drops } = q;
            crate::with_discipline!(disc, d => link.offer_all(d, drops, &self.qin, &mut self.qout, &mut self.free));
            c.aqm = link.drops;
            self.send_departures();
        } else {
            self.transmit(k);
        }
    }

    /// Transmits the packets the link sent (`qout`) and frees what the queue dropped.
    fn send_departures(&mut self) {
        let q = self.queue.as_mut().expect("queue");
        self.keep.clear();
        // `lens` and `ts` hold `batch + queue + 1` ≥ any departure count.
        let slots = self.lens.iter_mut().zip(self.ts.iter_mut());
        self.keep
            .extend(self.qout.iter().zip(slots).map(|(p, (l, t))| {
                (*l, *t) = (p.len, p.ts);
                q.link.unpark(p.buf)
            }));
        assert_eq!(
            self.keep.len(),
            self.qout.len(),
            "departures beyond the scratch arrays"
        );
        self.transmit(self.qout.len());
    }

    /// Transmits `keep` (`lens[..k]`, `ts[..k]`) and returns `free` to the pool. Not
    /// inlined: the I/O's tx and pool fill as one function for profilers.
    #[inline(never)]
    fn transmit(&mut self, k: usize) {
        self.tx.tx_burst(
            &mut Bufs::new(&self.pool, &mut self.cache, &mut self.layout),
            &mut self.keep,
            &self.lens[..k],
            &self.ts[..k],
        );
        crate::port::free_all(
            &self.pool,
            &mut self.cache,
            &mut self.layout,
            &mut self.free,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mbuf::Dpdk;
    use crate::pipeline::nhcache::AnyCache;
    use crate::port::{Burst, NullTx};
    use std::sync::Mutex;

    /// A receive port that records what the worker asked about the flow hash.
    struct Asked(Arc<Mutex<Vec<bool>>>);

    impl RxPort for Asked {
        fn rx_burst<M: Layout>(&mut self, _: &mut Bufs<M>, _: &mut Burst, _: usize) -> usize {
            0
        }

        fn want_flow_hash(&mut self, wanted: bool) {
            self.0.lock().unwrap().push(wanted);
        }
    }

    /// Only the flow cache reads `RxMeta::rss`: a worker without one tells its port to skip
    /// the hash, a worker with one asks for it, once, when it is made.
    #[test]
    fn the_worker_asks_for_the_flow_hash_only_with_a_flow_cache() {
        for (stages, cache) in [
            (Stages::Io, false),
            (Stages::L3, false),
            (Stages::Full, true),
        ] {
            let asked = Arc::new(Mutex::new(Vec::new()));
            let pool = Arc::new(Dpdk::mbuf_pool(64));
            let mut parts = WorkerParts::new(pool, stages, LinkKind::Ethernet);
            if cache {
                parts.fcache = Some(AnyCache::new("hpc4", 1024, None, 1).unwrap());
            }
            let layout = Dpdk::new(Arc::default(), 32);
            let _w = Worker::new(parts, layout, Asked(asked.clone()), NullTx::default(), 0);
            assert_eq!(*asked.lock().unwrap(), vec![cache], "{stages:?}");
        }
    }
}
