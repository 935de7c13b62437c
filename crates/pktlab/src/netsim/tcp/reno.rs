//! TCP Reno window growth (RFC 5681 §3.1: slow start, +1 segment per ACK; congestion
//! avoidance, +1/cwnd per ACK). Loss handling (fast retransmit on 3 duplicate ACKs,
//! ssthresh = max(FlightSize/2, 2), fast recovery with window inflation, Reno exit on the
//! first new ACK or RFC 6582 NewReno partial-ACK retransmission) lives in `tcp/mod.rs`,
//! shared with Vegas.

use super::TcpSender;

impl TcpSender {
    /// Window growth on an ACK of new data outside recovery.
    #[inline]
    pub(super) fn reno_on_new_ack(&mut self) {
        if self.cwnd < self.ssthresh {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }
}
