//! What every component reaches of the network besides its own state: the fixed settings
//! (topology, routing, switch model, knobs), the packet records and the input queues'
//! occupancy, and the engine's services (scheduling events and wake-ups, scratch buffers,
//! counters). Switches (`fabric::Fabric`) and NICs (`nic::NicSide`) are written against it,
//! so that a view holding only the NICs' or only a partition's state can run them beside the
//! others' views on other threads. It lives with the switches because what it names beyond
//! the engine's services (knobs, model, queue states) is theirs.

use crate::config::{Arbitration, OutputAllocation, Selection, TieBreak};
use crate::event::{Event, Packet};
use crate::observe::Counters;
use crate::routing::{Candidate, Offer, Routing};
use crate::switch::queue_state::QueueState;
use crate::switch::switch_lists::Waiter;
use crate::switch::Model;
use crate::topology::Topology;

/// The network as a component sees it beyond its own state.
pub(crate) trait Reach {
    fn topo(&self) -> &Topology;
    fn routing(&self) -> &dyn Routing;
    fn model(&self) -> &Model;
    fn knobs(&self) -> Knobs;
    /// Every packet record (read-only while partitions run).
    fn packets(&self) -> &[Packet];
    /// Every input queue's state (shared by all partitions; see `queue_state.rs`).
    fn queue_states(&self) -> &[QueueState];
    #[inline]
    fn packet(&self, p: u32) -> &Packet {
        &self.packets()[p as usize]
    }
    #[inline]
    fn queue_state(&self, q: usize) -> &QueueState {
        &self.queue_states()[q]
    }
    fn tmp(&mut self) -> &mut Scratch;
    fn counters(&mut self) -> &mut Counters;
    fn push_event(&mut self, cycle: u64, ev: Event);
    /// Schedules an arbitration (or injection attempt) of `target` at `cycle`, once.
    fn wake(&mut self, target: usize, cycle: u64);
    #[inline]
    fn prefetch_queue_state(&self, q: usize) {
        crate::perf::prefetch::prefetch(self.queue_states(), q);
    }
    #[inline]
    fn prefetch_packet(&self, p: u32) {
        crate::perf::prefetch::prefetch(self.packets(), p as usize);
    }
}

/// `Reach`'s accessors of the settings and the shared state, for a view that borrows them as
/// fields named `topo`, `routing`, `model`, `k`, `packets` and `queue_state` (a partition,
/// `engine/parallel.rs`, and the NICs, `engine/nic_view.rs`).
macro_rules! borrowed_reach {
    () => {
        #[inline]
        fn topo(&self) -> &$crate::topology::Topology {
            self.topo
        }
        #[inline]
        fn routing(&self) -> &dyn $crate::routing::Routing {
            self.routing
        }
        #[inline]
        fn model(&self) -> &$crate::switch::Model {
            self.model
        }
        #[inline]
        fn knobs(&self) -> $crate::switch::reach::Knobs {
            self.k
        }
        #[inline]
        fn packets(&self) -> &[$crate::event::Packet] {
            self.packets
        }
        #[inline]
        fn queue_states(&self) -> &[$crate::switch::queue_state::QueueState] {
            self.queue_state
        }
    };
}
pub(crate) use borrowed_reach;

/// The engine's fixed settings that switch code reads, copied once per parallel phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Knobs {
    pub(crate) vcs: usize,
    pub(crate) voq_ports: usize,
    pub(crate) queue_phits: u32,
    pub(crate) max_packet_phits: u32,
    pub(crate) hop_delay: u64,
    /// NIC to first switch (`Model::inject_delay`).
    pub(crate) inject_delay: u64,
    /// Last switch to NIC (`Model::eject_delay`).
    pub(crate) eject_delay: u64,
    /// Fewest cycles a crossbar input spends on one packet (`Model::input_packet_cycles`).
    pub(crate) input_packet_cycles: u64,
    pub(crate) credit_delay: u64,
    pub(crate) arbitration: Arbitration,
    pub(crate) output_allocation: OutputAllocation,
    pub(crate) selection: Selection,
    pub(crate) tie_break: TieBreak,
    pub(crate) prefetching: bool,
    pub(crate) recording: bool,
    /// Whether a `[stats]` collector is told about every hop (`Fabric::observe_hop`).
    pub(crate) observing: bool,
    /// Whether credits returned in the current cycle are kept (`Switches::returned`).
    pub(crate) start_view: bool,
}

impl Knobs {
    /// The channel whose input buffer holds input queue `q` (a queue per VC, and per output
    /// port with virtual output queues).
    #[inline]
    pub(crate) fn queue_channel(&self, q: usize) -> usize {
        q / self.voq_ports / self.vcs
    }
}

/// Packets waiting at one switch with the same candidates and size: their options are
/// evaluated once per arbitration.
#[derive(Clone, Debug, Default)]
pub(crate) struct Group {
    pub(crate) class: u32,
    pub(crate) size: u32,
    pub(crate) choice: crate::routing::Choice,
}

/// Working buffers of routing and arbitration, reused from one decision to the next.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The legal candidates of one decision as the selection sees them.
    pub(crate) offers: Vec<Offer>,
    /// Requests of one arbitration: (output key, input queue, candidate, group).
    pub(crate) requests: Vec<(u32, u32, Candidate, u32)>,
    pub(crate) groups: Vec<Group>,
    pub(crate) granted_outputs: Vec<u32>,
    /// Input queues granted in one arbitration.
    pub(crate) winners: Vec<u32>,
    /// Every waiting packet of one arbitration and its group: (input queue, group).
    pub(crate) choices: Vec<(u32, u32)>,
    /// The routing's candidates for one packet.
    pub(crate) candidates: Vec<Candidate>,
    /// The packets that joined a switch's waiting list in the current cycle (`settle`).
    pub(crate) fresh: Vec<Waiter>,
    pub(crate) islip: crate::switch::islip::Scratch,
    /// iSLIP requests of one matching (input port, output port) and their queue and candidate.
    pub(crate) islip_requests: Vec<(u32, u32)>,
    pub(crate) islip_payload: Vec<(u32, Candidate)>,
    pub(crate) islip_matched: Vec<usize>,
    /// iSLIP: the chosen candidate of every (candidate list, size) seen in one matching.
    pub(crate) islip_seen: Vec<(u32, u32, Option<Candidate>)>,
    /// iSLIP: which (input, output) pairs of the switch being matched already request.
    pub(crate) islip_pairs: Vec<bool>,
}
