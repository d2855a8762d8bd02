//! The switches' state (links, output VCs, input queues, waiting packets) seen through one
//! trait, so that a switch technology (`technology.rs`) is written once and runs either on
//! the whole network (the sequential engine) or on one partition of its switches (the
//! parallel engine's). Indices are global in both: a partition holds a range of switches,
//! channels and queues.

use super::channel_state::{Link, OutVc, Returned};
use super::queue_state::QueueState;
use super::switch_lists::{SwitchLists, Waiter};
use crate::config::Selection;
use crate::event::{Event, Packet, NONE};
use crate::rng::Stream;
use crate::routing::Candidate;
use crate::switch::buffers::{QueueIter, Queues};
use crate::switch::reach::{Reach, Scratch};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Distinct candidate lists and their ids (port numbers are local to a switch, so one list
/// serves every switch). With several partitions each has its own: list `i` of partition
/// `p` has id `i · 256 + p` (shifts, not divisions: routing reads lists all the time), and
/// ids are only ever compared within one switch.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    /// Each list, and the lowest and highest port it names (`u16::MAX, 0` if empty).
    lists: Vec<(Vec<Candidate>, (u16, u16))>,
    ids: FxHashMap<Vec<Candidate>, u32>,
}

impl Interner {
    /// The id of `list` in partition `part`, adding it if new.
    pub(crate) fn intern(&mut self, list: &[Candidate], part: u32) -> u32 {
        if let Some(&id) = self.ids.get(list) {
            return id;
        }
        let id = (self.lists.len() as u32) << 8 | part;
        let span = list.iter().fold((u16::MAX, 0), |(lo, hi), c| (lo.min(c.port), hi.max(c.port)));
        self.lists.push((list.to_vec(), span));
        self.ids.insert(list.to_vec(), id);
        id
    }

    /// The list with id `id`.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> &[Candidate] {
        &self.lists[(id >> 8) as usize].0
    }

    /// The lowest and highest port list `id` names (`u16::MAX, 0` if it is empty).
    #[inline]
    pub(crate) fn span(&self, id: u32) -> (u16, u16) {
        self.lists[(id >> 8) as usize].1
    }

    /// The partition whose table holds id `id`.
    #[inline]
    pub(crate) fn part_of(id: u32) -> usize {
        (id & 0xff) as usize
    }
}

/// A packet sent to a terminal other than its destination. Named by what a run's order of
/// events cannot change (a packet's id can: ids are handed out as NICs inject), and ordered
/// by cycle then terminal, which are unique together (a terminal's link carries one packet at
/// a time), so that every thread count and order of a cycle's events reports the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Misdelivery {
    pub cycle: u64,
    pub terminal: u32,
    pub src: u32,
    pub dst: u32,
}

impl Misdelivery {
    /// `packet` sent to terminal `terminal` in cycle `cycle`.
    pub fn of(packet: &Packet, terminal: u32, cycle: u64) -> Misdelivery {
        Misdelivery { cycle, terminal, src: packet.src, dst: packet.dst }
    }

    /// The earlier (by cycle, then terminal) of `seen` and `m`.
    pub fn first(seen: Option<Misdelivery>, m: Misdelivery) -> Option<Misdelivery> {
        Some(seen.map_or(m, |f| f.min(m)))
    }
}

/// What switch code needs beyond what every component reaches (`Reach`): the switches' own
/// state by global index.
pub(crate) trait Fabric: Reach {
    fn link(&self, c: usize) -> &Link;
    fn link_mut(&mut self, c: usize) -> &mut Link;
    fn out_vc(&self, i: usize) -> &OutVc;
    fn out_vc_mut(&mut self, i: usize) -> &mut OutVc;
    /// Output VC `i`'s credits returned in its last cycle with any (`Knobs::start_view` only).
    fn returned_mut(&mut self, i: usize) -> &mut Returned;
    fn returned(&self, i: usize) -> Returned;
    /// Storage of the input queues this side holds (owned, or borrowed by a partition).
    type Slots: AsRef<[u32]> + AsMut<[u32]>;
    type Grown: AsRef<[VecDeque<u32>]> + AsMut<[VecDeque<u32>]>;
    fn fifo(&self) -> &Queues<Self::Slots, Self::Grown>;
    fn fifo_mut(&mut self) -> &mut Queues<Self::Slots, Self::Grown>;
    #[inline]
    fn fifo_len(&self, q: usize) -> usize {
        self.fifo().len(q)
    }
    #[inline]
    fn fifo_front(&self, q: usize) -> Option<u32> {
        self.fifo().front(q)
    }
    #[inline]
    fn fifo_push(&mut self, q: usize, p: u32) {
        self.fifo_mut().push(q, p)
    }
    #[inline]
    fn fifo_pop(&mut self, q: usize) -> Option<u32> {
        self.fifo_mut().pop(q)
    }
    /// The packets of queue `q`, if this side holds it (for the debug checks).
    fn fifo_iter(&self, q: usize) -> Option<QueueIter<'_>> {
        self.fifo().holds(q).then(|| self.fifo().iter(q))
    }
    fn lists(&self, s: usize) -> &SwitchLists;
    fn lists_mut(&mut self, s: usize) -> &mut SwitchLists;
    /// Switch `s`'s waiting packets.
    #[inline]
    fn waiting(&self, s: usize) -> &[Waiter] {
        self.lists(s).waiting()
    }
    /// Switch `s`'s pending links.
    #[inline]
    fn pending(&self, s: usize) -> &[u32] {
        self.lists(s).pending()
    }
    /// Whether switch `s` has a waiting packet or a pending link, from a flag kept beside
    /// the lists: one byte per switch stays in the caches where the lists' record does
    /// not, and most wake-ups (returning credits, a freed link) find the switch idle.
    fn busy(&self, s: usize) -> bool;
    fn set_busy(&mut self, s: usize, busy: bool);
    /// Sets switch `s`'s flag from its lists, after they changed.
    #[inline]
    fn lists_changed(&mut self, s: usize) {
        let busy = !self.lists(s).is_idle();
        self.set_busy(s, busy);
    }
    fn switch_rng(&mut self, s: usize) -> &mut Stream;
    /// The switch technology's own state (`Technology::state`), if it keeps any.
    fn tech_state(&self) -> Option<&(dyn std::any::Any + Send)>;
    fn tech_state_mut(&mut self) -> Option<&mut (dyn std::any::Any + Send)>;
    fn input_free(&self, c: usize) -> u64;
    fn set_input_free(&mut self, c: usize, cycle: u64);
    /// iSLIP grant and accept pointers of channels `base..base + ports`, and the matching's buffers.
    fn islip_state(&mut self, base: usize, ports: usize) -> (&mut [u32], &mut [u32], &mut Scratch);
    /// The candidate list with id `id`.
    fn class(&self, id: u32) -> &[Candidate];
    /// The lowest and highest port of candidate list `id` (`u16::MAX, 0` if it is empty).
    fn class_span(&self, id: u32) -> (u16, u16);
    /// The id of candidate list `list`.
    fn intern(&mut self, list: &[Candidate]) -> u32;
    /// Packet `p` was sent to terminal `t`, which is not its destination, in cycle `now`.
    fn misdelivered(&mut self, p: u32, t: u32, now: u64);
    /// Packet `p`'s head entered an input queue at `now`.
    fn set_arrived(&mut self, p: u32, now: u64);
    /// A packet (or flit) of `phits` starts crossing channel `out` on `vc` at `now`, and a
    /// collector wants to know (`Knobs::observing`).
    fn observe_hop(&mut self, out: usize, vc: usize, phits: u32, now: u64);
    /// Asks the cache for input queue `q`'s FIFO block and state.
    fn prefetch_queue(&self, q: usize);
    /// Asks the cache for the link records of channels `c..c + n`.
    fn prefetch_links(&self, c: usize, n: usize);
    /// Asks the cache for the output VC records `i..i + n`.
    fn prefetch_out_vcs(&self, i: usize, n: usize);
    /// Asks the cache for switch `s`'s waiting and pending lists (for an `arbitration`,
    /// only if the switch is busy).
    fn prefetch_switch_records(&self, s: usize, arbitration: bool);
    /// Asks the cache for switch `s`'s random stream.
    fn prefetch_switch_rng(&self, s: usize);

    /// The channel whose switch handles event `ev`, if it is a switch event.
    #[inline]
    fn event_channel(&self, ev: &Event) -> Option<usize> {
        let k = self.knobs();
        match *ev {
            Event::Arrive { queue, .. } => Some(queue as usize / k.vcs),
            Event::Tail { queue } => Some(k.queue_channel(queue as usize)),
            Event::Credit { queue, .. } => Some(queue as usize / k.vcs),
            _ => None,
        }
    }

    /// The switch owning channel `c`: computed where the topology allows, which spares
    /// arrivals and credits a read of the link record.
    #[inline]
    fn switch_of(&self, c: usize) -> usize {
        self.topo().switch_of(c).unwrap_or_else(|| self.link(c).switch as usize)
    }

    /// First prefetch stage of event `ev`: the state it touches whose address it names.
    #[inline]
    fn prefetch_event(&self, ev: &Event) {
        match *ev {
            Event::Arrive { queue, packet } => {
                self.prefetch_packet(packet);
                self.prefetch_queue(queue as usize * self.knobs().voq_ports);
            }
            Event::Tail { queue } => self.prefetch_queue(queue as usize),
            Event::Credit { queue, .. } => self.prefetch_out_vcs(queue as usize, 1),
            Event::Deliver { packet } => self.prefetch_packet(packet),
            _ => {}
        }
        if let Some(c) = self.event_channel(ev) {
            // Read only to find the event's switch, which `switch_of` may compute. (The
            // upstream end of a queue's channel is read when its packet is granted, for the
            // credit: the arbitration's stages fetch it.)
            if self.topo().switch_of(c).is_none() {
                self.prefetch_links(c, 1);
            }
        }
    }

    /// Second prefetch stage of event `ev`: its switch's records, found through the link
    /// record the first stage fetched.
    #[inline]
    fn prefetch_event_switch(&self, ev: &Event) {
        if let Some(c) = self.event_channel(ev) {
            let s = self.switch_of(c);
            self.prefetch_switch_records(s, false);
            if let Event::Arrive { .. } | Event::Tail { .. } = *ev {
                // It may route a new front packet.
                self.routing().prefetch(s);
            }
            if let Event::Tail { queue } = *ev {
                // The output VC the leaving packet held is freed, and with several VCs its
                // link's round-robin pointer moves on.
                let oq = self.queue_state(queue as usize).holding();
                if oq != NONE {
                    self.prefetch_out_vcs(oq as usize, 1);
                    let vcs = self.knobs().vcs;
                    if vcs > 1 {
                        self.prefetch_links(oq as usize / vcs, 1);
                    }
                }
            }
        }
    }

    /// Second prefetch stage of an arbitration at switch `s` (after its records), if a
    /// packet waits there or a link has reserved VCs: its random stream, the links and
    /// output VCs its waiting packets may take (one range over all their candidates' ports),
    /// their queues' state, which a grant writes, and the link of each queue's own channel,
    /// whose upstream end a grant reads to return the credit; and its pending links.
    #[inline]
    fn prefetch_switch_ports(&self, s: usize) {
        if !self.busy(s) {
            return;
        }
        let k = self.knobs();
        let base = self.topo().channel(s, 0);
        self.prefetch_switch_rng(s);
        // The union of the waiting packets' spans: they mostly share their candidates.
        let (mut lo, mut hi) = (u16::MAX, 0);
        for w in self.waiting(s).iter() {
            self.prefetch_queue_state(w.queue as usize);
            self.prefetch_links(k.queue_channel(w.queue as usize), 1);
            let (l, h) = self.class_span(w.class);
            (lo, hi) = (lo.min(l), hi.max(h));
        }
        if lo <= hi {
            let (first, n) = (base + lo as usize, (hi - lo) as usize + 1);
            self.prefetch_links(first, n);
            self.prefetch_out_vcs(first * k.vcs, n * k.vcs);
        }
        for &out in self.pending(s).iter() {
            self.prefetch_links(out as usize, 1);
            self.prefetch_out_vcs(out as usize * k.vcs, k.vcs);
        }
    }

    /// Third prefetch stage of an arbitration at switch `s`: the downstream input queues
    /// whose occupancy its waiting packets' candidates will be weighed by (read from the
    /// waiting list and links the stages before fetched).
    #[inline]
    fn prefetch_offers(&self, s: usize) {
        if !self.busy(s) {
            return;
        }
        let k = self.knobs();
        // The queues whose reserved packets the switch's free links may start, and the links
        // of their channels (the credit's way back).
        for &out in self.pending(s).iter() {
            for vc in 0..k.vcs {
                let q = self.out_vc(out as usize * k.vcs + vc).reserved;
                if q != NONE {
                    self.prefetch_queue_state(q as usize);
                    self.prefetch_links(k.queue_channel(q as usize), 1);
                }
            }
        }
        if k.voq_ports != 1 || k.selection != Selection::LeastOccupied {
            return;
        }
        let base = self.topo().channel(s, 0);
        let mut last = NONE;
        for w in self.waiting(s).iter() {
            let list = self.class(w.class);
            // Packets of one class (often adjacent) weigh the same queues.
            if list.len() < 2 || w.class == last {
                continue;
            }
            last = w.class;
            for c in list {
                let down = self.link(base + c.port as usize).peer;
                if down != NONE {
                    self.prefetch_queue_state(down as usize * k.vcs + c.vc as usize);
                }
            }
        }
    }
}

/// Every switch's state, in arrays indexed by switch, channel, output VC or input queue (the
/// parallel engine lends each partition its consecutive ranges).
pub(crate) struct Switches {
    /// Per channel: its link (sending side).
    pub(crate) links: Vec<Link>,
    /// Per output VC (channel × vcs + vc): credits, reservation, round-robin pointer.
    pub(crate) out_vcs: Vec<OutVc>,
    /// Per output VC, the credits returned in its last cycle with any (`Returned`), if
    /// `Knobs::start_view`; empty otherwise.
    pub(crate) returned: Vec<Returned>,
    /// Per input queue: fill, last arrival, first departure, held output VC.
    pub(crate) queue_state: Vec<QueueState>,
    /// Input queues: one FIFO per channel and VC (the queue at the receiving end of the
    /// port), or one virtual output queue per channel, VC and output port.
    pub(crate) fifo: Queues,
    /// iSLIP state: per channel, the cycle from which its input port may send again, the
    /// grant pointer of the output and the accept pointer of the input.
    pub(crate) input_free: Vec<u64>,
    pub(crate) grant_ptr: Vec<u32>,
    pub(crate) accept_ptr: Vec<u32>,
    /// Per switch: its waiting packets and pending links (`SwitchLists`).
    pub(crate) lists: Vec<SwitchLists>,
    /// Per switch: 1 if its lists are not both empty (see `Fabric::busy`).
    pub(crate) busy: Vec<u8>,
    /// Per switch: its random stream.
    pub(crate) switch_rng: Vec<Stream>,
    /// Distinct candidate lists seen so far: one table per partition of the switches.
    pub(crate) interners: Vec<Interner>,
    /// The first packet sent to a terminal other than its destination (a routing error the
    /// invariant checks report): the least of the earliest cycle with one.
    pub(crate) misdelivered: Option<Misdelivery>,
    /// Bytes of the per-queue and per-channel state (what decides whether prefetching may pay).
    pub(crate) state_bytes: usize,
    /// The switch technology's own state, if it keeps any (`Technology::state`).
    pub(crate) tech_state: Option<Box<dyn std::any::Any + Send>>,
}
