//! Packet processing cache experiments (paper 000, Hit Priority Cache): policy simulation
//! ([`sim`], Table 2 and figs. 8–9), the miss rate against cache size ([`sweep`], fig. 2),
//! trace statistics with the flow-length CDF ([`trace_stats`], fig. 3) and trace conversion
//! ([`convert`]).

use super::{check, Error, Progress, Result};
use pktlab::flowcache::source::{next_uses, MemoryTrace, SourceReport};
use pktlab::flowcache::{
    min_ways, policy_ways, AnySim, DelayModel, SetIndex, SimConfig, TracePacket, TraceSource,
    PAPER_POLICIES, POLICY_NAMES,
};
use pktlab::io::compact::{CompactWriter, PcapExport};
use pktlab::io::OutFile;
use pktlab::traffic::{LengthHist, SynthConfig};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Where packets come from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct TraceSpec {
    /// `synthetic` (AGH-calibrated generator), a pcap/pcapng capture, or a compact trace.
    pub trace: String,
    /// Packets of the synthetic trace.
    pub packets: u64,
    /// Seed (synthetic trace, random policy).
    pub seed: u64,
    /// New flows per second of the synthetic trace (default: AGH's 1810.4).
    pub flow_rate: Option<f64>,
    /// Flow-length histogram CSV for the synthetic trace (default: embedded AGH bins).
    pub flowstats: Option<PathBuf>,
    /// Packets held in memory (set by library callers such as the Python binding); when
    /// present it replaces `trace`.
    #[serde(skip)]
    pub memory: Option<Arc<MemoryTrace>>,
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            trace: "synthetic".into(),
            packets: 1 << 20,
            seed: 1,
            flow_rate: None,
            flowstats: None,
            memory: None,
        }
    }
}

impl TraceSpec {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        if self.trace == "synthetic" {
            check::int_range("--packets", self.packets, 1, 1 << 40)?;
        }
        if let Some(r) = self.flow_rate {
            check::positive("--flow-rate", r)?;
        }
        Ok(())
    }

    /// The packet source this spec describes.
    pub fn source(&self) -> Result<TraceSource> {
        self.validate()?;
        if let Some(m) = &self.memory {
            Ok(TraceSource::Memory(m.clone()))
        } else if self.trace == "synthetic" {
            let lengths = match &self.flowstats {
                Some(p) => LengthHist::from_csv(p)?,
                None => LengthHist::agh(),
            };
            let mut c = SynthConfig {
                packets: self.packets,
                seed: self.seed,
                lengths,
                ..SynthConfig::default()
            };
            if let Some(r) = self.flow_rate {
                c.flow_rate = r;
            }
            Ok(TraceSource::Synthetic(c))
        } else {
            Ok(TraceSource::Pcap(PathBuf::from(&self.trace)))
        }
    }
}

/// Cache geometry and timing model.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelSpec {
    /// Comma-separated policies (lru, slru, hpcN, spc, random, fifo, belady, clock, lfu, arc,
    /// s3fifo, sieve, tinylfu), `paper` (Table 2's) or `all`.
    pub policy: String,
    /// Ways per set, `usize::MAX` = fully associative (default per policy: 4, or 8 = two
    /// 4-way halves for slru/hpc/belady, 8 for the others).
    pub ways: Option<usize>,
    /// Set index hash: `crc` (paper) or `xor`.
    pub index: String,
    /// Insert immediately on a miss (no PE/CMT timing model).
    pub no_timing: bool,
    /// Processing elements.
    pub pes: usize,
    /// Table-lookup latency of a PE, ns.
    pub lookup_ns: u64,
    /// Delay model: hit latency, ns.
    pub hit_ns: f64,
    /// Delay model: miss latency, ns.
    pub miss_ns: f64,
    /// Delay model: exchange latency, ns.
    pub exchange_ns: f64,
    /// Packets per streamed chunk.
    pub chunk: u64,
}

impl Default for ModelSpec {
    fn default() -> Self {
        ModelSpec {
            policy: "lru,slru,hpc1,hpc2,hpc4,hpc8,hpc16".into(),
            ways: None,
            index: "crc".into(),
            no_timing: false,
            pes: 64,
            lookup_ns: 100,
            hit_ns: 2.0,
            miss_ns: 55.0,
            exchange_ns: 4.0,
            chunk: 4096,
        }
    }
}

impl ModelSpec {
    /// Refuses impossible values (one-line error naming the flag and the accepted range);
    /// `entries` is the smallest cache the model is used with, which `--ways` may not exceed.
    pub fn validate(&self, entries: u64) -> Result<()> {
        check::int_range("--pes", self.pes as u64, 1, 1 << 20)?;
        check::non_negative("--hit-ns", self.hit_ns)?;
        check::non_negative("--miss-ns", self.miss_ns)?;
        check::non_negative("--exchange-ns", self.exchange_ns)?;
        check::int_range("--chunk", self.chunk, 1, 1 << 24)?;
        if let Some(w) = self.ways.filter(|&w| w != usize::MAX) {
            check::int_range("--ways", w as u64, 1, entries)?;
            for p in self.policies()? {
                let min = min_ways(&p) as u64;
                check::require(w as u64 >= min, "--ways", || {
                    format!("policy {p} needs at least {min} ways (got {w})")
                })?;
            }
        }
        Ok(())
    }

    fn config(&self) -> Result<SimConfig> {
        Ok(SimConfig {
            timing: !self.no_timing,
            pes: self.pes,
            lookup_ns: self.lookup_ns,
            index: match self.index.as_str() {
                "crc" => SetIndex::Crc,
                "xor" => SetIndex::Xor,
                o => return Err(Error::param(format!("--index {o}: expected crc or xor"))),
            },
            delay: DelayModel {
                hit_ns: self.hit_ns,
                miss_ns: self.miss_ns,
                exchange_ns: self.exchange_ns,
            },
        })
    }

    fn policies(&self) -> Result<Vec<String>> {
        let v: Vec<String> = if self.policy == "all" {
            POLICY_NAMES.iter().map(|s| s.to_string()).collect()
        } else if self.policy == "paper" {
            PAPER_POLICIES.iter().map(|s| s.to_string()).collect()
        } else {
            self.policy
                .split(',')
                .map(|s| s.trim().to_lowercase())
                .collect()
        };
        for p in &v {
            if policy_ways(p, None).is_none()
                || AnySim::new(p, 8, 8, SimConfig::default(), 1).is_none()
            {
                return Err(Error::param(format!(
                    "--policy {p}: unknown (expected {})",
                    POLICY_NAMES.join(", ")
                )));
            }
        }
        Ok(v)
    }
}

/// Configuration of [`sim`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheSimConfig {
    /// Packets.
    pub trace: TraceSpec,
    /// Policies and timing model.
    pub model: ModelSpec,
    /// Total cache entries (paper: 1024 = 32 KB at 32 B/entry).
    pub entries: u64,
}

impl CacheSimConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range),
    /// among them more ways than entries.
    pub fn validate(&self) -> Result<()> {
        check::int_range("--entries", self.entries, 1, 1 << 28)?;
        self.trace.validate()?;
        self.model.validate(self.entries)
    }
}

impl Default for CacheSimConfig {
    fn default() -> Self {
        CacheSimConfig {
            trace: TraceSpec::default(),
            model: ModelSpec::default(),
            entries: 1024,
        }
    }
}

/// Configuration of [`sweep`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheSweepConfig {
    /// Packets.
    pub trace: TraceSpec,
    /// Policies and timing model.
    pub model: ModelSpec,
    /// Bytes per entry.
    pub entry_bytes: u64,
    /// Smallest cache, bytes.
    pub min_bytes: u64,
    /// Largest cache, bytes (sizes double from `min_bytes`).
    pub max_bytes: u64,
}

impl CacheSweepConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range):
    /// an empty size range, entries of zero bytes, more ways than the smallest cache holds.
    pub fn validate(&self) -> Result<()> {
        check::int_range("--entry-bytes", self.entry_bytes, 1, 1 << 20)?;
        check::int_range("--min-bytes", self.min_bytes, self.entry_bytes, 1 << 40)?;
        check::int_range("--max-bytes", self.max_bytes, self.min_bytes, 1 << 40)?;
        self.trace.validate()?;
        self.model.validate(self.min_bytes / self.entry_bytes)
    }
}

impl Default for CacheSweepConfig {
    fn default() -> Self {
        CacheSweepConfig {
            trace: TraceSpec::default(),
            model: ModelSpec::default(),
            entry_bytes: 32,
            min_bytes: 1 << 10,
            max_bytes: 1 << 20,
        }
    }
}

/// What a pass over the trace found.
#[derive(Clone, Debug, Serialize)]
pub struct TraceInfo {
    /// Path, or the synthetic trace's description.
    pub path: String,
    /// IP packets.
    pub packets: u64,
    /// Distinct flows.
    pub flows: u64,
    /// Packets skipped (non-IP, unparsable).
    pub skipped: u64,
    /// Set when the input ended mid-record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

impl From<&SourceReport> for TraceInfo {
    fn from(r: &SourceReport) -> Self {
        TraceInfo {
            path: r.path.clone(),
            packets: r.packets,
            flows: r.flows,
            skipped: r.skipped,
            truncated: r.truncated.clone(),
        }
    }
}

/// The timing model used, echoed in results.
#[derive(Clone, Debug, Serialize)]
pub struct ModelInfo {
    /// PE/CMT timing on.
    pub timing: bool,
    /// Processing elements.
    pub pes: usize,
    /// PE lookup latency, ns.
    pub lookup_ns: u64,
    /// `crc` or `xor`.
    pub index: String,
    /// Hit latency, ns.
    pub hit_ns: f64,
    /// Miss latency, ns.
    pub miss_ns: f64,
    /// Exchange latency, ns.
    pub exchange_ns: f64,
}

/// One policy at one size.
#[derive(Clone, Debug, Serialize)]
pub struct PolicyResult {
    /// Policy name.
    pub policy: String,
    /// Entries (sets × ways).
    pub entries: usize,
    /// Ways per set.
    pub ways: usize,
    /// Sets.
    pub sets: usize,
    /// Packets simulated.
    pub packets: u64,
    /// Misses.
    pub misses: u64,
    /// Misses / packets.
    pub miss_rate: f64,
    /// Packets that hit the cache-miss table (waiting for an outstanding lookup).
    pub cmt_hits: u64,
    /// Entries exchanged between the halves (HPC).
    pub exchanges: u64,
    /// Exchanges / packets.
    pub exchange_rate: f64,
    /// Average delay per packet under the delay model, ns.
    pub avg_delay_ns: f64,
    /// Time packets waited for a free PE, ns per packet.
    pub pe_wait_ns_per_packet: f64,
    /// Simulation speed, millions of packets per second.
    pub mpps: f64,
}

/// Result of [`sim`].
#[derive(Clone, Debug, Serialize)]
pub struct CacheSimResult {
    /// The trace.
    pub trace: TraceInfo,
    /// The model.
    pub model: ModelInfo,
    /// One per policy.
    pub results: Vec<PolicyResult>,
}

/// One point of [`sweep`].
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    /// The policy's result at this size.
    #[serde(flatten)]
    pub result: PolicyResult,
    /// Cache size, bytes.
    pub bytes: u64,
}

/// Result of [`sweep`].
#[derive(Clone, Debug, Serialize)]
pub struct CacheSweepResult {
    /// The trace.
    pub trace: TraceInfo,
    /// Bytes per entry.
    pub entry_bytes: u64,
    /// Timing model on.
    pub timing: bool,
    /// Sizes × policies.
    pub points: Vec<SweepPoint>,
}

struct Run {
    name: String,
    entries: usize,
    ways: usize,
    sim: AnySim,
    secs: f64,
}

impl Run {
    fn new(p: &str, entries: usize, ways: usize, cfg: SimConfig, seed: u64) -> Result<Run> {
        Ok(Run {
            sim: AnySim::new(p, entries, ways, cfg, seed)
                .ok_or_else(|| Error::param(format!("--policy {p}: unknown")))?,
            name: p.to_string(),
            entries: (entries / ways).max(1) * ways,
            ways,
            secs: 0.0,
        })
    }

    fn result(&self, d: &DelayModel) -> PolicyResult {
        let c = self.sim.counters();
        PolicyResult {
            policy: self.name.clone(),
            entries: self.entries,
            ways: self.ways,
            sets: self.entries / self.ways,
            packets: c.packets,
            misses: c.misses,
            miss_rate: c.miss_rate(),
            cmt_hits: c.cmt_hits,
            exchanges: c.exchanges,
            exchange_rate: c.exchange_rate(),
            avg_delay_ns: c.avg_delay_ns(d),
            pe_wait_ns_per_packet: c.pe_wait_ns as f64 / c.packets.max(1) as f64,
            mpps: c.packets as f64 / self.secs.max(1e-12) / 1e6,
        }
    }
}

/// Streams the source once through every simulator; returns the source report.
fn drive(
    src: &TraceSource,
    runs: &mut [Run],
    chunk: usize,
    p: &dyn Progress,
) -> Result<SourceReport> {
    let future = runs.iter().any(|r| r.sim.needs_future());
    let nu = if future {
        p.note("computing next-use indices for belady (one extra pass) …");
        next_uses(src, chunk)?
    } else {
        Vec::new()
    };
    let mut s = src.open()?;
    let total = match src {
        TraceSource::Synthetic(c) => Some(c.packets),
        TraceSource::Memory(t) => Some(t.len() as u64),
        _ => None,
    };
    p.start(&format!("simulating {} caches", runs.len()), total);
    let mut buf: Vec<TracePacket> = Vec::with_capacity(chunk);
    let mut off = 0usize;
    while s.fill(&mut buf, chunk) {
        for r in runs.iter_mut() {
            let n = if r.sim.needs_future() {
                &nu[off..off + buf.len()]
            } else {
                &[][..]
            };
            let t0 = Instant::now();
            r.sim.run(&buf, n);
            r.secs += t0.elapsed().as_secs_f64();
        }
        off += buf.len();
        p.set(off as u64);
        p.check_stop()?;
    }
    p.finish();
    let rep = s.report();
    if let Some(t) = &rep.truncated {
        p.note(&format!("warning: {t}"));
    }
    if rep.skipped > 0 {
        p.note(&format!(
            "note: {}: skipped {} non-IP or unparsable packets",
            rep.path, rep.skipped
        ));
    }
    require_packets(&rep)?;
    Ok(rep)
}

/// The rule for empty inputs, the same in every command that reads packets: a trace that
/// delivers no packet is an error naming the file (`no packets in FILE`, with the count of
/// records skipped as non-IP or unparsable if any), never an empty result.
pub fn require_packets(rep: &SourceReport) -> Result<()> {
    if rep.packets > 0 {
        return Ok(());
    }
    Err(Error::Empty {
        what: "packets".into(),
        path: rep.path.clone(),
        detail: if rep.skipped > 0 {
            format!(" ({} non-IP or unparsable records skipped)", rep.skipped)
        } else {
            String::new()
        },
    })
}

/// Ways for policy `p` at `entries` entries: `ways` (`usize::MAX` = fully associative) or the
/// policy's natural associativity, kept between the policy's minimum and `entries`.
fn ways_for(p: &str, ways: Option<usize>, entries: usize) -> usize {
    let w = ways.unwrap_or_else(|| policy_ways(p, None).unwrap_or(4));
    w.clamp(min_ways(p), entries.max(min_ways(p)))
}

/// Simulates every policy of `cfg.model` with `cfg.entries` entries on one pass over the
/// trace (paper 000, Table 2: miss rate, exchange rate and average delay per policy).
pub fn sim(cfg: &CacheSimConfig, p: &dyn Progress) -> Result<CacheSimResult> {
    cfg.validate()?;
    let src = cfg.trace.source()?;
    let sc = cfg.model.config()?;
    let entries = cfg.entries as usize;
    let mut runs = Vec::new();
    for pol in cfg.model.policies()? {
        let ways = ways_for(&pol, cfg.model.ways, entries);
        runs.push(Run::new(&pol, entries, ways, sc, cfg.trace.seed)?);
    }
    let rep = drive(&src, &mut runs, cfg.model.chunk.max(1) as usize, p)?;
    Ok(CacheSimResult {
        trace: TraceInfo::from(&rep),
        model: ModelInfo {
            timing: sc.timing,
            pes: sc.pes,
            lookup_ns: sc.lookup_ns,
            index: cfg.model.index.clone(),
            hit_ns: sc.delay.hit_ns,
            miss_ns: sc.delay.miss_ns,
            exchange_ns: sc.delay.exchange_ns,
        },
        results: runs.iter().map(|r| r.result(&sc.delay)).collect(),
    })
}

/// Miss rate (and the rest of [`PolicyResult`]) of every policy at cache sizes doubling from
/// `cfg.min_bytes` to `cfg.max_bytes`, all simulated on one pass (paper 000, fig. 2).
pub fn sweep(cfg: &CacheSweepConfig, p: &dyn Progress) -> Result<CacheSweepResult> {
    cfg.validate()?;
    let src = cfg.trace.source()?;
    let sc = cfg.model.config()?;
    let pols = cfg.model.policies()?;
    let eb = cfg.entry_bytes.max(1);
    let mut runs = Vec::new();
    let mut bytes = cfg.min_bytes.max(eb);
    while bytes <= cfg.max_bytes {
        for pol in &pols {
            let entries = (bytes / eb) as usize;
            let ways = ways_for(pol, cfg.model.ways, entries);
            runs.push(Run::new(pol, entries, ways, sc, cfg.trace.seed)?);
        }
        bytes *= 2;
    }
    let rep = drive(&src, &mut runs, cfg.model.chunk.max(1) as usize, p)?;
    Ok(CacheSweepResult {
        trace: TraceInfo::from(&rep),
        entry_bytes: eb,
        timing: sc.timing,
        points: runs
            .iter()
            .map(|r| SweepPoint {
                result: r.result(&sc.delay),
                bytes: r.entries as u64 * eb,
            })
            .collect(),
    })
}

/// One point of the flow-length CDF.
#[derive(Clone, Debug, Serialize)]
pub struct CdfPoint {
    /// Flow length bound (packets), powers of two.
    pub length_le: u64,
    /// Fraction of flows of at most `length_le` packets.
    pub flows: f64,
    /// Fraction of packets in such flows.
    pub packets: f64,
}

/// Result of [`trace_stats`].
#[derive(Clone, Debug, Serialize)]
pub struct TraceStats {
    /// The trace.
    pub trace: TraceInfo,
    /// Last minus first timestamp, seconds.
    pub duration_s: f64,
    /// Packets per flow.
    pub mean_flow_length: f64,
    /// Packets per second of trace time.
    pub packets_per_s: f64,
    /// Flow-length CDF at powers of two.
    pub length_cdf: Vec<CdfPoint>,
}

/// Packets, flows, duration and the flow-length CDF of a trace (paper 000, fig. 3).
pub fn trace_stats(t: &TraceSpec, p: &dyn Progress) -> Result<TraceStats> {
    let src = t.source()?;
    let mut s = src.open()?;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut len: Vec<u32> = Vec::new();
    let (mut first, mut last) = (u64::MAX, 0u64);
    while s.fill(&mut buf, 1 << 16) {
        p.check_stop()?;
        for pk in &buf {
            let f = pk.flow as usize;
            if f >= len.len() {
                len.resize(f + 1, 0);
            }
            len[f] += 1;
            first = first.min(pk.ts_ns);
            last = last.max(pk.ts_ns);
        }
    }
    let rep = s.report();
    if let Some(t) = &rep.truncated {
        p.note(&format!("warning: {t}"));
    }
    require_packets(&rep)?;
    let flows = len.len() as f64;
    let pk = rep.packets as f64;
    let mut cdf = Vec::new();
    let mut k = 1u64;
    let max = len.iter().copied().max().unwrap_or(0) as u64;
    loop {
        let (mut f, mut n) = (0u64, 0u64);
        for &l in &len {
            if l as u64 <= k {
                f += 1;
                n += l as u64;
            }
        }
        cdf.push(CdfPoint {
            length_le: k,
            flows: f as f64 / flows.max(1.0),
            packets: n as f64 / pk.max(1.0),
        });
        if k >= max {
            break;
        }
        k *= 2;
    }
    let dur = if last >= first {
        (last - first) as f64 / 1e9
    } else {
        0.0
    };
    Ok(TraceStats {
        trace: TraceInfo::from(&rep),
        duration_s: dur,
        mean_flow_length: pk / flows.max(1.0),
        packets_per_s: if dur > 0.0 { pk / dur } else { 0.0 },
        length_cdf: cdf,
    })
}

/// Configuration of [`convert`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConvertConfig {
    /// The input.
    pub trace: TraceSpec,
    /// Output file.
    pub out: PathBuf,
    /// `compact`, `pcap` or `oracle` (libCacheSim oracleGeneral); default: pcap if the name
    /// ends in `.pcap`, else compact.
    pub format: Option<String>,
}

/// Result of [`convert`].
#[derive(Clone, Debug, Serialize)]
pub struct ConvertResult {
    /// The input.
    pub trace: TraceInfo,
    /// Output path.
    pub out: String,
    /// Output format.
    pub format: String,
    /// Bytes written.
    pub bytes: u64,
}

/// Converts a trace (pcap, compact or synthetic) to the compact format, to pcap, or to
/// libCacheSim's oracleGeneral records (for speed comparisons only).
pub fn convert(cfg: &ConvertConfig, p: &dyn Progress) -> Result<ConvertResult> {
    let fmt = cfg.format.clone().unwrap_or_else(|| {
        let n = cfg.out.to_string_lossy().to_lowercase();
        if n.ends_with(".pcap") {
            "pcap"
        } else {
            "compact"
        }
        .into()
    });
    if !matches!(fmt.as_str(), "compact" | "pcap" | "oracle") {
        return Err(Error::param(format!(
            "--format {fmt}: expected compact, pcap or oracle"
        )));
    }
    // The parameters, then the output (its temporary made) before any input is read; it
    // gets its real name only once complete.
    cfg.trace.validate()?;
    let w = OutFile::create(&cfg.out)?;
    let src = cfg.trace.source()?;
    let name = cfg.out.display().to_string();
    let mut s = src.open()?;
    let mut buf = Vec::with_capacity(1 << 16);
    // The first chunk is read before anything is written: an input without packets is an
    // error, and the temporary output is removed unrenamed.
    let mut more = s.fill(&mut buf, 1 << 16);
    if !more {
        require_packets(&s.report())?;
    }
    let io = |e: std::io::Error| Error::output(&name, "write error", e);
    let key = |s: &pktlab::flowcache::source::TraceStream, id: u32| {
        s.key(id)
            .ok_or_else(|| Error::param(format!("flow key: no key for flow {id}")))
    };
    p.start("converting", None);
    let done = match fmt.as_str() {
        "compact" => {
            let mut cw = CompactWriter::new(w).map_err(io)?;
            while more {
                for pk in &buf {
                    cw.write(pk.ts_ns, pk.flow, &key(&s, pk.flow)?)
                        .map_err(io)?;
                }
                more = s.fill(&mut buf, 1 << 16);
            }
            cw.finish().map_err(io)?
        }
        "pcap" => {
            let mut pw = PcapExport::new(w).map_err(io)?;
            while more {
                for pk in &buf {
                    pw.write(pk.ts_ns, &key(&s, pk.flow)?).map_err(io)?;
                }
                more = s.fill(&mut buf, 1 << 16);
            }
            pw.finish().map_err(io)?
        }
        _ => {
            // libCacheSim's oracleGeneral binary records (for speed comparisons only):
            // u32 timestamp (s), u64 object id, u32 size, i64 next access (-1: unknown).
            let mut w = w;
            use std::io::Write;
            while more {
                for pk in &buf {
                    let mut r = [0u8; 24];
                    r[0..4].copy_from_slice(&((pk.ts_ns / 1_000_000_000) as u32).to_le_bytes());
                    r[4..12].copy_from_slice(&(pk.flow as u64 + 1).to_le_bytes());
                    r[12..16].copy_from_slice(&1u32.to_le_bytes());
                    r[16..24].copy_from_slice(&(-1i64).to_le_bytes());
                    w.write_all(&r).map_err(io)?;
                }
                more = s.fill(&mut buf, 1 << 16);
            }
            w
        }
    };
    done.commit()?;
    p.finish();
    let rep = s.report();
    let bytes = std::fs::metadata(&cfg.out).map(|m| m.len()).unwrap_or(0);
    Ok(ConvertResult {
        trace: TraceInfo::from(&rep),
        out: name,
        format: fmt,
        bytes,
    })
}

#[cfg(test)]
mod tests;
