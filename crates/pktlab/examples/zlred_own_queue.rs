//! ZL-RED (paper 002) deciding drops for the user's own queue: a heavy flow sending half the
//! packets into an overloaded link is dropped more often than the light flows.
//! Run: `cargo run -p pktlab --example zlred_own_queue`
use pktlab::aqm::{Arrival, Decide, QueueState, Verdict, ZlRedDecider, ZlRedParams};
use std::collections::VecDeque;

/// The user's packet and queue.
struct Pkt {
    flow: u64,
}

fn main() {
    let limit = 200;
    let mut zl = ZlRedDecider::new(
        ZlRedParams {
            a: 4.0,
            ..Default::default()
        },
        limit,
        1,
    )
    .expect("valid parameters");
    let mut queue: VecDeque<Pkt> = VecDeque::new();
    let (mut sent, mut dropped) = ([0u64; 2], [0u64; 2]);
    for t in 0..200_000u64 {
        let flow = if t % 2 == 0 { 0 } else { 1 + t % 40 }; // flow 0: half the packets
        let a = Arrival {
            flow,
            ecn_capable: false,
            now: t,
        };
        let c = (flow != 0) as usize; // 0: the heavy flow, 1: the light ones
        sent[c] += 1;
        match zl.decide(
            &a,
            &QueueState {
                len: queue.len(),
                limit,
            },
        ) {
            Verdict::Enqueue | Verdict::Mark => queue.push_back(Pkt { flow }),
            Verdict::Drop(_) | Verdict::DropPair { .. } => dropped[c] += 1,
        }
        if t % 5 != 0 {
            queue.pop_front(); // the link serves 4 packets per 5 arrivals
        }
    }
    let rate = |i: usize| dropped[i] as f64 / sent[i] as f64;
    println!(
        "drop rate: heavy flow {:.3}, light flows {:.3}",
        rate(0),
        rate(1)
    );
    assert!(rate(0) > rate(1), "ZL-RED penalises the heavy flow");
    assert!(queue.iter().all(|p| p.flow <= 40) && queue.len() <= limit);
}
