//! DFSSSP's virtual layers on the networks where they are hardest: tori with long rings
//! (10x10 and larger) and paper 001's 12x8 HyperX, intact and faulty. The lanes must stay
//! within InfiniBand's 8, and every lane's channel dependency graph must be acyclic, which
//! the test checks with its own topological sort over the paths the tables give.

use crate::common::topo;
use hpcnetsim_core::routing::tables::{self, EngineOptions, Layering, TableEngine, Tables};
use hpcnetsim_core::Topology;
use std::collections::{HashMap, HashSet};

/// A channel: (switch, output port).
type Channel = (u32, u16);

/// Kahn's algorithm on the dependencies of every (source, address) path, lane by lane;
/// returns the number of dependencies checked.
fn assert_lanes_acyclic(t: &Topology, tb: &Tables) -> usize {
    let mut deps: Vec<HashSet<(Channel, Channel)>> = vec![HashSet::new(); tb.vls];
    let n = t.num_terminals();
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            for off in 0..tb.offsets() {
                let p = tb.path(t, a, b, off).unwrap_or_else(|e| panic!("{a}->{b}: {e:?}"));
                let lane = p[0].vc as usize;
                assert!(p.iter().all(|h| h.vc as usize == lane), "{a}->{b} changes lane");
                assert!(lane < tb.vls, "{a}->{b} on lane {lane} of {}", tb.vls);
                for w in p.windows(2) {
                    deps[lane].insert(((w[0].switch, w[0].port), (w[1].switch, w[1].port)));
                }
            }
        }
    }
    let mut total = 0;
    for (lane, d) in deps.iter().enumerate() {
        let mut indeg: HashMap<Channel, usize> = HashMap::new();
        let mut succ: HashMap<Channel, Vec<Channel>> = HashMap::new();
        for &(x, y) in d {
            indeg.entry(x).or_default();
            *indeg.entry(y).or_default() += 1;
            succ.entry(x).or_default().push(y);
        }
        let mut ready: Vec<_> = indeg.iter().filter(|(_, &k)| k == 0).map(|(&c, _)| c).collect();
        let mut removed = 0;
        while let Some(c) = ready.pop() {
            removed += 1;
            for y in succ.get(&c).into_iter().flatten() {
                let k = indeg.get_mut(y).unwrap();
                *k -= 1;
                if *k == 0 {
                    ready.push(*y);
                }
            }
        }
        assert_eq!(removed, indeg.len(), "{}: lane {lane} has a cyclic dependency graph", t.spec());
        total += d.len();
    }
    total
}

#[test]
fn large_tori_and_the_hyperx_fit_in_eight_lanes_without_cycles() {
    for spec in ["torus:10x10", "torus:12x12", "torus:16x16", "hyperx:12x8,t=7", "torus:4x4x4"] {
        let t = topo(spec);
        let tb = tables::compute(TableEngine::Dfsssp, &t, &EngineOptions::default())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!((2..=8).contains(&tb.vls), "{spec}: {} lanes", tb.vls);
        assert!(tb.deadlock_verdict(&t).is_acyclic(), "{spec}");
        assert!(assert_lanes_acyclic(&t, &tb) > 0);
    }
}

#[test]
fn layers_stay_acyclic_with_faults_and_several_addresses() {
    for spec in ["torus:10x10|faults:random=6,seed=3", "hyperx:12x8,t=7|faults:random=15,seed=1", "mesh:6x6"] {
        let t = topo(spec);
        let opts = EngineOptions { lmc: 1, ..EngineOptions::default() };
        let tb = tables::compute(TableEngine::Dfsssp, &t, &opts).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(tb.vls <= 8);
        assert!(tb.deadlock_verdict(&t).is_acyclic(), "{spec}");
        assert_lanes_acyclic(&t, &tb);
    }
}

#[test]
fn too_few_lanes_is_an_error_naming_vls() {
    // Minimal paths round a 10x10 torus cannot share two lanes.
    let two = EngineOptions { max_vls: 2, ..EngineOptions::default() };
    let e = tables::compute(TableEngine::Dfsssp, &topo("torus:10x10"), &two).unwrap_err().to_string();
    assert!(e.contains("vls = 2") && e.contains("needs more than 2 virtual lanes"), "{e}");
}

#[test]
fn opensm_layering_is_deadlock_free_and_may_need_a_lane_more() {
    // OpenSM's procedure on the same SSSP paths (routing.layering = "opensm"): acyclic lanes;
    // on this draw of 15 failed HyperX cables it needs 3 where the placement needs 2, as
    // OpenSM does (paper 001 §4).
    let opensm = EngineOptions { layering: Layering::Opensm, ..EngineOptions::default() };
    for (spec, placement, theirs) in [("torus:4x4,t=2", 3, 3), ("hyperx:12x8,t=7|faults:random=15,seed=2", 2, 3)] {
        let t = topo(spec);
        let ours = tables::compute(TableEngine::Dfsssp, &t, &EngineOptions::default()).unwrap();
        let tb = tables::compute(TableEngine::Dfsssp, &t, &opensm).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!((ours.vls, tb.vls), (placement, theirs), "{spec}");
        assert!(tb.deadlock_verdict(&t).is_acyclic(), "{spec}");
    }
    assert_lanes_acyclic(
        &topo("torus:4x4,t=2"),
        &tables::compute(TableEngine::Dfsssp, &topo("torus:4x4,t=2"), &opensm).unwrap(),
    );
    // More than the lanes allowed is the same error as for the placement.
    let two = EngineOptions { max_vls: 2, ..opensm };
    let e = tables::compute(TableEngine::Dfsssp, &topo("torus:4x4,t=2"), &two).unwrap_err().to_string();
    assert!(e.contains("vls = 2"), "{e}");
}

/// FNV-1a over the number of lanes and the lane of every (source terminal, address) path.
fn lane_hash(tb: &Tables) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: usize| {
        for b in (x as u32).to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(tb.vls);
    for src in 0..tb.terminals() {
        for lid in 0..tb.lids() {
            eat(tb.vl(src, lid));
        }
    }
    h
}

#[test]
fn lane_assignment_is_pinned() {
    // The layerings are greedy: any change in how a cycle is detected or in the order of the
    // decisions may move paths to other lanes. Faster bookkeeping must leave every path's lane
    // as it is; these hashes were taken from the straightforward implementation.
    let placement = EngineOptions::default();
    let opensm = EngineOptions { layering: Layering::Opensm, ..EngineOptions::default() };
    let lmc1 = EngineOptions { lmc: 1, ..EngineOptions::default() };
    let tight = |vls: usize| EngineOptions { max_vls: vls, ..EngineOptions::default() };
    let cases: Vec<(TableEngine, &str, EngineOptions, usize, u64)> = vec![
        (TableEngine::Dfsssp, "torus:10x10|faults:random=6,seed=3", placement.clone(), 5, 0x6cebb211356d59b7),
        (TableEngine::Dfsssp, "torus:10x10|faults:random=6,seed=3", lmc1.clone(), 5, 0x9751de63f7201457),
        (TableEngine::Dfsssp, "torus:16x16", placement.clone(), 7, 0xb25f8d4db9d9d5b1),
        // Regrouping frees the sixth lane; on the 10x10 torus it cannot free the fifth (0 lanes
        // and hash 0: refused).
        (TableEngine::Dfsssp, "torus:12x12", tight(5), 5, 0x11f00e5ad12b14e4),
        (TableEngine::Dfsssp, "torus:10x10", tight(4), 0, 0),
        (TableEngine::Dfsssp, "cascade:groups=3,rows=2,cols=4,p=2,global=4", placement.clone(), 2, 0xce252e1a54a100f7),
        (TableEngine::Dfsssp, "hyperx:12x8,t=7|faults:random=15,seed=1", placement.clone(), 2, 0xeb1de33a85a7acd7),
        (TableEngine::Dfsssp, "jellyfish:n=24,k=4,p=2,seed=3", placement.clone(), 3, 0x0e85010f0b6dd746),
        (TableEngine::Ksp, "jellyfish:n=14,k=4,p=1|faults:random=4,seed=1", lmc1.clone(), 3, 0xe4f9c8d2f11c91b6),
        (TableEngine::Dfsssp, "torus:10x10|faults:random=6,seed=3", opensm.clone(), 0, 0), // refused
        (TableEngine::Dfsssp, "cascade:groups=3,rows=2,cols=4,p=2,global=4", opensm.clone(), 3, 0x89b4af5f3c674826),
        (TableEngine::Dfsssp, "hyperx:12x8,t=7|faults:random=15,seed=2", opensm.clone(), 3, 0xa1f9bccb0ec1dd24),
        (TableEngine::Dfsssp, "jellyfish:n=24,k=4,p=2,seed=3", opensm.clone(), 3, 0xdc303b7c761b1966),
    ];
    let mut wrong = Vec::new();
    for (engine, spec, opts, vls, hash) in &cases {
        let t = topo(spec);
        let got = match tables::compute(*engine, &t, opts) {
            Ok(tb) => (tb.vls, lane_hash(&tb)),
            Err(e) => {
                assert!(e.to_string().contains("virtual lanes"), "{spec}: {e}");
                (0, 0)
            }
        };
        if got != (*vls, *hash) {
            wrong.push(format!(
                "{engine:?} {spec} {:?} vls {}: {} lanes, hash {:#018x}",
                opts.layering, opts.max_vls, got.0, got.1
            ));
        }
    }
    assert!(wrong.is_empty(), "lanes moved:\n{}", wrong.join("\n"));
}
