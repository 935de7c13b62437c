//! Synthetic packet trace for the packet processing cache study (paper 000, §3 and §5.1: the
//! paper uses real WIDE/Academic traces, which cannot be had offline; this generator stands in
//! for them, calibrated on a real flow-length histogram).
//!
//! Model (stated so results can be reproduced and criticised):
//! * **Flow lengths** are drawn from the AGH 2015-06-10 19:00 flow-length histogram (6.5 M flows,
//!   680.9 M packets; 44.7% one-packet flows, 0.66% of flows ≥ 1000 packets carrying 88.6% of
//!   packets). Embedded: 85 bins (exact up to 16 packets, then quarter-octave bins, uniform
//!   inside a bin: mean 104.9 vs the real 104.5). [`LengthHist::from_csv`] reads the full
//!   `length.csv` instead.
//! * **Flow arrivals** are Poisson, default 1,810 flows/s (AGH: 6,517,484 flows in one hour),
//!   hence ≈ 189 k packets/s as in AGH.
//! * **Packets of a flow** are spread with exponential gaps around a per-flow mean gap drawn
//!   log-normally (median 50 ms, σ = 1.5, clamped to [10 µs, 15 s], the NetFlow inactive
//!   timeout) and shortened so that a flow lasts at most 300 s (the active timeout).
//! * **Warm-up**: flows starting up to 300 s before the trace begins are included from their
//!   first packet inside the trace (gaps are memoryless, so the skipped prefix is drawn in
//!   one step), so the trace starts in steady state.
//! * **5-tuples**: TCP 52.5%, UDP 45.8%, ICMP 1.7% of flows (AGH); source address from a
//!   bijection of the flow id (5-tuples are unique), the rest pseudo-random.
//!
//! Deterministic for a seed; streaming (memory grows with the number of *active* flows only).

use crate::io::IoError;
use crate::net::FlowKey;
use crate::util::{splitmix64, XorShift64};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

/// AGH 2015-06-10 19:00 flow-length histogram: `(lo, hi, flows)` = flows with `lo ≤ length < hi`.
const AGH_LENGTH_BINS: &[(u64, u64, u64)] = &[
    (1, 2, 2910706),
    (2, 3, 1183659),
    (3, 4, 405748),
    (4, 5, 274421),
    (5, 6, 225674),
    (6, 7, 209934),
    (7, 8, 118747),
    (8, 9, 103318),
    (9, 10, 84339),
    (10, 11, 80988),
    (11, 12, 59054),
    (12, 13, 64334),
    (13, 14, 40900),
    (14, 15, 38263),
    (15, 16, 37039),
    (16, 19, 86568),
    (19, 23, 79444),
    (23, 27, 58054),
    (27, 32, 52754),
    (32, 38, 45959),
    (38, 45, 38232),
    (45, 54, 36542),
    (54, 64, 29963),
    (64, 76, 26003),
    (76, 91, 23965),
    (91, 108, 20562),
    (108, 128, 18160),
    (128, 152, 16377),
    (152, 181, 15530),
    (181, 215, 14018),
    (215, 256, 13495),
    (256, 304, 11750),
    (304, 362, 10203),
    (362, 431, 8908),
    (431, 512, 7774),
    (512, 609, 6891),
    (609, 724, 6434),
    (724, 861, 5627),
    (861, 1024, 4690),
    (1024, 1218, 4339),
    (1218, 1448, 4130),
    (1448, 1722, 3480),
    (1722, 2048, 3108),
    (2048, 2435, 2886),
    (2435, 2896, 2852),
    (2896, 3444, 2371),
    (3444, 4096, 1966),
    (4096, 4871, 1911),
    (4871, 5793, 1565),
    (5793, 6889, 1362),
    (6889, 8192, 1226),
    (8192, 9742, 1174),
    (9742, 11585, 993),
    (11585, 13777, 825),
    (13777, 16384, 844),
    (16384, 19484, 767),
    (19484, 23170, 667),
    (23170, 27554, 713),
    (27554, 32768, 618),
    (32768, 38968, 639),
    (38968, 46341, 675),
    (46341, 55109, 658),
    (55109, 65536, 570),
    (65536, 77936, 474),
    (77936, 92682, 406),
    (92682, 110218, 359),
    (110218, 131072, 234),
    (131072, 155872, 229),
    (155872, 185364, 148),
    (185364, 220436, 99),
    (220436, 262144, 53),
    (262144, 311744, 24),
    (311744, 370728, 19),
    (370728, 440872, 16),
    (440872, 524288, 17),
    (524288, 623487, 10),
    (623487, 741455, 11),
    (741455, 881744, 6),
    (881744, 1048576, 1),
    (1048576, 1246974, 3),
    (1246974, 1482910, 2),
    (1482910, 1763488, 4),
    (1763488, 2097152, 1),
    (2097152, 2493948, 1),
    (2493948, 2965821, 1),
];

/// A flow-length distribution: bins of lengths with flow counts; a length is drawn by picking a
/// bin in proportion to its flows, then uniformly inside it.
#[derive(Clone, Debug)]
pub struct LengthHist {
    bins: Vec<(u64, u64)>,
    cum: Vec<u64>,
}

impl LengthHist {
    fn from_bins(it: impl IntoIterator<Item = (u64, u64, u64)>) -> Self {
        let mut bins = Vec::new();
        let mut cum = Vec::new();
        let mut total = 0u64;
        for (lo, hi, f) in it {
            if f == 0 || hi <= lo || lo == 0 {
                continue;
            }
            total += f;
            bins.push((lo, hi));
            cum.push(total);
        }
        LengthHist { bins, cum }
    }

    /// The embedded AGH histogram.
    pub fn agh() -> Self {
        Self::from_bins(AGH_LENGTH_BINS.iter().copied())
    }

    /// A flow-models `length.csv` (`bin_lo,bin_hi,flows_sum,…`).
    pub fn from_csv(path: &Path) -> Result<Self, IoError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| IoError::Open {
            path: name.clone(),
            error,
        })?;
        let mut bins = Vec::new();
        for (i, line) in text.lines().enumerate().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let p = |j: usize| f.get(j).and_then(|s| s.trim().parse::<u64>().ok());
            match (p(0), p(1), p(2)) {
                (Some(lo), Some(hi), Some(n)) => bins.push((lo, hi, n)),
                _ => {
                    return Err(IoError::Unsupported {
                        path: name,
                        msg: format!("line {}: expected bin_lo,bin_hi,flows_sum", i + 1),
                    })
                }
            }
        }
        let h = Self::from_bins(bins);
        if h.bins.is_empty() {
            return Err(IoError::Unsupported {
                path: name,
                msg: "line 1: no bins".into(),
            });
        }
        Ok(h)
    }

    /// Draws a length (≥ 1).
    pub fn sample(&self, rng: &mut XorShift64) -> u64 {
        let Some(&total) = self.cum.last() else {
            return 1;
        };
        let x = rng.next() % total;
        let i = self.cum.partition_point(|&c| c <= x);
        let (lo, hi) = self.bins[i.min(self.bins.len() - 1)];
        lo + rng.next() % (hi - lo)
    }

    /// The distribution's CDF at `len`: (fraction of flows of length ≤ `len`, fraction of
    /// packets in such flows), lengths uniform inside each bin (paper 000 fig. 3's axes).
    pub fn cdf(&self, len: u64) -> (f64, f64) {
        let (mut prev, mut flows, mut pk, mut all_pk) = (0u64, 0.0, 0.0, 0.0);
        for (&(lo, hi), &c) in self.bins.iter().zip(&self.cum) {
            let n = (c - prev) as f64;
            prev = c;
            all_pk += n * (lo + hi - 1) as f64 / 2.0;
            if len >= lo {
                let top = len.min(hi - 1);
                let share = (top - lo + 1) as f64 / (hi - lo) as f64;
                flows += n * share;
                pk += n * share * (lo + top) as f64 / 2.0;
            }
        }
        (flows / prev.max(1) as f64, pk / all_pk.max(1.0))
    }

    /// Mean length of the distribution.
    pub fn mean(&self) -> f64 {
        let mut prev = 0;
        let mut s = 0.0;
        for (&(lo, hi), &c) in self.bins.iter().zip(&self.cum) {
            s += (c - prev) as f64 * (lo + hi - 1) as f64 / 2.0;
            prev = c;
        }
        s / prev.max(1) as f64
    }
}

/// Generator parameters.
#[derive(Clone, Debug)]
pub struct SynthConfig {
    /// Packets to emit.
    pub packets: u64,
    /// Seed.
    pub seed: u64,
    /// Mean new flows per second (AGH: 1,810).
    pub flow_rate: f64,
    /// Median of the per-flow mean packet gap, seconds.
    pub gap_median_s: f64,
    /// Log-normal σ of the per-flow mean gap.
    pub gap_sigma: f64,
    /// Maximum flow duration, seconds (NetFlow active timeout).
    pub max_duration_s: f64,
    /// Flow-length distribution.
    pub lengths: LengthHist,
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            packets: 1_000_000,
            seed: 1,
            flow_rate: 6_517_484.0 / 3600.0,
            gap_median_s: 0.05,
            gap_sigma: 1.5,
            max_duration_s: 300.0,
            lengths: LengthHist::agh(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Active {
    id: u32,
    remaining: u64,
    gap_ns: f64,
}

/// The streaming generator: yields `(ts_ns, flow id)` in time order; flow ids are dense in order
/// of first packet; [`SynthTrace::key`] gives a flow's 5-tuple.
pub struct SynthTrace {
    cfg: SynthConfig,
    rng: XorShift64,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    slots: Vec<Active>,
    free: Vec<u32>,
    next_arrival: f64,
    warmup_ns: f64,
    emitted: u64,
    flows: u32,
}

/// Trace time origin (ns since the epoch): 2015-06-10 19:00 UTC, as the AGH hour.
const EPOCH_NS: u64 = 1_433_962_800 * 1_000_000_000;

impl SynthTrace {
    /// A generator for `cfg`.
    pub fn new(cfg: SynthConfig) -> Self {
        let rng = XorShift64::new(splitmix64(cfg.seed ^ 0x5eed_f10f));
        let warmup_ns = cfg.max_duration_s * 1e9;
        let mut t = SynthTrace {
            cfg,
            rng,
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_arrival: 0.0,
            warmup_ns,
            emitted: 0,
            flows: 0,
        };
        t.next_arrival = t.exp(1e9 / t.cfg.flow_rate.max(1e-9));
        t
    }

    fn unit(&mut self) -> f64 {
        ((self.rng.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn exp(&mut self, mean: f64) -> f64 {
        -self.unit().ln() * mean
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Flows emitted so far.
    pub fn flows(&self) -> u32 {
        self.flows
    }

    /// The 5-tuple of flow `id` (unique per id).
    pub fn key(&self, id: u32) -> FlowKey {
        flow_key(self.cfg.seed, id)
    }

    fn start_flow(&mut self, at: f64) {
        let len = self.cfg.lengths.sample(&mut self.rng);
        let g =
            (self.cfg.gap_median_s * (self.cfg.gap_sigma * self.normal()).exp()).clamp(1e-5, 15.0);
        let g = if len > 1 {
            g.min(self.cfg.max_duration_s / (len - 1) as f64)
        } else {
            g
        } * 1e9;
        let (mut remaining, mut first) = (len, at);
        if at < self.warmup_ns {
            // Skip the packets before the trace starts; the next gap is memoryless.
            let skipped = 1 + ((self.warmup_ns - at) / g) as u64;
            if skipped >= len {
                return;
            }
            remaining = len - skipped;
            first = self.warmup_ns + self.exp(g);
        }
        let a = Active {
            id: u32::MAX,
            remaining,
            gap_ns: g,
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = a;
                s
            }
            None => {
                self.slots.push(a);
                (self.slots.len() - 1) as u32
            }
        };
        self.heap.push(Reverse((first as u64, slot)));
    }

    /// The next `(ts_ns, flow id)`, or `None` after `cfg.packets` packets.
    pub fn next_packet(&mut self) -> Option<(u64, u32)> {
        if self.emitted >= self.cfg.packets {
            return None;
        }
        loop {
            let top = self.heap.peek().map(|r| r.0 .0 as f64);
            if top.is_none_or(|t| self.next_arrival <= t) {
                let at = self.next_arrival;
                self.next_arrival += self.exp(1e9 / self.cfg.flow_rate.max(1e-9));
                self.start_flow(at);
                continue;
            }
            let Reverse((t, slot)) = self.heap.pop()?;
            let s = &mut self.slots[slot as usize];
            if s.id == u32::MAX {
                s.id = self.flows;
                self.flows += 1;
            }
            let id = s.id;
            s.remaining -= 1;
            if s.remaining > 0 {
                let g = s.gap_ns;
                let next = t as f64 + self.exp(g);
                self.heap.push(Reverse((next as u64, slot)));
            } else {
                self.free.push(slot);
            }
            self.emitted += 1;
            return Some((EPOCH_NS + (t - self.warmup_ns as u64), id));
        }
    }
}

/// The 5-tuple of synthetic flow `id` under `seed`.
pub fn flow_key(seed: u64, id: u32) -> FlowKey {
    let h = splitmix64(seed ^ ((id as u64) << 20) ^ 0xf10e);
    // An odd multiplier and an xor-shift are bijections of u32: unique sources per id.
    let mut s = id.wrapping_mul(0x9E37_79B1) ^ (seed as u32);
    s ^= s >> 16;
    let r = (h & 0xffff) as u32 * 1000 / 0x1_0000;
    let proto = if r < 525 {
        6
    } else if r < 983 {
        17
    } else {
        1
    };
    let (sport, dport) = if proto == 1 {
        (0, 0)
    } else {
        (
            (h >> 16) as u16 | 1024,
            [80, 443, 53, 123, 8080][(h >> 32) as usize % 5],
        )
    };
    FlowKey::v4(
        s.to_be_bytes(),
        ((h >> 40) as u32 | 0x0100_0000).to_be_bytes(),
        sport,
        dport,
        proto,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agh_cdf_matches_the_published_shares() {
        // shared/data/README.md: 44.7% one-packet flows; flows of >= 1,000 packets are 0.66%
        // of flows and carry 88.6% of packets.
        let h = LengthHist::agh();
        let (f1, p1) = h.cdf(1);
        assert!((f1 - 0.447).abs() < 0.001, "{f1}");
        assert!(p1 > 0.0 && p1 < 0.01, "{p1}");
        let (f999, p999) = h.cdf(999);
        assert!((1.0 - f999 - 0.0066).abs() < 0.001, "{f999}");
        assert!((1.0 - p999 - 0.886).abs() < 0.02, "{p999}");
        assert_eq!(h.cdf(u64::MAX / 4), (1.0, 1.0));
        assert_eq!(h.cdf(0), (0.0, 0.0));
    }

    #[test]
    fn deterministic_ordered_dense_and_calibrated() {
        let cfg = SynthConfig {
            packets: 200_000,
            seed: 7,
            ..SynthConfig::default()
        };
        let mut a = SynthTrace::new(cfg.clone());
        let mut b = SynthTrace::new(cfg);
        let mut last = 0;
        let mut max_id = 0;
        let mut n = 0;
        while let Some(p) = a.next_packet() {
            assert_eq!(Some(p), b.next_packet());
            assert!(p.0 >= last);
            last = p.0;
            assert!(p.1 <= max_id + 1);
            max_id = max_id.max(p.1);
            n += 1;
        }
        assert_eq!(n, 200_000);
        assert_eq!(a.flows(), max_id + 1);
        let m = LengthHist::agh().mean();
        assert!((m - 104.9).abs() < 0.5, "{m}");
        // Distinct ids → distinct 5-tuples.
        let keys: std::collections::HashSet<_> = (0..50_000).map(|i| flow_key(7, i)).collect();
        assert_eq!(keys.len(), 50_000);
    }
}
