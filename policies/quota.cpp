// Quota: each group holds a guaranteed share of the cluster's GPUs.
//
// Groups are job types, or read from policy.user_groups (a CSV of user,group; users not in it
// fall back to their job's type). policy.quota_pct.<group> is the group's guaranteed share of
// the GPUs; the shares may not add up to more than 100, and what they leave is unassigned.
// Within a group, jobs start in priority order (policy.type_priority, see PriorityRanking), then
// submit order, and the group's first job that cannot start blocks the rest of the group, not
// other groups. Groups are served in order of policy.group_priority.<group> (default: the
// priority of the job type of that name).
//
// A job whose group stays within its quota starts if it fits; if it does not fit, GPUs lent to
// borrowers are reclaimed by preempting (killing) borrower jobs, latest start first. A job that
// would take its group beyond its quota borrows: it starts only while the GPUs lent out stay
// within the idle quota of the groups that lend (policy.lend.<group>: 1 lends, 0 does not) plus
// the unassigned GPUs; a group whose first job is within its quota but waits for room lends
// nothing more meanwhile. A borrower stays a borrower until it ends. So a group's own usage never
// exceeds its quota; only borrowed GPUs go beyond. A job larger than both its group's quota and
// everything that can ever be lent to it (the lending groups' quotas plus the unassigned GPUs)
// could never start: it is refused on arrival (see Policy::refuses).
//
// A pass costs O(groups) plus O(log q) per job started, plus the victims considered (not again
// for a job they could not make room for, until room comes back).
#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "policies/common.h"
#include "policies/registry.h"
#include "sim/error.h"

namespace acme {
namespace {

class QuotaPolicy final : public Policy {
 public:
  explicit QuotaPolicy(Params& params) : ranking_(params) {
    std::vector<std::pair<std::string, double>> default_pct = {
        {"Pretrain", 70}, {"SFT", 10}, {"MLLM", 5}, {"Other", 5}, {"Debug", 5}, {"Eval", 5}, {"CPU", 0}};
    for (const auto& [name, pct] : params.table("quota_pct", default_pct, 0, 100,
                                                "guaranteed share of the cluster's GPUs per group, %"))
      group(name).quota_pct = pct;
    for (const auto& [name, lend] : params.table("lend", {}, 0, 1, "1: the group lends its idle quota, 0: not", 1))
      group(name).lends = lend > 0.5;
    group_priority_ = params.table("group_priority", {}, -1e6, 1e6,
                                   "order in which groups are served, higher first (default: the type's priority)");
    const std::string map = params.path("user_groups", "CSV file of user,group; empty: groups are job types");
    if (!map.empty()) read_user_groups(map);
    double total = 0;
    for (const auto& [name, g] : groups_) total += g.quota_pct;
    if (total > 100.0 + 1e-9) throw InputError("policy.quota_pct: the quotas add up to " + std::to_string(total) + "%, over 100%");
  }

  bool refuses(const JobRequest& request, std::string_view user, const Cluster& cluster) override {
    if (!sized_) size_quotas(cluster.total_gpus());
    if (request.gpu_num <= most_lendable_) return false;  // most jobs: no need to find the group
    const auto it = groups_.find(group_name(request, user));
    const std::int64_t quota = it == groups_.end() ? 0 : it->second.quota;
    return request.gpu_num > quota;
  }

  void on_queued(JobId job, const JobRequest&) override { arrivals_.push_back(job); }
  void on_stopped(JobId job) override {
    auto it = running_.find(job);
    if (it == running_.end()) return;
    const Held h = it->second;
    running_.erase(it);
    if (h.borrowed) {
      borrowed_ -= h.gpus;
      borrowers_.erase({-static_cast<double>(h.start.sec()), h.submit, job});
    } else {
      h.group->own -= h.gpus;
    }
  }

  void schedule(SchedulingPass& pass) override {
    if (!sized_) size_quotas(pass.cluster().total_gpus());
    admit(pass);
    for (Group* g : order_) g->waiting = false;
    for (Group* g : order_) {
      for (;;) {
        if (!arrivals_.empty()) admit(pass);  // jobs a preemption requeued
        drop_withdrawn(pass, g->queue);
        if (g->queue.empty()) break;
        const JobId job = g->queue.begin()->job;
        const std::int64_t gpus = pass.request(job).gpu_num;
        bool started = false, borrowed = false;
        if (g->own + gpus <= g->quota) {
          started = pass.try_start(job) || reclaim(pass, *g, job);
          g->waiting = !started;
        } else if (borrowed_ + gpus <= lendable()) {
          started = borrowed = pass.try_start(job);
        }
        if (!started) break;
        g->queue.erase(g->queue.begin());
        const Time submit = pass.request(job).submit;
        running_[job] = Held{g, gpus, pass.now(), submit, borrowed};
        if (borrowed) {
          borrowed_ += gpus;
          borrowers_.insert({-static_cast<double>(pass.now().sec()), submit, job});
        } else {
          g->own += gpus;
        }
      }
    }
  }

 private:
  struct Group {
    std::string name;
    double quota_pct = 0;
    bool lends = true;
    std::int64_t quota = 0;  // GPUs
    std::int64_t own = 0;    // GPUs held by the group's jobs within its quota
    bool waiting = false;    // its first job is within quota but could not start this pass
    JobQueue queue;
    // The job reclaim() last failed to start, and the cluster's room_freed() then.
    struct Unopened {
      JobId job = ~JobId{0};
      std::uint64_t room = 0;
    } unopened;
  };
  struct Held {
    Group* group;
    std::int64_t gpus;
    Time start, submit;
    bool borrowed;
  };

  Group& group(const std::string& name) {
    auto [it, inserted] = groups_.try_emplace(name);
    if (inserted) it->second.name = name;
    return it->second;
  }

  void read_user_groups(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open the user-group map (policy.user_groups)");
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || (n == 1 && line == "user,group")) continue;
      const auto comma = line.find(',');
      if (comma == std::string::npos || comma == 0 || comma + 1 == line.size())
        throw InputError(path + ":" + std::to_string(n) + ": expected user,group");
      user_group_[line.substr(0, comma)] = line.substr(comma + 1);
    }
  }

  // Quotas in GPUs, fixed once the cluster is known; groups ordered for service.
  void size_quotas(std::int64_t total) {
    std::int64_t assigned = 0, lent = 0;
    for (auto& [name, g] : groups_) {
      g.quota = static_cast<std::int64_t>(g.quota_pct / 100.0 * static_cast<double>(total));
      assigned += g.quota;
      if (g.lends) lent += g.quota;
    }
    unassigned_ = total - assigned;
    most_lendable_ = unassigned_ + lent;
    sized_ = true;
    reorder();
  }

  void reorder() {
    order_.clear();
    for (auto& [name, g] : groups_) order_.push_back(&g);
    auto rank = [this](const Group* g) {
      for (const auto& [n, p] : group_priority_)
        if (n == g->name) return p;
      if (auto t = parse_job_type(g->name)) return ranking_.type_priority(*t);
      return 0.0;
    };
    std::stable_sort(order_.begin(), order_.end(), [&](const Group* a, const Group* b) { return rank(a) > rank(b); });
  }

  // The job's group: its user's, from policy.user_groups, else its job type.
  std::string_view group_name(const JobRequest& request, std::string_view user) const {
    if (!user_group_.empty())
      if (auto it = user_group_.find(std::string(user)); it != user_group_.end()) return it->second;
    return kJobTypeNames[static_cast<std::size_t>(request.type)];
  }

  void admit(const SchedulingPass& pass) {
    for (JobId j : arrivals_) {
      const JobRequest& r = pass.request(j);
      Group*& by_type = by_type_[static_cast<std::size_t>(r.type)];  // groups are types without a user map
      Group* g = user_group_.empty() ? by_type : nullptr;
      if (!g) {
        const std::string_view name = group_name(r, pass.user_name(j));
        auto it = groups_.find(name);
        if (it == groups_.end()) {  // a group without a quota: it can only borrow
          it = groups_.try_emplace(std::string(name)).first;
          it->second.name = name;
          reorder();
        }
        g = &it->second;
        if (user_group_.empty()) by_type = g;
      }
      g->queue.insert({ranking_.key(pass, j), r.submit, j});
    }
    arrivals_.clear();
  }

  // Idle quota of the lending groups plus the unassigned GPUs. A group waiting for room within
  // its quota lends nothing more until its job has started.
  std::int64_t lendable() const {
    std::int64_t idle = unassigned_;
    for (const Group* g : order_)
      if (g->lends && !g->waiting) idle += std::max<std::int64_t>(g->quota - g->own, 0);
    return idle;
  }

  // Starts the group's first job, within its quota, by preempting borrowers (start_by_preempting).
  // A job for which it found no plan (it stopped no one: no room came back) is not planned for
  // again while no room comes back: the jobs started since took free room, and a borrower among
  // them would give back no more than it took (the victims, latest start first, may only have
  // lost older ones past the budget), so no plan would be found.
  bool reclaim(SchedulingPass& pass, Group& g, JobId job) {
    const std::uint64_t room = pass.cluster().room_freed();
    if (g.unopened.job == job && g.unopened.room == room) return false;
    if (start_by_preempting(pass, job, borrower_list(victim_budget(pass.request(job))), SchedulingPass::Preempt::Kill))
      return true;
    if (pass.cluster().room_freed() == room) g.unopened = {job, room};
    return false;
  }

  // Up to `budget` borrowers, latest start first (in scratch space kept between calls).
  const std::vector<JobId>& borrower_list(std::size_t budget) {
    victims_.clear();
    for (auto it = borrowers_.begin(); it != borrowers_.end() && victims_.size() < budget; ++it)
      victims_.push_back(it->job);
    return victims_;
  }

  PriorityRanking ranking_;
  std::vector<std::pair<std::string, double>> group_priority_;
  std::map<std::string, Group, std::less<>> groups_;
  std::vector<Group*> order_;                       // every group (map nodes stay put)
  std::array<Group*, kJobTypeCount> by_type_{};     // each type's group, once met, without a user map
  std::unordered_map<std::string, std::string> user_group_;
  std::vector<JobId> arrivals_;
  std::unordered_map<JobId, Held> running_;
  JobQueue borrowers_;  // latest start first, then earliest submitted (not the row: any file order)
  std::vector<JobId> victims_;  // borrower_list's
  std::int64_t borrowed_ = 0, unassigned_ = 0;
  std::int64_t most_lendable_ = 0;  // what lendable() gives when every lending group is idle
  bool sized_ = false;
};

const PolicyRegistrar kQuota({"quota",
    "guaranteed GPU quotas per group (job type or user map); idle quota is lent and reclaimed by "
    "preempting the borrowers that started last",
    [](Params& params) -> std::unique_ptr<Policy> { return std::make_unique<QuotaPolicy>(params); }, 40});

}  // namespace

}  // namespace acme
