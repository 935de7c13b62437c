use super::*;

fn nh(x: u32) -> NextHop {
    NextHop::new(x).unwrap()
}

#[test]
fn names_roundtrip() {
    for s in [
        "poptrie0",
        "poptrie16",
        "poptrie18-basic",
        "poptrie18-leafvec",
    ] {
        assert_eq!(s.parse::<PoptrieConfig>().unwrap().to_string(), s);
    }
    for k in Kernel::ALL.into_iter().filter(|k| k.supported()) {
        let name = format!("poptrie18-leafvec@{}", k.as_str());
        let c: PoptrieConfig = name.parse().unwrap();
        assert_eq!(c.kernel, k);
        assert_eq!(c.to_string(), name);
        assert_eq!(Poptrie::<u32>::new(c).kernel(), k);
    }
    assert_eq!(
        "poptrie18@auto"
            .parse::<PoptrieConfig>()
            .unwrap()
            .to_string(),
        "poptrie18"
    );
    assert_ne!(
        Poptrie::<u32>::new(PoptrieConfig::new(18)).kernel(),
        Kernel::Auto
    );
    assert!("poptrie18@sse9".parse::<PoptrieConfig>().is_err());
    assert!("poptrie25".parse::<PoptrieConfig>().is_err());
    assert!("poptriex".parse::<PoptrieConfig>().is_err());
}

#[test]
fn leafvec_compresses_runs_and_aggregation_merges() {
    // 10.0.0.0/8 -> 1 with a /30 inside carrying the same next hop and one /30 with another.
    let routes: Vec<(Prefix<u32>, NextHop)> = vec![
        ("10.0.0.0/8".parse().unwrap(), nh(1)),
        ("10.1.2.0/30".parse().unwrap(), nh(1)),
        ("10.1.3.0/30".parse().unwrap(), nh(2)),
        ("11.1.3.0/30".parse().unwrap(), nh(1)),
    ];
    let mut stats = Vec::new();
    for v in [Variant::Basic, Variant::Leafvec, Variant::Aggregated] {
        let mut p = Poptrie::<u32>::new(PoptrieConfig::with_variant(16, v));
        p.build(&routes);
        assert_eq!(p.lookup(0x0A01_0201), Some(nh(1)));
        assert_eq!(p.lookup(0x0A01_0301), Some(nh(2)));
        assert_eq!(p.lookup(0x0A01_0305), Some(nh(1)));
        assert_eq!(p.lookup(0x0B01_0301), Some(nh(1)));
        assert_eq!(p.lookup(0x0B01_0305), None);
        assert_eq!(p.lookup(0x0C00_0000), None);
        stats.push(p.stats());
    }
    // Basic stores one leaf per leaf slot: 2 internal nodes per /30 path... just compare.
    assert!(stats[1].leaves < stats[0].leaves);
    assert_eq!(stats[1].internal_nodes, stats[0].internal_nodes);
    // Aggregation removes the subtree of 10.1.2.0/30 (same next hop as its cover).
    assert!(stats[2].internal_nodes < stats[1].internal_nodes);
}

/// Every kernel the CPU supports, including the AVX-512 walk with its VPSHUFB popcount
/// forced (the fallback for CPUs without VPOPCNTDQ), agrees with the radix oracle on a
/// random table, for IPv4 and IPv6, with 16- and 32-bit leaves; so do the scalar `lookup`
/// and `lookup_each`.
fn kernels_agree<A: Address>() {
    use crate::util::splitmix64;
    for wide in [false, true] {
        let mut routes = Vec::new();
        for i in 0..3000u64 {
            let r = splitmix64(i ^ A::BITS as u64);
            let a = A::from_random(r & 0xFFFF_0FFF_FFFF_FFFF, splitmix64(r));
            let len = (splitmix64(r ^ 7) % (A::BITS as u64 + 1)) as u8;
            let n = 1 + (splitmix64(r ^ 9) % if wide { 100_000 } else { 16 }) as u32;
            routes.push((Prefix::new_masked(a, len), nh(n)));
        }
        let mut oracle = Radix::<A>::new();
        oracle.build(&routes);
        let mut addrs: Vec<A> = (0..20_000u64)
            .map(|i| A::from_random(splitmix64(i) & 0xFFFF_0FFF_FFFF_FFFF, splitmix64(!i)))
            .collect();
        for (p, _) in &routes {
            addrs.extend([p.first(), p.last(), p.last().wrapping_add(1)]);
        }
        let want: Vec<_> = addrs.iter().map(|a| oracle.lookup(*a)).collect();
        for k in Kernel::ALL.into_iter().filter(|k| k.supported()) {
            for vpop in [true, false] {
                let mut t = Poptrie::<A>::new(PoptrieConfig::new(18).with_kernel(k));
                t.build(&routes);
                t.vpopcnt &= vpop;
                let mut got = vec![None; addrs.len()];
                t.lookup_batch(&addrs, &mut got);
                assert_eq!(got, want, "{k:?} vpopcnt={} wide={wide}", t.vpopcnt);
                for (a, w) in addrs.iter().zip(&want).step_by(7) {
                    assert_eq!(t.lookup(*a), *w, "{k:?} scalar");
                }
                let mut each = vec![None; addrs.len()];
                t.lookup_each(&addrs, &mut each);
                assert_eq!(each, want, "{k:?} lookup_each wide={wide}");
            }
        }
    }
}

#[test]
fn every_kernel_agrees_with_the_oracle() {
    kernels_agree::<u32>();
    kernels_agree::<u128>();
}

#[test]
fn widens_leaves_past_16_bits() {
    let mut p = Poptrie::<u32>::new(PoptrieConfig::new(16));
    p.insert("10.1.2.0/24".parse().unwrap(), nh(7));
    assert_eq!(p.leaf_width(), 2);
    p.insert("10.1.3.0/25".parse().unwrap(), nh(100_000));
    assert_eq!(p.leaf_width(), 4);
    assert_eq!(p.lookup(0x0A01_0201), Some(nh(7)));
    assert_eq!(p.lookup(0x0A01_0301), Some(nh(100_000)));
}
