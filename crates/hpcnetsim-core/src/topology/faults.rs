//! Faults: switch-to-switch links and whole switches taken out of a built network, given
//! one by one or drawn at random from a seed, written as a spec suffix:
//!
//! ```text
//! SPEC|faults:random=15,seed=3          15 random switch-to-switch links
//! SPEC|faults:fraction=0.07             7 % of the switch-to-switch links (seed 1)
//! SPEC|faults:links=0.3+5.1             the links at switch 0 port 3 and switch 5 port 1
//! SPEC|faults:switches=4+9              every link of switches 4 and 9 (their terminals are cut off)
//! ```
//!
//! Keys combine; explicit faults are removed first, the random ones are drawn among the
//! links left. The faulty network keeps its family (so ftree or PARX still know its shape)
//! but loses its symmetry, so properties are computed on the actual graph.

use super::graph::Topology;
use super::wiring::Peer;
use crate::error::{Error, Result};
use crate::rng::{stream, Owner};
use rand::seq::SliceRandom;

/// Stream id of the fault draw (under [`Owner::Setup`]).
const FAULT_STREAM: u64 = 0xFA17;

/// A parsed fault set.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Faults {
    /// Links named by one end, `(switch, port)`.
    pub links: Vec<(usize, usize)>,
    /// Switches whose switch-to-switch links all fail.
    pub switches: Vec<usize>,
    /// Number of random links to remove.
    pub random: usize,
    /// Fraction of the links to remove at random (added to `random`).
    pub fraction: f64,
    /// Seed of the random draw.
    pub seed: u64,
}

/// Splits `SPEC|...` into the network spec, the plane count text (`planes:N`) and the fault
/// text, if any; the suffixes may come in either order, each at most once. A second suffix of
/// one kind is an error naming it.
pub fn split(spec: &str) -> Result<(&str, Option<&str>, Option<&str>)> {
    let mut parts = spec.split('|').map(str::trim);
    let base = parts.next().unwrap_or_default();
    let (mut planes, mut faults) = (None, None);
    for part in parts {
        let slot = if part.starts_with(super::planes::PREFIX) { &mut planes } else { &mut faults };
        if slot.replace(part).is_some() {
            let kind = part.split(':').next().unwrap_or(part);
            return Err(Error::invalid(
                spec.trim(),
                "suffix",
                format!("'{part}'"),
                format!("at most one '{kind}:' suffix"),
            ));
        }
    }
    Ok((base, planes, faults))
}

/// Parses the text after `|` (`faults:key=value,...`).
pub fn parse(spec: &str, text: &str) -> Result<Faults> {
    let err = |field: &str, value: &str, allowed: &str| Error::invalid(spec, field, format!("'{value}'"), allowed);
    let Some(body) = text.strip_prefix("faults:").filter(|b| b.split(',').any(|item| !item.trim().is_empty())) else {
        return Err(err("suffix", text, "'faults:' followed by links=, switches=, random=, fraction=, seed="));
    };
    let mut f = Faults { seed: 1, ..Faults::default() };
    let mut seen: Vec<&str> = Vec::new();
    for item in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        let (k, v) = (k.trim(), v.trim());
        if seen.contains(&k) {
            let allowed = if matches!(k, "links" | "switches") {
                "each key at most once (join several with '+')"
            } else {
                "each key at most once"
            };
            return Err(err(&format!("faults.{k}"), v, allowed));
        }
        seen.push(k);
        match k {
            "links" => {
                for l in v.split('+') {
                    let (s, p) = l.split_once('.').unwrap_or((l, ""));
                    match (s.trim().parse(), p.trim().parse()) {
                        (Ok(s), Ok(p)) => f.links.push((s, p)),
                        _ => return Err(err("faults.links", l, "SWITCH.PORT entries joined by '+', e.g. 0.3+5.1")),
                    }
                }
            }
            "switches" => {
                for s in v.split('+') {
                    f.switches
                        .push(s.trim().parse().map_err(|_| err("faults.switches", s, "switch indices joined by '+'"))?);
                }
            }
            "random" => {
                f.random = v.parse().map_err(|_| err("faults.random", v, "a number of links (integer >= 0)"))?
            }
            "fraction" => {
                f.fraction = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| (0.0..=1.0).contains(x))
                    .ok_or_else(|| err("faults.fraction", v, "a number between 0 and 1"))?
            }
            "seed" => f.seed = v.parse().map_err(|_| err("faults.seed", v, "an integer >= 0"))?,
            _ => return Err(err("faults", k, "one of links, switches, random, fraction, seed")),
        }
    }
    // The seed draws the random links only: beside explicit faults alone it would be unread.
    if seen.contains(&"seed") && !seen.iter().any(|k| matches!(*k, "random" | "fraction")) {
        return Err(err(
            "faults.seed",
            &f.seed.to_string(),
            "beside random= or fraction= (it draws their links; links= and switches= are not drawn)",
        ));
    }
    Ok(f)
}

impl Faults {
    /// Whether the set names any fault: links, switches, a random count or a fraction above 0
    /// (one that takes no link out, such as a small fraction of a small network, counts too).
    pub fn any(&self) -> bool {
        !self.links.is_empty() || !self.switches.is_empty() || self.random > 0 || self.fraction > 0.0
    }

    /// The network without the failed links; errors name faults that do not exist.
    pub fn apply(&self, topo: &Topology) -> Result<Topology> {
        let spec = topo.spec().to_string();
        let mut t = topo.clone();
        let cut = |t: &mut Topology, s: usize, p: usize| {
            if let Peer::Switch { switch, port } = t.peers[t.channel(s, p)] {
                let back = t.channel(switch as usize, port as usize);
                let here = t.channel(s, p);
                t.peers[here] = Peer::Unplugged;
                t.peers[back] = Peer::Unplugged;
                t.faults += 1;
            }
        };
        for (i, &(s, p)) in self.links.iter().enumerate() {
            let named_before = |&(s2, p2): &(usize, usize)| {
                (s2, p2) == (s, p)
                    || matches!(topo.ports(s2).get(p2), Some(Peer::Switch { switch, port })
                        if (*switch as usize, *port as usize) == (s, p))
            };
            if let Some(&(s2, p2)) = self.links[..i].iter().find(|l| named_before(l)) {
                return Err(Error::invalid(
                    &spec,
                    "faults.links",
                    format!("{s}.{p}"),
                    format!("each link once ({s2}.{p2} names the same link)"),
                ));
            }
            if s >= t.num_switches() || p >= t.num_ports(s) || !matches!(t.ports(s)[p], Peer::Switch { .. }) {
                return Err(Error::invalid(
                    &spec,
                    "faults.links",
                    format!("{s}.{p}"),
                    "a switch.port at one end of a switch-to-switch link",
                ));
            }
            cut(&mut t, s, p);
        }
        for &s in &self.switches {
            if s >= t.num_switches() {
                return Err(Error::invalid(
                    &spec,
                    "faults.switches",
                    s,
                    format!("a switch index below {}", t.num_switches()),
                ));
            }
            for p in 0..t.num_ports(s) {
                cut(&mut t, s, p);
            }
        }
        let mut left = t.link_list();
        let count = self.random + (self.fraction * topo.switch_links() as f64).round() as usize;
        if count > left.len() {
            return Err(Error::invalid(
                &spec,
                "faults.random",
                count,
                format!("at most the {} switch-to-switch links left", left.len()),
            ));
        }
        left.shuffle(&mut stream(self.seed, Owner::Setup, FAULT_STREAM));
        for &(s, p, _, _) in &left[..count] {
            cut(&mut t, s as usize, p as usize);
        }
        t.symmetry = None;
        Ok(t)
    }
}
