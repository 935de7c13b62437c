//! SACK sender tests (RFC 6675 scoreboard, recovery, timeouts, pacing).

use super::*;

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

/// A BBR sender with SACK (initial window 10, minimum RTO 200 ms), its config, and a
/// 10 Mb/s path of 20 ms one way holding `buffer` packets.
fn bbr_sack(buffer: u32) -> (TcpConfig, TcpSender, TestPath) {
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
        buffer,
        sack: true,
    };
    (cfg, s, path)
}

/// Issue 17: BBR with SACK on a lossy path must not overestimate the bottleneck. Every
/// segment is counted delivered once — SACKed, cumulatively ACKed, or both, also after a
/// timeout cleared the scoreboard and go-back-N re-sent SACKed segments — so no delivery-rate
/// sample (Δdelivered over at least RTprop) can exceed the bottleneck rate by more than the
/// ACK-clock jitter.
#[test]
fn bbr_with_sack_under_loss_keeps_btlbw_at_the_path_rate() {
    let (cfg, s, path) = bbr_sack(8);
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
    let (_, s, path) = bbr_sack(1000);
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
