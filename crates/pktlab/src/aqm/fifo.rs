//! The byte-counting FIFO behind every single-queue discipline (DropTail, SRED, ZL-RED):
//! the queued packets, their byte total and the arrival/drop/departure counters, so that each
//! discipline file holds only its drop decision.

use super::decide::{QueueState, Verdict};
use super::{AqmPacket, AqmStats, DropKind, Drops};
use std::collections::VecDeque;

/// A FIFO of packets with byte accounting and [`AqmStats`] counters.
#[derive(Clone, Debug)]
pub struct Fifo<P> {
    pub(crate) q: VecDeque<P>,
    pub(crate) bytes: u64,
    pub(crate) stats: AqmStats,
}

impl<P: AqmPacket> Fifo<P> {
    /// An empty FIFO sized for a buffer of `limit` packets (capacity capped at 64K up front).
    pub fn new(limit: usize) -> Self {
        Fifo {
            q: VecDeque::with_capacity(limit.min(1 << 16)),
            bytes: 0,
            stats: AqmStats::default(),
        }
    }

    /// Queues an admitted packet at the tail.
    #[inline]
    pub fn push(&mut self, pkt: P) {
        self.bytes += pkt.bytes() as u64;
        self.q.push_back(pkt);
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
        if self.q.len() >= limit {
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

    /// The queue state a decider reads: `len()` packets, hard limit `limit`.
    #[inline(always)]
    pub fn state(&self, limit: usize) -> QueueState {
        QueueState {
            len: self.q.len(),
            limit,
        }
    }

    /// Takes the head packet, if any.
    #[inline]
    pub fn pop(&mut self) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
        Some(p)
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
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
