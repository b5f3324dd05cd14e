"""Metrics: pure functions in family modules, declared in one registry.

Families live in :mod:`divaeval.metrics.families`; each module registers its metrics when
imported. Adding a metric is one function plus one :func:`register` call in its family
module; adding a family is one module plus one entry in :data:`FAMILIES` (which also fixes the
family's place in the output order; :mod:`divaeval.metrics.registry` imports the families).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from divaeval.metrics.parse import parse_measure, parse_measures
from divaeval.metrics.registry import (
    FAMILIES,
    all_specs,
    get_spec,
    load_families,
    load_next_family,
    register,
    register_preset,
)
from divaeval.metrics.spec import Measure, MetricSpec, Param


def compute_measures(jr, measures: Sequence[Measure]) -> dict[Measure, np.ndarray]:
    """Evaluate ``measures`` on one judged run: each (metric, parameters) group is computed
    once for all of its cutoffs. Returns measure -> float array over ``jr.topics``."""
    groups: dict[tuple, list[Measure]] = {}
    for measure in measures:
        groups.setdefault((measure.spec.name, measure.params), []).append(measure)
    out: dict[Measure, np.ndarray] = {}
    for group in groups.values():
        spec = group[0].spec
        cutoffs = tuple(m.cutoff for m in group)
        values = np.asarray(spec.compute(jr, group[0].param_dict, cutoffs), dtype=np.float64)
        if values.shape != (jr.n_topics, len(cutoffs)):
            raise AssertionError(f"{spec.name} returned shape {values.shape}")
        for column, measure in enumerate(group):
            out[measure] = values[:, column]
    return out


__all__ = [
    "FAMILIES",
    "Measure",
    "MetricSpec",
    "Param",
    "all_specs",
    "compute_measures",
    "get_spec",
    "load_families",
    "load_next_family",
    "parse_measure",
    "parse_measures",
    "register",
    "register_preset",
]
