//! Network-layer value types shared by every component: address families, prefixes, next hops,
//! flow keys.
//!
//! Like smoltcp's `wire` layer, these are small `Copy` types with no I/O and no allocation.

mod addr;
mod flow;
mod prefix;

pub use addr::{Address, Family};
pub use flow::{FlowKey, FLOW_KEY_BYTES};
pub use prefix::{Ipv4Prefix, Ipv6Prefix, NextHop, Prefix, PrefixError};
