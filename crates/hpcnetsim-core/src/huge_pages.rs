//! The memory allocator: the system's, asking Linux to back every large block with huge
//! pages. The engine reads its per-channel and per-queue state at random: on a large
//! network those arrays span hundreds of megabytes, and with 4 KiB pages almost every
//! access also misses the TLB and walks the page tables (twice over in a virtual machine).
//! A 2 MiB page covers 512 times as much. Linux's transparent huge pages are often enabled
//! only for memory that asks for them (`madvise`), hence the request. Large blocks also
//! start on a cache line: the system allocator aligns them to 16 bytes only, so a 16- or
//! 32-byte record (two VCs' output state, say) would straddle two lines every other time.
//! It changes no result.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on ask for huge pages (one huge page).
const HUGE_FROM: usize = 2 << 20;

/// Alignment of large blocks: a cache line.
const LINE: usize = 64;

/// The system allocator, with large blocks line-aligned and advised to use huge pages.
pub(crate) struct HugePages;

/// The layout a block of `layout` is allocated with: line-aligned if it is large.
#[inline]
fn placed(layout: Layout) -> Layout {
    if layout.size() >= HUGE_FROM && layout.align() < LINE {
        // A power of two, and the size is far below isize::MAX: cannot fail.
        Layout::from_size_align(layout.size(), LINE).unwrap_or(layout)
    } else {
        layout
    }
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

// SAFETY: every call is forwarded to the system allocator; `advise` only adds a hint.
unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc(placed(layout)) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc_zeroed(placed(layout)) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, placed(layout)) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (from, to) = (placed(layout), placed(Layout::from_size_align(new_size, layout.align()).unwrap_or(layout)));
        let p = if from.align() == to.align() {
            // SAFETY: forwarded with the caller's guarantees, in the layout it was allocated with.
            unsafe { System.realloc(ptr, from, new_size) }
        } else {
            // The block crosses the size from which it is line-aligned: move it by hand.
            // SAFETY: `to` has a non-zero size (the caller's guarantee); both blocks are valid
            // for the bytes copied, and the old one is released in its own layout.
            unsafe {
                let p = System.alloc(to);
                if !p.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                    System.dealloc(ptr, from);
                }
                p
            }
        };
        if new_size >= HUGE_FROM && layout.size() < new_size {
            advise(p, new_size);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Large blocks start on a line, small ones keep the system's placement, and a block
    /// grown or shrunk across the threshold keeps its contents.
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
                a.dealloc(p, big);
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
            let r = a.realloc(q, grown, 1024);
            assert!((0..1024).all(|i| *r.add(i) == i as u8), "shrunk block lost its contents");
            a.dealloc(r, Layout::from_size_align(1024, 16).unwrap());
        }
    }
}
