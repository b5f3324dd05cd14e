"""The evaluation as a library call; the CLI and :func:`divaeval.evaluate` are layers over it.

:func:`run_evaluation` reads, judges and scores, and returns an :class:`Evaluation` (its
:meth:`~Evaluation.table` is the long-form score table: run, topic, measure, value; ``topic ==
"all"`` for the mean). :func:`score_runs` returns the structured per-run results the report
writers use. With ``baseline=`` every value is the run's risk value against that baseline run
(ndeval's ``-baseline``/``-riskAlpha``); :func:`divaeval.risk` reports URisk, TRisk,
ZRisk and GeoRisk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from divaeval.aggregate import (
    RunScores,
    check_risk_alpha,
    long_table,
    means,
    relative_to_baseline,
)
from divaeval.errors import DataError, UsageError, activity, warn
from divaeval.judged import EvalSettings, QrelsIndex, judge_run, run_only_topics, validate_settings

if TYPE_CHECKING:
    from divaeval.io import Qrels, Run

DEFAULT_MEASURES = ("ndeval",)
_SUFFIXES = re.compile(r"(\.gz)?$")


@dataclass(frozen=True)
class RiskSettings:
    """Risk-sensitive evaluation against a baseline run (ndeval's ``-baseline``, ``-riskAlpha``):
    the baseline's name (its run tag, as ndeval names it), its file, and α (a number and the
    text it was given as, which ndeval prints in its run label)."""

    baseline: str
    path: str
    alpha: float
    alpha_text: str

    def label(self, run_name: str) -> str:
        """ndeval's run label: ``RUN (rel to. BASE; rs=1+a; a=A)``."""
        return f"{run_name} (rel to. {self.baseline}; rs=1+a; a={self.alpha_text})"

    def signature(self) -> str:
        return f"baseline={self.baseline}|risk_alpha={self.alpha_text}"


@dataclass
class Evaluation:
    """Everything an evaluation produced: per-run scores, measures, settings, and the qrels
    index (for topic-level context such as subtopic counts). With ``risk`` set, every run's
    values are its risk values against the baseline, and its name is ndeval's run label."""

    runs: list[RunScores]
    measures: list
    settings: EvalSettings
    index: QrelsIndex
    risk: RiskSettings | None = None
    #: exponent of Golbus's Eq. 1 in the ``dd`` topic weights: ``xi`` or ``xi+1``
    dd_exponent: str = "xi"
    _dd_weights: dict[str, float] | None = field(default=None, repr=False)

    def check_mean(self, mean: str) -> None:
        """Risk values are differences: only their arithmetic mean is defined."""
        if self.risk is not None and mean != "arith":
            raise UsageError(
                f"--mean {mean} cannot average risk values (they are differences); "
                "use --mean arith with --baseline"
            )

    def topic_weights(self, mean: str) -> dict[str, float] | None:
        """Per-topic weights of the topic mean: 1 − diversity difficulty for ``dd`` (computed
        once per evaluation), None for the unweighted means."""
        self.check_mean(mean)
        if mean != "dd":
            return None
        if self._dd_weights is None:
            self._dd_weights = difficulty_weights(self.index, self.dd_exponent)
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


def difficulty_weights(index: QrelsIndex, dd_exponent: str = "xi") -> dict[str, float]:
    """Topic -> 1 − diversity difficulty (Golbus et al. 2013, Eq. 2), for ``--mean dd``;
    ``dd_exponent`` is Eq. 1's exponent, ``xi`` or ``xi+1`` (Golbus's Tables 1, 2 and 10)."""
    from divaeval.collection.difficulty import check_dd_exponent, collection_table
    from divaeval.collection.difficulty import difficulty_weights as weights_of

    exponent = check_dd_exponent(dd_exponent)
    table = collection_table(index.qrels.frame, rel_level=index.rel_level, dd_exponent=exponent)
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
    run_paths: Sequence[str | Run],
    qrels_path: str | Qrels,
    *,
    intents_path: str | None = None,
    topics_path: str | None = None,
    settings: EvalSettings | None = None,
    other_paths: Sequence[str | Run] = (),
):
    """Read and validate every input file; returns (runs, qrels index). ``other_paths`` are
    further inputs the caller reads itself (a baseline run), counted for the stdin check. A
    run or the qrels may also be given already read (in-memory data,
    :mod:`divaeval.io.memory`)."""
    settings = settings or EvalSettings()
    from divaeval.io import read_intents, read_qrels, read_run, read_topic_types

    validate_settings(settings)
    inputs = (*run_paths, qrels_path, intents_path, topics_path, *other_paths)
    if sum(1 for p in inputs if isinstance(p, str) and p == "-") > 1:
        raise UsageError("only one input can be '-' (stdin)")
    runs = []
    for path in run_paths:
        if not isinstance(path, str):
            runs.append(path)
            continue
        with activity(f"reading the run {path}"):
            runs.append(read_run(path))
    if isinstance(qrels_path, str):
        with activity(f"reading the qrels {qrels_path}"):
            qrels = read_qrels(qrels_path)
    else:
        qrels = qrels_path
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
    runs: Sequence,
    index: QrelsIndex,
    measures: Sequence,
    settings: EvalSettings,
    *,
    risk: bool = False,
) -> list[RunScores]:
    """Evaluate every run on ``measures``; warns about topic mismatches (``risk``: in words
    that fit risk values, where topics without qrels count as 0)."""
    from divaeval.metrics import compute_measures

    results = []
    for run in runs:
        with activity(f"judging the run {run.path}"):
            jr = judge_run(run, index, settings)
        extra = run_only_topics(run, index)
        if extra:
            warn(
                f"run {run.name}: {len(extra)} topics are not in the qrels "
                f"(e.g. {', '.join(extra[:3])}); "
                + ("they count as 0 in the risk values, as in ndeval" if risk else "not evaluated"),
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


def same_file(a: str, b: str) -> bool:
    """Whether two input paths name the same file (never for stdin)."""
    if "-" in (a, b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _baseline_run(path: str | Run, runs: Sequence):
    """The baseline run: the already-read run when it is the same file as one of ``runs``,
    else read now. It is named by its tag, as ndeval names it, or by its file name when the
    runs were renamed by theirs because they share that tag. A baseline given already read
    (in memory) keeps its name, and is one of ``runs`` only if it is that very object."""
    from copy import copy

    from divaeval.io import read_run

    if not isinstance(path, str):
        same = next((run for run in runs if run is path), None)
        return (path if same is None else copy(same)), same
    same = next((run for run in runs if same_file(run.path, path)), None)
    if same is not None:
        baseline = copy(same)
    else:
        with activity(f"reading the baseline {path}"):
            baseline = read_run(path)
    renamed = {run.tag for run in runs if run.name != run.tag}
    baseline.name = _run_label(path) if baseline.tag in renamed else baseline.tag
    return baseline, same


def run_evaluation(
    run_paths: Sequence[str | Run],
    qrels_path: str | Qrels,
    measures: Sequence[str] = (),
    *,
    intents: str | None = None,
    topics: str | None = None,
    settings: EvalSettings | None = None,
    baseline: str | Run | None = None,
    risk_alpha: float | str | None = None,
    dd_exponent: str = "xi",
) -> Evaluation:
    """Read, judge and score: the structured result behind :func:`divaeval.evaluate` and the
    CLI. Runs and qrels are files, or already read (:mod:`divaeval.io.memory`).

    With ``baseline`` (a run file or a read run), every value becomes the run's risk value
    against it, exactly as ``ndeval -baseline BASE -riskAlpha A`` computes it
    (:func:`~divaeval.aggregate.relative_to_baseline`); ``risk_alpha`` is A (default 0), a
    number or its text. ``dd_exponent`` (``xi`` or ``xi+1``) is the exponent of the ``dd``
    topic weights.
    """
    settings = settings or EvalSettings()
    from divaeval.errors import check_dd_exponent
    from divaeval.metrics import parse_measures

    check_dd_exponent(dd_exponent)
    if baseline is None and risk_alpha is not None:
        raise UsageError("--risk-alpha needs --baseline (the run to compare against)")
    alpha, alpha_text = check_risk_alpha(0.0 if risk_alpha is None else risk_alpha)
    parsed = parse_measures(list(measures) or list(DEFAULT_MEASURES))
    runs, index = load_inputs(
        run_paths,
        qrels_path,
        intents_path=intents,
        topics_path=topics,
        settings=settings,
        other_paths=() if baseline is None else (baseline,),
    )
    base_run, same = (None, None) if baseline is None else _baseline_run(baseline, runs)
    scored = score_runs(runs, index, parsed, settings, risk=baseline is not None)
    risk = None
    if base_run is not None:
        if same is not None:
            base_scores = scored[runs.index(same)]
        else:
            base_scores = score_runs([base_run], index, parsed, settings, risk=True)[0]
        risk = RiskSettings(base_run.name, base_run.path, alpha, alpha_text)
        scored = [
            relative_to_baseline(
                run,
                base_scores,
                parsed,
                index.topics,
                alpha=alpha,
                complete=settings.complete,
                name=risk.label(run.name),
            )
            for run in scored
        ]
    return Evaluation(
        runs=scored,
        measures=parsed,
        settings=settings,
        index=index,
        risk=risk,
        dd_exponent=dd_exponent,
    )
