//! Bounds on the sizes a trace gives (ranks, message bytes, compute intervals), checked as
//! each is read and before anything is allocated for it: the same bounds as the config's
//! `workload.tasks`, `workload.message_bytes` and cycle fields, and the same memory
//! estimate and refusal as topology specs (`memory::check`). A typo such as
//! `ranks 99999999999` is one line naming the file, the record and the value, not an
//! out-of-memory abort.

use super::Location;
use crate::config::bounds::MAX_CYCLES;
use crate::error::Result;

/// Most ranks a trace may have: the bound on `workload.tasks`.
pub const MAX_RANKS: u64 = 1 << 26;
/// Largest message (or collective buffer) a trace may give: the bound on
/// `workload.message_bytes`.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 40;
/// Longest compute interval of one call, and the most compute one rank may add up to, in
/// network cycles: the bound on every cycle field of a config.
pub const MAX_COMPUTE_CYCLES: u64 = MAX_CYCLES;

/// Bytes a trace of `ranks` ranks needs before its first call: the per-rank state of the
/// reader (programs, request maps, call counters, about 200 bytes). The traffic matrices grow
/// with the pairs of ranks that exchange messages, as the calls are read, not with the ranks.
pub fn rank_bytes(ranks: u128) -> u128 {
    200 * ranks
}

/// Checks a rank count read at `at` (`field` as the file names it) and returns it.
pub fn ranks(at: &Location, field: &str, value: &str) -> Result<usize> {
    let n: u128 = value.trim().parse().map_err(|_| {
        at.error(format!("{field} = '{}' is invalid: a number of ranks between 1 and {MAX_RANKS}", value.trim()))
    })?;
    if n == 0 || n > MAX_RANKS as u128 {
        return Err(at.error(format!("{field} = {n} is invalid: a number of ranks between 1 and {MAX_RANKS}")));
    }
    let context = format!("{}: {}", at.file, at.record);
    crate::memory::check(&context, field, &n.to_string(), rank_bytes(n))?;
    Ok(n as usize)
}

/// Checks the size of one message or collective buffer.
pub fn bytes(at: &Location, bytes: u64) -> Result<()> {
    if bytes > MAX_MESSAGE_BYTES {
        return Err(at.error(format!("message of {bytes} bytes is invalid: at most {MAX_MESSAGE_BYTES} bytes (2^40)")));
    }
    Ok(())
}

/// Checks one compute interval in cycles (after the CPU factor) and the rank's total so far.
pub fn compute(at: &Location, cycles: f64, total: u64) -> Result<()> {
    if !(cycles.is_finite() && cycles >= 0.0) || cycles > MAX_COMPUTE_CYCLES as f64 {
        return Err(at.error(format!(
            "compute of {cycles} cycles is invalid: between 0 and {MAX_COMPUTE_CYCLES} cycles (10^12)"
        )));
    }
    if total.saturating_add(cycles as u64) > MAX_COMPUTE_CYCLES {
        return Err(at.error(format!(
            "compute adds up to more than {MAX_COMPUTE_CYCLES} cycles (10^12) on this rank: the replay would not end"
        )));
    }
    Ok(())
}

/// Bytes of the replay's time series per `measurement.window_cycles` bin: the bin counter
/// (twice, as the vector grows by doubling), the result's value and its copy in Python.
const BYTES_PER_BIN: u128 = 48;

/// Refuses a replay whose time series (`consumed_load`, one bin per `window_cycles`) would
/// not fit in memory: a rank that computes `max_compute` cycles makes the replay last at
/// least that long (`context` names the trace or program).
pub fn series(context: &str, max_compute: u64, window_cycles: u64) -> Result<()> {
    if max_compute > MAX_COMPUTE_CYCLES {
        return Err(crate::error::Error::invalid(
            context,
            "compute",
            format!("{max_compute} cycles on one rank"),
            format!("at most {MAX_COMPUTE_CYCLES} cycles (10^12) per rank: the replay would not end"),
        ));
    }
    let bins = max_compute as u128 / window_cycles.max(1) as u128 + 1;
    crate::memory::check(
        &format!("{context}: a replay of at least {max_compute} cycles ({bins} time bins)"),
        "measurement.window_cycles",
        &window_cycles.to_string(),
        BYTES_PER_BIN * bins,
    )
}
