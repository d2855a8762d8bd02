//! An engine running task programs: built from programs placed on terminals or from a
//! streamed trace, and what its tasks did (execution time, per-task cycles, messages, what
//! blocked tasks wait for). The tasks' steps are `crate::workload::exec`.

use super::{Engine, Event};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::rng::{stream, Owner};
use crate::routing::plane_selection::PlaneChoice;
use crate::topology::Topology;
use crate::workload::exec::{HostState, StreamStats, Tasks};
use crate::workload::traces::stream::ProgramSource;
use crate::workload::Programs;

/// Stream id of the messages' plane draws (under [`Owner::Setup`]).
const PLANE_STREAM: u64 = 0x91A7E;

impl<'a> Engine<'a> {
    /// A network running the given task programs, task `i` on terminal `terminal[i]`
    /// (hand-made workloads and traces; kernels come from the config's `[workload]`). On a
    /// multi-plane network the tasks run on endpoints (`terminal[i]` below
    /// `Topology::endpoints`) and each message takes a plane (`routing.plane_selection`).
    pub fn with_programs(cfg: &Config, topo: &'a Topology, programs: Programs, terminal: Vec<u32>) -> Result<Self> {
        programs.check()?;
        let n = topo.endpoints();
        if terminal.len() != programs.len() || terminal.iter().any(|&t| t as usize >= n) {
            return Err(Error::invalid(
                "workload",
                "placement",
                format!("{} terminals for {} tasks", terminal.len(), programs.len()),
                format!("one terminal in 0..{n} per task"),
            ));
        }
        let mut plain = cfg.clone();
        plain.workload = None;
        plain.traffic.load = 0.0;
        let mut e = Engine::with_model(&plain, topo, crate::switch::Model::new(cfg))?;
        e.load_programs(cfg, programs, terminal);
        Ok(e)
    }

    /// Installs task programs and starts every task at the current cycle; independent
    /// sources stay silent.
    pub(super) fn load_programs(&mut self, cfg: &Config, programs: Programs, terminal: Vec<u32>) {
        let n = programs.len();
        let bin = cfg.measurement.window_cycles;
        let nics = self.topo.num_terminals();
        self.tasks = Some(Tasks::new(
            programs.tasks,
            programs.sets,
            terminal,
            nics,
            cfg.traffic.packet_phits,
            cfg.switch.phit_bytes,
            bin,
        ));
        let tasks = self.tasks.as_mut().expect("just set");
        tasks.endpoints = self.topo.endpoints();
        if self.topo.planes() > 1 {
            let choice = PlaneChoice::new(cfg.routing.plane_selection, self.topo.planes(), tasks.endpoints);
            tasks.planes = Some((choice, stream(cfg.seed, Owner::Setup, PLANE_STREAM)));
        }
        // The config was validated when it was read: a NIC model that fails here is off.
        if let Ok(Some(model)) = cfg.nic_model() {
            tasks.host = Some(HostState::new(model, nics, n));
        }
        let w = cfg.workload.as_ref();
        // Cells and the NIC model's payloads are exclusive (the config refuses both at once).
        let host = self.tasks.as_ref().is_some_and(|t| t.host.is_some());
        if !host && (self.model.trim_last_packet || w.is_some_and(|w| w.packet_cells_max > 0)) {
            let cell_phits = self.model.cell_phits;
            let (lo, hi) = match w {
                Some(w) => w.packet_phits(cfg.traffic.packet_phits.next_multiple_of(cell_phits), cell_phits),
                None => (cfg.traffic.packet_phits, cfg.traffic.packet_phits),
            };
            let cell_bytes = cell_phits * cfg.switch.phit_bytes;
            self.tasks.as_mut().expect("tasks").cells = Some((cell_phits, cell_bytes, lo, hi));
        }
        let now = self.now();
        for task in 0..n {
            self.events.push(now, Event::Resume { task: task as u32 });
        }
    }

    /// For causal workloads: the execution time once every program has finished and the
    /// network is empty.
    pub fn execution_time(&self) -> Option<u64> {
        self.tasks.as_ref().and_then(|t| t.done_at)
    }

    /// Number of tasks of the causal workload (0 for independent traffic).
    pub fn num_tasks(&self) -> usize {
        self.tasks.as_ref().map_or(0, |t| t.ops.len())
    }

    /// For causal workloads: per-task compute, wait and finish cycles and the latency
    /// distribution (traffic is added by the caller, which has the programs).
    pub fn replay_stats(&self) -> Option<crate::workload::traces::Replay> {
        self.tasks.as_ref().map(|t| t.replay(self.now()))
    }

    /// For causal workloads: what the blocked tasks wait for (at most `limit` lines).
    pub fn blocked_tasks(&self, limit: usize) -> Vec<String> {
        self.tasks.as_ref().map(|t| t.blocked(limit)).unwrap_or_default()
    }

    /// For causal workloads: the last cycle a task advanced or a message packet arrived.
    pub fn last_progress(&self) -> u64 {
        self.tasks.as_ref().map_or(0, |t| t.last_progress)
    }

    /// For causal workloads: messages sent, their latency summary and the consumed load per
    /// time bin (phits per cycle per terminal) over cycles `0..end`.
    pub fn workload_stats(&self, end: u64) -> Option<(usize, crate::stats::Summary, u64, Vec<f64>)> {
        Some(self.tasks.as_ref()?.workload_stats(self.topo.num_terminals(), end))
    }

    /// A network replaying the tasks of `source` as a stream, task `i` on terminal
    /// `terminal[i]` (the trace was checked by a first pass: see `traces::scan`).
    pub fn with_source(
        cfg: &Config,
        topo: &'a Topology,
        source: Box<dyn ProgramSource>,
        terminal: Vec<u32>,
    ) -> Result<Self> {
        let n = source.ranks();
        let mut e = Engine::with_programs(cfg, topo, Programs::new(n), terminal)?;
        let tasks = e.tasks.as_mut().expect("programs loaded");
        tasks.stream.source = Some(source);
        tasks.stream.batch_sets = vec![Vec::new(); n];
        Ok(e)
    }

    /// For causal workloads: the most messages, window operations and buffered trace
    /// operations held at once.
    pub fn stream_stats(&self) -> Option<StreamStats> {
        let t = self.tasks.as_ref()?;
        Some(t.stream.stats(t.messages.len()))
    }

    /// The error that stopped a replay, if any (taken): of a streamed trace's reading, or a
    /// receive smaller than the message it matched.
    pub fn take_stream_error(&mut self) -> Option<Error> {
        self.tasks.as_mut().and_then(|t| t.stream.error.take())
    }

    /// Whether an error stopped the replay ([`Engine::take_stream_error`]).
    pub fn has_stream_error(&self) -> bool {
        self.tasks.as_ref().is_some_and(|t| t.stream.error.is_some())
    }
}
