"""The Python API: every command of the CLI as a function returning a pandas DataFrame.

One signature style throughout: the inputs first (``runs, qrels`` for the analyses of runs;
``qrels`` alone for the collection analyses; the measures alone for the generated cases), then
``measures`` (``-m`` strings: one string or a list; the command's default when empty), then
keyword options named as the command line's long options (``--rel-level`` is ``rel_level``,
``-B/--samples`` is ``samples``, ``-c/--complete`` is ``complete``), with the same defaults
except that per-topic rows are included (``per_topic=True``, the CLI's ``-q``). Every frame
carries the command's settings signature in ``frame.attrs["signature"]``.

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
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, cast

from divaeval import __version__
from divaeval.errors import DivaevalError, UsageError, library_warnings
from divaeval.io.memory import MemoryInputs

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.evaluation import Evaluation
    from divaeval.judged import EvalSettings
    from divaeval.parallel import Jobs, Workers

__all__ = [
    "axioms",
    "collection_table",
    "compare",
    "correlation",
    "discriminative_power",
    "evaluate",
    "intuitiveness",
    "prefer",
    "risk",
    "sensitivity",
    "ties",
    "unanimity",
]


@contextmanager
def _library_call() -> Iterator[MemoryInputs]:
    """The frame of every public function: in-memory inputs, warnings as Python warnings,
    errors about in-memory rows located by row."""
    inputs = MemoryInputs()
    with library_warnings(inputs.relocate_message):
        try:
            yield inputs
        except DivaevalError as error:
            inputs.relocate(error)
            raise


def _measures(measures: str | Sequence[str]) -> list[str]:
    return [measures] if isinstance(measures, str) else list(measures)


def _file(path: str | os.PathLike | None) -> str | None:
    return None if path is None else os.fspath(path)


def _signed(frame: pd.DataFrame, signature: str) -> pd.DataFrame:
    frame.attrs["signature"] = signature
    return frame


def _workers(jobs: Jobs, scheduler: str | None, runs: Any = ()) -> closing[Workers]:
    """The workers of ``jobs`` and ``scheduler`` (the CLI's ``--jobs``, ``--scheduler``; the
    environment variable ``DIVAEVAL_SCHEDULER`` when ``scheduler`` is None), closed when the
    ``with`` block ends; ``jobs="auto"`` decides by the size of ``runs`` (paths or runs
    read; other run data counts as small)."""
    from divaeval.io import Run
    from divaeval.parallel import workers_for
    from divaeval.streaming import planned_work

    work = None
    if jobs == "auto":
        given = [runs] if isinstance(runs, (str, Run)) else runs
        if isinstance(given, (list, tuple)):
            work = planned_work([run for run in given if isinstance(run, (str, Run))])
    return closing(workers_for(jobs, scheduler, work=work))


@dataclass(frozen=True)
class _Judging:
    """The judging options every analysis of runs shares (the CLI's judging options)."""

    depth: int | None
    rel_level: int
    order: str | None
    dedupe: str
    compat: str | None
    intents: str | os.PathLike | None
    topics: str | os.PathLike | None
    normalize_intents: bool

    @classmethod
    def among(cls, arguments: dict[str, Any]) -> _Judging:
        """The judging options among a library function's arguments (its ``locals()``: each
        function spells them out for its users, and hands them on as one)."""
        return cls(**{option.name: arguments[option.name] for option in fields(cls)})

    def settings(self, *, complete: bool) -> EvalSettings:
        """The settings, ``order`` defaulting as on the command line (rank with
        ``compat="ndeval"``, else score)."""
        from divaeval.judged import EvalSettings, default_order

        return EvalSettings(
            order=cast(Any, self.order) or default_order(self.compat),
            depth=self.depth,
            rel_level=self.rel_level,
            complete=complete,
            dedupe=cast(Any, self.dedupe),
            compat=self.compat,
            normalize_intents=self.normalize_intents,
        )


def _evaluation(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str],
    judging: _Judging,
    *,
    complete: bool = True,
    baseline: Any = None,
    risk_alpha: float | str | None = None,
    dd_exponent: str = "xi",
    workers: Workers | None = None,
) -> Evaluation:
    """Read, judge and score (every qrels topic unless ``complete=False``), on ``workers``
    when given."""
    from divaeval.evaluation import run_evaluation

    return run_evaluation(
        inputs.runs(runs),
        inputs.qrels(qrels),
        _measures(measures),
        intents=_file(judging.intents),
        topics=_file(judging.topics),
        settings=judging.settings(complete=complete),
        baseline=inputs.baseline(baseline),
        risk_alpha=risk_alpha,
        dd_exponent=dd_exponent,
        workers=workers,
    )


def _score_tables(
    inputs: MemoryInputs,
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str],
    judging: _Judging,
    *,
    workers: Workers | None = None,
) -> tuple[list[str], dict]:
    """(run names, measure name -> scores[n_runs, n_topics]) over every qrels topic (a topic
    a run lacks scores 0): what the analyses of runs start from."""
    from divaeval.scores import score_matrix

    result = _evaluation(inputs, runs, qrels, measures, judging, workers=workers)
    table = result.table(per_topic=True, summary=False)
    names: list[str] = [run.name for run in result.runs]
    tables = {}
    for measure in result.measures:
        names, _, tables[measure.name] = score_matrix(table, measure.name)
    return names, tables


def evaluate(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    per_topic: bool = True,
    summary: bool = True,
    complete: bool = False,
    mean: str = "arith",
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
    baseline: Any = None,
    risk_alpha: float | str | None = None,
    dd_exponent: str = "xi",
    jobs: Jobs = 1,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Score runs on measures (``divaeval RUN... QRELS``): the long table run, topic, measure,
    value, with ``topic == "all"`` for the mean over topics (``summary``). ``dd_exponent``
    (``xi`` or ``xi+1``) is the exponent of the ``mean="dd"`` topic weights (Golbus Eq. 1).
    ``jobs`` local processes (0: one per core; ``"auto"``: as many as pay off) or the Dask
    ``scheduler`` score the runs' blocks of topics (the CLI's ``--jobs``, ``--scheduler``);
    the values are the same.

    ``baseline`` (a run, a path, or the name of one of ``runs``) turns every value into the
    run's risk value against it, as ``ndeval -baseline -riskAlpha`` (``risk_alpha``); runs are
    then labelled ``RUN (rel to. BASE; rs=1+a; a=A)``.

    >>> import divaeval
    >>> divaeval.evaluate("sample_data/run.txt", "sample_data/qrels.txt",
    ...                   ["alpha-nDCG@20", "ERR-IA@20"], per_topic=False)
           run topic        measure     value
    0  ql-cata   all  alpha-nDCG@20  0.299632
    1  ql-cata   all      ERR-IA@20  0.256198

    In memory: topic 1 has subtopics a (d1) and b (d2, d3); the run ranks d1, d4, d2, so
    P@3 = 2/3 and strec@1 = 1/2 (a), strec@3 = 2/2.

    >>> qrels = {"1": {"a": {"d1": 1}, "b": {"d2": 1, "d3": 1}}}
    >>> run = {"1": {"d1": 3.0, "d4": 2.0, "d2": 1.0}}
    >>> divaeval.evaluate({"mine": run}, qrels, ["P@3", "strec@1", "strec@3"], per_topic=False)
        run topic  measure     value
    0  mine   all      P@3  0.666667
    1  mine   all  strec@1  0.500000
    2  mine   all  strec@3  1.000000
    """
    with _library_call() as inputs, _workers(jobs, scheduler, runs) as workers:
        result = _evaluation(
            inputs,
            runs,
            qrels,
            measures,
            _Judging.among(locals()),
            complete=complete,
            baseline=baseline,
            risk_alpha=risk_alpha,
            dd_exponent=dd_exponent,
            workers=workers,
        )
        frame = result.table(per_topic=per_topic, summary=summary, mean=mean)
        names = ",".join(m.name for m in result.measures)
        risk_part = f"|{result.risk.signature()}" if result.risk else ""
        return _signed(
            frame,
            f"divaeval {__version__}|{result.settings.signature()}{risk_part}|mean={mean}|"
            f"measures={names}",
        )


def risk(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    baseline: Any = None,
    risk_alpha: float | str = 0,
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
    jobs: Jobs = 1,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Risk-sensitive comparison (``divaeval risk``): per measure and run the mean, URisk,
    TRisk, its p-value, wins and losses against ``baseline`` (left out without one), and
    ZRisk and GeoRisk against all the runs, at risk sensitivity ``risk_alpha``. Every run is
    scored on every qrels topic, by ``jobs`` local processes or on the Dask ``scheduler`` as
    for :func:`evaluate`.

    >>> frame = divaeval.risk(["sample_data/run2.txt", "sample_data/run3.txt"],
    ...                       "sample_data/qrels.txt", "alpha-nDCG@20",
    ...                       baseline="sample_data/run.txt", risk_alpha=1)
    >>> frame[["run", "URisk", "TRisk", "wins", "losses"]].round(4)
           run   URisk   TRisk  wins  losses
    0  rm-cata -0.0093 -0.4297     4       3
    1     dssa  0.1289  1.2433     8       2
    2  ql-cata  0.0000  0.0000     0       0
    """
    from divaeval.risk_measures import check_risk_alpha, risk_frame

    with _library_call() as inputs, _workers(jobs, scheduler, runs) as workers:
        alpha, alpha_text = check_risk_alpha(risk_alpha)
        given = inputs.runs(runs)
        base = inputs.baseline(baseline)
        every, position = _with_baseline(given, base)
        judging = _Judging.among(locals())
        from divaeval.evaluation import run_evaluation

        result = run_evaluation(
            every,
            inputs.qrels(qrels),
            _measures(measures),
            intents=_file(intents),
            topics=_file(topics),
            settings=judging.settings(complete=True),
            workers=workers,
        )
        frame = risk_frame(result, baseline=position, alpha=alpha)
        names = ",".join(m.name for m in result.measures)
        base_name = "none" if position is None else result.runs[position].name
        return _signed(
            frame,
            f"divaeval {__version__}|risk|baseline={base_name}|risk_alpha={alpha_text}|"
            f"{result.settings.signature()}|measures={names}",
        )


def _with_baseline(runs: list, baseline: Any) -> tuple[list, int | None]:
    """(runs, position of the baseline among them): the baseline is added after the runs
    unless it is one of them (the same object or the same file), so ZRisk counts it once."""
    from divaeval.evaluation import same_file

    if baseline is None:
        return runs, None
    for position, run in enumerate(runs):
        same_path = isinstance(run, str) and isinstance(baseline, str)
        if run is baseline or (same_path and (run == baseline or same_file(run, baseline))):
            return runs, position
    return [*runs, baseline], len(runs)


def compare(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    test: str = "ttest",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    correction: str | None = None,
    table: str = "pairs",
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
    jobs: Jobs = 1,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Significance tests between every pair of runs (``divaeval compare``), per measure:
    ``table="pairs"`` gives the mean difference, effect size d_z, confidence interval, p-value
    and its correction per pair; ``table="runs"`` each run's mean and the runs it
    significantly beats. ``test``: ttest, bootstrap, randomization or tukey-hsd (``samples``
    resamples, ``seed``, default 42). ``jobs`` processes or the Dask ``scheduler`` score the
    runs and resample (the same results).

    >>> frame = divaeval.compare(["sample_data/run.txt", "sample_data/run2.txt",
    ...                           "sample_data/run3.txt"], "sample_data/qrels.txt",
    ...                          "alpha-nDCG@20")
    >>> frame[["run_a", "run_b", "diff", "p_value", "significant"]].round(4)
         run_a    run_b    diff  p_value  significant
    0  ql-cata  rm-cata -0.0029   0.8447        False
    1  ql-cata     dssa -0.1600   0.0792        False
    2  rm-cata     dssa -0.1571   0.1054        False
    """
    from divaeval.stats import compare_runs
    from divaeval.stats.significance import DEFAULT_SEED

    if table not in ("pairs", "runs"):
        raise UsageError(f"table must be 'pairs' or 'runs', not {table!r}")
    with _library_call() as inputs, _workers(jobs, scheduler, runs) as workers:
        names, tables = _score_tables(
            inputs, runs, qrels, measures, _Judging.among(locals()), workers=workers
        )
        if len(names) < 2:
            raise UsageError("compare needs at least two runs")
        import pandas as pd

        frames, signatures = [], []
        for name, scores in tables.items():
            comparison = compare_runs(
                scores,
                names,
                test=test,
                B=samples,
                seed=DEFAULT_SEED if seed is None else seed,
                alpha=alpha,
                correction=correction,
                workers=workers,
            )
            part = (comparison.pairs if table == "pairs" else comparison.runs).copy()
            part.insert(0, "measure", name)
            frames.append(part)
            signatures.append(
                f"divaeval {__version__}|compare|measure={name}|{comparison.signature}"
            )
        return _signed(pd.concat(frames, ignore_index=True), " ; ".join(signatures))


def prefer(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    table: str = "values",
    per_topic: bool = True,
    summary: bool = True,
    aggregate: str | Sequence[str] = ("mc4", "borda"),
    correction: str = "holm",
    alpha: float = 0.05,
    rel_level: int = 1,
    depth: int | None = None,
    order: str = "score",
    dedupe: str = "error",
    run_names: str = "tag",
) -> pd.DataFrame:
    """Lexicographic preferences (``divaeval prefer``; pref_eval's lexirecall, lexiprecision,
    rrlexiprecision): ``table="values"`` the preference of every pair per topic (+1: run_a
    preferred) and its mean (topic ``all``); ``"pairs"`` wins, ties, losses and a sign test per
    pair; ``"ranking"`` the runs ranked by ``aggregate`` (mc4, borda).

    >>> frame = divaeval.prefer(["sample_data/run.txt", "sample_data/run2.txt"],
    ...                         "sample_data/qrels.txt", "lexirecall", table="pairs")
    >>> frame[["run_a", "run_b", "wins", "ties", "losses", "p_value"]].round(4)
         run_a    run_b  wins  ties  losses  p_value
    0  ql-cata  rm-cata     4     0       6   0.7539
    """
    from divaeval.stats.preferences import pair_table, preferences, ranking_table

    if table not in ("values", "pairs", "ranking"):
        raise UsageError(f"table must be 'values', 'pairs' or 'ranking', not {table!r}")
    methods = _measures(aggregate)
    with _library_call() as inputs:
        prefs = preferences(
            cast(Any, inputs.runs(runs)),
            cast(str, inputs.qrels(qrels)),
            _measures(measures),
            rel_level=rel_level,
            depth=depth,
            order=cast(Any, order),
            dedupe=cast(Any, dedupe),
            run_names=run_names,
        )
        if table == "values":
            frame = prefs.long_frame(per_topic=per_topic, summary=summary)
        elif table == "pairs":
            frame = pair_table(prefs, correction=correction, alpha=alpha)
        else:
            frame = ranking_table(prefs, methods)
        return _signed(
            frame,
            f"divaeval {__version__}|prefer|order={order}|rel={rel_level}|"
            f"depth={depth or 'all'}|dedupe={dedupe}|topics={len(prefs.topics)}|"
            f"test=sign|correction={correction}|alpha={alpha}|"
            f"aggregate={','.join(methods)}|measures={','.join(prefs.measures)}",
        )


def discriminative_power(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    test: str = "bootstrap",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    plot: str | os.PathLike | None = None,
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
    jobs: Jobs = 1,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Discriminative power (``divaeval meta discriminative-power``; Sakai 2012, Figs. 3 and
    5): per measure, the share of run pairs significant at ``alpha`` under ``test`` (bootstrap
    or tukey-hsd) and the estimated performance difference required; ``plot`` draws the ASL
    curves to an image file (needs matplotlib). ``jobs`` processes or the Dask ``scheduler``
    score the runs and resample (the same results).

    >>> frame = divaeval.discriminative_power(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "P-IA@20"], samples=200)
    >>> frame[["metric", "pairs", "significant", "required_delta"]].round(4)
              metric  pairs  significant  required_delta
    0  alpha-nDCG@20      3            0          0.1825
    1        P-IA@20      3            0          0.0583
    """
    from divaeval.meta import discriminative_power as power
    from divaeval.meta import plot_asl_curves
    from divaeval.meta.discriminative_power import check_plotting
    from divaeval.stats.significance import DEFAULT_SEED

    if plot is not None:
        check_plotting()  # before any computing
    with _library_call() as inputs, _workers(jobs, scheduler, runs) as workers:
        names, tables = _score_tables(
            inputs, runs, qrels, measures, _Judging.among(locals()), workers=workers
        )
        powers = power(
            tables,
            names,
            test=test,
            B=samples,
            seed=DEFAULT_SEED if seed is None else seed,
            alpha=alpha,
            workers=workers,
        )
        if plot is not None:
            plot_asl_curves(powers, os.fspath(plot))
        return _signed(
            powers.table(),
            f"divaeval {__version__}|meta discriminative-power|{powers.signature}",
        )


def correlation(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    matrix: str | None = None,
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
) -> pd.DataFrame:
    """Rank correlation of the system rankings of every pair of measures (``divaeval meta
    correlation``): Kendall's tau-b and tau-a, tau_ap both ways and its symmetric mean; or,
    with ``matrix`` (tau_b, tau_a, tau_ap, tau_ap_sym), one coefficient as a measure x measure
    matrix.

    >>> frame = divaeval.correlation(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"])
    >>> frame[["metric_a", "metric_b", "tau_b", "tau_ap_sym"]]
            metric_a   metric_b  tau_b  tau_ap_sym
    0  alpha-nDCG@20  ERR-IA@20    1.0         1.0
    1  alpha-nDCG@20    P-IA@20    1.0         1.0
    2      ERR-IA@20    P-IA@20    1.0         1.0
    """
    from divaeval.meta import rank_correlation_matrix, rank_correlations

    with _library_call() as inputs:
        names, tables = _score_tables(inputs, runs, qrels, measures, _Judging.among(locals()))
        if matrix:
            frame = rank_correlation_matrix(tables, names, matrix).reset_index(names="metric")
        else:
            frame = rank_correlations(tables, names)
        return _signed(
            frame, f"divaeval {__version__}|meta correlation|runs={len(names)}|topics=qrels"
        )


def intuitiveness(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    gold: str | Sequence[str],
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
) -> pd.DataFrame:
    """Sakai's intuitiveness test (``divaeval meta intuitiveness``; Sakai 2012, Fig. 6): for
    every pair of measures, of the run pairs on which they disagree, how often each agrees
    with the ``gold`` measure(s) (one or two, e.g. ``["I-rec@10", "EfP@10"]``).

    >>> frame = divaeval.intuitiveness(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@10", "D#-nDCG@10", "P-IA@10"],
    ...     gold="I-rec@10")
    >>> frame[["metric_1", "metric_2", "disagreements", "intuitiveness_1", "intuitiveness_2"]]
            metric_1    metric_2  disagreements  intuitiveness_1  intuitiveness_2
    0  alpha-nDCG@10  D#-nDCG@10              1              1.0              1.0
    1  alpha-nDCG@10     P-IA@10              0              NaN              NaN
    2     D#-nDCG@10     P-IA@10              1              1.0              1.0
    """
    from divaeval.meta import intuitiveness_table
    from divaeval.metrics import parse_measures

    golds = _measures(gold)
    with _library_call() as inputs:
        compared = _measures(measures) or ["ndeval"]
        gold_names = [m.name for m in parse_measures(golds)]
        names, tables = _score_tables(
            inputs, runs, qrels, compared + golds, _Judging.among(locals())
        )
        frame = intuitiveness_table(
            {m.name: tables[m.name] for m in parse_measures(compared)},
            {name: tables[name] for name in gold_names},
            names,
        )
        return _signed(
            frame,
            f"divaeval {__version__}|meta intuitiveness|gold={'+'.join(gold_names)}|"
            f"runs={len(names)}",
        )


def unanimity(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] = (),
    *,
    depth: int | None = None,
    rel_level: int = 1,
    order: str | None = None,
    dedupe: str = "error",
    compat: str | None = None,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    normalize_intents: bool = False,
) -> pd.DataFrame:
    """Metric Unanimity (``divaeval meta unanimity``; Amigó et al. 2018, §6.1): per measure,
    the PMI (base 2) between its preferences over run pairs and the unanimous preferences of
    the other measures.

    >>> frame = divaeval.unanimity(
    ...     ["sample_data/run.txt", "sample_data/run2.txt", "sample_data/run3.txt"],
    ...     "sample_data/qrels.txt", ["alpha-nDCG@20", "ERR-IA@20", "P-IA@20"])
    >>> frame[["metric", "mu", "pairs"]].round(4)
              metric      mu  pairs
    0  alpha-nDCG@20  0.8532     60
    1      ERR-IA@20  0.7630     60
    2        P-IA@20  0.8007     60
    """
    from divaeval.meta import metric_unanimity_table

    with _library_call() as inputs:
        names, tables = _score_tables(inputs, runs, qrels, measures, _Judging.among(locals()))
        return _signed(
            metric_unanimity_table(tables, names),
            f"divaeval {__version__}|meta unanimity|runs={len(names)}|pmi=log2",
        )


def sensitivity(
    qrels: Any,
    measures: str | Sequence[str],
    *,
    cutoff: int | Sequence[int] = (),
    samples: int = 1000,
    seed: int | None = None,
    mean: str = "arith",
    dd_exponent: str = "xi",
    rel_level: int = 1,
    intents: str | os.PathLike | None = None,
    topics: str | os.PathLike | None = None,
    per_topic: bool = True,
    jobs: Jobs = 1,
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Document selection sensitivity (``divaeval meta sensitivity``; Golbus et al. 2013, §7,
    Eq. 11): per measure and topic, the coefficient of variation dss of the measure over
    ``samples`` random rankings of the topic's relevant documents, and its topic average
    (topic ``all``, by ``mean``). Measures without ``@k`` are evaluated at each ``cutoff``
    (default 20). ``jobs`` processes or the Dask ``scheduler`` draw and score the rankings
    (the same results).

    >>> frame = divaeval.sensitivity("sample_data/qrels.txt", "alpha-nDCG@20", samples=50,
    ...                              per_topic=False)
    >>> frame[["measure", "topic", "relevant", "samples", "seed", "dss"]].round(4)
             measure topic  relevant  samples  seed     dss
    0  alpha-nDCG@20   all        10       50    42  0.1386
    """
    from divaeval.meta.sensitivity import DEFAULT_CUTOFF
    from divaeval.meta.sensitivity import sensitivity as selection_sensitivity

    cutoffs = [cutoff] if isinstance(cutoff, int) else list(cutoff)
    with _library_call() as inputs, _workers(jobs, scheduler) as workers:
        result = selection_sensitivity(
            inputs.qrels(qrels),
            _measures(measures),
            cutoffs=cutoffs or [DEFAULT_CUTOFF],
            samples=samples,
            seed=seed,
            mean=mean,
            dd_exponent=dd_exponent,
            rel_level=rel_level,
            intents=_file(intents),
            topics=_file(topics),
            workers=workers,
        )
        frame = result.frame(per_topic=per_topic)
        frame.insert(frame.columns.get_loc("samples") + 1, "seed", result.seed)
        return _signed(frame, f"divaeval {__version__}|meta sensitivity|{result.signature}")


def axioms(
    measures: str | Sequence[str] = (),
    *,
    table: str = "results",
    table1: bool = False,
    constraint: str | Sequence[str] = (),
    seed: int | None = None,
    cases: int = 400,
    max_length: int = 20,
    top_grade: int = 10,
) -> pd.DataFrame:
    """The ten formal constraints of Amigó et al. (SIGIR 2018, Eqs. 1-10) checked on each
    measure (``divaeval meta axioms``): ``table="results"`` one row per measure and constraint
    (value 1 satisfied, 0 not, with a counterexample); ``"verdicts"`` the measure x constraint
    matrix; ``"counterexamples"``; ``"spaces"`` what each check searched. ``table1`` adds the
    20 metrics of the paper's Table 1.

    >>> divaeval.axioms(["P@10", "alpha-nDCG@10"], constraint=["Pri", "Conf", "Red"], cases=20,
    ...                 table="verdicts")
             measure Pri Conf Red
    0           P@10   ○    ○   ○
    1  alpha-nDCG@10   ○    ○   ●
    """
    from divaeval.meta.axioms import CONSTRAINTS, PAPER_TABLE1, check_axioms
    from divaeval.meta.axioms import constraint as constraint_named

    tables = ("results", "verdicts", "counterexamples", "spaces")
    if table not in tables:
        raise UsageError(f"table must be one of {', '.join(tables)}, not {table!r}")
    with _library_call():
        chosen = _measures(measures) + (
            [text for text, _ in PAPER_TABLE1.values()] if table1 else []
        )
        if not chosen:
            raise UsageError("axioms: give measures or table1=True")
        keys = [constraint_named(k).key for k in _measures(constraint)] or list(CONSTRAINTS)
        report = check_axioms(
            chosen,
            keys,
            seed=42 if seed is None else seed,
            random_cases=cases,
            max_length=max_length,
            top_grade=top_grade,
        )
        if table == "results":
            frame = report.frame()
        elif table == "verdicts":
            frame = report.verdict_frame(paper=table1)
        elif table == "counterexamples":
            frame = report.counterexample_frame()
        else:
            frame = report.space_frame()
        return _signed(frame, f"divaeval {__version__}|meta axioms|{report.signature()}")


def ties(
    n: int | Sequence[int],
    m: int | Sequence[int] = (),
    *,
    cutoff: int = 1000,
    measures: str | Sequence[str] = (),
    samples: int | None = None,
    seed: int | None = None,
    worst_case: bool = False,
) -> pd.DataFrame:
    """Tie probabilities of two random complete rankings of ``n`` items with ``m`` relevant
    (``divaeval meta ties``; Diaz, Ekstrand & Mitra §5.3): exact for TSE, R@k (``cutoff``),
    R-precision and lexirecall, Monte Carlo for ``measures``; ``worst_case=True`` gives their
    Table 2 (m drawn from U(5, 50)).

    >>> divaeval.ties(100, 10, cutoff=10)[["n", "m", "R@10", "RP"]].round(4)
         n   m   R@10     RP
    0  100  10  0.319  0.319
    """
    from divaeval.meta.ties import DEFAULT_SAMPLES, DEFAULT_SEED, ties_frame, worst_case_frame

    sizes_n = [n] if isinstance(n, int) else list(n)
    sizes_m = [m] if isinstance(m, int) else list(m)
    chosen = _measures(measures)
    with _library_call():
        seed = DEFAULT_SEED if seed is None else seed
        if worst_case:
            if sizes_m:
                raise UsageError("ties: worst_case draws m ~ U(5, 50); do not give m")
            samples = 10_000 if samples is None else samples
            frame = worst_case_frame(sizes_n, measures=chosen, samples=samples, seed=seed)
            signature = f"worst-case|m~U(5,50)|samples={samples}|seed={seed}"
        else:
            if not sizes_m:
                raise UsageError("ties: give m (the number of relevant items)")
            samples = DEFAULT_SAMPLES if samples is None else samples
            frame = ties_frame(
                sizes_n, sizes_m, k=cutoff, measures=chosen, samples=samples, seed=seed
            )
            signature = f"k={cutoff}" + (f"|samples={samples}|seed={seed}" if chosen else "")
        return _signed(frame, f"divaeval {__version__}|meta ties|{signature}")


def collection_table(
    qrels: Any,
    *,
    rel_level: int = 1,
    cover: str = "exact",
    dd_exponent: str = "xi",
    smr_rank: int | None = None,
) -> pd.DataFrame:
    """The collection analysis of the judgments alone (``divaeval collection``; Golbus et al.
    2013): per topic the relevant documents, per-subtopic counts, the minimum cover xi, d_max,
    d_mean, diversity difficulty dd and the subtopic miss rate smr. (Named ``collection_table``
    because ``divaeval.collection`` is the package of these analyses.)

    >>> frame = divaeval.collection_table("sample_data/qrels.txt")
    >>> frame[["topic", "n_rel_docs", "n_subtopics", "xi", "dd"]].head(3).round(4)
      topic  n_rel_docs  n_subtopics  xi      dd
    0   151         152            5   1  0.8078
    1   152          65            4   1  0.6735
    2   153         155            4   3  0.6037
    """
    from divaeval.collection import collection_table as table_of
    from divaeval.io import read_qrels

    with _library_call() as inputs:
        source = inputs.qrels(qrels)
        judgments = read_qrels(source) if isinstance(source, str) else source
        frame = table_of(
            judgments.frame,
            rel_level=rel_level,
            cover=cast(Any, cover),
            dd_exponent=cast(Any, dd_exponent),
            smr_rank=smr_rank,
        )
        return _signed(
            frame,
            f"divaeval {__version__}|collection|rel={rel_level}|cover={cover}|"
            f"dd_exponent={dd_exponent}|smr_rank={smr_rank or 'xi'}",
        )
