//! MPI message matching for the tagged operations of task programs (`Isend`, `Irecv`,
//! `Wait`, `WaitAny`): a message is matched when it is sent, against the receiver's
//! posted receives in posting order, or else waits in the receiver's unexpected queue in
//! sending order (so messages between two tasks never overtake, as MPI requires).
//! Requests complete when their message has fully arrived. A receive smaller than the
//! message it matches is an error of the run (MPI_ERR_TRUNCATE).

use crate::error::Error;
use crate::workload::program::{ANY_SOURCE, ANY_TAG, NO_REQUEST};
use std::collections::VecDeque;

/// The state of one request id of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Req {
    Free,
    Pending,
    Done,
}

/// A posted receive not yet matched.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Posted {
    pub(crate) from: u32,
    pub(crate) tag: i32,
    pub(crate) comm: u32,
    pub(crate) req: u32,
    /// The receive's size in bytes.
    pub(crate) bytes: u64,
}

impl Posted {
    /// Whether a message from `src` with `tag` in `comm` matches this receive.
    fn accepts(&self, src: u32, tag: i32, comm: u32) -> bool {
        self.comm == comm && (self.from == ANY_SOURCE || self.from == src) && (self.tag == ANY_TAG || self.tag == tag)
    }
}

/// The envelope and progress of a tagged message.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Envelope {
    pub(crate) tag: i32,
    pub(crate) comm: u32,
    /// The sender's request, or `NO_REQUEST`.
    pub(crate) send_req: u32,
    /// The receiver's request once matched, else `NO_REQUEST`.
    pub(crate) recv_req: u32,
    /// Whether every packet has arrived.
    pub(crate) delivered: bool,
    /// The message's size in bytes.
    pub(crate) bytes: u64,
}

/// Matching state of every task.
#[derive(Debug, Default)]
pub(crate) struct Matching {
    pub(crate) reqs: Vec<Vec<Req>>,
    pub(crate) posted: Vec<VecDeque<Posted>>,
    /// Per receiving task: (message id, source task) not yet matched, in sending order.
    pub(crate) unexpected: Vec<VecDeque<(u32, u32)>>,
    /// Envelope of every message (indexed like the engine's messages; `None` for the
    /// untagged send/recv of kernels).
    pub(crate) envelopes: Vec<Option<Envelope>>,
    /// Whether a task is blocked in a `Wait` or `WaitAny`.
    pub(crate) in_wait: Vec<bool>,
    /// Request sets of `WaitAny`.
    pub(crate) sets: Vec<Vec<u32>>,
    /// The first receive matched with a larger message (taken by the caller, which stops the run).
    pub(crate) truncated: Option<Error>,
}

impl Matching {
    /// State for `n` tasks.
    pub(crate) fn new(n: usize, sets: Vec<Vec<u32>>) -> Self {
        Matching {
            reqs: vec![Vec::new(); n],
            posted: vec![VecDeque::new(); n],
            unexpected: vec![VecDeque::new(); n],
            envelopes: Vec::new(),
            in_wait: vec![false; n],
            sets,
            truncated: None,
        }
    }

    /// Marks request `req` of `task` pending.
    pub(crate) fn open(&mut self, task: usize, req: u32) {
        if req == NO_REQUEST {
            return;
        }
        let r = &mut self.reqs[task];
        if r.len() <= req as usize {
            r.resize(req as usize + 1, Req::Free);
        }
        r[req as usize] = Req::Pending;
    }

    /// State of request `req` of `task` (never opened = free).
    pub(crate) fn state(&self, task: usize, req: u32) -> Req {
        self.reqs[task].get(req as usize).copied().unwrap_or(Req::Free)
    }

    /// Completes request `req` of `task`; true when the task is blocked in a wait and
    /// should try again.
    pub(crate) fn complete(&mut self, task: usize, req: u32) -> bool {
        if req == NO_REQUEST {
            return false;
        }
        self.reqs[task][req as usize] = Req::Done;
        std::mem::take(&mut self.in_wait[task])
    }

    /// A tagged message `id` from `src` to `dst` was sent: match it with the first posted
    /// receive that accepts it, or queue it as unexpected.
    pub(crate) fn send(&mut self, id: u32, src: u32, dst: u32, env: Envelope) {
        let i = id as usize;
        if self.envelopes.len() <= i {
            self.envelopes.resize(i + 1, None);
        }
        let mut env = env;
        let posted = &mut self.posted[dst as usize];
        if let Some(k) = posted.iter().position(|p| p.accepts(src, env.tag, env.comm)) {
            let p = posted.remove(k).expect("a posted receive");
            env.recv_req = p.req;
            self.check_size(src, dst, &env, p.bytes);
        } else {
            self.unexpected[dst as usize].push_back((id, src));
        }
        self.envelopes[i] = Some(env);
    }

    /// `task` posts a receive: match the first unexpected message it accepts, or queue the
    /// receive. Returns the message when it had already arrived (nothing needs it any more).
    pub(crate) fn post(&mut self, task: usize, p: Posted) -> Option<u32> {
        self.open(task, p.req);
        let found = self.unexpected[task].iter().position(|&(id, src)| {
            let e = self.envelopes[id as usize].expect("an envelope");
            p.accepts(src, e.tag, e.comm)
        });
        match found {
            Some(k) => {
                let (id, src) = self.unexpected[task].remove(k).expect("an unexpected message");
                let e = self.envelopes[id as usize].as_mut().expect("an envelope");
                e.recv_req = p.req;
                let (e, delivered) = (*e, e.delivered);
                self.check_size(src, task as u32, &e, p.bytes);
                if delivered {
                    self.reqs[task][p.req as usize] = Req::Done;
                    return Some(id);
                }
                None
            }
            None => {
                self.posted[task].push_back(p);
                None
            }
        }
    }

    /// Records the first receive (of `bytes`, at `dst`) matched with a larger message from `src`.
    fn check_size(&mut self, src: u32, dst: u32, env: &Envelope, bytes: u64) {
        if bytes < env.bytes && self.truncated.is_none() {
            self.truncated = Some(Error::invalid(
                "workload",
                format!("task {dst}'s receive of the message from task {src} tag {} comm {}: bytes", env.tag, env.comm),
                bytes,
                format!("at least the message's {} bytes (a smaller receive is MPI_ERR_TRUNCATE)", env.bytes),
            ));
        }
    }

    /// One line per unmatched posted receive and unreceived message (at most `limit`).
    pub(crate) fn unmatched(&self, limit: usize) -> Vec<String> {
        let tag = |t: i32| if t == ANY_TAG { "any".to_string() } else { t.to_string() };
        let mut out = Vec::new();
        for (t, q) in self.posted.iter().enumerate() {
            for p in q {
                let from = if p.from == ANY_SOURCE { "any task".to_string() } else { format!("task {}", p.from) };
                out.push(format!("task {t}: receive from {from} tag {} comm {} never matched", tag(p.tag), p.comm));
            }
        }
        for (t, q) in self.unexpected.iter().enumerate() {
            for &(id, src) in q {
                let e = self.envelopes[id as usize].expect("an envelope");
                out.push(format!("task {src}: message to task {t} tag {} comm {} never received", e.tag, e.comm));
            }
        }
        out.truncate(limit);
        out
    }
}
