#!/usr/bin/env python3
"""Renders a sweep's standard figures to PNG, without Jupyter (the same as sweep.ipynb).

    /usr/bin/python3 experiments/sweeps/plot.py out/sweep-example [out/sweep-example/figures]
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import plot_style  # noqa: E402
import sweep_figures  # noqa: E402  (applies plot_style)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sweep = sweep_figures.load(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) == 3 else sweep.dir / "figures"
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in sweep_figures.FIGURES.items():
        plot_style.save(draw(sweep), out / f"{name}.png")
    print(f"{len(sweep.summary)} runs ({len(sweep.ok)} ok): {', '.join(sweep_figures.FIGURES)} in {out}")


if __name__ == "__main__":
    main()
