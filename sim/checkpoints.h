// Checkpoints and restarts of a job's runs: how long a save stalls the job, when a save is safe
// from a failure, and the phases a run after a failure goes through before it computes again.
// The keys failures.checkpoint_*, save_time_s, model_params, restart phases ... (configs/README.md;
// the defaults in configs/failures/acme.yaml, each with its source or called an assumption).
//
// A checkpoint's size: model_params x bytes_per_param when the run gives a model size (traces give
// none), else checkpoint_gb_per_gpu x the job's GPUs (a mapping from GPUs to parameters, ASSUMED:
// configs/failures/acme.yaml says which). A write to the shared file system goes through the
// narrower of the job's storage path (its nodes' NICs) and the cluster's storage links
// (ClusterSpec: top switches x storage_gbps), or takes save_time_s when that is given. By
// default each job's write sees the whole of that bandwidth. With shared_storage, the writes and
// reads in flight share the storage links (sim/storage_sharing.h): a run's saves are then events of the
// Simulation (SaveClock, sim/run_state.h), a sync save stalls until its write ends, an async one
// is safe when its background write ends, and a restore from storage (load_s 0) loads until its
// read ends, however many others move data at once; with save_time_s given, a write moves what the
// job's path carries in save_time_s.
//
// Modes, for a save every `interval` of compute:
//  - Sync: training stops for the whole write; the save is safe when it ends.
//  - Async: training stops for the copy to host memory (the checkpoint over the job's GPUs' links
//    to host memory, host_gbps each; with save_time_s given, save_time_s / async_speedup), and the
//    write goes on in the background: a failure before it ends loses back to the previous save.
//    Sync over async is then the host links over the storage path: 8x for a job on one node of
//    8 GPUs and a 200 Gb/s NIC, more once the storage links bind (Acme measured 3.6-58.7x).
//  - MultiLevel (lazy multi-level: host memory, local SSD, shared file system): the copy to host
//    memory is lazy (DataStates-LLM): it overlaps the forward and backward passes of the next
//    iteration, which leave the state it copies unchanged, so training stalls only for the part of
//    the copy longer than they are (lazy_overlap_s; 0: stalls as Async). Behind the run, each node
//    then writes its shard of the checkpoint to its local SSD and to a partner node's (SCR's
//    partner scheme), and the write to the shared file system goes on as Async's. What a failure
//    leaves decides the level a save is safe at and the run restores from (kept()):
//     - none of the job's nodes down (a process or framework failure; the nodes keep their
//       memory): host memory, safe as soon as the stall ends, read back at host speed;
//     - one of its nodes down, the job on two or more (with ssd_gbps > 0): the SSDs, the lost
//       node's shard on its partner; safe once the SSD write ends (ssd_transfer: each node
//       writes two shards at ssd_gbps and takes one over its NICs), read back the same way;
//     - more nodes down, a job on one node, no SSD level, or an SSD write slower than the write to
//       the shared file system (which then has the newer saves): the shared file system, as Async.
//    Restores ignore where the job is placed again: host memory and SSDs are read where the
//    checkpoint is, at their own speed (an ASSUMPTION; the new nodes' NICs are not modelled).
//
// A run after a failure first goes through the restart phases: communicator initialisation, the
// checkpoint load (load_s, or the checkpoint read through the job's storage path, from host
// memory when it survived), and warm-up. Detection and diagnosis come before (the recovery
// delay, FailureModel), and waiting to be placed again is the scheduler's.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/cluster_spec.h"
#include "sim/job.h"
#include "sim/time.h"

namespace acme {

enum class CheckpointMode : std::uint8_t { Sync, Async, MultiLevel };

struct CheckpointSettings {
  CheckpointMode mode = CheckpointMode::Sync;
  double interval_s = 0;       // compute between two saves; 0: none
  double save_s = 0;           // one write to shared storage, seconds; 0: size / bandwidth
  double gb_per_gpu = 0;       // checkpoint GB per GPU, without a model size
  double model_params = 0;     // parameters of every checkpointing job; 0: from gb_per_gpu
  double bytes_per_param = 12;
  double async_speedup = 1;    // the write over the copy to host memory
  double host_gbps = 200;      // a GPU's copy to and from host memory, Gb/s
  double lazy_overlap_s = 0;   // MultiLevel: seconds of an iteration's passes the host copy hides behind
  double ssd_gbps = 0;         // MultiLevel: a node's local SSD write and read, Gb/s; 0: no SSD level
  double comm_init_s = 0, load_s = 0, warmup_s = 0;  // restart phases; load_s 0: size / bandwidth
  bool shared_storage = false;  // writes share the storage links with those in flight
};

// A run's restart phases, seconds, in the order they happen.
struct RestartPhases {
  Time comm_init, load, warmup;
  Time total() const { return comm_init + load + warmup; }
};

class CheckpointModel {
 public:
  CheckpointModel() = default;
  explicit CheckpointModel(const CheckpointSettings& s);
  // Takes the NIC and storage bandwidths from the cluster (default: a ClusterSpec's defaults).
  void use_cluster(const ClusterSpec& cluster);

  CheckpointMode mode() const { return s_.mode; }
  Time interval() const { return interval_; }
  // The checkpoint of `r`, GB.
  double size_gb(const JobRequest& r) const;
  // One write of `r`'s checkpoint to the shared file system: save_s, or the size over the
  // narrower of the job's NICs and the storage links; whole seconds, at least 1 if anything.
  Time write(const JobRequest& r) const;
  // With shared_storage: the bandwidth `r`'s writes ask for (the narrower of its NICs and the
  // storage links), the storage links' in all, and the gigabytes one write moves (its checkpoint,
  // or with save_s given what that bandwidth carries in save_s).
  bool shared_storage() const { return s_.shared_storage; }
  double path_gbps(const JobRequest& r) const { return std::min(r.node_num * node_gbps_, storage_gbps_); }
  double storage_gbps() const { return storage_gbps_; }
  bool load_from_size() const { return !(s_.load_s > 0); }  // a restore's load is its size over a bandwidth
  double write_gb(const JobRequest& r) const { return s_.save_s > 0 ? s_.save_s * path_gbps(r) / 8.0 : size_gb(r); }
  // How long one save stalls training: the write (Sync), the copy to host memory (Async), or the
  // part of that copy longer than lazy_overlap_s (MultiLevel).
  Time stall(const JobRequest& r) const;
  // Where a run after a failure loads its checkpoint from: nowhere (the job saves none, it starts
  // over), the shared file system, host memory or the local SSDs (MultiLevel, by what survived).
  enum class Restore : std::uint8_t { None, Storage, Host, Ssd };
  // What a failure that took `nodes_lost` of `r`'s nodes down leaves of its saves: the level it
  // restores from, and how long after its stall ends a save is safe there (0: at once; Sync's
  // saves are safe when their stall, the write, ends).
  struct Kept {
    Restore from;
    Time lag;
  };
  Kept kept(const JobRequest& r, int nodes_lost) const;
  // A node's share of `r`'s SSD level, one way: two shards through its SSDs, one through its NICs.
  Time ssd_transfer(const JobRequest& r) const;
  // The phases of a run after a failure.
  RestartPhases restart(const JobRequest& r, Restore from) const;

 private:
  CheckpointSettings s_;
  Time interval_;
  double node_gbps_ = ClusterSpec{}.nics_per_node * ClusterSpec{}.nic_gbps;
  double storage_gbps_ = ClusterSpec{}.spines * ClusterSpec{}.storage_gbps;
  Time transfer(double gb, double gbps) const;  // whole seconds, at least 1 if anything
  double copy_to_host_s(const JobRequest& r) const;  // seconds, not rounded
};

}  // namespace acme
