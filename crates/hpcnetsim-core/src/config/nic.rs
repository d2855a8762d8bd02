//! The `[nic]` table: the network interface and host model of paper 004 (software overhead
//! per message, host-bus bandwidth per direction, buffers in NIC or host memory, packet
//! header and payload limits, rendezvous). Off by default: messages then become packets of
//! `traffic.packet_phits` as before.

use super::units::{parse_rate, parse_seconds, Bytes};
use super::Config;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Largest `nic.max_payload`: 64 KiB, sixteen times the largest MTU of the technology presets.
pub const MAX_PAYLOAD: u64 = 1 << 16;
/// Largest `nic.packet_overhead` (headers, trailers, CRC and routing bytes of one packet).
pub const MAX_OVERHEAD: u64 = 4096;

/// Where a message's buffer lives (paper 004 §4.3: main memory or Elan memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Buffer {
    /// Host (main) memory: the data crosses the host bus at its bandwidth.
    #[default]
    Host,
    /// NIC memory: the host bus is not crossed.
    Nic,
}

/// Network interface and host model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NicConfig {
    /// Whether the model is on (off: a message is packets of `traffic.packet_phits`, an empty
    /// one a full packet, as in papers 000 and 002).
    pub enabled: bool,
    /// Software overhead of a send, before the message reaches the NIC, e.g. `"1 us"`.
    pub send_overhead: String,
    /// Software overhead of a receive, after the message has arrived, e.g. `"0.5 us"`.
    pub receive_overhead: String,
    /// Host-bus read bandwidth (the NIC reads a source buffer in host memory), e.g. `"200 MB/s"`;
    /// empty: unlimited.
    pub host_read_bandwidth: String,
    /// Host-bus write bandwidth (the NIC writes a destination buffer in host memory); empty: unlimited.
    pub host_write_bandwidth: String,
    /// Whether reads and writes share one host bus (a PCI bus: a node that sends and receives
    /// at once divides its bus time between them) rather than having one path per direction.
    pub shared_host_bus: bool,
    /// Rate at which the shared host bus moves data, e.g. `"275 MB/s"`: a read then holds the
    /// bus only for its payload at this rate and waits the rest of its time (the read
    /// bandwidth being lower) for host memory with the bus free for writes; empty: a read
    /// holds the bus for its whole time (reads and writes strictly alternate). Used only with
    /// `shared_host_bus`.
    pub host_bus_bandwidth: String,
    /// Latency of a host-bus read: the data of each DMA read from host memory arrives this
    /// long after its transfer (reads are pipelined, so it delays a message's first packet
    /// and not the bandwidth), e.g. `"0.75 us"`.
    pub host_read_latency: String,
    /// Cost of one activation of the NIC's thread processor (an Elan thread that counts events
    /// and sends packets itself), e.g. `"2 us"`; used by the hardware-broadcast barrier of the
    /// benchmarks, not by the packet engine.
    pub thread_overhead: String,
    /// Where send buffers are: `host` (read over the host bus) or `nic`.
    pub source_buffer: Buffer,
    /// Where receive buffers are: `host` (written over the host bus) or `nic`.
    pub destination_buffer: Buffer,
    /// Largest payload of one packet (DMA segmentation), e.g. `"320 B"`.
    pub max_payload: Bytes,
    /// Header, trailer, CRC and routing bytes added to every packet, e.g. `"58 B"`.
    pub packet_overhead: Bytes,
    /// Messages longer than this use rendezvous (a request and a clear-to-send, both
    /// header-only packets, before the data); 0: always eager.
    pub rendezvous_threshold: Bytes,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            enabled: false,
            send_overhead: "0 ns".into(),
            receive_overhead: "0 ns".into(),
            host_read_bandwidth: String::new(),
            host_write_bandwidth: String::new(),
            shared_host_bus: false,
            host_bus_bandwidth: String::new(),
            host_read_latency: "0 ns".into(),
            thread_overhead: "0 ns".into(),
            source_buffer: Buffer::Host,
            destination_buffer: Buffer::Host,
            max_payload: Bytes::Count(256),
            packet_overhead: Bytes::Count(0),
            rendezvous_threshold: Bytes::Count(0),
        }
    }
}

impl NicConfig {
    /// Whether every field has its default (the table is then left out of completed configs).
    pub fn is_default(&self) -> bool {
        *self == NicConfig::default()
    }
}

/// The NIC model in engine units (cycles, bytes per cycle).
#[derive(Clone, Debug, PartialEq)]
pub struct NicModel {
    /// Cycles of software overhead per send.
    pub send_overhead: u64,
    /// Cycles of software overhead per receive.
    pub receive_overhead: u64,
    /// Host-bus read bandwidth in bytes per cycle (None: unlimited or NIC-memory buffers).
    pub read_bytes_per_cycle: Option<f64>,
    /// Host-bus write bandwidth in bytes per cycle (None: unlimited or NIC-memory buffers).
    pub write_bytes_per_cycle: Option<f64>,
    /// Whether reads and writes share one bus.
    pub shared_bus: bool,
    /// Rate of the shared bus in bytes per cycle, when a read holds it only for its transfer
    /// (None: a read holds it for its whole time).
    pub bus_bytes_per_cycle: Option<f64>,
    /// Cycles from a host-bus read's transfer to its data being in the NIC (0 without
    /// host-memory sources).
    pub read_latency: u64,
    /// Cycles of one thread-processor activation.
    pub thread_overhead: u64,
    /// Largest payload per packet in bytes.
    pub max_payload: u64,
    /// Overhead bytes per packet.
    pub packet_overhead: u64,
    /// Rendezvous above this many bytes (0: never).
    pub rendezvous_threshold: u64,
    /// Bytes per phit.
    pub phit_bytes: u32,
}

impl NicModel {
    /// Phits of a packet carrying `payload` bytes (header-only packets for 0).
    pub fn packet_phits(&self, payload: u64) -> u32 {
        (payload + self.packet_overhead).div_ceil(self.phit_bytes as u64).max(1) as u32
    }

    /// Payload of each packet of a message of `bytes` (one empty packet for 0 bytes).
    pub fn payloads(&self, bytes: u64) -> impl Iterator<Item = u64> + '_ {
        let n = bytes.div_ceil(self.max_payload).max(1);
        (0..n).map(move |i| if i + 1 < n { self.max_payload } else { bytes - (n - 1) * self.max_payload })
    }

    /// Payload bandwidth of the NIC in bytes per cycle: the link's share of payload in a
    /// full packet, capped by the host bus (the `B` of paper 004's eq. 1).
    pub fn bytes_per_cycle(&self) -> f64 {
        // A full packet of P phits carries max_payload bytes in P cycles.
        let link = self.max_payload as f64 / self.packet_phits(self.max_payload) as f64;
        [self.read_bytes_per_cycle, self.write_bytes_per_cycle].into_iter().flatten().fold(link, f64::min)
    }
}

impl Config {
    /// The NIC model in engine units, or None when `nic.enabled` is false.
    pub fn nic_model(&self) -> Result<Option<NicModel>> {
        let n = &self.nic;
        let clock = self.clock()?;
        let time = |field: &str, text: &str| -> Result<u64> { Ok(clock.cycles(parse_seconds(field, text)?)) };
        let rate = |field: &str, text: &str, buffer: Buffer| -> Result<Option<f64>> {
            if text.is_empty() {
                return Ok(None);
            }
            let r = clock.bytes_per_cycle(parse_rate(field, text)?);
            Ok((buffer == Buffer::Host).then_some(r))
        };
        let model = NicModel {
            send_overhead: time("nic.send_overhead", &n.send_overhead)?,
            receive_overhead: time("nic.receive_overhead", &n.receive_overhead)?,
            read_bytes_per_cycle: rate("nic.host_read_bandwidth", &n.host_read_bandwidth, n.source_buffer)?,
            write_bytes_per_cycle: rate("nic.host_write_bandwidth", &n.host_write_bandwidth, n.destination_buffer)?,
            shared_bus: n.shared_host_bus,
            // Only a shared bus has a rate of its own (separate paths are their two bandwidths).
            bus_bytes_per_cycle: rate("nic.host_bus_bandwidth", &n.host_bus_bandwidth, Buffer::Host)?
                .filter(|_| n.shared_host_bus),
            read_latency: match n.source_buffer {
                Buffer::Host => time("nic.host_read_latency", &n.host_read_latency)?,
                Buffer::Nic => 0,
            },
            thread_overhead: time("nic.thread_overhead", &n.thread_overhead)?,
            max_payload: n.max_payload.bytes("nic.max_payload")?,
            packet_overhead: n.packet_overhead.bytes("nic.packet_overhead")?,
            rendezvous_threshold: n.rendezvous_threshold.bytes("nic.rendezvous_threshold")?,
            phit_bytes: clock.phit_bytes,
        };
        // Checked whether or not the model is on: the table is validated as written.
        if !(1..=MAX_PAYLOAD).contains(&model.max_payload) {
            return Err(Error::invalid(
                "config",
                "nic.max_payload",
                format!("{} B", model.max_payload),
                "a size from 1 B to 64 KiB (65536 B)",
            ));
        }
        if model.packet_overhead > MAX_OVERHEAD {
            return Err(Error::invalid(
                "config",
                "nic.packet_overhead",
                format!("{} B", model.packet_overhead),
                "a size from 0 B to 4 KiB (4096 B)",
            ));
        }
        if model.rendezvous_threshold > 1 << 40 {
            return Err(Error::invalid(
                "config",
                "nic.rendezvous_threshold",
                format!("{} B", model.rendezvous_threshold),
                "a size from 0 B (always eager) to 1 TiB",
            ));
        }
        if let Some(bus) = model.bus_bytes_per_cycle {
            // Checked on the rates as written: a NIC-memory source leaves `read_bytes_per_cycle` unset.
            let read =
                clock.bytes_per_cycle(parse_rate("nic.host_read_bandwidth", &n.host_read_bandwidth).unwrap_or(0.0));
            if bus < read {
                return Err(Error::invalid(
                    "config",
                    "nic.host_bus_bandwidth",
                    format!("'{}'", n.host_bus_bandwidth),
                    format!(
                        "at least nic.host_read_bandwidth ({}): a read cannot hold the bus longer than it lasts",
                        n.host_read_bandwidth
                    ),
                ));
            }
        }
        let largest = model.packet_phits(model.max_payload);
        let allowed = self.traffic.max_packet_phits();
        if n.enabled && largest > allowed {
            return Err(Error::invalid(
                "config",
                "nic.max_payload",
                format!("{} B (+ {} B overhead = {largest} phits)", model.max_payload, model.packet_overhead),
                format!("packets of at most traffic.packet_phits = {allowed} phits (raise it or lower the payload)"),
            ));
        }
        Ok(n.enabled.then_some(model))
    }

    /// The smallest packet the engine may see, in phits (input FIFOs are sized for it).
    pub fn min_packet_phits(&self) -> u32 {
        match self.nic_model() {
            Ok(Some(m)) => m.packet_phits(0).min(self.traffic.packet_phits),
            _ => self.traffic.packet_phits,
        }
    }
}
