//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance on a Global
//! Internet", IEEE JSAC 1995, §3):
//! * BaseRTT = minimum RTT ever seen; once per RTT (when the segment that was `snd_nxt` at the
//!   start of the period is acknowledged) `diff = cwnd·(RTT − BaseRTT)/RTT` (backlog in
//!   segments, RTT = minimum sample of the period, as in Linux/ns-3);
//! * congestion avoidance: `diff < alpha` → cwnd + 1, `diff > beta` → cwnd − 1, per RTT;
//! * modified slow start: exponential growth only every other RTT; leave slow start when
//!   `diff > gamma` (cwnd ← min(cwnd, expected·BaseRTT + 1));
//! * retransmission: on a duplicate ACK, retransmit if the oldest segment has been out longer
//!   than the fine-grained timeout (SRTT + 4·RTTVAR); check again on the first two new ACKs
//!   after a retransmission; decrease the window (×3/4) only for segments sent after the last
//!   decrease ([`super::VegasLoss`] also offers ns-3's one-segment decrease).

use super::{Packet, TcpSender, Time, VegasLoss};

/// Vegas' per-connection state.
#[derive(Clone, Debug)]
pub(super) struct VegasState {
    /// Minimum RTT ever seen, ns.
    pub base_rtt: Time,
    min_rtt: Time,
    cnt: u32,
    pub beg_snd_nxt: u32,
    grow: bool,
    last_decrease: Time,
    pub post_retx_checks: u8,
}

impl VegasState {
    pub(super) fn new() -> Self {
        VegasState {
            base_rtt: Time::MAX,
            min_rtt: Time::MAX,
            cnt: 0,
            beg_snd_nxt: 0,
            grow: true,
            last_decrease: 0,
            post_retx_checks: 0,
        }
    }

    #[inline]
    pub(super) fn sample(&mut self, r: Time) {
        self.base_rtt = self.base_rtt.min(r);
        self.min_rtt = self.min_rtt.min(r);
        self.cnt += 1;
    }

    pub(super) fn on_timeout(&mut self, now: Time, snd_una: u32) {
        self.min_rtt = Time::MAX;
        self.cnt = 0;
        self.beg_snd_nxt = snd_una;
        self.last_decrease = now;
        self.grow = true;
    }
}

impl TcpSender {
    /// Vegas on an ACK of new data outside recovery.
    #[inline]
    pub(super) fn vegas_on_new_ack(&mut self, _now: Time) {
        let slow_start = self.cwnd < self.ssthresh;
        if slow_start && self.vegas.grow {
            self.cwnd += 1.0;
        }
        if self.snd_una < self.vegas.beg_snd_nxt {
            return;
        }
        // One RTT has passed since `beg_snd_nxt` was sent.
        let v = &mut self.vegas;
        if v.cnt > 0 && v.base_rtt > 0 {
            let rtt = v.min_rtt as f64;
            let base = v.base_rtt as f64;
            let diff = self.cwnd * (rtt - base) / rtt;
            if slow_start {
                if diff > self.gamma {
                    self.cwnd = self.cwnd.min(self.cwnd * base / rtt + 1.0).max(2.0);
                    self.ssthresh = (self.cwnd - 1.0).max(2.0);
                } else {
                    v.grow = !v.grow;
                }
            } else if diff < self.alpha {
                self.cwnd += 1.0;
            } else if diff > self.beta {
                self.cwnd = (self.cwnd - 1.0).max(2.0);
                // Keep ssthresh below cwnd so the decrease does not re-enter slow start.
                self.ssthresh = self.ssthresh.min(self.cwnd - 1.0).max(2.0);
            }
        }
        v.min_rtt = Time::MAX;
        v.cnt = 0;
        v.beg_snd_nxt = self.snd_nxt;
    }

    /// The fine-grained timeout of Vegas: SRTT + 4·RTTVAR (no minimum RTO).
    #[inline]
    fn vegas_fine_rto(&self) -> Time {
        (self.srtt + 4.0 * self.rttvar).max(self.gran as f64) as Time
    }

    /// True if the oldest outstanding segment has been out longer than the fine timeout.
    #[inline]
    pub(super) fn vegas_timer_expired(&self, now: Time) -> bool {
        self.has_rtt
            && self.snd_nxt > self.snd_una
            && now.saturating_sub(self.sent_at[(self.snd_una & self.mask) as usize])
                > self.vegas_fine_rto()
    }

    /// Vegas' ssthresh on a loss detected by duplicate ACKs or the fine-grained check.
    pub(super) fn vegas_loss_ssthresh(&mut self, now: Time) {
        let sent = self.sent_at[(self.snd_una & self.mask) as usize];
        match self.vegas_loss {
            VegasLoss::ThreeQuarters => {
                if sent >= self.vegas.last_decrease {
                    self.ssthresh = (0.75 * self.cwnd).max(2.0);
                    self.vegas.last_decrease = now;
                } else {
                    self.ssthresh = self.cwnd.max(2.0);
                }
            }
            VegasLoss::OneSegment => {
                self.ssthresh = self.ssthresh.min(self.cwnd - 1.0).max(2.0);
            }
        }
        self.vegas.min_rtt = Time::MAX;
        self.vegas.cnt = 0;
        self.vegas.beg_snd_nxt = self.max_sent;
    }

    /// On the first two new ACKs after a retransmission, retransmit the next segment if it
    /// has timed out by the fine-grained clock.
    #[inline]
    pub(super) fn vegas_post_retransmit_check(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.vegas.post_retx_checks == 0 {
            return;
        }
        self.vegas.post_retx_checks -= 1;
        if self.vegas_timer_expired(now) {
            self.stats.fast_retransmits += 1;
            self.emit(self.snd_una, now, out);
        }
    }
}
