//! Live traffic on real interfaces (AF_PACKET, [`pktlab::port::afpacket`]): the software form
//! of paper 003's traffic generator ([`gen`]: the Zipf streams the pcap writers produce, sent
//! on an interface, paced by a token bucket or as fast as possible) and the matching
//! receiver ([`sink`]: counts packets, flows, TTLs, checksum errors and duplicates).
//!
//! Together with `pktlab forward --rx afpacket:A --tx afpacket:B` ([`super::forward`]) they
//! make the three-namespace test bench of `tools/netns-topology.sh`: gen → router → sink.
//!
//! The generator numbers its packets in the IPv4 identification field (packet `i` carries
//! `i mod 65536`, header checksum recomputed), so that the sink can tell a duplicated packet
//! from another packet of the same flow.

use super::traffic::{ccn_frames, flow_frames, zipf_frames, FrameSource, ZipfSpec};
use super::{Error, Progress, Result};
use pktlab::io::packets::flow_key;
use pktlab::io::pcap_write::check_frame;
use pktlab::io::{read_table, NextHopScheme};
use pktlab::net::{FlowKey, Prefix};
use pktlab::port::afpacket::{AfPacketRx, AfPacketTx};
use pktlab::port::TxPort as _;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which stream [`gen`] sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GenStream {
    /// `gen zipf`: IPv4/UDP to Zipf-ranked destinations.
    Zipf,
    /// `gen flows`: Zipf-popular TCP/UDP 5-tuple flows.
    Flows,
    /// `gen ccn`: CCNx Interests (and Content Objects) over UDP.
    Ccn {
        /// Name prefix.
        prefix: String,
        /// Chunks per content (0 or 1 = unchunked).
        chunks: u32,
        /// Content Object payload bytes.
        payload: usize,
        /// Interests only.
        interests_only: bool,
    },
}

/// Configuration of [`gen`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GenConfig {
    /// The stream.
    pub stream: GenStream,
    /// Its Zipf table.
    pub table: ZipfSpec,
    /// Interface to send on (`afpacket:IFACE` without the prefix).
    pub iface: String,
    /// Packets per second (`None`: as fast as possible).
    pub rate: Option<f64>,
    /// Stop after this many seconds.
    pub duration: Option<f64>,
    /// Stop after this many packets.
    pub count: Option<u64>,
    /// Frame size on the wire including the 4-byte FCS (64…1518; `zipf` and `flows` only;
    /// default: the stream's own sizes).
    pub size: Option<usize>,
    /// Packets per burst (one ring kick per burst; the token bucket's depth).
    pub burst: usize,
    /// `flows` only: a routing table whose IPv4 prefixes the flows' destinations are moved
    /// into (a hash of each flow picks the prefix and host bits), so every packet is routable.
    pub routes: Option<std::path::PathBuf>,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            stream: GenStream::Flows,
            table: ZipfSpec::default(),
            iface: String::new(),
            rate: None,
            duration: None,
            count: None,
            size: None,
            burst: 32,
            routes: None,
        }
    }
}

/// Result of [`gen`].
#[derive(Clone, Debug, Serialize)]
pub struct GenResult {
    /// Interface.
    pub iface: String,
    /// Packets handed to the kernel.
    pub packets: u64,
    /// Frame bytes (without FCS).
    pub bytes: u64,
    /// Seconds from the first packet to the ring being drained.
    pub seconds: f64,
    /// Achieved packets per second.
    pub pps: f64,
    /// Achieved bits per second of frame data (without FCS).
    pub bps: f64,
    /// Achieved bits per second on an Ethernet wire (frame + FCS, preamble, gap: +24 B each).
    pub wire_bps: f64,
    /// Packets per second asked (`None`: as fast as possible).
    pub rate: Option<f64>,
    /// Frames the kernel refused.
    pub rejected: u64,
    /// CPU time of the process while sending (user + system), s.
    pub cpu_seconds: f64,
}

/// Writes `i mod 65536` into the IPv4 identification of an Ethernet/IPv4 frame and fixes the
/// header checksum (transport checksums do not cover the identification).
fn number(f: &mut [u8], i: u64) {
    if f.len() < 34 || f[12..14] != [0x08, 0x00] {
        return;
    }
    let ihl = (f[14] & 0x0f) as usize * 4;
    if f.len() < 14 + ihl {
        return;
    }
    f[18..20].copy_from_slice(&(i as u16).to_be_bytes());
    f[24..26].copy_from_slice(&[0, 0]);
    let mut acc = 0u32;
    for w in f[14..14 + ihl].chunks_exact(2) {
        acc += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    f[24..26].copy_from_slice(&(!(acc as u16)).to_be_bytes());
}

/// Sends the stream on `cfg.iface` until `count` packets, `duration` seconds or `stop`,
/// paced at `rate` packets per second by a token bucket of `burst` packets (or as fast as
/// the ring drains), and reports what it achieved. Progress: one step counting packets.
pub fn gen(cfg: &GenConfig, stop: &AtomicBool, p: &dyn Progress) -> Result<GenResult> {
    if let Some(d) = cfg.duration {
        super::check::positive("--duration", d)?;
    }
    if let Some(n) = cfg.count {
        super::check::at_least("--count", n, 1)?;
    }
    if cfg.burst == 0 || cfg.burst > 4096 {
        return Err(Error::param(format!(
            "--burst {}: must be in 1..=4096",
            cfg.burst
        )));
    }
    if let Some(r) = cfg.rate {
        if !(r > 0.0 && r.is_finite()) {
            return Err(Error::param(format!(
                "--rate {r}: must be a positive number of packets per second, or max"
            )));
        }
    }
    if let Some(s) = cfg.size {
        if !(64..=1518).contains(&s) {
            return Err(Error::param(format!("--size {s}: must be in 64..=1518")));
        }
        if matches!(cfg.stream, GenStream::Ccn { .. }) {
            return Err(Error::param(
                "--size applies to the zipf and flows streams (ccn packets have their names' sizes)",
            ));
        }
    }
    if cfg.count.is_none() && cfg.duration.is_none() {
        p.note("no --count or --duration: sending until interrupted");
    }
    let t = cfg.table.build()?;
    let prefixes: Vec<Prefix<u32>> = match &cfg.routes {
        None => Vec::new(),
        Some(path) => {
            if cfg.stream != GenStream::Flows {
                return Err(Error::param("--routes applies to the flows stream"));
            }
            let t = read_table::<u32>(path, &NextHopScheme::Hash(16))?;
            if t.routes.is_empty() {
                return Err(Error::param(format!(
                    "--routes {}: no IPv4 route in the table",
                    path.display()
                )));
            }
            t.routes.iter().map(|r| r.prefix).collect()
        }
    };
    let dsts = (!prefixes.is_empty()).then_some(&prefixes[..]);
    let frame_len = cfg.size.map(|s| s - 4);
    let seed = cfg.table.seed;
    let mut src: Box<dyn FrameSource + '_> = match &cfg.stream {
        GenStream::Zipf => Box::new(zipf_frames(&t, seed, frame_len)),
        GenStream::Flows => Box::new(flow_frames(&t, seed, frame_len, dsts)),
        GenStream::Ccn {
            prefix,
            chunks,
            payload,
            interests_only,
        } => Box::new(ccn_frames(
            &t,
            seed,
            prefix,
            *chunks,
            *payload,
            *interests_only,
        )),
    };
    let mut tx = AfPacketTx::open(&cfg.iface, true).map_err(Error::Param)?;
    let count = cfg.count.unwrap_or(u64::MAX);
    p.start(&format!("gen on {}", cfg.iface), cfg.count);
    let mut f = Vec::with_capacity(2048);
    let cpu0 = super::forward::cpu_seconds();
    let t0 = Instant::now();
    let mut sent = 0u64;
    let mut last_report = 0u64;
    while sent < count && !stop.load(Ordering::Relaxed) {
        let el = t0.elapsed().as_secs_f64();
        if cfg.duration.is_some_and(|d| el >= d) {
            break;
        }
        let mut n = cfg.burst as u64;
        if let Some(r) = cfg.rate {
            let due = (el * r) as u64 + 1;
            let tokens = due.saturating_sub(sent);
            if tokens == 0 {
                let wait = (sent as f64 / r) - el;
                if wait > 200e-6 {
                    std::thread::sleep(Duration::from_secs_f64(wait - 100e-6));
                } else {
                    std::hint::spin_loop();
                }
                continue;
            }
            n = n.min(tokens);
        }
        n = n.min(count - sent);
        for _ in 0..n {
            src(sent, &mut f).map_err(|e| {
                Error::output(
                    format!("afpacket:{}", cfg.iface),
                    format!("packet {sent}"),
                    e,
                )
            })?;
            number(&mut f, sent);
            tx.push(&f);
            sent += 1;
        }
        tx.flush();
        if sent - last_report >= 65536 {
            p.set(sent);
            last_report = sent;
        }
    }
    tx.drain(1000);
    let seconds = t0.elapsed().as_secs_f64();
    let cpu_seconds = super::forward::cpu_seconds() - cpu0;
    p.set(sent);
    p.finish();
    let packets = tx.packets();
    let bytes = tx.bytes();
    let per = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
    Ok(GenResult {
        iface: cfg.iface.clone(),
        packets,
        bytes,
        seconds,
        pps: per(packets as f64),
        bps: per(bytes as f64 * 8.0),
        wire_bps: per((bytes + 24 * packets) as f64 * 8.0),
        rate: cfg.rate,
        rejected: tx.rejected(),
        cpu_seconds,
    })
}

/// Configuration of [`sink`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SinkConfig {
    /// Interface to receive on.
    pub iface: String,
    /// Stop after this many seconds.
    pub duration: Option<f64>,
    /// Stop after this many packets.
    pub count: Option<u64>,
    /// Stop when nothing arrived for this many seconds after the first packet.
    pub idle: Option<f64>,
    /// Distinct (flow, IPv4 identification) pairs remembered for duplicate detection; past
    /// this many packets duplicates are no longer looked for.
    pub duplicate_window: usize,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            iface: String::new(),
            duration: None,
            count: None,
            idle: None,
            duplicate_window: 1 << 20,
        }
    }
}

/// Result of [`sink`].
#[derive(Clone, Debug, Default, Serialize)]
pub struct SinkResult {
    /// Interface.
    pub iface: String,
    /// Frames received.
    pub packets: u64,
    /// Frame bytes received.
    pub bytes: u64,
    /// Distinct 5-tuples.
    pub flows: u64,
    /// IPv4 TTL / IPv6 hop limit → packets.
    pub ttl: BTreeMap<u8, u64>,
    /// IP packets with a bad IPv4 header checksum or a bad transport checksum.
    pub checksum_errors: u64,
    /// … of which a bad IPv4 header checksum.
    pub ip_checksum_errors: u64,
    /// Frames that are not IP (or not parsable).
    pub non_ip: u64,
    /// IPv4 packets whose (5-tuple, identification) was already seen.
    pub duplicates: u64,
    /// Packets checked for duplicates (at most `duplicate_window`).
    pub duplicate_checked: u64,
    /// Frames the kernel dropped because the rx ring was full.
    pub kernel_drops: u64,
    /// Seconds from the first to the last packet.
    pub active_seconds: f64,
    /// Packets per second over the active period.
    pub pps: f64,
    /// Seconds the sink ran.
    pub seconds: f64,
}

/// Receives on `cfg.iface` until `count` packets, `duration`, `idle` or `stop`, and counts
/// what arrived: packets, bytes, flows, TTLs, checksum errors, duplicates.
pub fn sink(cfg: &SinkConfig, stop: &AtomicBool, p: &dyn Progress) -> Result<SinkResult> {
    if let Some(n) = cfg.count {
        super::check::at_least("--count", n, 1)?;
    }
    for (flag, v) in [("--duration", cfg.duration), ("--idle", cfg.idle)] {
        if let Some(v) = v {
            if !(v > 0.0 && v.is_finite()) {
                return Err(Error::param(format!(
                    "{flag} {v}: must be positive seconds"
                )));
            }
        }
    }
    let never = Arc::new(AtomicBool::new(false));
    let mut rx = AfPacketRx::open(&cfg.iface, 0, None, never).map_err(Error::Param)?;
    p.note(&format!("sink: listening on afpacket:{}", cfg.iface));
    p.start(&format!("sink on {}", cfg.iface), cfg.count);
    let mut r = SinkResult {
        iface: cfg.iface.clone(),
        ..SinkResult::default()
    };
    let mut flows: HashSet<FlowKey> = HashSet::new();
    let mut seen: HashSet<(FlowKey, u16)> = HashSet::new();
    let count = cfg.count.unwrap_or(u64::MAX);
    let t0 = Instant::now();
    let (mut first, mut last) = (None::<Instant>, Instant::now());
    let mut last_report = 0;
    let mut on_frame = |r: &mut SinkResult, d: &[u8]| {
        r.packets += 1;
        r.bytes += d.len() as u64;
        let Some(c) = check_frame(d) else {
            r.non_ip += 1;
            return;
        };
        *r.ttl.entry(c.ttl).or_default() += 1;
        if !c.ip_ok || !c.l4_ok {
            r.checksum_errors += 1;
            r.ip_checksum_errors += u64::from(!c.ip_ok);
        }
        if let Some(k) = flow_key(pcap_parser::Linktype::ETHERNET, d) {
            flows.insert(k);
            if !k.v6 && seen.len() < cfg.duplicate_window {
                r.duplicate_checked += 1;
                if !seen.insert((k, c.ip_id)) {
                    r.duplicates += 1;
                }
            }
        }
    };
    while r.packets < count {
        let now = Instant::now();
        let timed_out = cfg.duration.is_some_and(|d| (now - t0).as_secs_f64() >= d);
        let idle = first.is_some() && cfg.idle.is_some_and(|i| (now - last).as_secs_f64() >= i);
        if timed_out || idle || stop.load(Ordering::Relaxed) {
            // Count what is already in the ring, then stop.
            while r.packets < count {
                let want = (count - r.packets).min(1024) as usize;
                if rx.visit(want, |d, _, _| on_frame(&mut r, d)) == 0 {
                    break;
                }
            }
            break;
        }
        rx.wait(20);
        let want = (count - r.packets).min(1024) as usize;
        let n = rx.visit(want, |d, _, _| on_frame(&mut r, d));
        if n > 0 {
            let now = Instant::now();
            first.get_or_insert(now);
            last = now;
            if r.packets - last_report >= 65536 {
                p.set(r.packets);
                last_report = r.packets;
            }
        }
    }
    rx.poll_kernel_stats();
    r.kernel_drops = rx.counters().snapshot().rx_ring_drops;
    p.set(r.packets);
    p.finish();
    r.flows = flows.len() as u64;
    r.seconds = t0.elapsed().as_secs_f64();
    if let Some(f) = first {
        r.active_seconds = (last - f).as_secs_f64();
        if r.active_seconds > 0.0 {
            r.pps = r.packets as f64 / r.active_seconds;
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use pktlab::io::pcap_write::{build_frame, Ips, L4};

    #[test]
    fn numbering_keeps_checksums_valid() {
        let mut f = Vec::new();
        build_frame(
            &mut f,
            Ips::V4(0x0a000001, 0x01020304),
            L4::Udp { sport: 1, dport: 2 },
            b"abc",
        )
        .unwrap();
        for i in [0u64, 1, 65535, 65536 + 7, u64::MAX] {
            number(&mut f, i);
            let c = check_frame(&f).unwrap();
            assert!(c.ip_ok && c.l4_ok);
            assert_eq!(c.ip_id, i as u16);
        }
    }

    #[test]
    fn bad_parameters_and_missing_interfaces_are_one_line_errors() {
        let stop = AtomicBool::new(false);
        let cfg = GenConfig {
            iface: "pktlab-nosuch0".into(),
            count: Some(1),
            ..GenConfig::default()
        };
        let e = gen(&cfg, &stop, &Silent).unwrap_err().to_string();
        assert!(
            e.contains("afpacket:pktlab-nosuch0: no such interface"),
            "{e}"
        );
        let e = gen(
            &GenConfig {
                size: Some(20),
                ..cfg.clone()
            },
            &stop,
            &Silent,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("--size 20"), "{e}");
        let e = sink(
            &SinkConfig {
                iface: "pktlab-nosuch0".into(),
                ..SinkConfig::default()
            },
            &stop,
            &Silent,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no such interface") && !e.contains('\n'), "{e}");
    }
}
