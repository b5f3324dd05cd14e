"""Lexicographic preferences between runs: lexirecall, lexiprecision and rrlexiprecision,
exactly as the authors' tool pref_eval computes them (diazf/pref_eval at 28d7bd3; Diaz,
Ekstrand & Mitra, *Recall, Robustness, and Lexicographic Evaluation*, TORS 2025, §4-§5 and
"Beyond Recall").

These are **preferences**, not scores: for two runs a, b and one topic the value is +1 when a is
preferred, −1 when b is, 0 on a tie (rrlexiprecision: a real difference of reciprocal ranks).

Relevance and ranking (the paper's §4 and pref_eval):

- a document is relevant iff its largest grade over its subtopic lines is ≥ ``rel_level``
  (default 1, i.e. > 0 for integer grades: pref_eval's rule; ``rel_level = G`` is pref_eval's
  ``-b G``); subtopics are collapsed;
- topics with no relevant document are dropped (no values, not in the mean);
- runs are ordered by divaeval's ``order`` (default ``score`` = pref_eval's score descending, ties
  by docno descending) and optionally truncated (``depth`` = pref_eval's ``--topk``);
- per (run, topic), the **relevance vector** p_1 < … < p_m holds the 1-based ranks of the
  retrieved relevant documents followed by +∞ for each unretrieved one (pessimistic imputation,
  unretrieved documents are worse than any rank and tie with each other); a qrels topic
  missing from a run is all +∞; run-only topics are ignored.

Comparison rules (the paper's §4), for vectors x (run a) and y (run b):

- lexirecall: at the **last** index where x and y differ, the smaller rank wins (equivalently:
  more retrieved relevant documents wins; otherwise compare from the worst retrieved rank
  upward); identical vectors tie;
- lexiprecision: at the **first** index where they differ, the smaller rank wins;
- rrlexiprecision: at that first index, 1/x_i − 1/y_i with 1/∞ = 0.

Values are exact: a sign measure's mean is (wins − losses) / T, one division of integers;
rrlexiprecision's per-topic value is (y_i − x_i) / (x_i·y_i) and its mean the sum of those
fractions over the topics, divided by T, each rounded once to the nearest double (−0.05 where
1/5 − 1/4 gives −0.04999999999999999, 0 where ten ±1/10 added in turn give
−2.7755575615628914e-17). ``compat="pref_eval"`` computes them as pref_eval does, bit for bit:
1/x_i − 1/y_i, and the mean Σ_t (v_t / T) added sequentially in the qrels file's order of
first appearance (e.g. −0.8400000000000001 where the exact mean is −0.84). Duplicated
documents in a run: pref_eval crashes
on a duplicate relevant document and lets duplicate non-relevant ones occupy ranks; divaeval
rejects any duplicate unless ``dedupe="first"`` (keep the best-ranked copy, with a warning).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from divaeval.errors import DataError, UsageError, check_rel_level
from divaeval.evaluation import _run_label, load_inputs
from divaeval.judged import judge_run
from divaeval.settings import PREFERENCE_COMPATS, Dedupe, Order, Settings
from divaeval.stats.corrections import correct_p_values
from divaeval.stats.rank_fusion import fuse_preferences
from divaeval.stats.significance import run_pair_indices, sign_test

LEXI_MEASURES: tuple[str, ...] = ("lexirecall", "lexiprecision", "rrlexiprecision")
"""The preference measures, in pref_eval's output order."""

SIGN_MEASURES: frozenset[str] = frozenset({"lexirecall", "lexiprecision"})

_ALIASES = {
    "lexirecall": "lexirecall",
    "lr": "lexirecall",
    "sgnlr": "lexirecall",
    "lexiprecision": "lexiprecision",
    "sgnlp": "lexiprecision",
    "lp": "lexiprecision",
    "rrlexiprecision": "rrlexiprecision",
    "rrlp": "rrlexiprecision",
}


def parse_preference_measures(names: Sequence[str]) -> list[str]:
    """Canonical measure names for ``names`` (pref_eval's aliases LR, sgnLR, sgnLP, rrLP are
    accepted; duplicates dropped; output in :data:`LEXI_MEASURES` order). Empty = all three."""
    if not names:
        return list(LEXI_MEASURES)
    chosen = set()
    for name in names:
        for piece in str(name).split(","):
            key = piece.strip().lower().replace("_", "").replace("-", "")
            if not key:
                continue
            if key not in _ALIASES:
                raise UsageError(
                    f"unknown preference measure {piece.strip()!r}; choose from "
                    f"{', '.join(LEXI_MEASURES)} (aliases LR, sgnLR, sgnLP, rrLP)"
                )
            chosen.add(_ALIASES[key])
    return [m for m in LEXI_MEASURES if m in chosen]


# ---------------------------------------------------------------------------------------------
# Relevance vectors
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RelevanceVectors:
    """Sorted relevant ranks of every run on every evaluated topic.

    ``ranks[R, T, M]``: 1-based ranks of the retrieved relevant documents, ascending, then
    +∞ for unretrieved relevant documents (and as padding beyond the topic's m, identical for
    every run, so it never decides a comparison). ``retrieved[R, T]``: how many are finite.
    ``n_relevant[T]``: m of each topic. ``topics`` are the topics with m > 0, in divaeval's
    sorted order; ``qrels_order[T]`` is each topic's position in the qrels file (first
    appearance), the order pref_eval sums the summary in.
    """

    runs: list[str]
    topics: np.ndarray
    ranks: np.ndarray
    retrieved: np.ndarray
    n_relevant: np.ndarray
    qrels_order: np.ndarray


def relevance_ranks(jr, rel_level: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(ranks[T, M], retrieved[T]) of one :class:`~divaeval.judged.JudgedRankings` (all qrels
    topics, e.g. judged with ``complete=True``); M = the largest number of relevant documents
    of a topic. A document is relevant iff its largest grade over subtopics is ≥ ``rel_level``
    (pref_eval's relevance vectors). Vectorised: the k-th relevant document of a topic goes to
    column k − 1 via a running count."""
    m = jr.material.relevant_documents(rel_level)
    width = max(int(m.max(initial=0)), 1)
    n_topics = jr.n_topics
    ranks = np.full((n_topics, width), np.inf)
    if jr.depth:
        relevant = (jr.grades.max(axis=2) >= rel_level) & jr.rank_mask
        slot = np.cumsum(relevant, axis=1) - 1
        t_idx, d_idx = np.nonzero(relevant)
        if len(t_idx) and np.any(slot[t_idx, d_idx] >= m[t_idx]):
            # Cannot happen with distinct docnos (every relevant document is counted in m).
            raise DataError(f"run {jr.run_name}: more relevant documents ranked than judged")
        ranks[t_idx, slot[t_idx, d_idx]] = d_idx + 1.0
        retrieved = relevant.sum(axis=1)
    else:
        retrieved = np.zeros(n_topics, dtype=np.int64)
    return ranks, retrieved.astype(np.int64)


def relevance_vectors(runs: Sequence, index, settings=None, rel_level: int = 1):
    """Judge every run against ``index`` (a :class:`~divaeval.judged.QrelsIndex`) and build
    their :class:`RelevanceVectors` over the qrels topics with at least one relevant document.

    ``settings`` supplies order, depth and dedupe (``complete`` is forced on: a qrels topic
    missing from a run is evaluated as an empty ranking, i.e. all relevant docs unretrieved).
    """
    import pandas as pd  # lazily: resampling workers import divaeval.stats, not pandas

    check_rel_level(rel_level)  # relevant iff the document's largest grade >= the level
    settings = dataclasses.replace(settings or Settings(), complete=True, rel_level=rel_level)
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two runs share the name(s) {', '.join(dupes)}; rename one")
    m = index.material_all.relevant_documents(rel_level)
    keep = np.flatnonzero(m > 0)
    if len(keep) == 0:
        raise DataError(
            f"no qrels topic has a document with grade >= {rel_level}", file=index.qrels.path
        )
    per_run_ranks, per_run_retrieved = [], []
    for run in runs:
        jr = judge_run(run, index, settings)
        ranks, retrieved = relevance_ranks(jr, rel_level)
        per_run_ranks.append(ranks[keep])
        per_run_retrieved.append(retrieved[keep])
    width = max(int(m[keep].max()), 1)
    first_seen = pd.Index(pd.unique(index.qrels.frame["topic"].astype(str)))
    topics = index.topic_index.to_numpy()[keep]
    qrels_order = first_seen.get_indexer(topics.astype(str))
    return RelevanceVectors(
        runs=names,
        topics=topics,
        ranks=np.stack([r[:, :width] for r in per_run_ranks]),
        retrieved=np.stack(per_run_retrieved),
        n_relevant=m[keep].astype(np.int64),
        qrels_order=qrels_order,
    )


# ---------------------------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------------------------


def deciding_ranks(
    x: np.ndarray, y: np.ndarray, measure: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(any difference, x_i, y_i) at the index that decides ``measure`` between relevance
    vectors x and y (padded with +∞, same length) along the last axis, broadcasting over
    leading axes: the last differing index for lexirecall, the first for lexiprecision and
    rrlexiprecision."""
    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    differ = x != y  # inf == inf: tied unretrieved documents never differ
    width = x.shape[-1]
    any_diff = differ.any(axis=-1)
    if measure == "lexirecall":
        index = width - 1 - np.argmax(differ[..., ::-1], axis=-1)
    elif measure in ("lexiprecision", "rrlexiprecision"):
        index = np.argmax(differ, axis=-1)
    else:
        raise UsageError(f"unknown preference measure {measure!r}")
    xi = np.take_along_axis(x, index[..., None], axis=-1)[..., 0]
    yi = np.take_along_axis(y, index[..., None], axis=-1)[..., 0]
    return any_diff, xi, yi


def compare_vectors(
    x: np.ndarray, y: np.ndarray, measure: str, compat: str | None = None
) -> np.ndarray:
    """Preference of x over y along the last axis (relevance vectors padded with +∞, same
    length), broadcasting over leading axes.

    lexirecall: sign at the last differing index; lexiprecision: sign at the first differing
    index; rrlexiprecision: 1/x_i − 1/y_i at the first differing index (1/∞ = 0), computed as
    (y_i − x_i) / (x_i·y_i), one rounding (``compat="pref_eval"``: as pref_eval subtracts the
    two reciprocals). Identical vectors give 0. Signs are returned as floats (+1.0, −1.0,
    0.0)."""
    any_diff, xi, yi = deciding_ranks(x, y, measure)
    if measure != "rrlexiprecision":
        return np.where(any_diff, np.where(xi < yi, 1.0, -1.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if compat == "pref_eval":
            value = 1.0 / xi - 1.0 / yi  # 1/inf = 0.0, as pref_eval's 1/None = 0
        else:  # ranks are integers: y − x and x·y are exact, the division rounds once
            value = np.where(
                np.isinf(yi), 1.0 / xi, np.where(np.isinf(xi), -1.0 / yi, (yi - xi) / (xi * yi))
            )
    return np.where(any_diff, value, 0.0)


def preference_tensor(
    vectors: RelevanceVectors, measure: str, compat: str | None = None
) -> np.ndarray:
    """Preference tensor ``P[R, R, T]``: ``P[a, b, t]`` = preference of run a over run b on
    topic t (antisymmetric, zero diagonal). Loops over run a only; each step compares run a
    with every run at once."""
    ranks = vectors.ranks
    n_runs, n_topics = ranks.shape[:2]
    out = np.zeros((n_runs, n_runs, n_topics))
    for a in range(n_runs):
        out[a] = compare_vectors(ranks[a][None, :, :], ranks, measure, compat)
    return out


def exact_reciprocal_means(vectors: RelevanceVectors) -> np.ndarray:
    """``[R, R]`` rrlexiprecision means, exact: Σ_t (1/x_t − 1/y_t) / T as a fraction (the
    reciprocals of equal ranks gathered first), rounded once to the nearest double."""
    ranks = vectors.ranks
    n_runs, n_topics = ranks.shape[:2]
    means = np.zeros((n_runs, n_runs))
    for a, b in run_pair_indices(n_runs):
        any_diff, xi, yi = deciding_ranks(ranks[a], ranks[b], "rrlexiprecision")
        plus, minus = xi[any_diff], yi[any_diff]
        counts = dict.fromkeys(np.unique(np.concatenate([plus, minus])).tolist(), 0)
        for rank in plus.tolist():
            counts[rank] += 1
        for rank in minus.tolist():
            counts[rank] -= 1
        total = sum(
            (Fraction(count, int(rank)) for rank, count in counts.items() if rank != np.inf),
            Fraction(0),
        )
        means[a, b] = float(total / n_topics)
        means[b, a] = float(-total / n_topics)  # 0.0, not -0.0, when they tie
    return means


@dataclass(frozen=True)
class Preferences:
    """Every measure's preference tensor ``[R, R, T]`` over the evaluated topics."""

    runs: list[str]
    topics: np.ndarray
    measures: list[str]
    tensors: dict[str, np.ndarray]
    vectors: RelevanceVectors
    #: ``"pref_eval"``: values and means computed as pref_eval computes them
    compat: str | None = None

    def mean(self, measure: str) -> np.ndarray:
        """``[R, R]`` summary over the T topics: exact, (wins − losses) / T for a sign measure
        and the exact mean of the fractions for rrlexiprecision; with ``compat="pref_eval"``
        Σ_t (P[a, b, t] / T), added sequentially in qrels-file order (pref_eval's
        accumulation, bit for bit)."""
        tensor = self.tensors[measure]
        if self.compat == "pref_eval":
            order = np.argsort(self.vectors.qrels_order, kind="stable")
            tensor = tensor[:, :, order]
            return np.cumsum(tensor / tensor.shape[2], axis=2)[:, :, -1]
        if measure in SIGN_MEASURES:
            net = (tensor > 0).sum(axis=2) - (tensor < 0).sum(axis=2)
            return net / tensor.shape[2]
        return exact_reciprocal_means(self.vectors)

    def long_frame(self, *, per_topic: bool = True, summary: bool = True):
        """Long table: run_a, run_b, topic, measure, value for every pair (a, b) with a before
        b in run order; per-topic rows (topics sorted; within a topic, pairs in run order, as
        pref_eval prints them), then ``topic = "all"`` rows with the mean per pair. Sign
        measures' per-topic values are ints (pref_eval prints 1, -1, 0); means and
        rrlexiprecision are floats."""
        import pandas as pd  # lazily: resampling workers import divaeval.stats, not pandas

        pairs = run_pair_indices(len(self.runs))
        columns: dict[str, list] = {
            "run_a": [],
            "run_b": [],
            "topic": [],
            "measure": [],
            "value": [],
        }

        def add(a: int, b: int, topic, measure: str, value) -> None:
            columns["run_a"].append(self.runs[a])
            columns["run_b"].append(self.runs[b])
            columns["topic"].append(topic)
            columns["measure"].append(measure)
            columns["value"].append(value)

        if per_topic:
            for t, topic in enumerate(self.topics):
                for a, b in pairs:
                    for measure in self.measures:
                        value = float(self.tensors[measure][a, b, t])
                        add(
                            a,
                            b,
                            str(topic),
                            measure,
                            int(value) if measure in SIGN_MEASURES else value,
                        )
        if summary:
            means = {measure: self.mean(measure) for measure in self.measures}
            for a, b in pairs:
                for measure in self.measures:
                    add(a, b, "all", measure, float(means[measure][a, b]))
        return pd.DataFrame(columns, dtype=object)


def compute_preferences(
    vectors: RelevanceVectors,
    measures: Sequence[str] = LEXI_MEASURES,
    compat: str | None = None,
):
    """:class:`Preferences` of every measure from relevance vectors (``compat="pref_eval"``:
    its arithmetic, bit for bit)."""
    chosen = parse_preference_measures(list(measures))
    return Preferences(
        runs=list(vectors.runs),
        topics=vectors.topics,
        measures=chosen,
        tensors={m: preference_tensor(vectors, m, compat) for m in chosen},
        vectors=vectors,
        compat=compat,
    )


def preferences(
    run_paths: Sequence[str],
    qrels_path: str,
    measures: Sequence[str] = LEXI_MEASURES,
    *,
    rel_level: int = 1,
    depth: int | None = None,
    order: Order = "score",
    dedupe: Dedupe = "error",
    run_names: str = "tag",
    compat: str | None = None,
) -> Preferences:
    """Read runs and qrels and compute their lexicographic preferences (the API behind
    ``divaeval prefer``). ``run_names``: ``tag`` (divaeval's rule: the run tag, file names when
    tags are shared) or ``file`` (pref_eval's rule: the file name without ``.txt``/``.gz``).
    ``compat="pref_eval"``: rrlexiprecision and the means computed as pref_eval does, to the
    last bit (default: exact)."""
    if len(run_paths) < 2:
        raise UsageError("need at least two runs to compare")
    if compat not in (None, *PREFERENCE_COMPATS):
        raise UsageError(
            f"compat must be {' or '.join(PREFERENCE_COMPATS)} or None, not {compat!r}"
        )
    settings = Settings(order=order, depth=depth, dedupe=dedupe, rel_level=rel_level)
    runs, index = load_inputs(list(run_paths), qrels_path, settings=settings)
    name_runs(runs, run_names)
    vectors = relevance_vectors(runs, index, settings, rel_level=rel_level)
    return compute_preferences(vectors, measures, compat)


def name_runs(runs: Sequence, how: str) -> None:
    """Rename runs by ``how`` = tag (keep divaeval's names) | file (file name without
    ``.txt``/``.gz``, as pref_eval's run ids); a name collision is an error
    (as pref_eval's run ids would collide)."""
    if how == "file":
        for run in runs:
            run.name = _run_label(run.path)
    elif how != "tag":
        raise UsageError(f"unknown run naming {how!r} (tag or file)")
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two runs would be named {', '.join(dupes)}; use distinct files or tags")


# ---------------------------------------------------------------------------------------------
# Pair statistics and aggregation
# ---------------------------------------------------------------------------------------------


def pair_table(prefs: Preferences, *, correction: str = "holm", alpha: float = 0.05):
    """Per measure and pair (a before b): wins (topics preferring a), ties, losses, the mean
    preference, the two-sided sign test p-value (ties dropped, as Diaz et al. test lexirecall)
    and its adjusted value within the measure's family of pairs, and ``significant``
    (adjusted p < α)."""
    import pandas as pd  # lazily: resampling workers import divaeval.stats, not pandas

    pairs = run_pair_indices(len(prefs.runs))
    frames = []
    for measure in prefs.measures:
        tensor = prefs.tensors[measure]
        upper = tensor[pairs[:, 0], pairs[:, 1]] if len(pairs) else np.zeros((0, 0))
        wins = (upper > 0).sum(axis=1)
        losses = (upper < 0).sum(axis=1)
        ties = (upper == 0).sum(axis=1)
        p_values = np.array(
            [
                sign_test(int(w), int(v), int(t)).p_value
                for w, v, t in zip(wins, losses, ties, strict=True)
            ]
        )
        corrected = correct_p_values(p_values, correction, alpha) if len(p_values) else None
        means = prefs.mean(measure)
        frames.append(
            pd.DataFrame(
                {
                    "measure": measure,
                    "run_a": [prefs.runs[a] for a in pairs[:, 0]],
                    "run_b": [prefs.runs[b] for b in pairs[:, 1]],
                    "wins": wins.astype(np.int64),
                    "ties": ties.astype(np.int64),
                    "losses": losses.astype(np.int64),
                    "mean": means[pairs[:, 0], pairs[:, 1]],
                    "p_value": p_values,
                    "p_adjusted": corrected.adjusted if corrected is not None else p_values,
                    "significant": corrected.reject if corrected is not None else p_values < 0,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def ranking_table(prefs: Preferences, methods: Sequence[str] = ("mc4", "borda")):
    """Runs ranked per measure and aggregation method (pref_eval's ``pref_aggregate.py``:
    per-topic net-score rankings, then MC4 or Borda): columns measure,
    method, rank (1 = best), run, value (MC4's final mass or Borda points)."""
    import pandas as pd  # lazily: resampling workers import divaeval.stats, not pandas

    rows = []
    for measure in prefs.measures:
        for method in methods:
            result = fuse_preferences(prefs.tensors[measure], prefs.runs, method)
            for position, run in enumerate(result.ranking, start=1):
                rows.append((measure, method, position, run, result.values[run]))
    return pd.DataFrame(rows, columns=["measure", "method", "rank", "run", "value"])
