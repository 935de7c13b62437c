//! The data plane's L2/L3 parse and rewrite, in place on the buffer (zero-copy): find the IP
//! header behind the link layer the input uses (the same link types as
//! [`crate::io::packets`], whose `flow_key` is the oracle of the tests), validate it, and
//! decide the drop reasons of the pipeline:
//! * not IP (ARP, LLDP, …) or an unknown link type → [`Verdict::NonIp`];
//! * an IP header that is cut, has a wrong version, IHL < 5, or a length that does not fit
//!   the captured bytes → [`Verdict::Malformed`];
//! * an IPv4 header checksum that does not verify (RFC 1071) → [`Verdict::Checksum`];
//! * TTL / hop limit ≤ 1 (the packet may not be forwarded, RFC 1812 §5.3.1) →
//!   [`Verdict::Ttl`].
//!
//! Forwarding then decrements the TTL with the incremental checksum update of RFC 1624
//! (eqn. 3: `HC' = ~(~HC + ~m + m')`), or the IPv6 hop limit, and — on Ethernet — writes
//! the next hop's MAC address as destination.

use crate::io::pcap_write::LINKTYPE_ETHERNET;

/// How to find the IP header (from the pcap link type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// Ethernet II with 802.1Q/802.1ad tags and PPPoE sessions.
    Ethernet,
    /// Bare IPv4/IPv6 (LINKTYPE_RAW, IPV4, IPV6).
    Raw,
    /// Linux cooked capture v1.
    Sll,
    /// Linux cooked capture v2.
    Sll2,
    /// BSD loopback (4-byte address family).
    Null,
    /// PPP (optional HDLC address/control bytes).
    Ppp,
    /// Anything else: every packet is "not IP".
    Other,
}

impl LinkKind {
    /// The kind of pcap link type `lt`.
    pub fn of(lt: u32) -> LinkKind {
        match lt {
            LINKTYPE_ETHERNET => LinkKind::Ethernet,
            101 | 228 | 229 | 12 | 14 => LinkKind::Raw,
            113 => LinkKind::Sll,
            276 => LinkKind::Sll2,
            0 | 108 => LinkKind::Null,
            9 => LinkKind::Ppp,
            _ => LinkKind::Other,
        }
    }
}

/// Why a packet is dropped by the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not an IP packet.
    NonIp,
    /// Cut or inconsistent IP header.
    Malformed,
    /// IPv4 header checksum does not verify.
    Checksum,
    /// TTL / hop limit ≤ 1.
    Ttl,
}

/// What the pipeline needs of a valid packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hdr {
    /// Offset of the IP header in the frame.
    pub l3: u16,
    /// IPv6?
    pub v6: bool,
    /// Destination address (IPv4 in the low 32 bits).
    pub dst: u128,
    /// (source, destination) pair folded into 64 bits (paper 002's flow id for SRED/ZL-RED;
    /// IPv4: exactly `src << 32 | dst`).
    pub src_dst: u64,
    /// The frame's length in bytes (saturating at `u32::MAX`), so that the stages after parse
    /// read it with the rest of the header.
    pub len: u32,
}

#[inline(always)]
fn be16(d: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([d[at], d[at + 1]])
}

/// VLAN tags read before the EtherType, as the capture reader does (etherparse keeps at most
/// three link extensions): a frame with more is not IP for both, so that the data plane and
/// `io::packets` classify every frame alike (found by the `parse` fuzz target).
const MAX_VLAN_TAGS: usize = 3;

/// The offset of the IP header and its version (4 or 6) behind the link layer, or `None`
/// for a non-IP frame.
#[inline(always)]
fn l3_offset(link: LinkKind, d: &[u8]) -> Option<(usize, u8)> {
    let by_type = |et: u16, off: usize| match et {
        0x0800 => Some((off, 4)),
        0x86DD => Some((off, 6)),
        _ => None,
    };
    let by_ppp = |d: &[u8], off: usize| match d.get(off..off + 2)? {
        [0x00, 0x21] => Some((off + 2, 4)),
        [0x00, 0x57] => Some((off + 2, 6)),
        _ => None,
    };
    let by_version = |d: &[u8], off: usize| match d.get(off)? >> 4 {
        4 => Some((off, 4)),
        6 => Some((off, 6)),
        _ => None,
    };
    match link {
        LinkKind::Ethernet => {
            let mut off = 12;
            let mut et = be16(d.get(..off + 2)?, off);
            if et == 0x0800 {
                return Some((14, 4)); // untagged IPv4, the common case
            }
            let mut tags = 0;
            while matches!(et, 0x8100 | 0x88A8 | 0x9100) {
                if tags == MAX_VLAN_TAGS {
                    return None;
                }
                tags += 1;
                off += 4;
                et = be16(d.get(..off + 2)?, off);
            }
            if et == 0x8864 {
                // PPPoE session: 6-byte header, then the PPP protocol.
                return by_ppp(d, off + 2 + 6);
            }
            by_type(et, off + 2)
        }
        LinkKind::Raw => by_version(d, 0),
        LinkKind::Sll => by_type(be16(d.get(..16)?, 14), 16),
        LinkKind::Sll2 => by_type(be16(d.get(..2)?, 0), 20),
        LinkKind::Null => by_version(d, 4),
        LinkKind::Ppp => {
            let off = if d.starts_with(&[0xff, 0x03]) { 2 } else { 0 };
            by_ppp(d, off)
        }
        LinkKind::Other => None,
    }
}

/// One's-complement sum of the 16-bit words of `b` (even length), folded to 16 bits.
#[inline(always)]
fn csum_fold(b: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for w in b.chunks_exact(2) {
        s += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s as u16
}

/// Whether a 20-byte IPv4 header's checksum verifies (its one's-complement sum is 0xffff),
/// summed as five 32-bit native-endian words: the one's-complement sum does not depend on the
/// word size or the byte order it is taken in (RFC 1071 §2 (A)–(C)), and the target 0xffff
/// reads the same in either order. Folding the carries (end-around) keeps the sum's residue
/// modulo 0xffff and gives a value in 1..=0xffff for any non-zero sum, so the folded sum is
/// 0xffff exactly when the plain sum is a non-zero multiple of 0xffff: one remainder by a
/// constant instead of four folds.
#[inline(always)]
fn csum20_ok(h: &[u8; 20]) -> bool {
    let w = |i: usize| u32::from_ne_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]) as u64;
    let s = w(0) + w(4) + w(8) + w(12) + w(16);
    s.is_multiple_of(0xffff) && s != 0
}

/// The common case, untagged IPv4 with a 20-byte header over Ethernet, read from one
/// fixed-size array (no per-field bounds checks), its header written to `out` (untouched
/// unless valid); `None` for any other frame, which the general path then classifies. Same
/// verdicts as the general path for every frame it takes.
#[inline(always)]
fn parse_eth_v4(d: &[u8], out: &mut Hdr) -> Option<Result<(), Verdict>> {
    let f: &[u8; 34] = d.get(..34)?.try_into().ok()?;
    // EtherType 0x0800, version 4 and IHL 5 in one compare.
    if u32::from_be_bytes([f[12], f[13], f[14], f[15]]) >> 8 != 0x08_00_45 {
        return None;
    }
    let ip: &[u8; 20] = f[14..34].try_into().ok()?;
    let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
    if total < 20 || total > d.len() - 14 {
        return Some(Err(Verdict::Malformed));
    }
    if !csum20_ok(ip) {
        return Some(Err(Verdict::Checksum));
    }
    if ip[8] <= 1 {
        return Some(Err(Verdict::Ttl));
    }
    let src = u32::from_be_bytes([ip[12], ip[13], ip[14], ip[15]]);
    let dst = u32::from_be_bytes([ip[16], ip[17], ip[18], ip[19]]);
    // Field by field: a struct literal compiles to a byte-misaligned store sequence.
    out.l3 = 14;
    out.v6 = false;
    out.dst = dst as u128;
    out.src_dst = (src as u64) << 32 | dst as u64;
    out.len = frame_len(d);
    Some(Ok(()))
}

/// A frame's length for [`Hdr::len`] (saturating: no frame is near 4 GiB).
#[inline(always)]
fn frame_len(d: &[u8]) -> u32 {
    u32::try_from(d.len()).unwrap_or(u32::MAX)
}

/// Parses and validates the frame `d` of link kind `link`.
#[inline]
pub fn parse(link: LinkKind, d: &[u8]) -> Result<Hdr, Verdict> {
    let mut h = Hdr::default();
    parse_into(link, d, &mut h)?;
    Ok(h)
}

/// [`parse`] into `out`: written when the frame is valid, untouched otherwise. The data
/// plane's form: each path stores its header straight into the batch's slot (no header value
/// carried out of the two paths and copied).
#[inline(always)]
pub fn parse_into(link: LinkKind, d: &[u8], out: &mut Hdr) -> Result<(), Verdict> {
    if link == LinkKind::Ethernet {
        if let Some(r) = parse_eth_v4(d, out) {
            return r;
        }
    }
    *out = parse_general(link, d)?;
    Ok(())
}

/// Every link kind, tag stack and header length ([`parse`]'s path for all but the common
/// untagged 20-byte IPv4 header over Ethernet).
#[inline]
fn parse_general(link: LinkKind, d: &[u8]) -> Result<Hdr, Verdict> {
    let (l3, ver) = l3_offset(link, d).ok_or(Verdict::NonIp)?;
    let ip = d.get(l3..).ok_or(Verdict::Malformed)?;
    if ver == 4 {
        if ip.len() < 20 || ip[0] >> 4 != 4 {
            return Err(Verdict::Malformed);
        }
        let ihl = (ip[0] & 0x0f) as usize * 4;
        let total = be16(ip, 2) as usize;
        if ihl < 20 || ihl > ip.len() || total < ihl || total > ip.len() {
            return Err(Verdict::Malformed);
        }
        let ok = match <&[u8; 20]>::try_from(&ip[..ihl]) {
            Ok(h) => csum20_ok(h), // the common 20-byte header: five 32-bit words
            Err(_) => csum_fold(&ip[..ihl]) == 0xffff,
        };
        if !ok {
            return Err(Verdict::Checksum);
        }
        if ip[8] <= 1 {
            return Err(Verdict::Ttl);
        }
        let src = u32::from_be_bytes([ip[12], ip[13], ip[14], ip[15]]);
        let dst = u32::from_be_bytes([ip[16], ip[17], ip[18], ip[19]]);
        Ok(Hdr {
            l3: l3 as u16,
            v6: false,
            dst: dst as u128,
            src_dst: (src as u64) << 32 | dst as u64,
            len: frame_len(d),
        })
    } else {
        if ip.len() < 40 || ip[0] >> 4 != 6 {
            return Err(Verdict::Malformed);
        }
        if 40 + be16(ip, 4) as usize > ip.len() {
            return Err(Verdict::Malformed);
        }
        if ip[7] <= 1 {
            return Err(Verdict::Ttl);
        }
        let word = |at: usize| u128::from_be_bytes(ip[at..at + 16].try_into().expect("16"));
        let (src, dst) = (word(8), word(24));
        let fold = |a: u128| (a >> 64) as u64 ^ a as u64;
        Ok(Hdr {
            l3: l3 as u16,
            v6: true,
            dst,
            src_dst: fold(src).rotate_left(32) ^ fold(dst),
            len: frame_len(d),
        })
    }
}

/// Decrements the TTL (IPv4, with the RFC 1624 incremental checksum update) or the hop
/// limit (IPv6) of a packet `parse` accepted, and on Ethernet writes `02:00:<next hop>` as
/// destination MAC (source `02:00:00:00:00:00`, the router's port): the file-table data
/// plane, whose next hops are numbers. The router ([`super::fib`]) calls [`ttl_rewrite`] and
/// writes its neighbours' MACs instead.
#[inline(always)]
pub fn forward_rewrite(link: LinkKind, d: &mut [u8], h: &Hdr, nh: u32) {
    ttl_rewrite(d, h);
    if link == LinkKind::Ethernet {
        let mut mac = [0x02, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0];
        mac[2..6].copy_from_slice(&nh.to_be_bytes());
        d[..12].copy_from_slice(&mac);
    }
}

/// Decrements the TTL (IPv4, RFC 1624 eqn. 3 checksum update) or the hop limit (IPv6) of a
/// packet `parse` accepted.
#[inline(always)]
pub fn ttl_rewrite(d: &mut [u8], h: &Hdr) {
    let l3 = h.l3 as usize;
    if h.v6 {
        d[l3 + 7] -= 1;
    } else {
        // One bounds check for the header's first 12 bytes (parse saw ≥ 20).
        let ip: &mut [u8; 12] = (&mut d[l3..l3 + 12]).try_into().expect("12 bytes");
        ip[8] -= 1;
        [ip[10], ip[11]] = ttl_checksum([ip[10], ip[11]]);
    }
}

/// The IPv4 header checksum field (its two bytes as stored) after the TTL (≥ 2) drops by
/// one, from the field before: RFC 1624 eqn. 3, `HC' = ~(~HC + ~m + m')`, with `m` the
/// 16-bit word (TTL, protocol) and `m' = m − 0x0100`. Whatever the protocol byte, `~m + m'`
/// is 0xfeff as a plain sum (`m ≥ 0x0200`, so no borrow), so eqn. 3 is HC plus 0x0100 in one's
/// complement. A one's-complement sum does not depend on the byte order it is taken in
/// (RFC 1071 §2 (B)), so the field is read in the order that needs no byte swap on x86
/// (little-endian: the TTL's byte becomes the low one, so + 0x0100 becomes + 1); the
/// end-around carry is `c ≥ 0xffff`, as Linux's `ip_decrease_ttl` writes it. Equal to eqn. 3
/// for every field value (test `ttl_checksum_is_eqn_3`, exhaustive).
#[inline(always)]
fn ttl_checksum(field: [u8; 2]) -> [u8; 2] {
    let c = u16::from_le_bytes(field) as u32 + 1;
    ((c + (c >= 0xffff) as u32) as u16).to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::packets::flow_key;
    use crate::io::pcap_write::{build_frame, Ips, L4};
    use pcap_parser::Linktype;
    use proptest::prelude::*;

    fn frame(ips: Ips, ttl: u8) -> Vec<u8> {
        let mut f = Vec::new();
        build_frame(&mut f, ips, L4::Udp { sport: 5, dport: 6 }, b"hello").unwrap();
        let l3 = 14;
        match ips {
            Ips::V4(..) => {
                f[l3 + 8] = ttl;
                f[l3 + 10] = 0;
                f[l3 + 11] = 0;
                let c = !csum_fold(&f[l3..l3 + 20]);
                f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
            }
            Ips::V6(..) => f[l3 + 7] = ttl,
        }
        f
    }

    proptest! {
        #[test]
        fn csum20_agrees_with_the_16_bit_fold(h in proptest::array::uniform20(any::<u8>()), fix in any::<bool>()) {
            let mut h = h;
            if fix {
                // Make it verify: the checksum field set to the complement of the rest's sum.
                h[10] = 0;
                h[11] = 0;
                let c = !csum_fold(&h);
                h[10..12].copy_from_slice(&c.to_be_bytes());
            }
            prop_assert_eq!(csum20_ok(&h), csum_fold(&h) == 0xffff);
            if fix {
                prop_assert!(csum20_ok(&h));
            }
        }
    }

    /// The remainder test at the edges: a zero sum (folds to 0), sums that are multiples of
    /// 0xffff (all ones; a single 0xffff word) and their neighbours.
    #[test]
    fn csum20_edges() {
        let mut h = [0u8; 20];
        assert!(!csum20_ok(&h));
        assert_eq!(csum_fold(&h), 0);
        h[3] = 1;
        assert_eq!(csum20_ok(&h), csum_fold(&h) == 0xffff);
        for (a, b) in [(0xffu8, 0xffu8), (0xff, 0xfe), (0xfe, 0xff), (0x80, 0x00)] {
            for at in [0, 2, 10, 18] {
                let mut h = [0u8; 20];
                h[at] = a;
                h[at + 1] = b;
                assert_eq!(csum20_ok(&h), csum_fold(&h) == 0xffff, "{a:x}{b:x} at {at}");
            }
            let h = [a; 20];
            assert_eq!(csum20_ok(&h), csum_fold(&h) == 0xffff, "all {a:x}");
        }
        assert!(csum20_ok(&[0xff; 20]));
        let mut h = [0u8; 20];
        h[6] = 0xff;
        h[7] = 0xff;
        assert!(csum20_ok(&h));
    }

    proptest! {
        /// The untagged-IPv4 fast path gives the general path's verdict on frames near the
        /// common case (any header bytes, any length, checksum made valid or not).
        #[test]
        fn fast_path_agrees_with_the_general_path(
            hdr in proptest::array::uniform20(any::<u8>()), cut in 0usize..60, fix in any::<bool>(),
            v45 in any::<bool>(), ttl in 0u8..4, total_ok in any::<bool>(),
        ) {
            let mut f = frame(Ips::V4(0x0a000001, 0xc0a80101), 64);
            f[14..34].copy_from_slice(&hdr);
            if v45 {
                f[14] = 0x45;
            }
            if total_ok {
                let t = (f.len() - 14) as u16;
                f[16..18].copy_from_slice(&t.to_be_bytes());
            }
            f[14 + 8] = ttl;
            if fix {
                f[24..26].copy_from_slice(&[0, 0]);
                let c = !csum_fold(&f[14..34]);
                f[24..26].copy_from_slice(&c.to_be_bytes());
            }
            f.truncate(f.len().saturating_sub(cut));
            let fast = parse(LinkKind::Ethernet, &f);
            prop_assert_eq!(fast, parse_general(LinkKind::Ethernet, &f));
            if v45 && fix && total_ok && cut == 0 && ttl > 1 {
                prop_assert!(parse_eth_v4(&f, &mut Hdr::default()).is_some_and(|r| r.is_ok()));
            }
        }
    }

    proptest! {
        #[test]
        fn flow_key_src_dst_is_the_parsers_pair(a in any::<u128>(), b in any::<u128>(), v6 in any::<bool>()) {
            let ips = if v6 { Ips::V6(a, b) } else { Ips::V4(a as u32, b as u32) };
            let f = frame(ips, 64);
            let h = parse(LinkKind::Ethernet, &f).unwrap();
            let k = flow_key(Linktype::ETHERNET, &f).unwrap();
            prop_assert_eq!(k.src_dst(), h.src_dst);
        }
    }

    #[test]
    fn verdicts() {
        let v4 = frame(Ips::V4(0x0a000001, 0xc0a80101), 64);
        let h = parse(LinkKind::Ethernet, &v4).unwrap();
        assert_eq!((h.l3, h.v6, h.dst), (14, false, 0xc0a80101));
        assert_eq!(h.src_dst, 0x0a000001_c0a80101);
        assert_eq!(
            parse(LinkKind::Ethernet, &frame(Ips::V4(1, 2), 1)),
            Err(Verdict::Ttl)
        );
        let mut bad = v4.clone();
        bad[14 + 10] ^= 1;
        assert_eq!(parse(LinkKind::Ethernet, &bad), Err(Verdict::Checksum));
        assert_eq!(
            parse(LinkKind::Ethernet, &v4[..30]),
            Err(Verdict::Malformed)
        );
        let mut short = v4.clone();
        short.truncate(v4.len() - 1); // total length no longer fits
        assert_eq!(parse(LinkKind::Ethernet, &short), Err(Verdict::Malformed));
        let mut arp = v4.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(parse(LinkKind::Ethernet, &arp), Err(Verdict::NonIp));
        assert_eq!(parse(LinkKind::Ethernet, &[0; 5]), Err(Verdict::NonIp));
        assert_eq!(parse(LinkKind::Other, &v4), Err(Verdict::NonIp));
        let v6 = frame(Ips::V6(1, 0x2001_0db8 << 96 | 7), 2);
        let h = parse(LinkKind::Ethernet, &v6).unwrap();
        assert_eq!((h.v6, h.dst), (true, 0x2001_0db8 << 96 | 7));
        assert_eq!(parse(LinkKind::Raw, &v6[14..]).unwrap().l3, 0);
        assert_eq!(
            parse(LinkKind::Ethernet, &frame(Ips::V6(1, 2), 0)),
            Err(Verdict::Ttl)
        );
        // VLAN-tagged and SLL framing find the same header.
        let mut vlan = v4[..12].to_vec();
        vlan.extend_from_slice(&[0x81, 0, 0, 5]);
        vlan.extend_from_slice(&v4[12..]);
        assert_eq!(parse(LinkKind::Ethernet, &vlan).unwrap().l3, 18);
        let mut sll = vec![0u8; 14];
        sll.extend_from_slice(&v4[12..]);
        assert_eq!(parse(LinkKind::Sll, &sll).unwrap().dst, 0xc0a80101);
    }

    /// `parse_into` writes the header of a valid frame (fast and general path) and leaves the
    /// slot alone otherwise.
    #[test]
    fn parse_into_writes_only_valid_frames() {
        let old = Hdr {
            l3: 7,
            v6: true,
            dst: 9,
            src_dst: 9,
            len: 9,
        };
        let mut h = old;
        for bad in [frame(Ips::V4(1, 2), 1), frame(Ips::V6(1, 2), 0), vec![0; 5]] {
            assert!(parse_into(LinkKind::Ethernet, &bad, &mut h).is_err());
            assert_eq!(h, old);
        }
        for ok in [
            frame(Ips::V4(0x0a000001, 0xc0a80101), 64),
            frame(Ips::V6(1, 2), 9),
        ] {
            let mut h = old;
            assert_eq!(parse_into(LinkKind::Ethernet, &ok, &mut h), Ok(()));
            assert_eq!(Ok(h), parse(LinkKind::Ethernet, &ok));
            assert_ne!(h, old);
        }
    }

    /// Regression (fuzz target `parse`): four stacked VLAN tags before PPPoE were parsed as
    /// IP by the data plane but not by the capture reader; up to three tags both read the
    /// packet, beyond that both call it not IP.
    #[test]
    fn vlan_stacks_agree_with_the_capture_reader() {
        let v4 = frame(Ips::V4(0x0a000001, 0xc0a80101), 64);
        for tags in 0..=5usize {
            let mut f = v4[..12].to_vec();
            for _ in 0..tags {
                f.extend_from_slice(&[0x81, 0x00, 0x00, 0x02]);
            }
            f.extend_from_slice(&v4[12..]);
            let ours = parse(LinkKind::Ethernet, &f);
            let oracle = flow_key(Linktype::ETHERNET, &f);
            if tags <= MAX_VLAN_TAGS {
                assert_eq!(ours.map(|h| h.dst), Ok(0xc0a80101), "{tags} tags");
                assert!(oracle.is_some(), "{tags} tags");
            } else {
                assert_eq!(ours, Err(Verdict::NonIp), "{tags} tags");
                assert_eq!(oracle, None, "{tags} tags");
            }
        }
        // The fuzzer's input: four tags, then a PPPoE session carrying IPv4.
        let crash = b"\x2f\xc2\x05\x24\x00\x00\x00\x01\x02\x00\x00\xfa\x81\x00\x02\xf5\x81\x00\x00\xfa\x81\x00\x02\xf5\x81\x00\x00\x01\x88\x64\x11\x00\x3d\x6d\x00\x26\x00\x21\x45\x00\x00\x24\x44\x64\x00\x00\x7f\x11\x2f\xc2\x05\x24\x8d\xe4\x42\x16\xf2\x84\xd6\x97\xc3\x51\x00\x10\x17\x0a\x13\x37\xca\xfe\x00\x00\x00\x00";
        assert_eq!(flow_key(Linktype::ETHERNET, crash), None);
        assert_eq!(parse(LinkKind::Ethernet, crash), Err(Verdict::NonIp));
    }

    /// The constant form of eqn. 3 is eqn. 3 with the (TTL, protocol) words, bit for bit, for
    /// every checksum, every forwardable TTL and every protocol.
    #[test]
    fn ttl_checksum_is_eqn_3() {
        for ttl in 2..=255u8 {
            for proto in [0u8, 1, 6, 17, 41, 58, 0x80, 0xff] {
                let m = u16::from_be_bytes([ttl, proto]);
                let m2 = u16::from_be_bytes([ttl - 1, proto]);
                // Every checksum value for a few TTLs, every 7th for the others.
                let step = if [2, 3, 64, 128, 255].contains(&ttl) {
                    1
                } else {
                    7
                };
                for hc in (0..=u16::MAX)
                    .step_by(step)
                    .chain([0, 1, 0xfeff, 0xff00, u16::MAX])
                {
                    let mut s = (!hc) as u32 + (!m) as u32 + m2 as u32;
                    s = (s & 0xffff) + (s >> 16);
                    s = (s & 0xffff) + (s >> 16);
                    assert_eq!(
                        ttl_checksum(hc.to_be_bytes()),
                        (!(s as u16)).to_be_bytes(),
                        "ttl {ttl} proto {proto} hc {hc}"
                    );
                }
            }
        }
    }

    proptest! {
        /// The incremental update leaves a header whose checksum verifies, for any header.
        #[test]
        fn rfc1624_update_keeps_checksum_valid(
            words in proptest::array::uniform10(any::<u16>()), ttl in 2u8..=255, nh in any::<u32>()
        ) {
            let mut f = vec![0u8; 14];
            f[12..14].copy_from_slice(&[0x08, 0x00]);
            for w in words {
                f.extend_from_slice(&w.to_be_bytes());
            }
            f[14] = 0x45;
            f[16..18].copy_from_slice(&20u16.to_be_bytes());
            f[14 + 8] = ttl;
            f[24..26].copy_from_slice(&[0, 0]);
            let c = !csum_fold(&f[14..34]);
            f[24..26].copy_from_slice(&c.to_be_bytes());
            let h = parse(LinkKind::Ethernet, &f).unwrap();
            forward_rewrite(LinkKind::Ethernet, &mut f, &h, nh);
            prop_assert_eq!(f[14 + 8], ttl - 1);
            prop_assert_eq!(csum_fold(&f[14..34]), 0xffff);
            prop_assert_eq!(&f[2..6], &nh.to_be_bytes()[..]);
        }
    }

    /// Real captures: every packet the oracle parser reads as IP is found by `parse` at the
    /// same destination, unless it is malformed/TTL-expired by the stricter checks.
    #[test]
    fn agrees_with_flow_key_on_real_captures() {
        let dir = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/traces/ndpi-captures"
        ));
        if !dir.exists() {
            eprintln!("skipped: no shared data");
            return;
        }
        let mut checked = 0;
        for name in [
            "1kxun.pcap",
            "anydesk.pcapng",
            "6in4tunnel.pcap",
            "dns_long_domainname.pcap",
        ] {
            let Ok(mut rd) = crate::io::packets::PacketReader::open(&dir.join(name)) else {
                continue;
            };
            while let Some(()) = rd.next_frame(|_, lt, d| {
                let Some(lt) = lt else { return };
                let k = flow_key(lt, d);
                match parse(LinkKind::of(lt.0 as u32), d) {
                    Ok(h) => {
                        let k = k.expect("oracle reads it too");
                        let dst = if k.v6 {
                            u128::from_be_bytes(k.dst)
                        } else {
                            u32::from_be_bytes([k.dst[0], k.dst[1], k.dst[2], k.dst[3]]) as u128
                        };
                        assert_eq!((h.v6, h.dst), (k.v6, dst), "{name}");
                        checked += 1;
                    }
                    Err(Verdict::NonIp) => assert!(k.is_none() || lt == Linktype(0), "{name}"),
                    Err(_) => {}
                }
            }) {}
        }
        assert!(checked > 100, "{checked}");
    }
}
