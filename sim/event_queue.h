// The pending-event set, with a total and deterministic order.
//
// Events are ordered by (time, kind, seq): at one instant, job ends come first so that freed GPUs
// are seen by the jobs released at the same instant; `seq` is the insertion count, so two events
// that tie on time and kind keep their insertion order. Job releases (arrivals) are not queued
// here: they come from the workload's sorted release list and are handled after every queued
// event of the same instant, as if they were the last kind. No two events ever compare equal, hence the
// same input always gives the same order (ns-3's (time, uid); OMNeT++'s shouldPrecede).
//
// Complexity: push and pop O(log n), top O(1). Memory: 32 bytes per queued event.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/job.h"
#include "sim/time.h"

namespace acme {

// Kinds in the order they are handled at one instant.
enum class EventKind : std::uint8_t {
  JobEnd = 0,        // a running job's run time is over: free its resources
  QueueTimeout = 1,  // a pending job is withdrawn (cancelled while waiting, as recorded)
  Failure = 2,       // an injected failure stops a running job (after ends: a job that ends at
                     // the instant it would fail has ended); tag as JobEnd's
  NodeUp = 3,        // a node taken down by a failure is repaired; `job` holds the node index
  Recovered = 4,     // a failed job's recovery delay is over: it is queued again; tag as JobEnd's
  Release = 5,       // a job that waited for another (Workload::after) is submitted
  Wake = 6,          // a pass the policy asked for (SchedulingPass::wake_at); nothing else happens
  NetworkChange = 7,  // a network fault starts (tag 1) or ends (tag 0); `job` holds the fault index
  FeatureTimed = 8,   // an instant a feature asked for (FeatureControl::at): `job` holds its id, tag the
                      // feature's place among those with Feature::kTimed
  PaceChange = 9,      // a running job's pace changes (Feature::kPaced); tag as JobEnd's
  SaveStart = 10,      // a run's checkpoint save starts (failures.shared_storage); tag as JobEnd's
  CopyEnd = 11,        // an async save's copy to host memory ends, its write starts; tag as JobEnd's
  TransferEnd = 12,    // a write to shared storage ends; `job` holds the transfer, tag its version
};

struct Event {
  Time time;
  std::uint64_t order = 0;  // kind, then insertion count (assigned by EventQueue::push)
  JobId job = 0;
  EventKind kind = EventKind::JobEnd;
  std::uint32_t tag = 0;  // e.g. the job's start count, so a stale end can be recognized
};

// A 4-ary heap: half the levels of a binary one to sift through, and each event's place in the
// order is two numbers (time, then kind and insertion count in one), compared without branches
// on the kind.
class EventQueue {
 public:
  void push(Time time, EventKind kind, JobId job, std::uint32_t tag = 0) {
    const Event e{time, std::uint64_t{static_cast<std::uint8_t>(kind)} << 56 | next_seq_++, job, kind, tag};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {  // up, while it comes before its parent
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // REQUIRES: !empty()
  const Event& top() const { return heap_.front(); }
  // REQUIRES: !empty()
  Event pop() {
    const Event first = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {  // down from the root, the earliest child up, until `last` fits
      const std::size_t child = 4 * i + 1;
      if (child >= n) break;
      std::size_t earliest = child;
      for (std::size_t c = child + 1; c < std::min(child + 4, n); ++c)
        if (before(heap_[c], heap_[earliest])) earliest = c;
      if (!before(heap_[earliest], last)) break;
      heap_[i] = heap_[earliest];
      i = earliest;
    }
    if (n > 0) heap_[i] = last;
    return first;
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;  // below 2^56
};

}  // namespace acme
