//! The packet queues of every switch: input FIFOs (one per input port and VC) or virtual
//! output queues (one per input port, VC and output port). FIFOs are ring buffers in one
//! flat array (a FIFO is a few consecutive slots, so queue operations stay in cache); the
//! many, mostly empty, virtual output queues grow on demand instead.

use std::collections::VecDeque;

/// Queues of packet ids: fixed-capacity rings, or growable queues.
pub(crate) enum Queues {
    /// Fixed-capacity ring buffers.
    Ring(Fifos),
    /// One growable queue each (virtual output queues).
    Grow(Vec<VecDeque<u32>>),
}

impl Queues {
    /// Number of packets in queue `q`.
    #[inline]
    pub(crate) fn len(&self, q: usize) -> usize {
        match self {
            Queues::Ring(f) => f.len(q),
            Queues::Grow(v) => v[q].len(),
        }
    }

    /// The front packet of queue `q`.
    #[inline]
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        match self {
            Queues::Ring(f) => f.front(q),
            Queues::Grow(v) => v[q].front().copied(),
        }
    }

    /// The back (last arrived) packet of queue `q`.
    #[inline]
    pub(crate) fn back(&self, q: usize) -> Option<u32> {
        match self {
            Queues::Ring(f) => f.back(q),
            Queues::Grow(v) => v[q].back().copied(),
        }
    }

    /// Appends packet `p` to queue `q`.
    #[inline]
    pub(crate) fn push(&mut self, q: usize, p: u32) {
        match self {
            Queues::Ring(f) => f.push(q, p),
            Queues::Grow(v) => v[q].push_back(p),
        }
    }

    /// Removes and returns the front packet of queue `q`.
    #[inline]
    pub(crate) fn pop(&mut self, q: usize) -> Option<u32> {
        match self {
            Queues::Ring(f) => f.pop(q),
            Queues::Grow(v) => v[q].pop_front(),
        }
    }

    /// The packets of queue `q`, front first.
    pub(crate) fn iter(&self, q: usize) -> QueueIter<'_> {
        match self {
            Queues::Ring(f) => QueueIter::Ring(f, q, 0),
            Queues::Grow(v) => QueueIter::Grow(v[q].iter()),
        }
    }

    /// The first non-empty queue, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        match self {
            Queues::Ring(f) => f.first_non_empty(),
            Queues::Grow(v) => v.iter().position(|q| !q.is_empty()),
        }
    }
}

/// The packets of one queue, front first (no allocation).
pub(crate) enum QueueIter<'a> {
    /// A ring FIFO: (fifos, queue, position).
    Ring(&'a Fifos, usize, usize),
    /// A growable queue.
    Grow(std::collections::vec_deque::Iter<'a, u32>),
}

impl Iterator for QueueIter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            QueueIter::Ring(f, q, i) => {
                if *i >= f.len[*q] as usize {
                    return None;
                }
                let p = f.slots[*q * f.capacity + (f.head[*q] as usize + *i) % f.capacity];
                *i += 1;
                Some(p)
            }
            QueueIter::Grow(it) => it.next().copied(),
        }
    }
}

/// Fixed-capacity FIFOs of packet ids.
pub(crate) struct Fifos {
    slots: Vec<u32>,
    head: Vec<u16>,
    len: Vec<u16>,
    capacity: usize,
}

impl Fifos {
    /// `queues` FIFOs of `capacity` packets each (credit flow control guarantees they never
    /// hold more).
    pub(crate) fn new(queues: usize, capacity: usize) -> Self {
        assert!(capacity <= u16::MAX as usize, "FIFO capacity above 65535 packets");
        Fifos { slots: vec![0; queues * capacity], head: vec![0; queues], len: vec![0; queues], capacity }
    }

    /// Number of packets in FIFO `q`.
    pub(crate) fn len(&self, q: usize) -> usize {
        self.len[q] as usize
    }

    /// The front packet of FIFO `q`.
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        (self.len[q] > 0).then(|| self.slots[q * self.capacity + self.head[q] as usize])
    }

    /// The back packet of FIFO `q`.
    pub(crate) fn back(&self, q: usize) -> Option<u32> {
        let len = self.len[q] as usize;
        (len > 0).then(|| self.slots[q * self.capacity + (self.head[q] as usize + len - 1) % self.capacity])
    }

    /// Appends packet `p` to FIFO `q`.
    pub(crate) fn push(&mut self, q: usize, p: u32) {
        let len = self.len[q] as usize;
        assert!(len < self.capacity, "input FIFO {q} overflow");
        let slot = (self.head[q] as usize + len) % self.capacity;
        self.slots[q * self.capacity + slot] = p;
        self.len[q] += 1;
    }

    /// Removes and returns the front packet of FIFO `q`.
    pub(crate) fn pop(&mut self, q: usize) -> Option<u32> {
        let p = self.front(q)?;
        self.head[q] = ((self.head[q] as usize + 1) % self.capacity) as u16;
        self.len[q] -= 1;
        Some(p)
    }

    /// The first non-empty FIFO, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        self.len.iter().position(|&l| l > 0)
    }
}
