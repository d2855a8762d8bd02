//! Streamed replay of traces: the engine asks for each rank's next operations as its window
//! runs out, so a trace of any length replays in memory bounded by the window and by what
//! is in flight. Files holding every rank (the text format, SimGrid single files) are read
//! by one leading cursor that hands each rank its lines; a rank whose unread operations pile
//! up while the leader reads ahead for others gets a cursor of its own from that line on.

use super::builder::Builder;
use super::Location;
use crate::error::{Error, Result};
use crate::workload::program::Op;
use std::io::{BufRead, Seek, SeekFrom};
use std::path::PathBuf;

/// Operations a rank's window is refilled with at a time (at least; a call expands whole).
pub const BATCH_OPS: usize = 4096;
/// Operations held for all ranks together before ranks get cursors of their own.
pub const BUFFER_OPS: usize = 1 << 21;

/// The next operations of each rank of a trace, read as the replay needs them.
pub trait ProgramSource: Send {
    /// Number of ranks.
    fn ranks(&self) -> usize;
    /// Appends the next operations of `rank` to `ops` (none when its program has ended) and
    /// the request sets of their `WaitAny` to `sets`, numbered from 0 for this batch.
    fn next(&mut self, rank: usize, ops: &mut Vec<Op>, sets: &mut Vec<Vec<u32>>) -> Result<()>;
    /// Most operations read and not yet handed out at once, over all ranks.
    fn peak_buffered(&self) -> usize;
}

/// A line-oriented format whose files may hold every rank's lines.
pub(crate) trait Lines: Send {
    /// The ranks a line adds operations to (none for headers, definitions, blank lines; two
    /// for a VEF message: its source and its destination).
    fn ranks(&self, line: &[u8]) -> [Option<usize>; 2];
    /// Applies the part of a line that concerns `rank` to the builder.
    fn apply(&mut self, b: &mut Builder, at: &Location, rank: usize, line: &str) -> Result<()>;
    /// `rank` has read its last line.
    fn end(&mut self, _b: &mut Builder, _rank: usize) {}
}

/// A position in a sequence of files read line by line.
struct Cursor {
    files: std::sync::Arc<[PathBuf]>,
    file: usize,
    input: std::io::BufReader<std::fs::File>,
    /// Number of the line in `buf` (from 1) and the byte offset of its start.
    line: usize,
    start: u64,
    /// Byte offset of the next line.
    next: u64,
    buf: Vec<u8>,
}

impl Cursor {
    /// A cursor at byte `offset` (the start of line `line`) of file `file`.
    fn open(files: std::sync::Arc<[PathBuf]>, file: usize, offset: u64, line: usize) -> Result<Self> {
        let path = &files[file];
        let mut f = std::fs::File::open(path)
            .map_err(|e| Error::Unsupported(format!("{}: cannot read: {e}", path.display())))?;
        f.seek(SeekFrom::Start(offset)).map_err(|e| Error::Unsupported(format!("{}: {e}", path.display())))?;
        let input = std::io::BufReader::with_capacity(1 << 16, f);
        Ok(Cursor { files, file, input, line: line.saturating_sub(1), start: offset, next: offset, buf: Vec::new() })
    }

    /// Reads the next line into `buf`; false at the end of the last file.
    fn advance(&mut self) -> Result<bool> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| self.at().error(format!("cannot read: {e}")))?;
            if n > 0 {
                self.line += 1;
                self.start = self.next;
                self.next += n as u64;
                return Ok(true);
            }
            if self.file + 1 >= self.files.len() {
                return Ok(false);
            }
            *self = Cursor::open(self.files.clone(), self.file + 1, 0, 1)?;
        }
    }

    /// Where the current line is.
    fn at(&self) -> Location {
        Location {
            file: self.files[self.file].display().to_string(),
            record: format!("line {}", self.line),
            rank: None,
        }
    }

    /// The current line as text.
    fn text(&self) -> Result<&str> {
        std::str::from_utf8(&self.buf).map_err(|_| self.at().error("not UTF-8 text"))
    }
}

/// Ranks' lines from files that may interleave them (see the module comment).
pub(crate) struct LineStream<L: Lines> {
    format: L,
    builder: Builder,
    files: std::sync::Arc<[PathBuf]>,
    leader: Option<Cursor>,
    /// Per rank: its own cursor once it has one (`Some(None)`: it has read its last line).
    own: Vec<Option<Option<Cursor>>>,
    /// Operations a rank may hold before it gets its own cursor.
    cap: usize,
    peak: usize,
    /// The location of the line being applied (reused: one per line would cost more than
    /// the line), and the index of its file.
    at: Location,
    at_file: usize,
}

impl<L: Lines> LineStream<L> {
    /// A stream over `files` read one after the other, from the start, holding about
    /// `buffer_ops` operations for ranks other than the one reading; with `per_rank_files`,
    /// rank `r` reads only file `r`.
    pub(crate) fn new(
        format: L,
        builder: Builder,
        files: Vec<PathBuf>,
        per_rank_files: bool,
        buffer_ops: usize,
    ) -> Result<Self> {
        let ranks = builder.ranks();
        let files: std::sync::Arc<[PathBuf]> = files.into();
        let (leader, own) = if per_rank_files {
            let own = (0..ranks).map(|r| Cursor::open(files.clone(), r, 0, 1).map(|c| Some(Some(c))));
            (None, own.collect::<Result<Vec<_>>>()?)
        } else {
            (Some(Cursor::open(files.clone(), 0, 0, 1)?), (0..ranks).map(|_| None).collect())
        };
        let cap = (buffer_ops / ranks.max(1)).max(2 * BATCH_OPS);
        let at = Location { file: files[0].display().to_string(), ..Default::default() };
        Ok(LineStream { format, builder, files, leader, own, cap, peak: 0, at, at_file: 0 })
    }

    /// Applies the current line of `c` (of `rank`) to the builder.
    fn apply(&mut self, c: &Cursor, rank: usize) -> Result<()> {
        use std::fmt::Write as _;
        if self.at_file != c.file {
            self.at_file = c.file;
            self.at.file = self.files[c.file].display().to_string();
        }
        self.at.record.clear();
        let _ = write!(self.at.record, "line {}", c.line);
        self.at.rank = Some(rank);
        self.format.apply(&mut self.builder, &self.at, rank, c.text()?)
    }

    /// Reads `rank`'s own cursor until it has a batch or its lines end.
    fn read_own(&mut self, rank: usize) -> Result<()> {
        let Some(Some(mut c)) = self.own[rank].take() else {
            self.own[rank] = Some(None);
            return Ok(());
        };
        while self.builder.pending(rank) < BATCH_OPS {
            if !c.advance()? {
                self.own[rank] = Some(None);
                self.format.end(&mut self.builder, rank);
                return Ok(());
            }
            if self.format.ranks(&c.buf).contains(&Some(rank)) {
                self.apply(&c, rank)?;
            }
        }
        self.own[rank] = Some(Some(c));
        Ok(())
    }

    /// Reads the leader until `rank` has a batch or the files end; ranks holding too much
    /// get their own cursor at the line the leader would have given them.
    fn read_leader(&mut self, rank: usize) -> Result<()> {
        let Some(mut c) = self.leader.take() else { return Ok(()) };
        while self.builder.pending(rank) < BATCH_OPS {
            if !c.advance()? {
                // Every rank still reading from the leader has read its last line.
                for r in 0..self.own.len() {
                    if self.own[r].is_none() {
                        self.own[r] = Some(None);
                        self.format.end(&mut self.builder, r);
                    }
                }
                return Ok(());
            }
            let ranks = self.format.ranks(&c.buf);
            for (k, r) in ranks.into_iter().enumerate() {
                let Some(r) = r.filter(|&r| r < self.own.len()) else { continue };
                // A line of the same rank twice (a message to itself) is applied once.
                if self.own[r].is_some() || (k == 1 && ranks[0] == Some(r)) {
                    continue;
                }
                if r != rank && self.builder.pending(r) >= self.cap {
                    self.own[r] = Some(Some(Cursor::open(self.files.clone(), c.file, c.start, c.line)?));
                    continue;
                }
                self.apply(&c, r)?;
            }
        }
        self.leader = Some(c);
        Ok(())
    }
}

impl<L: Lines> ProgramSource for LineStream<L> {
    fn ranks(&self) -> usize {
        self.builder.ranks()
    }

    fn next(&mut self, rank: usize, ops: &mut Vec<Op>, sets: &mut Vec<Vec<u32>>) -> Result<()> {
        // Operations buffered before the rank got its own cursor come first.
        if self.builder.pending(rank) == 0 {
            match self.own[rank] {
                Some(_) => self.read_own(rank)?,
                None => self.read_leader(rank)?,
            }
        }
        self.peak = self.peak.max(self.builder.held());
        self.builder.take(rank, ops, sets);
        Ok(())
    }

    fn peak_buffered(&self) -> usize {
        self.peak
    }
}
