"""The measure-table types: a metric's declaration and a measure value.

A metric is one :class:`MetricSpec` (name, aliases, parameters with defaults, cutoff policy, a
one-line definition, the paper or tool it follows, and a pure ``compute`` function; compare
trec_eval's ``TREC_MEAS``). A :class:`Measure` is a value: a spec with every parameter bound and
one cutoff, e.g. ``alpha-nDCG(alpha=0.3)@20`` (compare ir_measures' measure objects). Display
names show only non-default parameters and are accepted back by
:func:`divaeval.metrics.parse.parse_measures` (round trip).

A metric may also be reached under the names other tools give it (:class:`Form`, e.g.
trec_eval's ``ndcg_cut`` = ``nDCG`` with the cutoffs 5 … 1000, ``set_P`` = ``P@all``); its
``trec_eval`` and ``ir_measures`` fields state that mapping for ``divaeval metrics``.

``compute(jr, params, cutoffs)`` receives a :class:`~divaeval.judged.JudgedRankings`, the bound
parameters as a dict and a tuple of cutoffs (``None`` = the whole ranking) and returns a float
array of shape ``[T, len(cutoffs)]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from divaeval.errors import UsageError

CutoffPolicy = Literal["optional", "required", "none"]
#: how per-topic values become the summary value: the topic mean (``--mean``), the sum over
#: topics (counts, as trec_eval and ir_measures sum num_ret), or the geometric mean (gm_map)
Aggregate = Literal["mean", "sum", "geom"]
#: the cutoff word of a whole ranking: ``P@all`` (trec_eval's set_P)
WHOLE_RANKING = "all"


class Param(NamedTuple):
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
            if self.kind is bool:
                lowered = text.strip().lower()
                if lowered not in ("true", "false", "1", "0"):
                    raise ValueError
                value: Any = lowered in ("true", "1")
            elif self.kind is int:
                value = int(text)
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
    #: summary over topics (see :data:`Aggregate`)
    aggregate: Aggregate = "mean"
    #: a parameter that ``@x`` sets instead of a cutoff (IPrec@0.2: the recall level); the
    #: metric then takes no cutoff, and ``default_levels`` are its values when none is given
    level_param: str | None = None
    default_levels: tuple = ()
    #: how trec_eval's ``name.params`` syntax maps onto the metric (see :class:`Form`);
    #: None: ``levels`` for a metric with a level parameter, else ``cutoffs``
    trec_params: str | None = None
    #: the names of this metric in trec_eval and in ir_measures (documentation)
    trec_eval: str = ""
    ir_measures: str = ""
    order: int = field(default=0, compare=False)

    def __hash__(self) -> int:
        # (a spec's name is unique in the registry: not every field, each a hash of its own,
        # whenever a Measure is a dict key)
        return hash(self.name)

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
    """A metric with bound parameters and one cutoff (``None`` = whole ranking).

    Two measures are equal when metric, parameters and cutoff are; how the user asked for one
    (``label``, ``dialect``: see :mod:`divaeval.metrics.dialects`) does not change what it
    is, only the name it prints under."""

    spec: MetricSpec
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None
    #: the output name, as the user asked for the measure (``map``, ``P_10``, ``alpha_nDCG@20``);
    #: None: the display name
    label: str | None = field(default=None, compare=False)
    #: the naming the measure was asked for in: ``divaeval``, ``trec_eval`` or ``ir_measures``
    dialect: str = field(default="divaeval", compare=False)
    #: trec_eval's ``runid`` line was asked for with this measure (``-m runid``, ``-m official``)
    runid: bool = field(default=False, compare=False)

    def __hash__(self) -> int:
        return hash((self.spec.name, self.params, self.cutoff))

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def name(self) -> str:
        """The output name: what the user asked for (:attr:`label`), else :attr:`display`."""
        return self.display if self.label is None else self.label

    @property
    def resolved(self) -> str:
        """Every parameter bound, in the metric's order, then ``@k`` (``@all`` for the whole
        ranking; ``@x`` for a level): ``alpha-nDCG(alpha=0.5)@20``. A parameter left unset
        (None: it follows a command-line option, e.g. ``rel`` follows ``-l``) is not written.
        Parsed back, it is the same measure whatever the defaults become: what a stored result
        was computed with."""
        level = self.spec.level_param
        bound = [f"{n}={format_value(v)}" for n, v in self.params if n != level and v is not None]
        text = self.spec.name + (f"({','.join(bound)})" if bound else "")
        if level is not None:
            return f"{text}@{format_value(self.param_dict[level])}"
        if self.cutoff is not None:
            return f"{text}@{self.cutoff}"
        return text + (f"@{WHOLE_RANKING}" if self.spec.cutoff != "none" else "")

    @property
    def display(self) -> str:
        """Display name: non-default parameters in parentheses, then ``@k`` (``@all`` for the
        whole ranking of a metric whose default is a list of cutoffs; ``@x`` for the level
        parameter, e.g. ``IPrec@0.2``)."""
        level = self.spec.level_param
        changed = [
            f"{name}={format_value(value)}"
            for (name, value), param in zip(self.params, self.spec.params, strict=True)
            if (value != param.default or param.required) and name != level
        ]
        text = self.spec.name
        if changed:
            text += "(" + ",".join(changed) + ")"
        if level is not None:
            text += f"@{format_value(self.param_dict[level])}"
        elif self.cutoff is not None:
            text += f"@{self.cutoff}"
        elif self.spec.cutoff != "none" and self.spec.default_cutoffs != (None,):
            text += f"@{WHOLE_RANKING}"
        return text

    def __str__(self) -> str:
        return self.name


def normalize_name(name: str) -> str:
    """Names are case-insensitive and ``-``/``_`` are interchangeable."""
    return name.strip().lower().replace("_", "-")


class Form(NamedTuple):
    """Another tool's name for a metric, with the parameters and default cutoffs that name
    implies: trec_eval's ``ndcg_cut`` is ``nDCG`` with the cutoffs 5 … 1000, ``set_P`` is
    ``P@all``, ``IPrec`` binds pytrec_eval's recall rounding.

    ``trec`` says how trec_eval's parameter syntax ``name.p1,p2`` maps onto the metric:
    ``cutoffs`` (``P.5,10``), ``levels`` (``iprec_at_recall.0.1,0.2``: one measure per value
    of the level parameter), ``param:NAME`` (the whole list is one parameter value:
    ``utility.1,-1,0,0``, ``ndcg.1=3,2=9``), ``assign`` (``rbp.p=0.95``) or ``None`` (no
    parameters)."""

    name: str
    spec: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoffs: tuple[int | None, ...] | None = None
    trec: str | None = None
