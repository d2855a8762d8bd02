//! Concurrent jobs (paper 001 §4.4.2, §5.3): several causal workloads run at once on
//! disjoint node sets, each with its own kernel, size and placement, so that inter-job
//! interference shows in each job's own execution time.
//!
//! The jobs' programs are merged into one set of tasks (job `j`'s task ids shifted past
//! the earlier jobs'); each job is placed on its own: `linear` and `clustered` from the
//! job's `first_terminal`, `random` over the terminals no earlier job took, `list` as given.
//! Two jobs on one terminal are refused.

use super::{kernels, placement, Op, Programs};
use crate::config::{config_name, PlacementKind, WorkloadConfig};
use crate::error::{Error, Result};
use crate::workload::program::ANY_SOURCE;
use serde::Serialize;
use std::ops::Range;

/// The merged programs of every job, where they run and which tasks belong to which job.
#[derive(Clone, Debug)]
pub struct JobSet {
    /// Every job's tasks, job after job.
    pub programs: Programs,
    /// Terminal of every task.
    pub terminal: Vec<u32>,
    /// Kernel name and task range of every job.
    pub jobs: Vec<(String, Range<usize>)>,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobResult {
    /// Kernel of the job.
    pub kernel: String,
    /// Number of tasks.
    pub tasks: usize,
    /// Distinct terminals the job runs on, ascending.
    pub terminals: Vec<u32>,
    /// Cycle the job's last task finished (its execution time, all jobs starting at 0);
    /// `None` unless every job completed.
    pub execution_time_cycles: Option<u64>,
}

/// The jobs of `w` (its `jobs` list) on a network of `terminals` terminals.
pub fn plan(w: &WorkloadConfig, terminals: usize, seed: u64) -> Result<JobSet> {
    // The run's own fields stay at the top level, every job's own fields go in its table.
    let rest = WorkloadConfig { jobs: Vec::new(), ..w.clone() };
    if let Some((field, value)) = rest.differences(&WorkloadConfig::default(), &["stall_cycles"]).into_iter().next() {
        return Err(Error::invalid(
            "config",
            format!("workload.{field}"),
            value,
            "left out beside [[workload.jobs]]: kernel, tasks, sizes and placement go in each job's \
             table (the top level keeps only stall_cycles)",
        ));
    }
    let mut programs = Programs::default();
    let mut terminal: Vec<u32> = Vec::new();
    let mut jobs = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; terminals];
    for (j, job) in w.jobs.iter().enumerate() {
        let field = |f: &str| format!("workload.jobs[{j}].{f}");
        if job.trace.is_some() {
            return Err(Error::invalid("config", field("trace"), "a trace", "a kernel per job"));
        }
        if !job.jobs.is_empty() {
            return Err(Error::invalid("config", field("jobs"), "nested jobs", "a kernel per job"));
        }
        // One run has one stall limit, and the packets of jobs have the fixed size: a job's
        // own value would go unread.
        let own = job.differences(&WorkloadConfig::default(), &[]);
        if let Some((f, value)) = own.iter().find(|(f, _)| RUN_FIELDS.contains(&f.as_str())) {
            let allowed = match f.as_str() {
                "stall_cycles" => "left out of a job: set [workload] stall_cycles, which applies to every job".into(),
                _ => format!("left out of a job: {f} is not available with [[workload.jobs]]"),
            };
            return Err(Error::invalid("config", field(f), value, allowed));
        }
        if job.tasks < 2 {
            return Err(Error::invalid("config", field("tasks"), job.tasks, "at least 2 tasks per job"));
        }
        let p = kernels::build(job, job.tasks).map_err(|e| in_job(j, e))?;
        let placed = place_job(job, j, terminals, &owner, seed).map_err(|e| in_job(j, e))?;
        for &t in &placed {
            match owner[t as usize] {
                Some(k) if k != j => {
                    // Jobs placed from a first terminal all start at terminal 0 unless told
                    // otherwise: name the field that moves this one past the others.
                    let hint = match job.placement {
                        PlacementKind::Linear | PlacementKind::Clustered => first_terminal_hint(job, j, &owner),
                        _ => String::new(),
                    };
                    return Err(Error::invalid(
                        "config",
                        field("placement"),
                        format!("terminal {t}"),
                        format!("terminals no other job uses (job {k} runs on terminal {t}){hint}"),
                    ));
                }
                _ => owner[t as usize] = Some(j),
            }
        }
        let start = programs.tasks.len();
        append(&mut programs, p);
        terminal.extend(placed);
        jobs.push((config_name(&job.kernel), start..programs.tasks.len()));
    }
    Ok(JobSet { programs, terminal, jobs })
}

/// What moves job `j`, placed from a first terminal, onto terminals no earlier job uses: the
/// first terminal of the first run of free terminals long enough for its tasks (after the
/// earlier jobs when they leave room there), or, when no such run is left (earlier jobs placed
/// at random or by list), the random placement, which takes the terminals they left.
fn first_terminal_hint(job: &WorkloadConfig, j: usize, owner: &[Option<usize>]) -> String {
    let field = |f: &str| format!("workload.jobs[{j}].{f}");
    let need = job.tasks.div_ceil(job.tasks_per_terminal.max(1));
    let free = |t: usize| owner[t].is_none_or(|o| o == j);
    let after = owner.iter().rposition(|o| o.is_some_and(|o| o != j)).map_or(0, |last| last + 1);
    if after + need <= owner.len() {
        return format!("; set {} = {after} to start after the earlier jobs", field("first_terminal"));
    }
    let mut run = 0;
    for t in 0..owner.len() {
        run = if free(t) { run + 1 } else { 0 };
        if run == need {
            let start = t + 1 - need;
            return format!("; set {} = {start} to use the free terminals from there", field("first_terminal"));
        }
    }
    format!(
        "; no {need} consecutive terminals are free: set {} = \"random\" to take the terminals the earlier jobs left",
        field("placement")
    )
}

/// Fields of the whole run rather than of one job (`[workload]` keeps `stall_cycles` beside
/// the jobs; packet size ranges are not available with jobs).
const RUN_FIELDS: &[&str] = &["stall_cycles", "packet_cells_min", "packet_cells_max"];

/// An error about a job's own fields, named as the job's (`workload.tasks` of job 2 is
/// `workload.jobs[2].tasks`), so that it reads as any other config error and names the file.
pub(crate) fn in_job(j: usize, e: Error) -> Error {
    match e {
        Error::Invalid { context, field, value, allowed } if context == "config" => {
            let own = field.strip_prefix("workload.").unwrap_or(&field);
            Error::Invalid { context, field: format!("workload.jobs[{j}].{own}"), value, allowed }
        }
        other => Error::Unsupported(format!("workload.jobs[{j}]: {other}")),
    }
}

/// Terminals of job `j`'s tasks.
fn place_job(job: &WorkloadConfig, j: usize, terminals: usize, owner: &[Option<usize>], seed: u64) -> Result<Vec<u32>> {
    let per = job.tasks_per_terminal.max(1);
    // A seed per job, so that two random jobs draw different permutations.
    let seed = seed.wrapping_add(0x9E37_79B9 * (j as u64 + 1));
    match job.placement {
        PlacementKind::Linear | PlacementKind::Clustered => {
            let first = job.first_terminal;
            if first >= terminals {
                return Err(Error::invalid("config", "first_terminal", first, format!("a terminal in 0..{terminals}")));
            }
            let room = terminals - first;
            if job.tasks > room * per {
                return Err(Error::invalid(
                    "config",
                    "workload.tasks",
                    job.tasks,
                    format!(
                        "at most {} (the {room} terminals from first_terminal = {first} × {})",
                        room * per,
                        placement::tasks_per_terminal(per)
                    ),
                ));
            }
            let placed = placement::place(job.placement, &job.placement_list, job.tasks, per, room, seed)?;
            Ok(placed.into_iter().map(|t| t + first as u32).collect())
        }
        PlacementKind::Random => {
            let free: Vec<u32> = (0..terminals as u32).filter(|&t| owner[t as usize].is_none()).collect();
            if job.tasks > free.len() * per {
                return Err(Error::invalid(
                    "config",
                    "workload.tasks",
                    job.tasks,
                    format!(
                        "at most {} ({} of the {terminals} terminals left by the jobs before it × {})",
                        free.len() * per,
                        free.len(),
                        placement::tasks_per_terminal(per)
                    ),
                ));
            }
            let placed =
                placement::place(PlacementKind::Random, &job.placement_list, job.tasks, per, free.len(), seed)?;
            Ok(placed.into_iter().map(|i| free[i as usize]).collect())
        }
        PlacementKind::List => {
            placement::place(PlacementKind::List, &job.placement_list, job.tasks, per, terminals, seed)
        }
    }
}

/// Appends `p`'s tasks to `all`, shifting task ids and request sets past the existing ones.
fn append(all: &mut Programs, p: Programs) {
    let base = all.tasks.len() as u32;
    let sets = all.sets.len() as u32;
    let shift = |t: u32| if t == ANY_SOURCE { t } else { t + base };
    for ops in p.tasks {
        all.tasks.push(
            ops.into_iter()
                .map(|op| match op {
                    Op::Send { to, bytes } => Op::Send { to: shift(to), bytes },
                    Op::Recv { from, bytes } => Op::Recv { from: shift(from), bytes },
                    Op::Isend { to, bytes, tag, comm, req } => Op::Isend { to: shift(to), bytes, tag, comm, req },
                    Op::Irecv { from, bytes, tag, comm, req } => Op::Irecv { from: shift(from), bytes, tag, comm, req },
                    Op::WaitAny { set } => Op::WaitAny { set: set + sets },
                    other => other,
                })
                .collect(),
        );
    }
    all.sets.extend(p.sets);
}

/// Per-job results from the finish cycle of every task (`None` when the run did not complete).
pub fn results(set: &JobSet, finish: Option<&[u64]>) -> Vec<JobResult> {
    set.jobs
        .iter()
        .map(|(kernel, range)| {
            let mut terminals: Vec<u32> = set.terminal[range.clone()].to_vec();
            terminals.sort_unstable();
            terminals.dedup();
            JobResult {
                kernel: kernel.clone(),
                tasks: range.len(),
                terminals,
                execution_time_cycles: finish.map(|f| f[range.clone()].iter().copied().max().unwrap_or(0)),
            }
        })
        .collect()
}
