// Slurm-style QOS limits on running jobs, per job type: what all of a type's running jobs hold
// together (GrpTRES on GPUs, GrpJobs) and what one user's hold (MaxTRESPerUser, MaxJobsPerUser),
// in GPUs or in jobs. A limit of 0 is none.
//
// A limit caps what running jobs hold: a job larger than it still starts when nothing else holds
// any of it, so no limit makes a job unrunnable. A job held back by a limit is named by the limit's
// key; the policy sets it aside until a job counting against that key stops.
//
// Cost: O(1) per query and change; 32 bytes per (user, type) once a type has a per-user limit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/policy.h"

namespace acme {

class QosLimits {
 public:
  // Reads policy.type_gpu_limit.<T>, type_job_limit.<T>, user_gpu_limit.<T>, user_job_limit.<T>.
  explicit QosLimits(Params& params);

  // What a limit caps: a type's GPUs, a type's jobs, a user's GPUs of a type, a user's jobs of a type.
  enum Kind : std::size_t { kTypeGpus, kTypeJobs, kUserGpus, kUserJobs, kKinds };
  using Key = std::size_t;
  // The limit that starting the job now would go past, as a key; none if it may start.
  std::optional<Key> binding(const JobRequest& r) const {
    const auto t = static_cast<std::size_t>(r.type);
    const unsigned kinds = kinds_set_[t];
    if (kinds == 0) return std::nullopt;
    const auto over = [&](std::size_t kind, Key k, std::int64_t demand) {
      return (kinds >> kind & 1u) != 0 && use_of(k) > 0 && use_of(k) + demand > limit_[kind][t];
    };
    const Key of_type = t * kKinds;
    if (over(kTypeGpus, of_type + kTypeGpus, r.gpu_num)) return of_type + kTypeGpus;
    if (over(kTypeJobs, of_type + kTypeJobs, 1)) return of_type + kTypeJobs;
    if (kinds < (1u << kUserGpus)) return std::nullopt;  // no per-user limit
    if (const Key k = key(kUserGpus, r.user, r.type); over(kUserGpus, k, r.gpu_num)) return k;
    if (const Key k = key(kUserJobs, r.user, r.type); over(kUserJobs, k, 1)) return k;
    return std::nullopt;
  }
  // Whether any limit is set for jobs of the type.
  bool limits(JobType type) const { return kinds_set_[static_cast<std::size_t>(type)] != 0; }
  // Whether the limit of `key` is set (not 0).
  bool is_set(Key key) const { return limit_of(key) > 0; }
  // Whether a job of `gpus` GPUs held back by the limit of `key` may start now (see binding).
  bool admits(Key key, std::int64_t gpus) const {
    const std::int64_t room = headroom(key);
    return demand(key, gpus) <= room || room == limit_of(key);
  }
  // What a job of `gpus` GPUs takes of the limit of `key`: its GPUs, or one job.
  static std::int64_t demand(Key key, std::int64_t gpus) { return counts_jobs(kind_of(key)) ? 1 : gpus; }
  // What the limit of `key` leaves now.
  std::int64_t headroom(Key key) const { return limit_of(key) - use_of(key); }
  // The keys of the limits a job of `user` and `type` counts against.
  static std::array<Key, kKinds> keys_of(std::uint32_t user, JobType type);
  // Jobs of one tag and shape are bound by the same limits: 0 for a type without limits, else the
  // type and, with a per-user limit, the user.
  std::uint64_t tag_of(const JobRequest& r) const;
  // A job of `gpus` GPUs started (sign 1) or stopped (sign -1); only jobs of a type with limits
  // (limits(type)) need be charged.
  void charge(std::uint32_t user, JobType type, std::int64_t gpus, int sign);

 private:
  static bool counts_jobs(std::size_t kind) { return kind == kTypeJobs || kind == kUserJobs; }
  static bool per_user(std::size_t kind) { return kind >= kUserGpus; }
  // A key: the kind in its low bits over the type (per type) or user x type (per user).
  static Key key(std::size_t kind, std::uint32_t user, JobType type) {
    const auto t = static_cast<std::size_t>(type);
    return (per_user(kind) ? std::size_t{user} * kJobTypeCount + t : t) * kKinds + kind;
  }
  static std::size_t kind_of(Key key) { return key % kKinds; }
  static std::size_t type_of(Key key) { return key / kKinds % kJobTypeCount; }
  std::int64_t limit_of(Key key) const { return limit_[kind_of(key)][type_of(key)]; }
  std::int64_t use_of(Key key) const { return key < use_.size() ? use_[key] : 0; }
  bool has_user_limit(std::size_t t) const { return limit_[kUserGpus][t] > 0 || limit_[kUserJobs][t] > 0; }

  std::array<std::array<std::int64_t, kJobTypeCount>, kKinds> limit_{};
  std::array<unsigned, kJobTypeCount> kinds_set_{};  // [type]: bit k set when its limit of kind k is set
  std::vector<std::int64_t> use_;  // [key]: what running jobs hold of it
};

}  // namespace acme
