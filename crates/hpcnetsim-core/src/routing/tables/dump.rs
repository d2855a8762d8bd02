//! The text form of forwarding tables, modelled on OpenSM's LFT dump so that tables
//! computed elsewhere can be loaded and simulated (format in docs/routing.md):
//!
//! ```text
//! # hpcnetsim forwarding tables
//! # spec: hyperx:4x4,t=2
//! # engine: dfsssp
//! # lmc: 0
//! # vls: 2
//! Unicast lids [0x0001-0x0020] of switch 0:
//! 0x0001 008 : (terminal 0 offset 0)
//! ...
//! 32 lids valid for this switch
//! VLs of terminal 0: 0 0 1 ...
//! ```
//!
//! LID of terminal `t` at offset `o`: `(t + 1) · 2^lmc + o`. Ports are numbered as in
//! hpcnetsim's graph (0-based). VL lines (one per source terminal, one lane per LID in
//! order) appear only when more than one lane is used.

use super::{Tables, MAX_LMC, MAX_VLS};
use crate::error::{Error, Result};
use crate::topology::Topology;
use std::fmt::Write;

/// Writes the tables as text.
pub fn dump(topo: &Topology, t: &Tables) -> String {
    let mut out = String::new();
    let lids = t.lids();
    let base = 1usize << t.lmc;
    let _ = writeln!(out, "# hpcnetsim forwarding tables");
    let _ = writeln!(out, "# spec: {}", topo.spec());
    let _ = writeln!(out, "# engine: {}", t.engine);
    let _ = writeln!(out, "# lmc: {}", t.lmc);
    let _ = writeln!(out, "# vls: {}", t.vls);
    for s in 0..t.switches() {
        let _ = writeln!(out, "Unicast lids [0x{:04x}-0x{:04x}] of switch {s}:", base, base + lids - 1);
        let mut valid = 0;
        for lid in 0..lids {
            if let Some(p) = t.port(s, lid) {
                valid += 1;
                let _ = writeln!(
                    out,
                    "0x{:04x} {p:03} : (terminal {} offset {})",
                    base + lid,
                    lid >> t.lmc,
                    lid & (base - 1)
                );
            }
        }
        let _ = writeln!(out, "{valid} lids valid for this switch");
    }
    if t.vls > 1 {
        for src in 0..t.terminals() {
            let _ = write!(out, "VLs of terminal {src}:");
            for lid in 0..lids {
                let _ = write!(out, " {}", t.vl(src, lid));
            }
            out.push('\n');
        }
    }
    out
}

/// Reads tables written by [`dump`] (or by hand in the same form) for `topo`; `file`
/// names the source in errors, which give the line number.
pub fn load(text: &str, file: &str, topo: &Topology) -> Result<Tables> {
    // Tables of another network fail on whatever they meet first (a port the switch lacks,
    // too few lanes for the LIDs): the error then says which network the dump was made for.
    let other = header_spec(text).filter(|theirs| !same_spec(theirs, topo.spec()));
    let tables = read(text, file, topo).map_err(|e| match other {
        Some(theirs) => names_other_network(e, theirs, topo.spec()),
        None => e,
    })?;
    // Tables that fit the switches' ports can still be another family's (a torus's on a mesh
    // of the same size): they would route some pairs nowhere. Refused when the header's spec
    // reads as another generated family; faults or planes of the same family are the same
    // network's, and a fabric file may hold any family's graph (a tree exported to ibnet).
    let fabric = |f: &crate::topology::Family| matches!(f, crate::topology::Family::Fabric(_));
    if let Some(theirs) = other {
        if let Ok(parsed) = crate::topology::parse_spec(theirs) {
            if !fabric(&parsed.family) && !fabric(topo.family()) && parsed.family != *topo.family() {
                return Err(Error::invalid(
                    file,
                    "spec",
                    theirs,
                    format!("tables of {}: the dump's header names another network", topo.spec()),
                ));
            }
        }
    }
    Ok(tables)
}

/// The `# spec:` header of a dump, if it has one.
fn header_spec(text: &str) -> Option<&str> {
    text.lines().map_while(|l| l.trim().strip_prefix('#')).find_map(|h| h.trim().strip_prefix("spec:")).map(str::trim)
}

fn same_spec(a: &str, b: &str) -> bool {
    a.split_whitespace().collect::<String>() == b.split_whitespace().collect::<String>()
}

fn names_other_network(e: Error, theirs: &str, ours: &str) -> Error {
    const NAMED: &str = "the dump's header names";
    match e {
        Error::Invalid { context, field, value, allowed } if !allowed.contains(NAMED) => Error::Invalid {
            context,
            field,
            value,
            allowed: format!("{allowed} ({NAMED} {theirs}; these tables are loaded for {ours})"),
        },
        Error::Unsupported(m) if !m.contains(NAMED) => {
            Error::Unsupported(format!("{m} ({NAMED} {theirs}; these tables are loaded for {ours})"))
        }
        other => other,
    }
}

fn read(text: &str, file: &str, topo: &Topology) -> Result<Tables> {
    let at = |line: usize| format!("{file}:{}", line + 1);
    let mut lmc: Option<u8> = None;
    let mut t: Option<Tables> = None;
    let mut switch: Option<usize> = None;
    let mut entries = 0usize;
    let mut vl: Vec<u8> = Vec::new();
    let mut vls_used = 1usize;
    let mut spec: Option<&str> = None;
    // The lanes the `# vls: N` header says the dump uses (with N > 1 the dump writes a lane
    // line for every terminal), and its line.
    let mut vls_header: Option<(usize, usize)> = None;
    // The line of each switch's block and of each terminal's lanes: a second one would
    // silently replace the first (two dumps pasted together, an edit gone wrong), so it is
    // refused, naming both lines.
    let mut block_line: Vec<Option<usize>> = vec![None; topo.num_switches()];
    let mut vl_line: Vec<Option<usize>> = vec![None; topo.num_terminals()];
    let parse_int = |s: &str| -> Option<usize> {
        let s = s.trim();
        match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(h) => usize::from_str_radix(h, 16).ok(),
            None => s.parse().ok(),
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            if let Some(v) = rest.trim().strip_prefix("spec:") {
                spec = Some(v.trim());
            }
            if let Some(v) = rest.trim().strip_prefix("vls:") {
                let n = parse_int(v).filter(|&n| (1..=MAX_VLS).contains(&n)).ok_or_else(|| {
                    Error::invalid(at(i), "vls", format!("'{}'", v.trim()), format!("an integer from 1 to {MAX_VLS}"))
                })?;
                vls_header = Some((n, i));
            }
            if let Some(v) = rest.trim().strip_prefix("lmc:") {
                if t.is_some() {
                    return Err(Error::invalid(
                        at(i),
                        "line",
                        format!("'{line}'"),
                        "one '# lmc: N' header per file (a second one would drop the tables read so far)",
                    ));
                }
                let l = parse_int(v).filter(|&l| l <= MAX_LMC as usize).ok_or_else(|| {
                    Error::invalid(
                        at(i),
                        "lmc",
                        format!("'{}'", v.trim()),
                        format!("an integer between 0 and {MAX_LMC}"),
                    )
                })?;
                lmc = Some(l as u8);
                let mut tables = Tables::new("loaded", topo, l as u8);
                tables.engine = "loaded".into();
                t = Some(tables);
            }
            continue;
        }
        let Some(tables) = t.as_mut() else {
            return Err(Error::invalid(at(i), "line", format!("'{line}'"), "a '# lmc: N' header line first"));
        };
        let lids = tables.lids();
        let base = 1usize << lmc.unwrap_or(0);
        if let Some(rest) = line.strip_prefix("Unicast lids") {
            let s = rest.rsplit_once("switch").and_then(|(_, v)| parse_int(v.trim_end_matches(':')));
            match s {
                Some(s) if s < topo.num_switches() => {
                    if let Some(open) = switch {
                        return Err(unclosed(open, block_line[open].unwrap_or(i), at(i)));
                    }
                    if let Some(first) = block_line[s] {
                        return Err(Error::invalid(
                            at(i),
                            "switch",
                            format!("'{line}'"),
                            format!("one block per switch (switch {s}'s began on line {})", first + 1),
                        ));
                    }
                    block_line[s] = Some(i);
                    switch = Some(s);
                    entries = 0;
                }
                _ => {
                    return Err(Error::invalid(
                        at(i),
                        "switch",
                        format!("'{line}'"),
                        format!("'Unicast lids [..] of switch S:' with S below {}", topo.num_switches()),
                    ))
                }
            }
        } else if let Some(count) = line.strip_suffix("lids valid for this switch") {
            // The count a dump writes after its entries: one that differs from the entries
            // read is a file cut or edited inside the block.
            if let Some(s) = switch {
                let written = parse_int(count);
                if written != Some(entries) {
                    return Err(Error::invalid(
                        at(i),
                        "line",
                        format!("'{line}'"),
                        format!("the count of the entries above it: switch {s}'s block has {entries}"),
                    ));
                }
            }
            switch = None;
        } else if let Some(rest) = line.strip_prefix("VLs of terminal") {
            let (src, lanes) = rest.split_once(':').unwrap_or((rest, ""));
            let src = parse_int(src).filter(|&s| s < topo.num_terminals()).ok_or_else(|| {
                Error::invalid(
                    at(i),
                    "terminal",
                    format!("'{}'", src.trim()),
                    format!("below {}", topo.num_terminals()),
                )
            })?;
            if let Some(first) = vl_line[src] {
                return Err(Error::invalid(
                    at(i),
                    "terminal",
                    src,
                    format!("one 'VLs of terminal' line per terminal (terminal {src}'s is on line {})", first + 1),
                ));
            }
            vl_line[src] = Some(i);
            let words: Vec<&str> = lanes.split_whitespace().collect();
            if let Some(w) = words.iter().find(|w| parse_int(w).is_none_or(|v| v >= MAX_VLS)) {
                return Err(Error::invalid(at(i), "VL", format!("'{w}'"), format!("a lane from 0 to {}", MAX_VLS - 1)));
            }
            let lanes: Vec<usize> = words.iter().filter_map(|w| parse_int(w)).collect();
            if lanes.len() != lids {
                return Err(Error::invalid(
                    at(i),
                    "VLs",
                    format!("{} values", lanes.len()),
                    format!("{lids} lanes, one per LID"),
                ));
            }
            if vl.is_empty() {
                vl = vec![0; topo.num_terminals() * lids];
            }
            for (lid, &v) in lanes.iter().enumerate() {
                vl[src * lids + lid] = v as u8;
                vls_used = vls_used.max(v + 1);
            }
        } else {
            let Some(s) = switch else {
                return Err(Error::invalid(
                    at(i),
                    "line",
                    format!("'{line}'"),
                    "an entry inside a 'Unicast lids' block",
                ));
            };
            let mut words = line.split_whitespace();
            let lid = words.next().and_then(parse_int);
            let port = words.next().and_then(parse_int);
            match (lid, port) {
                (Some(lid), Some(port)) if lid >= base && lid < base + lids && port < topo.num_ports(s) => {
                    // A switch has one block, so an entry already set is this block's.
                    if let Some(earlier) = tables.port(s, lid - base) {
                        return Err(Error::invalid(
                            at(i),
                            "entry",
                            format!("'{line}'"),
                            format!("one entry per LID (LID 0x{lid:04x} of switch {s} already goes to port {earlier})"),
                        ));
                    }
                    tables.set_port(s, lid - base, port);
                    entries += 1;
                }
                _ => {
                    return Err(Error::invalid(
                        at(i),
                        "entry",
                        format!("'{line}'"),
                        format!(
                            "'LID PORT' with LID in 0x{base:04x}..0x{:04x} and PORT below {} (switch {s})",
                            base + lids - 1,
                            topo.num_ports(s)
                        ),
                    ))
                }
            }
        }
    }
    let Some(mut tables) = t else {
        return Err(Error::invalid(file, "lmc", "missing", "a '# lmc: N' header line"));
    };
    // A file cut inside its last block: the entries after the cut would read as unreachable.
    if let Some(open) = switch {
        return Err(unclosed(open, block_line[open].unwrap_or(0), format!("{file}: end of file")));
    }
    // A dump writes a block for every switch: one missing is most likely a dump of another
    // network, whose every pair would otherwise be reported unreachable.
    if let Some(s) = block_line.iter().position(Option::is_none) {
        let read = block_line.iter().filter(|b| b.is_some()).count();
        let theirs = spec.map_or(String::new(), |spec| format!("; the dump's header names {spec}"));
        return Err(Error::invalid(
            file,
            "switch",
            format!("{s} (no 'Unicast lids' block)"),
            format!(
                "a block for each of the {} switches of {} ({read} read{theirs})",
                topo.num_switches(),
                topo.spec()
            ),
        ));
    }
    // A dump with more than one lane writes every terminal's lanes: a terminal without its
    // line (a file cut after the tables) would have every path on lane 0, which can turn an
    // acyclic layering into a deadlock verdict.
    if let Some((n, line)) = vls_header.filter(|&(n, _)| n > 1) {
        if let Some(src) = vl_line.iter().position(Option::is_none) {
            let read = vl_line.iter().filter(|l| l.is_some()).count();
            return Err(Error::invalid(
                file,
                "terminal",
                format!("{src} (no 'VLs of terminal' line)"),
                format!(
                    "a lane line for each of the {} terminals, as the '# vls: {n}' header on line {} says \
                     ({read} read)",
                    topo.num_terminals(),
                    line + 1
                ),
            ));
        }
    }
    tables.set_vls(vl, vls_used);
    Ok(tables)
}

/// The error for switch `s`'s block (begun on line `begun`, 0-based) that `at` reaches
/// without its closing `N lids valid for this switch` line: the file was cut inside it.
fn unclosed(s: usize, begun: usize, at: String) -> Error {
    Error::invalid(
        at,
        "switch",
        format!("{s}'s block (begun on line {}) not closed", begun + 1),
        "every 'Unicast lids' block closed by its 'N lids valid for this switch' line",
    )
}
