use hpcnetsim_core::flow::ebb;
use hpcnetsim_core::Config;
fn main() {
    let spec = std::env::args().nth(1).unwrap();
    let extra = std::env::args().nth(2).unwrap_or_default().replace(';', "\n");
    let c = Config::from_toml(&format!("topology = \"{spec}\"\n{extra}")).unwrap();
    let r = ebb::run(&c).unwrap();
    println!("{} [{}] threads={} dist={:?}", r.message, r.routing, r.threads, r.distribution);
}
