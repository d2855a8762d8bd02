//! The collector: a statistic fed by the engine's events. The engine tells every collector
//! a config switches on (`[stats]`, registered in `observe/mod.rs`) about each delivered
//! packet and, for those that ask, each packet (or flit) that starts crossing a link, while
//! the run records; at the end each writes its tables. With no collector on, the engine
//! only tests one flag per delivery and one per hop.

use super::table::Table;
use super::StatsConfig;

/// A packet delivered to its destination NIC.
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    /// Source and destination terminals.
    pub src: u32,
    pub dst: u32,
    /// Size in phits.
    pub size: u32,
    /// Cycles it was generated, left its NIC, and was delivered.
    pub generated: u64,
    pub injected: u64,
    pub delivered: u64,
    /// Its traffic class (0 with one class).
    pub class: u32,
    /// Its job (the index in `[[workload.jobs]]`; 0 without jobs).
    pub job: u32,
}

/// A packet (or, with wormhole switching, a flit) that starts crossing a link.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    /// The channel (a switch's output port, numbered like `Topology::channel`).
    pub channel: u32,
    /// The VC it travels on.
    pub vc: u32,
    /// Phits it occupies the link for, from `cycle`.
    pub phits: u32,
    pub cycle: u64,
}

/// What the engine tells a collector about the network it observes.
#[derive(Clone, Copy, Debug)]
pub struct Network {
    /// Channels and VCs per channel.
    pub channels: usize,
    pub vcs: usize,
}

/// A statistic fed by engine events.
pub trait Collector: Send {
    /// The collector `stats` switches on, if it does.
    fn from_config(stats: &StatsConfig, net: Network) -> Option<Self>
    where
        Self: Sized;

    /// A packet was delivered.
    fn delivered(&mut self, _d: &Delivery) {}

    /// Whether it wants `hop` (the engine then runs on one thread: hops arrive in order).
    fn wants_hops(&self) -> bool {
        false
    }

    /// A packet or flit started crossing a link (in nondecreasing cycles).
    fn hop(&mut self, _h: &Hop) {}

    /// Its tables, named (`<name>.parquet` beside the result), at the end of the run at `now`.
    fn tables(&mut self, now: u64) -> Vec<(&'static str, Table)>;
}
