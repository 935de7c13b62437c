//! Sender state-machine tests driven by hand-made ACK sequences.

use super::*;

fn sender(newreno: bool, cwnd: f64) -> (TcpSender, Vec<Packet>) {
    let cfg = TcpConfig {
        newreno,
        ..TcpConfig::default()
    };
    sender_with(&cfg, cwnd)
}

/// A started Reno sender in congestion avoidance at `cwnd`; its first window is returned.
fn sender_with(cfg: &TcpConfig, cwnd: f64) -> (TcpSender, Vec<Packet>) {
    cfg.validate().unwrap();
    let mut s = TcpSender::new(0, TcpKind::Reno, cfg);
    s.cwnd = cwnd;
    s.ssthresh = cwnd; // congestion avoidance
    let mut out = Vec::new();
    s.start(0, &mut out);
    (s, out)
}

#[test]
fn three_dupacks_fast_retransmit_and_halve() {
    let (mut s, mut out) = sender(false, 20.0);
    assert_eq!(out.len(), 20);
    out.clear();
    // Segment 0 lost: segments 1, 2, 3 each produce a duplicate ACK for 0.
    s.on_ack(0, 100 * MS, &mut out);
    s.on_ack(0, 100 * MS, &mut out);
    assert!(out.is_empty() && s.stats.fast_retransmits == 0);
    s.on_ack(0, 100 * MS, &mut out);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(out[0].seq, 0, "retransmits the missing segment");
    assert_eq!(s.ssthresh(), 10.0, "ssthresh = FlightSize / 2");
    assert_eq!(s.cwnd(), 13.0, "cwnd = ssthresh + 3 (inflated)");
    assert!(s.in_recovery());
    // More duplicates inflate the window and release new segments.
    out.clear();
    for _ in 0..4 {
        s.on_ack(0, 101 * MS, &mut out);
    }
    assert_eq!(s.cwnd(), 17.0);
    assert!(out.is_empty(), "flight 20 ≥ cwnd 17: nothing new yet");
    // The retransmission is acknowledged together with everything sent: deflate.
    s.on_ack(20, 200 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 10.0, "window halved");
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn newreno_partial_ack_retransmits_next_hole() {
    let (mut s, mut out) = sender(true, 20.0);
    out.clear();
    for _ in 0..3 {
        s.on_ack(0, 100 * MS, &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    out.clear();
    // Segments 0..4 arrive, 5 was lost too: partial ACK.
    s.on_ack(5, 200 * MS, &mut out);
    assert!(s.in_recovery(), "partial ACK keeps NewReno in recovery");
    assert_eq!(out[0].seq, 5);
    s.on_ack(20, 300 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), 10.0);
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn tail_loss_triggers_rto_backoff_and_karn() {
    let (mut s, mut out) = sender(false, 20.0);
    out.clear();
    // No ACK ever comes back: the timer requested at the first send fires at the initial RTO.
    let t = s.take_timer().expect("timer armed on send");
    assert_eq!(t, SEC);
    s.on_timer(t, t, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.cwnd(), 1.0);
    assert_eq!(s.ssthresh(), 10.0);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, 0, "go back to snd_una");
    assert_eq!(s.rto(), 2 * SEC, "exponential backoff");
    let t2 = s.take_timer().unwrap();
    assert_eq!(t2, t + 2 * SEC);
    // The retransmission is lost too: second timeout, ssthresh held (RFC 5681 §3.1).
    {
        let mut s2 = s.clone();
        let mut o2 = Vec::new();
        s2.on_timer(t2, t2, &mut o2);
        assert_eq!(s2.stats.timeouts, 2);
        assert_eq!(s2.ssthresh(), 10.0);
        assert_eq!(s2.rto(), 4 * SEC);
    }
    // The retransmission is acknowledged: Karn's rule forbids a sample, backoff stays.
    out.clear();
    s.on_ack(1, t + 100 * MS, &mut out);
    assert!(!s.has_rtt);
    assert_eq!(s.rto(), 2 * SEC);
    assert_eq!(s.cwnd(), 2.0, "slow start after the timeout");
    // A stale timer event is ignored.
    s.on_timer(t, t + 150 * MS, &mut out);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn rto_estimator_follows_rfc6298() {
    let cfg = TcpConfig {
        min_rto: 200 * MS,
        ..TcpConfig::default()
    };
    let mut s = TcpSender::new(0, TcpKind::Reno, &cfg);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(1, 100 * MS, &mut out);
    assert_eq!(s.srtt(), 100e6);
    // RTO = SRTT + 4·RTTVAR = 100 + 4·50 ms.
    assert_eq!(s.rto(), 300 * MS);
    let (mut d, _) = sender(false, 2.0);
    d.on_ack(1, 100 * MS, &mut out);
    assert_eq!(d.rto(), SEC, "min RTO 1 s by default");
}

#[test]
fn bad_config_is_an_error() {
    let bad = [
        TcpConfig {
            mss: 0,
            ..TcpConfig::default()
        },
        TcpConfig {
            rwnd: 1,
            ..TcpConfig::default()
        },
        TcpConfig {
            vegas_alpha: 4.0,
            ..TcpConfig::default()
        },
        TcpConfig {
            min_rto: 0,
            ..TcpConfig::default()
        },
    ];
    for c in bad {
        assert!(c.validate().is_err());
    }
}

/// A lossless path for one sender: data crosses a FIFO bottleneck of `bw_bps` (no buffer
/// limit) and `one_way` propagation, the receiver ACKs at once, ACKs return after `one_way`.
/// Calls `on_ack` after every ACK; returns the sender at `until`.
fn lossless_path(
    s: TcpSender,
    bw_bps: u64,
    one_way: Time,
    until: Time,
    on_ack: impl FnMut(&TcpSender, Time),
) -> TcpSender {
    let path = TestPath {
        bw_bps,
        one_way,
        buffer: u32::MAX,
        sack: false,
    };
    path_run(s, &path, until, |_, _, _| false, on_ack)
}

/// A one-sender path: FIFO bottleneck of `bw_bps` holding at most `buffer` packets waiting
/// (DropTail), `one_way` propagation each way, a receiver that ACKs every segment (with
/// SACK blocks if `sack`).
struct TestPath {
    bw_bps: u64,
    one_way: Time,
    buffer: u32,
    sack: bool,
}

/// Runs `s` over `path` until `until`; `drop(k, packet, now)` sees every data packet offered
/// to the bottleneck (the k-th, at `now`) and may also drop it (random loss). Calls `on_ack`
/// after every ACK; returns the sender.
fn path_run(
    mut s: TcpSender,
    path: &TestPath,
    until: Time,
    mut drop: impl FnMut(u64, &Packet, Time) -> bool,
    mut on_ack: impl FnMut(&TcpSender, Time),
) -> TcpSender {
    use crate::netsim::link::Pipe;
    use crate::netsim::sink::{SinkAction, TcpSink};
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum E {
        Data(u32, u8),
        Ack(usize),
        Rto,
        Pace(Time),
    }
    let mut q: BinaryHeap<Reverse<(Time, u64, E)>> = BinaryHeap::new();
    let mut n = 0u64;
    let (bw_bps, one_way) = (path.bw_bps, path.one_way);
    let mut pipe = Pipe::new(bw_bps, one_way);
    let mut sink = TcpSink::with_sack(4096, false, path.sack);
    let mut out = Vec::new();
    s.start(0, &mut out);
    let mut now = 0;
    let (mut offered, mut busy_until) = (0u64, 0 as Time);
    let mut acks: Vec<AckInfo> = Vec::new();
    loop {
        for p in out.drain(..) {
            offered += 1;
            let tx = crate::netsim::tx_time(p.size, bw_bps);
            let waiting = busy_until.saturating_sub(now) / tx;
            if drop(offered, &p, now) || waiting > path.buffer as u64 {
                continue;
            }
            n += 1;
            let arrive = pipe.send(p.size, now);
            busy_until = arrive - one_way;
            q.push(Reverse((arrive, n, E::Data(p.seq, p.ecn))));
        }
        if let Some(t) = s.take_timer() {
            n += 1;
            q.push(Reverse((t, n, E::Rto)));
        }
        if let Some(t) = s.take_pace_timer() {
            n += 1;
            q.push(Reverse((t, n, E::Pace(t))));
        }
        let Some(Reverse((t, _, e))) = q.pop() else {
            return s;
        };
        if t > until {
            return s;
        }
        now = t;
        match e {
            E::Data(seq, bits) => {
                if let SinkAction::Ack(a) = sink.on_data_ecn(seq, bits) {
                    let mut info = AckInfo {
                        ece: sink.ece(),
                        ..AckInfo::cumulative(a)
                    };
                    for (k, b) in sink.sack_blocks().iter().take(3).enumerate() {
                        info.sack[k] = *b;
                        info.nsack = k as u8 + 1;
                    }
                    n += 1;
                    acks.push(info);
                    q.push(Reverse((now + one_way, n, E::Ack(acks.len() - 1))));
                }
            }
            E::Ack(k) => {
                let info = acks[k];
                s.on_ack_info(&info, now, &mut out);
                on_ack(&s, now);
            }
            E::Rto => s.on_timer(now, now, &mut out),
            E::Pace(at) => s.on_pace(at, now, &mut out),
        }
    }
}

#[test]
fn cubic_window_follows_rfc9438() {
    use cubic::{CubicState, BETA, C};
    let mut c = CubicState::new(false);
    // First reduction at cwnd 100: W_max = 100, ssthresh = 70 (β = 0.7).
    assert_eq!(c.reduce(100.0), 70.0);
    assert_eq!(c.w_max, 100.0);
    c.start_epoch(0, 70.0);
    let k = (100.0f64 * (1.0 - BETA) / C).cbrt();
    assert!((c.k - k).abs() < 1e-12, "K = ∛(W_max(1−β)/C)");
    for t in [0.0, 1.0, 2.5, k, 6.0, 9.0] {
        let w = C * (t - k).powi(3) + 100.0;
        assert!((c.w_cubic(t) - w).abs() < 1e-9);
    }
    assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
    assert!((c.w_cubic(k) - 100.0).abs() < 1e-12);
    // Fast convergence: a loss below W_max remembers less.
    assert_eq!(c.reduce(80.0), 56.0);
    assert!((c.w_max - 80.0 * (1.0 + BETA) / 2.0).abs() < 1e-12);

    // Per-ACK growth with one ACK per segment, RTT 100 ms: cwnd tracks W_cubic(t) (the cubic
    // region: W_est, growing ~0.53 segments/RTT, stays below it).
    let mut c = CubicState::new(false);
    c.reduce(100.0);
    let (rtt, mut cwnd, mut t) = (100 * MS, 70.0f64, 0u64);
    let mut worst = 0.0f64;
    while t < 10 * SEC {
        let acks = cwnd as u64;
        for i in 0..acks {
            let now = t + rtt * i / acks;
            cwnd = c.avoid(now, cwnd, 1.0, rtt);
        }
        t += rtt;
        let w = c.w_cubic(t as f64 / 1e9);
        if w > c.w_est {
            worst = worst.max((cwnd - w).abs());
        }
    }
    assert!(worst < 3.0, "cwnd within 3 segments of W_cubic(t): {worst}");
    assert!(cwnd > 100.0, "past the plateau into convex growth: {cwnd}");

    // Reno-friendly region: small W_max, short RTT → W_est wins and cwnd = W_est.
    let mut c = CubicState::new(false);
    c.reduce(10.0);
    let mut cwnd = 7.0;
    for i in 0..200u64 {
        cwnd = c.avoid(i * MS, cwnd, 1.0, 2 * MS);
    }
    assert!((cwnd - c.w_est).abs() < 1e-9 && c.w_cubic(0.2) < c.w_est);
}

#[test]
fn cubic_sender_reduces_by_beta_and_hystart_leaves_slow_start() {
    let cfg = TcpConfig::default();
    let mut s = TcpSender::new(0, TcpKind::Cubic, &cfg);
    (s.cwnd, s.ssthresh) = (40.0, 40.0);
    let mut out = Vec::new();
    s.start(0, &mut out);
    for _ in 0..3 {
        s.on_ack(0, 100 * MS, &mut out);
    }
    assert_eq!(s.ssthresh(), 28.0, "ssthresh = 0.7·cwnd");
    // HyStart on a lossless 10 Mb/s, 2×20 ms path: slow start ends before the first loss
    // near the BDP (≈ 48 segments), never by a timeout.
    let s = TcpSender::new(0, TcpKind::Cubic, &cfg);
    let s = lossless_path(s, 10_000_000, 20 * MS, 3 * SEC, |_, _| {});
    let c = s.cubic().unwrap();
    assert!(c.hystart_found, "HyStart fired");
    assert!(s.ssthresh() < 200.0, "ssthresh {}", s.ssthresh());
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn bbr_phases_on_a_lossless_path() {
    use bbr::{BbrMode, CYCLE, MIN_CWND};
    let cfg = TcpConfig::default();
    let s = TcpSender::new(0, TcpKind::Bbr, &cfg);
    let mut probe_rtt_cwnd = f64::MAX;
    let mut max_cwnd_bw = 0.0f64;
    let s = lossless_path(s, 10_000_000, 20 * MS, 14 * SEC, |s, _| {
        let b = s.bbr().unwrap();
        if b.mode == BbrMode::ProbeRtt {
            probe_rtt_cwnd = probe_rtt_cwnd.min(s.cwnd());
        }
        if b.mode == BbrMode::ProbeBw {
            max_cwnd_bw = max_cwnd_bw.max(s.cwnd());
        }
    });
    let b = s.bbr().unwrap();
    let modes: Vec<BbrMode> = b.transitions.iter().map(|t| t.1).collect();
    assert_eq!(
        &modes[..4],
        &[
            BbrMode::Startup,
            BbrMode::Drain,
            BbrMode::ProbeBw,
            BbrMode::ProbeRtt
        ],
        "{:?}",
        b.transitions
    );
    assert_eq!(
        modes[4],
        BbrMode::ProbeBw,
        "back to PROBE_BW after PROBE_RTT"
    );
    // STARTUP ends within a few round trips (≈ 41 ms each); PROBE_RTT 10 s after the last
    // RTprop refresh and lasts ≥ 200 ms.
    assert!(b.transitions[1].0 < 2 * SEC, "{:?}", b.transitions);
    let (t_rtt, t_back) = (b.transitions[3].0, b.transitions[4].0);
    assert!(t_rtt >= 10 * SEC, "{:?}", b.transitions);
    assert!(t_back - t_rtt >= 200 * MS && t_back - t_rtt < 400 * MS);
    assert_eq!(probe_rtt_cwnd, MIN_CWND);
    // The gain cycle (before PROBE_RTT restarts it at a random phase): phases advance by
    // one, and 5/4 is followed by 3/4.
    let ph: Vec<usize> = b
        .phases
        .iter()
        .filter(|p| p.0 < t_rtt)
        .map(|p| p.1)
        .collect();
    assert!(ph.len() > 20, "{ph:?}");
    assert_ne!(ph[0], 1, "never starts in the 3/4 phase");
    for w in ph.windows(2) {
        assert_eq!(
            w[1],
            (w[0] + 1) % CYCLE.len(),
            "phases advance by one: {ph:?}"
        );
        if w[0] == 0 {
            assert_eq!(w[1], 1, "5/4 then 3/4: {ph:?}");
        }
    }
    assert!(ph.contains(&0) && CYCLE[0] == 1.25 && CYCLE[1] == 0.75);
    // The model: BtlBw = 10 Mb/s / 1040 B ≈ 1202 segments/s, RTprop ≈ 40.8 ms.
    let bw = 10e6 / (1040.0 * 8.0);
    assert!((b.btl_bw() - bw).abs() < 0.03 * bw, "btl_bw {}", b.btl_bw());
    assert!(
        (b.min_rtt as f64 - 40.9e6).abs() < 0.5e6,
        "min_rtt {}",
        b.min_rtt
    );
    // cwnd = 2·BDP + quantisation in PROBE_BW (BDP ≈ 49 segments).
    assert!(
        max_cwnd_bw > 90.0 && max_cwnd_bw < 110.0,
        "cwnd {max_cwnd_bw}"
    );
    assert_eq!(s.stats.retransmits, 0, "lossless");
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr() {
    let cfg = TcpConfig {
        ecn: true,
        ..TcpConfig::default()
    };
    let (mut s, mut out) = sender_with(&cfg, 20.0);
    assert!(out.iter().all(|p| p.ecn == ecn::ECT), "data is ECT");
    out.clear();
    let ece = |seq| AckInfo {
        ece: true,
        ..AckInfo::cumulative(seq)
    };
    s.on_ack_info(&ece(1), 100 * MS, &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(
        s.cwnd(),
        9.5,
        "halved: ssthresh = FlightSize/2 (19/2), cwnd = ssthresh"
    );
    assert_eq!(s.stats.retransmits, 0, "no retransmission on ECE");
    // More ECE within the same window: no further reduction.
    for a in 2..=19 {
        s.on_ack_info(&ece(a), 101 * MS, &mut out);
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    let first_new = out.iter().find(|p| p.seq >= 20).expect("new data sent");
    assert_eq!(
        first_new.ecn,
        ecn::ECT | ecn::CWR,
        "CWR on the first new segment"
    );
    assert_eq!(out.iter().filter(|p| p.ecn & ecn::CWR != 0).count(), 1);
    // ECE for data sent after the reduction: a second reduction.
    let top = s.snd_nxt();
    s.on_ack_info(&ece(top), 200 * MS, &mut out);
    assert_eq!(s.stats.ecn_reductions, 2);
    assert_eq!(s.stats.timeouts + s.stats.fast_retransmits, 0);
}

mod sack;
