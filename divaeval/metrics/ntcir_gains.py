"""NTCIREVAL's gains and ideal lists, the material of the NTCIR diversity family
(:mod:`divaeval.metrics.families.ntcir`; Sakai, "Evaluation with Informational and Navigational
Intents", WWW 2012; NTCIREVAL 190111).

- Gains: the per-intent gain g_i(d) is the grade (NTCIREVAL's Lk = k) by default, ``gain=exp``
  gives 2^g − 1 and ``gains=1:1,2:3,3:7`` an explicit map; grades ≤ 0 give 0.
- Global gain GG(d) = Σ_i P(i|q)·g_i(d) (paper Eq. 6); the ideal list holds every document with
  GG > 0 by GG descending (its length is R); per intent, the intent's own ideal list.
- DIN gains (paper Eq. 8): a navigational intent credits only the first retrieved document
  relevant to it.
- ``--compat ntcireval``: gains written as NTCIREVAL writes them (GG with 6 significant digits,
  system gains with 4 decimals).

:func:`tables` gives a judged run's gains and its ideal gains over the ranks its measures need,
cached on the run; :func:`ideal_material` the ideal lists, cached on the qrels' material.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from divaeval.errors import UsageError
from divaeval.metrics.common import depth_for, printf_round, round_significant

COMPAT = "ntcireval"


def parse_gain_map(text: str) -> tuple[tuple[int, float], ...]:
    """``1:1,2:3,3:7`` (or with ``;``) → ((1, 1.0), (2, 3.0), (3, 7.0)); raises ValueError."""
    pairs: dict[int, float] = {}
    for item in text.replace(";", ",").split(","):
        item = item.strip()
        if not item:
            continue
        grade_text, sep, gain_text = item.partition(":")
        if not sep:
            raise ValueError(f"{item!r} is not grade:gain")
        try:
            grade = int(grade_text)
            gain = float(gain_text)
        except ValueError:
            raise ValueError(f"{item!r} is not grade:gain (an integer and a number)") from None
        if grade < 1:
            raise ValueError(f"grade {grade} must be >= 1 (grades <= 0 have gain 0)")
        if not math.isfinite(gain) or gain < 0:
            raise ValueError(f"gain {gain_text!r} must be a finite number >= 0")
        if grade in pairs:
            raise ValueError(f"grade {grade} is mapped twice")
        pairs[grade] = gain
    if not pairs:
        raise ValueError("empty map")
    return tuple(sorted(pairs.items()))


def gain_key(params: dict) -> tuple:
    """Hashable description of the gain mapping of a measure's parameters."""
    mapping = params.get("gains", "")
    kind = params.get("gain", "linear")
    if mapping:
        if kind != "linear":
            raise UsageError("give either gain= or gains=, not both")
        return ("map", parse_gain_map(mapping))
    return (kind,)


def ntcireval_compat(jr) -> bool:
    return jr.settings.compat == COMPAT


def _gain_table(material, key: tuple) -> np.ndarray:
    """Gain of grade g at index g (negative grades are clipped to 0 before the lookup)."""
    top = int(material.max_grade.max(initial=0))
    grades = np.arange(top + 1)
    if key[0] == "linear":
        return grades.astype(np.float64)
    if key[0] == "exp":
        return np.ldexp(1.0, grades) - 1.0
    mapping = dict(key[1])
    present = np.unique(material.pool_grades[material.pool_grades > 0])
    missing = [int(g) for g in present if int(g) not in mapping]
    if missing:
        raise UsageError(
            f"gains map has no gain for grade {missing[0]}, which the qrels use "
            f"(map: {','.join(f'{g}:{v:g}' for g, v in key[1])})"
        )
    table = np.zeros(top + 1)
    for grade, gain in mapping.items():
        if grade <= top:
            table[grade] = gain
    return table


def lookup_gains(table: np.ndarray, grades: np.ndarray) -> np.ndarray:
    return table[np.clip(grades, 0, len(table) - 1)]


def _weighted_intents(gains: np.ndarray, weight: np.ndarray, compat: bool) -> np.ndarray:
    """P(i|q)·g_i per intent column (``gains[T, N, S]``, ``weight[T, S]``); in compat mode
    written with 6 significant digits as NTCIREVAL's din file holds them."""
    values = gains * weight[:, None, :]
    return round_significant(values, 6) if compat else values


def _sum_intents(values: np.ndarray) -> np.ndarray:
    """Σ over intent columns, in column order."""
    total = np.zeros(values.shape[:2])
    for s in range(values.shape[2]):
        total += values[:, :, s]
    return total


def _descending(values: np.ndarray) -> np.ndarray:
    return -np.sort(-values, axis=1)


class Ideal:
    """Ideal material of a topic set for one gain mapping (cached on the material).

    ``table``: grade -> gain; ``global_gains`` [T, P]: GG* descending (zeros after R);
    ``count`` [T]: R, the documents with GG > 0; ``intent_gains`` [T, P, S]: the per-intent
    ideal gains, descending along P; ``intent_count`` [T, S]: R_i; ``has_relevant`` [T, S]:
    the intent has a relevant document. The per-intent lists of a topic subset
    (:meth:`take`) are cut from the root's only when used (P+Q alone needs them)."""

    def __init__(
        self,
        table: np.ndarray,
        global_gains: np.ndarray,
        count: np.ndarray,
        has_relevant: np.ndarray,
        intent_gains: np.ndarray | None = None,
        intent_count: np.ndarray | None = None,
        source: tuple[Ideal, np.ndarray] | None = None,
    ):
        self.table = table
        self.global_gains = global_gains
        self.count = count
        self.has_relevant = has_relevant
        self._intent_gains = intent_gains
        self._intent_count = intent_count
        self._source = source  # (the root's ideal, rows) of a topic subset

    @property
    def intent_gains(self) -> np.ndarray:
        if self._intent_gains is None:
            root, rows = self._rooted()
            self._intent_gains = root.intent_gains[rows]
        return self._intent_gains

    @property
    def intent_count(self) -> np.ndarray:
        if self._intent_count is None:
            root, rows = self._rooted()
            self._intent_count = root.intent_count[rows]
        return self._intent_count

    def _rooted(self) -> tuple[Ideal, np.ndarray]:
        if self._source is None:
            raise AssertionError("an ideal without per-intent lists or a root")
        return self._source

    def take(self, rows: np.ndarray) -> Ideal:
        """The ideal material of the topics ``rows``."""
        return Ideal(
            self.table,
            self.global_gains[rows],
            self.count[rows],
            self.has_relevant[rows],
            source=(self, rows),
        )


def ideal_material(material, key: tuple, compat: bool) -> Ideal:
    """The D ideal list (every document with GG > 0, by GG descending) and the
    per-intent ideal lists (Irelv_i), from the topic's positively judged documents; built
    once on the root material (it depends on the qrels alone) and cached."""
    cache_key = ("ntcir-ideal", key, compat)
    cached = material.cache.get(cache_key)
    if cached is not None:
        return cached
    root, rows = material.root()
    if rows is None:
        ideal = _build_ideal(material, key, compat)
    else:
        ideal = ideal_material(root, key, compat).take(rows)
    material.cache[cache_key] = ideal
    return ideal


def _build_ideal(material, key: tuple, compat: bool) -> Ideal:
    """:func:`ideal_material` of a root material."""
    table = _gain_table(material, key)
    pool = lookup_gains(table, material.pool_grades)  # [T, P, S]
    pool = np.where(material.subtopic_valid[:, None, :], pool, 0.0)
    global_pool = _sum_intents(_weighted_intents(pool, material.intent_weight, compat))
    if compat:
        global_pool = round_significant(global_pool, 6)
    return Ideal(
        table=table,
        global_gains=_descending(global_pool),
        count=(global_pool > 0).sum(axis=1),
        intent_gains=_descending(pool),
        intent_count=(pool > 0).sum(axis=1),
        has_relevant=np.asarray((pool > 0).any(axis=1)),
    )


def pad_ranks(values: np.ndarray, length: int) -> np.ndarray:
    """Cut or zero-pad axis 1 to ``length``."""
    if values.shape[1] >= length:
        return values[:, :length]
    shape = list(values.shape)
    shape[1] = length - values.shape[1]
    return np.concatenate([values, np.zeros(shape, dtype=values.dtype)], axis=1)


@dataclass
class Tables:
    """Per-run gains over the first ``length`` ranks (cached on the judged run)."""

    ideal: Ideal
    length: int
    intent: np.ndarray  # [T, K, S] per-intent gains g_i(d_r)
    relevant: np.ndarray  # [T, K, S] g_i(d_r) > 0
    first: np.ndarray  # [T, K, S] d_r is the first document relevant to intent i
    global_gains: np.ndarray  # [T, K] GG(d_r) (paper Eq. 6)
    din_gains: np.ndarray  # [T, K] GG_DIN(d_r) (paper Eq. 8)
    ideal_gains: np.ndarray  # [T, K] GG*(r)


def _length(jr, cutoffs: tuple[int | None, ...], ideal: Ideal) -> int:
    """Ranks of the run and ideal tables: the cutoffs (the ideal's length for a whole-list
    measure), at most what the rankings and the ideal can fill."""
    length = depth_for(cutoffs, jr)
    if any(k is None for k in cutoffs):
        length = max(length, int(ideal.count.max(initial=0)))
    return max(length, 1)


def tables(jr, params: dict, cutoffs: tuple[int | None, ...]) -> Tables:
    """Gains of the run and of the ideal list for ``params``' gain mapping."""
    key = gain_key(params)
    compat = ntcireval_compat(jr)
    material = jr.material
    ideal = ideal_material(material, key, compat)
    length = _length(jr, cutoffs, ideal)
    cache_key = ("ntcir-run", key, compat, length)
    cached = jr.cache.get(cache_key)
    if cached is not None:
        return cached
    intent = lookup_gains(ideal.table, jr.padded_to(length))  # [T, K, S]
    relevant = intent > 0
    first = relevant & (np.cumsum(relevant, axis=1, dtype=np.int32) == 1)
    weighted = _weighted_intents(intent, material.intent_weight, compat)
    global_gains = _sum_intents(weighted)
    counted = ~material.intent_nav[:, None, :] | first  # inf: always; nav: first time only
    din_gains = _sum_intents(np.where(counted, weighted, 0.0))
    if compat:  # the 4-decimal gains of NTCIREVAL's label files (NTCIREVAL 190111)
        global_gains = printf_round(round_significant(global_gains, 6), 4)
        din_gains = printf_round(din_gains, 4)
    result = Tables(
        ideal=ideal,
        length=length,
        intent=intent,
        relevant=relevant,
        first=first,
        global_gains=global_gains,
        din_gains=din_gains,
        ideal_gains=pad_ranks(ideal.global_gains, length),
    )
    jr.cache[cache_key] = result
    return result
