//! Interleaved timing of built structures ([`time_rounds`]): rounds, each cut into slices
//! that time every structure in turn, in an order that rotates from slice to slice.
//!
//! Why slices: on these hosts a structure's speed moves by 2× within a second, and a round
//! that times each structure once for ≈ 0.1 s in a fixed order compares moments, not
//! structures — per-round ratios of two structures spread from 0.5 to 1.7 (RouteViews 2014,
//! random traffic, 2^23-lookup rounds, Intel Xeon guest). Cut into slices of 2^20 lookups
//! that alternate between the structures, a round's value is an average over the same
//! second for every structure, and the same pairs' per-round ratios spread by ≈ ±10 %.
//! Each slice starts after untimed warm-up lookups of its own structure, so that it is not
//! charged for refilling the caches the previous structure used.

use super::bench::oncpu_since;
use super::{oncpu_ns, BenchConfig, Progress, Result, Traffic};
use pktlab::lpm::{Algo, Lpm, Radix};
use pktlab::net::{Address, NextHop};
use pktlab::traffic::lpm::{stream, LookupGen};
use pktlab::util::Xor128;
use std::time::Instant;

/// Untimed lookups before each timed slice when a round has more than one slice (capped at
/// the slice's own size).
pub const WARM_SLICE_LOOKUPS: u64 = 1 << 16;

/// Runs `n` lookups of `traffic` through `t` in batches; returns a checksum of the results
/// (the wrapping sum of the next-hop ids, 0 for no route).
pub(super) fn lookups<A: Address>(
    t: &dyn Lpm<A>,
    traffic: &Traffic<A>,
    n: u64,
    batch: usize,
    seed: u64,
) -> u64 {
    let mut rng = Xor128::new(seed);
    // `batch == 1` times the scalar `lookup`, once per address; addresses are still
    // generated 256 at a time so that generation costs the same in both modes.
    let scalar = batch == 1;
    let batch = if scalar { 256 } else { batch };
    let mut addrs = vec![A::ZERO; batch];
    let mut out = vec![None; batch];
    let mut sum = 0u64;
    let mut done = 0u64;
    let mut st = LookupGen::new(traffic, &mut rng);
    // Pre-generated addresses (`pregen`, `trace:`) are looked up in place, cycling through
    // the buffer, so that only lookups are timed (no copy).
    let stored = match traffic {
        Traffic::Trace(v) => Some(v.as_slice()),
        _ => None,
    };
    while done < n {
        let mut k = batch.min((n - done) as usize);
        let a = match stored {
            Some(v) => {
                k = k.min(v.len() - st.pos);
                let a = &v[st.pos..st.pos + k];
                st.pos = if st.pos + k == v.len() { 0 } else { st.pos + k };
                a
            }
            None => {
                st.fill(traffic, &mut rng, &mut addrs[..k]);
                &addrs[..k]
            }
        };
        if scalar {
            // One `lookup` per address, in the structure's own compiled loop (no dynamic
            // call per address: the reference C harness inlines its lookup too).
            t.lookup_each(a, &mut out[..k]);
        } else {
            t.lookup_batch(a, &mut out[..k]);
        }
        for o in &out[..k] {
            sum = sum.wrapping_add(NextHop::raw(*o) as u64);
        }
        done += k as u64;
    }
    sum
}

/// Times of one structure on `threads` threads, summed over the slices of a round.
#[derive(Clone, Debug, Default)]
struct Run {
    /// Wrapping sum of the next hops (all threads, all slices).
    checksum: u64,
    /// Lookups each thread did.
    per_thread: u64,
    /// Wall-clock seconds of the runs (all threads started to all joined).
    wall_s: f64,
    /// Wall-clock seconds of each thread.
    thread_s: Vec<f64>,
    /// On-CPU seconds of each thread (NaN without a thread clock).
    cpu_s: Vec<f64>,
}

impl Run {
    /// Adds the times of another slice.
    fn add(&mut self, o: Run) {
        self.checksum = self.checksum.wrapping_add(o.checksum);
        self.per_thread += o.per_thread;
        self.wall_s += o.wall_s;
        if self.thread_s.is_empty() {
            self.thread_s = vec![0.0; o.thread_s.len()];
            self.cpu_s = vec![0.0; o.cpu_s.len()];
        }
        self.thread_s
            .iter_mut()
            .zip(&o.thread_s)
            .for_each(|(a, b)| *a += b);
        self.cpu_s
            .iter_mut()
            .zip(&o.cpu_s)
            .for_each(|(a, b)| *a += b);
    }

    /// Million lookups per second, all threads, wall clock.
    fn mlps(&self) -> f64 {
        (self.per_thread * self.thread_s.len() as u64) as f64 / self.wall_s / 1e6
    }

    /// Million lookups per second of each thread, from `secs`.
    fn rates(&self, secs: &[f64]) -> Vec<f64> {
        secs.iter()
            .map(|s| self.per_thread as f64 / s / 1e6)
            .collect()
    }
}

/// Every round of one structure.
#[derive(Default)]
pub(super) struct Timed {
    /// Wall-clock Mlps per round, all threads.
    pub mlps: Vec<f64>,
    /// On-CPU Mlps per round, summed over the threads.
    pub oncpu: Vec<f64>,
    /// Wall-clock Mlps per round of each thread.
    pub thread_wall: Vec<Vec<f64>>,
    /// On-CPU Mlps per round of each thread.
    pub thread_oncpu: Vec<Vec<f64>>,
    /// With a 1-thread pair: its wall-clock Mlps per round.
    pub one_wall: Vec<f64>,
    /// With a 1-thread pair: its on-CPU Mlps per round.
    pub one_oncpu: Vec<f64>,
    /// Checksum of the last round.
    pub checksum: u64,
}

impl Timed {
    fn push(&mut self, r: &Run) {
        let oncpu = r.rates(&r.cpu_s);
        self.mlps.push(r.mlps());
        self.oncpu.push(oncpu.iter().sum());
        self.thread_wall.push(r.rates(&r.thread_s));
        self.thread_oncpu.push(oncpu);
        self.checksum = r.checksum;
    }

    fn push_one(&mut self, r: &Run) {
        self.one_wall.push(r.mlps());
        self.one_oncpu.push(r.rates(&r.cpu_s).iter().sum());
    }
}

/// Times `n` lookups of `traffic` through `t`, split over `threads` threads that each time
/// their own share (wall clock and on-CPU time). Slice `slice` of a round draws its addresses
/// from streams of its own (slice 0 from the streams an unsliced run uses).
fn time_run<A: Address>(
    t: &dyn Lpm<A>,
    traffic: &Traffic<A>,
    cfg: &BenchConfig,
    n: u64,
    threads: usize,
    slice: usize,
) -> Run {
    let per = n / threads as u64;
    let start = Instant::now();
    let per_thread: Vec<(u64, f64, f64)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|i| {
                let tr = traffic.clone();
                let seed = stream(cfg.table.seed, slice * threads + i);
                let batch = cfg.batch;
                s.spawn(move || {
                    let (st, c0) = (Instant::now(), oncpu_ns());
                    let sum = lookups(t, &tr, per, batch, seed);
                    (sum, st.elapsed().as_secs_f64(), oncpu_since(c0))
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or((0, f64::INFINITY, f64::NAN)))
            .collect()
    });
    Run {
        checksum: per_thread.iter().fold(0u64, |a, b| a.wrapping_add(b.0)),
        per_thread: per,
        wall_s: start.elapsed().as_secs_f64(),
        thread_s: per_thread.iter().map(|p| p.1).collect(),
        cpu_s: per_thread.iter().map(|p| p.2).collect(),
    }
}

/// The lookups of slice `s` of `slices` in a round of `total` (the first `total % slices`
/// slices take one more, so the slices add up to `total`).
pub fn slice_lookups(total: u64, slices: usize, s: usize) -> u64 {
    let k = slices as u64;
    total / k + u64::from((s as u64) < total % k)
}

/// Times every structure of `built` in `cfg.runs` interleaved rounds of `cfg.lookups`
/// lookups each, cut into `cfg.slices` slices: slice `s` of round `r` times every structure
/// once, starting with structure `(r · slices + s) mod n`, so that no structure always
/// follows the same one. With `cfg.rebuild`, every structure is built afresh (`rebuild`,
/// untimed, the old copy freed first) before each round after the first. With
/// `cfg.pair_one_thread` and several threads, each slice also times the structure on one
/// thread, before its multi-thread run in even slices and after it in odd ones.
pub(super) fn time_rounds<A: Address>(
    built: &mut [(Algo, Box<dyn Lpm<A>>)],
    traffic: &Traffic<A>,
    cfg: &BenchConfig,
    rebuild: &dyn Fn(Algo) -> Box<dyn Lpm<A>>,
    p: &dyn Progress,
) -> Result<Vec<Timed>> {
    let n = built.len();
    let slices = cfg.slices.max(1);
    let mut timed: Vec<Timed> = built.iter().map(|_| Timed::default()).collect();
    let pair = cfg.pair_one_thread && cfg.threads > 1;
    p.start("lookup rounds", Some((cfg.runs * slices * n) as u64));
    for run in 0..cfg.runs {
        if cfg.rebuild && run > 0 {
            for (algo, t) in built.iter_mut() {
                // Free the old copy first, so the new one gets memory of its own.
                *t = Box::new(Radix::<A>::new());
                *t = rebuild(*algo);
            }
        }
        let mut multi = vec![Run::default(); n];
        let mut one = vec![Run::default(); n];
        for s in 0..slices {
            let len = slice_lookups(cfg.lookups, slices, s);
            for k in 0..n {
                let i = (run * slices + s + k) % n;
                let t = &*built[i].1;
                if slices > 1 {
                    // A stream no timed slice uses: the one after the last (slice, thread).
                    let warm = WARM_SLICE_LOOKUPS.min(len);
                    let warm_seed = stream(cfg.table.seed, slices * cfg.threads);
                    std::hint::black_box(lookups(t, traffic, warm, cfg.batch, warm_seed));
                }
                // The 1-thread run of a pair goes first in even slices and second in odd
                // ones, so that a drift of the host's speed within a pair favours neither.
                let one_first = (run * slices + s).is_multiple_of(2);
                if pair && one_first {
                    one[i].add(time_run(t, traffic, cfg, len, 1, s));
                }
                multi[i].add(time_run(t, traffic, cfg, len, cfg.threads, s));
                if pair && !one_first {
                    one[i].add(time_run(t, traffic, cfg, len, 1, s));
                }
                p.set(((run * slices + s) * n + k) as u64 + 1);
                p.check_stop()?;
            }
        }
        for (i, (algo, _)) in built.iter().enumerate() {
            timed[i].push(&multi[i]);
            if pair {
                timed[i].push_one(&one[i]);
            }
            p.note(&format!(
                "{algo} round {}: {:.2} Mlps",
                run + 1,
                multi[i].mlps()
            ));
        }
    }
    p.finish();
    Ok(timed)
}
