// _acmesim: the C++ side of the Python module (python/acmesim/__init__.py is the API). Runs go
// through the same code as the acmesim executable (app/app.h); outputs come back as typed
// columns (io/captured_table.h), never through CSV files. A policy written in Python is
// adapted to the C++ Policy contract (sim/policy.h) by PythonPolicy.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string_view>
#include <unordered_map>
#include <stdexcept>
#include <string>
#include <vector>

#include "policies/registry.h"
#include "app/app.h"
#include "app/plugin_keys.h"
#include "sim/error.h"
#include "io/config.h"

namespace py = pybind11;

namespace acme {
namespace {

// A Python exception inside a policy: its traceback, with where the run was.
class PolicyRaised : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A policy's misuse of what it was given, raised in Python as acmesim.PolicyError.
class PolicyMisuse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The names of a run's jobs and users (Policy::on_run_start), for the requests a Python policy
// gets and for its errors. Empty until the run starts.
struct RunNames {
  const StringTable* jobs = nullptr;
  const UserTable* users = nullptr;
  // The trace's job_id of the job; its handle as text before the run starts.
  std::string job_id(JobId job) const {
    return jobs != nullptr && job < jobs->size() ? std::string((*jobs)[job]) : std::to_string(job);
  }
  std::string user(const JobRequest& r) const {
    return users != nullptr && r.user < users->size() ? std::string((*users)[r.user]) : std::to_string(r.user);
  }
};

// A JobRequest as Python sees it: a copy, with the job's trace id and its user's name.
struct RequestCopy {
  JobRequest request;
  JobId handle;
  std::string job_id, user;
};

RequestCopy copy_request(const RunNames& names, JobId job, const JobRequest& r) {
  return RequestCopy{r, job, names.job_id(job), names.user(r)};
}

// The SchedulingPass a Python policy sees: the pass during the schedule() call it was given to;
// once the call returns (the pass is gone), every method raises PolicyMisuse instead. Python
// owns it, so that a policy may keep it.
class PassHandle {
 public:
  PassHandle(SchedulingPass& pass, const RunNames& names) : pass_(&pass), names_(&names) {}
  SchedulingPass& operator*() const {
    if (pass_ == nullptr)
      throw PolicyMisuse("a SchedulingPass was used after the schedule() call it was given to returned; a pass is "
                         "valid only during its call (keep job handles, and use the pass of the current call)");
    return *pass_;
  }
  void expire() { pass_ = nullptr; }
  const RunNames& names() const { return *names_; }

 private:
  SchedulingPass* pass_;
  const RunNames* names_;  // the policy's, which outlives the pass
};

// The C++ Policy contract over an instance of acmesim.Policy. Every call holds the GIL, from
// converting its arguments to dropping them, so that runs on other threads (a sweep) may call it.
class PythonPolicy final : public Policy {
 public:
  explicit PythonPolicy(py::object policy) : policy_(std::move(policy)) {
    py::gil_scoped_acquire gil;
    name_ = py::str(policy_.attr("__class__").attr("__name__"));
    reads_estimates_ = policy_.attr("reads_estimates")().cast<bool>();
    on_queued_ = policy_.attr("on_queued");
    on_withdrawn_ = policy_.attr("on_withdrawn");
    on_stopped_ = policy_.attr("on_stopped");
    schedule_ = policy_.attr("schedule");
  }
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;
    on_queued_ = on_withdrawn_ = on_stopped_ = schedule_ = policy_ = py::object();
  }

  void on_run_start(const StringTable& jobs, const UserTable& users) override { names_ = {&jobs, &users}; }
  void on_queued(JobId job, const JobRequest& r) override {
    call(on_queued_, "on_queued", job, job, copy_request(names_, job, r));
  }
  void on_withdrawn(JobId job) override { call(on_withdrawn_, "on_withdrawn", job, job); }
  void on_stopped(JobId job) override { call(on_stopped_, "on_stopped", job, job); }
  void schedule(SchedulingPass& pass) override {
    now_ = pass.now().sec();
    py::gil_scoped_acquire gil;
    auto owned = std::make_unique<PassHandle>(pass, names_);
    PassHandle& handle = *owned;
    const py::object given = py::cast(std::move(owned));
    struct Expire {  // also when the policy raises: whatever kept `given` holds a dead pass
      PassHandle& handle;
      ~Expire() { handle.expire(); }
    } expire{handle};
    call(schedule_, "schedule", kNoJob, given);
  }
  bool reads_estimates() const override { return reads_estimates_; }

 private:
  template <class... Args>
  void call(py::object& method, const char* what, JobId job, Args&&... args) {
    py::gil_scoped_acquire gil;
    try {
      method(std::forward<Args>(args)...);
    } catch (py::error_already_set& e) {
      const auto trace = py::str("").attr("join")(
          py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace())).cast<std::string>();
      std::string where = "policy " + name_ + "." + what + " raised at simulated time " + std::to_string(now_) + " s";
      if (job != kNoJob) where += " (job_id " + names_.job_id(job) + ", handle " + std::to_string(job) + ")";
      throw PolicyRaised(where + ":\n" + trace);
    }
  }

  py::object policy_, on_queued_, on_withdrawn_, on_stopped_, schedule_;
  std::string name_;
  RunNames names_;
  bool reads_estimates_ = false;
  std::int64_t now_ = 0;
};

// policy.name: python:module.Class (and the instances acmesim.run(policy=...) names): made by
// acmesim._make_policy, with the policy.* keys as keyword arguments.
std::unique_ptr<Policy> resolve_python_policy(std::string_view name, Params& params) {
  py::gil_scoped_acquire gil;
  py::dict kwargs;
  for (const auto& [key, value] : params.take_rest("a keyword argument of the Python policy"))
    kwargs[py::str(key)] = value;
  try {
    py::object policy = py::module_::import("acmesim").attr("_make_policy")(std::string(name), kwargs);
    return std::make_unique<PythonPolicy>(std::move(policy));
  } catch (py::error_already_set& e) {
    // A hook of the wrong signature (acmesim._check_hooks) is the policy's error, not the input's.
    if (e.matches(py::module_::import("acmesim").attr("PolicyError"))) throw PolicyRaised(py::str(e.value()).cast<std::string>());
    throw InputError("policy.name: " + std::string(name) + ": " + e.what());
  }
}

// A numpy array that owns the vector's memory (moved, not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule free(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free);
}

// A captured table as (header, columns, rows): each column (kind, values, blank mask; the mask
// empty when no cell is blank) with kind "integer", "real", "text" or "blank". The columns'
// memory moves to the arrays.
py::tuple table_to_python(CapturedTable& t) {  // (kind, values, blank mask, decimals of reals)
  py::list columns;
  for (CapturedColumn& c : t.columns) {
    py::array_t<std::uint8_t> blank = to_numpy(std::move(c.blank));
    switch (c.kind) {
      case CapturedColumn::Kind::Integer:
        columns.append(py::make_tuple("integer", to_numpy(std::move(c.integers)), blank, 0));
        break;
      case CapturedColumn::Kind::Real:
        columns.append(py::make_tuple("real", to_numpy(std::move(c.reals)), blank, c.decimals));
        break;
      case CapturedColumn::Kind::Text:  // codes (-1: blank) into the distinct texts
        columns.append(py::make_tuple("text", py::make_tuple(to_numpy(std::move(c.codes)), py::cast(c.distinct)), blank, 0));
        break;
      case CapturedColumn::Kind::Blank:
        columns.append(py::make_tuple("blank", py::none(), blank, 0));
        break;
    }
  }
  return py::make_tuple(py::cast(t.header), columns, t.rows);
}

// SchedulingPass (sim/policy.h) as Python sees it, through a PassHandle.
void bind_pass(py::module_& m) {
  const auto job = py::arg("job");
  py::class_<PassHandle>(m, "SchedulingPass",
                         "one scheduling pass: what a policy may see and do (sim/policy.h); valid only during the "
                         "schedule() call it is given to, after which every method raises PolicyError")
      .def("now", [](const PassHandle& p) { return (*p).now().sec(); }, "the simulated time, seconds")
      .def("request", [](const PassHandle& p, JobId j) { return copy_request(p.names(), j, (*p).request(j)); }, job,
           "what the job asks for: a JobRequest (a copy, which stays readable)")
      .def("job_id", [](const PassHandle& p, JobId j) { (*p).request(j); return p.names().job_id(j); }, job,
           "the job's job_id in the trace (a synthetic job's generated id), a str")
      .def("user_name", [](const PassHandle& p, JobId j) { return std::string((*p).user_name(j)); }, job,
           "the name of the job's user, as the trace gives it")
      .def("is_pending", [](const PassHandle& p, JobId j) { return (*p).is_pending(j); }, job,
           "whether the job waits in the queue")
      .def("is_running", [](const PassHandle& p, JobId j) { return (*p).is_running(j); }, job,
           "whether the job holds its resources")
      .def("try_start", [](const PassHandle& p, JobId j) { return (*p).try_start(j); }, job,
           "start the pending job now if it fits; whether it started")
      .def("wake_at", [](const PassHandle& p, std::int64_t t) { (*p).wake_at(Time::seconds(t)); }, py::arg("t"),
           "ask for a pass at time t (seconds, after now) even if nothing happens then")
      .def("preempt", [](const PassHandle& p, JobId j, bool kill) {
             (*p).preempt(j, kill ? SchedulingPass::Preempt::Kill : SchedulingPass::Preempt::Suspend);
           }, job, py::arg("kill") = true,
           "stop a running job and queue it again: kill=True loses the work of its run, False keeps it")
      .def("estimate", [](const PassHandle& p, JobId j) { return (*p).estimate(j).sec(); }, job,
           "the user's run-time estimate, seconds (0: none); needs reads_estimates()")
      .def("expected_end", [](const PassHandle& p, JobId j) { return (*p).expected_end(j).sec(); }, job,
           "when the running job should end by its estimate, seconds; needs reads_estimates()")
      .def("fits_now", [](const PassHandle& p, JobId j) { return (*p).cluster().fits_now((*p).request(j)); }, job,
           "whether the job would start now")
      .def("free_gpus", [](const PassHandle& p) { return (*p).cluster().free_gpus(); }, "GPUs free now")
      .def("total_gpus", [](const PassHandle& p) { return (*p).cluster().total_gpus(); }, "GPUs of the cluster")
      .def("oracle_remaining", [](const PassHandle& p, JobId j) { return (*p).oracle_remaining(j).sec(); }, job,
           "ORACLE ONLY: the true run time the job still needs, seconds");
}

py::dict run(const std::string& config_file, const std::vector<std::string>& overrides) {
  const RunConfig config = load_run_config(config_file, overrides);
  CapturedRun r;
  {
    py::gil_scoped_release free;  // policies written in Python take it back for each call
    r = run_captured(config);
  }
  py::dict tables;
  for (auto& [name, table] : r.outputs.tables) tables[py::str(name)] = table_to_python(table);
  py::dict out;
  out["tables"] = tables;
  out["texts"] = py::cast(r.outputs.texts);
  out["simulate_s"] = r.report.simulate_s;
  out["outputs_s"] = r.report.outputs_s;
  return out;
}

py::list keys() {
  py::list out;
  auto add = [&](const std::string& section, const std::string& key, const std::string& fallback, const std::string& doc) {
    out.append(py::make_tuple(section, key, fallback, doc));
  };
  const RunConfig defaults;
  for (const auto& f : run_config_fields()) add("run", std::string(f.key), f.get(defaults), std::string(f.doc));
  for (const KeySection& s : policy_key_sections())
    for (const Params::Doc& d : s.keys) add(s.name, d.key, d.fallback, d.doc);
  for (const KeySection& s : plugin_key_sections())
    for (const Params::Doc& d : s.keys) add(s.name, d.key, d.fallback, d.doc);
  return out;
}

int run_to(const std::string& config_file, const std::vector<std::string>& overrides, const std::string& out_dir) {
  RunArgs args;
  args.config = config_file;
  args.overrides = overrides;
  args.out_dir = out_dir;
  args.progress = false;
  py::gil_scoped_release free;
  return run_command(args);
}

std::vector<std::pair<std::string, std::string>> policies() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const PolicyEntry& e : policy_table()) out.emplace_back(e.name, e.description);
  return out;
}

int gen(const std::string& cluster, const std::string& from, const std::string& to, std::uint64_t seed, double load,
        const std::string& output, const std::string& policy) {
  GenArgs args;
  args.cluster = cluster;
  args.from = from;
  args.to = to;
  args.seed = seed;
  args.load = load;
  args.output = output;
  args.policy = policy;
  py::gil_scoped_release free;
  return gen_command(args);
}

int sweep(const std::string& file, const std::string& out_dir, unsigned jobs) {
  SweepArgs args;
  args.file = file;
  args.out_dir = out_dir;
  args.jobs = jobs;
  args.progress = false;
  py::gil_scoped_release free;
  return sweep_command(args);
}

// The run's log lines (sim/log.h) as records of the Python logger "acmesim", so that a notebook
// configures or silences them as any other; with logging unconfigured, Python's last resort
// prints warnings and above to stderr. Stateless: each line takes the GIL, so runs on other
// threads (a sweep's workers) may log.
class PythonLogSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (!Py_IsInitialized()) return;  // a line at exit, after the interpreter
    py::gil_scoped_acquire gil;
    try {
      py::module_::import("logging").attr("getLogger")("acmesim").attr("log")(
          python_level(msg.level), std::string(msg.payload.data(), msg.payload.size()));
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("acmesim log");
    }
  }
  void flush_() override {}

 private:
  static int python_level(spdlog::level::level_enum level) {
    switch (level) {
      case spdlog::level::trace:
      case spdlog::level::debug: return 10;
      case spdlog::level::info: return 20;
      case spdlog::level::warn: return 30;
      case spdlog::level::err: return 40;
      default: return 50;
    }
  }
};

}  // namespace
}  // namespace acme

PYBIND11_MODULE(_acmesim, m) {
  using namespace acme;
  m.doc() = "acmesim's C++ core; use the acmesim package";
  auto logger = std::make_shared<spdlog::logger>("acmesim", std::make_shared<PythonLogSink>());
  logger->set_level(spdlog::level::info);
  spdlog::set_default_logger(logger);
  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<PolicyRaised> policy_error(m, "PolicyError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(e.what());
    } catch (const PolicyRaised& e) {
      policy_error(e.what());
    } catch (const PolicyMisuse& e) {
      policy_error(e.what());
    }
  });
  set_policy_resolver("python", resolve_python_policy);

  py::class_<RequestCopy>(m, "JobRequest",
                          "what a job asks for (a policy sees nothing else); a copy, which stays readable. Names "
                          "are str (job_id, user, type), counts and times int")
      .def_property_readonly("job", [](const RequestCopy& r) { return r.handle; },
                             "the job's handle, the int every hook and pass method takes")
      .def_readonly("job_id", &RequestCopy::job_id, "the job's job_id in the trace (a synthetic job's generated id)")
      .def_property_readonly("submit", [](const RequestCopy& r) { return r.request.submit.sec(); },
                             "when it was submitted, seconds since the epoch")
      .def_property_readonly("gpu_num", [](const RequestCopy& r) { return r.request.gpu_num; }, "GPUs")
      .def_property_readonly("node_num", [](const RequestCopy& r) { return r.request.node_num; }, "nodes")
      .def_property_readonly("cpu_num", [](const RequestCopy& r) { return r.request.cpu_num; }, "CPUs")
      .def_property_readonly("type", [](const RequestCopy& r) { return std::string(name(r.request.type)); },
                             "the job type: Pretrain, SFT, Eval, Debug, MLLM, Other, CPU")
      .def_readonly("user", &RequestCopy::user, "the user's name, as the trace gives it (pass.user_name(job))")
      .def("__repr__", [](const RequestCopy& r) {
        return "JobRequest(job_id=" + r.job_id + ", user=" + r.user + ", type=" + std::string(name(r.request.type)) +
               ", gpu_num=" + std::to_string(r.request.gpu_num) + ")";
      });

  bind_pass(m);

  m.attr("__version__") = ACMESIM_VERSION;
  m.def("run", &run, py::arg("config_file"), py::arg("overrides"),
        "one run of acmesim run in process; its outputs as typed columns");
  m.def("run_to", &run_to, py::arg("config_file"), py::arg("overrides"), py::arg("out_dir"),
        "acmesim run itself: the outputs written to out_dir as the command line writes them; the exit code");
  m.def("policies", &policies, "the registered policies: (name, description)");
  m.def("keys", &keys, "every configuration key: (section, key, default, doc)");
  m.def("gen", &gen, py::arg("cluster"), py::arg("start"), py::arg("end"), py::arg("seed"), py::arg("load"),
        py::arg("output"), py::arg("policy"), "acmesim gen: a synthetic trace written to output; the exit code");
  m.def("sweep", &sweep, py::arg("file"), py::arg("out_dir"), py::arg("jobs"),
        "acmesim sweep: every run of the sweep file into out_dir; the exit code");
}
