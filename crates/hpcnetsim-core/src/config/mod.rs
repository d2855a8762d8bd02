//! The simulation config: one value read from TOML (files) or JSON (Python dicts) into
//! the same structs, then validated. Every field is documented here once; the config
//! reference in `docs/config.md` follows these comments.

pub mod bounds;
pub mod files;
mod flow;
mod link;
pub mod nic;
pub mod presets;
mod references;
mod routing;
pub mod sources;
pub mod switch;
pub mod tables;
pub mod technology;
pub mod technology_fields;
pub mod units;
mod workload;

use crate::error::{Error, Result};
pub use flow::{FlowConfig, Measure, Model, PathsKind};
pub use link::LinkConfig;
pub use nic::{Buffer, NicConfig, NicModel};
pub use routing::{AddressPolicy, Algorithm, Method, PlaneSelection, RoutingConfig, Selection, TableRouting, TieBreak};
use serde::{Deserialize, Serialize};
pub use technology_fields::TechnologyFields;
pub use units::Clock;
pub use workload::{CollectiveAlgorithm, Kernel, LengthEvolution, PlacementKind, TraceFormat, WorkloadConfig};

/// The name a config file uses for an enum value (`"bubble-adaptive"`, `"2w"`), for messages.
pub fn config_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// The fields of `own` whose values differ from `base`'s, by name, each with its value as a
/// config error shows it (`'doubling'`, `[4,4]`, `0.5`): what a table sets beside a choice
/// that would leave it unread.
pub(crate) fn differences<T: Serialize>(own: &T, base: &T) -> Vec<(String, String)> {
    let (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) =
        (serde_json::to_value(own), serde_json::to_value(base))
    else {
        return Vec::new();
    };
    a.into_iter()
        .filter(|(k, v)| b.get(k) != Some(v))
        .map(|(k, v)| {
            let shown = v.as_str().map(|s| format!("'{s}'")).unwrap_or_else(|| v.to_string());
            (k, shown)
        })
        .collect()
}

/// A whole simulation: network, switch model, routing, traffic and measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Topology spec, e.g. `tree:k=8,kp=4,n=4` or `torus:8x8`.
    pub topology: String,
    /// Master seed; every random stream derives from it and a component id.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Switch and NIC model.
    #[serde(default)]
    pub switch: SwitchConfig,
    /// Routing algorithm and selection policy.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// Independent-source synthetic traffic.
    #[serde(default)]
    pub traffic: TrafficConfig,
    /// Warm-up, convergence and batch schedule.
    #[serde(default)]
    pub measurement: MeasurementConfig,
    /// A causal workload (task programs) instead of independent traffic: the run then
    /// measures the execution time of the programs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadConfig>,
    /// `packet` (the packet engine) or `flow` (the flow-level model, docs/flow.md).
    #[serde(default, skip_serializing_if = "Model::is_packet")]
    pub model: Model,
    /// The flow-level model's paths, link bandwidth and benchmark settings.
    #[serde(default, skip_serializing_if = "FlowConfig::is_default")]
    pub flow: FlowConfig,
    /// A technology preset (`qsnet`, `extoll`, `qdr-infiniband`, `ndr-infiniband`) filling
    /// the link, switch, packet and NIC fields the config leaves at their defaults.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub technology: String,
    /// Physical clock of the links: cycle time or bandwidth, switch and wire latencies.
    #[serde(default, skip_serializing_if = "LinkConfig::is_default")]
    pub link: LinkConfig,
    /// Network interface and host model (off by default).
    #[serde(default, skip_serializing_if = "NicConfig::is_default")]
    pub nic: NicConfig,
    /// The statistics collected beyond the result's own (off by default).
    #[serde(default, skip_serializing_if = "crate::observe::StatsConfig::is_default")]
    pub stats: crate::observe::StatsConfig,
}

fn default_seed() -> u64 {
    1
}

/// Output-port arbitration among the input queues requesting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arbitration {
    /// Uniformly at random among the requesters (the papers' model).
    Random,
    /// Round-robin over input queues, starting after the last winner.
    RoundRobin,
    /// The packet that entered the network first.
    OldestFirst,
    /// iSLIP (McKeown 1999): inputs request, outputs grant round-robin, inputs accept
    /// round-robin, `switch.islip_iterations` times; an input port sends one packet at a time.
    Islip,
}

/// How a switch hands its output links to packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputAllocation {
    /// INSEE (papers 000/002): each output VC is reserved by one packet until its tail has
    /// left, whether or not the link is free; the link sends the packets of the reserved VCs
    /// one after another, taking the VCs round-robin from the one after the last sender.
    Vc,
    /// A grant takes the physical output link for the whole packet: a packet is granted
    /// only when the link is free, and the link serves one packet at a time.
    Link,
}

/// The switch model: input-buffered, credit-based flow control (docs/engine.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "crate::config::presets::SwitchFields")]
pub struct SwitchConfig {
    /// Named preset whose values the other fields override: `insee` (papers 000/002),
    /// `extoll` (paper 003), `elite` (paper 004).
    pub preset: String,
    /// Capacity of every input FIFO (one per input port per VC), in packets of the largest size.
    pub queue_packets: u32,
    /// Virtual channels per link (1 to 8).
    pub vcs: u32,
    /// Capacity of the NIC injection queue, in packets; packets generated while it is full are dropped.
    pub injection_queue_packets: u32,
    /// VCs a NIC may inject on (0 = INSEE's rule: one on tori, meshes, twin tori and
    /// HyperX, whose routers inject from a single injection port; every VC on trees and
    /// crossbars, whose NICs pick the least occupied VC of their link).
    pub injection_vcs: u32,
    /// Output-port arbitration policy (among the input queues requesting one output VC, or
    /// one output link with `output_allocation = "link"`).
    pub arbitration: Arbitration,
    /// Whether output VCs are reserved one by one and share the link (`vc`, INSEE) or a
    /// grant takes the whole link (`link`).
    pub output_allocation: OutputAllocation,
    /// Cycles for a packet head to cross a switch (routing, arbitration, crossbar); INSEE
    /// counts switching and transmission as one cycle, kept here as the link delay.
    pub switch_delay_cycles: u32,
    /// Cycles for a phit to cross a link.
    pub link_delay_cycles: u32,
    /// Cycles between a packet's tail leaving a queue and the freed room being usable upstream.
    pub credit_delay_cycles: u32,
    /// Bytes per phit (16 in paper 000, 4 in paper 002); used to split messages into packets.
    pub phit_bytes: u32,
    /// Buffer organisation: `fifo` (per input port and VC) or `voq` (virtual output queues).
    #[serde(skip_serializing_if = "switch::Buffers::is_fifo")]
    pub buffers: switch::Buffers,
    /// `cut-through` (virtual cut-through) or `wormhole`.
    #[serde(skip_serializing_if = "switch::Switching::is_cut_through")]
    pub switching: switch::Switching,
    /// iSLIP iterations per matching (`arbitration = "islip"`).
    pub islip_iterations: u32,
    /// What one credit stands for: `packet`, `phit` or `cell`.
    #[serde(skip_serializing_if = "switch::CreditUnit::is_phit")]
    pub credit_unit: switch::CreditUnit,
    /// Bytes per cell (`credit_unit = "cell"`), taken in whole phits.
    pub cell_bytes: u32,
    /// Traffic classes; `vcs` is split evenly among them (each needs at least one VC).
    #[serde(skip_serializing_if = "switch::is_one")]
    pub traffic_classes: u32,
    /// Cycles of the routing stage, added to a head's delay through a switch.
    pub routing_delay_cycles: u32,
    /// Cycles to write a head into the input buffer.
    pub buffer_write_cycles: u32,
    /// Cycles of the arbitration stage.
    pub arbitration_delay_cycles: u32,
    /// Cycles to cross the crossbar.
    pub crossbar_delay_cycles: u32,
    /// Cycles of the link between a NIC and its switch. Unset: a NIC's link is timed like
    /// any other, every switch stage plus `link_delay_cycles` on injection too. Set: a
    /// packet reaches its first switch's buffer this many cycles after the NIC starts it
    /// (a NIC has no switch stages), and its last switch delivers it after its stages plus
    /// this many cycles, so a route of h switch-to-switch links crosses h + 1 switches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nic_link_delay_cycles: Option<u32>,
    /// iSLIP only: fewest cycles the crossbar input of a port spends on one packet (a
    /// per-packet stage such as a routing unit per input port); 0: the packet's length.
    #[serde(skip_serializing_if = "switch::is_zero")]
    pub input_packet_cycles: u32,
    /// Wormhole switching only: room of every VC buffer in flits (phits); 0 = `queue_packets`
    /// packets of the largest size.
    #[serde(skip_serializing_if = "switch::is_zero")]
    pub buffer_flits: u32,
    /// The fields of the switch technologies (`speedup` and `output_queue_packets` of the
    /// output-queued switch, ...), as written: each technology declares, reads and checks its
    /// own (`crate::switch`), so none is listed here.
    #[serde(flatten)]
    pub technology_fields: TechnologyFields,
}

impl SwitchConfig {
    /// The VCs a NIC injects on in a network of `family` (`injection_vcs`, with 0 resolved).
    pub fn nic_vcs(&self, family: &crate::topology::Family) -> usize {
        match self.injection_vcs {
            0 if family.is_direct() => 1,
            0 => self.vcs as usize,
            n => n as usize,
        }
    }

    /// Phits per cell: a cell's bytes rounded up to whole phits (at least one).
    pub fn cell_phits(&self) -> u32 {
        self.cell_bytes.div_ceil(self.phit_bytes.max(1)).max(1)
    }

    /// VCs of one traffic class.
    pub fn class_vcs(&self) -> u32 {
        self.vcs / self.traffic_classes.max(1)
    }
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig {
            preset: "insee".into(),
            queue_packets: 4,
            vcs: 1,
            injection_queue_packets: 8,
            injection_vcs: 0,
            arbitration: Arbitration::Random,
            output_allocation: OutputAllocation::Vc,
            switch_delay_cycles: 0,
            link_delay_cycles: 1,
            credit_delay_cycles: 0,
            phit_bytes: 16,
            buffers: switch::Buffers::Fifo,
            switching: switch::Switching::CutThrough,
            islip_iterations: 1,
            credit_unit: switch::CreditUnit::Phit,
            cell_bytes: 16,
            traffic_classes: 1,
            routing_delay_cycles: 0,
            buffer_write_cycles: 0,
            arbitration_delay_cycles: 0,
            crossbar_delay_cycles: 0,
            nic_link_delay_cycles: None,
            input_packet_cycles: 0,
            buffer_flits: 0,
            technology_fields: TechnologyFields::default(),
        }
    }
}

/// Destination patterns of independent traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatternKind {
    /// Any other terminal with equal probability (never the source).
    Uniform,
    /// Destination = source with every address bit inverted (N a power of two).
    BitComplement,
    /// Destination = source with its address bits in reverse order (N a power of two).
    BitReversal,
    /// Destination = source with the two halves of its address swapped (N an even power of two).
    Transpose,
    /// Destination = source rotated left by one bit (N a power of two).
    PerfectShuffle,
    /// Destination = source with its first and last address bits swapped (N a power of two).
    Butterfly,
    /// Tori and meshes: ⌈k/2⌉ − 1 steps along every dimension; others: N/2 − 1 terminals on.
    Tornado,
    /// A random neighbour: ±1 along a random dimension (tori and meshes) or in terminal order.
    NearestNeighbour,
    /// A fixed random permutation without fixed points, drawn from the seed.
    RandomPermutation,
    /// Dragonflies: every terminal to the same terminal of the next group (Kim et al.'s
    /// worst case: a group's traffic all wants the one link to the next group).
    GroupShift,
    /// A fraction `hot_fraction` of packets to the `hot_nodes`, the rest uniform.
    HotSpot,
    /// A fraction `hot_fraction` of packets to the first `hot_region_fraction` of the terminals.
    HotRegion,
    /// Destination rank drawn from a Zipf law with exponent `zipf_exponent` (rank 1 = nearest
    /// terminal index after the source, or the next terminal of a seeded random order:
    /// `zipf_ranks`).
    Zipf,
}

/// How the `zipf` pattern orders each source's destinations into ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZipfRanks {
    /// Rank r is the r-th terminal index after the source.
    #[default]
    Index,
    /// Rank r is the r-th terminal after the source in a fixed random order of the
    /// terminals drawn from the seed: the same law, no topological locality.
    Shuffled,
}

/// Whether `v` is its type's default: the fields serialised configs leave out while they keep
/// it (`skip_serializing_if`).
pub(crate) fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// How sources decide when to generate packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Injection {
    /// One Bernoulli trial per cycle with probability load / packet size.
    Bernoulli,
    /// On/off bursts: back-to-back packets while on (mean `burst_packets`), silent while off,
    /// with the off periods sized to give the offered load on average.
    Bursty,
}

/// Independent-source synthetic traffic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficConfig {
    /// Destination pattern.
    pub pattern: PatternKind,
    /// Offered load in phits per cycle per node, in [0, 1].
    pub load: f64,
    /// Injection process.
    pub injection: Injection,
    /// Packet size in phits (fixed), when `packet_phits_max` is 0.
    pub packet_phits: u32,
    /// With a value > 0: sizes uniform in `[packet_phits, packet_phits_max]`.
    pub packet_phits_max: u32,
    /// Mean burst length in packets for bursty injection.
    pub burst_packets: f64,
    /// Hot-spot destinations.
    pub hot_nodes: Vec<usize>,
    /// Fraction of packets sent to the hot nodes or hot region.
    pub hot_fraction: f64,
    /// Fraction of the terminals (the lowest indices) forming the hot region.
    pub hot_region_fraction: f64,
    /// Zipf exponent (> 0).
    pub zipf_exponent: f64,
    /// Order of the Zipf ranks: terminal indices, or a seeded random order. Left out of
    /// serialised configs when `index` (the order before it existed), so that every existing
    /// config keeps its canonical form (`config show`, exported configs, reports).
    #[serde(default, skip_serializing_if = "is_default")]
    pub zipf_ranks: ZipfRanks,
}

impl TrafficConfig {
    /// The first field set to other than its default that a workload run does not read
    /// (everything but the packet sizes), with its value as messages show it.
    fn unread_beside_a_workload(&self) -> Option<(String, String)> {
        differences(self, &TrafficConfig::default()).into_iter().find(|(k, _)| !k.starts_with("packet_phits"))
    }
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            pattern: PatternKind::Uniform,
            load: 0.1,
            injection: Injection::Bernoulli,
            packet_phits: 16,
            packet_phits_max: 0,
            burst_packets: 8.0,
            hot_nodes: Vec::new(),
            hot_fraction: 0.1,
            hot_region_fraction: 0.125,
            zipf_exponent: 1.0,
            zipf_ranks: ZipfRanks::Index,
        }
    }
}

impl TrafficConfig {
    /// Refuses a pattern's or the bursty injection's own field set (away from its default)
    /// beside a pattern or injection that does not read it: `zipf_exponent = 2` beside
    /// `uniform` would go unread and the run would look like what it is not. (`hot_nodes` is
    /// checked with any pattern, as its terminals are.)
    fn refuse_unread_fields(&self) -> Result<()> {
        use PatternKind::*;
        let d = TrafficConfig::default();
        let pattern = config_name(&self.pattern);
        let fields: [(&str, bool, String, &[PatternKind]); 4] = [
            ("zipf_exponent", self.zipf_exponent != d.zipf_exponent, bounds::num(self.zipf_exponent), &[Zipf]),
            ("zipf_ranks", self.zipf_ranks != d.zipf_ranks, config_name(&self.zipf_ranks), &[Zipf]),
            (
                "hot_fraction",
                self.hot_fraction != d.hot_fraction,
                bounds::num(self.hot_fraction),
                &[HotSpot, HotRegion],
            ),
            (
                "hot_region_fraction",
                self.hot_region_fraction != d.hot_region_fraction,
                bounds::num(self.hot_region_fraction),
                &[HotRegion],
            ),
        ];
        for (field, set, value, readers) in fields {
            if set && !readers.contains(&self.pattern) {
                let names: Vec<String> = readers.iter().map(config_name).collect();
                return Err(Error::invalid(
                    "config",
                    format!("traffic.{field}"),
                    value,
                    format!("left out with pattern '{pattern}', which does not read it (read by {})", names.join(", ")),
                ));
            }
        }
        if self.burst_packets != d.burst_packets && self.injection != Injection::Bursty {
            return Err(Error::invalid(
                "config",
                "traffic.burst_packets",
                bounds::num(self.burst_packets),
                format!(
                    "left out with injection '{}', which does not read it (read by bursty)",
                    config_name(&self.injection)
                ),
            ));
        }
        Ok(())
    }

    /// Largest packet size in phits.
    pub fn max_packet_phits(&self) -> u32 {
        self.packet_phits.max(self.packet_phits_max)
    }

    /// Mean packet size in phits.
    pub fn mean_packet_phits(&self) -> f64 {
        if self.packet_phits_max > 0 {
            (self.packet_phits + self.packet_phits_max) as f64 / 2.0
        } else {
            self.packet_phits as f64
        }
    }
}

/// The throughput methodology of paper 000 §5.1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MeasurementConfig {
    /// Cycles simulated before anything is measured.
    pub warmup_cycles: u64,
    /// Length of the windows in which accepted load is measured during convergence.
    pub window_cycles: u64,
    /// Consecutive windows that must agree for the network to count as converged.
    pub convergence_windows: u32,
    /// Largest relative spread (max − min over mean) of those windows.
    pub convergence_tolerance: f64,
    /// Give up (status `not-converged`) after this many convergence cycles.
    pub max_convergence_cycles: u64,
    /// Number of measurement batches.
    pub batches: u32,
    /// Length of each batch in cycles.
    pub batch_cycles: u64,
    /// Abort with status `deadlock` after this many cycles without any delivery while
    /// packets are in the network.
    pub deadlock_cycles: u64,
    /// Include every channel's utilisation in the result (otherwise only a summary).
    pub per_link_utilisation: bool,
}

impl Default for MeasurementConfig {
    fn default() -> Self {
        MeasurementConfig {
            warmup_cycles: 30_000,
            window_cycles: 1_000,
            convergence_windows: 4,
            convergence_tolerance: 0.05,
            max_convergence_cycles: 200_000,
            batches: 10,
            batch_cycles: 5_000,
            deadlock_cycles: 20_000,
            per_link_utilisation: false,
        }
    }
}

/// The tables of a config. serde reads a struct from a list as well, its fields in order, so
/// `traffic = ["tornado", 0.9]` ran as a pattern and a load and `workload = ["bu"]` as a kernel:
/// a list is refused where a table belongs (the top-level tables and the jobs of a workload).
const TABLES: [&str; 9] = ["switch", "routing", "traffic", "measurement", "workload", "flow", "link", "nic", "stats"];

fn check_tables(doc: &serde_json::Value) -> Result<()> {
    use serde_json::Value;
    let refuse = |field: String, value: &Value, header: &str| {
        Err(Error::invalid("config", field, shown(value), format!("a table ({header} with named fields)")))
    };
    let Some(top) = doc.as_object() else { return Ok(()) };
    for key in TABLES {
        match top.get(key) {
            Some(v @ Value::Array(_)) => return refuse(key.to_string(), v, &format!("[{key}]")),
            Some(Value::Object(workload)) if key == "workload" => {
                if let Some(Value::Array(jobs)) = workload.get("jobs") {
                    if let Some((i, job)) = jobs.iter().enumerate().find(|(_, j)| j.is_array()) {
                        return refuse(format!("workload.jobs[{i}]"), job, "[[workload.jobs]]");
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A value as TOML writes it (`["bu", 8]`, `{ kernel = "bu" }`), for messages.
fn shown(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Array(items) => format!("[{}]", items.iter().map(shown).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let fields: Vec<String> = map.iter().map(|(k, v)| format!("{k} = {}", shown(v))).collect();
            format!("{{ {} }}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

impl Config {
    /// Reads a config from TOML text and checks everything but the switch technologies' own
    /// fields; errors name the offending key. `Config::from_toml` (`switch/parameters.rs`)
    /// checks those too.
    pub(crate) fn read_toml(text: &str, dir: Option<&std::path::Path>) -> Result<Config> {
        // Text that is no TOML table fails below, with its line.
        if let Ok(table) = toml::from_str::<toml::Table>(text) {
            check_tables(&serde_json::to_value(table).unwrap_or_default())?;
        }
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let msg = bounds::plain(&e.message().replace('\n', " "));
            let at = e.span().map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                // The table the bad key sits in, for messages such as "unknown field".
                let table = before.lines().rev().find_map(|l| {
                    let l = l.trim();
                    (l.starts_with('[') && l.ends_with(']'))
                        .then(|| l.trim_matches(|c| c == '[' || c == ']').to_string())
                });
                match table {
                    Some(t) => format!("line {line} (in [{t}]): "),
                    None => format!("line {line}: "),
                }
            });
            Error::Unsupported(format!("config: {}{msg}", at.unwrap_or_default()))
        })?;
        let cfg = match cfg.technology.is_empty() {
            true => cfg,
            false => {
                let table: toml::Table = toml::from_str(text).expect("parsed above");
                Config::with_technology(serde_json::to_value(table).expect("TOML values are JSON values"))?
            }
        };
        match dir {
            Some(dir) => cfg.files_relative_to(dir).resolved(),
            None => cfg.resolved(),
        }
    }

    /// The config of `value` with its technology preset filled in (see `technology::apply`).
    fn with_technology(value: serde_json::Value) -> Result<Config> {
        let merged = technology::apply(value)?;
        serde_path_to_error::deserialize(merged).map_err(|e| {
            let path = e.path().to_string();
            Error::Unsupported(format!("config: {path}: {}", bounds::plain(&e.into_inner().to_string())))
        })
    }

    /// Times of `[link]` converted to cycles, then every value validated.
    fn resolved(mut self) -> Result<Config> {
        self.apply_link_times()?;
        // A fabric has no coordinates for an algorithmic routing: its own routing, what
        // `auto` stands for, is forwarding tables with the default engine (DFSSSP, which
        // layers its paths on lanes until none deadlocks).
        if self.routing.method == Method::Algorithm(Algorithm::Auto)
            && crate::topology::spec::names_a_fabric(&self.topology)
        {
            self.routing.method = Method::Table(TableRouting::default());
        }
        self.validate()?;
        Ok(self)
    }

    /// Reads a config from JSON text (what the Python API sends), checked as [`Config::read_toml`];
    /// errors name the key path.
    pub(crate) fn read_json(text: &str) -> Result<Config> {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            check_tables(&value)?;
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let cfg: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            let inner = bounds::plain(inner.split(" at line").next().unwrap_or(&inner));
            // serde_json's whole message for a name (an enum) given as a number or a list: the
            // JSON itself comes from our own encoder, so it is never a syntax error.
            let inner = if inner == "expected value" { bounds::NAME_EXPECTED.to_string() } else { inner };
            Error::Unsupported(format!("config: {path}: {inner}"))
        })?;
        let cfg = match cfg.technology.is_empty() {
            true => cfg,
            false => Config::with_technology(serde_json::from_str(text).expect("parsed above"))?,
        };
        cfg.resolved()
    }

    /// Checks every value against what the model accepts (the routing against the topology's
    /// family and the VCs when the config is read, `switch::parameters`; table routing, and a
    /// routing on a network with faulty links, when the network is built).
    pub fn validate(&self) -> Result<()> {
        let bad = |field: &str, value: &dyn std::fmt::Display, allowed: &str| {
            Err(Error::invalid("config", field, value, allowed))
        };
        // The spec is parsed (not built) so that a bad topology fails with the config.
        let family = crate::topology::check_spec(&self.topology)?;
        if let Err((field, value, allowed)) = self.stats.validate() {
            return bad(field, &value, allowed);
        }
        // The engine's name was checked when it was read, and fields of table routing beside
        // another algorithm (`config/routing.rs`).
        if let Some(l) = self.routing.table().map(|t| t.lmc).filter(|&l| l > tables::MAX_LMC) {
            return bad("routing.lmc", &l, "an integer between 0 and 7");
        }
        let s = &self.switch;
        if !(1..=64).contains(&s.queue_packets) {
            return bad("switch.queue_packets", &s.queue_packets, "an integer between 1 and 64");
        }
        let max_vcs = if s.traffic_classes > 1 { 16 } else { 8 };
        if !(1..=max_vcs).contains(&s.vcs) {
            return bad("switch.vcs", &s.vcs, "an integer between 1 and 8 (16 with switch.traffic_classes > 1)");
        }
        if s.injection_vcs > s.vcs {
            return bad("switch.injection_vcs", &s.injection_vcs, "0 (INSEE's rule) or between 1 and switch.vcs");
        }
        if !(1..=1024).contains(&s.injection_queue_packets) {
            return bad("switch.injection_queue_packets", &s.injection_queue_packets, "an integer between 1 and 1024");
        }
        if s.switch_delay_cycles + s.link_delay_cycles == 0
            || s.switch_delay_cycles > 1000
            || s.link_delay_cycles > 1000
        {
            return bad(
                "switch.link_delay_cycles",
                &s.link_delay_cycles,
                "delays between 0 and 1000 with switch_delay_cycles + link_delay_cycles >= 1",
            );
        }
        if s.credit_delay_cycles > 1000 {
            return bad("switch.credit_delay_cycles", &s.credit_delay_cycles, "an integer between 0 and 1000");
        }
        // Up to 16 MiB: large phits make every message one packet (trace replays measured
        // without packetisation); beyond that a value is a typo.
        if !(1..=1 << 24).contains(&s.phit_bytes) {
            return bad("switch.phit_bytes", &s.phit_bytes, "an integer between 1 and 16777216 (16 MiB)");
        }
        let t = &self.traffic;
        if !(0.0..=1.0).contains(&t.load) || t.load.is_nan() {
            return bad("traffic.load", &bounds::num(t.load), "phits per cycle per node in [0, 1]");
        }
        if !(1..=4096).contains(&t.packet_phits) {
            return bad("traffic.packet_phits", &t.packet_phits, "an integer between 1 and 4096");
        }
        if t.packet_phits_max != 0 && !(t.packet_phits..=4096).contains(&t.packet_phits_max) {
            return bad(
                "traffic.packet_phits_max",
                &t.packet_phits_max,
                "0 (fixed size) or between packet_phits and 4096",
            );
        }
        if !(1.0..=bounds::MAX_COUNT as f64).contains(&t.burst_packets) {
            return bad(
                "traffic.burst_packets",
                &bounds::num(t.burst_packets),
                "a mean burst length between 1 and 1000000 packets",
            );
        }
        if !(0.0..=1.0).contains(&t.hot_fraction) || t.hot_fraction.is_nan() {
            return bad("traffic.hot_fraction", &bounds::num(t.hot_fraction), "a fraction in [0, 1]");
        }
        if !(t.hot_region_fraction > 0.0 && t.hot_region_fraction <= 1.0) {
            return bad("traffic.hot_region_fraction", &bounds::num(t.hot_region_fraction), "a fraction in (0, 1]");
        }
        if !(t.zipf_exponent > 0.0 && t.zipf_exponent <= 100.0) {
            return bad("traffic.zipf_exponent", &bounds::num(t.zipf_exponent), "a positive number up to 100");
        }
        t.refuse_unread_fields()?;
        let m = &self.measurement;
        // Each named on its own, with the range bounds.rs allows it.
        for (field, value, allowed) in [
            ("measurement.window_cycles", m.window_cycles, ("a number of cycles", bounds::MAX_CYCLES)),
            ("measurement.convergence_windows", m.convergence_windows as u64, ("a count", bounds::MAX_COUNT)),
            ("measurement.batches", m.batches as u64, ("a count", bounds::MAX_COUNT)),
            ("measurement.batch_cycles", m.batch_cycles, ("a number of cycles", bounds::MAX_CYCLES)),
        ] {
            if value == 0 {
                return bad(field, &value, &format!("{} between 1 and {}", allowed.0, allowed.1));
            }
        }
        if m.convergence_tolerance.is_nan() || m.convergence_tolerance <= 0.0 {
            return bad(
                "measurement.convergence_tolerance",
                &bounds::num(m.convergence_tolerance),
                "a positive fraction",
            );
        }
        if let Some(w) = &self.workload {
            // A workload's messages are its traffic: of `[traffic]` only the packet sizes are
            // read (they size the packets and the queues); a load or pattern went unread.
            if let Some((field, value)) = self.traffic.unread_beside_a_workload() {
                return bad(
                    &format!("traffic.{field}"),
                    &value,
                    "left out beside [workload]: a workload's messages are its traffic (of [traffic] \
                     only packet_phits and packet_phits_max apply)",
                );
            }
            // An empty path would otherwise fail later as an unreadable file with no name.
            if w.trace.as_deref().is_some_and(|t| t.trim().is_empty()) {
                return bad(
                    "workload.trace",
                    &format!("'{}'", w.trace.as_deref().unwrap_or_default()),
                    "the path of a trace file (docs/traces.md)",
                );
            }
            if w.trace.is_some() {
                w.refuse_kernel_fields("with workload.trace: the trace")?;
            }
            // A job's own field (where its linear or clustered placement starts): a single
            // workload always starts at terminal 0 and would leave it unread.
            if w.first_terminal != 0 && w.jobs.is_empty() {
                return bad(
                    "workload.first_terminal",
                    &w.first_terminal,
                    "0 outside a [[workload.jobs]] table: it places a job; a single workload starts at \
                     terminal 0 (placement = \"list\" places it anywhere)",
                );
            }
            if w.tasks_per_terminal == 0 || w.tasks_per_terminal > 1024 {
                return bad("workload.tasks_per_terminal", &w.tasks_per_terminal, "an integer between 1 and 1024");
            }
            if w.stall_cycles == 0 {
                return bad("workload.stall_cycles", &w.stall_cycles, "a positive number of cycles");
            }
            if w.segment_bytes == 0 {
                return bad("workload.segment_bytes", &w.segment_bytes, "a positive number of bytes");
            }
            if w.burst_messages == 0 {
                return bad("workload.burst_messages", &w.burst_messages, "a positive number of sweeps");
            }
            if !(0.0..=1e6).contains(&w.cpu_factor) {
                return bad(
                    "workload.cpu_factor",
                    &bounds::num(w.cpu_factor),
                    "a number from 0 to 10^6 (0 = network-only replay)",
                );
            }
            if !(w.cycle_ns > 0.0 && w.cycle_ns <= 1e9) {
                return bad(
                    "workload.cycle_ns",
                    &bounds::num(w.cycle_ns),
                    "a positive number of nanoseconds up to 10^9 (one second)",
                );
            }
            if w.packet_cells_max > 4096 || w.packet_cells_min > w.packet_cells_max {
                return bad(
                    "workload.packet_cells_max",
                    &w.packet_cells_max,
                    &format!("0 (unset) or between packet_cells_min = {} and 4096", w.packet_cells_min),
                );
            }
            if !(w.flops_per_second > 0.0 && w.flops_per_second <= 1e21) {
                return bad(
                    "workload.flops_per_second",
                    &bounds::num(w.flops_per_second),
                    "a positive number up to 10^21",
                );
            }
        }
        self.flow.validate()?;
        // Forwarding tables hold one route per address: the flow model follows them (split
        // over the LID offsets), so a per-hop candidate choice would be silently ignored.
        if self.routing.table().is_some() && matches!(self.flow.paths, PathsKind::First | PathsKind::Spread) {
            let name = if self.flow.paths == PathsKind::First { "'first'" } else { "'spread'" };
            return bad(
                "flow.paths",
                &name,
                "auto, minimal or valiant with routing.algorithm = 'table' (the forwarding tables give the paths)",
            );
        }
        self.clock()?;
        self.host_bytes_per_second()?;
        self.nic_model()?;
        switch::validate(self, &family)?;
        references::check(self, family.terminals())?;
        // Configs that can never give a result are refused rather than run.
        let bubble = match (self.routing.algorithm(), &family) {
            (Algorithm::BubbleAdaptive, _) => true,
            (Algorithm::Auto, crate::topology::Family::Torus(t)) => t.wrap && s.vcs < 2,
            _ => false,
        };
        if bubble && s.queue_packets < 2 {
            return bad(
                "switch.queue_packets",
                &s.queue_packets,
                "at least 2 with bubble flow control (a packet entering a ring needs room for two)",
            );
        }
        // A causal workload runs to completion: it has no convergence phase, and its
        // window_cycles are only the bins of its consumed load (docs/traces.md raises them).
        let windows = m.window_cycles.saturating_mul(m.convergence_windows as u64);
        if self.workload.is_none() && m.max_convergence_cycles < windows {
            return bad(
                "measurement.max_convergence_cycles",
                &m.max_convergence_cycles,
                &format!("at least window_cycles × convergence_windows = {windows}"),
            );
        }
        let hop = (s.switch_delay_cycles + s.link_delay_cycles) as u64;
        let transit = family.min_diameter_links() as u64 * hop + t.max_packet_phits() as u64;
        if m.deadlock_cycles < transit {
            return bad(
                "measurement.deadlock_cycles",
                &m.deadlock_cycles,
                &format!("at least {transit} cycles (one packet's transit over the longest route)"),
            );
        }
        bounds::check(self)
    }
}
