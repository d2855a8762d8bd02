//! A balanced cut of a switch graph without a closed-form bisection (Slim Fly, Jellyfish,
//! imported fabrics with the same terminals on every switch):
//! Fiduccia–Mattheyses refinement of a breadth-first split. It is a valid balanced cut, so
//! an upper bound on the minimum bisection, usually far below the terminal cut those
//! families reported before; the tests compare it with exhaustive search on small graphs.
//!
//! Every switch carries the same number of terminals, so a balanced cut puts ⌊S/2⌋ switches
//! on one side; the caller completes it (S odd) with the terminal links that balance the sides.

/// Largest graph refined (each pass scans the switches for every move: S² work).
pub const MAX_SWITCHES: usize = 4096;

/// Refinement passes at most (each ends at its best balanced prefix; stops when none improves).
const PASSES: usize = 8;

/// Terminal links to cut so that a side holding `on_side` of `terminals` terminals ends
/// up with half of them (either half when the count is odd).
pub(crate) fn balancing_moves(terminals: usize, on_side: usize) -> u64 {
    let (low, high) = (terminals / 2, terminals.div_ceil(2));
    on_side.abs_diff(low).min(on_side.abs_diff(high)) as u64
}

/// The terminals every switch carries when all carry the same number (`counts`, one per
/// switch), `None` when they differ or carry none: the graphs [`bisection_from`] applies to.
pub(crate) fn uniform_terminals(counts: &[u32]) -> Option<usize> {
    let &first = counts.first()?;
    (first > 0 && counts.iter().all(|&t| t == first)).then_some(first as usize)
}

/// A balanced bisection of a graph whose switches all carry `p` terminals: the cut
/// [`balanced_cut_from`] finds from `start`, completed for an odd number of switches (⌊S/2⌋ on
/// one side) with the terminal links that balance the sides.
pub(crate) fn bisection_from(switches: usize, links: &[(usize, usize)], p: usize, start: usize) -> Option<u64> {
    balanced_cut_from(switches, links, start).map(|cut| cut + balancing_moves(switches * p, switches / 2 * p))
}

/// Breadth-first starts [`best_bisection`] tries, spread evenly over the switch numbering.
pub(crate) const STARTS: usize = 8;

/// The smallest [`bisection_from`] over [`STARTS`] starts spread over the numbering: the
/// refinement is local, and one start misses cuts another finds (a 4x4 torus with 3 failed
/// links: 8 links from switch 0, the minimum 6 from switch 8).
pub(crate) fn best_bisection(switches: usize, links: &[(usize, usize)], p: usize) -> Option<u64> {
    let starts = STARTS.min(switches);
    (0..starts).filter_map(|i| bisection_from(switches, links, p, i * switches / starts)).min()
}

/// A balanced cut of the graph on `switches` switches with these links (parallel links
/// repeated): the links cut, with ⌊S/2⌋ switches on one side; `None` above [`MAX_SWITCHES`].
pub fn balanced_cut(switches: usize, links: &[(usize, usize)]) -> Option<u64> {
    balanced_cut_from(switches, links, 0)
}

/// [`balanced_cut`] started from the breadth-first order of switch `start`: the refinement
/// is local, so another start can end in a better cut (callers without a closed form to
/// fall back on, such as faulty networks, try several).
pub fn balanced_cut_from(switches: usize, links: &[(usize, usize)], start: usize) -> Option<u64> {
    if !(2..=MAX_SWITCHES).contains(&switches) || start >= switches {
        return None;
    }
    let adj = adjacency(switches, links);
    let half = switches / 2;
    // Breadth-first order from `start`: the first half of it is a connected start.
    let mut side = vec![true; switches];
    let mut seen = vec![false; switches];
    let mut queue = std::collections::VecDeque::from([start]);
    seen[start] = true;
    let mut placed = 0;
    while placed < half {
        let s = match queue.pop_front() {
            Some(s) => s,
            None => (0..switches).find(|&s| !seen[s]).inspect(|&s| seen[s] = true).expect("fewer than all placed"),
        };
        side[s] = false;
        placed += 1;
        for &t in &adj[s] {
            if !seen[t] {
                seen[t] = true;
                queue.push_back(t);
            }
        }
    }
    let cut_of = |side: &[bool]| links.iter().filter(|&&(a, b)| side[a] != side[b]).count() as i64;
    let mut best = cut_of(&side);
    for _ in 0..PASSES {
        // gain[v]: the cut's decrease if v changed sides.
        let mut gain: Vec<i64> =
            (0..switches).map(|v| adj[v].iter().map(|&t| if side[t] != side[v] { 1 } else { -1 }).sum()).collect();
        let mut locked = vec![false; switches];
        let mut trial = side.clone();
        let (mut cut, mut on_false) = (best, half);
        let mut moves: Vec<usize> = Vec::with_capacity(switches);
        let (mut best_cut, mut best_len) = (best, 0);
        for _ in 0..switches {
            // Alternate sides so that every other prefix is balanced (side `false` holding
            // `half`), best gain first.
            let from = on_false <= half;
            let Some(v) = (0..switches).filter(|&v| !locked[v] && trial[v] == from).max_by_key(|&v| (gain[v], v))
            else {
                break;
            };
            cut -= gain[v];
            trial[v] = !trial[v];
            locked[v] = true;
            on_false = if from { on_false + 1 } else { on_false - 1 };
            for &t in &adj[v] {
                gain[t] += if trial[t] == trial[v] { -2 } else { 2 };
            }
            gain[v] = -gain[v];
            moves.push(v);
            if on_false == half && cut < best_cut {
                (best_cut, best_len) = (cut, moves.len());
            }
        }
        if best_cut >= best {
            break;
        }
        for &v in &moves[..best_len] {
            side[v] = !side[v];
        }
        best = best_cut;
        debug_assert_eq!(best, cut_of(&side));
    }
    debug_assert_eq!(side.iter().filter(|&&s| !s).count(), half);
    Some(best as u64)
}

/// The neighbours of every switch (a link's ends each list the other; parallel links repeated).
pub(crate) fn adjacency(switches: usize, links: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); switches];
    for &(a, b) in links {
        adj[a].push(b);
        adj[b].push(a);
    }
    adj
}
