"""The declarative metric registry and the ``-m`` measure syntax.

A metric is one :class:`MetricSpec` (name, aliases, parameters with defaults, cutoff policy, a
one-line definition, the paper or tool it follows, and a pure ``compute`` function). A
:class:`Measure` is a value: a spec with every parameter bound and one cutoff, e.g.
``alpha-nDCG(alpha=0.3)@20``. Display names show only non-default parameters and are accepted
back by :func:`parse_measures` (round trip).

Syntax: ``NAME[(param=value,...)][@k1,k2,...]``; names are case-insensitive and ``-``/``_`` are
interchangeable. A piece without ``=`` continues the previous parameter's value, so a list
value keeps its commas: ``D-nDCG(gains=1:1,2:3,3:7)@10``. A preset (``-m ndeval``) expands to
a list of measures.

``compute(jr, params, cutoffs)`` receives a :class:`~divaeval.judged.JudgedRankings`, the bound
parameters as a dict and a tuple of cutoffs (``None`` = the whole ranking) and returns a float
array of shape ``[T, len(cutoffs)]``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Sequence
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


_REGISTRY: dict[str, MetricSpec] = {}
_LOOKUP: dict[str, str] = {}
_PRESETS: dict[str, tuple[tuple[str, ...], str]] = {}
#: ``-m all[@k,...]``: every registered metric with default parameters (cutoffs where taken).
ALL_PRESET = "all"


def normalize_name(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (names and aliases must be unique)."""
    spec = MetricSpec(**{**spec.__dict__, "order": len(_REGISTRY)})
    for key in (spec.name, *spec.aliases):
        norm = normalize_name(key)
        owner = _LOOKUP.get(norm)
        if owner is not None and owner != spec.name:
            raise ValueError(f"metric name {key!r} already belongs to {owner}")
        if norm in _PRESETS:
            raise ValueError(f"metric name {key!r} collides with a preset")
        if norm == ALL_PRESET:
            raise ValueError(f"metric name {key!r} is reserved")
        _LOOKUP[norm] = spec.name
    _REGISTRY[spec.name] = spec
    return spec


def family_registrar(
    family: str,
    *,
    reference: str,
    params: tuple[Param, ...] = (),
    cutoff: CutoffPolicy = "optional",
    defaults: tuple[int | None, ...] = (None,),
) -> Callable[..., MetricSpec]:
    """:func:`register` bound to one family: the source, parameters and cutoff policy the
    family's metrics share are given once; each metric states only what differs."""
    family_defaults = {
        "reference": reference,
        "params": params,
        "cutoff": cutoff,
        "defaults": defaults,
    }

    def add(
        name: str,
        compute: Compute,
        summary: str,
        params: tuple[Param, ...] | None = None,
        *,
        aliases: tuple[str, ...] = (),
        notes: str = "",
        **fields,
    ) -> MetricSpec:
        unknown = set(fields) - set(family_defaults)
        if unknown:
            raise TypeError(f"unknown metric fields {sorted(unknown)}")
        merged = {**family_defaults, **fields}
        return register(
            MetricSpec(
                name=name,
                family=family,
                summary=summary,
                compute=compute,
                reference=merged["reference"],
                params=family_defaults["params"] if params is None else params,
                aliases=aliases,
                cutoff=merged["cutoff"],
                default_cutoffs=merged["defaults"],
                notes=notes,
            )
        )

    return add


def register_preset(name: str, measures: Sequence[str], summary: str) -> None:
    """A named list of measure strings, expanded by ``-m NAME``."""
    norm = normalize_name(name)
    if norm in _LOOKUP:
        raise ValueError(f"preset {name!r} collides with a metric name")
    _PRESETS[norm] = (tuple(measures), summary)


def _load_families() -> None:
    from divaeval.metrics import load_families

    load_families()


def all_specs() -> list[MetricSpec]:
    _load_families()
    return sorted(_REGISTRY.values(), key=lambda s: s.order)


def presets() -> dict[str, tuple[tuple[str, ...], str]]:
    _load_families()
    every = tuple(spec.name for spec in all_specs())
    return {**_PRESETS, ALL_PRESET: (every, "every registered metric (all@k: at cutoff k)")}


def get_spec(name: str) -> MetricSpec:
    _load_families()
    norm = normalize_name(name)
    if norm not in _LOOKUP:
        candidates = sorted(set(_LOOKUP) | set(_PRESETS))
        close = difflib.get_close_matches(norm, candidates, n=4, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"unknown measure {name!r}{hint} (see 'divaeval metrics')")
    return _REGISTRY[_LOOKUP[norm]]


_MEASURE = re.compile(r"^\s*(?P<name>[^(@]+?)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@(?P<cut>.*))?$")


def _parse_cutoffs(text: str, spec: MetricSpec, raw: str) -> list[int]:
    cutoffs: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not re.fullmatch(r"[+-]?\d+", part):
            raise UsageError(f"{raw!r}: cutoff {part!r} is not a positive integer")
        k = int(part)
        if k < 1:
            raise UsageError(f"{raw!r}: cutoff {k} must be >= 1")
        if k in cutoffs:
            raise UsageError(f"{raw!r}: duplicate cutoff {k}")
        cutoffs.append(k)
    return sorted(cutoffs)


def _assignments(params: str, text: str) -> list[tuple[str, str]]:
    """``name=value`` pairs of a parameter list. A comma-separated piece without ``=``
    continues the previous value, so list-valued parameters keep their commas
    (``gains=1:1,2:3,3:7``) and display names round trip."""
    pairs: list[list[str]] = []
    for piece in params.split(","):
        if "=" in piece:
            key, value = piece.split("=", 1)
            pairs.append([key.strip(), value.strip()])
        elif pairs and piece.strip():
            pairs[-1][1] += "," + piece.strip()
        elif piece.strip():
            raise UsageError(f"{text!r}: parameter {piece.strip()!r} needs name=value")
    return [(key, value) for key, value in pairs]


def _expand_preset(norm: str, params: str, cut_text: str | None, text: str) -> list[Measure]:
    """A preset with parameters and/or cutoffs: each parameter goes to the members that take
    it (``ndeval(alpha=0.9)`` changes α where there is one), the cutoffs to the members that
    take cutoffs; a parameter that no member takes is an error."""
    assignments = _assignments(params, text)
    used: set[str] = set()
    out: list[Measure] = []
    for item in _PRESETS[norm][0]:
        base = _MEASURE.match(item)
        spec = get_spec(base.group("name"))
        own = [(k, v) for k, v in assignments if spec.param(k) is not None]
        used.update(k for k, _ in own)
        member = spec.name
        if own:
            member += "(" + ",".join(f"{k}={v}" for k, v in own) + ")"
        if cut_text and spec.cutoff != "none":
            member += f"@{cut_text}"
        elif base.group("cut"):
            member += f"@{base.group('cut')}"
        out.extend(parse_measure(member))
    unknown = [k for k, _ in assignments if k not in used]
    if unknown:
        raise UsageError(f"{text!r}: no measure of the preset takes {', '.join(unknown)}")
    return out


def parse_measure(text: str) -> list[Measure]:
    """Parse one ``-m`` argument (a measure, a measure with several cutoffs, or a preset)."""
    _load_families()
    norm = normalize_name(text)
    if norm in _PRESETS:
        out: list[Measure] = []
        for item in _PRESETS[norm][0]:
            out.extend(parse_measure(item))
        return out
    match = _MEASURE.match(text)
    if match is None or not match.group("name"):
        raise UsageError(f"cannot parse measure {text!r} (syntax: NAME[(p=v,...)][@k,...])")
    name = match.group("name")
    norm = normalize_name(name)
    cut_text = match.group("cut")
    if norm in _PRESETS and (match.group("params") or cut_text):
        return _expand_preset(norm, match.group("params") or "", cut_text, text)
    if norm == ALL_PRESET:
        if match.group("params"):
            raise UsageError(f"{text!r}: '{ALL_PRESET}' takes cutoffs but no parameters")
        out = []
        skipped = []
        for spec in all_specs():
            suffix = f"@{cut_text}" if cut_text and spec.cutoff != "none" else ""
            try:
                out.extend(parse_measure(spec.name + suffix))
            except UsageError:  # a metric without usable defaults (e.g. needs n=N)
                skipped.append(spec.name)
        if skipped:
            from divaeval.errors import warn

            warn(f"-m {text}: left out {', '.join(skipped)} (they need parameters)")
        return out
    spec = get_spec(name)
    values = spec.defaults()
    if match.group("params"):
        for key, value in _assignments(match.group("params"), text):
            param = spec.param(key)
            if param is None:
                known = ", ".join(p.name for p in spec.params) or "none"
                raise UsageError(f"{spec.name}: unknown parameter {key!r} (parameters: {known})")
            values[key] = param.parse(value, spec.name)
    given = {key for key, _ in _assignments(match.group("params") or "", text)}
    missing = [p for p in spec.params if p.required and p.name not in given]
    if missing:
        needs = ", ".join(f"{p.name} ({p.help})" for p in missing)
        example = ",".join(f"{p.name}=..." for p in missing)
        raise UsageError(f"{spec.name} needs {needs}: e.g. {spec.name}({example})")
    if cut_text is not None:
        if spec.cutoff == "none":
            raise UsageError(f"{spec.name} takes no cutoff (got {text!r})")
        cutoffs: Sequence[int | None] = _parse_cutoffs(cut_text, spec, text)
    else:
        cutoffs = spec.default_cutoffs
    bound = tuple((p.name, values[p.name]) for p in spec.params)
    return [Measure(spec, bound, k) for k in cutoffs]


def parse_measures(texts: Sequence[str]) -> list[Measure]:
    """Parse every ``-m`` argument; duplicates are dropped; output order is the registry's
    fixed order (as trec_eval), then parameter sets in order of appearance, then cutoffs."""
    seen: dict[Measure, int] = {}
    for text in texts:
        for measure in parse_measure(text):
            seen.setdefault(measure, len(seen))
    first_param_seen: dict[tuple[str, tuple], int] = {}
    for measure, index in seen.items():
        first_param_seen.setdefault((measure.spec.name, measure.params), index)

    def key(measure: Measure):
        cutoff = math.inf if measure.cutoff is None else measure.cutoff
        return (measure.spec.order, first_param_seen[(measure.spec.name, measure.params)], cutoff)

    return sorted(seen, key=key)
