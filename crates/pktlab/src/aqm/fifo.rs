//! The byte-counting FIFO behind every single-queue discipline (DropTail, SRED, ZL-RED):
//! the queued packets, their byte total and the arrival/drop/departure counters, so that each
//! discipline file holds only its drop decision.

use super::decide::{QueueState, Verdict};
use super::{AqmPacket, AqmStats, DropKind, Drops};

/// A FIFO of packets with byte accounting and [`AqmStats`] counters.
///
/// The packets sit in a ring of a power-of-two number of slots, so that a push or a pop
/// wraps its index with one AND (a `VecDeque`, of any capacity, wraps with a compare and a
/// conditional subtract). The
/// ring is empty until the first push, which fills it with copies of that packet (the
/// slots outside `head..head + len` are never read), so it needs no uninitialised memory.
#[derive(Clone, Debug)]
pub struct Fifo<P> {
    /// The slots; the queue is `len` of them from `head` on, wrapping.
    ring: Vec<P>,
    /// Slot of the head packet (`< ring.len()` once the ring exists).
    head: usize,
    /// Packets queued.
    len: usize,
    /// Slots of the first ring (a power of two).
    first: usize,
    pub(crate) bytes: u64,
    pub(crate) stats: AqmStats,
}

impl<P: AqmPacket> Fifo<P> {
    /// An empty FIFO sized for a buffer of `limit` packets (the first ring holds `limit + 1`
    /// rounded up to a power of two, capped at 64K slots; it doubles when full). Below 64K
    /// packets the ring is thus always larger than the buffer: [`Fifo::admit`] finds a free
    /// slot for an arrival at a full buffer without growing the ring.
    pub fn new(limit: usize) -> Self {
        Fifo {
            ring: Vec::new(),
            head: 0,
            len: 0,
            first: (limit.min((1 << 16) - 1) + 1).next_power_of_two(),
            bytes: 0,
            stats: AqmStats::default(),
        }
    }

    /// Queues an admitted packet at the tail.
    #[inline]
    pub fn push(&mut self, pkt: P) {
        self.bytes += pkt.bytes() as u64;
        self.put_tail(pkt);
        self.len += 1;
    }

    /// Writes `pkt` into the slot just behind the queue (growing the ring first if it has
    /// none) and returns that slot; the queue's length is the caller's to change.
    #[inline(always)]
    fn put_tail(&mut self, pkt: P) -> &mut P {
        if self.len == self.ring.len() {
            self.grow(pkt);
        }
        // The ring has more slots than packets now (`grow` at least doubles it, to at least
        // `first` ≥ 1 slots), so it is not empty and `i` is below its length.
        debug_assert!(self.ring.len() > self.len);
        let i = (self.head + self.len) & (self.ring.len() - 1);
        // SAFETY: `i & (r − 1) < r` for the ring's length `r ≥ 1` (above).
        let slot = unsafe { self.ring.get_unchecked_mut(i) };
        *slot = pkt;
        slot
    }

    /// A ring twice as large (or the first one), the queue moved to its start; the new
    /// slots hold copies of `fill`.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: P) {
        let n = (2 * self.ring.len()).max(self.first);
        let mut ring = Vec::with_capacity(n);
        ring.extend_from_slice(&self.ring[self.head..]);
        ring.extend_from_slice(&self.ring[..self.head]);
        ring.resize(n, fill);
        self.ring = ring;
        self.head = 0;
    }

    /// Counts and hands a refused arrival to `drops`.
    #[inline]
    pub fn refuse(&mut self, pkt: P, kind: DropKind, drops: &mut Drops<P>) {
        match kind {
            DropKind::Forced => self.stats.forced_drops += 1,
            DropKind::Early => self.stats.early_drops += 1,
        }
        drops.push(pkt, kind);
    }

    /// The admission step every single-queue discipline shares: with `limit` packets queued
    /// the arrival is a forced drop; otherwise `early()` (called only then, so a discipline's
    /// random draw happens exactly when it would inline) decides an early drop — or, for an
    /// ECN-capable packet, a CE mark (RFC 3168 §5) and the packet is queued; else it is
    /// queued.
    #[inline]
    pub fn offer(
        &mut self,
        mut pkt: P,
        limit: usize,
        early: impl FnOnce() -> bool,
        drops: &mut Drops<P>,
    ) {
        if self.len >= limit {
            self.refuse(pkt, DropKind::Forced, drops);
        } else if early() {
            if pkt.ecn_capable() {
                pkt.mark_ce();
                self.stats.marks += 1;
                self.push(pkt);
            } else {
                self.refuse(pkt, DropKind::Early, drops);
            }
        } else {
            self.push(pkt);
        }
    }

    /// Does what a decider's verdict says with `pkt` ([`Verdict::DropPair`] is CHOKe's, which
    /// does not use a FIFO: it is taken as an early drop of the arrival alone).
    #[inline(always)]
    pub fn apply(&mut self, mut pkt: P, v: Verdict, drops: &mut Drops<P>) {
        match v {
            Verdict::Enqueue => self.push(pkt),
            Verdict::Mark => {
                pkt.mark_ce();
                self.stats.marks += 1;
                self.push(pkt);
            }
            Verdict::Drop(kind) => self.refuse(pkt, kind, drops),
            Verdict::DropPair { .. } => self.refuse(pkt, DropKind::Early, drops),
        }
    }

    /// Decides and does what [`Fifo::apply`] does with the verdict `decide` returns for
    /// `pkt` and the queue state (`len()`, `limit`). `pkt` is first copied into the tail
    /// slot (the ring grows first if it has none; see [`Fifo::new`]) and `decide` reads it
    /// there: a packet moves into the ring as one block, not field by field after the
    /// decision. A refused packet leaves a copy in the slot beyond the queue, never read.
    #[inline(always)]
    pub fn admit(
        &mut self,
        pkt: P,
        limit: usize,
        drops: &mut Drops<P>,
        decide: impl FnOnce(&P, QueueState) -> Verdict,
    ) {
        let state = self.state(limit);
        let slot = self.put_tail(pkt);
        let mut marked = false;
        let kind = match decide(slot, state) {
            Verdict::Enqueue => None,
            Verdict::Mark => {
                slot.mark_ce();
                marked = true;
                None
            }
            Verdict::Drop(kind) => Some(kind),
            Verdict::DropPair { .. } => Some(DropKind::Early),
        };
        match kind {
            None => {
                self.bytes += slot.bytes() as u64;
                self.stats.marks += marked as u64;
                self.len += 1;
            }
            Some(kind) => {
                let pkt = *slot;
                self.refuse(pkt, kind, drops);
            }
        }
    }

    /// The queue state a decider reads: `len()` packets, hard limit `limit`.
    #[inline(always)]
    pub fn state(&self, limit: usize) -> QueueState {
        QueueState {
            len: self.len,
            limit,
        }
    }

    /// Takes the head packet, if any.
    #[inline]
    pub fn pop(&mut self) -> Option<P> {
        if self.len == 0 {
            return None;
        }
        debug_assert!(self.head < self.ring.len());
        // SAFETY: `head < ring.len()` whenever a packet is queued: the ring only grows, and
        // `head` is set only here (wrapped below the ring's length) and by `grow` (0, with
        // at least one slot).
        let p = unsafe { *self.ring.get_unchecked(self.head) };
        self.head = (self.head + 1) & (self.ring.len() - 1);
        self.len -= 1;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
        Some(p)
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes queued.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The counters.
    pub fn stats(&self) -> AqmStats {
        self.stats
    }
}

/// The [`super::Aqm`] methods a FIFO-based discipline delegates to its `fifo: Fifo<P>` field
/// (dequeue, lengths, counters), written once; use inside `impl<P: AqmPacket> Aqm<P> for …`.
macro_rules! fifo_plumbing {
    () => {
        #[inline]
        fn dequeue(
            &mut self,
            _now: $crate::aqm::Nanos,
            _drops: &mut $crate::aqm::Drops<P>,
        ) -> Option<P> {
            self.fifo.pop()
        }
        fn len_pkts(&self) -> usize {
            self.fifo.len()
        }
        fn len_bytes(&self) -> u64 {
            self.fifo.bytes()
        }
        fn stats(&self) -> $crate::aqm::AqmStats {
            self.fifo.stats()
        }
    };
}
pub(crate) use fifo_plumbing;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::TestPkt as Pk;
    use std::collections::VecDeque;

    #[test]
    fn admit_does_what_apply_does() {
        // The same verdicts through `admit` and `apply`: same queue, drops and counters,
        // wrapping (limit 3: a ring of 4 slots, and a full buffer).
        for limit in [3, 100] {
            let (mut a, mut b) = (Fifo::new(limit), Fifo::new(limit));
            let (mut da, mut db) = (Drops::default(), Drops::default());
            let mut x = crate::util::SplitMix64::new(5);
            for n in 0..2_000u32 {
                let r = x.next_u64();
                let v = match r % 4 {
                    0 => Verdict::Drop(DropKind::Early),
                    1 => Verdict::Mark,
                    _ => Verdict::Enqueue,
                };
                let v = if b.len() >= limit {
                    Verdict::Drop(DropKind::Forced)
                } else {
                    v
                };
                a.admit(Pk(n), limit, &mut da, |p, q| {
                    assert_eq!((p.0, q.len, q.limit), (n, b.len(), limit));
                    v
                });
                b.apply(Pk(n), v, &mut db);
                if (r >> 8).is_multiple_of(3) {
                    assert_eq!(a.pop().map(|p| p.0), b.pop().map(|p| p.0));
                }
                assert_eq!(da.pkts, db.pkts);
                assert_eq!(
                    (a.len(), a.bytes(), a.stats()),
                    (b.len(), b.bytes(), b.stats())
                );
            }
        }
    }

    #[test]
    fn ring_keeps_fifo_order_across_wraps_and_growth() {
        // Limits whose first ring is 1, 4 and 8 slots; bursts longer than the ring make it
        // grow while its head is mid-ring.
        for limit in [1, 3, 8] {
            let mut f = Fifo::new(limit);
            let mut oracle = VecDeque::new();
            let mut x = crate::util::SplitMix64::new(limit as u64);
            let mut next = 0u32;
            for _ in 0..5_000 {
                let r = x.next_u64();
                for _ in 0..r % 4 {
                    f.push(Pk(next));
                    oracle.push_back(next);
                    next += 1;
                }
                for _ in 0..(r >> 8) % 4 {
                    assert_eq!(f.pop().map(|p| p.0), oracle.pop_front());
                }
                assert_eq!(f.len(), oracle.len());
                assert_eq!(f.bytes(), 1000 * oracle.len() as u64);
                assert!(f.ring.len().is_power_of_two() || f.ring.is_empty());
            }
            while let Some(v) = oracle.pop_front() {
                assert_eq!(f.pop().map(|p| p.0), Some(v));
            }
            assert!(f.pop().is_none() && f.is_empty());
        }
    }
}
