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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import numpy as np

from divaeval.errors import DataError, UsageError, activity, warn
from divaeval.io import Qrels, Run, read_intents, read_qrels, read_run, read_topic_types
from divaeval.judged import QrelsIndex
from divaeval.metrics import parse_measures
from divaeval.parallel import Workers, workers_for
from divaeval.scores import RunScores, long_table, means
from divaeval.settings import Settings
from divaeval.streaming import RunFile, check_run_start, planned_work
from divaeval.streaming import score_runs as score_blocks

DEFAULT_MEASURES = ("ndeval",)
_SUFFIXES = re.compile(r"(\.gz)?$")


class RiskSettings(NamedTuple):
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
    settings: Settings
    index: QrelsIndex
    risk: RiskSettings | None = None
    _dd_weights: dict[str, float] | None = field(default=None, repr=False)

    def check_mean(self, mean: str | None = None) -> None:
        """Risk values are differences: only their arithmetic mean is defined."""
        mean = mean or self.settings.mean
        if self.risk is not None and mean != "arith":
            raise UsageError(
                f"--mean {mean} cannot average risk values (they are differences); "
                "use --mean arith with --baseline"
            )

    def topic_weights(self, mean: str | None = None) -> dict[str, float] | None:
        """Per-topic weights of the topic mean (default: the settings' ``mean``): 1 − diversity
        difficulty for ``dd`` (computed once per evaluation), None for the unweighted means."""
        mean = mean or self.settings.mean
        self.check_mean(mean)
        if mean != "dd":
            return None
        if self._dd_weights is None:
            self._dd_weights = difficulty_weights(self.index, self.settings.exponent)
        return self._dd_weights

    def means(self, run: RunScores, mean: str | None = None) -> dict:
        """Measure -> mean of ``run`` over its evaluated topics (every report uses this);
        ``mean`` defaults to the settings' ``mean``."""
        mean = mean or self.settings.mean
        return means(run, self.measures, mean, self.topic_weights(mean))

    def score_tables(self) -> tuple[list[str], dict[str, np.ndarray]]:
        """(run names, measure name -> scores[n_runs, n_topics]): what the analyses of runs
        start from. Every run must be scored on the same topics (``complete=True``)."""
        first = self.runs[0].topics if self.runs else np.array([])
        if any(not np.array_equal(run.topics, first) for run in self.runs):
            raise UsageError("score tables need every run scored on the same topics (complete)")
        tables = {
            measure.name: np.vstack([run.values[measure] for run in self.runs]).astype(
                np.float64, copy=False
            )
            for measure in self.measures
        }
        return [run.name for run in self.runs], tables

    def table(self, *, per_topic: bool = True, summary: bool = True, mean: str | None = None):
        """The long table run, topic, measure, value (``topic == "all"``: the mean)."""
        mean = mean or self.settings.mean
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
    # pandas: only --mean dd pays for it (the main job starts without pandas)
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
    runs: Sequence[str | Run],
    qrels: str | Qrels,
    settings: Settings | None = None,
    *,
    other_paths: Sequence[str | Run] = (),
    read_runs: bool = True,
) -> tuple[list, QrelsIndex]:
    """Read and validate every input; returns (runs, qrels index). ``other_paths`` are
    further inputs the caller reads itself (a baseline run), counted for the stdin check. A
    run or the qrels may also be given already read (in-memory data,
    :mod:`divaeval.io.memory`). With ``read_runs=False``, run files are not read here but
    returned as :class:`~divaeval.streaming.RunFile` s, for :func:`score_runs` to read block
    by block (they are named once their tags are known)."""
    settings = settings or Settings()
    check_stdin(*runs, qrels, settings.intents, settings.topics, *other_paths)
    opened = open_runs(runs, read=read_runs)
    index = index_qrels(qrels, settings)
    if read_runs:
        _name_runs(opened)
    return opened, index


def check_stdin(*inputs: object) -> None:
    """At most one input is ``-`` (stdin can be read once)."""
    if sum(1 for given in inputs if isinstance(given, str) and given == "-") > 1:
        raise UsageError("only one input can be '-' (stdin)")


def open_runs(runs: Sequence[str | Run], *, read: bool = False) -> list:
    """Run files read (``read``), or checked at their start and left as
    :class:`~divaeval.streaming.RunFile` s to be read block by block; runs already read stay."""
    opened: list = []
    for path in runs:
        if not isinstance(path, str):
            opened.append(path)
        elif read:
            with activity(f"reading the run {path}"):
                opened.append(read_run(path))
        else:
            with activity(f"reading the run {path}"):
                check_run_start(path)
            opened.append(RunFile(path))
    return opened


def index_qrels(qrels: str | Qrels, settings: Settings, *, warn_empty: bool = True) -> QrelsIndex:
    """The qrels (a file, or already read), with the settings' intents and topic types (files,
    or already read: :class:`~divaeval.io.memory.MemoryInputs`), indexed for judging
    (:class:`~divaeval.judged.QrelsIndex`): built once, it judges any number of runs. Topics
    without a relevant document are reported (``warn_empty``)."""
    if isinstance(qrels, str):
        with activity(f"reading the qrels {qrels}"):
            qrels = read_qrels(qrels)
    intents: Any = settings.intents
    topic_types: Any = settings.topics
    if isinstance(intents, str):
        with activity(f"reading the intents {intents}"):
            intents = read_intents(intents)
    if isinstance(topic_types, str):
        with activity(f"reading the topics {topic_types}"):
            topic_types = read_topic_types(topic_types)
    index = QrelsIndex(
        qrels,
        rel_level=settings.rel_level,
        intents=intents,
        topic_types=topic_types,
        normalize_intents=settings.normalize_intents,
    )
    if warn_empty:
        _warn_empty_topics(index, settings)
    return index


def _warn_empty_topics(index: QrelsIndex, settings: Settings) -> None:
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
    settings: Settings,
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
    results = score_blocks(
        runs, index, measures, settings, workers=workers, block_bytes=block_bytes
    )
    _name_runs(results)
    for run in results:
        extra = run.run_only_topics
        numbered = _numbered_matches(extra, index, settings)
        if extra:
            warn(
                f"run {run.name}: {len(extra)} topics are not in the qrels "
                f"(e.g. {', '.join(extra[:3])}); "
                + ("they count as 0 in the risk values, as in ndeval" if risk else "not evaluated")
                + numbered,
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
                    f"(qrels topics look like {index.topics[0]!r})" + numbered,
                    file=run.path,
                )
    return results


def _numbered_matches(topics: Sequence[str], index: QrelsIndex, settings: Settings) -> str:
    """The hint for run topics the qrels lack as strings but have as ndeval's numbers (``01``
    and ``1``, ``wt09-1`` and ``1``): ``--compat ndeval`` matches them; "" when none do."""
    if settings.compat == "ndeval":
        return ""
    matched = [t for t in topics if index.topic_code(t, "ndeval") >= 0]
    if not matched:
        return ""
    example = matched[0]
    return (
        f"; read as numbers, as ndeval does, {len(matched)} of them are qrels topics (e.g. "
        f"{example} = {index.topics[index.topic_code(example, 'ndeval')]}): --compat ndeval "
        "matches them so"
    )


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
    runs: Sequence[str | Run],
    qrels: str | Qrels,
    measures: Sequence = (),
    settings: Settings | None = None,
    *,
    baseline: str | Run | None = None,
    risk_alpha: float | str | None = None,
    workers: Workers | None = None,
) -> Evaluation:
    """Read, judge and score: the structured result behind :func:`divaeval.evaluate` and the
    CLI. Runs and qrels are files, or already read (:mod:`divaeval.io.memory`); the intents,
    topic types, ordering, averaging and workers are the ``settings``' (:class:`Settings`).

    With ``baseline`` (a run file or a read run), every value becomes the run's risk value
    against it, exactly as ``ndeval -baseline BASE -riskAlpha A`` computes it
    (:func:`~divaeval.risk_measures.relative_to_baseline`); ``risk_alpha`` is A (default 0), a
    number or its text.

    Run files are read in blocks of whole topics of about ``settings.chunk_size`` bytes of
    text (default 4 MiB), so memory stays bounded however large a run is
    (:mod:`divaeval.streaming`); the blocks are scored by ``settings.jobs`` local processes
    (``"auto"``: as many as pay off, :func:`~divaeval.parallel.auto_jobs`), or on the Dask
    cluster at ``settings.scheduler`` (:mod:`divaeval.parallel`); or by ``workers`` already
    made (left open, for the analyses that follow). The values are the same in every case.
    """
    settings = settings or Settings()
    parsed = parse_measures(list(measures) or list(DEFAULT_MEASURES))
    risk = risk_settings(baseline, risk_alpha)
    opened, index = load_inputs(
        runs,
        qrels,
        settings,
        other_paths=() if baseline is None else (baseline,),
        read_runs=False,
    )
    if workers is not None:
        return score_evaluation(opened, index, parsed, settings, workers, baseline, risk)
    with closing_workers(settings, opened) as own:
        return score_evaluation(opened, index, parsed, settings, own, baseline, risk)


def risk_settings(baseline: object, risk_alpha: float | str | None) -> tuple[float, str] | None:
    """(α, α as text) of a risk-sensitive evaluation against ``baseline``; None without one
    (``risk_alpha`` alone is a usage error)."""
    if baseline is None:
        if risk_alpha is not None:
            raise UsageError("--risk-alpha needs --baseline (the run to compare against)")
        return None
    from divaeval.risk_measures import check_risk_alpha

    return check_risk_alpha(0.0 if risk_alpha is None else risk_alpha)


@contextmanager
def closing_workers(settings: Settings, runs: Sequence = ()) -> Iterator[Workers]:
    """The workers of ``settings.jobs`` and ``settings.scheduler``, closed when the block
    ends; ``jobs="auto"`` decides by the size of ``runs`` (files, or runs read; other run data
    counts as small) and the chunk size."""
    work = None
    if settings.jobs == "auto":
        sized = [run for run in runs if isinstance(run, (str, Run, RunFile))]
        work = planned_work(sized, settings.chunk_size)
    workers = workers_for(settings.jobs, settings.scheduler, work=work)
    try:
        yield workers
    finally:
        workers.close()


def score_evaluation(
    runs: Sequence,
    index: QrelsIndex,
    measures: Sequence,
    settings: Settings,
    workers: Workers,
    baseline: str | Run | None = None,
    risk: tuple[float, str] | None = None,
) -> Evaluation:
    """Score ``runs`` (opened by :func:`open_runs`) against ``index`` on ``workers``; with a
    ``baseline`` and its ``risk`` (α, α as text: :func:`risk_settings`), every value is the
    run's risk value against the baseline."""

    def score(runs_to_score, against_baseline: bool):
        return score_runs(
            runs_to_score,
            index,
            measures,
            settings,
            risk=against_baseline,
            workers=workers,
            block_bytes=settings.chunk_size,
        )

    scored = score(runs, baseline is not None)
    if baseline is None or risk is None:
        return Evaluation(runs=scored, measures=list(measures), settings=settings, index=index)
    from divaeval.risk_measures import relative_to_baseline

    base_scores = _baseline_scores(baseline, runs, scored, lambda run: score([run], True)[0])
    against = RiskSettings(base_scores.name, base_scores.path, *risk)
    relative = [
        relative_to_baseline(
            run,
            base_scores,
            measures,
            cast(Sequence[str], index.topics),
            alpha=against.alpha,
            complete=settings.complete,
            name=against.label(run.name),
        )
        for run in scored
    ]
    return Evaluation(
        runs=relative, measures=list(measures), settings=settings, index=index, risk=against
    )
