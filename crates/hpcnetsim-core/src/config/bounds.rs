//! Upper bounds on every count and cycle field, so that a typo (`warmup_cycles =
//! 18446744073709551615`) is refused in one line instead of starting a run that never
//! ends; and serde's messages rewritten in config terms (no Rust type names).

use super::Config;
use crate::error::{Error, Result};

/// Most cycles any one phase may ask for: 10^12 cycles is days of simulation.
pub const MAX_CYCLES: u64 = 1_000_000_000_000;
/// Most windows, batches or repetitions any count field may ask for.
pub const MAX_COUNT: u64 = 1_000_000;

/// Refuses `value` above `max`, telling the field's whole range, `min` to `max` (its lower
/// bound is checked where the field's other rules are).
fn at_most(field: &str, value: u64, (min, max): (u64, u64), what: &str) -> Result<()> {
    if value > max {
        return Err(Error::invalid("config", field, value, format!("{what} between {min} and {max}")));
    }
    Ok(())
}

/// A number as a message shows it: `1e308`, not its 309 digits.
pub(crate) fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-6..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Checks the upper bounds of the cycle and count fields.
pub(crate) fn check(cfg: &Config) -> Result<()> {
    let m = &cfg.measurement;
    let cycles = "a number of cycles";
    at_most("measurement.warmup_cycles", m.warmup_cycles, (0, MAX_CYCLES), cycles)?;
    at_most("measurement.window_cycles", m.window_cycles, (1, MAX_CYCLES), cycles)?;
    at_most("measurement.max_convergence_cycles", m.max_convergence_cycles, (1, MAX_CYCLES), cycles)?;
    at_most("measurement.batch_cycles", m.batch_cycles, (1, MAX_CYCLES), cycles)?;
    at_most("measurement.deadlock_cycles", m.deadlock_cycles, (1, MAX_CYCLES), cycles)?;
    at_most("measurement.convergence_windows", m.convergence_windows as u64, (1, MAX_COUNT), "a count")?;
    at_most("measurement.batches", m.batches as u64, (1, MAX_COUNT), "a count")?;
    let total = m.batches as u64 * m.batch_cycles;
    if total > MAX_CYCLES {
        return Err(Error::invalid(
            "config",
            "measurement.batches × batch_cycles",
            total,
            format!("at most {MAX_CYCLES} measured cycles"),
        ));
    }
    if let Some(w) = &cfg.workload {
        at_most("workload.stall_cycles", w.stall_cycles, (1, MAX_CYCLES), cycles)?;
        at_most("workload.compute_cycles", w.compute_cycles, (0, MAX_CYCLES), cycles)?;
        at_most("workload.tasks", w.tasks as u64, (0, 1 << 26), "a task count (0: one per terminal)")?;
        at_most("workload.burst_messages", w.burst_messages as u64, (1, MAX_COUNT), "a count")?;
        for &side in &w.mesh {
            at_most("workload.mesh", side as u64, (1, 1 << 26), "sides")?;
        }
        at_most("workload.message_bytes", w.message_bytes, (0, 1 << 40), "a number of bytes")?;
        at_most("workload.segment_bytes", w.segment_bytes, (1, 1 << 40), "a number of bytes")?;
    }
    Ok(())
}

/// What a name (an enum) given as a number or a list is told.
pub(crate) const NAME_EXPECTED: &str = "expected a name in quotes (docs/config.md lists the allowed names)";

/// A serde message in config terms: `expected u32` → `expected a non-negative integer`,
/// `struct SwitchConfig` → `a table`.
pub(crate) fn plain(msg: &str) -> String {
    let mut out = msg.to_string();
    for (rust, words) in [
        ("u128", "a non-negative integer"),
        ("usize", "a non-negative integer"),
        ("u64", "a non-negative integer below 2^64"),
        ("u32", "a non-negative integer below 2^32"),
        ("u16", "a non-negative integer below 65536"),
        ("u8", "a non-negative integer below 256"),
        ("i64", "an integer"),
        ("i32", "an integer"),
        ("f64", "a number"),
        ("f32", "a number"),
        ("a boolean", "true or false"),
        ("a sequence", "a list"),
        ("a map", "a table"),
        // TOML's message for a name (an enum) given as a number or a list.
        ("wanted string or table", NAME_EXPECTED),
    ] {
        out = replace_word(&out, rust, words);
    }
    // `struct SwitchConfig` / `enum Selection`: the table or the choice of a value.
    for (kind, words) in [("struct ", "a table"), ("enum ", "one of the allowed names")] {
        while let Some(i) = out.find(kind) {
            let rest = &out[i + kind.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            out = format!("{}{}{}", &out[..i], words, &rest[end..]);
        }
    }
    out
}

/// Replaces whole-word occurrences of `word`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().last();
        let after = rest[i + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        out.push_str(&rest[..i]);
        out.push_str(if boundary(before) && boundary(after) { by } else { word });
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_become_config_words() {
        let m = plain("invalid type: string \"x\", expected u32 for struct SwitchConfig");
        assert!(!m.contains("u32") && !m.contains("struct"), "{m}");
        assert!(m.contains("a non-negative integer below 2^32") && m.contains("a table"), "{m}");
        assert_eq!(plain("u32x"), "u32x");
    }

    #[test]
    fn huge_numbers_are_shown_with_an_exponent() {
        assert_eq!(num(1e308), "1e308");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(-2e-9), "-2e-9");
    }
}
