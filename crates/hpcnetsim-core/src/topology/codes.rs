//! CODES dragonfly connection files (`dragonfly-dally` and `dragonfly-custom` models): spec
//! `codes-dragonfly:INTRA,INTER,p=N`, and the exports `codes-intra` and `codes-inter`.
//!
//! CODES reads two files of native-endian 32-bit integers (little-endian on every machine it
//! runs on): the intra-group file, records `(source local id, destination local id, link
//! type)` applied to every group (type 0 = row / green, 1 = column / black for the Cray
//! Cascade model), and the inter-group file, records `(source router id, destination router
//! id)` with router id `group·a + local`. Every record is one direction of a channel: a
//! link appears once from each end, parallel links once per copy. Both files are read in
//! that binary form or as the decoded text form (`a,b[,type]` per line, `#` comments),
//! which is what the exports write; `numpy.loadtxt(f, delimiter=",", dtype="<i4").tofile(g)`
//! turns the text into CODES' binary.
//!
//! Routers per group `a` = the largest local id + 1, groups = routers / a. Ports: the
//! router's intra-group records in file order, then its inter-group records in file order
//! (CODES' own port offsets), then `p` terminals; the k-th record u→v pairs with the k-th
//! record v→u.

use super::fabric::Fabric;
use super::family::Family;
use super::graph::Topology;
use super::import::MAX_FILE_BYTES;
use super::wiring::{check_size, Peer};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::fmt::Write;

/// Largest router id or count accepted.
const MAX_ROUTERS: usize = 1 << 24;

/// A record and where it came from (1-based line of the text form or record number).
struct Record {
    a: usize,
    b: usize,
    at: usize,
}

/// Whether a file is the binary form and the label of its record positions.
fn where_(binary: bool) -> &'static str {
    if binary {
        "record"
    } else {
        "line"
    }
}

/// Reads a CODES connection file (`fields` = 3 for intra-group, 2 for inter-group): its
/// records, whether it is binary, and whether it is blank (empty or whitespace only).
fn read_records(path: &str, fields: usize) -> Result<(Vec<Record>, bool, bool)> {
    use std::io::Read;
    let context = format!("codes-dragonfly:{path}");
    let unreadable =
        |e: std::io::Error| Error::invalid(&context, "file", format!("'{path}'"), format!("a readable file ({e})"));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(Error::invalid(&context, "file", format!("'{path}'"), "a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Error::invalid(
            &context,
            "file",
            format!("{} bytes", meta.len()),
            format!("a connection file of at most {MAX_FILE_BYTES} bytes"),
        ));
    }
    // The records and the fabric built from them: a few times the file.
    crate::memory::check(&context, "file", &format!("{} bytes", meta.len()), meta.len() as u128 * 8)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    let blank = bytes.iter().all(u8::is_ascii_whitespace);
    let binary = bytes.contains(&0);
    let bad = |at: usize, field: &str, value: String, allowed: &str| {
        Error::invalid(format!("{path}:{} {at}", where_(binary)), field, value, allowed)
    };
    let names = ["source", "destination", "link type"];
    let mut out = Vec::new();
    let check = |at: usize, v: i64, field: &str| -> Result<usize> {
        if v < 0 || v as usize >= MAX_ROUTERS {
            return Err(bad(at, field, v.to_string(), &format!("an id between 0 and {}", MAX_ROUTERS - 1)));
        }
        Ok(v as usize)
    };
    if binary {
        let size = 4 * fields;
        if bytes.len() % size != 0 {
            return Err(Error::invalid(
                &context,
                "file",
                format!("{} bytes", bytes.len()),
                format!("a whole number of {size}-byte records ({fields} 32-bit integers each)"),
            ));
        }
        for (i, rec) in bytes.chunks_exact(size).enumerate() {
            let v: Vec<i64> =
                rec.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64).collect();
            let a = check(i + 1, v[0], names[0])?;
            let b = check(i + 1, v[1], names[1])?;
            out.push(Record { a, b, at: i + 1 });
        }
    } else {
        let text = super::import::utf8_text(bytes, &context, "CODES' binary records or their text form")?;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split(',').map(str::trim).collect();
            if cols.len() != fields {
                let what = if fields == 3 { "'source,destination,type'" } else { "'source,destination'" };
                return Err(bad(i + 1, "line", format!("'{line}'"), &format!("{what}: {fields} integers")));
            }
            let mut v = [0usize; 3];
            for (k, c) in cols.iter().enumerate() {
                let n: i64 = c.parse().map_err(|_| bad(i + 1, names[k], format!("'{c}'"), "an integer"))?;
                v[k] = check(i + 1, n, names[k])?;
            }
            out.push(Record { a: v[0], b: v[1], at: i + 1 });
        }
    }
    Ok((out, binary, blank))
}

/// Pairs the records of each direction: `(a, port a, b, port b)` for every link, the port
/// being the record's position among its source's records (plus `base[source]`).
fn pair_records(
    path: &str,
    binary: bool,
    records: &[(usize, usize, usize)],
    base: &[usize],
    next: &mut [usize],
) -> Result<Vec<(usize, usize, usize, usize)>> {
    if let Some(&(a, _, at)) = records.iter().find(|(a, b, _)| a == b) {
        return Err(Error::invalid(
            format!("{path}:{} {at}", where_(binary)),
            "link",
            format!("{a}→{a}"),
            "a link between two different routers",
        ));
    }
    // (source, destination) → the ports of its records, in file order.
    let mut by_pair: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
    for &(a, b, at) in records {
        by_pair.entry((a, b)).or_default().push((base[a] + next[a], at));
        next[a] += 1;
    }
    let mut links = Vec::new();
    let mut keys: Vec<_> = by_pair.keys().copied().filter(|&(a, b)| a < b).collect();
    keys.sort_unstable();
    for (a, b) in keys {
        let there = &by_pair[&(a, b)];
        let back = by_pair.get(&(b, a)).map_or(&[][..], |v| &v[..]);
        if there.len() != back.len() {
            let at = there.get(back.len()).or(back.get(there.len())).map_or(0, |x| x.1);
            return Err(Error::invalid(
                format!("{path}:{} {at}", where_(binary)),
                "link",
                format!("{} records {a}→{b} and {} records {b}→{a}", there.len(), back.len()),
                "every link listed once from each end",
            ));
        }
        links.extend(there.iter().zip(back).map(|(&(pa, _), &(pb, _))| (a, pa, b, pb)));
    }
    // A record with no reverse at all (b < a and no a < b partner) is caught here.
    if let Some((&(a, b), v)) = by_pair.iter().filter(|(&(a, b), _)| a > b && !by_pair.contains_key(&(b, a))).min() {
        return Err(Error::invalid(
            format!("{path}:{} {}", where_(binary), v[0].1),
            "link",
            format!("{a}→{b}"),
            format!("every link listed once from each end (no record {b}→{a})"),
        ));
    }
    Ok(links)
}

/// Reads `INTRA,INTER,p=N` into a fabric.
pub fn read(body: &str) -> Result<Fabric> {
    let context = format!("codes-dragonfly:{body}");
    let parts: Vec<&str> = body.split(',').map(str::trim).collect();
    let usage = "INTRA,INTER,p=N: the intra- and inter-group connection files and the terminals per router";
    let [intra, inter, p] = parts[..] else {
        return Err(Error::invalid(&context, "spec", format!("'{body}'"), usage));
    };
    let p: usize = p
        .strip_prefix("p=")
        .and_then(|v| v.parse().ok())
        .filter(|&v| (1..=4096).contains(&v))
        .ok_or_else(|| Error::invalid(&context, "p", format!("'{p}'"), "p=N with N between 1 and 4096"))?;
    let (intra_records, intra_binary, intra_blank) = read_records(intra, 3)?;
    let (inter_records, inter_binary, _) = read_records(inter, 2)?;
    // A blank intra-group file is one cut short or not yet written, not a dragonfly of
    // one-router groups (whose export still holds its header line): read as such, every
    // router is a group of its own and the error is about disconnected terminals. (A blank
    // inter-group file is a single group; two are refused below.)
    if intra_blank && !inter_records.is_empty() {
        return Err(Error::invalid(
            format!("codes-dragonfly:{intra}"),
            "file",
            "empty file",
            "intra-group records 'source,destination,type' (CODES' binary records or their text form)",
        ));
    }
    let a = intra_records.iter().map(|r| r.a.max(r.b) + 1).max().unwrap_or(1);
    let routers = inter_records.iter().map(|r| r.a.max(r.b) + 1).max().unwrap_or(a).max(a);
    let groups = routers.div_ceil(a);
    let routers = groups * a;
    // Empty files name one router: a network of p terminals and nothing between them.
    if intra_records.is_empty() && inter_records.is_empty() {
        return Err(Error::invalid(
            &context,
            "files",
            "no connection records",
            "at least one intra- or inter-group record",
        ));
    }
    if routers * p < 2 {
        return Err(Error::invalid(&context, "terminals", routers * p, "a network needs at least 2 terminals"));
    }
    // Every record is a port: bounded like any network before the groups are expanded.
    let records = (intra_records.len() as u128) * groups as u128 + inter_records.len() as u128;
    check_size(&context, routers as u128, records)?;
    // A few small records may name a large network: its records and ports are estimated
    // before they are expanded (about 128 bytes per record, 64 per router).
    let need = records * 128 + routers as u128 * 64;
    crate::memory::check(&context, "size", &format!("{routers} routers, {records} records"), need)?;
    // Intra-group records apply to every group.
    let mut intra_all = Vec::with_capacity(intra_records.len() * groups);
    for g in 0..groups {
        intra_all.extend(intra_records.iter().map(|r| (g * a + r.a, g * a + r.b, r.at)));
    }
    let inter_all: Vec<(usize, usize, usize)> = inter_records.iter().map(|r| (r.a, r.b, r.at)).collect();
    let mut next = vec![0usize; routers];
    let zero = vec![0usize; routers];
    let mut links = pair_records(intra, intra_binary, &intra_all, &zero, &mut next)?;
    let local_ports = next.clone();
    let mut next_global = vec![0usize; routers];
    links.extend(pair_records(inter, inter_binary, &inter_all, &local_ports, &mut next_global)?);
    let network: Vec<usize> = local_ports.iter().zip(&next_global).map(|(l, g)| l + g).collect();
    let ports: Vec<usize> = network.iter().map(|n| n + p).collect();
    check_size(&context, routers as u128, ports.iter().map(|&x| x as u128).sum())?;
    links.sort_unstable();
    let terminals = (0..routers)
        .flat_map(|s| (0..p).map(move |k| (s, k)))
        .map(|(s, k)| (format!("g{}r{}/{k}", s / a, s % a), s, network[s] + k))
        .collect();
    Ok(Fabric {
        source: format!("{intra},{inter}"),
        switch_names: (0..routers).map(|s| format!("g{}r{}", s / a, s % a)).collect(),
        ports,
        links,
        terminals,
        group_size: Some(a),
    })
}

/// Switches per group of a dragonfly-shaped topology, if it is one.
fn group_size(topo: &Topology) -> Option<usize> {
    match topo.family() {
        Family::Dragonfly(d) => Some(d.a),
        Family::Cascade(c) => Some(c.group_size()),
        Family::Fabric(f) => f.group_size,
        _ => None,
    }
}

/// Writes the intra-group (`intra` true) or inter-group records of a dragonfly as CODES'
/// decoded text: one `a,b[,type]` line per channel direction, in CODES' port order.
pub fn to_codes(topo: &Topology, intra: bool) -> Result<String> {
    let format = if intra { "codes-intra" } else { "codes-inter" };
    let Some(a) = group_size(topo) else {
        return Err(Error::invalid(
            "topo export",
            "format",
            format!("'{format}'"),
            format!(
                "for dragonflies (dragonfly: and cascade: specs, codes-dragonfly: fabrics); {} is {}",
                topo.spec(),
                topo.family().name()
            ),
        ));
    };
    let mut out = String::new();
    if intra {
        let _ = writeln!(out, "# {} (hpcnetsim export): src_router_local,dst_router_local,link_type", topo.spec());
    } else {
        let _ = writeln!(out, "# {} (hpcnetsim export): src_router_global,dst_router_global", topo.spec());
    }
    let same_group = |s: usize, t: usize| s / a == t / a;
    // CODES applies one intra-group file to every group: they must all be wired alike.
    let local = |s: usize| -> Vec<usize> {
        topo.ports(s)
            .iter()
            .filter_map(|p| match *p {
                Peer::Switch { switch, .. } if same_group(s, switch as usize) => Some(switch as usize % a),
                _ => None,
            })
            .collect()
    };
    for s in 0..topo.num_switches() {
        if intra {
            if s >= a {
                if local(s) != local(s % a) {
                    return Err(Error::invalid(
                        "topo export",
                        "format",
                        format!("'{format}'"),
                        format!("a dragonfly whose groups are wired alike (switch {s} differs from switch {})", s % a),
                    ));
                }
                continue;
            }
            for t in local(s) {
                // dragonfly-custom's link type: 0 within a row (green), 1 within a column (black).
                let column = match topo.family() {
                    Family::Cascade(c) => c.coordinates(s)[1] != c.coordinates(t)[1],
                    _ => false,
                };
                let _ = writeln!(out, "{s},{t},{}", u8::from(column));
            }
        } else {
            for p in topo.ports(s) {
                if let Peer::Switch { switch, .. } = *p {
                    if !same_group(s, switch as usize) {
                        let _ = writeln!(out, "{s},{switch}");
                    }
                }
            }
        }
    }
    Ok(out)
}
