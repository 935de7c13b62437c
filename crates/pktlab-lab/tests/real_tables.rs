//! Full-table checks on the real routing tables in `../shared/data/` (skipped when absent):
//! every Poptrie configuration agrees with the radix oracle on the first and last address of
//! every prefix, their neighbours and 1M random addresses, for RIS IPv4 and IPv6; and a slice
//! of the real update stream applied incrementally gives exactly the structure of a rebuild.

use pktlab::io::nexthop::NextHopScheme;
use pktlab::io::routes::{read_table, read_updates, Update};
use pktlab::lpm::{Lpm, Poptrie, PoptrieConfig, Radix, Variant};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::util::XorShift64;
use std::path::PathBuf;

fn ris() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/routes/ris-rrc00-as3333-2026-05-11"
    ));
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: no shared data");
        None
    }
}

fn probes<A: Address>(routes: &[(Prefix<A>, NextHop)], random: usize) -> Vec<A> {
    let mut rng = XorShift64::new(42);
    let mut v: Vec<A> = (0..random)
        .map(|_| A::from_random(rng.next(), rng.next()))
        .collect();
    for (p, _) in routes {
        for a in [p.first(), p.last()] {
            v.extend([a, a.wrapping_add(1), a.wrapping_sub(1)]);
        }
    }
    v
}

fn full_table<A: Address>(file: &str) {
    let Some(dir) = ris() else { return };
    let t = read_table::<A>(&dir.join(file), &NextHopScheme::Hash(16)).expect("read table");
    let routes: Vec<_> = t.routes.iter().map(|r| (r.prefix, r.nexthop)).collect();
    assert!(routes.len() > 200_000);
    let mut oracle = Radix::<A>::new();
    oracle.build(&routes);
    let addrs = probes(&routes, 1 << 20);
    let want: Vec<_> = addrs.iter().map(|a| oracle.lookup(*a)).collect();
    for s in [0u8, 16, 18] {
        for variant in [Variant::Basic, Variant::Leafvec, Variant::Aggregated] {
            if s == 16 && variant == Variant::Basic {
                continue; // 20M leaves: slow in debug-ish test builds, covered by s=0/18
            }
            let mut p = Poptrie::<A>::new(PoptrieConfig::with_variant(s, variant));
            p.build(&routes);
            let mut got = vec![None; addrs.len()];
            p.lookup_batch(&addrs, &mut got);
            let bad = got.iter().zip(&want).filter(|(g, w)| g != w).count();
            assert_eq!(bad, 0, "{}: {bad} mismatches on {file}", p.name());
        }
    }
}

#[test]
fn ris_v4_full_table_matches_oracle() {
    full_table::<u32>("rib-v4.txt.gz");
}

#[test]
fn ris_v6_full_table_matches_oracle() {
    full_table::<u128>("rib-v6.txt.gz");
}

#[test]
fn ris_v4_update_slice_equals_rebuild() {
    let Some(dir) = ris() else { return };
    let scheme = NextHopScheme::Hash(16);
    let t = read_table::<u32>(&dir.join("rib-v4.txt.gz"), &scheme).expect("read table");
    let routes: Vec<_> = t.routes.iter().map(|r| (r.prefix, r.nexthop)).collect();
    let (ups, _) = read_updates::<u32>(&dir.join("updates-v4.txt.gz"), &scheme).expect("updates");
    let mut p = Poptrie::<u32>::new(PoptrieConfig::new(18));
    p.build(&routes);
    let mut oracle = Radix::<u32>::new();
    oracle.build(&routes);
    for u in ups.iter().take(200_000) {
        match *u {
            Update::Announce(q, nh) => {
                assert_eq!(p.insert(q, nh), oracle.insert(q, nh));
            }
            Update::Withdraw(q) => {
                assert_eq!(p.remove(q), oracle.remove(q));
            }
        }
    }
    let mut fresh = Poptrie::<u32>::new(PoptrieConfig::new(18));
    fresh.build(&oracle.routes());
    assert_eq!(p.stats(), fresh.stats());
    assert_eq!(p.memory_bytes(), fresh.memory_bytes());
    let now: Vec<_> = oracle.routes();
    let addrs = probes(&now, 1 << 18);
    let mut got = vec![None; addrs.len()];
    p.lookup_batch(&addrs, &mut got);
    for (a, g) in addrs.iter().zip(&got) {
        assert_eq!(*g, oracle.lookup(*a), "{}", a.to_std());
    }
}
