//! ZL-RED — Zombie Listed RED (Kurata, Hasegawa & Murata, paper 002, §3 eqs. (4)–(7), and
//! §5.2.3 for the O(1) occurrence table).
//!
//! ZL-RED keeps SRED's zombie list ([`super::sred`]) and, per arrival:
//! * **Total Occurrence** `T = Σ_zombies (count+1)`, kept incrementally (+1 on an append or a
//!   hit; `+1 − (old_count+1)` on a swap; unchanged on a miss);
//! * **Occurrence** `F = Σ_{zombies of the arrival's flow} (count+1)`, read from a table of
//!   `2m` slots with closed hashing keyed on the flow id ([`super::occurrence`]: buckets of
//!   eight slots, branch-free within the bucket): a hit or an append updates
//!   one slot, a swap two (§5.2.3). Each zombie remembers the table slot of its flow, so a
//!   hit and the overwritten zombie of a swap update their slot directly; only the
//!   arrival's own flow is looked up by hashing;
//! * eq. (7): `p1'` as SRED's eq. (1) but with a constant `th_min` instead of `B/6`;
//!   eqs. (2)–(3) give `p3`;
//! * eq. (4): the flow is mis-behaving if `F > T·P(t)`;
//! * eq. (5): `p4 = p3 · F/(T·P)`, times `a ≥ 1` if mis-behaving (P = 0: `p4 = p3`);
//! * eq. (6): `p5 = p4 · p3 / P_avg`, with `P_avg` the running average of `p4` over arrivals
//!   where `p3 > 0` (an EWMA of weight `w_avg`), so the average drop rate stays SRED's
//!   (`P_avg = 0`: `p5 = p4`); `p5` is clamped at 1.
//!
//! Interpretation choices (the paper does not fix them): `F` and `T` are read after the
//! arrival updated the zombie list (so they count it), and `P_avg` averages `p4` (not `p5`),
//! which is the reading under which eq. (6) preserves SRED's mean drop probability.

use super::decide::{early, Arrival, Decide, QueueView, Verdict};
use super::fifo::Fifo;
pub use super::occurrence::OccurrenceTable;
use super::occurrence::Slot;
use super::sred::{p3_nonzero, Draw, FlowKey, SredParams, Steps, ZombieEvent, ZombieList};
use super::{Aqm, AqmError, AqmPacket, DropKind, Drops, Nanos};
use crate::util::SplitMix64;

/// ZL-RED parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ZlRedParams {
    /// The SRED part (m, p_max, p_swap, α, flow key).
    pub sred: SredParams,
    /// Mis-behaving multiplier a ≥ 1 (eq. 5).
    pub a: f64,
    /// Constant threshold th_min of eq. (7), packets (paper 002: 5).
    pub th_min: f64,
    /// EWMA weight of P_avg (eq. 6).
    pub w_avg: f64,
}

impl Default for ZlRedParams {
    /// Paper 002: SRED defaults, a = 1, th_min = 5; w_avg = 0.001.
    fn default() -> Self {
        ZlRedParams {
            sred: SredParams::default(),
            a: 1.0,
            th_min: 5.0,
            w_avg: 0.001,
        }
    }
}

impl ZlRedParams {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), AqmError> {
        const D: &str = "zlred";
        self.sred.validate().map_err(|e| e.within(D))?;
        if !(self.a >= 1.0 && self.a.is_finite()) {
            return Err(AqmError::range(D, "a must be >= 1", self.a));
        }
        if !(self.th_min >= 0.0 && self.th_min.is_finite()) {
            return Err(AqmError::range(D, "th_min must be >= 0", self.th_min));
        }
        if !(self.w_avg > 0.0 && self.w_avg <= 1.0) {
            return Err(AqmError::range(D, "w_avg must be in (0, 1]", self.w_avg));
        }
        Ok(())
    }
}

/// ZL-RED's drop decision (eqs. (4)–(7)) for arrivals at any queue ([`super::decide`]):
/// the zombie list, the occurrence table, T, P_avg and the random draw (one per arrival, as
/// SRED's), without the packets.
#[derive(Clone, Debug)]
pub struct ZlRedDecider {
    params: ZlRedParams,
    zl: ZombieList,
    table: OccurrenceTable,
    /// Per zombie (by its index in the list), the table slot of its flow's occurrence: valid
    /// while the zombie lives, since its own count keeps the entry above zero.
    slots: Vec<Slot>,
    total: u64,
    p_avg: f64,
    /// Eq. (7)'s thresholds th_min and B/3, computed once.
    steps: Steps,
    /// `1 − w_avg`, computed once.
    keep_avg: f64,
    /// Eq. (5)'s factor for a well-behaving (`[0]`, 1) and a mis-behaving (`[1]`, a) flow.
    mult: [f64; 2],
    rng: SplitMix64,
    last_p: f64,
    last_misbehaving: bool,
}

impl ZlRedDecider {
    /// ZL-RED's decider for a buffer of B = `limit` packets (the flow key of `params` is the
    /// queue's business: arrivals bring their id).
    pub fn new(params: ZlRedParams, limit: usize, seed: u64) -> Result<Self, AqmError> {
        params.validate()?;
        if limit == 0 {
            return Err(AqmError::EmptyBuffer("zlred"));
        }
        let s = &params.sred;
        let alpha = s.alpha.unwrap_or(1.0 / s.m as f64);
        Ok(ZlRedDecider {
            zl: ZombieList::new(s.m, s.p_swap, alpha).map_err(|e| e.within("zlred"))?,
            table: OccurrenceTable::new(s.m),
            slots: vec![0; s.m],
            total: 0,
            p_avg: 0.0,
            steps: Steps::new(params.th_min, limit as f64 / 3.0, s.p_max),
            keep_avg: 1.0 - params.w_avg,
            mult: [1.0, params.a],
            rng: SplitMix64::new(seed ^ 0x5A4C_5245),
            last_p: 0.0,
            last_misbehaving: false,
            params,
        })
    }

    /// Total Occurrence T.
    pub fn total_occurrence(&self) -> u64 {
        self.total
    }

    /// Occurrence F of flow `id`.
    pub fn occurrence(&self, id: u64) -> u64 {
        self.table.get(id)
    }

    /// The zombie list.
    pub fn zombies(&self) -> &ZombieList {
        &self.zl
    }

    /// p5 applied to the last arrival.
    pub fn last_p(&self) -> f64 {
        self.last_p
    }

    /// Whether the last arrival's flow was judged mis-behaving (eq. 4).
    pub fn last_misbehaving(&self) -> bool {
        self.last_misbehaving
    }

    /// Updates the zombie list, T and the occurrence table for an arrival of `id` (with the
    /// zombie half `u` of its draw); returns whether it was a hit, and the arrival's
    /// occurrence F (after the update: one table access serves both the update and eq. (4)).
    /// A miss changes no count; it reads F only if `READ_F` (the caller knows from the queue
    /// length whether eq. (4) will need F), else returns 0.
    #[inline(always)]
    fn observe<const READ_F: bool>(&mut self, id: u64, u: u32) -> (bool, u64) {
        // `slot` < m = `slots.len()`: the zombie list holds at most m zombies.
        match self.zl.arrive(id, u) {
            ZombieEvent::Added { slot } => {
                self.total += 1;
                let (f, at) = self.table.add_slot(id, 1);
                *self.slot_of(slot) = at;
                (false, f)
            }
            ZombieEvent::Hit { slot } => {
                self.total += 1;
                let at = *self.slot_of(slot);
                (true, self.table.add_at(at, id, 1))
            }
            ZombieEvent::Swapped {
                slot,
                old_id,
                old_count,
            } => {
                self.total -= old_count;
                let old_at = *self.slot_of(slot);
                self.table.sub_at(old_at, old_id, old_count + 1);
                let (f, at) = self.table.add_slot(id, 1);
                *self.slot_of(slot) = at;
                (false, f)
            }
            ZombieEvent::Miss => (false, if READ_F { self.table.get(id) } else { 0 }),
        }
    }

    /// The table slot of the zombie at index `z` of the list.
    #[inline(always)]
    fn slot_of(&mut self, z: usize) -> &mut Slot {
        debug_assert!(z < self.slots.len());
        // SAFETY: `z` is an index the zombie list gave for an arrival, so below its length,
        // which is at most m = `slots.len()` (both sized from `params.sred.m` in `new`).
        unsafe { self.slots.get_unchecked_mut(z) }
    }

    /// Eqs. (4)–(6) for an arrival whose flow has occurrence `f`, with SRED probability
    /// `p3 > 0` (unclamped).
    #[inline]
    fn p5(&mut self, f: u64, p3: f64) -> f64 {
        debug_assert!(p3 > 0.0);
        let p = self.zl.p();
        // T and F are far below 2^63 (each arrival adds at most 1), where the signed
        // conversion is exact and one instruction (the unsigned one is a branchy sequence).
        debug_assert!(self.total < 1 << 63 && f <= self.total);
        let tp = self.total as i64 as f64 * p;
        // T ≥ 1 here (the list holds the arrival's zombie or others; T = Σ(count+1)), so
        // T·P > 0 exactly when P > 0 (P ≥ 0; T·P ≥ P when T ≥ 1, rounding is monotonic):
        // testing P, which eqs. (2)–(3) just tested, lets the two tests be one branch.
        debug_assert!(self.total >= 1 && (tp > 0.0) == (p > 0.0));
        let p4 = if p > 0.0 {
            let f = f as i64 as f64;
            let mis = f > tp;
            self.last_misbehaving = mis;
            // × a if mis-behaving: a two-entry table, not a branch (mis-behaviour is data).
            p3 * (f / tp) * self.mult[mis as usize]
        } else {
            self.last_misbehaving = false;
            p3
        };
        let w = self.params.w_avg;
        self.p_avg = self.keep_avg * self.p_avg + w * p4;
        if self.p_avg > 0.0 {
            p4 * p3.min(1.0) / self.p_avg
        } else {
            p4
        }
    }
}

impl Decide for ZlRedDecider {
    #[inline(always)]
    fn decide<Q: QueueView + ?Sized>(&mut self, a: &Arrival, q: &Q) -> Verdict {
        let len = q.len();
        let r = Draw::next(&mut self.rng);
        if self.steps.zero(len) {
            // p1 = 0 (the queue is below th_min, eq. 7; one integer compare): p3 = 0, so no
            // early drop, P_avg unchanged, and F is not needed. A branch that follows the
            // queue length, so well predicted (a data plane's queue is mostly here).
            self.observe::<false>(a.flow, r.zombie());
            self.last_p = 0.0;
            self.last_misbehaving = false;
            return if len >= q.limit() {
                Verdict::Drop(DropKind::Forced)
            } else {
                Verdict::Enqueue
            };
        }
        let (hit, f) = self.observe::<true>(a.flow, r.zombie());
        let p1 = self.steps.p1_nonzero(len);
        // p1 > 0 gives p3 ≥ p1 · min(1, 1/(256P)²) > 0.
        let p3 = p3_nonzero(p1, self.zl.p(), hit);
        let p = self.p5(f, p3).min(1.0);
        self.last_p = p;
        if len >= q.limit() {
            return Verdict::Drop(DropKind::Forced);
        }
        // No branch on p > 0, which is data here (F = 0 gives p = 0): p = 0 never drops.
        early(r.drop_below(p), a.ecn_capable)
    }
}

/// A ZL-RED queue: a FIFO behind a [`ZlRedDecider`].
#[derive(Debug)]
pub struct ZlRed<P> {
    d: ZlRedDecider,
    key: FlowKey,
    fifo: Fifo<P>,
    limit: usize,
}

impl<P: AqmPacket> ZlRed<P> {
    /// A ZL-RED queue with buffer B = `limit` packets.
    pub fn new(params: ZlRedParams, limit: usize, seed: u64) -> Result<Self, AqmError> {
        Ok(ZlRed {
            key: params.sred.flow_key,
            d: ZlRedDecider::new(params, limit, seed)?,
            fifo: Fifo::new(limit),
            limit,
        })
    }

    /// The decider (T, F, P_avg, the zombie list).
    pub fn decider(&self) -> &ZlRedDecider {
        &self.d
    }

    /// Total Occurrence T.
    pub fn total_occurrence(&self) -> u64 {
        self.d.total_occurrence()
    }

    /// Occurrence F of flow `id`.
    pub fn occurrence(&self, id: u64) -> u64 {
        self.d.occurrence(id)
    }

    /// The zombie list.
    pub fn zombies(&self) -> &ZombieList {
        self.d.zombies()
    }

    /// p5 applied to the last arrival.
    pub fn last_p(&self) -> f64 {
        self.d.last_p()
    }

    /// Whether the last arrival's flow was judged mis-behaving (eq. 4).
    pub fn last_misbehaving(&self) -> bool {
        self.d.last_misbehaving()
    }
}

impl<P: AqmPacket> Aqm<P> for ZlRed<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.fifo.stats.arrivals += 1;
        let (d, key) = (&mut self.d, self.key);
        self.fifo.admit(pkt, self.limit, drops, |p, q| {
            let a = Arrival {
                flow: key.of(p),
                ecn_capable: p.ecn_capable(),
                now,
            };
            d.decide(&a, &q)
        });
    }
    super::fifo::fifo_plumbing!();
    fn name(&self) -> &'static str {
        "zlred"
    }
    fn flow_estimate(&self) -> Option<f64> {
        Some(self.d.zombies().flow_estimate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueState;
    use std::collections::HashMap;

    use crate::aqm::TestPkt as Pk;

    fn brute(zl: &ZombieList) -> (u64, HashMap<u64, u64>) {
        let mut f = HashMap::new();
        let mut t = 0;
        for z in zl.zombies() {
            t += z.count + 1;
            *f.entry(z.id).or_insert(0) += z.count + 1;
        }
        (t, f)
    }

    #[test]
    fn total_and_occurrence_match_brute_force_after_every_arrival() {
        for (m, flows, p_swap) in [(10usize, 30u64, 0.25), (100, 40, 0.25), (64, 500, 1.0)] {
            let params = ZlRedParams {
                sred: SredParams {
                    m,
                    p_swap,
                    flow_key: FlowKey::FiveTuple,
                    ..SredParams::default()
                },
                a: 2.0,
                ..ZlRedParams::default()
            };
            let mut q = ZlRed::new(params, 50, 9).unwrap();
            let mut d = Drops::default();
            let mut x = SplitMix64::new(m as u64);
            for t in 0..20_000u64 {
                // Skewed flow mix: a few heavy flows and many light ones.
                let r = x.next_u64();
                let id = if r.is_multiple_of(3) {
                    r % 4
                } else {
                    r % flows
                };
                q.enqueue(Pk(id as u32), t, &mut d);
                d.clear();
                if t % 2 == 0 {
                    q.dequeue(t, &mut d);
                }
                let (bt, bf) = brute(q.zombies());
                assert_eq!(q.total_occurrence(), bt, "T at arrival {t}");
                assert_eq!(q.d.table.len(), bf.len(), "live flows at arrival {t}");
                for (&k, &v) in &bf {
                    assert_eq!(q.occurrence(k), v, "F({k}) at arrival {t}");
                }
                assert_eq!(q.occurrence(id), bf.get(&id).copied().unwrap_or(0));
            }
        }
    }

    #[test]
    fn heavy_flow_is_misbehaving_and_dropped_more() {
        // Flow 0 sends half the packets, 20 others share the rest; queue held above th_min.
        let params = ZlRedParams {
            a: 4.0,
            ..ZlRedParams::default()
        };
        let mut q = ZlRed::new(params, 10_000, 5).unwrap();
        let mut d = Drops::default();
        let mut x = SplitMix64::new(1);
        let (mut arr, mut dr) = ([0u64; 2], [0u64; 2]);
        for t in 0..300_000u64 {
            let id = if x.next_u64().is_multiple_of(2) {
                0
            } else {
                1 + (x.next_u64() % 20) as u32
            };
            q.enqueue(Pk(id), t, &mut d);
            let c = (id != 0) as usize;
            if t > 100_000 {
                arr[c] += 1;
                dr[c] += d.pkts.len() as u64;
            }
            d.clear();
            while q.len_pkts() > 500 {
                q.dequeue(t, &mut d);
            }
        }
        let (l0, l1) = (dr[0] as f64 / arr[0] as f64, dr[1] as f64 / arr[1] as f64);
        assert!(l0 > 3.0 * l1, "heavy {l0} vs light {l1}");
    }

    /// ZL-RED written straight from the paper's equations, for one arrival at a time: a
    /// plain zombie vector, F and T summed over it, the same draw split as the decider
    /// ([`Draw`]: the high half picks the zombie and decides the swap, the low half the early
    /// drop). The oracle of `decisions_match_the_plain_equations`.
    struct Plain {
        p: ZlRedParams,
        limit: usize,
        z: Vec<(u64, u64)>,
        hit_freq: f64,
        p_avg: f64,
        rng: SplitMix64,
    }

    impl Plain {
        /// Decision and p5 for an arrival of `id` at a queue of `len` packets.
        fn arrive(&mut self, id: u64, len: usize, ecn: bool) -> (Verdict, f64) {
            let s = &self.p.sred;
            let m = s.m;
            let alpha = s.alpha.unwrap_or(1.0 / m as f64);
            let r = self.rng.next_u64();
            let (hi, lo) = (r >> 32, r as u32);
            let mut hit = false;
            if self.z.len() < m {
                self.z.push((id, 0));
            } else {
                let slot = ((hi * m as u64) >> 32) as usize;
                let rest = (hi * m as u64) as u32;
                if self.z[slot].0 == id {
                    self.z[slot].1 += 1;
                    hit = true;
                    self.hit_freq = (1.0 - alpha) * self.hit_freq + alpha;
                } else {
                    self.hit_freq *= 1.0 - alpha;
                    if (rest as f64) < s.p_swap * 2f64.powi(32) {
                        self.z[slot] = (id, 0);
                    }
                }
            }
            let big_p = self.hit_freq;
            // Eq. (7): th_min constant, B/3.
            let q = len as f64;
            let p1 = if q < self.p.th_min {
                0.0
            } else if q < self.limit as f64 / 3.0 {
                s.p_max / 4.0
            } else {
                s.p_max
            };
            if p1 == 0.0 {
                let v = if len >= self.limit {
                    Verdict::Drop(DropKind::Forced)
                } else {
                    Verdict::Enqueue
                };
                return (v, 0.0);
            }
            // Eqs. (2)–(3).
            let p2 = if big_p > 0.0 {
                p1 * (1.0f64).min(1.0 / (256.0 * big_p).powi(2))
            } else {
                p1
            };
            let p3 = if hit && big_p > 0.0 {
                p2 * (1.0 + 1.0 / big_p)
            } else {
                p2
            };
            // Eqs. (4)–(6), F and T summed over the list.
            let t: u64 = self.z.iter().map(|z| z.1 + 1).sum();
            let f: u64 = self.z.iter().filter(|z| z.0 == id).map(|z| z.1 + 1).sum();
            let tp = t as f64 * big_p;
            let p4 = if tp > 0.0 {
                let a = if f as f64 > tp { self.p.a } else { 1.0 };
                p3 * (f as f64 / tp) * a
            } else {
                p3
            };
            self.p_avg = (1.0 - self.p.w_avg) * self.p_avg + self.p.w_avg * p4;
            let p5 = if self.p_avg > 0.0 {
                p4 * p3.min(1.0) / self.p_avg
            } else {
                p4
            };
            let p = p5.min(1.0);
            if len >= self.limit {
                return (Verdict::Drop(DropKind::Forced), p);
            }
            let u = lo as f64 / 2f64.powi(32);
            (early(u < p, ecn), p)
        }
    }

    /// The decider's fast paths (occurrence table, slots kept per zombie, integer
    /// thresholds, branch-free draw) against [`Plain`]: the same verdict for every arrival,
    /// and p5 equal to rounding, over queues that fill, overflow and drain, with ECN.
    #[test]
    fn decisions_match_the_plain_equations() {
        for (m, a, limit, flows, seed) in [
            (1000usize, 1.0, 5000usize, 1000u64, 1u64),
            (10, 4.0, 40, 40, 2),
            (50, 2.0, 60, 12, 3),
            (100, 8.0, 300, 100_000, 4),
        ] {
            let params = ZlRedParams {
                sred: SredParams {
                    m,
                    flow_key: FlowKey::FiveTuple,
                    ..SredParams::default()
                },
                a,
                ..ZlRedParams::default()
            };
            let mut d = ZlRedDecider::new(params.clone(), limit, seed).unwrap();
            let mut plain = Plain {
                p: params,
                limit,
                z: Vec::new(),
                hit_freq: 0.0,
                p_avg: 0.0,
                rng: SplitMix64::new(seed ^ 0x5A4C_5245),
            };
            let mut x = SplitMix64::new(seed);
            let mut len = 0usize;
            let mut early_drops = 0;
            for i in 0..60_000u64 {
                let r = x.next_u64();
                let id = if r.is_multiple_of(3) {
                    r % 4
                } else {
                    (r >> 8) % flows
                };
                let ecn = r >> 63 == 1;
                let arrival = Arrival {
                    flow: id,
                    ecn_capable: ecn,
                    now: i,
                };
                let got = d.decide(&arrival, &QueueState { len, limit });
                let (want, p) = plain.arrive(id, len, ecn);
                assert_eq!(got, want, "m={m} arrival {i}");
                let lp = d.last_p();
                assert!(
                    (lp - p).abs() <= 1e-12 * p.max(1e-300),
                    "arrival {i}: {lp} vs {p}"
                );
                early_drops += (got == Verdict::Drop(DropKind::Early)) as u64;
                if !matches!(got, Verdict::Drop(_)) {
                    len += 1;
                }
                // Departures: a little slower than arrivals, with a drain every 8,192.
                let out = if (i >> 13) % 4 == 3 {
                    2
                } else {
                    (i % 5 != 4) as usize
                };
                len = len.saturating_sub(out);
            }
            assert!(
                early_drops > 0,
                "m={m}: the early-drop path was never taken"
            );
        }
    }

    /// FNV-1a over every observable of a ZL-RED queue driven by `n` arrivals of `flows`
    /// sparse flow ids (a third ECN-capable): each arrival's drops (flow, kind), p5's bits,
    /// the mis-behaving verdict, T, P(t)'s bits and the queue length, and every departure
    /// (flow, seq, CE). `serve` departures follow each arrival but every fifth; every
    /// `idle`-th block of 4,096 arrivals the queue drains (below th_min, the other branch).
    fn decision_digest(params: ZlRedParams, limit: usize, flows: u64, n: u64, idle: u64) -> u64 {
        use crate::netsim::{ecn, Packet, PktKind};
        let mut h = crate::util::Fnv1a::default();
        let mut eat = |x: u64| h.eat(x);
        let mut q = ZlRed::new(params, limit, 11).unwrap();
        let mut d = Drops::default();
        let mut x = SplitMix64::new(flows ^ n);
        for i in 0..n {
            let r = x.next_u64();
            let pk = Packet {
                flow: crate::util::splitmix64(r % flows) as u32,
                seq: i as u32,
                size: 1040,
                kind: PktKind::Data,
                ecn: if r >> 62 == 0 { ecn::ECT } else { 0 },
                enq_at: 0,
            };
            q.enqueue(pk, i, &mut d);
            for (p, k) in &d.pkts {
                eat(p.flow as u64 ^ (p.seq as u64) << 32);
                eat(*k as u64);
            }
            d.clear();
            eat(q.last_p().to_bits());
            eat(q.last_misbehaving() as u64);
            eat(q.total_occurrence());
            eat(q.zombies().p().to_bits());
            eat(q.len_pkts() as u64 ^ q.len_bytes() << 32);
            let drain = idle > 0 && (i >> 12) % idle == idle - 1;
            let out = if drain { 3 } else { (i % 5 != 4) as u32 };
            for _ in 0..out {
                if let Some(p) = q.dequeue(i, &mut d) {
                    eat(p.flow as u64 ^ (p.seq as u64) << 32 ^ (p.ecn as u64) << 60);
                }
            }
        }
        let s = q.stats();
        for c in [
            s.arrivals,
            s.forced_drops,
            s.early_drops,
            s.departures,
            s.marks,
        ] {
            eat(c);
        }
        h.finish()
    }

    /// The decisions, counts and departures of ZL-RED on fixed inputs, pinned: the
    /// per-arrival fast paths (zombie list, occurrence table, draws, FIFO) must keep every
    /// decision bit for bit. The digests are those of the one-draw stream ([`Draw`]), taken
    /// when it replaced three draws per arrival; `decisions_match_the_plain_equations` holds
    /// the same decisions to the equations.
    #[test]
    fn decisions_are_pinned() {
        let five = |m: usize, a: f64| ZlRedParams {
            sred: SredParams {
                m,
                flow_key: FlowKey::FiveTuple,
                ..SredParams::default()
            },
            a,
            ..ZlRedParams::default()
        };
        let cases = [
            // `pktlab aqm bench`'s regime: B = 5000, a full queue, 1,000 and 100,000 flows.
            (ZlRedParams::default(), 5000, 1000, 200_000, 0),
            (ZlRedParams::default(), 5000, 100_000, 200_000, 0),
            // A short queue that drains now and then; a = 2 and 4; small and large m
            // (m = 10 keeps the occurrence table's overflow chains busy).
            (five(50, 2.0), 60, 12, 100_000, 3),
            (five(10, 4.0), 40, 40, 100_000, 2),
            (five(10_000, 2.0), 3000, 30_000, 150_000, 4),
        ];
        let got: Vec<u64> = cases
            .into_iter()
            .map(|(p, limit, flows, n, idle)| decision_digest(p, limit, flows, n, idle))
            .collect();
        assert_eq!(got, DECISION_DIGESTS);
    }

    /// Digests of the cases of `decisions_are_pinned`, in order.
    const DECISION_DIGESTS: [u64; 5] = [
        0x3fbd_e9fd_f01b_c0a3,
        0x11d8_da31_18fc_4ef2,
        0xd2b5_a9cf_7025_9e60,
        0xc62f_3fba_0b7b_0f05,
        0x0153_de3b_fdcf_26ae,
    ];

    #[test]
    fn bad_parameters_are_errors() {
        for p in [
            ZlRedParams {
                a: 0.5,
                ..ZlRedParams::default()
            },
            ZlRedParams {
                th_min: -1.0,
                ..ZlRedParams::default()
            },
            ZlRedParams {
                w_avg: 0.0,
                ..ZlRedParams::default()
            },
        ] {
            assert!(ZlRed::<Pk>::new(p, 10, 1).is_err());
        }
        assert!(ZlRed::<Pk>::new(ZlRedParams::default(), 0, 1).is_err());
    }
}
