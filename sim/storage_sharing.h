// Checkpoint writes and restore reads in flight between jobs and the shared file system
// (failures.shared_storage): who is transferring now, how fast, and when each transfer ends.
//
// The rule is the network model's (sim/link_sharing.h, proportional sharing): a transfer asks for
// its job's storage path (its nodes' NICs, at most the storage links); when the transfers in
// flight ask for more than the storage links carry (ClusterSpec: top switches x storage_gbps), every
// one is scaled by the same factor, capacity / demand. So forty jobs writing at once each get a
// fortieth of the links when one alone would fill them, and a transfer's end moves
// whenever another starts or ends. Ends are whole seconds: the remainder at the current rate,
// rounded to the nearest second (at least 1), as a write alone (CheckpointModel::write).
//
// Not modelled: the fabric between a job's NICs and the storage links (its leaf and spine links are
// the network model's), and the storage servers' own limits beyond their links.
// Cost: O(transfers in flight) per start or end, and only when the scale changes.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/job.h"
#include "sim/time.h"

namespace acme {

class StorageSharing {
 public:
  explicit StorageSharing(double capacity_gbps);

  // A transfer whose end is now `end`: its id and version go with its end event; a later change
  // of its end bumps the version, so an event carrying an older one is stale.
  struct Moved {
    std::uint32_t id, version;
    Time end;
  };
  // Starts a transfer of `gb` gigabytes for `job` asking `gbps` now; `what` is the caller's (for
  // instance, which save it writes). Appends it and every transfer whose end moved to `moved`.
  std::uint32_t add(Time now, JobId job, std::uint32_t what, double gb, double gbps, std::vector<Moved>& moved);
  // Whether (id, version) is a transfer in flight whose end is that of its event.
  bool current(std::uint32_t id, std::uint32_t version) const;
  JobId job_of(std::uint32_t id) const { return slots_[id].job; }
  std::uint32_t what_of(std::uint32_t id) const { return slots_[id].what; }
  // When transfer `id` (in flight) ends as things stand.
  Time end_of(std::uint32_t id) const { return slots_[id].end; }
  // Ends transfer `id` now (done, or given up); appends the transfers whose end moved.
  void remove(Time now, std::uint32_t id, std::vector<Moved>& moved);
  // Gives up every transfer of `job` now (its run stopped); appends the transfers whose end moved.
  void remove_job(Time now, JobId job, std::vector<Moved>& moved);
  // Transfers in flight, and how many at most at once so far.
  std::size_t in_flight() const { return live_.size(); }
  std::size_t peak_in_flight() const { return peak_; }

 private:
  struct Slot {
    JobId job = 0;
    std::uint32_t what = 0, version = 0;
    double left_gb = 0, gbps = 0;  // gigabits still to move; asked for, Gb/s
    Time end;
    bool live = false;
  };
  // Moves every transfer in flight to `now` at the current scale.
  void advance(Time now);
  // The scale after demand changed; when it differs, every transfer's end is set again.
  void rescale(Time now, std::vector<Moved>& moved);
  Time end_at(Time now, const Slot& s) const;

  double capacity_gbps_;
  double demand_gbps_ = 0, scale_ = 1;
  Time last_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> live_, free_;
  std::size_t peak_ = 0;
};

}  // namespace acme
