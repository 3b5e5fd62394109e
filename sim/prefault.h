// Page faults taken in bulk, or on another thread.
//
// A fresh array is backed page by page as it is first written: a million 32-byte jobs take about
// 8,000 faults of 4 KiB, each entering the kernel to map and zero a page. A loop that fills such an
// array pays them one by one. prefault() asks the kernel to map the pages writable without
// touching their contents (Linux 5.14 and later; elsewhere it does nothing): in one call, and on
// whichever thread has the time. The synthetic stream's drawing thread maps the arrays its jobs
// are copied into (workloads/synthetic_stream.h), and a fed Simulation its per-job state while the
// feed draws the first jobs (Simulation::set_feed).
// Huge pages (MADV_HUGEPAGE) were tried instead: 0.15-0.27 s for six months of Seren against
// 0.16-0.17 s, the slow runs stalled in the kernel's compaction once memory was fragmented.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace acme {

// Maps the whole pages inside [data, data + bytes) writable. A hint: never an error, and never a
// read or write of the memory, so it may run beside a thread that writes there.
inline void prefault(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr std::uintptr_t kPage = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)data, (void)bytes;
#endif
}

}  // namespace acme
