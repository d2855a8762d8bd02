//! SimGrid time-independent traces: `RANK ACTION ARGS` lines, either one file per rank
//! listed in an index file or every rank in one file. Compute is in flops; sizes are
//! taken as bytes (the optional datatype argument is ignored).

use super::builder::{Builder, Mode, Scale, WORLD};
use super::stream::{LineStream, Lines, ProgramSource};
use super::Location;
use crate::config::{CollectiveAlgorithm as A, Kernel};
use crate::error::{Error, Result};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// Whether the first non-empty line of `path` reads like `RANK ACTION` (`0 init`).
pub fn looks_like(path: &Path) -> bool {
    let Ok(f) = super::open(path) else { return false };
    let first = f.lines().map_while(|l| l.ok()).find(|l| !l.trim().is_empty()).unwrap_or_default();
    let w: Vec<&str> = first.split_whitespace().collect();
    w.len() >= 2 && rank_of(w[0]).is_some() && w[1].chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

fn rank_of(w: &str) -> Option<usize> {
    w.strip_prefix('p').unwrap_or(w).parse().ok()
}

/// The files of an index (one path per line, relative to the index), or the file itself.
fn files(path: &Path) -> Result<Vec<PathBuf>> {
    let is_index = path.extension().is_some_and(|e| e == "index") || !looks_like(path);
    if !is_index {
        return Ok(vec![path.to_path_buf()]);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (i, line) in super::open(path)?.lines().enumerate() {
        let line = line.map_err(|e| Error::Unsupported(format!("{}: line {}: {e}", path.display(), i + 1)))?;
        let name = line.trim().trim_start_matches('@');
        if !name.is_empty() {
            // Named with the index's line: a path joined from a line of another file (a DUMPI
            // .meta read as an index) would otherwise appear nowhere the user can find it.
            let file = dir.join(name);
            if !file.is_file() {
                return Err(Error::Unsupported(format!(
                    "{}: line {}: '{name}' is not a readable file (an index lists one trace file per line, relative to it)",
                    path.display(),
                    i + 1
                )));
            }
            out.push(file);
        }
    }
    if out.is_empty() {
        return Err(Error::Unsupported(format!("{}: the index lists no trace file", path.display())));
    }
    Ok(out)
}

/// Reads a SimGrid time-independent trace (index file or single file).
pub fn read(path: &Path, scale: Scale) -> Result<Builder> {
    read_with(path, scale, Mode::Whole).map(|(b, _)| b)
}

/// Reads a SimGrid trace with a builder in `mode`; also says whether its files are one per
/// rank, file i holding only rank i's lines.
pub fn read_with(path: &Path, scale: Scale, mode: Mode) -> Result<(Builder, bool)> {
    let files = files(path)?;
    // Rank count: one file per rank, or the largest rank of the single file.
    let ranks = if files.len() > 1 {
        files.len()
    } else {
        let (mut max, mut max_at) = (0, Location::default());
        for (i, line) in super::open(&files[0])?.lines().enumerate() {
            let line = line.map_err(|e| Error::Unsupported(format!("{}: line {}: {e}", files[0].display(), i + 1)))?;
            if let Some(w) = line.split_whitespace().next() {
                let at =
                    Location { file: files[0].display().to_string(), record: format!("line {}", i + 1), rank: None };
                let r = rank_of(w).ok_or_else(|| at.error(format!("'{w}' is not a rank")))?;
                if r >= max {
                    (max, max_at) = (r, at);
                }
            }
        }
        // The ranks are the largest rank + 1: bounded and estimated before anything is built.
        super::limits::ranks(&max_at, "rank + 1", &(max as u128 + 1).to_string())?
    };
    let mut b = Builder::with_mode(ranks, scale, mode);
    let mut last: Vec<Option<u64>> = vec![None; ranks];
    let mut per_rank = files.len() > 1;
    // The index entry whose file gave each rank's lines: an index lists one file per rank, so
    // a rank found in a second file (a file listed twice) would get its calls twice.
    let mut file_of: Vec<Option<usize>> = vec![None; if files.len() > 1 { ranks } else { 0 }];
    for (k, f) in files.iter().enumerate() {
        let mut at = Location { file: f.display().to_string(), ..Default::default() };
        for (i, line) in super::open(f)?.lines().enumerate() {
            at.record = format!("line {}", i + 1);
            at.rank = None;
            let line = line.map_err(|e| at.error(format!("cannot read: {e}")))?;
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.is_empty() {
                continue;
            }
            let rank = rank_of(w[0]).filter(|&r| r < ranks).ok_or_else(|| {
                at.error(format!("'{}' is not a rank in 0..{ranks} (the index lists {} files)", w[0], files.len()))
            })?;
            at.rank = Some(rank);
            if let Some(first) = file_of.get_mut(rank) {
                match *first {
                    Some(j) if j != k => {
                        return Err(at.error(format!(
                            "rank {rank}'s lines are also in {} (index entry {}): an index lists one file per rank",
                            files[j].display(),
                            j + 1
                        )))
                    }
                    _ => *first = Some(k),
                }
            }
            per_rank &= rank == k;
            action(&mut b, &at, rank, &w[1..], &mut last[rank])?;
        }
    }
    Ok((b, per_rank))
}

/// A SimGrid trace read as the replay needs it (checked beforehand by a `Count` pass).
pub fn stream(
    path: &Path,
    scale: Scale,
    ranks: usize,
    per_rank: bool,
    buffer_ops: usize,
) -> Result<Box<dyn ProgramSource>> {
    let b = Builder::with_mode(ranks, scale, Mode::Stream);
    let lines = SimgridLines { last: vec![None; ranks] };
    Ok(Box::new(LineStream::new(lines, b, files(path)?, per_rank, buffer_ops)?))
}

/// The lines of SimGrid traces, with each rank's last request (for `wait` without
/// arguments).
struct SimgridLines {
    last: Vec<Option<u64>>,
}

impl Lines for SimgridLines {
    fn ranks(&self, line: &[u8]) -> [Option<usize>; 2] {
        let word = line.split(|c| c.is_ascii_whitespace()).find(|w| !w.is_empty());
        [word.and_then(|w| rank_of(std::str::from_utf8(w).ok()?)), None]
    }

    fn apply(&mut self, b: &mut Builder, at: &Location, rank: usize, line: &str) -> Result<()> {
        let w: Vec<&str> = line.split_whitespace().collect();
        action(b, at, rank, &w[1..], &mut self.last[rank])
    }
}

/// Key of a SimGrid request: (source, destination, tag), as its `wait` names it.
fn handle(src: u64, dst: u64, tag: i64) -> u64 {
    (src << 42) | (dst << 20) | (tag as u64 & 0xF_FFFF)
}

fn action(b: &mut Builder, at: &Location, rank: usize, w: &[&str], last: &mut Option<u64>) -> Result<()> {
    let name = w.first().copied().unwrap_or("");
    let f = |k: usize| -> Result<f64> {
        let v = w.get(k).ok_or_else(|| at.error(format!("{name}: missing argument {k}")))?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| at.error(format!("{name}: '{v}' is not a number ≥ 0")))
    };
    let opt = |k: usize, d: f64| if w.len() > k { f(k) } else { Ok(d) };
    b.count(rank, name);
    let n = b.ranks() as f64;
    match name {
        "init" | "finalize" | "comm_size" | "comm_split" | "comm_dup" | "test" | "location" => {}
        "compute" => b.compute_flops(at, rank, f(1)?)?,
        "sleep" => b.compute_seconds(at, rank, f(1)?)?,
        "send" | "isend" | "recv" | "irecv" => {
            // Current SimGrid: partner tag size [datatype]; older traces: partner size.
            let partner = f(1)? as u32;
            let (tag, size) = if w.len() >= 4 { (f(2)? as i64, f(3)?) } else { (0, f(2)?) };
            let bytes = size as u64;
            let tag = tag as i32;
            let me = rank as u64;
            match name {
                "send" => b.send(at, rank, partner, bytes, tag, WORLD, None)?,
                "recv" => b.recv(at, rank, Some(partner), bytes, tag, WORLD, None)?,
                "isend" => {
                    let h = handle(me, partner as u64, tag as i64);
                    b.send(at, rank, partner, bytes, tag, WORLD, Some(h))?;
                    *last = Some(h);
                }
                _ => {
                    let h = handle(partner as u64, me, tag as i64);
                    b.recv(at, rank, Some(partner), bytes, tag, WORLD, Some(h))?;
                    *last = Some(h);
                }
            }
        }
        "wait" => {
            if w.len() >= 4 {
                b.wait(rank, handle(f(1)? as u64, f(2)? as u64, f(3)? as i64));
            } else if let Some(h) = last.take() {
                b.wait(rank, h);
            }
        }
        "waitall" => b.wait_outstanding(rank),
        "barrier" => b.collective(at, rank, Kernel::MpiBarrier, 0, 0, WORLD)?,
        "bcast" => b.collective(at, rank, Kernel::Bcast, f(1)? as u64, opt(2, 0.0)? as u32, WORLD)?,
        "reduce" => {
            b.collective(at, rank, Kernel::Reduce, f(1)? as u64, opt(3, 0.0)? as u32, WORLD)?;
            b.compute_flops(at, rank, f(2)?)?;
        }
        "allreduce" => {
            b.collective(at, rank, Kernel::Allreduce, f(1)? as u64, 0, WORLD)?;
            b.compute_flops(at, rank, f(2)?)?;
        }
        "alltoall" => b.collective(at, rank, Kernel::Alltoall, f(1)? as u64, 0, WORLD)?,
        "allgather" => b.collective(at, rank, Kernel::Allgather, f(1)? as u64, 0, WORLD)?,
        "gather" => b.collective(at, rank, Kernel::Gather, f(1)? as u64, opt(3, 0.0)? as u32, WORLD)?,
        "scatter" => b.collective(at, rank, Kernel::Scatter, f(2)? as u64, opt(3, 0.0)? as u32, WORLD)?,
        // Vector variants: this rank's average block, with a fixed algorithm so that every
        // rank expands the same structure whatever its sizes.
        "allgatherv" => b.collective_with(at, rank, Kernel::Allgather, f(1)? as u64, 0, WORLD, A::Ring)?,
        "gatherv" => b.collective(at, rank, Kernel::Gather, f(1)? as u64, opt(2 + n as usize, 0.0)? as u32, WORLD)?,
        "scatterv" => {
            let total: f64 = (1..=n as usize).map(f).sum::<Result<f64>>()?;
            b.collective(at, rank, Kernel::Scatter, (total / n) as u64, opt(2 + n as usize, 0.0)? as u32, WORLD)?
        }
        "alltoallv" => {
            let total: f64 = (2..2 + n as usize).map(f).sum::<Result<f64>>()?;
            b.collective_with(at, rank, Kernel::Alltoall, (total / n) as u64, 0, WORLD, A::Pairwise)?
        }
        "reducescatter" => {
            let total: f64 = (1..=n as usize).map(f).sum::<Result<f64>>()?;
            b.collective(at, rank, Kernel::Allreduce, total as u64, 0, WORLD)?;
            b.compute_flops(at, rank, f(1 + n as usize)?)?;
        }
        _ => {
            return Err(at.error(format!(
                "unknown action '{name}'; supported: init, finalize, compute, sleep, send, isend, recv, irecv, wait, waitall, test, barrier, bcast, reduce, allreduce, alltoall, allgather, gather, scatter, allgatherv, gatherv, scatterv, alltoallv, reducescatter, comm_size, comm_split, comm_dup"
            )))
        }
    }
    Ok(())
}
