"""The parts of scripts/extract_workload_model.py that read no file: YAML formatting, the shapes of
published CDFs and size shares, the per-type size tables balanced against the cluster-wide shares,
run times and sizes drawn by quantile, the size-duration coupling, the final-state logits, the
published quartiles checked, and the text of the large-jobs block.
Pure functions of their arguments (numpy); the draws are low-discrepancy sequences, as in
workloads/synthetic.cpp.
"""
import math

import numpy as np

# Closed-loop submission of large jobs (workloads/synthetic.h, large_jobs; derivation in
# experiments/calibration/README.md): min_gpus and, per cluster, the cap on drawn concurrent GPUs.
LARGE_JOBS_MIN_GPUS = 256
SEREN_MAX_CONCURRENT_GPUS = 2048  # FITTED: experiments/baseline/README.md
CENTER = 20.0  # log2 GPU-seconds at which the state logits are centred

# Kronecker sequences, as in workloads/synthetic.cpp.
ALPHA_SIZE = math.sqrt(2.0) - 1.0
ALPHA_RUN = (math.sqrt(5.0) - 1.0) / 2.0
ALPHA_COUPLE = math.sqrt(3.0) - 1.0
ALPHA_STATE = math.sqrt(7.0) - 2.0


def run_quantile(points, u, max_run):
    """Run time at quantile u, as LogCdf::sample_seconds: log2-linear between points, linear in
    seconds below the first, rounded up to whole seconds, capped at max_run."""
    xs = np.log2([p[0] for p in points])
    ys = np.array([p[1] for p in points], dtype=float)
    v = u * ys[-1]
    out = np.empty_like(v)
    low = v <= ys[0]
    out[low] = np.ceil(2.0 ** xs[0] * (v[low] / ys[0] if ys[0] > 0 else 0.0))
    hi = ~low
    idx = np.searchsorted(ys, v[hi], side="left")
    idx = np.clip(idx, 1, len(ys) - 1)
    y0, y1, x0, x1 = ys[idx - 1], ys[idx], xs[idx - 1], xs[idx]
    f = np.where(y1 > y0, (v[hi] - y0) / np.where(y1 > y0, y1 - y0, 1.0), 1.0)
    out[hi] = np.ceil(2.0 ** (x0 + f * (x1 - x0)) - 1e-9)
    return np.minimum(out, max_run)


def size_quantile(table, u):
    sizes = np.array(sorted(table))
    w = np.array([table[s] for s in sizes], dtype=float)
    cum = np.cumsum(w) / w.sum()
    return sizes[np.minimum(np.searchsorted(cum, u, side="right"), len(sizes) - 1)].astype(float)


def kron(n, alpha, start=0.5):
    return np.mod(start + alpha * np.arange(n, dtype=float), 1.0)


def coupled(us, ur, uc, p):
    """Run-time quantile: u_size with probability p (1 - u_size if p < 0), else independent."""
    tied = uc < abs(p)
    return np.where(tied, us if p >= 0 else 1.0 - us, ur)


def fit_coupling(table, points, max_run, target):
    """The coupling p in [-1, 1] whose expected GPU-seconds per job equal target."""
    n = 1 << 20
    u = (np.arange(n) + 0.5) / n
    size = size_quantile(table, u)
    run = run_quantile(points, u, max_run)
    e_ind, e_com, e_counter = size.mean() * run.mean(), (size * run).mean(), (size * run[::-1]).mean()
    if target >= e_ind:
        p = min(1.0, (target - e_ind) / (e_com - e_ind))
    else:
        p = -min(1.0, (e_ind - target) / (e_ind - e_counter))
    return p, (e_counter, e_ind, e_com)


def logistic(z):
    return 1.0 / (1.0 + np.exp(-z))


def solve2(f, guess):
    """Newton's method with a numerical Jacobian and step halving, for two equations."""
    x = np.array(guess, dtype=float)
    for _ in range(100):
        r = f(x)
        if np.max(np.abs(r)) < 1e-6:
            break
        jac = np.empty((2, 2))
        for j in range(2):
            dx = np.zeros(2)
            dx[j] = 1e-5
            jac[:, j] = (f(x + dx) - r) / 1e-5
        step = np.linalg.solve(jac, -r)
        t = 1.0
        while t > 1e-4 and np.max(np.abs(f(x + t * step))) >= np.max(np.abs(r)):
            t /= 2
        x = x + t * step
    return x, f(x)


def sample_gpu_jobs(sizes, couplings, cdfs, mix, max_run, n=1 << 21):
    """GPU-seconds of n GPU jobs drawn as the generator draws them, types in proportion."""
    total = sum(mix[t] for t in sizes)
    g, types = [], []
    for t in sizes:
        k = max(1000, int(n * mix[t] / total))
        us, ur, uc = kron(k, ALPHA_SIZE), kron(k, ALPHA_RUN), kron(k, ALPHA_COUPLE)
        size = size_quantile(sizes[t], us)
        run = run_quantile(cdfs[t], coupled(us, ur, uc, couplings[t]), max_run)
        w = (mix[t] / total) * n / k  # weight so that types keep their published proportions
        g.append(size * run)
        types.append(np.full(k, w))
    return np.concatenate(g), np.concatenate(types)


def fit_states(g, w, count_pct, gpu_time_pct):
    x = np.log2(np.maximum(g, 1.0)) - CENTER
    gw = g * w

    def shares(prob):
        return (prob * w).sum() / w.sum() * 100, (prob * gw).sum() / gw.sum() * 100

    def f_cancel(ab):
        c, t = shares(logistic(ab[0] + ab[1] * x))
        return np.array([c - count_pct["CANCELLED"], (t - gpu_time_pct["CANCELLED"]) / 4])

    cancel, rc = solve2(f_cancel, [-1.0, 0.5])
    pc = logistic(cancel[0] + cancel[1] * x)

    def f_fail(ab):
        c, t = shares((1 - pc) * logistic(ab[0] + ab[1] * x))
        return np.array([c - count_pct["FAILED"], (t - gpu_time_pct["FAILED"]) / 4])

    fail, rf = solve2(f_fail, [0.0, -0.2])
    return cancel, fail, (rc, rf)


def check_quartiles(table, box):
    sizes = sorted(table)
    w = np.array([table[s] for s in sizes], dtype=float)
    cum = np.cumsum(w) / w.sum()
    q = [sizes[int(np.searchsorted(cum, p - 1e-9))] for p in (0.25, 0.5, 0.75)]
    return f"model q1 {q[0]}, median {q[1]}, q3 {q[2]}; published q1 {box['q1']:g}, median {box['median']:g}, " \
           f"q3 {box['q3']:g}, whiskers {box['whisker_low']:g}..{box['whisker_high']:g}"


def num(x):
    """A plain YAML number (no exponent, no inf/nan)."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    text = f"{float(x):.6f}".rstrip("0")
    text = text + "0" if text.endswith(".") else text
    assert all(c in "0123456789.-" for c in text), f"not a plain number: {text}"
    return text


def pairs(points):
    return "[" + ", ".join(f"[{num(a)}, {num(b)}]" for a, b in points) + "]"


def flow(mapping):
    return "{" + ", ".join(f"{k}: {num(v)}" for k, v in mapping.items()) + "}"


def source(block, path):
    return f"# source: {path}: {block['source']}"


def cdf(points):
    """Published CDF points, with y forced non-decreasing and ending at 100."""
    out, top = [], 0.0
    for x, y in points:
        top = max(top, y)
        out.append([x, top])
    if out[-1][1] < 100.0:
        out.append([2 * out[-1][0], 100.0])
    return out


def bucket_size(key):
    """A representative size for a bucket of job_share_pct_by_size. "a-b" with a a multiple of 8
    is the single size a (the plotted CDF steps at a); other ranges hold odd sizes, represented by
    the multiple of 8 nearest their geometric middle (or the rounded middle if none lies inside)."""
    if "-" not in key:
        return int(key)
    lo, hi = (int(v) for v in key.split("-"))
    if lo % 8 == 0:
        return lo
    mid = math.sqrt(lo * hi)
    m8 = int(math.floor(mid / 8 + 0.5)) * 8
    return m8 if lo <= m8 <= hi else int(round(mid))


def cluster_sizes(share_by_size):
    out = {}
    for key, share in share_by_size.items():
        s = bucket_size(key)
        out[s] = out.get(s, 0.0) + share
    return dict(sorted(out.items()))


def le_shares(sizes, limits=(1, 8, 64, 256, 1024)):
    return {n: sum(w for s, w in sizes.items() if s <= n) for n in limits}


def balance_size_tables(tables, mix_pct, cluster, residual, overflow, label):
    """Per-type GPU-size tables that, weighted by the type mix, give back the cluster-wide size shares.

    tables: {type: {gpus: weight}} for every GPU type but the residual one, the overflow type among
    them; weights are relative within a table. mix_pct: {type: % of GPU jobs}, the residual type
    included. cluster: {gpus: % of GPU jobs}. The arguments are not changed. Weights that ask for
    more of a size than the cluster has are scaled down (to none if the cluster has no such size).
    The residual type takes what the other types leave of each cluster share up to 8 GPUs, the
    overflow type what they leave above 8, giving as many 1-GPU jobs back to the residual type.
    Returns the tables in the order given, the residual type's last: the residual and overflow
    tables in % of their type's jobs, the others in relative weights, such that for every size s,
    the sum over types t of mix_pct[t] x (share of s in t's table) is cluster[s] to within 1e-9
    points, or exceeds it by less than 1e-3 points. Raises AssertionError, naming label, when the tables exceed a cluster
    share by more, or when the overflow type has fewer 1-GPU jobs than it must give back.
    """
    tables = {t: dict(v) for t, v in tables.items()}
    # Where the tables ask for more of a size than the cluster has (they are written in rounded
    # percentages), scale those weights down to what there is, and renormalize; a few rounds.
    for _ in range(50):
        demand_at = {}
        for t, tab in tables.items():
            tot = sum(tab.values())
            for s, w in tab.items():
                demand_at[s] = demand_at.get(s, 0.0) + mix_pct[t] * w / tot
        over = {s: cluster.get(s, 0.0) / v for s, v in demand_at.items() if v > cluster.get(s, 0.0)}
        if not over:
            break
        for tab in tables.values():
            for s in over:
                if s in tab:
                    tab[s] *= over[s]
    left = dict(cluster)
    for t, tab in tables.items():
        tot = sum(tab.values())
        for s, w in tab.items():
            left[s] = left.get(s, 0.0) - mix_pct[t] * w / tot
    bad = {s: round(v, 4) for s, v in left.items() if v < -1e-3}
    left = {s: max(v, 0.0) for s, v in left.items()}
    assert not bad, f"{label}: the size tables take more than the cluster has at sizes {bad}"
    # The residual keeps to sizes up to 8 GPUs: what is left above goes to the overflow type, which
    # gives the same mass of single-GPU jobs back to the residual, so every type keeps its share.
    moved = sum(v for s, v in left.items() if s > 8 and v > 1e-6)
    otab, otot = tables[overflow], sum(tables[overflow].values())
    absolute = {s: mix_pct[overflow] * w / otot for s, w in otab.items()}
    for s, v in list(left.items()):
        if s > 8 and v > 1e-6:
            absolute[s] = absolute.get(s, 0.0) + v
            left[s] = 0.0
    assert absolute[1] > moved, f"{label}: {overflow} has too few 1-GPU jobs to give back"
    absolute[1] -= moved
    left[1] += moved
    tables[overflow] = {s: 100 * v / mix_pct[overflow] for s, v in absolute.items()}
    tables[residual] = {s: 100 * v / mix_pct[residual] for s, v in left.items() if v > 1e-9}
    return tables


def large_jobs_lines(data, key):
    """The cap on drawn concurrent GPUs under which large jobs are submitted: Kalos's published
    peak of requested GPUs; Seren has none published, so its cap is fitted."""
    out = ["",
           "# Closed loop (workloads/synthetic.h): a job of at least min_gpus GPUs is submitted only when the",
           "# GPUs of the jobs submitted before it and still running as drawn (queueing ignored) plus its own",
           "# stay within max_concurrent_gpus; else it waits, FIFO among large jobs (0: off). Users did not",
           "# submit pretraining runs the cluster could not hold: drawn independently, the large jobs' demand",
           "# exceeded the cluster for hours and they waited hours, where Acme's waited 31 s (Seren) and 64 s",
           "# (Kalos) on average (acme_queue.json by_gpu_demand_third_party).",
           f"# ASSUMPTION: min_gpus {LARGE_JOBS_MIN_GPUS}, by measurement (experiments/calibration/README.md)."]
    if key == "kalos":
        peak = data["state_mix"]["kalos_public_exact"]
        out += [source(peak, "state_mix.kalos_public_exact.peak_concurrent_requested_gpus"),
                f"# (the public trace's peak of concurrently requested GPUs, {peak['peak_concurrent_requested_gpus']} of 2,416)"]
        cap = peak["peak_concurrent_requested_gpus"]
    else:
        out += ["# source: none. Seren's peak of requested GPUs is not published. FITTED: 2048 (256 of 286",
                "# nodes) is the largest cap under which, in the baseline replay, large jobs do not queue behind",
                "# each other for hours (experiments/baseline/README.md); with 2288, the cluster, they did."]
        cap = SEREN_MAX_CONCURRENT_GPUS
    gpus = data["clusters"][key]["gpus_total"]
    return out + [f"# On another cluster than this one ({gpus} GPUs) the cap scales with its GPUs.",
                  "large_jobs:", f"  min_gpus: {LARGE_JOBS_MIN_GPUS}", f"  max_concurrent_gpus: {cap}",
                  f"  cluster_gpus: {gpus}"]


def mean_gpus_lines(data, m):
    """Seren's public trace is a subset of the full trace (450,590 of 663,813 GPU jobs): the mean
    its size shares imply differs from the full trace's avg_gpu_num, and the model follows the
    public shares. Kalos's public trace is its full trace, and the two agree."""
    name, summary = m["name"], m["summary"]
    src = source(data["cluster_summary"], f"cluster_summary.rows.{name}.avg_gpu_num")
    if m["key"] == "kalos":
        return [src + f" (public = full trace; the size shares imply {m['mean_gpus_model']:.2f})",
                f"mean_gpus: {num(summary['avg_gpu_num'])}"]
    return ["# source: implied by gpu_demand.job_share_pct_by_size." + name + " (public trace), sum of size x share,",
            "# ranges at the sizes scripts/extract_workload_model.py gives them (bucket_size)",
            f"mean_gpus: {num(round(m['mean_gpus_model'], 3))}",
            src + " (full trace, 663,813 GPU jobs; reported, not gated: the public trace's",
            "# size shares, which the model follows within 1 point, imply the mean above)",
            f"mean_gpus_full_trace: {num(summary['avg_gpu_num'])}"]
