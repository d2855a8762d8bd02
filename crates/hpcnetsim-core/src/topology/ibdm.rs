//! IBDM `.topo` fabric files (as used by the ib_flit_sim InfiniBand model): a record per
//! switch system, `TYPE NAME` then `Pn -> TYPE NAME PORT` lines. Systems without a record
//! are host adapters, except the 648-port `MIS5600` director, expanded into its chips: 36
//! line (leaf) chips whose ports 1-18 are the front panel ports `L<i>/P<j>` and ports 19-36
//! lead to the 18 spine chips, and 18 spine chips whose port i leads to leaf chip i. Port
//! numbers become 0-based. Switch systems of known types (MTS3600, MTS800) mentioned only at
//! the far end of links are switches too. Spec: `ibdm:PATH`.

use super::fabric::Fabric;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Leaf (line) chips of a director.
const DIRECTOR_LEAVES: usize = 36;
/// Spine chips of a director.
const DIRECTOR_SPINES: usize = 18;
/// Front-panel ports per leaf chip.
const LEAF_FRONT_PORTS: usize = 18;
/// Most ports of a system of unknown type (as for ibnetdiscover records).
const MAX_PORTS: usize = 4096;

/// Ports of the switch systems the files use (others: the largest port number seen).
fn known_ports(system: &str) -> Option<usize> {
    match system {
        "MTS3600" | "IS4" | "SX6036" => Some(36),
        "MTS800" => Some(8),
        _ => None,
    }
}

/// One port line: local port, remote system type, remote name, remote port, line index.
type Conn = (usize, String, String, String, usize);
/// One system record: type, name, port lines.
type Record = (String, String, Vec<Conn>);

/// Parses IBDM `.topo` text.
pub fn parse_ibdm(text: &str, file: &str) -> Result<Fabric> {
    let bad = |line: usize, field: &str, value: &str, allowed: &str| {
        Error::invalid(format!("{file}:{}", line + 1), field, format!("'{value}'"), allowed)
    };
    // Records: (system type, name, [(local port, remote type, remote name, remote port, line)]).
    let mut records: Vec<Record> = Vec::new();
    // The line of every record read from the file (implied records have none).
    let mut record_lines: Vec<usize> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.len() != 2 {
                return Err(bad(i, "record", line.trim(), "'SYSTEM_TYPE NAME'"));
            }
            records.push((w[0].to_string(), w[1].to_string(), Vec::new()));
            record_lines.push(i);
            continue;
        }
        let Some(rec) = records.last_mut() else {
            return Err(bad(i, "line", line.trim(), "a 'SYSTEM_TYPE NAME' record first"));
        };
        let w: Vec<&str> = line.split_whitespace().collect();
        let port =
            w.first().and_then(|p| p.strip_prefix('P')).and_then(|p| p.parse::<usize>().ok()).filter(|&p| p >= 1);
        // A port beyond the system's radix would make it a switch of that many ports.
        let radix = known_ports(&rec.0).unwrap_or(MAX_PORTS);
        match (port, w.as_slice()) {
            (Some(p), [first, "->", ..]) if p > radix => {
                let what = match known_ports(&rec.0) {
                    Some(k) => format!("P1 to P{k} (a {} has {k} ports)", rec.0),
                    None => format!("P1 to P{MAX_PORTS}"),
                };
                return Err(bad(i, "port", first, &what));
            }
            (Some(p), [_, "->", ty, name, rp]) => {
                rec.2.push((p - 1, ty.to_string(), name.to_string(), rp.to_string(), i))
            }
            _ => return Err(bad(i, "port line", line.trim(), "'Pn -> SYSTEM_TYPE NAME PORT'")),
        }
    }
    // A file cut short: nothing at all, or a record whose port lines are missing.
    let expected = "'SYSTEM_TYPE NAME' records, each followed by its 'Pn -> SYSTEM_TYPE NAME PORT' lines";
    if records.is_empty() {
        return Err(Error::invalid(file, "file", "empty file", expected));
    }
    if let Some(r) = records.iter().position(|r| r.2.is_empty()) {
        let header = format!("{} {}", records[r].0, records[r].1);
        return Err(bad(record_lines[r], "record", &header, &format!("{expected} (this one has none)")));
    }
    // Switch systems mentioned only as the far end of links get a record of their own.
    let mut implied: Vec<(String, String)> = Vec::new();
    for (_, _, conns) in &records {
        for (_, ty, name, _, _) in conns {
            let known = records.iter().any(|r| &r.1 == name) || implied.iter().any(|r| &r.1 == name);
            if !known && known_ports(ty).is_some() {
                implied.push((ty.clone(), name.clone()));
            }
        }
    }
    records.extend(implied.into_iter().map(|(ty, name)| (ty, name, Vec::new())));
    let mut f = Fabric::new(file, Vec::new(), Vec::new());
    let mut index: HashMap<String, usize> = HashMap::new();
    for (ty, name, conns) in &records {
        if index.contains_key(name) {
            return Err(Error::invalid(file, "record", format!("'{name}'"), "each system named once"));
        }
        let seen = conns.iter().map(|c| c.0 + 1).max().unwrap_or(1);
        index.insert(name.clone(), f.switch_names.len());
        f.switch_names.push(name.clone());
        f.ports.push(known_ports(ty).unwrap_or(0).max(seen));
    }
    // Directors: chips created on first mention, wired internally.
    let mut directors: HashMap<String, usize> = HashMap::new();
    let mut director = |name: &str, f: &mut Fabric| -> usize {
        *directors.entry(name.to_string()).or_insert_with(|| {
            let first = f.switch_names.len();
            for l in 1..=DIRECTOR_LEAVES {
                f.switch_names.push(format!("{name}/leaf{l}"));
                f.ports.push(LEAF_FRONT_PORTS + DIRECTOR_SPINES);
            }
            for s in 1..=DIRECTOR_SPINES {
                f.switch_names.push(format!("{name}/spine{s}"));
                f.ports.push(DIRECTOR_LEAVES);
            }
            for l in 0..DIRECTOR_LEAVES {
                for s in 0..DIRECTOR_SPINES {
                    f.links.push((first + l, LEAF_FRONT_PORTS + s, first + DIRECTOR_LEAVES + s, l));
                }
            }
            first
        })
    };
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut hosts: HashMap<(String, String), usize> = HashMap::new();
    let mut ends: std::collections::BTreeMap<(usize, usize), ((usize, usize), usize)> = Default::default();
    for (a, (_, _, conns)) in records.iter().enumerate() {
        for (p, ty, name, rp, line) in conns {
            if let Some(&l) = seen.get(&(a, *p)) {
                return Err(bad(
                    *line,
                    "port",
                    &format!("P{}", p + 1),
                    &format!("a port described once (also on line {})", l + 1),
                ));
            }
            seen.insert((a, *p), *line);
            let remote_port = |s: &str| s.strip_prefix('P').and_then(|x| x.parse::<usize>().ok()).filter(|&x| x >= 1);
            if let Some(&b) = index.get(name) {
                if b == a {
                    return Err(bad(
                        *line,
                        "remote system",
                        name,
                        "another system than the record's own (a cable from a system to itself is not modelled)",
                    ));
                }
                let Some(q) = remote_port(rp).filter(|&q| q <= f.ports[b]) else {
                    return Err(bad(*line, "remote port", rp, &format!("P1 to P{} of {name}", f.ports[b])));
                };
                // A link may appear on one record or on both; both ends must agree.
                for (x, y) in [((a, *p), (b, q - 1)), ((b, q - 1), (a, *p))] {
                    if let Some(&(other, l)) = ends.get(&x) {
                        if other != y {
                            return Err(bad(
                                *line,
                                "link",
                                &format!("{name} {rp}"),
                                &format!("the same peer as line {} says", l + 1),
                            ));
                        }
                    }
                    ends.insert(x, (y, *line));
                }
            } else if ty == "MIS5600" {
                let parsed = rp
                    .split_once('/')
                    .and_then(|(l, q)| Some((l.strip_prefix('L')?.parse::<usize>().ok()?, remote_port(q)?)));
                let Some((leaf, q)) =
                    parsed.filter(|&(l, q)| (1..=DIRECTOR_LEAVES).contains(&l) && q <= LEAF_FRONT_PORTS)
                else {
                    return Err(bad(*line, "director port", rp, "L<1-36>/P<1-18>"));
                };
                let first = director(name, &mut f);
                f.links.push((a, *p, first + leaf - 1, q - 1));
            } else {
                let key = (name.clone(), rp.clone());
                if hosts.insert(key, *line).is_some() {
                    return Err(bad(*line, "host port", &format!("{name} {rp}"), "a host port connected once"));
                }
                let n = rp.strip_prefix('P').unwrap_or(rp);
                f.terminals.push((format!("{name}/U1/{n}"), a, *p));
            }
        }
    }
    for (&(a, p), &((b, q), _)) in &ends {
        if (a, p) < (b, q) {
            f.links.push((a, p, b, q));
        }
    }
    // A record cut short after its host lines: its hosts reach no other switch. Named here,
    // at its line, rather than as disconnected terminals once the network is built.
    if f.switch_names.len() > 1 {
        let mut linked = vec![false; f.switch_names.len()];
        for &(a, _, b, _) in &f.links {
            linked[a] = true;
            linked[b] = true;
        }
        for (r, &line) in record_lines.iter().enumerate() {
            if !linked[r] && f.terminals.iter().any(|t| t.1 == r) {
                let header = format!("{} {}", records[r].0, records[r].1);
                let allowed = "a record with a 'Pn -> SYSTEM_TYPE NAME PORT' line to another switch (its \
                               port lines reach hosts only: is the file cut short?)";
                return Err(bad(line, "record", &header, allowed));
            }
        }
    }
    Ok(f)
}
