"""The ``-m`` measure syntax: ``NAME[(param=value,...)][@k1,k2,...]`` or a preset.

Names are case-insensitive and ``-``/``_`` are interchangeable. A piece without ``=``
continues the previous parameter's value, so a list value keeps its commas:
``D-nDCG(gains=1:1,2:3,3:7)@10``. A preset (``-m ndeval``) expands to a list of measures;
``-m all[@k]`` to every registered metric.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from divaeval.errors import UsageError, warn
from divaeval.metrics.registry import ALL_PRESET, all_specs, get_spec, preset_members
from divaeval.metrics.spec import Measure, MetricSpec, normalize_name

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
    for item in preset_members(norm) or ():
        base = _MEASURE.match(item)
        assert base is not None, item
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
    members = preset_members(text)
    if members is not None:
        out: list[Measure] = []
        for item in members:
            out.extend(parse_measure(item))
        return out
    match = _MEASURE.match(text)
    if match is None or not match.group("name"):
        raise UsageError(f"cannot parse measure {text!r} (syntax: NAME[(p=v,...)][@k,...])")
    name = match.group("name")
    norm = normalize_name(name)
    cut_text = match.group("cut")
    if preset_members(norm) is not None and (match.group("params") or cut_text):
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
