//! `pktlab reproduce`: flags → [`pktlab_report::ReportConfig`], run every section with an
//! overall progress bar and per-step bars, write `DIR/index.html`, `DIR/results.json` and
//! one CSV per figure, print a summary.

use crate::progress::Bars;
use anyhow::Result;
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use pktlab_lab::Progress;
use pktlab_report::model::Section;
use pktlab_report::verdict::Kind;
use pktlab_report::{html, Observer, ReportConfig, Scale, SectionDef};
use std::path::PathBuf;

/// Flags of `pktlab reproduce`.
#[derive(Args)]
pub struct ReproduceArgs {
    /// Smaller tables and traces, fewer seeds, shorter simulated time (about 3 minutes on 2 cores).
    #[arg(long)]
    quick: bool,
    /// The shared data directory (e.g. ../shared/data): real routing tables and flow statistics
    /// where a section uses them; without it, the embedded synthetic inputs.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Output directory: index.html, results.json and one CSV per figure.
    #[arg(long, default_value = "report")]
    out: PathBuf,
    /// Run only these sections (comma-separated ids: lpm, cache, aqm, tcp-mixes, zipf-cs, ccn-live, forward, vhost-live).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Print a JSON summary on stdout instead of the table.
    #[arg(long)]
    json: bool,
}

/// Overall bar (sections) above the step bars.
struct Bars2 {
    overall: ProgressBar,
    steps: Bars,
}

impl Observer for Bars2 {
    fn section_start(&self, index: usize, total: usize, def: &SectionDef) {
        self.overall.set_length(total as u64);
        self.overall.set_position(index as u64);
        self.overall
            .set_message(format!("{} ({})", def.id, def.title));
    }
    fn steps(&self) -> &dyn Progress {
        &self.steps
    }
    fn section_end(&self, index: usize, _: usize, s: &Section) {
        self.steps.finish();
        self.overall.set_position(index as u64 + 1);
        let msg = match &s.error {
            Some(e) => format!("pktlab: section {} failed: {e}", s.id),
            None => format!("pktlab: section {} done in {:.1} s", s.id, s.seconds),
        };
        self.overall.suspend(|| eprintln!("{msg}"));
    }
}

fn counts(s: &Section) -> String {
    let v = html::verdicts(s);
    Kind::ALL
        .iter()
        .filter_map(|k| {
            let n = v.iter().filter(|x| x.kind == *k).count();
            (n > 0).then(|| format!("{} {n}", k.label()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `pktlab reproduce`.
pub fn run(a: ReproduceArgs) -> Result<i32> {
    let cfg = ReportConfig {
        scale: if a.quick { Scale::Quick } else { Scale::Full },
        data: a.data,
        only: a.only.iter().map(|s| s.trim().to_string()).collect(),
    };
    pktlab_report::selected(&cfg)?;
    let mp = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let overall = mp.add(ProgressBar::new(0));
    if let Ok(s) =
        ProgressStyle::with_template("reproduce [{bar:30}] {pos}/{len} sections {elapsed} {msg}")
    {
        overall.set_style(s.progress_chars("=> "));
    }
    let obs = Bars2 {
        overall,
        steps: Bars::in_multi(mp.clone()),
    };
    let report = pktlab_report::run(&cfg, &obs)?;
    obs.overall.finish_and_clear();
    let w = pktlab_report::write(&report, &a.out)?;
    let failed = report.sections.iter().filter(|s| s.error.is_some()).count();
    if a.json {
        let sections: Vec<_> = report
            .sections
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.id,
                    "seconds": s.seconds,
                    "error": s.error,
                    "figures": s.body.figures.iter().map(|f| &f.id).collect::<Vec<_>>(),
                    "verdicts": html::verdicts(s).iter().map(|v| v.kind).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "html": w.html, "json": w.json, "csv": w.csv,
                "scale": report.scale, "seconds": report.seconds, "sections": sections,
            })
        );
    } else {
        println!("{:<10} {:>8}  verdicts", "section", "seconds");
        for s in &report.sections {
            let v = match &s.error {
                Some(e) => format!("FAILED: {e}"),
                None => counts(s),
            };
            println!("{:<10} {:>8.1}  {v}", s.id, s.seconds);
        }
        println!(
            "wrote {} ({} figures), {} and {} CSV files in {:.1} s",
            w.html.display(),
            w.csv.len(),
            w.json.display(),
            w.csv.len(),
            report.seconds
        );
    }
    Ok(if failed > 0 { 1 } else { 0 })
}
