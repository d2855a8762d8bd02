//! Per-channel and per-output-VC state of the switches, one record each, so that an event
//! at a channel touches one cache line instead of one line in each of several arrays.

/// The sending side of one channel (a switch's output port), aligned so that it never
/// straddles two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub(crate) struct Link {
    /// Cycle from which the link is free.
    pub(crate) free: u64,
    /// Phits sent through it while recording (per-link utilisation).
    pub(crate) busy_phits: u64,
    /// The channel at its other end (the input queue a packet sent on it joins, or the
    /// output that sends into this port), or `NONE` for a terminal's.
    pub(crate) peer: u32,
    /// The terminal at its other end, or `NONE` if there is none.
    pub(crate) terminal: u32,
    /// The switch owning the channel.
    pub(crate) switch: u32,
    /// The VC the link looks at first for its next packet (`output_allocation = "vc"`).
    pub(crate) next_vc: u8,
}

/// The sender's view of one output VC (channel × vcs + vc), aligned so that it never
/// straddles two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(16))]
pub(crate) struct OutVc {
    /// Free phits in the downstream queue.
    pub(crate) credits: u32,
    /// The input queue whose front packet reserved it (`output_allocation = "vc"`), or `NONE`.
    pub(crate) reserved: u32,
    /// That packet until it starts, then `NONE` (virtual cut-through: starting it then reads
    /// neither its queue nor its record; wormhole switching leaves it `NONE`).
    pub(crate) packet: u32,
    /// Round-robin pointer of this output VC, or under `output_allocation = "link"` (VC 0's
    /// record only) of its link: the last winning input queue.
    pub(crate) rr_last: u32,
}

/// Credits that returned to an output VC in one cycle. A decision taken while that cycle's
/// events are handled (a routing that weighs its ports' load, the choice of a virtual output
/// queue) subtracts them, and so sees the credits as they stood when the cycle began,
/// whatever the order of its events. Kept only for runs that take such decisions.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Returned {
    pub(crate) cycle: u64,
    pub(crate) phits: u32,
}

/// What is at the other end of a channel.
pub(crate) enum End {
    /// An input queue block of another switch (its channel index).
    Switch(u32),
    /// A terminal.
    Terminal(u32),
    /// Nothing.
    Unplugged,
}

impl Link {
    /// What is at the other end of the channel.
    #[inline]
    pub(crate) fn end(&self) -> End {
        match (self.peer, self.terminal) {
            (p, _) if p != crate::event::NONE => End::Switch(p),
            (_, t) if t != crate::event::NONE => End::Terminal(t),
            _ => End::Unplugged,
        }
    }
}
