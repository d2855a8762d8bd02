//! What an arbitration at a switch starts from, its waiting packets and pending links, in
//! one cache-line record. Below saturation a switch almost always holds at most two waiting
//! packets and four pending links (on a 4-ary 7-tree at 40 % of capacity, 2.4 % of the
//! packets join a longer waiting list and 0.03 % of the links a longer pending one), which
//! then sit in the record itself; a longer list moves whole to a heap block (and back once
//! it is short again), so every list stays one slice in the same order. Three waiting
//! packets and one pending link would fit too, but there a third of the links joined a
//! longer list, whose heap block is two dependent misses away.

/// Waiting packets kept in the record itself.
const WAITING: usize = 2;
/// Pending links kept in the record itself.
const PENDING: usize = 4;
/// A list's length byte when the list is in the heap block.
const SPILLED: u8 = u8::MAX;

/// A switch's waiting packets and pending links (see the module's documentation).
#[derive(Clone, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct SwitchLists {
    /// Front packets waiting for a grant, in arrival order (swap-removed when granted).
    waiting: [Waiter; WAITING],
    /// Output channels with a reserved VC whose packet has not started.
    pending: [u32; PENDING],
    n_waiting: u8,
    n_pending: u8,
    /// Waiting packets appended since the switch last arbitrated: the list's last ones,
    /// which the arbitration first puts in a canonical order (`InputQueued::settle`).
    fresh: u32,
    /// Lists longer than the record holds.
    spill: Option<Box<Spill>>,
}

/// Lists that outgrew the record.
#[derive(Clone, Debug, Default)]
struct Spill {
    waiting: Vec<Waiter>,
    pending: Vec<u32>,
}

const _: () = assert!(std::mem::size_of::<SwitchLists>() == 64, "one cache line per switch");

impl SwitchLists {
    /// The waiting packets.
    #[inline]
    pub(crate) fn waiting(&self) -> &[Waiter] {
        match (self.n_waiting, &self.spill) {
            (SPILLED, Some(s)) => &s.waiting,
            (n, _) => &self.waiting[..n as usize],
        }
    }

    /// The waiting packets, to rewrite their entries in place (their order stays).
    pub(crate) fn waiting_mut(&mut self) -> &mut [Waiter] {
        match (self.n_waiting, &mut self.spill) {
            (SPILLED, Some(s)) => &mut s.waiting,
            (n, _) => &mut self.waiting[..n as usize],
        }
    }

    /// The pending links.
    #[inline]
    pub(crate) fn pending(&self) -> &[u32] {
        match (self.n_pending, &self.spill) {
            (SPILLED, Some(s)) => &s.pending,
            (n, _) => &self.pending[..n as usize],
        }
    }

    /// Whether both lists are empty.
    #[inline]
    pub(crate) fn is_idle(&self) -> bool {
        self.n_waiting == 0 && self.n_pending == 0
    }

    /// Appends a waiting packet.
    #[inline]
    pub(crate) fn push_waiting(&mut self, w: Waiter) {
        push(&mut self.waiting, &mut self.n_waiting, &mut self.spill, |s| &mut s.waiting, w);
    }

    /// Appends a waiting packet of the current cycle's events (see `fresh`).
    #[inline]
    pub(crate) fn push_fresh(&mut self, w: Waiter) {
        self.push_waiting(w);
        self.fresh += 1;
    }

    /// Whether packets were appended since the switch last arbitrated.
    #[inline]
    pub(crate) fn has_fresh(&self) -> bool {
        self.fresh != 0
    }

    /// The packets appended since the switch last arbitrated, to reorder or route in place.
    #[inline]
    pub(crate) fn fresh_mut(&mut self) -> &mut [Waiter] {
        let n = self.fresh as usize;
        let all = self.waiting_mut();
        let len = all.len();
        &mut all[len - n..]
    }

    /// Counts the packets appended so far as old ones.
    #[inline]
    pub(crate) fn clear_fresh(&mut self) {
        self.fresh = 0;
    }

    /// Removes the waiting packet of input queue `queue` (the last one takes its place).
    #[inline]
    pub(crate) fn take_waiting(&mut self, queue: u32) -> Option<Waiter> {
        let pos = self.waiting().iter().position(|w| w.queue == queue)?;
        Some(swap_remove(&mut self.waiting, &mut self.n_waiting, &mut self.spill, |s| &mut s.waiting, pos))
    }

    /// Appends pending link `out` unless it is there already.
    #[inline]
    pub(crate) fn add_pending(&mut self, out: u32) {
        if !self.pending().contains(&out) {
            push(&mut self.pending, &mut self.n_pending, &mut self.spill, |s| &mut s.pending, out);
        }
    }

    /// Removes the pending link at position `k` (the last one takes its place).
    #[inline]
    pub(crate) fn swap_remove_pending(&mut self, k: usize) -> u32 {
        swap_remove(&mut self.pending, &mut self.n_pending, &mut self.spill, |s| &mut s.pending, k)
    }
}

/// Appends `x` to the list held in `inline[..*n]`, or in the spill block if `*n` is
/// `SPILLED`, moving the list there when the record is full.
#[inline]
fn push<T: Copy, const N: usize>(
    inline: &mut [T; N],
    n: &mut u8,
    spill: &mut Option<Box<Spill>>,
    list: impl Fn(&mut Spill) -> &mut Vec<T>,
    x: T,
) {
    match *n {
        SPILLED => list(spill.as_mut().expect("a spilled list has its block")).push(x),
        len if (len as usize) < N => {
            inline[len as usize] = x;
            *n += 1;
        }
        _ => spill_and_push(inline, n, spill, list, x),
    }
}

/// `push` when the record is full: the list moves to the spill block. Rare, and kept out of
/// the callers so that they stay small enough to be inlined.
#[cold]
#[inline(never)]
fn spill_and_push<T: Copy, const N: usize>(
    inline: &mut [T; N],
    n: &mut u8,
    spill: &mut Option<Box<Spill>>,
    list: impl Fn(&mut Spill) -> &mut Vec<T>,
    x: T,
) {
    let v = list(spill.get_or_insert_with(Default::default));
    v.extend_from_slice(inline);
    v.push(x);
    *n = SPILLED;
}

/// Removes position `k` of the list (see `push`), the last element taking its place, and
/// moves a spilled list back into the record once it fits.
#[inline]
fn swap_remove<T: Copy, const N: usize>(
    inline: &mut [T; N],
    n: &mut u8,
    spill: &mut Option<Box<Spill>>,
    list: impl Fn(&mut Spill) -> &mut Vec<T>,
    k: usize,
) -> T {
    if *n != SPILLED {
        let last = *n as usize - 1;
        let x = inline[k];
        inline[k] = inline[last];
        *n -= 1;
        return x;
    }
    let v = list(spill.as_mut().expect("a spilled list has its block"));
    let x = v.swap_remove(k);
    if v.len() <= N {
        inline[..v.len()].copy_from_slice(v);
        *n = v.len() as u8;
        v.clear();
    }
    x
}

#[cfg(test)]
mod tests {
    use super::{SwitchLists, Waiter};

    fn waiter(queue: u32) -> Waiter {
        Waiter { queue, class: queue * 10, size: 16, packet: queue + 100 }
    }

    /// The lists keep the order a plain vector with `push` and `swap_remove` would, through
    /// growing past the record, shrinking back into it and growing again.
    #[test]
    fn lists_keep_vector_order_across_the_spill() {
        let mut lists = SwitchLists::default();
        let mut model: Vec<Waiter> = Vec::new();
        let mut pending = Vec::new();
        let ops: &[(bool, u32)] = &[
            (true, 1),
            (true, 2),
            (true, 3),
            (true, 4),
            (true, 5),
            (false, 2),
            (false, 5),
            (false, 1),
            (true, 6),
            (true, 7),
            (true, 8),
            (false, 4),
            (false, 6),
            (false, 3),
            (false, 7),
            (false, 8),
            (true, 9),
        ]; // fmt: skip
        for &(push, q) in ops {
            if push {
                lists.push_waiting(waiter(q));
                model.push(waiter(q));
                lists.add_pending(q % 6);
                if !pending.contains(&(q % 6)) {
                    pending.push(q % 6);
                }
            } else {
                let got = lists.take_waiting(q).expect("queue waits");
                let pos = model.iter().position(|w| w.queue == q).expect("in the model");
                assert_eq!(got.packet, model.swap_remove(pos).packet);
                if !pending.is_empty() {
                    assert_eq!(lists.swap_remove_pending(0), pending.swap_remove(0));
                }
            }
            let queues = |ws: &[Waiter]| ws.iter().map(|w| (w.queue, w.class, w.packet)).collect::<Vec<_>>();
            assert_eq!(queues(lists.waiting()), queues(&model), "after {:?}", (push, q));
            assert_eq!(lists.pending(), &pending[..]);
            assert_eq!(lists.is_idle(), model.is_empty() && pending.is_empty());
        }
        assert!(lists.take_waiting(42).is_none());
    }
}

/// A front packet waiting at a switch: its queue, the id of its candidate list, its size and
/// the packet itself. Kept compact so arbitration and the grant read nothing else.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Waiter {
    pub(crate) queue: u32,
    pub(crate) class: u32,
    pub(crate) size: u32,
    pub(crate) packet: u32,
}
