//! The Rust integration tests, one module per file, built as one test binary: linked once
//! instead of once per file, which on two cores took most of `make test`'s time. Paper
//! reproductions, brute-force cross-checks against the engine and the reference simulator,
//! parser fuzzing and the error messages of bad input.

mod common;

mod analytic_vs_brute_force;
mod cascade_family;
mod collectives;
mod collectors;
mod concurrent_jobs;
mod deadlock_check;
mod dfsssp_layers;
mod dragonfly_family_routing;
mod dragonfly_routing;
mod duato;
mod dumpi_traces;
mod elan_host_path;
mod engine;
mod event_order;
mod extoll_paper;
mod extoll_pipeline;
mod fabric_import;
mod faulty_bisection;
mod flow_model;
mod flow_packet_agreement;
mod flow_tables;
mod fuzz_parsers;
mod graph_routing;
mod hyperx_adaptive;
mod hyperx_paper;
mod ib_flit_sim_fabrics;
mod input_limits;
mod insee_semantics;
mod interchange;
mod ksp_tables;
mod local_messages;
mod megafly_family;
mod network_families;
mod nic_model;
mod output_queued;
mod parallel;
mod parx_messages;
mod planes;
mod quadrics_paper;
mod random_instances;
mod reference_check;
mod reliability;
mod spec_errors;
mod streamed_replay;
mod switch_models;
mod table_dump_errors;
mod table_engine;
mod table_routing;
mod thin_tree_paper;
mod throughput_bounds;
mod traces;
mod traffic;
mod twin_torus_routing;
mod twin_torus_ties;
mod workload_paper;
mod workloads;
mod wormhole;
mod zipf_traffic;
