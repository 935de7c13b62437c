//! CCN experiments (paper 003's Cefore case study): content-store hit ratio per policy and
//! size under Zipf requests, next to the ideal static top-C ratio and Che's approximation for
//! LRU, and the forwarder's request rate with the CS off and with growing CS sizes ([`sim`]).

use super::{check, Error, Progress, Result};
use pktlab::ccn::cs::{AnyCs, Policy};
use pktlab::ccn::sim::{che_lru, hit_ratio, ideal, CcnLoop};
use pktlab::traffic::ZipfTable;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Configuration of [`sim`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct CcnSimConfig {
    /// Number of contents (Zipf ranks).
    pub contents: u64,
    /// Zipf exponent α.
    pub alpha: f64,
    /// CS sizes (entries); 0 = CS off (forwarding-rate baseline).
    pub cs_entries: Vec<u64>,
    /// Replacement policies: lru, fifo, lfu, random.
    pub policy: Vec<String>,
    /// Measured requests per hit-ratio simulation (after the store is full).
    pub requests: u64,
    /// Extra warm-up requests after the store first fills.
    pub warmup: u64,
    /// Requests through the consumer → router → producer loop for the rate (0 = skip), after
    /// as many warm-up requests.
    pub fwd_requests: u64,
    /// Zipf table budget for the request generator.
    pub table_entries: u64,
    /// Content Object payload bytes in the forwarding loop.
    pub payload: usize,
    /// Seed of the request stream and the random policy.
    pub seed: u64,
}

impl Default for CcnSimConfig {
    fn default() -> Self {
        CcnSimConfig {
            contents: 1 << 26,
            alpha: 0.8,
            cs_entries: vec![0, 1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22],
            policy: vec!["lru".into()],
            requests: 1 << 24,
            warmup: 1 << 22,
            fwd_requests: 1 << 21,
            table_entries: 1 << 20,
            payload: 16,
            seed: 1,
        }
    }
}

/// One policy at one CS size.
#[derive(Clone, Debug, Serialize)]
pub struct CcnRow {
    /// Policy, or `none` (CS off).
    pub policy: &'static str,
    /// CS entries.
    pub cs_entries: u64,
    /// Simulated hit ratio.
    pub hit_ratio: f64,
    /// Che's approximation for LRU.
    pub che_lru: f64,
    /// The ideal static top-C hit ratio.
    pub ideal: f64,
    /// Forwarder rate, million requests per second (None if skipped).
    pub mpps: Option<f64>,
    /// Hit ratio inside the forwarding loop.
    pub fwd_hit_ratio: Option<f64>,
}

/// Result of [`sim`].
#[derive(Clone, Debug, Serialize)]
pub struct CcnSimResult {
    /// Contents.
    pub contents: u64,
    /// α.
    pub alpha: f64,
    /// Measured requests.
    pub requests: u64,
    /// Warm-up requests.
    pub warmup: u64,
    /// Forwarding-loop requests.
    pub fwd_requests: u64,
    /// Request table entries.
    pub table_entries: usize,
    /// The request table's total variation distance from exact Zipf.
    pub table_tv: f64,
    /// Seed.
    pub seed: u64,
    /// Policies × sizes.
    pub results: Vec<CcnRow>,
}

impl CcnSimConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        check::int_range("--contents", self.contents, 1, 1 << 32)?;
        check::positive("--alpha", self.alpha)?;
        check::require(!self.cs_entries.is_empty(), "--cs-entries", || {
            "needs at least one size".into()
        })?;
        for &c in &self.cs_entries {
            check::int_range("--cs-entries", c, 0, 1 << 26)?;
        }
        check::int_range("--requests", self.requests, 1, 1 << 40)?;
        check::int_range("--warmup", self.warmup, 0, 1 << 40)?;
        check::int_range("--fwd-requests", self.fwd_requests, 0, 1 << 40)?;
        check::int_range("--table-entries", self.table_entries, 1, 1 << 26)?;
        check::int_range("--payload", self.payload as u64, 0, 65_000).map_err(Error::from)
    }
}

/// The content-store policy named `name`, or a one-line error naming `--policy` and listing
/// the policies.
fn parse_policy(name: &str) -> Result<Policy> {
    Policy::parse(name).ok_or_else(|| {
        let all: Vec<&str> = Policy::ALL.iter().map(|p| p.as_str()).collect();
        Error::param(format!(
            "--policy {name:?}: expected one of {}",
            all.join(", ")
        ))
    })
}

/// Content-store hit ratio for every policy × size under Zipf(α) requests, with Che's LRU
/// approximation and the ideal ratio beside it, and the forwarder's request rate (CS off
/// and each size).
pub fn sim(a: &CcnSimConfig, p: &dyn Progress) -> Result<CcnSimResult> {
    a.validate()?;
    let pols = a
        .policy
        .iter()
        .map(|name| parse_policy(name))
        .collect::<Result<Vec<_>>>()?;
    let table = ZipfTable::new(a.alpha, a.contents, a.table_entries)?;
    let tv = table.stats().tv;
    p.note(&format!(
        "Zipf({}) over {} contents, request table of {} entries (TV {:.1e})",
        a.alpha,
        a.contents,
        table.entries(),
        tv
    ));
    let mut configs = Vec::new();
    for &pol in &pols {
        for &c in &a.cs_entries {
            if c == 0 {
                if !configs.iter().any(|&(_, c)| c == 0) {
                    configs.push((None, 0));
                }
            } else {
                configs.push((Some(pol), c));
            }
        }
    }
    p.start("ccn sim", Some(configs.len() as u64));
    let mut rows = Vec::new();
    for (pol, c) in configs {
        let name = pol.map_or("none", |p| p.as_str());
        let che = che_lru(a.alpha, a.contents, c);
        let id = ideal(a.alpha, a.contents, c);
        let (h, sim_s) = match pol {
            Some(pol) => {
                let t0 = Instant::now();
                let mut cs = AnyCs::new(pol, c as usize, a.seed);
                let h = hit_ratio(&mut cs, &table, a.seed, a.warmup, a.requests);
                (h, t0.elapsed().as_secs_f64())
            }
            None => (0.0, 0.0),
        };
        let (mut mpps, mut fwd_hit) = (None, None);
        if a.fwd_requests > 0 {
            let cs = pol.map(|pol| AnyCs::new(pol, c as usize, a.seed));
            let mut l = CcnLoop::new(cs, "/cefore", a.payload, a.seed ^ 0xF0);
            l.run(&table, a.fwd_requests);
            let t0 = Instant::now();
            let hits = l.run(&table, a.fwd_requests);
            let dt = t0.elapsed().as_secs_f64();
            mpps = Some(a.fwd_requests as f64 / dt / 1e6);
            fwd_hit = Some(hits as f64 / a.fwd_requests as f64);
        }
        p.note(&format!(
            "{name:>6} cs={c:>8}: hit {h:.4} (che {che:.4}, ideal {id:.4}) in {sim_s:.1} s; forwarder {} Mreq/s",
            mpps.map_or("-".into(), |m| format!("{m:.2}"))
        ));
        rows.push(CcnRow {
            policy: name,
            cs_entries: c,
            hit_ratio: h,
            che_lru: che,
            ideal: id,
            mpps,
            fwd_hit_ratio: fwd_hit,
        });
        p.set(rows.len() as u64);
        p.check_stop()?;
    }
    p.finish();
    Ok(CcnSimResult {
        contents: a.contents,
        alpha: a.alpha,
        requests: a.requests,
        warmup: a.warmup,
        fwd_requests: a.fwd_requests,
        table_entries: table.entries(),
        table_tv: tv,
        seed: a.seed,
        results: rows,
    })
}

/// The forwarding rates of two CS sizes measured side by side, for ranking them on a host
/// whose speed drifts: both consumer → router → producer loops are built and warmed
/// ([`CcnSimConfig::fwd_requests`] requests each), then `slices` alternating slices of
/// `fwd_requests / slices` requests run on one and then the other (the first size first in
/// even slices, the second first in odd ones), each slice timed on the thread's own CPU clock.
/// A drift of the host's speed then weighs on both sizes alike, where two loops timed one
/// after the other (as [`sim`] does) see different moments. Returns M requests per CPU-second
/// for each size, in the order given. Uses the first policy of `a.policy`.
pub fn paired_rates(a: &CcnSimConfig, sizes: [u64; 2], slices: u64) -> Result<[f64; 2]> {
    a.validate()?;
    check::int_range("--fwd-requests", a.fwd_requests, 1, 1 << 40)?;
    check::int_range("slices", slices, 1, a.fwd_requests)?;
    for &c in &sizes {
        check::int_range("--cs-entries", c, 1, 1 << 26)?;
    }
    let name = a.policy.first().map_or("lru", |s| s.as_str());
    let pol = parse_policy(name)?;
    let table = ZipfTable::new(a.alpha, a.contents, a.table_entries)?;
    let mut loops = sizes.map(|c| {
        let mut l = CcnLoop::new(
            Some(AnyCs::new(pol, c as usize, a.seed)),
            "/cefore",
            a.payload,
            a.seed ^ 0xF0,
        );
        l.run(&table, a.fwd_requests);
        l
    });
    let per = a.fwd_requests / slices;
    let mut cpu_ns = [0u64; 2];
    for k in 0..slices {
        let order = if k % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let t0 = pktlab::util::thread_cpu_ns();
            loops[i].run(&table, per);
            cpu_ns[i] += pktlab::util::thread_cpu_ns() - t0;
        }
    }
    let n = (per * slices) as f64;
    Ok(cpu_ns.map(|t| n / (t.max(1) as f64 * 1e-9) / 1e6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;

    #[test]
    fn lru_hit_ratio_is_close_to_che_and_below_ideal() {
        let cfg = CcnSimConfig {
            contents: 1 << 20,
            cs_entries: vec![0, 4096],
            policy: vec!["lru".into()],
            requests: 1 << 17,
            warmup: 1 << 14,
            fwd_requests: 1 << 12,
            table_entries: 1 << 14,
            ..CcnSimConfig::default()
        };
        let r = sim(&cfg, &Silent).unwrap();
        assert_eq!(r.results.len(), 2);
        let none = &r.results[0];
        assert_eq!((none.policy, none.hit_ratio), ("none", 0.0));
        assert!(none.mpps.unwrap() > 0.0);
        let lru = &r.results[1];
        assert!((lru.hit_ratio - lru.che_lru).abs() < 0.02, "{lru:?}");
        assert!(lru.hit_ratio < lru.ideal);
    }

    #[test]
    fn bad_policy_is_rejected() {
        let cfg = CcnSimConfig {
            policy: vec!["foo".into()],
            ..CcnSimConfig::default()
        };
        assert!(sim(&cfg, &Silent)
            .unwrap_err()
            .to_string()
            .starts_with("--policy"));
    }

    #[test]
    fn paired_rates_time_both_sizes_and_refuse_bad_slices() {
        let cfg = CcnSimConfig {
            contents: 1 << 16,
            fwd_requests: 1 << 12,
            table_entries: 1 << 12,
            ..CcnSimConfig::default()
        };
        let [a, b] = paired_rates(&cfg, [16, 4096], 4).unwrap();
        assert!(
            a > 0.0 && a.is_finite() && b > 0.0 && b.is_finite(),
            "{a} {b}"
        );
        let e = paired_rates(&cfg, [16, 4096], 0).unwrap_err().to_string();
        assert!(e.starts_with("slices"), "{e}");
        let e = paired_rates(&cfg, [0, 4096], 4).unwrap_err().to_string();
        assert!(e.starts_with("--cs-entries"), "{e}");
        let bad = CcnSimConfig {
            policy: vec!["mru".into()],
            ..cfg.clone()
        };
        let e = paired_rates(&bad, [16, 4096], 4).unwrap_err().to_string();
        assert!(
            e.starts_with("--policy \"mru\": expected one of") && e.contains("lru"),
            "{e}"
        );
    }
}
