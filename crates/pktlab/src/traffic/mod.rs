//! Traffic generators that feed the simulators.
//!
//! * [`flows`] — a flow-level packet trace generator calibrated on the AGH 2015 flow-length
//!   histogram, the synthetic stand-in for paper 000's WIDE/Academic traces.

pub mod flows;

pub use flows::{LengthHist, SynthConfig, SynthTrace};
