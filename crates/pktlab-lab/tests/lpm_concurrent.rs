//! Randomized stress test of `lpm::shared` (issue 12, item 5): many reader threads look up
//! while one updater applies random inserts and removes and publishes them in random-sized
//! groups, for every LPM algorithm (all support updates) and both families. Each published
//! state carries its own epoch number as the next hop of a marker route (the all-ones /32 or
//! /128), so a reader knows exactly which publish it is reading, and every answer is checked
//! against the radix-trie oracle's state *at that publish* — not merely "one of two legal
//! answers". Scaled down under miri (`cargo +nightly miri test -p pktlab --test
//! lpm_concurrent`), where only the radix oracle and Poptrie without direct pointing run.

use pktlab::lpm::shared::{concurrent, Op};
use pktlab::lpm::{Algo, Lpm, Radix, Visit};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::util::SplitMix64;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Sizes of one run: scaled down under miri, which interprets every instruction.
struct Scale {
    readers: usize,
    base_routes: usize,
    publishes: usize,
    max_ops: u64,
    lookups: usize,
    algos: &'static [&'static str],
}

const SCALE: Scale = if cfg!(miri) {
    Scale {
        readers: 2,
        base_routes: 24,
        publishes: 4,
        max_ops: 3,
        lookups: 8,
        algos: &["radix", "poptrie0"],
    }
} else {
    Scale {
        readers: 4,
        base_routes: 3000,
        publishes: 150,
        max_ops: 24,
        lookups: 64,
        algos: &Algo::ALL,
    }
};

fn nh(id: u64) -> NextHop {
    NextHop::new(id as u32).expect("non-zero next hop")
}

/// A random address in one of four regions (top byte 10..=13), so that prefixes overlap.
fn addr<A: Address>(rng: &mut SplitMix64) -> A {
    let region = 10 + rng.next_u64() % 4;
    let hi = (region << 56) | (rng.next_u64() >> 8);
    A::from_random(hi, rng.next_u64())
}

/// A random prefix of the regions, 8 to 30 (v4) or 64 (v6) bits long: never the marker.
fn prefix<A: Address>(rng: &mut SplitMix64) -> Prefix<A> {
    let max = if A::BITS == 32 { 30 } else { 64 };
    let len = 8 + (rng.next_u64() % (max - 7)) as u8;
    Prefix::new_masked(addr::<A>(rng), len)
}

/// The marker route's address: all ones.
fn marker<A: Address>() -> A {
    A::mask(A::BITS)
}

struct Stress<A: Address> {
    seed: u64,
    _a: std::marker::PhantomData<A>,
}

impl<A: Address> Visit<A> for Stress<A> {
    type Out = (String, u64, usize);

    fn visit<T: Lpm<A> + Clone + 'static>(self, mut table: T) -> Self::Out {
        let s = &SCALE;
        let mut rng = SplitMix64::new(self.seed);
        let mut pool: Vec<Prefix<A>> = (0..s.base_routes).map(|_| prefix(&mut rng)).collect();
        let mark = Prefix::new(marker::<A>(), A::BITS as u8).expect("marker prefix");
        let mut routes: Vec<(Prefix<A>, NextHop)> = pool
            .iter()
            .map(|p| (*p, nh(2 + rng.next_u64() % 200)))
            .collect();
        routes.push((mark, nh(1)));
        table.build(&routes);
        let mut oracle = Radix::<A>::new();
        oracle.build(&routes);

        // Every publish's operations and the oracle's state after it, computed up front.
        let mut groups = Vec::new();
        let mut states = vec![oracle.clone()];
        for epoch in 1..=s.publishes as u64 {
            let mut ops = Vec::new();
            for _ in 0..rng.next_u64() % (s.max_ops + 1) {
                let r = rng.next_u64();
                let op = if r.is_multiple_of(3) && !pool.is_empty() {
                    Op::Remove(pool[(r >> 8) as usize % pool.len()])
                } else {
                    let p = if r % 3 == 1 {
                        pool[(r >> 8) as usize % pool.len()]
                    } else {
                        prefix(&mut rng)
                    };
                    pool.push(p);
                    Op::Insert(p, nh(2 + (r >> 40) % 200))
                };
                ops.push(op);
            }
            ops.push(Op::Insert(mark, nh(epoch + 1)));
            for op in &ops {
                match *op {
                    Op::Insert(p, h) => oracle.insert(p, h),
                    Op::Remove(p) => oracle.remove(p),
                };
            }
            groups.push(ops);
            states.push(oracle.clone());
        }
        let states = Arc::new(states);
        let pool = Arc::new(pool);

        let name = table.name();
        let (mut w, r) = concurrent::<A, T>(table);
        let stop = Arc::new(AtomicBool::new(false));
        let checked = Arc::new(AtomicU64::new(0));
        let mut readers = Vec::new();
        for k in 0..s.readers {
            let (r, stop, checked) = (r.clone(), stop.clone(), checked.clone());
            let (states, pool) = (states.clone(), pool.clone());
            let seed = self.seed ^ ((k as u64 + 1) << 32);
            let name = name.clone();
            readers.push(std::thread::spawn(move || {
                let mut rng = SplitMix64::new(seed);
                let mut addrs = vec![marker::<A>(); s.lookups];
                let mut out = vec![None; s.lookups];
                let mut epochs = std::collections::BTreeSet::new();
                loop {
                    // Read `stop` before the check, so the last check sees the last publish.
                    let last = stop.load(Ordering::Acquire);
                    for a in addrs.iter_mut() {
                        let x = rng.next_u64();
                        *a = if x.is_multiple_of(2) {
                            let p = pool[(x >> 8) as usize % pool.len()];
                            let host = A::mask(p.len() as u32).not();
                            p.first()
                                .or(A::from_random(rng.next_u64(), rng.next_u64()).and(host))
                        } else {
                            addr(&mut rng)
                        };
                    }
                    let epoch = r
                        .with(|t| {
                            let epoch = t.lookup(marker::<A>()).expect("marker").get() as usize - 1;
                            let want = &states[epoch];
                            t.lookup_batch(&addrs, &mut out);
                            for (a, o) in addrs.iter().zip(&out) {
                                assert_eq!(*o, want.lookup(*a), "{name}: {a:?} at publish {epoch}");
                                assert_eq!(t.lookup(*a), *o, "{name}: batch vs scalar at {a:?}");
                            }
                            epoch
                        })
                        .expect("the writer outlives the readers");
                    epochs.insert(epoch);
                    checked.fetch_add(addrs.len() as u64, Ordering::Relaxed);
                    if last {
                        assert_eq!(epoch, states.len() - 1, "after the last publish");
                        return epochs.len();
                    }
                }
            }));
        }
        for ops in &groups {
            for op in ops {
                w.apply(*op);
            }
            assert_eq!(w.publish(), ops.len());
            if cfg!(miri) {
                std::thread::yield_now();
            }
        }
        stop.store(true, Ordering::Release);
        let mut seen = 0;
        for h in readers {
            seen += h.join().expect("reader panicked");
        }
        drop(w);
        (name, checked.load(Ordering::Relaxed), seen)
    }
}

fn run<A: Address>(seed: u64) {
    for name in SCALE.algos {
        let algo: Algo = name.parse().expect("algorithm name");
        let (got, checked, epochs_seen) = algo.visit(Stress::<A> {
            seed,
            _a: std::marker::PhantomData,
        });
        println!(
            "{got} ({}): {checked} lookups checked against the oracle, {epochs_seen} reader×publish states seen",
            A::FAMILY.as_str()
        );
        assert!(checked > 0 && epochs_seen >= SCALE.readers);
    }
}

#[test]
fn readers_see_exactly_the_published_state_v4() {
    run::<u32>(0x5EED_0004);
}

#[test]
fn readers_see_exactly_the_published_state_v6() {
    run::<u128>(0x5EED_0006);
}
