"""scripts/fit_queueing.py's deconvolution: given the queueing, the run-time CDF it solves for gives
back the end - submit CDF it was asked for, and is the run-time CDF that made it.
Run: /usr/bin/python3 -m pytest -q tests/scripts/test_fit_queueing.py   (ctest: fit_queueing_script)"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import fit_queueing  # noqa: E402

POINTS = [2.0 ** k for k in range(22)]  # 1 s .. 2^21 s, as the published CDFs


def draw_run_times(cdf_pct, n, rng):
    """Run times drawn as workloads/synthetic.cpp draws them from a CDF at POINTS: linear below the
    first point, log-uniform between two points, rounded up to whole seconds."""
    v = rng.uniform(0, 100, n)
    k = np.searchsorted(cdf_pct, v, side="left")  # the first point whose CDF reaches v
    lo_y = np.where(k > 0, np.take(cdf_pct, k - 1, mode="clip"), 0.0)
    hi_y = np.take(cdf_pct, k)
    f = np.where(hi_y > lo_y, (v - lo_y) / np.maximum(hi_y - lo_y, 1e-12), 1.0)
    hi = np.log2(np.take(POINTS, k))
    lo = np.where(k > 0, hi - 1, 0.0)
    r = np.where(k == 0, np.ceil(np.take(POINTS, k) * f), np.ceil(np.exp2(lo + f * (hi - lo)) - 1e-9))
    return r


def cdf_at_points(samples):
    s = np.sort(samples)
    return 100.0 * np.searchsorted(s, POINTS, side="right") / len(s)


def test_recovers_the_run_times_behind_an_end_minus_submit_cdf():
    rng = np.random.default_rng(7)
    # A run-time CDF with a third of the jobs under 16 s, and a Kalos-like queueing: a floor of
    # 5 s plus a log-normal spread (median 13.4 s), as long as those jobs.
    truth = np.array([0, 0, 0.5, 9.7, 27.3, 46.3, 57.8, 66.3, 83.8, 85.7, 89.8, 95.7, 99.6]
                     + [100.0] * 9)
    queue = np.sort(np.round(5 + 8.4 * np.exp(0.6 * rng.standard_normal(40000))))
    ends = draw_run_times(truth, 40000, rng) + rng.choice(queue, 40000)
    target = [[x, y] for x, y in zip(POINTS, cdf_at_points(ends))]

    solved = np.array(fit_queueing.run_time_cdf(target, queue))

    assert np.all(np.diff(solved) >= -1e-9) and abs(solved[-1] - 100.0) < 1e-6
    assert np.max(np.abs(solved - truth)) < 2.5  # points of the run-time CDF
    # And it gives the end - submit CDF back.
    again = draw_run_times(solved, 40000, rng) + rng.choice(queue, 40000)
    assert np.max(np.abs(cdf_at_points(again) - cdf_at_points(ends))) < 1.5


def test_the_end_minus_submit_cdf_itself_as_run_times_is_far_off():
    """Why the fit is needed: the published end - submit CDF used as run times gives, with the
    queueing added, an end - submit CDF many points short where the launch is as long as the jobs."""
    rng = np.random.default_rng(8)
    truth = np.array([0, 0, 0.5, 9.7, 27.3, 46.3, 57.8, 66.3, 83.8, 85.7, 89.8, 95.7, 99.6]
                     + [100.0] * 9)
    queue = np.sort(np.round(5 + 8.4 * np.exp(0.6 * rng.standard_normal(40000))))
    ends = cdf_at_points(draw_run_times(truth, 40000, rng) + rng.choice(queue, 40000))
    naive = cdf_at_points(draw_run_times(ends, 40000, rng) + rng.choice(queue, 40000))
    assert np.max(np.abs(naive - ends)) > 10
