//! Bulk-transfer TCP senders at packet level: the machinery shared by all variants — sending,
//! cumulative-ACK processing, duplicate-ACK counting, fast retransmit / fast recovery entry,
//! the retransmission timer (RFC 6298: Jacobson/Karels estimation, Karn's rule, exponential
//! backoff, configurable minimum RTO), ECN (RFC 3168: ECT on first transmissions, one window
//! reduction per window on ECE, CWR on the next segment), pacing — and the congestion-control
//! hooks, one file per algorithm: [`reno`] (RFC 5681 Reno, RFC 6582 NewReno), [`vegas`]
//! (Brakmo & Peterson 1995), [`cubic`] (RFC 9438 with Linux's HyStart) and [`bbr`] (BBR v1,
//! Cardwell et al. 2016). SACK loss recovery (RFC 2018 / RFC 6675) is in [`sack`].
//!
//! Sequence numbers count segments. The sender never runs out of data. Without SACK the
//! receiver sends cumulative ACKs only; after a timeout the sender goes back to `snd_una`
//! (go-back-N), as BSD and ns-3 without SACK do; with SACK it keeps the scoreboard and
//! resends only the un-SACKed segments (RFC 6675 §5.1, [`sack`]). RTT is sampled on every
//! ACK whose newest acknowledged segment was sent once (Karn; no timestamp option) and, with
//! SACK, was delivered by that ACK.

pub mod bbr;
pub mod cubic;
pub mod reno;
pub mod sack;
pub mod vegas;

use super::{ecn, Packet, PktKind, Time, MS, SEC};
use crate::netsim::NetsimError;
use bbr::BbrState;
use cubic::CubicState;
use sack::Scoreboard;
use vegas::VegasState;

/// TCP variant of a sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpKind {
    /// TCP Reno (NewReno partial-ACK handling if [`TcpConfig::newreno`]).
    Reno,
    /// TCP Vegas.
    Vegas,
    /// CUBIC (RFC 9438) with HyStart.
    Cubic,
    /// BBR v1 (paced).
    Bbr,
}

impl TcpKind {
    /// `reno`, `vegas`, `cubic` or `bbr`.
    pub fn name(self) -> &'static str {
        match self {
            TcpKind::Reno => "reno",
            TcpKind::Vegas => "vegas",
            TcpKind::Cubic => "cubic",
            TcpKind::Bbr => "bbr",
        }
    }
}

/// What an ACK tells the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckInfo {
    /// Cumulative ACK: the next segment the receiver expects.
    pub seq: u32,
    /// ECN-echo (RFC 3168).
    pub ece: bool,
    /// SACK blocks `[start, end)` in segments (RFC 2018), the first `nsack` valid.
    pub sack: [(u32, u32); 3],
    /// Number of valid SACK blocks.
    pub nsack: u8,
}

impl AckInfo {
    /// A plain cumulative ACK.
    pub fn cumulative(seq: u32) -> Self {
        AckInfo {
            seq,
            ..AckInfo::default()
        }
    }
    /// The valid SACK blocks.
    pub fn blocks(&self) -> &[(u32, u32)] {
        &self.sack[..self.nsack as usize]
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
    /// SACK (RFC 2018) with RFC 6675 loss recovery; the receiver must report blocks too.
    pub sack: bool,
    /// ECN (RFC 3168): data segments are ECT, ECE halves the window once per window.
    pub ecn: bool,
    /// CUBIC: use HyStart (Linux's default) to leave slow start.
    pub hystart: bool,
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
            sack: false,
            ecn: false,
            hystart: true,
        }
    }
}

impl TcpConfig {
    /// Checks the parameters; the error is one line.
    pub fn validate(&self) -> Result<(), NetsimError> {
        if self.mss == 0 || self.mss > 65_000 {
            return Err(format!("tcp: mss must be in 1..=65000 (got {})", self.mss).into());
        }
        if self.init_cwnd == 0 {
            return Err("tcp: initial cwnd must be at least 1 segment".into());
        }
        if !(2..=(1 << 20)).contains(&self.rwnd) {
            return Err(format!(
                "tcp: receiver window must be in 2..=1048576 segments (got {})",
                self.rwnd
            )
            .into());
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
            )
            .into());
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
    /// Window reductions caused by ECN-echo (RFC 3168).
    pub ecn_reductions: u64,
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
    /// SACK loss recovery entered by a timeout (RFC 6675 §5.1; Linux `TCP_CA_Loss`): every
    /// un-SACKed segment up to `recover` is lost, and the window grows as outside recovery.
    rto_loss: bool,
    recover: i64,
    srtt: f64,
    rttvar: f64,
    rto: Time,
    has_rtt: bool,
    timeouts_in_row: u32,
    /// Time of the last retransmission timeout (SACK senders take no RTT sample from a
    /// segment sent before it; see [`TcpSender::on_ack_info`]).
    last_timeout: Time,
    sent_at: Vec<Time>,
    retx: Vec<bool>,
    mask: u32,
    deadline: Option<Time>,
    timer_at: Option<Time>,
    timer_req: Option<Time>,
    vegas: VegasState,
    /// ECN enabled.
    ecn: bool,
    /// Highest segment of the window in which the last reduction happened (RFC 3168: at
    /// most one reduction per window).
    ecn_recover: i64,
    /// Set CWR on the next new segment.
    send_cwr: bool,
    sb: Option<Box<Scoreboard>>,
    cubic: Option<Box<CubicState>>,
    bbr: Option<Box<BbrState>>,
    /// Pacing: earliest time of the next new segment (BBR).
    next_send: Time,
    pace_at: Option<Time>,
    pace_req: Option<Time>,
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
            rto_loss: false,
            recover: -1,
            srtt: 0.0,
            rttvar: 0.0,
            rto: cfg.initial_rto.clamp(cfg.min_rto, cfg.max_rto),
            has_rtt: false,
            timeouts_in_row: 0,
            last_timeout: 0,
            sent_at: vec![0; cap as usize],
            retx: vec![false; cap as usize],
            mask: cap - 1,
            deadline: None,
            timer_at: None,
            timer_req: None,
            vegas: VegasState::new(),
            ecn: cfg.ecn,
            ecn_recover: -1,
            send_cwr: false,
            sb: cfg.sack.then(|| Box::new(Scoreboard::new(cap))),
            cubic: (kind == TcpKind::Cubic).then(|| Box::new(CubicState::new(cfg.hystart))),
            bbr: (kind == TcpKind::Bbr)
                .then(|| Box::new(BbrState::new(cap, flow, cfg.init_cwnd as f64))),
            next_send: 0,
            pace_at: None,
            pace_req: None,
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

    /// A pacing event the owner must schedule (paced senders only): call
    /// [`TcpSender::on_pace`] with this time when it is due.
    #[inline]
    pub fn take_pace_timer(&mut self) -> Option<Time> {
        self.pace_req.take()
    }

    /// A pacing event scheduled (via [`TcpSender::take_pace_timer`]) for `at` is due at `now`.
    pub fn on_pace(&mut self, at: Time, now: Time, out: &mut Vec<Packet>) {
        if self.pace_at != Some(at) {
            return;
        }
        self.pace_at = None;
        self.transmit(now, out);
    }

    /// The BBR state (BBR senders only).
    pub fn bbr(&self) -> Option<&BbrState> {
        self.bbr.as_deref()
    }

    /// The CUBIC state (CUBIC senders only).
    pub fn cubic(&self) -> Option<&CubicState> {
        self.cubic.as_deref()
    }

    /// Starts the transfer at `now`; packets to transmit are appended to `out`.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.vegas.beg_snd_nxt = 0;
        self.send_allowed(now, out);
    }

    /// Processes a cumulative ACK (`ack` = next segment the receiver expects).
    pub fn on_ack(&mut self, ack: u32, now: Time, out: &mut Vec<Packet>) {
        self.on_ack_info(&AckInfo::cumulative(ack), now, out);
    }

    /// Processes an ACK with its ECN-echo flag and SACK blocks.
    pub fn on_ack_info(&mut self, a: &AckInfo, now: Time, out: &mut Vec<Packet>) {
        let ack = a.seq;
        let prior_flight = self.snd_nxt.saturating_sub(self.snd_una);
        if let Some(sb) = self.sb.as_deref_mut() {
            let una = ack.max(self.snd_una);
            match self.bbr.as_deref_mut() {
                Some(b) => {
                    let (sent_at, mask) = (&self.sent_at, self.mask);
                    sb.update_each(a.blocks(), una, self.max_sent, |q| {
                        let i = (q & mask) as usize;
                        b.mark_delivered(i, sent_at[i]);
                    });
                }
                None => {
                    sb.update(a.blocks(), una, self.max_sent);
                }
            }
        }
        let mut rtt = None;
        if ack > self.snd_una && ack <= self.max_sent {
            let newly = ack - self.snd_una;
            let idx = ((ack - 1) & self.mask) as usize;
            // Karn: no sample from a retransmitted segment. With SACK, also none from a
            // segment delivered before this ACK: one SACKed earlier (Linux takes RTT samples
            // only from skbs not `TCPCB_SACKED_ACKED`), or one sent before the last timeout,
            // whose SACK the timeout erased from the scoreboard (ns-3 clears its RTT history
            // on a timeout). Otherwise the cumulative ACK that fills a hole would time the
            // hole's highest SACKed neighbour from its first transmission, seconds ago.
            let fresh = self
                .sb
                .as_deref()
                .is_none_or(|sb| !sb.is_sacked(ack - 1) && self.sent_at[idx] >= self.last_timeout);
            if !self.retx[idx] && fresh {
                let r = now.saturating_sub(self.sent_at[idx]);
                self.rtt_sample(r);
                self.vegas.sample(r);
                rtt = Some(r);
            }
            if let Some(sb) = self.sb.as_deref_mut() {
                sb.advance(self.snd_una, ack);
            }
            if let Some(b) = self.bbr.as_deref_mut() {
                // Segments SACKed before were delivered then, not now (mark_delivered skips
                // them, also after a timeout cleared the scoreboard).
                for q in self.snd_una..ack {
                    let i = (q & self.mask) as usize;
                    b.mark_delivered(i, self.sent_at[i]);
                }
            }
            self.snd_una = ack;
            self.timeouts_in_row = 0;
            if self.sb.is_some() && self.has_rtt && rtt.is_none() {
                // SACK: new data acknowledged ends the timer backoff even without a clean
                // sample (ns-3 recomputes the RTO from SRTT on every new ACK; Linux, with
                // timestamps, samples every ACK). Karn's rule alone would keep a backed-off
                // RTO through a long SACK recovery, where clean samples are rare.
                self.set_rto();
            }
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            self.dupacks = 0;
            if self.in_recovery {
                if self.sb.is_some() {
                    if self.rto_loss {
                        self.grow_on_new_ack(ack, rtt, now);
                    }
                    if ack as i64 > self.recover {
                        self.exit_recovery();
                    }
                } else if !self.newreno || ack as i64 > self.recover {
                    self.cwnd = self.ssthresh;
                    self.exit_recovery();
                } else {
                    // NewReno partial ACK: retransmit the next hole, deflate, stay.
                    self.emit(self.snd_una, now, out);
                    self.cwnd = (self.cwnd - newly as f64 + 1.0).max(1.0);
                }
            } else {
                self.grow_on_new_ack(ack, rtt, now);
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
                if self.sb.is_none() && self.kind != TcpKind::Bbr {
                    self.cwnd += 1.0;
                }
            } else if (self.dupacks >= self.dupthresh
                || (self.kind == TcpKind::Vegas && self.vegas_timer_expired(now)))
                && (!self.newreno || ack as i64 > self.recover)
            {
                self.enter_recovery(now, out);
            }
        }
        // RFC 6675: enough SACKed segments above snd_una mean it is lost, duplicate ACKs or not.
        if !self.in_recovery
            && ack as i64 > self.recover
            && self
                .sb
                .as_deref()
                .is_some_and(|sb| sb.lost_from(self.snd_una, self.snd_nxt, self.dupthresh))
        {
            self.enter_recovery(now, out);
        }
        if a.ece && self.ecn && !self.in_recovery && ack as i64 > self.ecn_recover {
            self.ecn_reduce(now);
        }
        if self.kind == TcpKind::Bbr {
            self.bbr_on_ack(rtt, prior_flight, now);
        }
        self.transmit(now, out);
    }

    /// The variant's window growth on an ACK of new data (BBR sets its cwnd in
    /// `bbr_on_ack`).
    #[inline]
    fn grow_on_new_ack(&mut self, ack: u32, rtt: Option<Time>, now: Time) {
        match self.kind {
            TcpKind::Reno => self.reno_on_new_ack(),
            TcpKind::Vegas => self.vegas_on_new_ack(now),
            TcpKind::Cubic => self.cubic_on_new_ack(ack, rtt, now),
            TcpKind::Bbr => {}
        }
    }

    /// Leaves fast recovery (the window was already set by the variant).
    #[inline]
    fn exit_recovery(&mut self) {
        self.in_recovery = false;
        self.rto_loss = false;
        if self.kind == TcpKind::Bbr {
            self.bbr_exit_recovery();
        }
    }

    /// Sends what the window (and, during SACK recovery, the pipe) allows.
    #[inline]
    fn transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.in_recovery && self.sb.is_some() {
            self.sack_transmit(now, out);
        } else {
            self.send_allowed(now, out);
        }
    }

    /// RFC 3168 §6.1.2: ECN-echo outside recovery reduces the window once per window of
    /// data, without a retransmission (BBR v1 ignores ECN, as Linux's).
    fn ecn_reduce(&mut self, now: Time) {
        if self.kind == TcpKind::Bbr {
            return;
        }
        self.ssthresh = self.reduced_ssthresh(now);
        self.cwnd = self.ssthresh;
        self.ecn_recover = self.max_sent as i64 - 1;
        self.send_cwr = true;
        self.stats.ecn_reductions += 1;
    }

    /// The variant's slow-start threshold after a congestion signal (loss or ECN).
    fn reduced_ssthresh(&mut self, now: Time) -> f64 {
        let flight = (self.snd_nxt - self.snd_una) as f64;
        match self.kind {
            TcpKind::Reno => (flight / 2.0).max(2.0),
            TcpKind::Vegas => {
                self.vegas_loss_ssthresh(now);
                self.ssthresh
            }
            TcpKind::Cubic => self.cubic_on_congestion(),
            TcpKind::Bbr => self.ssthresh,
        }
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
        if self.kind == TcpKind::Bbr {
            self.bbr_enter_recovery();
        } else {
            self.ssthresh = self.reduced_ssthresh(now);
            // RFC 6675 §5 step 4.2: cwnd = ssthresh, the pipe decides what is sent; without
            // SACK, RFC 5681's inflation by the duplicate ACKs seen.
            self.cwnd = if self.sb.is_some() {
                self.ssthresh
            } else {
                self.ssthresh + self.dupacks as f64
            };
        }
        self.in_recovery = true;
        self.recover = self.max_sent as i64 - 1;
        self.ecn_recover = self.ecn_recover.max(self.recover);
        self.stats.fast_retransmits += 1;
        self.vegas.post_retx_checks = 2;
        if let Some(sb) = self.sb.as_deref_mut() {
            sb.high_rxt = self.snd_una;
        }
        self.emit(self.snd_una, now, out);
        self.restart_timer(now);
    }

    /// Retransmission timeout: collapse the window, back off, go back to `snd_una`.
    fn timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.stats.timeouts += 1;
        self.last_timeout = now;
        // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2), but held constant when the
        // segment had already been retransmitted by the timer.
        if self.timeouts_in_row == 0 {
            let flight = (self.snd_nxt - self.snd_una) as f64;
            self.ssthresh = match self.kind {
                TcpKind::Cubic => self.cubic_on_timeout(),
                _ => (flight / 2.0).max(2.0),
            };
        }
        if self.kind == TcpKind::Bbr {
            self.bbr_on_timeout();
        }
        self.timeouts_in_row += 1;
        self.cwnd = 1.0;
        self.dupacks = 0;
        self.recover = self.max_sent as i64 - 1;
        self.rto = (self.rto * 2).min(self.max_rto);
        self.vegas.on_timeout(now, self.snd_una);
        self.deadline = None;
        if let Some(sb) = self.sb.as_deref_mut() {
            // SACK: keep the scoreboard (RFC 6675 §5.1 and its erratum 1610: the receiver
            // never reneges here; Linux and ns-3 keep it too), count every un-SACKed segment
            // up to the recovery point lost, and resend them in order, lowest first, as the
            // pipe allows — not go-back-N over segments the receiver already holds.
            self.in_recovery = true;
            self.rto_loss = true;
            sb.clear_rtx(self.snd_una, self.max_sent);
            sb.high_rxt = self.snd_una;
            self.emit(self.snd_una, now, out);
            self.restart_timer(now);
            return;
        }
        self.in_recovery = false;
        self.snd_nxt = self.snd_una;
        self.send_allowed(now, out);
    }

    /// Sends new segments while the window (and pacing) allows.
    #[inline]
    fn send_allowed(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = (self.cwnd as u32).clamp(1, self.rwnd);
        let limit = self.snd_una + wnd;
        let before = self.snd_nxt;
        while self.snd_nxt < limit {
            if !self.pace(now) {
                break;
            }
            self.emit(self.snd_nxt, now, out);
            self.snd_nxt += 1;
        }
        if self.snd_nxt > before && self.deadline.is_none() {
            self.restart_timer(now);
        }
    }

    /// Pacing gate for one new segment: true if it may leave now (and books its slot);
    /// otherwise asks for a pacing event at the next slot. Unpaced senders always pass.
    #[inline]
    fn pace(&mut self, now: Time) -> bool {
        let Some(gap) = self.bbr.as_deref().map(|b| b.pacing_gap()) else {
            return true;
        };
        if now < self.next_send {
            if self.pace_at != Some(self.next_send) {
                self.pace_at = Some(self.next_send);
                self.pace_req = Some(self.next_send);
            }
            return false;
        }
        self.next_send = now + gap;
        true
    }

    /// Puts segment `seq` on the wire.
    #[inline]
    fn emit(&mut self, seq: u32, now: Time, out: &mut Vec<Packet>) {
        let idx = (seq & self.mask) as usize;
        let mut bits = 0;
        let first = seq >= self.max_sent;
        let idle = self.snd_una == self.max_sent;
        if seq < self.max_sent {
            self.retx[idx] = true;
            self.stats.retransmits += 1;
            if let Some(sb) = self.sb.as_deref_mut() {
                sb.mark_rtx(seq);
            }
        } else {
            self.retx[idx] = false;
            self.max_sent = seq + 1;
            // RFC 3168 §6.1.5: retransmissions are not ECT.
            if self.ecn {
                bits = ecn::ECT;
                if self.send_cwr {
                    bits |= ecn::CWR;
                    self.send_cwr = false;
                }
            }
        }
        if self.kind == TcpKind::Bbr {
            self.bbr_on_send(idx, now, first, idle);
        }
        self.sent_at[idx] = now;
        self.stats.sent += 1;
        out.push(Packet {
            flow: self.flow,
            seq,
            size: self.pkt_size,
            kind: PktKind::Data,
            ecn: bits,
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
        self.set_rto();
    }

    /// RTO = SRTT + max(G, 4·RTTVAR), clamped (RFC 6298 §2.3): clears any backoff.
    #[inline]
    fn set_rto(&mut self) {
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
