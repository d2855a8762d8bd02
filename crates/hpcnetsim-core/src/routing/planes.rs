//! Routing on a multi-plane network (`SPEC|planes:N`, `topology::planes`): a packet stays on
//! the plane its NIC port sent it into, so each plane is routed as the single network it is
//! a copy of, by the configured routing (algorithmic or tables) built on that network, with
//! switch and terminal indices shifted by the plane's offset. An intact network's planes are
//! identical and share one routing (one set of tables); with faults every plane is routed on
//! its own links. Which plane a packet takes is the NIC's choice (`routing.plane_selection`).

use super::{Candidate, Request, Routing};
use crate::config::Config;
use crate::error::Result;
use crate::topology::Topology;

/// The routing of every plane of a multi-plane network.
pub struct PlaneRouting {
    /// One routing per plane, or one shared by all (intact networks).
    planes: Vec<Box<dyn Routing>>,
    /// Switches and terminals of one plane.
    switches: usize,
    terminals: usize,
}

impl PlaneRouting {
    /// Builds the configured routing of each plane of `topo` (one for all when intact).
    pub fn new(cfg: &Config, topo: &Topology) -> Result<Self> {
        let planes = match topo.faulty_links() {
            0 => vec![super::build(cfg, topo.plane())?],
            _ => (0..topo.planes()).map(|p| super::build(cfg, &topo.plane_slice(p))).collect::<Result<_>>()?,
        };
        Ok(PlaneRouting { planes, switches: topo.plane().num_switches(), terminals: topo.endpoints() })
    }

    /// The routing of plane `p`.
    #[inline]
    fn of(&self, p: usize) -> &dyn Routing {
        &*self.planes[if self.planes.len() == 1 { 0 } else { p }]
    }

    /// The plane of switch `s`, and `req` in that plane's indices.
    #[inline]
    fn local(&self, req: &Request) -> (usize, Request) {
        let p = req.switch / self.switches;
        let t = p * self.terminals;
        debug_assert_eq!(req.dst / self.terminals, p, "a packet leaves its plane");
        let local = Request { switch: req.switch - p * self.switches, src: req.src - t, dst: req.dst - t, ..*req };
        (p, local)
    }

    /// The plane of a packet from terminal `src` to `dst`, and both in that plane's indices.
    #[inline]
    fn local_pair(&self, src: usize, dst: usize) -> (usize, usize, usize) {
        let p = src / self.terminals;
        let t = p * self.terminals;
        (p, src - t, dst - t)
    }
}

impl Routing for PlaneRouting {
    fn name(&self) -> &'static str {
        self.planes[0].name()
    }
    fn route(&self, req: &Request, out: &mut Vec<Candidate>) {
        let (p, local) = self.local(req);
        self.of(p).route(&local, out)
    }
    fn route_loaded(&self, req: &Request, load: &dyn Fn(usize) -> u32, out: &mut Vec<Candidate>) {
        let (p, local) = self.local(req);
        self.of(p).route_loaded(&local, load, out)
    }
    fn reads_load(&self) -> bool {
        self.planes.iter().any(|r| r.reads_load())
    }
    fn global_view(&self) -> bool {
        self.planes.iter().any(|r| r.global_view())
    }
    fn route_global(
        &self,
        req: &Request,
        load: &dyn Fn(usize) -> u32,
        remote: &dyn Fn(usize, usize) -> u32,
        out: &mut Vec<Candidate>,
    ) {
        let (p, local) = self.local(req);
        let offset = p * self.switches;
        self.of(p).route_global(&local, load, &|s, port| remote(s + offset, port), out)
    }
    fn offsets(&self) -> usize {
        self.planes[0].offsets()
    }
    fn salts(&self) -> u32 {
        self.planes.iter().map(|r| r.salts()).max().unwrap_or(1)
    }
    fn address_offset(&self, src: usize, dst: usize, size_phits: u32) -> u8 {
        let (p, src, dst) = self.local_pair(src, dst);
        self.of(p).address_offset(src, dst, size_phits)
    }
    fn prefetch(&self, switch: usize) {
        let p = switch / self.switches;
        self.of(p).prefetch(switch - p * self.switches)
    }
    fn throughput_bound(&self) -> Option<f64> {
        crate::topology::properties::least_bound(self.planes.iter().map(|r| r.throughput_bound()))
    }
    fn injection_vc(&self, src: usize, dst: usize, offset: u8) -> Option<usize> {
        let (p, src, dst) = self.local_pair(src, dst);
        self.of(p).injection_vc(src, dst, offset)
    }
}
