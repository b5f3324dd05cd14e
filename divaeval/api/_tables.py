"""The score tables the analyses of runs start from (measure -> scores[n_runs, n_topics]):
scored from runs and qrels, or read from score files (``--scores``) or DataFrames."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from divaeval.api._common import _in_memory
from divaeval.errors import UsageError
from divaeval.evaluation import run_evaluation
from divaeval.io.memory import MemoryInputs
from divaeval.settings import WORKERS, Settings

if TYPE_CHECKING:
    from divaeval.parallel import Workers


def _score_tables(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    settings: Settings,
    workers: Workers | None = None,
) -> tuple[list[str], dict, list[str]]:
    """(run names, measure name -> scores[n_runs, n_topics], topics) over every qrels topic (a
    topic a run lacks scores 0, as with ``complete``): what the analyses of runs start from."""
    settings = _in_memory(inputs, settings)
    result = run_evaluation(
        inputs.runs(runs), inputs.qrels(qrels), measures, settings, workers=workers
    )
    names, tables = result.score_tables()
    topics = [str(topic) for topic in result.runs[0].topics] if result.runs else []
    return names, tables, topics


def _analysed_tables(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: Sequence[str],
    scores: Any,
    settings: Settings,
    options: dict[str, Any],
    workers: Workers | None = None,
) -> tuple[list[str], dict, list[str]]:
    """The score tables of an analysis and their topics: scored from ``runs`` and ``qrels``,
    or read from the score files ``scores`` (names of measures as the files write them)."""
    if scores is None:
        if runs is None or qrels is None:
            raise UsageError("give runs and qrels, or scores")
        return _score_tables(inputs, runs, qrels, measures, settings, workers)

    if runs is not None or qrels is not None:
        raise UsageError("give either runs and qrels or scores, not both")
    judging = [name for name in options if name not in WORKERS]
    if judging:
        raise UsageError(f"{judging[0]} applies to runs and qrels, not to scores")
    if isinstance(scores, (str, os.PathLike)) or hasattr(scores, "columns"):
        scores = [scores]
    if not isinstance(scores, (list, tuple)):
        raise UsageError(
            f"scores: expected score files or DataFrames (run, topic, measure, value), got "
            f"{type(scores).__name__}"
        )
    sources = []
    for source in scores:
        if isinstance(source, (str, os.PathLike)):
            sources.append(os.fspath(source))
        elif hasattr(source, "columns"):
            sources.append(source)
        else:
            raise UsageError(f"scores: expected a file or a DataFrame, got {type(source).__name__}")
    # the score files' reader only for them: it is in divaeval.meta, which loads every
    # meta-analysis (5 ms of compare's start-up)
    from divaeval.meta.scores import read_score_table

    table = read_score_table(sources, measures)
    return table.runs, table.tables, [str(topic) for topic in table.topics]


def _inputs_signature(settings: Settings, scores: Any) -> str:
    """The inputs' part of an analysis's signature: how the runs were judged
    (:meth:`Settings.signature`) when they were scored from runs and qrels, or
    ``scores=NAME,...`` (the score files' names; ``memory`` for a DataFrame), which no judging
    setting applies to."""
    if scores is None:
        return settings.signature()
    given = scores if isinstance(scores, (list, tuple)) else [scores]
    names = [
        os.path.basename(os.fspath(source)) if isinstance(source, (str, os.PathLike)) else "memory"
        for source in given
    ]
    return f"scores={','.join(names)}"
