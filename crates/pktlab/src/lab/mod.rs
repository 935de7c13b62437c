//! Experiments as library functions: a config struct in, a serde-serialisable result out,
//! progress through a callback — what the CLI, the HTML report and Python call.

pub mod ccn_live;
