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
