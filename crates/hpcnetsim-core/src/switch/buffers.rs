//! The packet queues of every switch: input FIFOs (one per input port and VC) or virtual
//! output queues (one per input port, VC and output port). FIFOs are ring buffers in one
//! flat array (a FIFO is a few consecutive slots, so queue operations stay in cache); the
//! many, mostly empty, virtual output queues grow on demand instead.

use std::collections::VecDeque;

/// Queues of packet ids: fixed-capacity rings, or growable queues. `R` and `G` hold the
/// storage: owned for the whole network, borrowed for one partition of the parallel engine
/// ([`QueuesMut`], from [`Queues::split`]); queue numbers stay global in both.
pub(crate) enum Queues<R = Vec<u32>, G = Vec<VecDeque<u32>>> {
    /// Fixed-capacity ring buffers.
    Ring(Fifos<R>),
    /// One growable queue each (virtual output queues), from queue `first` on.
    Grow(G, usize),
}

/// The queues of one partition: a borrowed range of the network's queues.
pub(crate) type QueuesMut<'a> = Queues<&'a mut [u32], &'a mut [VecDeque<u32>]>;

impl<R: AsRef<[u32]>, G: AsRef<[VecDeque<u32>]>> Queues<R, G> {
    /// Number of packets in queue `q`.
    #[inline]
    pub(crate) fn len(&self, q: usize) -> usize {
        match self {
            Queues::Ring(f) => f.len(q),
            Queues::Grow(v, first) => v.as_ref()[q - first].len(),
        }
    }

    /// The front packet of queue `q`.
    #[inline]
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        match self {
            Queues::Ring(f) => f.front(q),
            Queues::Grow(v, first) => v.as_ref()[q - first].front().copied(),
        }
    }

    /// Asks the cache for the state of queue `q` (see `engine::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self, q: usize) {
        match self {
            Queues::Ring(f) => {
                // A block may span two lines: ask for its first and last words.
                let b = f.block(q);
                crate::perf::prefetch::prefetch(f.data.as_ref(), b);
                crate::perf::prefetch::prefetch(f.data.as_ref(), b + f.capacity);
            }
            Queues::Grow(v, first) => crate::perf::prefetch::prefetch(v.as_ref(), q - first),
        }
    }

    /// The packets of queue `q`, front first.
    pub(crate) fn iter(&self, q: usize) -> QueueIter<'_> {
        match self {
            Queues::Ring(f) => {
                let (head, len) = f.head_len(q);
                let b = f.block(q);
                QueueIter::Ring(&f.data.as_ref()[b + 1..b + 1 + f.capacity], head, len)
            }
            Queues::Grow(v, first) => QueueIter::Grow(v.as_ref()[q - first].iter()),
        }
    }

    /// Whether queue `q` is one of these (a partition holds a range of the queues).
    #[inline]
    pub(crate) fn holds(&self, q: usize) -> bool {
        match self {
            Queues::Ring(f) => q >= f.first && (q - f.first) * (f.capacity + 1) < f.data.as_ref().len(),
            Queues::Grow(v, first) => q >= *first && q - first < v.as_ref().len(),
        }
    }

    /// The first non-empty queue, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        match self {
            Queues::Ring(f) => f.first_non_empty(),
            Queues::Grow(v, first) => v.as_ref().iter().position(|q| !q.is_empty()).map(|q| q + first),
        }
    }
}

impl<R: AsRef<[u32]> + AsMut<[u32]>, G: AsRef<[VecDeque<u32>]> + AsMut<[VecDeque<u32>]>> Queues<R, G> {
    /// Appends packet `p` to queue `q`.
    #[inline]
    pub(crate) fn push(&mut self, q: usize, p: u32) {
        match self {
            Queues::Ring(f) => f.push(q, p),
            Queues::Grow(v, first) => v.as_mut()[q - *first].push_back(p),
        }
    }

    /// Removes and returns the front packet of queue `q`.
    #[inline]
    pub(crate) fn pop(&mut self, q: usize) -> Option<u32> {
        match self {
            Queues::Ring(f) => f.pop(q),
            Queues::Grow(v, first) => v.as_mut()[q - *first].pop_front(),
        }
    }

    /// Borrows the queues as consecutive ranges, `cuts[i]..cuts[i + 1]` each (global queue
    /// numbers, from this range's first).
    pub(crate) fn split(&mut self, cuts: &[usize]) -> Vec<QueuesMut<'_>> {
        match self {
            Queues::Ring(f) => {
                let words = f.capacity + 1;
                let first = f.first;
                crate::slices::split_ranges(f.data.as_mut(), cuts, first, words)
                    .into_iter()
                    .zip(cuts)
                    .map(|(data, &q)| Queues::Ring(Fifos { data, capacity: f.capacity, first: q }))
                    .collect()
            }
            Queues::Grow(v, first) => crate::slices::split_ranges(v.as_mut(), cuts, *first, 1)
                .into_iter()
                .zip(cuts)
                .map(|(v, &q)| Queues::Grow(v, q))
                .collect(),
        }
    }
}

/// The packets of one queue, front first (no allocation).
pub(crate) enum QueueIter<'a> {
    /// A ring FIFO: its slots, the position of the next packet and how many are left.
    Ring(&'a [u32], usize, usize),
    /// A growable queue.
    Grow(std::collections::vec_deque::Iter<'a, u32>),
}

impl Iterator for QueueIter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            QueueIter::Ring(slots, at, left) => {
                if *left == 0 {
                    return None;
                }
                let p = slots[*at % slots.len()];
                *at += 1;
                *left -= 1;
                Some(p)
            }
            QueueIter::Grow(it) => it.next().copied(),
        }
    }
}

/// Fixed-capacity FIFOs of packet ids. Each FIFO is one block of words: its head and length
/// packed in the first, then its slots, so a queue operation touches one cache line. `D`
/// holds the blocks of FIFOs `first`, `first + 1`, …
pub(crate) struct Fifos<D = Vec<u32>> {
    data: D,
    capacity: usize,
    first: usize,
}

impl Fifos {
    /// `queues` FIFOs of `capacity` packets each (credit flow control guarantees they never
    /// hold more).
    pub(crate) fn new(queues: usize, capacity: usize) -> Self {
        assert!(capacity <= u16::MAX as usize, "FIFO capacity above 65535 packets");
        Fifos { data: vec![0; queues * (capacity + 1)], capacity, first: 0 }
    }
}

impl<D: AsRef<[u32]>> Fifos<D> {
    /// Index of FIFO `q`'s first word.
    #[inline]
    fn block(&self, q: usize) -> usize {
        (q - self.first) * (self.capacity + 1)
    }

    /// (head, length) of FIFO `q`.
    #[inline]
    fn head_len(&self, q: usize) -> (usize, usize) {
        let w = self.data.as_ref()[self.block(q)];
        ((w & 0xffff) as usize, (w >> 16) as usize)
    }

    /// Number of packets in FIFO `q`.
    pub(crate) fn len(&self, q: usize) -> usize {
        self.head_len(q).1
    }

    /// The front packet of FIFO `q`.
    pub(crate) fn front(&self, q: usize) -> Option<u32> {
        let (head, len) = self.head_len(q);
        (len > 0).then(|| self.data.as_ref()[self.block(q) + 1 + head])
    }

    /// The first non-empty FIFO, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        self.data.as_ref().iter().step_by(self.capacity + 1).position(|&w| w >> 16 > 0).map(|q| q + self.first)
    }
}

impl<D: AsRef<[u32]> + AsMut<[u32]>> Fifos<D> {
    /// Appends packet `p` to FIFO `q`.
    pub(crate) fn push(&mut self, q: usize, p: u32) {
        let (head, len) = self.head_len(q);
        assert!(len < self.capacity, "input FIFO {q} overflow");
        let b = self.block(q);
        let data = self.data.as_mut();
        data[b + 1 + (head + len) % self.capacity] = p;
        data[b] += 1 << 16;
    }

    /// Removes and returns the front packet of FIFO `q`.
    pub(crate) fn pop(&mut self, q: usize) -> Option<u32> {
        let p = self.front(q)?;
        let (head, len) = self.head_len(q);
        let b = self.block(q);
        self.data.as_mut()[b] = (((head + 1) % self.capacity) | ((len - 1) << 16)) as u32;
        Some(p)
    }
}
