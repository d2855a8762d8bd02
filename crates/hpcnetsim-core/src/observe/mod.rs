//! What the engine and its components report while a run goes on, read by the statistics
//! (`crate::stats`) at its end: the run's counters. Kept apart from `stats`, whose results
//! name workloads, so that the switch components may count without depending on them.

mod counters;

pub use counters::Counters;
