//! `pktlab aqm study fig2|fig5|fig6|fig7|fig8`: the sweeps of paper 002 (Kurata, Hasegawa &
//! Murata) on the dumbbell of fig. 4, run in parallel (rayon) over points × seeds, each
//! written as `OUT/figN.json` (config, aggregated rows, raw runs) and `OUT/figN.csv` (rows:
//! mean, min and max over seeds).

use crate::aqm::{result_json, ZombieArgs};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use pktlab::aqm::{AqmParamSet, AqmSpec, RedParams};
use pktlab::netsim::scenarios::dumbbell::{run, DumbbellConfig, DumbbellResult};
use pktlab::netsim::{secs, MS};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// `pktlab aqm study`
#[derive(Args)]
pub struct StudyArgs {
    /// Figure to reproduce: fig2, fig5, fig6, fig7 or fig8.
    fig: String,
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

#[derive(Clone)]
struct Point {
    aqm: String,
    spec: AqmSpec,
    buffer: u32,
    m: usize,
    a: f64,
    reno: u32,
    vegas: u32,
    vegas_delay_ms: f64,
    reno_only: bool,
}

const METRICS: [&str; 10] = [
    "reno_mbps",
    "vegas_mbps",
    "vegas_share",
    "jain",
    "loss_rate",
    "reno_loss_rate",
    "vegas_loss_rate",
    "utilization",
    "mean_queue_pkts",
    "flow_estimate",
];

fn metric(r: &DumbbellResult, k: &str) -> f64 {
    match k {
        "reno_mbps" => r.reno_mbps,
        "vegas_mbps" => r.vegas_mbps,
        "vegas_share" => r.vegas_share,
        "jain" => r.jain,
        "loss_rate" => r.loss_rate,
        "reno_loss_rate" => r.reno_loss_rate,
        "vegas_loss_rate" => r.vegas_loss_rate,
        "utilization" => r.utilization,
        "mean_queue_pkts" => r.mean_queue_pkts,
        "flow_estimate" => r.flow_estimate.unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn points(a: &StudyArgs, base: &AqmParamSet) -> Result<Vec<Point>> {
    let fig = a.fig.as_str();
    let def_aqm: Vec<String> = match fig {
        "fig2" => vec!["sred".into()],
        "fig5" | "fig6" | "fig7" | "fig8" => vec!["sred".into(), "zlred".into()],
        o => bail!("unknown study '{o}' (known: fig2, fig5, fig6, fig7, fig8)"),
    };
    let aqms = a.aqm.clone().unwrap_or(def_aqm);
    let conns = a.conns.clone().unwrap_or(match fig {
        "fig2" => vec![10, 20, 40, 80, 160, 320, 640, 1280],
        "fig8" => vec![10, 100],
        _ => vec![2, 10, 20, 50, 100, 200],
    });
    let buffers = a.buffers.clone().unwrap_or(match fig {
        "fig5" => vec![1000, 5000, 10000],
        _ => vec![5000],
    });
    let ms = a.ms.clone().unwrap_or(match fig {
        "fig2" => vec![100, 1000],
        "fig6" => vec![10, 100, 1000, 10000],
        _ => vec![a.zombie.zombies],
    });
    let avals = a.a.clone().unwrap_or(match fig {
        "fig7" => vec![1.0, 2.0, 4.0, 8.0],
        "fig8" => vec![1.0, 4.0],
        _ => vec![a.zombie.zl_a],
    });
    let delays = a.delays.clone().unwrap_or(match fig {
        "fig8" => vec![5.0, 10.0, 20.0, 40.0, 80.0, 160.0],
        _ => vec![20.0],
    });
    for &c in &conns {
        if c == 0 || (fig != "fig2" && c < 2) {
            bail!(
                "--conns: need at least {} connections (got {c})",
                if fig == "fig2" { 1 } else { 2 }
            );
        }
    }
    let mut out = Vec::new();
    for name in &aqms {
        let zombie = name.starts_with("sred") || name.starts_with("zl");
        let is_zl = name.starts_with("zl");
        for &b in &buffers {
            for &m in if zombie { &ms[..] } else { &ms[..1] } {
                for &av in if is_zl { &avals[..] } else { &avals[..1] } {
                    let mut ps = base.clone();
                    ps.sred.m = m;
                    ps.zlred.sred.m = m;
                    ps.zlred.a = av;
                    ps.sred.validate().map_err(|e| anyhow!("--ms: {e}"))?;
                    ps.zlred.validate().map_err(|e| anyhow!("--a: {e}"))?;
                    let spec = AqmSpec::parse_with(name, &ps).map_err(|e| anyhow!("--aqm: {e}"))?;
                    for &d in &delays {
                        for &c in &conns {
                            let (reno, vegas) = if fig == "fig2" {
                                (c, 0)
                            } else {
                                (c - c / 2, c / 2)
                            };
                            out.push(Point {
                                aqm: spec.name().to_string(),
                                spec: spec.clone(),
                                buffer: b,
                                m: if zombie { m } else { 0 },
                                a: if is_zl { av } else { f64::NAN },
                                reno,
                                vegas,
                                vegas_delay_ms: d,
                                reno_only: fig == "fig8",
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

fn config(a: &StudyArgs, p: &Point, seed: u64) -> Result<DumbbellConfig> {
    if !(a.duration.is_finite() && a.duration > 0.0) {
        bail!("--duration must be positive (got {})", a.duration);
    }
    if !(a.warmup.is_finite() && a.warmup >= 0.0 && a.warmup < a.duration) {
        bail!("--warmup must be in [0, duration) (got {})", a.warmup);
    }
    if !(p.vegas_delay_ms.is_finite() && p.vegas_delay_ms >= 0.0) {
        bail!("--delays must be non-negative (got {})", p.vegas_delay_ms);
    }
    let cfg = DumbbellConfig {
        reno: p.reno,
        vegas: p.vegas,
        buffer: p.buffer,
        aqm: p.spec.clone(),
        duration: secs(a.duration),
        warmup: secs(a.warmup),
        vegas_delay: (p.vegas_delay_ms * MS as f64).round() as u64,
        vegas_uses_reno: p.reno_only,
        seed,
        ..DumbbellConfig::default()
    };
    cfg.validate().map_err(|e| anyhow!(e))?;
    Ok(cfg)
}

fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

/// Runs a study; returns the exit code.
pub fn study(a: StudyArgs) -> Result<i32> {
    let mut ps = AqmParamSet {
        red: RedParams::default(),
        ..AqmParamSet::default()
    };
    a.zombie.apply(&mut ps)?;
    if a.seeds == 0 {
        bail!("--seeds must be at least 1");
    }
    let pts = points(&a, &ps)?;
    let mut jobs = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        for s in 0..a.seeds {
            let seed = a.seed.wrapping_add(s);
            jobs.push((i, seed, config(&a, p, seed)?));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .map_err(|e| anyhow!("--threads: {e}"))?;
    eprintln!(
        "pktlab: aqm study {}: {} points × {} seeds = {} runs of {} s on {} threads…",
        a.fig,
        pts.len(),
        a.seeds,
        jobs.len(),
        a.duration,
        pool.current_num_threads()
    );
    let done = AtomicUsize::new(0);
    let total = jobs.len();
    let t0 = Instant::now();
    let results: Vec<(usize, u64, DumbbellResult, Value, f64)> = pool.install(|| {
        jobs.par_iter()
            .map(|(i, seed, cfg)| {
                let t = Instant::now();
                let r = run(cfg).map_err(|e| anyhow!(e))?;
                let wall = t.elapsed().as_secs_f64();
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                if k % 10 == 0 || k == total {
                    eprintln!(
                        "pktlab: {k}/{total} runs ({:.1} s)",
                        t0.elapsed().as_secs_f64()
                    );
                }
                let v = result_json(cfg, &r, wall);
                Ok((*i, *seed, r, v, wall))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    let wall = t0.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    let mut csv = String::from("fig,aqm,buffer,m,a,conns,reno,vegas,vegas_delay_ms,seeds");
    for k in METRICS {
        csv.push_str(&format!(",{k},{k}_min,{k}_max"));
    }
    csv.push('\n');
    for (i, p) in pts.iter().enumerate() {
        let rs: Vec<&DumbbellResult> = results.iter().filter(|r| r.0 == i).map(|r| &r.2).collect();
        let mut row = json!({
            "aqm": p.aqm, "buffer": p.buffer, "m": p.m, "a": num(p.a),
            "conns": p.reno + p.vegas, "reno": p.reno, "vegas": p.vegas,
            "vegas_delay_ms": p.vegas_delay_ms, "seeds": rs.len(),
        });
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}",
            a.fig,
            p.aqm,
            p.buffer,
            p.m,
            if p.a.is_finite() {
                p.a.to_string()
            } else {
                String::new()
            },
            p.reno + p.vegas,
            p.reno,
            p.vegas,
            p.vegas_delay_ms,
            rs.len()
        ));
        for k in METRICS {
            let v: Vec<f64> = rs
                .iter()
                .map(|r| metric(r, k))
                .filter(|x| x.is_finite())
                .collect();
            let (mean, lo, hi) = if v.is_empty() {
                (f64::NAN, f64::NAN, f64::NAN)
            } else {
                (
                    v.iter().sum::<f64>() / v.len() as f64,
                    v.iter().cloned().fold(f64::INFINITY, f64::min),
                    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                )
            };
            row[k] = json!({"mean": num(mean), "min": num(lo), "max": num(hi)});
            let f = |x: f64| {
                if x.is_finite() {
                    format!("{x:.6}")
                } else {
                    String::new()
                }
            };
            csv.push_str(&format!(",{},{},{}", f(mean), f(lo), f(hi)));
        }
        csv.push('\n');
        rows.push(row);
    }
    let runs: Vec<Value> = results
        .iter()
        .map(|(i, seed, _, v, _)| {
            json!({"point": i, "seed": seed, "run": v["summary"].clone(),
            "wall_s": v["wall_s"].clone()})
        })
        .collect();
    let obj = json!({
        "study": a.fig,
        "paper": "002 Kurata, Hasegawa & Murata (ZL-RED)",
        "duration_s": a.duration, "warmup_s": a.warmup, "seeds": a.seeds, "first_seed": a.seed,
        "threads": pool.current_num_threads(),
        "runs_total": total,
        "wall_s": wall,
        "config_example": results.first().map(|r| r.3["config"].clone()),
        "rows": rows,
        "runs": runs,
    });
    std::fs::create_dir_all(&a.out).with_context(|| format!("{}: cannot create", a.out))?;
    let jp = format!("{}/{}.json", a.out, a.fig);
    let cp = format!("{}/{}.csv", a.out, a.fig);
    std::fs::write(&jp, format!("{obj}\n")).with_context(|| format!("{jp}: write failed"))?;
    let mut f = std::fs::File::create(&cp).with_context(|| format!("{cp}: cannot create"))?;
    f.write_all(csv.as_bytes())
        .with_context(|| format!("{cp}: write failed"))?;
    eprintln!("pktlab: wrote {jp} and {cp} ({wall:.1} s wall)");
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
