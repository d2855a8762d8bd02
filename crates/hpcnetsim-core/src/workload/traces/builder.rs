//! Turns the MPI calls read from a trace into task programs, one rank at a time: request
//! handles become request ids, communicator ranks become world ranks, collectives are
//! expanded with `workload::collectives`, compute intervals are scaled by the CPU factor,
//! and every call is counted for the trace summary.

use super::Location;
use crate::config::{CollectiveAlgorithm, Kernel};
use crate::error::{Error, Result};
use crate::workload::collectives::{self, Collective};
use crate::workload::program::{Op, Programs, ANY_SOURCE, ANY_TAG, NO_REQUEST};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Communicator context of collectives and of the world communicator's point-to-point.
pub const WORLD: u32 = 0;

/// How traced quantities become program operations.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// Network cycles per traced second.
    pub cycles_per_second: f64,
    /// Cycles per traced flop (SimGrid).
    pub cycles_per_flop: f64,
    /// CPU factor applied to every compute interval (0: network-only replay).
    pub cpu_factor: f64,
    /// Algorithm of the expanded collectives.
    pub algorithm: CollectiveAlgorithm,
    /// Segment size of pipelined collectives.
    pub segment_bytes: u64,
}

/// Collective expansions kept for reuse.
const CACHED_EXPANSIONS: usize = 64;

/// Key of a cached collective expansion: operation, algorithm, bytes, root, size.
type CollKey = (Kernel, CollectiveAlgorithm, u64, usize, usize);

/// Collective calls of one communicator kept so that a call some member never makes, or
/// makes as another operation, is named with its line: at most this many calls past the
/// last one every member has made.
const PENDING_COLLECTIVES: usize = 256;

/// Sends and receives kept to compare each receive with the message it matches, at most this
/// many over all envelopes (a trace written rank after rank has its later ones compared by
/// the replay).
const PAIRED_MESSAGES: usize = 4096;

/// The sends, or the receives, of one envelope (source, destination, tag, communicator) read
/// and not yet paired with the other side's: the k-th receive of an envelope matches its k-th
/// message, unless a wildcard receive of the destination on the communicator came before it.
#[derive(Default)]
struct Unpaired {
    /// Whether the sends are ahead (else the receives).
    sends: bool,
    /// How many are ahead.
    ahead: u64,
    /// The first of those ahead, bytes and record, as many as the bound let be kept.
    kept: std::collections::VecDeque<(u64, Location)>,
    /// A receive came after a wildcard receive: the replay matches the envelope's messages.
    replayed: bool,
}

/// One collective call as the first member to make it gave it.
struct Called {
    kernel: Kernel,
    root: u32,
    rank: usize,
    at: Location,
}

/// The collective calls of one communicator (not kept in `Stream` mode: the trace was
/// checked by its `Count` pass).
#[derive(Default)]
struct CommCalls {
    /// Per communicator rank: collectives called so far.
    count: Vec<u64>,
    /// Calls every member has made (the least of `count`) and how many members made no more.
    done: u64,
    at_done: usize,
    /// Calls number `done`, `done` + 1, … as first made (bounded: a rank far ahead of the
    /// others, as in a file written rank after rank, has its later calls counted only).
    pending: std::collections::VecDeque<Called>,
    /// The most calls any member has made, and the last of them, for when `pending` lost
    /// the first call some member never makes.
    most: u64,
    last: Option<Location>,
}

/// What a builder does with the operations it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Keeps every rank's whole program (`finish` returns them).
    Whole,
    /// Counts them only (the first pass of a streamed replay and `trace info`): the
    /// summary, the traffic and the checks of `finish`, in memory independent of the length.
    Count,
    /// Keeps them until [`Builder::take`] hands them to the replay, with the request sets
    /// of their `WaitAny` numbered per batch; no summary bookkeeping (the trace was counted).
    Stream,
}

/// Per-rank program builder shared by the trace readers.
pub struct Builder {
    /// The programs built so far.
    pub programs: Programs,
    mode: Mode,
    /// Per rank: operations made (kept or not).
    pub ops: Vec<u64>,
    /// Messages of the expanded programs per (source, destination): (bytes, messages),
    /// counted when the mode is `Count`.
    pub traffic: FxHashMap<(u32, u32), (u64, u64)>,
    /// Untagged sends and receives per (source, destination): (count, hash of the sequence
    /// of lengths), so that `finish` checks them pair by pair as `Programs::check` does.
    pairs: FxHashMap<(u32, u32), [(u64, u64); 2]>,
    /// Per rank in `Stream` mode: request sets of the `WaitAny` operations not yet taken.
    batch_sets: Vec<Vec<Vec<u32>>>,
    /// Operations kept and not yet taken, over all ranks.
    held: usize,
    scale: Scale,
    /// Members (world ranks) of every communicator other than the world.
    comms: FxHashMap<u32, Vec<u32>>,
    /// The same members sorted, to tell whether a rank is one.
    sorted: FxHashMap<u32, Vec<u32>>,
    /// Per rank: trace request handle → request id.
    handles: Vec<FxHashMap<u64, u32>>,
    free: Vec<Vec<u32>>,
    next: Vec<u32>,
    /// Per rank, when tracked ([`Builder::track_requests`]): trace handle → the record that
    /// started it, while it is pending.
    started: Vec<FxHashMap<u64, String>>,
    /// Per rank: calls by name.
    pub calls: Vec<BTreeMap<String, u64>>,
    /// Per rank: bytes sent by point-to-point calls and by collectives (as expanded).
    pub bytes_sent: Vec<u64>,
    cache: FxHashMap<CollKey, Programs>,
    /// Point-to-point bytes and messages per (source, destination), as sent and as received
    /// (receives with a known source only).
    pub p2p_sent: FxHashMap<(u32, u32), (u64, u64)>,
    /// See `p2p_sent`.
    pub p2p_received: FxHashMap<(u32, u32), (u64, u64)>,
    /// Sends and receives per (source, destination, tag, comm), with the last sending record.
    sends: FxHashMap<(u32, u32, i32, u32), (u64, Location)>,
    recvs: FxHashMap<(u32, u32, i32, u32), u64>,
    /// Wildcard receives per (destination, comm).
    wild: FxHashMap<(u32, u32), u64>,
    /// Per envelope (source, destination, tag, comm): the sends or receives not yet paired.
    unpaired: FxHashMap<(u32, u32, i32, u32), Unpaired>,
    /// Records kept in `unpaired` over all envelopes, and records and queues to reuse.
    kept: usize,
    spare: Vec<Location>,
    queues: Vec<std::collections::VecDeque<(u64, Location)>>,
    /// Per rank: compute cycles so far (bounded, see `limits`).
    compute: Vec<u64>,
    /// Collective calls per communicator.
    collectives: FxHashMap<u32, CommCalls>,
}

impl Builder {
    /// A builder for `ranks` ranks.
    pub fn new(ranks: usize, scale: Scale) -> Self {
        Self::with_mode(ranks, scale, Mode::Whole)
    }

    /// A builder for `ranks` ranks in `mode`.
    pub fn with_mode(ranks: usize, scale: Scale, mode: Mode) -> Self {
        Builder {
            programs: Programs::new(ranks),
            mode,
            ops: vec![0; ranks],
            traffic: Default::default(),
            pairs: Default::default(),
            batch_sets: vec![Vec::new(); if mode == Mode::Stream { ranks } else { 0 }],
            held: 0,
            scale,
            comms: Default::default(),
            sorted: Default::default(),
            handles: vec![Default::default(); ranks],
            free: vec![Vec::new(); ranks],
            next: vec![0; ranks],
            started: Vec::new(),
            calls: vec![BTreeMap::new(); ranks],
            bytes_sent: vec![0; ranks],
            cache: Default::default(),
            p2p_sent: Default::default(),
            p2p_received: Default::default(),
            sends: Default::default(),
            recvs: Default::default(),
            wild: Default::default(),
            unpaired: Default::default(),
            kept: 0,
            spare: Vec::new(),
            queues: Vec::new(),
            compute: vec![0; ranks],
            collectives: Default::default(),
        }
    }

    /// The most compute cycles any rank has so far.
    pub fn max_compute_cycles(&self) -> u64 {
        self.compute.iter().copied().max().unwrap_or(0)
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.programs.len()
    }

    /// A builder in `mode` for the same ranks, scale and communicators, with no operation.
    pub fn fresh(&self, mode: Mode) -> Builder {
        let mut b = Builder::with_mode(self.ranks(), self.scale, mode);
        b.comms = self.comms.clone();
        b.sorted = self.sorted.clone();
        b
    }

    /// How traced quantities become operations.
    pub fn scale(&self) -> &Scale {
        &self.scale
    }

    /// Collective algorithm of the workload.
    pub fn algorithm(&self) -> CollectiveAlgorithm {
        self.scale.algorithm
    }

    /// The builder's mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Counts one call named `name` at `rank`.
    pub fn count(&mut self, rank: usize, name: &str) {
        if self.mode == Mode::Stream {
            return;
        }
        match self.calls[rank].get_mut(name) {
            Some(c) => *c += 1,
            None => {
                self.calls[rank].insert(name.to_string(), 1);
            }
        }
    }

    /// Appends `op` to `rank`'s program, or only counts it.
    fn push(&mut self, rank: usize, op: Op) {
        self.ops[rank] += 1;
        if self.mode == Mode::Count {
            let r = rank as u32;
            match op {
                Op::Send { to, bytes } | Op::Isend { to, bytes, .. } => {
                    let t = self.traffic.entry((r, to)).or_insert((0, 0));
                    t.0 += bytes;
                    t.1 += 1;
                }
                _ => {}
            }
            // Untagged messages (expanded collectives) must pair up as `Programs::check` wants.
            let side = match op {
                Op::Send { to, bytes } => Some(((r, to), 0, bytes)),
                Op::Recv { from, bytes } => Some(((from, r), 1, bytes)),
                _ => None,
            };
            if let Some((pair, k, bytes)) = side {
                let e = &mut self.pairs.entry(pair).or_insert([(0, 0); 2])[k];
                e.0 += 1;
                e.1 = (e.1 ^ bytes).wrapping_mul(0x0100_0000_01b3).rotate_left(5);
            }
        } else {
            self.held += 1;
            self.programs.tasks[rank].push(op);
        }
    }

    /// Operations made and not yet taken, over all ranks (`Stream` mode).
    pub fn held(&self) -> usize {
        self.held
    }

    /// Operations of `rank` made and not yet taken (`Stream` mode).
    pub fn pending(&self, rank: usize) -> usize {
        self.programs.tasks[rank].len()
    }

    /// Moves `rank`'s operations made so far to `ops` and the request sets of their
    /// `WaitAny` (numbered from 0 in this batch) to `sets` (`Stream` mode).
    pub fn take(&mut self, rank: usize, ops: &mut Vec<Op>, sets: &mut Vec<Vec<u32>>) {
        self.held -= self.programs.tasks[rank].len();
        ops.append(&mut self.programs.tasks[rank]);
        if let Some(s) = self.batch_sets.get_mut(rank) {
            sets.append(s);
        }
    }

    /// Defines communicator `id` with its members in communicator-rank order.
    pub fn define_comm(&mut self, at: &Location, id: u32, members: Vec<u32>) -> Result<()> {
        self.check_members(at, id, &members)?;
        let mut sorted = members.clone();
        sorted.sort_unstable();
        self.sorted.insert(id, sorted);
        self.comms.insert(id, members);
        Ok(())
    }

    /// Refuses members of communicator `id` that are not ranks of the trace or are listed
    /// twice (also for a world that a format lists explicitly, as VEF's `C0`).
    pub fn check_members(&self, at: &Location, id: u32, members: &[u32]) -> Result<()> {
        if let Some(&bad) = members.iter().find(|&&r| r as usize >= self.ranks()) {
            return Err(at.error(format!("communicator {id} names rank {bad}; the trace has {} ranks", self.ranks())));
        }
        // A rank listed twice would be two ranks of the communicator, its collectives two
        // participants in one program.
        let mut sorted = members.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(at.error(format!("communicator {id} lists rank {} twice; each rank is a member once", w[0])));
        }
        Ok(())
    }

    /// Members of communicator `id` other than the world, if it is defined.
    pub fn members(&self, id: u32) -> Option<&[u32]> {
        self.comms.get(&id).map(|m| m.as_slice())
    }

    /// Whether communicator `id` is known.
    pub fn has_comm(&self, id: u32) -> bool {
        id == WORLD || self.comms.contains_key(&id)
    }

    /// Size of communicator `comm`.
    pub fn comm_size(&self, comm: u32) -> usize {
        self.comms.get(&comm).map_or(self.ranks(), |m| m.len())
    }

    /// Refuses a send or receive (`what`) of `rank` on a communicator that does not list it.
    fn check_member(&self, at: &Location, rank: usize, comm: u32, what: &str) -> Result<()> {
        let Some(sorted) = self.sorted.get(&comm) else { return Ok(()) };
        if sorted.binary_search(&(rank as u32)).is_ok() {
            return Ok(());
        }
        let members = &self.comms[&comm];
        let mut listed: Vec<String> = members.iter().take(8).map(|r| r.to_string()).collect();
        if members.len() > 8 {
            listed.push(format!("… ({} ranks)", members.len()));
        }
        Err(at.error(format!(
            "{what} on communicator {comm}, which rank {rank} is not a member of; a rank sends and receives only on communicators that list it (communicator {comm}: ranks {})",
            listed.join(", ")
        )))
    }

    /// World rank of rank `r` of communicator `comm`.
    fn world(&self, at: &Location, comm: u32, r: u32) -> Result<u32> {
        let n = self.comm_size(comm);
        if r as usize >= n {
            return Err(at.error(format!("rank {r} is outside communicator {comm} of {n} ranks")));
        }
        Ok(self.comms.get(&comm).map_or(r, |m| m[r as usize]))
    }

    /// A compute interval of `cycles` network cycles (before the CPU factor); refused
    /// beyond the bounds of `limits` (a replay that would never end).
    pub fn compute_cycles(&mut self, at: &Location, rank: usize, cycles: f64) -> Result<()> {
        let c = (cycles * self.scale.cpu_factor).round();
        super::limits::compute(at, c, self.compute[rank])?;
        if c >= 1.0 {
            self.compute[rank] += c as u64;
            self.push(rank, Op::Compute { cycles: c as u64 });
        }
        Ok(())
    }

    /// A compute interval of `seconds` traced seconds.
    pub fn compute_seconds(&mut self, at: &Location, rank: usize, seconds: f64) -> Result<()> {
        self.compute_cycles(at, rank, seconds.max(0.0) * self.scale.cycles_per_second)
    }

    /// A compute interval of `flops` traced flops.
    pub fn compute_flops(&mut self, at: &Location, rank: usize, flops: f64) -> Result<()> {
        self.compute_cycles(at, rank, flops.max(0.0) * self.scale.cycles_per_flop)
    }

    fn new_request(&mut self, rank: usize) -> u32 {
        self.free[rank].pop().unwrap_or_else(|| {
            self.next[rank] += 1;
            self.next[rank] - 1
        })
    }

    /// Keeps the record that started each pending request, for [`Builder::started_at`]
    /// (the text format, whose writer chooses the ids; not in `Stream` mode, which replays a
    /// trace already checked).
    pub fn track_requests(&mut self) {
        if self.mode != Mode::Stream {
            self.started = vec![Default::default(); self.ranks()];
        }
    }

    /// The record that started trace handle `handle` of `rank`, if it is pending and requests
    /// are tracked.
    pub fn started_at(&self, rank: usize, handle: u64) -> Option<&str> {
        self.started.get(rank)?.get(&handle).map(|r| r.as_str())
    }

    /// A request id for trace handle `handle` (a handle posted again replaces the old one).
    fn open(&mut self, at: &Location, rank: usize, handle: u64) -> u32 {
        if let Some(s) = self.started.get_mut(rank) {
            s.insert(handle, at.record.clone());
        }
        let id = self.new_request(rank);
        if let Some(old) = self.handles[rank].insert(handle, id) {
            self.free[rank].push(old);
        }
        id
    }

    /// A send of `bytes` to `dst` (a rank of `comm`); `handle` for a non-blocking send.
    #[allow(clippy::too_many_arguments)]
    pub fn send(
        &mut self,
        at: &Location,
        rank: usize,
        dst: u32,
        bytes: u64,
        tag: i32,
        comm: u32,
        handle: Option<u64>,
    ) -> Result<()> {
        if tag < 0 {
            return Err(at.error(format!("tag {tag} of a send; tags are ≥ 0")));
        }
        super::limits::bytes(at, bytes)?;
        if self.mode != Mode::Stream {
            self.check_member(at, rank, comm, "send")?;
        }
        let to = self.world(at, comm, dst)?;
        let req = match handle {
            Some(h) => self.open(at, rank, h),
            None => NO_REQUEST,
        };
        self.push(rank, Op::Isend { to, bytes, tag, comm, req });
        if self.mode == Mode::Stream {
            return Ok(());
        }
        self.bytes_sent[rank] += bytes;
        let m = self.p2p_sent.entry((rank as u32, to)).or_insert((0, 0));
        m.0 += bytes;
        m.1 += 1;
        let e = self.sends.entry((rank as u32, to, tag, comm)).or_insert_with(|| (0, at.clone()));
        e.0 += 1;
        // In place: a trace has millions of sends.
        if e.1.file != at.file {
            e.1.file.clone_from(&at.file);
        }
        e.1.record.clone_from(&at.record);
        e.1.rank = at.rank;
        self.pair((rank as u32, to, tag, comm), true, bytes, at)
    }

    /// A receive from `src` (a rank of `comm`, or `None` for any source) with `tag` (or
    /// `ANY_TAG`); blocking unless a `handle` is given.
    #[allow(clippy::too_many_arguments)]
    pub fn recv(
        &mut self,
        at: &Location,
        rank: usize,
        src: Option<u32>,
        bytes: u64,
        tag: i32,
        comm: u32,
        handle: Option<u64>,
    ) -> Result<()> {
        if tag < ANY_TAG {
            return Err(at.error(format!("tag {tag} of a receive; tags are ≥ 0 or any")));
        }
        super::limits::bytes(at, bytes)?;
        if self.mode != Mode::Stream {
            self.check_member(at, rank, comm, "receive")?;
        }
        let from = match src {
            Some(s) => self.world(at, comm, s)?,
            None => ANY_SOURCE,
        };
        let req = match handle {
            Some(h) => self.open(at, rank, h),
            None => self.new_request(rank),
        };
        self.push(rank, Op::Irecv { from, bytes, tag, comm, req });
        if handle.is_none() {
            self.push(rank, Op::Wait { req });
            self.free[rank].push(req);
        }
        if self.mode == Mode::Stream {
            return Ok(());
        }
        if from != ANY_SOURCE {
            let m = self.p2p_received.entry((from, rank as u32)).or_insert((0, 0));
            m.0 += bytes;
            m.1 += 1;
        }
        if from == ANY_SOURCE || tag == ANY_TAG {
            *self.wild.entry((rank as u32, comm)).or_insert(0) += 1;
        } else {
            *self.recvs.entry((from, rank as u32, tag, comm)).or_insert(0) += 1;
            self.pair((from, rank as u32, tag, comm), false, bytes, at)?;
        }
        Ok(())
    }

    /// Pairs a send (`send`) or an exact receive of `bytes` at `at` with the other side's of
    /// envelope `key`, in order: a receive smaller than its message is an error naming both
    /// records (MPI_ERR_TRUNCATE). Receives after a wildcard receive, and those beyond the
    /// records kept, are left to the replay.
    fn pair(&mut self, key: (u32, u32, i32, u32), send: bool, bytes: u64, at: &Location) -> Result<()> {
        let (src, dst, tag, comm) = key;
        let after_wildcard = !send && self.wild.get(&(dst, comm)).is_some_and(|&w| w > 0);
        let u = self.unpaired.entry(key).or_default();
        if u.replayed {
            return Ok(());
        }
        if after_wildcard {
            u.replayed = true;
            self.kept -= u.kept.len();
            self.spare.extend(std::mem::take(&mut u.kept).into_iter().map(|(_, l)| l));
            return Ok(());
        }
        if u.ahead == 0 || u.sends == send {
            // This side is ahead: kept if the bound allows and every one before it was.
            u.sends = send;
            if u.kept.len() as u64 == u.ahead && self.kept < PAIRED_MESSAGES {
                if u.kept.capacity() == 0 {
                    u.kept = self.queues.pop().unwrap_or_default();
                }
                let mut l = self.spare.pop().unwrap_or_default();
                // In place: a trace has millions of messages.
                l.file.clone_from(&at.file);
                l.record.clone_from(&at.record);
                l.rank = at.rank;
                u.kept.push_back((bytes, l));
                self.kept += 1;
            }
            u.ahead += 1;
            return Ok(());
        }
        // The other side is ahead: this one pairs with the first of them.
        u.ahead -= 1;
        let first = u.kept.pop_front();
        if u.ahead == 0 {
            // Balanced: nothing to remember (its queue, empty, serves another envelope).
            let q = self.unpaired.remove(&key).map(|u| u.kept).unwrap_or_default();
            if (1..=16).contains(&q.capacity()) && self.queues.len() < 64 {
                self.queues.push(q);
            }
        }
        let Some((other, kept)) = first else { return Ok(()) };
        self.kept -= 1;
        let (message, receive, sent, received) =
            if send { (bytes, other, at, &kept) } else { (other, bytes, &kept, at) };
        let result = match receive < message {
            true => {
                let place = match sent.file == received.file {
                    true => sent.record.clone(),
                    false => format!("{}: {}", sent.file, sent.record),
                };
                Err(received.error(format!(
                    "receive of {receive} bytes from rank {src} tag {tag} comm {comm} matches the message of {message} bytes sent at {place}; allowed: a receive of at least the bytes of the message it matches (a smaller one is MPI_ERR_TRUNCATE)"
                )))
            }
            false => Ok(()),
        };
        self.spare.push(kept);
        result
    }

    /// Whether trace handle `handle` of `rank` is a request posted and not yet waited for.
    pub fn has_request(&self, rank: usize, handle: u64) -> bool {
        self.handles[rank].contains_key(&handle)
    }

    /// A wait on trace handle `handle` (an unknown handle is a null request: no wait).
    pub fn wait(&mut self, rank: usize, handle: u64) {
        if let Some(s) = self.started.get_mut(rank) {
            s.remove(&handle);
        }
        if let Some(id) = self.handles[rank].remove(&handle) {
            self.push(rank, Op::Wait { req: id });
            self.free[rank].push(id);
        }
    }

    /// Waits on every handle of `handles` (waitall: completing in any order, as a sequence
    /// of waits completes at the same cycle).
    pub fn wait_all(&mut self, rank: usize, handles: &[u64]) {
        for &h in handles {
            self.wait(rank, h);
        }
    }

    /// Waits on every outstanding request of `rank` (SimGrid's waitall).
    pub fn wait_outstanding(&mut self, rank: usize) {
        let mut open: Vec<(u64, u32)> = self.handles[rank].iter().map(|(&h, &id)| (h, id)).collect();
        open.sort_unstable_by_key(|&(_, id)| id);
        for (h, _) in open {
            self.wait(rank, h);
        }
    }

    /// Waits for any one of `handles`; with `done` (the handle the trace says completed)
    /// that one is released, else the first completed in the replay.
    pub fn wait_any(&mut self, rank: usize, handles: &[u64], done: Option<u64>) {
        let ids: Vec<u32> = handles.iter().filter_map(|h| self.handles[rank].get(h).copied()).collect();
        if ids.is_empty() {
            return;
        }
        match done {
            Some(h) => self.wait(rank, h),
            None => match self.mode {
                Mode::Whole => self.programs.wait_any(rank, ids),
                Mode::Count => self.push(rank, Op::WaitAny { set: 0 }),
                Mode::Stream => {
                    let sets = &mut self.batch_sets[rank];
                    sets.push(ids);
                    let set = (sets.len() - 1) as u32;
                    self.push(rank, Op::WaitAny { set });
                }
            },
        }
    }

    /// A collective `kernel` on `comm` with `bytes` per rank (see workload::collectives).
    pub fn collective(
        &mut self,
        at: &Location,
        rank: usize,
        kernel: Kernel,
        bytes: u64,
        root: u32,
        comm: u32,
    ) -> Result<()> {
        self.collective_with(at, rank, kernel, bytes, root, comm, self.scale.algorithm)
    }

    /// A collective with an explicit algorithm.
    #[allow(clippy::too_many_arguments)]
    pub fn collective_with(
        &mut self,
        at: &Location,
        rank: usize,
        kernel: Kernel,
        bytes: u64,
        root: u32,
        comm: u32,
        algorithm: CollectiveAlgorithm,
    ) -> Result<()> {
        super::limits::bytes(at, bytes)?;
        let n = self.comm_size(comm);
        let members: Option<Vec<u32>> = self.comms.get(&comm).cloned();
        let me = match &members {
            Some(m) => m.iter().position(|&r| r as usize == rank).ok_or_else(|| {
                at.error(format!("rank {rank} calls a collective on communicator {comm} it is not part of"))
            })?,
            None => rank,
        };
        if root as usize >= n {
            return Err(at.error(format!("root {root} of a collective on {n} ranks")));
        }
        if n < 2 {
            return Ok(());
        }
        if self.mode != Mode::Stream {
            self.called(at, rank, me, n, kernel, root, comm)?;
        }
        // Expansions are cached: every rank of a collective takes its part of the same one.
        let key = (kernel, algorithm, bytes, root as usize, n);
        if !self.cache.contains_key(&key) {
            // Traces with ever new sizes would otherwise keep every expansion.
            if self.cache.len() >= CACHED_EXPANSIONS {
                self.cache.clear();
            }
            let mut p = Programs::new(n);
            let c = Collective {
                kernel,
                algorithm,
                bytes,
                segment_bytes: self.scale.segment_bytes,
                root: root as usize,
                compute_cycles: 0,
            };
            collectives::build(&mut p, &c, n).map_err(|e| at.error(e.to_string()))?;
            self.cache.insert(key, p);
        }
        let ops = self.cache[&key].tasks[me].clone();
        let map = |t: u32| members.as_ref().map_or(t, |m| m[t as usize]);
        for op in ops {
            let op = match op {
                Op::Send { to, bytes } => {
                    self.bytes_sent[rank] += bytes;
                    Op::Send { to: map(to), bytes }
                }
                Op::Recv { from, bytes } => Op::Recv { from: map(from), bytes },
                other => other,
            };
            self.push(rank, op);
        }
        Ok(())
    }

    /// Records that `rank` (rank `me` of the `n` of `comm`) calls collective `kernel`; an
    /// error if another member made this call of the communicator as another operation.
    #[allow(clippy::too_many_arguments)]
    fn called(
        &mut self,
        at: &Location,
        rank: usize,
        me: usize,
        n: usize,
        kernel: Kernel,
        root: u32,
        comm: u32,
    ) -> Result<()> {
        let c = self.collectives.entry(comm).or_insert_with(|| CommCalls { at_done: n, ..Default::default() });
        if c.count.len() != n {
            *c = CommCalls { count: vec![0; n], at_done: n, ..Default::default() };
        }
        let k = c.count[me];
        match c.pending.get((k - c.done) as usize) {
            // The root matters only to rooted collectives (others are given root 0 or any).
            Some(first) if first.kernel != kernel || (rooted(kernel) && first.root != root) => {
                let place = if first.at.file == at.file {
                    first.at.record.clone()
                } else {
                    format!("{}: {}", first.at.file, first.at.record)
                };
                return Err(at.error(format!(
                    "{} is collective #{} of communicator {comm}, where rank {} calls {} at {place}; every member makes the same collectives in the same order",
                    call_name(kernel, Some(root)),
                    k + 1,
                    first.rank,
                    call_name(first.kernel, Some(first.root)),
                )));
            }
            Some(_) => {}
            None if k - c.done == c.pending.len() as u64 && c.pending.len() < PENDING_COLLECTIVES => {
                c.pending.push_back(Called { kernel, root, rank, at: at.clone() })
            }
            None => {}
        }
        c.count[me] = k + 1;
        if k + 1 >= c.most {
            c.most = k + 1;
            // In place: a trace has millions of collectives.
            match &mut c.last {
                Some(last) => {
                    last.file.clone_from(&at.file);
                    last.record.clone_from(&at.record);
                    last.rank = at.rank;
                }
                None => c.last = Some(at.clone()),
            }
        }
        if k == c.done {
            c.at_done -= 1;
            if c.at_done == 0 {
                // Every member has made call `done`: the next round starts.
                c.done += 1;
                c.pending.pop_front();
                c.at_done = c.count.iter().filter(|&&x| x == c.done).count();
            }
        }
        Ok(())
    }

    /// The first collective call that some member of a communicator never makes.
    fn check_collectives(&self) -> Result<()> {
        let mut comms: Vec<_> = self.collectives.iter().filter(|(_, c)| c.at_done < c.count.len()).collect();
        comms.sort_unstable_by_key(|(id, _)| **id);
        let Some((&comm, c)) = comms.first() else { return Ok(()) };
        let missing: Vec<u32> = (0..c.count.len())
            .filter(|&r| c.count[r] == c.done)
            .map(|r| self.comms.get(&comm).map_or(r as u32, |m| m[r]))
            .collect();
        let shown: Vec<String> = missing.iter().take(8).map(|r| r.to_string()).collect();
        let who = match missing.len() {
            1 => format!("rank {}", shown[0]),
            m if m <= 8 => format!("ranks {}", shown.join(", ")),
            m => format!("ranks {} and {} more", shown.join(", "), m - 8),
        };
        let number = c.done + 1;
        match c.pending.front() {
            Some(first) => Err(first.at.error(format!(
                "{who} never call{} this {}, collective #{number} of communicator {comm}",
                if missing.len() == 1 { "s" } else { "" },
                call_name(first.kernel, None),
            ))),
            // Not kept (a rank ran far ahead): the counts say which ranks fall short.
            None => {
                let what = format!(
                    "{who} make{} {} collective calls on communicator {comm}, this rank {} (its last here); every member makes the same collectives",
                    if missing.len() == 1 { "s" } else { "" },
                    c.done,
                    c.most,
                );
                Err(c.last.as_ref().map_or_else(|| Error::Unsupported(what.clone()), |l| l.error(&what)))
            }
        }
    }

    /// Checks that every point-to-point message can be received (a send with no possible
    /// receive names its last record) and returns the programs.
    pub fn finish(self) -> Result<Programs> {
        self.check()?;
        // The programs stay in memory for the whole replay: drop the growth slack.
        let mut programs = self.programs;
        for ops in &mut programs.tasks {
            ops.shrink_to_fit();
        }
        Ok(programs)
    }

    /// The checks of [`Builder::finish`]: every message can be received, there is a call
    /// to replay, and the expanded collectives pair up.
    pub fn check(&self) -> Result<()> {
        let mut keys: Vec<_> = self.sends.iter().collect();
        keys.sort_unstable_by_key(|(k, _)| **k);
        let mut per_dst: FxHashMap<(u32, u32), u64> = Default::default();
        for ((src, dst, tag, comm), (count, at)) in &keys {
            let exact = self.recvs.get(&(*src, *dst, *tag, *comm)).copied().unwrap_or(0);
            let extra = count.saturating_sub(exact);
            if extra > 0 {
                let w = per_dst.entry((*dst, *comm)).or_insert(0);
                *w += extra;
                if *w > self.wild.get(&(*dst, *comm)).copied().unwrap_or(0) {
                    return Err(at.error(format!(
                        "message from rank {src} to rank {dst} tag {tag} is never received ({count} sends, {exact} matching receives)"
                    )));
                }
            }
        }
        if self.ops.iter().all(|&n| n == 0) {
            // Collectives of a single rank send nothing: a program of them has nothing to run.
            return Err(Error::Unsupported(
                "trace: no MPI call to replay: no rank sends, receives or computes (a collective of \
                 one rank sends nothing)"
                    .into(),
            ));
        }
        self.check_collectives()?;
        // Every member made the same collectives: messages can still differ in length (the
        // ranks gave one collective different sizes).
        let mut bad: Vec<_> = self.pairs.iter().filter(|(_, [s, r])| s != r).collect();
        bad.sort_unstable_by_key(|(pair, _)| **pair);
        if let Some(((src, dst), [s, r])) = bad.first() {
            return Err(Error::Unsupported(format!(
                "trace: the collectives' messages from rank {src} to rank {dst} do not match: {} sent, {} received{}; the ranks give their common collectives different sizes",
                s.0,
                r.0,
                if s.0 == r.0 { " with other lengths" } else { "" },
            )));
        }
        Ok(())
    }
}

/// Whether collective `kernel` has a root.
fn rooted(kernel: Kernel) -> bool {
    matches!(kernel, Kernel::Bcast | Kernel::Reduce | Kernel::Gather | Kernel::Scatter)
}

/// A collective as a text trace writes it, with its `root` if given and it has one: `bcast root=1`.
fn call_name(kernel: Kernel, root: Option<u32>) -> String {
    let name = match kernel {
        Kernel::MpiBarrier => "barrier".to_string(),
        k => crate::config::config_name(&k),
    };
    match root {
        Some(r) if rooted(kernel) => format!("{name} root={r}"),
        _ => name,
    }
}
