//! Performance primitives shared by every layer: software prefetch of the state the next
//! items touch, and the allocator that backs large blocks with huge pages. They change how
//! fast a run goes, never its result. They sit below the topology, routing, switch and
//! engine modules so that none of those imports upwards to reach them.

pub mod huge_pages;
pub mod memory_probe;
pub(crate) mod prefetch;

pub use huge_pages::HugePages;
