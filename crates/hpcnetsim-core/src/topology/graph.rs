//! The port-level network graph shared by every topology family.
//!
//! Switches have numbered ports; each port is unplugged, linked (full duplex) to a port
//! of another switch, or attached to a terminal. A directed *channel* is identified by
//! the global index of the port it leaves from, so per-channel arrays (loads,
//! utilisation) are plain `Vec`s indexed like [`Topology::peers`].
//!
//! A [`Topology`] is a family's [`Wiring`] with the spec and the family it came from.

use super::family::Family;
use super::symmetry::Symmetry;
use super::wiring::{Peer, Wiring};

/// A built network: switches, ports, links and terminals, plus the family it came from.
#[derive(Clone, Debug)]
pub struct Topology {
    pub(crate) spec: String,
    pub(crate) family: Family,
    /// `port_offset[s]..port_offset[s + 1]` are the global port indices of switch `s`.
    pub(crate) port_offset: Vec<u32>,
    /// The number of ports of every switch if they all have the same (0 if not): port
    /// indices are then computed, without reading `port_offset` (a cache miss on large
    /// networks, on the engine's path to every switch's records).
    pub(crate) uniform_ports: u32,
    pub(crate) peers: Vec<Peer>,
    /// For every terminal, the switch and port it is attached to.
    pub(crate) terminal_attachment: Vec<(u32, u32)>,
    /// Number of terminals attached to every switch.
    pub(crate) terminals_at: Vec<u32>,
    pub(crate) symmetry: Option<Symmetry>,
    /// Switch-to-switch links removed by faults (see `topology::faults`).
    pub(crate) faults: usize,
    /// Number of identical planes (1 for a single network; see `topology::planes`).
    pub(crate) planes: u32,
    /// One plane as a network of its own, when there are several.
    pub(crate) plane: Option<Box<Topology>>,
}

impl Topology {
    /// The topology of `family` from the wiring its builder produced.
    pub(crate) fn new(spec: String, family: Family, wiring: Wiring) -> Topology {
        let Wiring { port_offset, peers, terminal_attachment, symmetry } = wiring;
        let switches = port_offset.len() - 1;
        let mut terminals_at = vec![0u32; switches];
        for &(s, _) in &terminal_attachment {
            terminals_at[s as usize] += 1;
        }
        let first = port_offset.get(1).copied().unwrap_or(0);
        let uniform = port_offset.windows(2).all(|w| w[1] - w[0] == first);
        Topology {
            spec,
            family,
            uniform_ports: if uniform { first } else { 0 },
            port_offset,
            peers,
            terminal_attachment,
            terminals_at,
            symmetry,
            faults: 0,
            planes: 1,
            plane: None,
        }
    }

    /// Builds the port-level graph of `family` (its builder, through [`Family::wire`]).
    pub(crate) fn build(spec: &str, family: Family) -> Topology {
        let wiring = family.wire();
        Topology::new(spec.to_string(), family, wiring)
    }

    /// The spec string this topology was built from (normalised).
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// The family and parameters of this topology.
    pub fn family(&self) -> &Family {
        &self.family
    }

    /// Number of switches.
    pub fn num_switches(&self) -> usize {
        self.port_offset.len() - 1
    }

    /// Number of terminals.
    pub fn num_terminals(&self) -> usize {
        self.terminal_attachment.len()
    }

    /// Number of ports of switch `s` (plugged or not).
    #[inline]
    pub fn num_ports(&self, s: usize) -> usize {
        match self.uniform_ports {
            0 => (self.port_offset[s + 1] - self.port_offset[s]) as usize,
            n => n as usize,
        }
    }

    /// Global index of port `p` of switch `s`, which is also the id of the channel
    /// leaving through that port.
    #[inline]
    pub fn channel(&self, s: usize, p: usize) -> usize {
        debug_assert!(self.uniform_ports == 0 || self.port_offset[s] as usize == s * self.uniform_ports as usize);
        match self.uniform_ports {
            0 => self.port_offset[s] as usize + p,
            n => s * n as usize + p,
        }
    }

    /// The switch owning channel `c`, if computed without a table (every switch has the
    /// same number of ports).
    #[inline]
    pub fn switch_of(&self, c: usize) -> Option<usize> {
        match self.uniform_ports {
            0 => None,
            n => Some((c as u64 / n as u64) as usize),
        }
    }

    /// The peers of all ports of switch `s`, in port order.
    pub fn ports(&self, s: usize) -> &[Peer] {
        &self.peers[self.port_offset[s] as usize..self.port_offset[s + 1] as usize]
    }

    /// The peers of every port of every switch, indexed by global port (channel) index.
    pub fn peers(&self) -> &[Peer] {
        &self.peers
    }

    /// Switch and port that terminal `t` is attached to.
    #[inline]
    pub fn terminal_attachment(&self, t: usize) -> (usize, usize) {
        let (s, p) = self.terminal_attachment[t];
        (s as usize, p as usize)
    }

    /// Asks the cache for terminal `t`'s attachment (see `engine::prefetch`).
    #[inline]
    pub(crate) fn prefetch_terminal(&self, t: usize) {
        crate::perf::prefetch::prefetch(&self.terminal_attachment, t);
    }

    /// Number of terminals attached to each switch.
    pub fn terminals_at(&self) -> &[u32] {
        &self.terminals_at
    }

    /// Switch-to-switch neighbours of `s` as `(neighbour, port on s)`.
    pub fn switch_neighbours(&self, s: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.ports(s).iter().enumerate().filter_map(|(p, peer)| match *peer {
            Peer::Switch { switch, .. } => Some((switch as usize, p)),
            _ => None,
        })
    }

    /// Number of identical planes, each endpoint on every one (1 for a single network).
    #[inline]
    pub fn planes(&self) -> usize {
        self.planes as usize
    }

    /// One plane as a network of its own (the network itself when it has one plane), without
    /// the faults of the whole.
    pub fn plane(&self) -> &Topology {
        self.plane.as_deref().unwrap_or(self)
    }

    /// The plane of switch `s`.
    #[inline]
    pub fn plane_of_switch(&self, s: usize) -> usize {
        s / (self.num_switches() / self.planes as usize)
    }

    /// Family coordinates of switch `s` within its plane (see `Family::switch_coordinates`).
    pub fn switch_coordinates(&self, s: usize) -> Vec<usize> {
        let per_plane = self.num_switches() / self.planes as usize;
        self.family.switch_coordinates(s % per_plane)
    }

    /// Tree level of switch `s` (0 = leaf level), `None` for other families.
    pub fn switch_level(&self, s: usize) -> Option<usize> {
        let per_plane = self.num_switches() / self.planes as usize;
        self.family.switch_level(s % per_plane)
    }

    /// Number of endpoints (compute nodes): the terminals of one plane.
    #[inline]
    pub fn endpoints(&self) -> usize {
        self.terminal_attachment.len() / self.planes as usize
    }

    /// The endpoint terminal `t` is a port of.
    #[inline]
    pub fn endpoint_of(&self, t: usize) -> usize {
        t % self.endpoints()
    }

    /// The plane of terminal `t`.
    #[inline]
    pub fn plane_of_terminal(&self, t: usize) -> usize {
        t / self.endpoints()
    }

    /// The terminal of endpoint `e` on plane `p`.
    #[inline]
    pub fn plane_terminal(&self, e: usize, p: usize) -> usize {
        p * self.endpoints() + e
    }

    /// Number of switch-to-switch links removed by faults (0 for an intact network).
    pub fn faulty_links(&self) -> usize {
        self.faults
    }

    /// The translation symmetry declared by the family builder, if any.
    pub fn symmetry(&self) -> Option<&Symmetry> {
        self.symmetry.as_ref()
    }

    /// Switch radix: the largest number of ports of a switch (unplugged ports included,
    /// as in the papers, where every switch of a network has the same radix).
    pub fn radix(&self) -> usize {
        (0..self.num_switches()).map(|s| self.num_ports(s)).max().unwrap_or(0)
    }

    /// Full-duplex switch-to-switch links, each counted once.
    pub fn switch_links(&self) -> usize {
        let ends = self.peers.iter().filter(|p| matches!(p, Peer::Switch { .. })).count();
        ends / 2
    }

    /// All links (terminal links included, unplugged ports excluded), each counted once.
    pub fn links(&self) -> usize {
        self.switch_links() + self.num_terminals()
    }

    /// Every switch-to-switch link once, as `(switch_a, port_a, switch_b, port_b)` with
    /// `(switch_a, port_a) < (switch_b, port_b)`.
    pub fn link_list(&self) -> Vec<(u32, u32, u32, u32)> {
        let mut out = Vec::with_capacity(self.switch_links());
        for s in 0..self.num_switches() {
            for (p, peer) in self.ports(s).iter().enumerate() {
                if let Peer::Switch { switch, port } = *peer {
                    if (s as u32, p as u32) < (switch, port) {
                        out.push((s as u32, p as u32, switch, port));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Topology;

    /// Port indices and owning switches computed for uniform switches agree with the
    /// offsets table, and switches of different sizes fall back to the table.
    #[test]
    fn computed_ports_follow_the_offsets_table() {
        for (spec, uniform) in [
            ("torus:4x3", true),
            ("tree:k=4,kp=2,n=3", true),
            ("hyperx:3x3,t=2|faults:random=2", true),
            ("xgft:h=2;m=4,3;w=1,2", false),
        ] {
            let t = Topology::from_spec(spec).unwrap();
            assert_eq!(t.uniform_ports != 0, uniform, "{spec}");
            for s in 0..t.num_switches() {
                let ports = (t.port_offset[s + 1] - t.port_offset[s]) as usize;
                assert_eq!(t.num_ports(s), ports, "{spec}: ports of switch {s}");
                for p in 0..ports {
                    let c = t.channel(s, p);
                    assert_eq!(c, t.port_offset[s] as usize + p, "{spec}: channel of port {p} of {s}");
                    assert_eq!(t.switch_of(c).unwrap_or(s), s, "{spec}: switch of channel {c}");
                    assert_eq!(t.switch_of(c).is_some(), uniform, "{spec}");
                }
            }
        }
    }
}
