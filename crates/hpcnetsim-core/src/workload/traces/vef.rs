//! VEF traces (paper 003; Andújar et al., the VEF-TraceLIB format): a header `VEF tasks
//! messages comms global-collectives local-collectives only-send-flag`, communicator lines
//! `Ci task…`, point-to-point lines `ID src dst bytes dep time IDdep` and collective lines
//! `Gi comm op task send_bytes recv_bytes dep time IDdep`. A message or collective starts
//! `time` ns after its dependency: none (then `time` is absolute), the sending (1) or the
//! reception (2) of message IDdep, or the end of collective G IDdep (3), always of an
//! earlier line (messages are listed in id order).
//!
//! As task programs: every message is a tagged send (tag = its ID) and a receive posted at
//! its destination when the line is read; a reception dependency waits for that receive; the
//! time becomes a compute interval before the send. Each rank runs its lines in file order
//! (VEF's dependencies allow a rank's independent messages to overlap; here they do not).
//! Streamed, a message line gives its source the send and its destination the receive.

use super::builder::{Builder, Mode, Scale, WORLD};
use super::stream::{LineStream, Lines, ProgramSource};
use super::Location;
use crate::config::{CollectiveAlgorithm as A, Kernel};
use crate::error::Result;
use rustc_hash::FxHashMap;
use std::io::BufRead;
use std::path::Path;

/// Parsed header: tasks, point-to-point messages, communicators.
struct Header {
    tasks: usize,
    messages: u64,
    comms: usize,
}

fn num<T: std::str::FromStr>(at: &Location, what: &str, v: Option<&&str>) -> Result<T> {
    let v = v.ok_or_else(|| at.error(format!("missing {what} (truncated line?)")))?;
    v.parse().map_err(|_| at.error(format!("{what} = '{v}' is not a valid number")))
}

/// Reads a VEF trace.
pub fn read(path: &Path, scale: Scale) -> Result<Builder> {
    read_with(path, scale, Mode::Whole)
}

/// Reads a VEF trace with a builder in `mode` (`Count` or `Whole`).
pub fn read_with(path: &Path, scale: Scale, mode: Mode) -> Result<Builder> {
    scan(path, scale, mode).map(|(b, _)| b)
}

/// What the lines of a VEF trace need besides the builder: the roots of the collectives
/// (from a first look at the file), the communicators and each task's clock.
#[derive(Clone)]
pub struct VefLines {
    roots: FxHashMap<u64, u32>,
    comms: FxHashMap<u32, Vec<u32>>,
    clock: Vec<f64>,
    tasks: usize,
    algorithm: A,
    /// In the checking pass: every message of the file (ID → source, destination) and every
    /// collective ID, so that a dependency on one that does not exist is refused instead of
    /// silently ignored (it would change the replay's times); dropped after the pass.
    known: Option<Known>,
}

/// The messages and collectives of a file (see [`VefLines::known`]), each with the line
/// that first defines it, and the line being read.
#[derive(Clone, Default)]
struct Known {
    messages: FxHashMap<u64, (u32, u32, usize)>,
    collectives: FxHashMap<u64, usize>,
    line: usize,
}

/// [`read_with`], also giving what a streamed replay of the trace needs ([`stream`]).
pub fn scan(path: &Path, scale: Scale, mode: Mode) -> Result<(Builder, VefLines)> {
    let file = path.display().to_string();
    // Pass 1: the root of every rooted collective (the task whose sizes say so).
    let mut roots: FxHashMap<u64, u32> = FxHashMap::default();
    let mut known = Known::default();
    for_each_line(path, |at, w, n| {
        // Every message and collective with its line, for the dependency check of pass 2
        // (which refuses a dependency on a later line, so that one is named as such).
        if w[0].starts_with(|c: char| c.is_ascii_digit()) {
            let ids = (w[0].parse::<u64>(), w.get(1).map(|x| x.parse::<u32>()), w.get(2).map(|x| x.parse::<u32>()));
            if let (Ok(id), Some(Ok(src)), Some(Ok(dst))) = ids {
                known.messages.entry(id).or_insert((src, dst, n));
            }
        }
        if let Some(id) = w[0].strip_prefix('G') {
            if let Ok(id) = id.parse::<u64>() {
                known.collectives.entry(id).or_insert(n);
            }
            let id: u64 = num(at, "collective id", Some(&id))?;
            let (op, task): (u32, u32) = (num(at, "op", w.get(2))?, num(at, "task", w.get(3))?);
            let (send, recv): (u64, u64) = (num(at, "send size", w.get(4))?, num(at, "recv size", w.get(5))?);
            let is_root = match op {
                0 | 4 => send > 0 && (op == 4 || recv == 0),
                1 | 3 => recv > 0,
                _ => false,
            };
            if is_root {
                roots.insert(id, task);
            }
        }
        Ok(())
    })?;
    // Pass 2: the programs.
    let mut b: Option<Builder> = None;
    let mut header: Option<Header> = None;
    let mut messages = 0u64;
    let mut v = VefLines {
        roots,
        comms: Default::default(),
        clock: Vec::new(),
        tasks: 0,
        algorithm: scale.algorithm,
        known: Some(known),
    };
    for_each_line(path, |at, w, n| {
        if let Some(k) = v.known.as_mut() {
            k.line = n;
        }
        if header.is_none() {
            if w[0] != "VEF" || w.len() < 6 {
                return Err(at.error("the first line must be 'VEF tasks messages comms global local flag'"));
            }
            let tasks = w.get(1).ok_or_else(|| at.error("missing tasks (truncated line?)"))?;
            let h = Header {
                tasks: super::limits::ranks(at, "tasks", tasks)?,
                messages: num(at, "messages", w.get(2))?,
                comms: num(at, "comms", w.get(3))?,
            };
            b = Some(Builder::with_mode(h.tasks, scale, mode));
            v.clock = vec![0.0; h.tasks];
            v.tasks = h.tasks;
            header = Some(h);
            return Ok(());
        }
        let (h, b) = (header.as_ref().expect("header"), b.as_mut().expect("builder"));
        if let Some(c) = w[0].strip_prefix('C') {
            let id: u32 = num(at, "communicator id", Some(&c))?;
            let members: Vec<u32> = w[1..].iter().map(|x| num(at, "task", Some(x))).collect::<Result<_>>()?;
            if id == 0 && members.len() != h.tasks {
                return Err(at.error(format!(
                    "rank count mismatch: communicator C0 has {} tasks, the header {}",
                    members.len(),
                    h.tasks
                )));
            }
            if id as usize >= h.comms {
                return Err(at.error(format!("communicator C{id}; the header declares {}", h.comms)));
            }
            if id != 0 {
                b.define_comm(at, id, members.clone())?;
            } else {
                // The world is not a communicator of the builder (its ranks are the tasks in
                // order), but a C0 naming a task twice leaves another out of every collective.
                b.check_members(at, id, &members)?;
            }
            v.comms.insert(id, members);
            return Ok(());
        }
        if v.line(b, at, w, None)? {
            messages += 1;
        }
        Ok(())
    })?;
    let (h, mut b) = match (header, b) {
        (Some(h), Some(b)) => (h, b),
        _ => return Err(Location { file, record: "line 1".into(), rank: None }.error("empty trace: no VEF header")),
    };
    if messages != h.messages {
        return Err(Location { file, record: "end of file".into(), rank: None }.error(format!(
            "the header announces {} point-to-point messages, the file has {messages} (truncated?)",
            h.messages
        )));
    }
    for r in 0..h.tasks {
        v.end(&mut b, r);
    }
    v.clock.iter_mut().for_each(|c| *c = 0.0);
    v.known = None;
    Ok((b, v))
}

impl VefLines {
    /// Applies a point-to-point or collective line to the programs of `only` (every task
    /// when `None`): a message is a send at its source and a receive posted at its
    /// destination. True for a point-to-point line.
    fn line(&mut self, b: &mut Builder, at: &Location, w: &[&str], only: Option<usize>) -> Result<bool> {
        let mut at = at.clone();
        let collective = w[0].starts_with('G');
        let (rank, dep, time, dep_id) = if collective {
            (num::<usize>(&at, "task", w.get(3))?, w.get(6), w.get(7), w.get(8))
        } else {
            (num::<usize>(&at, "source", w.get(1))?, w.get(4), w.get(5), w.get(6))
        };
        if rank >= self.tasks {
            return Err(at.error(format!("task {rank} is not among the {} tasks of the header", self.tasks)));
        }
        at.rank = Some(rank);
        let mine = only.is_none_or(|o| o == rank);
        let dep: u32 = num(&at, "dependency type", dep)?;
        let time: f64 = num(&at, "time", time)?;
        // A negative or non-finite time was taken as 0 without a word.
        if !(time.is_finite() && time >= 0.0) {
            return Err(at.error(format!("time = {time} is invalid: a number of ns >= 0")));
        }
        let dep_id = dep_id.ok_or_else(|| at.error("missing dependency id (truncated line?)"))?;
        let ns = |x: f64| x.max(0.0) * 1e-9;
        if let Some(known) = &self.known {
            check_dependency(known, &at, rank as u32, dep, dep_id)?;
        }
        match dep {
            // Independent: `time` is absolute, counted from the rank's last absolute time.
            0 if mine => {
                b.compute_seconds(&at, rank, ns(time - self.clock[rank]))?;
                self.clock[rank] = self.clock[rank].max(time);
            }
            1 | 3 if mine => b.compute_seconds(&at, rank, ns(time))?,
            2 if mine => {
                let d: u64 = num(&at, "dependency message", Some(dep_id))?;
                b.wait(rank, d);
                b.compute_seconds(&at, rank, ns(time))?;
            }
            0..=3 => {}
            _ => return Err(at.error(format!("dependency type {dep}; allowed 0, 1, 2, 3"))),
        }
        if mine {
            b.count(rank, if collective { "collective" } else { "send" });
        }
        if !collective {
            let id: u64 = num(&at, "message id", w.first())?;
            let dst: usize = num(&at, "destination", w.get(2))?;
            let bytes: u64 = num(&at, "size", w.get(3))?;
            if dst >= self.tasks {
                return Err(at.error(format!("destination {dst} is not among the {} tasks", self.tasks)));
            }
            let tag = i32::try_from(id).map_err(|_| at.error(format!("message id {id} is too large")))?;

            // The receive is posted at the destination now (matched by the message's ID).
            if only.is_none_or(|o| o == dst) {
                b.count(dst, "recv");
                b.recv(&at, dst, Some(rank as u32), bytes, tag, WORLD, Some(id))?;
            }
            if mine {
                b.send(&at, rank, dst as u32, bytes, tag, WORLD, None)?;
            }
            return Ok(true);
        }
        if !mine {
            return Ok(false);
        }
        let id: u64 = num(&at, "collective id", Some(&&w[0][1..]))?;
        let comm: u32 = num(&at, "communicator", w.get(1))?;
        let op: u32 = num(&at, "op", w.get(2))?;
        let (send, recv): (u64, u64) = (num(&at, "send size", w.get(4))?, num(&at, "recv size", w.get(5))?);
        let members = self.comms.get(&comm).ok_or_else(|| at.error(format!("communicator C{comm} is not defined")))?;
        let n = members.len() as u64;
        let root_world = self.roots.get(&id).copied().unwrap_or(members[0]);
        let root = members.iter().position(|&m| m == root_world).unwrap_or(0) as u32;
        let (kernel, bytes, algorithm) = match op {
            0 => (Kernel::Bcast, send.max(recv), None),
            1 => (Kernel::Reduce, send.max(recv), None),
            2 => (Kernel::Allreduce, send, None),
            3 => (Kernel::Gather, send, Some(A::Binomial)),
            4 => (Kernel::Scatter, recv, Some(A::Binomial)),
            5 => (Kernel::Allgather, send, Some(A::Ring)),
            6 => (Kernel::MpiBarrier, 0, None),
            7 if recv == 1 => (Kernel::Alltoall, send / n.max(1), Some(A::Pairwise)),
            7 => (Kernel::Alltoall, send, None),
            _ => return Err(at.error(format!("collective op {op}; allowed 0-7"))),
        };
        let algorithm = match (algorithm, self.algorithm) {
            (Some(a), A::Auto) => a,
            (_, a) => a,
        };
        b.collective_with(&at, rank, kernel, bytes, root, comm, algorithm)?;
        Ok(false)
    }

    /// The end of `rank`'s lines: it waits for the receives it still has posted.
    fn end(&mut self, b: &mut Builder, rank: usize) {
        b.wait_outstanding(rank);
    }
}

/// Refuses a dependency (type `dep` on `dep_id`, at task `rank`) on a message or collective
/// that no earlier line of the file defines: it would be ignored and change the replay's
/// times. VEF lists messages in id order, each after those it depends on (the VEF-TraceLIB
/// tools number them so), and each task runs its lines in file order: a dependency on a
/// later line would wait for a receive not yet posted (or for the task's own later send or
/// collective) and could close a cycle.
fn check_dependency(known: &Known, at: &Location, rank: u32, dep: u32, dep_id: &str) -> Result<()> {
    if !(1..=3).contains(&dep) {
        return Ok(());
    }
    // A collective dependency may name its collective `G3` or `3`.
    let bare = if dep == 3 { dep_id.strip_prefix('G').unwrap_or(dep_id) } else { dep_id };
    let id: u64 = num(at, "dependency id", Some(&bare))?;
    let (line, what) = match dep {
        1 => (known.messages.get(&id).filter(|&&(s, _, _)| s == rank).map(|m| m.2), "a message this task sent"),
        2 => (known.messages.get(&id).filter(|&&(_, d, _)| d == rank).map(|m| m.2), "a message this task received"),
        _ => (known.collectives.get(&id).copied(), "a collective"),
    };
    let name = format!("{}{id}", if dep == 3 { "G" } else { "message " });
    match line {
        Some(line) if line < known.line => Ok(()),
        Some(line) => Err(at.error(format!(
            "dependency {dep} on {name} refers to line {line}, not before this one; a VEF line may \
             depend only on earlier lines (messages in id order)"
        ))),
        None => {
            Err(at.error(format!("dependency {dep} on {name} is invalid: the id of {what} (no such line in the file)")))
        }
    }
}

/// A VEF trace read as the replay needs it: `first` and `lines` from its [`scan`].
pub fn stream(path: &Path, first: &Builder, lines: &VefLines, buffer_ops: usize) -> Result<Box<dyn ProgramSource>> {
    let b = first.fresh(Mode::Stream);
    Ok(Box::new(LineStream::new(lines.clone(), b, vec![path.to_path_buf()], false, buffer_ops)?))
}

impl Lines for VefLines {
    fn ranks(&self, line: &[u8]) -> [Option<usize>; 2] {
        let text = std::str::from_utf8(line).unwrap_or("");
        let w: Vec<&str> = text.split_whitespace().take(4).collect();
        let at = |k: usize| w.get(k).and_then(|x| x.parse().ok());
        match w.first() {
            Some(x) if x.starts_with('G') => [at(3), None],
            Some(x) if x.starts_with(|c: char| c.is_ascii_digit()) => [at(1), at(2)],
            _ => [None, None],
        }
    }

    fn apply(&mut self, b: &mut Builder, at: &Location, rank: usize, line: &str) -> Result<()> {
        let w: Vec<&str> = line.split_whitespace().collect();
        self.line(b, at, &w, Some(rank)).map(|_| ())
    }

    fn end(&mut self, b: &mut Builder, rank: usize) {
        VefLines::end(self, b, rank)
    }
}

/// Calls `f(location, words, line number)` for every non-empty line of `path`.
fn for_each_line(path: &Path, mut f: impl FnMut(&Location, &[&str], usize) -> Result<()>) -> Result<()> {
    let mut at = Location { file: path.display().to_string(), ..Default::default() };
    for (i, line) in super::open(path)?.lines().enumerate() {
        at.record = format!("line {}", i + 1);
        let line = line.map_err(|e| at.error(format!("cannot read: {e}")))?;
        let w: Vec<&str> = line.split_whitespace().collect();
        if !w.is_empty() {
            f(&at, &w, i + 1)?;
        }
    }
    Ok(())
}
