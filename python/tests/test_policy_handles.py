"""What a Python policy is given, kept past its call: a pass raises PolicyError instead of reading
a pass that is gone (it used to end the interpreter with a segmentation fault); a request is a
copy and stays readable. A hook of the wrong signature is named before the run starts."""
import pytest

import acmesim
from policies_for_tests import Fifo

DAY = {"workload.to": "2023-06-02"}


class Keeper(Fifo):
    """The C++ fifo, keeping everything every hook is given."""

    def __init__(self):
        super().__init__()
        self.passes, self.jobs, self.requests, self.asked = [], [], [], []

    def on_queued(self, job, request):
        super().on_queued(job, request)
        self.jobs.append(job)
        self.requests.append((request, request.gpu_num, request.type, request.submit))

    def on_stopped(self, job):
        self.jobs.append(job)

    def schedule(self, pass_):
        self.passes.append(pass_)
        if self.jobs:
            self.asked.append((pass_.request(self.jobs[0]), pass_.request(self.jobs[0]).gpu_num))
        super().schedule(pass_)


def every_use(p, job):
    """Every method of a SchedulingPass, called on `job`."""
    return [lambda: p.now(), lambda: p.request(job), lambda: p.user_name(job), lambda: p.is_pending(job),
            lambda: p.is_running(job), lambda: p.try_start(job), lambda: p.wake_at(2**40),
            lambda: p.preempt(job, kill=False), lambda: p.estimate(job), lambda: p.expected_end(job),
            lambda: p.fits_now(job), lambda: p.free_gpus(), lambda: p.total_gpus(),
            lambda: p.oracle_remaining(job)]


def test_every_object_a_hook_was_given_is_safe_to_use_after_the_run(root):
    keeper = Keeper()
    acmesim.run(root / "configs/kalos.yaml", set=DAY, policy=keeper, outputs=["summary"])
    assert len(keeper.passes) > 10 and keeper.requests
    for p in (keeper.passes[0], keeper.passes[-1]):
        for use in every_use(p, keeper.jobs[0]):
            with pytest.raises(acmesim.PolicyError, match="used after the schedule\\(\\) call it was given to"):
                use()
    # Requests are copies: they read what they read during the call.
    for request, gpus, kind, submit in keeper.requests:
        assert (request.gpu_num, request.type, request.submit) == (gpus, kind, submit)
    for request, gpus in keeper.asked:
        assert request.gpu_num == gpus
    assert all(isinstance(job, int) for job in keeper.jobs)


class UsesAnOldPass(Fifo):
    def __init__(self):
        super().__init__()
        self.first = None

    def schedule(self, pass_):
        if self.first is None:
            self.first = pass_
        else:
            self.first.now()  # the first call's pass, in a later call
        super().schedule(pass_)


def test_a_pass_kept_from_an_earlier_call_stops_the_run_with_policy_error(root):
    with pytest.raises(acmesim.PolicyError) as raised:
        acmesim.run(root / "configs/kalos.yaml", set=DAY, policy=UsesAnOldPass(), outputs=["summary"])
    text = str(raised.value)
    assert "policy UsesAnOldPass.schedule raised at simulated time" in text
    assert "a SchedulingPass was used after the schedule() call it was given to returned" in text


class NoPass(acmesim.Policy):
    def schedule(self):
        pass


class NoRequest(Fifo):
    def on_queued(self, job):
        pass


class StoppedWithExtra(Fifo):
    def on_stopped(self, job, why):
        pass


class EstimatesAsAttribute(Fifo):
    reads_estimates = True


@pytest.mark.parametrize("policy, expected", [
    (NoPass(), "policy NoPass.schedule(self) has the wrong signature: expected def schedule(self, pass_)"),
    (NoRequest(), "policy NoRequest.on_queued(self, job) has the wrong signature: "
                  "expected def on_queued(self, job, request)"),
    (StoppedWithExtra(), "policy StoppedWithExtra.on_stopped(self, job, why) has the wrong signature: "
                         "expected def on_stopped(self, job)"),
    (EstimatesAsAttribute(), "policy EstimatesAsAttribute.reads_estimates is not a method: "
                             "expected def reads_estimates(self)"),
])
def test_a_hook_of_the_wrong_signature_names_the_class_the_method_and_the_signature(root, policy, expected):
    with pytest.raises(acmesim.PolicyError) as raised:
        acmesim.run(root / "configs/kalos.yaml", set=DAY, policy=policy, outputs=["summary"])
    assert str(raised.value) == expected


def test_a_class_named_in_the_configuration_is_checked_as_well(root):
    with pytest.raises(acmesim.PolicyError) as raised:
        acmesim.run(root / "configs/kalos.yaml", set={**DAY, "policy.name": "python:policies_for_tests.WrongSignature"},
                    outputs=["summary"])
    assert str(raised.value) == ("policy WrongSignature.schedule(self, pass_, when) has the wrong signature: "
                                 "expected def schedule(self, pass_)")


class Flexible(Fifo):
    def on_queued(self, *args):
        super().on_queued(*args)

    def schedule(self, p, extra=None):
        super().schedule(p)


def test_other_names_defaults_and_star_arguments_are_accepted(root):
    result = acmesim.run(root / "configs/kalos.yaml", set=DAY, policy=Flexible(), outputs=["summary"])
    assert result.summary.jobs_completed.iloc[0] > 0


def test_a_policy_instance_is_recorded_under_its_class(root):
    result = acmesim.run(root / "configs/kalos.yaml", set=DAY, policy=Flexible(), outputs=["summary", "run_json"])
    assert result.summary["policy.name"].iloc[0] == "python:test_policy_handles.Flexible"
    assert result.run["config"]["policy.name"] == "python:test_policy_handles.Flexible"
