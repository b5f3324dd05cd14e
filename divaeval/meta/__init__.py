"""Meta-evaluation of metrics on score tables (runs × topics): discriminative power, rank
correlation, intuitiveness and metric unanimity (``meta-evaluation.md`` §4, §9-§11)."""

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
    plot_asl_curves,
)
from divaeval.meta.intuitiveness import IntuitivenessResult, intuitiveness, intuitiveness_table
from divaeval.meta.unanimity import UnanimityResult, metric_unanimity, metric_unanimity_table

__all__ = [
    "DiscriminativePower",
    "IntuitivenessResult",
    "MetricDiscriminativePower",
    "UnanimityResult",
    "discriminative_power",
    "intuitiveness",
    "intuitiveness_table",
    "kendall_tau",
    "metric_unanimity",
    "metric_unanimity_table",
    "plot_asl_curves",
    "rank_correlation",
    "rank_correlation_matrix",
    "rank_correlations",
    "symmetric_tau_ap",
    "system_ranking",
    "tau_ap",
]
