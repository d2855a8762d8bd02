//! The memory a simulation of a config will take, estimated before anything is built, and the
//! one place that gathers the crate's memory checks: the process's budget (`memory.rs`) and the
//! estimates of a spec (`topology::footprint`).

use crate::config::Config;
use crate::error::Result;
pub use crate::memory::{available, check, check_against, human, memory_check_enabled, set_memory_check, OVERRIDE_ENV};
pub use crate::topology::footprint::{check_describe, check_topology, counts, describe_bytes, topology_bytes};

/// Bytes of a simulation of `cfg`: the graph plus the engine's per-queue, per-switch and
/// per-terminal state, with queues full of packets.
pub fn simulation_bytes(cfg: &Config) -> Result<u128> {
    let f = crate::topology::check_spec(&cfg.topology)?;
    let (switches, ports, terminals) = counts(&f);
    let vcs = cfg.switch.vcs as u128;
    let queue_packets = cfg.switch.queue_packets as u128;
    let injection = cfg.switch.injection_queue_packets as u128;
    // A packet: its id in a FIFO slot, the event that carries it and its record. The packet
    // store and the event wheel's buckets grow by doubling, so a saturated run holds up to
    // twice the records and events it has in flight (measured: a saturated torus:64x64
    // peaked at 1.47 times the estimate that counted each once).
    let record = std::mem::size_of::<crate::event::Packet>() as u128;
    let event = std::mem::size_of::<crate::event::Event>() as u128;
    let packet = 4 + 2 * event + 2 * record;
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

/// Refuses a simulation of `cfg` that would not fit in memory.
pub fn check_config(cfg: &Config) -> Result<()> {
    check("config", "topology", &cfg.topology, simulation_bytes(cfg)?)
}
