//! Micro-benchmarks of every LPM algorithm's scalar `lookup` and `lookup_batch` on the
//! embedded synthetic IPv4 table (1M routes, seed 1, next hops `hash:16`), over 4,096
//! uniformly random addresses per iteration (xorshift64, seed 7), so that regressions show
//! up without the CLI: `cargo bench -p pktlab --bench lpm`. Throughput is reported as
//! lookups per second (divan's item counter). Tables are built once per algorithm, outside
//! the timed loop; the timed loop runs on the concrete type (no dynamic dispatch).

use divan::counter::ItemsCount;
use divan::{black_box, Bencher};
use pktlab::io::nexthop::NextHopScheme;
use pktlab::io::synth::synthetic_table;
use pktlab::lpm::{Algo, Lpm, Visit};
use pktlab::net::{NextHop, Prefix};
use pktlab::util::XorShift64;
use std::sync::OnceLock;

/// Addresses per iteration.
const N: usize = 4096;

/// The algorithms benchmarked: the oracle, both Poptries and every baseline.
const ALGOS: [&str; 8] = [
    "radix",
    "treebitmap",
    "sail",
    "d16r",
    "d18r",
    "dir24_8",
    "poptrie16",
    "poptrie18",
];

fn main() {
    divan::main();
}

fn routes() -> &'static [(Prefix<u32>, NextHop)] {
    static R: OnceLock<Vec<(Prefix<u32>, NextHop)>> = OnceLock::new();
    R.get_or_init(|| {
        synthetic_table::<u32>(1_000_000, 1, &NextHopScheme::Hash(16))
            .into_iter()
            .map(|r| (r.prefix, r.nexthop))
            .collect()
    })
}

fn addrs() -> Vec<u32> {
    let mut rng = XorShift64::new(7);
    (0..N).map(|_| (rng.next() >> 32) as u32).collect()
}

/// Builds the table as its concrete type and times one mode on it.
struct Run<'a, 'b> {
    bencher: Bencher<'a, 'b>,
    batch: bool,
}

impl Visit<u32> for Run<'_, '_> {
    type Out = ();
    fn visit<T: Lpm<u32> + Clone + 'static>(self, mut t: T) {
        t.build(routes());
        let a = addrs();
        let b = self.bencher.counter(ItemsCount::new(N));
        if self.batch {
            let mut out = vec![None; N];
            b.bench_local(|| {
                t.lookup_batch(black_box(&a), &mut out);
                black_box(&out);
            });
        } else {
            b.bench_local(|| {
                let mut sum = 0u32;
                for &x in black_box(&a) {
                    sum = sum.wrapping_add(NextHop::raw(t.lookup(x)));
                }
                sum
            });
        }
    }
}

fn algo(name: &str) -> Algo {
    name.parse().expect("a known algorithm name")
}

/// Scalar `lookup`, one address at a time.
#[divan::bench(args = ALGOS)]
fn lookup(bencher: Bencher, name: &str) {
    algo(name).visit(Run {
        bencher,
        batch: false,
    });
}

/// `lookup_batch` over the 4,096 addresses.
#[divan::bench(args = ALGOS)]
fn lookup_batch(bencher: Bencher, name: &str) {
    algo(name).visit(Run {
        bencher,
        batch: true,
    });
}
