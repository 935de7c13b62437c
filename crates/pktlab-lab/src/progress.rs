//! Progress reporting from experiments to whoever runs them, and the caller's way to stop
//! them early.

use std::sync::atomic::{AtomicBool, Ordering};

/// One progress event of an experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<'a> {
    /// A step begins: what it does, and how many units of work it has if known.
    Start {
        /// Short description, e.g. `poptrie18 lookups` or `fig5 runs`.
        what: &'a str,
        /// Units of work of the step (packets, runs, lookups), if known.
        total: Option<u64>,
    },
    /// `done` units of the current step are complete (monotone within a step).
    Set {
        /// Units done so far.
        done: u64,
    },
    /// A remark worth a line (a file read, a run's rate, a warning about skipped input).
    Note(&'a str),
    /// The current step is over.
    Finish,
}

/// Receives the progress of an experiment. Implemented for every `Fn(Event) + Sync` closure;
/// [`Silent`] ignores everything. Experiments running work in parallel call it from several
/// threads, hence `Sync`.
pub trait Progress: Sync {
    /// Handles one event.
    fn event(&self, e: Event<'_>);

    /// Starts a step of `total` units (if known).
    fn start(&self, what: &str, total: Option<u64>) {
        self.event(Event::Start { what, total });
    }
    /// Sets the units done in the current step.
    fn set(&self, done: u64) {
        self.event(Event::Set { done });
    }
    /// A one-line remark.
    fn note(&self, msg: &str) {
        self.event(Event::Note(msg));
    }
    /// Ends the current step.
    fn finish(&self) {
        self.event(Event::Finish);
    }
    /// The caller's stop flag, if it has one: set, it asks the experiment to end early (Python
    /// sets it on Ctrl-C). Long loops read it through [`Progress::stopped`] between chunks of
    /// work and return [`Error::Interrupted`](crate::Error::Interrupted).
    fn stop_flag(&self) -> Option<&AtomicBool> {
        None
    }
    /// Whether the caller asked the experiment to end early (see [`Progress::stop_flag`]).
    fn stopped(&self) -> bool {
        self.stop_flag().is_some_and(|s| s.load(Ordering::Relaxed))
    }
    /// `Err(Error::Interrupted)` once the caller asked the experiment to end early.
    fn check_stop(&self) -> crate::Result<()> {
        if self.stopped() {
            Err(crate::Error::Interrupted)
        } else {
            Ok(())
        }
    }
}

/// A [`Progress`] that reports nothing and carries a stop flag (Python's interruptible calls
/// hand one to the experiment and set it on Ctrl-C).
#[derive(Debug, Default)]
pub struct Stoppable {
    /// Set to ask the experiment to end early.
    pub stop: AtomicBool,
}

impl Progress for Stoppable {
    fn event(&self, _: Event<'_>) {}
    fn stop_flag(&self) -> Option<&AtomicBool> {
        Some(&self.stop)
    }
}

impl<F: Fn(Event<'_>) + Sync> Progress for F {
    fn event(&self, e: Event<'_>) {
        self(e)
    }
}

/// Ignores all progress (tests, batch use).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn event(&self, _: Event<'_>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn closures_receive_events() {
        let seen = Mutex::new(Vec::new());
        let p = |e: Event<'_>| seen.lock().unwrap().push(format!("{e:?}"));
        p.start("x", Some(3));
        p.set(2);
        p.note("hi");
        p.finish();
        assert!(!p.stopped() && p.check_stop().is_ok());
        let v = seen.into_inner().unwrap();
        assert_eq!(v.len(), 4);
        assert!(v[0].contains("total: Some(3)") && v[2].contains("hi"));
    }

    #[test]
    fn a_set_stop_flag_is_seen() {
        let s = Stoppable::default();
        assert!(!s.stopped());
        s.stop.store(true, Ordering::Relaxed);
        assert!(s.stopped());
        assert!(matches!(s.check_stop(), Err(crate::Error::Interrupted)));
    }
}
