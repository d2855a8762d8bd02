//! Routing answers one question: at switch S, for a packet that came in through port P,
//! which (output port, VC) pairs are legal? Algorithmic routings compute the candidates
//! from family coordinates; a separate selection policy picks among the available ones.

pub mod hyperx;
pub mod torus;
pub mod tree;

use crate::config::{Algorithm, Config, Selection};
use crate::error::{Error, Result};
use crate::topology::{Family, Topology};
use rand::Rng;

/// One legal next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Output port of the current switch.
    pub port: u16,
    /// Virtual channel on that port.
    pub vc: u8,
    /// An escape channel (Duato): used only when no adaptive candidate is available.
    pub escape: bool,
    /// Bubble flow control: the packet enters a ring here and needs room for two packets.
    pub bubble: bool,
}

impl Candidate {
    /// A plain candidate.
    pub fn new(port: usize, vc: usize) -> Self {
        Candidate { port: port as u16, vc: vc as u8, escape: false, bubble: false }
    }
}

/// The facts of one routing decision.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// Current switch.
    pub switch: usize,
    /// Port the packet arrived through.
    pub in_port: usize,
    /// VC it arrived on.
    pub in_vc: usize,
    /// Source terminal.
    pub src: usize,
    /// Destination terminal.
    pub dst: usize,
}

/// An algorithmic routing.
pub trait Routing: Send + Sync {
    /// Name as used in configs.
    fn name(&self) -> &'static str;
    /// Appends the legal candidates for `req` to `out`.
    fn route(&self, req: &Request, out: &mut Vec<Candidate>);
}

/// Routes every packet straight to its destination's port (a crossbar, or the last hop
/// of any family when the destination hangs from this switch).
struct Direct {
    vcs: usize,
    topo_ports: Vec<(u32, u32)>,
}

impl Routing for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let (_, port) = self.topo_ports[req.dst];
        out.extend((0..self.vcs).map(|vc| Candidate::new(port as usize, vc)));
    }
}

/// Builds the configured routing for a topology, checking it suits the family and the VCs.
pub fn build(cfg: &Config, topo: &Topology) -> Result<Box<dyn Routing>> {
    let vcs = cfg.switch.vcs as usize;
    let algorithm = match (cfg.routing.algorithm, topo.family()) {
        (Algorithm::Auto, Family::Tree(_)) => Algorithm::TreeAdaptive,
        (Algorithm::Auto, Family::Torus(_)) => Algorithm::Dor,
        (Algorithm::Auto, Family::HyperX(_)) => Algorithm::HyperxDor,
        (Algorithm::Auto, Family::Crossbar(_)) => Algorithm::Direct,
        (a, _) => a,
    };
    let unsuited = |allowed: &str| {
        Error::invalid(
            "config",
            "routing.algorithm",
            format!("'{}'", algorithm_name(algorithm)),
            format!("for {} topologies one of: {allowed}", topo.family().name()),
        )
    };
    let need_vcs = |min: usize, why: &str| -> Result<()> {
        if vcs < min {
            return Err(Error::invalid("config", "switch.vcs", vcs, format!("at least {min} for {why}")));
        }
        Ok(())
    };
    Ok(match (algorithm, topo.family()) {
        (Algorithm::TreeAdaptive | Algorithm::TreeDeterministic, Family::Tree(x)) => {
            Box::new(tree::TreeRouting::new(x, vcs, algorithm == Algorithm::TreeAdaptive))
        }
        (_, Family::Tree(_)) => return Err(unsuited("auto, tree-adaptive, tree-deterministic")),
        (Algorithm::Dor, Family::Torus(t)) => {
            if t.wrap {
                need_vcs(2, "dor on a torus (two VC classes with a dateline)")?;
            }
            Box::new(torus::DimensionOrder::new(t, vcs))
        }
        (Algorithm::BubbleAdaptive, Family::Torus(t)) => Box::new(torus::BubbleAdaptive::new(t, vcs)),
        (_, Family::Torus(_)) => return Err(unsuited("auto, dor, bubble-adaptive")),
        (Algorithm::HyperxDor, Family::HyperX(h)) => Box::new(hyperx::HyperxRouting::new(h, vcs, false)),
        (Algorithm::HyperxAdaptive, Family::HyperX(h)) => {
            need_vcs(2, "hyperx-adaptive (an escape VC and adaptive VCs)")?;
            Box::new(hyperx::HyperxRouting::new(h, vcs, true))
        }
        (_, Family::HyperX(_)) => return Err(unsuited("auto, hyperx-dor, hyperx-adaptive")),
        (Algorithm::Direct, Family::Crossbar(_)) => Box::new(Direct {
            vcs,
            topo_ports: (0..topo.num_terminals())
                .map(|t| topo.terminal_attachment(t))
                .map(|(s, p)| (s as u32, p as u32))
                .collect(),
        }),
        (_, Family::Crossbar(_)) => return Err(unsuited("auto, direct")),
        (_, Family::TwinTorus(_)) => {
            return Err(Error::invalid(
                "config",
                "routing.algorithm",
                format!("'{}'", algorithm_name(algorithm)),
                "no routing is available for twin-torus topologies yet (DORT and TS-DOR are planned)",
            ))
        }
    })
}

/// Config name of an algorithm.
pub fn algorithm_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Auto => "auto",
        Algorithm::TreeAdaptive => "tree-adaptive",
        Algorithm::TreeDeterministic => "tree-deterministic",
        Algorithm::Dor => "dor",
        Algorithm::BubbleAdaptive => "bubble-adaptive",
        Algorithm::Direct => "direct",
        Algorithm::HyperxDor => "hyperx-dor",
        Algorithm::HyperxAdaptive => "hyperx-adaptive",
    }
}

/// Picks one of the available candidates (`credits` = free phits downstream for each):
/// adaptive candidates before escape ones, then by the policy.
pub fn select<R: Rng>(policy: Selection, available: &[(Candidate, u32)], rng: &mut R) -> Option<Candidate> {
    let adaptive = available.iter().any(|(c, _)| !c.escape);
    let pool = available.iter().filter(|(c, _)| !adaptive || !c.escape);
    match policy {
        Selection::First => pool.map(|&(c, _)| c).next(),
        Selection::Random => {
            let v: Vec<Candidate> = pool.map(|&(c, _)| c).collect();
            (!v.is_empty()).then(|| v[rng.random_range(0..v.len())])
        }
        Selection::MostCredits => {
            let mut best: Option<Candidate> = None;
            let (mut best_credits, mut ties) = (0, 0u32);
            for &(c, credits) in pool {
                if best.is_none() || credits > best_credits {
                    best = Some(c);
                    best_credits = credits;
                    ties = 1;
                } else if credits == best_credits {
                    // Reservoir sampling keeps every tied candidate equally likely.
                    ties += 1;
                    if rng.random_range(0..ties) == 0 {
                        best = Some(c);
                    }
                }
            }
            best
        }
    }
}
