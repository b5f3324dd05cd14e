"""``divaeval metrics``: the metrics of the registry, found by a pattern."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from divaeval import __version__
from divaeval.api.results import Result
from divaeval.errors import UsageError
from divaeval.metrics import all_specs
from divaeval.metrics.registry import all_forms, presets
from divaeval.metrics.spec import format_value
from divaeval.risk_measures import RISK_MEASURES

if TYPE_CHECKING:
    import pandas as pd


@dataclass(eq=False, repr=False)
class MetricsResult(Result):
    """The metrics (:func:`list_metrics`): :attr:`specs` (one
    :class:`~divaeval.metrics.spec.MetricSpec` each, in the registry's order), :attr:`forms`
    (metric -> the other tools' names for its forms), and whether the pattern named one metric
    exactly (:attr:`named`); :attr:`records` and :attr:`frame` one row per metric."""

    specs: list[Any]
    forms: dict[str, list[str]]
    named: bool = False
    #: preset -> (its measures, what it is)
    presets: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    #: (name, definition, source) of the risk measures (``divaeval risk``)
    risk_measures: tuple = RISK_MEASURES

    @staticmethod
    def defaults(spec: Any) -> dict[str, str]:
        """The metric's parameters and their defaults as ``-m`` writes them."""
        return {param.name: format_value(param.default) for param in spec.params}

    @property
    def records(self) -> list[dict[str, Any]]:
        return [
            {
                "name": spec.name,
                "family": spec.family,
                "aliases": list(spec.aliases),
                "params": {p.name: p.default for p in spec.params},
                "cutoff": spec.cutoff,
                "default_cutoffs": list(spec.default_cutoffs),
                "summary": spec.summary,
                "reference": spec.reference,
                "notes": spec.notes,
                "aggregate": spec.aggregate,
                "trec_eval": spec.trec_eval,
                "ir_measures": spec.ir_measures,
                "other_names": self.forms.get(spec.name, []),
            }
            for spec in self.specs
        ]

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd  # pandas: `divaeval metrics` prints the records without it

        return pd.DataFrame(self.records)


def _names_of(spec: Any, forms: list[str]) -> list[str]:
    return [spec.name, *spec.aliases, *forms]


def _matches(pattern: str, spec: Any, forms: list[str]) -> bool:
    """A glob (``*ndcg*``) or a case-insensitive substring of a name, alias, other tool's
    name or the family."""
    pattern = pattern.lower()
    texts = [text.lower() for text in (*_names_of(spec, forms), spec.family)]
    if any(ch in pattern for ch in "*?["):
        return any(fnmatch.fnmatchcase(text, pattern) for text in texts)
    return any(pattern in text for text in texts)


def list_metrics(pattern: str | None = None) -> MetricsResult:
    """The metrics (``divaeval metrics [PATTERN]``): every one, or those a glob (``*ndcg*``)
    or a case-insensitive substring of a name, alias, other tool's name or family matches; a
    pattern that names a metric exactly gives just that one (``named``).

    >>> [spec.name for spec in divaeval.list_metrics("*rbu*").specs]
    ['RBU', 'CT-RBU', 'NRBP-RBU']
    """
    if pattern is not None and not isinstance(pattern, str):
        raise UsageError(f"pattern: expected a string, got {type(pattern).__name__}")
    forms: dict[str, list[str]] = {}
    for form in all_forms():
        forms.setdefault(form.spec, []).append(form.name)
    specs = [s for s in all_specs() if not pattern or _matches(pattern, s, forms.get(s.name, []))]
    if not specs:
        raise UsageError(f"no metric matches {pattern!r} (see 'divaeval metrics')")
    named = []
    if pattern is not None:
        wanted = pattern.lower()
        named = [
            s
            for s in specs
            if wanted in (name.lower() for name in _names_of(s, forms.get(s.name, [])))
        ]
    signature = f"divaeval {__version__}|metrics|pattern={pattern or ''}"
    return MetricsResult(signature, named or specs, forms, bool(named), presets())
