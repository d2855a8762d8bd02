//! SST DUMPI binary traces: a `.meta` file (`numprocs`, `fileprefix`) and one binary file
//! per rank, `PREFIX-NNNN.bin`. A first pass over the files finds the communicators
//! (splits, duplicates, creations from groups of the world); the second turns each rank's
//! records into its program: point-to-point calls with their requests and waits (test
//! loops count when their flag says the request completed), collectives, datatype sizes,
//! and the wall-clock gaps between calls as compute intervals.

pub mod records;

use super::builder::{Builder, Mode, Scale, WORLD};
use super::Location;
use crate::config::{CollectiveAlgorithm as A, Kernel};
use crate::error::{Error, Result};
use records::{name, Reader, Record};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// Handles DUMPI gives the predefined communicators.
const COMM_NULL: i64 = 1;
const COMM_WORLD: i64 = 2;
const COMM_SELF: i64 = 3;
/// Wildcards as DUMPI records them.
const ANY: i64 = -1;

/// Largest meta file read: a few `key=value` lines.
const MAX_META_BYTES: u64 = 1 << 20;

/// The text of a meta file, refused in one line when it is binary or larger than
/// [`MAX_META_BYTES`] (a device such as `/dev/urandom` is never read whole).
fn read_meta(meta: &Path) -> Result<String> {
    use std::io::Read;
    let m = meta.display();
    let file = std::fs::File::open(meta).map_err(|e| Error::Unsupported(format!("{m}: cannot read: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_META_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Unsupported(format!("{m}: cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_META_BYTES {
        return Err(Error::Unsupported(format!("{m}: larger than {MAX_META_BYTES} bytes: not a DUMPI meta file")));
    }
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => Ok(text),
        _ => Err(Error::Unsupported(format!("{m}: binary data: not a DUMPI meta file (numprocs=N, fileprefix=NAME)"))),
    }
}

/// The rank files of a trace from its meta file, checked against `numprocs`.
pub fn files(meta: &Path) -> Result<Vec<PathBuf>> {
    let m = meta.display();
    let text = read_meta(meta)?;
    let get = |key: &str| text.lines().find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix('=')));
    let line = |key: &str| text.lines().position(|l| l.starts_with(key)).map_or(1, |i| i + 1);
    // A key given twice (two meta files pasted together) left the second line unread.
    for key in ["numprocs", "fileprefix"] {
        let given: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| l.strip_prefix(key).and_then(|v| v.strip_prefix('=')).map(|v| (i + 1, v)))
            .collect();
        if let [(first, v1), (second, v2), ..] = given[..] {
            return Err(Error::Unsupported(format!(
                "{m}: line {second}: {key} = '{}' is invalid: one '{key}=' line (line {first} gives '{}')",
                v2.trim(),
                v1.trim()
            )));
        }
    }
    let procs = get("numprocs").ok_or_else(|| Error::Unsupported(format!("{m}: no 'numprocs=N' line")))?;
    // Bounded and estimated before the rank files are listed (one path per rank).
    let at = Location { file: m.to_string(), record: format!("line {}", line("numprocs")), rank: None };
    let n = super::limits::ranks(&at, "numprocs", procs)?;
    let prefix = get("fileprefix").ok_or_else(|| Error::Unsupported(format!("{m}: no 'fileprefix=' line")))?;
    let dir = meta.parent().unwrap_or(Path::new("."));
    let file = |r: usize| dir.join(format!("{}-{r:04}.bin", prefix.trim()));
    let out: Vec<PathBuf> = (0..n).map(file).collect();
    if let Some(missing) = out.iter().position(|f| !f.exists()) {
        return Err(Error::Unsupported(format!(
            "{m}: rank count mismatch: numprocs={n} but the file of rank {missing} ({}) is missing",
            out[missing].display()
        )));
    }
    if file(n).exists() {
        return Err(Error::Unsupported(format!(
            "{m}: rank count mismatch: numprocs={n} but there is a file for rank {n} ({})",
            file(n).display()
        )));
    }
    Ok(out)
}

/// Communicators of every rank: handle → logical id, and the members of each logical id.
#[derive(Clone, Default)]
pub struct Comms {
    /// Members (world ranks) of every logical communicator created by the program, in rank
    /// order within the communicator.
    members: FxHashMap<u32, Vec<(i64, u32)>>,
    /// Logical id of each creation: (parent, ordinal on the parent, color).
    ids: FxHashMap<(u32, u32, i64), u32>,
    next: u32,
    ranks: usize,
}

/// Per-rank communicator state while reading a file.
#[derive(Default)]
struct Local {
    handles: FxHashMap<i64, u32>,
    groups: FxHashMap<i64, Vec<u32>>,
    created: FxHashMap<u32, u32>,
}

impl Comms {
    fn new(ranks: usize) -> Self {
        // Ids 1..=ranks are each rank's MPI_COMM_SELF.
        Comms { next: ranks as u32 + 1, ranks, ..Default::default() }
    }

    /// Logical id of communicator handle `h` at `rank`.
    fn id(&self, local: &Local, at: &Location, rank: usize, h: i64) -> Result<u32> {
        match h {
            COMM_WORLD => Ok(WORLD),
            COMM_SELF => Ok(1 + rank as u32),
            _ => local
                .handles
                .get(&h)
                .copied()
                .ok_or_else(|| at.error(format!("communicator handle {h} was never created"))),
        }
    }

    /// Members of logical communicator `id` (world ranks, communicator order).
    fn list(&self, id: u32, rank: usize) -> Option<Vec<u32>> {
        match id {
            WORLD => Some((0..self.ranks as u32).collect()),
            s if s as usize <= self.ranks => Some(vec![s - 1]),
            _ => self.members.get(&id).map(|m| m.iter().map(|x| x.1).collect()),
        }
        .filter(|m| m.contains(&(rank as u32)) || id == WORLD)
    }

    /// A communicator-creating call at `rank`: the new handle `new` gets the logical id of
    /// (parent, ordinal, color); with `key`, this rank joins it.
    fn create(&mut self, local: &mut Local, parent: u32, color: i64, key: Option<i64>, new: i64, rank: usize) -> u32 {
        let ord = local.created.entry(parent).or_insert(0);
        let k = (parent, *ord, color);
        *ord += 1;
        let next = &mut self.next;
        let id = *self.ids.entry(k).or_insert_with(|| {
            *next += 1;
            *next - 1
        });
        if let Some(key) = key {
            let m = self.members.entry(id).or_default();
            if !m.iter().any(|&(_, r)| r == rank as u32) {
                m.push((key, rank as u32));
                m.sort_unstable();
            }
        }
        if new != COMM_NULL {
            local.handles.insert(new, id);
        }
        id
    }

    /// Follows the communicator calls of one record (both passes).
    fn follow(&mut self, local: &mut Local, r: &Record, at: &Location, rank: usize) -> Result<()> {
        let v = &r.v;
        match r.id {
            // Comm_dup, Cart_create: same members as the parent, in the same order.
            84 | 99 => {
                let (old, new) = if r.id == 84 { (v[0], v[1]) } else { (v[0], v[3]) };
                let parent = self.id(local, at, rank, old)?;
                let members = self.list(parent, rank).unwrap_or_default();
                let key = members.iter().position(|&m| m == rank as u32).unwrap_or(rank) as i64;
                self.create(local, parent, i64::MIN, Some(key), new, rank);
            }
            // Comm_split: ranks of equal color, ordered by key then parent rank.
            86 => {
                let parent = self.id(local, at, rank, v[0])?;
                let (color, key, new) = (v[1], v[2], v[3]);
                let pos = self.list(parent, rank).and_then(|m| m.iter().position(|&x| x == rank as u32)).unwrap_or(0);
                let joined = (new != COMM_NULL && color >= 0).then_some(key * (1 << 32) + pos as i64);
                self.create(local, parent, color, joined, new, rank);
            }
            // Comm_group, Group_incl, Group_excl: groups as world ranks.
            72 => {
                let id = self.id(local, at, rank, v[0])?;
                if let Some(m) = self.list(id, rank) {
                    local.groups.insert(v[1], m);
                }
            }
            76 | 77 => {
                let Some(g) = local.groups.get(&v[0]).cloned() else { return Ok(()) };
                let picked = &r.arrays[0];
                let out: Vec<u32> = if r.id == 76 {
                    picked.iter().filter_map(|&i| g.get(i as usize).copied()).collect()
                } else {
                    (0..g.len()).filter(|i| !picked.contains(&(*i as i64))).map(|i| g[i]).collect()
                };
                local.groups.insert(v[2], out);
            }
            // Comm_create: the members of the group; ranks outside get MPI_COMM_NULL.
            85 => {
                let parent = self.id(local, at, rank, v[0])?;
                let g = local.groups.get(&v[1]).cloned().ok_or_else(|| {
                    at.error("MPI_Comm_create from a group not derived from a known communicator is not supported")
                })?;
                let color = g.iter().fold(0i64, |h, &x| h.wrapping_mul(1_000_003).wrapping_add(x as i64 + 1));
                let key = g.iter().position(|&x| x == rank as u32).map(|p| p as i64);
                self.create(local, parent, color, key, if key.is_some() { v[2] } else { COMM_NULL }, rank);
            }
            _ => {}
        }
        Ok(())
    }
}

/// Reads a DUMPI trace from its `.meta` file.
pub fn read(meta: &Path, scale: Scale) -> Result<Builder> {
    read_with(meta, scale, Mode::Whole)
}

/// Reads a DUMPI trace with a builder in `mode`.
pub fn read_with(meta: &Path, scale: Scale, mode: Mode) -> Result<Builder> {
    scan(meta, scale, mode).map(|(b, _)| b)
}

/// [`read_with`], also giving the communicators found (for [`Stream::open`]).
pub fn scan(meta: &Path, scale: Scale, mode: Mode) -> Result<(Builder, Comms)> {
    let (files, mut comms, mut b) = prepare(meta, scale, mode)?;
    // Pass 2: the programs, rank by rank.
    let n = files.len();
    for (rank, f) in files.iter().enumerate() {
        let mut state = RankState::open(rank, f)?;
        while state.step(&mut b, &mut comms, n)? {}
    }
    Ok((b, comms))
}

/// Pass 1 (who belongs to which communicator) and a builder in `mode` that knows them.
fn prepare(meta: &Path, scale: Scale, mode: Mode) -> Result<(Vec<PathBuf>, Comms, Builder)> {
    let files = files(meta)?;
    let n = files.len();
    let mut comms = Comms::new(n);
    for (rank, f) in files.iter().enumerate() {
        let mut reader = Reader::open(f)?;
        let mut local = Local::default();
        let mut at = Location { file: f.display().to_string(), record: String::new(), rank: Some(rank) };
        while let Some(r) = reader.record()? {
            at.record = format!("record {}", r.index);
            comms.follow(&mut local, &r, &at, rank)?;
        }
    }
    let mut b = Builder::with_mode(n, scale, mode);
    let at = Location { file: meta.display().to_string(), record: "communicators".into(), rank: None };
    for r in 0..n {
        b.define_comm(&at, 1 + r as u32, vec![r as u32])?;
    }
    let mut ids: Vec<(u32, Vec<u32>)> =
        comms.members.iter().map(|(&id, m)| (id, m.iter().map(|x| x.1).collect())).collect();
    ids.sort_unstable();
    for (id, m) in ids {
        b.define_comm(&at, id, m)?;
    }
    Ok((files, comms, b))
}

/// A DUMPI trace replayed as the engine needs its operations: one reader per rank file.
pub struct Stream {
    builder: Builder,
    comms: Comms,
    ranks: Vec<Option<RankState>>,
    peak: usize,
}

impl Stream {
    /// The stream of the trace of `meta`, checked beforehand by the `Count` pass of [`scan`]
    /// that made `first` and found `comms`.
    pub fn open(meta: &Path, first: &Builder, comms: Comms) -> Result<Stream> {
        let (files, builder) = (files(meta)?, first.fresh(Mode::Stream));
        let ranks = files.iter().enumerate().map(|(r, f)| RankState::open(r, f).map(Some)).collect::<Result<_>>()?;
        Ok(Stream { builder, comms, ranks, peak: 0 })
    }
}

impl super::stream::ProgramSource for Stream {
    fn ranks(&self) -> usize {
        self.ranks.len()
    }

    fn next(&mut self, rank: usize, ops: &mut Vec<crate::workload::Op>, sets: &mut Vec<Vec<u32>>) -> Result<()> {
        let n = self.ranks.len();
        while self.builder.pending(rank) < super::stream::BATCH_OPS {
            let Some(state) = self.ranks[rank].as_mut() else { break };
            if !state.step(&mut self.builder, &mut self.comms, n)? {
                self.ranks[rank] = None;
            }
        }
        self.peak = self.peak.max(self.builder.pending(rank));
        self.builder.take(rank, ops, sets);
        Ok(())
    }

    fn peak_buffered(&self) -> usize {
        self.peak
    }
}

/// A persistent request (`MPI_Send_init`, `MPI_Recv_init`): send?, count, type, peer, tag, comm.
type Persistent = (bool, i64, i64, i64, i64, i64);

/// What a rank's file reader remembers between records.
struct RankState {
    rank: usize,
    reader: Reader,
    local: Local,
    at: Location,
    derived: FxHashMap<i64, u64>,
    persistent: FxHashMap<i64, Persistent>,
    last_stop: Option<u64>,
    temp: u64,
}

impl RankState {
    /// The reader of `rank`'s file `f`, at its first record.
    fn open(rank: usize, f: &Path) -> Result<Self> {
        Ok(RankState {
            rank,
            reader: Reader::open(f)?,
            local: Local::default(),
            at: Location { file: f.display().to_string(), record: String::new(), rank: Some(rank) },
            derived: FxHashMap::default(),
            persistent: FxHashMap::default(),
            last_stop: None,
            temp: 1 << 40,
        })
    }

    /// Applies the next record to the builder; false at the end of the file.
    fn step(&mut self, b: &mut Builder, comms: &mut Comms, n: usize) -> Result<bool> {
        let RankState { rank, reader, local, at, derived, persistent, last_stop, temp } = self;
        let rank = *rank;
        let Some(r) = reader.record()? else { return Ok(false) };
        at.record = format!("record {}", r.index);
        if let Some((start, stop)) = r.wall {
            if let Some(prev) = *last_stop {
                // Whole nanoseconds, so the gap is exact (a clock that went back is no gap).
                b.compute_seconds(at, rank, start.saturating_sub(prev) as f64 * 1e-9)?;
            }
            *last_stop = Some(stop);
        }
        b.count(rank, name(r.id));
        comms.follow(local, &r, at, rank)?;
        let size = |dt: i64, derived: &FxHashMap<i64, u64>| -> u64 {
            derived.get(&dt).copied().or_else(|| reader.sizes.get(dt as usize).map(|&s| s as u64)).unwrap_or(1)
        };
        let bytes = |count: i64, dt: i64| count.max(0) as u64 * size(dt, derived);
        let comm = |h: i64| comms.id(local, at, rank, h);
        let (v, arr) = (&r.v, &r.arrays);
        let peer = |p: i64| (p >= 0).then_some(p as u32);
        let tag = |t: i64| if t == ANY { crate::workload::program::ANY_TAG } else { t as i32 };
        let h = |x: i64| x as u64;
        match r.id {
            0 | 3 | 4 | 5 if v[2] >= 0 => {
                b.send(at, rank, v[2] as u32, bytes(v[0], v[1]), tag(v[3]), comm(v[4])?, None)?
            }
            1 if v[2] >= 0 || v[2] == ANY => {
                b.recv(at, rank, peer(v[2]), bytes(v[0], v[1]), tag(v[3]), comm(v[4])?, None)?
            }
            8..=11 if v[2] >= 0 => {
                b.send(at, rank, v[2] as u32, bytes(v[0], v[1]), tag(v[3]), comm(v[4])?, Some(h(v[5])))?
            }
            12 if v[2] >= 0 || v[2] == ANY => {
                b.recv(at, rank, peer(v[2]), bytes(v[0], v[1]), tag(v[3]), comm(v[4])?, Some(h(v[5])))?
            }
            13 => b.wait(rank, h(v[0])),
            14 if v[1] != 0 => b.wait(rank, h(v[0])),
            16 => {
                let reqs: Vec<u64> = arr[0].iter().map(|&x| h(x)).collect();
                let done = usize::try_from(v[1]).ok().and_then(|i| reqs.get(i).copied());
                b.wait_any(rank, &reqs, done);
            }
            17 if v[2] != 0 => {
                if let Some(&x) = usize::try_from(v[1]).ok().and_then(|i| arr[0].get(i)) {
                    b.wait(rank, h(x));
                }
            }
            18 => b.wait_all(rank, &arr[0].iter().map(|&x| h(x)).collect::<Vec<_>>()),
            19 if v[1] != 0 => b.wait_all(rank, &arr[0].iter().map(|&x| h(x)).collect::<Vec<_>>()),
            20 | 21 => {
                let done: Vec<u64> = arr[1].iter().filter_map(|&i| arr[0].get(i as usize)).map(|&x| h(x)).collect();
                b.wait_all(rank, &done);
            }
            26..=30 => {
                persistent.insert(v[5], (r.id != 30, v[0], v[1], v[2], v[3], v[4]));
            }
            31 | 32 => {
                let handles: Vec<i64> = if r.id == 31 { vec![v[0]] } else { arr[0].clone() };
                for x in handles {
                    let Some(&(send, count, dt, p, t, c)) = persistent.get(&x) else { continue };
                    if send && p >= 0 {
                        b.send(at, rank, p as u32, bytes(count, dt), tag(t), comm(c)?, Some(h(x)))?;
                    } else if !send && (p >= 0 || p == ANY) {
                        b.recv(at, rank, peer(p), bytes(count, dt), tag(t), comm(c)?, Some(h(x)))?;
                    }
                }
            }
            33 | 34 => {
                // Sendrecv: the send goes out, the receive blocks, then the send completes.
                let (sbytes, dest, stag, rbytes, src, rtag, c) = if r.id == 33 {
                    (bytes(v[0], v[1]), v[2], v[3], bytes(v[4], v[5]), v[6], v[7], v[8])
                } else {
                    (bytes(v[0], v[1]), v[2], v[3], bytes(v[0], v[1]), v[4], v[5], v[6])
                };
                let c = comm(c)?;
                *temp += 1;
                if dest >= 0 {
                    b.send(at, rank, dest as u32, sbytes, tag(stag), c, Some(*temp))?;
                }
                if src >= 0 || src == ANY {
                    b.recv(at, rank, peer(src), rbytes, tag(rtag), c, None)?;
                }
                b.wait(rank, *temp);
            }
            35 => {
                derived.insert(v[2], v[0].max(0) as u64 * size(v[1], derived));
            }
            36 | 37 | 219 => {
                derived.insert(v[4], (v[0] * v[1]).max(0) as u64 * size(v[3], derived));
            }
            38 => {
                derived.insert(v[2], arr[0].iter().sum::<i64>().max(0) as u64 * size(v[1], derived));
            }
            220 => {
                derived.insert(v[3], (v[0] * v[1]).max(0) as u64 * size(v[2], derived));
            }
            222 => {
                let s = arr[0].iter().zip(&arr[2]).map(|(&l, &t)| l.max(0) as u64 * size(t, derived)).sum();
                derived.insert(v[1], s);
            }
            52 => b.collective(at, rank, Kernel::MpiBarrier, 0, 0, comm(v[0])?)?,
            53 => b.collective(at, rank, Kernel::Bcast, bytes(v[0], v[1]), v[2] as u32, comm(v[3])?)?,
            54 => b.collective(at, rank, Kernel::Gather, bytes(v[1], v[2]), v[3] as u32, comm(v[4])?)?,
            55 => b.collective(at, rank, Kernel::Gather, bytes(v[2], v[3]), v[4] as u32, comm(v[5])?)?,
            56 => b.collective(at, rank, Kernel::Scatter, bytes(v[1], v[2]), v[3] as u32, comm(v[4])?)?,
            57 => b.collective(at, rank, Kernel::Scatter, bytes(v[3], v[4]), v[5] as u32, comm(v[6])?)?,
            58 => b.collective(at, rank, Kernel::Allgather, bytes(v[0], v[1]), 0, comm(v[4])?)?,
            59 => b.collective_with(at, rank, Kernel::Allgather, bytes(v[1], v[2]), 0, comm(v[4])?, A::Ring)?,
            60 => b.collective(at, rank, Kernel::Alltoall, bytes(v[0], v[1]), 0, comm(v[4])?)?,
            61 => {
                let per = arr[0].iter().sum::<i64>() / (arr[0].len().max(1) as i64);
                b.collective_with(at, rank, Kernel::Alltoall, bytes(per, v[1]), 0, comm(v[3])?, A::Pairwise)?
            }
            62 => b.collective(at, rank, Kernel::Reduce, bytes(v[0], v[1]), v[3] as u32, comm(v[4])?)?,
            65 | 67 | 156 => b.collective(at, rank, Kernel::Allreduce, bytes(v[0], v[1]), 0, comm(v[3])?)?,
            66 => {
                let total = arr[0].iter().sum::<i64>();
                b.collective(at, rank, Kernel::Allreduce, bytes(total, v[1]), 0, comm(v[3])?)?
            }
            81 if v[0] == COMM_WORLD && v[1] as usize != n => {
                return Err(
                    at.error(format!("rank count mismatch: MPI_Comm_size gives {} but the meta file says {n}", v[1]))
                )
            }
            82 if v[0] == COMM_WORLD && v[1] as usize != rank => {
                return Err(at.error(format!("MPI_Comm_rank gives {} in the file of rank {rank}", v[1])))
            }
            _ => {}
        }
        Ok(true)
    }
}
