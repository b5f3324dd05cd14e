"""Figures as inline SVG for the HTML page: no library, text as text, a ``<title>`` on every bar,
cell and point (the browser shows it on hover, with or without the page's script).

Each panel is one ``<svg>`` of its natural size in CSS pixels (text 12 px), shrunk by the page
only when the window is narrower; :func:`figure_html` wraps a figure's panels with its title and
caption."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

import numpy as np

from divaeval.plots import colours
from divaeval.plots.figure import Bars, Figure, Grid, Lines, Panel, Points

FONT = 12
#: width of one character of the page's sans-serif text at 12 px, to size label margins
CHAR = 6.8
#: width of one character of a panel's title (13 px, bold)
TITLE_CHAR = 8.0


def _text(x: float, y: float, text: str, *, anchor: str = "start", cls: str = "", rotate=None):
    attributes = f'x="{_n(x)}" y="{_n(y)}"'
    if anchor != "start":
        attributes += f' text-anchor="{anchor}"'
    if cls:
        attributes += f' class="{cls}"'
    if rotate is not None:
        attributes += f' transform="rotate({rotate} {_n(x)} {_n(y)})"'
    return f"<text {attributes}>{escape(text)}</text>"


def _n(value: float) -> str:
    """A coordinate with at most one decimal and no trailing zero (``24``, ``30.8``)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _line(cls: str, x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line class="{cls}" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"/>'


def _swatch(x: float, y: float, *, fill: str = "", cls: str = "") -> str:
    """A 12 px legend square."""
    paint = f' class="{cls}"' if cls else f' fill="{fill}"'
    return f'<rect x="{_n(x)}" y="{_n(y)}" width="12" height="12"{paint}/>'


def _tip(text: str) -> str:
    return f"<title>{escape(text)}</title>"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round values spanning [low, high] (1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else [0.0]
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    ticks = [round(i * step, 12) + 0.0 for i in range(first, last + 1)]
    return ticks


def _tick_text(value: float) -> str:
    return f"{value:g}".replace("-", "−")


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (
        f'<svg class="panel" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}">'
        + "".join(body)
        + "</svg>"
    )


def _y_axis(body, left, right, top, height, low, high, label) -> None:
    """Ticks, grid lines and the label of a vertical value axis on [low, high]."""

    def y(value):
        return top + height * (high - value) / (high - low)

    for tick in nice_ticks(low, high):
        body.append(_line("grid", left, y(tick), right, y(tick)))
        body.append(_text(left - 4, y(tick) + 4, _tick_text(tick), anchor="end", cls="tick"))
    body.append(_text(12, top + height / 2, label, anchor="middle", cls="axis", rotate=-90))


def bars(panel: Bars) -> str:
    n = len(panel.values)
    step = min(16.0, max(7.0 if n > 60 else 10.0, 520.0 / max(n, 1)))
    left, top, plot_height = 58.0, 40.0 if panel.subtitle else 24.0, 160.0
    width = left + n * step + 12
    values = [v for v in (panel.values, panel.weighted) if v is not None]
    low = min([0.0, *(float(np.nanmin(v)) for v in values if len(v))])
    high = max([0.0, *(float(np.nanmax(v)) for v in values if len(v))])
    if high <= low:
        high = low + 1.0
    margin = (high - low) * 0.05
    low, high = (low - margin if low < 0 else low), high + margin
    show_labels = n <= 60
    label_space = (max((len(t) for t in panel.labels), default=1) * CHAR + 10) if show_labels else 0
    height = top + plot_height + label_space + 28

    def y(value):
        return top + plot_height * (high - value) / (high - low)

    body = [_text(4, 15, panel.title, cls="title")]
    if panel.subtitle:
        body.append(_text(4, 31, panel.subtitle, cls="tick"))
    _y_axis(body, left, left + n * step, top, plot_height, low, high, panel.y_label)
    zero = y(0.0)
    for i, value in enumerate(panel.values):
        if value != value:
            continue
        x = left + i * step + 1
        if panel.weighted is not None and panel.weighted[i] < value:
            w = float(panel.weighted[i])
            body.append(
                f'<rect class="pale" x="{_n(x)}" y="{_n(zero)}" width="{_n(step - 2)}" '
                f'height="{_n(y(w) - zero)}"/>'
            )
        cls = ("win" if value > 0 else "loss") if panel.signed else "plain"
        top_y, bottom_y = min(y(value), zero), max(y(value), zero)
        body.append(
            f'<rect class="{cls}" x="{_n(x)}" y="{_n(top_y)}" width="{_n(step - 2)}" '
            f'height="{_n(max(bottom_y - top_y, 0.8))}">{_tip(panel.tips[i])}</rect>'
        )
        if show_labels:
            body.append(
                _text(
                    x + step / 2,
                    top + plot_height + 6,
                    panel.labels[i],
                    anchor="end",
                    cls="tick",
                    rotate=-90,
                )
            )
    body.append(_line("zero", left, zero, width - 8, zero))
    body.append(_text(left + n * step / 2, height - 6, panel.x_label, anchor="middle", cls="axis"))
    text_width = max(len(panel.title) * TITLE_CHAR, len(panel.subtitle) * CHAR)
    return _svg(max(width, 8 + text_width), height, body, panel.title)


def grid(panel: Grid) -> str:
    n_rows, n_columns = panel.values.shape
    cell_w = min(22.0, max(9.0, 640.0 / max(n_columns, 1)))
    cell_h = 16.0 if n_rows > 1 else 20.0
    left = max((len(r) for r in panel.rows), default=1) * CHAR + 24
    top = 24.0
    if panel.column_ticks is not None:
        label_space = 16.0
    elif panel.column_labels:
        label_space = max((len(c) for c in panel.columns), default=1) * CHAR + 8
    else:
        label_space = 0.0
    legend_height = 26.0 if panel.legend else 0.0
    width = left + n_columns * cell_w + 12
    height = top + n_rows * cell_h + label_space + 18 + legend_height
    body = [_text(4, 15, panel.title, cls="title")]
    if panel.greyed_columns is not None:
        for greyed in np.flatnonzero(panel.greyed_columns):
            body.append(
                f'<rect class="unjudged" x="{_n(left + greyed * cell_w)}" y="{top}" '
                f'width="{_n(cell_w)}" height="{_n(n_rows * cell_h)}"/>'
            )
    if panel.scale in ("grades", "diverging"):  # white cells (not relevant, no difference)
        body.append(
            f'<rect class="frame" x="{left}" y="{top}" width="{_n(n_columns * cell_w)}" '
            f'height="{_n(n_rows * cell_h)}"/>'
        )
    for i in range(n_rows):
        body.append(_text(left - 4, top + i * cell_h + cell_h / 2 + 4, panel.rows[i], anchor="end"))
        for j in range(n_columns):
            value = float(panel.values[i, j])
            if panel.scale == "grades":
                if not value > 0:
                    continue
                fill = colours.grade(value, panel.high)
            elif value != value:
                continue
            elif panel.scale == "diverging":
                fill = colours.diverging(value, max(abs(panel.low), abs(panel.high)))
            else:
                fill = colours.sequential(value, panel.low, panel.high)
            body.append(
                f'<rect x="{_n(left + j * cell_w)}" y="{_n(top + i * cell_h)}" '
                f'width="{_n(cell_w - 1)}" height="{_n(cell_h - 1)}" fill="{fill}">'
                f"{_tip(str(panel.tips[i, j]))}</rect>"
            )
    base = top + n_rows * cell_h
    if panel.column_ticks is not None:
        for j in panel.column_ticks:
            x = left + j * cell_w + cell_w / 2
            body.append(_text(x, base + 13, panel.columns[j], anchor="middle", cls="tick"))
    elif panel.column_labels:
        for j, column in enumerate(panel.columns):
            body.append(
                _text(
                    left + j * cell_w + cell_w / 2 + 4,
                    base + 4,
                    column,
                    anchor="end",
                    cls="tick",
                    rotate=-90,
                )
            )
    body.append(
        _text(
            left + n_columns * cell_w / 2,
            base + label_space + 14,
            panel.x_label,
            anchor="middle",
            cls="axis",
        )
    )
    if panel.legend:
        body.append(_legend(panel, left, height - 10))
    return _svg(max(width, 330.0, 8 + len(panel.title) * TITLE_CHAR), height, body, panel.title)


def _legend(panel: Grid, left: float, y: float) -> str:
    parts = []
    if panel.scale == "grades":
        x = left
        for level, fill in colours.grade_levels(panel.high):
            parts.append(_swatch(x, y - 10, fill=fill))
            parts.append(_text(x + 16, y, f"grade {level}", cls="tick"))
            x += 70
        parts.append(_swatch(x, y - 10, cls="unjudged"))
        parts.append(_text(x + 16, y, "unjudged", cls="tick"))
        return "".join(parts)
    width = 120.0
    low, high = panel.low, panel.high
    if panel.scale == "diverging":
        high = max(abs(low), abs(high))
        low = -high
        steps = np.linspace(low, high, 9)
        stops = tuple(colours.diverging(value, high) for value in steps)
    else:
        stops = colours.viridis_stops()
    for i, fill in enumerate(stops):
        parts.append(
            f'<rect x="{_n(left + i * width / len(stops))}" y="{_n(y - 10)}" '
            f'width="{_n(width / len(stops) + 0.5)}" height="12" fill="{fill}"/>'
        )
    parts.append(_text(left - 4, y, _tick_text(round(low, 4)), anchor="end", cls="tick"))
    parts.append(_text(left + width + 4, y, _tick_text(round(high, 4)), cls="tick"))
    return "".join(parts)


def _marker(kind: int, x: float, y: float, colour: str, tip: str) -> str:
    shape = kind % 3
    if shape == 0:
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="3.5" fill="{colour}">{_tip(tip)}</circle>'
    if shape == 1:
        return (
            f'<rect x="{_n(x - 3.2)}" y="{_n(y - 3.2)}" width="6.4" height="6.4" '
            f'fill="{colour}">{_tip(tip)}</rect>'
        )
    return (
        f'<path d="M{_n(x)} {_n(y - 4.2)}L{_n(x + 4)} {_n(y + 3)}L{_n(x - 4)} {_n(y + 3)}Z" '
        f'fill="{colour}">{_tip(tip)}</path>'
    )


def lines(panel: Lines) -> str:
    left, top, plot_width, plot_height = 58.0, 24.0, 420.0, 220.0
    legend_width = max((len(s) for s in panel.series), default=1) * CHAR + 28
    width = left + plot_width + 16 + legend_width
    height = top + plot_height + 42
    ys = [v for v in panel.series.values() if len(v)]
    finite = np.concatenate(ys) if ys else np.zeros(1)
    finite = finite[np.isfinite(finite)]
    low = min(0.0, float(finite.min()) if len(finite) else 0.0)
    high = max(float(finite.max()) if len(finite) else 1.0, panel.reference or 0.0)
    high = high + (high - low) * 0.05 if high > low else low + 1.0
    x_low, x_high = float(panel.x.min(initial=0)), float(panel.x.max(initial=1))
    if x_high <= x_low:
        x_high = x_low + 1

    def px(value):
        return left + plot_width * (value - x_low) / (x_high - x_low)

    def py(value):
        return top + plot_height * (high - value) / (high - low)

    body = [_text(4, 15, panel.title, cls="title")]
    _y_axis(body, left, left + plot_width, top, plot_height, low, high, panel.y_label)
    for tick in nice_ticks(x_low, x_high, 6):
        body.append(
            _text(px(tick), top + plot_height + 16, _tick_text(tick), anchor="middle", cls="tick")
        )
    body.append(
        _text(left + plot_width / 2, height - 4, panel.x_label, anchor="middle", cls="axis")
    )
    if panel.reference is not None:
        y = py(panel.reference)
        body.append(_line("ref", left, y, left + plot_width, y))
        label = panel.reference_label
        body.append(_text(left + plot_width - 2, y - 4, label, anchor="end", cls="tick"))
    for i, (name, values) in enumerate(panel.series.items()):
        colour = colours.series(i)
        points = [(px(x), py(v)) for x, v in zip(panel.x, values, strict=False) if v == v]
        path = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        if len(points) <= 60:
            for x, v in zip(panel.x, values, strict=False):
                if v == v:
                    tip = f"{name} · {panel.x_label} {x:g} · {panel.y_label} {v:.4f}"
                    body.append(_marker(i, px(x), py(v), colour, tip))
        y = top + 8 + i * 18
        x = left + plot_width + 16
        body.append(_marker(i, x + 6, y, colour, name))
        body.append(_text(x + 16, y + 4, name))
    return _svg(width, height, body, panel.title)


def points(panel: Points) -> str:
    left, top, size = 64.0, 24.0, 300.0
    width, height = left + size + 150, top + size + 44
    x_low, x_high = _span(panel.x)
    y_low, y_high = _span(panel.y)
    if panel.diagonal:
        x_low = y_low = min(x_low, y_low)
        x_high = y_high = max(x_high, y_high)

    def px(value):
        return left + size * (value - x_low) / (x_high - x_low)

    def py(value):
        return top + size * (y_high - value) / (y_high - y_low)

    body = [_text(4, 15, panel.title, cls="title")]
    _y_axis(body, left, left + size, top, size, y_low, y_high, panel.y_label)
    for tick in nice_ticks(x_low, x_high):
        body.append(_text(px(tick), top + size + 16, _tick_text(tick), anchor="middle", cls="tick"))
    body.append(_text(left + size / 2, height - 4, panel.x_label, anchor="middle", cls="axis"))
    if panel.diagonal:
        body.append(_line("ref", px(x_low), py(y_low), px(x_high), py(y_high)))
    for i, (x, y, label) in enumerate(zip(panel.x, panel.y, panel.labels, strict=True)):
        tip = f"{label} · {panel.x_label} {x:.4f} · {panel.y_label} {y:.4f}"
        body.append(_marker(0, px(x), py(y), colours.series(i), tip))
        body.append(_text(px(x) + 6, py(y) - 5, label, cls="tick"))
    return _svg(width, height, body, panel.title)


def _span(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if not len(finite):
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    pad = (high - low) * 0.08 or 0.05
    return low - pad, high + pad


_DRAW: dict[type, Callable[[Any], str]] = {Bars: bars, Grid: grid, Lines: lines, Points: points}


def panel_svg(panel: Panel) -> str:
    return _DRAW[type(panel)](panel)


def figure_html(
    figure: Figure, *, heading: str = "h2", anchor: str | None = None, caption: bool = True
) -> str:
    """The figure as an HTML ``<figure>``: its title, its one-line caption (how to read it)
    and its panels (side by side where the window is wide enough)."""
    ident = f' id="{escape(anchor)}"' if anchor else ""
    panels = "".join(f'<div class="cell">{panel_svg(p)}</div>' for p in figure.panels)
    return (
        f'<figure class="chart" data-kind="{escape(figure.kind)}"{ident}>'
        f"<{heading}>{escape(figure.title)}</{heading}>"
        + (f"<figcaption>{escape(figure.caption)}</figcaption>" if caption else "")
        + f'<div class="panels">{panels}</div></figure>'
    )
