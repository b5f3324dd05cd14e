"""The report page's contents from plain data: the score table, the runs' coverage of each
topic and the means with their intervals and tests; :func:`report_html` chooses the figures and
:mod:`divaeval.plots.page` lays them out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from divaeval.plots.coverage import TopicCoverage, coverage_map, topic_spreads
from divaeval.plots.cutoffs import cutoff_curves, cutoff_families
from divaeval.plots.differences import against_baseline
from divaeval.plots.figure import per_topic
from divaeval.plots.heatmap import topic_heatmap
from divaeval.plots.intents import subtopic_breakdown, type_breakdown
from divaeval.plots.page import TopicView, means_table_html, render_page

#: the curves every report draws (k = 1..20), besides the measures asked for
CURVE_FAMILIES = ("alpha-nDCG", "strec")
CURVE_DEPTH = 20


def curve_measures() -> list[str]:
    """The measures of the cutoff curves: ``alpha-nDCG@1,...,20`` and ``strec@1,...,20``."""
    ks = ",".join(str(k) for k in range(1, CURVE_DEPTH + 1))
    return [f"{family}@{ks}" for family in CURVE_FAMILIES]


def verdict(table: pd.DataFrame, measure: str, baseline: str) -> str:
    """One sentence: the best run on ``measure`` and on how many topics it beats the
    baseline."""
    rows = per_topic(table)
    rows = rows[rows["measure"] == measure]
    means = rows.groupby("run", sort=False)["value"].mean()
    best = str(means.idxmax())
    if best == baseline:
        return f"Best run on {measure}: {best}, the baseline."
    wide = rows.pivot_table(index="topic", columns="run", values="value", aggfunc="first")
    delta = (wide[best] - wide[baseline]).dropna()
    return (
        f"Best run on {measure}: {best}. Against the baseline {baseline} it wins on "
        f"{int((delta > 0).sum())} topics and loses on {int((delta < 0).sum())} of {len(delta)}."
    )


def report_html(
    table: pd.DataFrame,
    coverages: Mapping[str, Sequence[TopicCoverage]],
    means: pd.DataFrame,
    *,
    measures: Sequence[str],
    baseline: str,
    signature: str,
    intro: Sequence[str] = (),
    risk_alpha: float | None = None,
    title: str = "divaeval report",
) -> str:
    """The page: ``table`` is the long score table (run, topic, measure, value; per-topic rows
    of every run on every topic, ``all`` rows for the means) holding ``measures`` (the first
    is the main one: heat map, topic order) and the cutoff measures; ``coverages`` run ->
    :class:`TopicCoverage` per topic; ``means`` the means table (run, measure, mean, ci_low,
    ci_high, significant against ``baseline``)."""
    main = measures[0]
    chosen = table[table["measure"].isin(measures)]
    runs = list(dict.fromkeys(table["run"]))
    before = [
        against_baseline(chosen, baseline, measures=list(measures), risk_alpha=risk_alpha),
        topic_heatmap(chosen, [main]),
    ]
    heat_order = [str(r) for r in dict.fromkeys(before[1].data["run"])]
    by_topic = {run: {c.topic: c for c in coverages[run]} for run in runs if run in coverages}
    views = []
    main_rows = per_topic(table)
    main_rows = main_rows[main_rows["measure"] == main]
    values = {(str(r.run), str(r.topic)): float(r.value) for r in main_rows.itertuples()}
    for topic, spread in topic_spreads(table, main):
        present = [by_topic[run][topic] for run in heat_order if topic in by_topic.get(run, {})]
        if not present:
            continue
        scores = {c.run: values[(c.run, topic)] for c in present if (c.run, topic) in values}
        views.append(
            TopicView(
                topic,
                f"{topic} (runs differ by {spread:.2f})",
                [
                    coverage_map(present, scores=scores, measure=main),
                    subtopic_breakdown(present),
                ],
            )
        )
    after = []
    families = cutoff_families(table["measure"].unique())
    if families:
        names = {name for cuts in families.values() for _, name in cuts}
        curves = cutoff_curves(table[table["measure"].isin(names)])
        if curves is not None:
            after.append(curves)
    if coverages:
        covered = {run: coverages[run] for run in heat_order if run in coverages}
        after.append(type_breakdown(covered))
    return render_page(
        title=title,
        intro=intro,
        verdict=verdict(table, main, baseline),
        means_html=means_table_html(means, baseline=baseline),
        means_caption=(
            "Each cell: the run's mean over the topics with a bar of its size, its 95% "
            "confidence interval, and ▲/▼ where it is significantly above/below the "
            f"baseline {baseline}; the best mean of each measure in bold."
        ),
        figures_before=before,
        topic_views=views,
        figures_after=after,
        signature=signature,
    )
