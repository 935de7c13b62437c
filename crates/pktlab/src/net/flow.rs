//! The flow identifier of paper 000 (Hit Priority Cache, §2 and §5.1 "Flow Extractor"): the
//! 5-tuple (source address, destination address, source port, destination port, protocol),
//! plus the two set-index hashes the paper and Li et al. use (CRC of the flow ID, XOR folding).

/// A unidirectional 5-tuple. IPv4 addresses occupy the first four bytes of `src`/`dst`
/// (the rest is zero) and `v6` is false.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct FlowKey {
    /// Source address (IPv4 in the first four bytes).
    pub src: [u8; 16],
    /// Destination address (IPv4 in the first four bytes).
    pub dst: [u8; 16],
    /// Source port (0 for protocols without ports and for non-first fragments).
    pub sport: u16,
    /// Destination port (0 for protocols without ports and for non-first fragments).
    pub dport: u16,
    /// IP protocol number (IPv6: the upper-layer header after the extension headers).
    pub proto: u8,
    /// True for IPv6.
    pub v6: bool,
}

/// Size of [`FlowKey::to_bytes`].
pub const FLOW_KEY_BYTES: usize = 38;

impl FlowKey {
    /// An IPv4 5-tuple.
    pub fn v4(src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16, proto: u8) -> Self {
        let mut k = FlowKey {
            sport,
            dport,
            proto,
            ..FlowKey::default()
        };
        k.src[..4].copy_from_slice(&src);
        k.dst[..4].copy_from_slice(&dst);
        k
    }

    /// An IPv6 5-tuple.
    pub fn v6(src: [u8; 16], dst: [u8; 16], sport: u16, dport: u16, proto: u8) -> Self {
        FlowKey {
            src,
            dst,
            sport,
            dport,
            proto,
            v6: true,
        }
    }

    /// The (source, destination) pair folded into 64 bits, as the data plane's parser
    /// computes it (`pipeline::parse::Hdr::src_dst`; paper 002's flow id for SRED/ZL-RED):
    /// IPv4 exactly `src << 32 | dst`; IPv6 each address folded to 64 bits (high XOR low), the
    /// source's halves swapped, XORed.
    pub fn src_dst(&self) -> u64 {
        if self.v6 {
            let fold = |a: &[u8; 16]| {
                let a = u128::from_be_bytes(*a);
                (a >> 64) as u64 ^ a as u64
            };
            fold(&self.src).rotate_left(32) ^ fold(&self.dst)
        } else {
            let w = |a: &[u8; 16]| u32::from_be_bytes([a[0], a[1], a[2], a[3]]) as u64;
            w(&self.src) << 32 | w(&self.dst)
        }
    }

    /// The fixed-size serialisation used by the compact trace format:
    /// `v6, proto, sport (BE), dport (BE), src[16], dst[16]`.
    pub fn to_bytes(&self) -> [u8; FLOW_KEY_BYTES] {
        let mut b = [0u8; FLOW_KEY_BYTES];
        b[0] = self.v6 as u8;
        b[1] = self.proto;
        b[2..4].copy_from_slice(&self.sport.to_be_bytes());
        b[4..6].copy_from_slice(&self.dport.to_be_bytes());
        b[6..22].copy_from_slice(&self.src);
        b[22..38].copy_from_slice(&self.dst);
        b
    }

    /// Inverse of [`FlowKey::to_bytes`]; `None` if the family byte is not 0 or 1.
    pub fn from_bytes(b: &[u8; FLOW_KEY_BYTES]) -> Option<Self> {
        if b[0] > 1 {
            return None;
        }
        let mut k = FlowKey {
            v6: b[0] == 1,
            proto: b[1],
            sport: u16::from_be_bytes([b[2], b[3]]),
            dport: u16::from_be_bytes([b[4], b[5]]),
            ..FlowKey::default()
        };
        k.src.copy_from_slice(&b[6..22]);
        k.dst.copy_from_slice(&b[22..38]);
        Some(k)
    }

    /// The wire-order flow ID the paper hashes: src, dst, sport, dport, proto
    /// (13 bytes for IPv4, 37 for IPv6), written into `buf`; returns its length.
    fn flow_id(&self, buf: &mut [u8; 37]) -> usize {
        let a = if self.v6 { 16 } else { 4 };
        buf[..a].copy_from_slice(&self.src[..a]);
        buf[a..2 * a].copy_from_slice(&self.dst[..a]);
        buf[2 * a..2 * a + 2].copy_from_slice(&self.sport.to_be_bytes());
        buf[2 * a + 2..2 * a + 4].copy_from_slice(&self.dport.to_be_bytes());
        buf[2 * a + 4] = self.proto;
        2 * a + 5
    }

    /// CRC-32 (IEEE) of the wire-order flow ID; its low bits are the paper's set index
    /// ("CRC → 7 bits → 128 sets").
    pub fn crc32(&self) -> u32 {
        let mut buf = [0u8; 37];
        let n = self.flow_id(&mut buf);
        crc32fast::hash(&buf[..n])
    }

    /// XOR folding of the flow ID into 32 bits (Li et al.'s cheap alternative to CRC):
    /// the 32-bit words of the flow ID (zero padded) XORed together.
    pub fn xor32(&self) -> u32 {
        let mut buf = [0u8; 40];
        let mut id = [0u8; 37];
        let n = self.flow_id(&mut id);
        buf[..n].copy_from_slice(&id[..n]);
        buf.chunks_exact(4).fold(0u32, |h, c| {
            h ^ u32::from_be_bytes([c[0], c[1], c[2], c[3]])
        })
    }
}

impl std::fmt::Display for FlowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.v6 {
            let s = std::net::Ipv6Addr::from(self.src);
            let d = std::net::Ipv6Addr::from(self.dst);
            write!(
                f,
                "[{s}]:{} > [{d}]:{} proto {}",
                self.sport, self.dport, self.proto
            )
        } else {
            let s = std::net::Ipv4Addr::new(self.src[0], self.src[1], self.src[2], self.src[3]);
            let d = std::net::Ipv4Addr::new(self.dst[0], self.dst[1], self.dst[2], self.dst[3]);
            write!(
                f,
                "{s}:{} > {d}:{} proto {}",
                self.sport, self.dport, self.proto
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_hashes_differ() {
        let a = FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], 1234, 80, 6);
        let b = FlowKey::v6([1; 16], [2; 16], 53, 5353, 17);
        for k in [a, b] {
            assert_eq!(FlowKey::from_bytes(&k.to_bytes()), Some(k));
        }
        assert_ne!(a.crc32(), b.crc32());
        // CRC-32 of the 13-byte IPv4 flow ID equals crc32fast over the same bytes.
        let id = [10, 0, 0, 1, 10, 0, 0, 2, 0x04, 0xd2, 0, 80, 6];
        assert_eq!(a.crc32(), crc32fast::hash(&id));
        assert_eq!(
            a.xor32(),
            0x0a00_0001 ^ 0x0a00_0002 ^ 0x04d2_0050 ^ 0x0600_0000
        );
        assert!(FlowKey::from_bytes(&[7; FLOW_KEY_BYTES]).is_none());
    }
}
