"""``divaeval meta intuitiveness``: Sakai's intuitiveness test (Sakai 2012, Fig. 6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from divaeval import __version__
from divaeval.api._common import _library_call, _measures, _settings, _workers
from divaeval.api._tables import _analysed_tables, _inputs_signature
from divaeval.api.results import TableResult
from divaeval.errors import UsageError
from divaeval.meta import intuitiveness_table
from divaeval.meta.scores import choose_measures
from divaeval.metrics import parse_measures as parse_measure_texts
from divaeval.settings import JUDGING, Settings


def intuitiveness(
    runs: Any = None,
    qrels: Any = None,
    measures: str | Sequence[str] | None = (),
    *,
    gold: str | Sequence[str] | None = None,
    scores: Any = None,
    settings: Settings | None = None,
    **options: Any,
) -> TableResult:
    """Sakai's intuitiveness test (``divaeval meta intuitiveness``; Sakai 2012, Fig. 6): for
    every pair of measures, of the run pairs on which they disagree, how often each agrees
    with the ``gold`` measure(s) (one or two, e.g. ``["I-rec@10", "EfP@10"]``). With
    ``scores``, the measures are named as the files write them (default: every one but the
    gold ones).

    >>> frame = divaeval.intuitiveness(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@10", "D#-nDCG@10", "P-IA@10"],
    ...     gold="I-rec@10").frame
    >>> frame[["metric_1", "metric_2", "disagreements", "intuitiveness_1", "intuitiveness_2"]]
            metric_1    metric_2  disagreements  intuitiveness_1  intuitiveness_2
    0  alpha-nDCG@10  D#-nDCG@10              1              1.0              1.0
    1  alpha-nDCG@10     P-IA@10              0              NaN              NaN
    2     D#-nDCG@10     P-IA@10              1              1.0              1.0
    """

    golds = _measures(gold, "gold")
    if not golds:
        raise UsageError("intuitiveness: give gold, the gold-standard measure(s)")
    chosen = _measures(measures)
    settings = _settings(settings, options, JUDGING, complete=True)
    with _library_call() as inputs, _workers(settings, runs) as workers:
        if scores is not None:  # names as the files write them
            names, tables, _ = _analysed_tables(
                inputs, runs, qrels, (), scores, settings, options, workers
            )
            gold_names = choose_measures(list(tables), golds, "the scores")
            others = [name for name in tables if name not in gold_names]
            compared = choose_measures(others, chosen, "the scores") if chosen else others
        else:
            gold_names = [m.name for m in parse_measure_texts(golds)]
            wanted = chosen or ["ndeval"]
            names, tables, _ = _analysed_tables(
                inputs, runs, qrels, wanted + golds, None, settings, options, workers
            )
            compared = [m.name for m in parse_measure_texts(wanted)]
    frame = intuitiveness_table(
        {name: tables[name] for name in compared},
        {name: tables[name] for name in gold_names},
        names,
    )
    signature = (
        f"divaeval {__version__}|meta intuitiveness|gold={'+'.join(gold_names)}|"
        f"runs={len(names)}|{_inputs_signature(settings, scores)}"
    )
    return TableResult(signature, frame)
