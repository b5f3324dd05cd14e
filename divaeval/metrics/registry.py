"""The metric registry: every :class:`~divaeval.metrics.spec.MetricSpec` by name and alias,
other tools' names for them (:class:`~divaeval.metrics.spec.Form`, ``ndcg_cut``, ``set_P``),
and the presets (named lists of measure strings, ``-m ndeval``).

Family modules register their metrics when imported (:func:`family_registrar`); the
registration order is the order of ``-m all`` and of ``divaeval metrics``. The families are
imported here, in :data:`FAMILIES` order, one by one until a looked-up name is registered
(``-m ndeval`` imports one family: 1 ms, where importing all ten takes 40-50 ms).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from divaeval.errors import UsageError
from divaeval.metrics.spec import Compute, CutoffPolicy, Form, MetricSpec, Param, normalize_name

_REGISTRY: dict[str, MetricSpec] = {}
_LOOKUP: dict[str, str] = {}
_FORMS: dict[str, Form] = {}
_PRESETS: dict[str, tuple[tuple[str, ...], str]] = {}
#: ``-m all[@k,...]``: every registered metric with default parameters (cutoffs where taken).
ALL_PRESET = "all"


#: Family modules under divaeval.metrics.families, in output order.
FAMILIES: tuple[str, ...] = (
    "ndeval",
    "ntcir",
    "adhoc",
    "trec_eval",
    "cwl",
    "recall",
    "alpha_sharp",
    "rbu",
    "intent_aware",
    "cascade",
)

_loaded = 0  # the first families of FAMILIES imported so far


def load_families() -> None:
    """Import every family (``-m all``, ``divaeval metrics``)."""
    while load_next_family():
        pass


def load_next_family() -> bool:
    """Import the next family, in :data:`FAMILIES` order (so that registration order, the
    order of ``-m all``, does not depend on which names were looked up first); False when all
    are imported."""
    global _loaded
    if _loaded == len(FAMILIES):
        return False
    _loaded += 1
    importlib.import_module(f"divaeval.metrics.families.{FAMILIES[_loaded - 1]}")
    return True


#: characters of the ``-m`` syntax (parameters, cutoffs), never in a registered name
_SYNTAX = frozenset("@(),= ")


def _check_name(name: str) -> str:
    """``name`` normalised; a name holding ``-m`` syntax could never be looked up whole."""
    norm = normalize_name(name)
    if _SYNTAX.intersection(norm):
        raise ValueError(f"name {name!r} holds one of {''.join(sorted(_SYNTAX))!r}")
    return norm


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to the registry (names and aliases must be unique)."""
    spec = MetricSpec(**{**spec.__dict__, "order": len(_REGISTRY)})
    for key in (spec.name, *spec.aliases):
        norm = _check_name(key)
        owner = _LOOKUP.get(norm)
        if owner is not None and owner != spec.name:
            raise ValueError(f"metric name {key!r} already belongs to {owner}")
        if norm in _PRESETS or norm in _FORMS:
            raise ValueError(f"metric name {key!r} collides with a preset or a form")
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
    family_defaults: dict[str, Any] = {
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
        extra = {k: fields.pop(k) for k in _SPEC_FIELDS if k in fields}
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
                **extra,
            )
        )

    return add


#: MetricSpec fields a family member may set beyond the family's shared ones
_SPEC_FIELDS = (
    "aggregate",
    "level_param",
    "default_levels",
    "trec_eval",
    "ir_measures",
    "trec_params",
    "integer",
)


def register_preset(name: str, measures: Sequence[str], summary: str) -> None:
    """A named list of measure strings, expanded by ``-m NAME``."""
    norm = _check_name(name)
    if norm in _LOOKUP or norm in _FORMS:
        raise ValueError(f"preset {name!r} collides with a metric name")
    _PRESETS[norm] = (tuple(measures), summary)


def register_form(
    name: str,
    spec: str,
    *,
    params: dict | None = None,
    cutoffs: tuple[int | None, ...] | None = None,
    trec: str | None = None,
) -> Form:
    """Another tool's name for the registered metric ``spec`` (see
    :class:`~divaeval.metrics.spec.Form`)."""
    norm = _check_name(name)
    if norm in _LOOKUP or norm in _PRESETS or norm in _FORMS or norm == ALL_PRESET:
        raise ValueError(f"form name {name!r} is taken")
    if spec not in _REGISTRY:
        raise ValueError(f"form {name!r} of unknown metric {spec!r}")
    form = Form(name, spec, tuple((params or {}).items()), cutoffs, trec)
    _FORMS[norm] = form
    return form


def get_form(name: str) -> Form | None:
    """The form registered under ``name`` (None if it is a metric name or unknown)."""
    return _FORMS.get(_resolve(name))


def is_known(name: str) -> bool:
    """``name`` is a metric, alias, form or preset."""
    norm = _resolve(name)
    return norm in _LOOKUP or norm in _FORMS or norm in _PRESETS or norm == ALL_PRESET


def _resolve(name: str) -> str:
    """``name`` normalised, with the families imported one by one until one registers it (or
    all are): a name belongs to one family only (registration refuses a taken name), so it
    means the same however many families are imported, and ``-m ndeval`` imports one. Text
    with ``-m`` syntax in it (``ERR-IA@5``) is no name: registration refuses such names."""
    norm = normalize_name(name)
    if _SYNTAX.intersection(norm):
        return norm
    while not (norm in _LOOKUP or norm in _FORMS or norm in _PRESETS or norm == ALL_PRESET):
        if not load_next_family():
            break
    return norm


def all_forms() -> list[Form]:
    load_families()
    return list(_FORMS.values())


def all_specs() -> list[MetricSpec]:
    load_families()
    return sorted(_REGISTRY.values(), key=lambda s: s.order)


def presets() -> dict[str, tuple[tuple[str, ...], str]]:
    load_families()
    every = tuple(spec.name for spec in all_specs())
    return {**_PRESETS, ALL_PRESET: (every, "every registered metric (all@k: at cutoff k)")}


def preset_members(name: str) -> tuple[str, ...] | None:
    """The measure strings of the named preset (``None`` if ``name`` is not a preset;
    ``all`` is handled by the parser)."""
    entry = _PRESETS.get(_resolve(name))
    return None if entry is None else entry[0]


def get_spec(name: str) -> MetricSpec:
    norm = _resolve(name)
    if norm in _FORMS:
        return _REGISTRY[_FORMS[norm].spec]
    if norm not in _LOOKUP:
        import difflib  # for the message only

        candidates = sorted(set(_LOOKUP) | set(_PRESETS) | set(_FORMS))
        close = difflib.get_close_matches(norm, candidates, n=4, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"unknown measure {name!r}{hint} (see 'divaeval metrics')")
    return _REGISTRY[_LOOKUP[norm]]
