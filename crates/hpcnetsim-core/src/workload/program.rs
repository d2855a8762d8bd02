//! Task programs: the causal workloads of papers 000 and 002. Each task runs its operations
//! in order; a send hands a message to the NIC and goes on, a receive blocks until the
//! matching message has fully arrived, a compute interval takes its cycles.

use crate::error::{Error, Result};

/// One operation of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Hand a message of `bytes` to the NIC for task `to` (non-blocking).
    Send {
        /// Destination task.
        to: u32,
        /// Message length in bytes (0 still travels as one packet).
        bytes: u64,
    },
    /// Wait until the next message from task `from` has fully arrived.
    Recv {
        /// Source task.
        from: u32,
        /// Expected length in bytes.
        bytes: u64,
    },
    /// Compute for `cycles`.
    Compute {
        /// Duration in cycles.
        cycles: u64,
    },
    /// MPI-style send matched by (source, tag, communicator): hands the message to the NIC
    /// and goes on; request `req` (unless [`NO_REQUEST`]) completes when the message has
    /// fully arrived.
    Isend {
        /// Destination task.
        to: u32,
        /// Message length in bytes.
        bytes: u64,
        /// Tag (≥ 0).
        tag: i32,
        /// Communicator context (messages of different contexts never match).
        comm: u32,
        /// Request id of this task, or [`NO_REQUEST`].
        req: u32,
    },
    /// MPI-style receive posting: matches the first message (in sending order) from
    /// `from` (or [`ANY_SOURCE`]) with `tag` (or [`ANY_TAG`]) in `comm`; request `req`
    /// completes when that message has fully arrived. Does not block.
    Irecv {
        /// Source task or [`ANY_SOURCE`].
        from: u32,
        /// Expected length in bytes (the sender's length is what travels).
        bytes: u64,
        /// Tag or [`ANY_TAG`].
        tag: i32,
        /// Communicator context.
        comm: u32,
        /// Request id of this task.
        req: u32,
    },
    /// Block until request `req` has completed, then free it.
    Wait {
        /// Request id.
        req: u32,
    },
    /// Block until one request of set `set` (an index into [`Programs::sets`]) has
    /// completed; the lowest-numbered completed one is freed.
    WaitAny {
        /// Index of the request set.
        set: u32,
    },
}

/// No request: a tagged send nobody waits for.
pub const NO_REQUEST: u32 = u32::MAX;
/// Wildcard source of a receive (MPI_ANY_SOURCE).
pub const ANY_SOURCE: u32 = u32::MAX;
/// Wildcard tag of a receive (MPI_ANY_TAG).
pub const ANY_TAG: i32 = -1;

/// The programs of every task of a workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Programs {
    /// Operations of each task, in order.
    pub tasks: Vec<Vec<Op>>,
    /// Request sets of the `WaitAny` operations (request ids of the waiting task).
    pub sets: Vec<Vec<u32>>,
}

impl Programs {
    /// `n` empty programs.
    pub fn new(n: usize) -> Self {
        Programs { tasks: vec![Vec::new(); n], sets: Vec::new() }
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Appends a message from `from` to `to`: a send in the sender's program and the
    /// matching receive in the receiver's. Calls with an undefined peer (`None`) do nothing,
    /// as in paper 002's definitions.
    pub fn message(&mut self, from: Option<usize>, to: Option<usize>, bytes: u64) {
        if let (Some(f), Some(t)) = (from, to) {
            self.tasks[f].push(Op::Send { to: t as u32, bytes });
            self.tasks[t].push(Op::Recv { from: f as u32, bytes });
        }
    }

    /// Appends a send only (the receive is added where the receiver's program needs it).
    pub fn send(&mut self, from: usize, to: Option<usize>, bytes: u64) {
        if let Some(t) = to {
            self.tasks[from].push(Op::Send { to: t as u32, bytes });
        }
    }

    /// Appends a receive only.
    pub fn recv(&mut self, at: usize, from: Option<usize>, bytes: u64) {
        if let Some(f) = from {
            self.tasks[at].push(Op::Recv { from: f as u32, bytes });
        }
    }

    /// Appends a compute interval (nothing for zero cycles).
    pub fn compute(&mut self, at: usize, cycles: u64) {
        if cycles > 0 {
            self.tasks[at].push(Op::Compute { cycles });
        }
    }

    /// Appends a tagged send (`req` = [`NO_REQUEST`] when nobody waits for it).
    pub fn isend(&mut self, at: usize, to: usize, bytes: u64, tag: i32, comm: u32, req: u32) {
        self.tasks[at].push(Op::Isend { to: to as u32, bytes, tag, comm, req });
    }

    /// Appends a receive posting (`from` = [`ANY_SOURCE`], `tag` = [`ANY_TAG`] as wildcards).
    pub fn irecv(&mut self, at: usize, from: u32, bytes: u64, tag: i32, comm: u32, req: u32) {
        self.tasks[at].push(Op::Irecv { from, bytes, tag, comm, req });
    }

    /// Appends a wait on request `req`.
    pub fn wait(&mut self, at: usize, req: u32) {
        self.tasks[at].push(Op::Wait { req });
    }

    /// Appends a wait for any request of `reqs`.
    pub fn wait_any(&mut self, at: usize, reqs: Vec<u32>) {
        self.sets.push(reqs);
        self.tasks[at].push(Op::WaitAny { set: (self.sets.len() - 1) as u32 });
    }

    /// Multiplies every compute interval by `factor` (rounded to the nearest cycle; 0
    /// removes them: network-only replay).
    pub fn scale_compute(&mut self, factor: f64) {
        for ops in &mut self.tasks {
            ops.retain_mut(|op| match op {
                Op::Compute { cycles } => {
                    *cycles = (*cycles as f64 * factor).round() as u64;
                    *cycles > 0
                }
                _ => true,
            });
        }
    }

    /// Every message as (source, destination, bytes), in the senders' program order.
    pub fn messages(&self) -> Vec<(usize, usize, u64)> {
        self.message_iter().collect()
    }

    /// [`Programs::messages`] without collecting them (traces hold millions).
    pub fn message_iter(&self) -> impl Iterator<Item = (usize, usize, u64)> + '_ {
        self.tasks.iter().enumerate().flat_map(|(f, ops)| {
            ops.iter().filter_map(move |op| match *op {
                Op::Send { to, bytes } | Op::Isend { to, bytes, .. } => Some((f, to as usize, bytes)),
                _ => None,
            })
        })
    }

    /// Checks that every send has a matching receive (same pair, same order, same length)
    /// and that task ids are in range.
    pub fn check(&self) -> Result<()> {
        let n = self.len();
        let mut sends: std::collections::HashMap<(usize, usize), Vec<u64>> = Default::default();
        let mut recvs: std::collections::HashMap<(usize, usize), Vec<u64>> = Default::default();
        for (t, ops) in self.tasks.iter().enumerate() {
            for op in ops {
                match *op {
                    Op::Send { to, bytes } if (to as usize) < n && to as usize != t => {
                        sends.entry((t, to as usize)).or_default().push(bytes)
                    }
                    Op::Recv { from, bytes } if (from as usize) < n && from as usize != t => {
                        recvs.entry((from as usize, t)).or_default().push(bytes)
                    }
                    Op::Compute { .. } | Op::Wait { .. } => {}
                    Op::Isend { to, tag, .. } if (to as usize) < n && tag >= 0 => {}
                    Op::Irecv { from, tag, .. } if (from == ANY_SOURCE || (from as usize) < n) && tag >= ANY_TAG => {}
                    Op::WaitAny { set } if (set as usize) < self.sets.len() => {}
                    bad => {
                        return Err(Error::invalid(
                            "workload",
                            format!("task {t}"),
                            format!("{bad:?}"),
                            format!("operations with another task among 0..{n}, tags ≥ 0, known request sets"),
                        ))
                    }
                }
            }
        }
        if sends != recvs {
            // The first pair (in task order) whose sends and receives differ.
            let mut pairs: Vec<(usize, usize)> = sends.keys().chain(recvs.keys()).copied().collect();
            pairs.sort_unstable();
            let none = Vec::new();
            if let Some(&(f, t)) = pairs.iter().find(|p| sends.get(p) != recvs.get(p)) {
                let (s, r) = (sends.get(&(f, t)).unwrap_or(&none), recvs.get(&(f, t)).unwrap_or(&none));
                let differ = if s.len() == r.len() { " of other lengths" } else { "" };
                return Err(Error::Unsupported(format!(
                    "workload: task {f} sends {} messages to task {t}, which receives {}{differ}; sends and receives match pair by pair, in order and length",
                    s.len(),
                    r.len()
                )));
            }
        }
        Ok(())
    }
}
