//! `pktlab aqm study fig2|fig5|fig6|fig7|fig8`: the sweeps of paper 002 (Kurata, Hasegawa &
//! Murata) on the dumbbell of fig. 4, run in parallel (rayon) over points × seeds, each
//! written as `OUT/figN.json` (config, aggregated rows, raw runs) and `OUT/figN.csv` (rows:
//! mean, min and max over seeds). Beyond the paper, `pktlab aqm study cubic-vs-bbr|
//! reno-vs-cubic|cubic-vs-vegas` runs today's TCP mixes over disciplines × ECN off/on
//! (`lab::aqm::mix_study`), written as `OUT/MIX.json` and `OUT/MIX.csv`.

use crate::aqm::ZombieArgs;
use crate::progress::Bars;
use anyhow::Result;
use clap::Args;
use pktlab_lab::aqm::{self, MixStudyConfig, StudyConfig, MIXES};

/// `pktlab aqm study`
#[derive(Args)]
pub struct StudyArgs {
    /// Figure to reproduce: fig2, fig5, fig6, fig7 or fig8; or a mix beyond the paper:
    /// cubic-vs-bbr, reno-vs-cubic, cubic-vs-vegas.
    fig: String,
    /// Mixes: ECN settings to run, comma-separated off/on.
    #[arg(long, value_delimiter = ',', default_value = "off,on")]
    ecn: Vec<String>,
    /// Mixes: disable SACK (on by default for the mixes).
    #[arg(long)]
    no_sack: bool,
    /// Disciplines (default: fig2 sred; others sred,zlred); comparators: droptail, red, ….
    #[arg(long, value_delimiter = ',')]
    aqm: Option<Vec<String>>,
    /// Total TCP connections per point (fig5–7: half Reno, half Vegas; fig2: all Reno).
    #[arg(long, value_delimiter = ',')]
    conns: Option<Vec<u32>>,
    /// Buffer sizes B, packets (fig5 default 1000,5000,10000; others 5000).
    #[arg(long, value_delimiter = ',')]
    buffers: Option<Vec<u32>>,
    /// Zombie list sizes m (fig2 default 100,1000; fig6 10,100,1000,10000; others --zombies).
    #[arg(long, value_delimiter = ',')]
    ms: Option<Vec<usize>>,
    /// ZL-RED a values (fig7 default 1,2,4,8; fig8 1,4; others --zl-a).
    #[arg(long, value_delimiter = ',')]
    a: Option<Vec<f64>>,
    /// fig8: access delays τ_vx of the second Reno group, ms.
    #[arg(long, value_delimiter = ',')]
    delays: Option<Vec<f64>>,
    /// Seeds per point (seed, seed+1, …).
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Simulated seconds per run (paper: 500).
    #[arg(long, default_value_t = 500.0)]
    duration: f64,
    /// Seconds excluded from the measurement at the start.
    #[arg(long, default_value_t = 50.0)]
    warmup: f64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Output directory for figN.json and figN.csv.
    #[arg(long, default_value = "results/aqm")]
    out: String,
    #[command(flatten)]
    zombie: ZombieArgs,
    /// Print one JSON object (the figN.json content) on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs a mix study (beyond the paper); returns the exit code.
fn mix(a: StudyArgs) -> Result<i32> {
    let d = MixStudyConfig::default();
    let ecn = a
        .ecn
        .iter()
        .map(|e| match e.as_str() {
            "off" | "false" | "0" => Ok(false),
            "on" | "true" | "1" => Ok(true),
            o => Err(anyhow::anyhow!("--ecn: expected off or on (got '{o}')")),
        })
        .collect::<Result<Vec<_>>>()?;
    let cfg = MixStudyConfig {
        mix: a.fig.clone(),
        aqm: a.aqm.clone().unwrap_or(d.aqm),
        ecn,
        conns: a.conns.clone().unwrap_or(d.conns),
        buffer: a
            .buffers
            .as_ref()
            .and_then(|b| b.first().copied())
            .unwrap_or(d.buffer),
        sack: !a.no_sack,
        seeds: a.seeds,
        seed: a.seed,
        duration: a.duration,
        warmup: a.warmup,
        threads: a.threads,
        zombie: a.zombie.params(),
    };
    let r = aqm::mix_study(&cfg, &Bars::new())?;
    let (jp, cp) = aqm::write_mix_study(&r, std::path::Path::new(&a.out))?;
    eprintln!(
        "pktlab: wrote {} and {} ({:.1} s wall)",
        jp.display(),
        cp.display(),
        r.wall_s
    );
    if a.json {
        println!("{}", serde_json::to_value(&r)?);
        return Ok(0);
    }
    println!(
        "{:<9} {:>4} {:>5} {:>10} {:>10} {:>7} {:>6} {:>6} {:>8} {:>9} {:>5}",
        "aqm",
        "ecn",
        "conns",
        format!("{}_Mb/s", r.rows.first().map_or("a", |x| x.a)),
        format!("{}_Mb/s", r.rows.first().map_or("b", |x| x.b)),
        "b_share",
        "jain",
        "util",
        "loss",
        "queue_pkt",
        "fair"
    );
    for x in &r.rows {
        println!(
            "{:<9} {:>4} {:>5} {:>10.3} {:>10.3} {:>7.3} {:>6.3} {:>6.3} {:>8.5} {:>9.1} {:>5}",
            x.aqm,
            if x.ecn { "on" } else { "off" },
            x.conns,
            x.a_mbps.mean,
            x.b_mbps.mean,
            x.b_share.mean,
            x.jain.mean,
            x.utilization.mean,
            x.loss_rate.mean,
            x.mean_queue_pkts.mean,
            if x.fair { "yes" } else { "no" }
        );
    }
    Ok(0)
}

/// Runs a study; returns the exit code.
pub fn study(a: StudyArgs) -> Result<i32> {
    if MIXES.contains(&a.fig.as_str()) {
        return mix(a);
    }
    let cfg = StudyConfig {
        fig: a.fig.clone(),
        aqm: a.aqm.clone(),
        conns: a.conns.clone(),
        buffers: a.buffers.clone(),
        ms: a.ms.clone(),
        a: a.a.clone(),
        delays: a.delays.clone(),
        seeds: a.seeds,
        seed: a.seed,
        duration: a.duration,
        warmup: a.warmup,
        threads: a.threads,
        zombie: a.zombie.params(),
    };
    let bars = Bars::new();
    let r = aqm::study(&cfg, &bars)?;
    let (jp, cp) = aqm::write_study(&r, std::path::Path::new(&a.out))?;
    eprintln!(
        "pktlab: wrote {} and {} ({:.1} s wall)",
        jp.display(),
        cp.display(),
        r.wall_s
    );
    let obj = serde_json::to_value(&r)?;
    let rows = obj["rows"].as_array().cloned().unwrap_or_default();
    if a.json {
        println!("{obj}");
    } else {
        println!(
            "{:<9} {:>6} {:>6} {:>4} {:>5} {:>6} {:>9} {:>9} {:>7} {:>6} {:>8} {:>8}",
            "aqm",
            "B",
            "m",
            "a",
            "conns",
            "tau_vx",
            "reno_Mb/s",
            "vegas_Mb/s",
            "v_share",
            "jain",
            "loss",
            "1/P"
        );
        for r in &rows {
            let g = |k: &str| r[k]["mean"].as_f64().unwrap_or(f64::NAN);
            println!(
                "{:<9} {:>6} {:>6} {:>4} {:>5} {:>6} {:>9.3} {:>10.3} {:>7.3} {:>6.3} {:>8.5} {:>8.1}",
                r["aqm"].as_str().unwrap_or(""),
                r["buffer"],
                r["m"],
                r["a"].as_f64().map(|x| x.to_string()).unwrap_or_else(|| "-".into()),
                r["conns"],
                r["vegas_delay_ms"],
                g("reno_mbps"),
                g("vegas_mbps"),
                g("vegas_share"),
                g("jain"),
                g("loss_rate"),
                g("flow_estimate"),
            );
        }
    }
    Ok(0)
}
