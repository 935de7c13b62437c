//! Hand-made sequences pinning each policy's behaviour; Belady as a lower bound; the timing
//! model; large (prefetching) stores against small ones. The reference models and their
//! proptests are in `models.rs`.

mod models;
use models::policy_run;

use super::store::{Linked, Small};
use super::*;

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
