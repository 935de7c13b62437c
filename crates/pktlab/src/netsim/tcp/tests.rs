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

#[test]
fn sack_sender_retransmits_only_the_holes() {
    let cfg = TcpConfig {
        sack: true,
        ..TcpConfig::default()
    };
    let (mut s, mut out) = sender_with(&cfg, 20.0);
    out.clear();
    // Segments 0, 5 and 9 lost; the others arrive and are SACKed.
    for (k, seq) in (1..20u32).filter(|q| *q != 5 && *q != 9).enumerate() {
        let blocks = match seq {
            1..=4 => [(1, seq + 1), (0, 0), (0, 0)],
            6..=8 => [(6, seq + 1), (1, 5), (0, 0)],
            _ => [(10, seq + 1), (6, 9), (1, 5)],
        };
        let n = blocks.iter().filter(|b| b.1 > 0).count() as u8;
        let a = AckInfo {
            seq: 0,
            ece: false,
            sack: blocks,
            nsack: n,
        };
        s.on_ack_info(&a, (100 + k as u64) * MS, &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1, "one recovery episode");
    let rtx: Vec<u32> = out.iter().filter(|p| p.seq < 20).map(|p| p.seq).collect();
    assert_eq!(rtx, vec![0, 5, 9], "exactly the holes, in order");
    assert_eq!(s.cwnd(), 10.0);
    // Everything acknowledged: recovery ends without a timeout.
    s.on_ack(20, 300 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
}

/// Issue 17: BBR with SACK on a lossy path must not overestimate the bottleneck. Every
/// segment is counted delivered once — SACKed, cumulatively ACKed, or both, also after a
/// timeout cleared the scoreboard and go-back-N re-sent SACKed segments — so no delivery-rate
/// sample (Δdelivered over at least RTprop) can exceed the bottleneck rate by more than the
/// ACK-clock jitter.
#[test]
fn bbr_with_sack_under_loss_keeps_btlbw_at_the_path_rate() {
    let cfg = TcpConfig {
        sack: true,
        init_cwnd: 10,
        min_rto: 200 * MS,
        ..TcpConfig::default()
    };
    let s = TcpSender::new(0, TcpKind::Bbr, &cfg);
    let path = TestPath {
        bw_bps: 10_000_000,
        one_way: 20 * MS,
        buffer: 8,
        sack: true,
    };
    let rate = path.bw_bps as f64 / (8.0 * (cfg.mss + cfg.header) as f64); // segments/s
                                                                           // 3 % random loss on top of the shallow buffer's overflow: SACK recoveries and timeouts.
    let mut rng = crate::util::SplitMix64::new(17);
    let mut max_bw = 0.0f64;
    let s = path_run(
        s,
        &path,
        30 * SEC,
        |_, _, _| rng.next_u64() % 100 < 3,
        |s, _| max_bw = max_bw.max(s.bbr().unwrap().btl_bw()),
    );
    assert!(
        s.stats.timeouts > 0 && s.stats.fast_retransmits > 0,
        "{:?}",
        s.stats
    );
    assert!(
        max_bw <= 1.1 * rate,
        "BtlBw {max_bw:.0} segments/s on a {rate:.0} segments/s path"
    );
    // The model's BDP (path: 2 × 20 ms × rate ≈ 48 segments) stays near the path's.
    let bdp = rate * 0.040;
    assert!(
        s.bbr().unwrap().bdp(1.0) <= 2.0 * bdp,
        "{}",
        s.bbr().unwrap().bdp(1.0)
    );
}

/// Issue 17: a SACK sender times only segments this ACK delivered. The cumulative ACK that
/// fills a hole also covers segments SACKed long before (and, after a timeout, segments
/// whose SACKs the timeout erased); timing them from their first transmission gave RTT
/// samples of seconds under heavy loss, an RTO of tens of seconds and flows stalled that
/// long (BBR under RED, docs/results/netsim.md).
#[test]
fn sack_sender_takes_no_rtt_sample_from_segments_delivered_earlier() {
    let cfg = TcpConfig {
        sack: true,
        ..TcpConfig::default()
    };
    let (mut s, mut out) = sender_with(&cfg, 10.0);
    s.on_ack(1, 100 * MS, &mut out); // segment 0: a valid 100 ms sample
    assert_eq!(s.srtt(), (100 * MS) as f64);
    let sack_run = |s: &mut TcpSender, out: &mut Vec<Packet>, una: u32, t0: Time| {
        // Segment `una` lost, every later one SACKed, 1 ms apart from `t0`.
        let top = s.snd_nxt();
        for (k, q) in (una + 1..top).enumerate() {
            let a = AckInfo {
                seq: una,
                ece: false,
                sack: [(una + 1, q + 1), (0, 0), (0, 0)],
                nsack: 1,
            };
            s.on_ack_info(&a, t0 + k as u64 * MS, out);
        }
        top
    };
    // 1. A hole filled 110 ms later: the ACK covers segments SACKed ~100 ms before.
    let top = sack_run(&mut s, &mut out, 1, 101 * MS);
    assert!(s.in_recovery());
    s.on_ack(top, 210 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(
        s.srtt(),
        (100 * MS) as f64,
        "no sample from a segment SACKed before"
    );
    // 2. The next hole's retransmission is lost too: a timeout, then the ACK after it.
    out.clear();
    let una = s.snd_una();
    let top = sack_run(&mut s, &mut out, una, 320 * MS);
    assert!(s.in_recovery());
    while s.stats.timeouts == 0 {
        let t = s.take_timer().expect("armed");
        s.on_timer(t, t, &mut out);
    }
    let after = s.srtt();
    s.on_ack(top, 2_500 * MS, &mut out);
    assert_eq!(
        s.srtt(),
        after,
        "no sample from a segment sent before the timeout"
    );
}

/// Segments 0..20 sent; 0 and 10 lost, their fast retransmissions lost too, every other
/// segment SACKed: a SACK sender ready to time out (srtt 100 ms, min RTO 1 s).
fn sack_sender_before_timeout() -> (TcpSender, Vec<Packet>) {
    let cfg = TcpConfig {
        sack: true,
        ..TcpConfig::default()
    };
    let (mut s, mut out) = sender_with(&cfg, 20.0);
    out.clear();
    for (k, q) in (1..20u32).filter(|q| *q != 10).enumerate() {
        let blocks = if q < 10 {
            [(1, q + 1), (0, 0), (0, 0)]
        } else {
            [(11, q + 1), (1, 10), (0, 0)]
        };
        let a = AckInfo {
            seq: 0,
            ece: false,
            sack: blocks,
            nsack: if q < 10 { 1 } else { 2 },
        };
        s.on_ack_info(&a, (100 + k as u64) * MS, &mut out);
    }
    assert!(s.in_recovery());
    let rtx: Vec<u32> = out.iter().filter(|p| p.seq < 20).map(|p| p.seq).collect();
    assert_eq!(rtx, vec![0, 10], "both holes fast-retransmitted");
    out.clear();
    (s, out)
}

/// An ACK of `seq` carrying one SACK block.
fn sack1(seq: u32, block: (u32, u32)) -> AckInfo {
    AckInfo {
        seq,
        ece: false,
        sack: [block, (0, 0), (0, 0)],
        nsack: 1,
    }
}

/// Fires the sender's timer until a retransmission timeout has happened; returns when the
/// re-armed timer would fire next.
fn fire_until_timeout(s: &mut TcpSender, out: &mut Vec<Packet>) -> Time {
    while s.stats.timeouts == 0 {
        let t = s.take_timer().expect("armed");
        s.on_timer(t, t, out);
    }
    s.take_timer().expect("re-armed")
}

/// Issue 17: a SACK sender's timeout keeps the scoreboard (RFC 6675 §5.1; Linux and ns-3)
/// and resends only the holes, not go-back-N over segments the receiver holds.
#[test]
fn sack_timeout_resends_only_the_holes() {
    let (mut s, mut out) = sack_sender_before_timeout();
    let t = fire_until_timeout(&mut s, &mut out);
    assert_eq!(s.cwnd(), 1.0);
    // The holes' retransmissions arrive, one ACK each (nothing above 20 was sent).
    s.on_ack_info(&sack1(10, (11, 20)), t - 500 * MS, &mut out);
    s.on_ack(s.snd_nxt(), t - 400 * MS, &mut out);
    // Resent: the two holes, and the segments sent during the fast recovery (20..) that no
    // ACK covered; never one of the SACKed 1..=9, 11..=19 (go-back-N resent all of them).
    let seqs: Vec<u32> = out.iter().map(|p| p.seq).collect();
    assert_eq!(&seqs[..2], &[0, 10], "{seqs:?}");
    assert!(
        seqs.iter().all(|q| *q == 0 || *q == 10 || *q >= 20),
        "{seqs:?}"
    );
}

/// Issue 17, difference 5: after a timeout a SACK sender resends only holes below the highest
/// SACKed segment (RFC 6675 `NextSeg` rule 1.b; ns-3's `TcpTxBuffer::NextSeg`), not the
/// segments sent in the last round trip whose SACKs are still on their way — it sends new
/// data instead and resends such a segment once a SACK above it shows it missing.
#[test]
fn sack_timeout_does_not_resend_segments_above_the_highest_sack() {
    let (mut s, mut out) = sack_sender_before_timeout();
    let high_data = s.max_sent;
    assert!(
        high_data > 22,
        "new data went out in the fast recovery: {high_data}"
    );
    let t = fire_until_timeout(&mut s, &mut out);
    // The head's retransmission arrives; the receiver holds 11..20, so 10 is missing, and
    // 20.. (sent during the fast recovery) are still in flight.
    s.on_ack_info(&sack1(10, (11, 20)), t - 900 * MS, &mut out);
    let seqs: Vec<u32> = out.iter().map(|p| p.seq).collect();
    assert_eq!(seqs[..2], [0, 10], "{seqs:?}");
    assert!(seqs.len() > 2, "the window opened: {seqs:?}");
    assert!(
        seqs[2..].iter().all(|q| *q >= high_data),
        "only new data beyond {high_data}, nothing of 20..{high_data} in flight: {seqs:?}"
    );
    // 10's retransmission arrives, 20 was dropped, 21 and 22 arrive: 20 is below the
    // highest SACK now and is resent before new data.
    out.clear();
    s.on_ack_info(&sack1(20, (21, 23)), t - 850 * MS, &mut out);
    let seqs: Vec<u32> = out.iter().map(|p| p.seq).collect();
    assert_eq!(seqs.first(), Some(&20), "{seqs:?}");
    assert!(seqs[1..].iter().all(|q| *q >= high_data), "{seqs:?}");
}

/// Issue 17: with SACK, an ACK of new data ends the timer backoff even when Karn's rule
/// forbids a sample (ns-3 recomputes the RTO on every new ACK), so a long recovery does not
/// keep a backed-off RTO.
#[test]
fn sack_new_ack_clears_the_rto_backoff() {
    let (mut s, mut out) = sack_sender_before_timeout();
    // The window was never timed (its only ACKs were duplicates): give the sender an RTT.
    s.rtt_sample(100 * MS);
    let t = fire_until_timeout(&mut s, &mut out);
    assert_eq!(s.rto(), 2 * SEC, "backed off");
    // The head's retransmission is acknowledged: no clean sample, yet the backoff ends.
    let rtt_before = s.srtt();
    s.on_ack_info(&sack1(10, (11, 20)), t - 1_800 * MS, &mut out);
    assert_eq!(s.srtt(), rtt_before, "no sample");
    assert_eq!(s.rto(), SEC, "RTO back to max(SRTT + 4 RTTVAR, min RTO)");
}

/// Issue 17: a paced (BBR) SACK sender paces its retransmissions like new data (Linux and
/// ns-3 pace every segment): never more than one segment leaves per pacing slot, except the
/// single head retransmission of a fast retransmit or timeout.
#[test]
fn bbr_paces_sack_retransmissions() {
    let cfg = TcpConfig {
        sack: true,
        init_cwnd: 10,
        min_rto: 200 * MS,
        ..TcpConfig::default()
    };
    let s = TcpSender::new(0, TcpKind::Bbr, &cfg);
    let path = TestPath {
        bw_bps: 10_000_000,
        one_way: 20 * MS,
        buffer: 1000,
        sack: true,
    };
    let mut rng = crate::util::SplitMix64::new(5);
    let (mut last, mut at_once, mut worst, mut max_seq) = (0 as Time, 0u32, 0u32, 0u32);
    let mut retx_bursts = 0u32;
    let s = path_run(
        s,
        &path,
        20 * SEC,
        |_, p, now| {
            let retx = p.seq < max_seq;
            max_seq = max_seq.max(p.seq + 1);
            if now == last {
                at_once += 1;
                if retx && at_once >= 2 {
                    retx_bursts += 1;
                }
            } else {
                (last, at_once) = (now, 1);
            }
            worst = worst.max(at_once);
            rng.next_u64() % 100 < 5
        },
        |_, _| {},
    );
    assert!(s.stats.fast_retransmits > 5, "{:?}", s.stats);
    assert!(s.bbr().unwrap().full_bw_reached);
    assert!(
        worst <= 2,
        "{worst} segments at one instant ({retx_bursts} retransmission bursts)"
    );
}

/// Issue 17 (difference 5): a SACK sender does not resend a hole whose retransmission is
/// still outstanding when one recovery ends and the next begins at once (Linux's
/// `TCPCB_SACKED_RETRANS`, ns-3's `m_retrans` persist across episodes; only a timeout clears
/// them). A BBR flow loses the first copy of every 7th segment, never a retransmission: each lost
/// segment must leave exactly twice, apart from the one head retransmission per recovery
/// that RFC 6675 step (4.3) prescribes.
#[test]
fn sack_does_not_resend_outstanding_retransmissions_in_the_next_recovery() {
    let cfg = TcpConfig {
        sack: true,
        ..TcpConfig::default()
    };
    let s = TcpSender::new(0, TcpKind::Bbr, &cfg);
    let path = TestPath {
        bw_bps: 10_000_000,
        one_way: 20 * MS,
        buffer: u32::MAX,
        sack: true,
    };
    let mut copies = std::collections::HashMap::<u32, u32>::new();
    let s = path_run(
        s,
        &path,
        20 * SEC,
        |_, p, _| {
            let c = copies.entry(p.seq).or_insert(0);
            *c += 1;
            p.seq > 200 && p.seq % 7 == 3 && *c == 1
        },
        |_, _| {},
    );
    let third: u64 = copies.values().map(|&c| c.saturating_sub(2) as u64).sum();
    assert_eq!(s.stats.timeouts, 0);
    assert!(s.stats.fast_retransmits > 10, "{:?}", s.stats);
    assert!(
        third <= s.stats.fast_retransmits,
        "{third} copies beyond the second, {} recoveries",
        s.stats.fast_retransmits
    );
}
