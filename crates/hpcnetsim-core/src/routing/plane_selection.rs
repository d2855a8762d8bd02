//! The plane of a packet or message on a multi-plane network (`SPEC|planes:N`): every
//! endpoint has a NIC port on each plane, and the sender picks one by the configured policy
//! (`routing.plane_selection`); the packet then stays on that plane.

use crate::config::PlaneSelection;
use crate::rng::Stream;
use rand::Rng;

/// The plane choices of every endpoint.
#[derive(Clone, Debug)]
pub struct PlaneChoice {
    policy: PlaneSelection,
    planes: usize,
    /// Per endpoint: the plane to start from (round-robin and the tie-break of shortest-queue).
    next: Vec<u8>,
}

impl PlaneChoice {
    /// Choices by `policy` among `planes` planes for `endpoints` endpoints.
    pub fn new(policy: PlaneSelection, planes: usize, endpoints: usize) -> Self {
        PlaneChoice { policy, planes, next: vec![0; endpoints] }
    }

    /// Number of planes.
    pub fn planes(&self) -> usize {
        self.planes
    }

    /// Whether messages are split over every plane (`stripe`).
    pub fn stripes(&self) -> bool {
        self.policy == PlaneSelection::Stripe
    }

    /// The plane of the next packet (or message) from endpoint `src` to `dst`; `waiting(p)`
    /// is what waits at `src`'s port on plane `p` (for shortest-queue), `rng` the sender's.
    pub fn pick(&mut self, src: usize, dst: usize, rng: &mut Stream, waiting: impl Fn(usize) -> usize) -> usize {
        let n = self.planes;
        match self.policy {
            PlaneSelection::RoundRobin | PlaneSelection::Stripe => {
                let p = self.next[src] as usize;
                self.next[src] = ((p + 1) % n) as u8;
                p
            }
            PlaneSelection::Random => rng.random_range(0..n),
            PlaneSelection::Hash => (src + dst) % n,
            PlaneSelection::ShortestQueue => {
                let start = self.next[src] as usize;
                let p = (0..n).map(|i| (start + i) % n).min_by_key(|&p| waiting(p)).unwrap_or(0);
                self.next[src] = ((p + 1) % n) as u8;
                p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, Owner};

    #[test]
    fn each_policy_picks_as_documented() {
        let mut rng = stream(1, Owner::Nic, 0);
        let mut rr = PlaneChoice::new(PlaneSelection::RoundRobin, 3, 2);
        let picks: Vec<usize> = (0..7).map(|_| rr.pick(1, 0, &mut rng, |_| 0)).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(rr.pick(0, 0, &mut rng, |_| 0), 0, "each endpoint has its own turn");
        let mut hash = PlaneChoice::new(PlaneSelection::Hash, 4, 8);
        assert_eq!((hash.pick(3, 6, &mut rng, |_| 0), hash.pick(6, 3, &mut rng, |_| 0)), (1, 1));
        let mut short = PlaneChoice::new(PlaneSelection::ShortestQueue, 3, 1);
        assert_eq!(short.pick(0, 0, &mut rng, |p| [5, 2, 7][p]), 1);
        // Ties: the first after the last plane chosen.
        assert_eq!(short.pick(0, 0, &mut rng, |_| 4), 2);
        assert_eq!(short.pick(0, 0, &mut rng, |_| 4), 0);
        let mut random = PlaneChoice::new(PlaneSelection::Random, 4, 1);
        let mut seen = [0; 4];
        for _ in 0..4000 {
            seen[random.pick(0, 0, &mut rng, |_| 0)] += 1;
        }
        assert!(seen.iter().all(|&c| (900..1100).contains(&c)), "{seen:?}");
    }
}
