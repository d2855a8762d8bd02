//! hpcnetsim core: the Rust engine behind the `hpcnetsim` Python package.
//!
//! The crate is pure Rust (no Python in it). Modules follow the data flow of
//! `docs/architecture.md`: a spec becomes a [`topology::Topology`], whose properties,
//! costs and exports are computed here; routing, switch models and the packet engine
//! build on the same graph.

pub mod config;
pub mod engine;
pub mod error;
pub(crate) mod event;
pub mod flow;
pub(crate) mod in_order;
pub mod memory;
pub(crate) mod nic;
pub mod observe;
pub mod perf;
pub mod resources;
pub mod rng;
pub mod routing;
mod slices;
pub mod stats;
pub mod switch;
pub mod topology;
pub mod workload;

/// Identity of this build: a hash of the core's sources and locked dependencies.
pub const BUILD_ID: &str = env!("HPCNETSIM_BUILD_ID");

pub use config::Config;
pub use error::{Error, Result};
pub use topology::{Peer, Topology};
