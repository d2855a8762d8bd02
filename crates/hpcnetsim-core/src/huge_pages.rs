//! The memory allocator: the system's, asking Linux to back every large block with huge
//! pages. The engine reads its per-channel and per-queue state at random: on a large
//! network those arrays span hundreds of megabytes, and with 4 KiB pages almost every
//! access also misses the TLB and walks the page tables (twice over in a virtual machine).
//! A 2 MiB page covers 512 times as much. Linux's transparent huge pages are often enabled
//! only for memory that asks for them (`madvise`), hence the request. It changes no result.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks from this size on ask for huge pages (one huge page).
const HUGE_FROM: usize = 2 << 20;

/// The system allocator, with large blocks advised to use huge pages.
pub(crate) struct HugePages;

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
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if new_size >= HUGE_FROM && layout.size() < new_size {
            advise(p, new_size);
        }
        p
    }
}
