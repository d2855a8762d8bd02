//! The flow-level model: concurrent flows (source, destination, bytes) over static paths,
//! with max-min fair rates found by progressive filling and completion times found by
//! recomputing the rates every time flows finish (see docs/flow.md).
//!
//! Channels are the topology's channels (global port indices, [`Topology::peers`]) followed
//! by one injection channel per terminal (terminal → its switch). Rates are fractions of a
//! link's bandwidth; [`Links::bandwidth`] turns them into bytes per second or per cycle.

pub mod completion;
pub mod ebb;
pub mod maxmin;
pub mod mpigraph;
pub mod paths;
pub mod run;
pub mod table_paths;
pub mod valiant;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::topology::{Peer, Topology};
pub use completion::{complete, Completion};
pub use maxmin::{max_min, Shares};
pub use paths::{MinimalPaths, PathProvider, PathSet, RoutingPaths, WalkMode};

/// The links of a network as the flow model sees them: one capacity per channel and the
/// bandwidth a capacity of 1 stands for.
#[derive(Clone, Debug)]
pub struct Links {
    /// Capacity of every channel in link bandwidths (1 for a plugged link, 0 for an unplugged port).
    pub capacity: Vec<f64>,
    /// Number of switch-port channels (the injection channels follow them).
    pub port_channels: usize,
    /// Bytes per time unit of a capacity of 1.
    pub bandwidth: f64,
    /// Time unit of [`Links::bandwidth`]: `"s"` or `"cycle"`.
    pub time_unit: &'static str,
}

impl Links {
    /// Every plugged link at one bandwidth: `bytes_per_second` when positive, otherwise one
    /// phit of `phit_bytes` per cycle (times are then in cycles).
    pub fn new(topo: &Topology, bytes_per_second: f64, phit_bytes: u32) -> Self {
        let mut capacity: Vec<f64> =
            topo.peers().iter().map(|p| if matches!(p, Peer::Unplugged) { 0.0 } else { 1.0 }).collect();
        let port_channels = capacity.len();
        capacity.extend(std::iter::repeat_n(1.0, topo.num_terminals()));
        let (bandwidth, time_unit) =
            if bytes_per_second > 0.0 { (bytes_per_second, "s") } else { (phit_bytes as f64, "cycle") };
        Links { capacity, port_channels, bandwidth, time_unit }
    }

    /// The links of the network of `cfg` (its `[flow]` bandwidth and phit size).
    pub fn from_config(topo: &Topology, cfg: &Config) -> Self {
        Links::new(topo, cfg.flow.link_bandwidth, cfg.switch.phit_bytes)
    }

    /// Channel of terminal `t`'s injection link.
    pub fn injection(&self, t: usize) -> usize {
        self.port_channels + t
    }

    /// Number of channels (switch ports and injection links).
    pub fn len(&self) -> usize {
        self.capacity.len()
    }

    /// Whether there are no channels.
    pub fn is_empty(&self) -> bool {
        self.capacity.is_empty()
    }

    /// Unit of bandwidths in results, e.g. `bytes/s`.
    pub fn bandwidth_unit(&self) -> String {
        format!("bytes/{}", self.time_unit)
    }
}

/// One flow: `bytes` from terminal `src` to terminal `dst`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flow {
    /// Source terminal.
    pub src: usize,
    /// Destination terminal (not `src`).
    pub dst: usize,
    /// Bytes to move (used for completion times).
    pub bytes: f64,
}

/// The shares of every flow on the channels of its paths, injection channel included.
pub fn flow_shares(topo: &Topology, links: &Links, paths: &dyn PathProvider, flows: &[Flow]) -> Result<Shares> {
    let mut shares = Shares::default();
    let mut set = PathSet::default();
    for f in flows {
        check_flow(topo, f)?;
        push_paths(topo, links, paths, f.src, f.dst, &mut set, &mut shares)?;
    }
    Ok(shares)
}

/// Asks `paths` for the paths from `src` to `dst` and appends them to `shares` as one flow,
/// after checking them: channels in range, positive weights, and every path ending at
/// `dst`'s terminal channel (a provider's mistake is an error, never a panic).
pub fn push_paths(
    topo: &Topology,
    links: &Links,
    paths: &dyn PathProvider,
    src: usize,
    dst: usize,
    set: &mut PathSet,
    shares: &mut Shares,
) -> Result<()> {
    set.clear();
    paths.paths(src, dst, set)?;
    let (s, p) = topo.terminal_attachment(dst);
    let eject = topo.channel(s, p) as u32;
    let bad =
        |why: String| Error::Unsupported(format!("{}: paths {} from {src} to {dst}: {why}", topo.spec(), paths.name()));
    if set.num_paths() == 0 || set.total_weight().is_nan() || set.total_weight() <= 0.0 {
        return Err(bad("no path with a positive weight".into()));
    }
    let mut at_dst = 0.0;
    for &(c, w) in set.shares() {
        if c as usize >= links.port_channels || links.capacity[c as usize] == 0.0 {
            return Err(bad(format!("channel {c} is not a plugged switch port")));
        }
        if !(w > 0.0 && w.is_finite()) {
            return Err(bad(format!("weight {w} on channel {c} (weights must be positive)")));
        }
        if c == eject {
            at_dst += w;
        }
    }
    if (at_dst - set.total_weight()).abs() > 1e-9 * set.total_weight() {
        return Err(bad(format!("only {at_dst} of weight {} reaches the destination", set.total_weight())));
    }
    shares.push_flow(links.injection(src), set);
    Ok(())
}

/// Rejects flows whose terminals are out of range or equal.
pub fn check_flow(topo: &Topology, f: &Flow) -> Result<()> {
    let n = topo.num_terminals();
    if f.src >= n || f.dst >= n {
        return Err(Error::invalid(
            topo.spec(),
            "flow",
            format!("{} -> {}", f.src, f.dst),
            format!("terminals in 0..{n}"),
        ));
    }
    if f.src == f.dst {
        return Err(Error::invalid(topo.spec(), "flow", format!("{} -> {}", f.src, f.dst), "distinct terminals"));
    }
    if !(f.bytes >= 0.0 && f.bytes.is_finite()) {
        return Err(Error::invalid(topo.spec(), "flow bytes", f.bytes, "a finite number of bytes >= 0"));
    }
    Ok(())
}
