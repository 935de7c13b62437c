//! CCN on the wire (paper 003 §4, the Cefore case study run on real sockets): a UDP router
//! ([`router`]: the CS → PIT → FIB [`Forwarder`](super::Forwarder) on UDP faces), a Zipf
//! consumer ([`consumer`]) and a producer ([`producer`]) that speak CCNx as Cefore does
//! ([`Dialect`](super::tlv::Dialect)), so that either side can be swapped for Cefore's
//! `cefnetd`.
//!
//! Each role is a function taking a config and a [`Control`] (stop flag, live counters) and
//! returning a serde-serialisable result; progress goes to a callback once per second. Nothing
//! here prints.

pub mod consumer;
pub mod producer;
pub mod router;

use serde::Serialize;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

pub use consumer::{run_consumer, ConsumerConfig, ConsumerResult};
pub use producer::{run_producer, ProducerConfig, ProducerResult};
pub use router::{run_router, RouterConfig, RouterResult};

/// Stops a running role and exposes its counters while it runs (for another thread, e.g. a
/// measurement that snapshots the router around a measured window).
#[derive(Debug)]
pub struct Control {
    stop: AtomicBool,
    counters: [AtomicU64; 16],
    bound: OnceLock<SocketAddr>,
}

impl Default for Control {
    fn default() -> Self {
        Control {
            stop: AtomicBool::new(false),
            counters: std::array::from_fn(|_| AtomicU64::new(0)),
            bound: OnceLock::new(),
        }
    }
}

impl Control {
    /// A fresh control: not stopped, counters zero.
    pub fn new() -> Control {
        Control::default()
    }

    /// Asks the role to stop (it returns within about 10 ms).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// True once [`stop`](Self::stop) was called.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Live counter `i` (each role documents its indices as constants).
    pub fn get(&self, i: usize) -> u64 {
        self.counters[i].load(Ordering::Relaxed)
    }

    /// The address the role's (first) socket was bound to, once it is (port 0 in a config
    /// becomes the real port here).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.bound.get().copied()
    }

    /// Waits up to `timeout` for [`local_addr`](Self::local_addr).
    pub fn wait_bound(&self, timeout: std::time::Duration) -> Option<SocketAddr> {
        let t0 = std::time::Instant::now();
        loop {
            if let Some(a) = self.local_addr() {
                return Some(a);
            }
            if t0.elapsed() > timeout {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    pub(crate) fn set_bound(&self, a: SocketAddr) {
        let _ = self.bound.set(a);
    }

    pub(crate) fn publish(&self, vals: &[u64]) {
        for (c, &v) in self.counters.iter().zip(vals) {
            c.store(v, Ordering::Relaxed);
        }
    }
}

/// Milliseconds since the Unix epoch (Cefore's cache time and expiry are absolute).
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

crate::util::message_error!(
    /// The error type of the live CCN module (a face address that does not parse).
    LiveError
);

/// Parses a face address `udp:ADDR:PORT` (or plain `ADDR:PORT`; IPv6 as `udp:[::1]:PORT`).
pub fn parse_face(s: &str) -> Result<SocketAddr, LiveError> {
    let a = s.strip_prefix("udp:").unwrap_or(s);
    a.parse()
        .map_err(|_| format!("{s:?}: expected udp:ADDR:PORT (e.g. udp:127.0.0.1:9695)").into())
}

/// A log-linear histogram of microsecond values: exact below 64, then 16 sub-buckets per power
/// of two (≤ 6.25% relative error). Fixed size, no allocation after construction.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; 64 + 64 * 16],
            total: 0,
            max: 0,
            sum: 0,
        }
    }
}

impl Histogram {
    fn bucket(v: u64) -> usize {
        if v < 64 {
            v as usize
        } else {
            let e = 63 - v.leading_zeros() as usize; // ≥ 6
            let sub = ((v >> (e - 4)) & 15) as usize;
            64 + (e - 6) * 16 + sub
        }
    }

    fn lower(b: usize) -> u64 {
        if b < 64 {
            b as u64
        } else {
            let (e, sub) = ((b - 64) / 16 + 6, (b - 64) % 16);
            (1u64 << e) | ((sub as u64) << (e - 4))
        }
    }

    /// Records one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = Self::bucket(v).min(self.counts.len() - 1);
        self.counts[b] += 1;
        self.total += 1;
        self.max = self.max.max(v);
        self.sum += v as u128;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The value at quantile `q` in [0, 1] (bucket lower bound; 0 when empty).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::lower(b).min(self.max);
            }
        }
        self.max
    }

    /// Summary for JSON.
    pub fn summary(&self) -> RttSummary {
        RttSummary {
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            max: self.max,
            mean: if self.total == 0 {
                0.0
            } else {
                self.sum as f64 / self.total as f64
            },
        }
    }
}

/// Round-trip-time percentiles in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RttSummary {
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest.
    pub max: u64,
    /// Mean.
    pub mean: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles_within_bucket_error() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for (q, want) in [(0.5, 50_000.0), (0.9, 90_000.0), (0.99, 99_000.0)] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.07, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(0.0001), 10);
        assert_eq!(h.summary().max, 100_000);
        for v in [0u64, 63, 64, 1000, u32::MAX as u64] {
            assert!(Histogram::lower(Histogram::bucket(v)) <= v);
        }
    }

    #[test]
    fn faces_parse() {
        assert_eq!(
            parse_face("udp:127.0.0.1:9695").unwrap(),
            "127.0.0.1:9695".parse().unwrap()
        );
        assert!(parse_face("udp:[::1]:9695").is_ok());
        assert!(parse_face("tcp:1.2.3.4")
            .unwrap_err()
            .to_string()
            .contains("udp:ADDR:PORT"));
    }
}
