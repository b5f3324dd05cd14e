"""Collection analysis: diversity difficulty and subtopic miss rate.

Golbus, Aslam, Clarke, "Increasing evaluation sensitivity to diversity", Information Retrieval
16(4), 2013, Sections 4 and 5. Everything here depends on the qrels only, never on a run.

Definitions (per topic; ``R_t`` = relevant documents of subtopic t, ``R_T`` = documents relevant
to at least one subtopic, ``M`` = number of subtopics, ``xi`` = minimum cover size):

* relevance: a line is relevant iff ``grade >= rel_level`` (default 1, so 0 and TREC's -2 spam
  label are not relevant; Golbus footnote 3).
* subtopics: only subtopics with at least one relevant document are subtopics (the set A,
  Golbus Section 4.2 "for TREC collections only"). Subtopics that appear in the qrels with no
  relevant document are ignored; they count neither in ``M`` nor in ``d_max``. A topic with no
  relevant document at all keeps a row with ``M = 0``, ``xi = 0`` and NaN for d_max, d_mean, dd.
* ``d_max`` = maximum S-recall of any document set = 1 under that convention; ``M / L`` when the
  caller passes the full list of ``L`` listed subtopics (``listed_subtopics``, e.g. from the
  topics XML).
* ``xi`` = minimum number of documents covering every subtopic. ``cover="exact"`` (default)
  computes the true minimum set cover (breadth-first search over the union masks of the
  topic's distinct coverage patterns); ``cover="greedy"`` is the paper's greedy approximation
  with the tie-break "most newly covered subtopics, then the largest docno" (the order ndeval
  uses for its ideal list). Greedy results depend on the tie-break: TREC 2010 topics 60, 68 and
  99 get 3 or 4, 2 or 3, 3 or 4 documents depending on it; the minimum is 3, 2, 3. Only the
  minimum reproduces Table 2, hence the default. The exact search raises a UsageError (advising
  ``cover="greedy"``) beyond 62 subtopics per topic or ``EXACT_COVER_MAX_WORK`` search steps;
  TREC and NTCIR topics (at most about 10 subtopics) take milliseconds.
* ``d_mean`` (Eq. 1) = ``1 - (1/M) * sum_t (1 - R_t/R_T)^e``, expected S-recall of ``e`` random
  relevant documents drawn with replacement; ``e = xi`` by default (the paper's text), ``e = xi
  + 1`` with ``dd_exponent="xi+1"`` (the "golbus2013" setting that reproduces Tables 1 and 2).
  ``sampling="without_replacement"`` uses the exact hypergeometric value
  ``1 - (1/M) * sum_t C(R_T - R_t, e) / C(R_T, e)`` instead.
* ``dd`` (Eq. 2) = harmonic mean of d_max and d_mean.
* ``smr_t^k`` (Eq. 3) = ``(1 - R_t/R_T)^k / sum_u (1 - R_u/R_T)^k`` and ``smr_t = smr_t^xi``
  (Eq. 4; always exponent xi, as in Table 3). If every relevant document is relevant to every
  subtopic the denominator is 0: the smr are then uniform (1/M) and a warning is issued.

Reproduction of Golbus et al.'s published numbers from the TREC Web 2010 qrels
(``10.diversity-qrels.final.txt``) and 2011 qrels (``qrels.diversity.txt``), all checked in
``tests/test_collection.py`` on fixture copies of those files:

* Table 1, per-subtopic counts and "# Rel Docs" (R_T): reproduced exactly for all six topics
  (143, 86, 125, 73, 60, 57). The paper lists the subtopics by decreasing R_t, not by id (topic
  86's subtopics 3, 2, 4 have 78, 62, 60 relevant documents).
* Table 1, dd: reproduced for all six topics to the printed 3 decimals with
  ``dd_exponent="xi+1"`` and the exact minimum cover (143: 0.993559, 86: 0.977183, 125: 0.735467,
  73: 0.730267, 60: 0.481027, 57: 0.448896), and for none with the default exponent xi (which
  follows Eq. 1 and the text, "Expected S-Recall@xi"; e.g. 0.958 for topic 143).
* Table 2: with ``dd_exponent="xi+1"`` the minima (2010: 0.449, topic 57; 2011: 0.643, topic
  105) and means (0.727, 0.809) are reproduced. The maxima are not: divaeval gives 0.977 for
  2010 (topic 86) and 0.994 for 2011 (topic 143), the published table has them swapped between
  the years (Table 1 itself shows 0.994 for 2011's topic 143). The means need the minimum cover:
  a greedy cover with docno-descending ties gives topic 99 xi = 4 and a 2010 mean of 0.7285.
* Table 3: all 52 printed smr values (topics 60, 73, 86 at ranks xi, 5, 10, 20) are reproduced
  with exponent xi (the default), e.g. topic 86 (xi = 1): 4/46 = 0.087, 20/46 = 0.435,
  22/46 = 0.478 for its subtopics with 78, 62 and 60 relevant documents (out of R_T = 82).
  The dd column of Table 3 repeats Table 1.
* Figure 2 (histogram of dd) is not checked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Literal, cast

import numpy as np
import pandas as pd

from divaeval.errors import DD_EXPONENTS as ERROR_DD_EXPONENTS
from divaeval.errors import DataError, UsageError, check_rel_level, warn
from divaeval.errors import check_dd_exponent as checked_dd_exponent
from divaeval.topics import sort_topics

CoverMethod = Literal["exact", "greedy"]
DdExponent = Literal["xi", "xi+1"]
Sampling = Literal["with_replacement", "without_replacement"]

QRELS_COLUMNS = ("topic", "subtopic", "docno", "grade")
COVER_METHODS = ("exact", "greedy")
DD_EXPONENTS = ERROR_DD_EXPONENTS
SAMPLINGS = ("with_replacement", "without_replacement")

#: Largest number of subtopics of one topic for ``cover="exact"`` (masks are int64).
EXACT_COVER_MAX_SUBTOPICS = 62
#: Work limit (states x patterns per search level) for ``cover="exact"``.
EXACT_COVER_MAX_WORK = 5_000_000
_DENSE_PRUNE_MAX_SUBTOPICS = 24

TABLE_COLUMNS = (
    "topic",
    "n_rel_docs",
    "n_subtopics",
    "subtopics",
    "subtopic_counts",
    "xi",
    "d_max",
    "d_mean",
    "dd",
    "smr",
)


# --------------------------------------------------------------------------------------------
# validation and ordering


def _check_rel_level(rel_level: int) -> None:
    check_rel_level(rel_level)


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UsageError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def check_dd_exponent(value: str) -> DdExponent:
    """The exponent of Eq. 1 (:func:`divaeval.errors.check_dd_exponent`), typed."""
    return cast("DdExponent", checked_dd_exponent(value))


def _check_rank(name: str, k: int | None) -> None:
    if k is None:
        return
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise UsageError(f"{name} must be a positive integer, got {k!r}")


def _check_qrels(qrels: pd.DataFrame) -> None:
    if not isinstance(qrels, pd.DataFrame):
        raise DataError(f"qrels must be a pandas DataFrame, got {type(qrels).__name__}")
    missing = [c for c in QRELS_COLUMNS if c not in qrels.columns]
    if missing:
        raise DataError(f"qrels table lacks column(s): {', '.join(missing)}")
    if not pd.api.types.is_integer_dtype(qrels["grade"].dtype):
        raise DataError(f"qrels grade column must be integer, got dtype {qrels['grade'].dtype}")


def _id_positions(ids: pd.Series) -> np.ndarray:
    """Position of each id in :func:`divaeval.topics.sort_topics` order (numeric if integers)."""
    ordered = sort_topics(pd.unique(ids))
    return ids.map({t: i for i, t in enumerate(ordered)}).to_numpy(dtype=np.int64)


# --------------------------------------------------------------------------------------------
# formulas (Eq. 1-4), vectorised over subtopics


def _log_miss(r_sub: np.ndarray, r_total: np.ndarray, k: np.ndarray, sampling: str) -> np.ndarray:
    """log P(k random relevant documents miss subtopic t), elementwise (Eq. 1 and 3 terms).

    ``with_replacement``: k * log((R_T - R_t) / R_T). ``without_replacement``:
    log(C(R_T - R_t, k) / C(R_T, k)) = sum_{j<k} log((R_T - R_t - j) / (R_T - j)), k capped at R_T.
    -inf where the miss probability is 0.
    """
    r_sub = np.asarray(r_sub, dtype=np.float64)
    r_total = np.asarray(r_total, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    r_sub, r_total, k = np.broadcast_arrays(r_sub, r_total, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        if sampling == "with_replacement":
            out = k * np.log((r_total - r_sub) / r_total)
            return np.where(k == 0, 0.0, out)
        k_eff = np.minimum(k, r_total)
        kmax = int(k_eff.max()) if k_eff.size else 0
        j = np.arange(kmax, dtype=np.float64)[None, :]
        active = j < k_eff[..., None]
        num = np.clip(r_total[..., None] - r_sub[..., None] - j, 0.0, None)
        den = np.where(active, r_total[..., None] - j, 1.0)
        terms = np.where(active, np.log(np.where(active, num, 1.0) / den), 0.0)
        return terms.sum(axis=-1)


def diversity_difficulty(
    d_max: float | np.ndarray, d_mean: float | np.ndarray
) -> float | np.ndarray:
    """dd (Eq. 2) = 2 d_max d_mean / (d_max + d_mean), 0 when both are 0; works on arrays."""
    d_max = np.asarray(d_max, dtype=np.float64)
    d_mean = np.asarray(d_mean, dtype=np.float64)
    total = d_max + d_mean
    with np.errstate(divide="ignore", invalid="ignore"):
        dd = np.where(total == 0, 0.0, 2.0 * d_max * d_mean / total)
    return float(dd) if dd.ndim == 0 else dd


def _normalise_log(log_w: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-group softmax of log weights; uniform where a group's weights are all 0 (-inf).

    Returns (normalised weights, boolean per element: its group was degenerate).
    """
    lw = pd.Series(log_w)
    gmax = lw.groupby(groups).transform("max").to_numpy()
    degenerate = np.isneginf(gmax)
    shifted = np.exp(np.where(degenerate, 0.0, log_w - np.where(degenerate, 0.0, gmax)))
    total = pd.Series(shifted).groupby(groups).transform("sum").to_numpy()
    return shifted / total, degenerate


# --------------------------------------------------------------------------------------------
# qrels to per-topic structures


def relevant_judgments(qrels: pd.DataFrame, rel_level: int = 1) -> pd.DataFrame:
    """Distinct (topic, subtopic, docno) triples with grade >= rel_level, ids as str."""
    _check_qrels(qrels)
    _check_rel_level(rel_level)
    rel = qrels.loc[qrels["grade"].to_numpy() >= rel_level, ["topic", "subtopic", "docno"]]
    rel = rel.astype(str).drop_duplicates(ignore_index=True)
    return rel


def _subtopic_counts(rel: pd.DataFrame) -> pd.DataFrame:
    """R_t per (topic, subtopic), subtopics sorted within topic, with a 0-based index ``bit``."""
    counts = rel.groupby(["topic", "subtopic"], sort=False).size().rename("n_rel").reset_index()
    counts = counts.assign(_key=_id_positions(counts["subtopic"]))
    counts = counts.sort_values(["topic", "_key"], kind="stable", ignore_index=True)
    counts = counts.drop(columns="_key")
    counts["bit"] = counts.groupby("topic", sort=False).cumcount().astype(np.int64)
    return counts


def _maximal_masks(masks: np.ndarray, n_sub: int) -> np.ndarray:
    """The masks not strictly contained in another mask (sorted, unique).

    A minimum cover never needs a dominated pattern, and a breadth-first level never needs a
    dominated union. Dense superset transform over 2^M for M <= 24, pairwise for small sets,
    unchanged otherwise (pruning only saves work).
    """
    masks = np.unique(masks)
    if n_sub <= _DENSE_PRUNE_MAX_SUBTOPICS:
        present = np.zeros(1 << n_sub, dtype=bool)
        present[masks] = True
        above = present.copy()  # above[s]: some mask is a superset of s (or s itself)
        strict = np.zeros_like(present)  # strict[s]: some mask is a strict superset of s
        for bit in range(n_sub):
            view = above.reshape(-1, 2, 1 << bit)
            view[:, 0, :] |= view[:, 1, :]
        for bit in range(n_sub):
            strict.reshape(-1, 2, 1 << bit)[:, 0, :] |= above.reshape(-1, 2, 1 << bit)[:, 1, :]
        return masks[~strict[masks]]
    if masks.size <= 2048:
        inter = masks[:, None] & masks[None, :]
        dominated = ((inter == masks[:, None]) & (masks[:, None] != masks[None, :])).any(axis=1)
        return masks[~dominated]
    return masks


def _exact_cover(patterns: np.ndarray) -> int:
    """Minimum number of rows of the boolean matrix ``patterns`` whose OR is all True.

    Breadth-first search: level k holds the maximal unions of k coverage patterns.
    """
    n_sub = patterns.shape[1]
    if n_sub > EXACT_COVER_MAX_SUBTOPICS:
        raise UsageError(
            f"exact minimum cover supports at most {EXACT_COVER_MAX_SUBTOPICS} subtopics per "
            f"topic (got {n_sub}); use cover='greedy'"
        )
    weights = np.left_shift(np.int64(1), np.arange(n_sub, dtype=np.int64))
    full = int(weights.sum())
    masks = _maximal_masks(patterns.astype(np.int64) @ weights, n_sub)
    states = masks
    level = 1
    while not (states == full).any():
        if states.size * masks.size > EXACT_COVER_MAX_WORK:
            raise UsageError(
                "exact minimum cover is too expensive for this topic "
                f"({n_sub} subtopics, {masks.size} coverage patterns); use cover='greedy'"
            )
        states = _maximal_masks((states[:, None] | masks[None, :]).ravel(), n_sub)
        level += 1
    return level


def _greedy_cover(docs: np.ndarray) -> int:
    """Greedy set cover of the rows of ``docs`` (rows sorted by docno ascending).

    Each step takes the row with the most newly covered subtopics; ties go to the largest docno.
    """
    covered = np.zeros(docs.shape[1], dtype=bool)
    steps = 0
    while not covered.all():
        gain = (docs & ~covered).sum(axis=1)
        best = docs.shape[0] - 1 - int(np.argmax(gain[::-1]))
        covered |= docs[best]
        steps += 1
    return steps


def _topic_stats(rel: pd.DataFrame, counts: pd.DataFrame, cover: str) -> pd.DataFrame:
    """R_T, M and xi per topic that has relevant documents (index: topic)."""
    r_total = rel.groupby("topic", sort=False)["docno"].nunique().rename("n_rel_docs")
    n_sub = counts.groupby("topic", sort=False).size().rename("n_subtopics")
    stats = pd.concat([r_total, n_sub], axis=1)
    stats.index.name = "topic"
    if stats.empty:
        return stats.assign(xi=pd.Series(dtype=np.int64))
    # one boolean matrix (document x subtopic bit) for all topics, rows sorted by topic, docno
    with_bit = rel.merge(counts[["topic", "subtopic", "bit"]], on=["topic", "subtopic"])
    with_bit = with_bit.sort_values(["topic", "docno"], kind="stable", ignore_index=True)
    doc_id = with_bit.groupby(["topic", "docno"], sort=False).ngroup().to_numpy()
    n_docs = int(doc_id.max()) + 1
    width = int(stats["n_subtopics"].max())
    matrix = np.zeros((n_docs, width), dtype=bool)
    matrix[doc_id, with_bit["bit"].to_numpy()] = True
    doc_topic = with_bit["topic"].to_numpy()[np.unique(doc_id, return_index=True)[1]]
    starts = np.flatnonzero(np.r_[True, doc_topic[1:] != doc_topic[:-1]])
    ends = np.r_[starts[1:], n_docs]
    xi = {}
    for start, end in zip(starts, ends, strict=True):  # one iteration per topic
        topic = doc_topic[start]
        block = matrix[start:end, : int(stats.at[topic, "n_subtopics"])]
        xi[topic] = (
            _exact_cover(np.unique(block, axis=0)) if cover == "exact" else _greedy_cover(block)
        )
    stats["xi"] = pd.Series(xi, dtype=np.int64)
    return stats


def _analyse(
    qrels: pd.DataFrame, rel_level: int, cover: str
) -> tuple[list[str], pd.DataFrame, pd.DataFrame]:
    rel = relevant_judgments(qrels, rel_level)
    _check_choice("cover", cover, COVER_METHODS)
    topics = sort_topics(pd.unique(qrels["topic"].astype(str)))
    counts = _subtopic_counts(rel)
    stats = _topic_stats(rel, counts, cover)
    return topics, counts, stats


def _smr_long(
    counts: pd.DataFrame, stats: pd.DataFrame, smr_rank: int | None, sampling: str
) -> np.ndarray:
    """Eq. 3-4 for every (topic, subtopic) row of ``counts``; warns for degenerate topics."""
    if counts.empty:
        return np.zeros(0)
    topic = counts["topic"]
    r_total = topic.map(stats["n_rel_docs"]).to_numpy()
    k = topic.map(stats["xi"]).to_numpy() if smr_rank is None else np.full(len(counts), smr_rank)
    log_miss = _log_miss(counts["n_rel"].to_numpy(), r_total, k, sampling)
    smr, degenerate = _normalise_log(log_miss, pd.factorize(topic)[0])
    if degenerate.any():
        bad = ", ".join(pd.unique(topic[degenerate]))
        warn(f"topic(s) {bad}: every relevant document covers every subtopic; smr set to 1/M")
    return smr


# --------------------------------------------------------------------------------------------
# public per-topic and per-subtopic tables


def subtopic_table(
    qrels: pd.DataFrame,
    rel_level: int = 1,
    *,
    smr_rank: int | None = None,
    cover: CoverMethod = "exact",
    sampling: Sampling = "with_replacement",
) -> pd.DataFrame:
    """One row per subtopic with a relevant document: topic, subtopic, n_rel (R_t), smr.

    smr is Eq. 3 at rank ``smr_rank``, default xi (Eq. 4). Rows are sorted by topic, then
    subtopic (numerically when all ids are integers); smr sums to 1 within each topic.
    """
    _check_rank("smr_rank", smr_rank)
    _check_choice("sampling", sampling, SAMPLINGS)
    topics, counts, stats = _analyse(qrels, rel_level, cover)
    order = {t: i for i, t in enumerate(topics)}
    counts = counts.assign(_pos=counts["topic"].map(order).to_numpy())
    counts = counts.sort_values("_pos", kind="stable", ignore_index=True)
    smr = _smr_long(counts, stats, smr_rank, sampling)
    out = counts[["topic", "subtopic", "n_rel"]].copy()
    out["n_rel"] = out["n_rel"].astype(np.int64)
    out["smr"] = np.asarray(smr, dtype=np.float64)
    return out


def collection_table(
    qrels: pd.DataFrame,
    rel_level: int = 1,
    *,
    dd_exponent: DdExponent = "xi",
    smr_rank: int | None = None,
    cover: CoverMethod = "exact",
    sampling: Sampling = "with_replacement",
    listed_subtopics: Mapping[str, Collection[str]] | None = None,
    smr_digits: int = 4,
    topic_types: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per-topic collection analysis (Golbus et al. 2013, Eq. 1-4), one row per topic.

    Columns: topic, n_rel_docs (R_T), n_subtopics (M), subtopics (ids, comma-separated),
    subtopic_counts (R_t in the same order), xi, d_max, d_mean (Eq. 1 with exponent xi, or
    xi + 1 when ``dd_exponent="xi+1"``, the setting that reproduces Tables 1-2), dd (Eq. 2),
    smr (Eq. 3 at ``smr_rank``, default xi = Eq. 4, comma-separated with ``smr_digits`` decimals;
    full precision from :func:`subtopic_table`). Rows follow the qrels' topics, sorted
    numerically when every topic id is an integer, else as strings. ``listed_subtopics`` maps
    every topic with relevant documents to its full subtopic list (d_max = M / L). The settings
    are recorded in ``table.attrs["settings"]``.

    With ``topic_types`` (columns topic, subtopic, type ``inf``/``nav``: a TREC Web Track
    topics XML, :func:`divaeval.io.read_topic_types`) the subtopics with a relevant document
    are split by intent type, as Sakai (WWW 2012) Table 1 counts them: n_inf and n_nav after
    n_subtopics, subtopic_types (in the order of subtopics), rel_inf and rel_nav (their R_t
    summed). A subtopic the file does not list is counted as informational, with a warning
    (as the metrics read it).
    """
    check_dd_exponent(dd_exponent)
    _check_choice("sampling", sampling, SAMPLINGS)
    _check_rank("smr_rank", smr_rank)
    if isinstance(smr_digits, bool) or not isinstance(smr_digits, int) or smr_digits < 0:
        raise UsageError(f"smr_digits must be a non-negative integer, got {smr_digits!r}")
    topics, counts, stats = _analyse(qrels, rel_level, cover)

    table = pd.DataFrame({"topic": pd.Series(topics, dtype=object)})
    stats = stats.reindex(topics)
    table["n_rel_docs"] = stats["n_rel_docs"].fillna(0).astype(np.int64).to_numpy()
    table["n_subtopics"] = stats["n_subtopics"].fillna(0).astype(np.int64).to_numpy()
    table["xi"] = stats["xi"].fillna(0).astype(np.int64).to_numpy()
    m = table["n_subtopics"].to_numpy()
    # listed subtopics: L per topic (d_max = M / L); default L = M (d_max = 1)
    if listed_subtopics is None:
        n_listed = m.astype(np.float64)
    else:
        n_listed = _listed_counts(listed_subtopics, topics, counts)
    d_max, d_mean = _d_max_and_mean(counts, stats, topics, m, n_listed, dd_exponent, sampling)
    table["d_max"] = d_max
    table["d_mean"] = d_mean
    table["dd"] = np.where(np.isnan(d_max), np.nan, diversity_difficulty(d_max, d_mean))
    joined = _per_subtopic_lists(counts, stats, topics, smr_rank, sampling, smr_digits)
    for col in ("subtopics", "subtopic_counts", "smr"):
        table[col] = joined[col].to_numpy(dtype=object)
    table = table[list(TABLE_COLUMNS)]
    if topic_types is not None:
        table = _with_intent_types(table, counts, topics, topic_types)
    table.attrs["settings"] = {
        "rel_level": int(rel_level),
        "dd_exponent": dd_exponent,
        "smr_rank": "xi" if smr_rank is None else int(smr_rank),
        "cover": cover,
        "sampling": sampling,
        "d_max": "1 (subtopics with relevant documents)"
        if listed_subtopics is None
        else "M / listed subtopics",
    }
    return table


def _d_max_and_mean(
    counts: pd.DataFrame,
    stats: pd.DataFrame,
    topics: list[str],
    m: np.ndarray,
    n_listed: np.ndarray,
    dd_exponent: str,
    sampling: str,
) -> tuple[np.ndarray, np.ndarray]:
    """(d_max, d_mean) per topic: M / L, and Eq. 1 with exponent xi (or xi + 1), its terms per
    subtopic summed per topic; NaN where the topic lists no subtopic."""
    exponent = stats["xi"] + (1 if dd_exponent == "xi+1" else 0)
    r_total = counts["topic"].map(stats["n_rel_docs"]).to_numpy()
    k = counts["topic"].map(exponent).to_numpy()
    miss = np.exp(_log_miss(counts["n_rel"].to_numpy(), r_total, k, sampling))
    miss_sum = pd.Series(miss).groupby(counts["topic"].to_numpy()).sum()
    miss_sum = miss_sum.reindex(topics, fill_value=0.0).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        d_max = np.where(n_listed > 0, m / n_listed, np.nan)
        d_mean = np.where(n_listed > 0, 1.0 - (miss_sum + (n_listed - m)) / n_listed, np.nan)
    return d_max, d_mean


def _per_subtopic_lists(
    counts: pd.DataFrame,
    stats: pd.DataFrame,
    topics: list[str],
    smr_rank: int | None,
    sampling: str,
    smr_digits: int,
) -> pd.DataFrame:
    """Per topic, comma-separated: its subtopics, their R_t and their smr (Eq. 3 at
    ``smr_rank``, ``smr_digits`` decimals); empty for a topic without relevant documents."""
    smr = _smr_long(counts, stats, smr_rank, sampling)
    per_sub = counts.assign(
        smr=[f"{v:.{smr_digits}f}" for v in smr], n_rel=counts["n_rel"].astype(str)
    )
    joined = per_sub.groupby("topic", sort=False).agg(
        subtopics=("subtopic", ",".join),
        subtopic_counts=("n_rel", ",".join),
        smr=("smr", ",".join),
    )
    return joined.astype(object).reindex(topics, fill_value="")


def _with_intent_types(
    table: pd.DataFrame, counts: pd.DataFrame, topics: list[str], types: pd.DataFrame
) -> pd.DataFrame:
    """``table`` with the informational/navigational split of its subtopics (see
    :func:`collection_table`)."""
    if not {"topic", "subtopic", "type"} <= set(types.columns):
        raise UsageError("topic_types needs the columns topic, subtopic and type")
    unknown = sorted(set(types["type"]) - {"inf", "nav"})
    if unknown:
        raise UsageError(f"topic_types: unknown intent type(s) {', '.join(unknown)}")
    lookup = pd.Series(
        types["type"].to_numpy(),
        index=pd.MultiIndex.from_arrays(
            [types["topic"].astype(str), types["subtopic"].astype(str)]
        ),
    )
    lookup = lookup[~lookup.index.duplicated(keep="first")]
    keys = pd.MultiIndex.from_arrays([counts["topic"], counts["subtopic"]])
    kind = lookup.reindex(keys).to_numpy(dtype=object)
    missing = pd.isna(kind)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        warn(
            f"{int(missing.sum())} subtopics with relevant documents are not in the topics file "
            f"(e.g. topic {counts['topic'].iat[first]} subtopic {counts['subtopic'].iat[first]}); "
            "counted as informational"
        )
        kind[missing] = "inf"
    nav = kind == "nav"
    per_sub = counts.assign(
        n_inf=~nav, n_nav=nav, rel_inf=np.where(nav, 0, counts["n_rel"]), kind=kind
    )
    per_sub["rel_nav"] = np.where(nav, counts["n_rel"], 0)
    grouped = per_sub.groupby("topic", sort=False)
    sums = grouped[["n_inf", "n_nav", "rel_inf", "rel_nav"]].sum().reindex(topics, fill_value=0)
    joined = grouped["kind"].agg(",".join).reindex(topics, fill_value="")
    out = table.copy()
    position = out.columns.get_loc("n_subtopics") + 1
    out.insert(position, "n_nav", sums["n_nav"].astype(np.int64).to_numpy())
    out.insert(position, "n_inf", sums["n_inf"].astype(np.int64).to_numpy())
    position = out.columns.get_loc("subtopic_counts") + 1
    out.insert(position, "rel_nav", sums["rel_nav"].astype(np.int64).to_numpy())
    out.insert(position, "rel_inf", sums["rel_inf"].astype(np.int64).to_numpy())
    out.insert(position, "subtopic_types", joined.to_numpy(dtype=object))
    return out


def _listed_counts(
    listed: Mapping[str, Collection[str]], topics: list[str], counts: pd.DataFrame
) -> np.ndarray:
    """Number of listed subtopics per topic, checking they include every covered subtopic."""
    listed_str = {str(t): {str(s) for s in subs} for t, subs in listed.items()}
    for topic, subs in counts.groupby("topic", sort=False)["subtopic"]:
        if topic not in listed_str:
            raise DataError(f"topic {topic} has relevant documents but no listed subtopics")
        extra = sorted(set(subs) - listed_str[topic])
        if extra:
            raise DataError(
                f"topic {topic}: subtopic(s) {', '.join(extra)} have relevant documents "
                "but are not in the subtopic list"
            )
    return np.array([len(listed_str.get(t, ())) for t in topics], dtype=np.float64)


def difficulty_weights(table: pd.DataFrame) -> pd.Series:
    """Topic weights 1 - dd (Golbus Sect. 6.3, "DD" topic averaging), indexed by topic.

    NaN for topics without relevant documents. Normalising (dividing by the sum) is the caller's.
    """
    if not isinstance(table, pd.DataFrame) or not {"topic", "dd"} <= set(table.columns):
        raise UsageError("difficulty_weights needs a collection table with columns topic and dd")
    weights = 1.0 - table["dd"].astype(np.float64).to_numpy()
    return pd.Series(
        weights, index=pd.Index(table["topic"].astype(str), name="topic"), name="dd_weight"
    )
