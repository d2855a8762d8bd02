//! Injection processes of independent sources: when packets are generated and how large
//! they are. Inter-arrival times are drawn directly (geometric), so an idle source costs
//! nothing between its packets.

use crate::config::{Injection, TrafficConfig};
use crate::rng::Stream;
use rand::Rng;

/// The injection process of one NIC.
#[derive(Clone, Debug)]
pub struct Source {
    injection: Injection,
    load: f64,
    min_phits: u32,
    max_phits: u32,
    mean_phits: f64,
    burst_packets: f64,
}

/// Trials until the first success of a Bernoulli(p) sequence (>= 1).
fn geometric(p: f64, rng: &mut Stream) -> u64 {
    if p >= 1.0 {
        return 1;
    }
    let u: f64 = 1.0 - rng.random::<f64>(); // in (0, 1]
    (u.ln() / (1.0 - p).ln()).floor() as u64 + 1
}

impl Source {
    /// The process configured in `cfg`.
    pub fn new(cfg: &TrafficConfig) -> Self {
        Source {
            injection: cfg.injection,
            load: cfg.load,
            min_phits: cfg.packet_phits,
            max_phits: cfg.max_packet_phits(),
            mean_phits: cfg.mean_packet_phits(),
            burst_packets: cfg.burst_packets,
        }
    }

    /// Whether this source ever generates anything.
    pub fn is_active(&self) -> bool {
        self.load > 0.0
    }

    /// Size of the next packet, in phits.
    pub fn size(&self, rng: &mut Stream) -> u32 {
        if self.max_phits > self.min_phits {
            rng.random_range(self.min_phits..=self.max_phits)
        } else {
            self.min_phits
        }
    }

    /// Cycles from a packet of `size` phits to the next packet.
    pub fn gap(&self, size: u32, rng: &mut Stream) -> u64 {
        match self.injection {
            // One trial per cycle with probability load / mean size.
            Injection::Bernoulli => geometric(self.load / self.mean_phits, rng),
            Injection::Bursty => {
                // Back to back inside a burst; a burst ends after each packet with
                // probability 1/B, and the silence that follows keeps the mean load.
                if rng.random_bool(1.0 / self.burst_packets) && self.load < 1.0 {
                    let mean_off = self.burst_packets * self.mean_phits * (1.0 - self.load) / self.load;
                    size as u64 + geometric(1.0 / (mean_off + 1.0), rng) - 1
                } else {
                    size as u64
                }
            }
        }
    }
}
