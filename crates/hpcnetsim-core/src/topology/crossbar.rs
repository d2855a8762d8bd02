//! A single crossbar switch with one terminal on every port (paper 002 §4.1).

use super::symmetry::Symmetry;
use super::wiring::{Builder, Wiring};

/// An N-port crossbar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crossbar {
    /// Number of ports, each with a terminal.
    pub ports: usize,
}

impl Crossbar {
    pub(crate) fn build(&self) -> Wiring {
        let mut b = Builder::new([self.ports]);
        for p in 0..self.ports {
            b.attach_terminal(0, p);
        }
        b.finish(Some(Symmetry::translations(vec![0], vec![0])))
    }
}
