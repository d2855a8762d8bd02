//! The state of an input queue besides its packets, in one record: its phits, the arrival
//! of its last packet and departure of its first (from which the phits present at any cycle
//! follow), and the output VC its front packet holds. Upstream switches read it for every
//! candidate they weigh and every event at the queue updates it, so it is kept to half a
//! cache line instead of being gathered from several arrays.

/// The state of one input queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct QueueState {
    /// Phits of the packets in the queue, arrived or not.
    pub(super) queued: u32,
    /// Size of the last packet that entered the queue.
    back_size: u32,
    /// Cycle the last packet's head entered the queue.
    back_arrived: u64,
    /// Size of the front packet being sent, if any.
    front_size: u32,
    /// The output VC its front packet reserved (`output_allocation = "vc"`), or `NONE`.
    pub(super) holding: u32,
    /// Cycle the front packet started leaving, or `u64::MAX` if it has not.
    pub(super) sending_since: u64,
}

impl Default for QueueState {
    fn default() -> Self {
        QueueState {
            queued: 0,
            back_size: 0,
            back_arrived: 0,
            front_size: 0,
            holding: super::NONE,
            sending_since: u64::MAX,
        }
    }
}

impl QueueState {
    /// A packet of `size` phits has its head in the queue at `now`.
    #[inline]
    pub(super) fn arrive(&mut self, size: u32, now: u64) {
        self.queued += size;
        self.back_size = size;
        self.back_arrived = now;
    }

    /// The front packet, of `size` phits, starts leaving at `now`.
    #[inline]
    pub(super) fn start(&mut self, size: u32, now: u64) {
        self.front_size = size;
        self.sending_since = now;
    }

    /// Whether the front packet is leaving.
    #[inline]
    pub(super) fn is_sending(&self) -> bool {
        self.sending_since != u64::MAX
    }

    /// The front packet, of `size` phits, has left entirely.
    #[inline]
    pub(super) fn leave(&mut self, size: u32) {
        self.queued -= size;
        self.sending_since = u64::MAX;
    }

    /// Cycle the last packet's head entered the queue (for the debug check of `occupancy`).
    #[cfg(debug_assertions)]
    pub(super) fn back_arrived(&self) -> u64 {
        self.back_arrived
    }

    /// Phits present at `now`: a packet's phits arrive one per cycle from its head's
    /// arrival and leave one per cycle from the start of its transmission. Packets reach a
    /// queue one after another over one link, so only the last may still be arriving, and
    /// only the first may be leaving.
    #[inline]
    pub(super) fn occupancy(&self, now: u64) -> u32 {
        if self.queued == 0 {
            return 0;
        }
        let size = self.back_size as u64;
        let missing = size - (now + 1 - self.back_arrived).min(size);
        let left =
            if self.is_sending() { now.saturating_sub(self.sending_since).min(self.front_size as u64) } else { 0 };
        self.queued - (missing + left) as u32
    }
}
