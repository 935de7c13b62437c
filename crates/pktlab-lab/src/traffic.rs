//! Traffic experiments (paper 003): the Zipf table sampler's error against the exact
//! distribution and its sampling speed next to `rand_distr`'s exact Zipf ([`zipf`]), the
//! error against the table budget ([`zipf_error_sweep`]), and pcap writers for Zipf
//! destination streams, Zipf 5-tuple flow traces ([`flows`]) and CCNx-over-UDP traffic
//! ([`ccn_pcap`]).

use super::{check, median, Error, Progress, Result};
use pktlab::ccn::tlv;
use pktlab::io::pcap_write::{build_frame, tcp_flags, Ips, PcapWriter, L4};
use pktlab::io::OutFile;
use pktlab::net::{Address, Prefix};
use pktlab::traffic::{FlowStream, Merge, NameStream, SplitMix64, ZipfTable};
use pktlab::util::splitmix64;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// Zipf table parameters shared by the generators.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ZipfSpec {
    /// Zipf exponent α (> 0).
    pub alpha: f64,
    /// Number of names (ranks), up to 2^32.
    pub names: u64,
    /// Table budget (entries).
    pub entries: u64,
    /// Merge rule for the tail: `optimal`, `geometric` or `uniform`.
    pub merge: String,
    /// Seed of every random stream.
    pub seed: u64,
}

impl Default for ZipfSpec {
    fn default() -> Self {
        ZipfSpec {
            alpha: 0.8,
            names: 1 << 32,
            entries: 64 << 10,
            merge: "optimal".into(),
            seed: 1,
        }
    }
}

impl ZipfSpec {
    /// Refuses impossible values (one-line error naming the flag and the accepted range):
    /// α ≤ 0, an empty name space, a table of no entry.
    pub fn validate(&self) -> Result<()> {
        check::positive("--alpha", self.alpha)?;
        check::int_range("--names", self.names, 1, 1 << 32)?;
        check::int_range("--entries", self.entries, 1, 1 << 26).map_err(Error::from)
    }

    /// Builds the table.
    pub fn build(&self) -> Result<ZipfTable> {
        self.validate()?;
        let m = Merge::parse(&self.merge).ok_or_else(|| {
            Error::param(format!(
                "--merge {:?}: expected optimal, geometric or uniform",
                self.merge
            ))
        })?;
        Ok(ZipfTable::with_merge(
            self.alpha,
            self.names,
            self.entries,
            m,
        )?)
    }
}

/// Configuration of [`zipf`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ZipfConfig {
    /// The table.
    pub table: ZipfSpec,
    /// Samples per timed run (median of `runs` runs).
    pub samples: u64,
    /// Timed runs.
    pub runs: usize,
    /// Samples for the rand_distr baseline (0 = skip it).
    pub baseline_samples: u64,
    /// Also report the error of every merge rule at this budget.
    pub compare: bool,
    /// Write this many IPv4/UDP packets to Zipf-ranked destinations …
    pub count: u64,
    /// … into this pcap.
    pub out: Option<PathBuf>,
}

impl ZipfConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--samples", self.samples, 1, 1 << 40)?;
        check::int_range("--runs", self.runs as u64, 1, 10_000)?;
        check::int_range("--baseline-samples", self.baseline_samples, 0, 1 << 40)?;
        check::int_range("--count", self.count, 1, 1 << 40).map_err(Error::from)
    }
}

impl Default for ZipfConfig {
    fn default() -> Self {
        ZipfConfig {
            table: ZipfSpec::default(),
            samples: 1 << 27,
            runs: 3,
            baseline_samples: 1 << 23,
            compare: false,
            count: 1 << 20,
            out: None,
        }
    }
}

/// The rand_distr baseline.
#[derive(Clone, Debug, Serialize)]
pub struct Baseline {
    /// Million samples per second.
    pub msamples_per_s: f64,
    /// Nanoseconds per sample.
    pub ns_per_sample: f64,
    /// Table sampler rate / baseline rate.
    pub speedup: f64,
}

/// A table's error under one merge rule.
#[derive(Clone, Debug, Serialize)]
pub struct MergeStats {
    /// Merge rule.
    pub merge: &'static str,
    /// Total variation distance.
    pub tv: f64,
    /// KL divergence, nats.
    pub kl: f64,
    /// Max relative error over the head ranks.
    pub max_rel_err: f64,
    /// Kolmogorov–Smirnov statistic.
    pub ks: f64,
}

impl MergeStats {
    fn of(m: Merge, t: &ZipfTable) -> Self {
        let s = t.stats();
        MergeStats {
            merge: m.as_str(),
            tv: s.tv,
            kl: s.kl,
            max_rel_err: s.max_rel_err,
            ks: s.ks,
        }
    }
}

/// A pcap written by a generator.
#[derive(Clone, Debug, Serialize)]
pub struct PcapInfo {
    /// Path.
    pub path: String,
    /// Packets.
    pub packets: u64,
    /// Bytes of frames (without pcap headers).
    pub frame_bytes: u64,
}

/// Result of [`zipf`].
#[derive(Clone, Debug, Serialize)]
pub struct ZipfResult {
    /// α.
    pub alpha: f64,
    /// Ranks.
    pub names: u64,
    /// Table entries.
    pub entries: usize,
    /// Merge rule.
    pub merge: String,
    /// Table bytes.
    pub table_bytes: usize,
    /// Build seconds.
    pub build_s: f64,
    /// Total variation distance.
    pub tv: f64,
    /// KL divergence, nats.
    pub kl: f64,
    /// Max relative error over the head ranks.
    pub max_rel_err: f64,
    /// Kolmogorov–Smirnov statistic.
    pub ks: f64,
    /// Table sampler, million samples per second (median).
    pub msamples_per_s: f64,
    /// Table sampler, ns per sample.
    pub ns_per_sample: f64,
    /// Batched fill, million samples per second (median).
    pub batch_msamples_per_s: f64,
    /// The rand_distr baseline, if run.
    pub baseline_rand_distr: Option<Baseline>,
    /// Errors of every merge rule, if asked.
    pub compare: Option<Vec<MergeStats>>,
    /// The pcap, if written.
    pub pcap: Option<PcapInfo>,
}

/// Builds a Zipf table, reports its error against the exact distribution (TV, KL, max
/// relative error of the head, KS) and its sampling speed, single and batched, next to
/// `rand_distr::Zipf` (paper 003's table sampler); optionally writes a pcap of IPv4/UDP
/// packets to Zipf-ranked destinations.
pub fn zipf(a: &ZipfConfig, p: &dyn Progress) -> Result<ZipfResult> {
    a.validate()?;
    // The output is checked before the work (its temporary exists meanwhile).
    let out = a.out.as_deref().map(OutFile::create).transpose()?;
    let t0 = Instant::now();
    let t = a.table.build()?;
    let build_s = t0.elapsed().as_secs_f64();
    let st = t.stats();
    p.note(&format!(
        "Zipf({}) over {} names, {} entries ({} KiB) built in {:.2} s; tv {:.3e}",
        a.table.alpha,
        a.table.names,
        t.entries(),
        t.bytes() / 1024,
        build_s,
        st.tv
    ));
    let runs = a.runs.max(1);
    p.start("sampling runs", Some(3 * runs as u64));
    // Timed sampling runs.
    let mut rates = Vec::new();
    for run in 0..runs {
        let mut rng = SplitMix64::new(a.table.seed + run as u64);
        let t1 = Instant::now();
        let mut acc = 0u64;
        for _ in 0..a.samples {
            acc = acc.wrapping_add(t.sample(&mut rng));
        }
        black_box(acc);
        let r = a.samples as f64 / t1.elapsed().as_secs_f64() / 1e6;
        p.note(&format!(
            "table sampler run {}: {:.1} M samples/s",
            run + 1,
            r
        ));
        rates.push(r);
        p.set(run as u64 + 1);
        p.check_stop()?;
    }
    let msps = median(&mut rates);
    // Batched sampling (ZipfTable::fill: slot prefetch 16 samples ahead) into a 4096 buffer.
    let mut rates = Vec::new();
    let mut buf = vec![0u64; 4096];
    for run in 0..runs {
        let mut rng = SplitMix64::new(a.table.seed + run as u64);
        let t1 = Instant::now();
        let mut acc = 0u64;
        for _ in 0..a.samples.div_ceil(4096) {
            t.fill(&mut rng, &mut buf);
            acc = acc.wrapping_add(buf[4095]);
        }
        black_box(acc);
        let r = (a.samples.div_ceil(4096) * 4096) as f64 / t1.elapsed().as_secs_f64() / 1e6;
        p.note(&format!(
            "table sampler, batched fill, run {}: {:.1} M samples/s",
            run + 1,
            r
        ));
        rates.push(r);
        p.set((runs + run) as u64 + 1);
        p.check_stop()?;
    }
    let batch_msps = median(&mut rates);
    let mut baseline = None;
    if a.baseline_samples > 0 {
        use rand::RngExt;
        use rand::SeedableRng;
        let z = rand_distr::Zipf::new(a.table.names as f64, a.table.alpha)
            .map_err(|e| Error::param(format!("rand_distr::Zipf rejected the parameters: {e}")))?;
        let mut rates = Vec::new();
        for run in 0..runs {
            let mut rng =
                rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(a.table.seed + run as u64);
            let t1 = Instant::now();
            let mut acc = 0.0f64;
            for _ in 0..a.baseline_samples {
                acc += rng.sample(z);
            }
            black_box(acc);
            let r = a.baseline_samples as f64 / t1.elapsed().as_secs_f64() / 1e6;
            p.note(&format!(
                "rand_distr Zipf run {}: {:.2} M samples/s",
                run + 1,
                r
            ));
            rates.push(r);
            p.set((2 * runs + run) as u64 + 1);
            p.check_stop()?;
        }
        let b = median(&mut rates);
        baseline = Some(Baseline {
            msamples_per_s: b,
            ns_per_sample: 1e3 / b,
            speedup: msps / b,
        });
    }
    p.finish();
    let compare = if a.compare {
        let mut v = Vec::new();
        for m in [Merge::Optimal, Merge::Geometric, Merge::Uniform] {
            let tm = ZipfTable::with_merge(a.table.alpha, a.table.names, a.table.entries, m)?;
            v.push(MergeStats::of(m, &tm));
        }
        Some(v)
    } else {
        None
    };
    let mut written = None;
    if let Some(out) = out {
        let src = zipf_frames(&t, a.table.seed, None);
        written = Some(write_pcap(out, a.count, "zipf pcap", p, src)?);
    }
    Ok(ZipfResult {
        alpha: a.table.alpha,
        names: a.table.names,
        entries: t.entries(),
        merge: a.table.merge.clone(),
        table_bytes: t.bytes(),
        build_s,
        tv: st.tv,
        kl: st.kl,
        max_rel_err: st.max_rel_err,
        ks: st.ks,
        msamples_per_s: msps,
        ns_per_sample: 1e3 / msps,
        batch_msamples_per_s: batch_msps,
        baseline_rand_distr: baseline,
        compare,
        pcap: written,
    })
}

/// Configuration of [`zipf_error_sweep`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ZipfErrorConfig {
    /// Zipf exponents.
    pub alphas: Vec<f64>,
    /// Ranks.
    pub names: u64,
    /// Table budgets (entries).
    pub entries: Vec<u64>,
    /// Merge rules.
    pub merges: Vec<String>,
}

impl Default for ZipfErrorConfig {
    fn default() -> Self {
        ZipfErrorConfig {
            alphas: vec![0.8, 1.0],
            names: 1 << 32,
            entries: (10..=20).step_by(2).map(|k| 1u64 << k).collect(),
            merges: ["optimal", "geometric", "uniform"]
                .map(String::from)
                .to_vec(),
        }
    }
}

/// One table of [`zipf_error_sweep`].
#[derive(Clone, Debug, Serialize)]
pub struct ZipfErrorPoint {
    /// α.
    pub alpha: f64,
    /// Budget asked.
    pub budget: u64,
    /// Entries the table has.
    pub entries: usize,
    /// The table's error.
    #[serde(flatten)]
    pub stats: MergeStats,
}

/// Result of [`zipf_error_sweep`].
#[derive(Clone, Debug, Serialize)]
pub struct ZipfErrorResult {
    /// Ranks.
    pub names: u64,
    /// α-major, then merge rule, then budget.
    pub points: Vec<ZipfErrorPoint>,
}

/// The error of the Zipf table against the exact distribution as a function of the table
/// budget, for each α and merge rule (paper 003: how many entries a faithful table needs).
pub fn zipf_error_sweep(cfg: &ZipfErrorConfig, p: &dyn Progress) -> Result<ZipfErrorResult> {
    let mut merges = Vec::new();
    for m in &cfg.merges {
        merges.push(Merge::parse(m).ok_or_else(|| {
            Error::param(format!(
                "--merge {m:?}: expected optimal, geometric or uniform"
            ))
        })?);
    }
    let total = (cfg.alphas.len() * merges.len() * cfg.entries.len()) as u64;
    p.start("zipf tables", Some(total));
    let mut points = Vec::new();
    for &alpha in &cfg.alphas {
        for &m in &merges {
            for &budget in &cfg.entries {
                let t = ZipfTable::with_merge(alpha, cfg.names, budget, m)?;
                points.push(ZipfErrorPoint {
                    alpha,
                    budget,
                    entries: t.entries(),
                    stats: MergeStats::of(m, &t),
                });
                p.set(points.len() as u64);
                p.check_stop()?;
            }
        }
    }
    p.finish();
    Ok(ZipfErrorResult {
        names: cfg.names,
        points,
    })
}

/// Writes `count` frames produced by `frame(i, buf)` to `out` (1 µs apart), reporting
/// progress, and gives it its real name once complete; returns the summary.
fn write_pcap(
    out: OutFile,
    count: u64,
    what: &str,
    p: &dyn Progress,
    mut frame: impl FrameSource,
) -> Result<PcapInfo> {
    let name = out.path().display().to_string();
    p.start(what, Some(count));
    let wr = |e| Error::output(&name, "write error", e);
    let mut w = PcapWriter::new(out).map_err(wr)?;
    let mut f = Vec::with_capacity(2048);
    let mut bytes = 0u64;
    for i in 0..count {
        frame(i, &mut f).map_err(|e| Error::output(&name, format!("packet {i}"), e))?;
        bytes += f.len() as u64;
        w.write((1_700_000_000_000_000 + i) * 1_000, &f)
            .map_err(wr)?;
        if i % 65536 == 0 {
            p.set(i);
        }
    }
    w.finish().map_err(wr)?.commit()?;
    p.finish();
    p.note(&format!(
        "wrote {count} packets ({bytes} frame bytes) to {name}"
    ));
    Ok(PcapInfo {
        path: name,
        packets: count,
        frame_bytes: bytes,
    })
}

/// Frame `i` of a stream, written into the buffer (cleared first).
pub(crate) trait FrameSource: FnMut(u64, &mut Vec<u8>) -> std::io::Result<()> {}
impl<F: FnMut(u64, &mut Vec<u8>) -> std::io::Result<()>> FrameSource for F {}

/// The `gen zipf` stream: IPv4/UDP packets from 10.0.0.1 to Zipf-ranked destinations
/// (`splitmix64(rank)`), 18-byte payload (60-byte frames) unless `frame_len` asks for more.
pub(crate) fn zipf_frames(
    t: &ZipfTable,
    seed: u64,
    frame_len: Option<usize>,
) -> impl FrameSource + '_ {
    let mut rng = SplitMix64::new(seed ^ 0x7A1F);
    let zeros = vec![0u8; frame_len.unwrap_or(60).max(60) - 42];
    move |_, f| {
        let r = t.sample(&mut rng);
        build_frame(
            f,
            Ips::V4(0x0A00_0001, splitmix64(r) as u32),
            L4::Udp {
                sport: 49152 + (r % 16384) as u16,
                dport: 9,
            },
            &zeros,
        )
    }
}

/// The `gen flows` stream: packets of Zipf-popular 5-tuple flows (TCP and UDP), IP lengths
/// from the stream's 64/576/1500 mix, or all `frame_len - 14` bytes when given. With `dsts`,
/// each flow's destination is moved into one of these prefixes (chosen, with the host bits,
/// by a hash of the flow), so that every packet has a route in that table.
pub(crate) fn flow_frames<'t>(
    t: &'t ZipfTable,
    seed: u64,
    frame_len: Option<usize>,
    dsts: Option<&'t [Prefix<u32>]>,
) -> impl FrameSource + 't {
    let mut s = FlowStream::new(t, seed);
    let zeros = [0u8; 1500];
    move |i, f| {
        let (mut k, len) = s.next_packet();
        if let Some(d) = dsts.filter(|d| !d.is_empty()) {
            let h = splitmix64(
                u64::from_be_bytes(k.dst[..8].try_into().expect("8 bytes"))
                    ^ u64::from(k.sport) << 16
                    ^ u64::from(k.dport)
                    ^ u64::from(u32::from_be_bytes(k.src[..4].try_into().expect("4 bytes"))) << 32,
            );
            let p = d[(h % d.len() as u64) as usize];
            let m = u32::mask(p.len() as u32);
            let a = (p.addr() & m) | ((h >> 32) as u32 & !m);
            k.dst[..4].copy_from_slice(&a.to_be_bytes());
        }
        let len = frame_len.map_or(len as usize, |l| l.clamp(60, 1514) - 14);
        let ips = Ips::from_key(&k);
        if k.proto == 6 {
            let payload = &zeros[..len - 40];
            build_frame(
                f,
                ips,
                L4::Tcp {
                    sport: k.sport,
                    dport: k.dport,
                    seq: i as u32,
                    ack: 1,
                    flags: tcp_flags::ACK | tcp_flags::PSH,
                },
                payload,
            )
        } else {
            let payload = &zeros[..len - 28];
            build_frame(
                f,
                ips,
                L4::Udp {
                    sport: k.sport,
                    dport: k.dport,
                },
                payload,
            )
        }
    }
}

/// The `gen ccn` stream: CCNx Interests from 10.0.0.2 to 10.0.0.1 over UDP port 9896, each
/// followed by the producer's Content Object unless `interests_only`.
pub(crate) fn ccn_frames<'a>(
    t: &'a ZipfTable,
    seed: u64,
    prefix: &'a str,
    chunks: u32,
    payload: usize,
    interests_only: bool,
) -> impl FrameSource + 'a {
    let mut s = NameStream::new(t, seed, chunks);
    let (mut uri, mut name, mut pkt) = (String::new(), Vec::new(), Vec::new());
    let payload = vec![0x5Au8; payload];
    let (consumer, router) = (0x0A00_0002u32, 0x0A00_0001u32);
    let mut pending = false;
    let udp = L4::Udp {
        sport: tlv::CEFORE_PORT,
        dport: tlv::CEFORE_PORT,
    };
    move |_, f| {
        if pending {
            // The producer's Content Object for the previous Interest.
            pending = false;
            tlv::build_data(&mut pkt, &name, &payload);
            return build_frame(f, Ips::V4(router, consumer), udp, &pkt);
        }
        let (r, c) = s.next_name();
        NameStream::write_uri(prefix, r, c, &mut uri);
        tlv::name_from_uri(&uri, &mut name);
        tlv::build_interest(&mut pkt, &name, 32);
        pending = !interests_only;
        build_frame(f, Ips::V4(consumer, router), udp, &pkt)
    }
}

/// Configuration of [`flows`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowsConfig {
    /// The table (names = flows).
    pub table: ZipfSpec,
    /// Packets to write.
    pub count: u64,
    /// Output pcap.
    pub out: PathBuf,
}

/// Result of [`flows`].
#[derive(Clone, Debug, Serialize)]
pub struct FlowsResult {
    /// α.
    pub alpha: f64,
    /// Flows (ranks).
    pub flows: u64,
    /// Table entries.
    pub entries: usize,
    /// The pcap.
    pub pcap: PcapInfo,
}

/// Writes a pcap of packets from Zipf-popular 5-tuple flows (TCP and UDP).
pub fn flows(a: &FlowsConfig, p: &dyn Progress) -> Result<FlowsResult> {
    check::int_range("--count", a.count, 1, 1 << 40)?;
    a.table.validate()?;
    let out = OutFile::create(&a.out)?;
    let t = a.table.build()?;
    let src = flow_frames(&t, a.table.seed, None, None);
    let written = write_pcap(out, a.count, "flows pcap", p, src)?;
    Ok(FlowsResult {
        alpha: a.table.alpha,
        flows: a.table.names,
        entries: t.entries(),
        pcap: written,
    })
}

/// Configuration of [`ccn_pcap`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CcnPcapConfig {
    /// The table (names = contents).
    pub table: ZipfSpec,
    /// Name prefix.
    pub prefix: String,
    /// Chunks per content (0 or 1 = unchunked names).
    pub chunks: u32,
    /// Content Object payload bytes.
    pub payload: usize,
    /// Interests only (default: every Interest is followed by the producer's Content Object).
    pub interests_only: bool,
    /// Packets to write.
    pub count: u64,
    /// Output pcap.
    pub out: PathBuf,
}

impl CcnPcapConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--payload", self.payload as u64, 0, 65_000)?;
        check::int_range("--count", self.count, 1, 1 << 40).map_err(Error::from)
    }
}

/// Result of [`ccn_pcap`].
#[derive(Clone, Debug, Serialize)]
pub struct CcnPcapResult {
    /// α.
    pub alpha: f64,
    /// Contents (ranks).
    pub names: u64,
    /// Table entries.
    pub entries: usize,
    /// Name prefix.
    pub prefix: String,
    /// The pcap.
    pub pcap: PcapInfo,
}

/// Writes a pcap of CCNx Interests (and the producer's Content Objects) over UDP port 9896,
/// names drawn from the Zipf table.
pub fn ccn_pcap(a: &CcnPcapConfig, p: &dyn Progress) -> Result<CcnPcapResult> {
    a.validate()?;
    let out = OutFile::create(&a.out)?;
    let t = a.table.build()?;
    let src = ccn_frames(
        &t,
        a.table.seed,
        &a.prefix,
        a.chunks,
        a.payload,
        a.interests_only,
    );
    let written = write_pcap(out, a.count, "ccn pcap", p, src)?;
    Ok(CcnPcapResult {
        alpha: a.table.alpha,
        names: a.table.names,
        entries: t.entries(),
        prefix: a.prefix.clone(),
        pcap: written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;

    fn spec() -> ZipfSpec {
        ZipfSpec {
            names: 1 << 20,
            entries: 4096,
            ..ZipfSpec::default()
        }
    }

    #[test]
    fn zipf_reports_error_speed_and_merge_comparison() {
        let cfg = ZipfConfig {
            table: spec(),
            samples: 1 << 16,
            runs: 1,
            baseline_samples: 1 << 12,
            compare: true,
            ..ZipfConfig::default()
        };
        let r = zipf(&cfg, &Silent).unwrap();
        assert!(r.entries <= 4096 && r.tv > 0.0 && r.tv < 0.01);
        assert!(r.msamples_per_s > 0.0 && r.baseline_rand_distr.is_some());
        let c = r.compare.unwrap();
        // The optimal merge is never worse than the others in total variation.
        assert!(c[0].tv <= c[1].tv + 1e-12 && c[0].tv <= c[2].tv + 1e-12);
    }

    #[test]
    fn error_falls_with_budget() {
        let cfg = ZipfErrorConfig {
            alphas: vec![0.8],
            names: 1 << 24,
            entries: vec![256, 1024, 4096],
            merges: vec!["optimal".into()],
        };
        let r = zipf_error_sweep(&cfg, &Silent).unwrap();
        assert_eq!(r.points.len(), 3);
        assert!(r.points.windows(2).all(|w| w[1].stats.tv < w[0].stats.tv));
    }

    #[test]
    fn pcaps_have_the_asked_packet_count() {
        let dir = std::env::temp_dir().join(format!("pktlab-lab-traffic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = flows(
            &FlowsConfig {
                table: spec(),
                count: 1000,
                out: dir.join("f.pcap"),
            },
            &Silent,
        )
        .unwrap();
        assert_eq!(f.pcap.packets, 1000);
        let len = std::fs::metadata(dir.join("f.pcap")).unwrap().len();
        // 24-byte file header + 16 bytes per record header + frames.
        assert_eq!(len, 24 + 16 * 1000 + f.pcap.frame_bytes);
        let c = ccn_pcap(
            &CcnPcapConfig {
                table: spec(),
                prefix: "/x".into(),
                chunks: 0,
                payload: 10,
                interests_only: false,
                count: 100,
                out: dir.join("c.pcap"),
            },
            &Silent,
        )
        .unwrap();
        assert_eq!(c.pcap.packets, 100);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
