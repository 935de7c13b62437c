//! A delay line on a live transmit port (`pktlab forward --delay MS --rate MBPS`): the
//! bottleneck link of paper 002's dumbbell (DIGEST 002, "Evaluation": one link of fixed
//! rate with a propagation delay, the AQM in front of it) emulated in real time, so that the
//! real Linux TCP senders of `tools/linux_tcp_validation.sh` cross pktlab's own AQMs.
//!
//! A packet handed to the port at wall-clock time `t` is offered to the AQM discipline
//! (`--aqm`, any of [`crate::aqm`]'s) at `t`. A next-departure clock serves the discipline at
//! `--rate`: the link starts the next packet when it is free (`free_at`), which then occupies
//! it for `len × 8 / rate` (frame bytes without FCS, preamble or gap — what the kernel's
//! `tbf`/`htb` count). A packet whose transmission ends at `e` enters the propagation line and
//! leaves the port at `e + --delay`. Without `--rate` packets enter the line at `t` and leave at
//! `t + --delay` (no queue, no AQM). Either way no packet leaves before `t + --delay`.
//!
//! The logic ([`Shaper`]) takes the time as an argument, so the unit tests run it on a fake
//! clock; [`DelayTx`] drives it from the monotonic clock around an [`AfPacketTx`]. Buffers
//! stay in the pool while held (the queue and the line carry their raw indices, as the
//! pipeline's output queue does); the line is a ring allocated once, so nothing is allocated
//! per packet.

use super::afpacket::AfPacketTx;
use super::rss::flow_hash;
use super::{free_all, Bufs, Burst, TxPort};
use crate::aqm::{Aqm, Discipline, Drops, Nanos};
use crate::io::packets::flow_key;
use crate::mbuf::{Buf, Layout, Pool, PoolCache};
use crate::pipeline::queue::{Link, QPkt};
use pcap_parser::Linktype;
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Instant;

/// What a delay line counted (the `delay_line` object of `pktlab forward --json`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct DelayStats {
    /// Packets offered to the line.
    pub offered: u64,
    /// Packets the AQM dropped (early or buffer full).
    pub aqm_drops: u64,
    /// Packets dropped because the propagation line was full (never with `--rate`: its
    /// capacity is the most the link can put in flight during one delay).
    pub line_drops: u64,
    /// Packets that left the line.
    pub released: u64,
    /// Time-averaged AQM backlog, packets (0 without `--rate`).
    pub mean_queue: f64,
    /// Largest AQM backlog seen, packets.
    pub max_queue: u64,
    /// Seconds the backlog was averaged over.
    pub seconds: f64,
}

impl DelayStats {
    /// Adds another worker's counts (mean queue weighted by time).
    pub fn add(&mut self, o: &DelayStats) {
        let t = self.seconds + o.seconds;
        if t > 0.0 {
            self.mean_queue = (self.mean_queue * self.seconds + o.mean_queue * o.seconds) / t;
        }
        self.offered += o.offered;
        self.aqm_drops += o.aqm_drops;
        self.line_drops += o.line_drops;
        self.released += o.released;
        self.max_queue = self.max_queue.max(o.max_queue);
        self.seconds = t;
    }
}

/// Packets a line with these parameters can hold at once: with a rate, everything the link
/// can send during one delay (frames of at least 60 bytes) plus one; without, `queue`.
pub fn line_capacity(delay_ns: u64, rate_bps: Option<u64>, queue: usize) -> usize {
    match rate_bps {
        Some(r) => {
            let bits = delay_ns as u128 * r as u128 / 1_000_000_000;
            (bits / (60 * 8)) as usize + 2
        }
        None => queue.max(1),
    }
}

/// The delay line's logic on an explicit clock: AQM queue → rate-paced link → fixed delay.
#[derive(Debug)]
pub struct Shaper {
    disc: Option<Discipline<QPkt>>,
    drops: Drops<QPkt>,
    delay_ns: u64,
    /// Picoseconds per byte at the rate (0: no rate).
    ps_per_byte: u64,
    free_at: u64,
    frac_ps: u64,
    line: VecDeque<(u64, QPkt)>,
    cap: usize,
    last: u64,
    area: f64,
    first: Option<u64>,
    stats: DelayStats,
}

impl Shaper {
    /// A line of `delay_ns`; with `Some((rate_bps, disc))` a link of that rate served from
    /// `disc`. The propagation line holds at most `cap` packets (see [`line_capacity`]).
    pub fn new(delay_ns: u64, link: Option<(u64, Discipline<QPkt>)>, cap: usize) -> Shaper {
        let (ps_per_byte, disc) = match link {
            Some((rate, d)) => ((8_000_000_000_000u64 / rate.max(1)).max(1), Some(d)),
            None => (0, None),
        };
        Shaper {
            disc,
            drops: Drops::default(),
            delay_ns,
            ps_per_byte,
            free_at: 0,
            frac_ps: 0,
            line: VecDeque::with_capacity(cap.max(1)),
            cap: cap.max(1),
            last: 0,
            area: 0.0,
            first: None,
            stats: DelayStats::default(),
        }
    }

    fn backlog(&self) -> usize {
        self.disc.as_ref().map_or(0, |d| d.len_pkts())
    }

    /// Accounts the backlog's time integral up to `now` (called at every arrival and before
    /// every departure from the queue, so the average covers first arrival to last event).
    fn tick(&mut self, now: Nanos, backlog: usize) {
        let first = *self.first.get_or_insert(now);
        if now > self.last {
            self.area += backlog as f64 * (now - self.last) as f64;
            self.last = now;
        }
        self.stats.seconds = (self.last - first) as f64 * 1e-9;
    }

    /// Moves the packets due by `now` from the line to `out`.
    fn pop_due(&mut self, now: Nanos, out: &mut Vec<QPkt>) {
        while let Some(&(t, p)) = self.line.front() {
            if t > now {
                break;
            }
            self.line.pop_front();
            out.push(p);
            self.stats.released += 1;
        }
    }

    /// Puts `p` (due at `release`) on the line, after moving what is due by `now` off it: the
    /// line then only holds packets whose transmission ended less than one delay ago, which
    /// is what [`line_capacity`] bounds.
    fn enter_line(
        &mut self,
        p: QPkt,
        release: u64,
        now: Nanos,
        out: &mut Vec<QPkt>,
        dropped: &mut Vec<QPkt>,
    ) {
        self.pop_due(now, out);
        if release <= now && self.line.is_empty() {
            out.push(p);
            self.stats.released += 1;
        } else if self.line.len() >= self.cap {
            self.stats.line_drops += 1;
            dropped.push(p);
        } else {
            self.line.push_back((release, p));
        }
    }

    fn take_drops(&mut self, dropped: &mut Vec<QPkt>) {
        self.stats.aqm_drops += self.drops.pkts.len() as u64;
        dropped.extend(self.drops.pkts.iter().map(|&(p, _)| p));
        self.drops.clear();
    }

    /// Starts every transmission the link can start by `now` (each at its own virtual start
    /// time `free_at`, so pacing is exact however late this is called).
    fn serve(&mut self, now: Nanos, out: &mut Vec<QPkt>, dropped: &mut Vec<QPkt>) {
        let Some(mut disc) = self.disc.take() else {
            return;
        };
        while self.free_at <= now && disc.len_pkts() > 0 {
            self.tick(self.free_at, disc.len_pkts());
            let Some(p) = disc.dequeue(self.free_at, &mut self.drops) else {
                break;
            };
            let ps = p.len as u64 * self.ps_per_byte + self.frac_ps;
            self.free_at += ps / 1000;
            self.frac_ps = ps % 1000;
            let release = self.free_at + self.delay_ns;
            self.enter_line(p, release, now, out, dropped);
        }
        self.disc = Some(disc);
        self.take_drops(dropped);
    }

    /// Offers `p` at `now`; packets due by `now` go to `out` (in order), packets the AQM (or
    /// a full line) drops to `dropped`.
    pub fn offer(&mut self, p: QPkt, now: Nanos, out: &mut Vec<QPkt>, dropped: &mut Vec<QPkt>) {
        self.tick(now, self.backlog());
        self.stats.offered += 1;
        if self.disc.is_none() {
            self.enter_line(p, now + self.delay_ns, now, out, dropped);
            return;
        }
        self.serve(now, out, dropped);
        let disc = self.disc.as_mut().expect("checked above");
        if disc.len_pkts() == 0 && self.free_at < now {
            self.free_at = now; // the link was idle
            self.frac_ps = 0;
        }
        disc.enqueue(p, now, &mut self.drops);
        let q = disc.len_pkts() as u64;
        self.stats.max_queue = self.stats.max_queue.max(q);
        self.take_drops(dropped);
    }

    /// Moves the packets due by `now` to `out` (in order), after starting the transmissions
    /// that were due; drops go to `dropped`.
    pub fn release(&mut self, now: Nanos, out: &mut Vec<QPkt>, dropped: &mut Vec<QPkt>) {
        self.serve(now, out, dropped);
        self.pop_due(now, out);
    }

    /// Everything still queued or in flight, in order, regardless of time (end of a run).
    pub fn drain(&mut self, out: &mut Vec<QPkt>, dropped: &mut Vec<QPkt>) {
        let end = u64::MAX - self.delay_ns;
        // The line takes everything (no capacity check: nothing waits any more).
        self.cap = usize::MAX;
        self.serve(end, out, dropped);
        self.stats.released += self.line.len() as u64;
        out.extend(self.line.drain(..).map(|(_, p)| p));
    }

    /// When the next packet is due to leave or to start transmission, if any is held.
    pub fn next_due(&self) -> Option<Nanos> {
        let line = self.line.front().map(|&(t, _)| t);
        let link = (self.backlog() > 0).then_some(self.free_at);
        match (line, link) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Packets held (queued or in flight).
    pub fn held(&self) -> usize {
        self.backlog() + self.line.len()
    }

    /// The counts so far.
    pub fn stats(&self) -> DelayStats {
        let mut s = self.stats;
        s.mean_queue = if s.seconds > 0.0 {
            self.area / (s.seconds * 1e9)
        } else {
            0.0
        };
        s
    }
}

/// A flow id (the RSS hash of its 5-tuple, [`flow_hash`]) and (source, destination) pair
/// ([`FlowKey::src_dst`]) of an Ethernet frame, for the per-flow AQMs; non-IP frames are
/// one flow.
fn flow_of(d: &[u8]) -> (u32, u64) {
    match flow_key(Linktype::ETHERNET, d) {
        Some(k) => (flow_hash(&k), k.src_dst()),
        None => (0, 0),
    }
}

/// An [`AfPacketTx`] behind a [`Shaper`] driven by the monotonic clock.
pub struct DelayTx {
    inner: AfPacketTx,
    shaper: Shaper,
    parked: Link,
    t0: Instant,
    out: Vec<QPkt>,
    dropped: Vec<QPkt>,
    send: Vec<Buf>,
    free: Vec<Buf>,
}

impl DelayTx {
    /// `inner` behind a line of `delay_ns` and an optional `(rate_bps, discipline)` link,
    /// for buffers of a pool of `pool_count`; the line holds `cap` packets.
    pub fn new(
        inner: AfPacketTx,
        delay_ns: u64,
        link: Option<(u64, Discipline<QPkt>)>,
        cap: usize,
        pool_count: u32,
    ) -> DelayTx {
        DelayTx {
            inner,
            shaper: Shaper::new(delay_ns, link, cap),
            parked: Link::new(1, pool_count),
            t0: Instant::now(),
            out: Vec::with_capacity(cap + 64),
            dropped: Vec::with_capacity(256),
            send: Vec::with_capacity(cap + 64),
            free: Vec::with_capacity(cap + 256),
        }
    }

    fn now(&self) -> Nanos {
        self.t0.elapsed().as_nanos() as u64
    }

    /// Sends what is due by now (or everything with `all`) and frees what was dropped.
    fn flush_due<L: Layout>(
        &mut self,
        pool: &Pool,
        cache: &mut PoolCache,
        layout: &mut L,
        all: bool,
    ) {
        if all {
            self.shaper.drain(&mut self.out, &mut self.dropped);
        } else {
            let now = self.now();
            self.shaper.release(now, &mut self.out, &mut self.dropped);
        }
        for p in &self.out {
            let b = self.parked.unpark(p.buf);
            self.inner.push(&pool.data(&b)[..p.len as usize]);
            self.send.push(b);
        }
        if !self.out.is_empty() {
            self.inner.flush();
        }
        self.out.clear();
        for p in self.dropped.drain(..) {
            self.free.push(self.parked.unpark(p.buf));
        }
        free_all(pool, cache, layout, &mut self.send);
        free_all(pool, cache, layout, &mut self.free);
    }

    /// The line's counts.
    pub fn stats(&self) -> DelayStats {
        self.shaper.stats()
    }

    /// The wrapped port.
    pub fn inner(&self) -> &AfPacketTx {
        &self.inner
    }
}

impl TxPort for DelayTx {
    fn tx_burst<L: Layout>(&mut self, c: &mut Bufs<L>, bufs: &mut Burst, lens: &[u16], _t: &[u64]) {
        let (pool, cache, layout) = c.parts();
        let now = self.now();
        for (b, &len) in bufs.drain(..).zip(lens) {
            let (flow, pair) = flow_of(&pool.data(&b)[..len as usize]);
            let p = QPkt {
                buf: self.parked.park(b),
                len,
                flow,
                pair,
                ts: now,
            };
            self.shaper.offer(p, now, &mut self.out, &mut self.dropped);
        }
        self.flush_due(pool, cache, layout, false);
    }

    fn packets(&self) -> u64 {
        self.inner.packets()
    }

    /// Sends what is due (called by the worker when its receive port is idle).
    fn poll<L: Layout>(&mut self, c: &mut Bufs<L>) {
        let (pool, cache, layout) = c.parts();
        self.flush_due(pool, cache, layout, false);
    }

    /// Sends everything still held at once (end of the run).
    fn finish<L: Layout>(&mut self, c: &mut Bufs<L>) {
        let (pool, cache, layout) = c.parts();
        self.flush_due(pool, cache, layout, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{AqmParamSet, AqmSpec};

    const MS: u64 = 1_000_000;

    fn pkt(i: u32, len: u16) -> QPkt {
        QPkt {
            buf: i,
            len,
            flow: i % 4,
            pair: (i % 4) as u64,
            ts: 0,
        }
    }

    fn shaper(delay_ms: u64, rate: Option<u64>, aqm: &str, buffer: usize) -> Shaper {
        let link = rate.map(|r| {
            let spec = AqmSpec::parse_with(aqm, &AqmParamSet::default()).unwrap();
            (r, spec.build(buffer, 1_000_000, 1).unwrap())
        });
        Shaper::new(
            delay_ms * MS,
            link,
            line_capacity(delay_ms * MS, rate, buffer),
        )
    }

    /// Runs the fake clock in steps of `step` ns until nothing is held, returning the
    /// (time, packet) of every departure.
    fn run_until_empty(s: &mut Shaper, from: u64, step: u64) -> Vec<(u64, u32)> {
        let (mut out, mut dropped, mut got) = (Vec::new(), Vec::new(), Vec::new());
        let mut t = from;
        while s.held() > 0 {
            out.clear();
            s.release(t, &mut out, &mut dropped);
            got.extend(out.iter().map(|p| (t, p.buf)));
            t += step;
        }
        assert!(dropped.is_empty());
        got
    }

    #[test]
    fn without_rate_every_packet_leaves_exactly_one_delay_later() {
        let mut s = shaper(20, None, "droptail", 100);
        let mut dropped = Vec::new();
        for i in 0..10u32 {
            s.offer(pkt(i, 1500), i as u64 * MS, &mut Vec::new(), &mut dropped);
        }
        let mut out = Vec::new();
        // Just before the first is due: nothing.
        s.release(20 * MS - 1, &mut out, &mut dropped);
        assert!(out.is_empty());
        assert_eq!(s.next_due(), Some(20 * MS));
        let got = run_until_empty(&mut s, 20 * MS, 1000);
        for (k, &(t, i)) in got.iter().enumerate() {
            assert_eq!(i, k as u32, "in order");
            let due = i as u64 * MS + 20 * MS;
            assert!(t >= due && t < due + 1000, "packet {i} at {t}, due {due}");
        }
        assert_eq!(s.stats().released, 10);
    }

    #[test]
    fn the_link_paces_at_the_rate_then_adds_the_delay() {
        // 10 Mb/s: a 1250-byte frame takes exactly 1 ms.
        let mut s = shaper(20, Some(10_000_000), "droptail", 1000);
        let mut dropped = Vec::new();
        for i in 0..50u32 {
            s.offer(pkt(i, 1250), 0, &mut Vec::new(), &mut dropped);
        }
        assert!(dropped.is_empty());
        let got = run_until_empty(&mut s, 0, 10_000);
        assert_eq!(got.len(), 50);
        for &(t, i) in &got {
            // Transmission of packet i ends at (i+1) ms; it leaves 20 ms later.
            let due = (i as u64 + 1) * MS + 20 * MS;
            assert!(t >= due && t < due + 10_000, "packet {i} at {t}, due {due}");
        }
        // 50 packets in 50 ms of link time: 10 Mb/s.
        let span = got.last().unwrap().0 - got[0].0 + MS;
        let mbps = 50.0 * 1250.0 * 8.0 / (span as f64 * 1e-9) / 1e6;
        assert!((mbps - 10.0).abs() < 0.1, "{mbps} Mb/s");
    }

    #[test]
    fn pacing_is_exact_however_late_the_clock_is_polled() {
        // Polled only every 7 ms: departures still follow the 1-ms link clock (each leaves
        // at the first poll at or after its due time, never before it).
        let mut s = shaper(5, Some(10_000_000), "droptail", 1000);
        let mut dropped = Vec::new();
        for i in 0..30u32 {
            s.offer(pkt(i, 1250), 0, &mut Vec::new(), &mut dropped);
        }
        let got = run_until_empty(&mut s, 0, 7 * MS);
        for &(t, i) in &got {
            let due = (i as u64 + 1) * MS + 5 * MS;
            assert!(t >= due && t < due + 7 * MS, "packet {i} at {t}, due {due}");
        }
        assert_eq!(got.len(), 30);
    }

    #[test]
    fn an_idle_link_starts_at_the_arrival_and_the_droptail_buffer_overflows() {
        let mut s = shaper(10, Some(10_000_000), "droptail", 8);
        let mut dropped = Vec::new();
        // The link idles until 100 ms; then 20 packets arrive at once: 1 starts at once,
        // 8 wait, 11 are dropped.
        for i in 0..20u32 {
            s.offer(pkt(i, 1250), 100 * MS, &mut Vec::new(), &mut dropped);
        }
        assert_eq!(dropped.len(), 11);
        assert_eq!(s.stats().aqm_drops, 11);
        assert_eq!(s.stats().max_queue, 8);
        let got = run_until_empty(&mut s, 100 * MS, 100_000);
        assert_eq!(got.len(), 9);
        assert_eq!(got[0].0, 111 * MS, "first ends at 101 ms + 10 ms");
        // Backlog 8, 7, …, 1 for 1 ms each from 100 to 108 ms: mean 36/8.
        let st = s.stats();
        assert!((st.mean_queue - 4.5).abs() < 1e-9, "{st:?}");
        assert!((st.seconds - 0.008).abs() < 1e-12, "{st:?}");
    }

    #[test]
    fn every_aqm_sits_behind_the_link_and_accounts_for_every_packet() {
        for aqm in [
            "droptail", "red", "sred", "zlred", "choke", "drr", "fq_codel",
        ] {
            let mut s = shaper(20, Some(10_000_000), aqm, 50);
            let mut dropped = Vec::new();
            let mut out = Vec::new();
            // Offered at 2× the link rate for 500 ms, polled every 0.5 ms.
            let mut t = 0;
            let mut i = 0u32;
            while t < 500 * MS {
                s.offer(pkt(i, 1250), t, &mut out, &mut dropped);
                i += 1;
                s.release(t, &mut out, &mut dropped);
                t += MS / 2;
            }
            s.drain(&mut out, &mut dropped);
            let st = s.stats();
            assert_eq!(st.offered, i as u64, "{aqm}");
            assert_eq!(
                out.len() + dropped.len(),
                i as usize,
                "{aqm}: every packet left or was dropped"
            );
            assert_eq!(st.aqm_drops as usize, dropped.len(), "{aqm}");
            // Twice the rate for long enough: about half is dropped.
            assert!(dropped.len() > i as usize / 3, "{aqm}: {}", dropped.len());
            assert!(st.mean_queue > 0.0 && st.max_queue <= 50, "{aqm}: {st:?}");
        }
    }

    #[test]
    fn line_capacity_bounds_what_the_link_can_put_in_flight() {
        // 45 Mb/s × 100 ms / (60 B × 8) = 9375 (+2).
        assert_eq!(line_capacity(100 * MS, Some(45_000_000), 10), 9377);
        assert_eq!(line_capacity(100 * MS, None, 10), 10);
        // A full-rate stream of minimum frames never overflows it.
        let mut s = shaper(3, Some(1_000_000), "droptail", 10_000);
        let mut dropped = Vec::new();
        let mut out = Vec::new();
        let mut t = 0;
        for i in 0..2000u32 {
            s.offer(pkt(i, 60), t, &mut out, &mut dropped);
            s.release(t, &mut out, &mut dropped);
            t += 480_000; // exactly the link's rate for 60-byte frames
        }
        assert_eq!(
            s.stats().line_drops,
            0,
            "{:?} cap {} held {}",
            s.stats(),
            s.cap,
            s.held()
        );
    }

    #[test]
    fn flows_are_told_apart_by_their_five_tuple() {
        let mut a = Vec::new();
        crate::io::pcap_write::build_frame(
            &mut a,
            crate::io::pcap_write::Ips::V4(0x0a000001, 0x0a000002),
            crate::io::pcap_write::L4::Udp { sport: 1, dport: 2 },
            b"x",
        )
        .unwrap();
        let mut b = a.clone();
        b[34] = 9; // another source port
        let (fa, pa) = flow_of(&a);
        let (fb, pb) = flow_of(&b);
        assert_ne!(fa, fb);
        assert_eq!(pa, pb);
        assert_eq!(pa, 0x0a00_0001_0a00_0002);
        assert_eq!(flow_of(&[0u8; 10]), (0, 0));
    }
}
