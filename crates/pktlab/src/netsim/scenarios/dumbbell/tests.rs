use super::run::{AccessLink, Ev};
use super::*;
use crate::aqm::RedParams;
use crate::netsim::engine::EventQueue;
use crate::netsim::{tx_time, Packet, PktKind};

fn one_flow(kind: FlowKind, rwnd: u32) -> DumbbellConfig {
    let mut c = DumbbellConfig {
        reno: (kind == FlowKind::Reno) as u32,
        vegas: (kind == FlowKind::Vegas) as u32,
        buffer: 1000,
        duration: 6 * SEC,
        warmup: 3 * SEC,
        start_spread: 1,
        seed: 3,
        ..DumbbellConfig::default()
    };
    c.tcp.rwnd = rwnd;
    c
}

/// A small network (BDP ≈ 24 packets) whose bottleneck is the router's output link:
/// access 100 Mb/s, 5 ms; bottleneck 10 Mb/s, 5 ms.
fn small_net(mut c: DumbbellConfig) -> DumbbellConfig {
    c.access_bw_bps = 100_000_000;
    c.reno_delay = 5 * MS;
    c.vegas_delay = 5 * MS;
    c.bottleneck_bw_bps = 10_000_000;
    c.bottleneck_delay = 5 * MS;
    c
}

#[test]
fn single_reno_fills_a_lossless_pipe() {
    // BDP = 45 Mb/s · 80 ms ≈ 433 packets of 1040 B; rwnd 600 keeps the queue < 1000.
    let r = run(&one_flow(FlowKind::Reno, 600)).unwrap();
    assert_eq!(r.loss_rate, 0.0);
    assert!(r.utilization >= 0.95, "utilisation {}", r.utilization);
    assert!(r.utilization <= 1.0 + 1e-3);
    // Goodput = utilisation · 45 Mb/s · 1000/1040.
    assert!((r.flows[0].goodput_mbps - r.utilization * 45.0 * 1000.0 / 1040.0).abs() < 0.5);
}

#[test]
fn single_drop_fast_retransmit_halves_cwnd() {
    let mut c = one_flow(FlowKind::Reno, 600);
    c.drop_once = vec![(0, 3000)];
    c.sample_every = Some(5 * MS);
    let r = run(&c).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.fast_retransmits, 1);
    assert_eq!(f.timeouts, 0);
    let s = r.series.unwrap();
    // Before the loss the flight is capped by rwnd = 600; after recovery cwnd = 300 and then
    // grows by about one segment per RTT.
    let k = (1..s.cwnd.len())
        .find(|&i| s.cwnd[i] < s.cwnd[i - 1])
        .expect("cwnd decreases once");
    let min_after = s.cwnd[k..].iter().cloned().fold(f32::MAX, f32::min);
    assert!((299.0..=301.0).contains(&min_after), "min cwnd {min_after}");
    assert!(f.final_cwnd < 400.0 && f.final_cwnd > min_after as f64);
}

#[test]
fn tail_of_drops_triggers_rto() {
    let mut c = one_flow(FlowKind::Reno, 600);
    // A whole window lost: no duplicate ACKs can come back.
    c.drop_once = (3000..3600).map(|s| (0, s)).collect();
    let r = run(&c).unwrap();
    assert!(r.flows[0].timeouts >= 1, "{:?}", r.flows[0]);
}

#[test]
fn vegas_alone_keeps_alpha_to_beta_packets_queued() {
    // On the paper's network a lone flow queues at its own 45 Mb/s access link, so use a
    // network whose bottleneck is the router's output link.
    let r = run(&small_net(one_flow(FlowKind::Vegas, 4096))).unwrap();
    assert_eq!(r.loss_rate, 0.0);
    assert!(
        (1.0..=3.0).contains(&r.mean_queue_pkts),
        "mean queue {} packets",
        r.mean_queue_pkts
    );
    assert!(r.utilization > 0.95, "utilisation {}", r.utilization);
}

#[test]
fn deterministic_given_seed() {
    let c = DumbbellConfig {
        reno: 3,
        vegas: 3,
        udp: 1,
        udp_rate_bps: 5_000_000,
        duration: 4 * SEC,
        warmup: SEC,
        aqm: AqmSpec::Red(RedParams::default()),
        ..DumbbellConfig::default()
    };
    let a = run(&c).unwrap();
    let b = run(&c).unwrap();
    assert_eq!(a.events, b.events);
    assert_eq!(a.jain, b.jain);
    let d = run(&DumbbellConfig { seed: 9, ..c }).unwrap();
    assert_ne!(a.events, d.events);
    assert!(a.udp_mbps > 4.0 && a.udp_mbps < 5.0, "udp {}", a.udp_mbps);
}

#[test]
fn red_keeps_the_queue_short() {
    let c = small_net(DumbbellConfig {
        reno: 5,
        vegas: 0,
        duration: 10 * SEC,
        warmup: 5 * SEC,
        aqm: AqmSpec::Red(RedParams::default()),
        ..DumbbellConfig::default()
    });
    let r = run(&c).unwrap();
    assert!(
        r.mean_queue_pkts > 2.0 && r.mean_queue_pkts < 20.0,
        "queue {}",
        r.mean_queue_pkts
    );
    assert!(r.early_drops > 0);
    assert!(r.utilization > 0.8, "utilisation {}", r.utilization);
    // The same load through DropTail 1000 fills the buffer.
    let d = run(&DumbbellConfig {
        aqm: AqmSpec::DropTail,
        ..c
    })
    .unwrap();
    assert!(
        d.mean_queue_pkts > 100.0,
        "droptail queue {}",
        d.mean_queue_pkts
    );
}

#[test]
fn bad_parameters_are_errors() {
    let ok = DumbbellConfig::default();
    for bad in [
        DumbbellConfig {
            reno: 0,
            vegas: 0,
            ..ok.clone()
        },
        DumbbellConfig {
            warmup: 70 * SEC,
            ..ok.clone()
        },
        DumbbellConfig {
            buffer: 0,
            ..ok.clone()
        },
        DumbbellConfig {
            bottleneck_bw_bps: 0,
            ..ok.clone()
        },
    ] {
        assert!(run(&bad).is_err());
    }
}

#[test]
fn sack_recovers_a_multi_loss_window_without_rto() {
    // Five segments of one window lost (the flight is capped at rwnd = 600 then).
    let losses = vec![(0, 3000), (0, 3004), (0, 3050), (0, 3200), (0, 3201)];
    let mut c = one_flow(FlowKind::Reno, 600);
    c.drop_once = losses.clone();
    c.tcp.sack = true;
    let r = run(&c).unwrap();
    let f = &r.flows[0];
    assert_eq!(f.timeouts, 0, "SACK: no timeout");
    assert_eq!(f.fast_retransmits, 1, "one recovery episode");
    assert_eq!(f.retransmits, 5, "exactly the lost segments");
    // Plain Reno on the same losses needs more than one episode or a timeout.
    let mut c = one_flow(FlowKind::Reno, 600);
    c.drop_once = losses;
    let r = run(&c).unwrap();
    let f = &r.flows[0];
    assert!(f.timeouts > 0 || f.fast_retransmits > 1, "{f:?}");
}

#[test]
fn ecn_marks_replace_early_drops_and_senders_react() {
    for aqm in [
        AqmSpec::Red(RedParams::default()),
        AqmSpec::ZlRed(crate::aqm::ZlRedParams::default()),
    ] {
        let mut c = small_net(DumbbellConfig {
            reno: 4,
            vegas: 0,
            cubic: 4,
            buffer: 200,
            duration: 20 * SEC,
            warmup: 5 * SEC,
            aqm,
            ..DumbbellConfig::default()
        });
        c.tcp.ecn = true;
        c.tcp.sack = true;
        let r = run(&c).unwrap();
        // Data segments are ECT and get marked; only retransmissions (not ECT, RFC 3168
        // §6.1.5) can still be dropped early, e.g. after a buffer overflow.
        let retx: u64 = r.flows.iter().map(|f| f.retransmits).sum();
        assert!(
            r.early_drops <= retx,
            "{}: {} early drops, {} retransmissions: ECT segments dropped",
            c.aqm.name(),
            r.early_drops,
            retx
        );
        assert!(r.ecn_marks > 0, "{}", c.aqm.name());
        assert!(
            r.flows.iter().all(|f| f.ecn_reductions > 0),
            "every sender reacts"
        );
        assert!(r.utilization > 0.8, "utilisation {}", r.utilization);
    }
}

#[test]
fn mixes_run_and_report_per_algorithm_shares() {
    let mut c = small_net(DumbbellConfig {
        reno: 2,
        vegas: 2,
        cubic: 2,
        bbr: 2,
        duration: 20 * SEC,
        warmup: 5 * SEC,
        ..DumbbellConfig::default()
    });
    c.tcp.sack = true;
    let r = run(&c).unwrap();
    let kinds: Vec<FlowKind> = r.shares.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            FlowKind::Reno,
            FlowKind::Vegas,
            FlowKind::Cubic,
            FlowKind::Bbr
        ]
    );
    let total: f64 = r.shares.iter().map(|s| s.share).sum();
    assert!((total - 1.0).abs() < 1e-9);
    assert!(r.shares.iter().all(|s| s.flows == 2 && s.total_mbps > 0.0));
    assert!(r.utilization > 0.9, "utilisation {}", r.utilization);
}

#[test]
fn ns3_order_schedules_router_arrivals_when_serialisation_starts() {
    // Host A sends two segments back to back at t = 0; the second waits one packet time T
    // for A's access link. Host B sends one segment at T, from an event scheduled before A's
    // sends (say, an ACK's arrival). A's second segment and B's reach the router at the same
    // nanosecond, 2T + τ; the event queue breaks the tie by insertion order.
    let (bw, tau) = (45_000_000, 20 * MS);
    let t = tx_time(1040, bw);
    let pkt = |flow, seq| Packet {
        flow,
        seq,
        size: 1040,
        kind: PktKind::Data,
        ecn: 0,
        enq_at: 0,
    };
    let order = |ns3: bool| {
        let mut ev = EventQueue::new();
        let mut links = [AccessLink::new(bw, tau, ns3), AccessLink::new(bw, tau, ns3)];
        ev.push(t, Ev::Start(1)); // B's send, scheduled first
        links[0].send(&mut ev, pkt(0, 0), 0);
        links[0].send(&mut ev, pkt(0, 1), 0);
        let mut got = vec![];
        while let Some((now, e)) = ev.pop_until(SEC) {
            match e {
                Ev::Start(i) => links[i as usize].send(&mut ev, pkt(i, 0), now),
                Ev::AccessDone(i) => links[i as usize].done(&mut ev, now),
                Ev::AtRouter(p) => got.push((now, p.flow, p.seq)),
                other => panic!("unexpected {other:?}"),
            }
        }
        got
    };
    // Default: A's second segment was scheduled at send time, ahead of B's.
    assert_eq!(
        order(false),
        vec![(t + tau, 0, 0), (2 * t + tau, 0, 1), (2 * t + tau, 1, 0)]
    );
    // ns-3's order: it is scheduled when its serialisation starts, at T, after B's send —
    // same arrival times, B's segment first.
    assert_eq!(
        order(true),
        vec![(t + tau, 0, 0), (2 * t + tau, 1, 0), (2 * t + tau, 0, 1)]
    );
}

#[test]
fn a_set_stop_flag_ends_a_run_of_any_length() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    // 10^6 simulated seconds: hours of wall time if the flag were not read.
    let mut c = one_flow(FlowKind::Reno, 600);
    c.duration = 1_000_000 * SEC;
    let stop = AtomicBool::new(false);
    let t0 = Instant::now();
    let r = std::thread::scope(|s| {
        let h = s.spawn(|| run_until_stopped(&c, &stop));
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap()
    });
    assert!(
        matches!(r, Err(crate::netsim::NetsimError::Stopped)),
        "{r:?}"
    );
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    // An unset flag changes nothing.
    let short = one_flow(FlowKind::Reno, 600);
    let a = run(&short).unwrap();
    let b = run_until_stopped(&short, &AtomicBool::new(false)).unwrap();
    assert_eq!((a.events, a.flows[0].sent), (b.events, b.flows[0].sent));
}
