//! Streaming pcap/pcapng reader producing `(timestamp ns, 5-tuple)` per packet — the "Flow
//! Extractor" of paper 000's simulator (§5.1, fig. 7).
//!
//! Link types: Ethernet (with 802.1Q/QinQ and PPPoE sessions), PPP, raw IP (`RAW`, `IPV4`, `IPV6`),
//! Linux SLL and SLL2, BSD null/loopback. IPv4 and IPv6 (extension headers skipped). TCP and
//! UDP ports are read from the first four bytes of the transport header; every other protocol
//! gets ports 0.
//!
//! **Fragments** (the rule): an IPv4 fragment with offset 0 carries the transport header, so it
//! keeps its ports; non-first IPv4 fragments, and every IPv6 packet carrying a fragment header,
//! get ports 0 (their flow is `(src, dst, 0, 0, proto)`). No reassembly is done.
//!
//! Non-IP frames (ARP, LLDP…) and frames too short or malformed to yield an IP header are
//! skipped and counted; a capture cut in the middle of a record ends the stream with a note in
//! [`PacketReport::truncated`]. Nothing here panics on bad input. Memory is one read buffer
//! (64 KiB, grown only for a larger block, at most 256 MiB).
//!
//! Timestamps: legacy pcap in µs or ns (by magic), pcapng by each interface's `if_tsresol` and
//! `if_tsoffset`; all converted to ns since the epoch.

use super::{decompress, open_maybe_compressed, quote, IoError};
use crate::net::FlowKey;
use etherparse::{EtherType, IpNumber, LaxNetSlice, LaxSlicedPacket};
use pcap_parser::pcapng::Block;
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};
use std::io::{BufRead, Read};
use std::path::Path;

/// Initial size of the read buffer (grown for larger blocks, up to 256 MiB).
const READ_BUF: usize = 1 << 16;

/// What reading a capture found so far.
#[derive(Clone, Debug, Default)]
pub struct PacketReport {
    /// The capture's name: its path, or the name given to [`PacketReader::from_reader`].
    pub path: String,
    /// Packet records read (including skipped ones).
    pub records: u64,
    /// Records skipped: not IP, or unparsable.
    pub skipped: u64,
    /// Set when the file ended in the middle of a record or block (or became unreadable).
    pub truncated: Option<String>,
}

/// A pcap-parser error in one bounded line: a parser error names its kind and quotes the
/// start of the input it stopped at ([`quote`]), never the whole (possibly megabytes long)
/// block.
fn pcap_error<I: AsRef<[u8]> + std::fmt::Debug>(e: &PcapError<I>) -> String {
    match e {
        PcapError::NomError(i, k) => format!("parser error {k:?} at {}", quote(i.as_ref())),
        PcapError::OwnedNomError(i, k) => format!("parser error {k:?} at {}", quote(i)),
        e => e.to_string(),
    }
}

/// The IP packet inside a PPP frame body starting at its protocol field (0x0021 IPv4,
/// 0x0057 IPv6); `None` otherwise.
fn ppp_ip(d: &[u8]) -> Option<LaxSlicedPacket<'_>> {
    match u16::from_be_bytes([*d.first()?, *d.get(1)?]) {
        0x0021 | 0x0057 => LaxSlicedPacket::from_ip(d.get(2..)?).ok(),
        _ => None,
    }
}

/// Decodes one frame of link type `lt` into its flow key; `None` if not IP or unparsable.
pub fn flow_key(lt: Linktype, data: &[u8]) -> Option<FlowKey> {
    let mut sliced = match lt {
        Linktype(9) => {
            // Optional HDLC address/control bytes 0xff 0x03, then the protocol.
            let d = if data.starts_with(&[0xff, 0x03]) {
                &data[2..]
            } else {
                data
            };
            ppp_ip(d)?
        }
        Linktype::ETHERNET => LaxSlicedPacket::from_ethernet(data).ok()?,
        Linktype::LINUX_SLL => {
            let et = u16::from_be_bytes([*data.get(14)?, *data.get(15)?]);
            LaxSlicedPacket::from_ether_type(EtherType(et), data.get(16..)?)
        }
        Linktype::LINUX_SLL2 => {
            let et = u16::from_be_bytes([*data.first()?, *data.get(1)?]);
            LaxSlicedPacket::from_ether_type(EtherType(et), data.get(20..)?)
        }
        Linktype::RAW | Linktype::IPV4 | Linktype::IPV6 => LaxSlicedPacket::from_ip(data).ok()?,
        Linktype::NULL | Linktype::LOOP => LaxSlicedPacket::from_ip(data.get(4..)?).ok()?,
        _ => return None,
    };
    if sliced.net.is_none() {
        // PPPoE session (after Ethernet and VLAN tags): 6-byte PPPoE header, then PPP.
        if let Some(ep) = sliced.ether_payload() {
            if ep.ether_type == EtherType(0x8864) {
                sliced = ppp_ip(ep.payload.get(6..)?)?;
            }
        }
    }
    let (mut key, first, payload) = match sliced.net? {
        LaxNetSlice::Ipv4(ip) => {
            let h = ip.header();
            let pl = ip.payload();
            let k = FlowKey::v4(h.source(), h.destination(), 0, 0, pl.ip_number.0);
            (k, h.fragments_offset().value() == 0, pl.payload)
        }
        LaxNetSlice::Ipv6(ip) => {
            let h = ip.header();
            let pl = ip.payload();
            let k = FlowKey::v6(h.source(), h.destination(), 0, 0, pl.ip_number.0);
            (k, !pl.fragmented, pl.payload)
        }
        LaxNetSlice::Arp(_) => return None,
    };
    if first && (key.proto == IpNumber::TCP.0 || key.proto == IpNumber::UDP.0) && payload.len() >= 4
    {
        key.sport = u16::from_be_bytes([payload[0], payload[1]]);
        key.dport = u16::from_be_bytes([payload[2], payload[3]]);
    }
    Some(key)
}

/// One packet record of a capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRecord {
    /// Timestamp in ns since the epoch.
    pub ts_ns: u64,
    /// The flow key, or `None` for a skipped (non-IP or broken) packet.
    pub key: Option<FlowKey>,
}

/// A streaming reader of packet records from a pcap or pcapng file or stream (gzip/bzip2
/// transparent).
pub struct PacketReader {
    reader: Box<dyn PcapReaderIterator + Send>,
    report: PacketReport,
    legacy_lt: Linktype,
    legacy_ns: bool,
    /// Per pcapng interface: link type, ticks per second, offset in seconds.
    ifaces: Vec<(Linktype, u64, i64)>,
    consumed: u64,
    capacity: usize,
    done: bool,
}

fn ts_ns(sec: u64, frac: u64, per_sec: u64) -> u64 {
    sec.saturating_mul(1_000_000_000)
        .saturating_add((frac as u128 * 1_000_000_000 / per_sec.max(1) as u128) as u64)
}

impl PacketReader {
    /// Opens the capture file `path` (see [`PacketReader::from_reader`]); messages name the
    /// file.
    pub fn open(path: &Path) -> Result<Self, IoError> {
        Self::from_decompressed(open_maybe_compressed(path)?, path.display().to_string())
    }

    /// Reads a capture from any reader (a file, a `Cursor` over bytes, stdin), gzip/bzip2
    /// transparent; `name` names the input in messages. Fails (one line, naming the input and
    /// byte 0) if it is not a capture.
    pub fn from_reader(r: impl Read + Send + 'static, name: &str) -> Result<Self, IoError> {
        let rd = decompress(r).map_err(|error| IoError::Read {
            path: name.to_string(),
            pos: "byte 0".to_string(),
            error,
        })?;
        Self::from_decompressed(rd, name.to_string())
    }

    fn from_decompressed(rd: Box<dyn BufRead + Send>, name: String) -> Result<Self, IoError> {
        // pcap-parser identifies the format from what a single `read` returns; hand it the
        // first block of the input whole, however the underlying reader chunks it.
        let mut head = Vec::with_capacity(READ_BUF);
        let mut rd = rd;
        (&mut rd)
            .take(READ_BUF as u64)
            .read_to_end(&mut head)
            .map_err(|error| IoError::Read {
                path: name.clone(),
                pos: "byte 0".to_string(),
                error,
            })?;
        let rd = std::io::Cursor::new(head).chain(rd);
        let reader =
            pcap_parser::create_reader(READ_BUF, rd).map_err(|e| IoError::Unsupported {
                path: name.clone(),
                msg: format!("byte 0: not a pcap or pcapng capture ({})", pcap_error(&e)),
            })?;
        Ok(PacketReader {
            reader,
            report: PacketReport {
                path: name,
                ..PacketReport::default()
            },
            legacy_lt: Linktype::ETHERNET,
            legacy_ns: false,
            ifaces: Vec::new(),
            consumed: 0,
            capacity: READ_BUF,
            done: false,
        })
    }

    /// Counts so far (final once [`PacketReader::next_record`] returned `None`).
    pub fn report(&self) -> &PacketReport {
        &self.report
    }

    /// The next packet record, or `None` at the end (clean or truncated: see the report).
    pub fn next_record(&mut self) -> Option<PacketRecord> {
        let r = self.next_frame(|ts_ns, lt, data| PacketRecord {
            ts_ns,
            key: lt.and_then(|lt| flow_key(lt, data)),
        })?;
        if r.key.is_none() {
            self.report.skipped += 1;
        }
        Some(r)
    }

    /// The next packet record as `f(ts_ns, link type, frame bytes)` (the link type is `None`
    /// for a pcapng packet of an undeclared interface), or `None` at the end. Records are
    /// counted in the report; skipping is the caller's business.
    pub fn next_frame<T>(
        &mut self,
        mut f: impl FnMut(u64, Option<Linktype>, &[u8]) -> T,
    ) -> Option<T> {
        while !self.done {
            match self.reader.next() {
                Ok((offset, block)) => {
                    let rec = match block {
                        PcapBlockOwned::LegacyHeader(h) => {
                            self.legacy_lt = h.network;
                            self.legacy_ns = h.is_nanosecond_precision();
                            None
                        }
                        PcapBlockOwned::Legacy(b) => {
                            let per = if self.legacy_ns {
                                1_000_000_000
                            } else {
                                1_000_000
                            };
                            let t = ts_ns(b.ts_sec as u64, b.ts_usec as u64, per);
                            Some(f(t, Some(self.legacy_lt), b.data))
                        }
                        PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                            let res = idb.ts_resolution().unwrap_or(1_000_000);
                            self.ifaces.push((idb.linktype, res, idb.ts_offset()));
                            None
                        }
                        PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                            let i = self.ifaces.get(epb.if_id as usize).copied();
                            Some(match i {
                                Some((lt, res, off)) => {
                                    let t = ((epb.ts_high as u64) << 32) | epb.ts_low as u64;
                                    let sec = (t / res.max(1)) as i64 + off;
                                    let t = ts_ns(sec.max(0) as u64, t % res.max(1), res);
                                    f(t, Some(lt), epb.data)
                                }
                                None => f(0, None, epb.data),
                            })
                        }
                        PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                            let lt = self.ifaces.first().map(|i| i.0);
                            Some(f(0, lt, spb.data))
                        }
                        PcapBlockOwned::NG(_) => None,
                    };
                    self.consumed += offset as u64;
                    self.reader.consume(offset);
                    if let Some(r) = rec {
                        self.report.records += 1;
                        return Some(r);
                    }
                }
                Err(PcapError::Eof) => self.done = true,
                Err(PcapError::Incomplete(_)) => {
                    if self.reader.reader_exhausted() {
                        if !self.reader.data().is_empty() {
                            self.cut("capture truncated");
                        }
                        self.done = true;
                        continue;
                    }
                    let before = self.reader.data().len();
                    if let Err(e) = self.reader.refill() {
                        let msg = format!("read error ({})", pcap_error(&e));
                        self.cut(&msg);
                        self.done = true;
                        continue;
                    }
                    if self.reader.data().len() == before {
                        self.capacity *= 2;
                        if self.capacity > 1 << 28 || !self.reader.grow(self.capacity) {
                            self.cut("oversized block");
                            self.done = true;
                        }
                    }
                }
                Err(PcapError::BufferTooSmall) => {
                    // A record claims more bytes than the buffer holds: grow (bounded) and
                    // retry; a lying length in a short file then ends as a truncation.
                    self.capacity *= 2;
                    if self.capacity > 1 << 28 || !self.reader.grow(self.capacity) {
                        self.cut("oversized block");
                        self.done = true;
                    } else if let Err(e) = self.reader.refill() {
                        let msg = format!("read error ({})", pcap_error(&e));
                        self.cut(&msg);
                        self.done = true;
                    }
                }
                Err(PcapError::UnexpectedEof) => {
                    self.cut("capture truncated");
                    self.done = true;
                }
                Err(e) => {
                    let msg = format!("unreadable record ({})", pcap_error(&e));
                    self.cut(&msg);
                    self.done = true;
                }
            }
        }
        None
    }

    fn cut(&mut self, what: &str) {
        self.report.truncated = Some(format!(
            "{what} at byte {} after {} packets",
            self.consumed, self.report.records
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_fragments_and_link_types() {
        // IPv4/UDP, raw IP: 10.0.0.1:1000 > 10.0.0.2:53.
        let mut ip = vec![
            0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        ip.extend_from_slice(&[0x03, 0xe8, 0, 53, 0, 8, 0, 0]);
        let k = flow_key(Linktype::RAW, &ip).unwrap();
        assert_eq!(k, FlowKey::v4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53, 17));
        // The same packet behind Ethernet + 802.1Q, and behind Linux SLL.
        let mut eth = vec![0u8; 12];
        eth.extend_from_slice(&[0x81, 0x00, 0, 7, 0x08, 0x00]);
        eth.extend_from_slice(&ip);
        assert_eq!(flow_key(Linktype::ETHERNET, &eth), Some(k));
        let mut sll = vec![0u8; 14];
        sll.extend_from_slice(&[0x08, 0x00]);
        sll.extend_from_slice(&ip);
        assert_eq!(flow_key(Linktype::LINUX_SLL, &sll), Some(k));
        // A non-first fragment (offset 8 bytes) has no ports.
        let mut frag = ip.clone();
        frag[7] = 1;
        let f = flow_key(Linktype::RAW, &frag).unwrap();
        assert_eq!((f.sport, f.dport, f.proto), (0, 0, 17));
        // First fragment (MF set, offset 0) keeps them.
        let mut first = ip.clone();
        first[6] = 0x20;
        assert_eq!(flow_key(Linktype::RAW, &first), Some(k));
        // ARP and garbage are skipped.
        let mut arp = vec![0u8; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.extend_from_slice(&[0u8; 28]);
        assert_eq!(flow_key(Linktype::ETHERNET, &arp), None);
        assert_eq!(flow_key(Linktype::RAW, &[0xff; 3]), None);
        assert_eq!(flow_key(Linktype::LINUX_SLL, &[0; 5]), None);
    }

    /// A legacy pcap (µs, LINKTYPE_RAW) of `n` UDP/IPv4 packets, one per flow.
    fn raw_pcap(n: u8) -> Vec<u8> {
        let mut b = Vec::new();
        for w in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 101] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        for i in 0..n {
            let mut ip = vec![
                0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, i, 10, 0, 0, 2,
            ];
            ip.extend_from_slice(&[0x03, 0xe8, 0, 53, 0, 8, 0, 0]);
            for w in [i as u32, 7, ip.len() as u32, ip.len() as u32] {
                b.extend_from_slice(&w.to_le_bytes());
            }
            b.extend_from_slice(&ip);
        }
        b
    }

    fn read_all(mut r: PacketReader) -> (Vec<PacketRecord>, PacketReport) {
        let mut v = Vec::new();
        while let Some(p) = r.next_record() {
            v.push(p);
        }
        (v, r.report().clone())
    }

    /// Hands out one byte per `read`.
    struct OneByte(std::io::Cursor<Vec<u8>>);

    impl Read for OneByte {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    /// A pcapng block of 1 MiB whose packet claims a 4 GiB capture length: the reader stops
    /// with a note of bounded size (it used to print the block's bytes, megabytes of them).
    #[test]
    fn a_lying_block_gives_a_short_note() {
        let mut b = Vec::new();
        let w = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
        // Section header (28 bytes), interface description (Ethernet, 20 bytes).
        for v in [0x0A0D_0D0A, 28, 0x1A2B_3C4D, 1, u32::MAX, u32::MAX, 28] {
            w(&mut b, v);
        }
        for v in [1, 20, 1, 0, 20] {
            w(&mut b, v);
        }
        // Enhanced packet block of 1 MiB: caplen 4 GiB - 3, the rest zeros.
        let len = 1u32 << 20;
        for v in [6, len, 0, 0, 0, u32::MAX - 2, 0] {
            w(&mut b, v);
        }
        b.resize(b.len() + len as usize - 32, 0);
        w(&mut b, len);
        let mut r = PacketReader::from_reader(std::io::Cursor::new(b), "lie.pcapng").unwrap();
        assert!(r.next_record().is_none());
        let t = r
            .report()
            .truncated
            .clone()
            .expect("the reader stops with a note");
        assert!(
            t.len() < 300,
            "{} bytes: {}",
            t.len(),
            &t[..t.len().min(300)]
        );
        assert!(
            t.starts_with("unreadable record (parser error Verify at \""),
            "{t}"
        );
    }

    #[test]
    fn reads_from_bytes_and_every_cut_is_reported() {
        let bytes = raw_pcap(5);
        let (all, rep) = read_all(
            PacketReader::from_reader(std::io::Cursor::new(bytes.clone()), "mem").unwrap(),
        );
        assert_eq!(rep.records, 5);
        assert_eq!(rep.skipped, 0);
        assert!(rep.truncated.is_none());
        assert_eq!(all[3].ts_ns, 3_000_007_000);
        assert_eq!(
            all[3].key,
            Some(FlowKey::v4([10, 0, 0, 3], [10, 0, 0, 2], 1000, 53, 17))
        );
        // A reader that dribbles one byte at a time reads the same.
        let (dribbled, _) = read_all(
            PacketReader::from_reader(OneByte(std::io::Cursor::new(bytes.clone())), "d").unwrap(),
        );
        assert_eq!(dribbled, all);
        // Every cut keeps a prefix of the packets and reports the cut unless it falls on a
        // record boundary.
        let rec = 16 + 28;
        for cut in 24..bytes.len() {
            let r = PacketReader::from_reader(std::io::Cursor::new(bytes[..cut].to_vec()), "cut")
                .unwrap();
            let (got, rep) = read_all(r);
            assert_eq!(got[..], all[..got.len()]);
            assert_eq!(got.len(), (cut - 24) / rec);
            assert_eq!(rep.truncated.is_some(), (cut - 24) % rec != 0, "cut {cut}");
        }
        // Not a capture: one line naming the input and byte 0.
        let e = PacketReader::from_reader(std::io::Cursor::new(b"hello".to_vec()), "h")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("h: byte 0: not a pcap or pcapng capture"),
            "{e}"
        );
    }
}
