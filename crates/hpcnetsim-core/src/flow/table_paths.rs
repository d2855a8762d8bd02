//! Table routing at the flow level: a flow follows the forwarding tables of the configured
//! engine (`routing.algorithm = "table"`), split over the LID offsets its sender would use
//! (every offset equally for round-robin and random addresses; paper 001's Table 1 for
//! `flow.message_bytes` under the PARX rule), each offset's path walked through the tables.

use super::paths::{PathProvider, PathSet};
use crate::error::{Error, Result};
use crate::routing::table_lookup::TableRouting;
use crate::routing::tables::PathError;
use crate::topology::Topology;

/// Paths read from forwarding tables.
pub struct TablePaths<'a> {
    topo: &'a Topology,
    routing: TableRouting,
    bytes: u64,
}

impl<'a> TablePaths<'a> {
    /// The tables of `routing` on `topo`, for messages of `bytes` (which PARX offsets apply).
    pub fn new(topo: &'a Topology, routing: TableRouting, bytes: u64) -> Self {
        TablePaths { topo, routing, bytes }
    }
}

impl PathProvider for TablePaths<'_> {
    fn name(&self) -> String {
        let t = self.routing.tables();
        format!("table ({}, {} offset(s) per terminal)", t.engine, t.offsets())
    }

    fn paths(&self, src: usize, dst: usize, out: &mut PathSet) -> Result<()> {
        let mut channels = Vec::with_capacity(8);
        for (offset, share) in self.routing.offset_shares(src, dst, self.bytes) {
            let hops = self.routing.tables().path(self.topo, src, dst, offset as usize).map_err(|e| {
                Error::Unsupported(match e {
                    PathError::Unreachable { switch } => format!(
                        "{}: terminal {dst} (LID offset {offset}) is unreachable from switch {switch} under the tables",
                        self.topo.spec()
                    ),
                    PathError::Broken(why) => format!("{}: {why}", self.topo.spec()),
                })
            })?;
            channels.clear();
            channels.extend(hops.iter().map(|h| self.topo.channel(h.switch as usize, h.port as usize) as u32));
            out.push_path(&channels, share);
        }
        Ok(())
    }
}
