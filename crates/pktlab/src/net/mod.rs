//! Network-layer value types shared by every component: address families, prefixes, next hops.
//!
//! Like smoltcp's `wire` layer, these are small `Copy` types with no I/O and no allocation.

mod addr;
mod prefix;

pub use addr::{Address, Family};
pub use prefix::{Ipv4Prefix, Ipv6Prefix, NextHop, Prefix, PrefixError};
