//! Causal workloads as they run: task programs advance when their compute ends or their
//! awaited message completes; a send hands its message to the task's NIC, which takes the
//! message's packets into its injection queue as room appears (no packet is ever dropped);
//! the last packet of a message completes it at the receiver, through the host model when
//! there is one. Written against `TaskSide`, what task execution needs of the network, which
//! the engine implements (as the NICs are written against `NicSide`).

mod host;
mod matching;
mod run;
mod tasks;
mod window;

pub(crate) use host::{HostPath, HostState};
pub(crate) use run::Execute;
pub(crate) use tasks::Tasks;
pub use window::StreamStats;

use crate::event::{Event, Packet};
use crate::rng::Stream;

/// What task execution needs of the network.
pub(crate) trait TaskSide {
    /// The tasks of the causal workload, if there is one.
    fn tasks(&mut self) -> Option<&mut Tasks>;
    /// Schedules `ev` at cycle `at`.
    fn schedule(&mut self, at: u64, ev: Event);
    /// Lets NIC `nic` try to inject at cycle `at` (`now` or later).
    fn wake_nic(&mut self, nic: usize, at: u64);
    /// The tasks, the random stream of NIC `nic` and the room left in its injection queue
    /// (packets), if there is a causal workload.
    fn tasks_at_nic(&mut self, nic: usize) -> Option<(&mut Tasks, &mut Stream, usize)>;
    /// Stores packet `p` and puts it at the back of NIC `nic`'s injection queue.
    fn enqueue_packet(&mut self, nic: usize, p: Packet);
}
