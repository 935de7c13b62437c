//! Every policy against its naive reference model: one set, a `Vec` per queue, the obvious
//! operations (proptest, both storage layouts), and the two layouts against each other under
//! the timing model's split access/insert.

use super::super::tinylfu::Sketch;
use super::*;
use proptest::prelude::*;

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
pub(super) fn policy_run(
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
