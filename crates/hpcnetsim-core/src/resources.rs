//! Memory estimates made from a spec or config before anything is built, and the refusal
//! of work that would not fit in the memory this process may use (physical memory, its
//! address-space limit, its cgroup's limit). A refused build names the estimate, the limit
//! and the override.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::topology::Family;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the check is switched off for this process (`--no-memory-check`).
static DISABLED: AtomicBool = AtomicBool::new(false);

/// The environment variable that switches the check off (inherited by sweep workers).
pub const OVERRIDE_ENV: &str = "HPCNETSIM_NO_MEMORY_CHECK";

/// Switches the memory check off (or on again) for this process.
pub fn set_memory_check(enabled: bool) {
    DISABLED.store(!enabled, Ordering::Relaxed);
}

fn disabled() -> bool {
    DISABLED.load(Ordering::Relaxed) || std::env::var_os(OVERRIDE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Switches, switch ports and terminals of a family, computed without building it.
pub fn counts(f: &Family) -> (u128, u128, u128) {
    let prod = |d: &[usize]| d.iter().map(|&x| x as u128).product::<u128>();
    match f {
        Family::Tree(x) => {
            let per_level = x.switches_per_level();
            let h = per_level.len();
            let ports = (0..h)
                .map(|l| {
                    let up = if l + 1 < h { x.w[l + 1] } else { x.top_up_ports };
                    per_level[l] as u128 * (x.m[l] + up) as u128
                })
                .sum();
            (per_level.iter().map(|&s| s as u128).sum(), ports, x.terminals() as u128)
        }
        Family::Torus(t) => {
            let s = prod(&t.dims);
            (s, s * (2 * t.dims.len() + t.terminals_per_switch) as u128, s * t.terminals_per_switch as u128)
        }
        Family::TwinTorus(t) => {
            let nodes = prod(&t.dims);
            (2 * nodes, 2 * nodes * (t.dims.len() + 2) as u128, 2 * nodes)
        }
        Family::HyperX(h) => {
            let s = prod(&h.dims);
            let net: u128 = h.dims.iter().map(|&d| (d as u128 - 1) * h.link_multiplicity as u128).sum();
            (s, s * (net + h.terminals_per_switch as u128), s * h.terminals_per_switch as u128)
        }
        Family::Crossbar(c) => (1, c.ports as u128, c.ports as u128),
        Family::Fabric(f) => {
            (f.ports.len() as u128, f.ports.iter().map(|&p| p as u128).sum(), f.terminals.len() as u128)
        }
    }
}

/// Bytes of the port-level graph of a family (measured: about 20 bytes per port with the
/// routing's own tables, see docs/reliability.md).
pub fn topology_bytes(f: &Family) -> u128 {
    let (switches, ports, terminals) = counts(f);
    20 * ports + 16 * switches + 16 * terminals
}

/// Bytes needed to describe a topology (distances, loads and bisection on top of the graph).
pub fn describe_bytes(f: &Family) -> u128 {
    2 * topology_bytes(f)
}

/// Bytes of a simulation of `cfg`: the graph plus the engine's per-queue, per-switch and
/// per-terminal state, with queues full of packets.
pub fn simulation_bytes(cfg: &Config) -> Result<u128> {
    let f = crate::topology::check_spec(&cfg.topology)?;
    let (switches, ports, terminals) = counts(&f);
    let vcs = cfg.switch.vcs as u128;
    let queue_packets = cfg.switch.queue_packets as u128;
    let injection = cfg.switch.injection_queue_packets as u128;
    // A packet id in a FIFO slot or an event (24 bytes) and its 40-byte record.
    let packet = 4 + 24 + 40;
    let per_queue = 8 + queue_packets * packet;
    let per_port = 8 + 8 + 4 + 4 + 8;
    let per_switch = 32 + 8 + std::mem::size_of::<crate::rng::Stream>() as u128 + 64;
    let per_terminal = 48 + 8 + std::mem::size_of::<crate::rng::Stream>() as u128 + vcs * 4 + injection * packet;
    let tasks = cfg.workload.as_ref().map_or(0, |w| {
        let n = if w.tasks == 0 { terminals * w.tasks_per_terminal as u128 } else { w.tasks as u128 };
        // Programs, message records and receive bookkeeping: a few hundred bytes per task.
        n * 512
    });
    Ok(topology_bytes(&f)
        + ports * (per_port + vcs * per_queue)
        + switches * per_switch
        + terminals * per_terminal
        + tasks)
}

/// The memory this process may still use, and what limits it.
pub fn available() -> Option<(u128, &'static str)> {
    let mut best: Option<(u128, &'static str)> = None;
    let mut consider = |bytes: Option<u128>, what: &'static str| {
        if let Some(b) = bytes {
            if best.is_none_or(|(x, _)| b < x) {
                best = Some((b, what));
            }
        }
    };
    consider(meminfo("MemTotal:"), "physical memory");
    consider(address_space_left(), "the address-space limit (ulimit -v)");
    consider(cgroup_left(), "the cgroup memory limit");
    best
}

/// A `/proc/meminfo` line in bytes.
fn meminfo(key: &str) -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse::<u128>().ok().map(|kb| kb * 1024)
}

/// RLIMIT_AS minus the address space already mapped (from /proc/self).
fn address_space_left() -> Option<u128> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft: u128 = line.split_whitespace().nth(3)?.parse().ok()?; // "unlimited" fails to parse
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let vm: u128 = status.lines().find(|l| l.starts_with("VmSize:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(soft.saturating_sub(vm * 1024))
}

/// The cgroup (v2) memory.max minus memory.current of this process's cgroup.
fn cgroup_left() -> Option<u128> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = format!("/sys/fs/cgroup{path}");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok()?.trim().parse::<u128>().ok();
    let max = read("memory.max")?; // "max" (no limit) fails to parse
    Some(max.saturating_sub(read("memory.current").unwrap_or(0)))
}

/// `bytes` in a short human unit.
pub fn human(bytes: u128) -> String {
    let b = bytes as f64;
    match bytes {
        0..=1_048_575 => format!("{:.0} KB", b / 1024.0),
        1_048_576..=1_073_741_823 => format!("{:.0} MB", b / 1_048_576.0),
        _ => format!("{:.1} GB", b / 1_073_741_824.0),
    }
}

/// Refuses `need` bytes for `what` when they exceed the memory available.
pub fn check(context: &str, field: &str, value: &str, need: u128) -> Result<()> {
    if disabled() {
        return Ok(());
    }
    match available() {
        Some((have, limit)) => check_against(context, field, value, need, have, limit),
        None => Ok(()),
    }
}

/// Refuses `need` bytes when more than `have` bytes are left under `limit`.
pub fn check_against(context: &str, field: &str, value: &str, need: u128, have: u128, limit: &str) -> Result<()> {
    if need <= have {
        return Ok(());
    }
    Err(Error::invalid(
        context,
        field,
        value,
        format!(
            "needs about {} of memory, more than the {} left under {limit}; \
             use a smaller network, or override with --no-memory-check ({OVERRIDE_ENV}=1)",
            human(need),
            human(have)
        ),
    ))
}

/// Refuses a simulation of `cfg` that would not fit in memory.
pub fn check_config(cfg: &Config) -> Result<()> {
    check("config", "topology", &cfg.topology, simulation_bytes(cfg)?)
}

/// Refuses describing `spec` when it would not fit in memory.
pub fn check_describe(spec_text: &str) -> Result<()> {
    let f = crate::topology::check_spec(spec_text)?;
    check(spec_text.trim(), "size", &format!("{} ports", counts(&f).1), describe_bytes(&f))
}

/// Refuses building the graph of `spec` when it would not fit in memory.
pub fn check_topology(spec_text: &str) -> Result<()> {
    let f = crate::topology::check_spec(spec_text)?;
    check(spec_text.trim(), "size", &format!("{} ports", counts(&f).1), topology_bytes(&f))
}
