//! Concurrent jobs: several causal workloads on disjoint terminals at once, each with its
//! own placement and its own execution time, so inter-job interference can be measured.

use hpcnetsim_core::engine::execute::execute;
use hpcnetsim_core::stats::Status;
use hpcnetsim_core::Config;

const NET: &str = "topology = \"torus:4x4\"\n[switch]\nvcs = 2\n";

fn job(kernel: &str, list: &[usize]) -> String {
    let l: Vec<String> = list.iter().map(|t| t.to_string()).collect();
    format!(
        "[[workload.jobs]]\nkernel = \"{kernel}\"\ntasks = {}\nmessage_bytes = 2048\nplacement = \"list\"\nplacement_list = [{}]\n",
        list.len(),
        l.join(", ")
    )
}

fn run(text: &str) -> hpcnetsim_core::stats::ExecutionResult {
    let c = Config::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    execute(&c).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn two_jobs_on_disjoint_halves_each_alone_and_together() {
    // Even and odd terminals: the halves share the torus links.
    let even: Vec<usize> = (0..16).step_by(2).collect();
    let odd: Vec<usize> = (1..16).step_by(2).collect();
    let a = job("alltoall", &even);
    let b = job("allgather", &odd);
    let alone_a = run(&format!("{NET}{a}"));
    let alone_b = run(&format!("{NET}{b}"));
    let together = run(&format!("{NET}{a}{b}"));
    assert_eq!(together.status, Status::Completed, "{}", together.message);
    assert_eq!(together.jobs.len(), 2);
    assert_eq!(together.jobs[0].terminals.iter().map(|&t| t as usize).collect::<Vec<_>>(), even);
    let (ta, tb) = (alone_a.jobs[0].execution_time_cycles.unwrap(), alone_b.jobs[0].execution_time_cycles.unwrap());
    let (ja, jb) = (together.jobs[0].execution_time_cycles.unwrap(), together.jobs[1].execution_time_cycles.unwrap());
    // A job alone takes as long as the same workload run on its own.
    let single = run(&format!(
        "{NET}[workload]\nkernel = \"alltoall\"\ntasks = 8\nmessage_bytes = 2048\nplacement = \"list\"\nplacement_list = {even:?}\n"
    ));
    assert_eq!(single.execution_time_cycles, Some(ta));
    // Sharing links slows the jobs down; the whole run ends with the slower job.
    assert!(ja >= ta && jb >= tb, "alone {ta} {tb}, together {ja} {jb}");
    assert!(ja > ta || jb > tb, "no interference: alone {ta} {tb}, together {ja} {jb}");
    assert_eq!(together.execution_time_cycles, Some(ja.max(jb)));
}

#[test]
fn jobs_are_placed_on_their_own_and_overlaps_are_refused() {
    // Linear from a first terminal, and random over what is left: disjoint by construction.
    let text = format!(
        "{NET}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\nfirst_terminal = 4\n[[workload.jobs]]\nkernel = \"allreduce\"\ntasks = 8\nplacement = \"random\"\n"
    );
    let r = run(&text);
    assert_eq!(r.jobs[0].terminals, vec![4, 5, 6, 7]);
    assert!(r.jobs[1].terminals.iter().all(|t| !(4..8).contains(t)) && r.jobs[1].terminals.len() == 8);
    assert!(r.jobs.iter().all(|j| j.execution_time_cycles.is_some()));
    for (bad, needle) in [
        (format!("{NET}{}{}", job("bu", &[0, 1, 2, 3]), job("bu", &[3, 4, 5, 6])), "workload.jobs[1].placement"),
        // Two jobs placed linearly both start at terminal 0: the error names the field that
        // moves the second past the first (a list placement gets no such hint, above).
        (
            format!("{NET}{}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\n", job("bu", &[0, 1, 2, 5])),
            "config: workload.jobs[1].placement = terminal 0 is invalid: terminals no other job uses (job 0 runs on \
             terminal 0); set workload.jobs[1].first_terminal = 6 to start after the earlier jobs",
        ),
        // The first terminal named is one where the job fits: not past the last terminal
        // (was "first_terminal = 16" on 16 terminals) when a gap between the jobs has room.
        (
            format!("{NET}{}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\n", job("bu", &[0, 1, 2, 15])),
            "set workload.jobs[1].first_terminal = 3 to use the free terminals from there",
        ),
        // No room for it anywhere in one piece: the placement that takes what is left.
        (
            format!(
                "{NET}{}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\n",
                job("bt", &[0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14])
            ),
            "terminals no other job uses (job 0 runs on terminal 0); no 4 consecutive terminals are free: set \
             workload.jobs[1].placement = \"random\" to take the terminals the earlier jobs left",
        ),
        (
            format!("{NET}[workload]\nkernel = \"bu\"\n{}", job("bu", &[0, 1])),
            "config: workload.kernel = 'bu' is invalid: left out beside [[workload.jobs]]",
        ),
        (
            format!("{NET}[workload]\nmessage_bytes = 64\nfirst_terminal = 3\n{}", job("bu", &[0, 1])),
            "config: workload.first_terminal = 3 is invalid: left out beside [[workload.jobs]]",
        ),
        // Linear from a first terminal: the room left after it.
        (
            format!("{NET}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 8\nfirst_terminal = 12\n"),
            "config: workload.jobs[0].tasks = 8 is invalid: at most 4 (the 4 terminals from first_terminal = 12 × 1 task per terminal)",
        ),
        // The run's own fields in a job would go unread: named, with where they belong.
        (
            format!("{NET}[workload]\npacket_cells_max = 4\n{}", job("bu", &[0, 1])),
            "config: workload.packet_cells_max = 4 is invalid: left out beside [[workload.jobs]]",
        ),
        (
            format!("{NET}{}stall_cycles = 5\n", job("bu", &[0, 1])),
            "config: workload.jobs[0].stall_cycles = 5 is invalid: left out of a job: set [workload] stall_cycles",
        ),
        (
            format!("{NET}{}packet_cells_max = 4\n", job("bu", &[0, 1])),
            "config: workload.jobs[0].packet_cells_max = 4 is invalid: left out of a job: packet_cells_max is not available",
        ),
        (
            format!("{NET}{}[[workload.jobs.jobs]]\nkernel = \"bt\"\ntasks = 2\n", job("bu", &[0, 1])),
            "config: workload.jobs[0].jobs = nested jobs is invalid",
        ),
        (format!("{NET}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\nfirst_terminal = 14\n"), "workload.jobs[0]"),
        (
            format!("{NET}{}tasks_per_terminal = 0\n", job("bu", &[0, 1])),
            "config: workload.jobs[0].tasks_per_terminal = 0 is invalid",
        ),
        // A random job finds no terminal the jobs before it left: named as the job's field.
        (
            format!(
                "{NET}[[workload.jobs]]\nkernel = \"bu\"\ntasks = 16\n[[workload.jobs]]\nkernel = \"bu\"\ntasks = 2\nplacement = \"random\"\n"
            ),
            "config: workload.jobs[1].tasks = 2 is invalid: at most 0 (0 of the 16 terminals left by the jobs before it",
        ),
    ] {
        let c = Config::from_toml(&bad).unwrap();
        let e = execute(&c).unwrap_err().to_string();
        assert!(e.contains(needle) && !e.contains('\n'), "{e}");
    }
}
