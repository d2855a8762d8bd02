//! Runs a causal workload to completion and reports its execution time (paper 000 §4.3),
//! or which tasks wait for what when the programs can no longer progress.

use super::control::Control;
use super::Engine;
use crate::config::{Config, WorkloadConfig};
use crate::error::{Error, Result};
use crate::stats::{ExecutionResult, Status};
use crate::topology::Topology;
use std::time::Instant;

/// Cycles simulated between checks for completion and stalls.
const CHUNK_CYCLES: u64 = 50_000;

/// Runs the workload of `cfg` (which must have a `[workload]` table).
pub fn execute(cfg: &Config) -> Result<ExecutionResult> {
    execute_with(cfg, &mut Control::default())
}

/// [`execute`] under a [`Control`]: cancellable, observed, within a budget.
pub fn execute_with(cfg: &Config, ctl: &mut Control) -> Result<ExecutionResult> {
    let w =
        cfg.workload.as_ref().ok_or_else(|| Error::invalid("config", "workload", "missing", "a [workload] table"))?;
    crate::resources::check_config(cfg)?;
    if let Some(path) = &w.trace {
        crate::workload::traces::check_flops(w, std::path::Path::new(path))?;
        // A first pass checks and summarises the trace; the replay then streams it.
        let scanned =
            crate::workload::traces::scan(std::path::Path::new(path), w.format, crate::workload::traces::scale(w))?;
        let name = std::path::Path::new(path).file_name().map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        let name = format!("trace {name}");
        let window = cfg.measurement.window_cycles;
        crate::workload::traces::limits::series(path, scanned.max_compute_cycles(), window)?;
        return match scanned.source()? {
            Some(source) => execute_source_with(cfg, source, scanned.traffic, &name, ctl),
            None => execute_programs_with(cfg, scanned.read()?.programs, &name, ctl),
        };
    }
    let topo = Topology::from_spec(&cfg.topology)?;
    if !w.jobs.is_empty() {
        return execute_jobs(cfg, &topo, ctl);
    }
    let e = Engine::new(cfg, &topo)?;
    let kernel = crate::config::config_name(&w.kernel);
    let mut r = run_controlled(cfg, e, &kernel, w.stall_cycles, ctl)?;
    // Kernel results keep their fields; per-rank statistics are for replays.
    r.replay = None;
    Ok(r)
}

/// Runs the concurrent jobs of `cfg`'s `[[workload.jobs]]`, each job's time reported.
fn execute_jobs(cfg: &Config, topo: &Topology, ctl: &mut Control) -> Result<ExecutionResult> {
    let w = cfg.workload.as_ref().expect("a workload");
    // Each job is checked as a workload of its own; errors name the job.
    for (j, job) in w.jobs.iter().enumerate() {
        let mut one = cfg.clone();
        // `first_terminal` is a job's own field (its range was checked with the config);
        // checked as a single workload, which starts at terminal 0, it would be refused.
        one.workload = Some(WorkloadConfig { first_terminal: 0, ..job.clone() });
        one.validate().map_err(|e| crate::workload::jobs::in_job(j, e))?;
    }
    let set = crate::workload::jobs::plan(w, topo.endpoints(), cfg.seed)?;
    let mut e = Engine::with_programs(cfg, topo, set.programs.clone(), set.terminal.clone())?;
    e.stats.set_jobs(&set.jobs.iter().map(|(_, tasks)| tasks.clone()).collect::<Vec<_>>());
    let names: Vec<&str> = set.jobs.iter().map(|(k, _)| k.as_str()).collect();
    let mut r = run_controlled(cfg, e, &format!("jobs {}", names.join("+")), w.stall_cycles, ctl)?;
    let finish = r.replay.take().map(|rp| rp.finish_cycles);
    let done = r.status == crate::stats::Status::Completed;
    r.jobs = crate::workload::jobs::results(&set, finish.as_deref().filter(|_| done));
    Ok(r)
}

/// Runs task programs (a trace or a user program) with the placement of `cfg`'s
/// `[workload]` table; the result includes the per-rank statistics and traffic matrix.
pub fn execute_programs(cfg: &Config, programs: crate::workload::Programs, name: &str) -> Result<ExecutionResult> {
    execute_programs_with(cfg, programs, name, &mut Control::default())
}

/// [`execute_programs`] under a [`Control`].
pub fn execute_programs_with(
    cfg: &Config,
    programs: crate::workload::Programs,
    name: &str,
    ctl: &mut Control,
) -> Result<ExecutionResult> {
    let compute = programs.tasks.iter().map(|ops| {
        ops.iter()
            .map(|op| if let crate::workload::program::Op::Compute { cycles } = op { *cycles } else { 0 })
            .fold(0u64, u64::saturating_add)
    });
    let window = cfg.measurement.window_cycles;
    crate::workload::traces::limits::series(name, compute.max().unwrap_or(0), window)?;
    let topo = Topology::from_spec(&cfg.topology)?;
    let terminal = place(cfg, &topo, programs.len())?;
    let traffic = crate::workload::traces::TrafficMatrix::of(&programs);
    let e = Engine::with_programs(cfg, &topo, programs, terminal)?;
    let stall = cfg.workload.clone().unwrap_or_default().stall_cycles;
    let mut r = run_controlled(cfg, e, name, stall, ctl)?;
    with_traffic(&mut r, &traffic);
    Ok(r)
}

/// Replays a streamed trace (`traffic` from its first pass) like [`execute_programs_with`].
pub fn execute_source_with(
    cfg: &Config,
    source: Box<dyn crate::workload::traces::stream::ProgramSource>,
    traffic: crate::workload::traces::TrafficMatrix,
    name: &str,
    ctl: &mut Control,
) -> Result<ExecutionResult> {
    let topo = Topology::from_spec(&cfg.topology)?;
    let terminal = place(cfg, &topo, source.ranks())?;
    let e = Engine::with_source(cfg, &topo, source, terminal)?;
    let stall = cfg.workload.clone().unwrap_or_default().stall_cycles;
    let mut r = run_controlled(cfg, e, name, stall, ctl)?;
    with_traffic(&mut r, &traffic);
    Ok(r)
}

/// Adds a replay's traffic matrix to its result, as the table `traffic` (a table, not a field
/// of the result, so that it is written as its own file rather than inside result.json).
fn with_traffic(r: &mut ExecutionResult, traffic: &crate::workload::traces::TrafficMatrix) {
    if r.replay.is_some() {
        r.tables.insert("traffic".into(), traffic.table());
    }
}

/// The terminal (endpoint, on a multi-plane network) of each of `n` ranks, by the placement of
/// `cfg`'s `[workload]` table.
fn place(cfg: &Config, topo: &Topology, n: usize) -> Result<Vec<u32>> {
    let w = cfg.workload.clone().unwrap_or_default();
    let terminals = topo.endpoints();
    if n > terminals * w.tasks_per_terminal {
        return Err(Error::invalid(
            "config",
            "workload.tasks_per_terminal",
            w.tasks_per_terminal,
            format!("enough slots for {n} ranks on {terminals} terminals of {}", cfg.topology),
        ));
    }
    crate::workload::placement::place(w.placement, &w.placement_list, n, w.tasks_per_terminal, terminals, cfg.seed)
}

/// Runs an engine loaded with task programs until they complete or stop progressing.
pub fn run_to_completion(cfg: &Config, e: Engine, kernel: &str, stall_cycles: u64) -> ExecutionResult {
    run_controlled(cfg, e, kernel, stall_cycles, &mut Control::default()).expect("no observer to cancel the run")
}

/// [`run_to_completion`] under a [`Control`].
pub fn run_controlled(
    cfg: &Config,
    mut e: Engine,
    kernel: &str,
    stall_cycles: u64,
    ctl: &mut Control,
) -> Result<ExecutionResult> {
    let start = Instant::now();
    e.set_threads(ctl.threads);
    e.set_recording(true);
    let mut partial = false;
    let stalled = loop {
        let limit = e.now() + CHUNK_CYCLES.min(stall_cycles);
        if !ctl.run_until(&mut e, limit, "execution")? {
            partial = true;
            break false;
        }
        if e.execution_time().is_some() || e.has_stream_error() {
            break false;
        }
        if e.is_quiet() || e.now().saturating_sub(e.last_progress()) > stall_cycles {
            break true;
        }
    };
    if let Some(err) = e.take_stream_error() {
        return Err(err);
    }
    // The time series covers cycles 0 to the last one simulated, the one of the last delivery.
    let end = e.execution_time().unwrap_or(e.now()) + 1;
    let (messages, message_latency, bin, consumed) = e.workload_stats(end).expect("a workload engine");
    let tasks = e.num_tasks();
    let blocked = if stalled { e.blocked_tasks(10) } else { Vec::new() };
    let replay = e.replay_stats();
    let evidence = if stalled && e.stats.in_flight > 0 { e.deadlock_evidence(10) } else { Default::default() };
    let stuck = match evidence.channels.is_empty() {
        true => "packets are stuck in the network".to_string(),
        false => format!("packets are stuck in the network: {}", crate::stats::describe(&evidence)),
    };
    let message = match e.execution_time() {
        Some(t) => format!("{kernel} on {tasks} tasks completed in {t} cycles ({messages} messages)"),
        None if partial => format!("partial: {}", ctl.stopped.clone().unwrap_or_default()),
        None => format!(
            "deadlocked workload: no progress since cycle {}; {}",
            e.last_progress(),
            if blocked.is_empty() { stuck } else { blocked.join("; ") }
        ),
    };
    let status = match (stalled, partial) {
        (true, _) => Status::Deadlock,
        (false, true) if e.execution_time().is_none() => Status::Partial,
        _ => Status::Completed,
    };
    Ok(ExecutionResult {
        topology: cfg.topology.clone(),
        routing: e.routing_name().to_string(),
        vcs: cfg.switch.vcs,
        seed: cfg.seed,
        kernel: kernel.to_string(),
        tasks,
        status,
        execution_time_cycles: e.execution_time(),
        messages,
        message_latency,
        packet_latency: e.stats.network_latency.summary(),
        link_utilisation: e
            .link_utilisation(e.execution_time().unwrap_or(e.now()), cfg.measurement.per_link_utilisation),
        packet_hops: e.stats.counters.packet_hops,
        phit_hops: e.stats.counters.phit_hops,
        // A completed run stops at the end of the chunk it completed in; what was simulated is
        // its execution (the events after it are credits returning to idle links).
        cycles: e.execution_time().unwrap_or(e.now()),
        wall_seconds: start.elapsed().as_secs_f64(),
        consumed_load_bin_cycles: bin,
        consumed_load: consumed,
        blocked,
        blocked_channels: evidence.channels,
        blocked_cycle: evidence.cycle,
        message,
        replay,
        jobs: Vec::new(),
        tables: e.collected_tables(),
    })
}
