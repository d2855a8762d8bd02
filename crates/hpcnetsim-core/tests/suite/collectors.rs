//! The `[stats]` collectors (`observe/`): what they record agrees with the engine's own
//! counters to the phit, they change no result, and the same seed gives the same tables.

use crate::common::topo;
use hpcnetsim_core::config::Config;
use hpcnetsim_core::engine::{execute::execute, measure, Engine};
use hpcnetsim_core::observe::table::{Column, Table};
use std::collections::BTreeMap;

fn ints(t: &Table, name: &str) -> Vec<u64> {
    match &t.data[name] {
        Column::Int(v) => v.clone(),
        Column::Float(v) => panic!("{name} holds reals: {v:?}"),
    }
}

fn floats(t: &Table, name: &str) -> Vec<f64> {
    match &t.data[name] {
        Column::Float(v) => v.clone(),
        Column::Int(v) => panic!("{name} holds integers: {v:?}"),
    }
}

/// Runs `toml` with recording from cycle 0 for `cycles`, then drains the network.
fn observed(toml: &str, cycles: u64) -> (Engine<'static>, BTreeMap<String, Table>) {
    let c = Config::from_toml(toml).unwrap();
    let t: &'static _ = Box::leak(Box::new(topo(&c.topology)));
    let mut e = Engine::new(&c, t).unwrap();
    e.set_recording(true);
    e.run_until(cycles);
    e.stop_sources();
    e.run_until(cycles + 20_000);
    e.check_idle().unwrap();
    let tables = e.collected_tables();
    (e, tables)
}

/// Every phit a link carried is in exactly one interval row of its channel and VC: the sums
/// per channel equal the links' busy time, and the total is the phit hops but for the
/// injection links; no link is
/// busy for more than the whole interval; intervals are in order. For the input-queued,
/// output-queued and wormhole switches.
#[test]
fn link_utilisation_accounts_for_every_phit() {
    for switch in ["vcs = 2", "vcs = 2\npreset = \"output-queued\"", "vcs = 2\npreset = \"elite\""] {
        let toml = format!(
            "topology = \"torus:4x4\"\n[switch]\n{switch}\n[routing]\nalgorithm = \"dor\"\n[traffic]\nload = 0.6\npacket_phits = 16\n[stats]\nlink_utilisation = true\ninterval_cycles = 100\n"
        );
        let (e, tables) = observed(&toml, 3_000);
        let t = &tables["link_utilisation"];
        let (start, channel, vc, busy) =
            (ints(t, "interval_start"), ints(t, "channel"), ints(t, "vc"), ints(t, "busy_phits"));
        assert!(t.rows() > 100, "{switch}: {} rows", t.rows());
        // The phit hops also count each packet's injection link, which is no switch's channel.
        let c = &e.stats.counters;
        assert_eq!(busy.iter().sum::<u64>() + c.delivered_phits, c.phit_hops, "{switch}");
        let mut per_channel = BTreeMap::new();
        let mut per_interval_link = BTreeMap::new();
        for i in 0..t.rows() {
            assert!(vc[i] < 2 && start[i] % 100 == 0, "{switch}: row {i}");
            assert!(i == 0 || (start[i - 1], channel[i - 1], vc[i - 1]) < (start[i], channel[i], vc[i]), "row order");
            *per_channel.entry(channel[i]).or_insert(0) += busy[i];
            *per_interval_link.entry((start[i], channel[i])).or_insert(0) += busy[i];
        }
        for (c, phits) in per_channel {
            assert_eq!(phits, e.busy_phits(c as usize), "{switch}: channel {c}");
        }
        assert!(per_interval_link.values().all(|&b| b <= 100), "{switch}: a link busier than its interval");
        let u = floats(t, "utilisation");
        assert!(u.iter().zip(&busy).all(|(u, b)| (u - *b as f64 / 100.0).abs() < 1e-12));
    }
}

/// A run that ends with packets on the wire: the series stops at the end. The last interval is
/// as long as the run left it and as busy as the ones before (its tail phits over a whole
/// interval made a dip to near zero), and only the phits past the end, less than a packet per
/// link, are missing from a link's total.
#[test]
fn link_utilisation_ends_with_the_run() {
    let toml = "topology = \"torus:4x4\"\n[switch]\nvcs = 2\n[routing]\nalgorithm = \"dor\"\n[traffic]\nload = 0.6\npacket_phits = 16\n[stats]\nlink_utilisation = true\ninterval_cycles = 100\n";
    let c = Config::from_toml(toml).unwrap();
    let t: &'static _ = Box::leak(Box::new(topo(&c.topology)));
    let mut e = Engine::new(&c, t).unwrap();
    e.set_recording(true);
    for end in [3_000, 3_050, 3_107] {
        e.run_until(end);
        assert_eq!(e.now(), end);
    }
    let tables = e.collected_tables();
    let tab = &tables["link_utilisation"];
    let (start, channel, busy, cycles) =
        (ints(tab, "interval_start"), ints(tab, "channel"), ints(tab, "busy_phits"), ints(tab, "cycles"));
    assert_eq!(*start.iter().max().unwrap(), 3_100, "no interval past the end");
    let mut per_interval = BTreeMap::new();
    let mut per_channel = BTreeMap::new();
    for r in 0..tab.rows() {
        assert_eq!(cycles[r], if start[r] == 3_100 { 7 } else { 100 }, "row {r}");
        *per_interval.entry(start[r]).or_insert(0.0) += busy[r] as f64 / cycles[r] as f64;
        *per_channel.entry(channel[r]).or_insert(0) += busy[r];
    }
    let steady: Vec<f64> = per_interval.range(1_000..3_100).map(|(_, u)| *u).collect();
    let mean = steady.iter().sum::<f64>() / steady.len() as f64;
    let last = per_interval[&3_100];
    assert!(last > 0.7 * mean && last < 1.3 * mean, "last interval {last} against {mean}");
    let mut missing = 0;
    for (c, phits) in per_channel {
        let all = e.busy_phits(c as usize);
        assert!(phits <= all && all - phits < 16, "channel {c}: {phits} of {all}");
        missing += all - phits;
    }
    assert!(missing > 0, "some packet was on the wire at the end");
    let u = floats(tab, "utilisation");
    assert!(u.iter().zip(busy.iter().zip(&cycles)).all(|(u, (b, c))| (u - *b as f64 / *c as f64).abs() < 1e-12));
}

/// Percentiles per traffic class: one row per class, counts adding up to the deliveries,
/// and with one class the same figures as the run's own latency summary.
#[test]
fn latency_percentiles_per_class_agree_with_the_summary() {
    let base = "topology = \"tree:k=4,n=2\"\n[traffic]\nload = 0.5\n[stats]\nlatency_percentiles = true\n";
    let (e, tables) = observed(base, 4_000);
    let t = &tables["latency_percentiles"];
    assert_eq!(t.rows(), 1);
    let s = e.stats.network_latency.summary();
    assert_eq!(ints(t, "count"), vec![e.stats.counters.delivered]);
    assert_eq!(floats(t, "network_p50"), vec![s.p50]);
    assert_eq!(floats(t, "network_p99"), vec![s.p99]);
    assert_eq!(floats(t, "network_max"), vec![s.max]);
    let (p99, p999) = (floats(t, "network_p99")[0], floats(t, "network_p999")[0]);
    assert!(s.p50 <= p99 && p99 <= p999 && p999 <= s.max);
    let two = base.replace("[traffic]", "[switch]\nvcs = 2\ntraffic_classes = 2\n[traffic]");
    let (e, tables) = observed(&two, 4_000);
    let t = &tables["latency_percentiles"];
    assert_eq!(ints(t, "class"), vec![0, 1]);
    assert_eq!(ints(t, "count").iter().sum::<u64>(), e.stats.counters.delivered);
}

/// Concurrent jobs: the percentiles come per job, and their counts are the jobs' packets.
#[test]
fn latency_percentiles_per_job() {
    let toml = "topology = \"torus:4x4\"\n[switch]\nvcs = 2\n[stats]\nlatency_percentiles = true\n[[workload.jobs]]\nkernel = \"bu\"\ntasks = 4\nfirst_terminal = 4\n[[workload.jobs]]\nkernel = \"allreduce\"\ntasks = 8\nplacement = \"random\"\n";
    let r = execute(&Config::from_toml(toml).unwrap()).unwrap();
    let t = &r.tables["latency_percentiles"];
    assert_eq!(ints(t, "job"), vec![0, 1]);
    assert!(ints(t, "count").iter().all(|&n| n > 0));
}

/// A sample of every tenth delivery, each with consistent cycles.
#[test]
fn packet_sample_takes_every_nth_delivery() {
    let toml = "topology = \"torus:4x4\"\n[switch]\nvcs = 2\n[traffic]\nload = 0.3\n[stats]\npacket_sample = 0.1\n";
    let (e, tables) = observed(toml, 3_000);
    let t = &tables["packets"];
    assert_eq!(t.rows() as u64, e.stats.counters.delivered / 10);
    let (g, i, d) = (ints(t, "generated"), ints(t, "injected"), ints(t, "delivered"));
    assert!((0..t.rows()).all(|k| g[k] <= i[k] && i[k] < d[k]));
    assert!(ints(t, "src").iter().zip(ints(t, "dst")).all(|(s, d)| *s != d && *s < 16 && d < 16));
}

/// Collectors change no result, cost no table when off, and repeat bit for bit.
#[test]
fn collectors_change_nothing_and_repeat() {
    let base = "topology = \"torus:4x4\"\nseed = 3\n[switch]\nvcs = 2\n[traffic]\nload = 0.4\n[measurement]\nwarmup_cycles = 1000\nwindow_cycles = 500\nbatches = 2\nbatch_cycles = 1000\n";
    let stats = "[stats]\nlink_utilisation = true\nlatency_percentiles = true\npacket_sample = 0.5\n";
    let plain = measure::run(&Config::from_toml(base).unwrap()).unwrap();
    let with = measure::run(&Config::from_toml(&format!("{base}{stats}")).unwrap()).unwrap();
    let again = measure::run(&Config::from_toml(&format!("{base}{stats}")).unwrap()).unwrap();
    assert!(plain.tables.is_empty());
    assert_eq!((plain.accepted_load, plain.packet_hops), (with.accepted_load, with.packet_hops));
    assert_eq!(plain.latency, with.latency);
    assert_eq!(with.tables, again.tables);
    assert_eq!(with.tables.len(), 3);
    assert!(with.tables.values().all(|t| t.rows() > 0));
}

/// Nonsense `[stats]` values are refused, naming the field.
#[test]
fn bad_stats_values_are_refused() {
    for (line, field) in [("packet_sample = 1.5", "stats.packet_sample"), ("bogus = 1", "bogus")] {
        let e = Config::from_toml(&format!("topology = \"torus:4x4\"\n[stats]\n{line}\n")).unwrap_err().to_string();
        assert!(e.contains(field), "{line}: {e}");
    }
}

#[test]
fn latency_summaries_stay_exact_and_small_for_long_latencies() {
    use hpcnetsim_core::stats::LatencyHistogram;
    // A message of 2 GB takes 1.25 × 10^8 cycles on 16-byte phits, and compute intervals run
    // to 10^12 cycles: a latency that long is counted without memory up to it.
    let mut h = LatencyHistogram::default();
    let samples = [3u64, 3, 70_000, 125_000_001, 1_000_000_000_000, 5];
    for &s in &samples {
        h.record(s);
    }
    let s = h.summary();
    assert_eq!(s.count, samples.len() as u64);
    assert_eq!(s.mean, samples.iter().sum::<u64>() as f64 / samples.len() as f64);
    assert_eq!(s.max, 1e12);
    // Sorted: 3 3 5 70000 125000001 10^12; the q-quantile is the ⌈6q⌉-th of them.
    assert_eq!(s.p50, 5.0);
    assert_eq!(h.quantile(0.6), 70_000.0);
    assert_eq!(h.quantile(0.8), 125_000_001.0);
    assert_eq!(s.p90, 1e12);
    h.clear();
    h.record(7);
    assert_eq!((h.summary().max, h.summary().p99, h.summary().count), (7.0, 7.0, 1));
}
