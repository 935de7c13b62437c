//! The AQM *decision* interface: what RED, SRED, ZL-RED and CHOKe decide for an arriving
//! packet — queue it, mark it (ECN), or drop it — given the state of a queue they do not own.
//! pktlab's own queues ([`super::Red`], [`super::Sred`], [`super::ZlRed`],
//! [`super::Choke`]) are built on these deciders, so a decider in front of a user's queue
//! makes exactly the decisions the pktlab queue would make for the same arrivals, departures
//! and seed.
//!
//! Protocol: for every arrival call [`Decide::decide`] with the queue as it is *before* the
//! arrival, then do what the [`Verdict`] says; whenever the queue becomes empty (a departure,
//! or CHOKe's pair drop, took its last packet) call [`Decide::on_empty`] (RED and CHOKe
//! correct their average for the idle time).
//!
//! ```
//! use pktlab::aqm::decide::{Arrival, Decide, QueueState, Verdict};
//! use pktlab::aqm::{ZlRedDecider, ZlRedParams};
//! use std::collections::VecDeque;
//!
//! let limit = 100;
//! let mut zl = ZlRedDecider::new(ZlRedParams::default(), limit, 7).unwrap();
//! let mut queue: VecDeque<u64> = VecDeque::new(); // the user's own queue of flow ids
//! for t in 0..1000u64 {
//!     let flow = t % 3;
//!     let a = Arrival { flow, ecn_capable: false, now: t };
//!     match zl.decide(&a, &QueueState { len: queue.len(), limit }) {
//!         Verdict::Enqueue | Verdict::Mark => queue.push_back(flow),
//!         Verdict::Drop(_) | Verdict::DropPair { .. } => {}
//!     }
//! }
//! assert!(queue.len() <= limit);
//! ```

use super::{DropKind, Nanos};

/// An arriving packet as a decider sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Flow id: for SRED/ZL-RED the zombie-list id (e.g. the source/destination pair), for
    /// CHOKe the id compared with the drawn packet's.
    pub flow: u64,
    /// ECN-capable (RFC 3168 ECT or CE): an early decision marks instead of dropping.
    pub ecn_capable: bool,
    /// Arrival time, ns (RED's and CHOKe's idle-time correction).
    pub now: Nanos,
}

/// What a decider reads of the queue an arrival is offered to.
pub trait QueueView {
    /// Packets queued now (before the arrival).
    fn len(&self) -> usize;
    /// True when nothing is queued.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The hard limit, packets: at `len() >= limit()` an arrival is a forced drop.
    fn limit(&self) -> usize;
    /// Positions CHOKe draws a packet from (`0..slots()`; defaults to `len()`).
    fn slots(&self) -> usize {
        self.len()
    }
    /// The flow id of the packet at position `i < slots()`, `None` if there is none (CHOKe
    /// then counts the draw as no match). Defaults to `None`: a queue that cannot say never
    /// sees CHOKe's pair drop.
    fn flow_at(&self, i: usize) -> Option<u64> {
        let _ = i;
        None
    }
}

/// A queue state given by value: `len` packets queued, hard limit `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueState {
    /// Packets queued.
    pub len: usize,
    /// Hard limit, packets.
    pub limit: usize,
}

impl QueueView for QueueState {
    fn len(&self) -> usize {
        self.len
    }
    fn limit(&self) -> usize {
        self.limit
    }
}

/// The decision for one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue the packet.
    Enqueue,
    /// Set Congestion Experienced and queue the packet (an early decision on an
    /// ECN-capable packet).
    Mark,
    /// Drop the packet (forced: the queue was full; early: the discipline's choice).
    Drop(DropKind),
    /// CHOKe: drop the packet *and* the queued packet at position `victim` (same flow).
    DropPair {
        /// Position of the queued packet to drop, as given to [`QueueView::flow_at`].
        victim: usize,
    },
}

/// A drop/mark decider for arrivals at a queue it does not own.
pub trait Decide {
    /// Decides for `arrival` at queue `q` (its state before the arrival). Updates the
    /// decider's state (averages, zombie list, random draws) as the discipline does.
    fn decide<Q: QueueView + ?Sized>(&mut self, arrival: &Arrival, q: &Q) -> Verdict;
    /// The queue became empty at `now`. Defaults to nothing.
    fn on_empty(&mut self, now: Nanos) {
        let _ = now;
    }
}

/// The verdict of a decision that was `early` (an early drop) for a packet that may be
/// `ecn_capable`: a mark for ECN-capable packets, else an early drop.
#[inline(always)]
pub(crate) fn early(early: bool, ecn_capable: bool) -> Verdict {
    match (early, ecn_capable) {
        (false, _) => Verdict::Enqueue,
        (true, true) => Verdict::Mark,
        (true, false) => Verdict::Drop(DropKind::Early),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::sred::FlowKey;
    use crate::aqm::EcnPkt as Pk;
    use crate::aqm::{
        Aqm, Choke, ChokeDecider, Drops, Red, RedDecider, RedParams, Sred, SredDecider, SredParams,
        ZlRed, ZlRedDecider, ZlRedParams,
    };
    use crate::util::SplitMix64;
    use std::collections::VecDeque;

    /// A user's queue with CHOKe's dead slots: (flow, ce, alive).
    struct Mine {
        q: VecDeque<(u64, bool, bool)>,
        live: usize,
        limit: usize,
    }
    impl QueueView for Mine {
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
            let (f, _, alive) = self.q[i];
            alive.then_some(f)
        }
    }
    impl Mine {
        fn pop_dead(&mut self) {
            while matches!(self.q.front(), Some((_, _, false))) {
                self.q.pop_front();
            }
        }
    }

    /// Drives pktlab's queue `q` and decider `d` in front of a user's queue with the same
    /// arrivals and departures: every departure (flow, CE mark) and every drop must agree.
    fn same_decisions<Q: Aqm<Pk>, D: Decide>(mut q: Q, mut d: D, limit: usize, seed: u64) {
        let mut mine = Mine {
            q: VecDeque::new(),
            live: 0,
            limit,
        };
        let mut drops = Drops::default();
        let mut x = SplitMix64::new(seed);
        let (mut arrivals, mut dropped) = (0u64, 0u64);
        for t in 0..40_000u64 {
            let r = x.next_u64();
            // Flow 0 sends half of the packets; a third are ECN-capable.
            let f = if r & 1 == 0 { 0 } else { (r >> 8) as u32 % 12 };
            let p = Pk(f, r.is_multiple_of(3), false);
            let now = t * 1000;
            q.enqueue(p, now, &mut drops);
            arrivals += 1;
            let a = Arrival {
                flow: f as u64,
                ecn_capable: p.1,
                now,
            };
            let mut mine_drops = Vec::new();
            match d.decide(&a, &mine) {
                Verdict::Enqueue => {
                    mine.q.push_back((f as u64, false, true));
                    mine.live += 1;
                }
                Verdict::Mark => {
                    mine.q.push_back((f as u64, true, true));
                    mine.live += 1;
                }
                Verdict::Drop(_) => mine_drops.push(f as u64),
                Verdict::DropPair { victim } => {
                    let v = &mut mine.q[victim];
                    assert!(v.2 && v.0 == f as u64, "pair drop of another flow");
                    v.2 = false;
                    mine.live -= 1;
                    mine_drops.extend([f as u64, f as u64]);
                    mine.pop_dead();
                    if mine.live == 0 {
                        d.on_empty(now);
                    }
                }
            }
            let theirs: Vec<u64> = drops.pkts.iter().map(|(p, _)| p.0 as u64).collect();
            assert_eq!(theirs, mine_drops, "drops at arrival {t}");
            dropped += theirs.len() as u64;
            drops.clear();
            assert_eq!(q.len_pkts(), mine.live, "queue length at arrival {t}");
            // Serve at 3/4 of the arrival rate, with idle stretches.
            if !(r >> 20).is_multiple_of(4) || (t / 5000) % 2 == 1 {
                let got = q.dequeue(now, &mut drops);
                mine.pop_dead();
                let want = mine.q.pop_front().map(|(f, ce, _)| {
                    mine.live -= 1;
                    (f, ce)
                });
                mine.pop_dead();
                assert_eq!(got.map(|p| (p.0 as u64, p.2)), want, "departure at {t}");
                if want.is_some() && mine.live == 0 {
                    d.on_empty(now);
                }
            }
        }
        // The run exercised the drop paths.
        assert!(
            dropped > 0 && dropped < arrivals,
            "{dropped} of {arrivals} dropped"
        );
    }

    fn red() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 30.0,
            max_p: 0.1,
            w_q: 0.02,
            ..RedParams::default()
        }
    }

    #[test]
    fn deciders_in_front_of_a_users_queue_decide_as_pktlabs_queues() {
        let limit = 60;
        for seed in [1, 2] {
            same_decisions(
                Red::new(red(), limit, 1000, seed).unwrap(),
                RedDecider::new(red(), limit, 1000, seed).unwrap(),
                limit,
                seed,
            );
            let ns = RedParams { ns: true, ..red() };
            same_decisions(
                Red::new(ns.clone(), limit, 1000, seed).unwrap(),
                RedDecider::new(ns, limit, 1000, seed).unwrap(),
                limit,
                seed,
            );
            let sp = SredParams {
                m: 50,
                flow_key: FlowKey::FiveTuple,
                ..SredParams::default()
            };
            same_decisions(
                Sred::new(sp.clone(), limit, seed).unwrap(),
                SredDecider::new(&sp, limit, seed).unwrap(),
                limit,
                seed,
            );
            let zp = ZlRedParams {
                sred: sp.clone(),
                a: 2.0,
                ..ZlRedParams::default()
            };
            same_decisions(
                ZlRed::new(zp.clone(), limit, seed).unwrap(),
                ZlRedDecider::new(zp, limit, seed).unwrap(),
                limit,
                seed,
            );
            same_decisions(
                Choke::new(red(), limit, 1000, seed).unwrap(),
                ChokeDecider::new(red(), limit, 1000, seed).unwrap(),
                limit,
                seed,
            );
        }
    }

    #[test]
    fn verdicts_follow_the_queue_state() {
        // A full queue is a forced drop whatever the decider's state.
        let mut z = ZlRedDecider::new(ZlRedParams::default(), 10, 1).unwrap();
        let a = Arrival {
            flow: 1,
            ecn_capable: false,
            now: 0,
        };
        assert_eq!(
            z.decide(&a, &QueueState { len: 10, limit: 10 }),
            Verdict::Drop(DropKind::Forced)
        );
        // Below th_min nothing is dropped early.
        for _ in 0..100 {
            assert_eq!(
                z.decide(&a, &QueueState { len: 0, limit: 10 }),
                Verdict::Enqueue
            );
        }
        assert_eq!(early(true, true), Verdict::Mark);
        assert_eq!(early(true, false), Verdict::Drop(DropKind::Early));
        assert_eq!(early(false, true), Verdict::Enqueue);
    }
}
