"""The ``-m`` measure syntax.

divaeval's own syntax is ``NAME[(param=value,...)][@k1,k2,...]`` or a preset. Names are
case-insensitive and ``-``/``_`` are interchangeable. A piece without ``=`` continues the
previous parameter's value, so a list value keeps its commas:
``D-nDCG(gains=1:1,2:3,3:7)@10``. ``@all`` is the whole ranking (``P@all`` = trec_eval's
set_P); for a metric with a level parameter ``@x`` sets that level (``IPrec@0.2``). A preset
(``-m ndeval``) expands to a list of measures; ``-m all[@k]`` to every registered metric.

The other tools' spellings are accepted as they are:

- ir_measures: ``P(rel=2)@10``, ``nDCG(dcg="exp-log2")@20``, ``SetP(relative=True)``,
  ``nDCG(gains={0:0,1:1,2:3})@10`` (quotes are dropped, ``True``/``False`` are booleans);
- trec_eval: ``name.p1,p2`` (everything after the first ``.`` is the parameter list: ``P.5,10``,
  ``ndcg_cut.10``, ``iprec_at_recall.0.1,0.55``, ``utility.1,-1,0,0``, ``ndcg.1=3,2=9``) and
  the printed names ``name_k`` (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.20``).

Output order is the order of the ``-m`` arguments (a preset keeps its own order; the cutoffs
of one argument ascend); a measure given twice is evaluated once, at its first place. Measures
asked for by trec_eval's names only are put in trec_eval's order.

Each measure carries its output name, the name it was asked for by
(:mod:`divaeval.metrics.dialects`): trec_eval's names print as trec_eval prints them (``P_10``),
ir_measures' as ir_measures does (``nDCG@10``), other spellings under divaeval's display name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from divaeval.errors import UsageError, warn
from divaeval.metrics.dialects import (
    DIVAEVAL,
    IR_MEASURES,
    IR_MEASURES_NAMES,
    RUNID,
    TREC_EVAL,
    TREC_FORMS,
    ir_label,
    is_trec_name,
    trec_base,
    trec_label,
    trec_order,
)
from divaeval.metrics.registry import (
    ALL_PRESET,
    all_specs,
    get_form,
    get_spec,
    is_known,
    preset_members,
)
from divaeval.metrics.spec import WHOLE_RANKING, Form, Measure, MetricSpec, normalize_name

_MEASURE = re.compile(r"^\s*(?P<name>[^(@]+?)\s*(?:\((?P<params>.*)\))?\s*(?:@(?P<cut>.*))?$")
#: trec_eval's printed names: ``P_5``, ``iprec_at_recall_0.20``, ``Rprec_mult_1.00``
_PRINTED = re.compile(r"^(?P<base>.+?)[-_](?P<value>\d+(?:\.\d*)?|\.\d+)$")


def _parse_cutoffs(text: str, raw: str, *, lenient: bool = False) -> list[int | None]:
    """``5,10`` → [5, 10] (ascending); ``all`` → the whole ranking (None). ``lenient``:
    trec_eval's reading, where ``23.4`` is 23 (C ``atol``)."""
    cutoffs: list[int | None] = []
    for part in text.split(","):
        part = part.strip()
        if part.lower() == WHOLE_RANKING and not lenient:
            k: int | None = None
        else:
            if lenient and re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", part):
                part = str(int(float(part)))
            if not re.fullmatch(r"[+-]?\d+", part):
                raise UsageError(f"{raw!r}: cutoff {part!r} is not a positive integer")
            k = int(part)
            if k < 1:
                raise UsageError(f"{raw!r}: cutoff {k} must be >= 1")
        if k in cutoffs:
            raise UsageError(f"{raw!r}: duplicate cutoff {'all' if k is None else k}")
        cutoffs.append(k)
    return sorted(cutoffs, key=lambda k: math.inf if k is None else k)


def _parse_levels(text: str, spec: MetricSpec, raw: str) -> list[float]:
    param = spec.param(spec.level_param or "")
    if param is None:
        raise AssertionError(f"{spec.name}: level parameter {spec.level_param!r} is not declared")
    levels: list[float] = []
    for part in text.split(","):
        value = param.parse(part.strip(), spec.name)
        if value in levels:
            raise UsageError(f"{raw!r}: duplicate {param.name} {part.strip()}")
        levels.append(value)
    return sorted(levels)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _assignments(params: str, text: str) -> list[tuple[str, str]]:
    """``name=value`` pairs of a parameter list. A comma-separated piece without ``=``
    continues the previous value, so list-valued parameters keep their commas
    (``gains=1:1,2:3,3:7``, ``gains=1=3,2=9``: a key is an identifier) and display names
    round trip; so does a piece inside braces (ir_measures' ``gains={0:0,1:1}``)."""
    pairs: list[list[str]] = []
    depth = 0
    for piece in params.split(","):
        key, sep, value = piece.partition("=")
        if sep and depth == 0 and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", key):
            pairs.append([key.strip(), value.strip()])
        elif pairs and piece.strip():
            pairs[-1][1] += "," + piece.strip()
        elif piece.strip():
            raise UsageError(f"{text!r}: parameter {piece.strip()!r} needs name=value")
        depth += piece.count("{") - piece.count("}")
    return [(key, _unquote(value)) for key, value in pairs]


def _expand_preset(norm: str, params: str, cut_text: str | None, text: str) -> list[Measure]:
    """A preset with parameters and/or cutoffs: each parameter goes to the members that take
    it (``ndeval(alpha=0.9)`` changes α where there is one), the cutoffs to the members that
    take cutoffs; a parameter that no member takes is an error."""
    assignments = _assignments(params, text)
    used: set[str] = set()
    out: list[Measure] = []
    for item in preset_members(norm) or ():
        if item == RUNID:
            continue
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


def _trec_syntax(name: str) -> tuple[str, str] | None:
    """(base name, parameter text) of trec_eval's ``name.params`` or printed ``name_k``
    spelling, or None when ``name`` is not one."""
    if "." in name:
        base, _, rest = name.partition(".")
        if base in TREC_FORMS or (is_known(base) and preset_members(base) is None):
            if not rest.strip():
                raise UsageError(f"{name!r}: empty parameter list after '.'")
            return base, rest
    if not is_known(name) and name not in TREC_FORMS:
        # trec_eval's printed names of parameter lists, as printed: utility_2,-1,0,0, rbp_p=0.9
        printed = trec_base(name.strip())
        rest = name.strip()[len(printed or "") + 1 :]
        if printed is not None and printed != RUNID and re.match(r"[-+.\d]|\w+=", rest):
            return printed, rest
        match = _PRINTED.match(name.strip())
        if match and is_known(match.group("base")) and preset_members(match.group("base")) is None:
            return match.group("base"), match.group("value")
    return None


def _trec_kind(spec: MetricSpec, form: Form | None) -> str | None:
    """How trec_eval's ``name.params`` maps onto ``spec`` (see :class:`Form`)."""
    kind = form.trec if form is not None else spec.trec_params
    if form is None and kind is None:
        kind = "levels" if spec.level_param else ("cutoffs" if spec.cutoff != "none" else None)
    return kind


def _trec_measures(base: str, rest: str | None, text: str) -> list[Measure]:
    """Measures of trec_eval's ``base.rest`` (``rest`` None: the bare name), named as
    trec_eval prints them (see :class:`~divaeval.metrics.spec.Form`)."""
    form = TREC_FORMS.get(base) or get_form(base)
    spec = get_spec(form.spec if form is not None else base)
    kind = _trec_kind(spec, form)
    if rest is None:
        measures = _bind(spec, form, [], None, text)
    elif kind is None:
        raise UsageError(f"{text!r}: {base} takes no parameters")
    elif kind == "cutoffs":
        cutoffs = _parse_cutoffs(rest, text, lenient=True)
        measures = _bind(spec, form, [], ",".join(map(str, cutoffs)), text)
    elif kind == "levels":
        measures = _bind(spec, form, [], rest, text)
    elif kind == "assign":
        measures = _bind(spec, form, _assignments(rest, text), None, text)
    else:
        measures = _bind(spec, form, [(kind.split(":", 1)[1], rest)], None, text)
    dialect = TREC_EVAL if is_trec_name(base) else DIVAEVAL
    return [replace(m, label=trec_label(base, kind, rest, m), dialect=dialect) for m in measures]


def parse_measure(text: str) -> list[Measure]:
    """Parse one ``-m`` argument (a measure, a measure with several cutoffs, or a preset)."""
    members = preset_members(text)
    if members is not None:
        out: list[Measure] = []
        for item in members:
            if item != RUNID:
                out.extend(parse_measure(item))
        return [replace(m, runid=True) for m in out] if RUNID in members else out
    match = _MEASURE.match(text)
    if match is None or not match.group("name"):
        raise UsageError(f"cannot parse measure {text!r} (syntax: NAME[(p=v,...)][@k,...])")
    name = match.group("name")
    norm = normalize_name(name)
    cut_text = match.group("cut")
    params = match.group("params")
    if preset_members(norm) is not None and (params or cut_text):
        return _expand_preset(norm, params or "", cut_text, text)
    if norm == ALL_PRESET:
        if params:
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
    if params is None and cut_text is None:
        if name.strip() == RUNID:
            raise UsageError(
                f"-m {RUNID}: trec_eval's runid line comes with another measure "
                f"(e.g. -m {RUNID} -m map)"
            )
        if is_trec_name(name.strip()):
            return _trec_measures(name.strip(), None, text)
        trec = _trec_syntax(name)
        if trec is not None:
            return _trec_measures(*trec, text)
    spec = get_spec(name)
    assignments = _assignments(params or "", text)
    measures = _bind(spec, get_form(name), assignments, cut_text, text)
    if name.strip() in IR_MEASURES_NAMES and re.fullmatch(r"[\d.]*", (cut_text or "").strip()):
        given = {key for key, _ in assignments}
        return [
            replace(m, label=ir_label(name.strip(), given, m), dialect=IR_MEASURES)
            for m in measures
        ]
    return measures


def _bind(
    spec: MetricSpec,
    form: Form | None,
    assignments: list[tuple[str, str]],
    cut_text: str | None,
    text: str,
) -> list[Measure]:
    """The measures of ``spec`` with the form's parameters, then the given ones, bound."""
    values = spec.defaults()
    given: set[str] = set()
    if form is not None:
        values.update(dict(form.params))
        given.update(name for name, _ in form.params)
    for key, value in assignments:
        param = spec.param(key)
        if param is None:
            known = ", ".join(p.name for p in spec.params) or "none"
            raise UsageError(f"{spec.name}: unknown parameter {key!r} (parameters: {known})")
        values[key] = param.parse(value, spec.name)
        given.add(key)
    missing = [p for p in spec.params if p.required and p.name not in given]
    if missing:
        needs = ", ".join(f"{p.name} ({p.help})" for p in missing)
        example = ",".join(f"{p.name}=..." for p in missing)
        raise UsageError(f"{spec.name} needs {needs}: e.g. {spec.name}({example})")
    level = spec.level_param
    if level is not None:
        levels: list
        if cut_text is not None:
            levels = _parse_levels(cut_text, spec, text)
        elif level in given:
            levels = [values[level]]
        else:
            levels = list(spec.default_levels)
        out = []
        for level_value in levels:
            values[level] = level_value
            bound = tuple((p.name, values[p.name]) for p in spec.params)
            out.append(Measure(spec, bound, None))
        return out
    if cut_text is not None:
        if spec.cutoff == "none":
            raise UsageError(f"{spec.name} takes no cutoff (got {text!r})")
        cutoffs: Sequence[int | None] = _parse_cutoffs(cut_text, text)
        if None in cutoffs and spec.cutoff == "required":
            raise UsageError(f"{spec.name} needs a cutoff (got {text!r})")
    elif form is not None and form.cutoffs is not None:
        cutoffs = form.cutoffs
    else:
        cutoffs = spec.default_cutoffs
    bound = tuple((p.name, values[p.name]) for p in spec.params)
    return [Measure(spec, bound, k) for k in cutoffs]


def parse_measures(texts: Sequence[str]) -> list[Measure]:
    """Parse every ``-m`` argument, in the order given; a measure given twice is kept at its
    first place, under the name it was first asked for by. Measures asked for by trec_eval
    names only are put in trec_eval's order (:func:`~divaeval.metrics.dialects.trec_order`);
    ``-m runid`` (trec_eval's runid line) marks the measures. Two different measures never
    share an output name: where they would, both print under their display names."""
    seen: dict[Measure, Measure] = {}
    runid = False
    for text in texts:
        if text.strip() == RUNID:
            runid = True
            continue
        for measure in parse_measure(text):
            first = seen.setdefault(measure, measure)
            if measure.runid and not first.runid:
                seen[measure] = replace(first, runid=True)
    measures = list(seen.values())
    if runid and measures:
        measures = [replace(m, runid=True) for m in measures]
    elif runid:
        parse_measure(RUNID)  # (its message)
    names = [m.name for m in measures]
    shared = {name for name in names if names.count(name) > 1}
    if shared:
        measures = [replace(m, label=None) if m.name in shared else m for m in measures]
    return trec_order(measures)
