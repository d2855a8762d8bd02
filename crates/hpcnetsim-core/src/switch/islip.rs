//! iSLIP matching (McKeown, IEEE/ACM ToN 7(2), 1999) of input ports to output ports at one
//! switch: every unmatched output grants the requesting unmatched input that comes first
//! from its grant pointer, every input accepts the granting output that comes first from its
//! accept pointer; repeated `iterations` times. Pointers move one beyond the matched partner,
//! and only for matches made in the first iteration, which desynchronises the outputs and
//! gives iSLIP its 100 % throughput under uniform traffic.

/// Reusable scratch space for one matching.
#[derive(Default, Debug)]
pub struct Scratch {
    in_matched: Vec<bool>,
    out_matched: Vec<bool>,
    /// Per output: the request it grants in this iteration, or `usize::MAX`.
    grant: Vec<usize>,
    /// Per input: the request it accepts in this iteration, or `usize::MAX`.
    accept: Vec<usize>,
}

/// Matches `requests` (input port, output port) of a switch with `ports` ports, updating
/// the switch's `grant_ptr` (per output) and `accept_ptr` (per input). Pushes the indices
/// of the matched requests onto `matched`; each input and each output appears at most once.
pub fn matching(
    requests: &[(u32, u32)],
    ports: usize,
    iterations: u32,
    grant_ptr: &mut [u32],
    accept_ptr: &mut [u32],
    scratch: &mut Scratch,
    matched: &mut Vec<usize>,
) {
    let sc = scratch;
    for v in [&mut sc.in_matched, &mut sc.out_matched] {
        v.clear();
        v.resize(ports, false);
    }
    let distance = |from: u32, to: u32| (to + ports as u32 - from) % ports as u32;
    for iteration in 0..iterations {
        // Grant: each free output picks the free requesting input closest after its pointer.
        sc.grant.clear();
        sc.grant.resize(ports, usize::MAX);
        for (k, &(i, o)) in requests.iter().enumerate() {
            let (i, o) = (i as usize, o as usize);
            if sc.in_matched[i] || sc.out_matched[o] {
                continue;
            }
            let g = sc.grant[o];
            if g == usize::MAX || distance(grant_ptr[o], i as u32) < distance(grant_ptr[o], requests[g].0) {
                sc.grant[o] = k;
            }
        }
        // Accept: each input picks the granting output closest after its pointer.
        sc.accept.clear();
        sc.accept.resize(ports, usize::MAX);
        let mut any = false;
        for o in 0..ports {
            let k = sc.grant[o];
            if k == usize::MAX {
                continue;
            }
            any = true;
            let i = requests[k].0 as usize;
            let a = sc.accept[i];
            if a == usize::MAX || distance(accept_ptr[i], o as u32) < distance(accept_ptr[i], requests[a].1) {
                sc.accept[i] = k;
            }
        }
        if !any {
            break;
        }
        for (i, &k) in sc.accept.iter().enumerate() {
            if k == usize::MAX {
                continue;
            }
            let o = requests[k].1 as usize;
            sc.in_matched[i] = true;
            sc.out_matched[o] = true;
            matched.push(k);
            if iteration == 0 {
                grant_ptr[o] = ((i + 1) % ports) as u32;
                accept_ptr[i] = ((o + 1) % ports) as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every input requests every output: one iteration matches all ports, and the pointers
    /// then desynchronise so that the next matchings are full permutations too.
    #[test]
    fn full_requests_give_full_matchings() {
        let n = 4;
        let reqs: Vec<(u32, u32)> = (0..n).flat_map(|i| (0..n).map(move |o| (i, o))).collect();
        let (mut g, mut a) = (vec![0; n as usize], vec![0; n as usize]);
        let mut sc = Scratch::default();
        let mut sizes = Vec::new();
        for _ in 0..4 {
            let mut m = Vec::new();
            matching(&reqs, n as usize, 1, &mut g, &mut a, &mut sc, &mut m);
            sizes.push(m.len());
        }
        // First slot: all outputs grant input 0, which accepts one: a single match.
        assert_eq!(sizes[0], 1);
        // After desynchronisation every slot is a full permutation.
        assert_eq!(sizes[3], 4);
    }

    /// More iterations find matches the first one missed; no port is matched twice.
    #[test]
    fn iterations_add_matches() {
        // Both outputs grant input 0, which accepts output 0; input 1's request for output 1
        // is granted only in a second iteration.
        let reqs = [(0, 0), (0, 1), (1, 1)];
        for (iters, want) in [(1, 1), (2, 2)] {
            let (mut g, mut a) = (vec![0; 2], vec![0; 2]);
            let mut m = Vec::new();
            matching(&reqs, 2, iters, &mut g, &mut a, &mut Scratch::default(), &mut m);
            assert_eq!(m.len(), want, "{iters} iterations");
            let mut ins: Vec<u32> = m.iter().map(|&k| reqs[k].0).collect();
            let mut outs: Vec<u32> = m.iter().map(|&k| reqs[k].1).collect();
            ins.sort();
            ins.dedup();
            outs.sort();
            outs.dedup();
            assert_eq!((ins.len(), outs.len()), (want, want));
        }
    }
}
