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

    /// Asks the cache for the state of queue `q` (see `engine::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self, q: usize) {
        match self {
            Queues::Ring(f) => crate::engine::prefetch::prefetch(&f.data, f.block(q)),
            Queues::Grow(v) => crate::engine::prefetch::prefetch(v, q),
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
                if *i >= f.len(*q) {
                    return None;
                }
                let p = f.at(*q, *i);
                *i += 1;
                Some(p)
            }
            QueueIter::Grow(it) => it.next().copied(),
        }
    }
}

/// Fixed-capacity FIFOs of packet ids. Each FIFO is one block of words: its head and length
/// packed in the first, then its slots, so a queue operation touches one cache line.
pub(crate) struct Fifos {
    data: Vec<u32>,
    capacity: usize,
}

impl Fifos {
    /// `queues` FIFOs of `capacity` packets each (credit flow control guarantees they never
    /// hold more).
    pub(crate) fn new(queues: usize, capacity: usize) -> Self {
        assert!(capacity <= u16::MAX as usize, "FIFO capacity above 65535 packets");
        Fifos { data: vec![0; queues * (capacity + 1)], capacity }
    }

    /// Index of FIFO `q`'s first word.
    #[inline]
    fn block(&self, q: usize) -> usize {
        q * (self.capacity + 1)
    }

    /// (head, length) of FIFO `q`.
    #[inline]
    fn head_len(&self, q: usize) -> (usize, usize) {
        let w = self.data[self.block(q)];
        ((w & 0xffff) as usize, (w >> 16) as usize)
    }

    /// The packet `i` places behind the front of FIFO `q` (`i` below its length).
    #[inline]
    fn at(&self, q: usize, i: usize) -> u32 {
        let (head, _) = self.head_len(q);
        self.data[self.block(q) + 1 + (head + i) % self.capacity]
    }

    /// Number of packets in FIFO `q`.
    pub(crate) fn len(&self, q: usize) -> usize {
        self.head_len(q).1
    }

    /// The front packet of FIFO `q`.
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        let (head, len) = self.head_len(q);
        (len > 0).then(|| self.data[self.block(q) + 1 + head])
    }

    /// Appends packet `p` to FIFO `q`.
    pub(crate) fn push(&mut self, q: usize, p: u32) {
        let (head, len) = self.head_len(q);
        assert!(len < self.capacity, "input FIFO {q} overflow");
        let b = self.block(q);
        self.data[b + 1 + (head + len) % self.capacity] = p;
        self.data[b] += 1 << 16;
    }

    /// Removes and returns the front packet of FIFO `q`.
    pub(crate) fn pop(&mut self, q: usize) -> Option<u32> {
        let p = self.front(q)?;
        let (head, len) = self.head_len(q);
        let b = self.block(q);
        self.data[b] = (((head + 1) % self.capacity) | ((len - 1) << 16)) as u32;
        Some(p)
    }

    /// The first non-empty FIFO, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        self.data.iter().step_by(self.capacity + 1).position(|&w| w >> 16 > 0)
    }
}
