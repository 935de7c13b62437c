//! The CLI's [`Progress`]: indicatif bars on stderr (drawn only on a terminal) and notes as
//! `pktlab: …` lines.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use pktlab_lab::{Event, Progress};
use std::sync::Mutex;

/// Progress bars on stderr.
#[derive(Default)]
pub struct Bars {
    bar: Mutex<Option<ProgressBar>>,
    multi: Option<MultiProgress>,
}

impl Bars {
    /// No bar yet.
    pub fn new() -> Self {
        Bars::default()
    }

    /// Bars drawn inside `multi` (below the bars already there).
    pub fn in_multi(multi: MultiProgress) -> Self {
        Bars {
            bar: Mutex::new(None),
            multi: Some(multi),
        }
    }
}

/// The bar of one step: counted (`total` known) or a spinner.
pub fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let style = match total {
        Some(_) => ProgressStyle::with_template(
            "{msg} [{bar:40}] {human_pos}/{human_len} {per_sec} {elapsed} eta {eta}",
        ),
        None => ProgressStyle::with_template("{spinner} {msg} {elapsed}"),
    };
    if let Ok(s) = style {
        pb.set_style(s.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    if total.is_none() {
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
    }
    pb
}

impl Progress for Bars {
    fn event(&self, e: Event<'_>) {
        let mut g = self.bar.lock().unwrap_or_else(|p| p.into_inner());
        match e {
            Event::Start { what, total } => {
                if let Some(old) = g.take() {
                    old.finish_and_clear();
                }
                let b = bar(what, total);
                *g = Some(match &self.multi {
                    Some(m) => m.add(b),
                    None => b,
                });
            }
            Event::Set { done } => {
                if let Some(b) = g.as_ref() {
                    b.set_position(done);
                }
            }
            Event::Note(m) => match g.as_ref() {
                Some(b) => b.suspend(|| eprintln!("pktlab: {m}")),
                None => eprintln!("pktlab: {m}"),
            },
            Event::Finish => {
                if let Some(b) = g.take() {
                    b.finish_and_clear();
                }
            }
        }
    }
}
