//! Hand-made sequences pinning each policy's behaviour; every policy against a naive `Vec`
//! reference model on both storage layouts (proptest); the two layouts against each other
//! under the timing model's split access/insert; Belady as a lower bound.

use super::store::{Linked, Small};
use super::tinylfu::Sketch;
use super::*;
use proptest::prelude::*;

/// Runs `seq` through one set (no timing: insert on miss) and returns hit (true) / miss.
fn run<P: Policy>(p: &mut P, seq: &[u64]) -> Vec<bool> {
    seq.iter()
        .map(|&k| match p.access(0, k, NEVER) {
            Access::Miss => {
                p.insert(0, k, NEVER);
                false
            }
            _ => true,
        })
        .collect()
}

fn hits(v: &[bool]) -> String {
    v.iter().map(|&h| if h { 'H' } else { 'm' }).collect()
}

fn small<R: Rule>(r: R, sets: usize, ways: usize) -> Cache<R, Small<R::Meta>> {
    Cache::new(r, sets, ways)
}
fn linked<R: Rule>(r: R, sets: usize, ways: usize) -> Cache<R, Linked<R::Meta>> {
    Cache::new(r, sets, ways)
}

#[test]
fn lru_evicts_least_recent() {
    // 1 2 3 4 fill; 1 hit (MRU); 5 evicts 2; 2 misses (evicts 3); 1 hits.
    let seq = [1, 2, 3, 4, 1, 5, 2, 1, 4];
    assert_eq!(hits(&run(&mut small(Lru, 1, 4), &seq)), "mmmmHmmHH");
    assert_eq!(hits(&run(&mut linked(Lru, 1, 4), &seq)), "mmmmHmmHH");
}

#[test]
fn fifo_ignores_hits() {
    // 1 hit does not protect 1: 5 evicts 1.
    let seq = [1, 2, 3, 4, 1, 5, 1];
    assert_eq!(hits(&run(&mut small(Fifo, 1, 4), &seq)), "mmmmHmm");
    assert_eq!(hits(&run(&mut linked(Fifo, 1, 4), &seq)), "mmmmHmm");
}

#[test]
fn slru_inserts_at_probationary_mru() {
    // 1 2 fill probationary; 1 hit → protected; 3, 4 enter probationary at MRU, so 4
    // evicts 2 (probationary LRU); 2 misses; protected 1 survives all of it.
    let r = run(&mut small(Slru::default(), 1, 4), &[1, 2, 1, 3, 4, 2, 1]);
    assert_eq!(hits(&r), "mmHmmmH");
    // after 1,2 protected [2,1]; 3 hit → protected [3,2], 1 demoted to prob MRU;
    // 4 → prob [4,1]; 5 → prob [5,4], 1 evicted; 1 miss; 2 hit.
    let r = run(
        &mut small(Slru::default(), 1, 4),
        &[1, 2, 1, 2, 3, 3, 4, 5, 1, 2],
    );
    assert_eq!(hits(&r), "mmHHmHmmmH");
}

#[test]
fn hpc_lru_position_insertion_and_swap() {
    // 4 ways: hit region 2, normal region 2. HPC2. New entries stay at the normal LRU slot:
    // normal = [1, 2]; 3 replaces the LRU slot (2), not 1.
    let mut p = small(Hpc::new(2), 1, 4);
    assert_eq!(hits(&run(&mut p, &[1, 2, 3, 1, 2])), "mmmHm");
    // A second hit on 1 promotes it (exchange); 4, 5, 6, 7 churn the normal region.
    let seq: Vec<Access> = [1u64, 4, 5, 6, 7, 1]
        .iter()
        .map(|&k| {
            let a = p.access(0, k, NEVER);
            if a == Access::Miss {
                p.insert(0, k, NEVER);
            }
            a
        })
        .collect();
    assert_eq!(seq[0], Access::Exchange);
    assert_eq!(seq.iter().filter(|&&a| a == Access::Exchange).count(), 1);
    assert_eq!(seq[5], Access::Hit, "promoted flow survives churn");
    // One-packet flows leave first.
    let r = run(&mut small(Hpc::new(4), 1, 4), &[1, 1, 10, 11, 12, 13, 1]);
    assert_eq!(hits(&r), "mHmmmmH");
    assert_eq!(
        hits(&run(&mut small(Lru, 1, 2), &[1, 1, 10, 11, 12, 13, 1])),
        "mHmmmmm"
    );
}

#[test]
fn hpc_swap_demotes_hit_lru_to_normal_mru() {
    let mut p = small(Hpc::new(1), 1, 4);
    for k in [1, 1, 2, 2] {
        if p.access(0, k, NEVER) == Access::Miss {
            p.insert(0, k, NEVER);
        }
    }
    // Hit region [1, 2]; 3 enters, hits → exchanges with the hit region's LRU (2).
    assert_eq!(p.access(0, 3, NEVER), Access::Miss);
    p.insert(0, 3, NEVER);
    assert_eq!(p.access(0, 3, NEVER), Access::Exchange);
    // Normal region is now [2, -]; new flows 4 then 5 take the LRU slot, 2 stays.
    for k in [4, 5] {
        assert_eq!(p.access(0, k, NEVER), Access::Miss);
        p.insert(0, k, NEVER);
    }
    assert_eq!(p.access(0, 4, NEVER), Access::Miss, "4 was replaced by 5");
    p.insert(0, 4, NEVER);
    for k in [1, 3, 2] {
        assert_ne!(p.access(0, k, NEVER), Access::Miss, "{k}");
    }
}

#[test]
fn spc_climbs_one_step_per_hit() {
    // fill [1,2,3]; 3 hits → [1,3,2]; 4 replaces lowest (2); 2 misses → replaces 4.
    let seq = [1, 2, 3, 3, 4, 2, 4, 1, 3];
    assert_eq!(hits(&run(&mut small(Spc, 1, 3), &seq)), "mmmHmmmHH");
    assert_eq!(hits(&run(&mut linked(Spc, 1, 3), &seq)), "mmmHmmmHH");
}

#[test]
fn sieve_keeps_visited_and_moves_hand() {
    // Fill 1..4 (front 4 3 2 1 back); hit 1 and 2; 5: hand from back clears 1, 2, evicts 3;
    // hand stays at 4. 6: hand at 4 (not visited) evicts 4. 1 and 2 survive.
    let seq = [1, 2, 3, 4, 1, 2, 5, 6, 1, 2, 3, 4];
    assert_eq!(hits(&run(&mut small(Sieve, 1, 4), &seq)), "mmmmHHmmHHmm");
    assert_eq!(hits(&run(&mut linked(Sieve, 1, 4), &seq)), "mmmmHHmmHHmm");
}

#[test]
fn s3fifo_ghost_hits_enter_main() {
    // 10 ways: small 1, main 9, ghost 9. One-hit keys pass through small into the ghost; a
    // key that comes back from the ghost goes to main and then survives a scan.
    for lay in [false, true] {
        // Fill with 1..=10 (all in small); 11 evicts 1 from small into the ghost; 1 comes
        // back (a miss) into main; a scan of 16 new keys churns small only; 1 still hits.
        let mut seq: Vec<u64> = (1..=11).collect();
        seq.push(1);
        seq.extend(200..216);
        seq.push(1);
        let r = if lay {
            run(&mut linked(S3Fifo::default(), 1, 10), &seq)
        } else {
            run(&mut small(S3Fifo::default(), 1, 10), &seq)
        };
        assert!(!r[11] && *r.last().unwrap(), "{}", hits(&r));
        assert_eq!(r.iter().filter(|&&h| h).count(), 1, "{}", hits(&r));
    }
}

#[test]
fn random_is_seeded() {
    let seq: Vec<u64> = (0..2000).map(|i| crate::util::splitmix64(i) % 12).collect();
    let a = run(&mut small(Random::new(3), 1, 4), &seq);
    let b = run(&mut small(Random::new(3), 1, 4), &seq);
    assert_eq!(a, b);
    assert!(a.iter().any(|&h| h) && a.iter().any(|&h| !h));
}

// ---------------------------------------------------------------------------------------
// Naive reference models: one set, a `Vec` per queue, the obvious operations.

trait Model {
    fn step(&mut self, key: u64, next_use: u64) -> Access;
}

fn pos(v: &[u64], k: u64) -> Option<usize> {
    v.iter().position(|&x| x == k)
}

struct MLru(usize, Vec<u64>, bool); // cap, MRU first, fifo?
impl Model for MLru {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(i) = pos(&self.1, k) {
            if !self.2 {
                self.1.remove(i);
                self.1.insert(0, k);
            }
            return Access::Hit;
        }
        if self.1.len() == self.0 {
            self.1.pop();
        }
        self.1.insert(0, k);
        Access::Miss
    }
}

struct MRandom(Vec<Option<u64>>, crate::util::XorShift64);
impl Model for MRandom {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if self.0.contains(&Some(k)) {
            return Access::Hit;
        }
        let r = self.1.next();
        let n = self.0.len();
        let i = self.0.iter().position(|x| x.is_none());
        let i = i.unwrap_or(((r >> 32).wrapping_mul(n as u64) >> 32) as usize);
        self.0[i] = Some(k);
        Access::Miss
    }
}

struct MClock(usize, Vec<(u64, bool)>);
impl Model for MClock {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(e) = self.1.iter_mut().find(|e| e.0 == k) {
            e.1 = true;
            return Access::Hit;
        }
        if self.1.len() == self.0 {
            loop {
                let (x, r) = self.1.pop().unwrap();
                if !r {
                    break;
                }
                self.1.insert(0, (x, false));
            }
        }
        self.1.insert(0, (k, false));
        Access::Miss
    }
}

struct MSieve(usize, Vec<(u64, bool)>, Option<u64>); // front first; hand = key at hand
impl Model for MSieve {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(e) = self.1.iter_mut().find(|e| e.0 == k) {
            e.1 = true;
            return Access::Hit;
        }
        if self.1.len() == self.0 {
            let last = self.1.len() - 1;
            let mut x = self
                .2
                .and_then(|h| self.1.iter().position(|e| e.0 == h))
                .unwrap_or(last);
            while self.1[x].1 {
                self.1[x].1 = false;
                x = if x == 0 { last } else { x - 1 };
            }
            self.2 = (x > 0).then(|| self.1[x - 1].0);
            self.1.remove(x);
        }
        self.1.insert(0, (k, false));
        Access::Miss
    }
}

struct MSlru(usize, Vec<u64>, Vec<u64>); // protected cap, protected, probationary
impl Model for MSlru {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(i) = pos(&self.1, k) {
            self.1.remove(i);
            self.1.insert(0, k);
            return Access::Hit;
        }
        if let Some(i) = pos(&self.2, k) {
            self.2.remove(i);
            self.1.insert(0, k);
            if self.1.len() > self.0 {
                let d = self.1.pop().unwrap();
                self.2.insert(0, d);
            }
            return Access::Hit;
        }
        Access::Miss
    }
}
struct MSlruW(MSlru, usize); // + probationary cap
impl Model for MSlruW {
    fn step(&mut self, k: u64, n: u64) -> Access {
        let a = self.0.step(k, n);
        if a == Access::Miss {
            if self.0 .2.len() == self.1 {
                self.0 .2.pop();
            }
            self.0 .2.insert(0, k);
        }
        a
    }
}

struct MHpc(u8, usize, usize, Vec<u64>, Vec<(u64, u8)>); // n, hit cap, normal cap, hit, normal
impl Model for MHpc {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(i) = pos(&self.3, k) {
            self.3.remove(i);
            self.3.insert(0, k);
            return Access::Hit;
        }
        if let Some(i) = self.4.iter().position(|e| e.0 == k) {
            let (_, c) = self.4.remove(i);
            let c = c.saturating_add(1);
            if c < self.0 {
                self.4.insert(0, (k, c));
                return Access::Hit;
            }
            if self.3.len() < self.1 {
                self.3.push(k);
            } else {
                let d = self.3.pop().unwrap();
                self.3.push(k);
                self.4.insert(0, (d, 0));
            }
            return Access::Exchange;
        }
        if self.4.len() < self.2 {
            self.4.push((k, 0));
        } else {
            *self.4.last_mut().unwrap() = (k, 0);
        }
        Access::Miss
    }
}

struct MSpc(usize, Vec<u64>);
impl Model for MSpc {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(i) = pos(&self.1, k) {
            if i > 0 {
                self.1.swap(i - 1, i);
            }
            return Access::Hit;
        }
        if self.1.len() < self.0 {
            self.1.push(k);
        } else {
            *self.1.last_mut().unwrap() = k;
        }
        Access::Miss
    }
}

struct MLfu(usize, Vec<(u64, u64, u64)>, u64); // cap, (key, count, last use), clock
impl Model for MLfu {
    fn step(&mut self, k: u64, _: u64) -> Access {
        self.2 += 1;
        let t = self.2;
        if let Some(e) = self.1.iter_mut().find(|e| e.0 == k) {
            e.1 += 1;
            e.2 = t;
            return Access::Hit;
        }
        if self.1.len() == self.0 {
            let (i, _) = self
                .1
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| (e.1, e.2))
                .unwrap();
            self.1.remove(i);
        }
        self.1.push((k, 1, t));
        Access::Miss
    }
}

struct MBelady(usize, Vec<(u64, u64)>);
impl Model for MBelady {
    fn step(&mut self, k: u64, nu: u64) -> Access {
        if let Some(e) = self.1.iter_mut().find(|e| e.0 == k) {
            e.1 = nu;
            return Access::Hit;
        }
        if self.1.len() < self.0 {
            self.1.push((k, nu));
        } else {
            let mut j = 0;
            for (i, e) in self.1.iter().enumerate() {
                if e.1 > self.1[j].1 {
                    j = i;
                }
            }
            if nu < self.1[j].1 {
                self.1[j] = (k, nu);
            }
        }
        Access::Miss
    }
}

/// ARC exactly as fig. 4 of Megiddo & Modha (with libCacheSim's tie rule), on four Vecs.
struct MArc {
    c: usize,
    p: f64,
    t1: Vec<u64>,
    t2: Vec<u64>,
    b1: Vec<u64>,
    b2: Vec<u64>,
}
impl MArc {
    fn replace(&mut self, in_b2: bool) {
        let t1 = self.t1.len() as f64;
        if (!self.t1.is_empty() && (t1 > self.p || (t1 == self.p && in_b2))) || self.t2.is_empty() {
            let x = self.t1.pop().unwrap();
            self.b1.insert(0, x);
        } else {
            let x = self.t2.pop().unwrap();
            self.b2.insert(0, x);
        }
    }
}
impl Model for MArc {
    fn step(&mut self, k: u64, _: u64) -> Access {
        if let Some(i) = pos(&self.t1, k) {
            self.t1.remove(i);
            self.t2.insert(0, k);
            return Access::Hit;
        }
        if let Some(i) = pos(&self.t2, k) {
            self.t2.remove(i);
            self.t2.insert(0, k);
            return Access::Hit;
        }
        let c = self.c;
        let full = self.t1.len() + self.t2.len() >= c;
        if let Some(i) = pos(&self.b1, k) {
            self.p =
                (self.p + (self.b2.len() as f64 / self.b1.len() as f64).max(1.0)).min(c as f64);
            self.b1.remove(i);
            if full {
                self.replace(false);
            }
            self.t2.insert(0, k);
        } else if let Some(i) = pos(&self.b2, k) {
            self.p = (self.p - (self.b1.len() as f64 / self.b2.len() as f64).max(1.0)).max(0.0);
            self.b2.remove(i);
            if full {
                self.replace(true);
            }
            self.t2.insert(0, k);
        } else {
            if full {
                if self.t1.len() + self.b1.len() >= c {
                    if !self.b1.is_empty() {
                        self.b1.pop();
                        self.replace(false);
                    } else {
                        self.t1.pop();
                    }
                } else {
                    if self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len() >= 2 * c {
                        self.b2.pop();
                    }
                    self.replace(false);
                }
            }
            self.t1.insert(0, k);
        }
        Access::Miss
    }
}

/// S3-FIFO on three Vecs (front first).
struct MS3 {
    small: usize,
    main: usize,
    ghost: usize,
    s: Vec<(u64, u8)>,
    m: Vec<(u64, u8)>,
    g: Vec<u64>,
}
impl Model for MS3 {
    fn step(&mut self, k: u64, _: u64) -> Access {
        for e in self.s.iter_mut().chain(self.m.iter_mut()) {
            if e.0 == k {
                e.1 = (e.1 + 1).min(3);
                return Access::Hit;
            }
        }
        let from_ghost = pos(&self.g, k).map(|i| self.g.remove(i)).is_some();
        while self.s.len() + self.m.len() >= self.small + self.main {
            if self.m.len() > self.main || self.s.is_empty() {
                loop {
                    let (x, f) = self.m.pop().unwrap();
                    if f == 0 {
                        break;
                    }
                    self.m.insert(0, (x, f - 1));
                }
            } else {
                while let Some((x, f)) = self.s.pop() {
                    if f >= 2 {
                        self.m.insert(0, (x, 0));
                        continue;
                    }
                    if self.ghost > 0 {
                        if self.g.len() >= self.ghost {
                            self.g.pop();
                        }
                        self.g.insert(0, x);
                    }
                    break;
                }
            }
        }
        if from_ghost {
            self.m.insert(0, (k, 0));
        } else {
            self.s.insert(0, (k, 0));
        }
        Access::Miss
    }
}

/// W-TinyLFU on three Vecs with the same sketch.
struct MTiny {
    window: usize,
    prot: usize,
    ways: usize,
    w: Vec<u64>,
    pb: Vec<u64>,
    pt: Vec<u64>,
    sk: Sketch,
}
impl Model for MTiny {
    fn step(&mut self, k: u64, _: u64) -> Access {
        self.sk.add(k);
        if let Some(i) = pos(&self.w, k) {
            self.w.remove(i);
            self.w.insert(0, k);
            return Access::Hit;
        }
        if let Some(i) = pos(&self.pt, k) {
            self.pt.remove(i);
            self.pt.insert(0, k);
            return Access::Hit;
        }
        if let Some(i) = pos(&self.pb, k) {
            self.pb.remove(i);
            self.pt.insert(0, k);
            if self.pt.len() > self.prot {
                let d = self.pt.pop().unwrap();
                self.pb.insert(0, d);
            }
            return Access::Hit;
        }
        if self.w.len() >= self.window {
            let c = self.w.pop().unwrap();
            if self.pb.len() + self.pt.len() + self.window >= self.ways {
                let v = *self.pb.last().or(self.pt.last()).unwrap();
                if self.sk.estimate(c) > self.sk.estimate(v) {
                    if let Some(i) = pos(&self.pb, v) {
                        self.pb.remove(i);
                    } else {
                        let i = pos(&self.pt, v).unwrap();
                        self.pt.remove(i);
                    }
                    self.pb.insert(0, c);
                }
            } else {
                self.pb.insert(0, c);
            }
        }
        self.w.insert(0, k);
        Access::Miss
    }
}

/// The reference model of policy `name` for one set of `ways`.
fn model(name: &str, ways: usize, seed: u64) -> Box<dyn Model> {
    match name {
        "lru" => Box::new(MLru(ways, vec![], false)),
        "fifo" => Box::new(MLru(ways, vec![], true)),
        "random" => Box::new(MRandom(
            vec![None; ways],
            crate::util::XorShift64::new(crate::util::splitmix64(seed)),
        )),
        "clock" => Box::new(MClock(ways, vec![])),
        "sieve" => Box::new(MSieve(ways, vec![], None)),
        "slru" => Box::new(MSlruW(MSlru(ways / 2, vec![], vec![]), ways - ways / 2)),
        "spc" => Box::new(MSpc(ways, vec![])),
        "lfu" => Box::new(MLfu(ways, vec![], 0)),
        "belady" => Box::new(MBelady(ways, vec![])),
        "arc" => Box::new(MArc {
            c: ways,
            p: 0.0,
            t1: vec![],
            t2: vec![],
            b1: vec![],
            b2: vec![],
        }),
        "s3fifo" => {
            let small = ((ways as f64 * 0.1) as usize).max(1);
            Box::new(MS3 {
                small,
                main: ways - small,
                ghost: (ways as f64 * 0.9) as usize,
                s: vec![],
                m: vec![],
                g: vec![],
            })
        }
        "tinylfu" => {
            let window = ((ways as f64 * 0.01) as usize).max(1);
            Box::new(MTiny {
                window,
                prot: ((ways - window) as f64 * 0.8) as usize,
                ways,
                w: vec![],
                pb: vec![],
                pt: vec![],
                sk: Sketch::new(ways),
            })
        }
        n => {
            let k: u8 = n.strip_prefix("hpc").unwrap().parse().unwrap();
            Box::new(MHpc(k, ways / 2, ways - ways / 2, vec![], vec![]))
        }
    }
}

/// Next-use index of each request of `keys`.
fn next_uses(keys: &[u64]) -> Vec<u64> {
    let mut last = std::collections::HashMap::new();
    let mut out = vec![NEVER; keys.len()];
    for (i, &k) in keys.iter().enumerate() {
        if let Some(j) = last.insert(k, i) {
            out[j] = i as u64;
        }
    }
    out
}

/// Runs policy `name` on one set of `ways` (no timing) on the given layout.
fn policy_run(
    name: &str,
    ways: usize,
    seed: u64,
    keys: &[u64],
    nu: &[u64],
    linked_layout: bool,
) -> Vec<Access> {
    let mut out = Vec::with_capacity(keys.len());
    macro_rules! go {
        ($rule:expr) => {{
            if linked_layout {
                let mut c = linked($rule, 1, ways);
                for (&k, &n) in keys.iter().zip(nu) {
                    out.push(c.access_insert(0, k, n));
                }
            } else {
                let mut c = small($rule, 1, ways);
                for (&k, &n) in keys.iter().zip(nu) {
                    out.push(c.access_insert(0, k, n));
                }
            }
        }};
    }
    match name {
        "lru" => go!(Lru),
        "fifo" => go!(Fifo),
        "random" => go!(Random::new(seed)),
        "clock" => go!(Clock),
        "sieve" => go!(Sieve),
        "slru" => go!(Slru::default()),
        "spc" => go!(Spc),
        "lfu" => go!(Lfu::default()),
        "belady" => go!(Belady),
        "arc" => go!(Arc::default()),
        "s3fifo" => go!(S3Fifo::default()),
        "tinylfu" => go!(TinyLfu::default()),
        n => go!(Hpc::new(n.strip_prefix("hpc").unwrap().parse().unwrap())),
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every policy, on both layouts, does exactly what its naive Vec model does.
    #[test]
    fn every_policy_matches_its_reference_model(
        ways in 2usize..=12,
        span in 1u64..=3,
        seed in 0u64..1000,
        len in 50usize..400,
    ) {
        let mut rng = crate::util::XorShift64::new(seed + 1);
        let range = ways as u64 * span + 2;
        let keys: Vec<u64> = (0..len).map(|_| {
            let u = rng.next() % range;
            u * u / range // skewed, so every policy sees hits and misses
        }).collect();
        let nu = next_uses(&keys);
        for name in POLICY_NAMES {
            let mut m = model(name, ways, seed);
            let want: Vec<Access> = keys.iter().zip(&nu).map(|(&k, &n)| m.step(k, n)).collect();
            for lay in [false, true] {
                let got = policy_run(name, ways, seed, &keys, &nu, lay);
                prop_assert_eq!(&got, &want, "{} ways {} linked {}", name, ways, lay);
            }
        }
    }

    /// The timing model's split access / delayed insert: both layouts stay identical when
    /// inserts of missed keys are deferred and interleaved with other lookups.
    #[test]
    fn layouts_agree_under_deferred_inserts(
        ways in 2usize..=12,
        seed in 0u64..1000,
    ) {
        let mut rng = crate::util::XorShift64::new(seed * 7 + 3);
        let sets = 3usize;
        let keys: Vec<u64> = (0..600).map(|_| rng.next() % (sets as u64 * ways as u64 * 2)).collect();
        for name in POLICY_NAMES {
            macro_rules! both {
                ($rule:expr) => {{
                    let mut x = small($rule, sets, ways);
                    let mut y = linked($rule, sets, ways);
                    let mut pending: Vec<(usize, u64)> = Vec::new();
                    for (i, &k) in keys.iter().enumerate() {
                        let set = (k % sets as u64) as usize;
                        if i % 3 == 0 {
                            // Complete the oldest in-flight lookups (not cached meanwhile).
                            for (s, pk) in pending.drain(..) {
                                if x.slot_of(s, pk).is_none() {
                                    x.insert(s, pk, NEVER);
                                    y.insert(s, pk, NEVER);
                                }
                            }
                        }
                        let (ra, rb) = (x.access(set, k, NEVER), y.access(set, k, NEVER));
                        prop_assert_eq!(ra, rb, "{} step {}", name, i);
                        if ra == Access::Miss && !pending.contains(&(set, k)) {
                            pending.push((set, k));
                        }
                        prop_assert_eq!(x.len(), y.len());
                        // `contains` answers as `slot_of` does, ghosts included (ARC, S3-FIFO),
                        // for the key just looked up and a key never seen.
                        for c in [&x as &dyn ContainsCheck, &y] {
                            for q in [k, u64::from(u32::MAX - 7)] {
                                prop_assert_eq!(c.has(set, q), c.slot(set, q).is_some(), "{} contains {}", name, q);
                            }
                        }
                    }
                }};
            }
            match *name {
                "lru" => both!(Lru),
                "fifo" => both!(Fifo),
                "random" => both!(Random::new(seed)),
                "clock" => both!(Clock),
                "sieve" => both!(Sieve),
                "slru" => both!(Slru::default()),
                "spc" => both!(Spc),
                "lfu" => both!(Lfu::default()),
                "belady" => both!(Belady),
                "arc" => both!(Arc::default()),
                "s3fifo" => both!(S3Fifo::default()),
                "tinylfu" => both!(TinyLfu::default()),
                n => both!(Hpc::new(n.strip_prefix("hpc").unwrap().parse().unwrap())),
            }
        }
    }
}

/// `Policy::contains` and `Policy::slot_of` side by side, object-safe (`Policy` has an
/// associated constant).
trait ContainsCheck {
    fn has(&self, set: usize, key: u64) -> bool;
    fn slot(&self, set: usize, key: u64) -> Option<u32>;
}

impl<P: Policy> ContainsCheck for P {
    fn has(&self, set: usize, key: u64) -> bool {
        self.contains(set, key)
    }
    fn slot(&self, set: usize, key: u64) -> Option<u32> {
        self.slot_of(set, key)
    }
}

fn random_trace(seed: u64, n: usize, flows: u64) -> Vec<TracePacket> {
    let mut rng = crate::util::XorShift64::new(seed);
    (0..n)
        .map(|i| {
            // Skewed popularity: square of a uniform.
            let u = rng.next() % flows;
            let f = (u * u / flows) as u32;
            let h = crate::util::splitmix64(f as u64) as u32;
            TracePacket {
                ts_ns: i as u64 * 50,
                flow: f,
                crc: h,
                xor: h.rotate_left(7),
            }
        })
        .collect()
}

fn next_uses_of(t: &[TracePacket]) -> Vec<u32> {
    let mut last = std::collections::HashMap::new();
    let mut out = vec![u32::MAX; t.len()];
    for (i, p) in t.iter().enumerate() {
        if let Some(j) = last.insert(p.flow, i) {
            out[j] = i as u32;
        }
    }
    out
}

#[test]
fn belady_bounds_every_policy() {
    for seed in 1..6 {
        let t = random_trace(seed, 20_000, 400);
        let nu = next_uses_of(&t);
        let cfg = SimConfig {
            timing: false,
            ..SimConfig::default()
        };
        // 4, 8 ways (small layout), 64 ways and fully associative (linked layout).
        for ways in [4usize, 8, 64, 128] {
            let entries = 128;
            let mut b = AnySim::new("belady", entries, ways, cfg, seed).unwrap();
            b.run(&t, &nu);
            assert_eq!(b.linked(), ways >= 64);
            let bm = b.counters().misses;
            for name in POLICY_NAMES {
                let mut s = AnySim::new(name, entries, ways, cfg, seed).unwrap();
                s.run(&t, &nu);
                let c = s.counters();
                assert_eq!(c.packets, t.len() as u64);
                assert!(
                    bm <= c.misses,
                    "{name} ways {ways}: {} < belady {bm}",
                    c.misses
                );
            }
            // 8-way Belady on the union of two 4-way sets bounds every 4-way policy too.
            if ways == 8 {
                for name in POLICY_NAMES {
                    let mut s = AnySim::new(name, entries, 4, cfg, seed).unwrap();
                    s.run(&t, &nu);
                    assert!(bm <= s.counters().misses, "{name}");
                }
            }
        }
    }
}

#[test]
fn timing_model_cmt_and_pes() {
    let cfg = SimConfig {
        timing: true,
        pes: 1,
        lookup_ns: 100,
        ..SimConfig::default()
    };
    let pk = |t: u64, f: u32| TracePacket {
        ts_ns: t,
        flow: f,
        crc: f,
        xor: f,
    };
    let mut s = Sim::new(small(Lru, 1, 4), cfg);
    // Flow 1 misses at 0 (lookup until 100); its packets at 50 and 99 are CMT hits; at 100
    // the entry is in: hit. Flow 2 at 10 waits for the single PE (starts 100, ends 200).
    for p in [
        pk(0, 1),
        pk(10, 2),
        pk(50, 1),
        pk(99, 1),
        pk(100, 1),
        pk(150, 2),
        pk(200, 2),
    ] {
        s.step(&p, NEVER);
    }
    let c = s.counters();
    assert_eq!(
        (c.packets, c.misses, c.cmt_hits, c.hits, c.pe_wait_ns),
        (7, 2, 3, 2, 90)
    );
    // No timing: every first packet is a miss, the rest hit.
    let mut s = Sim::new(
        small(Lru, 1, 4),
        SimConfig {
            timing: false,
            ..cfg
        },
    );
    for p in [pk(0, 1), pk(1, 1), pk(2, 2), pk(3, 2)] {
        s.step(&p, NEVER);
    }
    let c = s.counters();
    assert_eq!((c.misses, c.hits, c.cmt_hits), (2, 2, 0));
    let d = DelayModel::default();
    assert!((c.avg_delay_ns(&d) - (2.0 * 0.5 + 55.0 * 0.5)).abs() < 1e-9);
}

#[test]
fn names_parse() {
    for n in POLICY_NAMES {
        let w = policy_ways(n, None).unwrap();
        assert!(
            AnySim::new(n, 1024, w, SimConfig::default(), 1).is_some(),
            "{n}"
        );
        // Any associativity, fully associative included.
        for ways in [1usize, 3, 16, 100, 1024] {
            assert!(AnySim::new(n, 1024, ways, SimConfig::default(), 1).is_some());
        }
    }
    assert!(AnySim::new("hpc0", 1024, 8, SimConfig::default(), 1).is_none());
    assert!(AnySim::new("lfu2", 1024, 8, SimConfig::default(), 1).is_none());
    assert!(policy_ways("nope", None).is_none());
}

#[test]
fn fused_lru_equals_access_then_insert() {
    for ways in [1usize, 2, 3, 4, 8, 16] {
        let mut a = small(Lru, 4, ways);
        let mut b = small(Lru, 4, ways);
        let mut rng = crate::util::XorShift64::new(ways as u64);
        for _ in 0..20_000 {
            let k = rng.next() % (3 * ways as u64 + 2);
            let set = (k % 4) as usize;
            let x = a.access_insert(set, k, NEVER);
            let y = b.access(set, k, NEVER);
            if y == Access::Miss {
                b.insert(set, k, NEVER);
            }
            assert_eq!(x, y);
            assert_eq!(a.len(), b.len());
            for kk in 0..(3 * ways as u64 + 2) {
                let s = (kk % 4) as usize;
                assert_eq!(a.slot_of(s, kk), b.slot_of(s, kk));
            }
        }
    }
}

/// Stores large enough to prefetch (the simulator's look-ahead loop and the store's unlink,
/// hand and eviction hints all switch on at 2¹⁶ slots) give exactly the hits of the same
/// cache stepped one request at a time: prefetching changes nothing observable.
#[test]
fn prefetching_runs_change_nothing() {
    let entries = 1 << 16;
    let t = random_trace(11, 200_000, 4 * entries as u64);
    let nu = next_uses_of(&t);
    let keys: Vec<u64> = t.iter().map(|p| p.flow as u64).collect();
    let nu64: Vec<u64> = nu
        .iter()
        .map(|&n| if n == u32::MAX { NEVER } else { n as u64 })
        .collect();
    let cfg = SimConfig {
        timing: false,
        ..SimConfig::default()
    };
    for name in POLICY_NAMES {
        let mut s = AnySim::new(name, entries, entries, cfg, 3).unwrap();
        assert!(s.linked(), "{name}");
        s.run(&t, &nu);
        let stepped = policy_run(name, entries, 3, &keys, &nu64, true);
        let misses = stepped.iter().filter(|&&a| a == Access::Miss).count() as u64;
        let c = s.counters();
        assert_eq!(c.misses, misses, "{name}");
        // The stream must evict for the eviction hints to be exercised.
        assert!(misses > entries as u64 + 10_000, "{name}: {misses} misses");
    }
}
