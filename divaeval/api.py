"""The Python API; the CLI is a thin layer over it.

>>> import divaeval
>>> table = divaeval.evaluate(["run.txt"], "qrels.txt", measures=["alpha-nDCG@20", "rbu"])

:func:`evaluate` returns the long-form score table (run, topic, measure, value; ``topic ==
"all"`` for the mean). :func:`score_runs` returns the structured per-run results the report
writers use.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from divaeval.aggregate import RunScores, long_table, means
from divaeval.errors import DataError, UsageError, activity, warn
from divaeval.judged import EvalSettings, QrelsIndex, judge_run, run_only_topics, validate_settings

DEFAULT_MEASURES = ("ndeval",)
_SUFFIXES = re.compile(r"(\.gz)?$")


@dataclass
class Evaluation:
    """Everything an evaluation produced: per-run scores, measures, settings, and the qrels
    index (for topic-level context such as subtopic counts)."""

    runs: list[RunScores]
    measures: list
    settings: EvalSettings
    index: QrelsIndex
    _dd_weights: dict[str, float] | None = field(default=None, repr=False)

    def topic_weights(self, mean: str) -> dict[str, float] | None:
        """Per-topic weights of the topic mean: 1 − diversity difficulty for ``dd`` (computed
        once per evaluation), None for the unweighted means."""
        if mean != "dd":
            return None
        if self._dd_weights is None:
            self._dd_weights = difficulty_weights(self.index)
        return self._dd_weights

    def means(self, run: RunScores, mean: str = "arith") -> dict:
        """Measure -> mean of ``run`` over its evaluated topics (every report uses this)."""
        return means(run, self.measures, mean, self.topic_weights(mean))

    def table(self, *, per_topic: bool = True, summary: bool = True, mean: str = "arith"):
        return long_table(
            self.runs,
            self.measures,
            per_topic=per_topic,
            summary=summary,
            how=mean,
            weights=self.topic_weights(mean),
        )


def difficulty_weights(index: QrelsIndex) -> dict[str, float]:
    """Topic -> 1 − diversity difficulty (Golbus et al. 2013, Eq. 2), for ``--mean dd``."""
    from divaeval.collection.difficulty import collection_table
    from divaeval.collection.difficulty import difficulty_weights as weights_of

    table = collection_table(index.qrels.frame, rel_level=index.rel_level)
    weights = weights_of(table)
    undefined = [str(topic) for topic, value in weights.items() if value != value]
    if undefined:
        warn(
            f"--mean dd: topic(s) {', '.join(undefined)} have no document with grade >= "
            f"{index.rel_level}: diversity difficulty undefined, weight 0"
        )
    return {str(topic): float(value) if value == value else 0.0 for topic, value in weights.items()}


def _run_label(path: str) -> str:
    base = os.path.basename(path) if path != "-" else "stdin"
    base = _SUFFIXES.sub("", base)
    stem, ext = os.path.splitext(base)
    return stem if ext in (".txt", ".run", ".tsv", ".trec") else base


def _name_runs(runs: Sequence) -> None:
    """Runs are named by their tag; runs sharing a tag are named by their files instead."""
    tags = [run.tag for run in runs]
    shared = {tag for tag in tags if tags.count(tag) > 1}
    if not shared:
        return
    labels = [_run_label(run.path) if run.tag in shared else run.tag for run in runs]
    if len(set(labels)) < len(labels):
        labels = [run.path if run.tag in shared else run.tag for run in runs]
    if len(set(labels)) < len(labels):
        again = next(label for label in labels if labels.count(label) > 1)
        raise UsageError(f"the run {again} is given twice")
    for run, label in zip(runs, labels, strict=True):
        run.name = label
    warn(f"runs share the tag(s) {', '.join(sorted(shared))}; named by their file names instead")


def load_inputs(
    run_paths: Sequence[str],
    qrels_path: str,
    *,
    intents_path: str | None = None,
    topics_path: str | None = None,
    settings: EvalSettings | None = None,
):
    """Read and validate every input file; returns (runs, qrels index)."""
    settings = settings or EvalSettings()
    from divaeval.io import read_intents, read_qrels, read_run, read_topic_types

    validate_settings(settings)
    inputs = (*run_paths, qrels_path, intents_path, topics_path)
    if sum(1 for p in inputs if p == "-") > 1:
        raise UsageError("only one input can be '-' (stdin)")
    runs = []
    for path in run_paths:
        with activity(f"reading the run {path}"):
            runs.append(read_run(path))
    with activity(f"reading the qrels {qrels_path}"):
        qrels = read_qrels(qrels_path)
    with activity(f"reading the intents {intents_path}"):
        intents = read_intents(intents_path) if intents_path else None
    with activity(f"reading the topics {topics_path}"):
        topic_types = read_topic_types(topics_path) if topics_path else None
    index = QrelsIndex(
        qrels,
        rel_level=settings.rel_level,
        intents=intents,
        topic_types=topic_types,
        normalize_intents=settings.normalize_intents,
    )
    _name_runs(runs)
    _warn_empty_topics(index, settings)
    return runs, index


def _warn_empty_topics(index: QrelsIndex, settings: EvalSettings) -> None:
    empty = index.material_all.n_relevant_subtopics == 0
    if empty.any():
        example = index.topics[int(np.flatnonzero(empty)[0])]
        nan_note = " (nNRBP is NaN, as ndeval prints it)" if settings.compat == "ndeval" else ""
        warn(
            f"{int(empty.sum())} qrels topics have no document with grade >= "
            f"{settings.rel_level} (e.g. topic {example}); they score 0{nan_note}",
            file=index.qrels.path,
        )


def score_runs(
    runs: Sequence, index: QrelsIndex, measures: Sequence, settings: EvalSettings
) -> list[RunScores]:
    """Evaluate every run on ``measures``; warns about topic mismatches."""
    from divaeval.metrics import compute_measures

    results = []
    for run in runs:
        with activity(f"judging the run {run.path}"):
            jr = judge_run(run, index, settings)
        extra = run_only_topics(run, index)
        if extra:
            warn(
                f"run {run.name}: {len(extra)} topics are not in the qrels "
                f"(e.g. {', '.join(extra[:3])}); not evaluated",
                file=run.path,
            )
        missing = [str(t) for t in jr.topics[~jr.in_run]]
        if not settings.complete:
            evaluated = set(jr.topics)
            missing = [str(t) for t in index.topics if t not in evaluated]
            if missing:
                warn(
                    f"run {run.name} lacks {len(missing)} qrels topics "
                    f"(e.g. {', '.join(missing[:3])}); they are not in the mean "
                    "(-c counts them as 0)",
                    file=run.path,
                )
            if jr.n_topics == 0:
                raise DataError(
                    f"no topic of run {run.name} is in the qrels "
                    f"(qrels topics look like {index.topics[0]!r})",
                    file=run.path,
                )
        with activity(f"scoring the run {run.path}"):
            values = compute_measures(jr, measures)
        results.append(
            RunScores(
                name=run.name,
                path=run.path,
                topics=jr.topics,
                values=values,
                run_only_topics=extra,
                missing_topics=missing,
            )
        )
    return results


def run_evaluation(
    run_paths: Sequence[str],
    qrels_path: str,
    measures: Sequence[str] = (),
    *,
    intents: str | None = None,
    topics: str | None = None,
    settings: EvalSettings | None = None,
) -> Evaluation:
    """Read, judge and score: the structured result behind :func:`evaluate` and the CLI."""
    settings = settings or EvalSettings()
    from divaeval.metrics import parse_measures

    parsed = parse_measures(list(measures) or list(DEFAULT_MEASURES))
    runs, index = load_inputs(
        run_paths, qrels_path, intents_path=intents, topics_path=topics, settings=settings
    )
    return Evaluation(
        runs=score_runs(runs, index, parsed, settings),
        measures=parsed,
        settings=settings,
        index=index,
    )


def evaluate(
    runs: str | Sequence[str],
    qrels: str,
    measures: Sequence[str] = (),
    *,
    per_topic: bool = True,
    summary: bool = True,
    mean: str = "arith",
    intents: str | None = None,
    topics: str | None = None,
    **settings,
):
    """Evaluate run files against a qrels file; returns the long-form score table.

    ``measures`` are ``-m`` strings (``"alpha-nDCG@5,10"``, ``"ndeval"``, ``"rbu(p=0.9)"``);
    ``settings`` are :class:`~divaeval.judged.EvalSettings` fields (``order``, ``depth``,
    ``rel_level``, ``complete``, ``dedupe``, ``compat``, ``normalize_intents``).
    """
    if isinstance(runs, str):
        runs = [runs]
    result = run_evaluation(
        runs, qrels, measures, intents=intents, topics=topics, settings=EvalSettings(**settings)
    )
    return result.table(per_topic=per_topic, summary=summary, mean=mean)
