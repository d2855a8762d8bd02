//! The event queue: a timing wheel for near events and a heap for far ones (injection
//! gaps). Events of one cycle are handled in creation order; wake-ups (arbitration) run
//! after every other event of their cycle, as the phases of a cycle-driven simulator.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Buffers of handled buckets kept for reuse. A bucket only holds a buffer while it has
/// events; the near buckets, which receive most of them, take theirs from these spares, so
/// each cycle's events go into memory that is already allocated and recently touched.
const SPARES: usize = 64;

/// Buckets at most this many cycles ahead take a spare buffer when they receive their first
/// event; further ones (injection gaps) start small.
const NEAR: u64 = 64;

/// Events ordered by (cycle, creation order).
pub(crate) struct EventQueue<E> {
    now: u64,
    wheel: Vec<Vec<E>>,
    mask: u64,
    far: BinaryHeap<Reverse<(u64, u64, usize)>>,
    far_events: Vec<Option<E>>,
    far_free: Vec<usize>,
    far_seq: u64,
    pending: usize,
    spares: Vec<Vec<E>>,
}

impl<E> EventQueue<E> {
    /// How many events ahead of a bucket's end `push` asks for its line: four lines.
    const WRITE_AHEAD: usize = 256 / std::mem::size_of::<E>() + 1;

    /// A queue whose wheel spans at least `horizon` cycles.
    pub(crate) fn new(horizon: u64) -> Self {
        let size = (horizon + 2).next_power_of_two().max(1024);
        EventQueue {
            now: 0,
            wheel: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            far: BinaryHeap::new(),
            far_events: Vec::new(),
            far_free: Vec::new(),
            far_seq: 0,
            pending: 0,
            spares: Vec::new(),
        }
    }

    /// Whether no event is scheduled.
    pub(crate) fn is_empty(&self) -> bool {
        self.pending == 0
    }

    /// The cycle being processed.
    pub(crate) fn now(&self) -> u64 {
        self.now
    }

    /// Schedules `event` at `cycle` (>= now).
    pub(crate) fn push(&mut self, cycle: u64, event: E) {
        debug_assert!(cycle >= self.now, "event scheduled in the past");
        self.pending += 1;
        if cycle - self.now <= self.mask {
            let bucket = &mut self.wheel[(cycle & self.mask) as usize];
            if bucket.len() == bucket.capacity() && cycle - self.now < NEAR {
                // A near bucket about to grow takes a spare instead. Most have none yet; some
                // took their first events while far (injections), in a small buffer, which
                // would otherwise double its way up to a cycle's events, copying them each time.
                if let Some(mut spare) = self.spares.pop() {
                    if spare.capacity() > bucket.len() {
                        spare.append(bucket);
                        *bucket = spare;
                    } else {
                        self.spares.push(spare);
                    }
                }
            }
            bucket.push(event);
            // A cycle's events are written into a buffer last used tens of cycles before, no
            // longer in the cache on a large network: ask for the lines a few pushes ahead, so
            // the writes do not wait for them (one instruction, harmless past the buffer).
            crate::perf::prefetch::prefetch(bucket, bucket.len() + Self::WRITE_AHEAD);
        } else {
            let slot = match self.far_free.pop() {
                Some(i) => {
                    self.far_events[i] = Some(event);
                    i
                }
                None => {
                    self.far_events.push(Some(event));
                    self.far_events.len() - 1
                }
            };
            self.far_seq += 1;
            self.far.push(Reverse((cycle, self.far_seq, slot)));
        }
    }

    /// Moves to the next cycle that has events, not beyond `limit`; returns that cycle's
    /// events (far ones first: they were created earlier) or `None` if there are none
    /// before `limit`.
    pub(crate) fn next_cycle(&mut self, limit: u64, out: &mut Vec<E>) -> Option<u64> {
        out.clear();
        while self.now < limit {
            let bucket = (self.now & self.mask) as usize;
            while let Some(&Reverse((cycle, _, slot))) = self.far.peek() {
                if cycle != self.now {
                    break;
                }
                self.far.pop();
                out.push(self.far_events[slot].take().expect("far event present"));
                self.far_free.push(slot);
            }
            if out.is_empty() {
                // Take the bucket's buffer instead of copying its events.
                std::mem::swap(out, &mut self.wheel[bucket]);
            } else {
                out.append(&mut self.wheel[bucket]);
            }
            // The emptied buffer becomes a spare: left in its bucket, each of the wheel's
            // buckets would keep the capacity of the busiest cycle it ever saw, which on a
            // large saturated network is gigabytes of empty buffers.
            let emptied = std::mem::take(&mut self.wheel[bucket]);
            if emptied.capacity() > 0 && self.spares.len() < SPARES {
                self.spares.push(emptied);
            }
            if !out.is_empty() {
                self.pending -= out.len();
                return Some(self.now);
            }
            if self.pending == self.far.len() {
                // Only far events remain: jump straight to the next one.
                let next = self.far.peek().map_or(limit, |Reverse((c, _, _))| *c);
                self.now = next.min(limit);
            } else {
                self.now += 1;
            }
        }
        None
    }

    /// Events pushed for the current cycle while it is being handled.
    pub(crate) fn take_current(&mut self, out: &mut Vec<E>) {
        let bucket = (self.now & self.mask) as usize;
        self.pending -= self.wheel[bucket].len();
        out.append(&mut self.wheel[bucket]);
        if self.wheel[bucket].capacity() > 0 && self.spares.len() < SPARES {
            self.spares.push(std::mem::take(&mut self.wheel[bucket]));
        }
    }

    /// Ends the current cycle.
    pub(crate) fn advance(&mut self) {
        self.now += 1;
    }

    /// An empty queue with as many buckets, at the same cycle (one of the parallel engine's
    /// queues per partition, which advance together).
    pub(crate) fn sibling(&self) -> Self {
        let mut q = EventQueue::new(self.mask - 1);
        q.now = self.now;
        q
    }

    /// The first cycle from now and before `limit` that has an event, without moving.
    pub(crate) fn first_pending(&self, limit: u64) -> Option<u64> {
        let mut first = self.far.peek().map(|Reverse((c, _, _))| *c);
        if self.pending > self.far.len() {
            let mut c = self.now;
            while c < limit && first.is_none_or(|f| c < f) {
                if !self.wheel[(c & self.mask) as usize].is_empty() {
                    first = Some(c);
                    break;
                }
                c += 1;
            }
        }
        first.filter(|&c| c < limit)
    }

    /// Moves to `cycle`, before which no event is scheduled.
    #[inline]
    pub(crate) fn move_to(&mut self, cycle: u64) {
        debug_assert!(cycle >= self.now, "moving back in time");
        debug_assert!(self.first_pending(cycle).is_none(), "skipping events");
        self.now = cycle;
    }

    /// Whether events are scheduled at `cycle` (the current one).
    #[inline]
    pub(crate) fn has_at(&self, cycle: u64) -> bool {
        !self.wheel[(cycle & self.mask) as usize].is_empty()
            || self.far.peek().is_some_and(|Reverse((c, _, _))| *c == cycle)
    }

    /// Moves to `cycle`, before which no event is scheduled, and appends its events to
    /// `out` (far ones first).
    pub(crate) fn take_at(&mut self, cycle: u64, out: &mut Vec<E>) {
        self.move_to(cycle);
        while let Some(&Reverse((c, _, slot))) = self.far.peek() {
            if c != cycle {
                break;
            }
            self.far.pop();
            out.push(self.far_events[slot].take().expect("far event present"));
            self.far_free.push(slot);
            self.pending -= 1;
        }
        self.take_current(out);
    }

    /// Moves every event to `other` (at the same cycle), in any order within a cycle.
    pub(crate) fn drain_into(&mut self, other: &mut EventQueue<E>) {
        debug_assert_eq!(self.now, other.now, "queues at different cycles");
        for b in 0..self.wheel.len() as u64 {
            let cycle = self.now + (b.wrapping_sub(self.now) & self.mask);
            for ev in self.wheel[b as usize].drain(..) {
                other.push(cycle, ev);
            }
        }
        while let Some(Reverse((cycle, _, slot))) = self.far.pop() {
            other.push(cycle, self.far_events[slot].take().expect("far event present"));
        }
        self.far_events.clear();
        self.far_free.clear();
        self.pending = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Events of one cycle come out in creation order, whether the far heap, a small buffer
    /// taken while the cycle was far, or a spare taken as it grew near held them.
    #[test]
    fn a_cycle_hands_out_its_events_in_creation_order() {
        let mut q = EventQueue::<u32>::new(16);
        let mut out = Vec::new();
        // Spares: a few handled cycles with many events each.
        for c in 0..4 {
            for e in 0..100 {
                q.push(c, e);
            }
        }
        for c in 0..4 {
            assert_eq!(q.next_cycle(u64::MAX, &mut out), Some(c));
            assert_eq!(out, (0..100).collect::<Vec<_>>());
        }
        // Cycle 200: two events while it is far (beyond NEAR, within the wheel), then many
        // once it is near, which outgrow the small buffer and take a spare.
        q.push(200, 0);
        q.push(200, 1);
        // Cycle 3000: beyond the wheel (the heap).
        q.push(3000, 7);
        for c in 4..150 {
            q.push(c, 1000 + c as u32);
            assert_eq!(q.next_cycle(u64::MAX, &mut out), Some(c));
            assert_eq!(out, vec![1000 + c as u32]);
        }
        assert!(200 - q.now() < NEAR);
        for e in 2..500 {
            q.push(200, e);
        }
        assert_eq!(q.next_cycle(u64::MAX, &mut out), Some(200));
        assert_eq!(out, (0..500).collect::<Vec<_>>());
        assert_eq!(q.next_cycle(u64::MAX, &mut out), Some(3000));
        assert_eq!(out, vec![7]);
        assert!(q.is_empty());
    }
}
