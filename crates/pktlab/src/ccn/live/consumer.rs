//! The consumer of paper 003 (§3–4: Interests for 2^26 names with Zipf(0.8) popularity, drawn
//! from the inverse-transform table with a merged tail) on a real UDP face: a window of
//! outstanding Interests, optional pacing, Data matched by name, timeouts and RTT percentiles.
//!
//! Names are `/<prefix>/<rank>/<chunk 0>` in the chosen dialect: Cefore caches only chunked
//! names. Matching ignores how a chunk number is encoded (Cefore may re-encode it), so an
//! Interest is matched by its generic segments plus the chunk number's value. Two outstanding
//! Interests for the same name are one pending entry with a count (a router aggregates them and
//! answers once); a Data satisfies all of them.

use super::{Control, Histogram, RttSummary};
use crate::ccn::fib::IdHasher;
use crate::ccn::tlv::{self, Dialect, InterestOpts, Kind, TlvError};
use crate::ccn::udp::{self, RxBatch, TxBatch};
use crate::traffic::{SplitMix64, ZipfTable};
use crate::util::splitmix64;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Consumer settings.
#[derive(Clone, Debug)]
pub struct ConsumerConfig {
    /// The router (or producer) to send Interests to.
    pub to: SocketAddr,
    /// Local address (port 0 = any).
    pub bind: SocketAddr,
    /// Name prefix (URI).
    pub prefix: String,
    /// Number of distinct contents (Zipf ranks).
    pub contents: u64,
    /// Zipf exponent.
    pub alpha: f64,
    /// Zipf table entries (the generator's merged-tail budget).
    pub table_entries: u64,
    /// Interests per second (`None` = as fast as the window allows).
    pub rate: Option<f64>,
    /// Most outstanding Interests.
    pub window: usize,
    /// Measured run length.
    pub duration: Duration,
    /// Unmeasured run before it (fills caches; counters restart after it).
    pub warmup: Duration,
    /// An Interest unanswered this long counts as a timeout.
    pub timeout_ms: u64,
    /// InterestLifetime carried by each Interest (`None` = omit).
    pub lifetime_ms: Option<u16>,
    /// Hop limit.
    pub hop_limit: u8,
    /// Add a chunk-number segment (chunk 0) to every name.
    pub chunked: bool,
    /// Wire dialect.
    pub dialect: Dialect,
    /// Datagrams per system call.
    pub batch: usize,
    /// Seed of the name stream.
    pub seed: u64,
}

impl ConsumerConfig {
    /// Refuses impossible values (one-line error naming the CLI flag and the accepted range).
    pub fn validate(&self) -> crate::params::Result<()> {
        use crate::params as check;
        check::int_range("--contents", self.contents, 1, 1 << 32)?;
        check::positive("--alpha", self.alpha)?;
        check::int_range("--table-entries", self.table_entries, 1, 1 << 26)?;
        if let Some(r) = self.rate {
            check::positive("--rate", r)?;
        }
        check::int_range("--window", self.window as u64, 1, 1 << 20)?;
        check::warmup_duration(self.warmup.as_secs_f64(), self.duration.as_secs_f64())?;
        check::int_range("--timeout-ms", self.timeout_ms, 1, 3_600_000)?;
        check::int_range("--batch", self.batch as u64, 1, 1024)
    }
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        ConsumerConfig {
            to: "127.0.0.1:9695".parse().unwrap(),
            bind: "127.0.0.1:0".parse().unwrap(),
            prefix: "/cefore".into(),
            contents: 1 << 26,
            alpha: 0.8,
            table_entries: 1 << 16,
            rate: None,
            window: 16,
            duration: Duration::from_secs(10),
            warmup: Duration::ZERO,
            timeout_ms: 1000,
            lifetime_ms: Some(4000),
            hop_limit: 32,
            chunked: true,
            dialect: Dialect::default(),
            batch: 32,
            seed: 1,
        }
    }
}

/// Live counter indices in [`Control`] for the consumer.
pub mod ctr {
    /// Interests sent (measured window).
    pub const SENT: usize = 0;
    /// Data received (measured window).
    pub const DATA: usize = 1;
    /// Timeouts (measured window).
    pub const TIMEOUTS: usize = 2;
}

/// What the consumer measured (after the warm-up).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ConsumerResult {
    /// Dialect spoken.
    pub dialect: String,
    /// Where Interests went.
    pub to: String,
    /// Prefix.
    pub prefix: String,
    /// Contents (Zipf ranks).
    pub contents: u64,
    /// Zipf exponent.
    pub alpha: f64,
    /// Window.
    pub window: usize,
    /// Interests sent.
    pub interests_sent: u64,
    /// Data packets received (well-formed Content Objects).
    pub data_received: u64,
    /// Interests satisfied (≥ Data received when the same name was pending twice).
    pub interests_satisfied: u64,
    /// Interests unanswered within the timeout.
    pub timeouts: u64,
    /// Data for a name no longer pending: a second answer when the name was requested again
    /// before the first answer arrived (e.g. one from the PIT, one from the CS), or late after
    /// a timeout. Included in `data_received`.
    pub late_or_duplicate: u64,
    /// Interests received (a consumer answers none).
    pub interests_ignored: u64,
    /// Malformed datagrams.
    pub malformed: u64,
    /// Interest Return / CCNinfo packets skipped.
    pub skipped: u64,
    /// Interests pending when the measurement started (sent during the warm-up); they end in
    /// the measured window, so `interests_sent + carried_over = interests_satisfied + timeouts
    /// + pending_at_end`.
    pub carried_over: u64,
    /// Interests left pending at the end (neither answered nor timed out yet).
    pub pending_at_end: u64,
    /// Measured seconds.
    pub elapsed_s: f64,
    /// Interests sent per second.
    pub interests_per_s: f64,
    /// Data received per second.
    pub data_per_s: f64,
    /// Round-trip times (µs) of satisfied Interests, from the first send of the name.
    pub rtt_us: RttSummary,
    /// Warm-up seconds run before the measurement.
    pub warmup_s: f64,
}

#[derive(Clone, Copy)]
struct Pending {
    count: u32,
    sent_us: u64,
}

/// Name key independent of the chunk number's encoding: generic segments hashed, chunk value
/// mixed in.
fn match_key(name: &[u8], dialect: Dialect) -> u64 {
    let ct = dialect.chunk_type();
    tlv::segments(name).fold(tlv::EMPTY_NAME_HASH, |h, (t, v)| {
        if t == ct && v.len() <= 8 {
            let c = v.iter().fold(0u64, |a, &b| (a << 8) | b as u64);
            splitmix64(h ^ c ^ 0xC4C4_C4C4)
        } else {
            splitmix64(h ^ tlv::segment_hash(t, v))
        }
    })
}

/// Runs the consumer: `warmup`, then `duration` measured; `progress` gets the measured result
/// so far once per second (during the warm-up too, with `warmup_s` still growing).
pub fn run_consumer(
    cfg: &ConsumerConfig,
    ctl: &Control,
    progress: &mut dyn FnMut(&ConsumerResult),
) -> io::Result<ConsumerResult> {
    cfg.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let table = ZipfTable::new(cfg.alpha, cfg.contents, cfg.table_entries)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let sock = udp::bind(cfg.bind, false)?;
    ctl.set_bound(sock.local_addr()?);
    let (mut rx, mut tx) = (RxBatch::new(cfg.batch), TxBatch::new(cfg.batch));
    let mut prefix = Vec::new();
    tlv::name_from_uri_in(&cfg.prefix, cfg.dialect, &mut prefix);
    let opts = InterestOpts {
        hop_limit: cfg.hop_limit,
        lifetime_ms: cfg.lifetime_ms,
    };
    let mut rng = SplitMix64::new(cfg.seed);
    let mut pending: HashMap<u64, Pending, BuildHasherDefault<IdHasher>> =
        HashMap::with_capacity_and_hasher(cfg.window * 2, Default::default());
    let mut order: VecDeque<(u64, u64)> = VecDeque::with_capacity(cfg.window * 4);
    let mut outstanding = 0usize;
    let (mut name, mut pkt, mut digits) =
        (Vec::with_capacity(256), Vec::with_capacity(512), [0u8; 20]);
    let mut hist = Histogram::default();
    let mut r = ConsumerResult {
        dialect: cfg.dialect.as_str().into(),
        to: cfg.to.to_string(),
        prefix: cfg.prefix.clone(),
        contents: cfg.contents,
        alpha: cfg.alpha,
        window: cfg.window,
        ..Default::default()
    };
    let t_start = Instant::now();
    let mut t0 = t_start; // start of the measured window
    let mut measuring = cfg.warmup.is_zero();
    let mut sent_at_t0 = 0u64; // Interests sent since t0 (for pacing)
    let mut next_report = 1.0;
    let timeout_us = cfg.timeout_ms * 1000;
    loop {
        let now_i = Instant::now();
        if !measuring && now_i.duration_since(t_start) >= cfg.warmup {
            // Restart the counters; what is pending stays pending and is counted when it ends.
            measuring = true;
            r.warmup_s = now_i.duration_since(t_start).as_secs_f64();
            let keep = (
                r.warmup_s,
                r.dialect.clone(),
                r.to.clone(),
                r.prefix.clone(),
            );
            r = ConsumerResult {
                warmup_s: keep.0,
                dialect: keep.1,
                to: keep.2,
                prefix: keep.3,
                contents: cfg.contents,
                alpha: cfg.alpha,
                window: cfg.window,
                carried_over: outstanding as u64,
                ..Default::default()
            };
            hist = Histogram::default();
            t0 = now_i;
            sent_at_t0 = 0;
        }
        let el = now_i.duration_since(t0).as_secs_f64();
        if ctl.stopped() || (measuring && el >= cfg.duration.as_secs_f64()) {
            break;
        }
        let now_us = now_i.duration_since(t_start).as_micros() as u64;
        let since = now_i.duration_since(t_start).as_secs_f64();
        if since >= next_report {
            next_report += 1.0;
            r.elapsed_s = el;
            progress(&r);
        }
        // Send what the window and the rate allow.
        let mut budget = cfg.window.saturating_sub(outstanding).min(cfg.batch);
        if let Some(rate) = cfg.rate {
            let allowed = (rate * el) as u64 + 1;
            budget = budget.min(allowed.saturating_sub(sent_at_t0) as usize);
        }
        for _ in 0..budget {
            let rank = table.sample(&mut rng);
            name.clear();
            name.extend_from_slice(&prefix);
            tlv::push_segment(
                &mut name,
                tlv::T_NAMESEGMENT,
                crate::ccn::sim::decimal(rank, &mut digits),
            );
            if cfg.chunked {
                tlv::push_chunk(&mut name, cfg.dialect, 0);
            }
            tlv::build_interest_opts(&mut pkt, &name, &opts);
            tx.push(cfg.to, &pkt);
            let key = match_key(&name, cfg.dialect);
            let e = pending.entry(key).or_insert(Pending {
                count: 0,
                sent_us: now_us,
            });
            if e.count == 0 {
                e.sent_us = now_us;
                order.push_back((key, now_us));
            }
            e.count += 1;
            outstanding += 1;
            r.interests_sent += 1;
            sent_at_t0 += 1;
        }
        if !tx.is_empty() {
            tx.flush(&sock)?;
        }
        // Receive.
        let n = rx.recv(&sock)?;
        let now_us = t_start.elapsed().as_micros() as u64;
        for i in 0..n {
            let (d, _) = rx.get(i);
            match tlv::parse(d) {
                Ok(p) if p.kind == Kind::Data => {
                    let key = match_key(p.name, cfg.dialect);
                    r.data_received += 1;
                    match pending.remove(&key) {
                        Some(e) => {
                            r.interests_satisfied += e.count as u64;
                            outstanding -= e.count as usize;
                            hist.record(now_us.saturating_sub(e.sent_us));
                        }
                        None => r.late_or_duplicate += 1,
                    }
                }
                Ok(_) => r.interests_ignored += 1,
                Err(TlvError::Unhandled(_)) => r.skipped += 1,
                Err(_) => r.malformed += 1,
            }
        }
        // Timeouts, oldest first.
        while let Some(&(key, sent)) = order.front() {
            if now_us < sent + timeout_us {
                break;
            }
            order.pop_front();
            if let Some(e) = pending.get(&key) {
                if e.sent_us == sent {
                    r.timeouts += e.count as u64;
                    outstanding -= e.count as usize;
                    pending.remove(&key);
                }
            }
        }
        ctl.publish(&[r.interests_sent, r.data_received, r.timeouts]);
        if n == 0 && budget == 0 {
            udp::wait_readable(&[&sock], 1);
        }
    }
    r.elapsed_s = t0.elapsed().as_secs_f64();
    r.pending_at_end = outstanding as u64;
    r.interests_per_s = r.interests_sent as f64 / r.elapsed_s.max(1e-9);
    r.data_per_s = r.data_received as f64 / r.elapsed_s.max(1e-9);
    r.rtt_us = hist.summary();
    ctl.publish(&[r.interests_sent, r.data_received, r.timeouts]);
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_key_ignores_chunk_encoding() {
        let d = Dialect::V012;
        let mut a = Vec::new();
        tlv::name_from_uri_in("/p/7/chunk=0", d, &mut a);
        let mut b = Vec::new();
        tlv::name_from_uri_in("/p/7", d, &mut b);
        tlv::push_segment(&mut b, d.chunk_type(), &[0, 0, 0, 0]);
        assert_eq!(match_key(&a, d), match_key(&b, d));
        let mut c = Vec::new();
        tlv::name_from_uri_in("/p/7/chunk=1", d, &mut c);
        assert_ne!(match_key(&a, d), match_key(&c, d));
        tlv::name_from_uri_in("/p/8/chunk=0", d, &mut c);
        assert_ne!(match_key(&a, d), match_key(&c, d));
    }
}
