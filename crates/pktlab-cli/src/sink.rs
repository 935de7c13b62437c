//! `pktlab sink --rx afpacket:IFACE`: counts what arrives on a live interface
//! (`pktlab_lab::live::sink`) and prints it.

use crate::live::{secs, stop_flag};
use crate::progress::Bars;
use crate::size::parse_size;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use pktlab_lab::live::{self, SinkConfig};
use std::time::Duration;

/// Receive on a live interface and count packets, flows, TTLs, checksum errors and
/// duplicates (the receiving end of `pktlab gen … --tx`).
#[derive(Args, Debug)]
pub struct SinkArgs {
    /// Receive port: afpacket:IFACE.
    #[arg(long)]
    rx: String,
    /// Stop after this many seconds (default: until SIGINT, --count or --idle).
    #[arg(long, value_parser = secs)]
    duration: Option<Duration>,
    /// Stop after this many packets.
    #[arg(long, value_parser = parse_size)]
    count: Option<u64>,
    /// Stop when nothing arrived for this many seconds after the first packet.
    #[arg(long, value_parser = secs)]
    idle: Option<Duration>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `pktlab sink`.
pub fn run(a: SinkArgs) -> Result<i32> {
    let Some(iface) = a.rx.strip_prefix("afpacket:").filter(|i| !i.is_empty()) else {
        bail!("--rx {:?}: expected afpacket:IFACE", a.rx);
    };
    let cfg = SinkConfig {
        iface: iface.to_string(),
        duration: a.duration.map(|d| d.as_secs_f64()),
        count: a.count,
        idle: a.idle.map(|d| d.as_secs_f64()),
        ..SinkConfig::default()
    };
    let stop = stop_flag();
    let r = live::sink(&cfg, &stop, &Bars::new()).map_err(|e| anyhow!(e))?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
        return Ok(0);
    }
    println!(
        "{} packets ({} bytes, {} flows) on {} in {:.3} s active ({:.0} pps); checksum errors {}, non-IP {}, duplicates {}, kernel drops {}",
        r.packets,
        r.bytes,
        r.flows,
        r.iface,
        r.active_seconds,
        r.pps,
        r.checksum_errors,
        r.non_ip,
        r.duplicates,
        r.kernel_drops
    );
    let ttl: Vec<String> = r.ttl.iter().map(|(t, n)| format!("{t}: {n}")).collect();
    println!("TTL / hop limit: {}", ttl.join(", "));
    Ok(0)
}
