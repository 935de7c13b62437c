//! Zipf popularity sampler as an inverse-transform table with a merged tail — paper 003
//! (Endo, Takemasa, Koizumi & Hasegawa, "P4-based CCN packet generator"), §3: names are drawn
//! from a space of up to 2^32 ranks with p_r ∝ r^-α; each table entry owns a slice of the
//! cumulative probability; rare consecutive ranks are **merged** into one entry whose per-rank
//! frequency is the **mean of its members**, and a name inside a merged entry is chosen
//! **uniformly**.
//!
//! # Merge rule
//! The paper asks for the merge that minimises the frequency-weighted error against the true
//! Zipf. For an entry of width w starting at rank r, the L1 (total-variation) error is about
//! `mass · α·w / (4r)`, i.e. `∝ r^-α · w² / r`. Minimising the sum subject to a fixed number of
//! entries (Lagrange) gives an entry density `∝ r^-(1+α)/2`, i.e. **widths growing as
//! r^((1+α)/2)**. [`Merge::Optimal`] builds exactly that greedily, left to right: at rank s with
//! g entries left it picks `w = round(c · s^β)`, `c = ∫_s^{n+1} x^-β dx / g`, `β = (1+α)/2`
//! (w ≥ 1, so the head automatically stays exact, one rank per entry). This is the continuous
//! optimum rounded greedily, not a dynamic-programming optimum over all partitions.
//! [`Merge::Geometric`] (β = 1: constant width/rank ratio) and [`Merge::Uniform`] (half the
//! budget exact, the rest equal-width buckets) are the baselines; `pktlab gen zipf --merge`
//! reports the error of each.
//!
//! # Sampling
//! O(1) and independent of the table size: an alias table (Walker/Vose) over the entries with
//! 64-bit thresholds; one 64-bit random number picks the slot (Lemire's multiply-shift) and the
//! coin (the low 64 bits of the same product), a second one picks the rank inside the entry
//! (multiply-shift over the entry's width). Each slot stores both candidate entries' base rank
//! and width, so a sample touches one 24-byte slot.
//!
//! # Error metrics (computed analytically per entry, never rank by rank)
//! Sums of r^-α over a rank range use Euler–Maclaurin (integral, endpoint and three derivative
//! corrections; exact summation for ranges shorter than 64 or ranks below 32), accurate to
//! ~1e-12 relative. Within an entry [a, b] of width w and per-rank frequency q = mass/w the true
//! p_r decreases, crossing q once at `r* = ⌊(qZ)^(-1/α)⌋`, so
//! * L1 of the entry = 2·(S(a, r*)/Z − q·(r* − a + 1)) and TV = ½ Σ L1;
//! * the CDFs agree at entry boundaries, so the KS statistic is the maximum over entries of
//!   S(a, r*)/Z − q·(r* − a + 1) (the gap at the crossing);
//! * KL(p‖q) = Σ_r [p ln(p/q) − p + q] (the added terms sum to zero per entry); the summand is
//!   smooth and second-order small, so entries wider than 64 integrate it over [a−½, b+½] with
//!   8-point Gauss–Legendre panels in log-rank space (midpoint-rule error ≈ 1/w² relative);
//! * the maximum relative error per rank over the head (ranks ≤ [`HEAD_RANKS`]) is attained at an
//!   entry's ends: max(|q/p_a − 1|, |q/p_b − 1|).
//!
//! Entries of width ≤ 64 are evaluated exactly, rank by rank.

use super::SplitMix64;

/// Ranks over which [`ZipfStats::max_rel_err`] is taken: the first 2^20 ranks (or all of them).
pub const HEAD_RANKS: u64 = 1 << 20;
/// Largest supported name space (the paper's 2^32).
pub const MAX_NAMES: u64 = 1 << 32;
/// Largest supported table budget.
pub const MAX_ENTRIES: u64 = 1 << 26;

/// How consecutive tail ranks are merged into entries (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// Widths ∝ r^((1+α)/2): the continuous minimiser of the total-variation error.
    Optimal,
    /// Widths ∝ r (geometric buckets).
    Geometric,
    /// Half the budget exact, the rest of the ranks in equal-width buckets.
    Uniform,
}

impl Merge {
    /// Parses `optimal`, `geometric` or `uniform`.
    pub fn parse(s: &str) -> Option<Merge> {
        match s {
            "optimal" => Some(Merge::Optimal),
            "geometric" => Some(Merge::Geometric),
            "uniform" => Some(Merge::Uniform),
            _ => None,
        }
    }

    /// The name accepted by [`Merge::parse`].
    pub fn as_str(self) -> &'static str {
        match self {
            Merge::Optimal => "optimal",
            Merge::Geometric => "geometric",
            Merge::Uniform => "uniform",
        }
    }
}

/// Invalid table parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ZipfError {
    /// α must be finite and > 0.
    #[error("zipf: alpha must be a finite number > 0, got {0}")]
    Alpha(f64),
    /// The name space must hold 1 ..= 2^32 names.
    #[error("zipf: number of names must be in 1..=2^32, got {0}")]
    Names(u64),
    /// The table budget must be 1 ..= 2^26 entries.
    #[error("zipf: table entries must be in 1..=2^26, got {0}")]
    Entries(u64),
}

/// The approximation error of a table against the exact Zipf distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ZipfStats {
    /// Total variation distance ½ Σ |p_r − q_r|.
    pub tv: f64,
    /// Kullback–Leibler divergence KL(p‖q) in nats.
    pub kl: f64,
    /// max |q_r/p_r − 1| over ranks ≤ [`HEAD_RANKS`].
    pub max_rel_err: f64,
    /// Kolmogorov–Smirnov statistic max_r |F_p(r) − F_q(r)|.
    pub ks: f64,
}

/// One alias-table slot: threshold and the two candidate entries (0-based base rank, width−1).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Slot {
    thr: u64,
    base: u32,
    wm1: u32,
    abase: u32,
    awm1: u32,
}

/// A Zipf(α) sampler over ranks 1..=n built from at most `max_entries` table entries.
#[derive(Clone, Debug)]
pub struct ZipfTable {
    alpha: f64,
    n: u64,
    z: f64,
    /// (first rank, width) per entry, in rank order.
    bounds: Vec<(u64, u64)>,
    /// Probability of each entry (sums to 1).
    mass: Vec<f64>,
    slots: Vec<Slot>,
}

/// ∫_a^b x^-α dx, stable for α near 1.
fn int_pow(alpha: f64, a: f64, b: f64) -> f64 {
    let s = 1.0 - alpha;
    let l = (b / a).ln();
    if (s * l).abs() < 1e-300 || s == 0.0 {
        l
    } else {
        a.powf(s) * (s * l).exp_m1() / s
    }
}

/// Σ_{r=a}^{b} r^-α (exact for short ranges, Euler–Maclaurin otherwise).
pub fn zsum(alpha: f64, a: u64, b: u64) -> f64 {
    if a > b {
        return 0.0;
    }
    const D: u64 = 32;
    let direct = |a: u64, b: u64| (a..=b).rev().map(|r| (r as f64).powf(-alpha)).sum::<f64>();
    if b - a < 64 {
        direct(a, b)
    } else if a < D {
        direct(a, D - 1) + em(alpha, D, b)
    } else {
        em(alpha, a, b)
    }
}

fn em(alpha: f64, a: u64, b: u64) -> f64 {
    let (af, bf) = (a as f64, b as f64);
    let f = |x: f64| x.powf(-alpha);
    let f1 = |x: f64| -alpha * x.powf(-alpha - 1.0);
    let f3 = |x: f64| -alpha * (alpha + 1.0) * (alpha + 2.0) * x.powf(-alpha - 3.0);
    let f5 = |x: f64| {
        -alpha
            * (alpha + 1.0)
            * (alpha + 2.0)
            * (alpha + 3.0)
            * (alpha + 4.0)
            * x.powf(-alpha - 5.0)
    };
    int_pow(alpha, af, bf) + (f(af) + f(bf)) / 2.0 + (f1(bf) - f1(af)) / 12.0
        - (f3(bf) - f3(af)) / 720.0
        + (f5(bf) - f5(af)) / 30240.0
}

/// 8-point Gauss–Legendre nodes and weights on [-1, 1].
const GL8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_48),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_48),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
];

/// q·(d ln d − d + 1) with d = p/q: the KL summand plus (q − p), ≥ 0.
#[inline]
fn kl_term(p: f64, q: f64) -> f64 {
    let e = p / q - 1.0;
    q * ((1.0 + e) * e.ln_1p() - e)
}

impl ZipfTable {
    /// Builds the table with the [`Merge::Optimal`] rule.
    pub fn new(alpha: f64, n_names: u64, max_entries: u64) -> Result<ZipfTable, ZipfError> {
        Self::with_merge(alpha, n_names, max_entries, Merge::Optimal)
    }

    /// Builds the table with an explicit merge rule.
    pub fn with_merge(
        alpha: f64,
        n: u64,
        max_entries: u64,
        merge: Merge,
    ) -> Result<ZipfTable, ZipfError> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(ZipfError::Alpha(alpha));
        }
        if n == 0 || n > MAX_NAMES {
            return Err(ZipfError::Names(n));
        }
        if max_entries == 0 || max_entries > MAX_ENTRIES {
            return Err(ZipfError::Entries(max_entries));
        }
        let bounds = boundaries(alpha, n, max_entries.min(n), merge);
        let z = zsum(alpha, 1, n);
        let mut mass: Vec<f64> = bounds
            .iter()
            .map(|&(a, w)| zsum(alpha, a, a + w - 1) / z)
            .collect();
        let total: f64 = mass.iter().sum();
        mass.iter_mut().for_each(|m| *m /= total);
        let slots = alias(&bounds, &mass);
        Ok(ZipfTable {
            alpha,
            n,
            z,
            bounds,
            mass,
            slots,
        })
    }

    /// The exponent α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The number of names (ranks 1..=n).
    pub fn names(&self) -> u64 {
        self.n
    }

    /// The number of table entries actually used.
    pub fn entries(&self) -> usize {
        self.bounds.len()
    }

    /// Table memory in bytes (the sampling slots).
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    /// The exact Zipf probability of rank r (1-based).
    pub fn exact_p(&self, r: u64) -> f64 {
        (r as f64).powf(-self.alpha) / self.z
    }

    /// The table's probability of rank r (mean of its entry's members).
    pub fn table_p(&self, r: u64) -> f64 {
        let i = self.bounds.partition_point(|&(a, _)| a <= r) - 1;
        self.mass[i] / self.bounds[i].1 as f64
    }

    /// The entries as (first rank, width, probability).
    pub fn iter_entries(&self) -> impl Iterator<Item = (u64, u64, f64)> + '_ {
        self.bounds
            .iter()
            .zip(&self.mass)
            .map(|(&(a, w), &m)| (a, w, m))
    }

    /// Draws one rank in 1..=n using two 64-bit random numbers from `rng`.
    #[inline(always)]
    pub fn sample(&self, rng: &mut SplitMix64) -> u64 {
        let x = rng.next_u64();
        let y = rng.next_u64();
        self.sample_with(x, y)
    }

    /// Draws one rank from two uniform 64-bit numbers (x picks the entry, y the rank in it).
    #[inline(always)]
    pub fn sample_with(&self, x: u64, y: u64) -> u64 {
        let m = x as u128 * self.slots.len() as u128;
        let s = &self.slots[(m >> 64) as usize];
        let own = (m as u64) < s.thr;
        let base = if own { s.base } else { s.abase };
        let wm1 = if own { s.wm1 } else { s.awm1 };
        let off = ((y as u128 * (wm1 as u128 + 1)) >> 64) as u64;
        base as u64 + off + 1
    }

    /// Fills `out` with samples, prefetching the alias slot of the sample 16 positions ahead so
    /// that tables larger than the caches overlap their memory accesses. Deterministic given the
    /// generator's state, but a different sequence than repeated [`ZipfTable::sample`] calls.
    pub fn fill(&self, rng: &mut SplitMix64, out: &mut [u64]) {
        const D: usize = 16;
        let k = self.slots.len() as u128;
        let slot_of = |x: u64| ((x as u128 * k) >> 64) as usize;
        let mut xs = [0u64; D];
        for x in xs.iter_mut() {
            *x = rng.next_u64();
            prefetch(&self.slots[slot_of(*x)]);
        }
        for (i, o) in out.iter_mut().enumerate() {
            let j = i % D;
            let x = xs[j];
            let nx = rng.next_u64();
            xs[j] = nx;
            prefetch(&self.slots[slot_of(nx)]);
            *o = self.sample_with(x, rng.next_u64());
        }
    }

    /// The approximation error against the exact distribution (see the module documentation).
    pub fn stats(&self) -> ZipfStats {
        let mut st = ZipfStats::default();
        let (alpha, z) = (self.alpha, self.z);
        for (&(a, w), &m) in self.bounds.iter().zip(&self.mass) {
            let q = m / w as f64;
            let b = a + w - 1;
            if w <= 64 {
                let (mut cum, mut l1) = (0.0f64, 0.0f64);
                for r in a..=b {
                    let p = self.exact_p(r);
                    l1 += (p - q).abs();
                    cum += p - q;
                    st.ks = st.ks.max(cum.abs());
                    if p > 0.0 {
                        st.kl += kl_term(p, q);
                    }
                    if r <= HEAD_RANKS {
                        st.max_rel_err = st.max_rel_err.max((q / p - 1.0).abs());
                    }
                }
                st.tv += l1 / 2.0;
                continue;
            }
            // Crossing rank: p_r ≥ q for r ≤ r*.
            let rs = ((q * z).powf(-1.0 / alpha).floor() as u64).clamp(a, b);
            let half = (zsum(alpha, a, rs) / z - q * (rs - a + 1) as f64).max(0.0);
            st.tv += half;
            st.ks = st.ks.max(half);
            if a <= HEAD_RANKS {
                let e = (q / self.exact_p(a) - 1.0)
                    .abs()
                    .max((q / self.exact_p(b) - 1.0).abs());
                st.max_rel_err = st.max_rel_err.max(e);
            }
            // KL by Gauss–Legendre in log-rank space.
            let (lo, hi) = (((a as f64) - 0.5).ln(), ((b as f64) + 0.5).ln());
            let panels = (((hi - lo) / std::f64::consts::LN_2 * 2.0).ceil() as usize).max(1);
            let h = (hi - lo) / panels as f64;
            for k in 0..panels {
                let mid = lo + h * (k as f64 + 0.5);
                for &(t, wt) in &GL8 {
                    let x = (mid + t * h / 2.0).exp();
                    st.kl += wt * h / 2.0 * x * kl_term(x.powf(-alpha) / z, q);
                }
            }
        }
        st
    }
}

#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86-64 baseline, so the instruction exists on every x86-64
    // CPU; a prefetch is only a hint and never faults, whatever the address. Covered by
    // `fill_is_deterministic_and_distributed_like_sample`.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            p as *const T as *const i8,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Entry boundaries (first rank, width) for `e` entries over ranks 1..=n.
fn boundaries(alpha: f64, n: u64, e: u64, merge: Merge) -> Vec<(u64, u64)> {
    let mut v = Vec::with_capacity(e as usize);
    if e >= n {
        v.extend((1..=n).map(|r| (r, 1)));
        return v;
    }
    match merge {
        Merge::Uniform => {
            let head = e / 2;
            v.extend((1..=head).map(|r| (r, 1)));
            let (g, rest) = (e - head, n - head);
            let (w, extra) = (rest / g, rest % g);
            let mut s = head + 1;
            for i in 0..g {
                let wi = w + u64::from(i < extra);
                v.push((s, wi));
                s += wi;
            }
        }
        Merge::Optimal | Merge::Geometric => {
            let beta = if merge == Merge::Optimal {
                (1.0 + alpha) / 2.0
            } else {
                1.0
            };
            let (mut s, mut g) = (1u64, e);
            while s <= n {
                let left = n - s + 1;
                if g == 1 {
                    v.push((s, left));
                    break;
                }
                if left <= g {
                    v.extend((s..=n).map(|r| (r, 1)));
                    break;
                }
                let c = int_pow(beta, s as f64, n as f64 + 1.0) / g as f64;
                let w = ((c * (s as f64).powf(beta)).round() as u64).clamp(1, left - (g - 1));
                v.push((s, w));
                s += w;
                g -= 1;
            }
        }
    }
    v
}

/// Vose's alias construction over the entries, quantised to 64-bit thresholds.
fn alias(bounds: &[(u64, u64)], mass: &[f64]) -> Vec<Slot> {
    let k = mass.len();
    let mut prob: Vec<f64> = mass.iter().map(|m| m * k as f64).collect();
    let mut al: Vec<u32> = (0..k as u32).collect();
    let (mut small, mut large): (Vec<u32>, Vec<u32>) =
        (0..k as u32).partition(|&i| prob[i as usize] < 1.0);
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        al[s as usize] = l;
        prob[l as usize] -= 1.0 - prob[s as usize];
        if prob[l as usize] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // Leftovers (rounding) are full slots.
    for i in small.into_iter().chain(large) {
        prob[i as usize] = 1.0;
        al[i as usize] = i;
    }
    (0..k)
        .map(|i| {
            let (a, w) = bounds[i];
            let (aa, aw) = bounds[al[i] as usize];
            let thr = if prob[i] >= 1.0 {
                u64::MAX
            } else {
                (prob[i] * 18_446_744_073_709_551_616.0) as u64
            };
            Slot {
                thr,
                base: (a - 1) as u32,
                wm1: (w - 1) as u32,
                abase: (aa - 1) as u32,
                awm1: (aw - 1) as u32,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_parameters() {
        assert!(ZipfTable::new(0.0, 10, 4).is_err());
        assert!(ZipfTable::new(f64::NAN, 10, 4).is_err());
        assert!(ZipfTable::new(1.0, 0, 4).is_err());
        assert!(ZipfTable::new(1.0, (1 << 32) + 1, 4).is_err());
        assert!(ZipfTable::new(1.0, 10, 0).is_err());
    }

    #[test]
    fn zsum_matches_direct() {
        for &alpha in &[0.3, 0.8, 1.0, 1.0 + 1e-9, 1.5] {
            for &(a, b) in &[(1u64, 1000u64), (40, 5000), (1, 100_000), (77, 78)] {
                let d: f64 = (a..=b).map(|r| (r as f64).powf(-alpha)).sum();
                let e = zsum(alpha, a, b);
                assert!((d - e).abs() / d < 1e-12, "alpha {alpha} [{a},{b}] {d} {e}");
            }
        }
    }

    #[test]
    fn boundaries_cover_all_ranks() {
        for merge in [Merge::Optimal, Merge::Geometric, Merge::Uniform] {
            for &(n, e) in &[
                (1000u64, 10u64),
                (1 << 32, 1 << 16),
                (100, 100),
                (100, 1000),
            ] {
                let b = boundaries(0.8, n, e.min(n), merge);
                assert!(b.len() as u64 <= e);
                let mut s = 1;
                for &(a, w) in &b {
                    assert_eq!(a, s);
                    assert!(w >= 1);
                    s += w;
                }
                assert_eq!(s, n + 1);
            }
        }
    }

    /// The analytic per-entry metrics agree with brute force rank by rank.
    #[test]
    fn stats_match_brute_force() {
        for &alpha in &[0.5, 0.8, 1.0, 1.3] {
            for merge in [Merge::Optimal, Merge::Geometric, Merge::Uniform] {
                let n = 200_000;
                let t = ZipfTable::with_merge(alpha, n, 500, merge).unwrap();
                let st = t.stats();
                let (mut tv, mut kl, mut ks, mut cum) = (0.0, 0.0, 0.0f64, 0.0);
                for r in 1..=n {
                    let (p, q) = (t.exact_p(r), t.table_p(r));
                    tv += (p - q).abs() / 2.0;
                    kl += p * (p / q).ln();
                    cum += p - q;
                    ks = ks.max(cum.abs());
                }
                let close = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * y.abs() + 1e-12;
                assert!(
                    close(st.tv, tv, 1e-6),
                    "{alpha} {merge:?} tv {} {}",
                    st.tv,
                    tv
                );
                assert!(
                    close(st.ks, ks, 1e-6),
                    "{alpha} {merge:?} ks {} {}",
                    st.ks,
                    ks
                );
                assert!(
                    close(st.kl, kl, 1e-3),
                    "{alpha} {merge:?} kl {} {}",
                    st.kl,
                    kl
                );
            }
        }
    }

    #[test]
    fn optimal_beats_baselines_and_meets_budget_error() {
        let tv = |m| {
            ZipfTable::with_merge(0.8, 1 << 32, 1 << 16, m)
                .unwrap()
                .stats()
                .tv
        };
        let (o, g, u) = (tv(Merge::Optimal), tv(Merge::Geometric), tv(Merge::Uniform));
        assert!(o <= 1e-4, "optimal tv {o}");
        assert!(o < g && g < u, "optimal {o} geometric {g} uniform {u}");
    }

    #[test]
    fn exact_table_has_no_error() {
        let t = ZipfTable::new(0.8, 1000, 1000).unwrap();
        let st = t.stats();
        assert!(st.tv < 1e-12 && st.ks < 1e-12 && st.kl.abs() < 1e-12);
    }

    /// Chi-square goodness of fit of the sampler against the exact probabilities (n = 50, an
    /// exact table) and against the table's own merged probabilities (n = 2000, 40 entries).
    #[test]
    fn chi_square_against_exact_probabilities() {
        for &(alpha, n, e) in &[(0.8, 50u64, 50u64), (1.0, 50, 50), (0.6, 2000, 40)] {
            let t = ZipfTable::new(alpha, n, e).unwrap();
            let mut rng = SplitMix64::new(7);
            let draws = 400_000u64;
            let mut counts = vec![0u64; t.entries()];
            for _ in 0..draws {
                let r = t.sample(&mut rng);
                assert!((1..=n).contains(&r));
                let i = t.bounds.partition_point(|&(a, _)| a <= r) - 1;
                counts[i] += 1;
            }
            let chi2: f64 = counts
                .iter()
                .zip(&t.mass)
                .map(|(&c, &m)| {
                    let exp = m * draws as f64;
                    (c as f64 - exp).powi(2) / exp
                })
                .sum();
            let df = (t.entries() - 1) as f64;
            // Mean df, sd sqrt(2 df): 5 sd is a safe deterministic bound.
            assert!(chi2 < df + 5.0 * (2.0 * df).sqrt(), "chi2 {chi2} df {df}");
            if e == n {
                // KS of the empirical CDF against the exact Zipf CDF.
                let (mut fe, mut fp, mut d) = (0.0, 0.0, 0.0f64);
                for (i, &c) in counts.iter().enumerate() {
                    fe += c as f64 / draws as f64;
                    fp += t.exact_p(i as u64 + 1);
                    d = d.max((fe - fp).abs());
                }
                assert!(d < 1.63 / (draws as f64).sqrt(), "ks {d}"); // 1% critical value
            }
        }
    }

    #[test]
    fn fill_is_deterministic_and_distributed_like_sample() {
        let t = ZipfTable::new(0.8, 50, 50).unwrap();
        let (mut a, mut b) = (vec![0u64; 200_000], vec![0u64; 200_000]);
        t.fill(&mut SplitMix64::new(4), &mut a);
        t.fill(&mut SplitMix64::new(4), &mut b);
        assert_eq!(a, b);
        let top = a.iter().filter(|&&r| r == 1).count() as f64 / a.len() as f64;
        assert!((top - t.exact_p(1)).abs() < 0.005, "{top}");
    }

    #[test]
    fn uniform_inside_merged_entries() {
        // One entry over 8 names: every name equally likely.
        let t = ZipfTable::new(1.0, 8, 1).unwrap();
        let mut rng = SplitMix64::new(3);
        let mut c = [0u32; 8];
        for _ in 0..80_000 {
            c[(t.sample(&mut rng) - 1) as usize] += 1;
        }
        assert!(c.iter().all(|&x| (9_500..10_500).contains(&x)), "{c:?}");
    }

    #[test]
    fn full_name_space_sampling_is_in_range() {
        let t = ZipfTable::new(0.8, 1 << 32, 1 << 10).unwrap();
        let mut rng = SplitMix64::new(1);
        for _ in 0..10_000 {
            let r = t.sample(&mut rng);
            assert!((1..=1 << 32).contains(&r));
        }
        assert!(t.sample_with(u64::MAX, u64::MAX) <= 1 << 32);
    }
}
