//! The `[routing]` table. An algorithmic routing decides at every switch from coordinates and
//! takes only its name; table routing reads forwarding tables computed once by an engine
//! (InfiniBand style) and takes fields of its own (engine, LMC, a table file, the address and
//! lane policies). The config holds the choice as one tagged value, `Method`, so that code
//! reading a table field first has the table routing in hand; the TOML stays flat, as users
//! write it (`algorithm = "table"` beside the table's fields), read through `RoutingFields`.

use super::tables::{Layering, TableEngine, ENGINES};
use serde::{Deserialize, Serialize};

/// Routing algorithms (algorithmic; each family has its own).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The family's default: tree-adaptive; dor on meshes and on tori with two or more VCs,
    /// bubble-adaptive (plain bubble DOR) on tori with one VC; direct; hyperx-dor; ts-dor;
    /// dragonfly-minimal; graph-minimal; on fabrics, table routing with the default engine
    /// (the config reads `Method::Table` then, `Config::resolved`).
    Auto,
    /// Trees: minimal adaptive up-phase (any up-port), deterministic down-phase.
    TreeAdaptive,
    /// Trees: up-port chosen from the destination (destination mod k), deterministic down-phase.
    TreeDeterministic,
    /// Meshes and tori: dimension order; on tori two VC classes with a dateline on every ring.
    Dor,
    /// Tori: VC 0 is a DOR escape channel with bubble flow control, the other VCs fully
    /// adaptive minimal (Duato); paper 002's torus routing.
    BubbleAdaptive,
    /// Crossbar: straight to the destination port.
    Direct,
    /// HyperX: dimension order, one hop per unaligned dimension.
    HyperxDor,
    /// HyperX: minimal adaptive over the unaligned dimensions on VCs 1.., DOR escape on VC 0.
    HyperxAdaptive,
    /// HyperX: Valiant, dimension order to a random intermediate switch on the lower half
    /// of the VCs, then to the destination on the upper half (≥ 2 VCs).
    HyperxValiant,
    /// HyperX: UGAL-L, minimal or Valiant chosen at the source switch from local queue
    /// loads weighted by hop counts; Valiant's VC classes (≥ 2 VCs).
    HyperxUgal,
    /// HyperX: DAL, per-dimension adaptive deroutes (at most one per dimension) on VCs 1..,
    /// dimension-order escape on VC 0 (≥ 2 VCs).
    HyperxDal,
    /// Dragonflies (Kim et al.'s, the Cascade, Megafly): minimal (local, global, local), VC
    /// class 0 in the source group and 1 after the global hop (≥ 2 VCs).
    DragonflyMinimal,
    /// Dragonflies: Valiant through a random intermediate group, three VC classes (≥ 3 VCs).
    DragonflyValiant,
    /// Dragonflies: UGAL-L, minimal or Valiant chosen at the source switch from local queue
    /// loads weighted by hop counts; Valiant's VC classes (≥ 3 VCs).
    DragonflyUgal,
    /// Dragonflies: UGAL-G, as UGAL-L but weighing the queues of the global channels each
    /// way would take, wherever in the source group they are (≥ 3 VCs; runs on one thread).
    DragonflyUgalG,
    /// Dragonflies: PAR (Jiang, Kim and Dally 2009), UGAL-L at the source switch and once
    /// more at the next switches of a minimally routed packet's source group (≥ 4 VCs).
    DragonflyPar,
    /// Slim Fly and Jellyfish: every minimal next hop of the switch graph, VC class = hops
    /// taken (≥ diameter VCs).
    GraphMinimal,
    /// Slim Fly and Jellyfish: Valiant through a random intermediate switch, hop classes
    /// (≥ 2 × diameter VCs).
    GraphValiant,
    /// Slim Fly and Jellyfish: UGAL-L, minimal or Valiant chosen at the source switch from
    /// local queue loads weighted by hop counts (≥ 2 × diameter VCs).
    GraphUgal,
    /// Twin tori: dimension order with four internal-link VCs (paper 003 §2.2).
    Dort,
    /// Twin tori: twin-source dimension order, PE0's packets d_0 → d_{n−1} and PE1's
    /// d_{n−1} → d_0 on separate VC pairs (paper 003 §3.1).
    TsDor,
    /// Tori: dimension order with the upper/lower VC rule of paper 003 (class 1 while the
    /// destination coordinate is above the current one, class 0 otherwise).
    DorUpperLower,
    /// Any topology: forwarding tables computed by `routing.engine` (or loaded from
    /// `routing.tables`), InfiniBand style (docs/routing.md). The name of `Method::Table`
    /// in the `algorithm` field; a `Method::Algorithm` never holds it.
    Table,
    /// Meshes and tori: Duato's fully adaptive minimal routing on VCs 2.., with dimension
    /// order (upper/lower rule) on VCs 0-1 as escape; paper 003's adaptive 3D torus (≥ 3 VCs).
    Duato,
}

/// How a sender picks the LID offset (virtual destination) of each packet under table
/// routing with LMC > 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AddressPolicy {
    /// Offsets in turn, per sender (Open MPI's bfo layer).
    RoundRobin,
    /// A uniformly random offset per packet.
    Random,
    /// Paper 001 Table 1 by source and destination quadrant and message size (PARX).
    Parx,
}

/// Choice among the legal candidates of a routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// INSEE (paper 000 §4): among every legal candidate, free or not, the one whose
    /// downstream queue holds the fewest phits, ties at random; the packet requests it only
    /// if it can take it now (output free, room for the whole packet), otherwise it chooses
    /// again next cycle. An escape candidate is requested when the choice cannot be taken.
    LeastOccupied,
    /// Among the available candidates (free, with room), the one with the most credits
    /// downstream; ties at random.
    MostCredits,
    /// Uniformly at random among the available candidates.
    Random,
    /// The first available candidate in the routing's order.
    First,
}

/// How a selection policy chooses among candidates it rates equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Uniformly at random.
    #[default]
    Uniform,
    /// At random, the first tied candidate in the routing's order counting twice (among n
    /// ties it is taken with probability 2/(n + 1), each other with 1/(n + 1)). INSEE's
    /// `min_queue_occupation` (`request_ports.c`) stores the port that sets a new minimum and
    /// then again through the equality test that follows, so its tree routings draw this
    /// way; offered to replay them, not as a better rule.
    FirstTwice,
}

/// How the NICs of a multi-plane network (`SPEC|planes:N`) pick the plane of each packet of
/// independent traffic, and of each message of a causal workload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaneSelection {
    /// The planes in turn, per endpoint (multi-rail MPI's striping of messages).
    #[default]
    RoundRobin,
    /// A uniformly random plane.
    Random,
    /// A fixed plane per pair of endpoints, (source + destination) mod planes: static,
    /// as when each process is bound to one rail.
    Hash,
    /// The plane whose NIC port at the endpoint has the fewest packets (messages) waiting;
    /// ties go to the first after the last plane chosen.
    ShortestQueue,
    /// A message's packets split evenly over every plane, as multi-rail MPI stripes large
    /// messages (packets of independent traffic: round-robin; cell-granular messages: the
    /// whole message round-robin).
    Stripe,
}

/// The `[routing]` table: the selection policy and the routing method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RoutingFields", into = "RoutingFields")]
pub struct RoutingConfig {
    /// Selection policy among the legal candidates.
    pub selection: Selection,
    /// How the selection policy breaks ties.
    pub tie_break: TieBreak,
    /// The routing: an algorithm, or forwarding tables with their fields.
    pub method: Method,
    /// Multi-plane networks: how a NIC picks the plane of a packet or message.
    pub plane_selection: PlaneSelection,
}

/// How packets find their way: an algorithmic routing, or forwarding tables.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// An algorithmic routing (never `Algorithm::Table`).
    Algorithm(Algorithm),
    /// Forwarding tables (`algorithm = "table"`).
    Table(TableRouting),
}

/// Table routing's fields.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRouting {
    /// The engine computing the tables (default dfsssp).
    pub engine: TableEngine,
    /// LID mask control, 2^lmc addresses per terminal (default 0; parx uses 2; ksp 3 by
    /// default, 8 paths per pair).
    pub lmc: u8,
    /// A table dump file to load instead of computing tables.
    pub tables: Option<String>,
    /// How senders pick the LID offset (default round-robin).
    pub address: AddressPolicy,
    /// How DFSSSP and PARX assign lanes (default placement; opensm: OpenSM's procedure,
    /// docs/routing.md).
    pub layering: Layering,
}

impl Default for TableRouting {
    fn default() -> Self {
        TableRouting {
            engine: TableEngine::default(),
            lmc: 0,
            tables: None,
            address: AddressPolicy::RoundRobin,
            layering: Layering::default(),
        }
    }
}

impl From<Algorithm> for Method {
    /// The method named by an `algorithm` value (`Table`: table routing with default fields).
    fn from(a: Algorithm) -> Method {
        match a {
            Algorithm::Table => Method::Table(TableRouting::default()),
            a => Method::Algorithm(a),
        }
    }
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig {
            selection: Selection::LeastOccupied,
            tie_break: TieBreak::Uniform,
            method: Method::Algorithm(Algorithm::Auto),
            plane_selection: PlaneSelection::RoundRobin,
        }
    }
}

impl RoutingConfig {
    /// The value of the `algorithm` field: the algorithm, or `Algorithm::Table`.
    pub fn algorithm(&self) -> Algorithm {
        match self.method {
            Method::Algorithm(a) => a,
            Method::Table(_) => Algorithm::Table,
        }
    }

    /// Table routing's fields, if the method is table routing.
    pub fn table(&self) -> Option<&TableRouting> {
        match &self.method {
            Method::Table(t) => Some(t),
            Method::Algorithm(_) => None,
        }
    }

    /// Table routing's fields, to set them (turning the method into table routing first).
    pub fn table_mut(&mut self) -> &mut TableRouting {
        if !matches!(self.method, Method::Table(_)) {
            self.method = Method::Table(TableRouting::default());
        }
        match &mut self.method {
            Method::Table(t) => t,
            Method::Algorithm(_) => unreachable!("set to table routing above"),
        }
    }
}

/// The `[routing]` table as written: flat, the table fields beside the algorithm's name.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RoutingFields {
    algorithm: Algorithm,
    selection: Selection,
    #[serde(skip_serializing_if = "super::is_default")]
    tie_break: TieBreak,
    #[serde(skip_serializing_if = "super::is_default")]
    plane_selection: PlaneSelection,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lmc: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tables: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    address: Option<AddressPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    layering: Option<Layering>,
}

impl Default for RoutingFields {
    fn default() -> Self {
        RoutingConfig::default().into()
    }
}

impl TryFrom<RoutingFields> for RoutingConfig {
    type Error = String;

    fn try_from(f: RoutingFields) -> Result<Self, String> {
        let written =
            f.engine.is_some() || f.lmc.is_some() || f.tables.is_some() || f.address.is_some() || f.layering.is_some();
        let method = match f.algorithm {
            Algorithm::Table => {
                if let Some(path) = &f.tables {
                    // A dump carries its engine's name, its LMC and its lanes: the fields that
                    // would compute tables have nothing to say, and a value there is a mistake.
                    let computing = [
                        ("engine", f.engine.clone()),
                        ("lmc", f.lmc.map(|l| l.to_string())),
                        ("layering", f.layering.map(|l| super::config_name(&l))),
                    ];
                    if let Some((field, value)) = computing.into_iter().find_map(|(n, v)| Some((n, v?))) {
                        return Err(format!(
                            "routing.{field} = '{value}' is invalid: not beside routing.tables = '{path}' \
                             (a table dump carries its engine, LMC and lanes); remove one of them"
                        ));
                    }
                }
                let d = TableRouting::default();
                let engine = match f.engine {
                    Some(name) => TableEngine::named(&name)
                        .ok_or_else(|| format!("routing.engine = '{name}' is invalid: one of {ENGINES}"))?,
                    None => d.engine,
                };
                if let Some(lmc) = f.lmc.filter(|&l| engine == TableEngine::Parx && l != 2) {
                    return Err(format!(
                        "routing.lmc = '{lmc}' is invalid: 2 or unset with routing.engine = 'parx' \
                         (PARX routes four addresses per terminal)"
                    ));
                }
                Method::Table(TableRouting {
                    engine,
                    lmc: f.lmc.unwrap_or(engine.default_lmc()),
                    tables: f.tables,
                    address: f.address.unwrap_or(d.address),
                    layering: f.layering.unwrap_or(d.layering),
                })
            }
            a if !written => Method::Algorithm(a),
            a => {
                return Err(format!(
                    "routing.algorithm = '{}' is invalid: 'table' when routing.engine, lmc, tables, address or layering is set",
                    super::config_name(&a)
                ))
            }
        };
        Ok(RoutingConfig { selection: f.selection, tie_break: f.tie_break, method, plane_selection: f.plane_selection })
    }
}

impl From<RoutingConfig> for RoutingFields {
    fn from(r: RoutingConfig) -> Self {
        let algorithm = r.algorithm();
        let mut f = RoutingFields {
            algorithm,
            selection: r.selection,
            tie_break: r.tie_break,
            plane_selection: r.plane_selection,
            engine: None,
            lmc: None,
            tables: None,
            address: None,
            layering: None,
        };
        // Table routing writes every field in force (loaded tables: the file and the address
        // policy, the dump has the rest); other methods none of them.
        if let Method::Table(t) = r.method {
            f.address = Some(t.address);
            if t.tables.is_some() {
                f.tables = t.tables;
            } else {
                f.engine = Some(t.engine.name().to_string());
                (f.lmc, f.layering) = (Some(t.lmc), Some(t.layering));
            }
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Result<RoutingConfig, String> {
        toml::from_str::<RoutingConfig>(body).map_err(|e| e.message().to_string())
    }

    #[test]
    fn the_flat_table_becomes_the_method_and_back() {
        let r = read("algorithm = \"dor\"\nselection = \"first\"").unwrap();
        assert_eq!((r.method.clone(), r.selection), (Method::Algorithm(Algorithm::Dor), Selection::First));
        assert_eq!(serde_json::to_value(&r).unwrap(), serde_json::json!({"algorithm": "dor", "selection": "first"}));
        // The default tie-break is not written (configs and their stored keys stay as they were).
        let r = read("tie_break = \"first-twice\"").unwrap();
        assert_eq!(r.tie_break, TieBreak::FirstTwice);
        assert_eq!(serde_json::to_value(&r).unwrap()["tie_break"], "first-twice");
        assert!(read("tie_break = \"last\"").unwrap_err().contains("first-twice"));
        let t = read("algorithm = \"table\"\nengine = \"parx\"\nlmc = 2").unwrap();
        let Method::Table(table) = &t.method else { panic!("{t:?}") };
        assert_eq!((table.engine, table.lmc, table.address), (TableEngine::Parx, 2, AddressPolicy::RoundRobin));
        // Table routing serialises every field in force, and reads back to the same value.
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["engine"], "parx");
        assert_eq!(json["layering"], "placement");
        assert!(json.get("tables").is_none());
        assert_eq!(serde_json::from_value::<RoutingConfig>(json).unwrap(), t);
        assert_eq!(read("algorithm = \"table\"").unwrap().table(), Some(&TableRouting::default()));
    }

    #[test]
    fn table_fields_that_would_be_ignored_are_refused() {
        for (field, shown) in [
            ("engine = \"ftree\"", "engine = 'ftree'"),
            ("lmc = 1", "lmc = '1'"),
            ("layering = \"opensm\"", "layering = 'opensm'"),
        ] {
            let e = read(&format!("algorithm = \"table\"\ntables = \"x.lft\"\n{field}")).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "routing.{shown} is invalid: not beside routing.tables = 'x.lft' (a table dump carries \
                     its engine, LMC and lanes); remove one of them"
                )
            );
        }
        let e = read("algorithm = \"table\"\nengine = \"parx\"\nlmc = 0").unwrap_err();
        assert!(e.starts_with("routing.lmc = '0' is invalid: 2 or unset with routing.engine = 'parx'"), "{e}");
        assert_eq!(read("algorithm = \"table\"\nengine = \"parx\"").unwrap().table().unwrap().lmc, 2);
        // What a config with loaded tables writes reads back to it.
        let t = read("algorithm = \"table\"\ntables = \"x.lft\"\naddress = \"random\"").unwrap();
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"algorithm": "table", "selection": "least-occupied", "tables": "x.lft", "address": "random"})
        );
        assert_eq!(serde_json::from_value::<RoutingConfig>(json).unwrap(), t);
    }

    #[test]
    fn table_fields_need_table_routing_and_a_known_engine() {
        for field in
            ["engine = \"updn\"", "lmc = 1", "tables = \"x.lft\"", "address = \"random\"", "layering = \"opensm\""]
        {
            let e = read(&format!("algorithm = \"hyperx-dor\"\n{field}")).unwrap_err();
            assert!(e.contains("routing.algorithm = 'hyperx-dor' is invalid: 'table' when"), "{field}: {e}");
        }
        let e = read("algorithm = \"table\"\nengine = \"ospf\"").unwrap_err();
        assert_eq!(e, format!("routing.engine = 'ospf' is invalid: one of {ENGINES}"));
        let names: Vec<_> = TableEngine::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(names.join(", "), ENGINES, "every engine is named in the messages");
        assert!(read("engine = \"updn\"").is_err(), "the default algorithm is not table routing");
    }
}
