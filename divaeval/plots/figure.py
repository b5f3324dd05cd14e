"""Figures as plain data: what a figure shows, apart from how it is drawn.

A :class:`Figure` is a title, a one-line caption saying how to read it, the numbers it draws as
a long table (``data``: what the tests compare with the text output) and its panels. A panel is
one of four kinds, and each renderer (:mod:`divaeval.plots.draw` for image files and notebooks,
:mod:`divaeval.plots.svg` for the HTML page) draws each kind one way:

- :class:`Bars`: one bar per label (per-topic differences, per-metric values);
- :class:`Grid`: a matrix of coloured cells (heat maps, coverage maps);
- :class:`Lines`: series over a shared x axis (measure at cutoff, ASL curves);
- :class:`Points`: labelled points in a plane (one metric's run means against another's).

The figure modules (``differences``, ``heatmap``, ``coverage``, ...) build figures from score
tables and judged grades; they import no plotting library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

#: how a :class:`Grid` colours its values: ``sequential`` from low to high (viridis),
#: ``diverging`` around 0 (orange below, blue above), ``grades`` the relevance grades
#: 0 (white), 1, 2, ... (light to dark blue)
Scale = Literal["sequential", "diverging", "grades"]


@dataclass(frozen=True, eq=False)
class Bars:
    """Vertical bars, one per label, in the order given. ``weighted`` (optional) is a second
    value per bar drawn behind it (the risk view: losses times 1 + α)."""

    title: str
    labels: tuple[str, ...]
    values: np.ndarray
    tips: tuple[str, ...]
    y_label: str
    x_label: str = ""
    weighted: np.ndarray | None = None
    #: a second title line (wins, losses, mean)
    subtitle: str = ""
    #: colour by sign (wins above 0, losses below) or one colour for every bar
    signed: bool = True


@dataclass(frozen=True, eq=False)
class Grid:
    """Cells ``values[row, column]`` coloured by ``scale`` (NaN: an empty cell);
    ``greyed_columns`` marks whole columns (unjudged documents of a coverage map)."""

    title: str
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    values: np.ndarray
    tips: np.ndarray  # [rows, columns] str
    x_label: str
    y_label: str
    scale: Scale = "sequential"
    low: float = 0.0
    high: float = 1.0
    greyed_columns: np.ndarray | None = None
    #: label each column (False: only the axis label; many topics would crowd the axis)
    column_labels: bool = True
    #: label only these columns (indices), upright: short labels such as ranks 1, 5, 10, ...
    column_ticks: tuple[int, ...] | None = None
    #: draw the colour legend (small multiples draw it once, on their last panel)
    legend: bool = True


@dataclass(frozen=True, eq=False)
class Lines:
    """Series of y values over the shared ``x`` (one colour and marker per series), with an
    optional horizontal ``reference`` line (a significance level)."""

    title: str
    x: np.ndarray
    series: dict[str, np.ndarray]
    x_label: str
    y_label: str
    reference: float | None = None
    reference_label: str = ""


@dataclass(frozen=True, eq=False)
class Points:
    """Labelled points (x, y), with the diagonal y = x when both axes share a scale."""

    title: str
    x: np.ndarray
    y: np.ndarray
    labels: tuple[str, ...]
    x_label: str
    y_label: str
    diagonal: bool = True


Panel = Bars | Grid | Lines | Points


@dataclass(frozen=True, eq=False)
class Figure:
    """One figure: panels laid out ``columns`` to a row, the numbers drawn in ``data``."""

    kind: str
    title: str
    caption: str
    panels: tuple[Panel, ...]
    data: pd.DataFrame = field(repr=False)
    columns: int = 1


def sequential_tips(
    rows, columns, values, what: str, row_name: str, column_name: str, digits: int = 4
):
    """Hover texts ``row_name ROW · column_name COLUMN · what VALUE`` of a grid."""
    tips = np.empty(values.shape, dtype=object)
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            value = values[i, j]
            shown = "—" if value != value else f"{value:.{digits}f}"
            tips[i, j] = f"{row_name} {row} · {column_name} {column} · {what} {shown}"
    return tips


def per_topic(table: pd.DataFrame) -> pd.DataFrame:
    """The per-topic rows of a long score table (run, topic, measure, value): not the mean
    rows (topic ``all``)."""
    return table[table["topic"].astype(str) != "all"]


def measures_of(table: pd.DataFrame) -> list[str]:
    """The table's measures in their first-seen order."""
    return list(dict.fromkeys(table["measure"]))


def runs_of(table: pd.DataFrame, column: str = "run") -> list[str]:
    """The table's runs in their first-seen order."""
    return list(dict.fromkeys(table[column]))


def sign_colour_tip(value: float) -> str:
    """``+0.1234`` or ``−0.1234`` (a true minus sign), or ``—`` for NaN."""
    if value != value:
        return "—"
    return f"{value:+.4f}".replace("-", "−")


def long_from_tables(runs, topics, tables) -> pd.DataFrame:
    """The long score table (run, topic, measure, value) of score tables: measure ->
    ``[len(runs), len(topics)]``."""
    frames = [
        pd.DataFrame(
            {
                "run": np.repeat(np.asarray(runs, dtype=object), len(topics)),
                "topic": np.tile(np.asarray(topics, dtype=object), len(runs)),
                "measure": measure,
                "value": np.asarray(values, dtype=np.float64).reshape(-1),
            }
        )
        for measure, values in tables.items()
    ]
    return pd.concat(frames, ignore_index=True)


def combined(figures) -> Figure:
    """One figure holding the panels of several (the first one's title and kind; each
    caption, and in ``data`` a ``figure`` column naming the kind each row comes from)."""
    figures = list(figures)
    first = figures[0]
    if len(figures) == 1:
        return first
    return Figure(
        first.kind,
        " · ".join(f.title for f in figures),
        " ".join(f.caption for f in figures),
        tuple(p for f in figures for p in f.panels),
        pd.concat([f.data.assign(figure=f.kind) for f in figures], ignore_index=True),
        columns=max(f.columns for f in figures),
    )
