//! The application kernels of paper 002 §3 and paper 000 §4.3 as task programs: binary
//! tree (BT), inverse binary tree (IBT), barrier, butterfly (BU), 2D/3D wave-front (2W, 3W,
//! optionally with paper 000's return sweep), waterfall (WF), 2D/3D mesh distribution (2M,
//! 3M; torus and diagonal variants) and 2D/3D direction distribution (2D, 3D).

use super::program::Programs;
use crate::config::{Kernel, LengthEvolution, WorkloadConfig};
use crate::error::{Error, Result};

/// Message length at stage `stage` (0 = first) under the configured evolution.
fn length(cfg: &WorkloadConfig, stage: u32) -> u64 {
    match cfg.length_evolution {
        LengthEvolution::Constant => cfg.message_bytes,
        LengthEvolution::Doubling => cfg.message_bytes.saturating_mul(1 << stage.min(62)),
        LengthEvolution::Halving => cfg.message_bytes >> stage.min(63),
    }
}

/// Number of stages of a binary-tree pattern on `n` tasks: ⌈log2 n⌉.
fn stages(n: usize) -> u32 {
    n.next_power_of_two().trailing_zeros()
}

/// The programs of `cfg.kernel` on `n` tasks.
pub fn build(cfg: &WorkloadConfig, n: usize) -> Result<Programs> {
    if n < 2 {
        return Err(Error::invalid("config", "workload.tasks", n, "at least 2 tasks"));
    }
    if !cfg.kernel.is_collective() && cfg.algorithm != crate::config::CollectiveAlgorithm::Auto {
        // An application kernel has no algorithm to choose: a named one would go unread.
        return Err(Error::invalid(
            "config",
            "workload.algorithm",
            format!("'{}'", crate::config::config_name(&cfg.algorithm)),
            format!(
                "auto: '{}' is an application kernel; algorithms choose how the collectives run (bcast, reduce, \
                 allreduce, allgather, alltoall, gather, scatter, mpi-barrier, deepbench-allreduce; docs/workloads.md)",
                crate::config::config_name(&cfg.kernel)
            ),
        ));
    }
    refuse_unread_fields(cfg)?;
    let mut p = Programs::new(n);
    match cfg.kernel {
        Kernel::Bt => binary_tree(&mut p, cfg, n, |t| length(cfg, t)),
        Kernel::Ibt => inverse_binary_tree(&mut p, cfg, n, |t| length(cfg, t)),
        Kernel::Barrier => {
            binary_tree(&mut p, cfg, n, |_| 0);
            inverse_binary_tree(&mut p, cfg, n, |_| 0);
        }
        Kernel::Bu => {
            if !n.is_power_of_two() {
                return Err(Error::invalid("config", "workload.tasks", n, "a power of two for the butterfly"));
            }
            for t in 0..stages(n) {
                for i in 0..n {
                    if t > 0 {
                        p.compute(i, cfg.compute_cycles);
                    }
                    p.send(i, Some(i ^ (1 << t)), length(cfg, t));
                    p.recv(i, Some(i ^ (1 << t)), length(cfg, t));
                }
            }
        }
        Kernel::W2 | Kernel::W3 | Kernel::Wf => {
            let dims = if cfg.kernel == Kernel::W3 { 3 } else { 2 };
            let g = Grid::new(n, dims, false, &cfg.mesh)?;
            // wf's sweeps share the message as a buffer's blocks do: the first
            // `message_bytes mod burst_messages` carry one byte more, so that they add up to it.
            let sweeps = if cfg.kernel == Kernel::Wf { cfg.burst_messages.max(1) as usize } else { 1 };
            let blocks = super::collectives::Blocks { bytes: cfg.message_bytes, n: sweeps };
            for s in 0..sweeps {
                sweep(&mut p, &g, blocks.block(s), true);
            }
            if cfg.return_sweep {
                sweep(&mut p, &g, blocks.block(sweeps - 1), false);
            }
        }
        Kernel::M2 | Kernel::M3 => {
            let g = Grid::new(n, if cfg.kernel == Kernel::M2 { 2 } else { 3 }, cfg.wrap, &cfg.mesh)?;
            let dirs = g.directions(cfg.diagonals);
            for i in 0..n {
                for d in &dirs {
                    p.send(i, g.neighbour(i, d), cfg.message_bytes);
                }
                for d in &dirs {
                    // The message from the neighbour on the opposite side travelled along d.
                    let back: Vec<i64> = d.iter().map(|x| -x).collect();
                    p.recv(i, g.neighbour(i, &back), cfg.message_bytes);
                }
            }
        }
        Kernel::D2 | Kernel::D3 => {
            let g = Grid::new(n, if cfg.kernel == Kernel::D2 { 2 } else { 3 }, cfg.wrap, &cfg.mesh)?;
            for (stage, d) in g.directions(cfg.diagonals).iter().enumerate() {
                let back: Vec<i64> = d.iter().map(|x| -x).collect();
                for i in 0..n {
                    if stage > 0 {
                        p.compute(i, cfg.compute_cycles);
                    }
                    p.send(i, g.neighbour(i, d), cfg.message_bytes);
                    p.recv(i, g.neighbour(i, &back), cfg.message_bytes);
                }
            }
        }
        // Every other kernel is an MPI collective (`Kernel::is_collective`).
        collective => {
            let c = super::collectives::Collective {
                kernel: collective,
                algorithm: cfg.algorithm,
                bytes: cfg.message_bytes,
                segment_bytes: cfg.segment_bytes,
                root: cfg.root,
                compute_cycles: cfg.compute_cycles,
            };
            super::collectives::build(&mut p, &c, n)?;
        }
    }
    p.check()?;
    Ok(p)
}

/// Refuses a field set beside a kernel that does not read it (a mesh beside `bt`, a root
/// beside `bu`, ...): it would go unread and the run would look like what it is not.
fn refuse_unread_fields(cfg: &WorkloadConfig) -> Result<()> {
    use Kernel::*;
    const MESHES: &[Kernel] = &[W2, W3, Wf, M2, M3, D2, D3];
    const DISTRIBUTIONS: &[Kernel] = &[M2, M3, D2, D3];
    let readers: [(&str, &[Kernel]); 9] = [
        ("length_evolution", &[Bt, Ibt, Bu]),
        ("compute_cycles", &[Bt, Ibt, Barrier, Bu, D2, D3, Reduce, Allreduce, DeepbenchAllreduce]),
        ("return_sweep", &[W2, W3, Wf]),
        ("wrap", DISTRIBUTIONS),
        ("diagonals", DISTRIBUTIONS),
        ("burst_messages", &[Wf]),
        ("mesh", MESHES),
        ("root", &[Bcast, Reduce, Gather, Scatter]),
        ("segment_bytes", &[Bcast]),
    ];
    let set = cfg.differences(&WorkloadConfig::default(), &[]);
    let value = |field: &str| set.iter().find(|(f, _)| f == field).map(|(_, v)| v.clone());
    let kernel = crate::config::config_name(&cfg.kernel);
    for (field, kernels) in readers {
        if kernels.contains(&cfg.kernel) {
            continue;
        }
        if let Some(v) = value(field) {
            let names: Vec<String> = kernels.iter().map(crate::config::config_name).collect();
            return Err(Error::invalid(
                "config",
                format!("workload.{field}"),
                v,
                format!("left out with kernel '{kernel}', which does not read it (read by {})", names.join(", ")),
            ));
        }
    }
    // A trace's own fields: its format and how its traced time becomes cycles. (cycle_ns
    // is left out: a [link] clock sets it for every workload, and it names the clock of the
    // µs outputs.)
    for field in ["format", "cpu_factor", "flops_per_second"] {
        if let Some(v) = value(field) {
            return Err(Error::invalid(
                "config",
                format!("workload.{field}"),
                v,
                format!("left out with kernel '{kernel}', which does not read it (read by workload.trace replays)"),
            ));
        }
    }
    Ok(())
}

/// BT: at stage t, tasks ≡ 2^t (mod 2^(t+1)) send to task − 2^t, which waits for them;
/// it starts at the odd tasks and ends when task 0 has heard from every power of two.
fn binary_tree(p: &mut Programs, cfg: &WorkloadConfig, n: usize, len: impl Fn(u32) -> u64) {
    for t in 0..stages(n) {
        let step = 1usize << t;
        for i in (0..n).filter(|i| i % (2 * step) == step) {
            p.compute(i, cfg.compute_cycles);
            p.message(Some(i), Some(i - step), len(t));
        }
    }
}

/// IBT: BT reversed; task 0 sends first, the odd tasks receive last.
fn inverse_binary_tree(p: &mut Programs, cfg: &WorkloadConfig, n: usize, len: impl Fn(u32) -> u64) {
    let top = stages(n);
    for (s, t) in (0..top).rev().enumerate() {
        let step = 1usize << t;
        for i in (0..n).filter(|i| i % (2 * step) == 0 && i + step < n) {
            p.compute(i, cfg.compute_cycles);
            p.message(Some(i), Some(i + step), len(s as u32));
        }
    }
}

/// One wave-front sweep: every task waits for its lower neighbours along each dimension,
/// then sends to its upper neighbours (`forward`), or the mirror image (the return sweep).
fn sweep(p: &mut Programs, g: &Grid, bytes: u64, forward: bool) {
    let step: i64 = if forward { 1 } else { -1 };
    for i in 0..g.n {
        for d in 0..g.dims {
            p.recv(i, g.neighbour(i, &g.unit(d, -step)), bytes);
        }
        for d in 0..g.dims {
            p.send(i, g.neighbour(i, &g.unit(d, step)), bytes);
        }
    }
}

/// A virtual mesh (or torus) of tasks, numbered along dimension 0 first: square or cubic, or
/// of the sides `workload.mesh` gives.
struct Grid {
    n: usize,
    sides: Vec<usize>,
    dims: usize,
    wrap: bool,
}

impl Grid {
    fn new(n: usize, dims: usize, wrap: bool, mesh: &[usize]) -> Result<Grid> {
        if !mesh.is_empty() {
            let shown = format!("{mesh:?}");
            if mesh.len() != dims {
                return Err(Error::invalid(
                    "config",
                    "workload.mesh",
                    shown,
                    format!("{dims} sides for a {dims}D kernel"),
                ));
            }
            if mesh.contains(&0) || mesh.iter().product::<usize>() != n {
                return Err(Error::invalid(
                    "config",
                    "workload.mesh",
                    shown,
                    format!("positive sides whose product is the task count {n}"),
                ));
            }
            return Ok(Grid { n, sides: mesh.to_vec(), dims, wrap });
        }
        let side = (n as f64).powf(1.0 / dims as f64).round() as usize;
        if side.pow(dims as u32) != n {
            return Err(Error::invalid(
                "config",
                "workload.tasks",
                n,
                format!(
                    "a {} number for a {dims}D virtual mesh (or workload.mesh)",
                    if dims == 2 { "square" } else { "cube" }
                ),
            ));
        }
        Ok(Grid { n, sides: vec![side; dims], dims, wrap })
    }

    fn unit(&self, dim: usize, step: i64) -> Vec<i64> {
        (0..self.dims).map(|d| if d == dim { step } else { 0 }).collect()
    }

    /// The directions of a distribution in order: +, − along each dimension; with
    /// diagonals, every non-zero offset in {−1, 0, 1}^D.
    fn directions(&self, diagonals: bool) -> Vec<Vec<i64>> {
        if !diagonals {
            return (0..self.dims).flat_map(|d| [self.unit(d, 1), self.unit(d, -1)]).collect();
        }
        (0..3usize.pow(self.dims as u32))
            .map(|c| (0..self.dims).map(|d| (c / 3usize.pow(d as u32) % 3) as i64 - 1).collect::<Vec<i64>>())
            .filter(|v| v.iter().any(|&x| x != 0))
            .collect()
    }

    /// The task `offset` away from `i`, if inside the mesh (or always, on a torus).
    fn neighbour(&self, i: usize, offset: &[i64]) -> Option<usize> {
        let mut id = 0;
        let mut scale = 1;
        let mut rest = i;
        for (&o, &side) in offset.iter().zip(&self.sides) {
            let x = (rest % side) as i64 + o;
            rest /= side;
            let s = side as i64;
            let x = if self.wrap {
                x.rem_euclid(s)
            } else if (0..s).contains(&x) {
                x
            } else {
                return None;
            };
            id += x as usize * scale;
            scale *= side;
        }
        (id != i).then_some(id)
    }
}
