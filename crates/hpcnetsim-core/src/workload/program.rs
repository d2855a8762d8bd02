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
}

/// The programs of every task of a workload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Programs {
    /// Operations of each task, in order.
    pub tasks: Vec<Vec<Op>>,
}

impl Programs {
    /// `n` empty programs.
    pub fn new(n: usize) -> Self {
        Programs { tasks: vec![Vec::new(); n] }
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

    /// Every message as (source, destination, bytes), in the senders' program order.
    pub fn messages(&self) -> Vec<(usize, usize, u64)> {
        let mut out = Vec::new();
        for (f, ops) in self.tasks.iter().enumerate() {
            for op in ops {
                if let Op::Send { to, bytes } = *op {
                    out.push((f, to as usize, bytes));
                }
            }
        }
        out
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
                    Op::Compute { .. } => {}
                    bad => {
                        return Err(Error::invalid(
                            "workload",
                            format!("task {t}"),
                            format!("{bad:?}"),
                            format!("operations with another task among 0..{n}"),
                        ))
                    }
                }
            }
        }
        if sends != recvs {
            return Err(Error::Unsupported("workload: sends and receives do not match pair by pair".into()));
        }
        Ok(())
    }
}
