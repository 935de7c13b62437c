//! The producer of paper 003's demo (§5: "the producer returns Data to the Cefore router"):
//! answers every Interest under a prefix with a Content Object of a fixed payload size, shaped
//! as Cefore's own `cefputfile` shapes it (cache time + ExpiryTime always together, EndChunkNumber
//! on an object's last chunk, unsigned — Cefore validates nothing by default).

use super::Control;
use crate::ccn::tlv::{self, CacheTimes, DataOpts, Dialect, Kind, TlvError};
use crate::ccn::udp::{self, RxBatch, TxBatch};
use serde::Serialize;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Producer settings.
#[derive(Clone, Debug)]
pub struct ProducerConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Name prefix served (URI, e.g. `/cefore`).
    pub prefix: String,
    /// Payload bytes per Data packet.
    pub payload: usize,
    /// Wire dialect (chunk-segment type for EndChunkNumber).
    pub dialect: Dialect,
    /// Recommended cache time and expiry, seconds from now, written into every Data.
    pub cache_time_s: u64,
    /// Chunks per object: chunk `chunks − 1` carries EndChunkNumber (1 = every chunk-0 Data
    /// is the last one).
    pub chunks: u64,
    /// Datagrams per system call.
    pub batch: usize,
    /// Stop after this long (`None` = until stopped).
    pub duration: Option<Duration>,
}

impl ProducerConfig {
    /// Refuses impossible values (one-line error naming the CLI flag and the accepted range).
    pub fn validate(&self) -> crate::params::Result<()> {
        use crate::params as check;
        check::int_range("--payload", self.payload as u64, 0, 8000)?;
        check::require(self.cache_time_s >= 1, "--cache-time", || {
            "must be at least 1 s: Data without a cache time is not cached by Cefore (got 0)".into()
        })?;
        check::int_range("--chunks", self.chunks, 1, 1 << 32)?;
        check::int_range("--batch", self.batch as u64, 1, 1024)?;
        if let Some(d) = self.duration {
            check::positive("--duration", d.as_secs_f64())?;
        }
        Ok(())
    }
}

impl Default for ProducerConfig {
    fn default() -> Self {
        ProducerConfig {
            listen: "127.0.0.1:9696".parse().unwrap(),
            prefix: "/cefore".into(),
            payload: 1024,
            dialect: Dialect::default(),
            cache_time_s: 3600,
            chunks: 1,
            batch: 64,
            duration: None,
        }
    }
}

/// Live counter indices in [`Control`] for the producer.
pub mod ctr {
    /// Interests answered.
    pub const ANSWERED: usize = 0;
    /// Interests outside the prefix.
    pub const NOT_OURS: usize = 1;
    /// Malformed datagrams.
    pub const MALFORMED: usize = 2;
}

/// What the producer did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProducerResult {
    /// Dialect spoken.
    pub dialect: String,
    /// Listening address.
    pub listen: String,
    /// Prefix served.
    pub prefix: String,
    /// Payload bytes per Data.
    pub payload: usize,
    /// Datagrams received.
    pub received: u64,
    /// Interests answered with Data.
    pub interests: u64,
    /// Data packets sent.
    pub data_sent: u64,
    /// Interests whose name is outside the prefix (not answered).
    pub not_ours: u64,
    /// Data packets received (a producer ignores them).
    pub data_ignored: u64,
    /// Malformed datagrams (counted, dropped).
    pub malformed: u64,
    /// Interest Return / CCNinfo packets (counted, skipped).
    pub skipped: u64,
    /// Sends the kernel refused.
    pub send_errors: u64,
    /// Seconds run.
    pub elapsed_s: f64,
}

/// Runs the producer until `ctl` is stopped or the duration passes; `progress` gets the result
/// so far once per second.
pub fn run_producer(
    cfg: &ProducerConfig,
    ctl: &Control,
    progress: &mut dyn FnMut(&ProducerResult),
) -> io::Result<ProducerResult> {
    cfg.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let sock = udp::bind(cfg.listen, false)?;
    ctl.set_bound(sock.local_addr()?);
    let mut prefix = Vec::new();
    tlv::name_from_uri_in(&cfg.prefix, cfg.dialect, &mut prefix);
    let payload: Vec<u8> = (0..cfg.payload).map(|i| (i % 251) as u8).collect();
    let (mut rx, mut tx) = (RxBatch::new(cfg.batch), TxBatch::new(cfg.batch));
    let mut r = ProducerResult {
        dialect: cfg.dialect.as_str().into(),
        listen: sock.local_addr()?.to_string(),
        prefix: cfg.prefix.clone(),
        payload: cfg.payload,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(cfg.payload + 512);
    let t0 = Instant::now();
    let mut next_report = 1.0;
    let last_chunk = cfg.chunks.max(1) - 1;
    while !ctl.stopped() {
        let el = t0.elapsed().as_secs_f64();
        if cfg.duration.is_some_and(|d| el >= d.as_secs_f64()) {
            break;
        }
        if el >= next_report {
            next_report += 1.0;
            r.elapsed_s = el;
            progress(&r);
        }
        let n = rx.recv(&sock)?;
        if n == 0 {
            udp::wait_readable(&[&sock], 10);
            continue;
        }
        let now = super::unix_ms();
        let cache = CacheTimes {
            cache_time_ms: now + cfg.cache_time_s * 1000,
            expiry_ms: now + cfg.cache_time_s * 1000,
        };
        for i in 0..n {
            r.received += 1;
            let (pkt, from) = rx.get(i);
            let Some(from) = from else { continue };
            match tlv::parse(pkt) {
                Ok(p) if p.kind == Kind::Interest => {
                    if !p.name.starts_with(&prefix) {
                        r.not_ours += 1;
                        continue;
                    }
                    let end = tlv::chunk_number(p.name, cfg.dialect).filter(|&c| c >= last_chunk);
                    let opts = DataOpts {
                        cache: Some(cache),
                        end_chunk: end,
                    };
                    tlv::build_data_opts(&mut out, p.name, &payload, &opts);
                    if tx.is_full() {
                        tx.flush(&sock)?;
                    }
                    tx.push(from.addr(), &out);
                    r.interests += 1;
                }
                Ok(_) => r.data_ignored += 1,
                Err(TlvError::Unhandled(_)) => r.skipped += 1,
                Err(_) => r.malformed += 1,
            }
        }
        tx.flush(&sock)?;
        r.data_sent = tx.sent;
        r.send_errors = tx.send_errors;
        ctl.publish(&[r.interests, r.not_ours, r.malformed]);
    }
    r.data_sent = tx.sent;
    r.send_errors = tx.send_errors;
    r.elapsed_s = t0.elapsed().as_secs_f64();
    ctl.publish(&[r.interests, r.not_ours, r.malformed]);
    Ok(r)
}
