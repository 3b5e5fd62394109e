"""What help() and the types teach: the trace's job_id from a handle, names as str, a bool for a
true/false key, clear errors for a wrong argument, a docstring on everything public."""
import inspect
import re
import pydoc

import pytest

import acmesim
from conftest import random_trace
from policies_for_tests import Fifo

DAY = {"workload.to": "2023-06-02"}


def trace_with_ids(path, seed):
    """A random trace whose job_ids are not the row numbers: 1000, 1007, 1014, ..."""
    random_trace(path, seed, jobs=200)
    lines = path.read_text().splitlines()
    lines[1:] = [f"{1000 + 7 * i}," + line.split(",", 1)[1] for i, line in enumerate(lines[1:])]
    path.write_text("\n".join(lines) + "\n")
    return path


class Recorder(Fifo):
    def __init__(self):
        super().__init__()
        self.queued, self.seen = {}, {}

    def on_queued(self, job, request):
        super().on_queued(job, request)
        self.queued[job] = (request.job, request.job_id, request.user, request.type)

    def schedule(self, pass_):
        for job in list(self.queue):
            self.seen[job] = (pass_.job_id(job), pass_.request(job).job_id, pass_.user_name(job))
        super().schedule(pass_)


def config(tmp_path, cluster, trace):
    path = tmp_path / "run.yaml"
    path.write_text(f"cluster: {cluster}\nworkload:\n  trace: {trace}\nreplay: policy\n")
    return path


def test_a_handle_leads_to_the_traces_job_id_and_names_are_str(tmp_path, small_cluster):
    trace = trace_with_ids(tmp_path / "trace.csv", 3)
    policy = Recorder()
    result = acmesim.run(config(tmp_path, small_cluster, trace), policy=policy, outputs=["jobs"])
    jobs = result.jobs
    assert len(policy.queued) == len(jobs) and policy.seen
    for job, (handle, job_id, user, kind) in policy.queued.items():
        assert handle == job
        assert job_id == str(jobs.job_id.iloc[job]) and int(job_id) >= 1000  # row `job` of jobs.csv
        assert isinstance(user, str) and user == str(jobs.user.iloc[job])
        assert isinstance(kind, str) and kind == str(jobs.type.iloc[job])
    for job, (job_id, again, user) in policy.seen.items():
        assert job_id == again == policy.queued[job][1] and user == policy.queued[job][2]


class RaisesForOneJob(Fifo):
    def on_queued(self, job, request):
        if request.job_id == "1014":
            raise KeyError("this one")
        super().on_queued(job, request)


def test_policy_error_names_the_job_by_its_job_id(tmp_path, small_cluster):
    trace = trace_with_ids(tmp_path / "trace.csv", 3)
    with pytest.raises(acmesim.PolicyError) as raised:
        acmesim.run(config(tmp_path, small_cluster, trace), policy=RaisesForOneJob(), outputs=["summary"])
    assert "policy RaisesForOneJob.on_queued raised at simulated time" in str(raised.value)
    assert "(job_id 1014, handle 2)" in str(raised.value)


def test_a_true_or_false_key_comes_back_as_a_bool(root):
    summary = acmesim.run(root / "configs/kalos.yaml", set=DAY, outputs=["summary"]).summary
    assert summary["workload.lenient"].tolist() == [False] and summary["eval.idle"].tolist() == [True]
    assert summary["workload.lenient"].dtype == bool and summary["eval.idle"].dtype == bool
    assert summary["policy.name"].iloc[0] == "acme"


def test_set_as_a_list_says_what_it_should_be(root):
    with pytest.raises(TypeError, match=r"set must be a dict of keys and values, as \{'policy.name': 'fifo'\}; got a list"):
        acmesim.run(root / "configs/kalos.yaml", set=["policy.name=fifo"])


def test_errors_of_a_dict_configuration_name_the_dict_not_set(root):
    config = {"cluster": str(root / "configs/clusters/kalos.yaml"), "policy": {"name": "nosuch"},
              "workload": {"model": str(root / "configs/workloads/kalos.yaml"), "from": "2023-06-01", "to": "2023-06-02"}}
    with pytest.raises(acmesim.InputError) as raised:
        acmesim.run(config)
    assert str(raised.value).startswith("config: policy.name: unknown policy 'nosuch' (valid: acme, fifo")
    with pytest.raises(acmesim.InputError) as raised:  # a key given by set= stays the command line's --set
        acmesim.run(config, set={"policy.name": "nosuch2"})
    assert str(raised.value).startswith("--set: policy.name: unknown policy 'nosuch2'")


def test_help_of_result_lists_its_dataframes():
    text = pydoc.plain(pydoc.render_doc(acmesim.Result))
    for attr in ("jobs", "summary", "timeseries", "by_type", "waste", "links", "run"):
        assert re.search(rf"^ \|  +{attr}  +\S", text, re.M), attr
    assert "to_csv(self, folder)" in text


def test_every_public_function_class_and_method_has_a_docstring():
    missing = []
    for name in acmesim.__all__:
        thing = getattr(acmesim, name)
        if not (thing.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(thing):
            for attr, member in vars(thing).items():
                if not attr.startswith("_") and (callable(member) or isinstance(member, property)):
                    if not (getattr(member, "__doc__", None) or "").strip():
                        missing.append(f"{name}.{attr}")
    assert not missing, missing
