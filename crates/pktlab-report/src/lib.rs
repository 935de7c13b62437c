//! `pktlab reproduce`: runs the experiments of every component through `pktlab_lab`, puts our
//! numbers beside the papers' (typed in once per section from `shared/papers/DIGEST.md`),
//! computes a verdict for each comparison, and writes `DIR/index.html` (self-contained: inline
//! CSS and SVG), `DIR/results.json` (every number shown) and one CSV per figure.
//!
//! Sections live in [`sections`], one file each, listed once in [`sections::REGISTRY`]; a
//! section is a [`SectionDef`]: id, title, paper, claim and a run function from a [`Ctx`]
//! (scale, optional data directory, progress) to a [`model::Body`].
//!
//! This crate holds the plotting dependency (plotters, SVG backend only) so that the `pktlab`
//! library stays free of it.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod html;
pub mod machine;
pub mod model;
pub mod plot;
pub mod sections;
pub mod verdict;

use machine::Machine;
use model::{Body, Section};
use pktlab_lab::{Error, Progress, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How big the experiments are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Seconds in a debug/test build: for the integration test only (numbers meaningless).
    Tiny,
    /// `--quick`: smaller inputs, fewer seeds, shorter simulated time (≤ 3 min on 2 cores).
    Quick,
    /// The sizes of `docs/results/*.md` (≤ 60 min on 2 cores).
    #[default]
    Full,
}

/// What to run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReportConfig {
    /// Size of the experiments.
    pub scale: Scale,
    /// The shared data directory (`../shared/data`): real tables and captures where a section
    /// uses them; `None` = embedded synthetic inputs.
    pub data: Option<PathBuf>,
    /// Section ids to run (empty = all).
    pub only: Vec<String>,
}

/// What a section's run function gets.
pub struct Ctx<'a> {
    /// Size of the experiments.
    pub scale: Scale,
    /// The data directory, if given.
    pub data: Option<&'a Path>,
    /// Per-step progress.
    pub progress: &'a dyn Progress,
}

impl Ctx<'_> {
    /// The value for the run's scale.
    pub fn pick<T>(&self, tiny: T, quick: T, full: T) -> T {
        match self.scale {
            Scale::Tiny => tiny,
            Scale::Quick => quick,
            Scale::Full => full,
        }
    }

    /// `DATA/rel` if a data directory was given and the file exists.
    pub fn data_file(&self, rel: &str) -> Option<PathBuf> {
        let p = self.data?.join(rel);
        p.exists().then_some(p)
    }
}

/// A section of the report: what it is and how to run it.
pub struct SectionDef {
    /// Identifier, what `--only` takes.
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// The paper (number, authors, venue).
    pub paper: &'static str,
    /// The paper's claim in one or two sentences.
    pub claim: &'static str,
    /// Runs the experiments and builds the body.
    pub run: fn(&Ctx<'_>) -> Result<Body>,
}

/// Receives the progress of a report run: a section starts, its steps (through
/// [`Observer::steps`]), it ends.
pub trait Observer: Sync {
    /// Section `index` of `total` starts.
    fn section_start(&self, index: usize, total: usize, def: &SectionDef);
    /// The progress sink for the steps of the running section.
    fn steps(&self) -> &dyn Progress;
    /// Section `index` of `total` ended.
    fn section_end(&self, index: usize, total: usize, section: &Section);
}

/// An [`Observer`] that ignores everything (tests, batch use).
pub struct Quiet;

impl Observer for Quiet {
    fn section_start(&self, _: usize, _: usize, _: &SectionDef) {}
    fn steps(&self) -> &dyn Progress {
        &pktlab_lab::Silent
    }
    fn section_end(&self, _: usize, _: usize, _: &Section) {}
}

/// A finished report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `pktlab reproduce`.
    pub generator: String,
    /// The command line that reproduces the whole report.
    pub command: String,
    /// Size of the experiments.
    pub scale: Scale,
    /// Data directory, if any.
    pub data: Option<String>,
    /// Machine and build facts.
    pub machine: Machine,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
    /// The sections, in registry order.
    pub sections: Vec<Section>,
}

/// The `pktlab reproduce` command line for `cfg`, restricted to `only` sections if given.
pub fn command(cfg: &ReportConfig, only: Option<&str>) -> String {
    let mut c = String::from("pktlab reproduce");
    if cfg.scale != Scale::Full {
        c.push_str(" --quick");
    }
    if let Some(d) = &cfg.data {
        c.push_str(&format!(" --data {}", d.display()));
    }
    match only {
        Some(id) => c.push_str(&format!(" --only {id}")),
        None if !cfg.only.is_empty() => c.push_str(&format!(" --only {}", cfg.only.join(","))),
        None => {}
    }
    c
}

/// The sections `cfg.only` selects, in registry order; an unknown id is an error naming the
/// known ones.
pub fn selected(cfg: &ReportConfig) -> Result<Vec<&'static SectionDef>> {
    let known: Vec<&str> = sections::REGISTRY.iter().map(|s| s.id).collect();
    for id in &cfg.only {
        if !known.contains(&id.as_str()) {
            return Err(Error::param(format!(
                "--only {id}: unknown section (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(sections::REGISTRY
        .iter()
        .filter(|s| cfg.only.is_empty() || cfg.only.iter().any(|o| o == s.id))
        .collect())
}

/// Runs the selected sections. A section that fails is kept with its error (the others
/// still run); only a bad configuration is an error.
pub fn run(cfg: &ReportConfig, obs: &dyn Observer) -> Result<Report> {
    if let Some(d) = &cfg.data {
        if !d.is_dir() {
            return Err(Error::param(format!(
                "--data {}: not a directory",
                d.display()
            )));
        }
    }
    let defs = selected(cfg)?;
    let mut machine = Machine::now();
    let t0 = Instant::now();
    let mut out = Vec::new();
    for (i, def) in defs.iter().enumerate() {
        obs.section_start(i, defs.len(), def);
        let ctx = Ctx {
            scale: cfg.scale,
            data: cfg.data.as_deref(),
            progress: obs.steps(),
        };
        let t = Instant::now();
        let res = (def.run)(&ctx);
        let (body, error) = match res {
            Ok(mut b) => {
                b.add_round_figures();
                (b, None)
            }
            Err(e) => (Body::default(), Some(e.to_string())),
        };
        let s = Section {
            id: def.id.into(),
            title: def.title.into(),
            paper: def.paper.into(),
            claim: def.claim.into(),
            command: command(cfg, Some(def.id)),
            seconds: t.elapsed().as_secs_f64(),
            error,
            body,
        };
        obs.section_end(i, defs.len(), &s);
        out.push(s);
    }
    machine.load_end = machine::load_avg();
    Ok(Report {
        generator: "pktlab reproduce".into(),
        command: command(cfg, None),
        scale: cfg.scale,
        data: cfg.data.as_ref().map(|d| d.display().to_string()),
        machine,
        seconds: t0.elapsed().as_secs_f64(),
        sections: out,
    })
}

/// Files written by [`write()`].
#[derive(Clone, Debug, Serialize)]
pub struct Written {
    /// `DIR/index.html`.
    pub html: PathBuf,
    /// `DIR/results.json`.
    pub json: PathBuf,
    /// One CSV per figure.
    pub csv: Vec<PathBuf>,
}

/// Writes one file of the report whole (a temporary renamed when complete).
fn put(path: &Path, data: &str) -> Result<()> {
    Ok(pktlab::io::write_whole(path, data.as_bytes())?)
}

/// Writes `dir/index.html`, `dir/results.json` and `dir/<figure>.csv` (creating `dir`).
pub fn write(r: &Report, dir: &Path) -> Result<Written> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::output(dir.display(), "cannot create directory", e))?;
    let html = dir.join("index.html");
    put(&html, &html::page(r))?;
    let json = dir.join("results.json");
    let text = serde_json::to_string_pretty(r)
        .map_err(|e| Error::output(json.display(), "cannot serialise", std::io::Error::other(e)))?;
    put(&json, &text)?;
    let mut csv = Vec::new();
    for f in r.sections.iter().flat_map(|s| &s.body.figures) {
        let p = dir.join(format!("{}.csv", f.id));
        put(&p, &plot::csv(f))?;
        csv.push(p);
    }
    Ok(Written { html, json, csv })
}
