//! The report's sections, one file each, and the registry that lists them in page order.
//!
//! Adding a section = one file here (a `pub const SECTION: SectionDef` with its published
//! numbers typed in once, citing `DIGEST.md`, and a run function calling `pktlab_lab`) plus
//! its `mod` line and its line in [`REGISTRY`].

use crate::SectionDef;

mod aqm;
mod cache;
mod ccn_live;
mod forward;
mod lpm;
mod tcp_mixes;
mod vhost_live;
mod zipf_cs;

/// Every section, in page order.
pub static REGISTRY: &[SectionDef] = &[
    lpm::SECTION,
    cache::SECTION,
    aqm::SECTION,
    tcp_mixes::SECTION,
    zipf_cs::SECTION,
    ccn_live::SECTION,
    forward::SECTION,
    vhost_live::SECTION,
];

/// The check of a claim that a rate falls as a store grows, on interleaved rounds: `round`
/// measures the rate at the smallest and at the largest size once (`None`: not measured), the
/// small store first when its argument is true — which alternates from round to round, so that
/// a drift within a round (warm-up, the host's load) weighs on both sizes alike. The claim
/// holds when the small store's rounds lie above the large one's beyond noise
/// ([`crate::verdict::above`]; a round that measured only one size is left out, so the two
/// series stay paired by round). Every round's values go into the body's raw results as `key`.
pub(crate) fn rate_falls(
    b: &mut crate::model::Body,
    claim: &str,
    key: &str,
    (small, large): (u64, u64),
    rounds: usize,
    mut round: impl FnMut(bool) -> pktlab_lab::Result<(Option<f64>, Option<f64>)>,
) -> pktlab_lab::Result<()> {
    let (mut r_small, mut r_large) = (Vec::new(), Vec::new());
    for i in 0..rounds {
        if let (Some(s), Some(l)) = round(i % 2 == 0)? {
            r_small.push(s);
            r_large.push(l);
        }
    }
    b.checks.push(crate::model::Check {
        claim: claim.into(),
        verdict: crate::verdict::above(
            &format!("{small} entries"),
            &r_small,
            &format!("{large} entries"),
            &r_large,
        ),
    });
    b.raw(
        key,
        &serde_json::json!({ "small": small, "large": large, "small_rounds": r_small, "large_rounds": r_large }),
    );
    Ok(())
}
