//! Python bindings of hpcnetsim: converts arguments in and results out, nothing more.

use hpcnetsim_core::config::Model;
mod control;

use control::{controlled, RunOptions};
use hpcnetsim_core::engine::control::Budget;
use hpcnetsim_core::engine::measure;
use hpcnetsim_core::flow;
use hpcnetsim_core::topology::{paths, Family, Properties};
use hpcnetsim_core::{Config, Error, Peer, Topology};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The process's allocator: large blocks in huge pages (`perf::huge_pages`). The library
/// crate declares none, so programs that link it choose; the extension is where runs happen.
#[global_allocator]
static ALLOCATOR: hpcnetsim_core::perf::HugePages = hpcnetsim_core::perf::HugePages;

create_exception!(_core, ConfigError, PyValueError, "A spec, config or input file is invalid.");

fn to_py(e: Error) -> PyErr {
    if e == Error::Interrupted {
        return pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted");
    }
    ConfigError::new_err(e.to_string())
}

/// A network built from a spec (see the spec grammar in the README).
#[pyclass(name = "Topology", module = "hpcnetsim._core", frozen)]
struct PyTopology {
    inner: Topology,
}

impl PyTopology {
    fn tree(&self) -> PyResult<&hpcnetsim_core::topology::tree::Xgft> {
        match self.inner.family() {
            Family::Tree(x) => Ok(x),
            _ => Err(ConfigError::new_err(format!(
                "{}: tree labels (node tuples, mdi, nca) exist only for tree and xgft topologies",
                self.inner.spec()
            ))),
        }
    }

    /// The tree of two terminals on one plane, the terminals as its endpoints and the plane
    /// (a multi-plane tree's planes are copies of it, not joined by any switch).
    fn tree_pair(&self, p: usize, q: usize) -> PyResult<(&hpcnetsim_core::topology::tree::Xgft, usize, usize, usize)> {
        self.check_terminal(p)?;
        self.check_terminal(q)?;
        let x = self.tree()?;
        let plane = self.inner.plane_of_terminal(p);
        if self.inner.plane_of_terminal(q) != plane {
            return Err(to_py(Error::invalid(
                self.inner.spec(),
                "terminal",
                q,
                format!("a terminal on the plane of terminal {p} (plane {plane}): the planes share no switch"),
            )));
        }
        Ok((x, self.inner.endpoint_of(p), self.inner.endpoint_of(q), plane))
    }

    fn check_switch(&self, s: usize) -> PyResult<()> {
        let n = self.inner.num_switches();
        if s >= n {
            return Err(to_py(Error::invalid(self.inner.spec(), "switch", s, format!("a switch index in 0..{n}"))));
        }
        Ok(())
    }

    fn check_terminal(&self, t: usize) -> PyResult<()> {
        let n = self.inner.num_terminals();
        if t >= n {
            return Err(to_py(Error::invalid(self.inner.spec(), "terminal", t, format!("a terminal index in 0..{n}"))));
        }
        Ok(())
    }
}

#[pymethods]
impl PyTopology {
    /// Parses and builds a topology; raises ConfigError on a bad spec.
    #[staticmethod]
    fn from_spec(py: Python<'_>, spec: &str) -> PyResult<Self> {
        hpcnetsim_core::resources::check_describe(spec).map_err(to_py)?;
        let inner = py.detach(|| Topology::from_spec(spec)).map_err(to_py)?;
        Ok(PyTopology { inner })
    }

    /// The spec string.
    #[getter]
    fn spec(&self) -> String {
        self.inner.spec().to_string()
    }

    /// Family name (tree, xgft, torus, mesh, twin-torus, hyperx, crossbar).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family().name()
    }

    /// Number of switches.
    #[getter]
    fn num_switches(&self) -> usize {
        self.inner.num_switches()
    }

    /// Number of terminals (NIC ports: every endpoint's port on every plane).
    #[getter]
    fn num_terminals(&self) -> usize {
        self.inner.num_terminals()
    }

    /// Number of identical planes (1 for a single network).
    #[getter]
    fn planes(&self) -> usize {
        self.inner.planes()
    }

    /// Number of endpoints (compute nodes): the terminals of one plane.
    #[getter]
    fn num_endpoints(&self) -> usize {
        self.inner.endpoints()
    }

    /// All properties as a dict with the keys of `hpcnetsim topo describe --json`.
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p: Properties = py.detach(|| self.inner.describe()).map_err(to_py)?;
        let d = PyDict::new(py);
        d.set_item("spec", p.spec)?;
        d.set_item("terminals", p.terminals)?;
        d.set_item("planes", p.planes)?;
        d.set_item("endpoints", p.endpoints)?;
        d.set_item("switches", p.switches)?;
        d.set_item("switches_per_level", p.switches_per_level)?;
        d.set_item("links", p.links)?;
        d.set_item("switch_links", p.switch_links)?;
        d.set_item("radix", p.radix)?;
        d.set_item("bisection_channels", p.bisection_channels)?;
        d.set_item("bisection_ratio", p.bisection_ratio)?;
        d.set_item("bisection_throughput", p.bisection_throughput)?;
        d.set_item("ideal_throughput", p.ideal_throughput)?;
        d.set_item("minimal_spread_throughput", p.minimal_spread_throughput)?;
        d.set_item("diameter", p.diameter)?;
        d.set_item("avg_distance", p.avg_distance)?;
        d.set_item("cost_constant", p.cost_constant)?;
        d.set_item("cost_linear", p.cost_linear)?;
        d.set_item("cost_quadratic", p.cost_quadratic)?;
        Ok(d)
    }

    /// The graph serialised as graphml, dot or json.
    fn export(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        py.detach(|| self.inner.export(format)).map_err(to_py)
    }

    /// Switch-to-switch links as (switch_a, port_a, switch_b, port_b).
    fn links(&self) -> Vec<(u32, u32, u32, u32)> {
        self.inner.link_list()
    }

    /// Terminal links as (terminal, switch, port).
    fn terminal_links(&self) -> Vec<(usize, usize, usize)> {
        (0..self.inner.num_terminals())
            .map(|t| {
                let (s, p) = self.inner.terminal_attachment(t);
                (t, s, p)
            })
            .collect()
    }

    /// What each port of switch `s` connects to: ("switch", s, p), ("terminal", t) or None.
    fn ports(&self, py: Python<'_>, s: usize) -> PyResult<Vec<Py<PyAny>>> {
        self.check_switch(s)?;
        self.inner
            .ports(s)
            .iter()
            .map(|peer| {
                Ok(match *peer {
                    Peer::Unplugged => py.None(),
                    Peer::Switch { switch, port } => ("switch", switch, port).into_pyobject(py)?.into_any().unbind(),
                    Peer::Terminal(t) => ("terminal", t).into_pyobject(py)?.into_any().unbind(),
                })
            })
            .collect()
    }

    /// Family coordinates of switch `s` within its plane (tree: level then label;
    /// torus/HyperX: position; twin torus: node position then card).
    fn switch_coordinates(&self, s: usize) -> PyResult<Vec<usize>> {
        self.check_switch(s)?;
        Ok(self.inner.switch_coordinates(s))
    }

    /// Tree level of switch `s` (0 = leaf level), None for other families.
    fn switch_level(&self, s: usize) -> PyResult<Option<usize>> {
        self.check_switch(s)?;
        Ok(self.inner.switch_level(s))
    }

    /// The plane of switch `s` (0 on a single-plane network).
    fn switch_plane(&self, s: usize) -> PyResult<usize> {
        self.check_switch(s)?;
        Ok(self.inner.plane_of_switch(s))
    }

    /// Number of minimal paths between terminals `a` and `b`.
    fn minimal_paths(&self, py: Python<'_>, a: usize, b: usize) -> PyResult<u128> {
        py.detach(|| paths::minimal_paths(&self.inner, a, b)).map_err(to_py)
    }

    /// Distance in links between terminals `a` and `b`, terminal links included.
    fn distance(&self, py: Python<'_>, a: usize, b: usize) -> PyResult<usize> {
        py.detach(|| paths::terminal_distance(&self.inner, a, b)).map_err(to_py)
    }

    /// Per-channel loads (indexed by global port) of uniform traffic at unit load.
    fn channel_loads(&self, py: Python<'_>) -> Vec<f64> {
        py.detach(|| paths::channel_loads(&self.inner))
    }

    /// Port offsets: ports of switch s have global (channel) indices offsets[s]..offsets[s+1].
    fn port_offsets(&self) -> Vec<usize> {
        (0..=self.inner.num_switches())
            .map(|s| if s == self.inner.num_switches() { self.inner.peers().len() } else { self.inner.channel(s, 0) })
            .collect()
    }

    /// Terminal `t` as a tuple of digits, top digit first (paper 004 Definition A.2); on a
    /// multi-plane tree, its endpoint's tuple within its plane.
    fn node_tuple(&self, t: usize) -> PyResult<Vec<usize>> {
        self.check_terminal(t)?;
        Ok(self.tree()?.node_tuple(self.inner.endpoint_of(t)))
    }

    /// Switch label (w, l) of paper 004 Definition A.2 (l = 0 is the top level there); on a
    /// multi-plane tree, the label within the switch's plane.
    fn switch_label(&self, s: usize) -> PyResult<(Vec<usize>, usize)> {
        self.check_switch(s)?;
        let x = self.tree()?;
        let (level, w) = x.switch_label(s % self.inner.plane().num_switches());
        Ok((w, x.height() - 1 - level))
    }

    /// Minimal different index of two distinct terminals (paper 004 Definition A.3).
    fn mdi(&self, p: usize, q: usize) -> PyResult<Option<usize>> {
        let (x, p, q, _) = self.tree_pair(p, q)?;
        Ok(x.mdi(p, q))
    }

    /// Nearest common ancestors of two terminals, as switch indices (Definition A.5).
    fn nca(&self, p: usize, q: usize) -> PyResult<Vec<usize>> {
        let (x, p, q, plane) = self.tree_pair(p, q)?;
        let offset = plane * self.inner.plane().num_switches();
        Ok(x.nca(p, q).into_iter().map(|s| s + offset).collect())
    }

    fn __repr__(&self) -> String {
        format!(
            "Topology('{}': {} terminals, {} switches)",
            self.inner.spec(),
            self.inner.num_terminals(),
            self.inner.num_switches()
        )
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("results always serialise")
}

/// Runs one simulation; `config_json` is a config object, the result a JSON object.
/// Ctrl-C raises KeyboardInterrupt within a fraction of a second; `progress(dict)` is
/// called about every 100 ms and may return the cores the run may use from then on (a sweep's
/// last points take the idle ones); a budget stops the run with status `partial`.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, max_seconds=None, max_cycles=None, check=false, threads=0))]
fn simulate(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Py<PyAny>>,
    max_seconds: Option<f64>,
    max_cycles: Option<u64>,
    check: bool,
    threads: usize,
) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    if cfg.model == Model::Flow {
        return py.detach(|| flow::run::simulate(&cfg)).map(|r| to_json(&r)).map_err(to_py);
    }
    let opts = RunOptions { progress, budget: Budget { max_wall_seconds: max_seconds, max_cycles }, check, threads };
    controlled(py, opts, |ctl| measure::run_with(&cfg, ctl)).map(|r| to_json(&r))
}

/// One run by the config's model under a control: the packet engine or the flow-level model.
fn run_one(cfg: &Config, ctl: &mut hpcnetsim_core::engine::control::Control) -> Result<String, Error> {
    match cfg.model {
        Model::Flow => flow::run::simulate(cfg).map(|r| to_json(&r)),
        Model::Packet => measure::run_with(cfg, ctl).map(|r| to_json(&r)),
    }
}

/// What a cache line costs this machine now from a buffer of `bytes`: (bytes walked,
/// nanoseconds per dependent load, nanoseconds per line with many walks at once); see
/// `hpcnetsim_core::perf::memory_probe`.
#[pyfunction]
#[pyo3(signature = (bytes, loads=1_000_000, seed=1))]
fn memory_cost(py: Python<'_>, bytes: usize, loads: usize, seed: u64) -> (usize, f64, f64) {
    let m = py.detach(|| hpcnetsim_core::perf::memory_probe::measure(bytes, loads, seed));
    (m.bytes, m.latency_ns, m.overlapped_ns)
}

/// Effective bisection bandwidth (Netgauge eBB) of the config's `[flow]` settings; JSON result.
#[pyfunction]
fn flow_ebb(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    py.detach(|| flow::ebb::run(&cfg)).map(|r| to_json(&r)).map_err(to_py)
}

/// mpiGraph bandwidth matrix of the config's `[flow]` settings; JSON result.
#[pyfunction]
fn flow_mpigraph(py: Python<'_>, config_json: &str) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    py.detach(|| flow::mpigraph::run(&cfg)).map(|r| to_json(&r)).map_err(to_py)
}

/// Runs a causal workload (a config with a `[workload]` table) to completion; JSON result.
/// Takes the same control arguments as `simulate`.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, max_seconds=None, max_cycles=None, check=false, threads=0))]
fn execute(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Py<PyAny>>,
    max_seconds: Option<f64>,
    max_cycles: Option<u64>,
    check: bool,
    threads: usize,
) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    if cfg.model == Model::Flow {
        return Err(to_py(Error::invalid(
            "config",
            "model",
            "'flow'",
            "'packet' for a [workload] (the flow model runs independent traffic, eBB and mpiGraph)",
        )));
    }
    let opts = RunOptions { progress, budget: Budget { max_wall_seconds: max_seconds, max_cycles }, check, threads };
    controlled(py, opts, |ctl| hpcnetsim_core::engine::execute::execute_with(&cfg, ctl)).map(|r| to_json(&r))
}

/// The edge list of a `director-tree:` spec (`hpcnetsim topo fabric`).
#[pyfunction]
fn director_tree_edges(spec: &str) -> PyResult<String> {
    hpcnetsim_core::topology::spec::parse_director_tree(spec).map(|t| t.edge_list()).map_err(to_py)
}

/// Switches the memory check before building networks off (or on again) in this process.
#[pyfunction]
fn set_memory_check(enabled: bool) {
    hpcnetsim_core::resources::set_memory_check(enabled);
}

/// Whether the memory check is on in this process (`--no-memory-check` or its environment
/// variable switch it off).
#[pyfunction]
fn memory_check_enabled() -> bool {
    hpcnetsim_core::resources::memory_check_enabled()
}

/// Estimated bytes to simulate a config (JSON), and the bytes this process may still use.
#[pyfunction]
fn memory_estimate(config_json: &str) -> PyResult<(u128, Option<u128>)> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    let need = hpcnetsim_core::resources::simulation_bytes(&cfg).map_err(to_py)?;
    Ok((need, hpcnetsim_core::resources::available().map(|(b, _)| b)))
}

/// Replays a program in the hpcnetsim text format (`name` in messages) with the network,
/// placement and CPU factor of `config_json`; JSON result. Takes the same control arguments
/// as `execute` (an OTF2 archive or a `Program` stops at a budget and on Ctrl-C like a trace).
#[pyfunction]
#[pyo3(signature = (config_json, name, text, progress=None, max_seconds=None, max_cycles=None, check=false, threads=0))]
#[allow(clippy::too_many_arguments)]
fn execute_program(
    py: Python<'_>,
    config_json: &str,
    name: &str,
    text: &str,
    progress: Option<Py<PyAny>>,
    max_seconds: Option<f64>,
    max_cycles: Option<u64>,
    check: bool,
    threads: usize,
) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    let w = cfg.workload.clone().unwrap_or_default();
    // The program (`hpcnetsim.Program`, or an OTF2 archive converted, whose config was checked
    // with its trace) brings the ranks and messages: a kernel's fields would go unread.
    w.refuse_kernel_fields("when a Program runs: the program").map_err(to_py)?;
    let opts = RunOptions { progress, budget: Budget { max_wall_seconds: max_seconds, max_cycles }, check, threads };
    controlled(py, opts, |ctl| {
        let t = hpcnetsim_core::workload::traces::read_text(name, text, hpcnetsim_core::workload::traces::scale(&w))?;
        hpcnetsim_core::engine::execute::execute_programs_with(&cfg, t.programs, name, ctl)
    })
    .map(|r| to_json(&r))
}

/// Reads a trace without simulating it; JSON summary (ranks, calls, volumes) with the traffic
/// matrices (`summary.p2p_sent`, `summary.p2p_received`, `traffic`, each a column per field of
/// the pairs that exchanged messages), or without them when `matrices` is false: an all-to-all
/// trace has an entry for every pair of ranks, and a table of ranks does not need them.
#[pyfunction]
#[pyo3(signature = (path, format, matrices=true))]
fn trace_info(py: Python<'_>, path: &str, format: &str, matrices: bool) -> PyResult<String> {
    use hpcnetsim_core::workload::traces;
    let w: hpcnetsim_core::config::WorkloadConfig = serde_json::from_value(serde_json::json!({ "format": format }))
        .map_err(|_| {
            to_py(Error::invalid("trace", "format", format!("'{format}'"), "auto, text, simgrid, dumpi, vef or otf2"))
        })?;
    py.detach(|| {
        // One pass that keeps no program: memory independent of the trace's length.
        let t = traces::scan(std::path::Path::new(path), w.format, traces::scale(&w))?;
        // Written straight from the summary: a JSON value tree of the matrices would hold
        // every entry of them in 32 bytes (4 GB for 4096 ranks).
        let s = &t.summary;
        Ok(match matrices {
            true => to_json(&TraceInfo { summary: s, traffic: Some(&t.traffic) }),
            false => to_json(&TraceInfo {
                summary: &SummaryTable {
                    format: &s.format,
                    ranks: s.ranks,
                    calls: &s.calls,
                    bytes_sent: &s.bytes_sent,
                    messages: s.messages,
                    bytes: s.bytes,
                },
                traffic: None,
            }),
        })
    })
    .map_err(to_py)
}

/// What `trace_info` returns: the summary, and the traffic matrix when asked.
#[derive(serde::Serialize)]
struct TraceInfo<'a, S: serde::Serialize> {
    summary: &'a S,
    #[serde(skip_serializing_if = "Option::is_none")]
    traffic: Option<&'a hpcnetsim_core::workload::traces::TrafficMatrix>,
}

/// A trace's summary without its point-to-point matrices.
#[derive(serde::Serialize)]
struct SummaryTable<'a> {
    format: &'a str,
    ranks: usize,
    calls: &'a [std::collections::BTreeMap<String, u64>],
    bytes_sent: &'a [u64],
    messages: u64,
    bytes: u64,
}

/// Runs the config at every offered load (in parallel); a JSON array in the order given.
#[pyfunction]
fn load_curve(py: Python<'_>, config_json: &str, loads: Vec<f64>) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    let configs = loads
        .iter()
        .map(|&load| {
            let mut c = cfg.clone();
            c.traffic.load = load;
            c.validate().map(|_| c)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(to_py)?;
    let results = control::parallel(py, &configs, run_one)?;
    Ok(format!("[{}]", results.join(",")))
}

/// Parses and validates TOML config text; returns the full config (defaults filled) as JSON.
/// With `folder` (that of the file the text was read from), the files the config names are
/// relative to it.
#[pyfunction]
#[pyo3(signature = (text, folder=None))]
fn config_from_toml(text: &str, folder: Option<&str>) -> PyResult<String> {
    Config::from_toml_in(text, folder.map(std::path::Path::new)).map(|c| to_json(&c)).map_err(to_py)
}

/// Topology `spec` with the files it names relative to `folder` (absolute names unchanged).
#[pyfunction]
fn spec_relative_to(spec: &str, folder: &str) -> String {
    hpcnetsim_core::config::files::spec_relative_to(spec, std::path::Path::new(folder))
}

/// Parses and validates a config given as JSON (as written: its presets and defaults are
/// filled in); returns the full config as JSON.
#[pyfunction]
fn config_from_json(config_json: &str) -> PyResult<String> {
    Config::from_json(config_json).map(|c| to_json(&c)).map_err(to_py)
}

/// The resolved config of a config given as JSON (as written, after overrides), each field
/// with its value and where it comes from (config, technology, switch preset, `[link]`
/// clock, default), as a JSON list.
#[pyfunction]
fn config_sources(config_json: &str) -> PyResult<String> {
    // Every value checked first, the switch technologies' own fields included.
    Config::from_json(config_json).map_err(to_py)?;
    hpcnetsim_core::config::sources::sources(config_json).map(|s| to_json(&s)).map_err(to_py)
}

/// The physical figures of a config as JSON: cycle (ns), phit (bytes), link bandwidth and the
/// NIC's payload bandwidth (bytes/s; null without the NIC model), overheads (ns), and the host
/// bandwidth (bytes/s; null unless `link.host_bandwidth` is set).
#[pyfunction]
fn physical(config_json: &str) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    let c = cfg.clock().map_err(to_py)?;
    let nic = cfg.nic_model().map_err(to_py)?;
    let per_second = 1e9 / c.cycle_ns;
    Ok(serde_json::json!({
        "cycle_ns": c.cycle_ns,
        "phit_bytes": c.phit_bytes,
        "link_bytes_per_s": c.link_bytes_per_second(),
        "nic_bytes_per_s": nic.as_ref().map(|m| m.bytes_per_cycle() * per_second),
        "send_overhead_ns": nic.as_ref().map(|m| m.send_overhead as f64 * c.cycle_ns),
        "receive_overhead_ns": nic.as_ref().map(|m| m.receive_overhead as f64 * c.cycle_ns),
        "thread_overhead_ns": nic.as_ref().map(|m| m.thread_overhead as f64 * c.cycle_ns),
        "max_payload_bytes": nic.as_ref().map(|m| m.max_payload),
        "packet_overhead_bytes": nic.as_ref().map(|m| m.packet_overhead),
        "hop_ns": (cfg.switch.switch_delay_cycles + cfg.switch.link_delay_cycles) as f64 * c.cycle_ns,
        "host_bytes_per_s": cfg.host_bytes_per_second().map_err(to_py)?,
    })
    .to_string())
}

/// Runs `flows` (source, destination, bytes) to completion on the config's network; JSON result.
#[pyfunction]
fn flow_run(py: Python<'_>, config_json: &str, flows: Vec<(usize, usize, f64)>) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    let flows: Vec<flow::Flow> = flows.into_iter().map(|(src, dst, bytes)| flow::Flow { src, dst, bytes }).collect();
    py.detach(|| flow::run::run_flows(&cfg, &flows)).map(|r| to_json(&r)).map_err(to_py)
}

/// The defaults of the fields a default config leaves out (`model`, `[flow]`), as JSON.
#[pyfunction]
fn flow_defaults() -> String {
    let flow = serde_json::to_value(hpcnetsim_core::config::FlowConfig::default()).expect("serialisable");
    serde_json::json!({ "model": "packet", "flow": flow }).to_string()
}

/// Computes (or, with `tables_text`, loads) forwarding tables for `spec` and reports on
/// them as JSON; with `dump` the report carries the tables as text under `"dump"`.
#[pyfunction]
#[pyo3(signature = (spec, engine, lmc=0, vls=8, roots=Vec::new(), check_deadlock=false, dump=false, tables_text=None, tables_name="tables", demands=Vec::new(), fdbs_ini=None, fdbs_hcas=None, layering="placement"))]
#[allow(clippy::too_many_arguments)]
fn route(
    py: Python<'_>,
    spec: &str,
    engine: &str,
    lmc: u8,
    vls: usize,
    roots: Vec<usize>,
    check_deadlock: bool,
    dump: bool,
    tables_text: Option<&str>,
    tables_name: &str,
    demands: Vec<(usize, usize, f64)>,
    fdbs_ini: Option<&str>,
    fdbs_hcas: Option<&str>,
    layering: &str,
) -> PyResult<String> {
    use hpcnetsim_core::routing::tables::{self, stats, EngineOptions, Layering, TableEngine};
    py.detach(|| {
        let layering = Layering::parse(layering, "routing", "layering")?;
        let topo = Topology::from_spec(spec)?;
        if dump && topo.planes() > 1 && topo.faulty_links() > 0 {
            // The network, not the file, is what a dump cannot hold.
            return Err(Error::invalid(
                "route",
                "spec",
                format!("'{spec}'"),
                "a network whose planes share their tables, for a dump: a multi-plane network with faults has one set \
                 per plane",
            ));
        }
        let engine = match tables_text {
            Some(_) => None,
            None => Some(TableEngine::parse(engine, "routing", "engine")?),
        };
        let opts = EngineOptions { lmc, max_vls: vls, roots, demands, layering, lanes: true };
        // A multi-plane network is routed plane by plane (`report_network`).
        let tables_of = |net: &Topology| match (tables_text, fdbs_ini, fdbs_hcas, engine) {
            (Some(text), Some(ini), Some(hcas), _) => tables::fdbs::load(text, ini, hcas, tables_name, net),
            (Some(text), _, _, _) => tables::dump::load(text, tables_name, net),
            (None, _, _, Some(engine)) => tables::compute(engine, net, &opts),
            (None, _, _, None) => unreachable!("an engine is parsed when no tables are given"),
        };
        let (report, t) = stats::report_network(&topo, check_deadlock, &tables_of)?;
        #[derive(serde::Serialize)]
        struct WithDump {
            #[serde(flatten)]
            report: stats::RouteReport,
            #[serde(skip_serializing_if = "Option::is_none")]
            dump: Option<String>,
        }
        Ok(to_json(&WithDump { report, dump: dump.then(|| tables::dump::dump(topo.plane(), &t)) }))
    })
    .map_err(to_py)
}

/// The static deadlock check of the algorithmic routing of a config (JSON) with `vcs`
/// virtual channels (`None`: the fewest the routing accepts); JSON result.
#[pyfunction]
#[pyo3(signature = (config_json, vcs=None))]
fn check_deadlock(py: Python<'_>, config_json: &str, vcs: Option<usize>) -> PyResult<String> {
    let cfg = Config::from_json(config_json).map_err(to_py)?;
    py.detach(|| hpcnetsim_core::routing::deadlock_check::check(&cfg, vcs)).map(|r| to_json(&r)).map_err(to_py)
}

/// The compiled core of hpcnetsim.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTopology>()?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(memory_cost, m)?)?;
    m.add_function(wrap_pyfunction!(load_curve, m)?)?;
    m.add_function(wrap_pyfunction!(execute, m)?)?;
    m.add_function(wrap_pyfunction!(execute_program, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(config_from_toml, m)?)?;
    m.add_function(wrap_pyfunction!(spec_relative_to, m)?)?;
    m.add_function(wrap_pyfunction!(config_sources, m)?)?;
    m.add_function(wrap_pyfunction!(config_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(physical, m)?)?;
    m.add_function(wrap_pyfunction!(flow_ebb, m)?)?;
    m.add_function(wrap_pyfunction!(flow_mpigraph, m)?)?;
    m.add_function(wrap_pyfunction!(flow_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(flow_run, m)?)?;
    m.add_function(wrap_pyfunction!(route, m)?)?;
    m.add_function(wrap_pyfunction!(check_deadlock, m)?)?;
    m.add_function(wrap_pyfunction!(set_memory_check, m)?)?;
    m.add_function(wrap_pyfunction!(memory_check_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(director_tree_edges, m)?)?;
    m.add_function(wrap_pyfunction!(memory_estimate, m)?)?;
    m.add("BUILD_ID", hpcnetsim_core::BUILD_ID)?;
    m.add("AUTO_MIN_CHANNELS", hpcnetsim_core::engine::AUTO_MIN_CHANNELS)?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
