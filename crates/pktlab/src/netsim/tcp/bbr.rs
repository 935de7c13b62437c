//! BBR v1 congestion control (Cardwell, Cheng, Gunn, Hassas Yeganeh & Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 2016; the state machine as in Linux's
//! `tcp_bbr.c`, read, not copied; delivery-rate estimation as in
//! draft-cheng-iccrg-delivery-rate-estimation).
//!
//! * Model: BtlBw = max of the delivery-rate samples over the last 10 round trips; RTprop =
//!   min RTT over the last 10 s. A rate sample is `Δdelivered / max(send interval, ACK
//!   interval)` of the most recently sent segment the ACK delivered; samples over an interval
//!   shorter than RTprop are discarded. A round trip ends when a segment sent after the
//!   previous round's end is delivered.
//! * STARTUP: pacing and cwnd gain 2/ln 2; the pipe is full when BtlBw grew < 25 % in 3 rounds
//!   → DRAIN (pacing gain ln 2/2) until inflight ≤ BDP → PROBE_BW: pacing gain cycles
//!   [5/4, 3/4, 1, 1, 1, 1, 1, 1], one phase per RTprop (the 5/4 phase lasts until inflight
//!   reaches 5/4·BDP or a loss; the 3/4 phase ends early once inflight ≤ BDP), starting at a
//!   random phase other than 3/4; cwnd gain 2.
//! * PROBE_RTT when RTprop was not refreshed for 10 s: cwnd 4 for max(200 ms, one round)
//!   after inflight reached 4, then back to PROBE_BW (or STARTUP if the pipe was never full).
//! * cwnd = cwnd_gain·BDP + 3 segments (Linux's quantisation budget; +2 more in the 5/4
//!   phase), approached by `+acked` per ACK; min 4. Loss recovery: packet conservation for
//!   the first round (cwnd = inflight + acked), the prior cwnd restored on exit; a timeout
//!   sets cwnd to 1 and restores it once the lost window is acknowledged.
//! * Pacing rate = pacing_gain · BtlBw · 99 % (Linux's 1 % margin), never lowered before the
//!   pipe is full; before any sample, 2/ln 2 · init_cwnd per 1 ms. BBR v1 ignores ECN.

use super::{TcpSender, Time, MS, SEC};
use crate::util::SplitMix64;

/// 2/ln 2: STARTUP's pacing and cwnd gain.
pub const HIGH_GAIN: f64 = 2.0 / std::f64::consts::LN_2;
/// PROBE_BW's pacing-gain cycle.
pub const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
const CWND_GAIN: f64 = 2.0;
const BW_ROUNDS: u64 = 10;
const MIN_RTT_WINDOW: Time = 10 * SEC;
const PROBE_RTT_TIME: Time = 200 * MS;
/// Minimum cwnd (and PROBE_RTT's cwnd), segments.
pub const MIN_CWND: f64 = 4.0;
const QUANTIZATION: f64 = 3.0;
const LOG_CAP: usize = 256;

/// BBR's state-machine mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    /// Exponential search for the bottleneck bandwidth.
    Startup,
    /// Drain the queue STARTUP built.
    Drain,
    /// Steady state: cycle the pacing gain around BtlBw.
    ProbeBw,
    /// Refresh RTprop with a small window.
    ProbeRtt,
}

/// Per-connection BBR state.
#[derive(Clone, Debug)]
pub struct BbrState {
    /// Current mode.
    pub mode: BbrMode,
    /// Current pacing gain.
    pub pacing_gain: f64,
    /// Current cwnd gain.
    pub cwnd_gain: f64,
    /// Index into [`CYCLE`] in PROBE_BW.
    pub cycle_idx: usize,
    /// True once STARTUP found the pipe full.
    pub full_bw_reached: bool,
    /// RTprop estimate, ns (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    /// Round trips counted so far.
    pub round_count: u64,
    /// Pacing rate, segments per second.
    pub pacing_rate: f64,
    /// Mode changes (time, new mode), the first 256.
    pub transitions: Vec<(Time, BbrMode)>,
    /// PROBE_BW phases entered (time, cycle index), the first 256.
    pub phases: Vec<(Time, usize)>,
    bw_slot: [f64; BW_ROUNDS as usize],
    bw_round: [u64; BW_ROUNDS as usize],
    next_round_delivered: u64,
    round_start: bool,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    tx_delivered: Vec<u64>,
    tx_delivered_time: Vec<Time>,
    tx_first_sent: Vec<Time>,
    /// Per ring slot: sent and not yet counted as delivered (Linux: `tx.delivered_mstamp`
    /// non-zero). A segment is counted once, whether SACKed, cumulatively ACKed, or both,
    /// and also across a timeout that clears the SACK scoreboard.
    tx_pending: Vec<bool>,
    /// Segments newly delivered by the ACK being processed.
    ack_delivered: u32,
    /// The most recently sent of them: (ring slot, send time).
    ack_sample: Option<(usize, Time)>,
    min_rtt_stamp: Time,
    full_bw: f64,
    full_bw_cnt: u32,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prior_cwnd: f64,
    packet_conservation: bool,
    loss_end: Option<u32>,
    lost: bool,
    init_cwnd: f64,
    rng: SplitMix64,
}

impl BbrState {
    /// State for a sender with a window ring of `cap` segments.
    pub fn new(cap: u32, flow: u32, init_cwnd: f64) -> Self {
        BbrState {
            mode: BbrMode::Startup,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_idx: 0,
            full_bw_reached: false,
            min_rtt: Time::MAX,
            round_count: 0,
            pacing_rate: HIGH_GAIN * init_cwnd / 1e-3,
            transitions: {
                // Preallocated: logging never allocates while the flow runs.
                let mut t = Vec::with_capacity(LOG_CAP);
                t.push((0, BbrMode::Startup));
                t
            },
            phases: Vec::with_capacity(LOG_CAP),
            bw_slot: [0.0; BW_ROUNDS as usize],
            bw_round: [0; BW_ROUNDS as usize],
            next_round_delivered: 0,
            round_start: false,
            delivered: 0,
            delivered_time: 0,
            first_sent_time: 0,
            tx_delivered: vec![0; cap as usize],
            tx_delivered_time: vec![0; cap as usize],
            tx_first_sent: vec![0; cap as usize],
            tx_pending: vec![false; cap as usize],
            ack_delivered: 0,
            ack_sample: None,
            min_rtt_stamp: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            cycle_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0.0,
            packet_conservation: false,
            loss_end: None,
            lost: false,
            init_cwnd,
            rng: SplitMix64::new(0xBB5 ^ flow as u64),
        }
    }

    /// BtlBw: the max-filtered delivery rate, segments per second (0 before any sample).
    pub fn btl_bw(&self) -> f64 {
        let mut m = 0.0f64;
        for i in 0..BW_ROUNDS as usize {
            if self.bw_round[i] + BW_ROUNDS > self.round_count {
                m = m.max(self.bw_slot[i]);
            }
        }
        m
    }

    /// BDP·gain in segments (init_cwnd before the model has a bandwidth and an RTT).
    pub fn bdp(&self, gain: f64) -> f64 {
        let bw = self.btl_bw();
        if self.min_rtt == Time::MAX || bw == 0.0 {
            return self.init_cwnd;
        }
        bw * (self.min_rtt as f64 / SEC as f64) * gain
    }

    /// Inflight target with the quantisation budget (Linux `bbr_inflight` + budget).
    fn inflight_target(&self, gain: f64) -> f64 {
        let mut t = self.bdp(gain) + QUANTIZATION;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            t += 2.0;
        }
        t
    }

    /// Time between two paced segments, ns.
    #[inline]
    pub fn pacing_gap(&self) -> Time {
        (SEC as f64 / self.pacing_rate) as Time
    }

    fn set_mode(&mut self, now: Time, m: BbrMode) {
        self.mode = m;
        if self.transitions.len() < LOG_CAP {
            self.transitions.push((now, m));
        }
    }

    fn advance_cycle(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
        self.cycle_stamp = now;
        if self.phases.len() < LOG_CAP {
            self.phases.push((now, self.cycle_idx));
        }
    }

    fn reset_probe_bw(&mut self, now: Time) {
        self.set_mode(now, BbrMode::ProbeBw);
        // Start at a random phase other than 3/4 (index 1).
        let r = (self.rng.next_u64() % (CYCLE.len() as u64 - 1)) as usize;
        self.cycle_idx = CYCLE.len() - 1 - r;
        self.advance_cycle(now);
    }

    fn save_cwnd(&mut self, cwnd: f64, in_recovery: bool) {
        self.prior_cwnd = if !in_recovery && self.mode != BbrMode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    /// Segment in ring slot `idx`, last sent at `sent`, is delivered (SACKed or cumulatively
    /// ACKed) by the ACK being processed: count it unless it was counted before, and keep
    /// the most recently sent one as the rate sample's reference (Linux
    /// `tcp_rate_skb_delivered`; ties go to the later call, i.e. the higher sequence).
    #[inline]
    pub(super) fn mark_delivered(&mut self, idx: usize, sent: Time) {
        if !self.tx_pending[idx] {
            return;
        }
        self.tx_pending[idx] = false;
        self.ack_delivered += 1;
        if self.ack_sample.is_none_or(|(_, t)| sent >= t) {
            self.ack_sample = Some((idx, sent));
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (1.0 / HIGH_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (CYCLE[self.cycle_idx], CWND_GAIN),
            BbrMode::ProbeRtt => (1.0, 1.0),
        };
    }
}

impl TcpSender {
    /// Records the delivery state of the segment in ring slot `idx`, sent at `now`; `first`
    /// if this is its first transmission, `idle` if nothing else is outstanding (Linux
    /// `tcp_rate_skb_sent`: `packets_out == 0`, which stays false after a timeout, so the
    /// go-back-N retransmissions keep the pre-timeout delivery clock).
    #[inline]
    pub(super) fn bbr_on_send(&mut self, idx: usize, now: Time, first: bool, idle: bool) {
        let Some(b) = self.bbr.as_deref_mut() else {
            return;
        };
        if idle {
            b.first_sent_time = now;
            b.delivered_time = now;
        }
        if first {
            b.tx_pending[idx] = true;
        }
        b.tx_delivered[idx] = b.delivered;
        b.tx_delivered_time[idx] = b.delivered_time;
        b.tx_first_sent[idx] = b.first_sent_time;
    }

    /// Segments BBR counts in flight (Linux `tcp_packets_in_flight`): with SACK, RFC 6675's
    /// pipe — SACKed and lost-but-not-retransmitted segments excluded; without, the
    /// duplicate-ACKed ones left out during recovery.
    fn bbr_inflight(&mut self) -> f64 {
        if let Some((pipe, _)) = self.sack_pipe() {
            return pipe as f64;
        }
        let flight = self.snd_nxt.saturating_sub(self.snd_una) as f64;
        let gone = if self.in_recovery {
            self.dupacks as f64
        } else {
            0.0
        };
        (flight - gone).max(0.0)
    }

    /// BBR's model, state machine, pacing rate and cwnd on an ACK, after the segments it
    /// delivered were passed to [`BbrState::mark_delivered`].
    pub(super) fn bbr_on_ack(&mut self, rtt: Option<Time>, prior_flight: u32, now: Time) {
        let inflight = self.bbr_inflight();
        let (cwnd, in_recovery, srtt) = (self.cwnd, self.in_recovery, self.srtt);
        let snd_una = self.snd_una;
        let Some(b) = self.bbr.as_deref_mut() else {
            return;
        };
        let acked = std::mem::take(&mut b.ack_delivered);
        let newest_state = b.ack_sample.take();
        // Delivery-rate sample and round counting.
        if acked > 0 {
            b.delivered += acked as u64;
            b.delivered_time = now;
        }
        b.round_start = false;
        if let Some((i, sent)) = newest_state {
            let prior = b.tx_delivered[i];
            if prior >= b.next_round_delivered {
                b.next_round_delivered = b.delivered;
                b.round_count += 1;
                b.round_start = true;
                b.packet_conservation = false;
            }
            let send_elapsed = sent.saturating_sub(b.tx_first_sent[i]);
            let ack_elapsed = now.saturating_sub(b.tx_delivered_time[i]);
            let interval = send_elapsed.max(ack_elapsed);
            b.first_sent_time = sent;
            if interval > 0 && (b.min_rtt == Time::MAX || interval >= b.min_rtt) {
                let bw = (b.delivered - prior) as f64 * SEC as f64 / interval as f64;
                let slot = (b.round_count % BW_ROUNDS) as usize;
                if b.bw_round[slot] != b.round_count {
                    b.bw_round[slot] = b.round_count;
                    b.bw_slot[slot] = 0.0;
                }
                b.bw_slot[slot] = b.bw_slot[slot].max(bw);
            }
        }
        // PROBE_BW gain cycling.
        if b.mode == BbrMode::ProbeBw {
            let gain = b.pacing_gain;
            let full_length = b.min_rtt != Time::MAX && now - b.cycle_stamp > b.min_rtt;
            let next = if gain > 1.0 {
                full_length && (b.lost || prior_flight as f64 >= b.inflight_target(gain))
            } else if gain < 1.0 {
                full_length || prior_flight as f64 <= b.inflight_target(1.0)
            } else {
                full_length
            };
            if next {
                b.advance_cycle(now);
            }
        }
        // Full pipe: BtlBw grew < 25 % for 3 rounds.
        if !b.full_bw_reached && b.round_start {
            let bw = b.btl_bw();
            if bw >= b.full_bw * 1.25 {
                b.full_bw = bw;
                b.full_bw_cnt = 0;
            } else {
                b.full_bw_cnt += 1;
                b.full_bw_reached = b.full_bw_cnt >= 3;
            }
        }
        if b.mode == BbrMode::Startup && b.full_bw_reached {
            b.set_mode(now, BbrMode::Drain);
        }
        if b.mode == BbrMode::Drain && inflight <= b.inflight_target(1.0) {
            b.reset_probe_bw(now);
        }
        // RTprop and PROBE_RTT.
        let expired = now > b.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(r) = rtt {
            if r < b.min_rtt || expired {
                b.min_rtt = r;
                b.min_rtt_stamp = now;
            }
        }
        let mut new_cwnd = cwnd;
        if expired && b.mode != BbrMode::ProbeRtt && b.min_rtt != Time::MAX {
            b.save_cwnd(cwnd, in_recovery);
            b.set_mode(now, BbrMode::ProbeRtt);
            b.probe_rtt_done = None;
        }
        if b.mode == BbrMode::ProbeRtt {
            match b.probe_rtt_done {
                None if inflight <= MIN_CWND => {
                    b.probe_rtt_done = Some(now + PROBE_RTT_TIME);
                    b.probe_rtt_round_done = false;
                    b.next_round_delivered = b.delivered;
                }
                Some(done) => {
                    if b.round_start {
                        b.probe_rtt_round_done = true;
                    }
                    if b.probe_rtt_round_done && now > done {
                        b.min_rtt_stamp = now;
                        new_cwnd = new_cwnd.max(b.prior_cwnd);
                        if b.full_bw_reached {
                            b.reset_probe_bw(now);
                        } else {
                            b.set_mode(now, BbrMode::Startup);
                        }
                    }
                }
                None => {}
            }
        }
        b.update_gains();
        // Pacing rate.
        let bw = b.btl_bw();
        if bw > 0.0 {
            let rate = b.pacing_gain * bw * 0.99;
            if b.full_bw_reached || rate > b.pacing_rate {
                b.pacing_rate = rate;
            }
        } else if srtt > 0.0 {
            b.pacing_rate = HIGH_GAIN * b.init_cwnd * SEC as f64 / srtt;
        }
        // After a timeout: restore the prior cwnd once the lost window is acknowledged.
        if let Some(end) = b.loss_end {
            if snd_una > end {
                b.loss_end = None;
                new_cwnd = new_cwnd.max(b.prior_cwnd);
            }
        }
        // cwnd.
        let target = b.inflight_target(b.cwnd_gain);
        let acked = acked as f64;
        if acked > 0.0 {
            if in_recovery && b.packet_conservation {
                new_cwnd = new_cwnd.max(inflight + acked);
            } else if b.full_bw_reached {
                new_cwnd = (new_cwnd + acked).min(target);
            } else if new_cwnd < target || (b.delivered as f64) < b.init_cwnd {
                new_cwnd += acked;
            }
            new_cwnd = new_cwnd.max(MIN_CWND);
        }
        if b.mode == BbrMode::ProbeRtt {
            new_cwnd = new_cwnd.min(MIN_CWND);
        }
        b.lost = false;
        self.cwnd = new_cwnd;
    }

    /// Fast recovery begins: save cwnd, packet conservation for one round.
    pub(super) fn bbr_enter_recovery(&mut self) {
        let inflight = self.bbr_inflight();
        let (cwnd, in_rec) = (self.cwnd, self.in_recovery);
        let Some(b) = self.bbr.as_deref_mut() else {
            return;
        };
        b.save_cwnd(cwnd, in_rec);
        b.packet_conservation = true;
        b.next_round_delivered = b.delivered;
        b.lost = true;
        self.cwnd = (inflight + 1.0).max(1.0);
    }

    /// Fast recovery ended: restore the saved cwnd.
    pub(super) fn bbr_exit_recovery(&mut self) {
        let Some(b) = self.bbr.as_deref_mut() else {
            return;
        };
        b.packet_conservation = false;
        self.cwnd = self.cwnd.max(b.prior_cwnd);
    }

    /// Retransmission timeout: save cwnd (the caller sets it to 1), restore it later.
    pub(super) fn bbr_on_timeout(&mut self) {
        let (cwnd, in_rec, max_sent) = (self.cwnd, self.in_recovery, self.max_sent);
        let Some(b) = self.bbr.as_deref_mut() else {
            return;
        };
        b.save_cwnd(cwnd, in_rec);
        b.packet_conservation = false;
        b.full_bw = 0.0;
        b.lost = true;
        b.loss_end = Some(max_sent.saturating_sub(1));
    }
}
