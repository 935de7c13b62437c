//! What `auto` runs for large batches: the scalar level-synchronous walk (`popcnt`) or the
//! AVX-512 gather walk, whichever this CPU runs clearly faster — timed once per process and
//! address family, on the first table of at least [`MIN_ROUTES`] routes that is built.
//!
//! Why timed rather than fixed by the CPU's feature flags: which walk wins depends on how
//! fast the CPU's gathers are. On an Intel Xeon guest (family 6 model 207) the AVX-512 walk
//! ran 1.5–1.75× the scalar batch at 128 and 256 addresses per call (RIS v4, interleaved
//! rounds); on an AMD EPYC guest (Zen 4, whose gathers issue their loads one lane at a time)
//! it ran 0.8× on pre-generated addresses; and Intel cores with the Gather Data Sampling
//! microcode mitigation slow gathers down as well. Below [`SIMD_MIN_BATCH`] addresses per call
//! the SIMD walk's fixed cost per level is not amortised (0.9× the scalar batch at 32 on the
//! Intel guest), so smaller calls — the misses of a data-plane batch — always take the scalar
//! walk.
//!
//! Method: 64 Ki addresses, half uniform and half inside the table's own prefixes with random
//! host bits (so that IPv6 lookups reach nodes too), looked up by both walks in calls of
//! [`SIMD_MIN_BATCH`] addresses, in [`ROUNDS`] interleaved rounds (the order alternating), each
//! walk timed per round by the monotonic clock. The AVX-512 walk is taken only when the median
//! per-round speed-up is at least [`WIN`]: a clear win, so that on a CPU where the two are
//! close the choice does not change from run to run with the host's noise. It costs about
//! 10 ms per process and family. Both walks give identical results (property tests), so the
//! choice changes speed only; explicit kernels (`poptrie18@popcnt`, `@avx512`) are never
//! re-chosen.

use super::{Kernel, Poptrie};
use crate::net::{Address, NextHop, Prefix};
use crate::util::splitmix64;
use serde::Serialize;
use std::sync::OnceLock;
use std::time::Instant;

/// Calls with fewer addresses than this always take the scalar walk under `auto`.
pub const SIMD_MIN_BATCH: usize = 128;
/// Tables with fewer routes are not timed (nothing a forwarding plane would run).
pub const MIN_ROUTES: usize = 1024;
/// Addresses of the timed sample.
const ADDRS: usize = 1 << 16;
/// Interleaved rounds of the timing.
const ROUNDS: usize = 9;
/// The median per-round speed-up the AVX-512 walk needs to be chosen.
pub const WIN: f64 = 1.2;

/// The outcome of the timing for one address family.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// The walk `auto` runs for calls of at least [`SIMD_MIN_BATCH`] addresses.
    pub kernel: Kernel,
    /// Median over the rounds of (scalar walk's time ÷ AVX-512 walk's time).
    pub speedup: f64,
    /// Routes of the table it was timed on.
    pub routes: usize,
}

/// One per family: `[0]` IPv4, `[1]` IPv6.
static AUTO: [OnceLock<Calibration>; 2] = [OnceLock::new(), OnceLock::new()];

fn slot<A: Address>() -> &'static OnceLock<Calibration> {
    &AUTO[(A::BITS == 128) as usize]
}

/// The timing of `auto`'s batch walk for family `A`, if this process has made it (it is made
/// when the first Poptrie of at least [`MIN_ROUTES`] routes with kernel `auto` is built, on a
/// CPU with AVX-512).
pub fn auto_batch<A: Address>() -> Option<Calibration> {
    slot::<A>().get().copied()
}

/// The walk for the median of per-round speed-ups `ratios` (scalar time ÷ SIMD time), and
/// that median (0 without rounds, which keeps the scalar walk).
pub(super) fn decide(ratios: &[f64]) -> (Kernel, f64) {
    let mut r: Vec<f64> = ratios.iter().copied().filter(|x| x.is_finite()).collect();
    if r.is_empty() {
        return (Kernel::Popcnt, 0.0);
    }
    r.sort_by(f64::total_cmp);
    let n = r.len();
    let med = if n % 2 == 1 {
        r[n / 2]
    } else {
        (r[n / 2 - 1] + r[n / 2]) / 2.0
    };
    (
        if med >= WIN {
            Kernel::Avx512
        } else {
            Kernel::Popcnt
        },
        med,
    )
}

impl<A: Address> Poptrie<A> {
    /// The walk `auto` runs for large batches on this Poptrie, just built from `routes`: the
    /// process's timing for the family, made now on this table if there is none yet and the
    /// table is large enough; the scalar kernel without AVX-512 or a timing.
    pub(super) fn auto_batch_kernel(&self, routes: &[(Prefix<A>, NextHop)]) -> Kernel {
        if !Kernel::Avx512.supported() {
            return self.kernel;
        }
        let cell = slot::<A>();
        match cell.get() {
            Some(c) => c.kernel,
            None if routes.len() >= MIN_ROUTES => {
                cell.get_or_init(|| self.calibrate(routes)).kernel
            }
            None => self.kernel,
        }
    }

    /// Times the scalar batch walk against the AVX-512 one on this table (module docs).
    fn calibrate(&self, routes: &[(Prefix<A>, NextHop)]) -> Calibration {
        let addrs = sample(routes);
        let mut out = vec![None; SIMD_MIN_BATCH];
        let mut time = |k: Kernel| {
            let t0 = Instant::now();
            for c in addrs.chunks(SIMD_MIN_BATCH) {
                // SAFETY: `k` is `self.kernel` (resolved on this CPU) or AVX-512, which
                // `auto_batch_kernel` checked is supported before timing.
                unsafe { self.batch_with(k, c, &mut out) };
            }
            std::hint::black_box(&out);
            t0.elapsed().as_secs_f64()
        };
        let (scalar, simd) = (self.kernel, Kernel::Avx512);
        // Warm-up: the table and the sample into the caches, both code paths once.
        time(scalar);
        time(simd);
        let ratios: Vec<f64> = (0..ROUNDS)
            .map(|r| {
                let (s, v) = if r % 2 == 0 {
                    let s = time(scalar);
                    (s, time(simd))
                } else {
                    let v = time(simd);
                    (time(scalar), v)
                };
                s / v.max(1e-9)
            })
            .collect();
        let (kernel, speedup) = decide(&ratios);
        Calibration {
            kernel: if kernel == Kernel::Avx512 {
                simd
            } else {
                scalar
            },
            speedup,
            routes: routes.len(),
        }
    }
}

/// [`ADDRS`] addresses, fixed by a seed: even ones uniform, odd ones inside a route of
/// `routes` (non-empty) with random host bits.
fn sample<A: Address>(routes: &[(Prefix<A>, NextHop)]) -> Vec<A> {
    (0..ADDRS as u64)
        .map(|i| {
            let (h, l) = (splitmix64(2 * i), splitmix64(2 * i + 1));
            let a = A::from_random(h, l);
            if i % 2 == 0 || routes.is_empty() {
                return a;
            }
            let p = routes[(h % routes.len() as u64) as usize].0;
            p.addr().or(a.and(A::mask(p.len() as u32).not()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lpm::{Lpm, PoptrieConfig, Radix};

    #[test]
    fn decide_takes_simd_only_on_a_clear_median_win() {
        assert_eq!(decide(&[1.6, 1.5, 1.7, 0.9, 1.65]), (Kernel::Avx512, 1.6));
        // One slow round does not decide; a median below WIN keeps the scalar walk.
        assert_eq!(decide(&[1.1, 1.3, 1.15]).0, Kernel::Popcnt);
        assert_eq!(decide(&[0.8, 0.82, 0.79, 3.0]).0, Kernel::Popcnt);
        assert_eq!(decide(&[WIN, WIN]).0, Kernel::Avx512);
        assert_eq!(decide(&[]), (Kernel::Popcnt, 0.0));
        assert_eq!(decide(&[f64::NAN]), (Kernel::Popcnt, 0.0));
    }

    #[test]
    fn sample_stays_inside_the_routes_it_draws() {
        let routes: Vec<(Prefix<u32>, NextHop)> = vec![
            ("10.1.0.0/16".parse().unwrap(), NextHop::new(1).unwrap()),
            ("192.0.2.0/24".parse().unwrap(), NextHop::new(2).unwrap()),
        ];
        let s = sample(&routes);
        assert_eq!(s.len(), ADDRS);
        let inside = s
            .iter()
            .filter(|&&a| routes.iter().any(|r| r.0.contains(a)));
        // Every odd address is inside a route; the uniform ones almost never are.
        assert!(s
            .iter()
            .skip(1)
            .step_by(2)
            .all(|&a| routes.iter().any(|r| r.0.contains(a))));
        assert!(inside.count() < ADDRS / 2 + 16);
    }

    /// A table large enough to be timed: `auto` on it gives the oracle's results at every
    /// batch size, whichever walk the timing chose, and the choice is one this CPU runs.
    #[test]
    fn auto_after_timing_matches_the_oracle() {
        let mut routes = Vec::new();
        for i in 0..4096u64 {
            let r = splitmix64(i ^ 0xC0FFEE);
            let len = 8 + (r % 25) as u8; // /8 … /32
            let p = Prefix::new_masked((r >> 32) as u32, len);
            routes.push((p, NextHop::new(1 + (r >> 8) as u32 % 500).unwrap()));
        }
        let mut oracle = Radix::new();
        oracle.build(&routes);
        let mut t = Poptrie::<u32>::new(PoptrieConfig::new(18));
        t.build(&routes);
        let k = t.batch_kernel();
        assert!(k.supported() && k != Kernel::Auto, "{k:?}");
        if Kernel::Avx512.supported() {
            let c = auto_batch::<u32>().expect("timed on a table of 4096 routes");
            assert_eq!(c.kernel, k);
            assert!(c.speedup > 0.0 && c.speedup.is_finite(), "{c:?}");
        } else {
            assert_eq!(k, t.kernel());
        }
        let addrs = sample(&routes);
        for n in [1, 31, SIMD_MIN_BATCH - 1, SIMD_MIN_BATCH, 1000] {
            let mut out = vec![None; n];
            for c in addrs.chunks(n).take(8) {
                t.lookup_batch(c, &mut out);
                for (a, o) in c.iter().zip(&out) {
                    assert_eq!(*o, oracle.lookup(*a), "{a:#x} in a batch of {n}");
                }
            }
        }
    }
}
