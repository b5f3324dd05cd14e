"""THE public Python API: every command of the CLI as a function returning a result object; the
command line is a thin layer over it (it parses its options, calls the function here and prints
what it returns).

One signature style throughout: the inputs first (``runs, qrels`` for the analyses of runs;
``qrels`` alone for the collection analyses; the measures alone for the generated cases), then
``measures`` (``-m`` strings: one string is one measure specification, or a list; the command's
default when empty or None), then the command's own keyword options, then the settings
(:class:`~divaeval.settings.Settings`): as keywords named as the command line's long options
(``--rel-level`` is ``rel_level``, ``-c/--complete`` is ``complete``), checked against the
settings each function takes (an unknown keyword is a :class:`~divaeval.errors.UsageError`
naming it and the valid ones), and/or as ``settings=`` (keywords win).

**Results.** Every function returns a :class:`Result`: ``result.frame`` is the table the
command prints (a pandas DataFrame), ``result.signature`` the command's settings signature,
plus the fields of the analysis (the comparisons, the preferences, the per-topic values, ...).

**Inputs.** ``runs`` is one run or several: a list, or a dict name -> run. A run is a file
path or in-memory data: a pandas DataFrame with the file's columns (``topic, Q0, docno, rank,
score, tag``; ``query_id``/``q_id``, ``doc_id`` also accepted; ``Q0``, ``rank``, ``tag``
optional), a pytrec_eval-style dict ``{topic: {docno: score}}``, or ir_measures' records
(``ScoredDoc(query_id, doc_id, score)``). ``qrels`` is a path, a DataFrame (``topic, subtopic,
docno, grade[, type]`` or ad hoc ``topic, docno, grade``; ir_measures' ``relevance`` and
``iteration``), a dict ``{topic: {docno: grade}}`` or ``{topic: {subtopic: {docno: grade}}}``,
or ir_measures' ``Qrel`` records. In-memory data goes through the file readers' checks
(:mod:`divaeval.io.memory`) and gives exactly the files' numbers; an error names the row,
``run 'bm25': topic 3, docno d7 (row 12): score 'nan' is not a finite number``.

**Warnings** arrive as :class:`~divaeval.errors.DivaevalWarning` through Python's
:mod:`warnings` module (``warnings.simplefilter("ignore", divaeval.DivaevalWarning)`` silences
them); errors are :class:`~divaeval.errors.DivaevalError` (``DataError``, ``UsageError``).

**Layout.** One module per command (:mod:`.evaluator`, :mod:`.comparison`,
:mod:`.risk_comparison`, :mod:`.preferences`, :mod:`.report`, :mod:`.collection`,
:mod:`.metrics`, and :mod:`divaeval.api.meta`'s one module per analysis), over
:mod:`.results` (the result objects' base and display), :mod:`.readers` and
:mod:`._common` (the arguments' checks and the machinery they share). The names below are
loaded with their module on first use, so that ``import divaeval.api`` loads none of them and
the main job (``divaeval RUN... QRELS``) loads only :mod:`.evaluator`'s chain: no pandas, no
scipy. A module is named for what it holds, not like the function it exports: importing
``divaeval.api.compare`` as a module would replace the function ``compare`` on the package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as type checkers and editors see them
    from divaeval.api.checking import check
    from divaeval.api.collection import collection_table
    from divaeval.api.comparison import compare
    from divaeval.api.evaluator import Evaluator, evaluate
    from divaeval.api.gating import gate
    from divaeval.api.meta.agreement import agreement
    from divaeval.api.meta.axioms import axioms
    from divaeval.api.meta.correlation import correlation
    from divaeval.api.meta.degradation import degradation
    from divaeval.api.meta.intuitiveness import intuitiveness
    from divaeval.api.meta.power import discriminative_power
    from divaeval.api.meta.sensitivity import sensitivity
    from divaeval.api.meta.ties import ties
    from divaeval.api.meta.unanimity import unanimity
    from divaeval.api.metrics import list_metrics
    from divaeval.api.preferences import prefer
    from divaeval.api.readers import (
        parse_measures,
        read_intents,
        read_qrels,
        read_run,
        read_topic_types,
        score_matrix,
    )
    from divaeval.api.report import report_page
    from divaeval.api.risk_comparison import risk

__all__ = [
    "Evaluator",
    "agreement",
    "axioms",
    "check",
    "gate",
    "report_page",
    "collection_table",
    "compare",
    "correlation",
    "degradation",
    "discriminative_power",
    "evaluate",
    "intuitiveness",
    "list_metrics",
    "parse_measures",
    "prefer",
    "read_intents",
    "read_qrels",
    "read_run",
    "read_topic_types",
    "risk",
    "score_matrix",
    "sensitivity",
    "ties",
    "unanimity",
]

#: name -> the module of divaeval.api that defines it (imported on first use)
_LAZY = {
    "Evaluator": "evaluator",
    "evaluate": "evaluator",
    "EvaluationResult": "evaluator",
    "EVALUATING": "evaluator",
    "compare": "comparison",
    "ComparisonResult": "comparison",
    "risk": "risk_comparison",
    "prefer": "preferences",
    "PreferenceResult": "preferences",
    "PREFERRING": "preferences",
    "report_page": "report",
    "ReportResult": "report",
    "REPORT_MEASURES": "report",
    "collection_table": "collection",
    "check": "checking",
    "CheckResult": "checking",
    "gate": "gating",
    "GateResult": "gating",
    "COLLECTING": "collection",
    "list_metrics": "metrics",
    "MetricsResult": "metrics",
    "read_run": "readers",
    "read_qrels": "readers",
    "read_intents": "readers",
    "read_topic_types": "readers",
    "parse_measures": "readers",
    "score_matrix": "readers",
    "Result": "results",
    "TableResult": "results",
    "check_plot": "results",
    "discriminative_power": "meta.power",
    "DiscriminativePowerResult": "meta.power",
    "correlation": "meta.correlation",
    "intuitiveness": "meta.intuitiveness",
    "unanimity": "meta.unanimity",
    "agreement": "meta.agreement",
    "degradation": "meta.degradation",
    "sensitivity": "meta.sensitivity",
    "SensitivityResult": "meta.sensitivity",
    "SAMPLING": "meta.sensitivity",
    "axioms": "meta.axioms",
    "AxiomsResult": "meta.axioms",
    "ties": "meta.ties",
    "TiesResult": "meta.ties",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"divaeval.api.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'divaeval.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
