//! DropTail: a FIFO of at most `limit` packets that drops arrivals when full (the baseline
//! "FIFO discipline" of paper 002, §4.2, and of RED's paper, Floyd & Jacobson 1993, §1).

use super::fifo::Fifo;
use super::{Aqm, AqmError, AqmPacket, Drops, Nanos};

/// Tail-drop FIFO with a limit in packets.
#[derive(Debug)]
pub struct DropTail<P> {
    fifo: Fifo<P>,
    limit: usize,
}

impl<P: AqmPacket> DropTail<P> {
    /// A FIFO holding at most `limit` packets (≥ 1).
    pub fn new(limit: usize) -> Result<Self, AqmError> {
        if limit == 0 {
            return Err(AqmError::EmptyBuffer("droptail"));
        }
        Ok(DropTail {
            fifo: Fifo::new(limit),
            limit,
        })
    }
}

impl<P: AqmPacket> Aqm<P> for DropTail<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, _now: Nanos, drops: &mut Drops<P>) {
        self.fifo.stats.arrivals += 1;
        self.fifo.offer(pkt, self.limit, || false, drops);
    }
    super::fifo::fifo_plumbing!();
    fn name(&self) -> &'static str {
        "droptail"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::DropKind;

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
