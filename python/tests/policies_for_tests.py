"""Policies written in Python for the tests, importable by name (policy.name: python:policies_for_tests.Fifo)."""
import collections

import acmesim


class Fifo(acmesim.Policy):
    """The C++ fifo, line for line (policies/fifo.cpp)."""

    def __init__(self):
        self.queue = collections.deque()

    def on_queued(self, job, request):
        self.queue.append(job)

    def schedule(self, pass_):
        queue = self.queue
        while queue:
            head = queue[0]
            if not pass_.is_pending(head):  # withdrawn while waiting
                queue.popleft()
                continue
            if not pass_.try_start(head):
                return
            queue.popleft()


class LargestFirst(acmesim.Policy):
    """Starts the largest pending job first; when a job of at least `min_gpus` GPUs does not fit
    but would once the running jobs of fewer GPUs were gone, it kills those, newest first, until
    it fits. Keys from YAML: policy.min_gpus."""

    def __init__(self, min_gpus=64):
        self.min_gpus = min_gpus
        self.pending = set()
        self.running = []  # start order
        self.gpus = {}

    def on_queued(self, job, request):
        self.pending.add(job)
        self.gpus[job] = request.gpu_num

    def on_withdrawn(self, job):
        self.pending.discard(job)

    def on_stopped(self, job):
        if job in self.running:
            self.running.remove(job)

    def schedule(self, pass_):
        for job in sorted(self.pending, key=lambda j: (-self.gpus[j], j)):
            if not pass_.is_pending(job):
                self.pending.discard(job)
                continue
            if pass_.try_start(job):
                self.pending.discard(job)
                self.running.append(job)
                continue
            if self.gpus[job] < self.min_gpus:
                continue
            victims = [v for v in reversed(self.running) if self.gpus[v] < self.gpus[job] and pass_.is_running(v)]
            if pass_.free_gpus() + sum(self.gpus[v] for v in victims) < self.gpus[job]:
                continue  # killing every smaller job would not make room
            for victim in victims:
                pass_.preempt(victim, kill=True)  # on_stopped, then on_queued, follow
                if pass_.fits_now(job):
                    break
            if pass_.fits_now(job) and pass_.try_start(job):
                self.pending.discard(job)
                self.running.append(job)


class RaisesAt(acmesim.Policy):
    """Starts nothing and raises once the simulated time passes `at` seconds."""

    def __init__(self, at=0):
        self.at = at

    def schedule(self, pass_):
        if pass_.now() >= self.at:
            raise ZeroDivisionError("raised on purpose")


class WrongSignature(Fifo):
    """A schedule() that asks for an argument the pass does not come with."""

    def schedule(self, pass_, when):
        super().schedule(pass_)
