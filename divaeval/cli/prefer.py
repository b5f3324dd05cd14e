"""``divaeval prefer RUN... QRELS``: lexicographic preferences between runs (pref_eval's
lexirecall, lexiprecision and rrlexiprecision), sign tests and MC4/Borda rankings."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    alpha_option,
    correction_option,
    output_options,
    plot_option,
    runs_and_qrels,
    settings_from,
    settings_options,
)
from divaeval.cli.output import keyed_frame as _keyed
from divaeval.cli.paths import INPUT
from divaeval.errors import UsageError
from divaeval.settings import PREFERENCE_COMPATS

_SECTIONS = ("values", "pairs", "ranking")


def _values_for_trec_eval(frame):
    """The long preference table as one wide row per (run_a, run_b, topic): lines
    ``measure<TAB>run_a<TAB>run_b<TAB>topic<TAB>value``."""
    wide = frame.pivot_table(
        index=["run_a", "run_b", "topic"],
        columns="measure",
        values="value",
        aggfunc="first",
        sort=False,
    ).reset_index()
    wide.columns.name = None
    measures = list(dict.fromkeys(frame["measure"]))
    return _keyed(wide[["run_a", "run_b", "topic", *measures]], ["run_a", "run_b", "topic"])


@click.command("prefer")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS", type=INPUT)
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    metavar="MEASURE",
    help="lexirecall | lexiprecision | rrlexiprecision (aliases LR, sgnLR, sgnLP, rrLP); "
    "repeatable; default: all three",
)
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic preferences")
@click.option("-n", "--no-summary", is_flag=True, help="no 'all' rows (mean over topics)")
@click.option(
    "--aggregate",
    "methods",
    multiple=True,
    type=click.Choice(["mc4", "borda"]),
    help="rank aggregation of the runs (pref_eval's aggregator); repeatable; default: both",
)
@correction_option("holm", "multiple-comparison correction of the sign tests (per measure)")
@alpha_option("significance level (adjusted p < alpha)")
@settings_options(
    "rel_level",
    "depth",
    "order",
    "dedupe",
    "compat",
    help={
        "rel_level": "relevant iff the document's largest grade >= this (pref_eval's -b)",
        "depth": "keep the first N documents per topic after ordering (pref_eval's --topk)",
        "order": "ranking order (score = pref_eval's and trec_eval's: score desc, docno desc)",
        "dedupe": "a docno repeated in a topic: error, or keep the first copy (pref_eval crashes)",
        "compat": "pref_eval: its floating-point sums, bit for bit (-0.7999999999999999 where "
        "the exact mean is -0.8)  [default: exact values]",
    },
    defaults={"order": "score"},
    choices={"compat": PREFERENCE_COMPATS},
)
@click.option(
    "--run-names",
    type=click.Choice(["tag", "file"]),
    default="tag",
    show_default=True,
    help="name runs by their tag (file names when tags are shared) or by file name, as "
    "pref_eval does",
)
@click.option(
    "--table",
    "which",
    type=click.Choice(["values", "pairs", "ranking", "all"]),
    default=None,
    help="which table to print [default: all for table/latex, values otherwise]",
)
@plot_option("each pair's per-topic preferences, sorted")
@output_options
def prefer_command(
    files,
    measures,
    per_topic,
    no_summary,
    methods,
    correction,
    significance,
    run_names,
    which,
    plot,
    out,
    **options,
) -> None:
    """Lexicographic preferences between every pair of RUNs (QRELS last): lexirecall,
    lexiprecision and rrlexiprecision exactly as pref_eval computes them. Per pair: wins, ties,
    losses, the mean preference and a two-sided sign test with correction; runs ranked by MC4
    and Borda. Values are +1 when run_a (the earlier run) is preferred, -1 when run_b is;
    means are exact ((wins - losses) / topics), or pref_eval's own sums with --compat
    pref_eval."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.preferences import prefer
    from divaeval.api.results import check_plot

    check_plot(plot)  # before any work
    runs, qrels = runs_and_qrels(files, at_least=2)
    fmt = out.format
    if which is None:
        which = "all" if fmt in ("table", "latex") else "values"
    if which == "all" and fmt not in ("table", "latex"):
        raise UsageError(f"--table all needs -f table or latex; with -f {fmt} choose one table")
    result = prefer(
        runs,
        qrels,
        measures,
        aggregate=list(methods) or ["mc4", "borda"],
        correction=correction,
        alpha=significance,
        run_names=run_names,
        settings=settings_from(options),
    )
    if plot:
        result.plot(plot)
    parts = list(_SECTIONS) if which == "all" else [which]
    sections = []
    for part in parts:
        if part == "values":
            if which == "all" and not per_topic:
                continue  # the means are in the pairs table
            frame = result.values(per_topic=per_topic, summary=not no_summary)
            if fmt == "trec_eval":
                sections.append(("preferences", _values_for_trec_eval(frame), "key"))
            else:
                sections.append(("preferences", frame, "run_a"))
        elif part == "pairs":
            frame = result.pairs
            if fmt == "trec_eval":
                sections.append(("pairs", _keyed(frame, ["measure", "run_a", "run_b"]), "key"))
            else:
                sections.append(("pairs: sign test", frame, "measure"))
        else:
            frame = result.ranking
            if fmt == "trec_eval":
                sections.append(("ranking", _keyed(frame, ["measure", "method", "rank"]), "key"))
            else:
                sections.append(("ranking", frame, "measure"))
    out.tables(sections, signature=result.signature)
