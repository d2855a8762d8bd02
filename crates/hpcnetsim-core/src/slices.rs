//! Slices borrowed as consecutive mutable ranges: how the parallel engine hands each
//! partition its share of the per-switch, per-channel and per-queue arrays without copying.

/// Borrows `v` (whose first element is item `first`, `scale` elements per item) as the
/// consecutive ranges of items `cuts[i]..cuts[i + 1]`.
pub(crate) fn split_ranges<'a, T>(mut v: &'a mut [T], cuts: &[usize], first: usize, scale: usize) -> Vec<&'a mut [T]> {
    debug_assert_eq!(cuts[0], first);
    cuts.windows(2).map(|w| cut(&mut v, (w[1] - w[0]) * scale)).collect()
}

/// The first `n` elements of `rest`, which keeps the others.
pub(crate) fn cut<'a, T>(rest: &mut &'a mut [T], n: usize) -> &'a mut [T] {
    let (head, tail) = std::mem::take(rest).split_at_mut(n);
    *rest = tail;
    head
}
