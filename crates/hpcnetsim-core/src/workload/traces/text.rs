//! The hpcnetsim text format: one MPI call per line, `RANK CALL ARGS [key=value …]`,
//! after a `ranks N` header (docs/traces.md has the grammar). Lines of different ranks
//! may interleave; each rank's lines run in file order. Compute intervals are in cycles.

use super::builder::{Builder, Mode, Scale, WORLD};
use super::stream::{LineStream, Lines, ProgramSource};
use super::Location;
use crate::config::Kernel;
use crate::error::{Error, Result};
use crate::workload::program::{Op, Programs, ANY_SOURCE, ANY_TAG};
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

/// Reads a text-format trace file.
pub fn read(path: &Path, scale: Scale) -> Result<Builder> {
    read_with(path, scale, Mode::Whole)
}

/// Reads a text-format trace file with a builder in `mode`.
pub fn read_with(path: &Path, scale: Scale, mode: Mode) -> Result<Builder> {
    let mut input = super::open(path)?;
    // A binary file (a DUMPI rank file, a packed archive) is not a text trace that fails on its
    // first line: say which file of such a trace to give instead.
    if input.fill_buf().is_ok_and(looks_binary) {
        return Err(Error::Unsupported(format!(
            "{}: not a text trace (binary data): give a DUMPI trace's .meta file (beside its rank .bin files), \
             an OTF2 archive's .otf2 file or the trace of an unpacked archive, or set workload.format",
            path.display()
        )));
    }
    parse_with(&path.display().to_string(), input, scale, mode)
}

/// Whether the start of a file is binary data: a NUL byte, or bytes that are not UTF-8 (a
/// character cut by the end of the buffer is not counted).
fn looks_binary(head: &[u8]) -> bool {
    head.contains(&0) || std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some())
}

/// The collective calls of the format and the operation each expands to.
pub fn collective(name: &str) -> Option<Kernel> {
    Some(match name {
        "barrier" => Kernel::MpiBarrier,
        "bcast" => Kernel::Bcast,
        "reduce" => Kernel::Reduce,
        "allreduce" => Kernel::Allreduce,
        "allgather" => Kernel::Allgather,
        "alltoall" => Kernel::Alltoall,
        "gather" => Kernel::Gather,
        "scatter" => Kernel::Scatter,
        _ => return None,
    })
}

/// Parses text-format lines from `input` (`name` in messages).
pub fn parse(name: &str, input: impl BufRead, scale: Scale) -> Result<Builder> {
    parse_with(name, input, scale, Mode::Whole)
}

/// [`parse`] with a builder in `mode`.
pub fn parse_with(name: &str, input: impl BufRead, scale: Scale, mode: Mode) -> Result<Builder> {
    let builder_algorithm = scale.algorithm;
    let mut b: Option<Builder> = None;
    let mut at = Location { file: name.to_string(), ..Default::default() };
    let (mut input, mut buf) = (input, String::new());
    for i in 0.. {
        // One location and one line buffer for the whole file (traces have millions of lines).
        at.record.clear();
        let _ = write!(at.record, "line {}", i + 1);
        at.rank = None;
        buf.clear();
        if input.read_line(&mut buf).map_err(|e| at.error(format!("cannot read: {e}")))? == 0 {
            break;
        }
        let line = buf.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(builder) = b.as_mut() else {
            match words.as_slice() {
                ["ranks", n] => {
                    let mut builder = Builder::with_mode(super::limits::ranks(&at, "ranks", n)?, scale, mode);
                    // The writer chooses request ids: one still pending cannot start another request.
                    builder.track_requests();
                    b = Some(builder)
                }
                _ => return Err(at.error("the first line must be 'ranks N'")),
            }
            continue;
        };
        if words[0] == "comm" {
            let id = words.get(1).and_then(|w| w.parse::<u32>().ok()).filter(|&c| c != WORLD);
            let members: std::result::Result<Vec<u32>, _> = words[2..].iter().map(|w| w.parse::<u32>()).collect();
            match (id, members) {
                (Some(id), Ok(m)) if !m.is_empty() => {
                    // A communicator keeps its members: a streamed replay knows them all from the start.
                    if builder.members(id).is_some_and(|old| old != m.as_slice()) {
                        return Err(at.error(format!("communicator {id} is defined again with other members")));
                    }
                    builder.define_comm(&at, id, m)?
                }
                _ => return Err(at.error("expected 'comm ID RANK…' with ID ≥ 1 and world ranks")),
            }
            continue;
        }
        let rank = match words[0].parse::<usize>() {
            Ok(r) if r < builder.ranks() => r,
            _ => return Err(at.error(format!("rank '{}' is not a rank in 0..{}", words[0], builder.ranks()))),
        };
        at.rank = Some(rank);
        call(builder, &at, rank, &words, builder_algorithm)?;
    }
    b.ok_or_else(|| {
        Location { file: name.to_string(), record: "line 1".into(), rank: None }
            .error("empty trace: expected 'ranks N'")
    })
}

/// A text trace read as the replay needs it: `first` is the builder of its `Count` pass
/// (which checked it and knows its communicators).
pub fn stream(path: &Path, first: &Builder, buffer_ops: usize) -> Result<Box<dyn ProgramSource>> {
    let b = first.fresh(Mode::Stream);
    let lines = TextLines { algorithm: b.algorithm() };
    Ok(Box::new(LineStream::new(lines, b, vec![path.to_path_buf()], false, buffer_ops)?))
}

/// The lines of text traces.
struct TextLines {
    algorithm: crate::config::CollectiveAlgorithm,
}

impl Lines for TextLines {
    fn ranks(&self, line: &[u8]) -> [Option<usize>; 2] {
        [line_rank(line), None]
    }

    fn apply(&mut self, b: &mut Builder, at: &Location, rank: usize, line: &str) -> Result<()> {
        let line = line.split('#').next().unwrap_or("").trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        call(b, at, rank, &words, self.algorithm)
    }
}

/// Applies the call of one rank's line (`words[0]` is the rank) to the builder.
pub(crate) fn call(
    builder: &mut Builder,
    at: &Location,
    rank: usize,
    words: &[&str],
    builder_algorithm: crate::config::CollectiveAlgorithm,
) -> Result<()> {
    let call = words.get(1).copied().unwrap_or("");
    // The name first: the arguments of an unknown call mean nothing (`foo 1 10` is not an
    // extra argument of anything).
    const CALLS: [&str; 8] = ["compute", "send", "isend", "recv", "irecv", "wait", "waitall", "waitany"];
    if !CALLS.contains(&call) && collective(call).is_none() {
        return Err(unknown_call(at, call));
    }
    let mut positional = Vec::new();
    let (mut tag, mut comm, mut req, mut root) = (None, WORLD, None, 0u32);
    let mut algorithm = builder_algorithm;
    // The options each call reads: another one (`root=` on a send, `tag=` on a bcast) or the
    // same one twice would be left unread.
    let allowed: &[&str] = match call {
        "compute" | "wait" | "waitall" | "waitany" => &[],
        "send" | "recv" => &["tag", "comm"],
        "isend" | "irecv" => &["tag", "comm", "req"],
        "barrier" | "allreduce" | "allgather" | "alltoall" => &["comm", "algorithm"],
        _ => &["root", "comm", "algorithm"],
    };
    let mut given: Vec<(&str, &str)> = Vec::new();
    for w in words.iter().skip(2) {
        if let Some((k, v)) = w.split_once('=') {
            if ["tag", "comm", "req", "root", "algorithm"].contains(&k) {
                if let Some((_, first)) = given.iter().find(|(g, _)| *g == k) {
                    return Err(at.error(format!(
                        "{call}: option {k}={v} is invalid: each option once ({k}={first} is given before it)"
                    )));
                }
                if !allowed.contains(&k) {
                    let takes = if allowed.is_empty() {
                        "no options".to_string()
                    } else {
                        format!("only {}", allowed.join(", "))
                    };
                    return Err(at.error(format!("{call}: option {k}={v} is invalid: {call} takes {takes}")));
                }
                given.push((k, v));
            }
        }
        match w.split_once('=') {
            Some(("tag", v)) => tag = Some(if v == "any" { ANY_TAG } else { num(at, "tag", v)? }),
            Some(("comm", v)) => comm = num(at, "comm", v)?,
            Some(("req", v)) => req = Some(num::<u64>(at, "req", v)?),
            Some(("root", v)) => root = num(at, "root", v)?,
            Some(("algorithm", v)) => {
                algorithm = serde_json::from_value(serde_json::Value::String(v.to_string()))
                    .map_err(|e: serde_json::Error| at.error(format!("algorithm = '{v}' is invalid: {e}")))?
            }
            Some((k, _)) => {
                return Err(at.error(format!("unknown option '{k}'; allowed: tag, comm, req, root, algorithm")))
            }
            None => positional.push(*w),
        }
    }
    if !builder.has_comm(comm) {
        return Err(at.error(format!("communicator {comm} is not defined (add a 'comm {comm} …' line first)")));
    }
    let arg = |k: usize, what: &str| -> Result<&str> {
        positional.get(k).copied().ok_or_else(|| at.error(format!("{call}: missing {what}")))
    };
    let need_req = |builder: &Builder| {
        let h = req.ok_or_else(|| at.error(format!("{call}: missing req=ID")))?;
        match builder.started_at(rank, h) {
            Some(first) => Err(at.error(format!(
                "{call}: request {h} is still pending (started at {first}, not yet waited for); allowed: an id that no pending request of rank {rank} uses"
            ))),
            None => Ok(h),
        }
    };
    // A word past the call's arguments is a mistyped option (`tag3`): refused, not dropped.
    let arguments = match call {
        "compute" => Some(1),
        "send" | "isend" | "recv" | "irecv" => Some(2),
        "barrier" => Some(0),
        "wait" | "waitall" | "waitany" => None,
        _ => Some(1),
    };
    if let Some(extra) = arguments.and_then(|n| positional.get(n)) {
        return Err(at.error(format!(
            "{call}: unexpected argument '{extra}'; options are key=value (tag, comm, req, root, algorithm)"
        )));
    }
    builder.count(rank, call);
    match call {
        "compute" => {
            let c: f64 = num(at, "cycles", arg(0, "cycles")?)?;
            if !(c.is_finite() && c >= 0.0) {
                return Err(at.error(format!("compute {c}: cycles are ≥ 0")));
            }
            builder.compute_cycles(at, rank, c)?;
        }
        "send" | "isend" => {
            let dst = num(at, "destination", arg(0, "destination")?)?;
            let bytes = num(at, "bytes", arg(1, "bytes")?)?;
            let h = if call == "isend" { Some(need_req(builder)?) } else { None };
            builder.send(at, rank, dst, bytes, tag.unwrap_or(0), comm, h)?;
        }
        "recv" | "irecv" => {
            let s = arg(0, "source")?;
            let src = if s == "any" { None } else { Some(num(at, "source", s)?) };
            let bytes = num(at, "bytes", arg(1, "bytes")?)?;
            let h = if call == "irecv" { Some(need_req(builder)?) } else { None };
            builder.recv(at, rank, src, bytes, tag.unwrap_or(0), comm, h)?;
        }
        "wait" | "waitall" | "waitany" => {
            let hs: Vec<u64> = positional.iter().map(|w| num(at, "request", w)).collect::<Result<_>>()?;
            if hs.is_empty() {
                return Err(at.error(format!("{call}: missing request ids")));
            }
            // The writer chose the ids: one that names no posted request is a mistake in the
            // trace, not MPI's null request (which the binary formats record as such).
            if let Some(h) = hs.iter().find(|&&h| !builder.has_request(rank, h)) {
                return Err(at.error(format!(
                    "{call}: request {h} is not pending; a wait names requests that an isend or irecv of rank {rank} started with req=ID and no earlier wait completed"
                )));
            }
            match call {
                "waitany" => builder.wait_any(rank, &hs, None),
                _ => builder.wait_all(rank, &hs),
            }
        }
        _ => match collective(call) {
            Some(kernel) => {
                let bytes = if kernel == Kernel::MpiBarrier { 0 } else { num(at, "bytes", arg(0, "bytes")?)? };
                builder.collective_with(at, rank, kernel, bytes, root, comm, algorithm)?;
            }
            None => return Err(unknown_call(at, call)),
        },
    }
    Ok(())
}

fn unknown_call(at: &Location, call: &str) -> crate::error::Error {
    at.error(format!(
        "unknown call '{call}'; allowed: compute, send, isend, recv, irecv, wait, waitall, waitany, barrier, bcast, reduce, allreduce, allgather, alltoall, gather, scatter"
    ))
}

/// The rank of a line, without parsing the rest (`None` for the header, communicator
/// definitions, comments and blank lines).
pub(crate) fn line_rank(line: &[u8]) -> Option<usize> {
    let start = line.iter().position(|c| !c.is_ascii_whitespace())?;
    let digits = line[start..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    std::str::from_utf8(&line[start..start + digits]).ok()?.parse().ok()
}

fn num<T: std::str::FromStr>(at: &Location, what: &str, v: &str) -> Result<T> {
    v.parse().map_err(|_| at.error(format!("{what} = '{v}' is not a valid number")))
}

/// Writes programs in the text format (untagged kernel messages become tag-0 messages
/// of the world communicator, which match in the same order).
pub fn write(p: &Programs) -> String {
    let mut out = format!("# hpcnetsim text trace\nranks {}\n", p.len());
    let mut comms: Vec<u32> = p
        .tasks
        .iter()
        .flatten()
        .filter_map(|op| match *op {
            Op::Isend { comm, .. } | Op::Irecv { comm, .. } if comm != WORLD => Some(comm),
            _ => None,
        })
        .collect();
    comms.sort_unstable();
    comms.dedup();
    let all: Vec<String> = (0..p.len()).map(|r| r.to_string()).collect();
    for c in comms {
        let _ = writeln!(out, "comm {c} {}", all.join(" "));
    }
    let tag = |t: i32| if t == ANY_TAG { "any".to_string() } else { t.to_string() };
    for (r, ops) in p.tasks.iter().enumerate() {
        for op in ops {
            let _ = match *op {
                Op::Send { to, bytes } => writeln!(out, "{r} send {to} {bytes}"),
                Op::Recv { from, bytes } => writeln!(out, "{r} recv {from} {bytes}"),
                Op::Compute { cycles } => writeln!(out, "{r} compute {cycles}"),
                Op::Isend { to, bytes, tag: t, comm, req } => {
                    if req == crate::workload::program::NO_REQUEST {
                        writeln!(out, "{r} send {to} {bytes} tag={t} comm={comm}")
                    } else {
                        writeln!(out, "{r} isend {to} {bytes} tag={t} comm={comm} req={req}")
                    }
                }
                Op::Irecv { from, bytes, tag: t, comm, req } => {
                    let from = if from == ANY_SOURCE { "any".to_string() } else { from.to_string() };
                    writeln!(out, "{r} irecv {from} {bytes} tag={} comm={comm} req={req}", tag(t))
                }
                Op::Wait { req } => writeln!(out, "{r} wait {req}"),
                Op::WaitAny { set } => {
                    let ids: Vec<String> = p.sets[set as usize].iter().map(|x| x.to_string()).collect();
                    writeln!(out, "{r} waitany {}", ids.join(" "))
                }
            };
        }
    }
    out
}
