//! lpm
