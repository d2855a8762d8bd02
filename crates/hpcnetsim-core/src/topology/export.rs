//! Exports of the port-level graph: JSON (lossless), GraphML and Graphviz DOT; the fabric
//! formats of other tools (ibnetdiscover, BookSim2 anynet, CODES dragonfly connections).
//!
//! Node ids are `s<i>` for switches and `t<i>` for terminals in every format; links carry
//! the port numbers at both ends.

use super::Topology;
use crate::error::{Error, Result};
use serde_json::json;
use std::fmt::Write;

/// The export formats.
pub const FORMATS: &str = "graphml, dot, json, ibnet, anynet, codes-intra, codes-inter";

impl Topology {
    /// Serialises the graph in `format` (one of [`FORMATS`]).
    pub fn export(&self, format: &str) -> Result<String> {
        // Another tool's fabric file describes one connected network; the planes share no switch.
        if self.planes() > 1 && matches!(format, "ibnet" | "anynet" | "codes-intra" | "codes-inter") {
            return Err(Error::invalid(
                "topo export",
                "format",
                format!("'{format}' of the multi-plane network {}", self.spec()),
                format!(
                    "json, graphml or dot: a fabric file holds one connected network, and the planes share no \
                     switch (an intact plane is {})",
                    self.plane().spec()
                ),
            ));
        }
        match format {
            "json" => Ok(self.to_json()),
            "graphml" => Ok(self.to_graphml()),
            "dot" => Ok(self.to_dot()),
            "ibnet" => Ok(super::import::to_ibnet(self)),
            "anynet" => super::anynet::to_anynet(self),
            "codes-intra" => super::codes::to_codes(self, true),
            "codes-inter" => super::codes::to_codes(self, false),
            other => Err(Error::invalid("topo export", "format", format!("'{other}'"), format!("one of {FORMATS}"))),
        }
    }

    fn to_json(&self) -> String {
        let switches: Vec<_> = (0..self.num_switches())
            .map(|s| {
                let mut switch = json!({
                    "id": s,
                    "ports": self.num_ports(s),
                    "level": self.switch_level(s),
                    "coordinates": self.switch_coordinates(s),
                });
                // A multi-plane network's coordinates and levels are those within the plane.
                if self.planes() > 1 {
                    switch["plane"] = json!(self.plane_of_switch(s));
                }
                switch
            })
            .collect();
        let terminals: Vec<_> = (0..self.num_terminals())
            .map(|t| {
                let (s, p) = self.terminal_attachment(t);
                json!({"id": t, "switch": s, "port": p})
            })
            .collect();
        let links: Vec<_> = self.link_list().iter().map(|&(a, pa, b, pb)| json!([a, pa, b, pb])).collect();
        let doc = json!({
            "spec": self.spec(),
            "family": self.family().name(),
            "switches": switches,
            "terminals": terminals,
            "links": links,
        });
        serde_json::to_string_pretty(&doc).expect("JSON values always serialise")
    }

    fn to_graphml(&self) -> String {
        let mut out = String::new();
        out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n");
        for (id, on, ty) in [
            ("kind", "node", "string"),
            ("level", "node", "int"),
            ("coordinates", "node", "string"),
            ("port_a", "edge", "int"),
            ("port_b", "edge", "int"),
        ] {
            let _ = writeln!(out, "  <key id=\"{id}\" for=\"{on}\" attr.name=\"{id}\" attr.type=\"{ty}\"/>");
        }
        let _ = writeln!(out, "  <graph id=\"{}\" edgedefault=\"undirected\">", xml_escape(self.spec()));
        for s in 0..self.num_switches() {
            let coords = join(&self.switch_coordinates(s));
            let _ = write!(out, "    <node id=\"s{s}\"><data key=\"kind\">switch</data>");
            if let Some(l) = self.switch_level(s) {
                let _ = write!(out, "<data key=\"level\">{l}</data>");
            }
            let _ = writeln!(out, "<data key=\"coordinates\">{coords}</data></node>");
        }
        for t in 0..self.num_terminals() {
            let _ = writeln!(out, "    <node id=\"t{t}\"><data key=\"kind\">terminal</data></node>");
        }
        for (a, pa, b, pb) in self.link_list() {
            let _ = writeln!(
                out,
                "    <edge source=\"s{a}\" target=\"s{b}\"><data key=\"port_a\">{pa}</data><data key=\"port_b\">{pb}</data></edge>"
            );
        }
        for t in 0..self.num_terminals() {
            let (s, p) = self.terminal_attachment(t);
            let _ = writeln!(
                out,
                "    <edge source=\"t{t}\" target=\"s{s}\"><data key=\"port_a\">0</data><data key=\"port_b\">{p}</data></edge>"
            );
        }
        out.push_str("  </graph>\n</graphml>\n");
        out
    }

    fn to_dot(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "graph \"{}\" {{", self.spec().replace('"', "\\\""));
        for s in 0..self.num_switches() {
            let _ = writeln!(out, "  s{s} [shape=box, label=\"s{s}\\n{}\"];", join(&self.switch_coordinates(s)));
        }
        for t in 0..self.num_terminals() {
            let _ = writeln!(out, "  t{t} [shape=circle, label=\"t{t}\"];");
        }
        for (a, pa, b, pb) in self.link_list() {
            let _ = writeln!(out, "  s{a} -- s{b} [taillabel=\"{pa}\", headlabel=\"{pb}\"];");
        }
        for t in 0..self.num_terminals() {
            let (s, p) = self.terminal_attachment(t);
            let _ = writeln!(out, "  t{t} -- s{s} [headlabel=\"{p}\"];");
        }
        out.push_str("}\n");
        out
    }
}

fn join(v: &[usize]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
