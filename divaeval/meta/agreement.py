"""Agreement of lexirecall with other metrics on real runs (Diaz, Ekstrand & Mitra, TORS 2025,
§6.2.1–6.2.2, Figures 8–10).

Every comparison is between two rankings of the same request: run a's and run b's ranking of
one topic. A metric μ compares them by the sign of μ(a) − μ(b) (equal values within
:func:`divaeval.meta.axioms.tolerance` tie); lexirecall compares them directly
(:mod:`divaeval.stats.preferences`). Over the unordered run pairs and the topics:

- **sign agreement** (Figure 8): among the comparisons where μ prefers one ranking,
  Σ I(π ≻_μ π′ ∧ π ≻_LR π′) / Σ I(π ≻_μ π′), the fraction where lexirecall prefers the same
  one (a lexirecall tie counts as disagreement);
- **Kendall's τ** (Figure 9) between the system orderings: the runs ordered by their mean μ,
  against lexirecall's per-topic preferences aggregated by MC4 (Dwork et al. 2001, as
  pref_eval's ``pref_aggregate.py``; :func:`divaeval.stats.rank_fusion.fuse_preferences`);
  τ-b of the means against the MC4 positions;
- **fraction of ties** (Figure 10): the comparisons μ ties, and lexirecall's own.

The same sign tensors serve the label-degradation analysis (:mod:`divaeval.meta.degradation`):
:func:`sign_agreement` of the degraded preferences against the complete-label ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from divaeval.errors import DataError, UsageError
from divaeval.judged import QrelsIndex, judge_run
from divaeval.meta.axioms import tolerance
from divaeval.meta.correlation import kendall_tau
from divaeval.metrics import compute_measures, parse_measures
from divaeval.settings import Settings
from divaeval.stats.preferences import preference_tensor, relevance_vectors
from divaeval.stats.rank_fusion import fuse_preferences
from divaeval.stats.significance import check_score_table

if TYPE_CHECKING:
    import pandas as pd

LEXIRECALL = "lexirecall"
#: the measures Diaz et al. compare lexirecall with (Figs. 8-13)
DIAZ_MEASURES = ("R@1000", "Rprec", "AP", "nDCG", "RR", "nDCG@10")


def score_signs(scores: np.ndarray) -> np.ndarray:
    """``[R, R, T]`` preferences of a metric's ``[R, T]`` score table: +1 where run a scores
    higher than run b on the topic, −1 lower, 0 equal (within the axioms' tolerance)."""
    table = np.asarray(scores, dtype=np.float64)
    if table.ndim != 2:
        raise DataError(f"a score table is runs × topics, got shape {table.shape}")
    a, b = table[:, None, :], table[None, :, :]
    return np.where(np.abs(a - b) <= tolerance(a, b), 0.0, np.sign(a - b))


def _upper(signs: np.ndarray) -> np.ndarray:
    """The comparisons of the unordered pairs a < b: ``[pairs, T]``."""
    signs = np.asarray(signs, dtype=np.float64)
    if signs.ndim != 3 or signs.shape[0] != signs.shape[1]:
        raise DataError(f"a preference tensor is runs × runs × topics, got shape {signs.shape}")
    a, b = np.triu_indices(signs.shape[0], k=1)
    return np.sign(signs[a, b])


def tie_fraction(signs: np.ndarray) -> float:
    """The fraction of comparisons (unordered run pairs × topics) that are tied; NaN without
    any comparison."""
    upper = _upper(signs)
    return float(np.mean(upper == 0)) if upper.size else float("nan")


def sign_agreement(signs: np.ndarray, reference: np.ndarray) -> float:
    """Σ I(signs prefers ∧ reference prefers the same) / Σ I(signs prefers), over the
    unordered run pairs and topics; NaN when ``signs`` prefers nothing."""
    first, second = _upper(signs), _upper(reference)
    if first.shape != second.shape:
        raise DataError(f"preference tensors differ in shape ({first.shape} vs {second.shape})")
    decided = first != 0
    if not decided.any():
        return float("nan")
    return float(np.mean(first[decided] == second[decided]))


def mc4_positions(preferences: np.ndarray, runs: Sequence[str]) -> np.ndarray:
    """``[R]`` scores of the runs' MC4 order (the first run highest): R − position."""
    result = fuse_preferences(preferences, list(runs), "mc4")
    position = {run: k for k, run in enumerate(result.ranking)}
    return np.array([len(runs) - position[run] for run in runs], dtype=np.float64)


@dataclass(frozen=True)
class MetricAgreement:
    """Figures 8–10 for one metric: its sign agreement with lexirecall, Kendall's τ between
    its mean ordering and lexirecall's MC4 ordering, and its fraction of tied comparisons."""

    measure: str
    sign_agreement: float
    tau: float
    ties: float
    comparisons: int


@dataclass(frozen=True)
class LexirecallAgreement:
    """:func:`lexirecall_agreement` over one set of runs."""

    runs: list[str]
    n_topics: int
    lexirecall_ties: float
    metrics: list[MetricAgreement]

    def frame(self) -> pd.DataFrame:
        """One row per metric (measure, sign_agreement, tau, ties, comparisons), then a
        ``lexirecall`` row with its own fraction of ties."""
        import pandas as pd

        rows = [(m.measure, m.sign_agreement, m.tau, m.ties, m.comparisons) for m in self.metrics]
        comparisons = self.metrics[0].comparisons if self.metrics else 0
        rows.append((LEXIRECALL, 1.0, 1.0, self.lexirecall_ties, comparisons))
        return pd.DataFrame(
            rows, columns=["measure", "sign_agreement", "tau", "ties", "comparisons"]
        )


def lexirecall_agreement(
    scores: Mapping[str, np.ndarray], lexirecall: np.ndarray, runs: Sequence[str]
) -> LexirecallAgreement:
    """Figures 8–10 from every metric's ``[R, T]`` score table and lexirecall's ``[R, R, T]``
    preference tensor over the same runs and topics."""
    names = [str(r) for r in runs]
    if len(names) < 2:
        raise UsageError("agreement with lexirecall needs at least two runs")
    if not scores:
        raise UsageError("agreement with lexirecall needs at least one metric")
    reference = np.asarray(lexirecall, dtype=np.float64)
    if reference.shape[:2] != (len(names), len(names)):
        raise DataError(
            f"the lexirecall tensor is {reference.shape}, expected {len(names)} runs × runs"
        )
    order = mc4_positions(reference, names)
    metrics = []
    for measure, table in scores.items():
        checked = check_score_table(table, names, min_runs=2, min_topics=1, name=measure)
        if checked.shape[1] != reference.shape[2]:
            raise DataError(
                f"{measure}: {checked.shape[1]} topics, lexirecall has {reference.shape[2]}"
            )
        signs = score_signs(checked)
        metrics.append(
            MetricAgreement(
                measure=measure,
                sign_agreement=sign_agreement(signs, reference),
                tau=kendall_tau(checked.mean(axis=1), order),
                ties=tie_fraction(signs),
                comparisons=int(_upper(signs).size),
            )
        )
    return LexirecallAgreement(names, int(reference.shape[2]), tie_fraction(reference), metrics)


def judged_tables(
    runs: Sequence,
    index: QrelsIndex,
    measures: Sequence[str],
    settings: Settings,
    *,
    rel_level: int = 1,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Every measure's ``[R, T]`` score table of the (read) runs on the qrels topics with a
    relevant document (a topic a run lacks is its empty ranking, as ``-c``), and lexirecall's
    ``[R, R, T]`` preferences on the same topics; judged with ``settings`` (order, depth,
    dedupe)."""
    complete = dataclasses.replace(settings, complete=True, rel_level=rel_level)
    keep = np.flatnonzero(index.material_all.relevant_documents(rel_level) > 0)
    if not len(keep):
        raise DataError("no qrels topic has a relevant document", file=index.qrels.path)
    parsed = parse_measures(list(measures))
    rows: dict[str, list[np.ndarray]] = {m.name: [] for m in parsed}
    for run in runs:
        values = compute_measures(judge_run(run, index, complete), parsed)
        for measure in parsed:
            rows[measure.name].append(np.asarray(values[measure], dtype=np.float64)[keep])
    vectors = relevance_vectors(runs, index, complete, rel_level=rel_level)
    return {name: np.stack(r) for name, r in rows.items()}, preference_tensor(vectors, LEXIRECALL)


def runs_lexirecall_agreement(
    runs: Sequence,
    index: QrelsIndex,
    measures: Sequence[str],
    settings: Settings,
    *,
    rel_level: int = 1,
) -> LexirecallAgreement:
    """:func:`lexirecall_agreement` of read runs on a qrels index (Figures 8–10)."""
    if len(runs) < 2:
        raise UsageError("agreement with lexirecall needs at least two runs")
    tables, lexirecall = judged_tables(runs, index, measures, settings, rel_level=rel_level)
    return lexirecall_agreement(tables, lexirecall, [run.name for run in runs])
