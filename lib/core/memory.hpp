#pragma once
// Process-wide allocator settings.

namespace fsicut {

// Keeps memory the process frees for its own later allocations instead of
// handing it back to the kernel (glibc: no mmap'd chunks, no heap trimming;
// elsewhere a no-op). Call once at the start of main, before the first large
// allocation.
//
// Why: a substep allocates and frees grid-sized arrays (matrices of (33), the
// multigrid levels, scratch fields) again and again. By default glibc serves
// each from fresh mmap'd pages and unmaps it on free, so every substep pays a
// page fault per 4 KiB touched; in a virtual machine a fault costs
// microseconds. Measured on the paper dam break at 100^3 (2-core VM,
// fsicut_bench_stages, before and after, alternating runs): 1.56 -> 1.12 s per
// substep on 1 thread (projection 0.78 -> 0.45 s), 0.89 -> 0.70 s on 2, peak
// resident memory unchanged (386 MB): the process reaches the same peak
// either way, it only stops returning and refaulting it.
void retain_freed_memory();

}  // namespace fsicut
