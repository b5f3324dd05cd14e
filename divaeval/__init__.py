"""divaeval: a trec_eval-style evaluator for search-result diversification.

Public API (imported lazily, so ``import divaeval`` and ``divaeval --help`` stay fast):

- :func:`evaluate` — run files + qrels + measures → long-form score table (``baseline=``: risk
  values against a baseline run, as ``ndeval -baseline``);
- :func:`risk` — URisk, TRisk, ZRisk and GeoRisk of every run → DataFrame;
- :func:`read_run`, :func:`read_qrels`, :func:`read_intents` — the validating readers;
- :func:`parse_measures` — ``-m`` strings → measure values.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "evaluate": ("divaeval.api", "evaluate"),
    "run_evaluation": ("divaeval.api", "run_evaluation"),
    "risk": ("divaeval.stats.risk", "risk"),
    "read_run": ("divaeval.io", "read_run"),
    "read_qrels": ("divaeval.io", "read_qrels"),
    "read_intents": ("divaeval.io", "read_intents"),
    "read_topic_types": ("divaeval.io", "read_topic_types"),
    "parse_measures": ("divaeval.metrics", "parse_measures"),
    "score_matrix": ("divaeval.aggregate", "score_matrix"),
    "DivaevalError": ("divaeval.errors", "DivaevalError"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'divaeval' has no attribute {name!r}")
