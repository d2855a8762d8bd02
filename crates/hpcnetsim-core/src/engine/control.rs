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

/// Chunks between two trials of the thread count not in use (see [`Adaptive`]), at first
/// and after a trial that won.
const PROBE_EVERY: u32 = 40;
/// Most chunks between two trials: each trial that loses doubles the interval up to this.
const PROBE_AT_MOST: u32 = 320;
/// Phit-hops below which a chunk is too small to judge a thread count by.
const MIN_JUDGED_PHIT_HOPS: u64 = 100_000;

/// The automatic thread count at run time, for a network large enough for several threads:
/// the chunks run on one thread or on all, whichever costs less wall-clock time per phit-hop,
/// and every `PROBE_EVERY` chunks one chunk tries the other count again, since a run's load
/// and the machine's other work change; a trial that loses doubles that interval (up to
/// `PROBE_AT_MOST`), so that a run where one count keeps winning pays for few trials, and a
/// trial that wins resets it. The first chunk after a change is not judged: it warms the
/// caches of the cores that take over. Results do not depend on any of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptive {
    /// The thread counts tried: `[1, many]`.
    counts: [usize; 2],
    /// Recent nanoseconds per phit-hop of each, if measured.
    cost: [Option<f64>; 2],
    /// Which of `counts` runs now.
    current: usize,
    /// Chunks run since the last change of count.
    streak: u32,
    /// Chunks between two trials now.
    interval: u32,
    /// Whether the current count is on trial (the last change was a periodic one).
    trial: bool,
}

impl Adaptive {
    /// Starts on `many` threads.
    pub fn new(many: usize) -> Self {
        Adaptive { counts: [1, many], cost: [None, None], current: 1, streak: 0, interval: PROBE_EVERY, trial: false }
    }

    /// The thread count now in use.
    pub fn threads(&self) -> usize {
        self.counts[self.current]
    }

    /// Records a chunk of `phit_hops` that took `seconds` on the current count; returns the
    /// count the next chunk should use.
    pub fn after_chunk(&mut self, seconds: f64, phit_hops: u64) -> usize {
        self.streak += 1;
        if self.streak == 1 || phit_hops < MIN_JUDGED_PHIT_HOPS {
            return self.threads();
        }
        let ns = seconds * 1e9 / phit_hops as f64;
        let m = self.current;
        // A fresh trial replaces the old figure; a run of chunks is averaged.
        let mine = match (self.streak, self.cost[m]) {
            (2, _) | (_, None) => ns,
            (_, Some(c)) => 0.7 * c + 0.3 * ns,
        };
        self.cost[m] = Some(mine);
        let cheaper = self.cost[1 - m].is_none_or(|other| other < mine);
        if self.trial {
            // The trial's first judged chunk decides its fate, and the time to the next one.
            self.trial = false;
            self.interval = match cheaper {
                true => (self.interval * 2).min(PROBE_AT_MOST),
                false => PROBE_EVERY,
            };
        }
        if cheaper || self.streak >= self.interval {
            self.trial = !cheaper;
            self.current = 1 - m;
            self.streak = 0;
        }
        self.threads()
    }
}

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
    /// Threads of one simulation (`--threads`; 0: automatic, see [`Adaptive`]: one thread
    /// below `AUTO_MIN_CHANNELS` channels). Results do not depend on it.
    pub threads: usize,
    /// The automatic choice, once a run with `threads` 0 on several threads has started.
    pub adaptive: Option<Adaptive>,
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
            adaptive: None,
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
            if self.threads == 0 && self.adaptive.is_none() && e.threads() > 1 {
                self.adaptive = Some(Adaptive::new(e.threads()));
            }
            let (t0, hops) = (Instant::now(), e.counters.phit_hops);
            let target = e.now().saturating_add(self.chunk).min(limit);
            e.run_until(target);
            // Chunk sizes adapt to the network: double while cheap, halve when slow.
            let took = t0.elapsed();
            if let Some(a) = self.adaptive.as_mut() {
                let next = a.after_chunk(took.as_secs_f64(), e.counters.phit_hops - hops);
                if next != e.threads() {
                    e.set_threads(next);
                }
            }
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

#[cfg(test)]
mod tests {
    use super::{Adaptive, PROBE_AT_MOST, PROBE_EVERY};

    /// The automatic choice moves to the cheaper thread count, skips the first chunk after a
    /// change and chunks too small to judge, and tries the other count again periodically.
    #[test]
    fn the_automatic_choice_follows_the_cheaper_thread_count() {
        let mut a = Adaptive::new(2);
        assert_eq!(a.threads(), 2);
        assert_eq!(a.after_chunk(9.0, 1_000_000), 2, "the first chunk is not judged");
        assert_eq!(a.after_chunk(0.1, 1_000_000), 1, "100 ns on two threads: try one");
        assert_eq!(a.after_chunk(0.01, 1_000_000), 1, "not judged");
        assert_eq!(a.after_chunk(1.0, 1_000), 1, "too small to judge");
        assert_eq!(a.after_chunk(0.05, 1_000_000), 1, "50 ns on one thread: stay");
        let mut probed = None;
        for i in 0..PROBE_EVERY {
            if a.after_chunk(0.05, 1_000_000) == 2 {
                probed = Some(i);
                break;
            }
        }
        assert!(probed.is_some(), "two threads are tried again within {PROBE_EVERY} chunks");
        assert_eq!(a.after_chunk(0.5, 1_000_000), 2, "not judged");
        assert_eq!(a.after_chunk(0.04, 1_000_000), 2, "40 ns on two threads now: stay");
        assert_eq!(a.after_chunk(0.1, 1_000_000), 1, "averaged to 58 ns, above 50: back to one");
    }

    /// Chunks on the current count until the other is tried again, every chunk costing
    /// `ns` per phit-hop.
    fn chunks_to_trial(a: &mut Adaptive, ns: f64) -> u32 {
        let now = a.threads();
        (1..=10 * PROBE_AT_MOST).find(|_| a.after_chunk(ns * 1e-3, 1_000_000) != now).expect("a trial")
    }

    /// Each losing trial doubles the chunks until the next, up to `PROBE_AT_MOST`; a
    /// winning trial brings the interval back to `PROBE_EVERY`.
    #[test]
    fn losing_trials_come_less_often() {
        let mut a = Adaptive::new(2);
        a.after_chunk(0.1, 1_000_000);
        assert_eq!(a.after_chunk(0.1, 1_000_000), 1, "100 ns on two threads: try one");
        // One thread at 50 ns from now on; each trial of two threads costs 100 ns.
        let mut gaps = Vec::new();
        for _ in 0..6 {
            gaps.push(chunks_to_trial(&mut a, 50.0));
            assert_eq!(a.after_chunk(0.2, 1_000_000), 2, "the trial's first chunk is not judged");
            assert_eq!(a.after_chunk(0.1, 1_000_000), 1, "the trial loses");
        }
        assert_eq!(
            gaps,
            [PROBE_EVERY, 2 * PROBE_EVERY, 4 * PROBE_EVERY, 8 * PROBE_EVERY, PROBE_AT_MOST, PROBE_AT_MOST]
        );
        // Two threads get faster: the next trial wins and stays.
        chunks_to_trial(&mut a, 50.0);
        a.after_chunk(0.2, 1_000_000);
        assert_eq!(a.after_chunk(0.02, 1_000_000), 2, "20 ns on two threads: the trial wins");
        // Counted after the trial's two chunks.
        assert_eq!(chunks_to_trial(&mut a, 20.0), PROBE_EVERY - 2, "back to the first interval");
    }
}
