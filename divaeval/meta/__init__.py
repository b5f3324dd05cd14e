"""Meta-evaluation: analyses that judge metrics rather than runs.

On score tables (runs × topics): discriminative power (Sakai 2006), rank correlation (Kendall's
τ, Yilmaz et al.'s τ_AP), intuitiveness (Sakai, WWW 2012 §4.2) and metric unanimity (Amigó et
al., SIGIR 2018). On the qrels alone: document selection sensitivity (Golbus et al. 2013 §7,
:mod:`.sensitivity`). On constructed rankings: the axioms (Amigó et al., SIGIR 2018,
:mod:`.axioms`) and ties (:mod:`.ties`). A new analysis is a module here, exported below.
"""

from typing import Any

from divaeval.meta.correlation import (
    kendall_tau,
    rank_correlation,
    rank_correlation_matrix,
    rank_correlations,
    symmetric_tau_ap,
    system_ranking,
    tau_ap,
)
from divaeval.meta.discriminative_power import (
    DiscriminativePower,
    MetricDiscriminativePower,
    discriminative_power,
)
from divaeval.meta.intuitiveness import IntuitivenessResult, intuitiveness, intuitiveness_table
from divaeval.meta.unanimity import UnanimityResult, metric_unanimity, metric_unanimity_table

__all__ = [
    "DiscriminativePower",
    "IntuitivenessResult",
    "MetricDiscriminativePower",
    "SensitivityResult",
    "UnanimityResult",
    "discriminative_power",
    "intuitiveness",
    "intuitiveness_table",
    "kendall_tau",
    "metric_unanimity",
    "metric_unanimity_table",
    "rank_correlation",
    "rank_correlation_matrix",
    "rank_correlations",
    "selection_sensitivity",
    "symmetric_tau_ap",
    "system_ranking",
    "tau_ap",
]


def __getattr__(name: str) -> Any:
    """The sensitivity analysis's names, imported when first used: it needs the qrels
    statistics of :mod:`divaeval.collection` and pandas, which the analyses of runs (compare,
    reading score files through :mod:`divaeval.meta.scores`) do not."""
    if name in ("SensitivityResult", "selection_sensitivity"):
        from divaeval.meta.sensitivity import SensitivityResult, selection_sensitivity

        return SensitivityResult if name == "SensitivityResult" else selection_sensitivity
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
