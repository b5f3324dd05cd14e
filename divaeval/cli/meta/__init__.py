"""``divaeval meta ...``: meta-evaluation of metrics, one module per analysis (as in
:mod:`divaeval.api.meta`). Discriminative power, rank correlation, intuitiveness and unanimity
work on the score tables of runs over every qrels topic; agreement and degradation on runs
and qrels; document selection sensitivity on the qrels alone; axioms and ties on generated
cases."""

from __future__ import annotations

import click

from divaeval.cli.meta import (
    agreement,
    axioms,
    correlation,
    degradation,
    intuitiveness,
    power,
    sensitivity,
    ties,
    unanimity,
)


@click.group("meta")
def meta_group() -> None:
    """Meta-evaluation of metrics: on a set of runs (discriminative power, rank correlation,
    intuitiveness, metric unanimity), on the qrels (document selection sensitivity), or on
    generated cases (formal constraints, tie probabilities)."""


for command in (
    power.discriminative_power_command,
    correlation.correlation_command,
    intuitiveness.intuitiveness_command,
    unanimity.unanimity_command,
    agreement.agreement_command,
    degradation.degradation_command,
    sensitivity.sensitivity_command,
    axioms.axioms_command,
    ties.ties_command,
):
    meta_group.add_command(command)
