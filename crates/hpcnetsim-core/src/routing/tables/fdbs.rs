//! Forwarding tables written by the ib_flit_sim InfiniBand model (OpenSM's tables as
//! `.fdbs`): rows `INDEX: p p p ...` giving the 0-based output port per LID (255: none),
//! possibly split over several lines; an `.ini` mapping switch names to row indices
//! (`**.NAME_U1.pktfwd.fdbIndex = INDEX`); a host list mapping host ports to LIDs
//! (`H-1/U1/1 1`). Used with fabrics read by `ibdm:PATH`.

use super::Tables;
use crate::error::{Error, Result};
use crate::topology::{Family, Topology};
use std::collections::HashMap;

/// Switch names as both files spell them (`SW-2-0`, `SWS_0/leaf1` → `SW_2_0`, `SWS_0_leaf1`).
fn key(name: &str) -> String {
    name.replace(['-', '/'], "_")
}

/// Loads the tables; `file` names the `.fdbs` in errors.
pub fn load(fdbs: &str, ini: &str, hcas: &str, file: &str, topo: &Topology) -> Result<Tables> {
    let Family::Fabric(fabric) = topo.family() else {
        return Err(Error::invalid(
            file,
            "topology",
            topo.spec(),
            "a fabric read with ibdm:PATH (switch names are needed)",
        ));
    };
    let switch_of: HashMap<String, usize> = fabric.switch_names.iter().enumerate().map(|(i, n)| (key(n), i)).collect();
    let terminal_of: HashMap<&str, usize> =
        fabric.terminals.iter().enumerate().map(|(i, t)| (t.0.as_str(), i)).collect();
    let mut row_switch: HashMap<usize, usize> = HashMap::new();
    for (i, line) in ini.lines().enumerate() {
        let line = line.trim();
        let Some((lhs, rhs)) = line.split_once('=') else { continue };
        let name = lhs.trim().trim_start_matches("**.").trim_end_matches(".pktfwd.fdbIndex").trim_end_matches("_U1");
        let bad = || {
            Error::invalid(
                format!("{file}.ini:{}", i + 1),
                "switch",
                format!("'{line}'"),
                "NAME_U1.pktfwd.fdbIndex = INDEX naming a switch of the fabric",
            )
        };
        let index: usize = rhs.trim().parse().map_err(|_| bad())?;
        let s = *switch_of.get(name).ok_or_else(bad)?;
        row_switch.insert(index, s);
    }
    let mut lid_terminal: Vec<(usize, usize)> = Vec::new();
    for (i, line) in hcas.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.is_empty() {
            continue;
        }
        let parsed = (w.len() == 2).then(|| (terminal_of.get(w[0]).copied(), w[1].parse::<usize>().ok()));
        match parsed {
            Some((Some(t), Some(lid))) => lid_terminal.push((lid, t)),
            _ => {
                return Err(Error::invalid(
                    format!("{file}.hcas:{}", i + 1),
                    "host",
                    format!("'{}'", line.trim()),
                    "HOST/U1/PORT LID naming a host port of the fabric",
                ))
            }
        }
    }
    // Table rows by index, with their line (0-based). A row may go on over the lines that
    // follow it with the same index (ib_flit_sim wraps the 1945 LIDs of the 1944-node
    // fabric's rows over 20 lines); the same index again after another row's is refused.
    let mut rows: HashMap<usize, (Vec<u16>, usize)> = HashMap::new();
    let mut previous: Option<usize> = None;
    for (i, line) in fdbs.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |v: &str| {
            Error::invalid(
                format!("{file}:{}", i + 1),
                "entry",
                format!("'{v}'"),
                "INDEX: PORT PORT ... with ports 0-254 or 255 (none)",
            )
        };
        let (idx, rest) = line.split_once(':').ok_or_else(|| bad(line.trim()))?;
        let idx: usize = idx.trim().parse().map_err(|_| bad(idx))?;
        if let Some((_, l)) = rows.get(&idx).filter(|_| previous != Some(idx)) {
            return Err(Error::invalid(
                format!("{file}:{}", i + 1),
                "row",
                idx,
                format!("a table index listed once (line {} lists it)", l + 1),
            ));
        }
        previous = Some(idx);
        let (row, _) = rows.entry(idx).or_insert((Vec::new(), i));
        for v in rest.split_whitespace() {
            row.push(v.parse().ok().filter(|&p: &u16| p <= 255).ok_or_else(|| bad(v))?);
        }
    }
    // A file cut short: a switch of the .ini without its row, or a row that ends before the
    // hosts' last LID, left pairs unreachable without a word.
    let mut listed: Vec<(usize, usize)> = row_switch.iter().map(|(&i, &s)| (i, s)).collect();
    listed.sort_unstable();
    if let Some(&(idx, s)) = listed.iter().find(|(i, _)| !rows.contains_key(i)) {
        return Err(Error::invalid(
            file,
            "row",
            format!("{idx} (switch {}) missing", fabric.switch_names[s]),
            format!("a row for each of the {} indices of the .ini file ({} read)", listed.len(), rows.len()),
        ));
    }
    if let Some(last) = lid_terminal.iter().map(|&(lid, _)| lid).max() {
        let mut by_line: Vec<(usize, usize, usize)> = rows.iter().map(|(&i, (r, l))| (*l, i, r.len())).collect();
        by_line.sort_unstable();
        if let Some(&(line, idx, n)) = by_line.iter().find(|&&(_, _, n)| n <= last) {
            return Err(Error::invalid(
                format!("{file}:{}", line + 1),
                format!("row {idx}"),
                format!("{n} entries"),
                format!("an entry for each LID from 0 to the hosts' last, {last} (a file cut short?)"),
            ));
        }
    }
    let mut t = Tables::new("opensm", topo, 0);
    for (&idx, (row, line)) in &rows {
        let at = format!("{file}:{}", line + 1);
        let Some(&s) = row_switch.get(&idx) else {
            return Err(Error::invalid(at, "row", idx, "an index listed in the .ini file"));
        };
        for &(lid, term) in &lid_terminal {
            match row.get(lid).copied() {
                Some(255) | None => {}
                Some(p) if (p as usize) < topo.num_ports(s) => t.set_port(s, term, p as usize),
                Some(p) => {
                    return Err(Error::invalid(
                        at,
                        format!("port of LID {lid}"),
                        p,
                        format!("below {} on switch {} (or 255: none)", topo.num_ports(s), fabric.switch_names[s]),
                    ))
                }
            }
        }
    }
    Ok(t)
}
