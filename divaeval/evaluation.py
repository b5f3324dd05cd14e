"""The evaluation pipeline: read, judge, score; the public API (:mod:`divaeval.api`) and the
CLI are layers over it.

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

from divaeval.errors import DataError, UsageError, activity, warn
from divaeval.judged import EvalSettings, QrelsIndex, validate_settings
from divaeval.risk_measures import check_risk_alpha, relative_to_baseline
from divaeval.scores import RunScores, long_table, means

if TYPE_CHECKING:
    from divaeval.io import Qrels, Run
    from divaeval.parallel import Jobs, Workers

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


@dataclass(eq=False)
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
    # lazily: the collection analysis runs on pandas, which the main job never imports
    from divaeval.collection import check_dd_exponent, collection_table
    from divaeval.collection import difficulty_weights as weights_of

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
    read_runs: bool = True,
):
    """Read and validate every input file; returns (runs, qrels index). ``other_paths`` are
    further inputs the caller reads itself (a baseline run), counted for the stdin check. A
    run or the qrels may also be given already read (in-memory data,
    :mod:`divaeval.io.memory`). With ``read_runs=False``, run files are not read here but
    returned as :class:`~divaeval.streaming.RunFile` s, for :func:`score_runs` to read block
    by block (they are named once their tags are known)."""
    from divaeval.streaming import RunFile, check_run_start

    settings = settings or EvalSettings()
    from divaeval.heap import release_free_memory
    from divaeval.io import read_intents, read_qrels, read_run, read_topic_types

    validate_settings(settings)
    inputs = (*run_paths, qrels_path, intents_path, topics_path, *other_paths)
    if sum(1 for p in inputs if isinstance(p, str) and p == "-") > 1:
        raise UsageError("only one input can be '-' (stdin)")
    runs: list = []
    for path in run_paths:
        if not isinstance(path, str):
            runs.append(path)
            continue
        if not read_runs:
            with activity(f"reading the run {path}"):
                check_run_start(path)
            runs.append(RunFile(path))
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
    # The heap that reading and indexing freed goes back to the system: a 3M-line qrels
    # leaves 250 MiB of it, which worker processes would otherwise each start with.
    release_free_memory()
    if read_runs:
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
    workers: Workers | None = None,
    block_bytes: int | None = None,
) -> list[RunScores]:
    """Evaluate every run (read :class:`~divaeval.io.Run` s, or
    :class:`~divaeval.streaming.RunFile` s read block by block of ``block_bytes`` on
    ``workers``) on ``measures``; names the runs (:func:`_name_runs`) and warns about topic
    mismatches (``risk``: in words that fit risk values, where topics without qrels count as
    0)."""
    from divaeval.streaming import score_runs as score_blocks

    results = score_blocks(
        runs, index, measures, settings, workers=workers, block_bytes=block_bytes
    )
    _name_runs(results)
    for run in results:
        extra = run.run_only_topics
        if extra:
            warn(
                f"run {run.name}: {len(extra)} topics are not in the qrels "
                f"(e.g. {', '.join(extra[:3])}); "
                + ("they count as 0 in the risk values, as in ndeval" if risk else "not evaluated"),
                file=run.path,
            )
        if not settings.complete:
            missing = run.missing_topics
            if missing:
                warn(
                    f"run {run.name} lacks {len(missing)} qrels topics "
                    f"(e.g. {', '.join(missing[:3])}); they are not in the mean "
                    "(-c counts them as 0)",
                    file=run.path,
                )
            if len(run.topics) == 0:
                raise DataError(
                    f"no topic of run {run.name} is in the qrels "
                    f"(qrels topics look like {index.topics[0]!r})",
                    file=run.path,
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


def _baseline_scores(
    baseline: str | Run,
    runs: Sequence,
    scored: list[RunScores],
    score,
) -> RunScores:
    """The baseline's scores: a scored run's when the baseline is the same file as one of
    ``runs`` (or, given already read, that very object), else scored now (``score``). It is
    named by its tag, as ndeval names it, or by its file name when the runs were renamed by
    theirs because they share that tag; a baseline given already read keeps its name."""
    from copy import copy

    from divaeval.streaming import RunFile

    if isinstance(baseline, str):
        at = next((i for i, run in enumerate(runs) if same_file(run.path, baseline)), None)
    else:
        at = next((i for i, run in enumerate(runs) if run is baseline), None)
    if at is not None:
        scores = copy(scored[at])
    else:
        with activity(f"reading the baseline {baseline if isinstance(baseline, str) else ''}"):
            scores = score(RunFile(baseline) if isinstance(baseline, str) else baseline)
    if isinstance(baseline, str):
        renamed = {run.tag for run in scored if run.name != run.tag}
        scores.name = _run_label(baseline) if scores.tag in renamed else scores.tag
    else:
        scores.name = baseline.name
    return scores


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
    jobs: Jobs = 1,
    scheduler: str | None = None,
    chunk_bytes: int | None = None,
    workers: Workers | None = None,
) -> Evaluation:
    """Read, judge and score: the structured result behind :func:`divaeval.evaluate` and the
    CLI. Runs and qrels are files, or already read (:mod:`divaeval.io.memory`).

    With ``baseline`` (a run file or a read run), every value becomes the run's risk value
    against it, exactly as ``ndeval -baseline BASE -riskAlpha A`` computes it
    (:func:`~divaeval.risk_measures.relative_to_baseline`); ``risk_alpha`` is A (default 0), a
    number or its text. ``dd_exponent`` (``xi`` or ``xi+1``) is the exponent of the ``dd``
    topic weights.

    Run files are read in blocks of whole topics of about ``chunk_bytes`` of text (default
    8 MiB), so memory stays bounded however large a run is (:mod:`divaeval.streaming`); the
    blocks are scored by ``jobs`` local processes (``"auto"``: as many as pay off,
    :func:`~divaeval.parallel.auto_jobs`), or on the Dask cluster at ``scheduler``
    (:mod:`divaeval.parallel`); or by ``workers`` already made (left open, for the analyses
    that follow). The values are the same in every case.
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
        read_runs=False,
    )
    from divaeval.parallel import workers_for
    from divaeval.streaming import planned_work

    own_workers = workers is None
    if workers is None:
        work = planned_work(runs, chunk_bytes) if jobs == "auto" else None
        workers = workers_for(jobs, scheduler, work=work)
    try:

        def score(runs_to_score, risk: bool):
            return score_runs(
                runs_to_score,
                index,
                parsed,
                settings,
                risk=risk,
                workers=workers,
                block_bytes=chunk_bytes,
            )

        scored = score(runs, baseline is not None)
        risk = None
        if baseline is not None:
            base_scores = _baseline_scores(
                baseline, runs, scored, lambda run: score([run], True)[0]
            )
            risk = RiskSettings(base_scores.name, base_scores.path, alpha, alpha_text)
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
    finally:
        if own_workers:
            workers.close()
    return Evaluation(
        runs=scored,
        measures=parsed,
        settings=settings,
        index=index,
        risk=risk,
        dd_exponent=dd_exponent,
    )
