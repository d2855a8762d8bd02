//! The state of an input queue besides its packets, in one record: its phits, the arrival
//! of its last packet and departure of its first (from which the phits present at any cycle
//! follow), and the output VC its front packet holds. Upstream switches read it for every
//! candidate they weigh and every event at the queue updates it, so it is kept to half a
//! cache line instead of being gathered from several arrays.
//!
//! The fields are relaxed atomics: with the parallel engine, a switch reads the occupancy
//! of its neighbours' queues while their owners update them. Only the owner writes a
//! queue, and the only write a reader can race with (a transmission starting in the same
//! cycle) does not change the occupancy of that cycle, so results do not depend on timing.
//! On the machines we target a relaxed load or store is a plain move.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// The state of one input queue (aligned so that it never straddles two cache lines).
#[derive(Debug)]
#[repr(align(32))]
pub(crate) struct QueueState {
    /// Phits of the packets in the queue, arrived or not.
    queued: AtomicU32,
    /// Size of the last packet that entered the queue.
    back_size: AtomicU32,
    /// Cycle the last packet's head entered the queue.
    back_arrived: AtomicU64,
    /// Size of the front packet being sent or holding an output VC, if any.
    front_size: AtomicU32,
    /// The output VC its front packet reserved (`output_allocation = "vc"`), or `NONE`.
    holding: AtomicU32,
    /// Cycle the front packet started leaving, or `u64::MAX` if it has not.
    sending_since: AtomicU64,
}

impl Default for QueueState {
    fn default() -> Self {
        QueueState {
            queued: AtomicU32::new(0),
            back_size: AtomicU32::new(0),
            back_arrived: AtomicU64::new(0),
            front_size: AtomicU32::new(0),
            holding: AtomicU32::new(crate::event::NONE),
            sending_since: AtomicU64::new(u64::MAX),
        }
    }
}

impl Clone for QueueState {
    fn clone(&self) -> Self {
        QueueState {
            queued: AtomicU32::new(self.queued.load(Relaxed)),
            back_size: AtomicU32::new(self.back_size.load(Relaxed)),
            back_arrived: AtomicU64::new(self.back_arrived.load(Relaxed)),
            front_size: AtomicU32::new(self.front_size.load(Relaxed)),
            holding: AtomicU32::new(self.holding.load(Relaxed)),
            sending_since: AtomicU64::new(self.sending_since.load(Relaxed)),
        }
    }
}

impl QueueState {
    /// A packet of `size` phits has its head in the queue at `now`.
    #[inline]
    pub(crate) fn arrive(&self, size: u32, now: u64) {
        self.queued.store(self.queued.load(Relaxed) + size, Relaxed);
        self.back_size.store(size, Relaxed);
        self.back_arrived.store(now, Relaxed);
    }

    /// The front packet, of `size` phits, starts leaving at `now`.
    #[inline]
    pub(crate) fn start(&self, size: u32, now: u64) {
        self.front_size.store(size, Relaxed);
        self.sending_since.store(now, Relaxed);
    }

    /// The front packet, of `size` phits, reserves output VC `oq` (it will leave through it).
    #[inline]
    pub(crate) fn reserve(&self, oq: u32, size: u32) {
        self.holding.store(oq, Relaxed);
        self.front_size.store(size, Relaxed);
    }

    /// Size of the front packet that is leaving or holds an output VC (set by `start` or
    /// `reserve`).
    #[inline]
    pub(crate) fn front_size(&self) -> u32 {
        self.front_size.load(Relaxed)
    }

    /// Whether the front packet is leaving.
    #[inline]
    pub(crate) fn is_sending(&self) -> bool {
        self.sending_since() != u64::MAX
    }

    /// Cycle the front packet started leaving, or `u64::MAX` if it has not.
    #[inline]
    pub(crate) fn sending_since(&self) -> u64 {
        self.sending_since.load(Relaxed)
    }

    /// The output VC the front packet holds, or `NONE`.
    #[inline]
    pub(crate) fn holding(&self) -> u32 {
        self.holding.load(Relaxed)
    }

    /// The front packet holds output VC `oq` (`NONE`: it holds none).
    #[inline]
    pub(crate) fn set_holding(&self, oq: u32) {
        self.holding.store(oq, Relaxed);
    }

    /// The front packet, of `size` phits, has left entirely.
    #[inline]
    pub(crate) fn leave(&self, size: u32) {
        self.queued.store(self.queued.load(Relaxed) - size, Relaxed);
        self.sending_since.store(u64::MAX, Relaxed);
    }

    /// Cycle the last packet's head entered the queue (for the debug check of `occupancy`).
    #[cfg(debug_assertions)]
    pub(crate) fn back_arrived(&self) -> u64 {
        self.back_arrived.load(Relaxed)
    }

    /// Phits present at `now`: a packet's phits arrive one per cycle from its head's
    /// arrival and leave one per cycle from the start of its transmission. Packets reach a
    /// queue one after another over one link, so only the last may still be arriving, and
    /// only the first may be leaving.
    #[inline]
    pub(crate) fn occupancy(&self, now: u64) -> u32 {
        let queued = self.queued.load(Relaxed);
        if queued == 0 {
            return 0;
        }
        let size = self.back_size.load(Relaxed) as u64;
        let missing = size - (now + 1 - self.back_arrived.load(Relaxed)).min(size);
        let since = self.sending_since();
        let left =
            if since != u64::MAX { now.saturating_sub(since).min(self.front_size.load(Relaxed) as u64) } else { 0 };
        queued - (missing + left) as u32
    }
}
