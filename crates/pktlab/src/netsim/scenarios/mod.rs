//! Ready-made simulation scenarios.

pub mod dumbbell;
