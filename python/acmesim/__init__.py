"""acmesim from Python: runs as pandas DataFrames, and scheduling policies written in Python.

    import acmesim
    r = acmesim.run("configs/seren.yaml", set={"policy.name": "fifo"})
    r.jobs, r.timeseries, r.summary, r.by_type, r.waste, r.evaluations, r.users, r.links   # DataFrames
    (r.links: with network.contention only; None otherwise)
    r.to_csv("out/from-python")

A policy is a subclass of acmesim.Policy, given to run() as an object or named in a
configuration as policy.name: python:module.Class (its policy.* keys become keyword arguments).
It sees what the C++ policies see (sim/policy.h): a SchedulingPass with now(), request(job),
is_pending(job), try_start(job), preempt(job), estimate(job), ... An exception in it stops the
run with acmesim.PolicyError carrying its traceback and the simulated time; bad input raises
acmesim.InputError (a ValueError) with the command line's message.

Info and warning lines go to the Python logger "acmesim" (logging.getLogger("acmesim")):
logging.basicConfig(level=logging.INFO) shows them all; unconfigured, Python prints warnings only.
"""
# Imported under private names: dir(acmesim) shows the API only.
import importlib as _importlib
import inspect as _inspect
import json as _json
import os as _os
import shutil as _shutil
import threading as _threading

import pandas as _pd

from . import _acmesim
from . import _tables
from ._acmesim import InputError, JobRequest, PolicyError, SchedulingPass

__version__ = _acmesim.__version__
InputError.__doc__ = ("Bad input (a configuration, a trace, a key): the command line's message, naming the file, "
                      "line and key; a ValueError.")
PolicyError.__doc__ = ("A policy written in Python failed: it raised (the class, method, simulated time, job and "
                       "traceback), had a hook of the wrong signature, or used a pass after its call; a RuntimeError.")
__all__ = ["run", "gen", "sweep", "policies", "keys", "Policy", "Result", "InputError", "PolicyError",
           "JobRequest", "SchedulingPass"]

# The outputs as run() returns them: attribute -> the file of the command line.
OUTPUTS = {"jobs": "jobs.csv", "timeseries": "timeseries.csv", "summary": "summary.csv",
           "by_type": "summary_by_type.csv", "waste": "wasted_by_cause.csv", "evaluations": "evaluations.csv",
           "users": "users.csv", "links": "links.csv"}  # links.csv: written by the timeseries output
# Tables of a few rows whose texts (configuration values) stay strings, never categoricals.
_STRING_TABLES = {"summary.csv", "summary_by_type.csv"}


class Policy:
    """A scheduling policy. Override schedule(); the other hooks are optional.

    on_queued(job, request): a job joined the queue (jobs join in release order).
    on_withdrawn(job): a pending job left the queue without starting.
    on_stopped(job): a running job stopped (ended, or preempted: on_queued follows).
    schedule(pass_): once per instant with events; start jobs with pass_.try_start(job). The pass
        is valid only during the call: kept and used later, it raises PolicyError.
    reads_estimates(): True to read pass_.estimate(job) (run-time estimates, estimate.*).

    A job is an int handle, the same in every hook of one run: the job's row in the run's jobs
    (0 for the first row of Result.jobs and jobs.csv), not the trace's job_id, which
    request.job_id and pass_.job_id(job) give (PolicyError names both). A request is a
    JobRequest, a copy that stays readable; its names are str (job_id, user, type), its counts
    and times int. A hook whose signature differs from these raises PolicyError when the policy
    is installed.
    """

    def on_queued(self, job, request):
        """A job joined the queue: `job` its handle, `request` what it asks for (a JobRequest)."""

    def on_withdrawn(self, job):
        """A pending job left the queue without starting (it was withdrawn)."""

    def on_stopped(self, job):
        """A running job stopped: it ended, or was preempted (on_queued follows)."""

    def schedule(self, pass_):
        """One pass: start what should start now, with pass_.try_start(job) (a SchedulingPass)."""
        raise NotImplementedError("a Policy must define schedule(pass_)")

    def reads_estimates(self):
        """True to read run-time estimates (pass_.estimate, pass_.expected_end). Default: False."""
        return False


class Result:
    """One run's outputs: DataFrames with the columns of the files `acmesim run` writes
    (configs/README.md, "Outputs"); None for an output the run did not make.

    jobs         jobs.csv: one row a job, in handle order (row i is the job of handle i)
    timeseries   timeseries.csv: the cluster over time
    summary      summary.csv: one row, the run's configuration and statistics (true/false as bool)
    by_type      summary_by_type.csv: the statistics by job type
    waste        wasted_by_cause.csv: GPU time wasted, by cause
    evaluations  evaluations.csv: evaluation jobs
    users        users.csv: the statistics by user
    links        links.csv: link loads (with network.contention only)
    run          run.json as a dict
    simulate_s, outputs_s   wall-clock seconds of the simulation and of the outputs

    to_csv(folder) writes the run's files as the command line writes them, byte for byte.
    """

    def __init__(self, raw):
        self.simulate_s = raw["simulate_s"]
        self.outputs_s = raw["outputs_s"]
        tables = raw["tables"]
        for attr, file in OUTPUTS.items():
            setattr(self, attr, _tables.frame(tables[file], file in _STRING_TABLES) if file in tables else None)
        self.run = _json.loads(raw["texts"]["run.json"]) if "run.json" in raw["texts"] else None
        self._tables = {file: table for file, table in tables.items() if file in OUTPUTS.values()}
        self._texts = {file: text for file, text in raw["texts"].items() if file == "run.json"}
        self._folder = None

    def to_csv(self, folder):
        """Writes the run's output files to `folder` (made if needed), byte for byte as `acmesim
        run --out folder` writes them (jobs.csv, summary.csv, ... and run.json): what the run
        made, not edits made to the DataFrames since."""
        _os.makedirs(folder, exist_ok=True)
        if self._folder is not None:  # a Result of run(out=...): its files
            for file in [*OUTPUTS.values(), "run.json"]:
                if _os.path.exists(_os.path.join(self._folder, file)):
                    _shutil.copyfile(_os.path.join(self._folder, file), _os.path.join(folder, file))
            return
        for file, table in self._tables.items():
            _tables.write_csv(table, _os.path.join(folder, file))
        for file, text in self._texts.items():
            with open(_os.path.join(folder, file), "w", encoding="utf-8", newline="") as f:
                f.write(text)

    def __repr__(self):
        shown = ", ".join(f"{a}: {len(getattr(self, a))} rows" for a in OUTPUTS if getattr(self, a) is not None)
        return f"acmesim.Result({shown})"


def _read_result(folder):
    result = Result.__new__(Result)
    result.simulate_s = result.outputs_s = None
    result._folder = _os.fspath(folder)
    for attr, file in OUTPUTS.items():
        path = _os.path.join(folder, file)
        setattr(result, attr, _pd.read_csv(path) if _os.path.exists(path) else None)
    path = _os.path.join(folder, "run.json")
    result.run = None
    if _os.path.exists(path):
        with open(path) as f:
            result.run = _json.load(f)
    return result


def _flatten(mapping, prefix=""):
    for key, value in mapping.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _override(key, value):
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = ",".join(str(v) for v in value)
    else:
        text = "" if value is None else str(value)
    return f"{key}={text}"


# The instances run(policy=...) is running on this thread, by the name the run records,
# python:module.Class (a sweep's workers, on other threads, import the classes they name).
_running = _threading.local()

# Each hook and the arguments it is called with, after self.
_HOOKS = {"schedule": ("pass_",), "on_queued": ("job", "request"), "on_withdrawn": ("job",),
          "on_stopped": ("job",), "reads_estimates": ()}


def _check_hooks(policy):
    """Raises PolicyError naming the class, the hook and the signature expected, for a hook that
    could not be called with the arguments it is given (found before the run, not at its first
    call as an error of pybind11)."""
    name = type(policy).__name__
    for hook, args in _HOOKS.items():
        expected = f"def {hook}({', '.join(('self',) + args)})"
        method = getattr(policy, hook, None)
        if not callable(method):
            raise PolicyError(f"policy {name}.{hook} is not a method: expected {expected}")
        try:
            signature = _inspect.signature(method)
        except (TypeError, ValueError):  # one inspect cannot read (a builtin): called as it is
            continue
        try:
            signature.bind(*args)
        except TypeError:
            params = ", ".join(["self", *map(str, signature.parameters.values())])
            raise PolicyError(f"policy {name}.{hook}({params}) has the wrong signature: expected {expected}") from None


def _policy_name(policy):
    cls = type(policy)
    return f"{cls.__module__}.{cls.__name__}"


def _make_policy(name, kwargs):
    """The C++ side's resolver of policy.name python:...: an instance given to run(), or
    module.Class made with the policy.* keys as keyword arguments (numbers as numbers)."""
    spec = name.split(":", 1)[1]
    running = getattr(_running, "instances", {})
    if spec in running:
        if kwargs:
            raise ValueError(f"an instance given to run() takes no policy.* keys, got {sorted(kwargs)}")
        return running[spec]
    module, _, cls = spec.rpartition(".")
    if not module:
        raise ValueError(f"expected python:module.Class, got '{name}'")
    policy_class = getattr(_importlib.import_module(module), cls)
    policy = policy_class(**{k: _number(v) for k, v in kwargs.items()})
    _check_hooks(policy)
    return policy


def _number(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def run(config, set=None, policy=None, outputs=None, out=None):
    """Runs `config` (a YAML file, or a dict of keys, nested or dotted) with `set` (a dict of
    keys, as {"policy.name": "fifo"}) applied on top, in process, and returns its outputs as a
    Result. `policy`: a Policy instance to schedule with (instead of policy.name). `outputs`:
    which (default: every one but console). `out`: a folder to write the files to instead, byte
    for byte as `acmesim run --out` writes them; the Result is then read from them.

    Raises InputError for bad input (a key of the dict config named "config: key", one of `set`
    "--set: key", as the command line names it), PolicyError when a Python policy fails, and
    TypeError for a `set` or `config` of another type. Log lines go to the logger "acmesim"."""
    if set is not None and not isinstance(set, dict):
        raise TypeError(f"set must be a dict of keys and values, as {{'policy.name': 'fifo'}}; got a {type(set).__name__}")
    if not isinstance(config, (dict, str, _os.PathLike)):
        raise TypeError(f"config must be a YAML file or a dict of keys and values; got a {type(config).__name__}")
    overrides = []
    file = ""
    dict_keys = []
    if isinstance(config, dict):
        dict_keys = [k for k, _ in _flatten(config)]
        overrides += [_override(k, v) for k, v in _flatten(config)]
    else:
        file = _os.fspath(config)
    overrides += [_override(k, v) for k, v in _flatten(set or {})]
    set_keys = [k for k, _ in _flatten(set or {})]
    try:
        return _run_with(file, overrides, policy, outputs, out)
    except InputError as e:
        # Keys of a dict configuration reach the run as --set overrides: name them as the dict's.
        text = str(e)
        key = text[len("--set: "):].split(":", 1)[0] if text.startswith("--set: ") else None
        if key in dict_keys and key not in set_keys:
            raise InputError("config: " + text[len("--set: "):]) from None
        raise


def _run_with(file, overrides, policy, outputs, out):
    """run() once its configuration is overrides: with the outputs and the policy instance added."""
    overrides.append(_override("outputs", outputs or [o for o in OUTPUTS if o not in ("summary", "by_type", "links")]
                               + ["summary", "run_json"]))
    if policy is None:
        return _run(file, overrides, out)
    if not isinstance(policy, Policy):
        raise TypeError("policy must be an instance of acmesim.Policy")
    _check_hooks(policy)
    key = _policy_name(policy)
    overrides.append(f"policy.name=python:{key}")
    if not hasattr(_running, "instances"):
        _running.instances = {}
    outer = _running.instances.get(key)  # a run inside a run (a policy may start one)
    _running.instances[key] = policy
    try:
        return _run(file, overrides, out)
    finally:
        if outer is None:
            del _running.instances[key]
        else:
            _running.instances[key] = outer


def _run(file, overrides, out):
    if out is None:
        return Result(_acmesim.run(file, overrides))
    _acmesim.run_to(file, overrides, _os.fspath(out))
    return _read_result(out)


def gen(cluster, start, end, output, seed=1, load=1.0, policy=""):
    """acmesim gen: a synthetic trace in the AcmeTrace schema, written to `output`; its path."""
    _acmesim.gen(cluster, start, end, seed, load, _os.fspath(output), policy)
    return output


def sweep(file, out, jobs=0):
    """acmesim sweep: every run of the sweep file into `out`; the merged summary as a DataFrame.
    Raises RuntimeError when a run failed (its error is in out/runs/<id>/error.txt)."""
    if _acmesim.sweep(_os.fspath(file), _os.fspath(out), jobs) != 0:
        raise RuntimeError(f"some runs of {file} failed: see {out}/runs/*/error.txt")
    return _pd.read_csv(_os.path.join(out, "summary.csv"))


def policies():
    """The registered C++ policies: a DataFrame of name and description."""
    return _pd.DataFrame(_acmesim.policies(), columns=["name", "description"])


def keys():
    """Every configuration key with its default, as `acmesim list` and `run --help` give them."""
    return _pd.DataFrame(_acmesim.keys(), columns=["section", "key", "default", "doc"])
