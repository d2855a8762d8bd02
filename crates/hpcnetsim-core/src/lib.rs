//! hpcnetsim core: the Rust engine behind the `hpcnetsim` Python package.
//!
//! The crate is pure Rust (no Python in it). Modules follow the data flow of
//! `docs/architecture.md`: a spec becomes a [`topology::Topology`], whose properties,
//! costs and exports are computed here; routing, switch models and the packet engine
//! build on the same graph.

pub mod config;
pub mod engine;
pub mod error;
pub mod flow;
pub mod rng;
pub mod routing;
pub mod stats;
pub mod topology;
pub mod workload;

pub use config::Config;
pub use error::{Error, Result};
pub use topology::{Peer, Topology};
