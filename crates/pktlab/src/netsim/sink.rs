//! The TCP receiver: cumulative ACKs (RFC 793/1122), optionally with SACK blocks (RFC 2018)
//! and ECN-echo (RFC 3168). Out-of-order segments are kept in a bitmap ring the size of the
//! receiver window. With delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2) an ACK is sent for
//! every second in-order segment or when the 200 ms timer expires; out-of-order segments,
//! segments that fill a hole and CE-marked segments are acknowledged at once.
//!
//! SACK (RFC 2018 §4): up to three blocks; the first is the block holding the segment that
//! just arrived, then the most recently reported other blocks still above the cumulative ACK.
//! ECN: a CE mark makes every ACK carry ECE until a segment with CWR arrives.

use super::ecn;

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
    sack: bool,
    blocks: [(u32, u32); 3],
    nblocks: u8,
    ece: bool,
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
            sack: false,
            blocks: [(0, 0); 3],
            nblocks: 0,
            ece: false,
        }
    }

    /// A receiver that also reports SACK blocks (RFC 2018) if `sack`.
    pub fn with_sack(rwnd: u32, delayed_ack: bool, sack: bool) -> Self {
        TcpSink {
            sack,
            ..Self::new(rwnd, delayed_ack)
        }
    }

    /// The SACK blocks `[start, end)` to put on the next ACK (empty without SACK).
    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        &self.blocks[..self.nblocks as usize]
    }

    /// True while ACKs must carry ECN-echo.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// A data segment `seq` with ECN bits `bits` ([`ecn`]) arrived.
    #[inline]
    pub fn on_data_ecn(&mut self, seq: u32, bits: u8) -> SinkAction {
        if bits & ecn::CWR != 0 {
            self.ece = false;
        }
        let ce = bits & ecn::CE != 0;
        if ce {
            self.ece = true;
        }
        match self.on_data(seq) {
            SinkAction::Ack(a) => SinkAction::Ack(a),
            _ if ce => self.ack_now(),
            other => other,
        }
    }

    #[inline]
    fn has(&self, s: u32) -> bool {
        let (w, b) = self.bit(s);
        self.have[w] & b != 0
    }

    /// Lowest segment of the received run holding `s` (> rcv_nxt).
    fn run_start(&self, s: u32) -> u32 {
        let mut t = s;
        loop {
            // Bits below t's bit in its word, scanning down for the first hole.
            let i = t & self.mask;
            let off = i & 63;
            let w = self.have[(i >> 6) as usize];
            let below = if off == 0 { 0 } else { w << (64 - off) };
            let lead_ones = (!below).leading_zeros().min(off);
            t -= lead_ones;
            if lead_ones < off || t <= self.rcv_nxt + 1 {
                return t.max(self.rcv_nxt + 1);
            }
            if !self.has(t - 1) {
                return t;
            }
            t -= 1;
        }
    }

    /// One past the highest segment of the received run holding `s`.
    fn run_end(&self, s: u32) -> u32 {
        let mut e = s + 1;
        while e - self.rcv_nxt <= self.mask {
            let i = e & self.mask;
            let off = i & 63;
            let w = self.have[(i >> 6) as usize] >> off;
            let ones = (!w).trailing_zeros().min(64 - off);
            e += ones;
            if ones < 64 - off {
                break;
            }
        }
        e
    }

    /// Updates the SACK blocks after `seq` arrived.
    fn update_blocks(&mut self, seq: u32) {
        let mut nb = [(0u32, 0u32); 3];
        let mut n = 0;
        if seq > self.rcv_nxt && self.has(seq) {
            nb[0] = (self.run_start(seq), self.run_end(seq));
            n = 1;
        }
        for k in 0..self.nblocks as usize {
            let (s, e) = self.blocks[k];
            if n == 3 || s <= self.rcv_nxt {
                continue;
            }
            let first = nb[0];
            if n > 0 && s <= first.1 && first.0 <= e {
                continue; // merged into the first block
            }
            nb[n] = (s, e);
            n += 1;
        }
        self.blocks = nb;
        self.nblocks = n as u8;
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
        let act = self.on_data_inner(seq);
        if self.sack {
            self.update_blocks(seq);
        }
        act
    }

    #[inline]
    fn on_data_inner(&mut self, seq: u32) -> SinkAction {
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

    #[test]
    fn sack_blocks_follow_rfc2018() {
        let mut s = TcpSink::with_sack(256, false, true);
        s.on_data(0);
        assert!(s.sack_blocks().is_empty());
        // 1 lost; 2..=70 arrive (a run across a 64-bit word).
        for q in 2..=70 {
            assert_eq!(s.on_data(q), SinkAction::Ack(1));
        }
        assert_eq!(s.sack_blocks(), &[(2, 71)]);
        // 72 lost, 73 arrives: new first block, the older one second.
        s.on_data(73);
        assert_eq!(s.sack_blocks(), &[(73, 74), (2, 71)]);
        // 71 fills the gap between the blocks: they merge into the first.
        s.on_data(71);
        assert_eq!(s.sack_blocks(), &[(2, 72), (73, 74)]);
        // 1 arrives: cumulative ACK to 72, only the block above remains.
        assert_eq!(s.on_data(1), SinkAction::Ack(72));
        assert_eq!(s.sack_blocks(), &[(73, 74)]);
    }

    #[test]
    fn ece_until_cwr() {
        let mut s = TcpSink::new(16, true);
        assert!(matches!(
            s.on_data_ecn(0, ecn::ECT),
            SinkAction::StartTimer(_)
        ));
        assert_eq!(s.on_data_ecn(1, ecn::ECT | ecn::CE), SinkAction::Ack(2));
        assert!(s.ece());
        assert_eq!(
            s.on_data_ecn(2, ecn::ECT | ecn::CE),
            SinkAction::Ack(3),
            "CE: ACK at once"
        );
        s.on_data_ecn(3, ecn::ECT);
        assert!(s.ece(), "ECE sticks until CWR");
        s.on_data_ecn(4, ecn::ECT | ecn::CWR);
        assert!(!s.ece());
    }
}
