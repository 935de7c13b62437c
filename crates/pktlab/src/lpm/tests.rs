//! Property tests: every LPM configuration agrees with the radix oracle after any sequence of
//! builds, inserts and removes, for IPv4 and IPv6; incremental updates yield exactly the
//! structure a fresh build of the same routes yields (except DIR-24-8, which like DPDK never
//! merges groups on insert).

use super::*;
use crate::net::{Address, NextHop, Prefix};
use proptest::prelude::*;

/// All Poptrie configurations under test (the paper's s values and variants, plus odd s)
/// with the automatically chosen kernel, plus every explicit lookup kernel this CPU supports
/// (see `Kernel::supported`) on three configurations covering s = 0, an odd s and s = 18
/// and the three variants.
fn configs() -> Vec<PoptrieConfig> {
    let mut v = Vec::new();
    for s in [0u8, 5, 16, 18] {
        for variant in [Variant::Basic, Variant::Leafvec, Variant::Aggregated] {
            v.push(PoptrieConfig::with_variant(s, variant));
        }
    }
    for k in poptrie::Kernel::ALL.into_iter().filter(|k| k.supported()) {
        for (s, variant) in [
            (0, Variant::Aggregated),
            (5, Variant::Leafvec),
            (18, Variant::Basic),
        ] {
            v.push(PoptrieConfig::with_variant(s, variant).with_kernel(k));
        }
    }
    v
}

/// Every algorithm under test: all Poptrie configurations, Tree BitMap with and without an
/// initial array (odd size too), SAIL, DXR with the paper's k and a small k (wide format for
/// IPv4), and DIR-24-8.
fn algos() -> Vec<Algo> {
    let mut v: Vec<Algo> = configs().into_iter().map(Algo::Poptrie).collect();
    v.extend([0u8, 5, 16].map(|init| Algo::TreeBitmap(TbmConfig { init })));
    v.extend([
        Algo::Sail,
        Algo::Dxr(16),
        Algo::Dxr(18),
        Algo::Dxr(5),
        Algo::Dir24_8,
    ]);
    v
}

/// A prefix strategy that clusters routes so they overlap: a few base addresses, random low
/// bits, lengths biased to the edges (/0, /1, /25–/32 or /100–/128) and the middle.
fn prefix_strategy<A: Address>() -> impl Strategy<Value = Prefix<A>> {
    let bits = A::BITS;
    let len = prop_oneof![
        Just(0u32),
        Just(1u32),
        (bits - 8)..=bits,
        0u32..=bits,
        Just(bits - 1),
        Just(bits),
    ];
    (0usize..4, any::<u64>(), any::<u64>(), 0u32..3, len).prop_map(
        move |(base, hi, lo, spread, len)| {
            let bases = [
                A::from_random(0x0A00_0000_0000_0000, 0x2001_0db8_0000_0000),
                A::from_random(0x0A01_0200_0000_0000, 0),
                A::from_random(0xC0A8_0000_0000_0000, 0xC0A8_0000_0000_0000),
                A::ZERO,
            ];
            let rnd = A::from_random(hi, lo);
            // Keep the top `keep` bits of the base, randomise the rest.
            let keep = [bits / 2, bits - 8, 0][spread as usize];
            let a = bases[base]
                .and(A::mask(keep))
                .or(rnd.and(A::mask(keep).not()));
            Prefix::new_masked(a, len as u8)
        },
    )
}

fn nh_strategy() -> impl Strategy<Value = NextHop> {
    prop_oneof![
        8 => (1u32..4).prop_map(|x| NextHop::new(x).unwrap()),
        1 => (1u32..=70_000).prop_map(|x| NextHop::new(x).unwrap()),
    ]
}

/// Addresses worth checking for a set of prefixes: first, last and their neighbours.
fn probe_addrs<A: Address>(prefixes: &[Prefix<A>], extra: &[(u64, u64)]) -> Vec<A> {
    let mut v = Vec::new();
    for p in prefixes {
        for a in [p.first(), p.last()] {
            v.push(a);
            v.push(a.wrapping_add(1));
            v.push(a.wrapping_sub(1));
        }
    }
    v.extend(extra.iter().map(|&(h, l)| A::from_random(h, l)));
    v
}

fn check_agree<A: Address>(oracle: &Radix<A>, t: &dyn Lpm<A>, addrs: &[A]) {
    let mut batch = vec![None; addrs.len()];
    t.lookup_batch(addrs, &mut batch);
    let mut each = vec![None; addrs.len()];
    t.lookup_each(addrs, &mut each);
    for ((a, b), e) in addrs.iter().zip(&batch).zip(&each) {
        let want = oracle.lookup(*a);
        assert_eq!(
            *e,
            want,
            "{} lookup_each {:?}",
            t.name(),
            a.to_std().to_string()
        );
        assert_eq!(
            t.lookup(*a),
            want,
            "{} lookup {:?}",
            t.name(),
            a.to_std().to_string()
        );
        assert_eq!(
            *b,
            want,
            "{} lookup_batch {:?}",
            t.name(),
            a.to_std().to_string()
        );
    }
}

fn run_ops<A: Address>(
    initial: Vec<(Prefix<A>, NextHop)>,
    ops: Vec<(bool, Prefix<A>, NextHop)>,
    extra: Vec<(u64, u64)>,
) {
    let mut oracle = Radix::<A>::new();
    oracle.build(&initial);
    let mut all: Vec<Prefix<A>> = initial.iter().map(|r| r.0).collect();
    all.extend(ops.iter().map(|o| o.1));
    let addrs = probe_addrs(&all, &extra);
    for algo in algos() {
        let mut t = algo.make::<A>();
        t.build(&initial);
        check_agree(&oracle, &*t, &addrs);
        let mut o = oracle.clone();
        for (i, &(ins, p, nh)) in ops.iter().enumerate() {
            if ins {
                assert_eq!(t.insert(p, nh), o.insert(p, nh), "{algo}");
            } else {
                assert_eq!(t.remove(p), o.remove(p), "{algo}");
            }
            if i % 7 == 0 {
                check_agree(&o, &*t, &addrs);
            }
        }
        check_agree(&o, &*t, &addrs);
        // The incrementally maintained structure equals a fresh build.
        let mut fresh = algo.make::<A>();
        fresh.build(&o.routes());
        if algo != Algo::Dir24_8 {
            assert_eq!(
                t.stats(),
                fresh.stats(),
                "{algo}: incremental vs fresh build"
            );
        }
    }
    // Poptrie's arenas do not leak across updates: same memory as a fresh build, up to the
    // leaf width (which only widens).
    for cfg in configs() {
        let mut t = Poptrie::<A>::new(cfg);
        t.build(&initial);
        for &(ins, p, nh) in &ops {
            if ins {
                t.insert(p, nh);
            } else {
                t.remove(p);
            }
        }
        let mut fresh = Poptrie::<A>::new(cfg);
        fresh.build(&t.rib().routes());
        assert_eq!(
            t.memory_bytes() - t.stats().leaves * t.leaf_width(),
            fresh.memory_bytes() - fresh.stats().leaves * fresh.leaf_width()
        );
    }
}

fn ops_strategy<A: Address>() -> impl Strategy<Value = Vec<(bool, Prefix<A>, NextHop)>> {
    prop::collection::vec(
        (
            prop::bool::weighted(0.6),
            prefix_strategy::<A>(),
            nh_strategy(),
        ),
        0..60,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn v4_equivalent_to_oracle(
        initial in prop::collection::vec((prefix_strategy::<u32>(), nh_strategy()), 0..80),
        ops in ops_strategy::<u32>(),
        extra in prop::collection::vec(any::<(u64, u64)>(), 64),
    ) {
        run_ops(initial, ops, extra);
    }

    #[test]
    fn v6_equivalent_to_oracle(
        initial in prop::collection::vec((prefix_strategy::<u128>(), nh_strategy()), 0..80),
        ops in ops_strategy::<u128>(),
        extra in prop::collection::vec(any::<(u64, u64)>(), 64),
    ) {
        run_ops(initial, ops, extra);
    }
}

#[test]
fn algo_names_parse() {
    for n in Algo::ALL {
        let a: Algo = n.parse().unwrap();
        assert_eq!(a.to_string(), n);
    }
    assert!("dxr".parse::<Algo>().is_err());
}

#[test]
fn default_route_and_host_routes() {
    let nh = |x| NextHop::new(x).unwrap();
    let routes: Vec<(Prefix<u32>, NextHop)> = vec![
        ("0.0.0.0/0".parse().unwrap(), nh(1)),
        ("255.255.255.255/32".parse().unwrap(), nh(2)),
        ("0.0.0.0/32".parse().unwrap(), nh(3)),
        ("128.0.0.0/1".parse().unwrap(), nh(4)),
    ];
    for algo in algos() {
        let mut t = algo.make::<u32>();
        t.build(&routes);
        assert_eq!(t.lookup(u32::MAX), Some(nh(2)), "{algo}");
        assert_eq!(t.lookup(u32::MAX - 1), Some(nh(4)), "{algo}");
        assert_eq!(t.lookup(0), Some(nh(3)), "{algo}");
        assert_eq!(t.lookup(1), Some(nh(1)), "{algo}");
        t.remove("0.0.0.0/0".parse().unwrap());
        assert_eq!(t.lookup(1), None, "{algo}");
        assert_eq!(t.lookup(0), Some(nh(3)), "{algo}");
    }
}

#[test]
fn lookups_take_std_addresses_and_routes_ipnet_prefixes() {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let nh = |x| NextHop::new(x).unwrap();
    let nets: [(ipnet::Ipv4Net, u32); 2] = [
        ("10.0.0.0/8".parse().unwrap(), 1),
        ("10.1.0.0/16".parse().unwrap(), 2),
    ];
    let routes: Vec<(Prefix<u32>, NextHop)> =
        nets.iter().map(|&(n, h)| (n.into(), nh(h))).collect();
    let mut t = Poptrie::<u32>::new(PoptrieConfig::default());
    t.build(&routes);
    assert_eq!(t.lookup_ip(Ipv4Addr::new(10, 1, 2, 3)), Some(nh(2)));
    assert_eq!(t.lookup_ip(Ipv4Addr::new(10, 2, 0, 0)), Some(nh(1)));
    assert_eq!(t.lookup_ip(Ipv4Addr::new(11, 0, 0, 0)), None);
    assert_eq!(
        t.lookup_ip_any(IpAddr::V4(Ipv4Addr::new(10, 1, 0, 1))),
        Some(nh(2))
    );
    // An IPv6 address in an IPv4 table matches nothing.
    assert_eq!(t.lookup_ip_any(IpAddr::V6(Ipv6Addr::LOCALHOST)), None);
}
