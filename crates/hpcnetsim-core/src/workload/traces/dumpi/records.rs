//! The DUMPI binary layout (as documented by sst-dumpi's I/O definitions): big-endian
//! integers; a per-rank file starts with a magic number and ends with an index of eight
//! 64-bit words (magic, datatype-size table, address labels, counter labels, header,
//! body, footer, key-values). The body is a stream of records: a 16-bit function id, a
//! mask byte (thread id, CPU and wall times, counters), then the call's arguments, whose
//! layout depends on the function. There is no record length, so every function that
//! appears must be known; the ones listed in [`layout`] are.

use crate::error::{Error, Result};
use std::io::{BufReader, Read, Seek, SeekFrom};

/// The magic number at the start of every file and of the index.
const MAGIC: u64 = 0xffaa_dd44_554d_5049;
/// Function id that ends the body.
const END_OF_STREAM: u16 = 293;
/// Mask bits of a record.
const THREAD: u8 = 1 << 6;
const CPU: u8 = 1 << 2;
const WALL: u8 = 1 << 3;
const COUNTERS: u8 = 1 << 7;
const STATUSES: u8 = 3;

/// An argument kind of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F {
    /// 32-bit integer (count, rank, tag, request, ...).
    I,
    /// 16-bit handle (communicator, datatype, group, errhandler, keyval).
    H,
    /// 8-bit value (op, thread level, comparison).
    B,
    /// 64-bit integer.
    L,
    /// 32-bit count, then that many 32-bit integers.
    A,
    /// 32-bit count, then that many 16-bit handles.
    Ha,
    /// Statuses (present when the mask says so).
    S,
    /// 32-bit length, then that many bytes.
    X,
}

use F::*;

/// Argument layout of function `id`, or `None` if not supported. Gather, Gatherv, Scatter,
/// Scatterv, Init and Init_thread have root- or version-dependent parts and are read by
/// [`Reader::record`] itself.
pub fn layout(id: u16) -> Option<&'static [F]> {
    Some(match id {
        0 | 3 | 4 | 5 => &[I, H, I, I, H],       // Send, Bsend, Ssend, Rsend
        1 => &[I, H, I, I, H, S],                // Recv
        2 => &[S, H, I],                         // Get_count
        8..=12 | 26..=30 => &[I, H, I, I, H, I], // Isend.., Irecv, *_init
        13 => &[I, S],                           // Wait
        14 => &[I, I, S],                        // Test
        15 | 24 | 31 => &[I],                    // Request_free, Cancel, Start
        16 => &[I, A, I, S],                     // Waitany
        17 => &[I, A, I, I, S],                  // Testany
        18 => &[I, A, S],                        // Waitall
        19 => &[I, A, I, S],                     // Testall
        20 | 21 => &[I, A, I, A, S],             // Waitsome, Testsome
        22 => &[I, I, H, I, S],                  // Iprobe
        23 => &[I, I, H, S],                     // Probe
        32 => &[I, A],                           // Startall
        33 => &[I, H, I, I, I, H, I, I, H, S],   // Sendrecv
        34 => &[I, H, I, I, I, I, H, S],         // Sendrecv_replace
        35 => &[I, H, H],                        // Type_contiguous
        36 | 37 | 219 => &[I, I, I, H, H],       // Type_vector, hvector
        38 => &[I, A, A, H, H],                  // Type_indexed
        42..=45 => &[H, I],                      // Type_extent, size, lb, ub
        46 | 47 => &[H],                         // Type_commit, free
        49 => &[I, H, I, I, I, H],               // Pack
        50 => &[I, I, I, I, H, H],               // Unpack
        51 => &[I, H, H, I],                     // Pack_size
        52 | 87 => &[H],                         // Barrier, Comm_free
        53 => &[I, H, I, H],                     // Bcast
        58 | 60 => &[I, H, I, H, H],             // Allgather, Alltoall
        59 => &[I, I, H, A, A, H, H],            // Allgatherv
        61 => &[I, A, A, H, A, A, H, H],         // Alltoallv
        62 => &[I, H, B, I, H],                  // Reduce
        63 => &[I, B],                           // Op_create
        64 | 173 => &[B],                        // Op_free, Query_thread
        65 | 67 | 156 => &[I, H, B, H],          // Allreduce, Scan, Exscan
        66 => &[I, A, H, B, H],                  // Reduce_scatter
        68 | 69 => &[H, I],                      // Group_size, rank
        70 => &[H, I, A, H, A],                  // Group_translate_ranks
        72 | 84 | 117 | 198 => &[H, H],          // Comm_group, Comm_dup, errh.
        73 => &[H, H, H],                        // Group_union
        76 | 77 => &[H, I, A, H],                // Group_incl, excl
        80 => &[H],                              // Group_free
        81 | 82 | 127 => &[H, I],                // Comm_size, rank, Abort
        83 => &[H, H, B],                        // Comm_compare
        85 => &[H, H, H],                        // Comm_create
        86 => &[H, I, I, H],                     // Comm_split
        96 => &[H, I, I],                        // Attr_get
        99 => &[H, I, A, A, I, H],               // Cart_create
        100 => &[I, I, A, A],                    // Dims_create
        106 => &[I, H, A, I],                    // Cart_rank
        107 => &[I, H, I, I, A],                 // Cart_coords
        110 => &[H, I, I, I, I],                 // Cart_shift
        114 => &[X, I],                          // Get_processor_name
        122 | 123 | 125 => &[],                  // Wtime, Wtick, Finalize
        126 => &[I],                             // Initialized
        164 => &[H, H, I],                       // Comm_get_attr
        220 => &[I, I, A, H, H],                 // Type_create_indexed_block
        222 => &[I, A, A, Ha, H],                // Type_create_struct
        224 | 225 => &[H, I, I],                 // Type_get_(true_)extent
        291 | 292 => &[L],                       // Function_enter, exit
        54..=57 | 124 | 171 => &[],              // read specially
        _ => return None,
    })
}

/// Name of the functions read here (for messages and call counts).
pub fn name(id: u16) -> &'static str {
    match id {
        0 => "MPI_Send",
        1 => "MPI_Recv",
        2 => "MPI_Get_count",
        3 => "MPI_Bsend",
        4 => "MPI_Ssend",
        5 => "MPI_Rsend",
        8 => "MPI_Isend",
        9 => "MPI_Ibsend",
        10 => "MPI_Issend",
        11 => "MPI_Irsend",
        12 => "MPI_Irecv",
        13 => "MPI_Wait",
        14 => "MPI_Test",
        15 => "MPI_Request_free",
        16 => "MPI_Waitany",
        17 => "MPI_Testany",
        18 => "MPI_Waitall",
        19 => "MPI_Testall",
        20 => "MPI_Waitsome",
        21 => "MPI_Testsome",
        22 => "MPI_Iprobe",
        23 => "MPI_Probe",
        24 => "MPI_Cancel",
        26 => "MPI_Send_init",
        27 => "MPI_Bsend_init",
        28 => "MPI_Ssend_init",
        29 => "MPI_Rsend_init",
        30 => "MPI_Recv_init",
        31 => "MPI_Start",
        32 => "MPI_Startall",
        33 => "MPI_Sendrecv",
        34 => "MPI_Sendrecv_replace",
        35 => "MPI_Type_contiguous",
        36 => "MPI_Type_vector",
        37 => "MPI_Type_hvector",
        38 => "MPI_Type_indexed",
        42 => "MPI_Type_extent",
        43 => "MPI_Type_size",
        44 => "MPI_Type_lb",
        45 => "MPI_Type_ub",
        46 => "MPI_Type_commit",
        47 => "MPI_Type_free",
        49 => "MPI_Pack",
        50 => "MPI_Unpack",
        51 => "MPI_Pack_size",
        52 => "MPI_Barrier",
        53 => "MPI_Bcast",
        54 => "MPI_Gather",
        55 => "MPI_Gatherv",
        56 => "MPI_Scatter",
        57 => "MPI_Scatterv",
        58 => "MPI_Allgather",
        59 => "MPI_Allgatherv",
        60 => "MPI_Alltoall",
        61 => "MPI_Alltoallv",
        62 => "MPI_Reduce",
        63 => "MPI_Op_create",
        64 => "MPI_Op_free",
        65 => "MPI_Allreduce",
        66 => "MPI_Reduce_scatter",
        67 => "MPI_Scan",
        68 => "MPI_Group_size",
        69 => "MPI_Group_rank",
        70 => "MPI_Group_translate_ranks",
        72 => "MPI_Comm_group",
        73 => "MPI_Group_union",
        76 => "MPI_Group_incl",
        77 => "MPI_Group_excl",
        80 => "MPI_Group_free",
        81 => "MPI_Comm_size",
        82 => "MPI_Comm_rank",
        83 => "MPI_Comm_compare",
        84 => "MPI_Comm_dup",
        85 => "MPI_Comm_create",
        86 => "MPI_Comm_split",
        87 => "MPI_Comm_free",
        96 => "MPI_Attr_get",
        99 => "MPI_Cart_create",
        100 => "MPI_Dims_create",
        106 => "MPI_Cart_rank",
        107 => "MPI_Cart_coords",
        110 => "MPI_Cart_shift",
        114 => "MPI_Get_processor_name",
        117 => "MPI_Errhandler_set",
        122 => "MPI_Wtime",
        123 => "MPI_Wtick",
        124 => "MPI_Init",
        125 => "MPI_Finalize",
        126 => "MPI_Initialized",
        127 => "MPI_Abort",
        156 => "MPI_Exscan",
        164 => "MPI_Comm_get_attr",
        171 => "MPI_Init_thread",
        173 => "MPI_Query_thread",
        198 => "MPI_Comm_set_errhandler",
        219 => "MPI_Type_create_hvector",
        220 => "MPI_Type_create_indexed_block",
        222 => "MPI_Type_create_struct",
        224 => "MPI_Type_get_extent",
        225 => "MPI_Type_get_true_extent",
        282..=289 => "MPIO request call",
        291 => "function_enter",
        292 => "function_exit",
        _ => "unknown",
    }
}

/// One record: function id, wall-clock start and stop (nanoseconds), scalar arguments in
/// order and array arguments in order.
#[derive(Clone, Debug, Default)]
pub struct Record {
    /// Function id.
    pub id: u16,
    /// Wall-clock start and stop in nanoseconds since the epoch, if recorded: whole numbers,
    /// as the file keeps them (seconds since the epoch in an `f64` would round them to about
    /// 240 ns, as much as a short compute interval between two calls).
    pub wall: Option<(u64, u64)>,
    /// Scalar arguments in order.
    pub v: Vec<i64>,
    /// Array arguments in order.
    pub arrays: Vec<Vec<i64>>,
    /// Number of the record in its file (1 = first).
    pub index: u64,
}

/// A per-rank DUMPI file being read record by record.
pub struct Reader {
    file: String,
    input: BufReader<std::fs::File>,
    pos: u64,
    end: u64,
    version: (u8, u8, u8),
    wall_offset: u32,
    /// Datatype sizes from the file's table (index = datatype handle).
    pub sizes: Vec<u32>,
    count: u64,
}

impl Reader {
    /// Opens `path`, checks its magic numbers and reads its index, header and size table.
    pub fn open(path: &std::path::Path) -> Result<Reader> {
        let file = path.display().to_string();
        let name = file.clone();
        let bad = move |what: &str| Error::Unsupported(format!("{name}: {what}"));
        let mut f = std::fs::File::open(path).map_err(|e| bad(&format!("cannot read: {e}")))?;
        let len = f.metadata().map_err(|e| bad(&format!("cannot read: {e}")))?.len();
        let word = |f: &mut std::fs::File, at: u64| -> Result<u64> {
            let mut b = [0u8; 8];
            f.seek(SeekFrom::Start(at)).and_then(|_| f.read_exact(&mut b)).map_err(|_| bad("truncated file"))?;
            Ok(u64::from_be_bytes(b))
        };
        if len < 72 || word(&mut f, 0)? != MAGIC {
            return Err(bad("not a DUMPI file (no magic number at the start) or truncated"));
        }
        if word(&mut f, len - 64)? != MAGIC {
            return Err(bad("truncated file: no index at the end"));
        }
        let idx: Vec<u64> = (1..8).map(|i| word(&mut f, len - 64 + 8 * i)).collect::<Result<_>>()?;
        let (sizelbl, header, body) = (idx[0], idx[3], idx[4]);
        if body < 8 || idx.iter().any(|&o| o > len) {
            return Err(bad("corrupt index (offsets outside the file)"));
        }
        // The body ends with an end-of-stream record, before the next section.
        let footer = idx.iter().copied().filter(|&o| o > body).min().unwrap_or(len - 64);
        let input = BufReader::with_capacity(1 << 16, f);
        let mut r = Reader {
            file,
            input,
            pos: 0,
            end: footer,
            version: (0, 0, 0),
            wall_offset: 0,
            sizes: Vec::new(),
            count: 0,
        };
        if header > 0 {
            r.seek(header)?;
            r.version = (r.u8()?, r.u8()?, r.u8()?);
        }
        if sizelbl > 0 {
            r.seek(sizelbl)?;
            let n = r.u32()?;
            r.sizes = (0..n).map(|_| r.u32()).collect::<Result<_>>()?;
        }
        r.seek(body)?;
        let _cpu_offset = r.u32()?;
        r.wall_offset = r.u32()?;
        Ok(r)
    }

    fn seek(&mut self, at: u64) -> Result<()> {
        self.input.seek(SeekFrom::Start(at)).map_err(|e| Error::Unsupported(format!("{}: {e}", self.file)))?;
        self.pos = at;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.input.read_exact(&mut b).map_err(|_| {
            Error::Unsupported(format!("{}: record {}: truncated file at byte {}", self.file, self.count, self.pos))
        })?;
        self.pos += N as u64;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.bytes()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.bytes()?))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.bytes()?))
    }

    fn skip(&mut self, n: u64) -> Result<()> {
        if self.pos + n > self.end {
            return Err(Error::Unsupported(format!("{}: record {}: truncated record", self.file, self.count)));
        }
        std::io::copy(&mut (&mut self.input).take(n), &mut std::io::sink())
            .map_err(|e| Error::Unsupported(format!("{}: {e}", self.file)))?;
        self.pos += n;
        Ok(())
    }

    fn array(&mut self) -> Result<Vec<i64>> {
        let n = self.u32()? as u64;
        if self.pos + 4 * n > self.end {
            return Err(Error::Unsupported(format!("{}: record {}: truncated record", self.file, self.count)));
        }
        (0..n).map(|_| Ok(self.u32()? as i32 as i64)).collect()
    }

    /// A time stamp in nanoseconds: seconds past the file's `offset`, then nanoseconds.
    fn time(&mut self, offset: u32) -> Result<u64> {
        let sec = self.u16()? as u64 + offset as u64;
        let nsec = self.u32()? as u64;
        Ok(sec * 1_000_000_000 + nsec)
    }

    /// Statuses: a count, then per status bytes, source, cancelled, error and (from 0.6.3)
    /// the tag.
    fn statuses(&mut self, mask: u8) -> Result<()> {
        if mask & STATUSES == 0 {
            return Ok(());
        }
        let n = self.u32()? as u64;
        let per = if self.version >= (0, 6, 3) { 14 } else { 10 };
        self.skip(n * per)
    }

    fn field(&mut self, f: F, mask: u8, r: &mut Record) -> Result<()> {
        match f {
            I => r.v.push(self.u32()? as i32 as i64),
            H => r.v.push(self.u16()? as i64),
            B => r.v.push(self.u8()? as i64),
            L => r.v.push(self.u64()? as i64),
            A => {
                let a = self.array()?;
                r.arrays.push(a);
            }
            Ha => {
                let n = self.u32()?;
                let a = (0..n).map(|_| Ok(self.u16()? as i64)).collect::<Result<_>>()?;
                r.arrays.push(a);
            }
            S => self.statuses(mask)?,
            X => {
                let n = self.u32()? as u64;
                self.skip(n)?;
            }
        }
        Ok(())
    }

    /// The next record, or `None` at the end of the body.
    pub fn record(&mut self) -> Result<Option<Record>> {
        if self.pos >= self.end {
            return Ok(None);
        }
        self.count += 1;
        let id = self.u16()?;
        if id == END_OF_STREAM {
            return Ok(None);
        }
        let fields = layout(id).ok_or_else(|| {
            Error::Unsupported(format!(
                "{}: record {}: unknown or unsupported record type {id} ({}) at byte {}",
                self.file,
                self.count,
                name(id),
                self.pos - 2
            ))
        })?;
        let mask = self.u8()?;
        if mask & THREAD != 0 {
            self.u16()?;
        }
        if mask & CPU != 0 {
            self.skip(12)?;
        }
        let wall =
            if mask & WALL != 0 { Some((self.time(self.wall_offset)?, self.time(self.wall_offset)?)) } else { None };
        if mask & COUNTERS != 0 {
            return Err(Error::Unsupported(format!(
                "{}: record {}: performance-counter records are not supported",
                self.file, self.count
            )));
        }
        let mut r = Record { id, wall, index: self.count, ..Default::default() };
        for &f in fields {
            self.field(f, mask, &mut r)?;
        }
        match id {
            // Gather/Scatter: commrank, count, type, root, comm; the root adds count, type.
            54 | 56 => {
                for f in [I, I, H, I, H] {
                    self.field(f, mask, &mut r)?;
                }
                if r.v[0] == r.v[3] {
                    self.field(I, mask, &mut r)?;
                    self.field(H, mask, &mut r)?;
                }
            }
            // Gatherv: commrank, commsize, sendcount, sendtype, root, comm, [counts, displs], recvtype.
            55 => {
                for f in [I, I, I, H, I, H] {
                    self.field(f, mask, &mut r)?;
                }
                if r.v[0] == r.v[4] {
                    self.field(A, mask, &mut r)?;
                    self.field(A, mask, &mut r)?;
                }
                self.field(H, mask, &mut r)?;
            }
            // Scatterv: commrank, commsize, sendtype, recvcount, recvtype, root, comm, [counts, displs].
            57 => {
                for f in [I, I, H, I, H, I, H] {
                    self.field(f, mask, &mut r)?;
                }
                if r.v[0] == r.v[5] {
                    self.field(A, mask, &mut r)?;
                    self.field(A, mask, &mut r)?;
                }
            }
            // Init, Init_thread: argc (twice before 0.6.2 for Init), argv strings, [levels].
            124 | 171 => {
                let argc = self.u32()? as i32;
                if id == 124 && self.version < (0, 6, 2) {
                    self.u32()?;
                }
                for _ in 0..argc.max(0) {
                    self.field(X, mask, &mut r)?;
                }
                if id == 171 {
                    self.skip(2)?;
                }
            }
            _ => {}
        }
        Ok(Some(r))
    }

    /// Name of the file.
    pub fn file(&self) -> &str {
        &self.file
    }
}
