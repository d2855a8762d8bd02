//! Seeded random streams: one per component, derived from the master seed and a component
//! id, so a run is reproducible bit for bit whatever the order components draw in.

use rand::SeedableRng;
pub use rand_xoshiro::Xoshiro256PlusPlus as Stream;

/// Kinds of components that own a stream.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Owner {
    /// A switch (arbitration and selection ties).
    Switch = 1,
    /// A NIC (injection times, packet sizes, destinations, injection VC ties).
    Nic = 2,
    /// Set-up draws (random permutations).
    Setup = 3,
    /// Flow-level benchmarks (one stream per eBB sample).
    Flow = 4,
}

/// SplitMix64 finaliser: spreads nearby inputs over the whole 64-bit range.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream of component `id` of kind `owner` under `master` seed.
pub fn stream(master: u64, owner: Owner, id: u64) -> Stream {
    Stream::seed_from_u64(mix(mix(master) ^ mix((owner as u64) << 56 ^ id)))
}
