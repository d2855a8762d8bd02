//! Workloads talk only to NICs. Independent sources (this module) generate packets with a
//! destination pattern and an injection process; causal task programs come later.

pub mod patterns;
pub mod sources;

pub use patterns::Pattern;
pub use sources::Source;
