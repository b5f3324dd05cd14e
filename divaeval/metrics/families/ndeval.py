"""The ndeval family: ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, NRBP, nNRBP, MAP-IA, P-IA, strec.

Reproduces ndeval 4.5 (TREC Web Track 2009–2014):

- relevance is binary: grade >= ``-l`` (default 1); S = number of subtopics with at least one
  relevant document; intents are weighted uniformly;
- novelty-biased gain g(r) = Σ_i rel(d_r, i)·(1 − α)^{c_i(r)}, c_i(r) = earlier documents
  relevant to i (Clarke et al. 2008; Amigó et al. 2018 §3, "alpha-nDCG");
- the ideal ranking is built greedily over all judged documents, each step taking the largest
  marginal gain, ties to the largest docno;
- ERR-IA@k and alpha-DCG@k are divided by the "ideal-ideal" value (a list whose every document
  is relevant to all S subtopics): II_E(k) = S·Σ_{r≤k}(1−α)^{r−1}/r and
  II_D(k) = S·Σ_{r≤k}(1−α)^{r−1}/log2(r+1);
- NRBP = (1 − (1 − α)β)/S · Σ_r β^{r−1} g(r) over the whole run (Clarke et al. 2009);
- MAP-IA = (1/S)·Σ_i AP_i; P-IA@k = #(relevant (doc, subtopic) pairs in the top k)/(k·S);
  strec@k = subtopics covered in the top k / S (subtopic recall, Zhai et al. 2003).

The operations are performed in ndeval's order, so values agree bit for bit.

The greedy ideal is an approximation (the best ranking is NP-hard to find), so a run can beat
it: nERR-IA, alpha-nDCG and nNRBP can exceed 1, in ndeval exactly as here (e.g. 1.0435 for
nERR-IA(alpha=0.25)@2 on tests/test_ndeval_properties.py's example).

Generalised cascade gains (Clarke, Craswell, Soboroff, Ashkan WSDM 2011, as written by Golbus et
al. 2013, Eq. 6–7 — an interpretation, the WSDM paper's own formula
is not reproduced): every novelty metric above takes ``weights=uniform|intents`` and
``gain=binary|graded``, g(r) = Σ_i w_i·v(d_r, i)·(1 − α)^{c_i(r)} with w_i the ``--intents``
probability (0 outside the subtopics with a relevant document) and v = grade/G (G = the largest
grade in the qrels file); c_i still counts documents with grade >= ``-l``. The greedy ideal uses
the same gains; the ideal-ideal values and NRBP's 1/S use Σ_i w_i in place of S. The defaults
(uniform, binary) run ndeval's code path unchanged. ``P-IA`` and ``MAP-IA`` take
``weights=intents`` through the intent-aware wrapper (:mod:`divaeval.metrics.per_aspect`).

Deliberate differences from ndeval (native mode; ``--compat ndeval`` restores the quirks):

- ERR-IA@1 and alpha-DCG@1 are normalised like every other cutoff (ndeval leaves @1 raw);
- a topic with no relevant document (S = 0) scores 0 in nNRBP, as in every other column
  (ndeval prints NaN, which makes the mean NaN); divaeval warns about such topics;
- cutoffs above 20 are allowed (ndeval stops at 20);
- duplicate qrels lines are rejected when reading (ndeval double-counts them in MAP-IA).
"""

from __future__ import annotations

import numpy as np

from divaeval import native
from divaeval.errors import warn
from divaeval.metrics.common import (
    at_cutoffs,
    at_relevance_level,
    depth_for,
    log2_discount,
    repeated_powers,
    safe_divide,
)
from divaeval.metrics.novelty import GreedyIdeal, novelty_gains, shared_greedy
from divaeval.metrics.per_aspect import average_precision, intent_aware, precision, weights_param
from divaeval.metrics.registry import family_registrar, register_preset
from divaeval.metrics.spec import Param, in_unit_interval

NDEVAL_CUTOFFS = (5, 10, 20)
FAMILY = "ndeval"
SOURCE = (
    "ndeval 4.5 (TREC Web Track); Clarke et al. SIGIR 2008 (alpha-nDCG), Chapelle et al. "
    "CIKM 2009 (ERR-IA), Clarke et al. ICTIR 2009 (NRBP)"
)

ALPHA = Param("alpha", float, 0.5, "novelty parameter α: redundancy penalty", in_unit_interval)
BETA = Param("beta", float, 0.5, "NRBP patience β", in_unit_interval)
#: Clarke et al. (WSDM 2011) / Golbus et al. (2013, Eq. 7) generalisation of the cascade gain:
#: g(r) = Σ_i w_i·v(d_r, i)·(1 − α)^{c_i(r)}; the defaults (w = 1, binary v) are ndeval's.
WEIGHTS = weights_param("uniform")
GAIN = Param(
    "gain",
    str,
    "binary",
    "binary = [grade >= -l] (ndeval); graded = grade/G, G = the largest grade in the qrels file "
    "(the novelty count c_i still counts documents with grade >= -l)",
    choices=("binary", "graded"),
)
#: ir_measures' rel= of its pyndeval measures: the per-measure -l
REL = Param(
    "rel",
    int,
    None,
    "minimum grade counted relevant (ir_measures' rel=, pyndeval's relevance_level); default: -l",
    lambda v: None if v >= 1 else "must be at least 1 (ndeval's relevance is a positive grade)",
)
CASCADE = (ALPHA, WEIGHTS, GAIN, REL)


def _cascade_mode(params) -> tuple[str, str]:
    return params.get("weights", "uniform"), params.get("gain", "binary")


def _gain_values(material, grades: np.ndarray, relevant: np.ndarray, params) -> np.ndarray | None:
    """v = w_i·g(d, i) of the generalised cascade gain for ``grades[T, *, S]`` of
    ``material``'s topics, or None for ndeval's defaults (uniform: w = 1; binary: g = rel)."""
    weights, gain = _cascade_mode(params)
    if weights == "uniform" and gain == "binary":
        return None
    values = relevant.astype(np.float64)
    if gain == "graded":
        scale = int(material.qrels_max_grade)
        graded = np.minimum(np.maximum(grades, 0), scale) / max(scale, 1)
        values = np.where(relevant, graded, 0.0)
    if weights == "intents":
        values = (
            values * np.where(material.relevant_subtopic, material.intent_weight, 0.0)[:, None, :]
        )
    return values


def _greedy(jr, params) -> tuple[GreedyIdeal, np.ndarray | None]:
    """The greedy ideal, built once per qrels and shared by every run and topic subset, and
    the rows of ``jr``'s topics in it."""
    alpha, rel_level = params["alpha"], jr.material.rel_level

    def build(root):
        pool_relevant = root.pool_grades >= rel_level
        values = _gain_values(root, root.pool_grades, pool_relevant, params)
        return GreedyIdeal(pool_relevant, alpha, values)

    key = ("ndeval-greedy", alpha, rel_level, *_cascade_mode(params))
    return shared_greedy(jr.material, key, build)


def _compact_gains(jr, params, length: int) -> tuple[np.ndarray, np.ndarray]:
    """The run's novelty gains at the ranks with a relevant document among the first
    ``length`` (g is 0 elsewhere, and c_i counts relevant documents): (gains [T, R], their
    0-based ranks [T, R], ``length`` on padding); see JudgedRankings.relevant_ranks. Cached."""
    alpha = params["alpha"]
    rel_level = jr.material.rel_level
    key = ("novelty", alpha, rel_level, length, *_cascade_mode(params))
    if key not in jr.cache:
        grades, ranks = jr.relevant_ranks(rel_level, length)
        relevant = grades >= rel_level
        values = _gain_values(jr.material, grades, relevant, params)
        jr.cache[key] = novelty_gains(relevant, alpha, values), ranks
    return jr.cache[key]


def _ranked_gains(jr, params) -> np.ndarray:
    """The run's novelty gains at every rank [T, D] with ndeval's binary, unweighted gains, by
    the compiled loop (``ranked_novelty_gains``): the sums of :func:`_compact_gains`, with the
    ranks without a relevant document (g = 0) in place. Cached."""
    assert native.kernels is not None
    alpha, level = params["alpha"], jr.material.rel_level
    key = ("novelty-ranked", alpha, level)
    if key not in jr.cache:
        grades = np.ascontiguousarray(jr.grades)
        n_topics, depth, width = grades.shape
        gains = np.empty((n_topics, depth))
        decay = repeated_powers(1.0 - alpha, depth + 1)
        native.kernels.ranked_novelty_gains(grades, level, decay, gains, n_topics, depth, width)
        jr.cache[key] = gains
    return jr.cache[key]


def _by_rank(jr, params) -> bool:
    """Whether the run's gains come from :func:`_ranked_gains` (the compiled loop, ndeval's
    defaults), not from :func:`_compact_gains`."""
    return native.kernels is not None and _cascade_mode(params) == ("uniform", "binary")


def _run_gains(jr, params, length: int) -> np.ndarray:
    """The run's novelty gains g(1..length) [T, length]."""
    if _by_rank(jr, params):
        ranked = _ranked_gains(jr, params)
        if length <= ranked.shape[1]:
            return ranked[:, :length]
        return np.concatenate([ranked, np.zeros((jr.n_topics, length - ranked.shape[1]))], 1)
    compact, ranks = _compact_gains(jr, params, length)
    gains = np.zeros((jr.n_topics, length))
    inside = ranks < length
    gains[np.nonzero(inside)[0], ranks[inside]] = compact[inside]
    return gains


def _at_ranks(running: np.ndarray, ranks: np.ndarray, cutoffs, length: int) -> np.ndarray:
    """Values at each cutoff [T, ..., C] of running sums ``running[T, ..., R]`` taken at the
    0-based ranks ``ranks[T, R]`` (``length`` on padding): the last one within the cutoff,
    0 where there is none (sums of zero terms)."""
    topics = np.arange(len(ranks))
    out = np.zeros((*running.shape[:-1], len(cutoffs)))
    for column, k in enumerate(cutoffs):
        within = (ranks < (length if k is None else min(k, length))).sum(axis=1)
        if within.any():
            last = running[topics, ..., np.maximum(within - 1, 0)]
            mask = (within > 0).reshape((-1,) + (1,) * (running.ndim - 2))
            out[..., column] = np.where(mask, last, 0.0)
    return out


def _subtopic_count(material, params=None) -> np.ndarray:
    """S (ndeval), or with ``weights=intents`` the total weight Σ_{i∈A} w_i: the gain of one
    document of the top grade relevant to every subtopic (ideal-ideal and NRBP normaliser).
    Cached on the material: every measure of a topic block asks for it."""
    intents = params is not None and params.get("weights", "uniform") == "intents"
    key = ("ndeval-subtopic-count", intents)
    if key not in material.cache:
        if intents:
            weights = np.where(material.relevant_subtopic, material.intent_weight, 0.0)
            material.cache[key] = weights.sum(axis=1)
        else:
            material.cache[key] = material.n_relevant_subtopics.astype(np.float64)
    return material.cache[key]


def _ideal_ideal_factors(counts: np.ndarray, alpha: float, length: int) -> np.ndarray:
    """f_r = S·(1−α)^{r−1} for each S of ``counts`` [N] by repeated multiplication from f = S
    (as ndeval does) [N, length]; the ideal-ideal values are running sums of f_r·disc(r) or
    f_r/r."""
    factors = np.empty((len(counts), length))
    factors[:, :] = 1.0 - alpha
    if length:
        factors[:, 0] = counts
    return np.multiply.accumulate(factors, axis=1)


def _discounted_sums(values: np.ndarray, kind: str) -> np.ndarray:
    """Running sums of g(r)·disc(r) (kind 'dcg') or g(r)/r (kind 'err', as ndeval divides)."""
    length = values.shape[1]
    if kind == "dcg":
        return np.cumsum(values * log2_discount(length)[None, :], axis=1)
    return np.cumsum(values / np.arange(1.0, length + 1.0)[None, :], axis=1)


def _cutoff_ranks(cutoffs, length: int) -> np.ndarray:
    """The ranks each cutoff counts: k, at most ``length`` (None: ``length``)."""
    return np.array([length if k is None else min(k, length) for k in cutoffs], dtype=np.int64)


def _running_at(values: np.ndarray, weights: np.ndarray, divide: bool, cutoffs) -> np.ndarray:
    """[T, C]: ``at_cutoffs(np.cumsum(values * weights, axis=1), cutoffs)`` (``values /
    weights`` if ``divide``), the running sums only at the cutoffs where the compiled loop
    (``running_sums_at``) takes them, added in the same order."""
    length = values.shape[1]
    if native.kernels is None or length == 0:
        terms = values / weights if divide else values * weights
        return at_cutoffs(np.cumsum(terms, axis=1), cutoffs)
    if values.strides[1] != values.itemsize:
        values = np.ascontiguousarray(values)
    out = np.empty((len(values), len(cutoffs)))
    ks = _cutoff_ranks(cutoffs, length)
    native.kernels.running_sums_at(values, weights, divide, ks, out)
    return out


def _discounted_at(values: np.ndarray, kind: str, cutoffs) -> np.ndarray:
    """:func:`_discounted_sums` at the cutoffs [T, C]."""
    length = values.shape[1]
    if kind == "dcg":
        return _running_at(values, log2_discount(length), False, cutoffs)
    return _running_at(values, np.arange(1.0, length + 1.0), True, cutoffs)


def _ideal_side(jr, params, cutoffs, kind: str, length: int):
    """(C_k of the ideal ranking, II(k), whether II's series goes on past ``length``) for
    ``jr``'s topics: values of the qrels alone, computed once on the root material and shared
    by every run and topic subset."""
    greedy, rows = _greedy(jr, params)
    root = jr.material.root()[0]
    key: tuple = ("ndeval-ideal-side", kind, params["alpha"], root.rel_level)
    key += (*_cascade_mode(params), length, cutoffs)
    if key not in root.cache:
        # the ideal-ideal series depends on S alone: computed once for each distinct S (as
        # bits), the same operations on each row as on a row per topic
        counts = _subtopic_count(root, params)
        distinct, row_of = np.unique(counts.view(np.int64), return_inverse=True)
        factors = _ideal_ideal_factors(distinct.view(np.float64), params["alpha"], length)
        ideal_ideal = _discounted_sums(factors, kind)
        beyond = np.zeros(len(distinct), dtype=bool)
        if length and any(k is not None and k > length for k in cutoffs):
            # arrays stop where the rankings do (depth_for); the ideal-ideal series would go on
            next_factor = factors[:, -1] * (1.0 - params["alpha"])
            next_term = next_factor / (length + 1.0)
            if kind == "dcg":
                next_term = next_factor / np.log2(length + 2.0)
            beyond = ideal_ideal[:, -1] + next_term != ideal_ideal[:, -1]
        ideal_k = _discounted_at(greedy.gains(length), kind, cutoffs)
        row_of = row_of.reshape(-1)
        root.cache[key] = (ideal_k, at_cutoffs(ideal_ideal, cutoffs)[row_of], beyond[row_of])
    values = root.cache[key]
    return values if rows is None else tuple(value[rows] for value in values)


def _normalised(jr, params, cutoffs, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(N_k(run), N_k(ideal)) with N_k = C_k/II(k): the ndeval-normalised DCG (kind 'dcg')
    or ERR (kind 'err') at each cutoff (cached on ``jr``: nERR-IA reuses ERR-IA's)."""
    key = ("ndeval-normalised", kind, params["alpha"], *_cascade_mode(params), cutoffs)
    if key not in jr.cache:
        length = depth_for(cutoffs, jr)
        run_k = _discounted_at(_run_gains(jr, params, length), kind, cutoffs)
        ideal_k, norm_k, beyond = _ideal_side(jr, params, cutoffs, kind, length)
        raw_at_one = np.array([k == 1 for k in cutoffs]) & (jr.settings.compat == "ndeval")
        run_n = np.where(raw_at_one, run_k, safe_divide(run_k, norm_k))
        ideal_n = np.where(raw_at_one, ideal_k, safe_divide(ideal_k, norm_k))
        jr.cache[key] = (run_n, ideal_n, bool(beyond.any()), length)
    run_n, ideal_n, beyond, length = jr.cache[key]
    if beyond:
        warn(
            f"{kind.upper()}-based ndeval measure with alpha={params['alpha']:g} at a "
            f"cutoff above {length} ranks: the ideal-ideal normaliser is summed over the "
            f"first {length} ranks only"
        )
    return run_n, ideal_n


def err_ia(jr, params, cutoffs):
    """ERR-IA@k as ndeval prints it: E_k / II_E(k), E_k = Σ_{r≤k} g(r)/r."""
    return _normalised(jr, params, cutoffs, "err")[0]


def n_err_ia(jr, params, cutoffs):
    """nERR-IA@k = N^E_k(run)/N^E_k(ideal), 0 when the run's alpha-DCG@k is 0."""
    run_e, ideal_e = _normalised(jr, params, cutoffs, "err")
    run_d, _ = _normalised(jr, params, cutoffs, "dcg")
    return np.where(run_d != 0, safe_divide(run_e, ideal_e), 0.0)


def alpha_dcg(jr, params, cutoffs):
    """alpha-DCG@k as ndeval prints it: DCG_k / II_D(k)."""
    return _normalised(jr, params, cutoffs, "dcg")[0]


def alpha_ndcg(jr, params, cutoffs):
    """alpha-nDCG@k = N^D_k(run)/N^D_k(ideal) (Clarke et al. 2008), 0 when DCG_k = 0."""
    run_d, ideal_d = _normalised(jr, params, cutoffs, "dcg")
    return np.where(run_d != 0, safe_divide(run_d, ideal_d), 0.0)


def _rbp_sums(gains: np.ndarray, beta: float, cutoffs) -> np.ndarray:
    """Σ_{r≤k} β^{r−1} g(r) at each cutoff [T, C], in rank order."""
    return _running_at(gains, repeated_powers(beta, gains.shape[1]), False, cutoffs)


def _run_rbp_sums(jr, params, cutoffs) -> np.ndarray:
    """Σ_{r≤k} β^{r−1} g(r) of the run at each cutoff, summed over the ranks with a relevant
    document only (the other terms are 0). Cached: NRBP and nNRBP share it."""
    key = ("ndeval-rbp", params["alpha"], params["beta"], *_cascade_mode(params), cutoffs)
    if key not in jr.cache and _by_rank(jr, params):  # every rank: the same sums, zeros added
        jr.cache[key] = _rbp_sums(_run_gains(jr, params, depth_for(cutoffs, jr)), params["beta"],
                                  cutoffs)  # fmt: skip
    if key not in jr.cache:
        length = depth_for(cutoffs, jr)
        gains, ranks = _compact_gains(jr, params, length)
        weights = repeated_powers(params["beta"], length + 1)[ranks]  # β^{r−1} (0 on padding)
        running = np.cumsum(gains * weights, axis=1)
        jr.cache[key] = _at_ranks(running, ranks, cutoffs, length)
    return jr.cache[key]


def _nrbp_factor(jr, params) -> np.ndarray:
    alpha, beta = params["alpha"], params["beta"]
    factor = 1.0 - (1.0 - alpha) * beta
    return safe_divide(np.full(jr.n_topics, factor), _subtopic_count(jr.material, params))[:, None]


def nrbp(jr, params, cutoffs):
    """NRBP = (1 − (1 − α)β)/S · Σ_r β^{r−1} g(r) (Clarke et al. 2009); whole run by default."""
    return _run_rbp_sums(jr, params, cutoffs) * _nrbp_factor(jr, params)


def _ideal_rbp_sums(jr, params, length: int, cutoffs) -> np.ndarray:
    """Σ_{r≤k} β^{r−1} g*(r) of the greedy ideal's first ``length`` ranks at each cutoff for
    ``jr``'s topics: values of the qrels alone, computed once on the root material."""
    greedy, rows = _greedy(jr, params)
    root = jr.material.root()[0]
    key: tuple = ("ndeval-ideal-rbp", params["alpha"], params["beta"], root.rel_level)
    key += (*_cascade_mode(params), length, cutoffs)
    if key not in root.cache:
        root.cache[key] = _rbp_sums(greedy.gains(length), params["beta"], cutoffs)
    values = root.cache[key]
    return values if rows is None else values[rows]


def n_nrbp(jr, params, cutoffs):
    """nNRBP = NRBP / NRBP of the ideal ranking (full-length ideal for the whole run)."""
    beta = params["beta"]
    length = depth_for(cutoffs, jr)
    greedy, _ = _greedy(jr, params)
    # The ideal's ranks: a cutoff k as many (zeros past the pool); the whole ranking as far as
    # its RBP sum still changes (GreedyIdeal.rbp_length: the whole ranking's sum, bit for bit).
    reach = max(length, greedy.max_steps)
    ideal_length = max((min(k, reach) for k in cutoffs if k is not None), default=0)
    if None in cutoffs:
        ideal_length = max(ideal_length, greedy.rbp_length(beta))
    factor = _nrbp_factor(jr, params)
    run_value = _run_rbp_sums(jr, params, cutoffs) * factor
    ideal_cutoffs = tuple(ideal_length if k is None else k for k in cutoffs)
    ideal_value = _ideal_rbp_sums(jr, params, ideal_length, ideal_cutoffs) * factor
    if jr.settings.compat == "ndeval":
        with np.errstate(invalid="ignore", divide="ignore"):
            return run_value / ideal_value
    return safe_divide(run_value, ideal_value)


def _subtopic_hits(jr, cutoffs, pairs=None, covered=None, precisions=None) -> None:
    """The compiled pass over the first k ranks (``subtopic_hits`` in ``divaeval/_native.c``)
    that fills the outputs given: relevant (document, subtopic) pairs and covered subtopics
    [T, C], MAP-IA's precision sums [T, S, C]; numpy's counterparts are in the callers."""
    assert native.kernels is not None
    grades = np.ascontiguousarray(jr.grades)
    n_topics, depth, width = grades.shape
    ks = _cutoff_ranks(cutoffs, depth_for(cutoffs, jr))
    native.kernels.subtopic_hits(grades, jr.material.rel_level, ks, pairs, covered, precisions,
                                 n_topics, depth, width, len(cutoffs))  # fmt: skip


def _precision_sums(jr, cutoffs) -> np.ndarray:
    """[T, S, C]: Σ_{r≤k: rel(d_r, i)} h_i(r)/r, MAP-IA's sum for subtopic i before dividing
    by R_i, added in rank order (as ndeval's T_i += h_i/r)."""
    if native.kernels is not None:  # the same sums, a topic at a time
        out = np.empty((jr.n_topics, jr.grades.shape[2], len(cutoffs)))
        _subtopic_hits(jr, cutoffs, precisions=out)
        return out
    length = depth_for(cutoffs, jr)
    level = jr.material.rel_level
    # Over the ranks with a relevant document only (the sums skip only zero terms), as
    # [T, S, R]: running sums along the contiguous last axis (still sequential, as ndeval's
    # T_i += h_i/r), a few times faster than along the middle axis of [T, R, S].
    grades, ranks = jr.relevant_ranks(level, length)
    relevant = np.ascontiguousarray((grades >= level).transpose(0, 2, 1))
    hits = np.cumsum(relevant, axis=2, dtype=np.int32)
    terms = np.where(relevant, hits / (ranks + 1.0)[:, None, :], 0.0)
    totals = np.cumsum(terms, axis=2)  # [T, S, R]
    return _at_ranks(totals, ranks, cutoffs, length)  # [T, S, C]


def map_ia(jr, params, cutoffs):
    """MAP-IA = (1/S)·Σ_{i: R_i>0} AP_i, AP_i = (1/R_i)·Σ_{r: rel(d_r,i)} h_i(r)/r;
    ``weights=intents``: Σ_i w_i·AP_i (the intent-aware wrapper)."""
    if params.get("weights", "uniform") == "intents":
        return intent_aware(jr, average_precision, params, cutoffs)
    reached = _precision_sums(jr, cutoffs)
    counts = jr.material.relevant_count.astype(np.float64)
    out = np.zeros((jr.n_topics, len(cutoffs)))
    for column in range(len(cutoffs)):
        per_subtopic = safe_divide(reached[:, :, column], counts)
        summed = np.zeros(jr.n_topics)
        for s in range(per_subtopic.shape[1]):
            summed += per_subtopic[:, s]
        out[:, column] = safe_divide(summed, _subtopic_count(jr.material))
    return out


def _hit_counts(jr, cutoffs) -> tuple[np.ndarray, np.ndarray]:
    """(relevant (document, subtopic) pairs, subtopics with a relevant document) among the
    first k ranks [T, C], as float64. Cached: P-IA and strec share them."""
    key = ("ndeval-hits", jr.material.rel_level, cutoffs)
    if key not in jr.cache:
        if native.kernels is not None:  # the same counts, a topic at a time
            pairs, covered = np.empty((2, jr.n_topics, len(cutoffs)))
            _subtopic_hits(jr, cutoffs, pairs=pairs, covered=covered)
        else:
            relevant = jr.padded_to(depth_for(cutoffs, jr)) >= jr.material.rel_level
            per_rank = np.cumsum(relevant.sum(axis=2), axis=1).astype(np.float64)
            seen = np.maximum.accumulate(relevant, axis=1).sum(axis=2).astype(np.float64)
            pairs, covered = at_cutoffs(per_rank, cutoffs), at_cutoffs(seen, cutoffs)
        jr.cache[key] = pairs, covered
    return jr.cache[key]


def p_ia(jr, params, cutoffs):
    """P-IA@k = Σ_{r≤k} Σ_i rel(d_r, i) / (k·S), always divided by k (Agrawal et al. 2009);
    ``weights=intents``: Σ_i w_i·P_i@k (the intent-aware wrapper)."""
    if params.get("weights", "uniform") == "intents":
        return intent_aware(jr, precision, params, cutoffs)
    counts, _ = _hit_counts(jr, cutoffs)
    ks = np.array(cutoffs, dtype=np.float64)
    return safe_divide(counts, ks[None, :] * _subtopic_count(jr.material)[:, None])


def strec(jr, params, cutoffs):
    """strec@k: share of the S subtopics with a relevant document in the top k."""
    _, covered = _hit_counts(jr, cutoffs)
    return safe_divide(covered, _subtopic_count(jr.material)[:, None])


_register = family_registrar(
    FAMILY, reference=SOURCE, params=CASCADE, cutoff="required", defaults=NDEVAL_CUTOFFS
)


def _at_rel(compute):
    """``compute`` on the rankings judged at the measure's ``rel=`` level (else ``-l``)."""

    def at_rel(jr, params, cutoffs):
        return compute(at_relevance_level(jr, params.get("rel")), params, cutoffs)

    at_rel.__doc__ = compute.__doc__
    return at_rel


def _spec(name, compute, summary, **fields):
    return _register(name, _at_rel(compute), summary, **fields)


_AT1 = "ndeval leaves @1 unnormalised; divaeval normalises it unless --compat ndeval."
_spec(
    "ERR-IA",
    err_ia,
    "novelty-biased ERR, divided by the ideal-ideal value (ndeval's ERR-IA)",
    notes=_AT1 + " Not textbook ERR-IA: see the intent-aware family.",
)
_spec(
    "nERR-IA",
    n_err_ia,
    "ERR-IA normalised by the greedy ideal ranking",
)
_spec(
    "alpha-DCG",
    alpha_dcg,
    "alpha-DCG divided by the ideal-ideal value (ndeval's alpha-DCG)",
    aliases=("a-dcg", "alphadcg", "α-DCG"),
    notes=_AT1,
)
_GREEDY = (
    "The ideal is ndeval's greedy ranking, an approximation: a run can beat it and score "
    "above 1 (as in ndeval)."
)
_spec(
    "alpha-nDCG",
    alpha_ndcg,
    "alpha-DCG normalised by the greedy ideal ranking",
    aliases=("a-ndcg", "alphandcg", "andcg", "α-nDCG"),
    notes=_GREEDY,
)
_spec(
    "NRBP",
    nrbp,
    "novelty- and rank-biased precision over the whole run",
    params=(ALPHA, BETA, WEIGHTS, GAIN, REL),
    cutoff="optional",
    defaults=(None,),
)
_spec(
    "nNRBP",
    n_nrbp,
    "NRBP normalised by the greedy ideal ranking",
    params=(ALPHA, BETA, WEIGHTS, GAIN, REL),
    cutoff="optional",
    defaults=(None,),
    notes="S = 0 topics score 0 (ndeval: NaN) unless --compat ndeval.",
)
_spec(
    "MAP-IA",
    map_ia,
    "intent-aware mean average precision over the whole run",
    params=(WEIGHTS, REL),
    aliases=("AP-IA",),
    cutoff="optional",
    defaults=(None,),
    notes="weights=intents: Σ_i w_i·AP_i with the --intents probabilities (the intent-aware "
    "family's wrapper); the default uniform weights are ndeval's 1/S.",
)
_spec(
    "P-IA",
    p_ia,
    "intent-aware precision at k, divided by k·S",
    params=(WEIGHTS, REL),
    notes="weights=intents: Σ_i w_i·P_i@k with the --intents probabilities (the intent-aware "
    "family's wrapper); the default uniform weights are ndeval's 1/S.",
)
_spec(
    "strec",
    strec,
    "subtopic recall: share of subtopics covered in the top k",
    params=(REL,),
    aliases=("s-recall", "srecall", "subtopic-recall", "StRecall"),
)

register_preset(
    "ndeval",
    [
        "ERR-IA@5,10,20",
        "nERR-IA@5,10,20",
        "alpha-DCG@5,10,20",
        "alpha-nDCG@5,10,20",
        "NRBP",
        "nNRBP",
        "MAP-IA",
        "P-IA@5,10,20",
        "strec@5,10,20",
    ],
    "ndeval's 21 default columns",
)
