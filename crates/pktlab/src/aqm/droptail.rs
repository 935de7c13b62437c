//! DropTail: a FIFO of at most `limit` packets that drops arrivals when full (the baseline
//! "FIFO discipline" of paper 002, §4.2, and of RED's paper, Floyd & Jacobson 1993, §1).

use super::{Aqm, AqmPacket, AqmStats, DropKind, Drops, Nanos};
use std::collections::VecDeque;

/// Tail-drop FIFO with a limit in packets.
#[derive(Debug)]
pub struct DropTail<P> {
    q: VecDeque<P>,
    limit: usize,
    bytes: u64,
    stats: AqmStats,
}

impl<P: AqmPacket> DropTail<P> {
    /// A FIFO holding at most `limit` packets (≥ 1).
    pub fn new(limit: usize) -> Result<Self, String> {
        if limit == 0 {
            return Err("droptail: buffer must be at least 1 packet".into());
        }
        Ok(DropTail {
            q: VecDeque::with_capacity(limit.min(1 << 16)),
            limit,
            bytes: 0,
            stats: AqmStats::default(),
        })
    }
}

impl<P: AqmPacket> Aqm<P> for DropTail<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, _now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        if self.q.len() >= self.limit {
            self.stats.forced_drops += 1;
            drops.push(pkt, DropKind::Forced);
        } else {
            self.bytes += pkt.bytes() as u64;
            self.q.push_back(pkt);
        }
    }
    #[inline]
    fn dequeue(&mut self, _now: Nanos, _drops: &mut Drops<P>) -> Option<P> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes() as u64;
        self.stats.departures += 1;
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
        "droptail"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct P(u32);
    impl AqmPacket for P {
        fn flow(&self) -> u32 {
            self.0
        }
        fn bytes(&self) -> u32 {
            100
        }
    }

    #[test]
    fn drops_when_full_and_is_fifo() {
        let mut q = DropTail::new(2).unwrap();
        let mut d = Drops::default();
        for i in 0..3 {
            q.enqueue(P(i), 0, &mut d);
        }
        assert_eq!(d.pkts, vec![(P(2), DropKind::Forced)]);
        assert_eq!(q.len_bytes(), 200);
        assert_eq!(q.dequeue(0, &mut d), Some(P(0)));
        assert_eq!(q.dequeue(0, &mut d), Some(P(1)));
        assert_eq!(q.dequeue(0, &mut d), None);
        assert!(DropTail::<P>::new(0).is_err());
    }
}
