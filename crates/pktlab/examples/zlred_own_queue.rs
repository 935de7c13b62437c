//! ZL-RED (paper 002) deciding drops for the user's own queue (here a `VecDeque` of flow ids):
//! a heavy flow sending half the packets into an overloaded link loses more than the others.
use pktlab::aqm::{Arrival, Decide, QueueState, Verdict, ZlRedDecider, ZlRedParams};
use std::collections::VecDeque;

fn main() {
    let (limit, mut params) = (200, ZlRedParams::default());
    params.a = 4.0; // the mis-behaving multiplier of eq. (5)
    let mut zl = ZlRedDecider::new(params, limit, 1).expect("valid parameters");
    let mut queue: VecDeque<u64> = VecDeque::new();
    let (mut sent, mut dropped) = ([0u64; 2], [0u64; 2]); // [heavy flow, light flows]
    for now in 0..200_000u64 {
        let flow = if now % 2 == 0 { 0 } else { 1 + now % 40 };
        let a = Arrival {
            flow,
            ecn_capable: false,
            now,
        };
        let c = (flow != 0) as usize;
        sent[c] += 1;
        let q = QueueState {
            len: queue.len(),
            limit,
        };
        match zl.decide(&a, &q) {
            Verdict::Enqueue | Verdict::Mark => queue.push_back(flow),
            Verdict::Drop(_) | Verdict::DropPair { .. } => dropped[c] += 1,
        }
        if now % 5 != 0 {
            queue.pop_front(); // the link serves 4 packets per 5 arrivals
        }
    }
    let rate: Vec<f64> = (0..2).map(|i| dropped[i] as f64 / sent[i] as f64).collect();
    println!(
        "drop rate: heavy flow {:.3}, light flows {:.3}",
        rate[0], rate[1]
    );
    assert!(rate[0] > rate[1], "ZL-RED penalises the heavy flow");
    assert!(queue.len() <= limit);
}
