//! Multi-plane (multi-rail) networks: `SPEC|planes:N` is N identical copies of the network
//! of `SPEC`, and every endpoint (compute node) has one NIC port on each plane, as in
//! dual-rail InfiniBand fat-trees (paper 001's TSUBAME2 has two planes) or multi-plane
//! Slingshot and Omni-Path systems.
//!
//! The copies are numbered plane-major: plane `p` holds switches `p·S .. (p+1)·S`, the
//! channels of those switches and terminals `p·E .. (p+1)·E`, where S and E are one plane's
//! switches and terminals; terminal `p·E + e` is endpoint `e`'s port on plane `p`. A plane is
//! thus laid out exactly as the single network, so that a plane's routing, tables and closed
//! forms are the single network's with an offset (`routing::planes`), and traffic picks a
//! plane per packet or message (`routing.plane_selection`). Packets never change plane.

use super::graph::Topology;
use super::wiring::Peer;
use crate::error::{Error, Result};

/// Most planes a network may have (a message records its plane in a byte).
pub const MAX_PLANES: usize = 16;

/// What begins a plane-count suffix of a spec (`SPEC|planes:N`); `faults::split` tells the
/// suffixes apart by it.
pub const PREFIX: &str = "planes:";

/// The plane count of a planes suffix (`planes:N`, as `faults::split` returns it) of `spec`
/// (named in the error).
pub fn parse(spec: &str, text: &str) -> Result<usize> {
    let body = text.trim();
    let body = body.strip_prefix(PREFIX).unwrap_or(body).trim();
    match body.parse::<usize>() {
        Ok(n) if (2..=MAX_PLANES).contains(&n) => Ok(n),
        _ => Err(Error::invalid(spec, "planes", format!("'{body}'"), format!("an integer between 2 and {MAX_PLANES}"))),
    }
}

/// `plane` replicated `n` times, plane-major (see the module's documentation); `spec` is the
/// whole network's spec.
pub fn replicate(plane: Topology, n: usize, spec: &str) -> Topology {
    let (s, c, e) = (plane.num_switches(), plane.peers.len(), plane.num_terminals());
    let mut port_offset = Vec::with_capacity(n * s + 1);
    let mut peers = Vec::with_capacity(n * c);
    let mut terminal_attachment = Vec::with_capacity(n * e);
    port_offset.push(0);
    for p in 0..n {
        let (sw, ch, te) = ((p * s) as u32, (p * c) as u32, (p * e) as u32);
        port_offset.extend(plane.port_offset[1..].iter().map(|&o| o + ch));
        peers.extend(plane.peers.iter().map(|&peer| renumber(peer, |s| s + sw, |t| t + te)));
        terminal_attachment.extend(plane.terminal_attachment.iter().map(|&(a, port)| (a + sw, port)));
    }
    let terminals_at = (0..n).flat_map(|_| plane.terminals_at.iter().copied()).collect();
    Topology {
        spec: spec.to_string(),
        family: plane.family.clone(),
        uniform_ports: plane.uniform_ports,
        port_offset,
        peers,
        terminal_attachment,
        terminals_at,
        // A plane's automorphisms do not map planes onto each other; whole-network
        // computations of a multi-plane network run on one plane instead.
        symmetry: None,
        faults: 0,
        planes: n as u32,
        plane: Some(Box::new(plane)),
    }
}

/// `peer` with its switch or terminal index mapped (into or out of a plane's range).
fn renumber(peer: Peer, switch: impl Fn(u32) -> u32, terminal: impl Fn(u32) -> u32) -> Peer {
    match peer {
        Peer::Unplugged => Peer::Unplugged,
        Peer::Switch { switch: s, port } => Peer::Switch { switch: switch(s), port },
        Peer::Terminal(t) => Peer::Terminal(terminal(t)),
    }
}

impl Topology {
    /// Plane `p` of this multi-plane network as a network of its own, with the faults of its
    /// links (see [`slice`]).
    pub fn plane_slice(&self, p: usize) -> Topology {
        slice(self, p)
    }
}

/// Plane `p` of the multi-plane network `topo` as a network of its own, with the faults of
/// its links: switches, channels and terminals renumbered from 0.
pub fn slice(topo: &Topology, p: usize) -> Topology {
    let plane = topo.plane();
    let (s, e) = (plane.num_switches(), plane.num_terminals());
    let (sw, te) = ((p * s) as u32, (p * e) as u32);
    let first = topo.port_offset[p * s];
    let port_offset = topo.port_offset[p * s..=(p + 1) * s].iter().map(|&o| o - first).collect();
    let peers = topo.peers[first as usize..topo.port_offset[(p + 1) * s] as usize]
        .iter()
        .map(|&peer| renumber(peer, |s| s - sw, |t| t - te))
        .collect();
    let terminal_attachment =
        topo.terminal_attachment[(p * e)..((p + 1) * e)].iter().map(|&(a, port)| (a - sw, port)).collect();
    let mut t = Topology {
        spec: format!("{} (plane {p})", topo.spec()),
        family: plane.family.clone(),
        uniform_ports: plane.uniform_ports,
        port_offset,
        peers,
        terminal_attachment,
        terminals_at: topo.terminals_at[p * s..(p + 1) * s].to_vec(),
        symmetry: None,
        faults: 0,
        planes: 1,
        plane: None,
    };
    t.faults = plane.switch_links() - t.switch_links();
    if t.faults == 0 {
        t.symmetry = plane.symmetry.clone();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_are_offset_copies() {
        let one = Topology::from_spec("tree:k=2,n=2").unwrap();
        let two = Topology::from_spec("tree:k=2,n=2|planes:3").unwrap();
        let (s, e) = (one.num_switches(), one.num_terminals());
        assert_eq!((two.num_switches(), two.num_terminals(), two.planes(), two.endpoints()), (3 * s, 3 * e, 3, e));
        assert_eq!(two.switch_links(), 3 * one.switch_links());
        for p in 0..3 {
            for t in 0..e {
                let (a, port) = one.terminal_attachment(t);
                assert_eq!(two.terminal_attachment(p * e + t), (p * s + a, port));
                assert_eq!((two.endpoint_of(p * e + t), two.plane_of_terminal(p * e + t)), (t, p));
            }
            for sw in 0..s {
                for (port, peer) in one.ports(sw).iter().enumerate() {
                    let want = match *peer {
                        Peer::Switch { switch, port } => Peer::Switch { switch: switch + (p * s) as u32, port },
                        Peer::Terminal(t) => Peer::Terminal(t + (p * e) as u32),
                        Peer::Unplugged => Peer::Unplugged,
                    };
                    assert_eq!(two.ports(p * s + sw)[port], want);
                }
            }
        }
    }

    #[test]
    fn a_slice_is_its_plane_with_its_faults() {
        let two = Topology::from_spec("torus:4x4|planes:2|faults:links=17.0").unwrap();
        let plane = two.plane();
        let (s0, s1) = (slice(&two, 0), slice(&two, 1));
        assert_eq!((s0.faulty_links(), s1.faulty_links(), two.faulty_links()), (0, 1, 1));
        assert_eq!(s0.peers(), plane.peers());
        assert_eq!(s1.switch_links(), plane.switch_links() - 1);
        assert_eq!(s1.ports(1)[0], Peer::Unplugged, "switch 17 is switch 1 of plane 1");
        assert_eq!(s1.terminal_attachment(3), plane.terminal_attachment(3));
    }

    #[test]
    fn bad_plane_counts_are_one_line_errors() {
        for bad in ["planes:1", "planes:0", "planes:17", "planes:two", "planes:"] {
            let e = parse(&format!("torus:4x4|{bad}"), bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("torus:4x4|{bad}: planes = ")), "{bad}: {e}");
            assert!(e.contains("between 2 and 16") && !e.contains('\n'), "{bad}: {e}");
        }
        let split = super::super::faults::split("torus:4x4|faults:random=2| planes:3").unwrap();
        assert_eq!(split, ("torus:4x4", Some("planes:3"), Some("faults:random=2")));
    }
}
