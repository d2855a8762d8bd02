//! The switch semantics of INSEE, the simulator of papers 000 and 002, one at a time on
//! tiny networks whose timing is worked out by hand in each test.

use crate::common::{sim_config, topo};
use hpcnetsim_core::config::{Algorithm, Config, OutputAllocation, Selection, TieBreak};
use hpcnetsim_core::engine::Engine;
use hpcnetsim_core::routing::{Candidate, Choice, Offer};
use hpcnetsim_core::topology::{Family, Peer};
use rand::SeedableRng;

/// Runs `packets` (cycle, source, destination) of 16 phits and returns the sum and maximum
/// of their network latencies and the maximum end-to-end latency.
fn run(c: &Config, packets: &[(u64, usize, usize)]) -> (u64, u64, u64) {
    let t = topo(&c.topology);
    let mut e = Engine::new(c, &t).unwrap();
    e.set_recording(true);
    for &(at, src, dst) in packets {
        e.run_until(at);
        e.inject(src, dst, 16);
    }
    e.run_until(10_000);
    e.check_idle().unwrap();
    let (net, end) = (e.stats.network_latency.summary(), e.stats.end_to_end_latency.summary());
    assert_eq!(net.count, packets.len() as u64);
    ((net.mean * net.count as f64).round() as u64, net.max as u64, end.max as u64)
}

/// A cycle is the time a phit takes to cross a switch, switching plus transmission: one
/// 16-phit packet crosses a crossbar (two links) in 2 + 16 − 1 = 17 cycles. With one-packet
/// queues a second packet leaves its NIC when the first one's tail has left the switch's
/// queue (cycle 17) and, with no credit delay, arrives at 17 + 17 = 34; a credit delay of
/// one cycle makes it 35.
#[test]
fn one_cycle_hops_and_room_usable_at_once() {
    let mut c = sim_config("crossbar:2", 1, Algorithm::Auto, 0.0);
    c.switch.queue_packets = 1;
    assert_eq!(run(&c, &[(0, 0, 1)]), (17, 17, 17));
    assert_eq!(run(&c, &[(0, 0, 1), (0, 0, 1)]).2, 34);
    c.switch.credit_delay_cycles = 1;
    assert_eq!(run(&c, &[(0, 0, 1), (0, 0, 1)]).2, 35);
}

/// Output VCs are reserved one by one and the link takes them round-robin. NIC 0 sends P1,
/// P2, P3 to NIC 2 back to back (all injected on VC 0, the first VC taken when free); Q1 from
/// NIC 1 arrives at cycle 6, finds VC 0 held by P1 and reserves VC 1. When P1's tail leaves
/// (17) the link turns to VC 1: Q1 goes first although P2 has just reserved VC 0, and is
/// delivered at 33 (28 after its injection at 5); P2 follows (33 → 49, 33 after injection at
/// 16) and P3 after it (49 → 65, 33 after 32). Network latencies: 17 + 28 + 33 + 33, every
/// seed. With `link` allocation Q1 and P2 draw lots at cycle 17 instead: when P2 wins, Q1
/// waits until 49 (44 after its injection), or loses again to P3 and waits until 65.
#[test]
fn output_vcs_share_the_link_round_robin() {
    let packets = [(0, 0, 2), (0, 0, 2), (0, 0, 2), (5, 1, 2)];
    let mut outcomes = std::collections::BTreeSet::new();
    for seed in 1..=8 {
        let mut c = sim_config("crossbar:3", 2, Algorithm::Auto, 0.0);
        (c.seed, c.switch.injection_vcs, c.routing.selection) = (seed, 1, Selection::First);
        let (sum, max, _) = run(&c, &packets);
        assert_eq!((sum, max), (17 + 28 + 33 + 33, 33), "seed {seed}");
        c.switch.output_allocation = OutputAllocation::Link;
        outcomes.insert(run(&c, &packets).1);
    }
    assert!(outcomes.len() > 1 && outcomes.contains(&44), "link allocation draws lots: {outcomes:?}");
}

/// INSEE's adaptive choice looks at every legal candidate, free or not, by the phits in its
/// downstream queue: an empty but busy port is chosen over a free one holding 5 phits, and
/// the packet then requests nothing this cycle; `most-credits` takes the free one.
#[test]
fn least_occupied_may_choose_a_busy_port() {
    let busy = Offer { candidate: Candidate::new(1, 0), room: 64, occupancy: 0, takeable: false };
    let free = Offer { candidate: Candidate::new(2, 0), room: 59, occupancy: 5, takeable: true };
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let mut choice = Choice::default();
    choice.prepare(Selection::LeastOccupied, TieBreak::Uniform, &[busy, free]);
    assert_eq!(choice.pick(&mut rng), None);
    assert_eq!(choice.available(), &[free.candidate]);
    choice.prepare(Selection::MostCredits, TieBreak::Uniform, &[busy, free]);
    assert_eq!(choice.pick(&mut rng), Some(free.candidate));
    // Ties at random among the least occupied; an escape candidate is taken when the
    // adaptive choice cannot be.
    let mut escape = Candidate::new(3, 0);
    escape.escape = true;
    let esc = Offer { candidate: escape, room: 64, occupancy: 0, takeable: true };
    choice.prepare(Selection::LeastOccupied, TieBreak::Uniform, &[busy, free, esc]);
    assert_eq!(choice.pick(&mut rng), Some(escape));
    let twin = Offer { candidate: Candidate::new(4, 0), room: 64, occupancy: 0, takeable: true };
    choice.prepare(Selection::LeastOccupied, TieBreak::Uniform, &[busy, twin]);
    let picks: Vec<_> = (0..64).map(|_| choice.pick(&mut rng)).collect();
    assert!(picks.contains(&None) && picks.contains(&Some(twin.candidate)), "{picks:?}");
    assert!(picks.iter().all(|p| [None, Some(twin.candidate)].contains(p)));
}

/// INSEE's tie-break in the engine: packets that leave a 4-ary 2-tree's first leaf switch one
/// at a time, into an empty network, find its four up-ports equally empty; `first-twice`
/// sends 2/5 of them through the first up-port (INSEE's draw), `uniform` 1/4.
#[test]
fn first_twice_tie_break_favours_the_first_up_port() {
    let mut c = sim_config("tree:k=4,kp=4,n=2", 1, Algorithm::TreeAdaptive, 0.0);
    let t = topo(&c.topology);
    // The leaf switch of terminal 0 and its up-ports, in port order.
    let ports = t.ports(0);
    let up: Vec<usize> = (0..ports.len()).filter(|&p| matches!(ports[p], Peer::Switch { .. })).collect();
    assert_eq!(up.len(), 4);
    let packets = 2000;
    for (tie, expected) in [(TieBreak::FirstTwice, 0.4), (TieBreak::Uniform, 0.25)] {
        c.routing.tie_break = tie;
        let mut e = Engine::new(&c, &t).unwrap();
        e.set_recording(true);
        for i in 0..packets {
            e.run_until(i * 100);
            e.inject(0, 4 + (i as usize % 12), 16);
        }
        e.run_until(packets * 100 + 1000);
        let phits: Vec<u64> = up.iter().map(|&p| e.busy_phits(t.channel(0, p))).collect();
        assert_eq!(phits.iter().sum::<u64>(), packets * 16, "{phits:?}");
        let first = phits[0] as f64 / (packets * 16) as f64;
        // Five standard deviations of the share over 2000 packets: 0.055.
        assert!((first - expected).abs() < 0.055, "{tie:?}: {phits:?}");
    }
}

/// INSEE's direct networks inject from a single injection port of the router; its trees
/// have NICs that pick a VC of their link.
#[test]
fn injection_vcs_follow_insee() {
    let c = sim_config("torus:4x4", 4, Algorithm::Dor, 0.0);
    let family = |spec: &str| -> Family { topo(spec).family().clone() };
    assert_eq!(c.switch.nic_vcs(&family("torus:4x4")), 1);
    assert_eq!(c.switch.nic_vcs(&family("hyperx:3x3")), 1);
    assert_eq!(c.switch.nic_vcs(&family("tree:k=4,n=2")), 4);
    assert_eq!(c.switch.nic_vcs(&family("crossbar:4")), 4);
    let mut d = c.clone();
    d.switch.injection_vcs = 2;
    assert_eq!(d.switch.nic_vcs(&family("torus:4x4")), 2);
}
