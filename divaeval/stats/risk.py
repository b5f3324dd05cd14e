"""Risk-sensitive evaluation on score tables: ndeval's ``-baseline`` values, URisk, TRisk, ZRisk
and GeoRisk.

A run is compared with a **baseline** topic by topic; losses weigh (1 + α) times as much as
gains (α ≥ 0, the risk sensitivity; α = 0 gives the plain difference).

- **ndeval's risk value** (ndeval 4.5, ``-baseline B -riskAlpha a``), per topic:
  ``RiskBased(r, b, a) = r − b`` if r ≥ b, else ``(1 + a)·(r − b)``
  (:func:`divaeval.aggregate.risk_values`), on ndeval's topic set with its zero filling and
  denominator (:func:`divaeval.aggregate.ndeval_topic_set`); ``divaeval --baseline`` prints it.
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

import numpy as np

from divaeval.aggregate import check_risk_alpha, risk_values
from divaeval.errors import DataError, UsageError, warn
from divaeval.evaluation import EvalSettings, Evaluation, run_evaluation, same_file

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
    return table, base


def urisk(runs, baseline, alpha: float = 0.0) -> np.ndarray:
    """URisk of every run (rows of ``runs`` [n_runs, n_topics]) against ``baseline`` [n_topics]:
    the mean risk value (1/c)·Σ_q RiskBased(r_q, b_q, α). Summed in topic order and divided by c,
    as ndeval sums its amean, so it equals ndeval's risk amean on the same topics."""
    table, base = _runs_and_baseline(runs, baseline)
    values = risk_values(table, base, alpha)
    return np.cumsum(values, axis=1)[:, -1] / table.shape[1]


def trisk(runs, baseline, alpha: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(TRisk, two-sided p-value) of every run against ``baseline`` (Dinçer et al. 2014):
    TRisk = URisk / (s/√c), s the sample standard deviation (c − 1) of the risk values;
    p = 2·P(T_{c−1} ≥ |TRisk|). With c < 2 both are NaN. Risk values without spread (s = 0)
    give TRisk = 0 and p = 1 when their mean is 0, else ±inf and p = 0, as the paired t test of
    ``compare`` does."""
    # scipy's Student t CDF (what scipy.stats.t.sf evaluates), without scipy.stats' import time
    from scipy.special import stdtr

    table, base = _runs_and_baseline(runs, baseline)
    n_topics = table.shape[1]
    if n_topics < 2:
        nan = np.full(table.shape[0], np.nan)
        return nan, nan.copy()
    values = risk_values(table, base, alpha)
    mean = np.cumsum(values, axis=1)[:, -1] / n_topics
    sd = values.std(axis=1, ddof=1)
    # all values equal (or a spread that underflows): no variance to studentise by
    degenerate = (values.max(axis=1) == values.min(axis=1)) | (sd == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = mean / (sd / math.sqrt(n_topics))
    statistic = np.where(degenerate, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), statistic)
    p_values = np.minimum(1.0, 2.0 * stdtr(n_topics - 1, -np.abs(statistic)))
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
    from scipy.special import ndtr

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
    import pandas as pd

    table = _score_table(scores, "scores")
    if len(runs) != table.shape[0]:
        raise UsageError(f"{len(runs)} run names for {table.shape[0]} rows of scores")
    alpha, _ = check_risk_alpha(alpha)
    frame = {"run": list(runs), "mean": np.cumsum(table, axis=1)[:, -1] / table.shape[1]}
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


def runs_with_baseline(run_paths: Sequence[str], baseline: str | None):
    """(run files, position of the baseline among them): the baseline file is added after the
    runs unless it is one of them already (then it is not counted twice by ZRisk)."""
    paths = list(run_paths)
    if baseline is None:
        return paths, None
    for position, path in enumerate(paths):
        if path == baseline or same_file(path, baseline):
            return paths, position
    return [*paths, baseline], len(paths)


def risk_frame(evaluation: Evaluation, *, baseline: int | None = None, alpha: float | str = 0.0):
    """URisk, TRisk (with its p-value), wins, losses, ZRisk and GeoRisk of every run of
    ``evaluation`` on every measure (:func:`risk_table`), against run number ``baseline``
    (URisk, TRisk) and against all runs (ZRisk, GeoRisk). The evaluation must score every run
    on the same topics (``complete=True``). Columns: measure, then :data:`RISK_COLUMNS`."""
    import pandas as pd

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


def risk(
    runs: str | Sequence[str],
    qrels: str,
    measures: Sequence[str] = (),
    *,
    baseline: str | None = None,
    alpha: float | str = 0.0,
    intents: str | None = None,
    topics: str | None = None,
    **settings,
):
    """Risk-sensitive comparison of run files: a DataFrame with one row per (measure, run) and
    the columns measure, run, mean, URisk, TRisk, p_value, wins, losses (against the
    ``baseline`` run file; left out without one), ZRisk and GeoRisk (against all runs and the
    baseline), with risk sensitivity ``alpha``. Every run is scored on every qrels topic (a
    topic missing from a run scores 0). ``settings`` are as for :func:`divaeval.evaluate`.

    >>> divaeval.risk(["a.txt", "b.txt"], "qrels.txt", ["alpha-nDCG@20"], baseline="base.txt",
    ...               alpha=1)  # doctest: +SKIP
    """
    paths, position = runs_with_baseline([runs] if isinstance(runs, str) else runs, baseline)
    settings = {**settings, "complete": True}
    result = run_evaluation(
        paths, qrels, measures, intents=intents, topics=topics, settings=EvalSettings(**settings)
    )
    return risk_frame(result, baseline=position, alpha=alpha)
