//! Traffic generators that feed the simulators and benchmarks.
//!
//! * [`flows`] — a flow-level packet trace generator calibrated on the AGH 2015 flow-length
//!   histogram, the synthetic stand-in for paper 000's WIDE/Academic traces;
//! * [`zipf`] — paper 003 (Endo et al., "P4-based CCN packet generator"): a Zipf popularity
//!   sampler built as an inverse-transform table whose rare tail is merged into shared entries;
//! * [`streams`] — packet streams built on it: CCN names, IPv4/IPv6 destinations over a routing
//!   table's prefixes and 5-tuple flows;
//! * [`lpm`] — lookup traffic for LPM benchmarks (paper 004's harness: xor128 random
//!   addresses, sequential, repeated, prefix-uniform or Zipf-popular, a capture's destinations).

pub mod flows;
pub mod lpm;
pub mod streams;
pub mod zipf;

pub use crate::util::SplitMix64;
pub use flows::{LengthHist, SynthConfig, SynthTrace};
pub use streams::{flow_of, DestStream, FlowStream, NameStream};
pub use zipf::{Merge, ZipfError, ZipfStats, ZipfTable};
