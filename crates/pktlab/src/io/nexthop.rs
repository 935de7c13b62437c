//! Next-hop assignment schemes: how a route read from a file (or generated) gets its
//! [`NextHop`] id.
//!
//! * `file` — use what the input says: the second column of a text table, the ASN of a pyasn
//!   table, or the next-hop IP address of an MRT RIB entry (distinct addresses numbered
//!   1, 2, 3, … in order of first appearance);
//! * `asn:N` — `1 + origin_asn % N` (pyasn and MRT inputs only);
//! * `hash:N` — a fixed hash of the prefix into `1..=N`, see [`hash_nexthop`].
//!
//! The hash and ASN mappings are fully specified so that other implementations can reproduce
//! pktlab's tables exactly.

use crate::net::{Address, NextHop, Prefix};
use crate::util::splitmix64;
use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

/// How next-hop ids are assigned to routes. Text form: `file`, `asn:N` or `hash:N` with
/// `1 <= N <= NextHop::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextHopScheme {
    /// Take the next hop from the input (text: second column; pyasn: the ASN; MRT: distinct
    /// next-hop addresses numbered in order of first appearance). A line or entry without
    /// one is skipped and counted.
    File,
    /// `1 + origin_asn % N` (see [`asn_nexthop`]); needs an ASN (pyasn or MRT input).
    Asn(u32),
    /// `1 + splitmix64(x) % N` over the prefix (see [`hash_nexthop`]).
    Hash(u32),
}

/// Why a next-hop scheme string was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid next-hop scheme {text:?}: {reason} (expected file, asn:N or hash:N with 1 <= N <= 2147483647)")]
pub struct SchemeError {
    /// The rejected text.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FromStr for NextHopScheme {
    type Err = SchemeError;

    /// Parses `file`, `asn:N` or `hash:N` (`1 <= N <= NextHop::MAX`).
    fn from_str(s: &str) -> Result<Self, SchemeError> {
        let err = |reason| SchemeError {
            text: s.to_string(),
            reason,
        };
        if s == "file" {
            return Ok(NextHopScheme::File);
        }
        let (kind, n) = s.split_once(':').ok_or_else(|| err("unknown scheme"))?;
        let n: u32 = n.parse().map_err(|_| err("N is not a positive integer"))?;
        if n == 0 {
            return Err(err("N must be at least 1"));
        }
        if n > NextHop::MAX {
            return Err(err("N exceeds the largest next-hop id"));
        }
        match kind {
            "asn" => Ok(NextHopScheme::Asn(n)),
            "hash" => Ok(NextHopScheme::Hash(n)),
            _ => Err(err("unknown scheme")),
        }
    }
}

impl fmt::Display for NextHopScheme {
    /// Formats back to the text accepted by `FromStr` (`file`, `asn:N`, `hash:N`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NextHopScheme::File => f.write_str("file"),
            NextHopScheme::Asn(n) => write!(f, "asn:{n}"),
            NextHopScheme::Hash(n) => write!(f, "hash:{n}"),
        }
    }
}

/// Clamps a modulus into `1..=NextHop::MAX` so that `1 + r % n` is always a valid id.
#[inline]
fn clamp_n(n: u32) -> u32 {
    n.clamp(1, NextHop::MAX)
}

/// `1 + r`, for `r < NextHop::MAX`: always a valid, non-zero next hop.
#[inline]
fn one_plus(r: u32) -> NextHop {
    NextHop(NonZeroU32::MIN.saturating_add(r))
}

/// The `hash:N` next hop of a prefix: `1 + splitmix64(x) % N` where
/// `x = p.addr().fold64() ^ ((p.len() as u64) << 56)`.
///
/// `fold64` is the address itself for IPv4 and the XOR of the two 64-bit halves for IPv6;
/// [`splitmix64`] is the finaliser in [`crate::util`]. The result lies in `1..=N`; `N = 0`
/// is treated as 1 and `N` above [`NextHop::MAX`] as `NextHop::MAX`.
#[inline]
pub fn hash_nexthop<A: Address>(p: &Prefix<A>, n: u32) -> NextHop {
    let x = p.addr().fold64() ^ ((p.len() as u64) << 56);
    let r = splitmix64(x) % clamp_n(n) as u64;
    one_plus(r as u32)
}

/// The `asn:N` next hop of a route whose origin AS is `asn`: `1 + asn % N`, in `1..=N`
/// (`N` clamped into `1..=NextHop::MAX` as in [`hash_nexthop`]).
#[inline]
pub fn asn_nexthop(asn: u32, n: u32) -> NextHop {
    one_plus(asn % clamp_n(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ipv4Prefix, Ipv6Prefix};

    #[test]
    fn scheme_parse_and_display_roundtrip() {
        for s in ["file", "asn:1", "asn:64", "hash:16", "hash:2147483647"] {
            let k: NextHopScheme = s.parse().unwrap();
            assert_eq!(k.to_string(), s);
        }
        assert_eq!("hash:16".parse(), Ok(NextHopScheme::Hash(16)));
        assert_eq!("asn:3".parse(), Ok(NextHopScheme::Asn(3)));
        for bad in [
            "",
            "File",
            "hash",
            "hash:",
            "hash:0",
            "hash:-1",
            "hash:x",
            "asn:0",
            "hash:2147483648",
            "foo:3",
            "hash:16:2",
        ] {
            let e = bad.parse::<NextHopScheme>().unwrap_err();
            assert!(
                e.to_string().contains("expected file, asn:N or hash:N"),
                "{e}"
            );
        }
    }

    #[test]
    fn hash_nexthop_matches_formula() {
        // Values computed independently (Python) from the documented formula.
        // 10.0.0.0/8: x = 0x0A000000 ^ (8 << 56) = 0x080000000A000000,
        // splitmix64(x) = 0x88156F54583BF488.
        let p: Ipv4Prefix = "10.0.0.0/8".parse().unwrap();
        assert_eq!(hash_nexthop(&p, 16).get(), 9);
        assert_eq!(hash_nexthop(&p, 7).get(), 6);
        assert_eq!(
            hash_nexthop(&p, 16).get() as u64,
            1 + splitmix64(0x0800_0000_0A00_0000) % 16
        );
        // 0.0.0.0/0: x = 0, splitmix64(0) = 0xE220A8397B1DCDAF -> 1 + (..AF % 16) = 16.
        let d: Ipv4Prefix = "0.0.0.0/0".parse().unwrap();
        assert_eq!(hash_nexthop(&d, 16).get(), 16);
        // 192.168.1.0/24: x = 0x18000000C0A80100.
        let q: Ipv4Prefix = "192.168.1.0/24".parse().unwrap();
        assert_eq!(hash_nexthop(&q, 1000).get(), 501);
        // 2001:db8::/32: fold64 = 0x20010DB800000000, x = 0x00010DB800000000.
        let v6: Ipv6Prefix = "2001:db8::/32".parse().unwrap();
        assert_eq!(hash_nexthop(&v6, 16).get(), 3);
        // Degenerate moduli never panic and stay in range.
        assert_eq!(hash_nexthop(&p, 0).get(), 1);
        assert_eq!(hash_nexthop(&p, 1).get(), 1);
        assert!(hash_nexthop(&p, u32::MAX).get() <= NextHop::MAX);
    }

    #[test]
    fn asn_nexthop_formula() {
        assert_eq!(asn_nexthop(15169, 16).get(), 1 + 15169 % 16);
        assert_eq!(asn_nexthop(0, 16).get(), 1);
        assert_eq!(asn_nexthop(u32::MAX, 0).get(), 1);
        assert!(asn_nexthop(u32::MAX, u32::MAX).get() <= NextHop::MAX);
    }
}
