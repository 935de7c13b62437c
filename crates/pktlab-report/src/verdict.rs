//! Verdicts: does our number reproduce the paper's, keep its ordering, or differ — and why.
//!
//! A comparison is judged by a [`Rule`]: [`Rule::Values`] when the numbers should match
//! (miss rates of a simulator, an estimate against a count), [`Rule::Ordering`] when only the
//! ranking can (lookup rates on another CPU and another table). Pairs the paper itself cannot
//! separate (closer than the rule's `tie`) are not counted as orderings.

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
    /// At least one ranking is inverted (or the claim does not hold).
    Differs,
    /// Nothing to compare against (no published number beside ours).
    NoReference,
}

impl Kind {
    /// The label shown on the page.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Reproduced => "reproduced",
            Kind::SameOrdering => "same ordering",
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

/// Judges the rows of a comparison under `rule`; `reference` names the reference column in
/// the reason (`paper`, `Che model`).
pub fn judge(rows: &[CmpRow], rule: Rule, reference: &str) -> Verdict {
    let both: Vec<(&str, f64, f64)> = rows
        .iter()
        .filter_map(|r| match (r.published, r.ours) {
            (Some(p), Some(o)) if p.is_finite() && o.is_finite() => Some((&r.label[..], p, o)),
            _ => None,
        })
        .collect();
    if both.is_empty() {
        return Verdict::no_reference("no row has both a published number and ours");
    }
    let tie = match rule {
        Rule::Values { tie, .. } | Rule::Ordering { tie } => tie,
    };
    // Orderings the paper shows, and those ours inverts.
    let mut ranked = 0;
    let mut inverted = Vec::new();
    for i in 0..both.len() {
        for j in i + 1..both.len() {
            let (a, pa, oa) = both[i];
            let (b, pb, ob) = both[j];
            if close(pa, pb, tie) {
                continue;
            }
            ranked += 1;
            if (pa - pb) * (oa - ob) <= 0.0 {
                let (hi, lo, ph, pl, oh, ol) = if pa > pb {
                    (a, b, pa, pb, oa, ob)
                } else {
                    (b, a, pb, pa, ob, oa)
                };
                inverted.push(format!(
                    "{reference} {hi} > {lo} ({} vs {}), ours {} vs {}",
                    fmt(ph),
                    fmt(pl),
                    fmt(oh),
                    fmt(ol)
                ));
            }
        }
    }
    let ordering_ok = inverted.is_empty();
    let ordering_why = if ordering_ok {
        format!("all {ranked} orderings the {reference} shows hold in ours")
    } else {
        let shown: Vec<&str> = inverted.iter().take(3).map(|s| &s[..]).collect();
        format!(
            "{} of {ranked} orderings inverted: {}{}",
            inverted.len(),
            shown.join("; "),
            if inverted.len() > 3 { "; …" } else { "" }
        )
    };
    match rule {
        Rule::Values { rel_tol, .. } => {
            let (worst, dev) = both
                .iter()
                .map(|&(l, p, o)| (l, (o - p) / p.abs().max(f64::MIN_POSITIVE)))
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
                    kind: Kind::Differs,
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
                Kind::Differs
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
mod tests {
    use super::*;

    fn rows(v: &[(&str, f64, f64)]) -> Vec<CmpRow> {
        v.iter()
            .map(|&(l, p, o)| CmpRow::new(l, Some(p), Some(o)))
            .collect()
    }

    /// The verdict on (label, paper, ours) rows under [`Rule::Values`].
    fn by_values(v: &[(&str, f64, f64)], rel_tol: f64, tie: f64) -> Verdict {
        judge(&rows(v), Rule::Values { rel_tol, tie }, "paper")
    }

    /// The verdict on (label, paper, ours) rows under [`Rule::Ordering`].
    fn by_ordering(v: &[(&str, f64, f64)], tie: f64) -> Verdict {
        judge(&rows(v), Rule::Ordering { tie }, "paper")
    }

    #[test]
    fn within_tolerance_is_reproduced() {
        let v = by_values(&[("lru", 0.252, 0.26), ("hpc4", 0.212, 0.20)], 0.1, 0.01);
        assert_eq!(v.kind, Kind::Reproduced, "{v:?}");
        assert!(v.why.contains("hpc4"), "{}", v.why);
    }

    #[test]
    fn far_values_with_kept_order_are_same_ordering() {
        let r = [
            ("lru", 0.252, 0.32),
            ("slru", 0.227, 0.27),
            ("hpc4", 0.212, 0.23),
        ];
        let v = by_values(&r, 0.1, 0.01);
        assert_eq!(v.kind, Kind::SameOrdering, "{v:?}");
        assert!(v.why.contains("3 orderings"), "{}", v.why);
    }

    #[test]
    fn an_inverted_pair_differs_and_is_named() {
        let r = [
            ("sail", 160.0, 90.0),
            ("d16r", 196.0, 80.0),
            ("tbm", 62.0, 40.0),
        ];
        let v = by_ordering(&r, 0.02);
        assert_eq!(v.kind, Kind::Differs);
        assert!(v.why.contains("paper d16r > sail"), "{}", v.why);
        assert!(v.why.starts_with("1 of 3"), "{}", v.why);
    }

    #[test]
    fn ties_in_the_paper_are_not_orderings() {
        // hpc2 and hpc4 are equal in the paper: their order in ours does not matter.
        let r = [
            ("hpc2", 0.212, 0.227),
            ("hpc4", 0.212, 0.226),
            ("lru", 0.252, 0.32),
        ];
        let v = by_ordering(&r, 0.01);
        assert_eq!(v.kind, Kind::SameOrdering, "{v:?}");
        assert!(v.why.contains("all 2 orderings"), "{}", v.why);
    }

    #[test]
    fn one_value_out_of_tolerance_differs() {
        let v = by_values(&[("speed-up", 6.49, 1.5)], 0.3, 0.0);
        assert_eq!(v.kind, Kind::Differs, "{v:?}");
        assert!(v.why.contains("-76.9%"), "{}", v.why);
    }

    #[test]
    fn no_published_number_is_no_reference() {
        let r = vec![CmpRow::new("dir24_8", None, Some(120.0))];
        assert_eq!(
            judge(&r, Rule::Ordering { tie: 0.0 }, "paper").kind,
            Kind::NoReference
        );
    }

    #[test]
    fn ratio_and_monotone() {
        assert_eq!(CmpRow::new("x", Some(2.0), Some(3.0)).ratio, Some(1.5));
        assert_eq!(CmpRow::new("x", Some(0.0), Some(3.0)).ratio, None);
        assert!(monotone(&[1.0, 2.0, 1.99, 3.0], true, 0.01));
        assert!(!monotone(&[1.0, 2.0, 1.5], true, 0.01));
        assert!(monotone(&[3.0, 2.0, 2.0], false, 0.0));
        assert!(Verdict::claim(true, "x").kind == Kind::Reproduced);
    }
}
