//! Hands the memory a list freed back to the operating system.
//!
//! A list arrives as pages of JSON (500 objects each), parsed into
//! `DynamicObject`s and converted: several megabytes per page for a few
//! milliseconds, for every watched kind at once at start-up and at
//! every periodic re-list. glibc's malloc keeps such freed memory inside its
//! heaps (between the objects the model keeps, and in one arena per worker
//! thread), so the console's resident memory stayed at the high-water mark
//! of its start-up: about 18 MiB more than what it holds with the `large`
//! scenario (docs/PERFORMANCE.md). `malloc_trim` releases the
//! free pages of every arena, also those in the middle of a heap.

/// Releases the allocator's free memory to the operating system (glibc only;
/// elsewhere nothing to do). Takes a few milliseconds with a large heap:
/// called once per completed list, not per event.
pub(super) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks and shrinks the allocator's own free
    // lists; it takes no pointer and is thread-safe (it locks each arena).
    unsafe {
        libc::malloc_trim(0);
    }
}
