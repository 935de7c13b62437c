//! RED — Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993, §4 and fig. 2), with the "gentle" extension
//! (Floyd 2000) and ns-2/ns-3's optional "wait" spacing.
//!
//! On each arrival: `avg ← (1−w_q)·avg + w_q·q` if the queue is non-empty, else the idle-time
//! correction `avg ← (1−w_q)^m·avg` with `m = idle_time / pkt_time` (fig. 2). Then
//! * `avg < min_th`: enqueue, `count = −1`;
//! * `min_th ≤ avg < max_th`: `count += 1`, `p_b = max_p·(avg−min_th)/(max_th−min_th)`,
//!   `p_a = p_b / (1 − count·p_b)` (1 if `count·p_b ≥ 1`); drop with probability `p_a`
//!   and then `count = 0` (count-based spacing, §7);
//! * gentle and `max_th ≤ avg < 2·max_th`: the same with
//!   `p_b = max_p + (1−max_p)·(avg−max_th)/max_th`;
//! * otherwise drop (`count = 0`).
//!
//! The buffer limit is a hard limit (forced drop). Thresholds are in packets.
//!
//! **ns mode** ([`RedParams::ns`], off by default): the enqueue rules of ns-2's and ns-3's RED
//! (`RedQueueDisc::DoEnqueue` in ns-3 3.44, read, not copied), for comparisons against those
//! simulators: no drop at all while at most one packet is queued (the early-drop block runs
//! only when `avg ≥ min_th` *and* the queue holds more than one packet); the first arrival
//! after the average crossed `min_th` — or after such a near-empty queue — only restarts the
//! count at 1 (`m_old`); `count` grows on every arrival and a hard drop above the gentle
//! region keeps it; the idle correction is `(1−w_q)^(⌊idle/pkt_time⌋+1)`. Floyd & Jacobson's
//! fig. 2, and Linux's `sch_red`, have none of these, so they stay the default (and the
//! paper-002 presets are unchanged).

use super::decide::{Arrival, Decide, QueueState, QueueView, Verdict};
use super::{Aqm, AqmError, AqmPacket, AqmStats, DropKind, Drops, Nanos};
use crate::util::SplitMix64;
use std::collections::VecDeque;

/// RED parameters (packet mode).
#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Minimum threshold of the average queue, packets.
    pub min_th: f64,
    /// Maximum threshold of the average queue, packets.
    pub max_th: f64,
    /// Drop probability at `max_th`.
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Gentle RED: ramp from `max_p` to 1 between `max_th` and `2·max_th`.
    pub gentle: bool,
    /// ns "wait" spacing: `p_a = p_b/(2 − count·p_b)` and no drop while `count·p_b < 1`.
    pub wait: bool,
    /// ns-2/ns-3 enqueue rules (module header): no drop while ≤ 1 packet is queued, the
    /// first arrival above `min_th` only restarts the count.
    pub ns: bool,
}

impl Default for RedParams {
    /// min_th 5, max_th 15, max_p 0.1, w_q 0.002, gentle on, wait off, ns mode off.
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            wait: false,
            ns: false,
        }
    }
}

/// RED's drop decision (fig. 2) for arrivals at any queue ([`super::decide`]): the average,
/// the count, the idle time and the random draws, without the packets.
#[derive(Clone, Debug)]
pub struct RedDecider {
    p: RedParams,
    avg: f64,
    count: i64,
    /// ns mode: the average was above `min_th` with more than one packet queued at the last
    /// arrival (ns-3's `m_old`).
    old: bool,
    idle_since: Option<Nanos>,
    pkt_time: f64,
    rng: SplitMix64,
    last_pb: f64,
}

/// A RED queue: a FIFO behind a [`RedDecider`].
#[derive(Debug)]
pub struct Red<P> {
    d: RedDecider,
    q: VecDeque<P>,
    limit: usize,
    bytes: u64,
    stats: AqmStats,
}

impl<P: AqmPacket> Red<P> {
    /// A RED queue with hard limit `limit` packets; `pkt_time` is the transmission time of a
    /// typical packet (idle-time correction), `seed` seeds the drop decisions.
    pub fn new(p: RedParams, limit: usize, pkt_time: Nanos, seed: u64) -> Result<Self, AqmError> {
        Ok(Red {
            d: RedDecider::new(p, limit, pkt_time, seed)?,
            q: VecDeque::with_capacity(limit.min(1 << 16)),
            limit,
            bytes: 0,
            stats: AqmStats::default(),
        })
    }

    /// The current average queue estimate, packets.
    pub fn avg(&self) -> f64 {
        self.d.avg
    }

    /// `p_b` computed at the last arrival (0 below `min_th`).
    pub fn last_pb(&self) -> f64 {
        self.d.last_pb
    }
}

impl RedDecider {
    /// RED's decider for a queue of hard limit `limit` packets (checked like the queue's:
    /// `limit` is not otherwise used); `pkt_time` and `seed` as in [`Red::new`].
    pub fn new(p: RedParams, limit: usize, pkt_time: Nanos, seed: u64) -> Result<Self, AqmError> {
        const D: &str = "red";
        if limit == 0 {
            return Err(AqmError::EmptyBuffer(D));
        }
        if !(p.min_th >= 0.0 && p.max_th > p.min_th) {
            return Err(AqmError::range(
                D,
                "need 0 <= min_th < max_th",
                format!("{} and {}", p.min_th, p.max_th),
            ));
        }
        if !(p.max_p > 0.0 && p.max_p <= 1.0) {
            return Err(AqmError::range(D, "max_p must be in (0, 1]", p.max_p));
        }
        if !(p.w_q > 0.0 && p.w_q <= 1.0) {
            return Err(AqmError::range(D, "w_q must be in (0, 1]", p.w_q));
        }
        if pkt_time == 0 {
            return Err(AqmError::Rule {
                disc: D,
                rule: "typical packet time must be positive",
            });
        }
        Ok(RedDecider {
            p,
            avg: 0.0,
            count: -1,
            old: false,
            idle_since: Some(0),
            pkt_time: pkt_time as f64,
            rng: SplitMix64::new(seed ^ 0x5245_4400),
            last_pb: 0.0,
        })
    }

    /// The current average queue estimate, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// `p_b` computed at the last arrival (0 below `min_th`).
    pub fn last_pb(&self) -> f64 {
        self.last_pb
    }

    /// Updates the average for an arrival at `now` at a queue of `len` packets (fig. 2,
    /// first block).
    #[inline]
    fn update_avg(&mut self, now: Nanos, len: usize) {
        let w = self.p.w_q;
        match self.idle_since {
            Some(t0) if len == 0 => {
                let m = now.saturating_sub(t0) as f64 / self.pkt_time;
                if self.p.ns {
                    self.avg *= (1.0 - w).powi(m as i32 + 1);
                } else {
                    self.avg *= (1.0 - w).powf(m);
                }
            }
            _ => self.avg = (1.0 - w) * self.avg + w * len as f64,
        }
    }

    /// The early-drop decision for the current `avg` (fig. 2, second block), at a queue of
    /// `len` packets.
    #[inline]
    fn early_drop(&mut self, len: usize) -> bool {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            wait,
            ns,
            ..
        } = self.p;
        let avg = self.avg;
        if ns {
            return self.early_drop_ns(len);
        }
        let pb = if avg < min_th {
            self.count = -1;
            self.last_pb = 0.0;
            return false;
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            self.last_pb = 1.0;
            self.count = 0;
            return true;
        };
        self.last_pb = pb;
        self.count += 1;
        let pa = spaced(pb, self.count, wait);
        if pa > 0.0 && (pa >= 1.0 || self.rng.next_f64() < pa) {
            self.count = 0;
            true
        } else {
            false
        }
    }

    /// The early-drop decision under ns-2/ns-3's rules (module header).
    fn early_drop_ns(&mut self, len: usize) -> bool {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            wait,
            ..
        } = self.p;
        let avg = self.avg;
        // ns-3 starts the count at 0 (ours: −1, fig. 2); only the first-crossing reset to 1
        // below reads it before a drop, so the start value does not matter.
        self.count += 1;
        if !(avg >= min_th && len > 1) {
            self.old = false;
            self.last_pb = 0.0;
            return false;
        }
        if avg >= if gentle { 2.0 * max_th } else { max_th } {
            self.last_pb = 1.0;
            return true;
        }
        if !self.old {
            self.count = 1;
            self.old = true;
            self.last_pb = 0.0;
            return false;
        }
        let pb = if avg >= max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            max_p * (avg - min_th) / (max_th - min_th)
        };
        self.last_pb = pb;
        let pa = spaced(pb, self.count, wait);
        if self.rng.next_f64() <= pa {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl Decide for RedDecider {
    #[inline]
    fn decide<Q: QueueView + ?Sized>(&mut self, a: &Arrival, q: &Q) -> Verdict {
        let len = q.len();
        self.update_avg(a.now, len);
        let early = self.early_drop(len);
        if early && !a.ecn_capable {
            Verdict::Drop(DropKind::Early)
        } else if len >= q.limit() {
            Verdict::Drop(DropKind::Forced)
        } else {
            self.idle_since = None;
            // RFC 3168 §5 / Linux sch_red with `ecn`: mark instead of dropping.
            if early {
                Verdict::Mark
            } else {
                Verdict::Enqueue
            }
        }
    }
    fn on_empty(&mut self, now: Nanos) {
        self.idle_since = Some(now);
    }
}

impl<P: AqmPacket> Aqm<P> for Red<P> {
    #[inline]
    fn enqueue(&mut self, mut pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        let a = Arrival {
            flow: pkt.flow() as u64,
            ecn_capable: pkt.ecn_capable(),
            now,
        };
        let state = QueueState {
            len: self.q.len(),
            limit: self.limit,
        };
        match self.d.decide(&a, &state) {
            Verdict::Drop(kind) => {
                match kind {
                    DropKind::Early => self.stats.early_drops += 1,
                    DropKind::Forced => self.stats.forced_drops += 1,
                }
                drops.push(pkt, kind);
            }
            v => {
                if v == Verdict::Mark {
                    pkt.mark_ce();
                    self.stats.marks += 1;
                }
                self.bytes += pkt.bytes() as u64;
                self.q.push_back(pkt);
            }
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Nanos, _drops: &mut Drops<P>) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
        if self.q.is_empty() {
            self.d.on_empty(now);
        }
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> AqmStats {
        self.stats
    }
    fn name(&self) -> &'static str {
        "red"
    }
    fn avg_estimate(&self) -> f64 {
        self.d.avg
    }
}

/// Floyd & Jacobson's spacing of drops (fig. 2): the actual drop probability after `count`
/// undropped arrivals at base probability `pb`, `p_a = p_b / (1 − count·p_b)`, or with "wait"
/// (ns-2's `wait_`, drops at least 1/p_b apart) `p_b / (2 − count·p_b)` from count·p_b ≥ 1 on.
#[inline]
fn spaced(pb: f64, count: i64, wait: bool) -> f64 {
    let c = count as f64 * pb;
    if wait {
        if c < 1.0 {
            0.0
        } else if c < 2.0 {
            pb / (2.0 - c)
        } else {
            1.0
        }
    } else if c < 1.0 {
        pb / (1.0 - c)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct P;
    impl AqmPacket for P {
        fn flow(&self) -> u32 {
            0
        }
        fn bytes(&self) -> u32 {
            1000
        }
    }

    fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.5,
            gentle: true,
            wait: false,
            ns: false,
        }
    }

    #[test]
    fn average_matches_hand_computation() {
        // w_q = 0.5: arrivals see q = 0 (empty, idle 0 ns), 1, 2, 3 → avg 0, 0.5, 1.25, 2.125.
        let mut r = Red::new(params(), 100, 1000, 1).unwrap();
        let mut d = Drops::default();
        let want = [0.0, 0.5, 1.25, 2.125];
        for w in want {
            r.enqueue(P, 0, &mut d);
            assert!((r.d.avg() - w).abs() < 1e-12, "avg {} want {w}", r.d.avg());
        }
        // Drain, stay idle for 4 packet times: avg ← 0.5^4 · (avg after the last update).
        let before = r.d.avg();
        for _ in 0..4 {
            r.dequeue(10_000, &mut d);
        }
        r.enqueue(P, 14_000, &mut d);
        assert!((r.d.avg() - before * 0.0625).abs() < 1e-12);
        assert!(d.pkts.is_empty());
    }

    #[test]
    fn drop_probability_matches_hand_computation() {
        let mut r = Red::<P>::new(params(), 100, 1000, 1).unwrap();
        // avg = 10: p_b = 0.1 · (10−5)/(15−5) = 0.05.
        r.d.avg = 10.0;
        r.q.extend([P; 10]);
        r.d.p.w_q = 1e-12; // keep avg at 10
        r.d.count = -1;
        let mut d = Drops::default();
        r.enqueue(P, 0, &mut d);
        assert!((r.last_pb() - 0.05).abs() < 1e-9);
        // Gentle region: avg = 20 → p_b = 0.1 + 0.9 · 5/15 = 0.4.
        r.d.avg = 20.0;
        r.enqueue(P, 0, &mut d);
        assert!((r.last_pb() - 0.4).abs() < 1e-9);
        // Beyond 2·max_th every arrival is dropped.
        r.d.avg = 31.0;
        let before = d.pkts.len();
        r.enqueue(P, 0, &mut d);
        assert_eq!(d.pkts.len(), before + 1);
        assert_eq!(d.pkts.last().unwrap().1, DropKind::Early);
    }

    #[test]
    fn count_spacing_gives_uniform_intervals() {
        // With constant p_b, fig. 2's rule (count reset to 0 on a drop, incremented before
        // p_a = p_b/(1 − count·p_b)) makes the gap X uniform on 1..=1/p_b − 1: mean 1/(2·p_b).
        let mut r = Red::<P>::new(params(), 1_000_000, 1000, 7).unwrap();
        r.d.p.w_q = 1e-15;
        r.d.avg = 10.0; // p_b = 0.05 → gaps uniform on 1..=19, mean 10
        r.q.extend([P; 10]);
        let mut d = Drops::default();
        let n = 200_000;
        for _ in 0..n {
            r.enqueue(P, 0, &mut d);
            r.q.pop_back();
        }
        let drops = d.pkts.len() as f64;
        let gap = n as f64 / drops;
        assert!((gap - 10.0).abs() < 0.2, "mean gap {gap}");
    }

    #[test]
    fn ns_mode_never_drops_with_at_most_one_packet_queued_and_skips_the_first_crossing() {
        let mut p = params();
        p.ns = true;
        p.w_q = 1e-12; // keep the average where it is set
        let mut r = Red::<P>::new(p, 1000, 1000, 3).unwrap();
        let mut d = Drops::default();
        // avg = 40 (beyond 2·max_th): Floyd & Jacobson drop every arrival; ns mode drops none
        // while the queue holds 0 or 1 packet.
        r.d.avg = 40.0;
        r.d.idle_since = None;
        for _ in 0..1000 {
            r.enqueue(P, 0, &mut d);
            r.q.clear();
        }
        assert!(d.pkts.is_empty());
        r.q.push_back(P);
        r.enqueue(P, 0, &mut d); // one queued → still no drop
        assert!(d.pkts.is_empty());
        r.enqueue(P, 0, &mut d); // two queued, hard region → drop
        assert_eq!(d.pkts.len(), 1);
        // Linear region, p_b = 1 (max_p = 1, avg = max_th − ε): the first arrival after the
        // crossing only restarts the count; the next one is dropped (p_a ≥ 1).
        let mut p = params();
        p.ns = true;
        p.max_p = 1.0;
        p.gentle = false;
        p.w_q = 1e-12;
        let mut r = Red::<P>::new(p, 1000, 1000, 3).unwrap();
        r.q.extend([P; 5]);
        r.d.idle_since = None;
        r.d.avg = 14.999;
        let mut d = Drops::default();
        r.enqueue(P, 0, &mut d);
        assert!(d.pkts.is_empty(), "first crossing: no drop");
        r.enqueue(P, 0, &mut d);
        assert_eq!(d.pkts.len(), 1);
        // The same sequence with ns mode off drops the first arrival.
        let mut p = params();
        p.max_p = 1.0;
        p.gentle = false;
        p.w_q = 1e-12;
        let mut r = Red::<P>::new(p, 1000, 1000, 3).unwrap();
        r.q.extend([P; 5]);
        r.d.idle_since = None;
        r.d.avg = 14.999;
        let mut d = Drops::default();
        r.enqueue(P, 0, &mut d);
        assert_eq!(d.pkts.len(), 1);
    }

    #[test]
    fn bad_parameters_are_errors() {
        let mut p = params();
        p.max_th = 2.0;
        assert!(Red::<P>::new(p, 10, 1, 0).is_err());
        assert!(Red::<P>::new(params(), 0, 1, 0).is_err());
        let mut p = params();
        p.max_p = 0.0;
        assert!(Red::<P>::new(p, 10, 1, 0).is_err());
    }
}
