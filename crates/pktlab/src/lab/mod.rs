//! Experiments as library functions: a config struct in, a serde-serialisable result out,
//! progress through a callback. The CLI, the report and Python call these.

pub mod forward;
