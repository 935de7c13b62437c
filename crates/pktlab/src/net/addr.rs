//! Address families as plain unsigned integers.
//!
//! Longest-prefix match works on bit strings, so pktlab represents an IPv4 address as a `u32`
//! and an IPv6 address as a `u128`, both in host order with the first address bit as the most
//! significant bit. The [`Address`] trait gives generic code (prefixes, tries, readers) the few
//! bit operations it needs, so every LPM structure is written once for both families.

use std::fmt::Debug;
use std::hash::Hash;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

/// The address family of a table or a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// IPv4: 32-bit addresses.
    V4,
    /// IPv6: 128-bit addresses.
    V6,
}

impl Family {
    /// `"v4"` or `"v6"`, as used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::V4 => "v4",
            Family::V6 => "v6",
        }
    }
}

/// An IP address viewed as an unsigned integer of `BITS` bits (first address bit = MSB).
///
/// Sealed: only `u32` (IPv4) and `u128` (IPv6) implement it. The LPM structures index their
/// tables without bounds checks on the strength of these two implementations (e.g. that
/// `top(n) < 2^n`), so a foreign implementation could turn a lookup into an out-of-bounds
/// read; it does not compile:
///
/// ```compile_fail,E0277
/// use pktlab::net::{Address, Family};
/// use std::net::{IpAddr, Ipv4Addr};
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
/// struct Mine(u32);
/// impl Address for Mine {
///     const BITS: u32 = 32;
///     const FAMILY: Family = Family::V4;
///     const ZERO: Self = Mine(0);
///     type Std = Ipv4Addr;
///     fn from_std(a: Ipv4Addr) -> Self { Mine(a.into()) }
///     fn to_std(self) -> Ipv4Addr { self.0.into() }
///     fn bit(self, i: u32) -> usize { self.0.bit(i) }
///     fn bits(self, o: u32, l: u32) -> u32 { self.0.bits(o, l) }
///     fn mask(l: u32) -> Self { Mine(u32::mask(l)) }
///     fn shl(self, n: u32) -> Self { Mine(self.0 << n) }
///     fn top(self, _n: u32) -> u32 { u32::MAX } // a lie the tables would trust
///     fn and(self, o: Self) -> Self { Mine(self.0 & o.0) }
///     fn or(self, o: Self) -> Self { Mine(self.0 | o.0) }
///     fn not(self) -> Self { Mine(!self.0) }
///     fn wrapping_add(self, n: u64) -> Self { Mine(self.0.wrapping_add(n as u32)) }
///     fn wrapping_sub(self, n: u64) -> Self { Mine(self.0.wrapping_sub(n as u32)) }
///     fn fold64(self) -> u64 { self.0 as u64 }
///     fn from_random(hi: u64, lo: u64) -> Self { Mine(u32::from_random(hi, lo)) }
///     fn from_ip(ip: IpAddr) -> Option<Self> { u32::from_ip(ip).map(Mine) }
/// }
/// ```
pub trait Address:
    sealed::Sealed + Copy + Clone + Debug + Eq + Ord + Hash + Default + Send + Sync + 'static
{
    /// Number of bits in an address: 32 or 128.
    const BITS: u32;
    /// The family this type represents.
    const FAMILY: Family;
    /// The all-zero address.
    const ZERO: Self;
    /// The standard-library address type used for parsing and display.
    type Std: FromStr + std::fmt::Display;

    /// Converts from the standard-library type.
    fn from_std(a: Self::Std) -> Self;
    /// Converts to the standard-library type.
    fn to_std(self) -> Self::Std;
    /// Bit `i` counted from the most significant bit (`i < BITS`), as 0 or 1.
    fn bit(self, i: u32) -> usize;
    /// `len` bits (`len <= 32`) starting at bit `offset` from the MSB, right-aligned.
    /// Bits past the end of the address read as zero, so strides may overhang the address.
    fn bits(self, offset: u32, len: u32) -> u32;
    /// The mask with the `len` most significant bits set (`len <= BITS`).
    fn mask(len: u32) -> Self;
    /// Shift left by `n < BITS` bits (the key of a multibit-trie walk, advanced by a stride).
    fn shl(self, n: u32) -> Self;
    /// The `n` most significant bits (`1 <= n <= 32`), right-aligned: a direct-pointing index,
    /// or one stride of a shifted key.
    fn top(self, n: u32) -> u32;
    /// Bitwise and.
    fn and(self, other: Self) -> Self;
    /// Bitwise or.
    fn or(self, other: Self) -> Self;
    /// Bitwise not.
    fn not(self) -> Self;
    /// Wrapping addition of a small offset (used to step to neighbouring addresses).
    fn wrapping_add(self, n: u64) -> Self;
    /// Wrapping subtraction of a small offset.
    fn wrapping_sub(self, n: u64) -> Self;
    /// Folds the address into 64 bits: the address itself for IPv4, high XOR low half for IPv6.
    fn fold64(self) -> u64;
    /// Builds an address from 128 random bits (IPv4 uses the high 32 bits of `hi`).
    fn from_random(hi: u64, lo: u64) -> Self;
    /// The address if `ip` is of this family, else `None`.
    fn from_ip(ip: IpAddr) -> Option<Self>;
}

mod sealed {
    /// The supertrait that keeps [`super::Address`] to the two types of this module.
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u128 {}
}

/// The operations that read the same for both families, spelled once (inside each `impl`):
/// conversions, masks, shifts and the bitwise and wrapping arithmetic of the integer type.
/// The family-specific ones (`bit`, `bits`, `top`, `fold64`, `from_random`) stay in the two
/// impls because their shapes differ (the IPv6 ones avoid 128-bit work on hot paths).
macro_rules! common_address_ops {
    ($int:ty, $std:ty, $variant:ident) => {
        const BITS: u32 = <$int>::BITS;
        const ZERO: Self = 0;
        type Std = $std;

        #[inline]
        fn from_std(a: $std) -> Self {
            <$int>::from(a)
        }
        #[inline]
        fn to_std(self) -> $std {
            <$std>::from(self)
        }
        #[inline]
        fn mask(len: u32) -> Self {
            if len == 0 {
                0
            } else {
                <$int>::MAX << (<$int>::BITS - len)
            }
        }
        #[inline(always)]
        fn shl(self, n: u32) -> Self {
            self << n
        }
        #[inline]
        fn and(self, o: Self) -> Self {
            self & o
        }
        #[inline]
        fn or(self, o: Self) -> Self {
            self | o
        }
        #[inline]
        fn not(self) -> Self {
            !self
        }
        #[inline]
        fn wrapping_add(self, n: u64) -> Self {
            <$int>::wrapping_add(self, n as $int)
        }
        #[inline]
        fn wrapping_sub(self, n: u64) -> Self {
            <$int>::wrapping_sub(self, n as $int)
        }
        #[inline]
        fn from_ip(ip: IpAddr) -> Option<Self> {
            match ip {
                IpAddr::$variant(a) => Some(<$int>::from(a)),
                _ => None,
            }
        }
    };
}

impl Address for u32 {
    const FAMILY: Family = Family::V4;
    common_address_ops!(u32, Ipv4Addr, V4);

    #[inline(always)]
    fn bit(self, i: u32) -> usize {
        ((self >> (31 - i)) & 1) as usize
    }
    #[inline(always)]
    fn bits(self, offset: u32, len: u32) -> u32 {
        // Widen to 64 bits so that offsets past 32 - len read zeros.
        let wide = (self as u64) << 32;
        ((wide << offset) >> (64 - len)) as u32
    }
    #[inline(always)]
    fn top(self, n: u32) -> u32 {
        self >> (32 - n)
    }
    #[inline]
    fn fold64(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_random(hi: u64, _lo: u64) -> Self {
        (hi >> 32) as u32
    }
}

impl Address for u128 {
    const FAMILY: Family = Family::V6;
    common_address_ops!(u128, Ipv6Addr, V6);

    #[inline(always)]
    fn bit(self, i: u32) -> usize {
        ((self >> (127 - i)) & 1) as usize
    }
    #[inline(always)]
    fn bits(self, offset: u32, len: u32) -> u32 {
        if offset >= 128 {
            return 0;
        }
        let v = self << offset;
        ((v >> (128 - len)) & ((1u128 << len) - 1)) as u32
    }
    #[inline(always)]
    fn top(self, n: u32) -> u32 {
        // Only the high half is needed: one 64-bit shift.
        (((self >> 64) as u64) >> (64 - n)) as u32
    }
    #[inline]
    fn fold64(self) -> u64 {
        ((self >> 64) as u64) ^ (self as u64)
    }
    #[inline]
    fn from_random(hi: u64, lo: u64) -> Self {
        ((hi as u128) << 64) | lo as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_bits_extract_and_overhang() {
        let a: u32 = 0xC0A8_0101; // 192.168.1.1
        assert_eq!(a.bits(0, 8), 192);
        assert_eq!(a.bits(8, 8), 168);
        assert_eq!(a.bits(0, 18), 0xC0A8_0101 >> 14);
        // Stride of 6 starting at bit 30 overhangs: bits 30, 31 then zeros.
        assert_eq!(a.bits(30, 6), 0b01_0000);
        assert_eq!(a.bits(36, 6), 0);
        assert_eq!(a.bit(0), 1);
        assert_eq!(a.bit(31), 1);
        assert_eq!(a.bit(30), 0);
        assert_eq!(a.top(6), 0b110000);
        assert_eq!(a.top(18), 0xC0A8_0101 >> 14);
        assert_eq!(a.top(32), a);
        assert_eq!(a.shl(30).top(6), 0b010000);
        assert_eq!(a.shl(8).top(6), 168 >> 2);
    }

    #[test]
    fn v6_bits_extract_and_fold() {
        let a: u128 = u128::from("2001:db8::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!(a.bits(0, 16), 0x2001);
        assert_eq!(a.bits(16, 16), 0x0db8);
        assert_eq!(a.bits(126, 6), 0b01_0000);
        assert_eq!(a.bits(128, 6), 0);
        assert_eq!(a.fold64(), 0x2001_0db8_0000_0000 ^ 1);
        assert_eq!(a.top(6), 0x20 >> 2);
        assert_eq!(a.top(16), 0x2001);
        assert_eq!(a.top(32), 0x2001_0db8);
        assert_eq!(a.shl(126).top(6), 0b01_0000);
        assert_eq!(u128::mask(0), 0);
        assert_eq!(u128::mask(128), u128::MAX);
        assert_eq!(u32::mask(32), u32::MAX);
        assert_eq!(u32::mask(8), 0xff00_0000);
        assert_eq!(u128::mask(1), 1 << 127);
        assert_eq!(<u32 as Address>::wrapping_add(u32::MAX, 2), 1);
        assert_eq!(<u128 as Address>::wrapping_sub(0, 1), u128::MAX);
    }

    #[test]
    fn from_ip_checks_the_family() {
        let v4: IpAddr = "10.1.2.3".parse().unwrap();
        let v6: IpAddr = "2001:db8::1".parse().unwrap();
        assert_eq!(u32::from_ip(v4), Some(0x0a01_0203));
        assert_eq!(u32::from_ip(v6), None);
        assert_eq!(u128::from_ip(v6), Some(0x2001_0db8 << 96 | 1));
        assert_eq!(u128::from_ip(v4), None);
        // The bit-exact rule of `from_random` agrees with it.
        assert_eq!(u32::from_random(0x0a01_0203 << 32, 0), 0x0a01_0203);
    }
}
