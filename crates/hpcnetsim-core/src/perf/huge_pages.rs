//! The memory allocator: the system's, asking Linux to back every large block with huge
//! pages. The engine reads its per-channel and per-queue state at random: on a large
//! network those arrays span hundreds of megabytes, and with 4 KiB pages almost every
//! access also misses the TLB and walks the page tables (twice over in a virtual machine).
//! A 2 MiB page covers 512 times as much. Linux's transparent huge pages are often enabled
//! only for memory that asks for them (`madvise`), hence the request. Large blocks also
//! start on a cache line: the system allocator aligns them to 16 bytes only, so a 16- or
//! 32-byte record (two VCs' output state, say) would straddle two lines every other time.
//! They are allocated a little larger and the system's pointer is kept just before the
//! aligned start, rather than asked of the system with a 64-byte alignment: for that it
//! zeroes blocks by writing them, while `calloc` leaves untouched pages unbacked (arrays a
//! run never uses then cost no memory). It changes no result. A block the system refuses
//! ends the process with one line (`memory::refused`) instead of the standard library's abort.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on ask for huge pages (one huge page).
const HUGE_FROM: usize = 2 << 20;

/// Alignment of large blocks: a cache line.
const LINE: usize = 64;

/// The system allocator, with large blocks line-aligned and advised to use huge pages.
pub struct HugePages;

/// Bytes of the system's pointer kept before a large block.
const WORD: usize = std::mem::size_of::<usize>();

/// Bytes added to a large block: room to align it and to keep the system's pointer.
const PAD: usize = LINE + WORD;

/// Whether a block of `layout` is allocated line-aligned (by `outer`); a block too close to
/// the largest size a layout allows is left to the system.
#[inline]
fn large(layout: Layout) -> bool {
    layout.size() >= HUGE_FROM && layout.align() <= LINE && layout.size() <= isize::MAX as usize - 2 * PAD
}

/// The system block holding a large block of `layout` (`large` keeps it a valid layout).
#[inline]
fn outer(layout: Layout) -> Layout {
    Layout::from_size_align(layout.size() + PAD, WORD).unwrap_or(layout)
}

/// Offset from the system block `raw` to the line-aligned block inside it: at least a word,
/// for the system's pointer, and at most `PAD` bytes, so the block ends within the system's.
#[inline]
fn offset(raw: *mut u8) -> usize {
    (raw as usize + WORD).next_multiple_of(LINE) - raw as usize
}

/// The line-aligned block at `offset` in the system block `raw` (null stays null), with
/// `raw` stored in the word before it.
///
/// # Safety
/// `raw` is null or a block of `outer(layout)` for some large `layout`.
#[inline]
unsafe fn inside(raw: *mut u8) -> *mut u8 {
    if raw.is_null() {
        return raw;
    }
    let p = raw.wrapping_add(offset(raw));
    // SAFETY: the word before `p` lies within the system block and is word-aligned.
    unsafe { (p.sub(WORD) as *mut *mut u8).write(raw) };
    p
}

/// The system block of the large block at `p` (see `inside`).
///
/// # Safety
/// `p` was returned by `inside`.
#[inline]
unsafe fn system_block(p: *mut u8) -> *mut u8 {
    // SAFETY: `inside` wrote the system's pointer there.
    unsafe { (p.sub(WORD) as *const *mut u8).read() }
}

/// Asks for huge pages over the block at `ptr` of `size` bytes (a hint: errors are ignored).
#[inline]
fn advise(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if !ptr.is_null() && size >= HUGE_FROM {
        // madvise wants a page-aligned start: the block's first page. That page may also
        // hold the end of a neighbouring block, which the hint does not disturb: it changes
        // how pages are backed, never what they hold.
        let start = ptr as usize & !4095;
        // SAFETY: a hint on memory this allocator owns; it changes no contents.
        unsafe { libc::madvise(start as *mut libc::c_void, size + (ptr as usize - start), libc::MADV_HUGEPAGE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size);
}

// SAFETY: every call is forwarded to the system allocator, large blocks inside a system block
// of `outer` size; `advise` only adds a hint.
unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees; a large block gets its system block.
        let p = unsafe {
            if large(layout) {
                inside(System.alloc(outer(layout)))
            } else {
                System.alloc(layout)
            }
        };
        if p.is_null() {
            crate::memory::refused(layout.size());
        }
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`; the system block is zeroed, hence the block inside it.
        let p = unsafe {
            if large(layout) {
                inside(System.alloc_zeroed(outer(layout)))
            } else {
                System.alloc_zeroed(layout)
            }
        };
        if p.is_null() {
            crate::memory::refused(layout.size());
        }
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees; a large block releases its system block.
        unsafe {
            if large(layout) {
                System.dealloc(system_block(ptr), outer(layout))
            } else {
                System.dealloc(ptr, layout)
            }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let grown = Layout::from_size_align(new_size, layout.align()).unwrap_or(layout);
        // SAFETY: the block was allocated in `layout` (the caller's guarantee). A large block's
        // system block is resized in place or moved with its contents, which are then moved to
        // its new aligned start before the system's pointer is written in front of them.
        let p = unsafe {
            match (large(layout), large(grown)) {
                (false, false) => System.realloc(ptr, layout, new_size),
                (true, true) => {
                    let raw = system_block(ptr);
                    let old = ptr as usize - raw as usize;
                    let moved = System.realloc(raw, outer(layout), outer(grown).size());
                    if moved.is_null() {
                        crate::memory::refused(new_size);
                    }
                    // Its offset from the system's start may differ after a move.
                    std::ptr::copy(moved.add(old), moved.add(offset(moved)), layout.size().min(new_size));
                    inside(moved)
                }
                _ => {
                    // Across the threshold: a new block (advised by `alloc`), the contents copied.
                    // (`alloc` never returns null: it ends the process instead.)
                    let p = self.alloc(grown);
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                    return p;
                }
            }
        };
        if p.is_null() {
            crate::memory::refused(new_size);
        }
        if layout.size() < new_size {
            advise(p, new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Large blocks start on a line, zeroed ones are zero, and a block grown or shrunk
    /// (across the threshold or beyond it) keeps its contents.
    #[test]
    fn large_blocks_are_line_aligned_and_keep_their_contents() {
        let a = HugePages;
        let big = Layout::from_size_align(HUGE_FROM + 16, 16).unwrap();
        for _ in 0..4 {
            // SAFETY: a non-zero layout, released in the same layout.
            unsafe {
                let p = a.alloc(big);
                assert!(!p.is_null());
                assert_eq!(p as usize % LINE, 0, "large block at {p:?}");
                p.write_bytes(0xff, big.size());
                a.dealloc(p, big);
                let z = a.alloc_zeroed(big);
                assert_eq!(z as usize % LINE, 0, "large zeroed block at {z:?}");
                assert!((0..big.size()).step_by(4093).all(|i| *z.add(i) == 0), "zeroed block not zero");
                a.dealloc(z, big);
            }
        }
        let small = Layout::from_size_align(4096, 16).unwrap();
        // SAFETY: each pointer is used within its block and released in its current layout.
        unsafe {
            let p = a.alloc(small);
            for i in 0..4096 {
                *p.add(i) = i as u8;
            }
            let q = a.realloc(p, small, HUGE_FROM * 2);
            assert_eq!(q as usize % LINE, 0);
            assert!((0..4096).all(|i| *q.add(i) == i as u8), "grown block lost its contents");
            let grown = Layout::from_size_align(HUGE_FROM * 2, 16).unwrap();
            // Large to large: resized by the system, moved back onto a line if need be.
            let q = a.realloc(q, grown, HUGE_FROM * 5);
            assert_eq!(q as usize % LINE, 0);
            assert!((0..4096).all(|i| *q.add(i) == i as u8), "large block lost its contents");
            let grown = Layout::from_size_align(HUGE_FROM * 5, 16).unwrap();
            let r = a.realloc(q, grown, 1024);
            assert!((0..1024).all(|i| *r.add(i) == i as u8), "shrunk block lost its contents");
            a.dealloc(r, Layout::from_size_align(1024, 16).unwrap());
        }
    }
}
