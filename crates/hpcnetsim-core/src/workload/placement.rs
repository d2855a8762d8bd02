//! Placement of tasks on terminals: linear, random, clustered (paper 001 §4.4.3) or an
//! explicit list, with one or more tasks per terminal.

use crate::config::PlacementKind;
use crate::error::{Error, Result};
use crate::rng::{stream, Owner};
use rand::seq::SliceRandom;
use rand::Rng;

/// The terminal of every task.
pub fn place(
    kind: PlacementKind,
    list: &[usize],
    tasks: usize,
    per_terminal: usize,
    terminals: usize,
    seed: u64,
) -> Result<Vec<u32>> {
    if kind != PlacementKind::List && !list.is_empty() {
        // Only a list placement reads the list: beside another it would go unread.
        return Err(Error::invalid(
            "config",
            "workload.placement_list",
            format!("{} entries", list.len()),
            format!(
                "left out with placement '{}', which does not read it (placement = \"list\" does)",
                crate::config::config_name(&kind)
            ),
        ));
    }
    let slots = terminals * per_terminal;
    if tasks > slots {
        return Err(Error::invalid(
            "config",
            "workload.tasks",
            tasks,
            format!("at most {slots} ({terminals} terminals × {})", tasks_per_terminal(per_terminal)),
        ));
    }
    let mut rng = stream(seed, Owner::Setup, 1);
    let out: Vec<usize> = match kind {
        PlacementKind::Linear => (0..tasks).map(|i| i / per_terminal).collect(),
        PlacementKind::Random => {
            let mut s: Vec<usize> = (0..slots).map(|i| i / per_terminal).collect();
            s.shuffle(&mut rng);
            s.truncate(tasks);
            s
        }
        PlacementKind::Clustered => {
            // Consecutive tasks fill a terminal, then the next terminal is a geometric
            // stride away (p = 0.8): mostly neighbours, sometimes gaps.
            let mut out = Vec::with_capacity(tasks);
            let mut terminal = 0;
            for i in 0..tasks {
                if i > 0 && i % per_terminal == 0 {
                    let mut stride = 1;
                    while !rng.random_bool(0.8) {
                        stride += 1;
                    }
                    terminal += stride;
                }
                if terminal >= terminals {
                    return Err(Error::invalid(
                        "config",
                        "workload.placement",
                        "'clustered'",
                        format!("a placement that fits: {tasks} tasks ran past the {terminals} terminals"),
                    ));
                }
                out.push(terminal);
            }
            out
        }
        PlacementKind::List => {
            if list.len() != tasks {
                return Err(Error::invalid(
                    "config",
                    "workload.placement_list",
                    format!("{} entries", list.len()),
                    format!("one terminal per task ({tasks})"),
                ));
            }
            if let Some(&bad) = list.iter().find(|&&t| t >= terminals) {
                return Err(Error::invalid(
                    "config",
                    "workload.placement_list",
                    bad,
                    format!("terminals in 0..{terminals}"),
                ));
            }
            list.to_vec()
        }
    };
    let mut load = vec![0usize; terminals];
    for &t in &out {
        load[t] += 1;
        if load[t] > per_terminal {
            return Err(Error::invalid(
                "config",
                "workload.placement_list",
                format!("{} tasks on terminal {t}", load[t]),
                format!("at most tasks_per_terminal = {per_terminal}"),
            ));
        }
    }
    Ok(out.into_iter().map(|t| t as u32).collect())
}

/// "1 task per terminal", "2 tasks per terminal": the factor of a placement's room in messages.
pub(crate) fn tasks_per_terminal(per: usize) -> String {
    format!("{per} task{} per terminal", if per == 1 { "" } else { "s" })
}
