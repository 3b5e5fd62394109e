#!/usr/bin/env python3
"""Renders a sweep's standard figures to PNG, without Jupyter (the same as sweep.ipynb).

    /usr/bin/python3 experiments/sweeps/plot.py out/sweep-example [out/sweep-example/figures]
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sweep_figures  # noqa: E402


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sweep = sweep_figures.load(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) == 3 else sweep.dir / "figures"
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in sweep_figures.FIGURES.items():
        fig = draw(sweep)
        fig.savefig(out / f"{name}.png", dpi=120)
        matplotlib.pyplot.close(fig)
    print(f"{len(sweep.summary)} runs ({len(sweep.ok)} ok): {', '.join(sweep_figures.FIGURES)} in {out}")


if __name__ == "__main__":
    main()
