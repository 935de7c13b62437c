//! Every algorithm against the radix-trie oracle ([`verify`]), also along an update stream.

use super::*;
use super::{check, Error, Progress, Result};
use pktlab::io::routes::Update;
use pktlab::lpm::{Lpm, Radix};
use pktlab::net::{Address, NextHop, Prefix};
use pktlab::traffic::lpm::{random_addr, stream};
use pktlab::util::Xor128;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Instant;

/// Configuration of [`verify`].
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyConfig {
    /// Table and algorithms.
    pub table: TableSpec,
    /// Random addresses checked besides the boundaries of every prefix.
    pub samples: u64,
    /// Update stream to apply, re-verifying along the way.
    pub updates: Option<PathBuf>,
    /// Re-verify (updated prefixes + 64K random addresses) every this many events.
    pub check_every: u64,
}

impl VerifyConfig {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        self.table.validate()?;
        check::int_range("--samples", self.samples, 0, 1 << 40)?;
        check::int_range("--check-every", self.check_every, 1, 1 << 40).map_err(Error::from)
    }
}

impl Default for VerifyConfig {
    fn default() -> Self {
        VerifyConfig {
            table: TableSpec::default(),
            samples: 1 << 20,
            updates: None,
            check_every: 100 << 10,
        }
    }
}

/// The update part of one algorithm's verification.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyUpdates {
    /// The update file.
    pub path: String,
    /// Events applied.
    pub events: usize,
    /// Lines skipped by the reader.
    pub skipped: u64,
    /// Prefixes after all updates.
    pub final_prefixes: usize,
    /// Seconds for applying and checking.
    pub seconds: f64,
    /// Seconds applying to the algorithm and the oracle.
    pub apply_s_both: f64,
    /// Whether the incrementally updated structure has the node and leaf counts of a fresh
    /// build of the final table.
    pub stats_equal_fresh_build: bool,
}

/// One algorithm's verification.
#[derive(Clone, Debug, Serialize)]
pub struct AlgoVerify {
    /// Algorithm name.
    pub algo: String,
    /// Lookups checked (scalar and batched count once).
    pub checked: u64,
    /// Lookups that disagreed with the oracle.
    pub mismatches: u64,
    /// Up to five mismatches, as text.
    pub examples: Vec<String>,
    /// Build time, seconds.
    pub build_s: f64,
    /// Present when an update stream was applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updates: Option<VerifyUpdates>,
}

/// Result of [`verify`].
#[derive(Clone, Debug, Serialize)]
pub struct VerifyResult {
    /// The table.
    pub table: TableInfo,
    /// Random samples asked for.
    pub samples: u64,
    /// Lookups checked, all algorithms.
    pub checked: u64,
    /// Mismatches, all algorithms.
    pub mismatches: u64,
    /// `mismatches == 0`.
    pub ok: bool,
    /// Per algorithm.
    pub algos: Vec<AlgoVerify>,
}

/// Addresses to check for a set of prefixes: first, last and their neighbours.
fn boundary_addrs<A: Address>(prefixes: impl Iterator<Item = Prefix<A>>, out: &mut Vec<A>) {
    for p in prefixes {
        for a in [p.first(), p.last()] {
            out.push(a);
            out.push(a.wrapping_add(1));
            out.push(a.wrapping_sub(1));
        }
    }
}

/// Per-algorithm verification tally.
struct Tally {
    checked: u64,
    mismatches: u64,
    examples: Vec<String>,
}

/// Compares `t` with the oracle answers `want` on `addrs` (both scalar and batched lookups).
fn check<A: Address>(t: &dyn Lpm<A>, addrs: &[A], want: &[Option<NextHop>], tally: &mut Tally) {
    let mut got = vec![None; addrs.len()];
    t.lookup_batch(addrs, &mut got);
    for ((a, w), g) in addrs.iter().zip(want).zip(&got) {
        let s = t.lookup(*a);
        tally.checked += 1;
        if s != *w || g != w {
            tally.mismatches += 1;
            if tally.examples.len() < 5 {
                tally.examples.push(format!(
                    "{}: want {} got {} (batch {})",
                    a.to_std(),
                    NextHop::raw(*w),
                    NextHop::raw(s),
                    NextHop::raw(*g)
                ));
            }
        }
    }
}

fn oracle_answers<A: Address>(o: &Radix<A>, addrs: &[A]) -> Vec<Option<NextHop>> {
    addrs.iter().map(|a| o.lookup(*a)).collect()
}

/// Checks every algorithm of `cfg.table` against the radix-trie oracle, scalar and batched,
/// on `cfg.samples` random addresses plus the first/last address of every prefix and their
/// neighbours; with `cfg.updates`, applies the stream to both and re-checks every
/// `cfg.check_every` events, then fully, and compares with a fresh build of the final table.
pub fn verify(cfg: &VerifyConfig, p: &dyn Progress) -> Result<VerifyResult> {
    cfg.validate()?;
    match family(&cfg.table)? {
        "v4" => verify_family::<u32>(cfg, p),
        _ => verify_family::<u128>(cfg, p),
    }
}

fn verify_family<A: Address>(cfg: &VerifyConfig, p: &dyn Progress) -> Result<VerifyResult> {
    let algos = algos(&cfg.table)?;
    let table = load::<A>(&cfg.table, p)?;
    let updates = match &cfg.updates {
        Some(path) => Some((path, load_updates::<A>(path, &cfg.table, p)?)),
        None => None,
    };
    let mut oracle = Radix::<A>::new();
    oracle.build(&table.routes);
    let mut rng = Xor128::new(stream(cfg.table.seed, 0xFFFF));
    let mut addrs: Vec<A> = (0..cfg.samples).map(|_| random_addr(&mut rng)).collect();
    boundary_addrs(table.routes.iter().map(|r| r.0), &mut addrs);
    let want = oracle_answers(&oracle, &addrs);
    let mut per_algo = Vec::new();
    let (mut checked, mut mismatches) = (0u64, 0u64);
    for algo in algos {
        p.check_stop()?;
        p.start(&format!("verify {algo}"), None);
        let (mut t, build_s) = build(algo, &table.routes);
        let mut tally = Tally {
            checked: 0,
            mismatches: 0,
            examples: Vec::new(),
        };
        check(&*t, &addrs, &want, &mut tally);
        let mut upd = None;
        if let Some((path, (ups, skipped))) = &updates {
            let mut o = oracle.clone();
            let every = cfg.check_every.max(1) as usize;
            let start = Instant::now();
            let mut apply_s = 0.0;
            for chunk in ups.chunks(every) {
                let s = Instant::now();
                for u in chunk {
                    match *u {
                        Update::Announce(p, nh) => {
                            t.insert(p, nh);
                            o.insert(p, nh);
                        }
                        Update::Withdraw(p) => {
                            t.remove(p);
                            o.remove(p);
                        }
                    }
                }
                apply_s += s.elapsed().as_secs_f64();
                let mut a: Vec<A> = (0..65536).map(|_| random_addr(&mut rng)).collect();
                boundary_addrs(
                    chunk.iter().map(|u| match u {
                        Update::Announce(p, _) | Update::Withdraw(p) => *p,
                    }),
                    &mut a,
                );
                let w = oracle_answers(&o, &a);
                check(&*t, &a, &w, &mut tally);
                p.check_stop()?;
            }
            // Final full check on the updated table.
            let mut a: Vec<A> = (0..cfg.samples).map(|_| random_addr(&mut rng)).collect();
            boundary_addrs(o.routes().into_iter().map(|r| r.0), &mut a);
            let w = oracle_answers(&o, &a);
            check(&*t, &a, &w, &mut tally);
            let mut fresh = algo.make::<A>();
            fresh.build(&o.routes());
            upd = Some(VerifyUpdates {
                path: path.display().to_string(),
                events: ups.len(),
                skipped: *skipped,
                final_prefixes: o.len(),
                seconds: start.elapsed().as_secs_f64(),
                apply_s_both: apply_s,
                stats_equal_fresh_build: fresh.stats() == t.stats(),
            });
        }
        p.finish();
        p.note(&format!(
            "{algo}: {} checked, {} mismatches{}",
            tally.checked,
            tally.mismatches,
            tally
                .examples
                .first()
                .map(|e| format!(" (first: {e})"))
                .unwrap_or_default()
        ));
        checked += tally.checked;
        mismatches += tally.mismatches;
        per_algo.push(AlgoVerify {
            algo: algo.to_string(),
            checked: tally.checked,
            mismatches: tally.mismatches,
            examples: tally.examples,
            build_s,
            updates: upd,
        });
    }
    Ok(VerifyResult {
        table: table.info,
        samples: cfg.samples,
        checked,
        mismatches,
        ok: mismatches == 0,
        algos: per_algo,
    })
}
