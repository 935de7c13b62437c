//! pcap output — the only pcap writer of pktlab (the classic libpcap format; any link type, e.g.
//! LINKTYPE_ETHERNET or LINKTYPE_RAW; microsecond or nanosecond timestamps) — and frame
//! builders for Ethernet II + IPv4 (RFC 791, header checksum RFC 1071) or IPv6 (RFC 8200) + UDP
//! (RFC 768) or TCP (RFC 9293) with correct lengths and checksums (pseudo-header per RFC 768 /
//! RFC 8200 §8.1). Used by `pktlab gen` for Zipf flow traces and CCNx-over-UDP (port 9896, as
//! Cefore uses; paper 003) packets. Builders write into a caller-owned buffer (no allocation
//! once it has grown).

use std::io::{self, Write};

/// TCP flag bits.
pub mod tcp_flags {
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// PSH.
    pub const PSH: u8 = 0x08;
    /// ACK.
    pub const ACK: u8 = 0x10;
}

/// LINKTYPE_ETHERNET (Ethernet II frames).
pub const LINKTYPE_ETHERNET: u32 = 1;
/// LINKTYPE_RAW (bare IPv4/IPv6 packets, no link-layer header).
pub const LINKTYPE_RAW: u32 = 101;

/// Timestamp resolution of a pcap file (chosen by the magic number of its header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsResolution {
    /// Microseconds (magic `a1b2c3d4`).
    Micros,
    /// Nanoseconds (magic `a1b23c4d`).
    Nanos,
}

/// Writes a pcap stream: the global header on creation, then one record per frame.
/// Timestamps are given in nanoseconds since the epoch and stored at the file's resolution.
pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
    res: TsResolution,
    records: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Starts a pcap stream on `w`: little-endian, version 2.4, snaplen 65535, Ethernet,
    /// microsecond timestamps.
    pub fn new(w: W) -> io::Result<Self> {
        Self::with_format(w, LINKTYPE_ETHERNET, TsResolution::Micros)
    }

    /// Starts a pcap stream with link type `linktype` (e.g. [`LINKTYPE_RAW`]) and timestamp
    /// resolution `res`.
    pub fn with_format(mut w: W, linktype: u32, res: TsResolution) -> io::Result<Self> {
        let snaplen = 65_535u32;
        let magic: u32 = match res {
            TsResolution::Micros => 0xA1B2_C3D4,
            TsResolution::Nanos => 0xA1B2_3C4D,
        };
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&magic.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes());
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&linktype.to_le_bytes());
        w.write_all(&h)?;
        Ok(PcapWriter {
            w,
            snaplen,
            res,
            records: 0,
        })
    }

    /// Appends one frame captured at `ts_ns` nanoseconds since the epoch (truncated to the
    /// file's resolution).
    pub fn write(&mut self, ts_ns: u64, frame: &[u8]) -> io::Result<()> {
        let incl = (frame.len() as u32).min(self.snaplen);
        let (sec, frac) = match self.res {
            TsResolution::Micros => (ts_ns / 1_000_000_000, ts_ns / 1_000 % 1_000_000),
            TsResolution::Nanos => (ts_ns / 1_000_000_000, ts_ns % 1_000_000_000),
        };
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&(sec as u32).to_le_bytes());
        h[4..8].copy_from_slice(&(frac as u32).to_le_bytes());
        h[8..12].copy_from_slice(&incl.to_le_bytes());
        h[12..16].copy_from_slice(&(frame.len() as u32).to_le_bytes());
        self.w.write_all(&h)?;
        self.w.write_all(&frame[..incl as usize])?;
        self.records += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.w
    }

    /// Flushes and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.w.flush()?;
        Ok(self.w)
    }
}

/// Network-layer endpoints of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ips {
    /// IPv4 source and destination.
    V4(u32, u32),
    /// IPv6 source and destination.
    V6(u128, u128),
}

impl Ips {
    /// The endpoints of a flow key.
    pub fn from_key(k: &crate::net::FlowKey) -> Ips {
        if k.v6 {
            Ips::V6(u128::from_be_bytes(k.src), u128::from_be_bytes(k.dst))
        } else {
            let w = |a: &[u8; 16]| u32::from_be_bytes([a[0], a[1], a[2], a[3]]);
            Ips::V4(w(&k.src), w(&k.dst))
        }
    }
}

/// Transport header to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4 {
    /// UDP with source and destination ports.
    Udp {
        /// Source port.
        sport: u16,
        /// Destination port.
        dport: u16,
    },
    /// TCP with ports, sequence/ack numbers and flags (window 65535, no options).
    Tcp {
        /// Source port.
        sport: u16,
        /// Destination port.
        dport: u16,
        /// Sequence number.
        seq: u32,
        /// Acknowledgement number.
        ack: u32,
        /// Flag bits ([`tcp_flags`]).
        flags: u8,
    },
    /// ICMP echo request (ICMPv6 echo request over IPv6) with identifier and sequence number.
    Echo {
        /// Identifier.
        id: u16,
        /// Sequence number.
        seq: u16,
    },
}

/// Largest payload a frame may carry (IPv4 total length and UDP length are 16-bit).
pub const MAX_PAYLOAD: usize = 65_535 - 60 - 40;

/// One's-complement sum of 16-bit big-endian words (odd trailing byte padded).
pub(crate) fn sum16(mut acc: u32, b: &[u8]) -> u32 {
    let mut c = b.chunks_exact(2);
    for w in &mut c {
        acc += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [x] = c.remainder() {
        acc += (*x as u32) << 8;
    }
    acc
}

/// Folds a 32-bit one's-complement accumulator to the 16-bit checksum.
pub(crate) fn fold(mut acc: u32) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// Builds an Ethernet frame (fixed locally administered MACs) carrying `ips` / `l4` / `payload`
/// into `out` (cleared first). Payloads over [`MAX_PAYLOAD`] bytes are an error.
pub fn build_frame(out: &mut Vec<u8>, ips: Ips, l4: L4, payload: &[u8]) -> io::Result<()> {
    if payload.len() > MAX_PAYLOAD {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("payload of {} bytes exceeds {MAX_PAYLOAD}", payload.len()),
        ));
    }
    out.clear();
    out.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01]);
    let (proto, l4len) = match l4 {
        L4::Udp { .. } => (17u8, 8 + payload.len()),
        L4::Tcp { .. } => (6u8, 20 + payload.len()),
        L4::Echo { .. } => match ips {
            Ips::V4(..) => (1u8, 8 + payload.len()),
            Ips::V6(..) => (58u8, 8 + payload.len()),
        },
    };
    // Pseudo-header sum.
    let mut pseudo = proto as u32 + l4len as u32;
    match ips {
        Ips::V4(s, d) => {
            out.extend_from_slice(&0x0800u16.to_be_bytes());
            let ip = out.len();
            out.extend_from_slice(&[0x45, 0]);
            out.extend_from_slice(&((20 + l4len) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0, 0x40, 0, 64, proto, 0, 0]);
            out.extend_from_slice(&s.to_be_bytes());
            out.extend_from_slice(&d.to_be_bytes());
            let c = fold(sum16(0, &out[ip..ip + 20]));
            out[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
            pseudo = sum16(pseudo, &s.to_be_bytes());
            pseudo = sum16(pseudo, &d.to_be_bytes());
        }
        Ips::V6(s, d) => {
            out.extend_from_slice(&0x86DDu16.to_be_bytes());
            out.extend_from_slice(&[0x60, 0, 0, 0]);
            out.extend_from_slice(&(l4len as u16).to_be_bytes());
            out.extend_from_slice(&[proto, 64]);
            out.extend_from_slice(&s.to_be_bytes());
            out.extend_from_slice(&d.to_be_bytes());
            pseudo = sum16(pseudo, &s.to_be_bytes());
            pseudo = sum16(pseudo, &d.to_be_bytes());
        }
    }
    let t = out.len();
    let ck = match l4 {
        L4::Udp { sport, dport } => {
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&(l4len as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            t + 6
        }
        L4::Tcp {
            sport,
            dport,
            seq,
            ack,
            flags,
        } => {
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&seq.to_be_bytes());
            out.extend_from_slice(&ack.to_be_bytes());
            out.extend_from_slice(&[5 << 4, flags, 0xFF, 0xFF, 0, 0, 0, 0]);
            t + 16
        }
        L4::Echo { id, seq } => {
            let ty = if proto == 1 { 8 } else { 128 };
            out.extend_from_slice(&[ty, 0, 0, 0]);
            out.extend_from_slice(&id.to_be_bytes());
            out.extend_from_slice(&seq.to_be_bytes());
            if proto == 1 {
                pseudo = 0; // ICMPv4 has no pseudo-header (RFC 792).
            }
            t + 2
        }
    };
    out.extend_from_slice(payload);
    let mut c = fold(sum16(pseudo, &out[t..]));
    if proto == 17 && c == 0 {
        c = 0xFFFF; // RFC 768: a computed zero is sent as all ones.
    }
    out[ck..ck + 2].copy_from_slice(&c.to_be_bytes());
    Ok(())
}

/// What [`check_frame`] found in an IP frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameCheck {
    /// The IPv4 header checksum is valid (always true for IPv6, which has none).
    pub ip_ok: bool,
    /// The UDP / TCP / ICMP / ICMPv6 checksum is valid (true for other protocols, for
    /// fragments, and for IPv4 UDP without a checksum).
    pub l4_ok: bool,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    /// IPv4 identification (0 for IPv6).
    pub ip_id: u16,
}

/// Checks the checksums of an Ethernet frame carrying IPv4 or IPv6 (VLAN tags allowed,
/// Ethernet padding ignored); `None` if it is not an IP frame or cannot be parsed.
pub fn check_frame(frame: &[u8]) -> Option<FrameCheck> {
    use etherparse::{NetSlice, SlicedPacket};
    let p = SlicedPacket::from_ethernet(frame).ok()?;
    let (pseudo, payload, proto, ip_ok, ttl, ip_id) = match p.net.as_ref()? {
        NetSlice::Ipv4(v4) => {
            let h = v4.header();
            let pl = v4.payload();
            let proto = pl.ip_number.0;
            let s = sum16(0, &h.source()) + sum16(0, &h.destination());
            let pseudo = if proto == 1 {
                0
            } else {
                s + proto as u32 + pl.payload.len() as u32
            };
            let ok = fold(sum16(0, h.slice())) == 0;
            let frag = pl.fragmented;
            (
                pseudo,
                (!frag).then_some(pl.payload),
                proto,
                ok,
                h.ttl(),
                h.identification(),
            )
        }
        NetSlice::Ipv6(v6) => {
            let h = v6.header();
            let pl = v6.payload();
            let proto = pl.ip_number.0;
            let s = sum16(0, &h.source()) + sum16(0, &h.destination());
            let pseudo = s + proto as u32 + pl.payload.len() as u32;
            (
                pseudo,
                (!pl.fragmented).then_some(pl.payload),
                proto,
                true,
                h.hop_limit(),
                0,
            )
        }
        _ => return None,
    };
    let l4_ok = match (payload, proto) {
        (Some(b), 6 | 17 | 1 | 58) => {
            let udp_unset = proto == 17 && b.len() >= 8 && b[6..8] == [0, 0];
            let v4 = matches!(p.net, Some(NetSlice::Ipv4(_)));
            (udp_unset && v4) || fold(sum16(pseudo, b)) == 0
        }
        _ => true,
    };
    Some(FrameCheck {
        ip_ok,
        l4_ok,
        ttl,
        ip_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::{NetSlice, SlicedPacket, TransportSlice};

    fn verify(frame: &[u8]) {
        let c = check_frame(frame).expect("an IP frame");
        assert!(c.ip_ok, "ip header checksum");
        assert!(c.l4_ok, "l4 checksum");
        assert_eq!(c.ttl, 64);
        let p = SlicedPacket::from_ethernet(frame).expect("parses");
        let l4 = match p.net.as_ref().unwrap() {
            NetSlice::Ipv4(v4) => v4.header().total_len() as usize - 20,
            NetSlice::Ipv6(v6) => v6.header().payload_length() as usize,
            _ => unreachable!(),
        };
        // A corrupted transport byte must be caught.
        let mut bad = frame.to_vec();
        let n = bad.len();
        bad[n - l4 + 1] ^= 0x40;
        assert!(!check_frame(&bad).unwrap().l4_ok, "corruption detected");
        match p.transport.unwrap() {
            TransportSlice::Udp(u) => assert_eq!(u.length() as usize, l4),
            TransportSlice::Tcp(t) => assert_eq!(t.data_offset(), 5),
            TransportSlice::Icmpv4(_) | TransportSlice::Icmpv6(_) => {}
            _ => unreachable!(),
        }
    }

    #[test]
    fn frames_have_valid_checksums() {
        let mut f = Vec::new();
        let udp = L4::Udp {
            sport: 1234,
            dport: 9896,
        };
        let tcp = L4::Tcp {
            sport: 40000,
            dport: 443,
            seq: 7,
            ack: 9,
            flags: tcp_flags::ACK | tcp_flags::PSH,
        };
        for ips in [
            Ips::V4(0x0A00_0001, 0xC0A8_0102),
            Ips::V6(0x2001_0db8 << 96 | 1, 0x2001_0db8 << 96 | 0xFFFF_0002),
        ] {
            for l4 in [udp, tcp, L4::Echo { id: 7, seq: 300 }] {
                for n in [0usize, 1, 7, 100, 1401] {
                    let payload: Vec<u8> = (0..n).map(|i| (i * 31 + 5) as u8).collect();
                    build_frame(&mut f, ips, l4, &payload).unwrap();
                    verify(&f);
                }
            }
        }
        assert!(build_frame(&mut f, Ips::V4(1, 2), udp, &vec![0; MAX_PAYLOAD + 1]).is_err());
    }

    #[test]
    fn pcap_round_trip_through_reader() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let mut f = Vec::new();
        for i in 0..10u32 {
            build_frame(
                &mut f,
                Ips::V4(0x0A00_0001, 0x0B00_0000 + i),
                L4::Udp { sport: 1, dport: 2 },
                b"abc",
            )
            .unwrap();
            w.write(i as u64 * 10_000, &f).unwrap();
        }
        assert_eq!(w.records(), 10);
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 24 + 10 * (16 + f.len()));
        let dir = std::env::temp_dir().join(format!("pktlab-pcapw-{}.pcap", std::process::id()));
        std::fs::write(&dir, &bytes).unwrap();
        let dsts = crate::io::pcap::destinations::<u32>(&dir);
        std::fs::remove_file(&dir).ok();
        let (dsts, rep) = dsts.unwrap();
        assert_eq!(dsts.len(), 10);
        assert!(rep.summary().is_none(), "clean read");
        assert_eq!(dsts[9], 0x0B00_0009);
    }
}
