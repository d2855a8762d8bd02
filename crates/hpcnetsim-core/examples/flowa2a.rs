use hpcnetsim_core::flow::{self, Flow, Links};
use hpcnetsim_core::{Config, Topology};
use std::time::Instant;
fn main() {
    let spec = std::env::args().nth(1).unwrap();
    let c = Config::from_toml(&format!("topology = \"{spec}\"")).unwrap();
    let t = Topology::from_spec(&spec).unwrap();
    let n = t.num_terminals();
    let p = flow::run::provider(&c, &t).unwrap();
    let links = Links::from_config(&t, &c);
    let t0 = Instant::now();
    let flows: Vec<Flow> = (0..n)
        .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| Flow { src: s, dst: d, bytes: 1e6 }))
        .collect();
    let sh = flow::flow_shares(&t, &links, p.as_ref(), &flows).unwrap();
    let t1 = Instant::now();
    let r = flow::max_min(&links.capacity, &sh);
    let t2 = Instant::now();
    let bytes: Vec<f64> = flows.iter().map(|f| f.bytes).collect();
    let comp = flow::complete(&links.capacity, &sh, &bytes, links.bandwidth);
    let t3 = Instant::now();
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let mk = comp.finish.iter().cloned().fold(0.0, f64::max);
    println!(
        "{} flows: paths {:.2}s, max-min {:.2}s (mean rate {mean:.5}), completion {:.2}s ({} phases, makespan {mk:.0})",
        flows.len(),
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t3 - t2).as_secs_f64(),
        comp.phases
    );
}
