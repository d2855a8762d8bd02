//! The bisection of a Cartesian product of lines (meshes, tori, HyperX, the node torus of a
//! twin torus), odd sizes included.
//!
//! Cutting dimension i between its halves cuts every line of that dimension the same way
//! (`cut_per_line` links each: 1 on a mesh line, 2 on a ring, ⌊k/2⌋·⌈k/2⌉·K on a complete
//! graph), whichever side its middle switch takes when k is odd. So with k odd the middle
//! plane, a product of the other dimensions, is free to split: bisected in turn (its own
//! cheapest dimension, recursively), it adds only its own links cut, where the plain
//! dimension cut moved ⌊P·t/2⌋ terminals across (P switches of t terminals). A 5x5 mesh: 5
//! row links and 1 link inside the middle column (the staircase cut), 6 in all, where five
//! row links and two terminal links made 7.

/// One dimension of the product: its size and the links a line of it loses when cut in two
/// halves (⌊k/2⌋ and ⌈k/2⌉ switches).
#[derive(Clone, Copy, Debug)]
pub struct Line {
    pub size: usize,
    pub cut_per_line: u64,
}

/// Links cut by the best of these cuts for the product of `lines`, `t` terminals on every
/// switch, sides of ⌊N/2⌋ and ⌈N/2⌉ terminals: a valid balanced cut, the minimum whenever some
/// dimension is even (the tests compare it with exhaustive search on small odd ones too).
pub fn lattice_bisection(lines: &[Line], t: usize) -> u64 {
    // Dimensions alike are interchangeable: the state of the search is how many of each
    // kind are left (a 3^12 torus has 13 states, not 12! orders).
    let mut kinds: Vec<(usize, u64)> = lines.iter().filter(|l| l.size > 1).map(|l| (l.size, l.cut_per_line)).collect();
    kinds.sort_unstable();
    let mut counts: Vec<usize> = Vec::new();
    let mut distinct: Vec<(usize, u64)> = Vec::new();
    for kind in kinds {
        if distinct.last() == Some(&kind) {
            *counts.last_mut().expect("a kind per count") += 1;
        } else {
            distinct.push(kind);
            counts.push(1);
        }
    }
    let mut memo = std::collections::HashMap::new();
    best_cut(&distinct, &mut counts, t, &mut memo)
}

fn best_cut(
    kinds: &[(usize, u64)],
    counts: &mut Vec<usize>,
    t: usize,
    memo: &mut std::collections::HashMap<Vec<usize>, u64>,
) -> u64 {
    if let Some(&known) = memo.get(counts.as_slice()) {
        return known;
    }
    let switches: usize = kinds.iter().zip(counts.iter()).map(|(&(k, _), &c)| k.pow(c as u32)).product();
    let mut best = (t / 2) as u64;
    let mut any = false;
    for i in 0..kinds.len() {
        if counts[i] == 0 {
            continue;
        }
        let (size, cut_per_line) = kinds[i];
        let plane = switches / size;
        let mut cut = cut_per_line * plane as u64;
        if size % 2 == 1 {
            // The middle plane supplies ⌊P·t/2⌋ terminals of the smaller side: by terminal
            // links alone, or by splitting the plane itself, whichever cuts fewer links.
            counts[i] -= 1;
            let split = best_cut(kinds, counts, t, memo);
            counts[i] += 1;
            cut += ((plane * t / 2) as u64).min(split);
        }
        best = if any { best.min(cut) } else { cut };
        any = true;
    }
    memo.insert(counts.clone(), best);
    best
}
