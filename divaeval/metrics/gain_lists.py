"""NTCIREVAL's ``gcompute`` measures on one gain list and its ideal list (rows are topics,
or topic × intent pairs): MSnDCG, the blended ratio, Q, P+, nERR and Järvelin–Kekäläinen nDCG
(Sakai, WWW 2012, Eqs. 1-4; NTCIREVAL 190111). Every value at cutoff l uses only the top l (cut-off
first); no cutoff means the whole list (Q is then the Q-measure, divided by R)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from divaeval.metrics.common import at_cutoffs, log2_discount, safe_divide

#: relative tolerance of gain equality (P+'s preferred rank)
GAIN_TOLERANCE = 1e-9


def _ranks(length: int) -> np.ndarray:
    return np.arange(1.0, length + 1.0)[None, :]


def discounted_ratio(gains: np.ndarray, ideal: np.ndarray, discount, cutoffs) -> np.ndarray:
    """Σ_{r≤l} G(r)·D(r) ÷ Σ_{r≤l} G*(r)·D(r): a D-measure with the rank discount D (Sakai et
    al. 2010; Golbus et al. 2013 §6.1 item 4 with any discount of their Table 4)."""
    weights = np.asarray(discount)[None, : gains.shape[1]]
    system = at_cutoffs(np.cumsum(gains * weights, axis=1), cutoffs)
    best = at_cutoffs(np.cumsum(ideal * weights, axis=1), cutoffs)
    return safe_divide(system, best)


def ms_ndcg(gains: np.ndarray, ideal: np.ndarray, cutoffs) -> np.ndarray:
    """MSnDCG@l = Σ_{r≤l} G(r)/log(r+1) ÷ Σ_{r≤l} G*(r)/log(r+1) (paper Eq. 1)."""
    return discounted_ratio(gains, ideal, log2_discount(gains.shape[1]), cutoffs)


def blended_ratio(gains: np.ndarray, ideal: np.ndarray, beta: float):
    """(relevant, count, BR) with BR(r) = (β·CG(r) + count(r)) / (β·CG*(r) + r) (Eq. 2)."""
    relevant = gains > 0
    count = np.cumsum(relevant, axis=1, dtype=np.int64)
    ratio = (beta * np.cumsum(gains, axis=1) + count) / (
        beta * np.cumsum(ideal, axis=1) + _ranks(gains.shape[1])
    )
    return relevant, count, ratio


def _cutoff_denominator(count: np.ndarray, cutoffs) -> np.ndarray:
    """min(l, R) per cutoff (R without a cutoff), shape [rows, C]."""
    columns = [count if k is None else np.minimum(count, k) for k in cutoffs]
    return np.stack(columns, axis=1).astype(np.float64)


def q_measure(gains, ideal, count, beta: float, cutoffs) -> np.ndarray:
    """Q@l = Σ_{relevant r≤l} BR(r) / min(l, R) (paper Eq. 3 with the cutoff of §2.1)."""
    relevant, _, ratio = blended_ratio(gains, ideal, beta)
    total = at_cutoffs(np.cumsum(np.where(relevant, ratio, 0.0), axis=1), cutoffs)
    return safe_divide(total, _cutoff_denominator(count, cutoffs))


def p_plus(gains, ideal, beta: float, cutoffs) -> np.ndarray:
    """P+ on the list truncated at l (paper Eq. 4): (1/count(rp))·Σ_{relevant r≤rp} BR(r),
    rp = the first rank whose gain equals the largest gain in the top l; 0 without relevant
    documents."""
    relevant, count, ratio = blended_ratio(gains, ideal, beta)
    summed = np.cumsum(np.where(relevant, ratio, 0.0), axis=1)
    running_max = np.maximum.accumulate(gains, axis=1)
    rows = np.arange(gains.shape[0])
    out = np.zeros((gains.shape[0], len(cutoffs)))
    length = gains.shape[1]
    if length == 0:
        return out
    for column, k in enumerate(cutoffs):
        last = length if k is None else min(k, length)
        top = running_max[:, last - 1]
        reached = gains >= (top * (1.0 - GAIN_TOLERANCE))[:, None]
        rp = np.argmax(reached, axis=1)  # first rank with (a gain equal to) the maximum
        value = safe_divide(summed[rows, rp], count[rows, rp].astype(np.float64))
        out[:, column] = np.where(top > 0, value, 0.0)
    return out


def _err(gains: np.ndarray, gmax: np.ndarray) -> np.ndarray:
    """Running ERR: Σ_{s≤r} (1/s)·π_s·Π_{u<s}(1 − π_u), π = G/(gmax + 1) (NTCIREVAL's nERR)."""
    stop = gains / (gmax + 1.0)[:, None]
    reach = np.cumprod(1.0 - stop, axis=1)
    reach = np.concatenate([np.ones((gains.shape[0], 1)), reach[:, :-1]], axis=1)
    return np.cumsum(stop * reach / _ranks(gains.shape[1]), axis=1)


def n_err(gains, ideal, cutoffs) -> np.ndarray:
    """nERR@l = ERR@l / ideal ERR@l with the ideal's gmax in both."""
    gmax = ideal[:, 0] if ideal.shape[1] else np.zeros(ideal.shape[0])
    system = at_cutoffs(_err(gains, gmax), cutoffs)
    best = at_cutoffs(_err(ideal, gmax), cutoffs)
    return safe_divide(system, best)


@lru_cache(maxsize=32)
def jk_discount(length: int, base: float) -> np.ndarray:
    """Järvelin–Kekäläinen discount: 1 for r ≤ b, else 1/log_b(r) = log b / log r."""
    table = np.array(
        [1.0 if r <= base else math.log(base) / math.log(r) for r in range(1, length + 1)]
    )
    table.setflags(write=False)
    return table


def jk_ndcg(gains, ideal, base: float, cutoffs) -> np.ndarray:
    """NTCIREVAL's ``nDCG@l`` (Järvelin & Kekäläinen 2002, log base b)."""
    discount = jk_discount(gains.shape[1], base)[None, :]
    system = at_cutoffs(np.cumsum(gains * discount, axis=1), cutoffs)
    best = at_cutoffs(np.cumsum(ideal * discount, axis=1), cutoffs)
    return safe_divide(system, best)
