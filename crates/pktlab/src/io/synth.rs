//! A seeded, deterministic generator of realistic full routing tables.
//!
//! Realism comes from two things:
//!
//! * **Prefix lengths** follow today's tables: the histograms below are measured on the RIPE
//!   RIS rrc00 tables of 2026-05-11 (`shared/data/routes/ris-rrc00-as3333-2026-05-11`).
//! * **Clustering**: real tables are allocation blocks plus many more-specifics inside them.
//!   The generator first draws allocation blocks (/8–/22 for IPv4 inside unicast space,
//!   /19–/32 for IPv6 inside 2000::/3), each with an origin AS; then each route is placed
//!   inside an already generated route (deaggregation), inside a block (a route as long as
//!   its block is the covering aggregate itself), or, rarely, at a fresh random position.
//!   This gives tries a realistic depth and sharing, unlike uniformly random prefixes.
//!
//! Only [`crate::util`] generators are used (no extra dependency), so a `(count, seed)` pair
//! always produces the same table.

use super::nexthop::{asn_nexthop, hash_nexthop, NextHopScheme};
use super::routes::Route;
use crate::net::{Address, Family, Prefix};
use crate::util::FastSet;
use crate::util::{splitmix64, XorShift64};

/// Default number of routes of a synthetic IPv4 table (about today's full table).
pub const DEFAULT_V4_ROUTES: usize = 1_000_000;
/// Default number of routes of a synthetic IPv6 table (about today's full table).
pub const DEFAULT_V6_ROUTES: usize = 250_000;

/// IPv4 prefix-length histogram `(length, count)`, computed once with
/// `zcat rib-v4.txt.gz | awk -F/ '{c[$2]++} END {for (k in c) print k, c[k]}'` on
/// `ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz` (1,042,325 prefixes; /24 = 63.1%).
const V4_LENGTHS: &[(u8, u32)] = &[
    (8, 16),
    (9, 14),
    (10, 39),
    (11, 95),
    (12, 297),
    (13, 584),
    (14, 1201),
    (15, 2129),
    (16, 13635),
    (17, 8347),
    (18, 13387),
    (19, 25516),
    (20, 45627),
    (21, 52463),
    (22, 113741),
    (23, 107869),
    (24, 657365),
];

/// IPv6 prefix-length histogram `(length, count)`, computed the same way on
/// `ris-rrc00-as3333-2026-05-11/rib-v6.txt.gz` (246,175 prefixes; /48 = 45.4%, /32 = 10.9%).
const V6_LENGTHS: &[(u8, u32)] = &[
    (16, 1),
    (19, 1),
    (20, 14),
    (21, 3),
    (22, 6),
    (23, 6),
    (24, 42),
    (25, 12),
    (26, 17),
    (27, 18),
    (28, 161),
    (29, 5435),
    (30, 827),
    (31, 341),
    (32, 26740),
    (33, 5407),
    (34, 5197),
    (35, 1837),
    (36, 9424),
    (37, 1208),
    (38, 2677),
    (39, 1829),
    (40, 23096),
    (41, 1697),
    (42, 2924),
    (43, 1453),
    (44, 24860),
    (45, 4511),
    (46, 5640),
    (47, 8925),
    (48, 111866),
];

/// Relative weights of IPv4 allocation-block lengths (/8–/22): a hand-made shape with few
/// legacy /8–/12 blocks, many /16 and /19–/22 RIR allocations.
const V4_BLOCKS: &[(u8, u32)] = &[
    (8, 2),
    (9, 1),
    (10, 2),
    (11, 3),
    (12, 5),
    (13, 8),
    (14, 12),
    (15, 16),
    (16, 60),
    (17, 30),
    (18, 35),
    (19, 45),
    (20, 50),
    (21, 40),
    (22, 50),
];

/// Relative weights of IPv6 allocation-block lengths (/19–/32): mostly RIR /32 and /29
/// allocations, a few large ones.
const V6_BLOCKS: &[(u8, u32)] = &[
    (19, 1),
    (20, 2),
    (21, 1),
    (22, 2),
    (23, 1),
    (24, 3),
    (25, 1),
    (26, 1),
    (27, 1),
    (28, 4),
    (29, 30),
    (30, 3),
    (31, 2),
    (32, 60),
];

/// Percent of routes placed inside an existing route of the table (deaggregation).
const P_NESTED: u64 = 30;
/// Percent of routes placed inside an allocation block (cumulative with `P_NESTED`).
const P_BLOCK: u64 = P_NESTED + 62;
/// Routes per allocation block.
const ROUTES_PER_BLOCK: usize = 8;
/// Number of distinct synthetic origin ASes.
const ASN_SPACE: u64 = 400_000;

/// A discrete distribution over prefix lengths.
struct LenDist {
    lens: Vec<u8>,
    cum: Vec<u64>,
}

impl LenDist {
    fn new(table: &[(u8, u32)]) -> Self {
        let mut acc = 0u64;
        let mut lens = Vec::with_capacity(table.len());
        let mut cum = Vec::with_capacity(table.len());
        for &(l, w) in table {
            acc += w as u64;
            lens.push(l);
            cum.push(acc);
        }
        LenDist { lens, cum }
    }

    fn sample(&self, rng: &mut XorShift64) -> u8 {
        let total = self.cum.last().copied().unwrap_or(1).max(1);
        let r = rng.next() % total;
        let i = self.cum.partition_point(|&c| c <= r);
        self.lens.get(i).or(self.lens.last()).copied().unwrap_or(0)
    }
}

/// A random address in the family's routable space: IPv4 first octet in 1..=223 except 10
/// and 127; IPv6 inside 2000::/3.
fn universe_addr<A: Address>(rng: &mut XorShift64) -> A {
    match A::FAMILY {
        Family::V4 => {
            let mut hi = rng.next();
            for _ in 0..64 {
                let o = hi >> 56;
                if (1..=223).contains(&o) && o != 10 && o != 127 {
                    break;
                }
                hi = rng.next();
            }
            let o = hi >> 56;
            if !(1..=223).contains(&o) || o == 10 || o == 127 {
                hi = (hi & !(0xFF << 56)) | (11 << 56);
            }
            A::from_random(hi, 0)
        }
        Family::V6 => {
            let hi = (rng.next() & !(7u64 << 61)) | (1u64 << 61);
            A::from_random(hi, rng.next())
        }
    }
}

/// A random prefix of length `len` inside `outer` (`outer.len() <= len`).
fn inside<A: Address>(rng: &mut XorShift64, outer: &Prefix<A>, len: u8) -> Prefix<A> {
    let r = A::from_random(rng.next(), rng.next());
    let host = r.and(A::mask(outer.len() as u32).not());
    Prefix::new_masked(outer.addr().or(host), len)
}

/// A synthetic origin AS number in `1..=ASN_SPACE`.
fn random_asn(rng: &mut XorShift64) -> u32 {
    (1 + rng.next() % ASN_SPACE) as u32
}

/// Generates `count` distinct routes of family `A`, deterministically from `seed`.
///
/// Prefix lengths follow the measured RIS histograms (see the module docs); prefixes cluster
/// inside allocation blocks and inside each other as in real tables. Next hops: `hash:N`
/// uses [`hash_nexthop`]; `asn:N` uses the synthetic origin AS of the route's block (a route
/// nested inside another inherits that route's AS); `file` has no file to read, so it falls
/// back to `hash:16`.
///
/// Exactly `count` routes are returned unless `count` approaches the number of distinct
/// prefixes the length distribution can produce (far beyond real table sizes); generation
/// then stops after a bounded number of attempts and returns fewer.
pub fn synthetic_table<A: Address>(
    count: usize,
    seed: u64,
    scheme: &NextHopScheme,
) -> Vec<Route<A>> {
    let (len_table, block_table) = match A::FAMILY {
        Family::V4 => (V4_LENGTHS, V4_BLOCKS),
        Family::V6 => (V6_LENGTHS, V6_BLOCKS),
    };
    let lens = LenDist::new(len_table);
    let block_lens = LenDist::new(block_table);
    let mut rng = XorShift64::new(splitmix64(seed ^ A::BITS as u64));

    // Allocation blocks, sorted by length so that the blocks no longer than L are a prefix
    // of the vector: `upto[L]` of them.
    let n_blocks = (count / ROUTES_PER_BLOCK).max(1);
    let mut blocks: Vec<(Prefix<A>, u32)> = (0..n_blocks)
        .map(|_| {
            let l = block_lens.sample(&mut rng);
            let a = universe_addr::<A>(&mut rng);
            (Prefix::new_masked(a, l), random_asn(&mut rng))
        })
        .collect();
    blocks.sort_by_key(|(p, _)| p.len());
    let mut upto = vec![0usize; A::BITS as usize + 1];
    for (l, slot) in upto.iter_mut().enumerate() {
        *slot = blocks.partition_point(|(p, _)| p.len() as usize <= l);
    }

    let nexthop = |p: &Prefix<A>, asn: u32| match *scheme {
        NextHopScheme::Hash(n) => hash_nexthop(p, n),
        NextHopScheme::Asn(n) => asn_nexthop(asn, n),
        NextHopScheme::File => hash_nexthop(p, 16),
    };

    let mut routes: Vec<Route<A>> = Vec::with_capacity(count);
    let mut asns: Vec<u32> = Vec::with_capacity(count);
    let mut seen: FastSet<Prefix<A>> = FastSet::default();
    seen.reserve(count);
    let mut budget = (count as u64).saturating_mul(32).saturating_add(1024);
    while routes.len() < count && budget > 0 {
        let len = lens.sample(&mut rng);
        // Retry collisions at the same length so the histogram is kept; after a few
        // failures use a fresh random position, where collisions are rare.
        for attempt in 0..16 {
            budget = budget.saturating_sub(1);
            let u = if attempt < 8 { rng.next() % 100 } else { 99 };
            let mut placed: Option<(Prefix<A>, u32)> = None;
            if u < P_NESTED && !routes.is_empty() {
                for _ in 0..3 {
                    let i = (rng.next() % routes.len() as u64) as usize;
                    if let (Some(r), Some(&asn)) = (routes.get(i), asns.get(i)) {
                        if r.prefix.len() < len {
                            placed = Some((inside(&mut rng, &r.prefix, len), asn));
                            break;
                        }
                    }
                }
            }
            let n_ok = upto.get(len as usize).copied().unwrap_or(0);
            if placed.is_none() && u < P_BLOCK && n_ok > 0 {
                let i = (rng.next() % n_ok as u64) as usize;
                if let Some((b, asn)) = blocks.get(i) {
                    placed = Some((inside(&mut rng, b, len), *asn));
                }
            }
            let (p, asn) = match placed {
                Some(x) => x,
                None => {
                    let a = universe_addr::<A>(&mut rng);
                    (Prefix::new_masked(a, len), random_asn(&mut rng))
                }
            };
            if seen.insert(p) {
                routes.push(Route {
                    prefix: p,
                    nexthop: nexthop(&p, asn),
                });
                asns.push(asn);
                break;
            }
            if budget == 0 {
                break;
            }
        }
    }
    routes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn histogram<A: Address>(routes: &[Route<A>]) -> Vec<f64> {
        let mut h = vec![0u64; A::BITS as usize + 1];
        for r in routes {
            h[r.prefix.len() as usize] += 1;
        }
        h.iter().map(|&c| c as f64 / routes.len() as f64).collect()
    }

    fn target(table: &[(u8, u32)], bits: u32) -> Vec<f64> {
        let total: u64 = table.iter().map(|&(_, c)| c as u64).sum();
        let mut t = vec![0.0; bits as usize + 1];
        for &(l, c) in table {
            t[l as usize] = c as f64 / total as f64;
        }
        t
    }

    #[test]
    fn deterministic_exact_and_distinct() {
        let s = NextHopScheme::Hash(16);
        let a = synthetic_table::<u32>(20_000, 7, &s);
        let b = synthetic_table::<u32>(20_000, 7, &s);
        let c = synthetic_table::<u32>(20_000, 8, &s);
        assert_eq!(a.len(), 20_000);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let set: HashSet<_> = a.iter().map(|r| r.prefix).collect();
        assert_eq!(set.len(), a.len());
        for r in &a {
            let o = r.prefix.addr() >> 24;
            assert!(
                (1..=223).contains(&o) && o != 10 && o != 127,
                "{}",
                r.prefix
            );
            assert_eq!(r.nexthop, hash_nexthop(&r.prefix, 16));
        }
        for n in [0, 1, 2, 10] {
            assert_eq!(synthetic_table::<u32>(n, 1, &s).len(), n);
            assert_eq!(synthetic_table::<u128>(n, 1, &s).len(), n);
        }
    }

    #[test]
    fn v4_histogram_matches_ris() {
        let routes = synthetic_table::<u32>(200_000, 1, &NextHopScheme::Asn(64));
        assert_eq!(routes.len(), 200_000);
        let h = histogram(&routes);
        let t = target(V4_LENGTHS, 32);
        for l in 0..=32 {
            assert!(
                (h[l] - t[l]).abs() < 0.01,
                "/{l}: got {:.4}, want {:.4}",
                h[l],
                t[l]
            );
        }
        assert!(routes.iter().all(|r| (1..=64).contains(&r.nexthop.get())));
    }

    #[test]
    fn v6_histogram_and_space() {
        let routes = synthetic_table::<u128>(50_000, 3, &NextHopScheme::File);
        assert_eq!(routes.len(), 50_000);
        let h = histogram(&routes);
        let t = target(V6_LENGTHS, 128);
        for l in 0..=128 {
            assert!(
                (h[l] - t[l]).abs() < 0.01,
                "/{l}: got {:.4}, want {:.4}",
                h[l],
                t[l]
            );
        }
        for r in &routes {
            assert_eq!(r.prefix.addr() >> 125, 1, "{} outside 2000::/3", r.prefix);
            assert_eq!(r.nexthop, hash_nexthop(&r.prefix, 16));
        }
    }

    /// Generation speed; run with
    /// `cargo test --release -- --ignored --nocapture time_synthetic`.
    #[test]
    #[ignore]
    fn time_synthetic() {
        let t0 = std::time::Instant::now();
        let v4 = synthetic_table::<u32>(DEFAULT_V4_ROUTES, 1, &NextHopScheme::Hash(16));
        println!("{} v4 routes in {:?}", v4.len(), t0.elapsed());
        let t0 = std::time::Instant::now();
        let v6 = synthetic_table::<u128>(DEFAULT_V6_ROUTES, 1, &NextHopScheme::Hash(16));
        println!("{} v6 routes in {:?}", v6.len(), t0.elapsed());
    }

    /// Fraction of routes that have a less-specific route in the same table.
    fn covered_fraction<A: Address>(routes: &[Route<A>]) -> f64 {
        let set: HashSet<_> = routes.iter().map(|r| r.prefix).collect();
        let covered = routes
            .iter()
            .filter(|r| {
                (0..r.prefix.len()).any(|l| set.contains(&Prefix::new_masked(r.prefix.addr(), l)))
            })
            .count();
        covered as f64 / routes.len() as f64
    }

    #[test]
    fn prefixes_cluster_like_real_tables() {
        // In the RIS tables of 2026-05-11, 50.4% (v4) and 56.1% (v6) of the prefixes have a
        // less-specific prefix in the table; uniformly random prefixes would have almost none.
        let v4 = synthetic_table::<u32>(200_000, 5, &NextHopScheme::Hash(4));
        let f4 = covered_fraction(&v4);
        let v6 = synthetic_table::<u128>(50_000, 5, &NextHopScheme::Hash(4));
        let f6 = covered_fraction(&v6);
        println!("covered fraction: v4 {f4:.3}, v6 {f6:.3}");
        assert!((0.35..0.65).contains(&f4), "v4 covered fraction {f4}");
        assert!((0.35..0.70).contains(&f6), "v6 covered fraction {f6}");
    }
}
