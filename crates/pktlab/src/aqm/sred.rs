//! SRED — Stabilized RED (Ott, Lakshman & Wong, "SRED: Stabilized RED", IEEE INFOCOM 1999,
//! §II–III), in the simplified form restated by paper 002 (Kurata, Hasegawa & Murata), §2,
//! eqs. (1)–(3).
//!
//! The router keeps a **zombie list** of `m` entries (flow id, count, timestamp). On every
//! arrival: while the list has room the arrival becomes a new zombie (count 0, no comparison);
//! otherwise one zombie is picked uniformly at random — same flow id → *hit*, count += 1;
//! different → with probability `p_swap` the zombie is overwritten by the arrival (count 0).
//! The hit frequency `P(t) ← (1−α)·P(t) + α·Hit(t)` (α = 1/m by default, updated on every
//! comparison) estimates 1/(number of active flows). The drop probability is
//!
//! * (1) `p1 = 0` if `q < B/6`, `p_max/4` if `B/6 ≤ q < B/3`, `p_max` if `q ≥ B/3`
//!   (`q` = instantaneous queue at the arrival, `B` = buffer);
//! * (2) `p2 = p1 · min(1, 1/(256·P)²)` (P = 0 is read as "min(…) = 1");
//! * (3) `p3 = p2 · (1 + Hit/P)` (the `Hit/P` term is 0 when P = 0), clamped at 1.
//!
//! The zombie list is updated before the drop decision, so `Hit` and `P` include the arrival.
//! A full buffer drops the arrival (forced). Flow ids are either the (source, destination) pair
//! of paper 002 ([`FlowKey::SrcDst`], [`AqmPacket::src_dst`]) or the 5-tuple
//! ([`FlowKey::FiveTuple`], [`AqmPacket::flow`]).

use super::decide::{early, Arrival, Decide, QueueView, Verdict};
use super::fifo::Fifo;
use super::{Aqm, AqmError, AqmPacket, DropKind, Drops, Nanos};
use crate::util::SplitMix64;

/// Which packet fields form the flow id of the zombie list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKey {
    /// Source and destination addresses (paper 002, §5.2.3: a 64-bit id).
    SrcDst,
    /// The 5-tuple (the packet's [`AqmPacket::flow`]).
    FiveTuple,
}

impl FlowKey {
    /// The id of `p` under this key.
    #[inline]
    pub fn of<P: AqmPacket>(self, p: &P) -> u64 {
        match self {
            FlowKey::SrcDst => p.src_dst(),
            FlowKey::FiveTuple => p.flow() as u64,
        }
    }
}

/// SRED parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SredParams {
    /// Zombie list size m (paper 002: 1000; also 10, 100, 10000).
    pub m: usize,
    /// Maximum drop probability p_max (paper 002: 0.15).
    pub p_max: f64,
    /// Probability of overwriting a non-matching zombie (paper 002: 0.25).
    pub p_swap: f64,
    /// Weight α of the hit-frequency average; `None` = 1/m (the SRED paper's choice).
    pub alpha: Option<f64>,
    /// Flow id used in the zombie list.
    pub flow_key: FlowKey,
}

impl Default for SredParams {
    /// Paper 002's values: m = 1000, p_max = 0.15, p_swap = 0.25, α = 1/m, (src, dst) ids.
    fn default() -> Self {
        SredParams {
            m: 1000,
            p_max: 0.15,
            p_swap: 0.25,
            alpha: None,
            flow_key: FlowKey::SrcDst,
        }
    }
}

impl SredParams {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), AqmError> {
        if !(self.p_max > 0.0 && self.p_max <= 1.0) {
            return Err(AqmError::range(
                "sred",
                "p_max must be in (0, 1]",
                self.p_max,
            ));
        }
        ZombieList::check(self.m, self.p_swap, self.alpha.unwrap_or(1.0))
    }
}

/// One zombie: a recently seen flow. (SRED's zombies may also carry a timestamp, for aging
/// variants; eqs. (1)–(3) never read it, so it is not kept: 16-byte zombies leave more of L1
/// to the occurrence table and the queue.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zombie {
    /// Flow id.
    pub id: u64,
    /// Hits since the zombie was (re)written.
    pub count: u64,
}

/// What an arrival did to the zombie list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZombieEvent {
    /// The list had room: a new zombie (count 0) was appended at `slot`.
    Added {
        /// Index of the new zombie.
        slot: usize,
    },
    /// The random zombie at `slot` had the arrival's flow id: its count grew by one.
    Hit {
        /// Index of the zombie.
        slot: usize,
    },
    /// No hit; the zombie at `slot` (flow `old_id`, count `old_count`) was overwritten.
    Swapped {
        /// Index of the zombie.
        slot: usize,
        /// The overwritten zombie's flow id.
        old_id: u64,
        /// The overwritten zombie's count.
        old_count: u64,
    },
    /// No hit and no swap.
    Miss,
}

/// SRED's zombie list with its hit-frequency estimator P(t).
#[derive(Clone, Debug)]
pub struct ZombieList {
    z: Vec<Zombie>,
    m: usize,
    /// `p_swap · 2^32`, rounded up: a 32-bit `v < swap_below` ⇔ `v · 2^-32 < p_swap`.
    swap_below: u64,
    alpha: f64,
    /// `1 − α`, computed once (the same f64 the per-arrival expression produced).
    keep: f64,
    p: f64,
}

/// `u · m = slot · 2^32 + rest` for a 32-bit `u`: the zombie `slot < m` and the value `rest`
/// that decides the swap ([`ZombieList::arrive`]).
#[inline(always)]
fn pick(u: u32, m: usize) -> (usize, u32) {
    let um = u as u64 * m as u64;
    ((um >> 32) as usize, um as u32)
}

/// The largest zombie list: the slot and the swap come from 32 random bits
/// ([`ZombieList::arrive`]), whose relative bias is below `m / 2^32` (2.4 · 10^-4 here).
pub const MAX_ZOMBIES: usize = 1 << 20;

/// One arrival's random draw (64 bits), split in two independent halves: the high half picks
/// the zombie and decides the swap ([`ZombieList::arrive`]), the low half decides the early
/// drop ([`Draw::drop_below`]). One draw per arrival, whatever the arrival does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Draw(pub(crate) u64);

impl Draw {
    /// The next draw of `rng` (one per arrival).
    #[inline(always)]
    pub(crate) fn next(rng: &mut SplitMix64) -> Draw {
        Draw(rng.next_u64())
    }

    /// The zombie half (the high 32 bits).
    #[inline(always)]
    pub(crate) fn zombie(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// Whether the drop half (the low 32 bits), read as a uniform `v · 2^-32` in [0, 1), is
    /// below `p`: true with probability `p` rounded up to a multiple of 2^-32 (never for
    /// `p = 0`, always for `p ≥ 1`).
    #[inline(always)]
    pub(crate) fn drop_below(self, p: f64) -> bool {
        // Exact: a 32-bit integer and its product with a power of two are exact in f64.
        (self.0 as u32) as f64 * (1.0 / (1u64 << 32) as f64) < p
    }
}

impl ZombieList {
    /// Checks a zombie list's parameters: `m` in 1..=[`MAX_ZOMBIES`], `p_swap` and `alpha` in
    /// (0, 1].
    fn check(m: usize, p_swap: f64, alpha: f64) -> Result<(), AqmError> {
        const D: &str = "sred";
        if m == 0 || m > MAX_ZOMBIES {
            return Err(AqmError::range(
                D,
                "zombie list size m must be in 1..=2^20",
                m,
            ));
        }
        if !(p_swap > 0.0 && p_swap <= 1.0) {
            return Err(AqmError::range(D, "p_swap must be in (0, 1]", p_swap));
        }
        if !(alpha > 0.0 && alpha <= 1.0) {
            return Err(AqmError::range(D, "alpha must be in (0, 1]", alpha));
        }
        Ok(())
    }

    /// An empty list of capacity `m` (parameters as in [`SredParams`]: `m` in
    /// 1..=[`MAX_ZOMBIES`], `p_swap` and `alpha` in (0, 1], else an error).
    pub fn new(m: usize, p_swap: f64, alpha: f64) -> Result<Self, AqmError> {
        Self::check(m, p_swap, alpha)?;
        Ok(ZombieList {
            z: Vec::with_capacity(m),
            m,
            swap_below: (p_swap * (1u64 << 32) as f64).ceil() as u64,
            alpha,
            keep: 1.0 - alpha,
            p: 0.0,
        })
    }

    /// Processes an arrival of flow `id` with a uniform 32-bit random value `u` (always
    /// inlined: the caller's `match` on the event then compiles to straight branches, with no
    /// event value in memory).
    ///
    /// While the list has room, `u` is not read. Otherwise `u · m = slot · 2^32 + rest`: the
    /// high word picks the zombie (Lemire's multiply-shift), and the low word, which runs
    /// once over [0, 2^32) in steps of `m` as `u` runs over one slot's values, decides the
    /// swap (`rest < ⌈p_swap · 2^32⌉`). Both are uniform up to a relative bias below
    /// `m / 2^32` (2.3 · 10^-7 at m = 1000), and one draw serves both.
    #[inline(always)]
    pub fn arrive(&mut self, id: u64, u: u32) -> ZombieEvent {
        if self.z.len() < self.m {
            self.z.push(Zombie { id, count: 0 });
            return ZombieEvent::Added {
                slot: self.z.len() - 1,
            };
        }
        let (slot, rest) = pick(u, self.m);
        debug_assert!(slot < self.z.len());
        // SAFETY: the high word of `u · m` for a 32-bit `u` is < m, and the list is full
        // here (`z.len() == m >= 1`: checked above, and `new` refuses m = 0, for which
        // slot 0 of the empty list would be read).
        let zb = unsafe { self.z.get_unchecked_mut(slot) };
        if zb.id == id {
            zb.count += 1;
            self.p = self.keep * self.p + self.alpha;
            ZombieEvent::Hit { slot }
        } else {
            self.p *= self.keep;
            if (rest as u64) < self.swap_below {
                let (old_id, old_count) = (zb.id, zb.count);
                *zb = Zombie { id, count: 0 };
                ZombieEvent::Swapped {
                    slot,
                    old_id,
                    old_count,
                }
            } else {
                ZombieEvent::Miss
            }
        }
    }

    /// The hit frequency P(t).
    pub fn p(&self) -> f64 {
        self.p
    }

    /// The zombies (at most m).
    pub fn zombies(&self) -> &[Zombie] {
        &self.z
    }

    /// 1/P(t), the estimated number of active flows (0 while P = 0).
    pub fn flow_estimate(&self) -> f64 {
        if self.p > 0.0 {
            1.0 / self.p
        } else {
            0.0
        }
    }
}

/// Eq. (1) as integer thresholds on the queue length, computed once: for an integer `q`
/// (exact in f64 below 2^53), `q < t` ⇔ `q < ⌈t⌉`, so [`Steps::p1`] returns exactly what
/// eq. (1) on `q as f64` returns, with no int-to-float conversion per packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Steps {
    th: usize,
    b3: usize,
    quarter: f64,
    p_max: f64,
    /// The least `q` with `p1(q) ≠ 0` (for `p_max > 0`): `th`, or `max(th, b3)` if
    /// `p_max / 4` underflows to 0.
    zero_below: usize,
}

impl Steps {
    /// Thresholds `th` and `b3` (finite, ≥ 0) and the maximum probability `p_max`.
    pub(crate) fn new(th: f64, b3: f64, p_max: f64) -> Steps {
        let up = |t: f64| t.ceil().min(usize::MAX as f64) as usize;
        let (th, b3, quarter) = (up(th), up(b3), p_max / 4.0);
        Steps {
            th,
            b3,
            quarter,
            p_max,
            zero_below: if quarter != 0.0 { th } else { th.max(b3) },
        }
    }

    /// Whether eq. (1) gives `p1(q) = 0` (for `p_max > 0`; with `p_max = 0` every `q`
    /// gives 0): one integer compare.
    #[inline(always)]
    pub(crate) fn zero(&self, q: usize) -> bool {
        q < self.zero_below
    }

    /// Eq. (1) for a queue length `q` where [`Steps::zero`] is false: the same value as
    /// [`Steps::p1`], without its test of `th`.
    #[inline(always)]
    pub(crate) fn p1_nonzero(&self, q: usize) -> f64 {
        debug_assert!(!self.zero(q));
        if q < self.b3 {
            self.quarter
        } else {
            self.p_max
        }
    }

    /// Eq. (1) for queue length `q` (`th` = B/6 for SRED, th_min for ZL-RED's eq. (7)).
    #[inline(always)]
    pub(crate) fn p1(&self, q: usize) -> f64 {
        if q < self.th {
            0.0
        } else if q < self.b3 {
            self.quarter
        } else {
            self.p_max
        }
    }
}

/// Eqs. (2) and (3), unclamped.
#[inline]
pub(crate) fn p3(p1: f64, p: f64, hit: bool) -> f64 {
    if p1 == 0.0 {
        return 0.0;
    }
    p3_nonzero(p1, p, hit)
}

/// Eqs. (2) and (3), unclamped, for `p1 ≠ 0` (what [`p3`] returns then; for a caller that
/// already knows `p1 ≠ 0`, e.g. from [`Steps::zero`]).
#[inline(always)]
pub(crate) fn p3_nonzero(p1: f64, p: f64, hit: bool) -> f64 {
    let p2 = if p > 0.0 {
        let x = 256.0 * p;
        let xx = x * x;
        // min(1, 1/x²) is 1 exactly when x² ≤ 1: skip the division then (same result). A
        // real branch (P moves slowly, so it is well predicted), not a select: a select
        // would put the division on the chain that decides every drop.
        if xx <= 1.0 {
            p1
        } else {
            crate::util::cold_path();
            p1 * (1.0 / xx)
        }
    } else {
        p1
    };
    if hit && p > 0.0 {
        p2 * (1.0 + 1.0 / p)
    } else {
        p2
    }
}

/// SRED's drop decision (eqs. (1)–(3)) for arrivals at any queue ([`super::decide`]): the
/// zombie list, the thresholds and the random draw (one per arrival: its high half for the
/// zombie list, its low half for the early drop), without the packets.
#[derive(Clone, Debug)]
pub struct SredDecider {
    zl: ZombieList,
    /// Eq. (1)'s thresholds B/6 and B/3, computed once.
    steps: Steps,
    rng: SplitMix64,
    last_p: f64,
}

impl SredDecider {
    /// SRED's decider for a buffer of B = `limit` packets (the flow key of `params` is the
    /// queue's business: arrivals bring their id).
    pub fn new(params: &SredParams, limit: usize, seed: u64) -> Result<Self, AqmError> {
        params.validate()?;
        if limit == 0 {
            return Err(AqmError::EmptyBuffer("sred"));
        }
        let alpha = params.alpha.unwrap_or(1.0 / params.m as f64);
        Ok(SredDecider {
            zl: ZombieList::new(params.m, params.p_swap, alpha)?,
            steps: Steps::new(limit as f64 / 6.0, limit as f64 / 3.0, params.p_max),
            rng: SplitMix64::new(seed ^ 0x5352_4544),
            last_p: 0.0,
        })
    }

    /// The zombie list.
    pub fn zombies(&self) -> &ZombieList {
        &self.zl
    }

    /// The drop probability applied to the last arrival (p3, clamped).
    pub fn last_p(&self) -> f64 {
        self.last_p
    }
}

impl Decide for SredDecider {
    #[inline(always)]
    fn decide<Q: QueueView + ?Sized>(&mut self, a: &Arrival, q: &Q) -> Verdict {
        let len = q.len();
        let r = Draw::next(&mut self.rng);
        let ev = self.zl.arrive(a.flow, r.zombie());
        let hit = matches!(ev, ZombieEvent::Hit { .. });
        let p = p3(self.steps.p1(len), self.zl.p(), hit).min(1.0);
        self.last_p = p;
        if len >= q.limit() {
            return Verdict::Drop(DropKind::Forced);
        }
        early(r.drop_below(p), a.ecn_capable)
    }
}

/// An SRED queue: a FIFO behind a [`SredDecider`].
#[derive(Debug)]
pub struct Sred<P> {
    params: SredParams,
    d: SredDecider,
    fifo: Fifo<P>,
    limit: usize,
}

impl<P: AqmPacket> Sred<P> {
    /// An SRED queue with buffer B = `limit` packets.
    pub fn new(params: SredParams, limit: usize, seed: u64) -> Result<Self, AqmError> {
        Ok(Sred {
            d: SredDecider::new(&params, limit, seed)?,
            params,
            fifo: Fifo::new(limit),
            limit,
        })
    }

    /// The zombie list.
    pub fn zombies(&self) -> &ZombieList {
        self.d.zombies()
    }

    /// The drop probability applied to the last arrival (p3, clamped).
    pub fn last_p(&self) -> f64 {
        self.d.last_p()
    }
}

impl<P: AqmPacket> Aqm<P> for Sred<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.fifo.stats.arrivals += 1;
        let a = Arrival {
            flow: self.params.flow_key.of(&pkt),
            ecn_capable: pkt.ecn_capable(),
            now,
        };
        // Decided before the packet is queued (`Fifo::apply`), unlike ZL-RED's `Fifo::admit`:
        // for SRED's shorter decision this takes 4 fewer instructions per arrival
        // (callgrind, `aqm bench --aqm sred --flows 1000`: 134.6 against 138.6).
        let v = self.d.decide(&a, &self.fifo.state(self.limit));
        self.fifo.apply(pkt, v, drops);
    }
    super::fifo::fifo_plumbing!();
    fn name(&self) -> &'static str {
        "sred"
    }
    fn flow_estimate(&self) -> Option<f64> {
        Some(self.d.zombies().flow_estimate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::aqm::TestPkt as Pk;

    #[test]
    fn a_zombie_list_of_no_zombies_is_refused() {
        // Capacity 0 used to be accepted, and the first arrival then indexed the empty list.
        let r = ZombieList::new(0, 0.25, 0.01);
        assert_eq!(
            r.map(|_| ()),
            Err(AqmError::range(
                "sred",
                "zombie list size m must be in 1..=2^20",
                0
            ))
        );
        assert!(ZombieList::new(1, 0.25, 0.01).is_ok());
        assert!(ZombieList::new(MAX_ZOMBIES, 0.25, 0.01).is_ok());
        assert!(ZombieList::new(MAX_ZOMBIES + 1, 0.25, 0.01).is_err());
        assert!(ZombieList::new(4, 0.0, 0.01).is_err());
        assert!(ZombieList::new(4, 0.25, 1.5).is_err());
    }

    /// Eq. (1) as the paper writes it, on the queue length as a real number.
    fn p1(q: usize, th: f64, b3: f64, p_max: f64) -> f64 {
        let q = q as f64;
        if q < th {
            0.0
        } else if q < b3 {
            p_max / 4.0
        } else {
            p_max
        }
    }

    #[test]
    fn integer_steps_equal_eq_1_on_reals() {
        for (th, b3) in [
            (5.0, 1000.0 / 3.0),
            (100.0, 200.0),
            (0.0, 0.5),
            (7.5, 7.5),
            (1e3 / 6.0, 1e3 / 3.0),
        ] {
            let st = Steps::new(th, b3, 0.15);
            for q in 0..1200 {
                assert_eq!(st.p1(q), p1(q, th, b3, 0.15), "q={q} th={th} b3={b3}");
            }
        }
    }

    #[test]
    fn zero_steps_are_where_p1_is_zero() {
        // th < b3, th > b3, th = b3, and a p_max whose quarter underflows to 0.
        for (th, b3, p_max) in [
            (5.0, 1000.0 / 3.0, 0.15),
            (5.0, 2.0, 0.15),
            (7.5, 7.5, 1.0),
            (5.0, 40.0, 5e-324),
            (50.0, 40.0, 5e-324),
        ] {
            let st = Steps::new(th, b3, p_max);
            for q in 0..1200 {
                assert_eq!(st.zero(q), st.p1(q) == 0.0, "q={q} th={th} b3={b3}");
                if !st.zero(q) {
                    assert_eq!(st.p1_nonzero(q).to_bits(), st.p1(q).to_bits());
                }
            }
        }
    }

    #[test]
    fn probabilities_follow_eqs_1_to_3() {
        // (1): thresholds B/6 and B/3.
        let st = Steps::new(100.0, 200.0, 0.15);
        assert_eq!(st.p1(99), 0.0);
        assert_eq!(st.p1(100), 0.15 / 4.0);
        assert_eq!(st.p1(200), 0.15);
        // (2): P = 1/512 → (256 P)² = 1/4 → min(1, 4) = 1; P = 1/128 → 1/4.
        assert_eq!(p3(0.15, 1.0 / 512.0, false), 0.15);
        assert!((p3(0.15, 1.0 / 128.0, false) - 0.15 / 4.0).abs() < 1e-12);
        // (3): a hit multiplies by 1 + 1/P.
        assert!((p3(0.15, 1.0 / 128.0, true) - 0.15 / 4.0 * 129.0).abs() < 1e-9);
        // P = 0 handled: no division by zero.
        assert_eq!(p3(0.15, 0.0, false), 0.15);
        assert_eq!(p3(0.15, 0.0, true), 0.15);
        assert_eq!(p3(0.0, 0.5, true), 0.0);
    }

    #[test]
    fn hit_frequency_estimates_flow_count() {
        for n in [10u64, 50] {
            let mut zl = ZombieList::new(1000, 0.25, 1.0 / 1000.0).unwrap();
            let mut x = SplitMix64::new(n);
            for _ in 0..400_000u64 {
                let r = x.next_u64();
                zl.arrive(r % n, (r >> 32) as u32);
            }
            let est = zl.flow_estimate();
            assert!(
                (est - n as f64).abs() < 0.25 * n as f64,
                "n = {n}, estimate {est}"
            );
        }
    }

    /// The slot and the swap from one 32-bit value: each slot gets its share of the values,
    /// and within every slot the swap happens at rate p_swap. Counted over 2^24 values spread
    /// evenly over [0, 2^32) (low bits scrambled), so the shares are near-exact; and
    /// `arrive` on a full list does what `pick` says.
    #[test]
    fn one_value_gives_a_uniform_slot_and_an_independent_swap() {
        for (m, p_swap) in [(10usize, 0.25), (7, 0.6), (1000, 0.25), (MAX_ZOMBIES, 0.5)] {
            let zl = ZombieList::new(m, p_swap, 0.01).unwrap();
            let buckets = m.min(1000);
            let (mut slots, mut swaps) = (vec![0u64; buckets], vec![0u64; buckets]);
            let n = 1u64 << 24;
            for k in 0..n {
                let u = (k << 8 | (k.wrapping_mul(0x9E37_79B9) >> 7) & 0xFF) as u32;
                let (slot, rest) = pick(u, m);
                assert!(slot < m);
                let b = slot * buckets / m;
                slots[b] += 1;
                swaps[b] += ((rest as u64) < zl.swap_below) as u64;
            }
            for b in 0..buckets {
                let share = slots[b] as f64 * buckets as f64 / n as f64;
                let rate = swaps[b] as f64 / slots[b] as f64;
                let tol = 5.0 / (slots[b] as f64).sqrt();
                assert!((share - 1.0).abs() < tol, "m={m} bucket {b}: share {share}");
                assert!(
                    (rate - p_swap).abs() < tol,
                    "m={m} bucket {b}: swap rate {rate}"
                );
            }
        }
        let mut x = SplitMix64::new(3);
        let mut zl = ZombieList::new(50, 0.25, 0.01).unwrap();
        for i in 0..50 {
            zl.arrive(1000 + i, 0);
        }
        for _ in 0..10_000 {
            let (id, u) = (x.next_u64() % 60, x.next_u64() as u32);
            let (slot, rest) = pick(u, 50);
            let before = zl.zombies()[slot];
            let want = if before.id == id {
                ZombieEvent::Hit { slot }
            } else if (rest as u64) < zl.swap_below {
                ZombieEvent::Swapped {
                    slot,
                    old_id: before.id,
                    old_count: before.count,
                }
            } else {
                ZombieEvent::Miss
            };
            assert_eq!(zl.arrive(id, u), want);
        }
    }

    #[test]
    fn the_drop_half_is_below_p_with_probability_p() {
        let d = |lo: u32| Draw(0xFFFF_FFFF_0000_0000 | lo as u64);
        for lo in [0, 1, 1 << 31, u32::MAX] {
            assert!(!d(lo).drop_below(0.0));
            assert!(d(lo).drop_below(1.0));
        }
        assert!(d((1 << 31) - 1).drop_below(0.5));
        assert!(!d(1 << 31).drop_below(0.5));
        // The zombie half is the other half.
        assert_eq!(Draw(0x1234_5678_9ABC_DEF0).zombie(), 0x1234_5678);
    }

    #[test]
    fn zombie_list_fills_then_compares() {
        let mut zl = ZombieList::new(3, 1.0, 0.5).unwrap();
        assert_eq!(zl.arrive(1, 0), ZombieEvent::Added { slot: 0 });
        assert_eq!(zl.arrive(1, 0), ZombieEvent::Added { slot: 1 });
        assert_eq!(zl.arrive(2, 0), ZombieEvent::Added { slot: 2 });
        assert_eq!(zl.p(), 0.0);
        // p_swap = 1: every miss swaps.
        let mut x = SplitMix64::new(5);
        for _ in 0..100 {
            match zl.arrive(9, x.next_u64() as u32) {
                ZombieEvent::Hit { .. } | ZombieEvent::Swapped { .. } => {}
                e => panic!("unexpected {e:?}"),
            }
        }
        assert!(zl.zombies().iter().all(|z| z.id == 9));
        assert!(zl.p() > 0.9);
    }

    #[test]
    fn queue_drops_and_rejects_bad_params() {
        let mut q = Sred::new(SredParams::default(), 12, 3).unwrap();
        let mut d = Drops::default();
        for i in 0..100 {
            q.enqueue(Pk(i % 4), 0, &mut d);
        }
        assert!(q.len_pkts() <= 12);
        assert_eq!(d.pkts.len() + q.len_pkts(), 100);
        assert!(q.stats().forced_drops > 0);
        for bad in [
            SredParams {
                m: 0,
                ..SredParams::default()
            },
            SredParams {
                p_max: 1.5,
                ..SredParams::default()
            },
            SredParams {
                p_swap: 0.0,
                ..SredParams::default()
            },
            SredParams {
                alpha: Some(f64::NAN),
                ..SredParams::default()
            },
        ] {
            assert!(Sred::<Pk>::new(bad, 10, 1).is_err());
        }
        assert!(Sred::<Pk>::new(SredParams::default(), 0, 1).is_err());
    }
}
