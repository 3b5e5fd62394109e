// Closed-loop submission of large jobs (workloads/synthetic_admission.h).
#include "workloads/synthetic_admission.h"

#include <algorithm>

namespace acme {

void Admission::start(std::int64_t at, const Draft& d) {
  ends_.emplace(at + d.run, d.gpus);
  demand_ += d.gpus;
}

void Admission::pop_ended(std::int64_t t) {
  while (!ends_.empty() && ends_.top().first <= t) {
    demand_ -= ends_.top().second;
    ends_.pop();
  }
}

void Admission::release_until(std::int64_t t, std::vector<Draft>& released) {
  // A waiting job is released at the first drawn end after which it fits; the jobs admitted
  // meanwhile (all submitted at or before t) are in ends_ already.
  t = std::min(t, end_ - 1);
  for (;;) {
    while (!waiting_.empty() && fits(waiting_.front().gpus)) {
      Draft d = waiting_.front();
      waiting_.pop_front();
      ++delayed_;
      delayed_s_ += static_cast<double>(now_ - d.submit);
      d.submit = now_;
      start(now_, d);
      released.push_back(d);
    }
    if (waiting_.empty() || ends_.empty() || ends_.top().first > t) return;
    now_ = std::max(now_, ends_.top().first);
    demand_ -= ends_.top().second;
    ends_.pop();
  }
}

bool Admission::admit(const Draft& d) {
  if (!rule_.on() || d.gpus == 0) return true;
  if (d.gpus < rule_.min_gpus) {
    start(d.submit, d);
    return true;
  }
  if (waiting_.empty()) {
    pop_ended(d.submit);
    now_ = d.submit;
    if (fits(d.gpus)) {
      start(d.submit, d);
      return true;
    }
  }
  waiting_.push_back(d);
  return false;
}

std::size_t Admission::drop_waiting() {
  const std::size_t dropped = waiting_.size();
  waiting_.clear();
  return dropped;
}

}  // namespace acme
