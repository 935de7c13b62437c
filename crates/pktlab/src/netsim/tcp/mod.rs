//! Bulk-transfer TCP senders at packet level: the machinery shared by all variants — sending,
//! cumulative-ACK processing, duplicate-ACK counting, fast retransmit / fast recovery entry,
//! the retransmission timer (RFC 6298: Jacobson/Karels estimation, Karn's rule, exponential
//! backoff, configurable minimum RTO) — and the variant hooks in [`reno`] (RFC 5681 Reno,
//! RFC 6582 NewReno) and [`vegas`] (Brakmo & Peterson 1995).
//!
//! Sequence numbers count segments. The sender never runs out of data. No SACK: the receiver
//! sends cumulative ACKs only; after a timeout the sender goes back to `snd_una` (go-back-N),
//! as BSD and ns-3 without SACK do. RTT is sampled on every ACK whose newest acknowledged
//! segment was sent once (Karn; no timestamp option).

pub mod reno;
pub mod vegas;

use super::{Packet, PktKind, Time, MS, SEC};
use vegas::VegasState;

/// TCP variant of a sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpKind {
    /// TCP Reno (NewReno partial-ACK handling if [`TcpConfig::newreno`]).
    Reno,
    /// TCP Vegas.
    Vegas,
}

impl TcpKind {
    /// `reno` or `vegas`.
    pub fn name(self) -> &'static str {
        match self {
            TcpKind::Reno => "reno",
            TcpKind::Vegas => "vegas",
        }
    }
}

/// How Vegas reduces its window on a loss detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VegasLoss {
    /// Brakmo & Peterson: `cwnd ← 3/4·cwnd`, only if the lost segment was sent after the
    /// last decrease.
    ThreeQuarters,
    /// ns-3's `TcpVegas::GetSsThresh`: `ssthresh ← max(min(ssthresh, cwnd − 1), 2)`.
    OneSegment,
}

/// Every TCP default in one place (echoed in the CLI's JSON `config`).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes per segment (MSS).
    pub mss: u32,
    /// Header bytes added to each data segment on the wire (IP + TCP).
    pub header: u32,
    /// Bytes of a pure ACK on the wire.
    pub ack_size: u32,
    /// Initial congestion window, segments.
    pub init_cwnd: u32,
    /// Receiver window, segments (also the sender's ring-buffer size).
    pub rwnd: u32,
    /// Minimum retransmission timeout.
    pub min_rto: Time,
    /// RTO before the first RTT sample.
    pub initial_rto: Time,
    /// Maximum (backed-off) RTO.
    pub max_rto: Time,
    /// Clock granularity G of RFC 6298.
    pub granularity: Time,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    /// NewReno partial-ACK handling (RFC 6582) for Reno and Vegas loss recovery.
    pub newreno: bool,
    /// Receiver delays ACKs: every 2nd full segment or after `delack_timeout`.
    pub delayed_ack: bool,
    /// Delayed-ACK timer.
    pub delack_timeout: Time,
    /// Vegas alpha (packets of backlog below which cwnd grows).
    pub vegas_alpha: f64,
    /// Vegas beta (packets of backlog above which cwnd shrinks).
    pub vegas_beta: f64,
    /// Vegas gamma (backlog that ends slow start).
    pub vegas_gamma: f64,
    /// Vegas window reduction on loss.
    pub vegas_loss: VegasLoss,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1000,
            header: 40,
            ack_size: 40,
            init_cwnd: 2,
            rwnd: 4096,
            min_rto: SEC,
            initial_rto: SEC,
            max_rto: 60 * SEC,
            granularity: MS,
            dupack_threshold: 3,
            newreno: false,
            delayed_ack: false,
            delack_timeout: 200 * MS,
            vegas_alpha: 1.0,
            vegas_beta: 3.0,
            vegas_gamma: 1.0,
            vegas_loss: VegasLoss::ThreeQuarters,
        }
    }
}

impl TcpConfig {
    /// Checks the parameters; the error is one line.
    pub fn validate(&self) -> Result<(), String> {
        if self.mss == 0 || self.mss > 65_000 {
            return Err(format!("tcp: mss must be in 1..=65000 (got {})", self.mss));
        }
        if self.init_cwnd == 0 {
            return Err("tcp: initial cwnd must be at least 1 segment".into());
        }
        if !(2..=(1 << 20)).contains(&self.rwnd) {
            return Err(format!(
                "tcp: receiver window must be in 2..=1048576 segments (got {})",
                self.rwnd
            ));
        }
        if self.min_rto == 0 || self.initial_rto == 0 || self.max_rto < self.min_rto {
            return Err("tcp: need 0 < min_rto <= max_rto and initial_rto > 0".into());
        }
        if self.dupack_threshold == 0 {
            return Err("tcp: dupack threshold must be at least 1".into());
        }
        if self.delayed_ack && self.delack_timeout == 0 {
            return Err("tcp: delayed-ACK timeout must be positive".into());
        }
        let vegas_ok = self.vegas_alpha >= 0.0
            && self.vegas_alpha <= self.vegas_beta
            && self.vegas_gamma >= 0.0;
        if !vegas_ok {
            return Err(format!(
                "tcp: Vegas needs 0 <= alpha <= beta and gamma >= 0 (got {}, {}, {})",
                self.vegas_alpha, self.vegas_beta, self.vegas_gamma
            ));
        }
        Ok(())
    }
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Fast retransmits (loss recovery episodes started by duplicate ACKs or Vegas' check).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
}

/// One bulk-transfer TCP sender.
#[derive(Clone, Debug)]
pub struct TcpSender {
    flow: u32,
    kind: TcpKind,
    pkt_size: u32,
    rwnd: u32,
    min_rto: Time,
    max_rto: Time,
    gran: Time,
    dupthresh: u32,
    newreno: bool,
    alpha: f64,
    beta: f64,
    gamma: f64,
    vegas_loss: VegasLoss,
    snd_una: u32,
    snd_nxt: u32,
    max_sent: u32,
    cwnd: f64,
    ssthresh: f64,
    dupacks: u32,
    in_recovery: bool,
    recover: i64,
    srtt: f64,
    rttvar: f64,
    rto: Time,
    has_rtt: bool,
    timeouts_in_row: u32,
    sent_at: Vec<Time>,
    retx: Vec<bool>,
    mask: u32,
    deadline: Option<Time>,
    timer_at: Option<Time>,
    timer_req: Option<Time>,
    vegas: VegasState,
    /// Counters.
    pub stats: TcpStats,
}

impl TcpSender {
    /// A sender for flow `flow`; `cfg` must have passed [`TcpConfig::validate`].
    pub fn new(flow: u32, kind: TcpKind, cfg: &TcpConfig) -> Self {
        let cap = cfg.rwnd.next_power_of_two();
        TcpSender {
            flow,
            kind,
            pkt_size: cfg.mss + cfg.header,
            rwnd: cfg.rwnd,
            min_rto: cfg.min_rto,
            max_rto: cfg.max_rto,
            gran: cfg.granularity,
            dupthresh: cfg.dupack_threshold,
            newreno: cfg.newreno,
            alpha: cfg.vegas_alpha,
            beta: cfg.vegas_beta,
            gamma: cfg.vegas_gamma,
            vegas_loss: cfg.vegas_loss,
            snd_una: 0,
            snd_nxt: 0,
            max_sent: 0,
            cwnd: cfg.init_cwnd as f64,
            ssthresh: cfg.rwnd as f64,
            dupacks: 0,
            in_recovery: false,
            recover: -1,
            srtt: 0.0,
            rttvar: 0.0,
            rto: cfg.initial_rto.clamp(cfg.min_rto, cfg.max_rto),
            has_rtt: false,
            timeouts_in_row: 0,
            sent_at: vec![0; cap as usize],
            retx: vec![false; cap as usize],
            mask: cap - 1,
            deadline: None,
            timer_at: None,
            timer_req: None,
            vegas: VegasState::new(),
            stats: TcpStats::default(),
        }
    }

    /// The variant.
    pub fn kind(&self) -> TcpKind {
        self.kind
    }
    /// Congestion window, segments.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    /// Slow-start threshold, segments.
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u32 {
        self.snd_una
    }
    /// Next segment to send.
    pub fn snd_nxt(&self) -> u32 {
        self.snd_nxt
    }
    /// True during fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
    /// Current retransmission timeout.
    pub fn rto(&self) -> Time {
        self.rto
    }
    /// Smoothed RTT, ns (0 before the first sample).
    pub fn srtt(&self) -> f64 {
        self.srtt
    }
    /// Vegas' BaseRTT (minimum RTT seen), ns; `Time::MAX` before the first sample.
    pub fn base_rtt(&self) -> Time {
        self.vegas.base_rtt
    }

    /// A timer event the owner must schedule (at most one per call): call
    /// [`TcpSender::on_timer`] at that time.
    #[inline]
    pub fn take_timer(&mut self) -> Option<Time> {
        self.timer_req.take()
    }

    /// Starts the transfer at `now`; packets to transmit are appended to `out`.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.vegas.beg_snd_nxt = 0;
        self.send_allowed(now, out);
    }

    /// Processes a cumulative ACK (`ack` = next segment the receiver expects).
    pub fn on_ack(&mut self, ack: u32, now: Time, out: &mut Vec<Packet>) {
        if ack > self.snd_una && ack <= self.max_sent {
            let newly = ack - self.snd_una;
            let idx = ((ack - 1) & self.mask) as usize;
            if !self.retx[idx] {
                let r = now.saturating_sub(self.sent_at[idx]);
                self.rtt_sample(r);
                self.vegas.sample(r);
            }
            self.snd_una = ack;
            self.timeouts_in_row = 0;
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            self.dupacks = 0;
            if self.in_recovery {
                if !self.newreno || ack as i64 > self.recover {
                    self.cwnd = self.ssthresh;
                    self.in_recovery = false;
                } else {
                    // NewReno partial ACK: retransmit the next hole, deflate, stay.
                    self.emit(self.snd_una, now, out);
                    self.cwnd = (self.cwnd - newly as f64 + 1.0).max(1.0);
                }
            } else {
                match self.kind {
                    TcpKind::Reno => self.reno_on_new_ack(),
                    TcpKind::Vegas => self.vegas_on_new_ack(now),
                }
            }
            if self.kind == TcpKind::Vegas && !self.in_recovery {
                self.vegas_post_retransmit_check(now, out);
            }
            if self.snd_nxt > self.snd_una {
                self.restart_timer(now);
            } else {
                self.deadline = None;
            }
        } else if ack == self.snd_una && self.snd_nxt > self.snd_una {
            self.dupacks += 1;
            if self.in_recovery {
                self.cwnd += 1.0;
            } else if (self.dupacks >= self.dupthresh
                || (self.kind == TcpKind::Vegas && self.vegas_timer_expired(now)))
                && (!self.newreno || ack as i64 > self.recover)
            {
                self.enter_recovery(now, out);
            }
        }
        self.send_allowed(now, out);
    }

    /// A timer event scheduled (via [`TcpSender::take_timer`]) for `fired_at` is due at `now`.
    pub fn on_timer(&mut self, fired_at: Time, now: Time, out: &mut Vec<Packet>) {
        if self.timer_at != Some(fired_at) {
            return; // superseded by an earlier event
        }
        self.timer_at = None;
        match self.deadline {
            None => {}
            Some(d) if d > now => self.arm(d),
            Some(_) => self.timeout(now, out),
        }
    }

    /// Fast retransmit and entry into fast recovery.
    fn enter_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        let flight = (self.snd_nxt - self.snd_una) as f64;
        match self.kind {
            TcpKind::Reno => self.ssthresh = (flight / 2.0).max(2.0),
            TcpKind::Vegas => self.vegas_loss_ssthresh(now),
        }
        self.cwnd = self.ssthresh + self.dupacks as f64;
        self.in_recovery = true;
        self.recover = self.max_sent as i64 - 1;
        self.stats.fast_retransmits += 1;
        self.vegas.post_retx_checks = 2;
        self.emit(self.snd_una, now, out);
        self.restart_timer(now);
    }

    /// Retransmission timeout: collapse the window, back off, go back to `snd_una`.
    fn timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.timeouts += 1;
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2), but held constant when the
        // segment had already been retransmitted by the timer.
        if self.timeouts_in_row == 0 {
            let flight = (self.snd_nxt - self.snd_una) as f64;
            self.ssthresh = (flight / 2.0).max(2.0);
        }
        self.timeouts_in_row += 1;
        self.cwnd = 1.0;
        self.dupacks = 0;
        self.in_recovery = false;
        self.recover = self.max_sent as i64 - 1;
        self.rto = (self.rto * 2).min(self.max_rto);
        self.snd_nxt = self.snd_una;
        self.vegas.on_timeout(now, self.snd_una);
        self.deadline = None;
        self.send_allowed(now, out);
    }

    /// Sends new segments while the window allows.
    #[inline]
    fn send_allowed(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = (self.cwnd as u32).clamp(1, self.rwnd);
        let limit = self.snd_una + wnd;
        let before = self.snd_nxt;
        while self.snd_nxt < limit {
            self.emit(self.snd_nxt, now, out);
            self.snd_nxt += 1;
        }
        if self.snd_nxt > before && self.deadline.is_none() {
            self.restart_timer(now);
        }
    }

    /// Puts segment `seq` on the wire.
    #[inline]
    fn emit(&mut self, seq: u32, now: Time, out: &mut Vec<Packet>) {
        let idx = (seq & self.mask) as usize;
        if seq < self.max_sent {
            self.retx[idx] = true;
            self.stats.retransmits += 1;
        } else {
            self.retx[idx] = false;
            self.max_sent = seq + 1;
        }
        self.sent_at[idx] = now;
        self.stats.sent += 1;
        out.push(Packet {
            flow: self.flow,
            seq,
            size: self.pkt_size,
            kind: PktKind::Data,
            enq_at: now,
        });
    }

    /// RFC 6298 estimator; a valid sample also clears the backoff.
    #[inline]
    fn rtt_sample(&mut self, r: Time) {
        let r = r as f64;
        if self.has_rtt {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        } else {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_rtt = true;
        }
        let rto = self.srtt + (self.gran as f64).max(4.0 * self.rttvar);
        self.rto = (rto as Time).clamp(self.min_rto, self.max_rto);
    }

    #[inline]
    fn restart_timer(&mut self, now: Time) {
        let d = now + self.rto;
        self.deadline = Some(d);
        if self.timer_at.is_none_or(|t| t > d) {
            self.arm(d);
        }
    }

    #[inline]
    fn arm(&mut self, at: Time) {
        self.timer_at = Some(at);
        self.timer_req = Some(at);
    }
}

#[cfg(test)]
mod tests;
