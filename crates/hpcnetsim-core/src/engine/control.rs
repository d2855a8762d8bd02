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
    /// The cores the run may now use, if that changed since the run started on the threads
    /// it was given (a sweep's points near its end take the cores the finished points left
    /// idle); asked right after `observe`. `None`: as before.
    fn cores(&mut self) -> Option<usize> {
        None
    }
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
/// Channel-cycles of the first chunk: at most that many phit-hops, a few milliseconds, so
/// that a large network's first chunk, run before anything is measured, stays short.
const FIRST_CHUNK_CHANNEL_CYCLES: u64 = 1 << 19;
/// Cycles of the first chunk at most (small networks).
const FIRST_CHUNK: u64 = 256;

/// Chunks before the first periodic trial of a way of running not in use (see [`Adaptive`]):
/// soon, since the first measurements are taken while the network fills from empty, whose
/// cost per hop is not the steady state's (a 8-ary 4-tree at 30 % cost 19.4 ns per phit-hop
/// in its second chunk without prefetching, 17.3 from the fortieth).
const PROBE_FIRST: u32 = 5;
/// Chunks between two trials after a trial that won, or after the first that lost.
const PROBE_EVERY: u32 = 40;
/// Most chunks between two trials: each trial that loses doubles the interval up to this.
const PROBE_AT_MOST: u32 = 320;
/// Phit-hops below which a chunk is too small to judge a way of running by.
const MIN_JUDGED_PHIT_HOPS: u64 = 100_000;

/// One way of running the same simulation: its threads, and whether the sequential engine
/// prefetches (the parallel engine always does). Results do not depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Threads of the simulation.
    pub threads: usize,
    /// Whether the engine asks the cache ahead for the state the next items touch.
    pub prefetch: bool,
}

/// The automatic choice of how to run, measured as the run goes: the chunks run in the mode
/// that has cost the least wall-clock time per phit-hop, and every so many chunks one chunk
/// tries another mode again (in turn), since a run's load and the machine's other work
/// change: `PROBE_FIRST` chunks after the start, `PROBE_EVERY` after a trial that wins or
/// the first that loses, and twice as many after each further trial that loses (up to
/// `PROBE_AT_MOST`), so that a run where one mode keeps winning pays for few trials. Modes not yet measured are tried
/// first. The first chunk after a change of thread count is not judged: it warms the caches
/// of the cores that take over. Results do not depend on any of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptive {
    /// The modes tried; the first is the one the run starts in.
    modes: Vec<Mode>,
    /// Recent nanoseconds per phit-hop of each, if measured.
    cost: Vec<Option<f64>>,
    /// Which of `modes` runs now.
    current: usize,
    /// Chunks run since the last change of mode.
    streak: u32,
    /// Whether the first chunk of the current streak is to be judged (no thread count changed).
    judge_first: bool,
    /// Chunks between two trials now.
    interval: u32,
    /// Whether the current mode is on trial (the last change was a periodic one).
    trial: bool,
    /// The mode the next periodic trial tries after `current` (they take turns).
    turn: usize,
}

impl Adaptive {
    /// Chooses among `modes` (at least one), starting in the first.
    pub fn new(modes: Vec<Mode>) -> Self {
        assert!(!modes.is_empty(), "at least one mode");
        let n = modes.len();
        Adaptive {
            modes,
            cost: vec![None; n],
            current: 0,
            streak: 0,
            judge_first: false,
            interval: PROBE_FIRST,
            trial: false,
            turn: 0,
        }
    }

    /// The mode now in use.
    pub fn mode(&self) -> Mode {
        self.modes[self.current]
    }

    /// Records a chunk of `phit_hops` that took `seconds` in the current mode; returns the
    /// mode the next chunk should use.
    pub fn after_chunk(&mut self, seconds: f64, phit_hops: u64) -> Mode {
        self.streak += 1;
        let warming = self.streak == 1 && !self.judge_first;
        if self.modes.len() == 1 || warming || phit_hops < MIN_JUDGED_PHIT_HOPS {
            return self.mode();
        }
        let ns = seconds * 1e9 / phit_hops as f64;
        let m = self.current;
        // A fresh streak replaces the old figure; a run of chunks is averaged.
        let first_judged = self.streak == 1 + !self.judge_first as u32;
        let mine = match (first_judged, self.cost[m]) {
            (true, _) | (_, None) => ns,
            (_, Some(c)) => 0.7 * c + 0.3 * ns,
        };
        self.cost[m] = Some(mine);
        // The cheapest other mode, and any not measured yet.
        let others = (0..self.modes.len()).filter(|&i| i != m);
        let unmeasured = others.clone().find(|&i| self.cost[i].is_none());
        let best = others.clone().filter_map(|i| self.cost[i].map(|c| (c, i))).min_by(|a, b| a.0.total_cmp(&b.0));
        let cheaper = best.filter(|&(c, _)| c < mine).map(|(_, i)| i);
        if self.trial {
            // The trial's first judged chunk decides its fate, and the time to the next one.
            self.trial = false;
            self.interval = match cheaper {
                Some(_) => (self.interval * 2).clamp(PROBE_EVERY, PROBE_AT_MOST),
                None => PROBE_EVERY,
            };
        }
        let next = match (unmeasured, cheaper) {
            (Some(i), _) => Some(i),
            (None, Some(i)) => Some(i),
            (None, None) if self.streak >= self.interval => {
                // A periodic trial: the other modes take turns.
                let n = self.modes.len();
                self.turn = (1..=n).map(|d| (self.turn + d) % n).find(|&i| i != m).expect("another mode");
                self.trial = true;
                Some(self.turn)
            }
            (None, None) => None,
        };
        if let Some(i) = next {
            self.judge_first = self.modes[i].threads == self.modes[m].threads;
            self.current = i;
            self.streak = 0;
        }
        self.mode()
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
    /// Whether the sequential engine prefetches: `None` measures which is faster as the
    /// run goes (see [`Adaptive`]). Results do not depend on it.
    pub prefetch: Option<bool>,
    /// The automatic choice of mode, once the run has started.
    pub adaptive: Option<Adaptive>,
    /// The most threads the automatic choice may take (`None`: every core of the machine);
    /// set when the observer hands the run more cores ([`Observer::cores`]).
    pub cores: Option<usize>,
    /// Runs on one thread handling each round of a cycle's events in an order drawn from
    /// this seed ([`Engine::shuffle_order`]): a check that results do not depend on it.
    pub shuffle: Option<u64>,
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
            chunk: FIRST_CHUNK,
            last_cycle: 0,
            stopped: None,
            check: cfg!(debug_assertions),
            threads: 0,
            prefetch: None,
            adaptive: None,
            cores: None,
            shuffle: None,
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
            if self.adaptive.is_none() {
                self.chunk = (FIRST_CHUNK_CHANNEL_CYCLES / e.channels().max(1) as u64).clamp(1, FIRST_CHUNK);
                if let Some(on) = self.prefetch {
                    e.set_prefetching(on);
                }
                if let Some(seed) = self.shuffle {
                    e.shuffle_order(seed);
                }
                self.adaptive = Some(Adaptive::new(e.modes(self.threads, self.prefetch, self.cores)));
            }
            let (t0, hops) = (Instant::now(), e.stats.counters.phit_hops);
            let target = e.now().saturating_add(self.chunk).min(limit);
            e.run_until(target);
            // Chunk sizes adapt to the network: double while cheap, shrink when slow.
            let took = t0.elapsed();
            if let Some(a) = self.adaptive.as_mut() {
                let next = a.after_chunk(took.as_secs_f64(), e.stats.counters.phit_hops - hops);
                e.set_mode(next);
            }
            if took < TARGET_CHUNK / 2 {
                self.chunk = (self.chunk * 2).min(MAX_CHUNK);
            } else if took > TARGET_CHUNK * 2 {
                // In proportion, so that one slow chunk is not followed by several.
                let ratio = TARGET_CHUNK.as_secs_f64() / took.as_secs_f64();
                self.chunk = ((self.chunk as f64 * ratio) as u64).max(1);
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

    fn after_chunk(&mut self, e: &mut Engine, phase: &'static str) -> Result<()> {
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
                in_flight: e.stats.in_flight,
                delivered: e.stats.counters.delivered,
                wall_seconds: self.start.elapsed().as_secs_f64(),
            };
            obs.observe(&p)?;
            if let Some(n) = obs.cores().filter(|&n| n >= 1 && Some(n) != self.cores) {
                // More (or fewer) cores than the run started with: choose again, automatically,
                // among one thread and all of them (results do not depend on it).
                if n > 1 || self.threads != 1 {
                    (self.threads, self.cores) = (0, Some(n));
                    self.adaptive = Some(Adaptive::new(e.modes(0, self.prefetch, Some(n))));
                }
            }
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
    use super::{Adaptive, Mode, PROBE_AT_MOST, PROBE_EVERY, PROBE_FIRST};

    const TWO: Mode = Mode { threads: 2, prefetch: true };
    const ONE: Mode = Mode { threads: 1, prefetch: true };
    const ONE_PLAIN: Mode = Mode { threads: 1, prefetch: false };

    /// The automatic choice moves to the cheaper thread count, skips the first chunk after a
    /// change of thread count and chunks too small to judge, and tries the other count again
    /// periodically.
    #[test]
    fn the_automatic_choice_follows_the_cheaper_thread_count() {
        let mut a = Adaptive::new(vec![TWO, ONE]);
        assert_eq!(a.mode(), TWO);
        assert_eq!(a.after_chunk(9.0, 1_000_000), TWO, "the first chunk is not judged");
        assert_eq!(a.after_chunk(0.1, 1_000_000), ONE, "100 ns on two threads: try one");
        assert_eq!(a.after_chunk(0.01, 1_000_000), ONE, "not judged");
        assert_eq!(a.after_chunk(1.0, 1_000), ONE, "too small to judge");
        assert_eq!(a.after_chunk(0.05, 1_000_000), ONE, "50 ns on one thread: stay");
        let mut probed = None;
        for i in 0..PROBE_EVERY {
            if a.after_chunk(0.05, 1_000_000) == TWO {
                probed = Some(i);
                break;
            }
        }
        assert!(probed.is_some(), "two threads are tried again within {PROBE_EVERY} chunks");
        assert_eq!(a.after_chunk(0.5, 1_000_000), TWO, "not judged");
        assert_eq!(a.after_chunk(0.04, 1_000_000), TWO, "40 ns on two threads now: stay");
        assert_eq!(a.after_chunk(0.1, 1_000_000), ONE, "averaged to 58 ns, above 50: back to one");
    }

    /// Chunks in the current mode until another is tried, every chunk costing `ns` per
    /// phit-hop.
    fn chunks_to_trial(a: &mut Adaptive, ns: f64) -> u32 {
        let now = a.mode();
        (1..=10 * PROBE_AT_MOST).find(|_| a.after_chunk(ns * 1e-3, 1_000_000) != now).expect("a trial")
    }

    /// The first trial comes after `PROBE_FIRST` chunks; the first losing trial sets the
    /// interval to `PROBE_EVERY` and each further one doubles it, up to `PROBE_AT_MOST`; a
    /// winning trial brings it back to `PROBE_EVERY`.
    #[test]
    fn losing_trials_come_less_often() {
        let mut a = Adaptive::new(vec![TWO, ONE]);
        a.after_chunk(0.1, 1_000_000);
        assert_eq!(a.after_chunk(0.1, 1_000_000), ONE, "100 ns on two threads: try one");
        // One thread at 50 ns from now on; each trial of two threads costs 100 ns.
        let mut gaps = Vec::new();
        for _ in 0..8 {
            gaps.push(chunks_to_trial(&mut a, 50.0));
            assert_eq!(a.after_chunk(0.2, 1_000_000), TWO, "the trial's first chunk is not judged");
            assert_eq!(a.after_chunk(0.1, 1_000_000), ONE, "the trial loses");
        }
        let doubling: Vec<u32> = (0..7).map(|i| (PROBE_EVERY << i).min(PROBE_AT_MOST)).collect();
        assert_eq!(gaps[0], PROBE_FIRST, "the first trial comes soon");
        assert_eq!(gaps[1..], doubling, "then PROBE_EVERY, doubling");
        assert_eq!(doubling.last(), Some(&PROBE_AT_MOST), "the interval reaches its cap");
        // Two threads get faster: the next trial wins and stays.
        chunks_to_trial(&mut a, 50.0);
        a.after_chunk(0.2, 1_000_000);
        assert_eq!(a.after_chunk(0.02, 1_000_000), TWO, "20 ns on two threads: the trial wins");
        // Counted after the trial's two chunks.
        assert_eq!(chunks_to_trial(&mut a, 20.0), PROBE_EVERY - 2, "back to the interval after a win");
    }

    /// With three modes every one is measured before the choice settles on the cheapest; a
    /// change of prefetching alone is judged from its first chunk (no cores change hands);
    /// the periodic trials take turns among the other modes.
    #[test]
    fn every_mode_is_measured_and_the_trials_take_turns() {
        let mut a = Adaptive::new(vec![TWO, ONE_PLAIN, ONE]);
        assert_eq!(a.after_chunk(1.0, 1_000_000), TWO, "the first chunk is not judged");
        assert_eq!(a.after_chunk(0.030, 1_000_000), ONE_PLAIN, "30 ns on two threads: try the next mode");
        assert_eq!(a.after_chunk(0.5, 1_000_000), ONE_PLAIN, "a new thread count: not judged");
        assert_eq!(a.after_chunk(0.040, 1_000_000), ONE, "40 ns without prefetching: try it on");
        assert_eq!(a.after_chunk(0.020, 1_000_000), ONE, "judged at once: 20 ns, the cheapest: stay");
        // Periodic trials of the two others, in turn, each losing.
        let mut tried = Vec::new();
        for _ in 0..4 {
            chunks_to_trial(&mut a, 20.0);
            let trial = a.mode();
            tried.push(trial);
            if trial.threads != 1 {
                assert_eq!(a.after_chunk(0.5, 1_000_000), trial, "not judged");
            }
            assert_eq!(a.after_chunk(0.060, 1_000_000), ONE, "the trial of {trial:?} loses");
        }
        assert!(tried.contains(&TWO) && tried.contains(&ONE_PLAIN), "both others tried: {tried:?}");
        assert!(tried.windows(2).all(|w| w[0] != w[1]), "they take turns: {tried:?}");
    }

    /// A single mode is never left.
    #[test]
    fn one_mode_stays() {
        let mut a = Adaptive::new(vec![ONE]);
        for _ in 0..3 * PROBE_AT_MOST {
            assert_eq!(a.after_chunk(0.01, 1_000_000), ONE);
        }
    }
}
