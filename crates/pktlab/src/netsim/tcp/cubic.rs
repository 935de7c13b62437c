//! CUBIC congestion control (RFC 9438, Xu, Ha, Rhee et al.), with slow start left by HyStart
//! as Linux's `tcp_cubic.c` does it (Ha & Rhee 2011: ACK-train and delay-increase detection).
//!
//! * Window growth in congestion avoidance (§4.2): `W_cubic(t) = C·(t − K)³ + W_max`, with
//!   `K = ∛((W_max − cwnd_epoch)/C)`, `t` the time since the epoch began (the first ACK in
//!   congestion avoidance after a reduction); per ACK `cwnd += (target − cwnd)/cwnd` with
//!   `target = W_cubic(t + RTT)` clamped to `[cwnd, 1.5·cwnd]` (§4.4, RTT = smoothed RTT).
//! * Reno-friendly region (§4.3): `W_est += α·acked/cwnd`, `α = 3(1−β)/(1+β)` until
//!   `W_est ≥ cwnd_prior`, then 1; if `W_cubic(t) < W_est`, `cwnd = W_est`.
//! * Multiplicative decrease (§4.6): `ssthresh = max(cwnd·β, 2)`, β = 0.7 (on cwnd, as Linux);
//!   fast convergence (§4.7): `W_max = cwnd·(1+β)/2` if the window had not regained the
//!   previous `W_max`. A timeout (§4.8) also resets W_max (Linux `bictcp_reset`).
//! * HyStart, in slow start with cwnd ≥ 16: a round starts when the ACK passes the round's
//!   end; the round ends slow start if the ACK train (ACKs ≤ 2 ms apart) has lasted longer
//!   than minRTT/2, or if the minimum of the round's first 8 RTT samples exceeds minRTT +
//!   clamp(minRTT/8, 4 ms, 16 ms) (`ssthresh = cwnd`).
//!
//! Windows are in segments and times in seconds in the formulas (C = 0.4 segments/s³).

use super::{TcpSender, Time, MS, SEC};

/// CUBIC's C, segments / s³.
pub const C: f64 = 0.4;
/// CUBIC's β (window after a reduction / before).
pub const BETA: f64 = 0.7;
const HYSTART_LOW_WINDOW: f64 = 16.0;
const HYSTART_ACK_DELTA: Time = 2 * MS;
const HYSTART_MIN_SAMPLES: u32 = 8;
const HYSTART_DELAY_MIN: Time = 4 * MS;
const HYSTART_DELAY_MAX: Time = 16 * MS;

/// Per-connection CUBIC state.
#[derive(Clone, Debug)]
pub struct CubicState {
    /// W_max, segments.
    pub w_max: f64,
    /// K, seconds.
    pub k: f64,
    /// Start of the current epoch (None: the next ACK in congestion avoidance starts one).
    pub epoch_start: Option<Time>,
    /// cwnd at the start of the epoch.
    pub cwnd_epoch: f64,
    /// Reno-friendly estimate W_est, segments.
    pub w_est: f64,
    /// cwnd before the last reduction.
    pub cwnd_prior: f64,
    hystart: bool,
    /// True once HyStart ended slow start.
    pub hystart_found: bool,
    round_start: Time,
    end_seq: u32,
    last_ack: Time,
    curr_rtt: Time,
    sample_cnt: u32,
    delay_min: Time,
}

impl CubicState {
    /// Fresh state; `hystart` enables HyStart.
    pub fn new(hystart: bool) -> Self {
        CubicState {
            w_max: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            hystart,
            hystart_found: false,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: Time::MAX,
            sample_cnt: 0,
            delay_min: Time::MAX,
        }
    }

    /// W_cubic(t) of eq. (1), `t` in seconds since the epoch began.
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    /// Starts an epoch at `now` with window `cwnd` (§4.2: K from W_max and cwnd_epoch).
    pub fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch_start = Some(now);
        self.cwnd_epoch = cwnd;
        if cwnd < self.w_max {
            self.k = ((self.w_max - cwnd) / C).cbrt();
        } else {
            self.k = 0.0;
            self.w_max = cwnd;
        }
        self.w_est = cwnd;
    }

    /// One ACK in congestion avoidance: the new cwnd (§4.2–4.4).
    pub fn avoid(&mut self, now: Time, cwnd: f64, acked: f64, srtt: Time) -> f64 {
        if self.epoch_start.is_none() {
            self.start_epoch(now, cwnd);
        }
        let t = (now - self.epoch_start.unwrap_or(now)) as f64 / SEC as f64;
        let rtt = srtt as f64 / SEC as f64;
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - BETA) / (1.0 + BETA)
        };
        self.w_est += alpha * acked / cwnd;
        if self.w_cubic(t) < self.w_est {
            return self.w_est.max(cwnd);
        }
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        cwnd + (target - cwnd) / cwnd * acked
    }

    /// A congestion event at window `cwnd`: the new ssthresh (§4.6–4.7).
    pub fn reduce(&mut self, cwnd: f64) -> f64 {
        self.epoch_start = None;
        self.cwnd_prior = cwnd;
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        (cwnd * BETA).max(2.0)
    }

    /// HyStart on an ACK in slow start; true if slow start should end now.
    fn hystart_update(
        &mut self,
        ack: u32,
        snd_nxt: u32,
        rtt: Option<Time>,
        now: Time,
        cwnd: f64,
    ) -> bool {
        if !self.hystart || self.hystart_found {
            return false;
        }
        if ack > self.end_seq {
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = snd_nxt;
            self.curr_rtt = Time::MAX;
            self.sample_cnt = 0;
        }
        if let Some(r) = rtt {
            self.delay_min = self.delay_min.min(r);
        }
        if cwnd < HYSTART_LOW_WINDOW || self.delay_min == Time::MAX {
            return false;
        }
        // ACK train: consecutive ACKs close together for longer than minRTT/2.
        if now - self.last_ack <= HYSTART_ACK_DELTA {
            self.last_ack = now;
            if now - self.round_start > self.delay_min / 2 {
                self.hystart_found = true;
                return true;
            }
        }
        // Delay increase over the round's first samples.
        if let Some(r) = rtt {
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.curr_rtt = self.curr_rtt.min(r);
                self.sample_cnt += 1;
            } else {
                let eta = (self.delay_min / 8).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if self.curr_rtt > self.delay_min + eta {
                    self.hystart_found = true;
                    return true;
                }
            }
        }
        false
    }
}

impl TcpSender {
    /// CUBIC on an ACK of new data outside recovery (`rtt`: this ACK's Karn sample).
    #[inline]
    pub(super) fn cubic_on_new_ack(&mut self, ack: u32, rtt: Option<Time>, now: Time) {
        let (cwnd, snd_nxt, srtt) = (self.cwnd, self.snd_nxt, self.srtt as Time);
        let Some(c) = self.cubic.as_deref_mut() else {
            return;
        };
        if cwnd < self.ssthresh {
            if c.hystart_update(ack, snd_nxt, rtt, now, cwnd) {
                self.ssthresh = cwnd;
                return;
            }
            self.cwnd += 1.0;
        } else {
            self.cwnd = c.avoid(now, cwnd, 1.0, srtt);
        }
    }

    /// CUBIC's ssthresh on a loss or ECN-echo (`ssthresh = cwnd·β`).
    pub(super) fn cubic_on_congestion(&mut self) -> f64 {
        let cwnd = self.cwnd;
        match self.cubic.as_deref_mut() {
            Some(c) => c.reduce(cwnd),
            None => (cwnd / 2.0).max(2.0),
        }
    }

    /// CUBIC on a retransmission timeout: ssthresh as a loss, then W_max and the epoch reset.
    pub(super) fn cubic_on_timeout(&mut self) -> f64 {
        let s = self.cubic_on_congestion();
        if let Some(c) = self.cubic.as_deref_mut() {
            c.w_max = 0.0;
            c.hystart_found = false;
            c.end_seq = 0;
        }
        s
    }
}
