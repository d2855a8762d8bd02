//! Completion times: all flows start together at max-min fair rates; when the next flows
//! finish, the rates of the others are recomputed, and so on until every flow is done.

use super::maxmin::{Shares, Solver};

/// When every flow finished and the rates it started with.
#[derive(Clone, Debug, Default)]
pub struct Completion {
    /// Max-min fair rate of every flow while all flows run (link bandwidths).
    pub initial_rates: Vec<f64>,
    /// Finish time of every flow, in the time unit of the link bandwidth.
    pub finish: Vec<f64>,
    /// Number of rate recomputations (finish events).
    pub phases: usize,
}

/// Flows that finish within this fraction of their size of the earliest finisher finish
/// with it (rounding would otherwise make a phase per flow of a tie).
const TIE: f64 = 1e-9;

/// Runs the flows of `shares`, flow `f` carrying `bytes[f]`, on links of `capacity` (in link
/// bandwidths of `bandwidth` bytes per time unit) until all have finished.
pub fn complete(capacity: &[f64], shares: &Shares, bytes: &[f64], bandwidth: f64) -> Completion {
    let n = shares.len();
    let mut solver = Solver::default();
    let mut rates = Vec::new();
    // Remaining work in link-bandwidth × time units.
    let mut remaining: Vec<f64> = bytes.iter().map(|&b| b / bandwidth).collect();
    let mut finish = vec![0.0; n];
    let mut active: Vec<u32> = (0..n as u32).filter(|&f| remaining[f as usize] > 0.0).collect();
    let mut now = 0.0;
    let mut phases = 0;
    let mut initial_rates = Vec::new();
    while !active.is_empty() {
        solver.solve(capacity, shares, &active, &mut rates);
        if phases == 0 {
            initial_rates = rates.clone();
            if active.len() < n {
                // Empty flows never run; report the rate they would have had.
                let all: Vec<u32> = (0..n as u32).collect();
                solver.solve(capacity, shares, &all, &mut initial_rates);
            }
        }
        phases += 1;
        let dt = active.iter().map(|&f| remaining[f as usize] / rates[f as usize]).fold(f64::INFINITY, f64::min);
        if !dt.is_finite() {
            // Flows with no rate (a zero-capacity channel) never finish.
            for &f in &active {
                finish[f as usize] = f64::INFINITY;
            }
            break;
        }
        now += dt;
        active.retain(|&f| {
            let f = f as usize;
            remaining[f] -= rates[f] * dt;
            if remaining[f] <= TIE * bytes[f] / bandwidth {
                finish[f] = now;
                false
            } else {
                true
            }
        });
    }
    if initial_rates.is_empty() {
        let all: Vec<u32> = (0..n as u32).collect();
        solver.solve(capacity, shares, &all, &mut initial_rates);
    }
    Completion { initial_rates, finish, phases }
}
