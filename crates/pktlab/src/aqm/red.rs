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

use super::{Aqm, AqmPacket, AqmStats, DropKind, Drops, Nanos};
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
}

impl Default for RedParams {
    /// min_th 5, max_th 15, max_p 0.1, w_q 0.002, gentle on, wait off.
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            wait: false,
        }
    }
}

/// A RED queue.
#[derive(Debug)]
pub struct Red<P> {
    p: RedParams,
    q: VecDeque<P>,
    limit: usize,
    bytes: u64,
    avg: f64,
    count: i64,
    idle_since: Option<Nanos>,
    pkt_time: f64,
    rng: SplitMix64,
    stats: AqmStats,
    last_pb: f64,
}

impl<P: AqmPacket> Red<P> {
    /// A RED queue with hard limit `limit` packets; `pkt_time` is the transmission time of a
    /// typical packet (idle-time correction), `seed` seeds the drop decisions.
    pub fn new(p: RedParams, limit: usize, pkt_time: Nanos, seed: u64) -> Result<Self, String> {
        if limit == 0 {
            return Err("red: buffer must be at least 1 packet".into());
        }
        if !(p.min_th >= 0.0 && p.max_th > p.min_th) {
            return Err(format!(
                "red: need 0 <= min_th < max_th (got {} and {})",
                p.min_th, p.max_th
            ));
        }
        if !(p.max_p > 0.0 && p.max_p <= 1.0) {
            return Err(format!("red: max_p must be in (0, 1] (got {})", p.max_p));
        }
        if !(p.w_q > 0.0 && p.w_q <= 1.0) {
            return Err(format!("red: w_q must be in (0, 1] (got {})", p.w_q));
        }
        if pkt_time == 0 {
            return Err("red: typical packet time must be positive".into());
        }
        Ok(Red {
            p,
            q: VecDeque::with_capacity(limit.min(1 << 16)),
            limit,
            bytes: 0,
            avg: 0.0,
            count: -1,
            idle_since: Some(0),
            pkt_time: pkt_time as f64,
            rng: SplitMix64::new(seed ^ 0x5245_4400),
            stats: AqmStats::default(),
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

    /// Updates the average for an arrival at `now` (fig. 2, first block).
    #[inline]
    fn update_avg(&mut self, now: Nanos) {
        let w = self.p.w_q;
        match self.idle_since {
            Some(t0) if self.q.is_empty() => {
                let m = now.saturating_sub(t0) as f64 / self.pkt_time;
                self.avg *= (1.0 - w).powf(m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * self.q.len() as f64,
        }
    }

    /// The early-drop decision for the current `avg` (fig. 2, second block).
    #[inline]
    fn early_drop(&mut self) -> bool {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            wait,
            ..
        } = self.p;
        let avg = self.avg;
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
        let c = self.count as f64 * pb;
        let pa = if wait {
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
        };
        if pa > 0.0 && (pa >= 1.0 || self.rng.next_f64() < pa) {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

impl<P: AqmPacket> Aqm<P> for Red<P> {
    #[inline]
    fn enqueue(&mut self, mut pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        self.update_avg(now);
        let early = self.early_drop();
        if early && !pkt.ecn_capable() {
            self.stats.early_drops += 1;
            drops.push(pkt, DropKind::Early);
        } else if self.q.len() >= self.limit {
            self.stats.forced_drops += 1;
            drops.push(pkt, DropKind::Forced);
        } else {
            if early {
                // RFC 3168 §5 / Linux sch_red with `ecn`: mark instead of dropping.
                pkt.mark_ce();
                self.stats.marks += 1;
            }
            self.idle_since = None;
            self.bytes += pkt.bytes() as u64;
            self.q.push_back(pkt);
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Nanos, _drops: &mut Drops<P>) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
        if self.q.is_empty() {
            self.idle_since = Some(now);
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
        self.avg
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
            assert!((r.avg() - w).abs() < 1e-12, "avg {} want {w}", r.avg());
        }
        // Drain, stay idle for 4 packet times: avg ← 0.5^4 · (avg after the last update).
        let before = r.avg();
        for _ in 0..4 {
            r.dequeue(10_000, &mut d);
        }
        r.enqueue(P, 14_000, &mut d);
        assert!((r.avg() - before * 0.0625).abs() < 1e-12);
        assert!(d.pkts.is_empty());
    }

    #[test]
    fn drop_probability_matches_hand_computation() {
        let mut r = Red::<P>::new(params(), 100, 1000, 1).unwrap();
        // avg = 10: p_b = 0.1 · (10−5)/(15−5) = 0.05.
        r.avg = 10.0;
        r.q.extend([P; 10]);
        r.p.w_q = 1e-12; // keep avg at 10
        r.count = -1;
        let mut d = Drops::default();
        r.enqueue(P, 0, &mut d);
        assert!((r.last_pb() - 0.05).abs() < 1e-9);
        // Gentle region: avg = 20 → p_b = 0.1 + 0.9 · 5/15 = 0.4.
        r.avg = 20.0;
        r.enqueue(P, 0, &mut d);
        assert!((r.last_pb() - 0.4).abs() < 1e-9);
        // Beyond 2·max_th every arrival is dropped.
        r.avg = 31.0;
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
        r.p.w_q = 1e-15;
        r.avg = 10.0; // p_b = 0.05 → gaps uniform on 1..=19, mean 10
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
