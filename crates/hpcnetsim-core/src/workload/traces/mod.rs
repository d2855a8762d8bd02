//! MPI traces as task programs: readers for the hpcnetsim text format, SimGrid
//! time-independent traces, SST DUMPI binary traces and VEF traces (docs/traces.md lists
//! each format's supported subset; OTF2 archives are read in Python). Readers go through their files record by record and hand
//! the calls to a [`builder::Builder`], which makes the programs.

pub mod builder;
pub mod dumpi;
pub mod limits;
pub mod simgrid;
pub mod stream;
pub mod text;
pub mod vef;

use crate::config::{config_name, TraceFormat, WorkloadConfig};
use crate::error::{Error, Result};
use crate::workload::program::Programs;
use builder::{Builder, Mode, Scale};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a record is: file, record (line or record number) and rank, for error messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// File name.
    pub file: String,
    /// "line 12" or "record 34".
    pub record: String,
    /// Rank of the record, if known.
    pub rank: Option<usize>,
}

impl Location {
    /// A one-line error at this location.
    pub fn error(&self, what: impl std::fmt::Display) -> Error {
        let rank = self.rank.map(|r| format!(" (rank {r})")).unwrap_or_default();
        Error::Unsupported(format!("{}: {}{rank}: {what}", self.file, self.record))
    }
}

/// A trace read into task programs, with its summary.
#[derive(Clone, Debug)]
pub struct Trace {
    /// One program per rank.
    pub programs: Programs,
    /// The summary (ranks, calls, volumes).
    pub summary: Summary,
}

/// What a trace contains, without simulating it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Format read.
    pub format: String,
    /// Number of ranks.
    pub ranks: usize,
    /// Per rank: MPI calls by name.
    pub calls: Vec<BTreeMap<String, u64>>,
    /// Per rank: bytes sent (point-to-point and collectives as expanded).
    pub bytes_sent: Vec<u64>,
    /// Messages (point-to-point and expanded collectives).
    pub messages: u64,
    /// Bytes of all messages.
    pub bytes: u64,
    /// Point-to-point traffic as the senders' calls give it (collectives excluded).
    pub p2p_sent: TrafficMatrix,
    /// Point-to-point traffic as the receivers' calls give it (receives from a named source).
    pub p2p_received: TrafficMatrix,
}

/// Traffic between ranks: the (source, destination) pairs that exchanged messages, ordered by
/// source then destination, each with its bytes and messages. Sparse, because ranks talk to
/// few partners: a dense matrix of 4 096 ranks has 16.7 million cells, of which a ring
/// exchange fills 8 192, and written out it made results of half a gigabyte.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TrafficMatrix {
    /// Source rank of each pair.
    pub source: Vec<u32>,
    /// Destination rank of each pair.
    pub destination: Vec<u32>,
    /// Bytes sent from the source to the destination.
    pub bytes: Vec<u64>,
    /// Messages sent from the source to the destination.
    pub messages: Vec<u64>,
}

impl TrafficMatrix {
    /// The matrix of (source, destination) → (bytes, messages).
    pub fn from_pairs(pairs: &rustc_hash::FxHashMap<(u32, u32), (u64, u64)>) -> Self {
        let mut sorted: Vec<_> = pairs.iter().map(|(&k, &v)| (k, v)).collect();
        sorted.sort_unstable_by_key(|&(k, _)| k);
        let mut m = TrafficMatrix::default();
        for ((s, d), (b, c)) in sorted {
            m.source.push(s);
            m.destination.push(d);
            m.bytes.push(b);
            m.messages.push(c);
        }
        m
    }

    /// The traffic matrix of `programs` (every send, collectives as expanded).
    pub fn of(programs: &Programs) -> Self {
        let mut pairs = rustc_hash::FxHashMap::default();
        for (s, d, b) in programs.message_iter() {
            let e = pairs.entry((s as u32, d as u32)).or_insert((0, 0));
            e.0 += b;
            e.1 += 1;
        }
        Self::from_pairs(&pairs)
    }

    /// Bytes and messages from `source` to `destination` (zero for a pair that exchanged none).
    pub fn get(&self, source: u32, destination: u32) -> (u64, u64) {
        // Pairs are sorted by source, then destination: the source's run, then the pair in it.
        let lo = self.source.partition_point(|&s| s < source);
        let hi = self.source.partition_point(|&s| s <= source);
        let j = lo + self.destination[lo..hi].partition_point(|&d| d < destination);
        match j < hi && self.destination[j] == destination {
            true => (self.bytes[j], self.messages[j]),
            false => (0, 0),
        }
    }

    /// Pairs that exchanged messages.
    pub fn len(&self) -> usize {
        self.source.len()
    }

    /// Whether no pair exchanged a message.
    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// The matrix as a table (columns `source`, `destination`, `bytes`, `messages`), which the
    /// Python package turns into a DataFrame and writes as `traffic.parquet`.
    pub fn table(&self) -> crate::observe::table::Table {
        let widen = |v: &[u32]| v.iter().map(|&x| x as u64).collect();
        crate::observe::table::Table::default()
            .int("source", widen(&self.source))
            .int("destination", widen(&self.destination))
            .int("bytes", self.bytes.clone())
            .int("messages", self.messages.clone())
    }
}

/// Per-rank timings and traffic of a replay (trace or user program).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Replay {
    /// Per rank: cycles of compute.
    pub compute_cycles: Vec<u64>,
    /// Per rank: cycles blocked in receives and waits.
    pub wait_cycles: Vec<u64>,
    /// Per rank: cycles in communication (program end minus compute).
    pub communication_cycles: Vec<u64>,
    /// Per rank: cycle at which its program ended.
    pub finish_cycles: Vec<u64>,
    /// Message latency distribution: `latency_histogram[k]` counts messages whose latency
    /// lies in [2^k, 2^(k+1)) cycles (k = 0 also holds 0).
    pub latency_histogram: Vec<u64>,
}

/// The format of `path` when `format` is `auto`: by extension, else by content.
pub fn detect(path: &Path, format: TraceFormat) -> TraceFormat {
    if format != TraceFormat::Auto {
        return format;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    if name.ends_with(".meta") {
        return TraceFormat::Dumpi;
    }
    if name.ends_with(".otf2") {
        return TraceFormat::Otf2;
    }
    if name.ends_with(".vef") {
        return TraceFormat::Vef;
    }
    if name.ends_with(".index") || simgrid::looks_like(path) {
        return TraceFormat::Simgrid;
    }
    TraceFormat::Text
}

/// Refuses a `flops_per_second` other than its default beside a trace that counts no flops
/// (only SimGrid's do): the value would go unread and the replay's compute stay as it was.
pub fn check_flops(w: &WorkloadConfig, path: &Path) -> Result<()> {
    let format = detect(path, w.format);
    if format == TraceFormat::Simgrid || w.flops_per_second == WorkloadConfig::default().flops_per_second {
        return Ok(());
    }
    Err(Error::invalid(
        "config",
        "workload.flops_per_second",
        crate::config::bounds::num(w.flops_per_second),
        format!(
            "left out beside a {} trace, which counts no flops (only SimGrid traces do; cpu_factor scales \
             traced compute)",
            config_name(&format)
        ),
    ))
}

/// The conversion parameters of a workload config.
pub fn scale(w: &WorkloadConfig) -> Scale {
    let cycles_per_second = 1e9 / w.cycle_ns;
    Scale {
        cycles_per_second,
        cycles_per_flop: cycles_per_second / w.flops_per_second,
        cpu_factor: w.cpu_factor,
        algorithm: w.algorithm,
        segment_bytes: w.segment_bytes,
    }
}

/// Reads the trace at `path` in `format` (or detected) into task programs.
pub fn read(path: &Path, format: TraceFormat, scale: Scale) -> Result<Trace> {
    let format = detect(path, format);
    let builder = match format {
        TraceFormat::Text => text::read(path, scale)?,
        TraceFormat::Simgrid => simgrid::read(path, scale)?,
        TraceFormat::Dumpi => dumpi::read(path, scale)?,
        TraceFormat::Otf2 => return Err(otf2_in_python(path)),
        TraceFormat::Vef => vef::read(path, scale)?,
        // `detect` never answers auto; read it as text if it ever did.
        TraceFormat::Auto => text::read(path, scale)?,
    };
    finish(builder, &config_name(&format)).map_err(|e| named(&path.display().to_string(), e))
}

/// The errors of the checks over the whole trace (no call to replay, collectives whose
/// messages differ) name the trace file: the builder that makes them does not know it.
fn named(file: &str, e: Error) -> Error {
    match e {
        Error::Unsupported(m) => match m.strip_prefix("trace: ") {
            Some(rest) => Error::Unsupported(format!("{file}: {rest}")),
            None => Error::Unsupported(m),
        },
        e => e,
    }
}

/// OTF2 archives are converted by the Python package.
fn otf2_in_python(path: &Path) -> Error {
    Error::Unsupported(format!(
        "{}: OTF2 archives are read by the Python package (hpcnetsim run, hpcnetsim.execute, hpcnetsim trace info)",
        path.display()
    ))
}

/// Reads a trace in the hpcnetsim text format from a string (`name` in messages).
pub fn read_text(name: &str, text: &str, scale: Scale) -> Result<Trace> {
    let builder = text::parse(name, std::io::Cursor::new(text), scale)?;
    finish(builder, "text").map_err(|e| named(name, e))
}

/// A trace checked and summarised by a first pass in memory independent of its length,
/// ready to be replayed as a stream.
pub struct Scanned {
    /// The summary (as [`read`] gives it).
    pub summary: Summary,
    /// Traffic of the expanded programs (as [`TrafficMatrix::of`] gives it).
    pub traffic: TrafficMatrix,
    first: Builder,
    format: TraceFormat,
    path: PathBuf,
    per_rank: bool,
    dumpi: Option<dumpi::Comms>,
    vef: Option<vef::VefLines>,
}

/// Reads the trace at `path` once without keeping its programs: checks it (the errors of
/// [`read`]) and summarises it.
pub fn scan(path: &Path, format: TraceFormat, scale: Scale) -> Result<Scanned> {
    let format = detect(path, format);
    let (mut per_rank, mut dumpi, mut vef) = (false, None, None);
    let first = match format {
        TraceFormat::Text | TraceFormat::Auto => text::read_with(path, scale, Mode::Count)?,
        TraceFormat::Simgrid => {
            let (b, p) = simgrid::read_with(path, scale, Mode::Count)?;
            per_rank = p;
            b
        }
        TraceFormat::Dumpi => {
            let (b, comms) = dumpi::scan(path, scale, Mode::Count)?;
            dumpi = Some(comms);
            b
        }
        TraceFormat::Vef => {
            let (b, lines) = vef::scan(path, scale, Mode::Count)?;
            vef = Some(lines);
            b
        }
        TraceFormat::Otf2 => return Err(otf2_in_python(path)),
    };
    first.check().map_err(|e| named(&path.display().to_string(), e))?;
    let summary = summarise(&first, &config_name(&format));
    let traffic = TrafficMatrix::from_pairs(&first.traffic);
    Ok(Scanned { summary, traffic, first, format, path: path.to_path_buf(), per_rank, dumpi, vef })
}

impl Scanned {
    /// The most compute cycles of any rank (the replay lasts at least that long).
    pub fn max_compute_cycles(&self) -> u64 {
        self.first.max_compute_cycles()
    }

    /// Every rank's operations as the replay needs them (`None` for a format read whole:
    /// none at present; OTF2 is converted by the Python package).
    pub fn source(&self) -> Result<Option<Box<dyn stream::ProgramSource>>> {
        self.source_with(stream::BUFFER_OPS)
    }

    /// [`Scanned::source`] holding about `buffer_ops` operations read ahead for other ranks
    /// (files holding every rank) before ranks get cursors of their own.
    pub fn source_with(&self, buffer_ops: usize) -> Result<Option<Box<dyn stream::ProgramSource>>> {
        let scale = *self.first.scale();
        Ok(Some(match self.format {
            TraceFormat::Text | TraceFormat::Auto => text::stream(&self.path, &self.first, buffer_ops)?,
            TraceFormat::Simgrid => simgrid::stream(&self.path, scale, self.first.ranks(), self.per_rank, buffer_ops)?,
            TraceFormat::Dumpi => {
                let comms = self.dumpi.clone().unwrap_or_default();
                Box::new(dumpi::Stream::open(&self.path, &self.first, comms)?)
            }
            TraceFormat::Vef => match &self.vef {
                Some(lines) => vef::stream(&self.path, &self.first, lines, buffer_ops)?,
                None => return Ok(None),
            },
            TraceFormat::Otf2 => return Ok(None),
        }))
    }

    /// The whole programs (for the formats that do not stream).
    pub fn read(&self) -> Result<Trace> {
        read(&self.path, self.format, *self.first.scale())
    }
}

/// The summary of what builder `b` made.
fn summarise(b: &Builder, format: &str) -> Summary {
    let n = b.ranks();
    let (messages, bytes) = b.traffic.values().fold((0u64, 0u64), |(m, y), &(by, c)| (m + c, y + by));
    Summary {
        format: format.to_string(),
        ranks: n,
        calls: b.calls.clone(),
        bytes_sent: b.bytes_sent.clone(),
        messages,
        bytes,
        p2p_sent: TrafficMatrix::from_pairs(&b.p2p_sent),
        p2p_received: TrafficMatrix::from_pairs(&b.p2p_received),
    }
}

fn finish(b: Builder, format: &str) -> Result<Trace> {
    let calls = b.calls.clone();
    let bytes_sent = b.bytes_sent.clone();
    let p2p_sent = TrafficMatrix::from_pairs(&b.p2p_sent);
    let p2p_received = TrafficMatrix::from_pairs(&b.p2p_received);
    let programs = b.finish()?;
    let (messages, bytes) = programs.message_iter().fold((0u64, 0u64), |(n, b), m| (n + 1, b + m.2));
    let summary = Summary {
        format: format.to_string(),
        ranks: programs.len(),
        calls,
        bytes_sent,
        messages,
        bytes,
        p2p_sent,
        p2p_received,
    };
    Ok(Trace { programs, summary })
}

/// Opens `path` for reading, with the file named in the error.
pub(crate) fn open(path: &Path) -> Result<std::io::BufReader<std::fs::File>> {
    // Opening a directory succeeds: its first read would fail as "line 1" of a text trace.
    if path.is_dir() {
        return Err(Error::Unsupported(format!(
            "{}: a directory, not a trace file (give a DUMPI .meta, an OTF2 .otf2, a SimGrid .index or a trace file)",
            path.display()
        )));
    }
    std::fs::File::open(path)
        .map(|f| std::io::BufReader::with_capacity(1 << 16, f))
        .map_err(|e| Error::Unsupported(format!("{}: cannot read: {e}", path.display())))
}
