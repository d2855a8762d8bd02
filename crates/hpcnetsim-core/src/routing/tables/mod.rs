//! Static routing as InfiniBand does it: a linear forwarding table (LFT) per switch, indexed
//! by destination address (LID), computed once by a routing engine, plus a service level
//! (virtual lane) per (source, destination address) path for engines that break deadlocks
//! with virtual layers.
//!
//! Addresses: with LID mask control `lmc`, every terminal `t` owns `2^lmc` virtual
//! destinations, numbered here `t · 2^lmc + offset`; in dumps they become the InfiniBand
//! LIDs `(t + 1) · 2^lmc + offset` (base LIDs aligned as the LMC demands).

pub mod dag;
pub mod dump;
pub mod engines;
pub mod fdbs;
pub mod ftree;
pub mod ksp;
pub mod layers;
pub mod opensm_layers;
pub mod sssp;
pub mod stats;

use super::deadlock::{Hop, Verdict};
pub use crate::config::tables::{Layering, TableEngine, ENGINES, LAYERINGS, MAX_LMC};
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};

/// Marks a table entry without a route (destination unreachable from this switch).
pub const NO_PORT: u16 = u16::MAX;

/// Largest number of virtual lanes usable for data (InfiniBand: VL0..VL7).
pub const MAX_VLS: usize = 8;

/// Forwarding tables of every switch, with the virtual lane of every path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tables {
    /// Engine that computed the tables (or `loaded` for a dump read back).
    pub engine: String,
    /// LID mask control: `2^lmc` virtual destinations per terminal.
    pub lmc: u8,
    /// Number of virtual lanes the paths use (1 when no layering is needed).
    pub vls: usize,
    switches: usize,
    terminals: usize,
    /// `lft[s * lids + lid]`: output port of switch `s` towards virtual destination `lid`.
    lft: Vec<u16>,
    /// `vl[src * lids + lid]`: lane of the path from terminal `src`; empty when `vls == 1`.
    vl: Vec<u8>,
}

/// Why a path could not be followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// Some switch has no entry for the destination (faults cut it off).
    Unreachable {
        /// Switch without a route.
        switch: usize,
    },
    /// The tables send the packet round a loop or to the wrong terminal.
    Broken(String),
}

impl Tables {
    /// Empty tables (every entry [`NO_PORT`]) for `topo` with the given LMC.
    pub fn new(engine: &str, topo: &Topology, lmc: u8) -> Self {
        let terminals = topo.num_terminals();
        let lids = terminals << lmc;
        Tables {
            engine: engine.to_string(),
            lmc,
            vls: 1,
            switches: topo.num_switches(),
            terminals,
            lft: vec![NO_PORT; topo.num_switches() * lids],
            vl: Vec::new(),
        }
    }

    /// Number of virtual destinations (terminals × 2^LMC).
    pub fn lids(&self) -> usize {
        self.terminals << self.lmc
    }

    /// Virtual destinations per terminal.
    pub fn offsets(&self) -> usize {
        1 << self.lmc
    }

    /// Number of switches the tables cover.
    pub fn switches(&self) -> usize {
        self.switches
    }

    /// Number of terminals the tables cover.
    pub fn terminals(&self) -> usize {
        self.terminals
    }

    /// Virtual destination of terminal `t` at LID offset `offset`.
    pub fn lid(&self, t: usize, offset: usize) -> usize {
        (t << self.lmc) + offset
    }

    /// Output port of switch `s` towards virtual destination `lid`, if any.
    pub fn port(&self, s: usize, lid: usize) -> Option<usize> {
        match self.lft[s * self.lids() + lid] {
            NO_PORT => None,
            p => Some(p as usize),
        }
    }

    /// Sets the output port of switch `s` towards virtual destination `lid`.
    pub fn set_port(&mut self, s: usize, lid: usize, port: usize) {
        let lids = self.lids();
        self.lft[s * lids + lid] = port as u16;
    }

    /// Removes the entry of switch `s` for `lid`.
    pub fn clear_port(&mut self, s: usize, lid: usize) {
        let lids = self.lids();
        self.lft[s * lids + lid] = NO_PORT;
    }

    /// Lane of the path from terminal `src` to virtual destination `lid`.
    pub fn vl(&self, src: usize, lid: usize) -> usize {
        if self.vl.is_empty() {
            0
        } else {
            self.vl[src * self.lids() + lid] as usize
        }
    }

    /// Sets the lanes of every path (`vl[src * lids + lid]`) and the number used.
    pub fn set_vls(&mut self, vl: Vec<u8>, used: usize) {
        debug_assert!(vl.is_empty() || vl.len() == self.terminals * self.lids());
        self.vls = used.max(1);
        self.vl = if used > 1 { vl } else { Vec::new() };
    }

    /// Checks that the tables were made for `topo` (same numbers of switches and terminals,
    /// ports that exist).
    pub fn check_fits(&self, topo: &Topology) -> Result<()> {
        if topo.num_switches() != self.switches || topo.num_terminals() != self.terminals {
            return Err(Error::invalid(
                "tables",
                "size",
                format!("{} switches and {} terminals", self.switches, self.terminals),
                format!(
                    "tables for {} ({} switches, {} terminals)",
                    topo.spec(),
                    topo.num_switches(),
                    topo.num_terminals()
                ),
            ));
        }
        Ok(())
    }

    /// The switch channels (and lanes) from terminal `src` to terminal `dst` through LID
    /// offset `offset`: injection link excluded, ejection link included.
    pub fn path(
        &self,
        topo: &Topology,
        src: usize,
        dst: usize,
        offset: usize,
    ) -> std::result::Result<Vec<Hop>, PathError> {
        let lid = self.lid(dst, offset);
        let vc = self.vl(src, lid) as u8;
        let (mut s, _) = topo.terminal_attachment(src);
        let mut out = Vec::new();
        for _ in 0..=self.switches {
            let Some(p) = self.port(s, lid) else {
                return Err(PathError::Unreachable { switch: s });
            };
            out.push(Hop { switch: s as u32, port: p as u16, vc });
            match topo.ports(s).get(p) {
                Some(Peer::Switch { switch, .. }) => s = *switch as usize,
                Some(Peer::Terminal(t)) if *t as usize == dst => return Ok(out),
                other => {
                    return Err(PathError::Broken(format!(
                        "switch {s} port {p} leads to {other:?} on the way from terminal {src} to {dst} (LID offset {offset})"
                    )))
                }
            }
        }
        Err(PathError::Broken(format!("terminal {src} -> {dst} (LID offset {offset}) loops through switch {s}")))
    }

    /// The switch-to-switch channels from switch `s` towards `lid` (without the ejection
    /// channel), or `None` when some switch on the way has no entry or the tables loop.
    pub(crate) fn switch_path(&self, topo: &Topology, mut s: usize, lid: usize) -> Option<Vec<usize>> {
        let mut out = Vec::new();
        for _ in 0..=self.switches {
            let p = self.port(s, lid)?;
            match topo.ports(s)[p] {
                Peer::Switch { switch, .. } => {
                    out.push(topo.channel(s, p));
                    s = switch as usize;
                }
                Peer::Terminal(t) if (t as usize) == lid >> self.lmc => return Some(out),
                _ => return None,
            }
        }
        None
    }

    /// Deadlock verdict of the tables: the channel dependency graph of every path, each on
    /// its lane.
    pub fn deadlock_verdict(&self, topo: &Topology) -> Verdict {
        let mut cdg = super::deadlock::Cdg::new(topo, self.vls);
        let mut path = Vec::new();
        let mut sources: Vec<Vec<usize>> = vec![Vec::new(); self.switches];
        for src in 0..self.terminals {
            sources[topo.terminal_attachment(src).0].push(src);
        }
        for (s, here) in sources.iter().enumerate().filter(|(_, h)| !h.is_empty()) {
            // Sources on one switch share their paths; the lane may differ per source.
            for lid in 0..self.lids() {
                let Some(p) = self.switch_path(topo, s, lid) else { continue };
                let mut lanes: Vec<usize> =
                    here.iter().filter(|&&src| lid >> self.lmc != src).map(|&src| self.vl(src, lid)).collect();
                lanes.sort_unstable();
                lanes.dedup();
                for vc in lanes {
                    path.clear();
                    path.extend(p.iter().map(|&c| (c, vc)));
                    cdg.add_path(&path);
                }
            }
        }
        cdg.verdict()
    }
}

/// Options of the routing engines.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// LID mask control (PARX forces 2).
    pub lmc: u8,
    /// Virtual lanes the layering may use.
    pub max_vls: usize,
    /// Up*/Down* roots (switch indices); empty: the documented automatic choice.
    pub roots: Vec<usize>,
    /// PARX communication demands, `(source, destination, bytes)` between terminals.
    pub demands: Vec<(usize, usize, f64)>,
    /// How DFSSSP and PARX assign lanes.
    pub layering: Layering,
    /// Whether DFSSSP, PARX and k-shortest paths put their paths on lanes. The flow model,
    /// which has no VCs, needs only the paths (the same with or without lanes), and a network
    /// needing more lanes than a table holds still has them.
    pub lanes: bool,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            lmc: 0,
            max_vls: MAX_VLS,
            roots: Vec::new(),
            demands: Vec::new(),
            layering: Layering::Placement,
            lanes: true,
        }
    }
}

/// Computes forwarding tables for `topo` with `engine`.
pub fn compute(engine: TableEngine, topo: &Topology, opts: &EngineOptions) -> Result<Tables> {
    if opts.lmc > MAX_LMC {
        return Err(Error::invalid("routing", "lmc", opts.lmc, format!("an integer between 0 and {MAX_LMC}")));
    }
    if opts.max_vls == 0 || opts.max_vls > MAX_VLS {
        return Err(Error::invalid("routing", "vls", opts.max_vls, format!("an integer between 1 and {MAX_VLS}")));
    }
    match engine {
        TableEngine::MinHop => Ok(engines::minhop(topo, opts.lmc)),
        TableEngine::Updn => engines::updn(topo, opts.lmc, &opts.roots),
        TableEngine::Sssp => Ok(sssp::sssp(topo, opts.lmc)),
        TableEngine::Dfsssp => {
            let mut t = sssp::sssp(topo, opts.lmc);
            t.engine = "dfsssp".into();
            assign_lanes(topo, &mut t, opts)?;
            Ok(t)
        }
        TableEngine::Ftree => ftree::ftree(topo, opts.lmc),
        TableEngine::Ksp => {
            let mut t = ksp::ksp(topo, opts.lmc);
            assign_lanes(topo, &mut t, opts).map_err(|e| match e {
                // Longer paths close more cycles: fewer of them need fewer lanes. Which smaller
                // lmc fits is not searched (each try is a layering: minutes on a large fabric).
                Error::Invalid { context, field, value, allowed } if opts.lmc > 0 => Error::Invalid {
                    context,
                    field,
                    value,
                    allowed: format!("{allowed}; fewer paths per pair need fewer: try an lmc below {}", opts.lmc),
                },
                other => other,
            })?;
            Ok(t)
        }
        TableEngine::Parx => {
            let mut t = sssp::parx(topo, &opts.demands)?;
            assign_lanes(topo, &mut t, opts)?;
            Ok(t)
        }
    }
}

/// The layering of `opts` on `t`, unless `opts.lanes` is off (every path then stays on lane 0).
fn assign_lanes(topo: &Topology, t: &mut Tables, opts: &EngineOptions) -> Result<()> {
    match opts.lanes {
        true => layers::assign(topo, t, opts.max_vls, opts.layering),
        false => Ok(()),
    }
}
