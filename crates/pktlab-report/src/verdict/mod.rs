//! Verdicts: does our number reproduce the paper's, keep its ordering, or differ — and why.
//!
//! A comparison is judged by a [`Rule`]: [`Rule::Values`] when the numbers should match
//! (miss rates of a simulator, an estimate against a count), [`Rule::Ordering`] when only the
//! ranking can (lookup rates on another CPU and another table). Pairs the paper itself cannot
//! separate (closer than the rule's `tie`) are not counted as orderings.
//!
//! A timed row carries every interleaved round's value ([`CmpRow::rounds`]), in round order.
//! Two timed rows are ordered only when they are at least [`MARGIN`] apart and an exact
//! one-sided test over their rounds rejects the other order at p < [`ALPHA`]. Two series
//! with the same number of rounds are *paired* — round r of one was timed beside round r of
//! the other (that is what interleaving is for): their gap is the median of the per-round
//! ratios and the test is the Wilcoxon signed-rank test on the log per-round ratios.
//! Otherwise (different lengths, or a value measured once) the gap is the ratio of their
//! medians and the test the Mann–Whitney rank-sum test over their rounds. Within one
//! comparison the pairs' tests are Holm-corrected, so that a table of 40 pairs does not find
//! two "inversions" by chance in every run. Anything else is a *tie within noise*
//! ([`Kind::TieWithinNoise`]), so that host noise moving one round never flips a label.
//!
//! Why paired: on these hosts a structure's speed moves by 2× between minutes, and both the
//! ratio of two medians and a rank-sum test over rounds taken over minutes inherit that
//! movement, while the ratio within a round does not. One block of rounds in which Poptrie16
//! ran fast put Poptrie18 ÷ Poptrie16 at 1.11 as a ratio of medians in one recorded run (a
//! tie at the margin) where its per-round ratios had a median of 1.30 (1.20–1.30 in nine
//! runs); Poptrie18 ÷ Poptrie18-leafvec at a per-round median of 1.13, with 13 of 15 rounds
//! above 1, was a tie under the rank-sum test (p = 0.08) because the two series' rounds
//! spread over 72–198 and 80–153 Mlps with the host's phases; the signed-rank test gives
//! p = 0.028.
//!
//! Why a margin for paired series too: the gap between two structures itself moves with the
//! host's state from run to run, by more than one run's rounds can tell. Without it, effects
//! of a few percent were ordered in some runs and not in others (three quick runs on an Intel
//! guest: the CCN router's CS-size effect at per-round medians 1.05, 1.07 and 1.04, reproduced
//! once; compact against DPDK metadata on the vhost loop at 1.10, 1.08 and 1.10, reproduced
//! once); under the margin both are ties in every run. Effects near the margin itself still
//! move (Poptrie18 ÷ Poptrie18-leafvec at 1.03–1.31 between runs).
//!
//! The signed-rank test cannot go below p = 2^−n: 15 rounds (the LPM tables, 40 pairs) reach
//! 2^−15, below the Holm threshold 0.05 / 40; 5 rounds (one pair) reach 1/32, so all five
//! must agree; 3 rounds (the tiny scale) separate nothing.

use crate::model::CmpRow;
use serde::Serialize;

/// The outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Our numbers match the paper's within the rule's tolerance (or the claim holds).
    Reproduced,
    /// The numbers differ but every ranking the paper shows holds in ours.
    SameOrdering,
    /// No ranking is inverted, but at least one pair's rounds overlap: ours cannot tell the
    /// two apart on this host (neither held nor inverted beyond noise).
    TieWithinNoise,
    /// At least one ranking is inverted (or the claim does not hold).
    Differs,
    /// Nothing to compare against (no published number beside ours).
    NoReference,
}

impl Kind {
    /// Every kind, in the order the page and the summary count them.
    pub const ALL: [Kind; 5] = [
        Kind::Reproduced,
        Kind::SameOrdering,
        Kind::TieWithinNoise,
        Kind::Differs,
        Kind::NoReference,
    ];

    /// The label shown on the page.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Reproduced => "reproduced",
            Kind::SameOrdering => "same ordering",
            Kind::TieWithinNoise => "tie within noise",
            Kind::Differs => "differs",
            Kind::NoReference => "no reference",
        }
    }
}

/// A verdict and the reason, naming the numbers it rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Outcome.
    pub kind: Kind,
    /// Why, in one or two sentences.
    pub why: String,
}

impl Verdict {
    /// A claim checked directly: reproduced if it holds, differs otherwise.
    pub fn claim(holds: bool, why: impl Into<String>) -> Self {
        Verdict {
            kind: if holds {
                Kind::Reproduced
            } else {
                Kind::Differs
            },
            why: why.into(),
        }
    }

    /// Nothing to compare against.
    pub fn no_reference(why: impl Into<String>) -> Self {
        Verdict {
            kind: Kind::NoReference,
            why: why.into(),
        }
    }
}

/// How a [`crate::model::Comparison`] is judged.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// Reproduced when every `ours` is within `rel_tol` (relative) of `published`; otherwise
    /// judged on ordering.
    Values {
        /// Relative tolerance, e.g. 0.15 for ±15%.
        rel_tol: f64,
        /// Published values closer than this (relative) are a tie: their order is not checked.
        tie: f64,
    },
    /// Only the ordering is meaningful (different CPU, table or trace): same ordering at best.
    Ordering {
        /// Published values closer than this (relative) are a tie.
        tie: f64,
    },
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

fn fmt(v: f64) -> String {
    crate::html::num(v)
}

/// Significance level of the tests that order two timed series.
pub const ALPHA: f64 = 0.05;

/// Two timed series closer than this (relative; their median per-round ratio when they pair,
/// their medians otherwise) are a tie within noise whatever their rounds say: on these hosts
/// the gap between two structures moves by a few percent with the host's state from run to
/// run, so a difference that small is not a finding either way. Published pairs closer than
/// this are not ranked when ours are timed.
pub const MARGIN: f64 = 0.10;

/// Median of `v` (mean of the middle two for an even count); `None` when empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    Some(if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    })
}

/// How ours orders a pair that the paper ranks `hi` above `lo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOrder {
    /// Ours ranks them as the paper does, beyond noise.
    Holds,
    /// The gap is within [`MARGIN`], or no test separates them.
    TieWithinNoise,
    /// Ours ranks them the other way, beyond noise.
    Inverted,
}

/// What two series of ours say about a pair the paper ranks `hi` above `lo`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Evidence {
    /// Single values (measured once, without noise): compared directly.
    Single(PairOrder),
    /// A gap within [`MARGIN`]: a tie whatever the rounds say.
    Margin,
    /// One-sided p-values for "ours holds the paper's order" and "ours inverts it".
    Tested { hold: f64, invert: f64 },
}

/// `P(U ≤ u)` for the Mann–Whitney statistic `U` of samples of sizes `n` and `m` under the null
/// hypothesis (both from one distribution, no ties): the exact count of the `C(n + m, n)`
/// equally likely orderings whose `U` is at most `u`, by the recursion
/// `c(n, m, u) = c(n − 1, m, u − m) + c(n, m − 1, u)`.
fn rank_sum_cdf(n: usize, m: usize, u: usize) -> f64 {
    // c[j][v]: orderings of i and j values with U = v, for the current i.
    let mut c: Vec<Vec<f64>> = (0..=m).map(|_| vec![1.0]).collect();
    for i in 1..=n {
        let mut next: Vec<Vec<f64>> = vec![vec![1.0]];
        for j in 1..=m {
            let mut row = vec![0.0; i * j + 1];
            for (v, x) in c[j].iter().enumerate() {
                row[v + j] += x; // the largest value is one of the i: it beats all j
            }
            for (v, x) in next[j - 1].iter().enumerate() {
                row[v] += x; // the largest value is one of the j
            }
            next.push(row);
        }
        c = next;
    }
    let total: f64 = c[m].iter().sum();
    c[m].iter().take(u + 1).sum::<f64>() / total
}

/// The logarithms of the per-round ratios `hi / lo` of two paired series (round `r` of `hi`
/// timed beside round `r` of `lo`): `None` when they do not pair (different lengths, fewer
/// than 2 rounds, or a value that is not a positive finite number, which has no ratio).
fn log_ratios(hi: &[f64], lo: &[f64]) -> Option<Vec<f64>> {
    let ok = |v: &[f64]| v.iter().all(|x| x.is_finite() && *x > 0.0);
    if hi.len() != lo.len() || hi.len() < 2 || !ok(hi) || !ok(lo) {
        return None;
    }
    Some(hi.iter().zip(lo).map(|(h, l)| (h / l).ln()).collect())
}

/// The median per-round ratio `hi / lo` of two paired series; `None` when they do not pair
/// (see the module documentation).
pub fn paired_ratio(hi: &[f64], lo: &[f64]) -> Option<f64> {
    median(&log_ratios(hi, lo)?).map(f64::exp)
}

/// The evidence of two series of ours (`hi` is the one the paper ranks higher).
fn evidence(hi: &[f64], lo: &[f64]) -> Evidence {
    let (hmin, _) = range(hi);
    let (_, lmax) = range(lo);
    if hi.len() <= 1 && lo.len() <= 1 {
        // Equality counts as inverted: the paper's order is not shown.
        return Evidence::Single(if hmin > lmax {
            PairOrder::Holds
        } else {
            PairOrder::Inverted
        });
    }
    // The size of the difference: the median per-round ratio when the rounds pair, the
    // medians otherwise.
    let within = |a: f64, b: f64| (a - b).abs() < MARGIN * a.abs().max(b.abs());
    let gap = match paired_ratio(hi, lo) {
        Some(r) => Some((r, 1.0)),
        None => median(hi).zip(median(lo)),
    };
    if gap.is_some_and(|(a, b)| within(a, b)) {
        return Evidence::Margin;
    }
    // Paired rounds: the exact Wilcoxon signed-rank test on the log per-round ratios, one-sided
    // each way — the host's speed in round r is common to both series and drops out of the
    // ratio. Otherwise the exact Mann–Whitney rank-sum test over the rounds, one-sided each
    // way; a tie between two rounds counts half, rounded against the order being tested.
    if let Some(d) = log_ratios(hi, lo) {
        let (hold, invert) = signed_rank(&d);
        return Evidence::Tested { hold, invert };
    }
    let (n, m) = (hi.len(), lo.len());
    let above = hi.iter().flat_map(|h| lo.iter().map(move |l| (h, l)));
    let wins = above.clone().filter(|(h, l)| h > l).count();
    let losses = above.filter(|(h, l)| h < l).count();
    let even = n * m - wins - losses;
    Evidence::Tested {
        hold: rank_sum_cdf(n, m, losses + even),
        invert: rank_sum_cdf(n, m, wins + even),
    }
}

/// The exact one-sided p-values of the Wilcoxon signed-rank test on `d`: `(P(W+ ≥ w+),
/// P(W− ≥ w−))`, evidence that `d` lies above 0 and below it. Zeros are left out (Wilcoxon's
/// rule); equal magnitudes share their mid-rank, and the null distribution is the exact one
/// for those ranks (all 2^n sign assignments, counted by sum of doubled ranks, so it stays in
/// integers). With no non-zero value both are 1.
fn signed_rank(d: &[f64]) -> (f64, f64) {
    let a: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    let n = a.len();
    if n == 0 {
        return (1.0, 1.0);
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs()));
    // Doubled mid-ranks: values at sorted positions k..=e share rank (k + e + 2) / 2.
    let mut r2 = vec![0usize; n];
    let mut k = 0;
    while k < n {
        let mut e = k;
        while e + 1 < n && a[idx[e + 1]].abs() == a[idx[k]].abs() {
            e += 1;
        }
        for &i in &idx[k..=e] {
            r2[i] = k + e + 2;
        }
        k = e + 1;
    }
    let total: usize = r2.iter().sum();
    let w_plus: usize = (0..n).filter(|&i| a[i] > 0.0).map(|i| r2[i]).sum();
    // c[s]: sign assignments whose positive values' doubled ranks sum to s.
    let mut c = vec![0f64; total + 1];
    c[0] = 1.0;
    for &r in &r2 {
        for s in (r..=total).rev() {
            c[s] += c[s - r];
        }
    }
    let all = 2f64.powi(n as i32);
    let at_least = |w: usize| c[w..].iter().sum::<f64>() / all;
    (at_least(w_plus), at_least(total - w_plus))
}

/// Orders two series of ours (`hi` is the one the paper ranks higher), as a pair on its own
/// (no other pair tested beside it). Single values compare directly, equality counting as
/// inverted; series within [`MARGIN`] of each other (median per-round ratio when they pair,
/// medians otherwise) are a tie; otherwise the order is the one a one-sided test accepts at
/// p < [`ALPHA`] (signed-rank when they pair, rank-sum otherwise; the module documentation).
pub fn pair_order(hi: &[f64], lo: &[f64]) -> PairOrder {
    match evidence(hi, lo) {
        Evidence::Single(o) => o,
        Evidence::Margin => PairOrder::TieWithinNoise,
        Evidence::Tested { invert, .. } if invert < ALPHA => PairOrder::Inverted,
        Evidence::Tested { hold, .. } if hold < ALPHA => PairOrder::Holds,
        Evidence::Tested { .. } => PairOrder::TieWithinNoise,
    }
}

/// Orders a family of pairs tested together (one comparison's table), Holm-corrected at
/// [`ALPHA`]: the pairs' smaller one-sided p-values sorted ascending, the k-th smallest of m
/// must be below `ALPHA / (m − k)` (k from 0), and the first that is not stops the
/// separated ones; the rest are ties within noise.
fn family_order(pairs: &[(&[f64], &[f64])]) -> Vec<PairOrder> {
    let ev: Vec<Evidence> = pairs.iter().map(|(h, l)| evidence(h, l)).collect();
    let mut out: Vec<PairOrder> = ev
        .iter()
        .map(|e| match e {
            Evidence::Single(o) => *o,
            _ => PairOrder::TieWithinNoise,
        })
        .collect();
    let mut tested: Vec<(f64, usize, PairOrder)> = ev
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match *e {
            Evidence::Tested { hold, invert } if invert < hold => {
                Some((invert, i, PairOrder::Inverted))
            }
            Evidence::Tested { hold, .. } => Some((hold, i, PairOrder::Holds)),
            _ => None,
        })
        .collect();
    tested.sort_by(|a, b| a.0.total_cmp(&b.0));
    let m = tested.len();
    for (k, &(p, i, o)) in tested.iter().enumerate() {
        if p >= ALPHA / (m - k) as f64 {
            break;
        }
        out[i] = o;
    }
    out
}

/// The verdict of a claim that series `hi` (its rounds) lies above series `lo`: reproduced when
/// it does beyond noise, a tie within noise when the rounds cannot tell, differs when it lies
/// below beyond noise ([`pair_order`]). Series of the same length are paired by round (the
/// module documentation), so both must be in round order. The reason names both series'
/// rounds.
pub fn above(hi_name: &str, hi: &[f64], lo_name: &str, lo: &[f64]) -> Verdict {
    let (kind, how) = match pair_order(hi, lo) {
        PairOrder::Holds => (Kind::Reproduced, "above beyond noise"),
        PairOrder::TieWithinNoise => (
            Kind::TieWithinNoise,
            "within 10 %, or no test separates them",
        ),
        PairOrder::Inverted => (Kind::Differs, "below beyond noise"),
    };
    Verdict {
        kind,
        why: format!(
            "{hi_name} {} vs {lo_name} {}: {how} ({} at p < {ALPHA})",
            span(hi),
            span(lo),
            test_used(hi, lo)
        ),
    }
}

/// How two series were compared, as a reason names it: the median per-round ratio when they
/// pair, and the test.
fn test_used(hi: &[f64], lo: &[f64]) -> String {
    match paired_ratio(hi, lo) {
        Some(r) => {
            format!("median per-round ratio {r:.2}; exact signed-rank test on the per-round ratios")
        }
        None => "exact rank-sum test over the rounds".into(),
    }
}

/// `P(X ≥ k)` for `X ~ Binomial(n, 1/2)`: the one-sided sign test's p-value for `k` of `n`
/// rounds on one side of a value that is the series' median under the null hypothesis.
fn sign_p(n: usize, k: usize) -> f64 {
    let mut c = 1.0; // C(n, 0)
    let mut tail = 0.0;
    for i in 0..=n {
        if i >= k {
            tail += c;
        }
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    tail / 2f64.powi(n as i32)
}

/// The verdict of a claim that every series (its rounds) lies at or above `threshold`:
/// differs when some series lies below it beyond noise — its rounds below the threshold are
/// so many that a one-sided sign test rejects "the median is at the threshold" at p < [`ALPHA`],
/// Holm-corrected over the series; reproduced when the median of all the series' rounds
/// pooled is at or above it; otherwise a tie within noise. Pooled, not series by series: the
/// lowest of eight medians of nine noisy rounds lies below the series' common value by chance
/// (the multiple-comparison problem `family_order` solves for orderings), so "every median ≥
/// threshold" fails on noise alone; a series that really lies below is what the sign test is
/// for. The reason names the pooled and the lowest median and the test.
pub fn at_least(series: &[(&str, &[f64])], threshold: f64, unit: &str) -> Verdict {
    let mut stats: Vec<(&str, f64, usize, usize, f64)> = series
        .iter()
        .filter_map(|(name, v)| {
            let m = median(v)?;
            let below = v.iter().filter(|&&x| x < threshold).count();
            Some((*name, m, below, v.len(), sign_p(v.len(), below)))
        })
        .collect();
    let all: Vec<f64> = series.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    let (Some(pooled), false) = (median(&all), stats.is_empty()) else {
        return Verdict::no_reference("no series was measured");
    };
    let n = all.len();
    let lowest = stats
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|s| {
            format!(
                "lowest median {:.2}{unit} ({}, {} of {} rounds below {threshold}{unit})",
                s.1, s.0, s.2, s.3
            )
        })
        .unwrap_or_default();
    stats.sort_by(|a, b| a.4.total_cmp(&b.4));
    let m = stats.len();
    let below: Vec<&str> = stats
        .iter()
        .enumerate()
        .take_while(|(k, s)| s.4 < ALPHA / (m - k) as f64)
        .map(|(_, s)| s.0)
        .collect();
    let test = format!("one-sided sign test per series at p < {ALPHA}, Holm-corrected over {m}");
    if !below.is_empty() {
        Verdict {
            kind: Kind::Differs,
            why: format!(
                "{} below {threshold}{unit} beyond noise ({test}); {lowest}",
                below.join(", ")
            ),
        }
    } else if pooled >= threshold {
        Verdict {
            kind: Kind::Reproduced,
            why: format!("median of all {n} rounds {pooled:.2}{unit}, at or above {threshold}{unit}, and no series below it beyond noise ({test}); {lowest}"),
        }
    } else {
        Verdict {
            kind: Kind::TieWithinNoise,
            why: format!("median of all {n} rounds {pooled:.2}{unit}, below {threshold}{unit}, but no series below it beyond noise ({test}); {lowest}"),
        }
    }
}

fn range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        })
}

/// `v` as written in a reason: one number, or `min–max (n rounds)`.
fn span(v: &[f64]) -> String {
    if v.len() <= 1 {
        return v.first().map_or_else(|| "—".into(), |&x| fmt(x));
    }
    let (a, b) = range(v);
    format!("{}–{} ({} rounds)", fmt(a), fmt(b), v.len())
}

/// A row with both numbers: its label, the published value and our series (its rounds, or
/// the one value).
type Judged<'a> = (&'a str, f64, Vec<f64>);

/// The orderings a comparison's reference shows, and how ours orders each.
struct Ranking<'a> {
    /// The rows with both a published number and ours.
    both: Vec<Judged<'a>>,
    /// (index of the higher published row in `both`, of the lower, how ours orders them),
    /// Holm-corrected over the timed pairs ([`family_order`]).
    pairs: Vec<(usize, usize, PairOrder)>,
    /// Published pairs of timed rows less than [`MARGIN`] apart, left unranked.
    unranked_close: usize,
    /// Pairs with at least one timed row (the Holm family's size).
    tested: usize,
}

/// Ranks the rows of a comparison under `rule`: the pairs the reference separates (by at least
/// the rule's `tie`, and [`MARGIN`] for timed rows), each ordered by ours.
fn rank(rows: &[CmpRow], rule: Rule) -> Ranking<'_> {
    let both: Vec<Judged> = rows
        .iter()
        .filter_map(|r| match (r.published, r.ours) {
            (Some(p), Some(o)) if p.is_finite() && o.is_finite() => {
                let series = if r.rounds.is_empty() {
                    vec![o]
                } else {
                    r.rounds.clone()
                };
                Some((&r.label[..], p, series))
            }
            _ => None,
        })
        .collect();
    let tie = match rule {
        Rule::Values { tie, .. } | Rule::Ordering { tie } => tie,
    };
    let mut unranked_close = 0;
    let mut idx = Vec::new();
    for i in 0..both.len() {
        for j in i + 1..both.len() {
            let (hi, lo) = if both[i].1 > both[j].1 {
                (i, j)
            } else {
                (j, i)
            };
            // A timed pair is an ordering only where the published values are at least
            // MARGIN apart: the paper gives one number per structure, without its spread or
            // its rounds, so a smaller published gap is not a finding to reproduce.
            let (h, l) = (&both[hi], &both[lo]);
            let timed = h.2.len() > 1 && l.2.len() > 1;
            if close(h.1, l.1, tie) {
                continue;
            }
            if timed && close(h.1, l.1, MARGIN) {
                unranked_close += 1;
                continue;
            }
            idx.push((hi, lo));
        }
    }
    let series: Vec<(&[f64], &[f64])> = idx
        .iter()
        .map(|&(h, l)| (&both[h].2[..], &both[l].2[..]))
        .collect();
    let tested = series
        .iter()
        .filter(|(h, l)| h.len() > 1 || l.len() > 1)
        .count();
    let pairs = idx
        .iter()
        .zip(family_order(&series))
        .map(|(&(h, l), o)| (h, l, o))
        .collect();
    Ranking {
        both,
        pairs,
        unranked_close,
        tested,
    }
}

/// The orderings of `rows` that ours inverts beyond noise under `rule`, as (the row the
/// reference ranks higher, the row it ranks lower): the pairs [`judge`] names as inverted.
pub fn inverted(rows: &[CmpRow], rule: Rule) -> Vec<(String, String)> {
    let r = rank(rows, rule);
    r.pairs
        .iter()
        .filter(|p| p.2 == PairOrder::Inverted)
        .map(|&(h, l, _)| (r.both[h].0.to_string(), r.both[l].0.to_string()))
        .collect()
}

/// Judges the rows of a comparison under `rule`; `reference` names the reference column in
/// the reason (`paper`, `Che model`).
pub fn judge(rows: &[CmpRow], rule: Rule, reference: &str) -> Verdict {
    let Ranking {
        both,
        pairs,
        unranked_close,
        tested,
    } = rank(rows, rule);
    if both.is_empty() {
        return Verdict::no_reference("no row has both a published number and ours");
    }
    // Orderings the paper shows, and those ours inverts or cannot separate.
    let ranked = pairs.len();
    let mut inverted = Vec::new();
    let mut ties = Vec::new();
    for &(h, l, order) in &pairs {
        let (hi, lo) = (&both[h], &both[l]);
        let ratio = paired_ratio(&hi.2, &lo.2)
            .map(|r| format!(", per-round ratio {r:.2}"))
            .unwrap_or_default();
        let text = format!(
            "{reference} {} > {} ({} vs {}), ours {} vs {}{ratio}",
            hi.0,
            lo.0,
            fmt(hi.1),
            fmt(lo.1),
            span(&hi.2),
            span(&lo.2)
        );
        match order {
            PairOrder::Holds => {}
            PairOrder::Inverted => inverted.push(text),
            PairOrder::TieWithinNoise => ties.push(text),
        }
    }
    let list = |v: &[String]| {
        let shown: Vec<&str> = v.iter().take(3).map(|s| &s[..]).collect();
        format!(
            "{}{}",
            shown.join("; "),
            if v.len() > 3 { "; …" } else { "" }
        )
    };
    let tie_why = if ties.is_empty() {
        String::new()
    } else {
        format!(
            "; {} of {ranked} within noise (within 10 %, or no test separates them at p < {ALPHA}, Holm-corrected over the {tested} timed pairs): {}",
            ties.len(),
            list(&ties)
        )
    };
    let ordering_ok = inverted.is_empty() && ties.is_empty();
    let how = if tested > 0 {
        format!(" (timed: ≥ 10 % apart — the median per-round ratio where the rounds pair, the medians otherwise — and an exact test at p < {ALPHA}, Holm-corrected over the {tested} timed pairs: signed-rank on the per-round ratios where the rounds pair, rank-sum over the rounds otherwise)")
    } else {
        String::new()
    };
    let close_why = if unranked_close > 0 {
        format!("; {unranked_close} published pair(s) less than 10 % apart not ranked (timed rows: the paper gives no spread, so such a gap is no finding)")
    } else {
        String::new()
    };
    let ordering_why = if ordering_ok {
        format!("all {ranked} orderings the {reference} shows hold in ours{close_why}")
    } else if inverted.is_empty() {
        format!("none of {ranked} orderings inverted{tie_why}{close_why}",)
    } else {
        format!(
            "{} of {ranked} orderings inverted{how}: {}{tie_why}{close_why}",
            inverted.len(),
            list(&inverted)
        )
    };
    let unranked = if inverted.is_empty() && !ties.is_empty() {
        Kind::TieWithinNoise
    } else {
        Kind::Differs
    };
    match rule {
        Rule::Values { rel_tol, .. } => {
            let (worst, dev) = both
                .iter()
                .map(|(l, p, o)| {
                    let o = median(o).unwrap_or(f64::NAN);
                    (*l, (o - p) / p.abs().max(f64::MIN_POSITIVE))
                })
                .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
                .expect("non-empty");
            let dev_s = format!("{:+.1}%", dev * 100.0);
            if dev.abs() <= rel_tol {
                Verdict {
                    kind: Kind::Reproduced,
                    why: format!(
                        "all {} values within ±{:.0}% of the {reference}'s (largest deviation {dev_s} at {worst})",
                        both.len(),
                        rel_tol * 100.0
                    ),
                }
            } else if ordering_ok && ranked > 0 {
                Verdict {
                    kind: Kind::SameOrdering,
                    why: format!(
                        "values differ (largest deviation {dev_s} at {worst}, tolerance ±{:.0}%) but {ordering_why}",
                        rel_tol * 100.0
                    ),
                }
            } else {
                Verdict {
                    kind: if ranked > 0 { unranked } else { Kind::Differs },
                    why: if ranked > 0 {
                        format!("largest deviation {dev_s} at {worst} (tolerance ±{:.0}%); {ordering_why}", rel_tol * 100.0)
                    } else {
                        format!("deviation {dev_s} at {worst}, beyond the tolerance of ±{:.0}%", rel_tol * 100.0)
                    },
                }
            }
        }
        Rule::Ordering { .. } => Verdict {
            kind: if ordering_ok {
                Kind::SameOrdering
            } else {
                unranked
            },
            why: format!("{ordering_why} (absolute values depend on CPU and input: only the ranking is compared)"),
        },
    }
}

/// Whether `v` is non-decreasing (`up`) or non-increasing, allowing steps against the
/// direction of at most `slack` (relative).
pub fn monotone(v: &[f64], up: bool, slack: f64) -> bool {
    v.windows(2).all(|w| {
        let (a, b) = if up { (w[0], w[1]) } else { (w[1], w[0]) };
        b >= a - slack * a.abs().max(b.abs())
    })
}

#[cfg(test)]
mod tests;
