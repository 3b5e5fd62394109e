#include "workloads/acme_trace_writer.h"

#include "io/csv.h"

namespace acme {

void write_acme_trace(const std::filesystem::path& path, TraceSchema schema, const Workload& w,
                      const std::vector<JobOutcome>& outcomes) {
  const bool kalos = schema == TraceSchema::Kalos;
  const int offset = kalos ? 0 : 8 * 3600;
  CsvWriter csv(path);
  if (kalos) {
    for (std::string_view h : {"job_id", "user", "node_num", "gpu_num", "cpu_num", "mem_per_pod_GB",
                               "shared_mem_per_pod", "type", "state", "submit_time", "start_time", "end_time",
                               "fail_time", "stop_time", "duration", "queue", "gpu_time"})
      csv.text(h);
  } else {
    for (std::string_view h : {"job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time",
                               "start_time", "end_time", "duration", "queue", "gpu_time"})
      csv.text(h);
  }
  csv.end_row();
  for (std::size_t i = 0; i < w.size(); ++i) {
    const JobRequest& r = w.requests[i];
    const JobOutcome& o = outcomes[i];
    char end_buf[48], buf[48];
    const std::string_view end = o.end ? format_timestamp(*o.end, offset, end_buf) : std::string_view{};
    csv.text(w.names[static_cast<std::uint32_t>(i)]).text(w.users[r.user]);
    csv.integer(r.node_num).integer(r.gpu_num).integer(r.cpu_num);
    if (kalos) csv.integer(r.gpu_num > 0 ? 125LL * r.gpu_num : 8).real(r.gpu_num > 0 ? 100.0 : 0.0, 1);
    csv.text(name(r.type)).text(name(o.state)).text(format_timestamp(r.submit, offset, buf));
    csv.text(o.start ? format_timestamp(*o.start, offset, buf) : std::string_view{}).text(end);
    if (kalos) {
      const bool failed = is_failure(o.state);
      csv.text(failed ? end : "").text(failed ? "" : end);
    }
    // Seren: duration = end - start; Kalos: duration = end - submit (its quirk, kept).
    const Time ref = kalos ? r.submit : o.start.value_or(r.submit);
    if (o.end) csv.integer((*o.end - ref).sec()); else csv.blank();
    if (o.start) csv.integer((*o.start - r.submit).sec()); else csv.blank();
    if (r.gpu_num > 0) csv.real(static_cast<double>(o.gpu_seconds), 1); else csv.blank();
    csv.end_row();
  }
  csv.commit();
}

}  // namespace acme
