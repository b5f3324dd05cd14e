"""Grade → relevance-probability mappings shared by the utility metrics (RBU, EU, CT-RBU), the
intent-aware family and Cube Test (Amigó et al. SIGIR 2018 §4).

========  =================================  ==================================================
name      value for grade g                  used by
========  =================================  ==================================================
aspect    (2^g − 1) / 2^{g_max(t)}           the RBU reference implementation (RBU v0.1):
                                             g_max(t) = largest grade of aspect t in the topic
scale     (2^g − 1) / 2^G                    textbook ERR (Chapelle et al. 2009), G = scale max
linear    g / G                              Cube Test (Luo et al. 2013), graded RBP
binary    1 if g >= rel_level else 0         ndeval, S-recall, trec_eval's binary measures
========  =================================  ==================================================

Negative grades (the Web Track's −2) count as 0. G is the ``G`` parameter of the metric, or, when
that is 0, the largest grade in the whole qrels file (:attr:`TopicMaterial.qrels_max_grade`). A
grade above G is clipped to G. An aspect (or a collection) without any positive grade maps every
grade to 0: the RBU reference instead divides 0 by 0 (2^{g_max} = 0) and prints NaN;
divaeval does not reproduce that.
"""

from __future__ import annotations

import numpy as np

from divaeval.metrics.spec import Param, non_negative

MAPPINGS: tuple[str, ...] = ("aspect", "scale", "linear", "binary")
MAPPING_HELP = (
    "grade → probability: aspect = (2^g−1)/2^gmax(aspect) (RBU reference), scale = "
    "(2^g−1)/2^G, linear = g/G, binary = [g >= rel_level]"
)


def mapping_param(default: str) -> Param:
    """The shared ``rel`` parameter (see the module docstring)."""
    return Param("rel", str, default, MAPPING_HELP, choices=MAPPINGS)


SCALE_MAX = Param(
    "G",
    int,
    0,
    "scale maximum G of the scale/linear mappings; 0 = the largest grade in the qrels file",
    non_negative,
)


def scale_max(jr, params: dict) -> int:
    """G: the metric's ``G`` parameter, else the largest grade in the qrels file."""
    value = int(params.get("G", 0) or 0)
    return value if value > 0 else int(jr.material.qrels_max_grade)


def grade_probability(
    grades: np.ndarray,
    mapping: str,
    *,
    rel_level: int,
    scale: int,
    aspect_max: np.ndarray | int | None = None,
) -> np.ndarray:
    """Relevance probabilities r(d, t) in [0, 1] for integer ``grades`` (any shape).

    ``aspect_max`` (broadcastable to ``grades``) is g_max(t) of the ``aspect`` mapping; ``scale``
    is G of the ``scale`` and ``linear`` mappings. Values come from a table indexed by grade
    (2^g − 1 is exact in double precision)."""
    if mapping == "binary":
        return (grades >= rel_level).astype(np.float64)
    g = np.maximum(grades, 0)
    levels = np.arange(int(g.max(initial=0)) + 1)
    if mapping == "aspect":
        if aspect_max is None:
            raise ValueError("the aspect mapping needs aspect_max")
        top = np.asarray(aspect_max, dtype=np.int64)
        g = np.minimum(g, top.astype(g.dtype))  # a no-op for grades of the same qrels
        factor = np.where(top > 0, np.ldexp(1.0, -np.maximum(top, 0)), 0.0)
        return (np.ldexp(1.0, levels) - 1.0)[g] * factor
    if scale <= 0:
        return np.zeros(g.shape)
    capped = np.minimum(levels, scale)
    if mapping == "scale":
        table = np.ldexp(np.ldexp(1.0, capped) - 1.0, -scale)
    elif mapping == "linear":
        table = capped / float(scale)
    else:
        raise ValueError(f"unknown grade mapping {mapping!r}")
    return table[g]


def relevance_probabilities(jr, params: dict, length: int) -> np.ndarray:
    """[T, K, S] r(d_i, t) for the first ``length`` ranks, from the ``rel``/``G`` parameters."""
    key = ("utility-prob", params["rel"], params.get("G", 0), length)
    if key not in jr.cache:
        jr.cache[key] = grade_probability(
            jr.padded_to(length),
            params["rel"],
            rel_level=jr.material.rel_level,
            scale=scale_max(jr, params),
            aspect_max=jr.material.max_grade[:, None, :],
        )
    return jr.cache[key]
