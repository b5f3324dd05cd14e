"""All risk-sensitive evaluation: ndeval's ``-baseline`` values, URisk, TRisk, ZRisk and GeoRisk.

(Named ``risk_measures``, not ``risk``: ``divaeval.risk`` is the public function of the Python
API, and a submodule of that name would replace it as an attribute of the package.)

A run is compared with a **baseline** topic by topic; losses weigh (1 + α) times as much as
gains (α ≥ 0, the risk sensitivity; α = 0 gives the plain difference).

- **ndeval's risk value** (ndeval 4.5, ``-baseline B -riskAlpha a``), per topic:
  ``RiskBased(r, b, a) = r − b`` if r ≥ b, else ``(1 + a)·(r − b)``
  (:func:`risk_values`), on ndeval's topic set with its zero filling and denominator
  (:func:`ndeval_topic_set`); :func:`relative_to_baseline` turns a run's scores into these
  values, which ``divaeval --baseline`` prints.
- **URisk** (Wang, Bennett & Collins-Thompson, SIGIR 2012; the TREC 2013–2014 Web Track risk
  measure): the mean of the risk values over the c topics,
  URisk = (1/c)·[Σ_{q∈Q+} δ_q + (1 + α)·Σ_{q∈Q−} δ_q] with δ_q = r_q − b_q, Q+ the topics where
  the run wins (δ_q > 0), Q− where it loses (δ_q < 0) (:func:`urisk`).
- **TRisk** (Dinçer, Macdonald & Ounis, "Hypothesis Testing for the Risk-Sensitive Evaluation of
  Retrieval Systems", SIGIR 2014): URisk studentised, TRisk = URisk / SE(URisk) with
  SE = s/√c and s² = Σ_q (δ'_q − URisk)² / (c − 1) the sample variance of the risk values δ'_q.
  It is the t statistic of the one-sample t test of the δ'_q (the paired t test of run and
  baseline when α = 0); the p-value is two-sided from Student's t with c − 1 degrees of freedom.
  TRisk < −2 flags a significant risk, TRisk > +2 a significant reward (:func:`trisk`).
- **ZRisk** (Dinçer, Macdonald & Ounis, "Risk-Sensitive Evaluation and Learning to Rank using
  Multiple Baselines", SIGIR 2016): every run against the whole set of runs. For the score table
  x_ij (run i, topic j) with run totals S_i = Σ_j x_ij, topic totals T_j = Σ_i x_ij and N =
  Σ_ij x_ij, the expected score is e_ij = S_i·T_j / N (the chi-square model of independence) and
  z_ij = (x_ij − e_ij) / √e_ij. ZRisk_i = Σ_{j: z_ij ≥ 0} z_ij + (1 + α)·Σ_{j: z_ij < 0} z_ij
  (:func:`zrisk`).
- **GeoRisk** (same paper): GeoRisk_i = √( (S_i / c) · Φ(ZRisk_i / c) ), the geometric mean of
  the run's mean score and its normalised ZRisk, Φ the standard normal CDF (:func:`georisk`).

ZRisk and GeoRisk need non-negative scores (e_ij is an expected count). A cell with e_ij = 0
(its topic or its run scores 0 throughout, so x_ij = 0 too) deviates from nothing: z_ij = 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from divaeval.errors import DataError, UsageError, warn
from divaeval.scores import RunScores, check_score_magnitude, equal_within_tolerance, row_means
from divaeval.topics import sort_topics

# ---------------------------------------------------------------------------------------------
# ndeval's -baseline/-riskAlpha: risk values against a baseline run


MAX_RISK_ALPHA = 1e6
"""The largest risk sensitivity α: a loss then weighs a million times a gain (TREC's Web Track
used α ≤ 10), and (1 + α) times any score difference stays finite."""


def check_risk_alpha(alpha: float | str) -> tuple[float, str]:
    """(α as a float, α as text): α must be a number in [0, :data:`MAX_RISK_ALPHA`]. Text is
    kept as given (ndeval prints ``-riskAlpha`` exactly as typed in its run label); a number is
    written shortest (``1.0`` -> ``1``)."""
    if isinstance(alpha, str):
        text = alpha.strip()
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"risk alpha must be a number >= 0, not {alpha!r}") from None
    else:
        value = float(alpha)
        text = repr(value).removesuffix(".0")
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"risk alpha must be a finite number >= 0, not {alpha!r}")
    if value > MAX_RISK_ALPHA:
        raise UsageError(
            f"risk alpha {alpha!r} is beyond {MAX_RISK_ALPHA:,.0f}: losses would weigh more "
            f"than {MAX_RISK_ALPHA:,.0f} times gains"
        )
    return value, text


def risk_values(run: np.ndarray, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """ndeval's ``RiskBased(r, b, a)`` elementwise: r − b where r ≥ b, else (1 + a)·(r − b).

    The same floating-point operations as ndeval 4.5, so the values agree bit for bit; NaN on
    either side gives NaN (ndeval's ``r >= b`` is false for NaN).
    """
    run = np.asarray(run, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    difference = run - baseline
    return np.where(run >= baseline, difference, (1.0 + alpha) * difference)


class RiskTopicSet(NamedTuple):
    """ndeval's rows and mean denominator of a run against a baseline."""

    topics: list[str]  # the printed rows, ascending
    denominator: int  # what the row sum is divided by


def ndeval_topic_set(
    run_topics: Sequence[str],
    baseline_topics: Sequence[str],
    qrels_topics: Sequence[str],
    *,
    complete: bool,
) -> RiskTopicSet:
    """The topic set of ``ndeval -baseline`` (ndeval 4.5, ``outputMeasures``).

    Rows: every topic of the run file; with ``-c`` every topic of the run or the baseline file.
    A topic missing from one side (or without qrels) counts as 0 for that side. Denominator:
    |run ∩ qrels| (with ``-c``: |qrels|), replaced by the number of rows when that is larger, so
    without ``-c`` it is the number of run topics, and with ``-c`` it is
    max(|qrels|, |run ∪ baseline|), which is less than |qrels ∪ run ∪ baseline| when both the
    qrels and the two runs have topics the other side lacks.
    """
    run_set = {str(t) for t in run_topics}
    qrels_set = {str(t) for t in qrels_topics}
    rows = run_set | {str(t) for t in baseline_topics} if complete else run_set
    counted = len(qrels_set) if complete else len(run_set & qrels_set)
    return RiskTopicSet(topics=sort_topics(rows), denominator=max(counted, len(rows)))


def file_topics(run: RunScores) -> list[str]:
    """The topics of the run file: its evaluated topics it did not lack, and its topics without
    qrels."""
    missing = set(run.missing_topics)
    return [str(t) for t in run.topics if t not in missing] + list(run.run_only_topics)


def _values_on(run: RunScores, topics: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(positions into ``run.topics``, present) for ``topics``: present where the run file has
    the topic and it was evaluated (topics without qrels and topics the run lacks are absent)."""
    missing = set(run.missing_topics)
    position = {str(t): i for i, t in enumerate(run.topics) if t not in missing}
    index = np.array([position.get(t, -1) for t in topics], dtype=np.int64)
    return np.maximum(index, 0), index >= 0


def relative_to_baseline(
    run: RunScores,
    baseline: RunScores,
    measures: Sequence,
    qrels_topics: Sequence[str],
    *,
    alpha: float,
    complete: bool,
    name: str,
) -> RunScores:
    """``run``'s risk values against ``baseline`` as ndeval 4.5's ``-baseline -riskAlpha``
    computes them: per topic r − b, or (1 + α)·(r − b) where the
    run loses; rows and mean denominator by :func:`ndeval_topic_set`; a
    topic missing from either run file, or without qrels, counts as 0 for that side."""
    topic_set = ndeval_topic_set(
        file_topics(run), file_topics(baseline), qrels_topics, complete=complete
    )
    rows = topic_set.topics
    run_index, run_present = _values_on(run, rows)
    base_index, base_present = _values_on(baseline, rows)

    def on_rows(scores: RunScores, measure, index: np.ndarray, present: np.ndarray) -> np.ndarray:
        if not present.any():
            return np.zeros(len(rows))
        return np.where(present, scores.values[measure][index], 0.0)

    values = {
        measure: risk_values(
            on_rows(run, measure, run_index, run_present),
            on_rows(baseline, measure, base_index, base_present),
            alpha,
        )
        for measure in measures
    }
    return RunScores(
        name=name,
        path=run.path,
        topics=np.array(rows, dtype=object),
        values=values,
        denominator=topic_set.denominator,
    )


# ---------------------------------------------------------------------------------------------
# URisk, TRisk, ZRisk and GeoRisk of a score table

#: (name, definition, source) of each risk measure, for ``divaeval metrics``.
RISK_MEASURES = (
    (
        "risk value (--baseline, --risk-alpha A)",
        "per topic r − b if r ≥ b, else (1 + A)(r − b), on ndeval's topic set; any measure",
        "ndeval 4.5 -baseline/-riskAlpha (TREC Web 2013-2014), reproduced exactly",
    ),
    (
        "URisk",
        "mean risk value over the topics",
        "Wang, Bennett & Collins-Thompson, SIGIR 2012; TREC Web 2013-2014",
    ),
    (
        "TRisk",
        "URisk / (s/√c), the t statistic of the risk values; two-sided p, c − 1 df",
        "Dinçer, Macdonald & Ounis, Hypothesis Testing for the Risk-Sensitive Evaluation of "
        "Retrieval Systems, SIGIR 2014",
    ),
    (
        "ZRisk",
        "Σ_j z_ij, negative z weighted 1 + A; z_ij = (x_ij − e_ij)/√e_ij, e_ij = S_i·T_j/N "
        "over all runs",
        "Dinçer, Macdonald & Ounis, Risk-Sensitive Evaluation and Learning to Rank using "
        "Multiple Baselines, SIGIR 2016",
    ),
    ("GeoRisk", "√((S_i/c)·Φ(ZRisk_i/c))", "Dinçer, Macdonald & Ounis, SIGIR 2016"),
)

RISK_COLUMNS = ("run", "mean", "URisk", "TRisk", "p_value", "wins", "losses", "ZRisk", "GeoRisk")


def _score_table(scores, name: str) -> np.ndarray:
    table = np.array(scores, dtype=np.float64)
    if table.ndim == 1:
        table = table[np.newaxis, :]
    if table.ndim != 2 or table.shape[1] == 0:
        raise DataError(
            f"{name}: expected a [n_runs, n_topics] table with topics, got {table.shape}"
        )
    if not np.all(np.isfinite(table)):
        raise DataError(f"{name}: scores must be finite numbers")
    check_score_magnitude(table, name)
    return table


def _runs_and_baseline(runs, baseline) -> tuple[np.ndarray, np.ndarray]:
    table = _score_table(runs, "runs")
    base = np.array(baseline, dtype=np.float64)
    if base.shape != (table.shape[1],):
        raise DataError(
            f"baseline: expected {table.shape[1]} per-topic scores, got shape {base.shape}"
        )
    if not np.all(np.isfinite(base)):
        raise DataError("baseline: scores must be finite numbers")
    check_score_magnitude(base, "baseline")
    return table, base


def urisk(runs, baseline, alpha: float = 0.0) -> np.ndarray:
    """URisk of every run (rows of ``runs`` [n_runs, n_topics]) against ``baseline`` [n_topics]:
    the mean risk value (1/c)·Σ_q RiskBased(r_q, b_q, α). Summed in topic order and divided by c,
    as ndeval sums its amean, so it equals ndeval's risk amean on the same topics."""
    table, base = _runs_and_baseline(runs, baseline)
    return row_means(risk_values(table, base, alpha))


def trisk(runs, baseline, alpha: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(TRisk, two-sided p-value) of every run against ``baseline`` (Dinçer et al. 2014):
    TRisk = URisk / (s/√c), s the sample standard deviation (c − 1) of the risk values;
    p = 2·P(T_{c−1} ≥ |TRisk|). With c < 2 both are NaN. Risk values equal within the
    tolerance (:data:`~divaeval.scores.EQUAL_TOLERANCE` times (1 + α) times the largest |score|
    of run and baseline) have no spread, so no evidence: p = 1, TRisk 0 when they are 0 and
    NaN otherwise, as the paired t test of ``compare`` does."""
    # scipy's Student t CDF (what scipy.stats.t.sf evaluates), without scipy.stats' import time;
    # lazily: --baseline on the main job needs no scipy
    from scipy.special import stdtr

    table, base = _runs_and_baseline(runs, baseline)
    n_topics = table.shape[1]
    if n_topics < 2:
        nan = np.full(table.shape[0], np.nan)
        return nan, nan.copy()
    values = risk_values(table, base, alpha)
    mean = row_means(values)
    sd = values.std(axis=1, ddof=1)
    # all values equal within the tolerance (or a spread that underflows): no variance
    scale = (1.0 + alpha) * np.maximum(np.abs(table).max(axis=1), np.abs(base).max())
    constant, zero = equal_within_tolerance(values, scale)
    degenerate = constant | (sd == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = mean / (sd / math.sqrt(n_topics))
    statistic = np.where(degenerate, np.where(zero | (mean == 0), 0.0, np.nan), statistic)
    p_values = np.where(
        degenerate, 1.0, np.minimum(1.0, 2.0 * stdtr(n_topics - 1, -np.abs(statistic)))
    )
    return statistic, p_values


def _standardised_residuals(scores) -> np.ndarray:
    """z_ij = (x_ij − e_ij)/√e_ij with e_ij = S_i·T_j/N (0 where e_ij = 0)."""
    table = _score_table(scores, "scores")
    if np.any(table < 0):
        raise DataError("ZRisk and GeoRisk need non-negative scores (they are chi-square counts)")
    run_totals = table.sum(axis=1, keepdims=True)
    topic_totals = table.sum(axis=0, keepdims=True)
    total = run_totals.sum()
    if total == 0:
        return np.zeros_like(table)
    expected = run_totals * topic_totals / total
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (table - expected) / np.sqrt(expected)
    return np.where(expected > 0, z, 0.0)


def zrisk(scores, alpha: float = 0.0) -> np.ndarray:
    """ZRisk of every run of ``scores`` [n_runs, n_topics] against all of them (Dinçer et al.
    2016): Σ_j z_ij with the negative z_ij weighted by (1 + α)."""
    z = _standardised_residuals(scores)
    return np.where(z < 0, (1.0 + alpha) * z, z).sum(axis=1)


def georisk(scores, alpha: float = 0.0) -> np.ndarray:
    """GeoRisk of every run (Dinçer et al. 2016): √((S_i/c)·Φ(ZRisk_i/c)), Φ the standard normal
    CDF, S_i/c the run's mean score over the c topics."""
    from scipy.special import ndtr  # lazily: --baseline on the main job needs no scipy

    table = _score_table(scores, "scores")
    n_topics = table.shape[1]
    mean = table.sum(axis=1) / n_topics
    return np.sqrt(mean * ndtr(zrisk(table, alpha) / n_topics))


def risk_table(
    scores,
    runs: Sequence[str],
    *,
    baseline: int | None = None,
    alpha: float = 0.0,
):
    """Every risk measure of every run of ``scores`` [n_runs, n_topics] as a DataFrame with the
    columns of :data:`RISK_COLUMNS`: the mean score, URisk, TRisk and its p-value, the number of
    topics won and lost against the baseline (row ``baseline`` of ``scores``), and ZRisk and
    GeoRisk against all rows (NaN when a score is negative: they are defined for non-negative
    scores only). Without a baseline the baseline columns are left out."""
    import pandas as pd  # lazily: --baseline on the main job needs no pandas

    table = _score_table(scores, "scores")
    if len(runs) != table.shape[0]:
        raise UsageError(f"{len(runs)} run names for {table.shape[0]} rows of scores")
    alpha, _ = check_risk_alpha(alpha)
    frame = {"run": list(runs), "mean": row_means(table)}
    if baseline is not None:
        base = table[baseline]
        statistic, p_values = trisk(table, base, alpha)
        frame.update(
            URisk=urisk(table, base, alpha),
            TRisk=statistic,
            p_value=p_values,
            wins=(table > base).sum(axis=1),
            losses=(table < base).sum(axis=1),
        )
    if np.any(table < 0):
        undefined = np.full(table.shape[0], np.nan)
        frame.update(ZRisk=undefined, GeoRisk=undefined.copy())
    else:
        frame.update(ZRisk=zrisk(table, alpha), GeoRisk=georisk(table, alpha))
    return pd.DataFrame(frame)


class ScoredRuns(Protocol):
    """What :func:`risk_frame` reads of an evaluation: its runs' scores and its measures."""

    @property
    def runs(self) -> Sequence[RunScores]: ...

    @property
    def measures(self) -> Sequence: ...


def risk_frame(evaluation: ScoredRuns, *, baseline: int | None = None, alpha: float | str = 0.0):
    """URisk, TRisk (with its p-value), wins, losses, ZRisk and GeoRisk of every run of
    ``evaluation`` on every measure (:func:`risk_table`), against run number ``baseline``
    (URisk, TRisk) and against all runs (ZRisk, GeoRisk). The evaluation must score every run
    on the same topics (``complete=True``). Columns: measure, then :data:`RISK_COLUMNS`."""
    import pandas as pd  # lazily: --baseline on the main job needs no pandas

    alpha, _ = check_risk_alpha(alpha)
    names = [run.name for run in evaluation.runs]
    topics = [list(run.topics) for run in evaluation.runs]
    if any(t != topics[0] for t in topics):
        raise UsageError("risk measures need every run scored on the same topics (complete=True)")
    frames = []
    for measure in evaluation.measures:
        scores = np.vstack([run.values[measure] for run in evaluation.runs])
        if not np.all(np.isfinite(scores)):
            raise DataError(f"{measure.name}: a run has a NaN value; risk measures need numbers")
        if np.any(scores < 0):
            warn(f"{measure.name} has negative values: ZRisk and GeoRisk are not defined (NaN)")
        frame = risk_table(scores, names, baseline=baseline, alpha=alpha)
        frame.insert(0, "measure", measure.name)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
