//! # pktlab-lab
//!
//! Experiments: every measurement, simulation and sweep pktlab runs, as plain library functions
//! over the components of the `pktlab` crate (which a user embeds without any of this).
//!
//! Each experiment is a function `fn(&Config, &dyn Progress) -> Result<Output, Error>`:
//! * the **config** struct says everything the experiment needs (sizes, seeds, paths; `Default`
//!   gives the CLI's defaults) and is serde-serialisable, so a report or a notebook can record it;
//! * the **result** struct holds every number the experiment produced, serde-serialisable; its
//!   JSON form is exactly what the CLI prints with `--json`;
//! * **progress** goes through the caller's [`Progress`] (the CLI draws indicatif bars on
//!   stderr, the HTML report an overall bar, Python a callback, tests [`Silent`]);
//! * **errors** are one-line [`Error`]s naming the file and position or the bad parameter.
//!
//! The CLI (`pktlab-cli`) only parses flags into a config, calls the function and prints the
//! result as a table or JSON; `pktlab reproduce` calls the same functions.
//!
//! Modules, one per component: [`lpm`] (lookup benchmark, oracle verification, updates under
//! concurrent readers), [`cache`] (packet processing cache simulation and size sweep, trace
//! statistics and conversion), [`aqm`] (dumbbell simulation, paper-002 figure studies,
//! discipline micro-benchmark), [`traffic`] (Zipf table error and speed, pcap generators),
//! [`ccn`] (content-store hit ratios and forwarder rate), [`forward`] (the batched data
//! plane of paper 001) and [`live`] (traffic generator and sink on live interfaces).
//!
//! ## Adding an experiment
//! 1. A new component gets a new module `src/<component>.rs` (a folder `src/<component>/` once
//!    it has several experiments, one file each) and one `pub mod <component>;` line here; a
//!    new experiment of an existing component is a new function in its module.
//! 2. Define `XxxConfig` (`#[derive(Clone, Debug, Serialize, Deserialize)]`, with a `Default`
//!    that is a sensible, documented size) and `XxxResult` (`#[derive(Clone, Debug, Serialize)]`,
//!    field names = the JSON keys).
//! 3. Write `pub fn xxx(cfg: &XxxConfig, progress: &dyn Progress) -> Result<XxxResult>`: check
//!    parameters first (return [`Error::Param`] with the flag name, e.g. `"--batch must be at
//!    least 1"`), report steps with [`Progress::start`]/[`Progress::set`]/[`Progress::finish`]
//!    and remarks with [`Progress::note`]; never print.
//! 4. Doc comment on the function (what it measures, which paper/figure), and a test with a
//!    small config and a real assertion.
//! 5. In the CLI: flags → config, call, print. In the report: a section function (see the
//!    report's section registry).
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod aqm;
pub mod cache;
pub mod ccn;
pub mod ccn_live;
/// The parameter checks of every `validate()` (re-exported from the core library).
pub use pktlab::params as check;
pub mod forward;
pub mod live;
mod live_port;
pub mod lpm;
pub mod router;
pub mod traffic;
pub mod vhost_chain;
mod virtio_ports;
pub mod xcpu;

mod error;
mod progress;

pub use error::{Error, Result};
pub use progress::{Event, Progress, Silent, Stoppable};

/// Median of a non-empty slice (the upper median for even lengths); sorts the slice.
pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
