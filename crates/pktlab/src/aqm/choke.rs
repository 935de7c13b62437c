//! CHOKe — "CHOose and Keep for responsive flows, CHOose and Kill for unresponsive flows"
//! (Pan, Prabhakar & Psounis, IEEE INFOCOM 2000, §II, fig. 1), on top of RED's average queue.
//!
//! On each arrival the RED average `avg` is updated (EWMA with weight `w_q` and the idle-time
//! correction of RED). Then: `avg < min_th` → enqueue; otherwise one packet is drawn
//! uniformly from the buffer and, if it belongs to the arrival's flow, **both** are dropped;
//! otherwise the arrival is dropped with RED's `p_b = max_p·(avg−min_th)/(max_th−min_th)` if
//! `avg < max_th`, and always if `avg ≥ max_th`. A full buffer drops the arrival.
//!
//! Removing a random packet from the middle of the FIFO is O(1) here: it is marked dead and
//! skipped at dequeue. A draw that lands on an already-dead slot counts as "no match" (the
//! buffer holds few dead slots because every dequeue pops them).

use super::decide::{early, Arrival, Decide, QueueView, Verdict};
use super::{Aqm, AqmError, AqmPacket, AqmStats, DropKind, Drops, Nanos, RedParams};
use crate::util::SplitMix64;
use std::collections::VecDeque;

/// CHOKe's decision for arrivals at any queue ([`super::decide`]): RED's average with the
/// idle-time correction, the draw of a queued packet ([`QueueView::flow_at`]) and RED's
/// early drop (thresholds, `max_p` and `w_q` from [`RedParams`]; `gentle`/`wait` unused).
#[derive(Clone, Debug)]
pub struct ChokeDecider {
    p: RedParams,
    avg: f64,
    idle_since: Option<Nanos>,
    pkt_time: f64,
    rng: SplitMix64,
}

/// A CHOKe queue: a FIFO with dead slots behind a [`ChokeDecider`].
#[derive(Debug)]
pub struct Choke<P> {
    d: ChokeDecider,
    q: VecDeque<(P, bool)>,
    live: usize,
    limit: usize,
    bytes: u64,
    stats: AqmStats,
}

/// What CHOKe's decider sees of its own queue: live packets, and flows by physical position.
struct View<'a, P> {
    q: &'a VecDeque<(P, bool)>,
    live: usize,
    limit: usize,
}

impl<P: AqmPacket> QueueView for View<'_, P> {
    fn len(&self) -> usize {
        self.live
    }
    fn limit(&self) -> usize {
        self.limit
    }
    fn slots(&self) -> usize {
        self.q.len()
    }
    fn flow_at(&self, i: usize) -> Option<u64> {
        let (p, alive) = self.q[i];
        alive.then(|| p.flow() as u64)
    }
}

impl<P: AqmPacket> Choke<P> {
    /// A CHOKe queue with hard limit `limit` packets; `pkt_time` as in [`super::Red`].
    pub fn new(p: RedParams, limit: usize, pkt_time: Nanos, seed: u64) -> Result<Self, AqmError> {
        Ok(Choke {
            d: ChokeDecider::new(p, limit, pkt_time, seed)?,
            q: VecDeque::with_capacity(limit.min(1 << 16)),
            live: 0,
            limit,
            bytes: 0,
            stats: AqmStats::default(),
        })
    }

    fn drop_front_dead(&mut self) {
        while matches!(self.q.front(), Some((_, false))) {
            self.q.pop_front();
        }
    }
}

impl ChokeDecider {
    /// CHOKe's decider for a queue of hard limit `limit` packets (checked as the queue's);
    /// `pkt_time` as in [`super::Red`].
    pub fn new(p: RedParams, limit: usize, pkt_time: Nanos, seed: u64) -> Result<Self, AqmError> {
        const D: &str = "choke";
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
        if !(p.max_p > 0.0 && p.max_p <= 1.0 && p.w_q > 0.0 && p.w_q <= 1.0) {
            return Err(AqmError::Rule {
                disc: D,
                rule: "max_p and w_q must be in (0, 1]",
            });
        }
        if pkt_time == 0 {
            return Err(AqmError::Rule {
                disc: D,
                rule: "typical packet time must be positive",
            });
        }
        Ok(ChokeDecider {
            p,
            avg: 0.0,
            idle_since: Some(0),
            pkt_time: pkt_time as f64,
            rng: SplitMix64::new(seed ^ 0x4348_4F4B),
        })
    }

    /// The current average queue estimate, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }
}

impl Decide for ChokeDecider {
    #[inline]
    fn decide<Q: QueueView + ?Sized>(&mut self, a: &Arrival, q: &Q) -> Verdict {
        let live = q.len();
        let w = self.p.w_q;
        match self.idle_since {
            Some(t0) if live == 0 => {
                let m = a.now.saturating_sub(t0) as f64 / self.pkt_time;
                self.avg *= (1.0 - w).powf(m);
            }
            _ => self.avg = (1.0 - w) * self.avg + w * live as f64,
        }
        self.idle_since = None;
        if live >= q.limit() {
            return Verdict::Drop(DropKind::Forced);
        }
        let slots = q.slots();
        if self.avg >= self.p.min_th && slots > 0 {
            let i = ((self.rng.next_u64() as u128 * slots as u128) >> 64) as usize;
            if q.flow_at(i) == Some(a.flow) {
                return Verdict::DropPair { victim: i };
            }
            let drop = if self.avg < self.p.max_th {
                let pb =
                    self.p.max_p * (self.avg - self.p.min_th) / (self.p.max_th - self.p.min_th);
                self.rng.next_f64() < pb
            } else {
                true
            };
            // RED's part marks ECN-capable packets (as Linux sch_choke); a matched pair
            // above is dropped regardless.
            return early(drop, a.ecn_capable);
        }
        Verdict::Enqueue
    }
    fn on_empty(&mut self, now: Nanos) {
        self.idle_since = Some(now);
    }
}

impl<P: AqmPacket> Aqm<P> for Choke<P> {
    #[inline]
    fn enqueue(&mut self, mut pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        let a = Arrival {
            flow: pkt.flow() as u64,
            ecn_capable: pkt.ecn_capable(),
            now,
        };
        let view = View {
            q: &self.q,
            live: self.live,
            limit: self.limit,
        };
        match self.d.decide(&a, &view) {
            Verdict::Drop(kind) => {
                match kind {
                    DropKind::Forced => self.stats.forced_drops += 1,
                    DropKind::Early => self.stats.early_drops += 1,
                }
                drops.push(pkt, kind);
            }
            Verdict::DropPair { victim: i } => {
                let (victim, _) = self.q[i];
                self.q[i].1 = false;
                self.live -= 1;
                self.bytes -= victim.bytes() as u64;
                self.stats.early_drops += 2;
                drops.push(victim, DropKind::Early);
                drops.push(pkt, DropKind::Early);
                self.drop_front_dead();
                if self.live == 0 {
                    self.d.on_empty(now);
                }
            }
            v => {
                if v == Verdict::Mark {
                    pkt.mark_ce();
                    self.stats.marks += 1;
                }
                self.bytes += pkt.bytes() as u64;
                self.live += 1;
                self.q.push_back((pkt, true));
            }
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Nanos, _drops: &mut Drops<P>) -> Option<P> {
        self.drop_front_dead();
        let (p, _) = self.q.pop_front()?;
        self.drop_front_dead();
        self.live -= 1;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
        if self.live == 0 {
            self.d.on_empty(now);
        }
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.live
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> AqmStats {
        self.stats
    }
    fn name(&self) -> &'static str {
        "choke"
    }
    fn avg_estimate(&self) -> f64 {
        self.d.avg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pk(u32, u32);
    impl AqmPacket for Pk {
        fn flow(&self) -> u32 {
            self.0
        }
        fn bytes(&self) -> u32 {
            1000
        }
    }

    #[test]
    fn unresponsive_flow_is_choked() {
        // Flow 0 offers 5× the packets of each of 5 other flows; queue served at the
        // arrival rate of half the load.
        let p = RedParams {
            min_th: 5.0,
            max_th: 50.0,
            max_p: 0.1,
            w_q: 0.02,
            ..RedParams::default()
        };
        let mut q = Choke::new(p, 200, 1000, 3).unwrap();
        let mut d = Drops::default();
        let (mut arr, mut dr) = ([0u64; 2], [0u64; 2]);
        let mut x = SplitMix64::new(5);
        for t in 0..200_000u64 {
            let f = if x.next_u64().is_multiple_of(2) {
                0
            } else {
                1 + (x.next_u64() % 5) as u32
            };
            q.enqueue(Pk(f, t as u32), t * 1000, &mut d);
            let c = (f != 0) as usize;
            arr[c] += 1;
            for (pk, _) in &d.pkts {
                dr[(pk.0 != 0) as usize] += 1;
            }
            d.clear();
            if t % 2 == 0 {
                q.dequeue(t * 1000, &mut d);
            }
            assert!(q.len_pkts() <= 200);
        }
        let (l0, l1) = (dr[0] as f64 / arr[0] as f64, dr[1] as f64 / arr[1] as f64);
        assert!(l0 > 1.5 * l1, "heavy {l0} vs light {l1}");
        // Accounting: every packet either left, was dropped, or is queued.
        let s = q.stats();
        assert_eq!(
            s.arrivals,
            s.departures + s.early_drops + s.forced_drops + q.len_pkts() as u64
        );
    }

    #[test]
    fn bad_parameters_are_errors() {
        assert!(Choke::<Pk>::new(RedParams::default(), 0, 1, 1).is_err());
        let bad = RedParams {
            max_th: 1.0,
            ..RedParams::default()
        };
        assert!(Choke::<Pk>::new(bad, 10, 1, 1).is_err());
    }
}
