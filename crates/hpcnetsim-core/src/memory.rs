//! The memory this process may use (physical memory, its address-space limit, its cgroup's
//! limit) and the refusal of work that would not fit in it, naming the estimate, the limit and
//! the override. The estimates themselves are made elsewhere (`resources.rs` for specs and
//! configs, the trace and fabric readers for their files); this module depends on nothing else
//! of the crate, so every layer may call it. It also ends the process with one line when the
//! system refuses a block past those estimates (`refused`, called by the allocator).

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the check is switched off for this process (`--no-memory-check`).
static DISABLED: AtomicBool = AtomicBool::new(false);

/// The environment variable that switches the check off (inherited by sweep workers).
pub const OVERRIDE_ENV: &str = "HPCNETSIM_NO_MEMORY_CHECK";

/// Switches the memory check off (or on again) for this process.
pub fn set_memory_check(enabled: bool) {
    DISABLED.store(!enabled, Ordering::Relaxed);
}

/// Whether the check is on: neither switched off in this process nor by its environment.
pub fn memory_check_enabled() -> bool {
    !disabled()
}

fn disabled() -> bool {
    DISABLED.load(Ordering::Relaxed) || std::env::var_os(OVERRIDE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The memory this process may still use, and what limits it.
pub fn available() -> Option<(u128, &'static str)> {
    let mut best: Option<(u128, &'static str)> = None;
    let mut consider = |bytes: Option<u128>, what: &'static str| {
        if let Some(b) = bytes {
            if best.is_none_or(|(x, _)| b < x) {
                best = Some((b, what));
            }
        }
    };
    consider(meminfo("MemTotal:"), "physical memory");
    consider(address_space_left(), "the address-space limit (ulimit -v)");
    consider(cgroup_left(), "the cgroup memory limit");
    best
}

/// A `/proc/meminfo` line in bytes.
fn meminfo(key: &str) -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse::<u128>().ok().map(|kb| kb * 1024)
}

/// RLIMIT_AS minus the address space already mapped (from /proc/self).
fn address_space_left() -> Option<u128> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    let soft: u128 = line.split_whitespace().nth(3)?.parse().ok()?; // "unlimited" fails to parse
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let vm: u128 = status.lines().find(|l| l.starts_with("VmSize:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(soft.saturating_sub(vm * 1024))
}

/// The cgroup (v2) memory.max minus memory.current of this process's cgroup.
fn cgroup_left() -> Option<u128> {
    let cg = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cg.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = format!("/sys/fs/cgroup{path}");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok()?.trim().parse::<u128>().ok();
    let max = read("memory.max")?; // "max" (no limit) fails to parse
    Some(max.saturating_sub(read("memory.current").unwrap_or(0)))
}

/// `bytes` in a short human unit.
pub fn human(bytes: u128) -> String {
    let b = bytes as f64;
    match bytes {
        0..=1_048_575 => format!("{:.0} KB", b / 1024.0),
        1_048_576..=1_073_741_823 => format!("{:.0} MB", b / 1_048_576.0),
        _ => format!("{:.1} GB", b / 1_073_741_824.0),
    }
}

/// What a refusal offers before the override, unless its caller knows better (`check_for`).
const SMALLER_NETWORK: &str = "use a smaller network";

/// Refuses `need` bytes for `what` when they exceed the memory available.
pub fn check(context: &str, field: &str, value: &str, need: u128) -> Result<()> {
    check_for(context, field, value, need, SMALLER_NETWORK)
}

/// As `check`, with the `remedy` the refusal offers before the override.
pub fn check_for(context: &str, field: &str, value: &str, need: u128, remedy: &str) -> Result<()> {
    if disabled() {
        return Ok(());
    }
    match available() {
        Some((have, limit)) => refuse_above(context, field, value, need, (have, limit), remedy),
        None => Ok(()),
    }
}

/// Refuses `need` bytes when more than `have` bytes are left under `limit`.
pub fn check_against(context: &str, field: &str, value: &str, need: u128, have: u128, limit: &str) -> Result<()> {
    refuse_above(context, field, value, need, (have, limit), SMALLER_NETWORK)
}

fn refuse_above(
    context: &str,
    field: &str,
    value: &str,
    need: u128,
    (have, limit): (u128, &str),
    remedy: &str,
) -> Result<()> {
    if need <= have {
        return Ok(());
    }
    Err(Error::invalid(
        context,
        field,
        value,
        format!(
            "needs about {} of memory, more than the {} left under {limit}; \
             {remedy}, or override with --no-memory-check ({OVERRIDE_ENV}=1)",
            human(need),
            human(have)
        ),
    ))
}

/// Ends the process, status 2, with one line on standard error: the system refused a block of
/// `size` bytes. The allocator calls it instead of returning null, which the standard library
/// turns into an abort (status 134, "memory allocation of N bytes failed" and, with
/// `RUST_BACKTRACE` set, a backtrace that may itself fail to allocate). It happens past the
/// estimate checked before building (`check`), under an address-space or cgroup limit that the
/// estimate did not foresee, or with the check overridden. Nothing here allocates: the line is
/// written from a buffer on the stack.
#[cold]
pub fn refused(size: usize) -> ! {
    use std::fmt::Write as _;
    struct Line {
        buf: [u8; 320],
        len: usize,
    }
    impl std::fmt::Write for Line {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let n = s.len().min(self.buf.len() - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            Ok(())
        }
    }
    let mut line = Line { buf: [0; 320], len: 0 };
    let mb = (size as f64 / 1_048_576.0).max(0.1);
    let _ = writeln!(
        line,
        "error: out of memory: the system refused a block of {mb:.1} MB past the estimate made \
         before building; use a smaller network or raise the limit (ulimit -v, cgroup memory.max)"
    );
    // SAFETY: writes bytes of a live buffer to the standard error descriptor, then ends the
    // process without running anything that could allocate.
    unsafe {
        libc::write(2, line.buf.as_ptr().cast(), line.len);
        libc::_exit(2)
    }
}
