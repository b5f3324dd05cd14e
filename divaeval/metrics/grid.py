"""Parameter grids of measures: ``--grid alpha=0:1:0.1,lambda=0:1:0.1``.

A grid names numeric parameters and the values each takes: ``NAME=START:STOP:STEP`` (every
START + i·STEP ≤ STOP, counted in exact decimal arithmetic, so ``0:1:0.1`` is the eleven values
0, 0.1, …, 1 with no 0.30000000000000004) or ``NAME=VALUE``. Items are separated by commas, and
the option may be repeated. The points are the Cartesian product of the axes, the first axis
varying slowest (Golbus et al. 2013 vary α and λ over {0, 0.1, …, 1}: Figure 7, Tables 9–10).

:func:`grid_measures` binds every point to a measure; each value is checked by the parameter's
own validator, as if typed in ``-m``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from divaeval.errors import UsageError
from divaeval.metrics.spec import Measure

#: the largest number of points of one grid (a typo such as a step of 0.0001 is an error)
MAX_GRID_POINTS = 10_000


@dataclass(frozen=True)
class Grid:
    """Axes (parameter name, value texts) and the text they were given as."""

    axes: tuple[tuple[str, tuple[str, ...]], ...]
    text: str

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.axes]

    def points(self) -> list[tuple[str, ...]]:
        """Every point as a tuple of value texts, one per axis (the first axis slowest)."""
        return list(itertools.product(*(values for _, values in self.axes)))

    def __len__(self) -> int:
        size = 1
        for _, values in self.axes:
            size *= len(values)
        return size


def _decimal(text: str, item: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise UsageError(f"--grid {item!r}: {text.strip()!r} is not a number") from None
    if not value.is_finite():
        raise UsageError(f"--grid {item!r}: {text.strip()!r} is not a finite number")
    return value


def _plain(value: Decimal) -> str:
    """0.30 → '0.3', 1.0 → '1', 1E+1 → '10'."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def _axis_values(spec: str, item: str) -> tuple[str, ...]:
    parts = spec.split(":")
    if len(parts) == 1:
        return (_plain(_decimal(parts[0], item)),)
    if len(parts) != 3:
        raise UsageError(f"--grid {item!r}: give NAME=START:STOP:STEP or NAME=VALUE")
    start, stop, step = (_decimal(part, item) for part in parts)
    if step <= 0:
        raise UsageError(f"--grid {item!r}: the step must be > 0")
    if stop < start:
        raise UsageError(f"--grid {item!r}: STOP is below START")
    count = int((stop - start) // step) + 1
    if count > MAX_GRID_POINTS:
        raise UsageError(f"--grid {item!r}: {count} values (at most {MAX_GRID_POINTS})")
    return tuple(_plain(start + i * step) for i in range(count))


def parse_grid(texts: Sequence[str]) -> Grid | None:
    """``["alpha=0:1:0.1,lambda=0:1:0.1"]`` → a :class:`Grid` (None for no text)."""
    items = [item.strip() for text in texts for item in text.split(",") if item.strip()]
    if not items:
        return None
    axes: list[tuple[str, tuple[str, ...]]] = []
    for item in items:
        name, sep, spec = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--grid {item!r}: give NAME=START:STOP:STEP or NAME=VALUE")
        if any(name == known for known, _ in axes):
            raise UsageError(f"--grid: parameter {name} is given twice")
        axes.append((name, _axis_values(spec, item)))
    grid = Grid(tuple(axes), ",".join(items))
    if len(grid) > MAX_GRID_POINTS:
        raise UsageError(f"--grid: {len(grid)} points (at most {MAX_GRID_POINTS})")
    return grid


def grid_measures(measure: Measure, grid: Grid) -> list[tuple[dict[str, Any], Measure]]:
    """``measure`` at every point of ``grid``: (point as name -> value, measure) in grid
    order. Every grid parameter must be a numeric parameter of the measure that ``-m`` left at
    its default (a value given both ways is ambiguous)."""
    spec = measure.spec
    bound = measure.param_dict
    params = []
    for name in grid.names:
        param = spec.param(name)
        if param is None or name == spec.level_param:
            known = ", ".join(p.name for p in spec.params if p.name != spec.level_param)
            raise UsageError(
                f"--grid: {measure.name} has no parameter {name}"
                + (f" (its parameters: {known})" if known else " (it has no parameters)")
            )
        if param.kind not in (int, float):
            raise UsageError(
                f"--grid: {spec.name}'s parameter {name} is not numeric; give it in -m"
            )
        if bound[name] != param.default:
            raise UsageError(f"--grid: {name} is given both in {measure.name} and in --grid")
        params.append(param)
    out = []
    for point in grid.points():
        values = {
            param.name: param.parse(text, spec.name)
            for param, text in zip(params, point, strict=True)
        }
        bound_params = tuple((name, values.get(name, value)) for name, value in measure.params)
        out.append((values, Measure(spec, bound_params, measure.cutoff)))
    return out
