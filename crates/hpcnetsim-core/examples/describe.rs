//! Prints the properties of the specs given on the command line as JSON lines.
use hpcnetsim_core::Topology;

fn main() {
    for spec in std::env::args().skip(1) {
        let start = std::time::Instant::now();
        match Topology::from_spec(&spec).and_then(|t| t.describe()) {
            Ok(p) => println!("{} ({:.2?})", serde_json::to_string(&p).unwrap(), start.elapsed()),
            Err(e) => println!("error: {e}"),
        }
    }
}
