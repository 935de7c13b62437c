//! Per-packet cost of each discipline ([`bench`]).

use super::*;
use super::{check, median, Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, AqmSpec};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Configuration of [`bench()`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct AqmBenchConfig {
    /// Disciplines to measure.
    pub aqm: Vec<String>,
    /// Numbers of active flows (arrivals pick a flow uniformly at random).
    pub flows: Vec<u32>,
    /// Buffer, packets.
    pub buffer: usize,
    /// Arrivals per measurement.
    pub packets: usize,
    /// Repetitions (the median is reported).
    pub reps: usize,
    /// Seed.
    pub seed: u64,
    /// SRED/ZL-RED parameters.
    pub zombie: ZombieParams,
}

impl AqmBenchConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        check::require(!self.flows.is_empty(), "--flows", || {
            "needs at least one value".into()
        })?;
        for &f in &self.flows {
            check::int_range("--flows", f as u64, 1, 1 << 26)?;
        }
        check::int_range("--buffer", self.buffer as u64, 2, 1 << 24)?;
        check::int_range("--packets", self.packets as u64, 1, 1 << 32)?;
        check::int_range("--reps", self.reps as u64, 1, 10_000)?;
        self.zombie.validate()
    }
}

impl Default for AqmBenchConfig {
    fn default() -> Self {
        AqmBenchConfig {
            aqm: [
                "droptail", "red", "sred", "zlred", "choke", "drr", "fq_codel",
            ]
            .map(String::from)
            .to_vec(),
            flows: vec![1000, 100_000],
            buffer: 5000,
            packets: 4_000_000,
            reps: 3,
            seed: 1,
            zombie: ZombieParams::default(),
        }
    }
}

/// One discipline at one number of flows.
#[derive(Clone, Debug, Serialize)]
pub struct AqmBenchRow {
    /// Discipline.
    pub aqm: &'static str,
    /// Active flows.
    pub flows: u32,
    /// Median ns per arrival.
    pub ns_per_packet: f64,
    /// Every round's value, in round order (each round times every (flows, discipline) pair once).
    pub ns_all_reps: Vec<f64>,
    /// Dropped / arrivals in the last repetition.
    pub drop_fraction: f64,
}

/// Result of [`bench()`].
#[derive(Clone, Debug, Serialize)]
pub struct AqmBenchResult {
    /// What was measured.
    pub bench: &'static str,
    /// Buffer, packets.
    pub buffer: usize,
    /// Arrivals per measurement.
    pub packets: usize,
    /// Repetitions.
    pub reps: usize,
    /// Seed.
    pub seed: u64,
    /// Flows-major, then disciplines.
    pub rows: Vec<AqmBenchRow>,
}

/// Per-packet cost of each discipline under 25 % overload: every arrival is one `enqueue`,
/// and four of every five arrivals are followed by one `dequeue`, so each discipline settles
/// in its own dropping regime; reported as ns per arrival (enqueue + its share of dequeues).
pub fn bench(a: &AqmBenchConfig, p: &dyn Progress) -> Result<AqmBenchResult> {
    use pktlab::aqm::{Aqm, Discipline, Drops};
    use pktlab::netsim::{Packet, PktKind};
    use pktlab::util::SplitMix64;
    a.validate()?;
    let mut ps = AqmParamSet::default();
    a.zombie.apply(&mut ps)?;
    // Every (flows, discipline) pair is timed once per round, round-robin, so that the host's
    // speed changes fall on every pair alike (the report compares pairs round by round).
    let mut streams = Vec::new();
    for &nf in &a.flows {
        let mut rng = SplitMix64::new(a.seed ^ nf as u64);
        // Sparse 32-bit flow ids, chosen uniformly among `nf`.
        let ids: Vec<u32> = (0..nf)
            .map(|i| pktlab::util::splitmix64(i as u64 ^ a.seed) as u32)
            .collect();
        let pkts: Vec<Packet> = (0..a.packets)
            .map(|i| Packet {
                flow: ids[(rng.next_u64() % nf as u64) as usize],
                seq: i as u32,
                size: 1040,
                kind: PktKind::Data,
                ecn: 0,
                enq_at: 0,
            })
            .collect();
        streams.push((nf, pkts));
    }
    let specs = a
        .aqm
        .iter()
        .map(|name| AqmSpec::parse_with(name, &ps).map_err(|e| Error::param(format!("--aqm: {e}"))))
        .collect::<Result<Vec<_>>>()?;
    let pairs = streams.len() * specs.len();
    let mut times = vec![Vec::with_capacity(a.reps); pairs];
    let mut drops = vec![0u64; pairs];
    p.start("aqm bench", Some((pairs * a.reps) as u64));
    for rep in 0..a.reps {
        for (fi, (_, pkts)) in streams.iter().enumerate() {
            for (ai, spec) in specs.iter().enumerate() {
                let mut q: Discipline<Packet> =
                    spec.build(a.buffer, 185_000, a.seed + rep as u64)?;
                let mut d: Drops<Packet> = Drops::default();
                let t0 = Instant::now();
                // One match per measurement, a monomorphised loop inside (as the data
                // plane's output queue runs it): the per-packet cost is the discipline's.
                pktlab::with_discipline!(&mut q, x => bench_loop(x, pkts, &mut d));
                let k = fi * specs.len() + ai;
                times[k].push(t0.elapsed().as_secs_f64() * 1e9 / a.packets as f64);
                let s = q.stats();
                drops[k] = s.early_drops + s.forced_drops;
                p.set((rep * pairs + k + 1) as u64);
            }
        }
    }
    let mut rows = Vec::new();
    for (fi, (nf, _)) in streams.iter().enumerate() {
        for (ai, spec) in specs.iter().enumerate() {
            let k = fi * specs.len() + ai;
            let med = median(&mut times[k].clone());
            p.note(&format!(
                "aqm bench {} flows={nf}: {med:.1} ns/packet",
                spec.name()
            ));
            rows.push(AqmBenchRow {
                aqm: spec.name(),
                flows: *nf,
                ns_per_packet: med,
                ns_all_reps: std::mem::take(&mut times[k]),
                drop_fraction: drops[k] as f64 / a.packets as f64,
            });
        }
    }
    p.finish();
    Ok(AqmBenchResult {
        bench: "aqm enqueue+dequeue",
        buffer: a.buffer,
        packets: a.packets,
        reps: a.reps,
        seed: a.seed,
        rows,
    })
}

/// The arrival pattern of [`bench`]: packet `i` arrives at `i` × 185 µs; after each arrival
/// but every fifth, one packet departs (a 25 % overload, so the queue fills and stays full). Not inlined, so that
/// profilers see it as one function.
#[inline(never)]
fn bench_loop<Q: pktlab::aqm::Aqm<pktlab::netsim::Packet>>(
    q: &mut Q,
    pkts: &[pktlab::netsim::Packet],
    d: &mut pktlab::aqm::Drops<pktlab::netsim::Packet>,
) {
    // `k` = i mod 5, counted rather than divided (a multiply-high and a multiply per
    // arrival otherwise).
    let mut k = 0u32;
    for (i, pk) in pkts.iter().enumerate() {
        let now = i as u64 * 185_000;
        q.enqueue(*pk, now, d);
        if k != 4 && q.len_pkts() > 0 {
            std::hint::black_box(q.dequeue(now, d));
        }
        k = if k == 4 { 0 } else { k + 1 };
        d.clear();
    }
}
