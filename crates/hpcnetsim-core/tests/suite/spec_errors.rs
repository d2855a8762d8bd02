//! Every kind of bad spec gives an error naming the parameter, the value and what is
//! allowed, never a panic.

use hpcnetsim_core::Topology;

fn err(spec: &str) -> String {
    match Topology::from_spec(spec) {
        Ok(_) => panic!("{spec}: accepted"),
        Err(e) => e.to_string(),
    }
}

fn expect(spec: &str, parts: &[&str]) {
    let e = err(spec);
    assert!(!e.contains('\n'), "{spec}: multi-line message {e:?}");
    for p in parts {
        assert!(e.contains(p), "{spec}: message {e:?} lacks {p:?}");
    }
}

#[test]
fn bad_specs() {
    expect("tree", &["spec", "family:parameters"]);
    // A config file where a spec belongs (`hpcnetsim flow ebb my.toml`) is named as such.
    expect("my.toml", &["spec = 'my.toml'", "a config file is no spec: give its `topology` value", "ibnet:FILE"]);
    assert!(!err("tree").contains("config file"));
    expect("ring:8", &["family = 'ring'", "torus"]);
    expect("tree:k=8", &["n = missing", "required"]);
    expect("tree:n=3", &["k = missing"]);
    expect("tree:k=-4,n=3", &["k = '-4'", "integer between"]);
    expect("tree:k=4.5,n=3", &["k = '4.5'"]);
    expect("tree:k=0,n=3", &["k = 0", "between 1"]);
    expect("tree:k=8,kp=9,n=4", &["kp = '9'", "k = 8"]);
    expect("tree:k=8,kp=0,n=4", &["kp = '0'"]);
    expect("tree:k=8,n=4,z=1", &["parameter = 'z'", "k, kp, n"]);
    expect("tree:k=8,k=4,n=2", &["k = '4'", "at most once"]);
    expect("tree:k=8 n=4", &["k = '8 n=4'"]);
    expect("tree:k=1,n=1", &["terminals = 1"]);
    expect("tree:k=64,n=8", &["size", "at most"]);
    expect("xgft:h=2;m=4,4;w=1", &["w = 1 values", "h = 2"]);
    expect("xgft:h=2;m=4;w=1,2", &["m = 1 values"]);
    expect("xgft:h=2;m=4,4;w=2,2", &["w1 = 2"]);
    expect("xgft:h=2;m=4,x;w=1,2", &["m = 'x'"]);
    expect("torus:0x4", &["dimension 0 = 0"]);
    expect("torus:8x1", &["dimension 1 = 1", "between 2"]);
    expect("torus:8xx8", &["dimension 1 = ''"]);
    expect("torus:", &["dimensions = missing"]);
    expect("torus:8x8,t=0", &["t = 0"]);
    expect("torus:8x8,q=2", &["parameter = 'q'"]);
    expect("torus:100000x100000", &["size"]);
    expect("mesh:1", &["terminals = 1"]);
    expect("twin-torus:4x4x4x4", &["number of dimensions = 4", "odd"]);
    expect("twin-torus:4x1x4", &["dimension 1 = 1"]);
    expect("hyperx:12x8,t=x", &["t = 'x'"]);
    expect("hyperx:1x8", &["dimension 0 = 1"]);
    expect("hyperx:12x8,k=0", &["k = 0"]);
    expect("hyperx:1000x1000x1000", &["size"]);
    expect("crossbar:1", &["ports = 1"]);
    expect("crossbar:abc", &["ports = 'abc'"]);
    expect("crossbar:99999999999999999999999", &["ports = '99999999999999999999999'"]);
    // An empty parameter was skipped: `torus:4x4,` ran as another spelling of `torus:4x4`.
    expect("torus:4x4,", &["parameter = ''", "after the comma, or no comma"]);
    expect("torus:4x4,,t=2", &["parameter = ''", "without an empty one"]);
    expect("tree:k=4,n=2,", &["parameter = ''", "k, kp, n"]);
    expect("hyperx:4x4,t=2,", &["parameter = ''"]);
    expect("xgft:m=4,4;w=1,2;", &["parameter = ''", "between ';'s"]);
    expect("twin-torus:4x4x2,", &["parameter = ''", "sizes only"]);
}

#[test]
fn sizes_beyond_128_bits_are_too_large_not_empty() {
    // Products of the parameters above 2^128 used to wrap around: to 0 terminals (k=65536,
    // n=16: 2^256), or to 0 switches that passed the size check and panicked later.
    let big = |family: &str, dims: usize| format!("{family}:{}", vec!["65536"; dims].join("x"));
    expect("tree:k=65536,n=16", &["size = more than 10^38 switches", "at most 200000000 switch ports"]);
    expect(&big("torus", 9), &["size = more than 10^38 switches"]);
    expect(&big("mesh", 9), &["size = more than 10^38 switches"]);
    expect(&big("hyperx", 9), &["size = more than 10^38 switches"]);
    expect(&big("twin-torus", 9), &["size = more than 10^38 switches"]);
    // Below the saturation the size is given exactly.
    expect("tree:k=256,n=16", &["size = 21267647932558653966460912964485513216 switches"]);
}

#[test]
fn good_specs_tolerate_spacing_and_order() {
    for spec in [" tree:n=3,k=4 ", "tree:k=4, n=3", "torus:8x8, t=2", "xgft:m=4,4;w=1,2", "hyperx:3x3,k=2,t=1"] {
        Topology::from_spec(spec).unwrap();
    }
}

#[test]
fn director_tree_node_and_uplink_limits_say_what_fits() {
    // The limit was explained with the nodes asked for per edge switch ("21 per edge switch plus
    // 18 uplinks fit 36 ports"), and too many uplinks blamed the nodes ("at most 0").
    expect(
        "director-tree:nodes=1000,edges=48,directors=6",
        &[
            "nodes = 1000",
            "at most 864 (18 per edge switch: 36 ports less 18 uplinks; 1000 nodes on 48 edge switches need 21 each)",
        ],
    );
    // Far above the ports' limit, the same limit (not the parser's 1 048 576).
    expect("director-tree:nodes=2000000,edges=48,directors=6", &["nodes = 2000000", "at most 864 (18 per edge switch"]);
    expect("director-tree:nodes=1,edges=48,directors=6", &["nodes = 1", "between 2 and"]);
    expect("director-tree:nodes=10,edges=2,directors=1,uplinks=40", &["uplinks = 40", "at most 35"]);
    expect("director-tree:nodes=10,edges=2,directors=1,uplinks=36", &["uplinks = 36", "at most 35"]);
    assert!(Topology::from_spec("director-tree:nodes=864,edges=48,directors=6").is_ok());
}

/// Faults that the built network does not have are reported against the spec as written,
/// suffixes included: `torus:4x4: faults.random = 99` named a network the user never wrote
/// and hid which fault set was meant.
#[test]
fn fault_errors_name_the_whole_spec() {
    for (spec, value) in [
        ("torus:4x4|faults:random=99", "faults.random = 99"),
        ("torus:4x4|faults:links=99.0", "faults.links = 99.0"),
        ("torus:4x4|faults:switches=99", "faults.switches = 99"),
        ("torus:4x4|planes:2|faults:random=99", "faults.random = 99"),
    ] {
        expect(spec, &[&format!("{spec}: {value} is invalid")]);
    }
}

/// A `faults:` suffix that names nothing is a spec cut short, not a network without faults.
#[test]
fn an_empty_fault_suffix_is_refused() {
    for spec in ["torus:4x4|faults:", "torus:4x4|faults: ", "torus:4x4|faults:,", "tree:k=4,n=2|planes:2|faults:"] {
        expect(spec, &["suffix = 'faults:", "'faults:' followed by links=, switches=, random=, fraction=, seed="]);
    }
    assert!(Topology::from_spec("torus:4x4|faults:random=0").is_ok(), "no fault, written out, is a choice");
}

/// Describing a network whose faults cut terminals off names the two switches, and a failed
/// switch that carries terminals as the cause.
#[test]
fn a_failed_switch_with_terminals_is_named_when_describe_refuses() {
    let e = Topology::from_spec("torus:4x4|faults:switches=3").unwrap().describe().unwrap_err().to_string();
    assert_eq!(
        e,
        "torus:4x4|faults:switches=3: terminals on switches 0 and 3 are disconnected (switch 3 has terminals \
         but no working link)"
    );
    // Links cut around a switch that keeps one: no failed switch to name.
    let e = Topology::from_spec("mesh:4|faults:links=1.0").unwrap().describe().unwrap_err().to_string();
    assert!(e.ends_with("terminals on switches 0 and 2 are disconnected"), "{e}");
}

/// Every source switch fails to reach a failed switch that has terminals (and it, the others); the error names the first in switch
/// order, whichever thread finishes first (it named either pair, run to run).
#[test]
fn a_disconnected_network_is_reported_the_same_way_every_time() {
    let topo = Topology::from_spec("torus:128x128|faults:switches=8192").unwrap();
    let first = topo.describe().unwrap_err().to_string();
    assert!(first.contains("terminals on switches 0 and 8192 are disconnected"), "{first}");
    for _ in 0..20 {
        assert_eq!(topo.describe().unwrap_err().to_string(), first);
    }
}

/// A fault key written twice was read as its last value (`random=1,random=5` failed 5 links)
/// or added up, silently; it is refused, naming the key and the second value.
#[test]
fn a_fault_key_written_twice_is_refused() {
    for (spec, part) in [
        ("torus:4x4|faults:random=1,random=5", "faults.random = '5' is invalid: each key at most once"),
        ("torus:4x4|faults:random=1,seed=2,seed=3", "faults.seed = '3' is invalid: each key at most once"),
        ("torus:4x4|faults:fraction=0.1,fraction=0.2", "faults.fraction = '0.2' is invalid"),
        ("torus:4x4|faults:links=0.0,links=5.2", "faults.links = '5.2' is invalid: each key at most once (join"),
        ("torus:4x4|faults:switches=1,switches=2", "faults.switches = '2' is invalid"),
    ] {
        expect(spec, &[part]);
    }
    assert_eq!(Topology::from_spec("torus:4x4|faults:links=0.0+5.2").unwrap().switch_links(), 30);
}

/// A link named twice, from one end or from both, was refused as "not a switch.port at one
/// end of a switch-to-switch link", which it is; the message names the repetition.
#[test]
fn a_failed_link_named_twice_is_named_as_such() {
    // torus:4x4: port 0 of switch 0 (+ of dimension 0) leads to port 1 of switch 1.
    expect(
        "torus:4x4|faults:links=0.0+1.1",
        &["faults.links = 1.1 is invalid: each link once (0.0 names the same link)"],
    );
    expect(
        "torus:4x4|faults:links=0.0+0.0",
        &["faults.links = 0.0 is invalid: each link once (0.0 names the same link)"],
    );
    // A ring of two: switches 0 and 1 joined by two links, 0.0-1.1 and 0.1-1.0.
    assert_eq!(Topology::from_spec("torus:2x4|faults:links=0.0+0.1").unwrap().switch_links(), 14);
}

/// A twin torus takes no parameters: `twin-torus:4x4x4,t=2` was refused as "dimension 2 =
/// '4,t=2'", which named neither the parameter nor that none is allowed.
#[test]
fn a_parameter_of_a_twin_torus_is_named() {
    for (spec, item) in [("twin-torus:4x4x4,t=2", "'t=2'"), ("twin-torus:4x4x4, k=2,t=1", "'k=2'")] {
        expect(spec, &[&format!("parameter = {item} is invalid: none: a twin torus takes sizes only")]);
    }
    assert_eq!(Topology::from_spec("twin-torus:4x4x4").unwrap().num_terminals(), 128);
}

/// A seed beside explicit faults alone draws nothing: it was read and left unused.
#[test]
fn a_fault_seed_without_random_faults_is_refused() {
    expect("torus:4x4|faults:links=0.0,seed=5", &["faults.seed = '5'", "beside random= or fraction="]);
    assert!(Topology::from_spec("torus:4x4|faults:random=2,seed=5").is_ok());
    assert!(Topology::from_spec("torus:4x4|faults:fraction=0.1,seed=5").is_ok());
}
