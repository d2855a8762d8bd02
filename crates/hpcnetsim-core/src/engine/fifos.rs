//! The input FIFOs of every switch, one per input port and VC, as ring buffers in one flat
//! array: a FIFO is a few consecutive slots, so queue operations stay in cache.

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

    /// The packets of FIFO `q`, front first.
    pub(crate) fn iter(&self, q: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.len[q] as usize)
            .map(move |i| self.slots[q * self.capacity + (self.head[q] as usize + i) % self.capacity])
    }

    /// The first non-empty FIFO, if any.
    pub(crate) fn first_non_empty(&self) -> Option<usize> {
        self.len.iter().position(|&l| l > 0)
    }
}
