//! A parallel map whose answer, an error included, is the same every run. rayon's
//! `collect::<Result<_>>` stops at whichever item fails first in time, so a network cut in
//! two named a different pair of terminals from run to run and between thread counts.

use crate::error::Result;
use rayon::prelude::*;

/// `f(state, i)` for every `i` in `0..n`, results in index order. Item 0 runs alone first:
/// a failure that every item would meet (a terminal cut off from the others) shows there, in
/// one item's time. The rest run in parallel, each rayon job with its own `init()` state, and
/// are collected whole, so an error is the first in index order, not the first in time.
pub fn map_in_order<S, T, I, F>(n: usize, init: I, f: F) -> Result<Vec<T>>
where
    T: Send,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, usize) -> Result<T> + Sync + Send,
{
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return Ok(out);
    }
    out.push(f(&mut init(), 0)?);
    let rest: Vec<Result<T>> = (1..n).into_par_iter().map_init(&init, |s, i| f(s, i)).collect();
    for r in rest {
        out.push(r?);
    }
    Ok(out)
}
