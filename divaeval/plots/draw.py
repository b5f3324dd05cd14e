"""Figures drawn with matplotlib: image files for ``--plot`` (PNG, SVG or PDF by the file's
suffix) and figures for notebooks (``.plot()``). matplotlib is the optional ``plot`` extra,
imported only here and only when a figure is asked for."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from divaeval.atomic import written_whole
from divaeval.errors import UsageError
from divaeval.plots import colours
from divaeval.plots.figure import Bars, Figure, Grid, Lines, Points

#: the image formats ``--plot`` writes, by the file's suffix
SUFFIXES = (".png", ".svg", ".pdf")


def pyplot():
    """matplotlib's pyplot (on the Agg backend unless one was chosen), or a usage error naming
    the ``plot`` extra. Lazy: matplotlib takes 0.3 s to import, which no table should pay."""
    try:
        import matplotlib

        if "matplotlib.pyplot" not in __import__("sys").modules:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("drawing figures needs matplotlib: pip install 'divaeval[plot]'") from None
    return plt


def check_plot_file(path: str | os.PathLike) -> str:
    """The plot file's path, checked before any work: a known suffix and matplotlib present."""
    text = os.fspath(path)
    suffix = os.path.splitext(text)[1].lower()
    if suffix not in SUFFIXES:
        raise UsageError(
            f"--plot {text}: the file's suffix chooses the format: one of {', '.join(SUFFIXES)}"
        )
    pyplot()
    return text


def _panel_size(panel) -> tuple[float, float]:
    if isinstance(panel, Bars):
        return max(5.0, min(14.0, 1.2 + 0.14 * len(panel.values))), 3.4
    if isinstance(panel, Grid):
        n_rows, n_columns = panel.values.shape
        width = max(5.0, min(14.0, 2.5 + 0.18 * n_columns))
        return width, max(2.0, 1.6 + 0.26 * n_rows)
    if isinstance(panel, Lines):
        return 6.4, 4.0
    return 4.6, 4.2


def draw(figure: Figure):
    """The figure as a matplotlib Figure: its panels ``figure.columns`` to a row."""
    plt = pyplot()
    n = max(len(figure.panels), 1)
    columns = max(1, min(figure.columns, n))
    rows = math.ceil(n / columns)
    sizes = [_panel_size(p) for p in figure.panels] or [(5.0, 3.0)]
    heights = [max(h for _, h in sizes[r * columns : (r + 1) * columns]) for r in range(rows)]
    width = max(w for w, _ in sizes) * columns
    result, axes = plt.subplots(
        rows,
        columns,
        figsize=(width, sum(heights) + 0.6),
        squeeze=False,
        layout="constrained",
        gridspec_kw={"height_ratios": heights},
    )
    for index, ax in enumerate(axes.flat):
        if index >= len(figure.panels):
            ax.set_visible(False)
            continue
        panel = figure.panels[index]
        _DRAW[type(panel)](ax, panel)
        subtitle = getattr(panel, "subtitle", "")
        ax.set_title(panel.title + (f"\n{subtitle}" if subtitle else ""), fontsize=8)
    result.suptitle(figure.title, fontsize=10)
    return result


def _bars(ax, panel: Bars) -> None:
    x = np.arange(len(panel.values))
    if panel.weighted is not None:
        ax.bar(x, panel.weighted, width=0.8, color=colours.LOSS_WEIGHTED, zorder=1)
    if panel.signed:
        fill = [colours.WIN if v > 0 else colours.LOSS for v in panel.values]
    else:
        fill = [colours.NEUTRAL] * len(panel.values)
    ax.bar(x, panel.values, width=0.8, color=fill, zorder=2)
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_ylabel(panel.y_label, fontsize=8)
    ax.set_xlabel(panel.x_label, fontsize=8)
    if len(x) <= 60:
        ax.set_xticks(x, panel.labels, rotation=90, fontsize=6)
    else:
        ax.set_xticks([])
    ax.tick_params(axis="y", labelsize=7)


def _grid(ax, panel: Grid) -> None:
    from matplotlib.colors import BoundaryNorm, ListedColormap

    values = np.ma.masked_invalid(panel.values)
    if panel.scale == "grades":
        levels = colours.grade_levels(panel.high)
        cmap = ListedColormap(["#FFFFFF", *(c for _, c in levels)]).with_extremes(bad=colours.EMPTY)
        bounds = np.arange(-0.5, len(levels) + 1.0)
        ax.imshow(values, cmap=cmap, norm=BoundaryNorm(bounds, cmap.N), aspect="auto")
    elif panel.scale == "diverging":  # centred on 0: as far below as above
        from matplotlib.colors import LinearSegmentedColormap

        stops = colours.diverging_stops()
        cmap = LinearSegmentedColormap.from_list("diverging", stops).with_extremes(
            bad=colours.EMPTY
        )
        bound = max(abs(panel.low), abs(panel.high))
        image = ax.imshow(values, cmap=cmap, vmin=-bound, vmax=bound, aspect="auto")
        ax.figure.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    else:
        from matplotlib import colormaps

        cmap = colormaps["viridis"].with_extremes(bad=colours.EMPTY)
        image = ax.imshow(values, cmap=cmap, vmin=panel.low, vmax=panel.high, aspect="auto")
        ax.figure.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    if panel.greyed_columns is not None:
        for j in np.flatnonzero(panel.greyed_columns):
            ax.axvspan(j - 0.5, j + 0.5, color=colours.UNJUDGED, zorder=0.5, linewidth=0)
    ax.set_yticks(np.arange(len(panel.rows)), panel.rows, fontsize=7)
    if panel.column_labels:
        ax.set_xticks(np.arange(len(panel.columns)), panel.columns, rotation=90, fontsize=6)
    else:
        ax.set_xticks([])
    ax.set_xlabel(panel.x_label, fontsize=8)
    ax.set_ylabel(panel.y_label, fontsize=8)


def _lines(ax, panel: Lines) -> None:
    markers = "os^Dv<>ph"
    for i, (name, values) in enumerate(panel.series.items()):
        ax.plot(
            panel.x[: len(values)],
            values,
            label=name,
            color=colours.series(i),
            marker=markers[i % len(markers)] if len(values) <= 60 else None,
            markersize=3.5,
            linewidth=1.5,
        )
    if panel.reference is not None:
        ax.axhline(panel.reference, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel(panel.x_label, fontsize=8)
    ax.set_ylabel(panel.y_label, fontsize=8)
    ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
    ax.legend(fontsize=7)
    ax.tick_params(labelsize=7)


def _points(ax, panel: Points) -> None:
    for i, (x, y, label) in enumerate(zip(panel.x, panel.y, panel.labels, strict=True)):
        ax.scatter([x], [y], color=colours.series(i), s=18, zorder=2)
        ax.annotate(label, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    if panel.diagonal:
        low = min(np.nanmin(panel.x), np.nanmin(panel.y))
        high = max(np.nanmax(panel.x), np.nanmax(panel.y))
        ax.plot([low, high], [low, high], color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel(panel.x_label, fontsize=8)
    ax.set_ylabel(panel.y_label, fontsize=8)
    ax.tick_params(labelsize=7)


_DRAW: dict[type, Callable[[Any, Any], None]] = {
    Bars: _bars,
    Grid: _grid,
    Lines: _lines,
    Points: _points,
}


def save(figure: Figure, path: str | os.PathLike) -> None:
    """Draw ``figure`` to ``path`` (its suffix chooses PNG, SVG or PDF), atomically
    (:func:`divaeval.atomic.written_whole`: the old file stays whole if drawing fails; an
    unwritable file is a one-line data error naming it)."""
    target = check_plot_file(path)
    suffix = os.path.splitext(target)[1].lower()
    drawn = draw(figure)
    try:
        with written_whole(target) as temporary:
            drawn.savefig(temporary, format=suffix[1:])
    finally:
        pyplot().close(drawn)
