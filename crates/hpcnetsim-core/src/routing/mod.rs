//! Routing answers one question: at switch S, for a packet that came in through port P,
//! which (output port, VC) pairs are legal? Algorithmic routings compute the candidates
//! from family coordinates; a separate selection policy picks among the available ones.

pub mod deadlock;
pub mod hyperx;
pub mod table_lookup;
pub mod tables;
pub mod torus;
pub mod tree;
pub mod twin;

use crate::config::{Algorithm, Config, Selection};
use crate::error::{Error, Result};
use crate::topology::{Family, Topology};
use rand::Rng;

/// One legal next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// LID offset (virtual destination) the sender chose; 0 for algorithmic routings.
    pub offset: u8,
}

/// An algorithmic routing.
pub trait Routing: Send + Sync {
    /// Name as used in configs.
    fn name(&self) -> &'static str;
    /// Appends the legal candidates for `req` to `out`.
    fn route(&self, req: &Request, out: &mut Vec<Candidate>);
    /// Virtual destinations per terminal (table routing with LMC; 1 otherwise).
    fn offsets(&self) -> usize {
        1
    }
    /// The LID offset a sender uses for its next packet to `dst` (table routing).
    fn address_offset(&self, _src: usize, _dst: usize, _size_phits: u32) -> u8 {
        0
    }
    /// Uniform-traffic throughput bound under this routing's actual paths, when known
    /// (table routing), beside the topology's all-minimal-paths bound.
    fn throughput_bound(&self) -> Option<f64> {
        None
    }
    /// The only VC a packet may be injected on (table routing: its path's lane), or
    /// `None` when the NIC may choose.
    fn injection_vc(&self, _src: usize, _dst: usize, _offset: u8) -> Option<usize> {
        None
    }
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
    if cfg.routing.algorithm == Algorithm::Table {
        return Ok(Box::new(table_lookup::TableRouting::new(cfg, topo)?));
    }
    if topo.faulty_links() > 0 {
        return Err(Error::invalid(
            "config",
            "routing.algorithm",
            format!("'{}' on the faulty network {}", algorithm_name(cfg.routing.algorithm), topo.spec()),
            "table routing (algorithmic routings assume every link works; see docs/routing.md)",
        ));
    }
    let algorithm = match (cfg.routing.algorithm, topo.family()) {
        (Algorithm::Auto, Family::Tree(_)) => Algorithm::TreeAdaptive,
        // With one VC a torus has no room for a dateline: bubble flow control keeps DOR
        // deadlock-free on a single (escape) channel.
        (Algorithm::Auto, Family::Torus(t)) if t.wrap && vcs < 2 => Algorithm::BubbleAdaptive,
        (Algorithm::Auto, Family::Torus(_)) => Algorithm::Dor,
        (Algorithm::Auto, Family::HyperX(_)) => Algorithm::HyperxDor,
        (Algorithm::Auto, Family::Crossbar(_)) => Algorithm::Direct,
        (Algorithm::Auto, Family::TwinTorus(_)) => Algorithm::TsDor,
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
        (Algorithm::Dort | Algorithm::TsDor, Family::TwinTorus(t)) => {
            need_vcs(4, "twin-torus routing (two VC pairs on the internal link)")?;
            let which =
                if algorithm == Algorithm::Dort { twin::TwinAlgorithm::Dort } else { twin::TwinAlgorithm::TsDor };
            Box::new(twin::TwinRouting::new(t, which))
        }
        (_, Family::TwinTorus(_)) => return Err(unsuited("auto, dort, ts-dor")),
        (_, Family::Fabric(_)) => return Err(unsuited("table (imported fabrics have no coordinates)")),
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
        Algorithm::Dort => "dort",
        Algorithm::TsDor => "ts-dor",
        Algorithm::Table => "table",
    }
}

/// The candidates a selection policy draws from, prepared once for every packet that has
/// the same options: adaptive candidates before escape ones, and for `most-credits` only
/// those with the most credits.
#[derive(Clone, Debug, Default)]
pub struct Choice {
    pool: Vec<Candidate>,
    /// Every available candidate, eligible now or not (a packet that loses arbitration
    /// may still take one of these next cycle).
    available: Vec<Candidate>,
}

impl Choice {
    /// Prepares the choice among `available` (candidate, free phits downstream) pairs.
    pub fn prepare(&mut self, policy: Selection, available: &[(Candidate, u32)]) {
        self.pool.clear();
        self.available.clear();
        self.available.extend(available.iter().map(|&(c, _)| c));
        let adaptive = available.iter().any(|(c, _)| !c.escape);
        let eligible = available.iter().filter(|(c, _)| !adaptive || !c.escape);
        match policy {
            Selection::First => self.pool.extend(eligible.map(|&(c, _)| c).take(1)),
            Selection::Random => self.pool.extend(eligible.map(|&(c, _)| c)),
            Selection::MostCredits => {
                let best = eligible.clone().map(|&(_, credits)| credits).max();
                self.pool.extend(eligible.filter(|&&(_, credits)| Some(credits) == best).map(|&(c, _)| c));
            }
        }
    }

    /// The candidates that may be picked.
    pub fn pool(&self) -> &[Candidate] {
        &self.pool
    }

    /// Every available candidate, including those the policy passed over.
    pub fn available(&self) -> &[Candidate] {
        &self.available
    }

    /// Picks one candidate (uniformly among ties), or `None` if nothing is available.
    pub fn pick<R: Rng>(&self, rng: &mut R) -> Option<Candidate> {
        match self.pool.len() {
            0 => None,
            1 => Some(self.pool[0]),
            n => Some(self.pool[rng.random_range(0..n)]),
        }
    }
}

/// Picks one of the available candidates by `policy` (see [`Choice`]); a one-off
/// convenience: repeated callers keep a `Choice` and reuse its buffers.
pub fn select<R: Rng>(policy: Selection, available: &[(Candidate, u32)], rng: &mut R) -> Option<Candidate> {
    let mut choice = Choice::default();
    choice.prepare(policy, available);
    choice.pick(rng)
}
