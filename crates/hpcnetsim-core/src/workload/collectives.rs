//! MPI collective operations as task programs, with the algorithms MPI libraries use
//! (Open MPI's tuned collectives among them): binomial trees, pipelined chains,
//! scatter + allgather, recursive doubling and halving, rings, Bruck, pairwise exchange,
//! dissemination. `bytes` is the collective's buffer per task (the whole vector for
//! Bcast/Reduce/Allreduce, one task's block for Gather/Scatter/Allgather/Alltoall).

use super::program::Programs;
use crate::config::{config_name, CollectiveAlgorithm as A, Kernel};
use crate::error::{Error, Result};

/// Parameters of one collective.
#[derive(Clone, Copy, Debug)]
pub struct Collective {
    /// Which operation (one of the collective kernels).
    pub kernel: Kernel,
    /// Algorithm, or `Auto` for the default rule of [`default_algorithm`].
    pub algorithm: A,
    /// Buffer size in bytes (see the module documentation).
    pub bytes: u64,
    /// Segment size of pipelined algorithms.
    pub segment_bytes: u64,
    /// Root task of rooted operations.
    pub root: usize,
    /// Compute cycles for each reduction step.
    pub compute_cycles: u64,
}

/// The default algorithm for an operation on `n` tasks with `bytes` per task: small
/// messages favour latency (trees, recursive doubling, Bruck), large ones bandwidth
/// (pipelines, rings, pairwise exchange).
pub fn default_algorithm(kernel: Kernel, n: usize, bytes: u64) -> A {
    let pow2 = n.is_power_of_two();
    match kernel {
        Kernel::Bcast if bytes <= 12 * 1024 => A::Binomial,
        Kernel::Bcast if n <= 8 => A::Chain,
        Kernel::Bcast => A::ScatterAllgather,
        Kernel::Allreduce if bytes <= 10 * 1024 => A::RecursiveDoubling,
        Kernel::Allreduce if pow2 && bytes <= 1 << 20 => A::Rabenseifner,
        Kernel::Allreduce => A::Ring,
        Kernel::Allgather if bytes * n as u64 <= 80 * 1024 => {
            if pow2 {
                A::RecursiveDoubling
            } else {
                A::Bruck
            }
        }
        Kernel::Allgather => A::Ring,
        Kernel::Alltoall if bytes <= 256 && n >= 8 => A::Bruck,
        Kernel::Alltoall => A::Pairwise,
        Kernel::MpiBarrier if pow2 => A::RecursiveDoubling,
        Kernel::MpiBarrier => A::Dissemination,
        Kernel::DeepbenchAllreduce => A::Ring,
        _ => A::Binomial,
    }
}

/// The algorithms that implement `kernel` (what `workload.algorithm` may name besides
/// `auto`), in the order docs/workloads.md lists them; empty for the application kernels.
pub fn algorithms(kernel: Kernel) -> &'static [A] {
    match kernel {
        Kernel::Bcast => &[A::Binomial, A::Chain, A::ScatterAllgather, A::Bmtree],
        Kernel::Reduce | Kernel::Gather | Kernel::Scatter => &[A::Binomial],
        Kernel::Allreduce => &[A::RecursiveDoubling, A::Rabenseifner, A::Ring],
        Kernel::Allgather => &[A::RecursiveDoubling, A::Bruck, A::Ring, A::NeighborExchange, A::Linear],
        Kernel::Alltoall => &[A::Bruck, A::Pairwise, A::Linear],
        Kernel::MpiBarrier => &[A::RecursiveDoubling, A::Dissemination],
        Kernel::DeepbenchAllreduce => &[A::Ring],
        _ => &[],
    }
}

/// The task whose rank relative to `root` is `r`.
fn abs(r: usize, root: usize, n: usize) -> usize {
    (r + root) % n
}

/// Appends the programs of `c` on `n` tasks to `p`.
pub fn build(p: &mut Programs, c: &Collective, n: usize) -> Result<()> {
    let algorithm = if c.algorithm == A::Auto { default_algorithm(c.kernel, n, c.bytes) } else { c.algorithm };
    let unsupported = || {
        let names: Vec<String> = algorithms(c.kernel).iter().map(config_name).collect();
        Error::invalid(
            "config",
            "workload.algorithm",
            format!("'{}'", config_name(&algorithm)),
            format!("auto or an algorithm of '{}': {} (docs/workloads.md)", config_name(&c.kernel), names.join(", ")),
        )
    };
    let need_pow2 = |what: &str| -> Result<()> {
        if n.is_power_of_two() {
            Ok(())
        } else {
            Err(Error::invalid("config", "workload.tasks", n, format!("a power of two for {what}")))
        }
    };
    if c.root >= n {
        return Err(Error::invalid("config", "workload.root", c.root, format!("a task in 0..{n}")));
    }
    let (m, root) = (c.bytes, c.root);
    match (c.kernel, algorithm) {
        (Kernel::Bcast, A::Binomial) => binomial_down(p, n, root, |_, _| m),
        (Kernel::Bcast, A::Bmtree) => bmtree(p, n, root, m),
        (Kernel::Bcast, A::Chain) => {
            let segments = m.div_ceil(c.segment_bytes.max(1)).max(1);
            // The only expansion whose message count grows with the bytes: refused before
            // its messages are made when they would not fit (a send and a receive each, in
            // programs that grow by doubling).
            let messages = segments as u128 * (n as u128 - 1);
            let need = messages * 4 * std::mem::size_of::<super::Op>() as u128;
            crate::memory::check_for(
                &format!("bcast down a chain of {n} tasks in {segments} segments of {} bytes", c.segment_bytes),
                "message_bytes",
                &m.to_string(),
                need,
                "use larger segments (workload.segment_bytes) or another algorithm",
            )?;
            // Segment by segment down the chain: each task forwards a segment as soon as it
            // has it, then waits for the next one.
            for s in 0..segments {
                let len = if s + 1 == segments { m - s * c.segment_bytes.min(m) } else { c.segment_bytes };
                for r in 1..n {
                    p.message(Some(abs(r - 1, root, n)), Some(abs(r, root, n)), len);
                }
            }
        }
        (Kernel::Bcast, A::ScatterAllgather) => {
            // Block r of the buffer goes to relative rank r down the binomial tree, then the
            // blocks go around the ring: at step s task t passes on the block of task t − s.
            let b = Blocks { bytes: m, n };
            binomial_down(p, n, root, |first, count| b.span(first, count));
            ring(p, n, 1, |t, s| b.block((t + 2 * n - s % n - root) % n), |_| {});
        }
        (Kernel::Reduce, A::Binomial) => binomial_up(p, n, root, c.compute_cycles, |_| m),
        (Kernel::Gather, A::Binomial) => binomial_up(p, n, root, 0, |subtree| m * subtree as u64),
        (Kernel::Scatter, A::Binomial) => binomial_down(p, n, root, |_, subtree| m * subtree as u64),
        (Kernel::Allreduce, A::RecursiveDoubling) => recursive_doubling(p, n, |_| m, c.compute_cycles),
        (Kernel::Allreduce | Kernel::DeepbenchAllreduce, A::Ring) => {
            // Reduce-scatter then allgather around the ring: 2(N − 1) steps of a block of m/N.
            // At reduce-scatter step s task i sends block i − s (it ends with block i + 1
            // reduced), at allgather step s (ring step N − 1 + s) block i + 1 − s, so that
            // every step passes on the block received at the step before.
            let b = Blocks { bytes: m, n };
            let compute = c.compute_cycles;
            let block = |i: usize, step: usize| match step < n - 1 {
                true => b.block((i + n - step) % n),
                false => b.block((i + 2 * n - step) % n),
            };
            ring(p, n, 2, block, |(p, i, step)| {
                if step < n - 1 {
                    p.compute(i, compute)
                }
            });
        }
        (Kernel::Allreduce, A::Rabenseifner) => {
            need_pow2("Rabenseifner's allreduce")?;
            let k = n.trailing_zeros();
            let b = Blocks { bytes: m, n };
            // Recursive halving (reduce-scatter): at distance d a task holds the 2d blocks
            // from its index with the bits below 2d cleared, keeps the half on its side of
            // bit d and sends the other half to its partner; it ends with its own block.
            for s in 0..k {
                let d = n >> (s + 1);
                for i in 0..n {
                    let base = i & !(2 * d - 1);
                    let (keep, give) = if i & d == 0 { (base, base + d) } else { (base + d, base) };
                    p.send(i, Some(i ^ d), b.span(give, d));
                    p.recv(i, Some(i ^ d), b.span(keep, d));
                    p.compute(i, c.compute_cycles);
                }
            }
            // Recursive doubling (allgather): at distance d the d blocks a task has for the partner's.
            for s in (0..k).rev() {
                let d = n >> (s + 1);
                for i in 0..n {
                    p.send(i, Some(i ^ d), b.span(i & !(d - 1), d));
                    p.recv(i, Some(i ^ d), b.span((i ^ d) & !(d - 1), d));
                }
            }
        }
        (Kernel::Allgather, A::Ring) => ring(p, n, 1, |_, _| m, |_| {}),
        (Kernel::Allgather, A::NeighborExchange) => {
            if n % 2 == 1 {
                return Err(Error::invalid("config", "workload.tasks", n, "an even count for neighbor-exchange"));
            }
            // Even tasks start with their right neighbour, odd ones with their left; the
            // partners alternate; the first exchange is one block, the others two.
            for step in 0..n / 2 {
                let blocks = if step == 0 { 1 } else { 2 };
                for i in 0..n {
                    let right = (i % 2 == 0) == (step % 2 == 0);
                    let partner = if right { (i + 1) % n } else { (i + n - 1) % n };
                    p.send(i, Some(partner), m * blocks);
                    p.recv(i, Some(partner), m * blocks);
                }
            }
        }
        (Kernel::Allgather, A::Linear) => {
            // Open MPI's linear Allgather (`basic_linear`): a gather to task 0, its basic
            // component's linear one (every task sends its block, task 0 receives them in rank
            // order), then the broadcast of the N blocks on the bmtree.
            for r in 1..n {
                p.message(Some(r), Some(0), m);
            }
            bmtree(p, n, 0, m * n as u64);
        }
        (Kernel::Allgather, A::RecursiveDoubling) => {
            need_pow2("recursive-doubling allgather")?;
            recursive_doubling(p, n, |stage| m << stage, 0);
        }
        (Kernel::Allgather, A::Bruck) => {
            let mut k = 0;
            while 1 << k < n {
                let blocks = (1usize << k).min(n - (1 << k)) as u64;
                for i in 0..n {
                    p.send(i, Some((i + n - (1 << k) % n) % n), m * blocks);
                    p.recv(i, Some((i + (1 << k)) % n), m * blocks);
                }
                k += 1;
            }
        }
        (Kernel::Alltoall, A::Pairwise) => {
            for step in 1..n {
                for i in 0..n {
                    p.send(i, Some((i + step) % n), m);
                    p.recv(i, Some((i + n - step) % n), m);
                }
            }
        }
        (Kernel::Alltoall, A::Linear) => {
            // Open MPI's basic linear: the receives posted from i + 1, i + 2, …, the sends "in
            // reverse order" (to i − 1, i − 2, …), so that messages arrive in the order the
            // receives were posted: task i + 1 sends to i first. The receives complete here in
            // posting order, as Open MPI's waitall sees them when that order holds.
            for i in 0..n {
                for step in 1..n {
                    p.send(i, Some((i + n - step) % n), m);
                }
                for step in 1..n {
                    p.recv(i, Some((i + step) % n), m);
                }
            }
        }
        (Kernel::Alltoall, A::Bruck) => {
            let mut k = 0;
            while 1 << k < n {
                // Blocks whose index has bit k set travel 2^k further in this round.
                let blocks = (0..n).filter(|j| j & (1 << k) != 0).count() as u64;
                for i in 0..n {
                    p.send(i, Some((i + (1 << k)) % n), m * blocks);
                    p.recv(i, Some((i + n - (1 << k) % n) % n), m * blocks);
                }
                k += 1;
            }
        }
        (Kernel::MpiBarrier, A::RecursiveDoubling) => {
            need_pow2("the recursive-doubling barrier")?;
            recursive_doubling(p, n, |_| 0, 0);
        }
        (Kernel::MpiBarrier, A::Dissemination) => {
            let mut k = 0;
            while 1 << k < n {
                for i in 0..n {
                    p.send(i, Some((i + (1 << k)) % n), 0);
                    p.recv(i, Some((i + n - (1 << k) % n) % n), 0);
                }
                k += 1;
            }
        }
        _ => return Err(unsupported()),
    }
    Ok(())
}

/// A buffer of `bytes` split into `n` blocks that cover it exactly: the first `bytes mod n`
/// blocks one byte larger than the others (the split of MPICH's and Open MPI's ring
/// allreduce); with fewer bytes than blocks the last blocks are empty.
#[derive(Clone, Copy)]
pub(super) struct Blocks {
    pub(super) bytes: u64,
    pub(super) n: usize,
}

impl Blocks {
    /// Bytes of block `j`.
    pub(super) fn block(self, j: usize) -> u64 {
        self.span(j, 1)
    }

    /// Bytes of the `count` blocks from block `first`.
    fn span(self, first: usize, count: usize) -> u64 {
        let (n, extra) = (self.n as u64, (self.bytes % self.n as u64) as usize);
        let larger = (first + count).min(extra).saturating_sub(first);
        count as u64 * (self.bytes / n) + larger as u64
    }
}

/// Open MPI's binomial broadcast tree (bmtree) from `root`: relative rank r sends `bytes` to
/// r + 2^k for every 2^k > r, nearest first.
fn bmtree(p: &mut Programs, n: usize, root: usize, bytes: u64) {
    // Ranks in increasing order: every parent is below its children, so each task's receive is
    // in its program before its sends (Open MPI posts them all at once).
    for r in 0..n {
        // The smallest power of two above r.
        let mut mask = (r + 1).next_power_of_two();
        while r + mask < n {
            p.message(Some(abs(r, root, n)), Some(abs(r + mask, root, n)), bytes);
            mask <<= 1;
        }
    }
}

/// Binomial tree from `root` down (Bcast, Scatter): in round k, every relative rank below
/// 2^k that has the data sends to rank + 2^k; `size(first, count)` gives the bytes for the
/// subtree of relative ranks `first`, `first + 1`, … (`count` of them).
fn binomial_down(p: &mut Programs, n: usize, root: usize, size: impl Fn(usize, usize) -> u64) {
    let mut k = 1;
    while k < n {
        k <<= 1;
    }
    // Farthest children first, as in Open MPI's binomial bcast.
    let mut step = k >> 1;
    while step >= 1 {
        for r in (0..n).step_by(2 * step) {
            if r + step < n {
                let subtree = step.min(n - (r + step));
                p.message(Some(abs(r, root, n)), Some(abs(r + step, root, n)), size(r + step, subtree));
            }
        }
        step >>= 1;
    }
}

/// Binomial tree up to `root` (Reduce, Gather): the mirror of [`binomial_down`].
fn binomial_up(p: &mut Programs, n: usize, root: usize, compute: u64, size: impl Fn(usize) -> u64) {
    let mut step = 1;
    while step < n {
        for r in (0..n).step_by(2 * step) {
            if r + step < n {
                let subtree = step.min(n - (r + step));
                p.compute(abs(r + step, root, n), compute);
                p.message(Some(abs(r + step, root, n)), Some(abs(r, root, n)), size(subtree));
            }
        }
        step <<= 1;
    }
}

/// Recursive doubling on any N: the first 2r tasks (r = N − 2^⌊log N⌋) fold pairwise into
/// the power of two, the 2^⌊log N⌋ remaining exchange with partners at distance 1, 2, 4, …,
/// then the folded tasks get the result back.
fn recursive_doubling(p: &mut Programs, n: usize, size: impl Fn(u32) -> u64, compute: u64) {
    let pow = 1usize << (usize::BITS - 1 - n.leading_zeros());
    let extra = n - pow;
    // Fold: even tasks below 2·extra hand their data to the next odd task.
    for i in (0..2 * extra).step_by(2) {
        p.message(Some(i), Some(i + 1), size(0));
    }
    // The participants and their rank in the power-of-two group.
    let members: Vec<usize> = (0..n).filter(|&i| i >= 2 * extra || i % 2 == 1).collect();
    let mut stage = 0;
    let mut d = 1;
    while d < pow {
        for (r, &i) in members.iter().enumerate() {
            let partner = members[r ^ d];
            p.compute(i, if stage > 0 { compute } else { 0 });
            p.send(i, Some(partner), size(stage));
            p.recv(i, Some(partner), size(stage));
        }
        d <<= 1;
        stage += 1;
    }
    for i in (0..2 * extra).step_by(2) {
        p.message(Some(i + 1), Some(i), size(stage));
    }
}

/// `rounds` × (N − 1) ring steps: each task sends `bytes(task, step)` to the next and
/// receives the previous one's; `between(p, task, step)` runs before each send.
fn ring(
    p: &mut Programs,
    n: usize,
    rounds: usize,
    bytes: impl Fn(usize, usize) -> u64,
    between: impl Fn((&mut Programs, usize, usize)),
) {
    for step in 0..rounds * (n - 1) {
        for i in 0..n {
            if step > 0 {
                between((p, i, step));
            }
            let previous = (i + n - 1) % n;
            p.send(i, Some((i + 1) % n), bytes(i, step));
            p.recv(i, Some(previous), bytes(previous, step));
        }
    }
}
