"""The one plotting style of acmesim's figure scripts (matplotlib >= 3.6, Debian's python3-matplotlib).

Contract:
  apply()          call once before drawing: sets rcParams (figure size, 11-12 pt fonts, dpi, a light
                   grid under the data, constrained layout, tight saving). Scripts set no fonts of their own.
  figsize(cols, rows)  the size of a figure of cols x rows panels, for multi-panel figures.
  legend_outside(target, handles=None, labels=None, where="right", **kw)
                   a legend outside the data, so it never covers a bar or a line. target is an Axes
                   (legend to its right) or a Figure (one legend for all its axes, right of or below
                   them, where="right" or "below"; the axes' own legends are removed and repeated labels
                   shown once). Other keywords go to legend(). Returns the Legend.
  log_ticks(axis, subs=(1, 2, 5))  labelled ticks at 1, 2, 5 x 10^k on a log axis (ax.xaxis or ax.yaxis),
                   written as plain numbers, so that a log axis spanning a decade or two has several labels.
  save(fig, path)  saves with bbox_inches="tight" (a legend outside the figure is kept) and closes fig.
Scripts in scripts/ import it from their own folder; scripts under experiments/<x>/ first do
  sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
"""
import matplotlib
import matplotlib.pyplot as plt
from matplotlib import ticker
from matplotlib.figure import Figure

PANEL = (5.0, 3.6)  # inches per panel of a multi-panel figure


def apply():
    matplotlib.rcParams.update({
        "figure.figsize": (8.0, 4.5),
        "figure.dpi": 100,
        "savefig.dpi": 120,
        "savefig.bbox": "tight",
        "figure.constrained_layout.use": True,
        "font.size": 11,
        "axes.titlesize": 12,
        "axes.labelsize": 11,
        "figure.titlesize": 13,
        "xtick.labelsize": 10,
        "ytick.labelsize": 10,
        "legend.fontsize": 10,
        "legend.title_fontsize": 11,
        "legend.frameon": False,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.alpha": 0.3,
        "grid.linestyle": "-",
    })


def figsize(cols=1, rows=1):
    return (PANEL[0] * cols, PANEL[1] * rows)


def legend_outside(target, handles=None, labels=None, where="right", **kw):
    if handles is None:
        axes = target.axes if isinstance(target, Figure) else [target]
        seen = {}
        for ax in axes:
            for h, l in zip(*ax.get_legend_handles_labels()):
                if not l.startswith("_"):
                    seen.setdefault(l, h)
        handles, labels = list(seen.values()), list(seen)
    elif labels is None:
        labels = [h.get_label() for h in handles]
    if isinstance(target, Figure):
        for ax in target.axes:
            if ax.get_legend() is not None:
                ax.get_legend().remove()
        if where == "below":  # under the figure's bottom edge; save() keeps it
            kw = {"loc": "upper center", "bbox_to_anchor": (0.5, 0.0), "ncol": min(len(labels), 6), **kw}
        else:
            kw = {"loc": "center left", "bbox_to_anchor": (1.0, 0.5), **kw}
        return target.legend(handles, labels, **kw)
    kw = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0, **kw}
    return target.legend(handles, labels, **kw)


def log_ticks(axis, subs=(1, 2, 5)):
    axis.set_major_locator(ticker.LogLocator(subs=subs))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def save(fig, path, **kw):
    fig.savefig(path, bbox_inches="tight", **kw)
    plt.close(fig)
