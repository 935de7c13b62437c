//! Sender state-machine tests driven by hand-made ACK sequences.

use super::*;

fn sender(newreno: bool, cwnd: f64) -> (TcpSender, Vec<Packet>) {
    let cfg = TcpConfig {
        newreno,
        ..TcpConfig::default()
    };
    cfg.validate().unwrap();
    let mut s = TcpSender::new(0, TcpKind::Reno, &cfg);
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
