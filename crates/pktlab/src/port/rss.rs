//! Receive-side scaling as NICs do it (Microsoft RSS specification, "Verifying the RSS Hash
//! Calculation"): the Toeplitz hash of the packet's (source address, destination address,
//! source port, destination port) — ports only for TCP and UDP — under a 40-byte key, and a
//! 128-entry redirection table mapping the hash's low 7 bits to a receive queue (worker).

use crate::net::FlowKey;

/// The standard 40-byte RSS key of the Microsoft specification (also the default of many
/// NIC drivers).
pub const STANDARD_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// Entries of the redirection table.
pub const RETA_SIZE: usize = 128;

/// The Toeplitz hash of `input` under `key` (`input.len() + 4 ≤ key.len()`): for every set
/// bit of the input, XOR in the 32-bit window of the key starting at that bit.
pub fn toeplitz(key: &[u8], input: &[u8]) -> u32 {
    assert!(input.len() + 4 <= key.len(), "Toeplitz key too short");
    let mut h = 0u32;
    let mut win = u32::from_be_bytes([key[0], key[1], key[2], key[3]]);
    for (i, &b) in input.iter().enumerate() {
        let next = key[i + 4];
        for bit in 0..8 {
            if b & (0x80 >> bit) != 0 {
                h ^= win;
            }
            win = (win << 1) | ((next >> (7 - bit)) & 1) as u32;
        }
    }
    h
}

/// The RSS hash of a flow with the standard key: 4-tuple for TCP/UDP packets that carry
/// ports, 2-tuple otherwise (non-first fragments, ICMP, …).
pub fn flow_hash(k: &FlowKey) -> u32 {
    let a = if k.v6 { 16 } else { 4 };
    let mut buf = [0u8; 36];
    buf[..a].copy_from_slice(&k.src[..a]);
    buf[a..2 * a].copy_from_slice(&k.dst[..a]);
    let mut n = 2 * a;
    if (k.proto == 6 || k.proto == 17) && (k.sport, k.dport) != (0, 0) {
        buf[n..n + 2].copy_from_slice(&k.sport.to_be_bytes());
        buf[n + 2..n + 4].copy_from_slice(&k.dport.to_be_bytes());
        n += 4;
    }
    toeplitz(&STANDARD_KEY, &buf[..n])
}

/// The queue of `hash` under the default redirection table for `queues` queues
/// (entry `j` = `j mod queues`, as drivers fill it).
#[inline]
pub fn queue_of(hash: u32, queues: usize) -> usize {
    (hash as usize % RETA_SIZE) % queues.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (source, destination, sport, dport, 2-tuple hash, 4-tuple hash).
    type Vector = ([u8; 4], [u8; 4], u16, u16, u32, u32);

    /// The Microsoft verification suite.
    #[test]
    fn microsoft_verification_vectors() {
        let v4: [Vector; 5] = [
            (
                [66, 9, 149, 187],
                [161, 142, 100, 80],
                2794,
                1766,
                0x323e8fc2,
                0x51ccc178,
            ),
            (
                [199, 92, 111, 2],
                [65, 69, 140, 83],
                14230,
                4739,
                0xd718262a,
                0xc626b0ea,
            ),
            (
                [24, 19, 198, 95],
                [12, 22, 207, 184],
                12898,
                38024,
                0xd2d0a5de,
                0x5c2b394a,
            ),
            (
                [38, 27, 205, 30],
                [209, 142, 163, 6],
                48228,
                2217,
                0x82989176,
                0xafc7327f,
            ),
            (
                [153, 39, 163, 191],
                [202, 188, 127, 2],
                44251,
                1303,
                0x5d1809c5,
                0x10e828a2,
            ),
        ];
        for (s, d, sp, dp, h2, h4) in v4 {
            assert_eq!(flow_hash(&FlowKey::v4(s, d, sp, dp, 6)), h4);
            assert_eq!(flow_hash(&FlowKey::v4(s, d, 0, 0, 1)), h2);
        }
        let ip6 = |s: &str| s.parse::<std::net::Ipv6Addr>().unwrap().octets();
        let v6 = [
            (
                "3ffe:2501:200:1fff::7",
                "3ffe:2501:200:3::1",
                2794,
                1766,
                0x2cc18cd5,
                0x40207d3d,
            ),
            (
                "3ffe:501:8::260:97ff:fe40:efab",
                "ff02::1",
                14230,
                4739,
                0x0f0c461c,
                0xdde51bbf,
            ),
            (
                "3ffe:1900:4545:3:200:f8ff:fe21:67cf",
                "fe80::200:f8ff:fe21:67cf",
                44251,
                38024,
                0x4b61e985,
                0x02d1feef,
            ),
        ];
        for (s, d, sp, dp, h2, h4) in v6 {
            assert_eq!(flow_hash(&FlowKey::v6(ip6(s), ip6(d), sp, dp, 17)), h4);
            assert_eq!(flow_hash(&FlowKey::v6(ip6(s), ip6(d), 0, 0, 58)), h2);
        }
        assert_eq!(queue_of(0x51ccc178, 2), (0x78 % 2) as usize);
    }
}
