//! Traffic classes mapped to VC sets: the switch's VCs are split evenly among the classes,
//! a packet keeps its class from source to destination, and the routing sees only the VCs
//! of that class (class c owns VCs c·v .. c·v + v − 1 with v = vcs / classes).

use crate::config::Config;
use crate::error::{Error, Result};
use crate::routing::{self, Candidate, Request, Routing};
use crate::topology::Topology;

/// The class of a packet: its salt's high bits spread packets evenly over the classes (the
/// low bits break the routing's ties, so the two choices stay independent).
pub fn packet_class(salt: u32, classes: u32) -> u32 {
    ((salt as u64 * classes as u64) >> 32) as u32
}

/// A routing built for one class's VCs, applied to every class.
struct Classes {
    inner: Box<dyn Routing>,
    class_vcs: usize,
}

impl Classes {
    /// Routes `req` on its class's VCs: `inner` sees them numbered from 0 and its candidates
    /// are moved back to the class's own.
    #[inline]
    fn in_class(&self, req: &Request, out: &mut Vec<Candidate>, route: impl FnOnce(&Request, &mut Vec<Candidate>)) {
        let class = req.in_vc / self.class_vcs;
        let local = Request { in_vc: req.in_vc % self.class_vcs, ..*req };
        let start = out.len();
        route(&local, out);
        for c in &mut out[start..] {
            c.vc += (class * self.class_vcs) as u8;
        }
    }
}

// The load-reading methods are forwarded too: loads are per output port (every VC), the same
// for every class, and without them UGAL, PAR and DAL never saw a queue with classes on.
impl Routing for Classes {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        self.in_class(req, out, |r, o| self.inner.route(r, o))
    }
    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        self.in_class(req, out, |r, o| self.inner.route_loaded(r, load, o))
    }
    fn reads_load(&self) -> bool {
        self.inner.reads_load()
    }
    fn global_view(&self) -> bool {
        self.inner.global_view()
    }
    fn route_global(
        &self,
        req: &Request,
        load: &dyn Fn(usize) -> u32,
        remote: &dyn Fn(usize, usize) -> u32,
        out: &mut Vec<Candidate>,
    ) {
        self.in_class(req, out, |r, o| self.inner.route_global(r, load, remote, o))
    }
    fn prefetch(&self, switch: usize) {
        self.inner.prefetch(switch)
    }
    fn offsets(&self) -> usize {
        self.inner.offsets()
    }
    fn salts(&self) -> u32 {
        self.inner.salts()
    }
    fn address_offset(&self, src: usize, dst: usize, size_phits: u32) -> u8 {
        self.inner.address_offset(src, dst, size_phits)
    }
    fn throughput_bound(&self) -> Option<f64> {
        self.inner.throughput_bound()
    }
    fn injection_vc(&self, src: usize, dst: usize, offset: u8) -> Option<usize> {
        self.inner.injection_vc(src, dst, offset)
    }
}

/// The configured routing, per traffic class when there are several.
pub fn build(cfg: &Config, topo: &Topology) -> Result<Box<dyn Routing>> {
    if cfg.switch.traffic_classes <= 1 {
        return routing::build(cfg, topo);
    }
    let mut one = cfg.clone();
    one.switch.vcs = cfg.switch.class_vcs();
    one.switch.traffic_classes = 1;
    let inner = routing::build(&one, topo).map_err(|e| per_class(e, cfg))?;
    Ok(Box::new(Classes { inner, class_vcs: one.switch.vcs as usize }))
}

/// A refusal of one class's VCs told in the config's own terms: the routing judged the
/// `vcs / traffic_classes` VCs of a class, but the user wrote `vcs`.
pub(crate) fn per_class(e: Error, cfg: &Config) -> Error {
    match e {
        Error::Invalid { context, field, allowed, .. } if field == "switch.vcs" && cfg.switch.traffic_classes > 1 => {
            let n = cfg.switch.class_vcs();
            let (vcs, are) = if n == 1 { ("VC", "is") } else { ("VCs", "are") };
            let classes = cfg.switch.traffic_classes;
            let allowed = format!(
                "{n} {vcs} per traffic class (switch.traffic_classes = {classes}) {are} too few: per class, {allowed}"
            );
            Error::invalid(context, field, cfg.switch.vcs, allowed)
        }
        other => other,
    }
}
