"""Recall-orientation metrics of Diaz, Ekstrand and Mitra ("Recall, Robustness, and
Lexicographic Evaluation", TORS 2025) that need the
positions of *every* relevant document: total search efficiency (TSE) and metric lexirecall.
trec_eval's R@k and R-precision are in the ad hoc family; the lexicographic preferences
(lexirecall, lexiprecision) in :mod:`divaeval.stats.preferences`.

Relevance is binary and trec_eval's (judged, grade >= ``-l``, grade >= 0; the grade of a
document on diversity qrels is its largest subtopic grade); m = num_rel, every relevant
document of the topic, retrieved or not. The positions p_1 < … < p_m of the relevant documents
follow **pessimistic imputation** in a corpus of n documents: retrieved relevant documents keep
their ranks, the k unretrieved ones take positions n − k + 1, …, n.

- TSE_e = e(p_m) (paper Eq. 3), the exposure of the lowest-ranked relevant document, with
  e = 1/i (``TSE-ap``), 1/log2(i + 1) (``TSE-ndcg``), (1 − γ)γ^{i−1} (``TSE-rbp``) or
  1 − i/n (``TSE-linear``). Without n (parameter ``n=0``) the limit n → ∞ is used: TSE = 0
  whenever a relevant document is unretrieved; TSE-linear then refuses to run.
- metric lexirecall (paper §7.3.2): LR = Σ_i w_i·(n − p_i)/n with Δ = 1/(n + ε),
  w_1 = Δ^{m−1}/(1 + Δ)^{m−1}, w_i = Δ^{m−i}/(1 + Δ)^{m+1−i}; computed in exact rational
  arithmetic (Horner: S = p_1, S ← q·S + c·p_i with q = Δ/(1 + Δ), c = 1/(1 + Δ); LR = 1 − S/n)
  and rounded to a double only at the end. Needs n.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from divaeval.errors import UsageError
from divaeval.metrics.common import depth_for
from divaeval.metrics.registry import family_registrar
from divaeval.metrics.relevance import hits, num_rel, trec_relevant
from divaeval.metrics.spec import Param, in_open_unit_interval, non_negative

FAMILY = "recall"
SOURCE = "Diaz, Ekstrand & Mitra, Recall, Robustness, and Lexicographic Evaluation, TORS 2025"


def _length(jr, cutoffs=(None,)) -> int:
    return max(depth_for(cutoffs, jr), 1)


def collection_size(jr, params) -> int | None:
    """n from the metric parameter, else from the settings (``--collection-size``), else
    None (unknown)."""
    n = int(params.get("n", 0))
    if n <= 0:
        n = int(getattr(jr.settings, "collection_size", None) or 0)
    return n if n > 0 else None


def _retrieval(jr):
    """(relevant [T, K], hits retrieved [T], m [T], last relevant rank [T] (0 if none))."""
    length = _length(jr)
    relevant = trec_relevant(jr, length)
    running = hits(jr, length)
    found = running[:, -1].astype(np.int64)
    m = num_rel(jr).astype(np.int64)
    ranks = np.arange(1, length + 1)[None, :]
    last = np.where(relevant, ranks, 0).max(axis=1)
    return relevant, np.minimum(found, m), m, last


def _check_n(jr, n: int, found: np.ndarray, m: np.ndarray, metric: str) -> None:
    needed = int((jr.length + m - found).max(initial=0))
    if n < needed:
        raise UsageError(
            f"{metric}: collection size n={n} is smaller than a ranking plus its unretrieved "
            f"relevant documents ({needed})"
        )


def tse(jr, params, cutoffs, exposure: str):
    """TSE_e = e(p_m), the exposure of the last relevant document after pessimistic
    imputation (Diaz et al. Eq. 3)."""
    _, found, m, last = _retrieval(jr)
    n = collection_size(jr, params)
    name = f"TSE-{exposure}"
    if n is not None:
        _check_n(jr, n, found, m, name)
    complete = (found == m) & (m > 0)
    if n is None:
        if exposure == "linear":
            raise UsageError(f"{name} needs the collection size: give n=N")
        position = np.where(complete, last, 0).astype(np.float64)
        usable = complete
    else:
        position = np.where(complete, last, n).astype(np.float64)
        usable = m > 0
    safe = np.where(usable, position, 1.0)
    if exposure == "ap":
        value = 1.0 / safe
    elif exposure == "ndcg":
        value = 1.0 / np.log2(safe + 1.0)
    elif exposure == "rbp":
        gamma = params["gamma"]
        value = (1.0 - gamma) * np.power(gamma, safe - 1.0)
    else:
        assert n is not None  # checked above: linear exposure needs n
        value = 1.0 - safe / float(n)
    value = np.where(usable, value, 0.0)
    return np.repeat(value[:, None], len(cutoffs), axis=1)


def imputed_positions(jr, n: int) -> list[np.ndarray]:
    """Per topic: the positions p_1 < … < p_m after pessimistic imputation in n documents."""
    relevant, found, m, _ = _retrieval(jr)
    topic, rank = np.nonzero(relevant)
    within = hits(jr, relevant.shape[1])[topic, rank].astype(np.int64) - 1
    width = int(m.max(initial=0))
    positions = np.zeros((jr.n_topics, max(width, 1)), dtype=np.int64)
    keep = within < m[topic]
    positions[topic[keep], within[keep]] = rank[keep] + 1
    j = np.arange(positions.shape[1])[None, :]
    imputed = n - m[:, None] + 1 + j
    positions = np.where(j >= found[:, None], imputed, positions)
    return [positions[t, : m[t]] for t in range(jr.n_topics)]


def parse_epsilon(text: str) -> Fraction:
    value = Fraction(text)
    if not 0 < value < 1:
        raise UsageError(f"metric-LR: eps={text!r} must be in (0, 1)")
    return value


def metric_lexirecall_exact(positions, n: int, eps: Fraction = Fraction(1, 2)) -> Fraction:
    """Exact metric lexirecall of one ranking (Diaz et al. §7.3.2) from the sorted positions
    of its m relevant documents in a corpus of n; 0 when m = 0."""
    positions = [int(p) for p in positions]
    if not positions:
        return Fraction(0)
    delta = 1 / (n + Fraction(eps))
    q = delta / (1 + delta)
    c = 1 / (1 + delta)
    total = Fraction(positions[0])
    for p in positions[1:]:
        total = q * total + c * p
    return 1 - total / n


def metric_lexirecall(jr, params, cutoffs):
    """Metric lexirecall (exact rationals, rounded to double for output)."""
    n = collection_size(jr, params)
    if n is None:
        raise UsageError("metric-LR needs the collection size n (give metric-LR(n=N))")
    eps = parse_epsilon(params["eps"])
    _, found, m, _ = _retrieval(jr)
    _check_n(jr, n, found, m, "metric-LR")
    key = ("metric-LR", n, eps, relevance_key(jr))
    if key not in jr.cache:
        exact = [metric_lexirecall_exact(p, n, eps) for p in imputed_positions(jr, n)]
        jr.cache[key] = exact
    value = np.array([float(x) for x in jr.cache[key]])
    return np.repeat(value[:, None], len(cutoffs), axis=1)


def relevance_key(jr) -> int:
    return int(jr.material.rel_level)


def _check_eps(text: str) -> str | None:
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return "must be a fraction such as 1/2 or a decimal"
    return None if 0 < value < 1 else "must be in (0, 1)"


_spec = family_registrar(FAMILY, reference=SOURCE, cutoff="none")


_N = Param(
    "n", int, 0, "collection size for pessimistic imputation (0 = unknown: n → ∞)", non_negative
)
_N_REQUIRED = Param(
    "n", int, 0, "the collection size: number of documents", non_negative, required=True
)
_DOC = "Binary trec_eval relevance on per-document grades (max over subtopics)."


def _tse_compute(exposure: str):
    def compute(jr, params, cutoffs):
        return tse(jr, params, cutoffs, exposure)

    compute.__doc__ = f"TSE with the {exposure} exposure (Diaz et al. Eq. 3)."
    return compute


_TSE_NOTE = (
    " Without n (n=0, the default) the limit n → ∞ is used: 0 whenever a relevant "
    "document is unretrieved. 0 for topics without relevant documents. " + _DOC
)
_spec(
    "TSE-ap",
    _tse_compute("ap"),
    "total search efficiency, exposure 1/i: 1 / position of the last relevant document",
    params=(_N,),
    aliases=("TSE",),
    notes="TSE with the AP/RR exposure e(i) = 1/i." + _TSE_NOTE,
)
_spec(
    "TSE-ndcg",
    _tse_compute("ndcg"),
    "total search efficiency, exposure 1/log2(i+1)",
    params=(_N,),
    notes="TSE with the nDCG exposure." + _TSE_NOTE,
)
_spec(
    "TSE-rbp",
    _tse_compute("rbp"),
    "total search efficiency, exposure (1 − γ)·γ^{i−1}",
    params=(Param("gamma", float, 0.8, "RBP persistence γ", in_open_unit_interval), _N),
    notes="TSE with the RBP exposure." + _TSE_NOTE,
)
_spec(
    "TSE-linear",
    _tse_compute("linear"),
    "total search efficiency, exposure 1 − i/n (needs n)",
    params=(_N_REQUIRED,),
    notes="Refuses to run without the collection size n. " + _DOC,
)
_spec(
    "metric-LR",
    metric_lexirecall,
    "metric lexirecall: a score that orders rankings as lexirecall does (needs n)",
    params=(
        _N_REQUIRED,
        Param("eps", str, "1/2", "ε in (0, 1), as a fraction or decimal", _check_eps),
    ),
    aliases=("metric-lexirecall", "mLR"),
    notes="Computed exactly in rational arithmetic, then rounded to a double: printed values "
    "may tie (e.g. n = 10^9) where the exact values, and lexirecall, do not; compare runs "
    "with divaeval.metrics.families.recall.metric_lexirecall_exact. Needs n. 0 for topics "
    "without relevant documents. " + _DOC,
)
