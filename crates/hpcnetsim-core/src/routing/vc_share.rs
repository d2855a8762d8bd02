//! VC classes over a switch's VCs, for routings that order their hops by class to stay free
//! of deadlock (the dragonfly routings, the hop classes of Slim Fly and Jellyfish): each class
//! gets an equal share of the VCs and the last one the remainder, so that VCs beyond the
//! classes give every class more queues instead of staying idle.

use std::ops::Range;

/// VCs of class `c` of `classes` over `vcs` VCs. With fewer VCs than classes (which the
/// routings refuse; the deadlock tests' controls build them) the lowest classes share VC 0.
pub(crate) fn class_vcs(vcs: usize, classes: usize, c: usize) -> Range<usize> {
    if vcs < classes {
        let vc = c.saturating_sub(classes - vcs);
        return vc..vc + 1;
    }
    let share = vcs / classes;
    if c + 1 == classes {
        c * share..vcs
    } else {
        c * share..(c + 1) * share
    }
}

/// The class of VC `vc` under [`class_vcs`] (the lowest of those sharing VC 0).
pub(crate) fn class_of(vcs: usize, classes: usize, vc: usize) -> usize {
    if vcs < classes {
        return if vc == 0 { 0 } else { vc + classes - vcs };
    }
    (vc / (vcs / classes)).min(classes - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vc_belongs_to_the_first_class_whose_share_holds_it() {
        for classes in 1..=8 {
            for vcs in 1..=12 {
                for vc in 0..vcs {
                    let first = (0..classes).find(|&c| class_vcs(vcs, classes, c).contains(&vc));
                    assert_eq!(Some(class_of(vcs, classes, vc)), first, "{vcs} VCs, {classes} classes, VC {vc}");
                }
                let ranges: Vec<_> = (0..classes).map(|c| class_vcs(vcs, classes, c)).collect();
                assert!(ranges.iter().all(|r| r.end <= vcs && !r.is_empty()), "{ranges:?}");
            }
        }
    }
}
