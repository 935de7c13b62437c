//! Cost of single lookups by the depth of the matched route: the Poptrie paper's box plot.
//!
//! Asai & Ohara (SIGCOMM 2015, §5; digest `papers/DIGEST.md`, 004) time every lookup of a
//! random address on its own and group the CPU cycles by the *binary radix depth* of the
//! route it matched — the prefix length — showing median, quartiles and 5th/95th
//! percentiles per depth: DXR degrades past its direct-table bits, SAIL has a high 95th
//! percentile, Poptrie stays low. [`by_depth`] does the same for any [`Lpm`].
//!
//! **Timer.** Each lookup is bracketed by the time-stamp counter, serialised so the lookup
//! cannot leak out of the window: `lfence; rdtsc; lfence` before and `rdtscp; lfence` after
//! (rdtscp waits for the lookup's loads to complete; the fences keep later instructions from
//! starting early). RDTSCP is detected at run time (CPUID); without it the closing read is
//! `lfence; rdtsc; lfence` too. The window's own cost — the same bracket around an empty body, measured
//! [`CALIBRATION`] times — has its **median** subtracted from every sample (samples never go
//! below zero). Units are TSC ticks, which on processors with an invariant TSC
//! (`constant_tsc`) count at the nominal frequency, not the current core clock. Fencing
//! removes the overlap of independent lookups that a throughput loop enjoys, so these are
//! latencies of isolated lookups — as in the paper, useful to compare depths and structures,
//! not to predict Mlps. The matched depth of every address is found before the timed loop, so
//! the oracle's walk does not evict the structure's cache lines between two timed lookups.

use super::radix::Radix;
use super::Lpm;
use crate::net::{Address, NextHop};

/// Samples of the empty timing window used to measure the timer's own cost.
pub const CALIBRATION: usize = 100_000;

/// Percentiles of the cost of the lookups whose matched route has one depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepthCost {
    /// Prefix length of the matched route (`None`: no route matched).
    pub depth: Option<u8>,
    /// Lookups with that depth.
    pub count: u64,
    /// 5th percentile, in TSC ticks (timer overhead subtracted).
    pub p5: u64,
    /// 25th percentile.
    pub p25: u64,
    /// Median.
    pub p50: u64,
    /// 75th percentile.
    pub p75: u64,
    /// 95th percentile.
    pub p95: u64,
}

/// The result of [`by_depth`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByDepth {
    /// Median cost of the empty timing window (subtracted from every sample), TSC ticks.
    pub timer_overhead: u64,
    /// Lookups timed.
    pub lookups: u64,
    /// One entry per depth that occurred, "no route" first, then by increasing depth.
    pub per_depth: Vec<DepthCost>,
    /// Wrapping sum of the raw next hops returned (ties the run to the throughput runs).
    pub checksum: u64,
}

/// Prefix length of the longest route of `rib` containing `a` (`None` if none does).
pub fn match_depth<A: Address>(rib: &Radix<A>, a: A) -> Option<u8> {
    let mut n = 0u32;
    let mut best = (rib.node(0).nh != 0).then_some(0u8);
    for i in 0..A::BITS {
        n = rib.node(n).child[a.bit(i)];
        if n == 0 {
            break;
        }
        if rib.node(n).nh != 0 {
            best = Some(i as u8 + 1);
        }
    }
    best
}

#[cfg(target_arch = "x86_64")]
mod tsc {
    use std::arch::x86_64::{__cpuid, __rdtscp, _mm_lfence, _rdtsc};

    /// True if the CPU has RDTSCP (CPUID leaf 0x8000_0001, EDX bit 27). The standard
    /// library's `is_x86_feature_detected!` does not know this feature.
    pub fn has_rdtscp() -> bool {
        // `__cpuid` is safe on current compilers and `unsafe` on older ones (MSRV).
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86-64 CPU; leaf 0x8000_0000 gives the highest
        // extended leaf, and 0x8000_0001 is read only when it exists.
        unsafe {
            __cpuid(0x8000_0000).eax >= 0x8000_0001 && (__cpuid(0x8000_0001).edx >> 27) & 1 == 1
        }
    }

    /// Opens a timing window.
    #[inline(always)]
    pub fn start() -> u64 {
        // SAFETY: lfence and rdtsc are part of x86-64 (SSE2 is baseline); no memory access.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }

    /// Closes a timing window: `rdtscp; lfence` when `rdtscp` (the CPU has it, from
    /// [`has_rdtscp`]), else `lfence; rdtsc; lfence`.
    #[inline(always)]
    pub fn stop(rdtscp: bool) -> u64 {
        if !rdtscp {
            return start();
        }
        let mut aux = 0u32;
        // SAFETY: the caller detected RDTSCP (`rdtscp` comes from `has_rdtscp`); `aux` is a
        // valid place for TSC_AUX; lfence is baseline.
        unsafe {
            let t = __rdtscp(&mut aux);
            _mm_lfence();
            t
        }
    }
}

/// Median cost of an empty timing window over `samples` tries, in TSC ticks (`None` off
/// x86-64, where no serialising TSC read exists).
pub fn timer_overhead(samples: usize) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        let rdtscp = tsc::has_rdtscp();
        let mut v: Vec<u64> = (0..samples.max(1))
            .map(|_| {
                let t0 = tsc::start();
                std::hint::black_box(0u32);
                tsc::stop(rdtscp).wrapping_sub(t0)
            })
            .collect();
        v.sort_unstable();
        Some(v[v.len() / 2])
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = samples;
        None
    }
}

/// TSC ticks per second, calibrated against the monotonic clock over `window` (`None` off
/// x86-64). The TSC runs at a constant rate on current x86-64 CPUs, so a cost in ticks
/// converts to seconds with this rate whatever the core clock did meanwhile.
pub fn tsc_hz(window: std::time::Duration) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        let (w0, t0) = (std::time::Instant::now(), tsc::start());
        std::thread::sleep(window);
        let (t1, w1) = (tsc::stop(tsc::has_rdtscp()), std::time::Instant::now());
        let secs = (w1 - w0).as_secs_f64();
        (secs > 0.0).then(|| t1.wrapping_sub(t0) as f64 / secs)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = window;
        None
    }
}

/// Nearest-rank percentile `q` (0..=100) of sorted `v` (non-empty).
fn pct(v: &[u64], q: usize) -> u64 {
    v[((v.len() - 1) * q + 50) / 100]
}

/// Times every lookup of `addrs` in `t` on its own and groups the costs by the depth of the
/// route `oracle` (the same routes) matches. `None` where the timer is unavailable.
///
/// Warms up on the first 65,536 addresses of `addrs` (so those are timed warm); use
/// [`by_depth_warm`] to warm up on addresses that are not timed.
pub fn by_depth<A: Address, T: Lpm<A> + ?Sized>(
    t: &T,
    oracle: &Radix<A>,
    addrs: &[A],
) -> Option<ByDepth> {
    by_depth_warm(t, oracle, &addrs[..addrs.len().min(1 << 16)], addrs)
}

/// [`by_depth`] with its own warm-up: looks up every address of `warm` untimed first (page
/// tables, branch predictor, the structure's hot upper levels), then times each of `addrs`.
/// Timing repeated slices of one stream (interleaved rounds) should pass a `warm` disjoint
/// from `addrs`, or the timed lookups find their own paths already cached.
pub fn by_depth_warm<A: Address, T: Lpm<A> + ?Sized>(
    t: &T,
    oracle: &Radix<A>,
    warm: &[A],
    addrs: &[A],
) -> Option<ByDepth> {
    #[cfg(target_arch = "x86_64")]
    {
        let overhead = timer_overhead(CALIBRATION)?;
        let rdtscp = tsc::has_rdtscp();
        let mut checksum = 0u64;
        for a in warm {
            std::hint::black_box(t.lookup(*a));
        }
        // The matched depths first (the oracle's walk would evict the structure's lines
        // between timed lookups), then the timed loop touches only the structure and one
        // sequential array of costs.
        let depth: Vec<u8> = addrs
            .iter()
            .map(|&a| match_depth(oracle, a).map_or(0, |d| d + 1))
            .collect();
        let mut cost = vec![0u64; addrs.len()];
        for (&a, c) in addrs.iter().zip(cost.iter_mut()) {
            let t0 = tsc::start();
            let r = std::hint::black_box(t.lookup(std::hint::black_box(a)));
            *c = tsc::stop(rdtscp).wrapping_sub(t0).saturating_sub(overhead);
            checksum = checksum.wrapping_add(NextHop::raw(r) as u64);
        }
        // Bucket 0 = no route, 1 + d = depth d.
        let mut buckets: Vec<Vec<u64>> = vec![Vec::new(); A::BITS as usize + 2];
        for (&d, &c) in depth.iter().zip(&cost) {
            buckets[d as usize].push(c);
        }
        let per_depth = buckets
            .into_iter()
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(b, mut v)| {
                v.sort_unstable();
                DepthCost {
                    depth: b.checked_sub(1).map(|d| d as u8),
                    count: v.len() as u64,
                    p5: pct(&v, 5),
                    p25: pct(&v, 25),
                    p50: pct(&v, 50),
                    p75: pct(&v, 75),
                    p95: pct(&v, 95),
                }
            })
            .collect();
        Some(ByDepth {
            timer_overhead: overhead,
            lookups: addrs.len() as u64,
            per_depth,
            checksum,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (t, oracle, warm, addrs);
        None
    }
}

#[cfg(test)]
mod tests {

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn tsc_rate_is_a_plausible_clock() {
        let hz = super::tsc_hz(std::time::Duration::from_millis(20)).expect("x86-64 has a TSC");
        assert!((2e8..2e10).contains(&hz), "{hz}");
    }

    use super::*;
    use crate::lpm::{Dxr, Lpm};
    use crate::net::Prefix;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn rdtscp_is_used_only_where_the_cpu_has_it() {
        // The kernel's view of CPUID, where there is one.
        if let Ok(c) = std::fs::read_to_string("/proc/cpuinfo") {
            if let Some(flags) = c.lines().find(|l| l.starts_with("flags")) {
                let has = flags.split_whitespace().any(|f| f == "rdtscp");
                assert_eq!(tsc::has_rdtscp(), has);
            }
        }
        // Both closing reads count forward from the opening one.
        let t0 = tsc::start();
        let t1 = tsc::stop(false);
        assert!(t1 >= t0);
        if tsc::has_rdtscp() {
            assert!(tsc::stop(true) >= t1);
        }
    }

    #[test]
    fn depths_and_percentiles() {
        let nh = |x| NextHop::new(x).unwrap();
        let routes: Vec<(Prefix<u32>, NextHop)> = vec![
            ("10.0.0.0/8".parse().unwrap(), nh(1)),
            ("10.1.0.0/16".parse().unwrap(), nh(2)),
            ("10.1.2.0/25".parse().unwrap(), nh(3)),
        ];
        let mut oracle = Radix::new();
        oracle.build(&routes);
        assert_eq!(match_depth(&oracle, 0x0A01_0201), Some(25));
        assert_eq!(match_depth(&oracle, 0x0A01_0281), Some(16));
        assert_eq!(match_depth(&oracle, 0x0B00_0000), None);
        assert_eq!(pct(&[1, 2, 3, 4, 5], 50), 3);
        assert_eq!(pct(&[1, 2, 3, 4, 5], 95), 5);
        let mut t = Dxr::<u32>::new(16);
        t.build(&routes);
        let addrs = [
            0x0A01_0201u32,
            0x0A01_0202,
            0x0A01_0281,
            0x0B00_0000,
            0x0A02_0000,
        ];
        if let Some(r) = by_depth(&t, &oracle, &addrs) {
            let depths: Vec<_> = r.per_depth.iter().map(|d| (d.depth, d.count)).collect();
            assert_eq!(
                depths,
                [(None, 1), (Some(8), 1), (Some(16), 1), (Some(25), 2)]
            );
            assert_eq!(r.checksum, 3 + 3 + 2 + 1);
            assert!(r.per_depth.iter().all(|d| d.p5 <= d.p50 && d.p50 <= d.p95));
        }
    }
}
