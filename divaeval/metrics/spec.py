"""The measure-table types: a metric's declaration and a measure value.

A metric is one :class:`MetricSpec` (name, aliases, parameters with defaults, cutoff policy, a
one-line definition, the paper or tool it follows, and a pure ``compute`` function; compare
trec_eval's ``TREC_MEAS``). A :class:`Measure` is a value: a spec with every parameter bound and
one cutoff, e.g. ``alpha-nDCG(alpha=0.3)@20`` (compare ir_measures' measure objects). Display
names show only non-default parameters and are accepted back by
:func:`divaeval.metrics.parse.parse_measures` (round trip).

``compute(jr, params, cutoffs)`` receives a :class:`~divaeval.judged.JudgedRankings`, the bound
parameters as a dict and a tuple of cutoffs (``None`` = the whole ranking) and returns a float
array of shape ``[T, len(cutoffs)]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from divaeval.errors import UsageError

CutoffPolicy = Literal["optional", "required", "none"]


@dataclass(frozen=True)
class Param:
    """One metric parameter: name, type (float, int or str), default, help text, and an
    optional validator returning an error message for a bad value."""

    name: str
    kind: type
    default: Any
    help: str
    check: Callable[[Any], str | None] | None = None
    choices: tuple[str, ...] | None = None
    required: bool = False  # must be given explicitly (the default is only a placeholder)

    def parse(self, text: str, metric: str) -> Any:
        try:
            if self.kind is int:
                value: Any = int(text)
            elif self.kind is float:
                value = float(text)
                if not math.isfinite(value):
                    raise ValueError
            else:
                value = text
        except ValueError:
            raise UsageError(
                f"{metric}: parameter {self.name}={text!r} is not a valid {self.kind.__name__}"
            ) from None
        if self.choices is not None and value not in self.choices:
            raise UsageError(
                f"{metric}: parameter {self.name}={text!r} must be one of {', '.join(self.choices)}"
            )
        if self.check is not None and (problem := self.check(value)) is not None:
            raise UsageError(f"{metric}: parameter {self.name}={text!r}: {problem}")
        return value


def in_unit_interval(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must be in [0, 1]"


def in_open_unit_interval(value: float) -> str | None:
    return None if 0.0 < value < 1.0 else "must be in (0, 1)"


def non_negative(value: float) -> str | None:
    return None if value >= 0 else "must be >= 0"


def positive(value: float) -> str | None:
    return None if value > 0 else "must be > 0"


Compute = Callable[[Any, dict[str, Any], tuple[int | None, ...]], Any]


@dataclass(frozen=True)
class MetricSpec:
    """One entry of the measure table (compare trec_eval's ``TREC_MEAS``)."""

    name: str
    family: str
    summary: str
    reference: str
    compute: Compute
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()
    cutoff: CutoffPolicy = "optional"
    default_cutoffs: tuple[int | None, ...] = (None,)
    integer: bool = False
    notes: str = ""
    order: int = field(default=0, compare=False)

    def param(self, name: str) -> Param | None:
        for param in self.params:
            if param.name == name:
                return param
        return None

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}


def format_value(value: Any) -> str:
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


@dataclass(frozen=True)
class Measure:
    """A metric with bound parameters and one cutoff (``None`` = whole ranking)."""

    spec: MetricSpec
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def name(self) -> str:
        """Display name: non-default parameters in parentheses, then ``@k``."""
        changed = [
            f"{name}={format_value(value)}"
            for (name, value), param in zip(self.params, self.spec.params, strict=True)
            if value != param.default or param.required
        ]
        text = self.spec.name
        if changed:
            text += "(" + ",".join(changed) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __str__(self) -> str:
        return self.name


def normalize_name(name: str) -> str:
    """Names are case-insensitive and ``-``/``_`` are interchangeable."""
    return name.strip().lower().replace("_", "-")
