// policies/shaped_queue.h: a walk that follows a group only through its shorter jobs (Step::Shorter)
// starts the same jobs in the same order as one that visits every job of the group and keeps
// those it may not start, Retakes included; and walks behind one head (not the queue's front:
// jobs arrive ahead of it), between which jobs are queued and taken out, visit the jobs of their
// window that a scan of the queue would.
#include <catch2/catch.hpp>

#include <optional>
#include <set>
#include <vector>

#include "harness.h"
#include "policies/shaped_queue.h"
#include "sim/random.h"

namespace acme::test {
namespace {

// What a walk of a ShapedQueue reads of a pass: the requests, the cluster and the estimates.
class QueuedOnly final : public SchedulingPass {
 public:
  QueuedOnly(std::vector<JobRequest> requests, std::vector<Time> estimates)
      : requests_(std::move(requests)), estimates_(std::move(estimates)), cluster_(small_cluster(4)) {}
  Time now() const override { return Time{}; }
  const JobRequest& request(JobId job) const override { return requests_[job]; }
  std::string_view user_name(JobId) const override { return "user"; }
  bool is_pending(JobId) const override { return true; }
  const Cluster& cluster() const override { return cluster_; }
  Time estimate(JobId job) const override { return estimates_[job]; }
  bool is_running(JobId) const override { return false; }
  const Placement& placement_of(JobId) const override { return none_; }
  Time expected_end(JobId) const override { return Time{}; }
  bool try_start(JobId) override { return false; }
  void wake_at(Time) override {}
  void preempt(JobId, Preempt) override {}
  Time oracle_remaining(JobId) const override { return Time{}; }

 private:
  std::vector<JobRequest> requests_;
  std::vector<Time> estimates_;
  Cluster cluster_;
  Placement none_;
};

// Job j of a random queue: 1, 2, 4 or 8 GPUs on one node, 4 cores a GPU, submitted at j s.
JobRequest random_request(Rng& rng, int j) {
  const int gpus = 1 << (rng.next() % 4);
  return {Time::seconds(j), gpus, 1, 4 * gpus, JobType::Other, 0};
}

}  // namespace

TEST_CASE("A walk through the shorter jobs of a group starts what a walk of every job starts", "[policies]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    const int n = 400;
    std::vector<JobRequest> requests;
    std::vector<Time> estimates;
    for (int j = 0; j < n; ++j) {
      requests.push_back(random_request(rng, j));
      estimates.push_back(Time::seconds(static_cast<std::int64_t>(rng.next() % 1000)));  // 0: none given
    }
    const QueuedOnly pass(requests, estimates);
    ShapedQueue skipping, visiting;
    std::vector<std::uint64_t> tags;
    for (JobId j = 0; j < static_cast<JobId>(n); ++j) {
      const QueueEntry e{0.0, requests[j].submit, j};
      tags.push_back(rng.next() % 3);  // groups split further, as a policy's limits split them
      skipping.insert(pass, e, tags[j], estimates[j]);
      visiting.insert(pass, e, tags[j], estimates[j]);
    }
    // A job may start when its estimate ends before the bound; some that may do not (their start
    // failed: Keep), and some starts change the policy's state (Retake): after the k-th, every
    // job of tag k % 3 visited is taken out (held, as by a limit), whatever its estimate.
    const Time bound = Time::seconds(static_cast<std::int64_t>(rng.next() % 300));
    const auto walk = [&](ShapedQueue& q, ShapedQueue::Step refused) {
      std::vector<JobId> taken;
      std::vector<bool> held(3, false);
      int retakes = 0;
      const QueueEntry before{-1.0, Time::seconds(-1), 0};
      q.walk(
          before, nullptr, [](JobId) { return true; },
          [&](JobId j) {
            taken.push_back(j);
            if (held[tags[j]]) return ShapedQueue::Step::Take;
            taken.pop_back();
            if (!(estimates[j] > Time{} && estimates[j] <= bound)) return refused;
            if (j % 7 == 0) return ShapedQueue::Step::Keep;
            taken.push_back(j);
            if (j % 5 != 0) return ShapedQueue::Step::Take;
            held[static_cast<std::size_t>(retakes++ % 3)] = true;
            return ShapedQueue::Step::Retake;
          },
          bound);
      return taken;
    };
    const std::vector<JobId> skipped = walk(skipping, ShapedQueue::Step::Shorter);
    const std::vector<JobId> visited = walk(visiting, ShapedQueue::Step::Keep);
    CHECK(skipped == visited);
    CHECK_FALSE(visited.empty());
    CHECK(skipping.size() == visiting.size());
  }
}

TEST_CASE("Walks behind one head visit their window's jobs while jobs come and go between them", "[policies]") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    const int n = 600;
    std::vector<JobRequest> requests;
    for (int j = 0; j < n; ++j) requests.push_back(random_request(rng, j));
    const QueuedOnly pass(requests, std::vector<Time>(n));
    ShapedQueue queue;
    std::set<QueueEntry> queued;  // what the walks are checked against
    const auto entry = [&](JobId j) { return QueueEntry{static_cast<double>(rng.next() % 4), requests[j].submit, j}; };
    JobId next = 0;
    for (; next < 200; ++next) {
      const QueueEntry e = entry(next);
      queue.insert(pass, e);
      queued.insert(e);
    }
    const QueueEntry head = *std::next(queued.begin(), 20);
    for (int round = 0; round < 60; ++round) {
      // Arrivals (some ahead of the head: the key is random), and jobs taken out anywhere.
      for (int k = 0; k < 5 && next < static_cast<JobId>(n); ++k, ++next) {
        const QueueEntry e = entry(next);
        queue.insert(pass, e);
        queued.insert(e);
      }
      for (int k = 0; k < 3 && queued.size() > 30; ++k) {
        const QueueEntry e = *std::next(queued.begin(), static_cast<long>(rng.next() % queued.size()));
        if (e == head) continue;
        queue.erase(e.job);
        queued.erase(e);
      }
      // A walk behind the head over a window of 40 jobs, wanting the groups of 1 and 4 GPUs,
      // taking every third job it visits.
      const QueueEntry* before = queue.nth(queue.rank(head) + 41);
      const std::optional<QueueEntry> end = before ? std::optional(*before) : std::nullopt;
      const auto wanted = [&](JobId j) {
        CHECK(queue.contains(j));  // asked with a job of the group
        return requests[j].gpu_num == 1 || requests[j].gpu_num == 4;
      };
      std::vector<JobId> expected, visited;
      for (auto it = queued.upper_bound(head); it != queued.end() && (!end || *it < *end); ++it)
        if (requests[it->job].gpu_num == 1 || requests[it->job].gpu_num == 4) expected.push_back(it->job);
      queue.walk(head, before, wanted, [&](JobId j) {
        visited.push_back(j);
        if (visited.size() % 3 != 0) return ShapedQueue::Step::Keep;
        queued.erase(queue.entry_of(j));
        return ShapedQueue::Step::Take;
      });
      CHECK(visited == expected);
      CHECK(queue.size() == queued.size());
    }
  }
}

}  // namespace acme::test
