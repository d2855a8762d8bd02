//! Fields that name terminals or tasks (`traffic.hot_nodes`, `workload.root`,
//! `workload.placement_list`, `workload.first_terminal`, `flow.placement_list`), checked against the network's
//! terminal count when the config is read, whether or not the pattern, kernel or placement
//! of this run uses them: a value that could never be right is refused at once rather than
//! kept until a sweep axis happens to use it.

use super::{Config, WorkloadConfig};
use crate::error::{Error, Result};

/// Checks every terminal and task reference of `cfg` on a network of `terminals` terminals.
pub(crate) fn check(cfg: &Config, terminals: usize) -> Result<()> {
    let t = &cfg.traffic;
    check_terminals("traffic.hot_nodes", &t.hot_nodes, terminals, 1)?;
    // One rank per terminal: eBB and mpiGraph place one rank on each terminal they use.
    check_terminals("flow.placement_list", &cfg.flow.placement_list, terminals, 1)?;
    if let Some(w) = &cfg.workload {
        check_workload("workload", w, terminals, w.trace.is_none() && w.jobs.is_empty())?;
        for (i, job) in w.jobs.iter().enumerate() {
            check_workload(&format!("workload.jobs[{i}]"), job, terminals, true)?;
        }
    }
    Ok(())
}

/// `list` holds terminal indices below `terminals`, each at most `per_terminal` times.
fn check_terminals(field: &str, list: &[usize], terminals: usize, per_terminal: usize) -> Result<()> {
    if let Some(&bad) = list.iter().find(|&&x| x >= terminals) {
        return Err(Error::invalid("config", field, bad, format!("terminal indices in 0..{terminals}")));
    }
    let mut seen = std::collections::HashMap::new();
    for &x in list {
        let n = seen.entry(x).or_insert(0usize);
        *n += 1;
        if *n > per_terminal {
            let allowed = match per_terminal {
                1 => "each terminal at most once".to_string(),
                n => format!("each terminal at most tasks_per_terminal = {n} times"),
            };
            return Err(Error::invalid("config", field, format!("terminal {x} listed {} times", *n), allowed));
        }
    }
    Ok(())
}

/// One workload table (the top level or a job); `tasks_known`: its task count follows from
/// the config (not from a trace, and not split into jobs).
fn check_workload(at: &str, w: &WorkloadConfig, terminals: usize, tasks_known: bool) -> Result<()> {
    let per_terminal = w.tasks_per_terminal.max(1);
    check_terminals(&format!("{at}.placement_list"), &w.placement_list, terminals, per_terminal)?;
    if w.first_terminal >= terminals.max(1) {
        return Err(Error::invalid(
            "config",
            format!("{at}.first_terminal"),
            w.first_terminal,
            format!("a terminal in 0..{terminals}"),
        ));
    }
    let tasks = match w.tasks {
        0 => terminals.saturating_mul(per_terminal),
        n => n,
    };
    if tasks_known && w.root >= tasks {
        return Err(Error::invalid("config", format!("{at}.root"), w.root, format!("a task in 0..{tasks}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn refused(extra: &str) -> String {
        let text = format!("topology = \"torus:4x4\"\n{extra}");
        Config::from_toml(&text).expect_err("refused").to_string()
    }

    #[test]
    fn references_beyond_the_network_are_refused_whatever_the_pattern_or_kernel() {
        // Uniform traffic: the hot nodes are not used by this run, and checked anyway.
        assert!(refused("[traffic]\nhot_nodes = [16]\n").contains("traffic.hot_nodes = 16"));
        assert!(refused("[traffic]\nhot_nodes = [3, 3]\n").contains("terminal 3 listed 2 times"));
        // bt has no root and the placement is linear.
        assert!(refused("[workload]\nroot = 16\n").contains("workload.root = 16"));
        assert!(refused("[workload]\ntasks = 4\nroot = 4\n").contains("a task in 0..4"));
        assert!(refused("[workload]\nplacement_list = [99]\n").contains("workload.placement_list = 99"));
        let twice = refused("[workload]\ntasks_per_terminal = 2\nplacement_list = [0, 0, 0]\n");
        assert!(twice.contains("at most tasks_per_terminal = 2 times"), "{twice}");
        assert!(refused("[workload]\nfirst_terminal = 16\n").contains("workload.first_terminal"));
        // In range but outside a job, where nothing reads it.
        let unread = refused("[workload]\nfirst_terminal = 5\n");
        assert!(
            unread.contains("workload.first_terminal = 5 is invalid: 0 outside a [[workload.jobs]] table"),
            "{unread}"
        );
    }

    #[test]
    fn references_within_the_network_are_accepted() {
        // Hot nodes are independent traffic's, refused beside a workload: two configs.
        Config::from_toml("topology = \"torus:4x4\"\n[traffic]\nhot_nodes = [0, 15]\n").expect("in range");
        let ok = "topology = \"torus:4x4\"\n[workload]\nroot = 15\ntasks_per_terminal = 2\n\
                  placement_list = [0, 0, 15]\n";
        Config::from_toml(ok).expect("in range");
    }
}
