//! Cache prefetch hints for walks over 1M-vertex arrays whose next elements are known well
//! before they are read (a surface walk discovers a vertex long before it visits it, a dab lists
//! its groups before it writes them). A hint never changes a result.

/// How many items ahead a walk over a list it already holds (a dab's groups, a footprint's
/// reached groups) asks for the data of: far enough for the line to arrive, near enough to stay
/// in the first cache.
pub const AHEAD: usize = 8;

/// Asks the processor to bring the cache line holding `items[index]` into every cache level;
/// nothing when `index` is out of range or off x86-64.
#[inline]
pub fn prefetch<T>(items: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(index) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch reads nothing architecturally and never faults; `item` is a valid
        // reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, index);
}
