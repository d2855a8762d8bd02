//! Control of a running simulation from outside: cancellation, progress reports and
//! budgets. The drivers (`measure`, `execute`) advance the engine through a [`Control`],
//! which runs it in chunks sized to take a few tens of milliseconds of wall-clock time, so
//! that a cancel request is seen well within a second whatever the network size.

use super::Engine;
use crate::error::{Error, Result};
use std::time::{Duration, Instant};

/// What a progress report says about a running simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// The current simulated cycle.
    pub cycle: u64,
    /// The phase of the methodology: `warm-up`, `convergence`, `batches` or `execution`.
    pub phase: &'static str,
    /// Packets generated and not yet delivered or dropped.
    pub in_flight: u64,
    /// Packets delivered so far.
    pub delivered: u64,
    /// Wall-clock seconds since the run started.
    pub wall_seconds: f64,
}

/// Someone watching a run: told the progress between chunks, may ask it to stop.
pub trait Observer {
    /// Called about every `Control::interval`; an error stops the run with that error.
    fn observe(&mut self, progress: &Progress) -> Result<()>;
}

/// Limits after which a run stops and reports what it has, marked `partial`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Wall-clock seconds.
    pub max_wall_seconds: Option<f64>,
    /// Simulated cycles.
    pub max_cycles: Option<u64>,
}

/// Wall-clock time a chunk of cycles should take: short enough for a prompt cancel.
const TARGET_CHUNK: Duration = Duration::from_millis(25);
/// Largest chunk, in cycles.
const MAX_CHUNK: u64 = 1 << 20;

/// Drives an engine in chunks, reporting progress and honouring cancel and budget.
pub struct Control<'a> {
    observer: Option<&'a mut dyn Observer>,
    budget: Budget,
    interval: Duration,
    start: Instant,
    last_report: Option<Instant>,
    chunk: u64,
    last_cycle: u64,
    /// Why the run stopped early (a budget), if it did.
    pub stopped: Option<String>,
    /// Whether to check the engine's invariants after every chunk (`--check`).
    pub check: bool,
    /// Threads of one simulation (`--threads`; 0: all the machine's cores if the network
    /// has at least `AUTO_MIN_CHANNELS` channels, one otherwise). Results do not depend on it.
    pub threads: usize,
}

impl Default for Control<'_> {
    fn default() -> Self {
        Control::new(None, Budget::default())
    }
}

impl<'a> Control<'a> {
    /// A control with an optional observer (called every 100 ms) and a budget.
    pub fn new(observer: Option<&'a mut dyn Observer>, budget: Budget) -> Self {
        Control {
            observer,
            budget,
            interval: Duration::from_millis(100),
            start: Instant::now(),
            last_report: None,
            chunk: 256,
            last_cycle: 0,
            stopped: None,
            check: cfg!(debug_assertions),
            threads: 0,
        }
    }

    /// Wall-clock seconds since the control was made.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Validates the budget: positive and finite.
    pub fn validate(budget: &Budget) -> Result<()> {
        if let Some(s) = budget.max_wall_seconds {
            if !(s.is_finite() && s > 0.0) {
                return Err(Error::invalid("run", "max_seconds", s, "a positive number of seconds"));
            }
        }
        if budget.max_cycles == Some(0) {
            return Err(Error::invalid("run", "max_cycles", 0, "a positive number of cycles"));
        }
        Ok(())
    }

    /// Runs every event of `e` before cycle `limit`; `Ok(false)` if a budget stopped it
    /// first (the reason is in [`Control::stopped`]), an error if the observer cancelled
    /// or an invariant check failed.
    pub fn run_until(&mut self, e: &mut Engine, limit: u64, phase: &'static str) -> Result<bool> {
        if self.stopped.is_some() {
            return Ok(false);
        }
        while e.now() < limit {
            let limit = match self.budget.max_cycles {
                Some(max) if max <= e.now() => {
                    self.stopped = Some(format!("cycle budget of {max} cycles reached during {phase}"));
                    return Ok(false);
                }
                Some(max) => limit.min(max),
                None => limit,
            };
            let t0 = Instant::now();
            let target = e.now().saturating_add(self.chunk).min(limit);
            e.run_until(target);
            // Chunk sizes adapt to the network: double while cheap, halve when slow.
            let took = t0.elapsed();
            if took < TARGET_CHUNK / 2 {
                self.chunk = (self.chunk * 2).min(MAX_CHUNK);
            } else if took > TARGET_CHUNK * 2 {
                self.chunk = (self.chunk / 2).max(1);
            }
            self.after_chunk(e, phase)?;
            if let Some(max) = self.budget.max_wall_seconds {
                if self.elapsed() >= max {
                    self.stopped =
                        Some(format!("wall-clock budget of {max} s reached during {phase} at cycle {}", e.now()));
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    fn after_chunk(&mut self, e: &Engine, phase: &'static str) -> Result<()> {
        if self.check {
            if e.now() < self.last_cycle {
                return Err(Error::Unsupported(format!(
                    "invariant violated: time went back from cycle {} to {}",
                    self.last_cycle,
                    e.now()
                )));
            }
            e.check_invariants().map_err(|m| Error::Unsupported(format!("invariant violated: {m}")))?;
        }
        self.last_cycle = e.now();
        let due = self.last_report.is_none_or(|t| t.elapsed() >= self.interval);
        if let (Some(obs), true) = (self.observer.as_deref_mut(), due) {
            self.last_report = Some(Instant::now());
            let p = Progress {
                cycle: e.now(),
                phase,
                in_flight: e.in_flight,
                delivered: e.counters.delivered,
                wall_seconds: self.start.elapsed().as_secs_f64(),
            };
            obs.observe(&p)?;
        }
        Ok(())
    }
}

/// An observer that cancels when a flag is set (for callers outside Python).
impl Observer for std::sync::atomic::AtomicBool {
    fn observe(&mut self, _: &Progress) -> Result<()> {
        if self.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Interrupted);
        }
        Ok(())
    }
}
