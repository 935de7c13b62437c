//! Destination addresses from a pcap or pcapng capture, for `lpm bench --traffic trace:PATH`.
//!
//! Streams the file with `pcap-parser` (legacy pcap and pcapng, gzip/bzip2 transparently) and
//! decodes each frame with `etherparse` according to the capture's link type: Ethernet (with
//! 802.1Q/QinQ), raw IP, Linux SLL, BSD null/loopback. Packets of the other address family,
//! non-IP frames and frames too short to parse are skipped and counted; a capture cut in the
//! middle of a record ends the stream with a note in the report, never a panic.

use super::{open_maybe_compressed, IoError};
use crate::net::Address;
use etherparse::{NetSlice, SlicedPacket};
use pcap_parser::pcapng::Block;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};
use std::path::Path;

/// What reading a capture found.
#[derive(Clone, Debug, Default)]
pub struct PcapReport {
    /// The capture's path.
    pub path: String,
    /// Packet records read.
    pub packets: u64,
    /// Records skipped: not IP, of the other family, or unparsable.
    pub skipped: u64,
    /// Set when the file ended in the middle of a record or block.
    pub truncated: Option<String>,
}

impl PcapReport {
    /// One line describing skipped records and truncation, or `None` if the read was clean.
    pub fn summary(&self) -> Option<String> {
        if self.skipped == 0 && self.truncated.is_none() {
            return None;
        }
        let mut s = format!(
            "{}: {} packets, skipped {} (non-IP, other family or unparsable)",
            self.path, self.packets, self.skipped
        );
        if let Some(t) = &self.truncated {
            s.push_str("; ");
            s.push_str(t);
        }
        Some(s)
    }
}

/// Decodes one frame of link type `lt` into a destination address of family `A`.
fn destination<A: Address>(lt: Linktype, data: &[u8]) -> Option<A> {
    let sliced = match lt {
        Linktype::ETHERNET => SlicedPacket::from_ethernet(data),
        Linktype::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        Linktype::RAW | Linktype::IPV4 | Linktype::IPV6 => SlicedPacket::from_ip(data),
        Linktype::NULL | Linktype::LOOP => SlicedPacket::from_ip(data.get(4..)?),
        _ => return None,
    }
    .ok()?;
    let text = match sliced.net? {
        NetSlice::Ipv4(h) if A::BITS == 32 => h.header().destination_addr().to_string(),
        NetSlice::Ipv6(h) if A::BITS == 128 => h.header().destination_addr().to_string(),
        _ => return None,
    };
    text.parse::<A::Std>().ok().map(A::from_std)
}

/// Reads every destination address of family `A` from a pcap/pcapng capture, in order.
pub fn destinations<A: Address>(path: &Path) -> Result<(Vec<A>, PcapReport), IoError> {
    let name = path.display().to_string();
    let rd = open_maybe_compressed(path)?;
    let mut reader = pcap_parser::create_reader(1 << 16, rd).map_err(|e| IoError::Unsupported {
        path: name.clone(),
        msg: format!("byte 0: not a pcap or pcapng capture ({e:?})"),
    })?;
    let mut rep = PcapReport {
        path: name.clone(),
        ..PcapReport::default()
    };
    let mut out = Vec::new();
    let mut legacy_lt = Linktype::ETHERNET;
    let mut if_lts: Vec<Linktype> = Vec::new();
    let mut consumed = 0u64;
    let mut capacity = 1usize << 16;
    loop {
        match reader.next() {
            Ok((offset, block)) => {
                let dst = match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        legacy_lt = h.network;
                        None
                    }
                    PcapBlockOwned::Legacy(b) => {
                        rep.packets += 1;
                        Some(destination::<A>(legacy_lt, b.data))
                    }
                    PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                        if_lts.push(idb.linktype);
                        None
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                        rep.packets += 1;
                        let lt = if_lts.get(epb.if_id as usize).copied();
                        Some(lt.and_then(|lt| destination::<A>(lt, epb.data)))
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                        rep.packets += 1;
                        let lt = if_lts.first().copied();
                        Some(lt.and_then(|lt| destination::<A>(lt, spb.data)))
                    }
                    PcapBlockOwned::NG(_) => None,
                };
                match dst {
                    Some(Some(a)) => out.push(a),
                    Some(None) => rep.skipped += 1,
                    None => {}
                }
                consumed += offset as u64;
                reader.consume(offset);
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => {
                // Out of buffered data: a reader with nothing left means a cut record.
                if reader.reader_exhausted() {
                    if !reader.data().is_empty() {
                        rep.truncated = Some(format!(
                            "capture truncated at byte {consumed} after {} packets",
                            rep.packets
                        ));
                    }
                    break;
                }
                let before = reader.data().len();
                if let Err(e) = reader.refill() {
                    rep.truncated = Some(format!("read error at byte {consumed}: {e:?}"));
                    break;
                }
                // A block larger than the buffer: grow it (bounded at 256 MiB).
                if reader.data().len() == before {
                    capacity *= 2;
                    if capacity > 1 << 28 || !reader.grow(capacity) {
                        rep.truncated = Some(format!("oversized block at byte {consumed}"));
                        break;
                    }
                }
            }
            Err(PcapError::UnexpectedEof) => {
                rep.truncated = Some(format!(
                    "capture truncated at byte {consumed} after {} packets",
                    rep.packets
                ));
                break;
            }
            Err(e) => {
                rep.truncated = Some(format!(
                    "unreadable record at byte {consumed} after {} packets: {e:?}",
                    rep.packets
                ));
                break;
            }
        }
    }
    Ok((out, rep))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ndpi(name: &str) -> Option<std::path::PathBuf> {
        let p = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/traces/ndpi-captures"
        ))
        .join(name);
        if p.exists() {
            Some(p)
        } else {
            eprintln!("skipped: no shared data");
            None
        }
    }

    #[test]
    fn reads_destinations_and_reports_truncation() {
        let Some(p) = ndpi("1kxun.pcap") else { return };
        let (v4, rep) = destinations::<u32>(&p).unwrap();
        assert!(rep.packets > 100);
        assert_eq!(v4.len() as u64 + rep.skipped, rep.packets);
        assert!(rep.truncated.is_none());
        // Cut the file in the middle of a record: what was read is kept, the cut reported.
        let data = std::fs::read(&p).unwrap();
        let cut = std::env::temp_dir().join(format!("pktlab-cut-{}.pcap", std::process::id()));
        std::fs::write(&cut, &data[..3000]).unwrap();
        let (part, rep2) = destinations::<u32>(&cut).unwrap();
        let _ = std::fs::remove_file(&cut);
        assert!(rep2
            .truncated
            .as_deref()
            .unwrap_or("")
            .contains("truncated at byte"));
        assert!(!part.is_empty() && part.len() < v4.len());
        assert_eq!(&v4[..part.len()], &part[..]);
    }

    #[test]
    fn rejects_non_pcap_with_one_line_error() {
        let f = std::env::temp_dir().join(format!("pktlab-notpcap-{}.txt", std::process::id()));
        std::fs::write(&f, b"10.0.0.0/8 1\n").unwrap();
        let e = destinations::<u32>(&f).unwrap_err().to_string();
        let _ = std::fs::remove_file(&f);
        assert!(e.contains("byte 0: not a pcap or pcapng capture"), "{e}");
        assert!(!e.contains('\n'));
    }
}
