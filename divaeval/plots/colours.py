"""Colour-blind-safe colours shared by the renderers: the Okabe-Ito palette for runs and for
wins and losses (Okabe & Ito 2008), viridis for values low to high, vermillion-white-blue for
differences around 0 (losses, none, wins), one blue hue for grades."""

from __future__ import annotations

#: one colour per series (runs, metrics), in order; black and grey after the seven hues
SERIES = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#000000",
    "#999999",
    "#F0E442",
)
WIN = "#0072B2"  # blue
LOSS = "#D55E00"  # vermillion
LOSS_WEIGHTED = "#F2B38F"  # pale vermillion: a loss times 1 + α
NEUTRAL = "#56B4E9"  # sky blue: bars without a sign
UNJUDGED = "#DDDDDD"
EMPTY = "#F7F7F7"
#: viridis at 0, 1/8, ..., 1
_VIRIDIS = (
    "#440154",
    "#472D7B",
    "#3B528B",
    "#2C728E",
    "#21918C",
    "#28AE80",
    "#5EC962",
    "#ADDC30",
    "#FDE725",
)
#: relevance grades 1, 2, ... from light to dark blue (grade 0 is white)
_GRADES = ("#9ECAE1", "#4292C6", "#2171B5", "#08519C", "#08306B")


def series(i: int) -> str:
    return SERIES[i % len(SERIES)]


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def sequential(value: float, low: float, high: float) -> str:
    """The viridis colour of ``value`` on [low, high] (clipped; NaN: the empty colour)."""
    if value != value:
        return EMPTY
    share = 0.0 if high <= low else min(max((value - low) / (high - low), 0.0), 1.0)
    position = share * (len(_VIRIDIS) - 1)
    i = min(int(position), len(_VIRIDIS) - 2)
    return _mixed(_VIRIDIS[i], _VIRIDIS[i + 1], position - i)


#: a difference from its most negative to its most positive: a loss, none, a win
_DIVERGING = (LOSS, "#FFFFFF", WIN)


def _mixed(a: str, b: str, f: float) -> str:
    pairs = zip(_rgb(a), _rgb(b), strict=True)
    return "#{:02X}{:02X}{:02X}".format(*(round(x + (y - x) * f) for x, y in pairs))


def diverging(value: float, bound: float) -> str:
    """The colour of the difference ``value`` on [−bound, bound] (clipped), centred on 0:
    vermillion below, white at 0, blue above (NaN: the empty colour)."""
    if value != value:
        return EMPTY
    share = 0.0 if bound <= 0 else min(max(value / bound, -1.0), 1.0)
    return _mixed(_DIVERGING[1], _DIVERGING[2] if share >= 0 else _DIVERGING[0], abs(share))


def diverging_stops() -> tuple[str, ...]:
    return _DIVERGING


def grade(value: float, top: float) -> str:
    """The colour of relevance grade ``value`` when grades reach ``top`` (0: white)."""
    if value != value:
        return EMPTY
    if value <= 0:
        return "#FFFFFF"
    if top <= 1:
        return _GRADES[2]
    share = (min(value, top) - 1) / (top - 1)
    return _GRADES[round(share * (len(_GRADES) - 1))]


def grade_levels(top: float) -> list[tuple[int, str]]:
    """(grade, colour) of every grade 1..top, for legends."""
    return [(g, grade(g, top)) for g in range(1, int(max(top, 1)) + 1)]


def viridis_stops() -> tuple[str, ...]:
    return _VIRIDIS
