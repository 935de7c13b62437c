//! IP prefixes (`address/length`) and next-hop identifiers.
//!
//! A [`Prefix`] is always canonical: the host bits (those past `len`) are zero. Parsing text
//! with host bits set, or with a length past the family's width, is an error rather than a
//! silent mask, because a routing table that contains such lines is almost always corrupt.
//! Use [`Prefix::new_masked`] where masking is what you want.

use super::addr::Address;
use crate::util::quote;
use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

/// A forwarding next-hop identifier. Never zero, so `Option<NextHop>` is 4 bytes and "no
/// route" costs nothing to represent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct NextHop(pub NonZeroU32);

impl NextHop {
    /// The largest next-hop id any pktlab LPM structure accepts (31 bits: the direct-pointing
    /// arrays keep one flag bit).
    pub const MAX: u32 = (1 << 31) - 1;

    /// Makes a next hop from a non-zero id no larger than [`NextHop::MAX`].
    #[inline]
    pub fn new(id: u32) -> Option<NextHop> {
        if id > Self::MAX {
            return None;
        }
        NonZeroU32::new(id).map(NextHop)
    }

    /// The numeric id.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.0.get()
    }

    /// Converts a raw id where 0 means "no route".
    #[inline(always)]
    pub fn from_raw(id: u32) -> Option<NextHop> {
        NonZeroU32::new(id).map(NextHop)
    }

    /// The raw id of an optional next hop, 0 for `None`.
    #[inline(always)]
    pub fn raw(nh: Option<NextHop>) -> u32 {
        nh.map_or(0, |n| n.get())
    }
}

impl fmt::Display for NextHop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A canonical IP prefix of family `A` (`u32` = IPv4, `u128` = IPv6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Prefix<A: Address> {
    addr: A,
    len: u8,
}

/// An IPv4 prefix.
pub type Ipv4Prefix = Prefix<u32>;
/// An IPv6 prefix.
pub type Ipv6Prefix = Prefix<u128>;

/// Why a prefix could not be made or parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrefixError {
    /// The text has no `/`.
    #[error("missing '/len' in prefix {}", quote(.0))]
    MissingLength(String),
    /// The address part does not parse for this family.
    #[error("bad address in prefix {}", quote(.0))]
    BadAddress(String),
    /// The length is not a number.
    #[error("bad length in prefix {}", quote(.0))]
    BadLength(String),
    /// The length exceeds the address width.
    #[error("prefix length {len} exceeds {max} in {}", quote(.text))]
    TooLong {
        /// The offending text.
        text: String,
        /// The parsed length.
        len: u32,
        /// The family's width.
        max: u32,
    },
    /// Bits past the length are set.
    #[error("host bits set in prefix {} (not canonical)", quote(.0))]
    HostBits(String),
}

impl<A: Address> Prefix<A> {
    /// Makes a prefix; fails if `len > A::BITS` or host bits are set.
    pub fn new(addr: A, len: u8) -> Result<Self, PrefixError> {
        let l = len as u32;
        if l > A::BITS {
            return Err(PrefixError::TooLong {
                text: format!("{}/{}", addr.to_std(), len),
                len: l,
                max: A::BITS,
            });
        }
        if addr.and(A::mask(l)) != addr {
            return Err(PrefixError::HostBits(format!("{}/{}", addr.to_std(), len)));
        }
        Ok(Prefix { addr, len })
    }

    /// Makes a prefix, clearing host bits; `len` is clamped to the address width.
    pub fn new_masked(addr: A, len: u8) -> Self {
        let l = (len as u32).min(A::BITS);
        Prefix {
            addr: addr.and(A::mask(l)),
            len: l as u8,
        }
    }

    /// The network address (host bits zero).
    #[inline(always)]
    pub fn addr(&self) -> A {
        self.addr
    }

    /// The prefix length in bits.
    #[inline(always)]
    pub fn len(&self) -> u8 {
        self.len
    }

    /// True for the default route (length 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first address covered by the prefix.
    pub fn first(&self) -> A {
        self.addr
    }

    /// The last address covered by the prefix.
    pub fn last(&self) -> A {
        self.addr.or(A::mask(self.len as u32).not())
    }

    /// True if `a` lies within this prefix.
    #[inline]
    pub fn contains(&self, a: A) -> bool {
        a.and(A::mask(self.len as u32)) == self.addr
    }

    /// True if `other` is equal to or more specific than `self` and lies within it.
    pub fn covers(&self, other: &Prefix<A>) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }
}

impl<A: Address> fmt::Display for Prefix<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr.to_std(), self.len)
    }
}

impl<A: Address> FromStr for Prefix<A> {
    type Err = PrefixError;

    /// Parses `address/len`; a bare address is rejected (write `/32` or `/128`).
    fn from_str(s: &str) -> Result<Self, PrefixError> {
        let s = s.trim();
        let (a, l) = s
            .split_once('/')
            .ok_or_else(|| PrefixError::MissingLength(s.to_string()))?;
        let addr: A::Std = a
            .parse()
            .map_err(|_| PrefixError::BadAddress(s.to_string()))?;
        let len: u32 = l
            .parse()
            .map_err(|_| PrefixError::BadLength(s.to_string()))?;
        if len > A::BITS {
            return Err(PrefixError::TooLong {
                text: s.to_string(),
                len,
                max: A::BITS,
            });
        }
        let addr = A::from_std(addr);
        if addr.and(A::mask(len)) != addr {
            return Err(PrefixError::HostBits(s.to_string()));
        }
        Ok(Prefix {
            addr,
            len: len as u8,
        })
    }
}

/// `ipnet` prefixes at the edge of the API: a route table can be built from `Ipv4Net` /
/// `Ipv6Net` values (host bits are cleared, as `ipnet`'s `trunc` does).
impl From<ipnet::Ipv4Net> for Prefix<u32> {
    fn from(n: ipnet::Ipv4Net) -> Self {
        Prefix::new_masked(u32::from(n.addr()), n.prefix_len())
    }
}

impl From<ipnet::Ipv6Net> for Prefix<u128> {
    fn from(n: ipnet::Ipv6Net) -> Self {
        Prefix::new_masked(u128::from(n.addr()), n.prefix_len())
    }
}

impl From<Prefix<u32>> for ipnet::Ipv4Net {
    fn from(p: Prefix<u32>) -> Self {
        ipnet::Ipv4Net::new(p.addr().into(), p.len()).expect("a prefix length is at most 32")
    }
}

impl From<Prefix<u128>> for ipnet::Ipv6Net {
    fn from(p: Prefix<u128>) -> Self {
        ipnet::Ipv6Net::new(p.addr().into(), p.len()).expect("a prefix length is at most 128")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ipnet_prefixes_convert_both_ways() {
        use super::{Ipv4Prefix, Ipv6Prefix};
        let n: ipnet::Ipv4Net = "10.1.2.3/16".parse().unwrap();
        let p = Ipv4Prefix::from(n);
        assert_eq!(p.to_string(), "10.1.0.0/16");
        assert_eq!(ipnet::Ipv4Net::from(p), n.trunc());
        let n6: ipnet::Ipv6Net = "2001:db8::1/32".parse().unwrap();
        let p6 = Ipv6Prefix::from(n6);
        assert_eq!(p6.to_string(), "2001:db8::/32");
        assert_eq!(ipnet::Ipv6Net::from(p6), n6.trunc());
    }

    use super::*;

    #[test]
    fn parse_display_roundtrip() {
        let p: Ipv4Prefix = "10.0.0.0/8".parse().unwrap();
        assert_eq!(p.to_string(), "10.0.0.0/8");
        assert_eq!(p.len(), 8);
        assert_eq!(p.last(), 0x0AFF_FFFF);
        let q: Ipv6Prefix = "2001:db8::/32".parse().unwrap();
        assert_eq!(q.to_string(), "2001:db8::/32");
        let d: Ipv4Prefix = "0.0.0.0/0".parse().unwrap();
        assert_eq!(d.last(), u32::MAX);
        assert!(d.contains(12345));
    }

    #[test]
    fn rejects_bad_prefixes() {
        assert!(matches!(
            "10.0.0.1/8".parse::<Ipv4Prefix>(),
            Err(PrefixError::HostBits(_))
        ));
        assert!(matches!(
            "10.0.0.0/33".parse::<Ipv4Prefix>(),
            Err(PrefixError::TooLong { len: 33, .. })
        ));
        assert!(matches!(
            "::/129".parse::<Ipv6Prefix>(),
            Err(PrefixError::TooLong { .. })
        ));
        assert!(matches!(
            "10.0.0.0".parse::<Ipv4Prefix>(),
            Err(PrefixError::MissingLength(_))
        ));
        assert!(matches!(
            "10.0.0.x/8".parse::<Ipv4Prefix>(),
            Err(PrefixError::BadAddress(_))
        ));
        assert!(matches!(
            "10.0.0.0/x".parse::<Ipv4Prefix>(),
            Err(PrefixError::BadLength(_))
        ));
        assert!(Prefix::<u32>::new(1, 31).is_err());
        assert_eq!(
            Prefix::<u32>::new_masked(0x0A01_0203, 8).addr(),
            0x0A00_0000
        );
    }

    #[test]
    fn next_hop_bounds() {
        assert!(NextHop::new(0).is_none());
        assert!(NextHop::new(NextHop::MAX + 1).is_none());
        assert_eq!(NextHop::new(7).unwrap().get(), 7);
        assert_eq!(std::mem::size_of::<Option<NextHop>>(), 4);
    }
}
