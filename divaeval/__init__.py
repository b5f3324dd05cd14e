"""divaeval: a trec_eval-style evaluator for search-result diversification.

The Python API (imported lazily, so ``import divaeval`` and ``divaeval --help`` stay fast): every
command as a function returning a result object (``.frame``, ``.signature``, and the fields of
its analysis), on run and qrels files or on in-memory data (DataFrames, pytrec_eval-style dicts,
ir_measures' records); see :mod:`divaeval.api`. The settings shared by the commands are
keyword arguments, or one :class:`Settings`.

- :func:`evaluate` — runs x topics x measures: ``.per_topic``, ``.means``, ``.wide``,
  ``.to_dict()``, ``.aggregate()`` (``baseline=``: ndeval's risk values); :class:`Evaluator`
  indexes the qrels once for many runs;
- :func:`compare`, :func:`risk`, :func:`prefer` — significance tests, URisk/TRisk/ZRisk/GeoRisk,
  lexicographic preferences;
- :func:`discriminative_power`, :func:`correlation`, :func:`intuitiveness`, :func:`unanimity`,
  :func:`agreement`, :func:`degradation`, :func:`sensitivity`, :func:`axioms`, :func:`ties` —
  the ``meta`` analyses;
- :func:`collection_table` — the collection analysis of the qrels; :func:`list_metrics` — the
  metrics (``divaeval metrics``); :func:`check` — the TREC submission checker
  (``divaeval check``); :func:`gate` — the main command's quality gates for CI;
- :func:`report_page` — the self-contained HTML page of runs (``.html``, ``.write(path)``); every
  result's ``.plot()`` draws its figure (the ``plot`` extra);
- :func:`read_run`, :func:`read_qrels`, :func:`read_intents`, :func:`read_topic_types` — the
  validating readers (files or data in memory); :func:`parse_measures`; :func:`score_matrix`;
- :class:`DivaevalError` (``DataError``, ``UsageError``) and :class:`DivaevalWarning`.
"""

import importlib

__version__ = "0.1.0"

_LAZY = {
    "evaluate": ("divaeval.api", "evaluate"),
    "Evaluator": ("divaeval.api", "Evaluator"),
    "compare": ("divaeval.api", "compare"),
    "risk": ("divaeval.api", "risk"),
    "report_page": ("divaeval.api", "report_page"),
    "prefer": ("divaeval.api", "prefer"),
    "discriminative_power": ("divaeval.api", "discriminative_power"),
    "correlation": ("divaeval.api", "correlation"),
    "intuitiveness": ("divaeval.api", "intuitiveness"),
    "unanimity": ("divaeval.api", "unanimity"),
    "agreement": ("divaeval.api", "agreement"),
    "degradation": ("divaeval.api", "degradation"),
    "sensitivity": ("divaeval.api", "sensitivity"),
    "axioms": ("divaeval.api", "axioms"),
    "ties": ("divaeval.api", "ties"),
    "collection_table": ("divaeval.api", "collection_table"),
    "check": ("divaeval.api", "check"),
    "gate": ("divaeval.api", "gate"),
    "list_metrics": ("divaeval.api", "list_metrics"),
    "Settings": ("divaeval.settings", "Settings"),
    "read_run": ("divaeval.api", "read_run"),
    "read_qrels": ("divaeval.api", "read_qrels"),
    "read_intents": ("divaeval.api", "read_intents"),
    "read_topic_types": ("divaeval.api", "read_topic_types"),
    "parse_measures": ("divaeval.api", "parse_measures"),
    "score_matrix": ("divaeval.api", "score_matrix"),
    "DivaevalError": ("divaeval.errors", "DivaevalError"),
    "DataError": ("divaeval.errors", "DataError"),
    "UsageError": ("divaeval.errors", "UsageError"),
    "DivaevalWarning": ("divaeval.errors", "DivaevalWarning"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'divaeval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
