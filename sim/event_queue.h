// The pending-event set, with a total and deterministic order.
//
// Events are ordered by (time, kind, seq): at one instant, job ends come first so that freed GPUs
// are seen by the jobs released at the same instant; `seq` is the insertion count, so two events
// that tie on time and kind keep their insertion order. Job releases (arrivals) are not queued
// here: they come from the workload's sorted release list and are handled after every queued
// event of the same instant, as if they were the last kind. No two events ever compare equal, hence the
// same input always gives the same order (ns-3's (time, uid); OMNeT++'s shouldPrecede).
//
// Complexity: push and pop O(log n), top O(1). Memory: 24 bytes per queued event.
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
  CapacityChange = 8,  // a capacity event starts (tag 1) or ends (tag 0); `job` holds its index
};

struct Event {
  Time time;
  std::uint64_t seq = 0;  // assigned by EventQueue::push
  JobId job = 0;
  EventKind kind = EventKind::JobEnd;
  std::uint32_t tag = 0;  // e.g. the job's start count, so a stale end can be recognized
};

class EventQueue {
 public:
  void push(Time time, EventKind kind, JobId job, std::uint32_t tag = 0) {
    heap_.push_back(Event{time, next_seq_++, job, kind, tag});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  // REQUIRES: !empty()
  const Event& top() const { return heap_.front(); }
  // REQUIRES: !empty()
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time != b.time) return a.time > b.time;
      if (a.kind != b.kind) return a.kind > b.kind;
      return a.seq > b.seq;
    }
  };
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace acme
