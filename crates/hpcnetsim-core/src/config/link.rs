//! The `[link]` table: the physical clock of a network (cycle time or link bandwidth) and the
//! switch and wire latencies as times, converted to the engine's cycles.

use super::units::{parse_rate, parse_seconds, Clock};
use super::Config;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A cycle lasts this long unless `link.cycle` or `link.bandwidth` says otherwise.
pub const DEFAULT_CYCLE_NS: f64 = 1.0;

/// Physical link: how long a cycle is, so that cycles and phits become seconds and bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Duration of one cycle, e.g. `"5 ns"` (empty: from `bandwidth`, or 1 ns).
    pub cycle: String,
    /// Bandwidth of a link per direction, e.g. `"400 MB/s"`: one phit of `switch.phit_bytes`
    /// per cycle, so it sets the cycle (empty: `phit_bytes` per `cycle`).
    pub bandwidth: String,
    /// Time for a packet head to cross a switch, e.g. `"35 ns"`; when set, it replaces
    /// `switch.switch_delay_cycles` (rounded to the nearest cycle).
    pub switch_latency: String,
    /// Time for a phit to cross a wire (with link protocol), e.g. `"15 ns"`; when set, it
    /// replaces `switch.link_delay_cycles` (rounded to the nearest cycle).
    pub wire_latency: String,
    /// Time for a phit to cross the cable between a NIC and its switch, e.g. `"5 ns"`; when
    /// set, it replaces `switch.nic_link_delay_cycles`: a NIC then has no switch stages of its
    /// own (a host adapter, not a switch port), so a route crosses each switch's pipeline once.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub nic_wire_latency: String,
    /// Bandwidth of a node's host interface, e.g. `"10.4 GB/s"` (paper 003's normalized load):
    /// when set, results also give offered and accepted load as percentages of it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_bandwidth: String,
}

impl LinkConfig {
    /// Whether every field is empty (the table is then left out of completed configs).
    pub fn is_default(&self) -> bool {
        *self == LinkConfig::default()
    }
}

impl Config {
    /// The network's clock: cycle duration and phit size.
    pub fn clock(&self) -> Result<Clock> {
        let phit = self.switch.phit_bytes.max(1);
        let l = &self.link;
        let cycle = (!l.cycle.is_empty()).then(|| parse_seconds("link.cycle", &l.cycle)).transpose()?;
        let rate = (!l.bandwidth.is_empty()).then(|| parse_rate("link.bandwidth", &l.bandwidth)).transpose()?;
        let cycle_ns = match (cycle, rate) {
            (Some(c), None) if c > 0.0 => c * 1e9,
            (Some(_), None) => {
                return Err(Error::invalid("config", "link.cycle", format!("'{}'", l.cycle), "a time above zero"))
            }
            (None, Some(r)) => phit as f64 / r * 1e9,
            // Without a [link] clock a workload's cycle_ns is the length of a network cycle
            // (traced seconds become cycles of it), so the results' times use it too.
            (None, None) => self.workload.as_ref().map_or(DEFAULT_CYCLE_NS, |w| w.cycle_ns),
            (Some(c), Some(r)) => {
                let implied = phit as f64 / r;
                if ((implied - c) / c).abs() > 1e-6 {
                    return Err(Error::invalid(
                        "config",
                        "link.bandwidth",
                        format!("'{}'", l.bandwidth),
                        format!(
                            "one phit ({phit} B) per link.cycle ({}): {:.4} MB/s, or leave one of the two empty",
                            l.cycle,
                            phit as f64 / c / 1e6
                        ),
                    ));
                }
                c * 1e9
            }
        };
        Ok(Clock { cycle_ns, phit_bytes: phit })
    }

    /// The host interface's bandwidth in bytes per second (`link.host_bandwidth`), if set.
    pub fn host_bytes_per_second(&self) -> Result<Option<f64>> {
        let text = &self.link.host_bandwidth;
        (!text.is_empty()).then(|| parse_rate("link.host_bandwidth", text)).transpose()
    }

    /// Converts the latencies of `[link]` into the switch's delay cycles.
    pub(super) fn apply_link_times(&mut self) -> Result<()> {
        let clock = self.clock()?;
        let convert = |field: &str, text: &str| -> Result<Option<u32>> {
            if text.is_empty() {
                return Ok(None);
            }
            let cycles = clock.cycles(parse_seconds(field, text)?);
            if cycles > 1000 {
                let allowed = format!("at most 1000 cycles of {} ns", clock.cycle_ns);
                return Err(Error::invalid("config", field, format!("'{text}'"), allowed));
            }
            Ok(Some(cycles as u32))
        };
        let switch = convert("link.switch_latency", &self.link.switch_latency)?;
        let wire = convert("link.wire_latency", &self.link.wire_latency)?;
        let nic_wire = convert("link.nic_wire_latency", &self.link.nic_wire_latency)?;
        if nic_wire == Some(0) {
            let allowed = format!(
                "at least half a cycle of {} ns: it rounds to 0 cycles, and a packet reaches its first switch a cycle after its NIC starts it at the earliest",
                clock.cycle_ns
            );
            return Err(Error::invalid(
                "config",
                "link.nic_wire_latency",
                format!("'{}'", self.link.nic_wire_latency),
                allowed,
            ));
        }
        if let Some(c) = switch {
            self.switch.switch_delay_cycles = c;
        }
        if let Some(c) = wire {
            self.switch.link_delay_cycles = c;
        }
        if let Some(c) = nic_wire {
            self.switch.nic_link_delay_cycles = Some(c);
        }
        // A hop takes at least a cycle. When a time written here rounds to no cycle and
        // leaves none, it is the value to change: the delay fields it replaced were not
        // written by the user.
        if self.switch.switch_delay_cycles + self.switch.link_delay_cycles == 0 {
            let zero = [
                ("link.wire_latency", &self.link.wire_latency, wire),
                ("link.switch_latency", &self.link.switch_latency, switch),
            ]
            .into_iter()
            .find(|(_, _, c)| *c == Some(0));
            if let Some((field, text, _)) = zero {
                let allowed = format!(
                    "at least half a cycle of {} ns: it rounds to 0 cycles, and a hop (switch plus wire) takes at least one",
                    clock.cycle_ns
                );
                return Err(Error::invalid("config", field, format!("'{text}'"), allowed));
            }
        }
        // Traced seconds become cycles of the network's clock unless the workload sets its own.
        let clocked = !self.link.cycle.is_empty() || !self.link.bandwidth.is_empty();
        if let Some(w) = self.workload.as_mut().filter(|w| clocked && w.cycle_ns == 1.0) {
            w.cycle_ns = clock.cycle_ns;
        }
        Ok(())
    }
}
