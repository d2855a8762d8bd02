//! The static deadlock check of an algorithmic routing (`hpcnetsim route --check-deadlock`
//! for dor, bubble, duato, dort, ts-dor, tree and HyperX routings): the verdict, and the
//! graph it rests on.
//!
//! - Most routings: the channel dependency graph of every candidate they may offer
//!   (Dally and Seitz), acyclic = deadlock-free.
//! - Routings with escape channels (duato, hyperx-adaptive, hyperx-dal): Duato's condition,
//!   the extended channel dependency graph of the escape channels (direct and indirect
//!   dependencies) is acyclic; the whole graph is cyclic by design.
//! - Bubble flow control (bubble-adaptive): the escape channels' graph is cyclic along every
//!   ring, but a packet enters a ring (injection, turn, leaving an adaptive VC) only with
//!   room for two packets in the next queue, so a ring always keeps a free packet buffer
//!   and its packets advance (Carrión et al.; Puente et al., the adaptive bubble router).
//!   The verdict: the escape channels' direct dependencies without those that continue
//!   along a ring are acyclic (no cycle across rings), and queues hold at least two
//!   packets. Bubble flow control is cut-through, so packets on adaptive VCs hold no
//!   escape channel and make no indirect dependencies.
//!
//! With fewer VCs than the routing needs (1), the routing is built with the VCs it needs
//! and its VCs are merged into one channel: the control that shows what its VCs buy.

use super::deadlock::{self, Cdg, Hop, Verdict};
use super::Routing;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};
use serde::Serialize;

/// What the verdict of [`check`] rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The channel dependency graph of every candidate.
    ChannelDependencyGraph,
    /// Duato: the extended channel dependency graph of the escape channels.
    EscapeSubNetwork,
    /// Bubble flow control: no cycle across rings, room for two packets on entering one.
    BubbleCondition,
}

/// The result of the static check of one routing on one topology.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Topology spec.
    pub topology: String,
    /// The routing checked (after `auto` is resolved).
    pub routing: String,
    /// VCs of the check (the routing's own when `merged`).
    pub vcs: usize,
    /// Whether the routing's VCs were merged into one channel (fewer VCs than it needs).
    pub merged: bool,
    /// The verdict.
    pub deadlock_free: bool,
    /// What the verdict rests on.
    pub basis: Basis,
    /// The graph judged: acyclic, or one cycle of (switch, output port, VC).
    pub verdict: Verdict,
    /// For escape and bubble verdicts: the whole channel dependency graph (cyclic by design).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_graph: Option<Verdict>,
    /// One line saying why.
    pub reason: String,
}

/// Routings judged by their escape channels (Duato's condition).
const ESCAPE_ROUTINGS: [&str; 3] = ["duato", "hyperx-adaptive", "hyperx-dal"];

/// Most walks (terminal pairs × offsets × salts) the check makes: the graph is built from
/// every route, in time growing with the terminals squared (measured, release build:
/// `torus:32x32` dor 2^20 walks in 6 s, bubble 2^22 in 14 s). The escape sub-network's
/// extended graph costs about 16 times more per walk (`torus:16x16` duato: 7 s).
const MAX_WALKS: u128 = 1 << 22;
const MAX_ESCAPE_WALKS: u128 = 1 << 18;

/// Checks `cfg`'s routing (`routing.algorithm`, not `table`) on `cfg`'s topology with
/// `vcs` virtual channels (`None`: the fewest the routing accepts, from 1 up; `cfg`'s own count is
/// not read, so a config read with more VCs than the routing needs is checked alike).
pub fn check(cfg: &Config, vcs: Option<usize>) -> Result<Check> {
    crate::topology::footprint::check_describe(&cfg.topology)?;
    let mut topo = Topology::from_spec(&cfg.topology)?;
    if topo.planes() > 1 && topo.faulty_links() == 0 {
        // Packets never leave their plane, and intact planes are identical copies: the
        // channel dependency graph is one plane's, once per plane.
        topo = topo.plane().clone();
    }
    if cfg.routing.table().is_some() {
        return Err(Error::invalid(
            "route",
            "routing",
            "'table'",
            format!(
                "an algorithmic routing; forwarding tables are checked with --routing ENGINE ({})",
                super::tables::ENGINES
            ),
        ));
    }
    let (routing, built_vcs, merged) = build(cfg, &topo, vcs)?;
    let r = routing.as_ref();
    let name = r.name().to_string();
    // Refused before it would run for hours: the verdict of a family's small instance is the
    // same check of the same routing rule.
    let n = topo.num_terminals() as u128;
    let walks = n * n.saturating_sub(1) * r.offsets().max(1) as u128 * r.salts().max(1) as u128;
    let max = if ESCAPE_ROUTINGS.contains(&name.as_str()) { MAX_ESCAPE_WALKS } else { MAX_WALKS };
    if walks > max {
        return Err(Error::invalid(
            &cfg.topology,
            "size",
            format!("{n} terminals ({walks} routes to walk for {name})"),
            format!("at most {max} routes for the static check: check a smaller network of the same family"),
        ));
    }
    let full = deadlock::routing_cdg(&topo, r, built_vcs, merged, false)?.verdict();
    let mut out = Check {
        topology: cfg.topology.clone(),
        routing: name.clone(),
        vcs: built_vcs,
        merged,
        deadlock_free: full.is_acyclic(),
        basis: Basis::ChannelDependencyGraph,
        verdict: full.clone(),
        full_graph: None,
        reason: String::new(),
    };
    let graph = if merged { format!("with its {built_vcs} VCs merged into one, ") } else { String::new() };
    if full.is_acyclic() || merged {
        out.reason = if full.is_acyclic() {
            format!("{graph}the channel dependency graph is acyclic")
        } else {
            format!("{graph}the channel dependency graph has a cycle")
        };
        return Ok(out);
    }
    if name == "bubble-adaptive" {
        // The escape channels' direct dependencies: bubble flow control runs cut-through
        // (whole packets in a queue, enforced by the switch config), so a packet on an
        // adaptive VC holds no escape channel and indirect dependencies do not arise.
        let mut cdg = deadlock::routing_cdg(&topo, r, built_vcs, false, true)?;
        set_aside_ring_dependencies(&mut cdg, &topo);
        let across = cdg.verdict();
        let queues = cfg.switch.queue_packets;
        out.basis = Basis::BubbleCondition;
        out.deadlock_free = across.is_acyclic() && queues >= 2;
        out.reason = match (across.is_acyclic(), queues >= 2) {
            (true, true) => format!(
                "bubble flow control: the escape channels depend on each other in a cycle only along a ring, \
                 and a packet enters a ring only with room for two packets (queues of {queues} packets)"
            ),
            (true, false) => format!("bubble flow control needs queues of at least 2 packets, not {queues}"),
            (false, _) => "the escape channels have a cycle across rings".to_string(),
        };
        out.verdict = across;
        out.full_graph = Some(full);
        return Ok(out);
    }
    if ESCAPE_ROUTINGS.contains(&name.as_str()) {
        let escape = super::duato::extended_escape_cdg(&topo, r, built_vcs)?.verdict();
        out.basis = Basis::EscapeSubNetwork;
        out.deadlock_free = escape.is_acyclic();
        out.reason = if escape.is_acyclic() {
            "Duato: the extended channel dependency graph of the escape channels is acyclic".to_string()
        } else {
            "Duato: the extended channel dependency graph of the escape channels has a cycle".to_string()
        };
        out.verdict = escape;
        out.full_graph = Some(full);
        return Ok(out);
    }
    out.reason = "the channel dependency graph has a cycle".to_string();
    Ok(out)
}

/// The routing of `cfg` with `vcs` VCs; with 1 VC for a routing that needs more, the
/// routing with the fewest VCs it accepts and `merged` set.
fn build(cfg: &Config, topo: &Topology, vcs: Option<usize>) -> Result<(Box<dyn Routing>, usize, bool)> {
    match vcs {
        Some(0) | Some(9..) => Err(Error::invalid("route", "vcs", vcs.unwrap_or(0), "between 1 and 8")),
        Some(v) => {
            let mut c = cfg.clone();
            c.switch.vcs = v as u32;
            match super::build(&c, topo) {
                Ok(r) => Ok((r, v, false)),
                Err(e) if v == 1 => {
                    super::build_with_fewest_vcs(cfg, topo, 2).map(|(r, n)| (r, n, true)).map_err(|_| e)
                }
                Err(e) => Err(e),
            }
        }
        None => super::build_with_fewest_vcs(cfg, topo, 1).map(|(r, v)| (r, v, false)),
    }
}

/// Removes the dependencies of an escape channel on the escape channel that continues the
/// same ring at the next switch (same port: tori number ports by dimension and direction).
fn set_aside_ring_dependencies(cdg: &mut Cdg, topo: &Topology) {
    cdg.retain(|a: Hop, b: Hop| {
        let next = match topo.ports(a.switch as usize)[a.port as usize] {
            Peer::Switch { switch, .. } => Some(switch),
            _ => None,
        };
        !(a.vc == 0 && b.vc == 0 && a.port == b.port && next == Some(b.switch))
    });
}
