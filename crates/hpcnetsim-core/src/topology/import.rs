//! Real and irregular fabrics read from files: `ibnetdiscover` output (and the ibsim
//! net files written in the same form) and a plain edge list; and the export back to
//! ibnetdiscover-like text. Specs: `ibnet:PATH` and `edges:PATH`.
//!
//! ibnetdiscover: a record per node, a header `Switch|Ca|Hca N "name"` then one line per
//! connected port, `[P] "remote"[RP]` (GUIDs in parentheses, `#` comments outside quoted
//! names, `vendid=`-style lines and blank lines are skipped). Every connected port of a host
//! adapter is one terminal; ports are numbered from 1 in the file and from 0 in hpcnetsim.
//!
//! Edge list: `link A B` (a switch-to-switch link, ports taken in order of appearance),
//! `terminal NAME A` (a named terminal on switch A), `terminals A N` (N terminals on A),
//! `switch A PORTS` (declares a switch and its port count; optional), `#` comments.

use super::fabric::Fabric;
use super::family::Family;
use super::graph::Topology;
use super::wiring::{check_size, Peer, MAX_PORTS};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::fmt::Write;

fn bad(file: &str, line: usize, field: &str, value: impl std::fmt::Display, allowed: &str) -> Error {
    Error::invalid(format!("{file}:{}", line + 1), field, value, allowed)
}

/// Reads a fabric file in `format` (`ibnet` or `edges`); `PATH,t=N` also attaches N
/// terminals to the free ports of every switch (for fabric files without hosts).
pub fn read(format: &str, spec_body: &str) -> Result<Fabric> {
    // `PATH,t=N`, spaces allowed around the comma (`PATH, t=2` named a file `PATH, t=2`).
    let suffix = spec_body.rsplit_once(',').and_then(|(p, rest)| Some((p, rest.trim_start().strip_prefix("t=")?)));
    let (path, extra) = match suffix {
        Some((p, n)) => {
            let n: usize = n.trim().parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                Error::invalid(
                    format!("{format}:{spec_body}"),
                    "t",
                    format!("'{n}'"),
                    "a positive number of terminals per switch",
                )
            })?;
            (p.trim(), n)
        }
        None => (spec_body, 0),
    };
    let text = read_text(format, path)?;
    let fabric = match format {
        "ibnet" => parse_ibnet(&text, path)?,
        "ibdm" => super::ibdm::parse_ibdm(&text, path)?,
        _ => parse_edges(&text, path)?,
    };
    let mut fabric = fabric;
    if extra > 0 {
        let mut taken: Vec<Vec<bool>> = fabric.ports.iter().map(|&n| vec![false; n]).collect();
        for &(a, pa, b, pb) in &fabric.links {
            taken[a][pa] = true;
            taken[b][pb] = true;
        }
        for &(_, s, p) in &fabric.terminals {
            taken[s][p] = true;
        }
        for (s, ports) in taken.iter().enumerate() {
            let free: Vec<usize> = (0..ports.len()).filter(|&p| !ports[p]).take(extra).collect();
            if free.len() < extra {
                // An edge list's switch has the ports its lines use unless it is declared
                // wider: without `switch NAME PORTS` lines, `,t=N` never finds a free port.
                let hint = match format {
                    "edges" => format!(" (declare it wider with a `switch {} PORTS` line)", fabric.switch_names[s]),
                    _ => String::new(),
                };
                return Err(Error::invalid(
                    format!("{format}:{spec_body}"),
                    "t",
                    extra,
                    format!("at most the {} free ports of switch {}{hint}", free.len(), fabric.switch_names[s]),
                ));
            }
            for p in free {
                fabric.terminals.push((format!("{}/{}", fabric.switch_names[s], p + 1), s, p));
            }
        }
    }
    let ports: usize = fabric.ports.iter().sum();
    check_size(path, fabric.ports.len() as u128, ports as u128)?;
    if fabric.terminals.len() < 2 {
        return Err(Error::invalid(path, "terminals", fabric.terminals.len(), "a fabric with at least 2 host ports"));
    }
    Ok(fabric)
}

/// Largest fabric file read (4 GiB: far more text than a network of `MAX_PORTS` ports).
pub const MAX_FILE_BYTES: u64 = 1 << 32;

/// Bytes of memory per byte of fabric text while it is parsed (the text, the names and
/// the records made from it), for the memory check made before reading.
const BYTES_PER_TEXT_BYTE: u128 = 4;

/// Bytes of memory per port or terminal an edge list asks for (the port, the terminal's
/// name and record, the graph built from it), for the memory check of `terminals A N`.
const BYTES_PER_PORT: u128 = 96;

/// Reads a fabric file as text: refused in one line, before it is read whole, when it is
/// larger than [`MAX_FILE_BYTES`] or than the memory check allows, and as soon as a chunk
/// holds a NUL byte or invalid UTF-8 (a binary file, `/dev/urandom`).
pub(crate) fn read_text(format: &str, path: &str) -> Result<String> {
    use std::io::Read;
    let context = format!("{format}:{path}");
    let unreadable =
        |e: std::io::Error| Error::invalid(&context, "file", format!("'{path}'"), format!("a readable file ({e})"));
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    let too_large = |len: u64| {
        Error::invalid(
            &context,
            "file",
            format!("{len} bytes"),
            format!("a fabric file of at most {MAX_FILE_BYTES} bytes"),
        )
    };
    if len > MAX_FILE_BYTES {
        return Err(too_large(len));
    }
    crate::memory::check(&context, "file", &format!("{len} bytes"), len as u128 * BYTES_PER_TEXT_BYTE)?;
    let mut bytes = Vec::with_capacity(len as usize);
    let mut chunk = vec![0u8; 1 << 16];
    let mut checked = 0;
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(unreadable(e)),
        };
        let start = bytes.len();
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(bytes.len() as u64));
        }
        // Validated up to `checked`, always a character boundary (a chunk may end inside one).
        let binary = bytes[start..].contains(&0)
            || match std::str::from_utf8(&bytes[checked..]) {
                Ok(_) => {
                    checked = bytes.len();
                    false
                }
                Err(e) if e.error_len().is_none() => {
                    checked += e.valid_up_to();
                    false
                }
                Err(_) => true,
            };
        if binary {
            let line = bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1;
            return Err(Error::invalid(
                format!("{path}:{line}"),
                "file",
                "binary data",
                format!("a text fabric file ({format}, see docs/routing.md)"),
            ));
        }
    }
    utf8_text(bytes, &context, "a text fabric file")
}

/// The text of a network file's `bytes`, or an error naming the first byte that is not UTF-8
/// (`allowed`: what the file should be); a byte order mark (files saved by some Windows
/// editors) is not part of the first line.
pub(crate) fn utf8_text(bytes: Vec<u8>, context: &str, allowed: &str) -> Result<String> {
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::invalid(context, "file", format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()), allowed)
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Refuses an edge list whose ports and terminals reach `total` at line `line` when the
/// network would exceed [`MAX_PORTS`] ports or the memory check.
fn port_budget(file: &str, line: usize, field: &str, value: &str, total: u128) -> Result<()> {
    let max = MAX_PORTS as u128;
    if total > max {
        return Err(bad(file, line, field, format!("'{value}'"), &format!("a fabric of at most {max} ports in total")));
    }
    crate::memory::check(&format!("{file}:{}", line + 1), field, &format!("'{value}'"), total * BYTES_PER_PORT)
}

/// One parsed ibnetdiscover node record.
struct Node {
    switch: bool,
    ports: usize,
    line: usize,
    /// (local port, remote name, remote port, line).
    conns: Vec<(usize, String, usize, usize)>,
}

/// Takes `"name"` from the front of `s`; returns the name and the rest.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_start().strip_prefix('"')?;
    let end = s.find('"')?;
    Some((&s[..end], &s[end + 1..]))
}

/// Takes `[n]` (and an optional `(guid)` after it) from the front of `s`.
fn bracketed(s: &str) -> Option<(usize, &str)> {
    let s = s.trim_start().strip_prefix('[')?;
    let end = s.find(']')?;
    let n = s[..end].trim().parse().ok()?;
    let mut rest = &s[end + 1..];
    if let Some(r) = rest.strip_prefix('(') {
        rest = &r[r.find(')')? + 1..];
    }
    Some((n, rest))
}

/// `line` up to its comment: the first `#` outside a quoted name (`"host#1"` is a name).
fn uncommented(line: &str) -> &str {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Parses ibnetdiscover / ibsim net text.
pub fn parse_ibnet(text: &str, file: &str) -> Result<Fabric> {
    let mut nodes: Vec<(String, Node)> = Vec::new();
    let mut total_ports: u128 = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = uncommented(raw).trim();
        if line.is_empty() || (line.contains('=') && !line.contains('"')) {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or("");
        if matches!(word, "Switch" | "Ca" | "Hca" | "Rt") {
            if word == "Rt" {
                return Err(bad(file, i, "node type", "'Rt'", "Switch, Ca or Hca (routers are not modelled)"));
            }
            let rest = line[word.len()..].trim_start();
            let (count, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            // Any count our export writes (a 5000-port crossbar), bounded as an edge list's
            // `switch A PORTS` is: by MAX_PORTS in total and the memory check.
            let max = MAX_PORTS as usize;
            let ports: usize = count.parse().ok().filter(|&p| (1..=max).contains(&p)).ok_or_else(|| {
                bad(file, i, "ports", format!("'{count}'"), &format!("a port count between 1 and {max}"))
            })?;
            total_ports += ports as u128;
            if ports > 1024 || total_ports > max as u128 {
                port_budget(file, i, "ports", count, total_ports)?;
            }
            let (name, _) =
                quoted(rest).ok_or_else(|| bad(file, i, "node", format!("'{line}'"), "TYPE PORTS \"name\""))?;
            if nodes.iter().any(|(n, _)| n == name) {
                return Err(bad(file, i, "node", format!("'{name}'"), "a name not used by an earlier record"));
            }
            nodes.push((name.to_string(), Node { switch: word == "Switch", ports, line: i, conns: Vec::new() }));
            continue;
        }
        let Some((_, node)) = nodes.last_mut() else {
            return Err(bad(
                file,
                i,
                "line",
                format!("'{line}'"),
                "a 'Switch N \"name\"' or 'Ca N \"name\"' record first",
            ));
        };
        let parsed = bracketed(line).and_then(|(p, rest)| {
            let (remote, rest) = quoted(rest)?;
            let (rp, _) = bracketed(rest)?;
            Some((p, remote.to_string(), rp))
        });
        match parsed {
            Some((p, remote, rp)) if p >= 1 && p <= node.ports => node.conns.push((p - 1, remote, rp, i)),
            _ => {
                return Err(bad(
                    file,
                    i,
                    "port line",
                    format!("'{line}'"),
                    &format!("'[P] \"remote\"[RP]' with P between 1 and {}", node.ports),
                ))
            }
        }
    }
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, (n, _))| (n.as_str(), i)).collect();
    let switch_index: HashMap<usize, usize> =
        nodes.iter().enumerate().filter(|(_, (_, n))| n.switch).enumerate().map(|(k, (i, _))| (i, k)).collect();
    let switches = nodes.iter().filter(|(_, n)| n.switch);
    let mut f = Fabric::new(
        file,
        switches.clone().map(|(name, _)| name.clone()).collect(),
        switches.map(|(_, n)| n.ports).collect(),
    );
    // Every connection, keyed by its end with the smaller (node, port); both ends must agree.
    let mut ends: HashMap<(usize, usize), (usize, usize, usize)> = HashMap::new();
    for (a, (_, node)) in nodes.iter().enumerate() {
        for (p, remote, rp, line) in &node.conns {
            let Some(&b) = index.get(remote.as_str()) else {
                return Err(bad(file, *line, "remote", format!("'{remote}'"), "the name of a node record in the file"));
            };
            if *rp == 0 || *rp > nodes[b].1.ports {
                return Err(bad(file, *line, "remote port", rp, &format!("between 1 and {}", nodes[b].1.ports)));
            }
            if b == a {
                return Err(bad(
                    file,
                    *line,
                    "remote",
                    format!("'{remote}'"),
                    "another node than the record's own (a cable from a node to itself is not modelled)",
                ));
            }
            let (here, there) = ((a, *p), (b, rp - 1));
            if let Some(&(x, y, _)) = ends.get(&here) {
                if (x, y) != there {
                    return Err(bad(file, *line, "port", p + 1, "a port connected only once"));
                }
            }
            if let Some(&(x, y, l)) = ends.get(&there) {
                if (x, y) != here {
                    return Err(bad(
                        file,
                        *line,
                        "link",
                        format!("'{}'[{}]", remote, rp),
                        &format!("the same peer as line {} says", l + 1),
                    ));
                }
            }
            ends.insert(here, (there.0, there.1, *line));
            ends.insert(there, (here.0, here.1, *line));
        }
    }
    let mut keys: Vec<_> = ends.keys().copied().collect();
    keys.sort_unstable();
    for (a, pa) in keys {
        let (b, pb, line) = ends[&(a, pa)];
        if (a, pa) > (b, pb) {
            continue;
        }
        match (switch_index.get(&a), switch_index.get(&b)) {
            (Some(&sa), Some(&sb)) => f.links.push((sa, pa, sb, pb)),
            (Some(&s), None) => f.terminals.push((format!("{}[{}]", nodes[b].0, pb + 1), s, pa)),
            (None, Some(&s)) => f.terminals.push((format!("{}[{}]", nodes[a].0, pa + 1), s, pb)),
            (None, None) => {
                return Err(bad(
                    file,
                    line,
                    "link",
                    format!("'{}' - '{}'", nodes[a].0, nodes[b].0),
                    "a link with a switch at one end at least",
                ))
            }
        }
    }
    // Terminals in host file order (then port), as ibnetdiscover lists them.
    let order: HashMap<&str, usize> = nodes.iter().map(|(n, node)| (n.as_str(), node.line)).collect();
    f.terminals.sort_by_key(|(name, _, _)| {
        let (host, port) = name.rsplit_once('[').unwrap_or((name, ""));
        (order.get(host).copied().unwrap_or(usize::MAX), port.trim_end_matches(']').parse::<usize>().unwrap_or(0))
    });
    Ok(f)
}

/// Parses the plain edge-list format.
pub fn parse_edges(text: &str, file: &str) -> Result<Fabric> {
    let mut f = Fabric::new(file, Vec::new(), Vec::new());
    let mut index: HashMap<String, usize> = HashMap::new();
    // Declared port counts, with the line that declares them.
    let mut declared: Vec<Option<(usize, usize)>> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    // Terminal names → the line that named them (two terminals may not share a name).
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut switch = |name: &str, f: &mut Fabric, declared: &mut Vec<Option<(usize, usize)>>, used: &mut Vec<usize>| {
        *index.entry(name.to_string()).or_insert_with(|| {
            f.switch_names.push(name.to_string());
            declared.push(None);
            used.push(0);
            f.switch_names.len() - 1
        })
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            [] => {}
            ["switch", a, n] => {
                let s = switch(a, &mut f, &mut declared, &mut used);
                let max = MAX_PORTS as usize;
                let n: usize = n.parse().ok().filter(|&n| (1..=max).contains(&n)).ok_or_else(|| {
                    bad(file, i, "ports", format!("'{n}'"), &format!("a port count between 1 and {max}"))
                })?;
                if let Some((_, l)) = declared[s] {
                    return Err(bad(
                        file,
                        i,
                        "switch",
                        format!("'{a}'"),
                        &format!("a switch declared once (line {} declares it)", l + 1),
                    ));
                }
                declared[s] = Some((n, i));
                let total = declared.iter().map(|d| d.map_or(0, |(n, _)| n) as u128).sum::<u128>();
                if n > 1024 || total > max as u128 {
                    port_budget(file, i, "ports", &n.to_string(), total)?;
                }
            }
            ["link", a, b] => {
                let (sa, sb) =
                    (switch(a, &mut f, &mut declared, &mut used), switch(b, &mut f, &mut declared, &mut used));
                if sa == sb {
                    return Err(bad(file, i, "link", format!("'{line}'"), "two different switches"));
                }
                f.links.push((sa, used[sa], sb, used[sb]));
                used[sa] += 1;
                used[sb] += 1;
            }
            ["terminal", name, a] => {
                let s = switch(a, &mut f, &mut declared, &mut used);
                add_terminal(name.to_string(), s, &mut f, &mut used, &mut names, file, i)?;
            }
            ["terminals", a, n] => {
                let s = switch(a, &mut f, &mut declared, &mut used);
                let n: usize =
                    n.parse().map_err(|_| bad(file, i, "terminals", format!("'{n}'"), "a number of terminals"))?;
                // No terminals would still make switch `a`, unlinked unless other lines link it.
                if n == 0 {
                    return Err(bad(
                        file,
                        i,
                        "terminals",
                        "'0'",
                        "a number of terminals of at least 1 ('switch A PORTS' declares a switch without them)",
                    ));
                }
                // Before a terminal is made: a typo such as 999999999999 is one line, not an abort.
                let total = used.iter().map(|&u| u as u128).sum::<u128>() + n as u128;
                if n > 1024 || total > MAX_PORTS as u128 {
                    port_budget(file, i, "terminals", &n.to_string(), total)?;
                }
                for _ in 0..n {
                    add_terminal(format!("{a}/{}", used[s]), s, &mut f, &mut used, &mut names, file, i)?;
                }
            }
            _ => {
                return Err(bad(
                    file,
                    i,
                    "line",
                    format!("'{line}'"),
                    "'link A B', 'terminal NAME A', 'terminals A N' or 'switch A PORTS'",
                ))
            }
        }
    }
    for (s, d) in declared.iter().enumerate() {
        if let Some((d, l)) = *d {
            if used[s] > d {
                return Err(bad(
                    file,
                    l,
                    "ports",
                    format!("{d} on switch {}", f.switch_names[s]),
                    &format!("at least the {} its links and terminals use", used[s]),
                ));
            }
        }
    }
    f.ports = used.iter().zip(&declared).map(|(&u, d)| d.map_or(u, |(n, _)| n).max(1)).collect();
    Ok(f)
}

/// Attaches terminal `name` to the next port of switch `s` (edge list line `line`), refusing a
/// name an earlier line gave (`names`: terminal name → the line that named it).
fn add_terminal(
    name: String,
    s: usize,
    f: &mut Fabric,
    used: &mut [usize],
    names: &mut HashMap<String, usize>,
    file: &str,
    line: usize,
) -> Result<()> {
    if let Some(l) = names.insert(name.clone(), line) {
        let allowed = format!("a name not used before (line {})", l + 1);
        return Err(bad(file, line, "terminal", format!("'{name}'"), &allowed));
    }
    f.terminals.push((name, s, used[s]));
    used[s] += 1;
    Ok(())
}

/// Whether a fabric's names can stand in an ibnetdiscover file: distinct, hosts and switches
/// alike, and free of quotes and line breaks (a `#` inside a quoted name is no comment).
fn ibnet_names_fit(f: &Fabric) -> bool {
    let mut seen = std::collections::HashSet::new();
    f.switch_names
        .iter()
        .chain(f.terminals.iter().map(|t| &t.0))
        .all(|n| !n.is_empty() && !n.contains(['"', '\n', '\r']) && seen.insert(n.as_str()))
}

/// Writes `topo` as ibnetdiscover-like text (switch records, then one record per terminal).
pub fn to_ibnet(topo: &Topology) -> String {
    // A fabric keeps the names it was read with, unless the file could not hold them: every
    // record and port line refers to a node by its quoted name, so names must be distinct
    // (hosts and switches alike) and free of quotes; else S<i>/H<t>.
    let names: Option<&Fabric> = match topo.family() {
        Family::Fabric(f) if ibnet_names_fit(f) => Some(f),
        _ => None,
    };
    let sw = |s: usize| names.map_or_else(|| format!("S{s}"), |f| f.switch_names[s].clone());
    let host = |t: usize| names.map_or_else(|| format!("H{t}"), |f| f.terminals[t].0.clone());
    let names: Vec<String> = (0..topo.num_terminals()).map(host).collect();
    let switches: std::collections::HashSet<String> = (0..topo.num_switches()).map(sw).collect();
    let records = host_records(&names, &switches);
    // Terminal → (host record, port from 1), for the switches' port lines.
    let mut end = vec![(0, 0); names.len()];
    for (r, (_, ports)) in records.iter().enumerate() {
        for &(p, t) in ports {
            end[t] = (r, p);
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "# {} (hpcnetsim export)", topo.spec());
    for s in 0..topo.num_switches() {
        let _ = writeln!(out, "\nSwitch\t{} \"{}\"", topo.num_ports(s), sw(s));
        for (p, peer) in topo.ports(s).iter().enumerate() {
            match *peer {
                Peer::Switch { switch, port } => {
                    let _ = writeln!(out, "[{}]\t\"{}\"[{}]", p + 1, sw(switch as usize), port + 1);
                }
                Peer::Terminal(t) => {
                    let (r, hp) = end[t as usize];
                    let _ = writeln!(out, "[{}]\t\"{}\"[{hp}]", p + 1, records[r].0);
                }
                Peer::Unplugged => {}
            }
        }
    }
    for (name, ports) in &records {
        let width = ports.last().map_or(1, |&(p, _)| p);
        let _ = writeln!(out, "\nCa\t{width} \"{name}\"");
        for &(p, t) in ports {
            let (s, sp) = topo.terminal_attachment(t);
            let _ = writeln!(out, "[{p}]\t\"{}\"[{}]", sw(s), sp + 1);
        }
    }
    out
}

/// `HOST` and `P` of a terminal named `HOST[P]` (the name the reader gives port P of host
/// record HOST), when writing them back gives the name exactly.
fn host_port(name: &str) -> Option<(&str, usize)> {
    let (host, port) = name.strip_suffix(']')?.rsplit_once('[')?;
    let p: usize = port.parse().ok().filter(|&p| p >= 1)?;
    (!host.is_empty() && p.to_string() == port).then_some((host, p))
}

/// The host records of an ibnetdiscover export: (host name, [(port from 1, terminal)]). The
/// reader names port P of host HOST `HOST[P]`, so a terminal named so is written back as that
/// port of that record: an export read back and exported again is the same text, and names
/// read from a real fabric (that routing tables and job lists use) stay as they were. When
/// the names do not split so (two terminals on one host port, a host named like a switch, a
/// host's ports apart or out of order in terminal order, which the reader would reorder),
/// every terminal is port 1 of a host record of its full name.
fn host_records(names: &[String], switches: &std::collections::HashSet<String>) -> Vec<(String, Vec<(usize, usize)>)> {
    let mut records: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let grouped = names.iter().enumerate().all(|(t, name)| {
        let (host, p) = host_port(name).unwrap_or((name, 1));
        if switches.contains(host) {
            return false;
        }
        match index.get(host) {
            // Only onto the last record, at a higher port: the reader sorts a host's
            // terminals by record, then port.
            Some(&r) => {
                let fits = r + 1 == records.len() && records[r].1.last().is_some_and(|&(q, _)| q < p);
                if fits {
                    records[r].1.push((p, t));
                }
                fits
            }
            None => {
                index.insert(host, records.len());
                records.push((host.to_string(), vec![(p, t)]));
                true
            }
        }
    });
    if grouped {
        records
    } else {
        names.iter().enumerate().map(|(t, name)| (name.clone(), vec![(1, t)])).collect()
    }
}
