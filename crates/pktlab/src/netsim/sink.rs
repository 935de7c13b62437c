//! The TCP receiver: cumulative ACKs (RFC 793/1122), no SACK. Out-of-order segments are kept
//! in a bitmap ring the size of the receiver window. With delayed ACKs (RFC 1122 §4.2.3.2,
//! RFC 5681 §4.2) an ACK is sent for every second in-order segment or when the 200 ms timer
//! expires; out-of-order segments and segments that fill a hole are acknowledged at once.

/// What the receiver wants done after a segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinkAction {
    /// Send a cumulative ACK for this sequence number now.
    Ack(u32),
    /// Start the delayed-ACK timer; call [`TcpSink::on_delack_timer`] with this generation.
    StartTimer(u32),
    /// Nothing to do (an ACK timer is already pending).
    Wait,
}

/// A cumulative-ACK receiver.
#[derive(Clone, Debug)]
pub struct TcpSink {
    rcv_nxt: u32,
    have: Vec<u64>,
    mask: u32,
    ooo: u32,
    delayed: bool,
    pending: u32,
    gen: u32,
}

impl TcpSink {
    /// A receiver with a window of `rwnd` segments.
    pub fn new(rwnd: u32, delayed_ack: bool) -> Self {
        let cap = rwnd.next_power_of_two().max(64);
        TcpSink {
            rcv_nxt: 0,
            have: vec![0; (cap / 64) as usize],
            mask: cap - 1,
            ooo: 0,
            delayed: delayed_ack,
            pending: 0,
            gen: 0,
        }
    }

    /// Next expected segment = segments delivered in order so far.
    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    #[inline]
    fn bit(&self, s: u32) -> (usize, u64) {
        let i = s & self.mask;
        ((i / 64) as usize, 1u64 << (i % 64))
    }

    #[inline]
    fn ack_now(&mut self) -> SinkAction {
        self.pending = 0;
        self.gen = self.gen.wrapping_add(1);
        SinkAction::Ack(self.rcv_nxt)
    }

    /// A data segment `seq` arrived.
    #[inline]
    pub fn on_data(&mut self, seq: u32) -> SinkAction {
        if seq < self.rcv_nxt {
            return self.ack_now(); // duplicate
        }
        if seq > self.rcv_nxt {
            if seq - self.rcv_nxt <= self.mask {
                let (w, b) = self.bit(seq);
                if self.have[w] & b == 0 {
                    self.have[w] |= b;
                    self.ooo += 1;
                }
            }
            return self.ack_now();
        }
        let had_ooo = self.ooo > 0;
        self.rcv_nxt += 1;
        while self.ooo > 0 {
            let (w, b) = self.bit(self.rcv_nxt);
            if self.have[w] & b == 0 {
                break;
            }
            self.have[w] &= !b;
            self.ooo -= 1;
            self.rcv_nxt += 1;
        }
        if !self.delayed || had_ooo {
            return self.ack_now();
        }
        self.pending += 1;
        if self.pending >= 2 {
            self.ack_now()
        } else {
            SinkAction::StartTimer(self.gen)
        }
    }

    /// The delayed-ACK timer of generation `gen` expired: the ACK to send, if still due.
    pub fn on_delack_timer(&mut self, gen: u32) -> Option<u32> {
        if gen == self.gen && self.pending > 0 {
            match self.ack_now() {
                SinkAction::Ack(a) => Some(a),
                _ => None,
            }
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_acks_and_holes() {
        let mut s = TcpSink::new(16, false);
        assert_eq!(s.on_data(0), SinkAction::Ack(1));
        assert_eq!(s.on_data(2), SinkAction::Ack(1));
        assert_eq!(s.on_data(3), SinkAction::Ack(1));
        assert_eq!(s.on_data(1), SinkAction::Ack(4));
        assert_eq!(s.on_data(1), SinkAction::Ack(4));
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timer() {
        let mut s = TcpSink::new(16, true);
        let g = match s.on_data(0) {
            SinkAction::StartTimer(g) => g,
            a => panic!("{a:?}"),
        };
        assert_eq!(s.on_data(1), SinkAction::Ack(2));
        assert_eq!(s.on_delack_timer(g), None, "timer superseded");
        let g = match s.on_data(2) {
            SinkAction::StartTimer(g) => g,
            a => panic!("{a:?}"),
        };
        assert_eq!(s.on_delack_timer(g), Some(3));
    }
}
