//! BookSim2 `anynet` network files (`topology = anynet; network_file = PATH`): spec
//! `anynet:PATH`, and the export back (`topo export --format anynet`).
//!
//! A line is `router R` or `node N` followed by what it connects to: `router R'` and `node N'`
//! entries, each optionally followed by a link latency in cycles. A router-router link may be
//! listed from either end or both (BookSim keeps one link per router pair); a node belongs to
//! exactly one router; nodes are numbered 0..N−1 without gaps (BookSim's traffic manager
//! requires it). Latencies are read and not used (hpcnetsim links all take `link.latency`).
//!
//! Switch `i` is the router with the i-th smallest id, named `router R`; terminal `t` is
//! node `t`. Ports: the router's nodes in increasing id, then its router neighbours in
//! increasing id (the order of BookSim's `_BuildNet`, which walks its sorted maps).

use super::fabric::Fabric;
use super::graph::Topology;
use super::import::read_text;
use super::wiring::{check_size, Peer};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

fn bad(file: &str, line: usize, field: &str, value: impl std::fmt::Display, allowed: &str) -> Error {
    Error::invalid(format!("{file}:{}", line + 1), field, value, allowed)
}

/// Largest router or node id accepted (ids index vectors of that size).
const MAX_ID: u64 = super::wiring::MAX_PORTS;

/// Reads an anynet file into a fabric.
pub fn read(path: &str) -> Result<Fabric> {
    let text = read_text("anynet", path)?;
    parse(&text, path)
}

/// Parses anynet text.
pub fn parse(text: &str, file: &str) -> Result<Fabric> {
    let mut routers: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    // Node id → (router id, line that placed it).
    let mut nodes: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    let id = |line: usize, kind: &str, text: Option<&str>| -> Result<u64> {
        let t = text.ok_or_else(|| bad(file, line, kind, "missing", &format!("'{kind} ID' with an id after it")))?;
        t.parse::<u64>().ok().filter(|&v| v < MAX_ID).ok_or_else(|| {
            bad(
                file,
                line,
                &format!("{kind} id"),
                format!("'{t}'"),
                &format!("an integer between 0 and {}", MAX_ID - 1),
            )
        })
    };
    for (i, raw) in text.lines().enumerate() {
        let mut words = raw.split_whitespace().peekable();
        let Some(head_kind) = words.next() else { continue };
        let head_kind = head_kind.to_ascii_lowercase();
        if head_kind != "router" && head_kind != "node" {
            return Err(bad(file, i, "line", format!("'{}'", raw.trim()), "'router ID ...' or 'node ID ...'"));
        }
        let head = id(i, &head_kind, words.next())?;
        if head_kind == "router" {
            routers.entry(head).or_default();
        }
        let place = |n: u64, r: u64, nodes: &mut BTreeMap<u64, (u64, usize)>| -> Result<()> {
            match nodes.get(&n) {
                Some(&(other, l)) if other != r => Err(bad(
                    file,
                    i,
                    "node",
                    n,
                    &format!("a node on one router only (line {} puts it on router {other}, this line on {r})", l + 1),
                )),
                Some(_) => Ok(()),
                None => {
                    nodes.insert(n, (r, i));
                    Ok(())
                }
            }
        };
        while let Some(word) = words.next() {
            let kind = word.to_ascii_lowercase();
            match kind.as_str() {
                "router" | "node" => {
                    let body = id(i, &kind, words.next())?;
                    match (head_kind.as_str(), kind.as_str()) {
                        ("node", "node") => {
                            return Err(bad(
                                file,
                                i,
                                "node",
                                body,
                                "a router after a node (nodes link to routers only)",
                            ))
                        }
                        ("node", _) => {
                            routers.entry(body).or_default();
                            place(head, body, &mut nodes)?;
                        }
                        (_, "node") => place(body, head, &mut nodes)?,
                        _ if body == head => {
                            return Err(bad(file, i, "router", body, "a router other than the line's own"))
                        }
                        _ => {
                            routers.entry(head).or_default().insert(body);
                            routers.entry(body).or_default().insert(head);
                        }
                    }
                    // An optional latency follows the entry.
                    if let Some(w) = words.peek() {
                        if !matches!(w.to_ascii_lowercase().as_str(), "router" | "node") {
                            let w = words.next().unwrap_or_default();
                            if w.parse::<u32>().is_err() {
                                return Err(bad(
                                    file,
                                    i,
                                    "latency",
                                    format!("'{w}'"),
                                    "a link latency in cycles (a whole number) or the next 'router'/'node' entry",
                                ));
                            }
                        }
                    }
                }
                _ => {
                    return Err(bad(
                        file,
                        i,
                        "entry",
                        format!("'{word}'"),
                        "'router ID' or 'node ID' (optionally followed by a latency)",
                    ))
                }
            }
        }
    }
    // Nodes 0..N−1 without gaps, as BookSim requires.
    if let Some((pos, (&n, &(_, l)))) = nodes.iter().enumerate().find(|(pos, (&n, _))| n != *pos as u64) {
        return Err(bad(file, l, "node", n, &format!("node ids numbered 0..N−1 without gaps (node {pos} is missing)")));
    }
    let index: BTreeMap<u64, usize> = routers.keys().enumerate().map(|(i, &r)| (r, i)).collect();
    let mut per_router: Vec<Vec<u64>> = vec![Vec::new(); routers.len()];
    for (&n, &(r, _)) in &nodes {
        per_router[index[&r]].push(n);
    }
    let ports: Vec<usize> = routers.values().zip(&per_router).map(|(nb, ns)| nb.len() + ns.len()).collect();
    check_size(file, ports.len() as u128, ports.iter().map(|&p| p as u128).sum())?;
    let mut f = Fabric::new(file, routers.keys().map(|r| format!("router {r}")).collect(), ports);
    for (s, (&r, nb)) in routers.iter().enumerate() {
        for (k, &other) in nb.iter().enumerate() {
            if other > r {
                let t = index[&other];
                let back = routers[&other].iter().position(|&x| x == r).unwrap_or(0);
                f.links.push((s, per_router[s].len() + k, t, per_router[t].len() + back));
            }
        }
    }
    let mut terminals: Vec<(String, usize, usize)> = Vec::with_capacity(nodes.len());
    for (s, ns) in per_router.iter().enumerate() {
        for (k, &n) in ns.iter().enumerate() {
            terminals.push((format!("node {n}"), s, k));
        }
    }
    terminals.sort_by_key(|(name, _, _)| name[5..].parse::<u64>().unwrap_or(u64::MAX));
    f.terminals = terminals;
    if f.terminals.len() < 2 {
        return Err(Error::invalid(file, "nodes", f.terminals.len(), "an anynet file with at least 2 nodes"));
    }
    Ok(f)
}

/// Writes `topo` as an anynet file: one line per switch, its terminals as nodes, then its
/// switch neighbours of higher index (each link once). Refused for parallel links, which
/// anynet cannot express.
pub fn to_anynet(topo: &Topology) -> Result<String> {
    let mut out = String::new();
    for s in 0..topo.num_switches() {
        let _ = write!(out, "router {s}");
        let mut neighbours = Vec::new();
        for peer in topo.ports(s) {
            match *peer {
                Peer::Terminal(t) => {
                    let _ = write!(out, " node {t}");
                }
                Peer::Switch { switch, .. } => neighbours.push(switch as usize),
                Peer::Unplugged => {}
            }
        }
        neighbours.sort_unstable();
        if let Some(w) = neighbours.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::invalid(
                "topo export",
                "format",
                "'anynet'",
                format!(
                    "a network without parallel links (anynet has one link per router pair; {} has several between \
                     switches {s} and {})",
                    topo.spec(),
                    w[0]
                ),
            ));
        }
        for t in neighbours.into_iter().filter(|&t| t > s) {
            let _ = write!(out, " router {t}");
        }
        out.push('\n');
    }
    Ok(out)
}
