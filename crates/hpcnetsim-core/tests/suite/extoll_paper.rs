//! Paper 003 (twin tori): the card layout of Definition 2.2 and the networks of Table I.

use crate::common::topo;
use hpcnetsim_core::topology::{Family, Peer};
use hpcnetsim_core::Topology;

/// Table I: 3D and 5DT tori built from the same cards for 256 to 2048 PEs.
const TABLE_I: &[(usize, &str, &str)] = &[
    (256, "8x8x4", "4x4x2x2x2"),
    (512, "8x8x8", "4x4x2x4x2"),
    (1024, "16x8x8", "4x4x2x4x4"),
    (2048, "16x16x8", "4x4x4x4x4"),
];

#[test]
fn table_i_networks_have_equal_pes_and_cards() {
    for &(pes, d3, d5) in TABLE_I {
        let t3 = topo(&format!("torus:{d3}"));
        let t5 = topo(&format!("twin-torus:{d5}"));
        assert_eq!(t3.num_terminals(), pes, "3D {d3}");
        assert_eq!(t5.num_terminals(), pes, "5DT {d5}");
        // One card per PE in both: the same hardware.
        assert_eq!(t3.num_switches(), pes);
        assert_eq!(t5.num_switches(), pes);
        // Six network ports plus the NIC on every card.
        assert_eq!(t3.radix(), 7);
        assert_eq!(t5.radix(), 7);
        let (p3, p5) = (t3.describe().unwrap(), t5.describe().unwrap());
        // The point of the twin torus: shorter paths from the same cards.
        assert!(p5.avg_distance < p3.avg_distance, "{d5}: {} vs {d3}: {}", p5.avg_distance, p3.avg_distance);
        assert!(p5.diameter <= p3.diameter);
    }
}

/// Definition 2.2 for n = 5: card 0 holds d0±, d1± and d2−, card 1 holds d2+, d3±, d4±;
/// the cards of a node share the internal link, and every card has one PE.
#[test]
fn definition_2_2_card_layout() {
    let t = topo("twin-torus:4x4x4x4x4");
    let Family::TwinTorus(f) = t.family() else { unreachable!() };
    for s in 0..t.num_switches() {
        let c = f.coordinates(s);
        let (node, card) = (&c[..5], c[5]);
        let mut dims_seen = Vec::new();
        for (p, peer) in t.ports(s).iter().enumerate() {
            match *peer {
                Peer::Switch { switch, .. } => {
                    let o = f.coordinates(switch as usize);
                    let differs: Vec<usize> = (0..5).filter(|&i| o[i] != node[i]).collect();
                    if differs.is_empty() {
                        assert_eq!(p, f.internal_port());
                        assert_ne!(o[5], card, "internal link joins the two cards");
                        continue;
                    }
                    assert_eq!(differs.len(), 1);
                    let i = differs[0];
                    let plus = o[i] == (node[i] + 1) % 4;
                    dims_seen.push((i, plus));
                    // The neighbour receives the link on the card that owns the opposite port.
                    assert_eq!(o[5], f.port(i, !plus).0);
                }
                Peer::Terminal(pe) => assert_eq!(pe as usize, s),
                Peer::Unplugged => panic!("no unplugged port on a twin-torus card"),
            }
        }
        dims_seen.sort();
        let want: Vec<(usize, bool)> = if card == 0 {
            vec![(0, false), (0, true), (1, false), (1, true), (2, false)]
        } else {
            vec![(2, true), (3, false), (3, true), (4, false), (4, true)]
        };
        assert_eq!(dims_seen, want, "card {card}");
    }
}

/// Even n is refused with a message naming the dimension count.
#[test]
fn even_dimension_count_is_refused() {
    let e = Topology::from_spec("twin-torus:4x4x4x4").unwrap_err().to_string();
    assert!(e.contains("number of dimensions = 4") && e.contains("odd"), "{e}");
    assert!(Topology::from_spec("twin-torus:4x4").is_err());
}
