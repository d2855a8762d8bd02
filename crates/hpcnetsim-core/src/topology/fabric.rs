//! A fabric read from a file (ibnetdiscover output, an edge list, an AnyNet or CODES file):
//! its switches, links and terminals as read, wired as they are. The readers are
//! `import.rs`, `ibdm.rs`, `anynet.rs` and `codes.rs`.

use super::wiring::{Builder, Wiring};

/// An imported fabric: switches with their port counts, links and terminals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fabric {
    /// File the fabric came from.
    pub source: String,
    /// Switch names, in file order.
    pub switch_names: Vec<String>,
    /// Ports of every switch.
    pub ports: Vec<usize>,
    /// Switch-to-switch links `(a, port a, b, port b)`, 0-based ports.
    pub links: Vec<(usize, usize, usize, usize)>,
    /// Terminals: name, switch, port (0-based).
    pub terminals: Vec<(String, usize, usize)>,
    /// Switches per dragonfly group (`group·a + local` numbering), for fabrics read from CODES
    /// connection files: their export back to CODES needs it.
    pub group_size: Option<usize>,
}

impl Fabric {
    /// A fabric read from `source` with these switches and no links or terminals yet (the
    /// readers add them as they go).
    pub(crate) fn new(source: &str, switch_names: Vec<String>, ports: Vec<usize>) -> Fabric {
        Fabric {
            source: source.to_string(),
            switch_names,
            ports,
            links: Vec::new(),
            terminals: Vec::new(),
            group_size: None,
        }
    }

    /// The terminals on every switch when all switches have the same number (a dragonfly's,
    /// a Slim Fly's, a random regular network's), `None` otherwise (a tree's leaves).
    pub fn uniform_terminals(&self) -> Option<usize> {
        super::balanced_cut::uniform_terminals(&self.terminals_on())
    }

    /// The number of terminals on each switch.
    fn terminals_on(&self) -> Vec<u32> {
        let mut on = vec![0u32; self.ports.len()];
        for &(_, s, _) in &self.terminals {
            on[s] += 1;
        }
        on
    }

    /// Links cut by a balanced cut of the switch graph (an upper bound on the minimum
    /// bisection): refined as a Slim Fly's is when every switch has the same terminals,
    /// else split by terminals with the other switches placed by a minimum cut, as a tree's
    /// (an OpenSM fat-tree, a tapered tree); `u64::MAX` above the methods' sizes, which
    /// leaves the terminal cut N/2.
    pub fn bisection_channels(&self) -> u64 {
        let links: Vec<(usize, usize)> = self.links.iter().map(|&(a, _, b, _)| (a, b)).collect();
        let on = self.terminals_on();
        let cut = match super::balanced_cut::uniform_terminals(&on) {
            Some(p) => super::balanced_cut::best_bisection(self.ports.len(), &links, p),
            None => super::split_cut::host_split_bisection(&on, &links),
        };
        cut.unwrap_or(u64::MAX)
    }

    /// Builds the port-level graph.
    pub(crate) fn build(&self) -> Wiring {
        let mut b = Builder::new(self.ports.iter().copied());
        for &(a, pa, c, pc) in &self.links {
            b.link(a, pa, c, pc);
        }
        for &(_, s, p) in &self.terminals {
            b.attach_terminal(s, p);
        }
        b.finish(None)
    }
}
