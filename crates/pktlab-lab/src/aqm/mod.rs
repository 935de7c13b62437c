//! AQM experiments (paper 002, Kurata, Hasegawa & Murata, ZL-RED): the dumbbell of fig. 4
//! under one or more disciplines ([`sim`]), the figure sweeps fig. 2 and figs. 5–8 run in
//! parallel over points × seeds ([`study`], with [`StudyResult::csv`] and [`write_study`]),
//! the mixes of today's TCPs ([`mix_study`]) and the per-packet cost of each discipline
//! ([`bench()`]).
//!
//! Files: `sim.rs` (one dumbbell run per discipline), `info.rs` (what a run reports),
//! `figures.rs` (paper 002's figure sweeps), `mixes.rs` (today's TCP mixes), `runner.rs`
//! (the one study runner both use, local threads or a distributed plan), `bench.rs`.

mod bench;
mod figures;
mod info;
mod mixes;
mod runner;
mod sim;
#[cfg(test)]
mod tests;

pub use bench::*;
pub use figures::*;
pub use info::*;
pub use mixes::*;
pub use runner::*;
pub use sim::*;

use super::{check, median, Error, Progress, Result};
use pktlab::aqm::{AqmParamSet, FlowKey, SredParams, ZlRedParams};
use pktlab::netsim::MS;
use serde::{Deserialize, Serialize};

/// Parameters of the zombie-list disciplines (SRED, ZL-RED).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct ZombieParams {
    /// Zombie list size m.
    pub zombies: usize,
    /// p_max.
    pub p_max: f64,
    /// p_swap.
    pub p_swap: f64,
    /// Hit-frequency weight α (default 1/m).
    pub alpha: Option<f64>,
    /// Flow id: `src-dst` (paper 002) or `5-tuple`.
    pub flow_key: String,
    /// ZL-RED mis-behaving multiplier a (≥ 1).
    pub zl_a: f64,
    /// ZL-RED th_min, packets.
    pub th_min: f64,
    /// ZL-RED EWMA weight of P_avg.
    pub w_avg: f64,
}

impl Default for ZombieParams {
    fn default() -> Self {
        ZombieParams {
            zombies: 1000,
            p_max: 0.15,
            p_swap: 0.25,
            alpha: None,
            flow_key: "src-dst".into(),
            zl_a: 1.0,
            th_min: 5.0,
            w_avg: 0.001,
        }
    }
}

impl ZombieParams {
    /// Refuses impossible values (one-line error naming the flag and the accepted range).
    pub fn validate(&self) -> Result<()> {
        check::int_range(
            "--zombies",
            self.zombies as u64,
            1,
            pktlab::aqm::sred::MAX_ZOMBIES as u64,
        )?;
        check::real_range("--p-max", self.p_max, 0.0, 1.0)?;
        check::real_range("--p-swap", self.p_swap, 0.0, 1.0)?;
        if let Some(a) = self.alpha {
            check::positive("--alpha", a)?;
            check::real_range("--alpha", a, 0.0, 1.0)?;
        }
        check::real_range("--zl-a", self.zl_a, 1.0, 1e9)?;
        check::non_negative("--th-min", self.th_min)?;
        check::positive("--w-avg", self.w_avg)?;
        check::real_range("--w-avg", self.w_avg, 0.0, 1.0).map_err(Error::from)
    }

    /// Fills the SRED/ZL-RED parts of a parameter set.
    pub fn apply(&self, ps: &mut AqmParamSet) -> Result<()> {
        self.validate()?;
        let flow_key = match self.flow_key.as_str() {
            "src-dst" => FlowKey::SrcDst,
            "5-tuple" | "five-tuple" => FlowKey::FiveTuple,
            o => {
                return Err(Error::param(format!(
                    "--flow-key must be src-dst or 5-tuple (got '{o}')"
                )))
            }
        };
        ps.sred = SredParams {
            m: self.zombies,
            p_max: self.p_max,
            p_swap: self.p_swap,
            alpha: self.alpha,
            flow_key,
        };
        ps.sred.validate()?;
        ps.zlred = ZlRedParams {
            sred: ps.sred.clone(),
            a: self.zl_a,
            th_min: self.th_min,
            w_avg: self.w_avg,
        };
        ps.zlred.validate()?;
        Ok(())
    }
}

fn positive(name: &str, v: f64) -> Result<f64> {
    check::positive(&format!("--{name}"), v)
        .map_err(Error::from)
        .map(|_| v)
}

fn non_negative(name: &str, v: f64) -> Result<f64> {
    check::non_negative(&format!("--{name}"), v)
        .map_err(Error::from)
        .map(|_| v)
}

fn mbps(name: &str, v: f64) -> Result<u64> {
    Ok((positive(name, v)? * 1e6).round() as u64)
}

fn ms(name: &str, v: f64) -> Result<u64> {
    Ok((non_negative(name, v)? * MS as f64).round() as u64)
}
