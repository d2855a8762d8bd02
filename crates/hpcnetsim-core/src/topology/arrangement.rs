//! How the global links of a group are assigned to the other groups (the dragonfly families:
//! Kim et al.'s dragonfly, the Cray Cascade, Megafly).
//!
//! A group's global links are numbered by its family and cut into *slots* of `m` links, one
//! slot per other group; the arrangement says which group slot `i` of group `x` leads to:
//!
//! - `absolute`: slot `i` leads to group `i` if `i < x`, else `i + 1` (the "consecutive"
//!   arrangement of BookSim2's `dragonflynew`; the Edison and Theta link maps);
//! - `relative`: slot `i` leads to group `x + i + 1 (mod g)` (CODES' `dragonfly-dally`
//!   connection files, the "palm tree" of Camarero et al.);
//! - `circulant`: slot `i` leads to group `x ± (⌊i/2⌋ + 1) (mod g)`, + for even `i`
//!   (Camarero, Vallejo and Beivide's circulant arrangement: group offsets in ± pairs).
//!
//! Relative and circulant arrangements are invariant under the group rotation `x → x + 1`.

/// How the global links of a group are assigned to the other groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// Slot `i` to group `i` (skipping the own group).
    Absolute,
    /// Slot `i` to the group `i + 1` further on.
    Relative,
    /// Slots in pairs to the groups `±(⌊i/2⌋ + 1)` away.
    Circulant,
}

impl Arrangement {
    /// Spec names, as listed in error messages.
    pub const NAMES: &'static str = "absolute, relative, circulant";

    /// Parses a spec name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "absolute" => Some(Arrangement::Absolute),
            "relative" => Some(Arrangement::Relative),
            "circulant" => Some(Arrangement::Circulant),
            _ => None,
        }
    }

    /// Spec name.
    pub fn name(self) -> &'static str {
        match self {
            Arrangement::Absolute => "absolute",
            Arrangement::Relative => "relative",
            Arrangement::Circulant => "circulant",
        }
    }

    /// Whether the group rotation `x → x + 1` maps every global link to a global link with
    /// the same slots (the symmetry the families declare).
    pub fn is_rotation_invariant(self) -> bool {
        self != Arrangement::Absolute
    }

    /// With `g` groups: the group that slot `i` of group `x` leads to, and the slot of that
    /// group that leads back.
    pub fn slot_target(self, g: usize, x: usize, i: usize) -> (usize, usize) {
        match self {
            Arrangement::Absolute => {
                let t = if i < x { i } else { i + 1 };
                (t, if x < t { x } else { x - 1 })
            }
            Arrangement::Relative => ((x + i + 1) % g, g - i - 2),
            Arrangement::Circulant => {
                let d = i / 2 + 1;
                let t = if i.is_multiple_of(2) { (x + d) % g } else { (x + g - d) % g };
                // The offset g/2 (g even) is its own inverse: the same slot leads back.
                (t, if 2 * d == g { i } else { i ^ 1 })
            }
        }
    }

    /// Calls `f(x, j, t, jt)` once for every global link between groups `x` and `t`, from
    /// its end with the smaller (group, global port): group-level global port `j` of group
    /// `x`, slot `j / m`, copy `j mod m`, to port `jt` of group `t` (the same copy of the slot
    /// leading back), for `g` groups of `(g − 1)·m` global ports each.
    pub fn for_each_global(self, g: usize, m: usize, mut f: impl FnMut(usize, usize, usize, usize)) {
        for x in 0..g {
            for j in 0..(g - 1) * m {
                let (i, copy) = (j / m, j % m);
                let (t, back) = self.slot_target(g, x, i);
                let jt = back * m + copy;
                if (x, j) < (t, jt) {
                    f(x, j, t, jt);
                }
            }
        }
    }
}
