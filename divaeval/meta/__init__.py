"""Meta-evaluation of metrics on score tables: discriminative power, rank correlation,
intuitiveness, metric unanimity and rank aggregation (``meta-evaluation.md`` §4, §9-§11, §13).
"""

from divaeval.meta.aggregation import (
    Aggregation,
    aggregate_preferences,
    aggregate_scores,
    borda,
    mc4,
    mean_aggregate,
    net_scores,
    topic_rankings_from_preferences,
    topic_rankings_from_scores,
)
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
    "Aggregation",
    "DiscriminativePower",
    "IntuitivenessResult",
    "MetricDiscriminativePower",
    "UnanimityResult",
    "aggregate_preferences",
    "aggregate_scores",
    "borda",
    "discriminative_power",
    "intuitiveness",
    "intuitiveness_table",
    "kendall_tau",
    "mc4",
    "mean_aggregate",
    "metric_unanimity",
    "metric_unanimity_table",
    "net_scores",
    "plot_asl_curves",
    "rank_correlation",
    "rank_correlation_matrix",
    "rank_correlations",
    "symmetric_tau_ap",
    "system_ranking",
    "tau_ap",
    "topic_rankings_from_preferences",
    "topic_rankings_from_scores",
]
