#include "app/random_trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

#include "sim/job.h"
#include "sim/random.h"
#include "sim/time.h"

namespace acme::test {
namespace {

const Time kBase = *parse_timestamp("2023-05-01 00:00:00+00:00");

int pick(Rng& rng, int lo, int hi) { return lo + static_cast<int>(rng.next() % static_cast<std::uint64_t>(hi - lo + 1)); }
bool chance(Rng& rng, double p) { return rng.uniform() < p; }

// Index into `weights`, drawn in proportion to them.
std::size_t weighted(Rng& rng, const std::vector<double>& weights) {
  double u = rng.uniform() * std::accumulate(weights.begin(), weights.end(), 0.0);
  for (std::size_t i = 0; i < weights.size(); ++i)
    if ((u -= weights[i]) < 0) return i;
  return weights.size() - 1;
}

// `n` weights in [0, 1), each zero with probability `zero`, at least one not zero.
std::vector<double> random_mix(Rng& rng, std::size_t n, double zero) {
  std::vector<double> w(n);
  for (double& x : w) x = chance(rng, zero) ? 0.0 : rng.uniform() * rng.uniform();
  w[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(n) - 1))] += 0.05;
  return w;
}

struct Row {
  std::string id, user, type, state, node_field, gpu_field;
  int gpus = 0, cpus = 0;
  std::int64_t submit = 0;           // seconds after kBase
  std::optional<std::int64_t> start, end;
};

// What one case draws once: the mixes every job is drawn from.
struct Mix {
  std::vector<double> types, sizes, runs, states;
  int users = 1;
  double never_started = 0, uneven = 0, empty_fields = 0;
};

enum Size { kSmall, kOdd, kMultiNode, kHundreds, kWhole, kTooLarge };
constexpr std::array<const char*, 7> kStates = {"COMPLETED", "FAILED", "CANCELLED", "PREEMPTED", "TIMEOUT", "NODE_FAIL", "RUNNING"};

int draw_gpus(Rng& rng, const Mix& mix, const ClusterSpec& c, bool eval) {
  const int total = c.total_gpus();
  const auto size = eval && chance(rng, 0.3) ? kHundreds : static_cast<Size>(weighted(rng, mix.sizes));
  switch (size) {
    case kSmall: return 1 << pick(rng, 0, 3);
    case kOdd: return std::array{3, 5, 6, 7, 12, 20}[static_cast<std::size_t>(pick(rng, 0, 5))];
    case kMultiNode: return std::min(total, 8 * pick(rng, 2, 8));
    case kHundreds: return std::min(total, pick(rng, 100, 512));
    case kWhole: return total;
    case kTooLarge: return total + 8 * pick(rng, 1, 4);
  }
  return 1;
}

std::int64_t draw_run(Rng& rng, const Mix& mix) {
  switch (weighted(rng, mix.runs)) {
    case 0: return 0;
    case 1: return static_cast<std::int64_t>(rng.exponential(90));
    case 2: return static_cast<std::int64_t>(rng.exponential(3600));
    case 3: return static_cast<std::int64_t>(rng.exponential(40000));
    default: return 7 * 86400 + pick(rng, 0, 86400);
  }
}

// One job, its submit time still 0 (the caller spreads them to the load it wants).
Row draw_row(Rng& rng, const Mix& mix, const ClusterSpec& c) {
  Row r;
  r.type = std::string(kJobTypeNames[weighted(rng, mix.types)]);
  r.user = "u" + std::to_string(pick(rng, 0, mix.users - 1));
  if (r.type == "CPU") {
    r.gpus = 0;
    r.gpu_field = chance(rng, mix.empty_fields) ? "" : "0";
    r.node_field = std::array<const char*, 3>{"", "0", "1"}[static_cast<std::size_t>(pick(rng, 0, 2))];
    r.cpus = pick(rng, 1, 64);
  } else {
    r.gpus = draw_gpus(rng, mix, c, r.type == "Eval");
    int nodes = std::max(1, (r.gpus + c.gpus_per_node - 1) / c.gpus_per_node);
    if (r.gpus > 1 && chance(rng, mix.uneven)) nodes = std::min(r.gpus, nodes + pick(rng, 1, 2));
    r.gpu_field = std::to_string(r.gpus);
    const bool default_nodes = nodes == std::max(1, (r.gpus + 7) / 8);
    r.node_field = default_nodes && chance(rng, mix.empty_fields) ? "" : std::to_string(nodes);
    r.cpus = std::min(nodes * c.cpus_per_node, r.gpus * pick(rng, 0, 16));
  }
  const std::size_t state = weighted(rng, mix.states);
  r.state = kStates[state];
  const std::int64_t queue = chance(rng, 0.3) ? 0 : static_cast<std::int64_t>(rng.exponential(600));
  if (chance(rng, mix.never_started) || (r.state == std::string("CANCELLED") && chance(rng, 0.3))) {
    const std::int64_t at = static_cast<std::int64_t>(rng.exponential(1800));
    if (r.state != std::string("CANCELLED") || chance(rng, 0.5)) r.end = at;  // start_time empty
    else r.start = r.end = at;                                                   // started and ended at once
    if (r.state == std::string("RUNNING")) r.state = "CANCELLED";                // RUNNING needs a start
  } else {
    r.start = queue;
    if (r.state != std::string("RUNNING") || chance(rng, 0.5)) r.end = queue + draw_run(rng, mix);
  }
  return r;
}

Mix draw_mix(Rng& rng) {
  Mix m;
  m.types = random_mix(rng, kJobTypeCount, 0.3);
  m.sizes = random_mix(rng, 6, 0.3);
  m.sizes[kWhole] *= 0.05;
  m.sizes[kTooLarge] *= chance(rng, 0.3) ? 0.02 : 0.0;
  m.runs = random_mix(rng, 5, 0.2);
  m.runs[0] *= 0.2;
  m.runs[4] *= 0.03;
  m.states = random_mix(rng, kStates.size(), 0.4);
  m.users = pick(rng, 1, 40);
  m.never_started = chance(rng, 0.5) ? 0.0 : rng.uniform() * 0.2;
  m.uneven = chance(rng, 0.5) ? 0.0 : 0.1;
  m.empty_fields = chance(rng, 0.5) ? 0.0 : 0.5;
  return m;
}

// Spreads the submissions over the span that gives `load` (GPU-time asked over the span and the
// cluster's GPUs), with a burst of `burst` jobs in one second somewhere in it.
void spread(Rng& rng, std::vector<Row>& rows, const ClusterSpec& c, double load, std::size_t burst) {
  double gpu_seconds = 0;
  for (const Row& r : rows)
    if (r.start && r.end) gpu_seconds += static_cast<double>(r.gpus) * static_cast<double>(*r.end - *r.start);
  const auto span = std::max<std::int64_t>(60, static_cast<std::int64_t>(gpu_seconds / (load * c.total_gpus())));
  const std::int64_t burst_at = pick(rng, 0, static_cast<int>(std::min<std::int64_t>(span, INT32_MAX)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& r = rows[i];
    r.submit = i < burst ? burst_at : static_cast<std::int64_t>(rng.uniform() * static_cast<double>(span));
    if (r.start) *r.start += r.submit;
    if (r.end) *r.end += r.submit;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.submit < b.submit; });
  if (chance(rng, 0.2))  // a few rows out of submit order, as real exports have
    for (int k = pick(rng, 1, 5); k > 0 && rows.size() > 1; --k) {
      const auto i = static_cast<std::size_t>(pick(rng, 0, static_cast<int>(rows.size()) - 2));
      std::swap(rows[i], rows[i + 1]);
    }
}

void name_jobs(Rng& rng, std::vector<Row>& rows, bool kalos) {
  std::set<std::string> used;
  std::int64_t next = 5000000;
  for (Row& r : rows) {
    if (!kalos) {
      r.id = std::to_string(next += pick(rng, 1, 40));
      continue;
    }
    do {
      r.id = "dlc";
      for (int k = 0; k < 13; ++k) r.id += "0123456789abcdefghijklmnopqrstuvwxyz"[pick(rng, 0, 35)];
    } while (!used.insert(r.id).second);
  }
}

std::string stamp(const std::optional<std::int64_t>& s, int offset) {
  return s ? format_timestamp(kBase + Time::seconds(*s), offset) : "";
}

// The file: the schema's columns (now and then in another order), fields quoted now and then.
std::string render(Rng& rng, const std::vector<Row>& rows, bool kalos) {
  std::vector<std::string> cols =
      kalos ? std::vector<std::string>{"job_id", "user", "node_num", "gpu_num", "cpu_num", "mem_per_pod_GB",
                                       "shared_mem_per_pod", "type", "state", "submit_time", "start_time",
                                       "end_time", "fail_time", "stop_time", "duration", "queue", "gpu_time"}
            : std::vector<std::string>{"job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state",
                                       "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time"};
  if (chance(rng, 0.2))
    for (std::size_t i = cols.size(); i > 1; --i) std::swap(cols[i - 1], cols[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(i) - 1))]);
  const std::string eol = chance(rng, 0.2) ? "\r\n" : "\n";
  const double quote = chance(rng, 0.3) ? 0.2 : 0.0;
  const int offset = kalos ? 0 : 8 * 3600;
  std::string out;
  for (std::size_t i = 0; i < cols.size(); ++i) out += (i ? "," : "") + cols[i];
  out += eol;
  for (const Row& r : rows) {
    const std::int64_t run = r.start && r.end ? *r.end - *r.start : 0;
    const std::map<std::string, std::string> field = {
        {"job_id", r.id}, {"user", r.user}, {"node_num", r.node_field}, {"gpu_num", r.gpu_field},
        {"cpu_num", std::to_string(r.cpus)}, {"mem_per_pod_GB", chance(rng, 0.5) ? "1,000" : ""},
        {"shared_mem_per_pod", chance(rng, 0.5) ? "100.0" : ""}, {"type", r.type}, {"state", r.state},
        {"submit_time", stamp(r.submit, offset)}, {"start_time", stamp(r.start, offset)},
        {"end_time", stamp(r.end, offset)}, {"fail_time", r.state == std::string("FAILED") ? stamp(r.end, offset) : ""},
        {"stop_time", r.state == std::string("CANCELLED") ? stamp(r.end, offset) : ""},
        {"duration", r.end ? std::to_string(*r.end - r.submit) : ""},
        {"queue", r.start ? std::to_string(*r.start - r.submit) + (kalos ? ".0" : "") : ""},
        {"gpu_time", std::to_string(run * r.gpus) + ".0"}};
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string& v = field.at(cols[i]);
      const bool quoted = v.find(',') != std::string::npos || chance(rng, quote);
      out += (i ? "," : "") + (quoted ? "\"" + v + "\"" : v);
    }
    out += eol;
  }
  return out;
}

ClusterSpec draw_cluster(Rng& rng, bool kalos) {
  ClusterSpec c;
  c.name = kalos ? "random-kalos" : "random-seren";
  c.nodes = std::array{2, 6, 16, 40, 72}[static_cast<std::size_t>(pick(rng, 0, 4))];
  c.gpus_per_node = 8;
  c.cpus_per_node = 128;
  c.nodes_per_leaf = std::array{2, 4, 8, 16}[static_cast<std::size_t>(pick(rng, 0, 3))];
  c.spines = pick(rng, 1, 4);
  c.oversubscription = 1.0 + pick(rng, 0, 2);
  return c;
}

}  // namespace

RandomTrace random_trace(std::uint64_t seed) {
  Rng rng(seed);
  RandomTrace t;
  const bool kalos = chance(rng, 0.5);
  t.schema = kalos ? "kalos" : "seren";
  t.cluster = draw_cluster(rng, kalos);
  const Mix mix = draw_mix(rng);
  const std::size_t burst = chance(rng, 0.2) ? static_cast<std::size_t>(chance(rng, 0.2) ? pick(rng, 1000, 3000) : pick(rng, 100, 400)) : 0;
  const auto n = burst + static_cast<std::size_t>(pick(rng, 1, 250));
  std::vector<Row> rows;
  for (std::size_t i = 0; i < n; ++i) rows.push_back(draw_row(rng, mix, t.cluster));
  const double load = 0.3 + rng.uniform() * 2.7;
  spread(rng, rows, t.cluster, load, burst);
  name_jobs(rng, rows, kalos);
  t.text = render(rng, rows, kalos);
  t.shape = t.schema + ", " + std::to_string(n) + " jobs on " + std::to_string(t.cluster.nodes) + " nodes, load " +
            std::to_string(load) + ", a burst of " + std::to_string(burst);
  return t;
}

namespace {

// The fields of a CSV line (quotes removed, a doubled quote kept as one).
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') out.back() += line[i++];
    else if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) out.emplace_back();
    else if (ch != '\r') out.back() += ch;
  }
  return out;
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::string shuffled_rows(const std::string& text, std::uint64_t seed) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, end - at));
    at = end;
  }
  const std::vector<std::string> header = fields_of(lines.at(0).substr(0, lines[0].find('\n')));
  const auto column = [&](const char* name) { return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin()); };
  const std::size_t submit = column("submit_time"), start = column("start_time"), n = lines.size() - 1;
  // Rows tied by a submit or a start second form groups that keep their order.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::map<std::string, std::size_t> first_with;
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<std::string> f = fields_of(lines[i + 1].substr(0, lines[i + 1].find('\n')));
    for (const std::string& key : {"s" + f.at(submit), f.at(start).empty() ? std::string() : "r" + f.at(start)}) {
      if (key.empty()) continue;
      const auto [it, fresh] = first_with.emplace(key, i);
      if (!fresh) parent[find_root(parent, i)] = find_root(parent, it->second);
    }
  }
  // Random keys, then each group's keys handed out in ascending order to its rows in file order.
  Rng rng(seed);
  std::vector<double> key(n);
  for (double& k : key) k = rng.uniform();
  std::map<std::size_t, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; ++i) groups[find_root(parent, i)].push_back(i);
  for (const auto& [root, members] : groups) {
    std::vector<double> keys;
    for (const std::size_t i : members) keys.push_back(key[i]);
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 0; k < members.size(); ++k) key[members[k]] = keys[k];
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  std::string out = lines[0];
  for (const std::size_t i : order) out += lines[i + 1];
  return out;
}

std::string cluster_yaml(const ClusterSpec& c) {
  return "name: " + c.name + "\nnodes: " + std::to_string(c.nodes) + "\ngpus_per_node: " + std::to_string(c.gpus_per_node) +
         "\ncpus_per_node: " + std::to_string(c.cpus_per_node) + "\nnodes_per_leaf: " + std::to_string(c.nodes_per_leaf) +
         "\nspines: " + std::to_string(c.spines) + "\noversubscription: " + std::to_string(c.oversubscription) + "\n";
}

}  // namespace acme::test
