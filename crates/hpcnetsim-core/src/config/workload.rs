//! The `[workload]` table: causal workloads (application kernels and MPI collectives),
//! their message sizes and the placement of their tasks.

use serde::{Deserialize, Serialize};

/// The application kernels of papers 000 and 002.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kernel {
    /// Binary tree, N-to-1 (Reduce, Gather).
    #[serde(rename = "bt")]
    Bt,
    /// Inverse binary tree, 1-to-N (Bcast, Scatter).
    #[serde(rename = "ibt")]
    Ibt,
    /// Barrier: BT then IBT with empty messages.
    #[serde(rename = "barrier")]
    Barrier,
    /// Butterfly (recursive doubling), N a power of two.
    #[serde(rename = "bu")]
    Bu,
    /// 2D wave-front on a square virtual mesh.
    #[serde(rename = "2w")]
    W2,
    /// 3D wave-front on a cubic virtual mesh.
    #[serde(rename = "3w")]
    W3,
    /// Waterfall: `burst_messages` consecutive 2D wave-fronts of message_bytes / burst each.
    #[serde(rename = "wf")]
    Wf,
    /// 2D mesh distribution: send to every neighbour, then wait for all of them.
    #[serde(rename = "2m")]
    M2,
    /// 3D mesh distribution.
    #[serde(rename = "3m")]
    M3,
    /// 2D direction distribution: one direction at a time (X+, X−, Y+, Y−).
    #[serde(rename = "2d")]
    D2,
    /// 3D direction distribution.
    #[serde(rename = "3d")]
    D3,
    /// MPI_Bcast from `root`.
    #[serde(rename = "bcast")]
    Bcast,
    /// MPI_Reduce to `root`.
    #[serde(rename = "reduce")]
    Reduce,
    /// MPI_Allreduce.
    #[serde(rename = "allreduce")]
    Allreduce,
    /// MPI_Allgather (`message_bytes` per task).
    #[serde(rename = "allgather")]
    Allgather,
    /// MPI_Alltoall (`message_bytes` per pair).
    #[serde(rename = "alltoall")]
    Alltoall,
    /// MPI_Gather to `root` (`message_bytes` per task).
    #[serde(rename = "gather")]
    Gather,
    /// MPI_Scatter from `root` (`message_bytes` per task).
    #[serde(rename = "scatter")]
    Scatter,
    /// MPI_Barrier.
    #[serde(rename = "mpi-barrier")]
    MpiBarrier,
    /// The ring allreduce of Baidu's DeepBench (paper 001 §4.1).
    #[serde(rename = "deepbench-allreduce")]
    DeepbenchAllreduce,
}

impl Kernel {
    /// Whether this kernel is an MPI collective (built by `workload::collectives`).
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            Kernel::Bcast
                | Kernel::Reduce
                | Kernel::Allreduce
                | Kernel::Allgather
                | Kernel::Alltoall
                | Kernel::Gather
                | Kernel::Scatter
                | Kernel::MpiBarrier
                | Kernel::DeepbenchAllreduce
        )
    }
}

/// Algorithms of the MPI collectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CollectiveAlgorithm {
    /// The default for the operation, task count and size (see docs/workloads.md).
    Auto,
    /// Binomial tree (Bcast, Reduce, Gather, Scatter).
    Binomial,
    /// Open MPI's binomial broadcast tree (`ompi_coll_base_topo_build_bmtree`, used by its
    /// binomial Bcast): relative rank r receives from r minus its highest bit and sends to
    /// r + 2^k for every 2^k > r, nearest first (Bcast).
    Bmtree,
    /// Pipelined chain in segments of `segment_bytes` (Bcast).
    Chain,
    /// Binomial scatter then ring allgather (Bcast, large messages).
    ScatterAllgather,
    /// Recursive doubling (Allreduce, Allgather, Barrier).
    RecursiveDoubling,
    /// Ring (Allreduce: reduce-scatter + allgather; Allgather).
    Ring,
    /// Recursive halving then doubling (Allreduce).
    Rabenseifner,
    /// Bruck's algorithm (Allgather, Alltoall).
    Bruck,
    /// Pairwise exchange (Alltoall).
    Pairwise,
    /// Open MPI's neighbour exchange (Allgather, N even): N/2 steps with the two ring
    /// neighbours in turn, one block in the first step, two after.
    NeighborExchange,
    /// Open MPI's basic linear: all sends posted, to i − 1, i − 2, … (its reverse order),
    /// then all receives (Alltoall); a linear gather to task 0 then a `bmtree` broadcast of
    /// the N blocks (Allgather).
    Linear,
    /// Dissemination (Barrier).
    Dissemination,
}

/// How message lengths evolve from stage to stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LengthEvolution {
    /// The same length at every stage.
    Constant,
    /// Doubling at each stage (Gather, Allgather).
    Doubling,
    /// Halving at each stage (Scatter).
    Halving,
}

/// Placement of tasks on terminals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementKind {
    /// Task i on terminal i (with several tasks per terminal, consecutive tasks together).
    Linear,
    /// A random permutation of the terminal slots, drawn from the seed.
    Random,
    /// Runs of consecutive terminals with geometric gaps (p = 0.8), paper 001 §4.4.3.
    Clustered,
    /// The terminals given in `placement_list`.
    List,
}

/// Formats of MPI trace files (see docs/traces.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// From the file name: `.meta` DUMPI, `.otf2` OTF2, `.vef` VEF, SimGrid's index or
    /// `rank action` lines, else the hpcnetsim text format.
    Auto,
    /// The hpcnetsim text format.
    Text,
    /// SimGrid time-independent traces.
    Simgrid,
    /// SST DUMPI binary traces (the `.meta` file).
    Dumpi,
    /// VEF traces (paper 003).
    Vef,
    /// OTF2 archives (the `.otf2` anchor file).
    Otf2,
}

/// A causal workload: an application kernel run by `tasks` tasks placed on the terminals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    /// The kernel.
    pub kernel: Kernel,
    /// Number of tasks; 0 means one per terminal slot (terminals × tasks_per_terminal).
    pub tasks: usize,
    /// Length of the basic message in bytes (the total per task pair for the waterfall).
    #[serde(deserialize_with = "super::units::bytes_or_size")]
    pub message_bytes: u64,
    /// Length evolution across stages (BT, IBT, BU).
    pub length_evolution: LengthEvolution,
    /// Compute cycles before each send of a stage (reductions) or between stages.
    pub compute_cycles: u64,
    /// Wave-fronts: add the return sweep (paper 000's variant).
    pub return_sweep: bool,
    /// Distributions: a virtual torus instead of a mesh.
    pub wrap: bool,
    /// Distributions: include diagonal neighbours (±1 in every dimension).
    pub diagonals: bool,
    /// Waterfall: number of consecutive sweeps (paper 000: 40 messages of 1 KB for 40 KB).
    pub burst_messages: u32,
    /// Wave-fronts, waterfall and distributions: the sides of the virtual mesh, dimension 0
    /// (consecutive tasks) first, whose product is the task count; empty: a square or cube.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mesh: Vec<usize>,
    /// Placement of tasks on terminals.
    pub placement: PlacementKind,
    /// Terminals of the tasks for `placement = "list"`.
    pub placement_list: Vec<usize>,
    /// Tasks sharing one terminal (and its NIC).
    pub tasks_per_terminal: usize,
    /// Give up (status `deadlock`) after this many cycles without progress.
    pub stall_cycles: u64,
    /// Algorithm of an MPI collective.
    pub algorithm: CollectiveAlgorithm,
    /// Segment size of pipelined collectives, in bytes.
    #[serde(deserialize_with = "super::units::bytes_or_size")]
    pub segment_bytes: u64,
    /// Root task of rooted collectives.
    pub root: usize,
    /// An MPI trace to replay instead of the kernel (path, relative to the working directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Format of `trace`.
    pub format: TraceFormat,
    /// Scale of the traced compute intervals (0 = network-only replay).
    pub cpu_factor: f64,
    /// Length of a network cycle in nanoseconds (converts traced seconds to cycles).
    pub cycle_ns: f64,
    /// Compute speed for traces that count flops (SimGrid), in flops per second.
    pub flops_per_second: f64,
    /// Concurrent jobs (`[[workload.jobs]]`, each a workload table of its own) on disjoint
    /// terminals; the top level then keeps only `stall_cycles` (docs/workloads.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<WorkloadConfig>,
    /// In a job: the first terminal of its `linear` or `clustered` placement.
    #[serde(skip_serializing_if = "is_zero")]
    pub first_terminal: usize,
    /// Smallest packet of a message, in cells of `switch.cell_bytes` (0 = unset: fixed
    /// `traffic.packet_phits`).
    pub packet_cells_min: u32,
    /// Largest packet of a message, in cells; each packet's size is drawn uniformly in
    /// `[packet_cells_min, packet_cells_max]` from its NIC's stream, and the last packet of a
    /// message carries only the cells it needs (0 = unset).
    pub packet_cells_max: u32,
}

fn is_zero(x: &usize) -> bool {
    *x == 0
}

impl WorkloadConfig {
    /// Smallest and largest packet in phits: the cell range if set, else `fixed` twice.
    pub fn packet_phits(&self, fixed: u32, cell_phits: u32) -> (u32, u32) {
        match self.packet_cells_max {
            0 => (fixed, fixed),
            hi => (self.packet_cells_min.max(1) * cell_phits, hi * cell_phits),
        }
    }

    /// The fields of this workload (but those of `skip`) whose values differ from `base`'s, by
    /// name, each with its value as a config error shows it.
    pub(crate) fn differences(&self, base: &WorkloadConfig, skip: &[&str]) -> Vec<(String, String)> {
        let mut set = super::differences(self, base);
        set.retain(|(k, _)| !skip.contains(&k.as_str()));
        set
    }

    /// The first field of a kernel that this workload sets (a value other than its default),
    /// with the value as messages show it: a trace or a hand-made program brings its own ranks
    /// and messages and would silently leave the field unread.
    pub fn kernel_field_set(&self) -> Option<(&'static str, String)> {
        const KERNEL_FIELDS: [&str; 12] = [
            "kernel",
            "tasks",
            "message_bytes",
            "length_evolution",
            "compute_cycles",
            "return_sweep",
            "wrap",
            "diagonals",
            "burst_messages",
            "mesh",
            "root",
            "jobs",
        ];
        let set = self.differences(&WorkloadConfig::default(), &[]);
        KERNEL_FIELDS.into_iter().find_map(|field| {
            let (_, value) = set.iter().find(|(name, _)| name == field)?;
            Some(match field {
                "jobs" => (field, format!("{} [[workload.jobs]] table(s)", self.jobs.len())),
                _ => (field, value.clone()),
            })
        })
    }

    /// Refuses a kernel field that `source` (what brings the ranks and messages instead, e.g.
    /// "with workload.trace: the trace") would leave unread, naming the field and its value.
    pub fn refuse_kernel_fields(&self, source: &str) -> crate::error::Result<()> {
        match self.kernel_field_set() {
            None => Ok(()),
            Some((field, value)) => Err(crate::error::Error::invalid(
                "config",
                format!("workload.{field}"),
                value,
                format!("left out {source} gives the ranks and their messages (a kernel's fields are not read)"),
            )),
        }
    }
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            kernel: Kernel::Bt,
            tasks: 0,
            message_bytes: 640,
            length_evolution: LengthEvolution::Constant,
            compute_cycles: 0,
            return_sweep: false,
            wrap: false,
            diagonals: false,
            burst_messages: 40,
            mesh: Vec::new(),
            placement: PlacementKind::Linear,
            placement_list: Vec::new(),
            tasks_per_terminal: 1,
            stall_cycles: 1_000_000,
            algorithm: CollectiveAlgorithm::Auto,
            segment_bytes: 8192,
            root: 0,
            trace: None,
            format: TraceFormat::Auto,
            cpu_factor: 1.0,
            cycle_ns: 1.0,
            flops_per_second: 1e9,
            jobs: Vec::new(),
            first_terminal: 0,
            packet_cells_min: 0,
            packet_cells_max: 0,
        }
    }
}
