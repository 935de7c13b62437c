//! DRR — Deficit Round Robin (Shreedhar & Varghese, "Efficient Fair Queuing using Deficit
//! Round Robin", ACM SIGCOMM 1995, §3, fig. 3), with one exact queue per flow id.
//!
//! Backlogged flows sit in an active list; the flow at its head may send packets while its
//! deficit covers them, gaining one quantum (bytes) each time it reaches the head without
//! enough deficit; a flow that empties leaves the list with deficit 0. All flows share a
//! buffer of `limit` packets: when it is full, the packet at the head of the **longest** queue
//! is dropped to make room (the paper's buffer-stealing suggestion, §3). The longest queue is
//! found in O(1) with SFQ's depth lists: flows are kept in doubly linked lists by queue
//! length, and the maximum length moves by at most one per enqueue/dequeue.
//!
//! Flow ids map to queue slots through an open-addressing table (splitmix64 hash, no
//! SipHash); slots are created on a flow's first packet and then reused.

use super::{Aqm, AqmError, AqmPacket, AqmStats, DropKind, Drops, Nanos};
use crate::util::splitmix64;
use std::collections::VecDeque;

/// Maps 32-bit flow ids to dense slot indices (open addressing, linear probing, grows ×2).
#[derive(Debug, Clone)]
pub(crate) struct FlowIndex {
    keys: Vec<u32>,
    vals: Vec<u32>,
    used: Vec<bool>,
    n: usize,
}

impl FlowIndex {
    pub(crate) fn new() -> Self {
        FlowIndex {
            keys: vec![0; 64],
            vals: vec![0; 64],
            used: vec![false; 64],
            n: 0,
        }
    }

    /// Slot of `k`, inserting `next` if absent; returns (slot, inserted).
    #[inline]
    pub(crate) fn get_or_insert(&mut self, k: u32, next: u32) -> (u32, bool) {
        if 2 * (self.n + 1) > self.keys.len() {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut i = splitmix64(k as u64) as usize & mask;
        loop {
            if !self.used[i] {
                self.used[i] = true;
                self.keys[i] = k;
                self.vals[i] = next;
                self.n += 1;
                return (next, true);
            }
            if self.keys[i] == k {
                return (self.vals[i], false);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(
            self,
            FlowIndex {
                keys: vec![0; self.keys.len() * 2],
                vals: vec![0; self.keys.len() * 2],
                used: vec![false; self.keys.len() * 2],
                n: 0,
            },
        );
        for i in 0..old.keys.len() {
            if old.used[i] {
                self.get_or_insert(old.keys[i], old.vals[i]);
            }
        }
    }
}

#[derive(Debug)]
struct FlowQ<P> {
    q: VecDeque<P>,
    deficit: i64,
    active: bool,
    prev: u32,
    next: u32,
}

const NIL: u32 = u32::MAX;

/// A DRR scheduler with per-flow queues.
#[derive(Debug)]
pub struct Drr<P> {
    index: FlowIndex,
    flows: Vec<FlowQ<P>>,
    active: VecDeque<u32>,
    quantum: i64,
    limit: usize,
    len: usize,
    bytes: u64,
    stats: AqmStats,
    /// `depth[l]`: head of the list of flows whose queue holds `l` packets (l ≥ 1).
    depth: Vec<u32>,
    max_depth: usize,
}

impl<P: AqmPacket> Drr<P> {
    fn unlink(&mut self, f: u32, l: usize) {
        let (p, n) = (self.flows[f as usize].prev, self.flows[f as usize].next);
        if p == NIL {
            self.depth[l] = n;
        } else {
            self.flows[p as usize].next = n;
        }
        if n != NIL {
            self.flows[n as usize].prev = p;
        }
    }

    fn link(&mut self, f: u32, l: usize) {
        if self.depth.len() <= l {
            self.depth.resize(l + 1, NIL);
        }
        let h = self.depth[l];
        self.flows[f as usize].prev = NIL;
        self.flows[f as usize].next = h;
        if h != NIL {
            self.flows[h as usize].prev = f;
        }
        self.depth[l] = f;
    }

    /// Moves flow `f` from depth `from` to depth `to` (0 = in no list).
    fn move_depth(&mut self, f: u32, from: usize, to: usize) {
        if from > 0 {
            self.unlink(f, from);
        }
        if to > 0 {
            self.link(f, to);
        }
        if to > self.max_depth {
            self.max_depth = to;
        }
        while self.max_depth > 0 && self.depth[self.max_depth] == NIL {
            self.max_depth -= 1;
        }
    }

    /// Pops the head of flow `f`'s queue, keeping the depth lists right.
    fn pop_flow(&mut self, f: u32) -> Option<P> {
        let l = self.flows[f as usize].q.len();
        let p = self.flows[f as usize].q.pop_front()?;
        self.move_depth(f, l, l - 1);
        self.len -= 1;
        self.bytes -= p.bytes() as u64;
        Some(p)
    }

    /// DRR with a shared buffer of `limit` packets and a quantum of `quantum` bytes.
    pub fn new(limit: usize, quantum: u32) -> Result<Self, AqmError> {
        if limit == 0 {
            return Err(AqmError::EmptyBuffer("drr"));
        }
        if quantum == 0 {
            return Err(AqmError::Rule {
                disc: "drr",
                rule: "quantum must be at least 1 byte",
            });
        }
        Ok(Drr {
            index: FlowIndex::new(),
            flows: Vec::new(),
            active: VecDeque::new(),
            quantum: quantum as i64,
            limit,
            len: 0,
            bytes: 0,
            stats: AqmStats::default(),
            depth: vec![NIL; 2],
            max_depth: 0,
        })
    }

    /// Number of flows seen so far.
    pub fn flows_seen(&self) -> usize {
        self.flows.len()
    }
}

impl<P: AqmPacket> Aqm<P> for Drr<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, _now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        if self.len >= self.limit {
            // Steal from the longest queue (the arrival's own queue may be it).
            let best = if self.max_depth > 0 {
                self.depth[self.max_depth]
            } else {
                NIL
            };
            match (best != NIL).then(|| self.pop_flow(best)).flatten() {
                Some(v) => {
                    self.stats.forced_drops += 1;
                    drops.push(v, DropKind::Forced);
                }
                None => {
                    self.stats.forced_drops += 1;
                    drops.push(pkt, DropKind::Forced);
                    return;
                }
            }
        }
        let (slot, new) = self
            .index
            .get_or_insert(pkt.flow(), self.flows.len() as u32);
        if new {
            self.flows.push(FlowQ {
                q: VecDeque::new(),
                deficit: 0,
                active: false,
                prev: NIL,
                next: NIL,
            });
        }
        let l = self.flows[slot as usize].q.len();
        self.flows[slot as usize].q.push_back(pkt);
        self.move_depth(slot, l, l + 1);
        let f = &mut self.flows[slot as usize];
        self.len += 1;
        self.bytes += pkt.bytes() as u64;
        if !f.active {
            f.active = true;
            f.deficit = 0;
            self.active.push_back(slot);
        }
    }

    #[inline]
    fn dequeue(&mut self, _now: Nanos, _drops: &mut Drops<P>) -> Option<P> {
        loop {
            let &slot = self.active.front()?;
            let f = &mut self.flows[slot as usize];
            let Some(head) = f.q.front() else {
                // Emptied by buffer stealing.
                f.active = false;
                f.deficit = 0;
                self.active.pop_front();
                continue;
            };
            let size = head.bytes() as i64;
            if size <= f.deficit {
                f.deficit -= size;
                let p = self.pop_flow(slot)?;
                let f = &mut self.flows[slot as usize];
                if f.q.is_empty() {
                    f.active = false;
                    f.deficit = 0;
                    self.active.pop_front();
                }
                self.stats.departures += 1;
                return Some(p);
            }
            f.deficit += self.quantum;
            self.active.rotate_left(1);
        }
    }
    fn len_pkts(&self) -> usize {
        self.len
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> AqmStats {
        self.stats
    }
    fn name(&self) -> &'static str {
        "drr"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Pk(u32, u32);
    impl AqmPacket for Pk {
        fn flow(&self) -> u32 {
            self.0
        }
        fn bytes(&self) -> u32 {
            self.1
        }
    }

    #[test]
    fn byte_fair_between_unequal_packet_sizes() {
        // Flow 0 sends 1500-byte packets, flow 1 sends 500-byte ones; both always backlogged.
        let mut q = Drr::new(1000, 1500).unwrap();
        let mut d = Drops::default();
        for _ in 0..300 {
            q.enqueue(Pk(0, 1500), 0, &mut d);
            q.enqueue(Pk(1, 500), 0, &mut d);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..200 {
            let p = q.dequeue(0, &mut d).unwrap();
            bytes[p.0 as usize] += p.1 as u64;
        }
        let r = bytes[0] as f64 / bytes[1] as f64;
        assert!((r - 1.0).abs() < 0.1, "byte ratio {r}");
    }

    #[test]
    fn overflow_steals_from_longest_queue() {
        let mut q = Drr::new(10, 1000).unwrap();
        let mut d = Drops::default();
        for i in 0..10 {
            q.enqueue(Pk(7, 1000 + i), 0, &mut d);
        }
        q.enqueue(Pk(3, 1000), 0, &mut d);
        assert_eq!(d.pkts, vec![(Pk(7, 1000), DropKind::Forced)]);
        assert_eq!(q.len_pkts(), 10);
        // Many flows: the index grows and keeps every flow distinct.
        let mut q = Drr::new(100_000, 1000).unwrap();
        for f in 0..5000 {
            q.enqueue(Pk(f * 7919, 100), 0, &mut d);
        }
        assert_eq!(q.flows_seen(), 5000);
        assert!(Drr::<Pk>::new(0, 1).is_err() && Drr::<Pk>::new(1, 0).is_err());
    }

    #[test]
    fn depth_lists_always_name_a_longest_queue() {
        let mut q = Drr::new(40, 1000).unwrap();
        let mut d = Drops::default();
        let mut x = crate::util::SplitMix64::new(3);
        for t in 0..20_000u32 {
            let f = (x.next_u64() % 9) as u32 * 101;
            let before: Vec<usize> = q.flows.iter().map(|f| f.q.len()).collect();
            q.enqueue(Pk(f, 1000), 0, &mut d);
            let max = before.iter().copied().max().unwrap_or(0);
            for (p, _) in &d.pkts {
                let (slot, _) = q.index.get_or_insert(p.0, u32::MAX);
                assert_eq!(before[slot as usize], max, "arrival {t}");
            }
            d.clear();
            if x.next_u64().is_multiple_of(3) {
                q.dequeue(0, &mut d);
            }
            let real = q.flows.iter().map(|f| f.q.len()).max().unwrap_or(0);
            assert_eq!(q.max_depth, real);
            assert_eq!(
                q.len_pkts(),
                q.flows.iter().map(|f| f.q.len()).sum::<usize>()
            );
        }
    }
}
