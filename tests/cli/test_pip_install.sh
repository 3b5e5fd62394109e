#!/usr/bin/env bash
# `pip install --no-build-isolation .` of a clean copy of the checkout (its tracked files, as a
# fresh clone has them) into a throwaway venv that sees Debian's numpy and pandas; then, from
# another folder, `import acmesim` is the installed package, declares its dependencies, and runs
# a day of Kalos (ctest pip_install).
# Usage: tests/cli/test_pip_install.sh BUILD_DIR
#   BUILD_DIR: a configured build whose target _acmesim setup.py brings up to date and packages
#   (ACMESIM_BUILD_DIR), so that the test compiles nothing new. Without it setup.py would
#   configure and build the module in the copy (a few minutes: python/README.md).
set -euo pipefail
build="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The tracked files with their uncommitted changes (git stash create makes a commit of them and
# touches nothing; it prints nothing when there are none).
snapshot=$(git -C "$root" stash create)
mkdir "$tmp/src" "$tmp/elsewhere"
git -C "$root" archive "${snapshot:-HEAD}" | tar -x -C "$tmp/src"
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
(cd "$tmp/src" && ACMESIM_BUILD_DIR="$build" "$tmp/venv/bin/python" -m pip install -q --no-build-isolation --no-index . \
  >"$tmp/pip.log" 2>&1) || { cat "$tmp/pip.log" >&2; exit 1; }
cd "$tmp/elsewhere"
PYTHONPATH="" "$tmp/venv/bin/python" - "$tmp/venv" "$root" <<'PY'
import importlib.metadata, os, sys
import acmesim
venv, root = sys.argv[1:]
assert acmesim.__file__.startswith(os.path.join(venv, "lib")), acmesim.__file__
meta = importlib.metadata.metadata("acmesim")
assert meta["Version"] == acmesim.__version__, (meta["Version"], acmesim.__version__)
assert sorted(importlib.metadata.requires("acmesim")) == ["numpy", "pandas"], importlib.metadata.requires("acmesim")
r = acmesim.run({"cluster": f"{root}/configs/clusters/kalos.yaml",
                 "workload": {"model": f"{root}/configs/workloads/kalos.yaml", "from": "2023-06-01", "to": "2023-06-02"},
                 "policy": {"name": "fifo"}}, outputs=["summary"])
jobs = int(r.summary.jobs.iloc[0])
assert jobs > 100, jobs
print(f"acmesim {acmesim.__version__} installed in a venv, imported from another folder: {jobs} jobs in a day of Kalos")
PY
