//! Valiant load balancing at the flow level: every flow splits evenly over all intermediate
//! switches (those with terminals), going minimally to the intermediate and then minimally
//! to its destination. This is the average of Valiant's per-packet random choice, so the
//! flow model can set static routings beside what non-minimal HyperX routing would give.
//! Both phases follow an inner path source (the configured routing).

use super::paths::{PathProvider, PathSet};
use crate::error::Result;
use crate::topology::Topology;
use std::sync::OnceLock;

/// Phases are cached per (switch, switch) and (switch, terminal) below this many entries.
const CACHE_ENTRIES: usize = 4_000_000;

/// Normalised channel shares of one phase.
type Phase = Vec<(u32, f64)>;

/// Valiant paths over an inner path source.
pub struct ValiantPaths<'a> {
    topo: &'a Topology,
    inner: Box<dyn PathProvider + 'a>,
    /// Switches with terminals and one terminal of each (the phase-one target).
    hubs: Vec<(usize, usize)>,
    /// Phase one per (source terminal, intermediate hub) and phase two per
    /// (intermediate hub, destination terminal), when small enough to keep.
    to_hub: Option<Vec<OnceLock<Phase>>>,
    from_hub: Option<Vec<OnceLock<Phase>>>,
}

impl<'a> ValiantPaths<'a> {
    /// Valiant routing on `topo` with both phases taken from `inner`.
    pub fn new(topo: &'a Topology, inner: Box<dyn PathProvider + 'a>) -> Self {
        let mut seen = vec![false; topo.num_switches()];
        let mut hubs = Vec::new();
        for t in 0..topo.num_terminals() {
            let (s, _) = topo.terminal_attachment(t);
            if !std::mem::replace(&mut seen[s], true) {
                hubs.push((s, t));
            }
        }
        let h = hubs.len();
        let n = topo.num_terminals();
        let cache =
            |entries: usize| (entries <= CACHE_ENTRIES).then(|| (0..entries).map(|_| OnceLock::new()).collect());
        ValiantPaths { topo, inner, to_hub: cache(n * h), from_hub: cache(h * n), hubs }
    }

    /// The inner source's shares from terminal `a` to terminal `b`, without the last channel
    /// when `strip_ejection` (phase one ends at the intermediate switch, not at a terminal).
    fn phase(&self, a: usize, b: usize, strip_ejection: bool) -> Result<Phase> {
        let mut set = PathSet::default();
        self.inner.paths(a, b, &mut set)?;
        let (s, p) = self.topo.terminal_attachment(b);
        let eject = self.topo.channel(s, p) as u32;
        let total = set.total_weight();
        Ok(set.shares().iter().filter(|(c, _)| !strip_ejection || *c != eject).map(|&(c, w)| (c, w / total)).collect())
    }

    /// Appends phase `i` of `cache` to `out`, computing (and keeping) it with `make` if needed.
    fn extend(
        &self,
        cache: &Option<Vec<OnceLock<Phase>>>,
        i: usize,
        out: &mut Phase,
        make: impl FnOnce() -> Result<Phase>,
    ) -> Result<()> {
        match cache {
            Some(c) => {
                let phase = match c[i].get() {
                    Some(p) => p,
                    None => {
                        let p = make()?;
                        c[i].get_or_init(|| p)
                    }
                };
                out.extend_from_slice(phase);
            }
            None => out.extend(make()?),
        }
        Ok(())
    }
}

impl PathProvider for ValiantPaths<'_> {
    fn name(&self) -> String {
        format!("valiant over {}", self.inner.name())
    }

    fn paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()> {
        let (src_switch, _) = self.topo.terminal_attachment(src);
        let (dst_switch, dst_port) = self.topo.terminal_attachment(dst);
        let eject = self.topo.channel(dst_switch, dst_port) as u32;
        let h = self.hubs.len();
        let mut shares = Vec::new();
        for (i, &(hub, hub_terminal)) in self.hubs.iter().enumerate() {
            if hub != src_switch {
                self.extend(&self.to_hub, src * h + i, &mut shares, || self.phase(src, hub_terminal, true))?;
            }
            if hub == dst_switch {
                shares.push((eject, 1.0));
            } else if hub == src_switch {
                shares.extend(self.inner_direct(src, dst)?);
            } else {
                let n = self.topo.num_terminals();
                self.extend(&self.from_hub, i * n + dst, &mut shares, || self.phase(hub_terminal, dst, false))?;
            }
        }
        out.push_shares(&shares, h as f64);
        Ok(())
    }
}

impl ValiantPaths<'_> {
    /// Phase two when the intermediate is the source's own switch: the direct path.
    fn inner_direct(&self, src: usize, dst: usize) -> Result<Phase> {
        self.phase(src, dst, false)
    }
}
