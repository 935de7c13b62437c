//! Destination addresses from a pcap or pcapng capture, for `lpm bench --traffic trace:PATH`.
//!
//! A thin layer over the streaming capture reader [`PacketReader`] (which holds the pcap/pcapng
//! framing, link types and truncation handling): each packet's flow key gives the destination.
//! Packets of the other address family, non-IP frames and frames too short to parse are
//! skipped and counted; a capture cut in the middle of a record ends the stream with a note in
//! the report, never a panic.

use super::packets::PacketReader;
use super::IoError;
use crate::net::{Address, FlowKey};
use std::io::Read;
use std::net::IpAddr;
use std::path::Path;

/// What reading a capture found.
#[derive(Clone, Debug, Default)]
pub struct PcapReport {
    /// The capture's name: its path, or the name given to [`destinations_from`].
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

/// The destination of `k` as an address of family `A`, or `None` for the other family.
fn destination<A: Address>(k: &FlowKey) -> Option<A> {
    let ip = if k.v6 {
        IpAddr::from(k.dst)
    } else {
        IpAddr::from([k.dst[0], k.dst[1], k.dst[2], k.dst[3]])
    };
    A::from_ip(ip)
}

/// Reads every destination address of family `A` from the capture file `path`, in order
/// (see [`destinations_from`]); messages name the file.
pub fn destinations<A: Address>(path: &Path) -> Result<(Vec<A>, PcapReport), IoError> {
    collect(PacketReader::open(path)?)
}

/// Reads every destination address of family `A` from a pcap/pcapng capture in any reader
/// (gzip/bzip2 transparent), in order; `name` names the input in messages. Records that are
/// not IP, of the other family or unparsable are counted in [`PcapReport::skipped`], so
/// `addresses + skipped = packets`.
pub fn destinations_from<A: Address>(
    r: impl Read + Send + 'static,
    name: &str,
) -> Result<(Vec<A>, PcapReport), IoError> {
    collect(PacketReader::from_reader(r, name)?)
}

fn collect<A: Address>(mut rd: PacketReader) -> Result<(Vec<A>, PcapReport), IoError> {
    let mut out = Vec::new();
    let mut skipped = 0;
    while let Some(rec) = rd.next_record() {
        match rec.key.as_ref().and_then(destination::<A>) {
            Some(a) => out.push(a),
            None => skipped += 1,
        }
    }
    let r = rd.report();
    let report = PcapReport {
        path: r.path.clone(),
        packets: r.records,
        skipped,
        truncated: r.truncated.clone(),
    };
    Ok((out, report))
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
        // Cut the capture in the middle of a record: what was read is kept, the cut reported.
        let data = std::fs::read(&p).unwrap();
        let cut = std::io::Cursor::new(data[..3000].to_vec());
        let (part, rep2) = destinations_from::<u32>(cut, "cut.pcap").unwrap();
        assert_eq!(rep2.path, "cut.pcap");
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
