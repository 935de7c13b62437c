//! FQ-CoDel — flow queueing with CoDel per queue (RFC 8290 §4, with CoDel from RFC 8289 §5).
//!
//! Packets hash (splitmix64 of the flow id and a seeded perturbation) into `buckets` queues
//! (RFC default 1024). Enqueue (§4.1): timestamp, append; a queue that was not scheduled joins
//! the *new* list with one quantum of credit; when the shared `limit` (packets) is exceeded,
//! the head packet of the queue with the largest byte backlog is dropped (§4.1, one packet per
//! overflow, not Linux's batch of up to 64). Dequeue (§4.2): serve the new list before the old
//! list; a queue without credit gets a quantum and moves to the old list's tail; otherwise
//! CoDel dequeues from it; an empty new queue moves to the old list (if that is non-empty),
//! an empty old queue leaves the schedule.
//!
//! CoDel per queue (RFC 8289 §5, the Linux `codel_dequeue` structure): a packet is "above
//! target" if its sojourn ≥ `target` and the queue holds more than one MTU; after staying
//! above for `interval`, CoDel enters the dropping state and drops at times spaced by
//! `interval/√count`, with `count` resumed from its last value if the previous dropping state
//! ended less than 16 intervals ago. Defaults: target 5 ms, interval 100 ms, quantum 1514 B.

use super::{Aqm, AqmError, AqmPacket, AqmStats, DropKind, Drops, Nanos};
use crate::util::splitmix64;
use std::collections::VecDeque;

/// FQ-CoDel parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// Number of hash buckets (RFC 8290: 1024).
    pub buckets: usize,
    /// DRR quantum, bytes (RFC 8290: 1514).
    pub quantum: u32,
    /// CoDel target sojourn, ns (5 ms).
    pub target: Nanos,
    /// CoDel interval, ns (100 ms).
    pub interval: Nanos,
    /// MTU in bytes for CoDel's "more than one MTU queued" test (1514).
    pub mtu: u32,
}

impl Default for FqCodelParams {
    /// RFC 8290 / RFC 8289 defaults.
    fn default() -> Self {
        FqCodelParams {
            buckets: 1024,
            quantum: 1514,
            target: 5_000_000,
            interval: 100_000_000,
            mtu: 1514,
        }
    }
}

#[derive(Debug)]
struct Bucket<P> {
    q: VecDeque<(P, Nanos)>,
    bytes: u64,
    deficit: i64,
    list: u8, // 0 none, 1 new, 2 old
    first_above: Nanos,
    drop_next: Nanos,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

/// An FQ-CoDel scheduler.
#[derive(Debug)]
pub struct FqCodel<P> {
    p: FqCodelParams,
    b: Vec<Bucket<P>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    perturb: u64,
    limit: usize,
    len: usize,
    bytes: u64,
    stats: AqmStats,
}

impl<P: AqmPacket> FqCodel<P> {
    /// FQ-CoDel with a shared limit of `limit` packets.
    pub fn new(p: FqCodelParams, limit: usize, seed: u64) -> Result<Self, AqmError> {
        const D: &str = "fq_codel";
        if limit == 0 {
            return Err(AqmError::EmptyBuffer(D));
        }
        if p.buckets == 0 || p.buckets > 1 << 20 {
            return Err(AqmError::range(D, "buckets must be in 1..=2^20", p.buckets));
        }
        if p.quantum == 0 || p.interval == 0 {
            return Err(AqmError::Rule {
                disc: D,
                rule: "quantum and interval must be positive",
            });
        }
        let b = (0..p.buckets)
            .map(|_| Bucket {
                q: VecDeque::new(),
                bytes: 0,
                deficit: 0,
                list: 0,
                first_above: 0,
                drop_next: 0,
                count: 0,
                lastcount: 0,
                dropping: false,
            })
            .collect();
        Ok(FqCodel {
            b,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            perturb: splitmix64(seed ^ 0x4651_434F),
            limit,
            len: 0,
            bytes: 0,
            stats: AqmStats::default(),
            p,
        })
    }

    #[inline]
    fn pop(&mut self, i: usize) -> Option<(P, Nanos)> {
        let b = &mut self.b[i];
        let (p, t) = b.q.pop_front()?;
        b.bytes -= p.bytes() as u64;
        self.len -= 1;
        self.bytes -= p.bytes() as u64;
        Some((p, t))
    }

    /// RFC 8289 `should_drop`, for the packet just popped from bucket `i`.
    #[inline]
    fn should_drop(&mut self, i: usize, pkt: Option<(P, Nanos)>, now: Nanos) -> bool {
        let (target, interval, mtu) = (self.p.target, self.p.interval, self.p.mtu as u64);
        let b = &mut self.b[i];
        let Some((_, t)) = pkt else {
            b.first_above = 0;
            return false;
        };
        if now.saturating_sub(t) < target || b.bytes <= mtu {
            b.first_above = 0;
            return false;
        }
        if b.first_above == 0 {
            b.first_above = now + interval;
            return false;
        }
        now >= b.first_above
    }

    #[inline]
    fn control_law(&self, t: Nanos, count: u32) -> Nanos {
        t + (self.p.interval as f64 / (count.max(1) as f64).sqrt()) as Nanos
    }

    /// CoDel dequeue from bucket `i`.
    fn codel_dequeue(&mut self, i: usize, now: Nanos, drops: &mut Drops<P>) -> Option<P> {
        let mut pkt = self.pop(i);
        let mut drop = self.should_drop(i, pkt, now);
        if self.b[i].dropping {
            if !drop {
                self.b[i].dropping = false;
            } else {
                while self.b[i].dropping && now >= self.b[i].drop_next {
                    self.b[i].count += 1;
                    if let Some((p, _)) = pkt {
                        if p.ecn_capable() {
                            // RFC 8289 §5.7 / Linux codel with ECN: mark, send, next time.
                            let mut p = p;
                            p.mark_ce();
                            self.stats.marks += 1;
                            let (dn, c) = (self.b[i].drop_next, self.b[i].count);
                            self.b[i].drop_next = self.control_law(dn, c);
                            return Some(p);
                        }
                        self.stats.early_drops += 1;
                        drops.push(p, DropKind::Early);
                    }
                    pkt = self.pop(i);
                    if !self.should_drop(i, pkt, now) {
                        self.b[i].dropping = false;
                    } else {
                        let (dn, c) = (self.b[i].drop_next, self.b[i].count);
                        self.b[i].drop_next = self.control_law(dn, c);
                    }
                }
            }
        } else if drop {
            match pkt {
                Some((mut p, t)) if p.ecn_capable() => {
                    p.mark_ce();
                    self.stats.marks += 1;
                    pkt = Some((p, t));
                }
                Some((p, _)) => {
                    self.stats.early_drops += 1;
                    drops.push(p, DropKind::Early);
                    pkt = self.pop(i);
                    drop = self.should_drop(i, pkt, now);
                    let _ = drop;
                }
                None => {
                    pkt = self.pop(i);
                    drop = self.should_drop(i, pkt, now);
                    let _ = drop;
                }
            }
            let b = &mut self.b[i];
            b.dropping = true;
            let delta = b.count.wrapping_sub(b.lastcount);
            b.count = if delta > 1
                && delta < 1 << 30
                && now.saturating_sub(b.drop_next) < 16 * self.p.interval
            {
                delta
            } else {
                1
            };
            b.lastcount = b.count;
            let c = b.count;
            self.b[i].drop_next = self.control_law(now, c);
        }
        pkt.map(|(p, _)| p)
    }
}

impl<P: AqmPacket> Aqm<P> for FqCodel<P> {
    #[inline]
    fn enqueue(&mut self, pkt: P, now: Nanos, drops: &mut Drops<P>) {
        self.stats.arrivals += 1;
        let i = (splitmix64(pkt.flow() as u64 ^ self.perturb) % self.p.buckets as u64) as usize;
        let b = &mut self.b[i];
        b.q.push_back((pkt, now));
        b.bytes += pkt.bytes() as u64;
        self.len += 1;
        self.bytes += pkt.bytes() as u64;
        if b.list == 0 {
            b.list = 1;
            b.deficit = self.p.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
        if self.len > self.limit {
            // Drop from the head of the fattest queue (by bytes).
            let mut fat = i;
            for (j, bj) in self.b.iter().enumerate() {
                if bj.bytes > self.b[fat].bytes {
                    fat = j;
                }
            }
            if let Some((p, _)) = self.pop(fat) {
                self.stats.forced_drops += 1;
                drops.push(p, DropKind::Forced);
            }
        }
    }

    fn dequeue(&mut self, now: Nanos, drops: &mut Drops<P>) -> Option<P> {
        loop {
            let (i, from_new) = if let Some(&i) = self.new_flows.front() {
                (i as usize, true)
            } else if let Some(&i) = self.old_flows.front() {
                (i as usize, false)
            } else {
                return None;
            };
            if self.b[i].deficit <= 0 {
                self.b[i].deficit += self.p.quantum as i64;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.b[i].list = 2;
                self.old_flows.push_back(i as u32);
                continue;
            }
            match self.codel_dequeue(i, now, drops) {
                Some(p) => {
                    self.b[i].deficit -= p.bytes() as i64;
                    self.stats.departures += 1;
                    return Some(p);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        if !self.old_flows.is_empty() {
                            self.b[i].list = 2;
                            self.old_flows.push_back(i as u32);
                        } else {
                            self.b[i].list = 0;
                        }
                    } else {
                        self.old_flows.pop_front();
                        self.b[i].list = 0;
                    }
                }
            }
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
        "fq_codel"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::aqm::TestPkt as Pk;

    #[test]
    fn codel_drops_a_standing_queue_and_shares_fairly() {
        // Two flows each offer 1 packet per 0.5 ms; the link sends 1 per 0.5 ms → standing
        // queue; CoDel must start dropping, and service must alternate.
        let mut q = FqCodel::new(FqCodelParams::default(), 10_000, 1).unwrap();
        let mut d = Drops::default();
        let mut sent = [0u64; 2];
        for k in 0..20_000u64 {
            let now = k * 250_000;
            q.enqueue(Pk((k % 2) as u32), now, &mut d);
            if k % 2 == 0 {
                if let Some(p) = q.dequeue(now, &mut d) {
                    sent[p.0 as usize] += 1;
                }
            }
        }
        assert!(q.stats().early_drops > 100, "{:?}", q.stats());
        let r = sent[0] as f64 / sent[1] as f64;
        assert!((r - 1.0).abs() < 0.05, "{sent:?}");
        let s = q.stats();
        assert_eq!(
            s.arrivals,
            s.departures + s.early_drops + s.forced_drops + q.len_pkts() as u64
        );
    }

    #[test]
    fn overflow_drops_from_fattest_and_bad_params_fail() {
        let mut q = FqCodel::new(FqCodelParams::default(), 5, 1).unwrap();
        let mut d = Drops::default();
        for _ in 0..5 {
            q.enqueue(Pk(1), 0, &mut d);
        }
        q.enqueue(Pk(2), 0, &mut d);
        assert_eq!(d.pkts, vec![(Pk(1), DropKind::Forced)]);
        assert_eq!(q.len_pkts(), 5);
        let bad = FqCodelParams {
            buckets: 0,
            ..FqCodelParams::default()
        };
        assert!(FqCodel::<Pk>::new(bad, 5, 1).is_err());
        assert!(FqCodel::<Pk>::new(FqCodelParams::default(), 0, 1).is_err());
    }
}
