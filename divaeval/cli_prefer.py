"""``divaeval prefer`` (lexicographic preferences between runs, pref_eval's lexirecall,
lexiprecision and rrlexiprecision) and ``divaeval meta sensitivity`` (document selection
sensitivity, Golbus et al. 2013 §7).

Both commands follow the analysis-table conventions of ``divaeval compare``/``meta``: ``-f``
defaults to a rich table on a terminal and csv otherwise; machine formats (csv, tsv, jsonl,
trec_eval) print the settings signature on stderr, ``json`` and ``table`` carry it in the output.
"""

from __future__ import annotations

import click

from divaeval.cli_meta import _default_format, output_options

_SECTIONS = ("values", "pairs", "ranking")


def _write_sections(sections, fmt: str, output, *, precision: int, signature: str) -> None:
    """Write several (title, frame, key) tables to one stream (table and latex formats), or
    the single table of a machine format."""
    from divaeval.cli import _emit
    from divaeval.report.frames import write_frame

    if fmt in ("csv", "tsv", "jsonl", "trec_eval") and signature:
        click.echo(f"divaeval: signature: {signature}", err=True)

    def writer(out) -> None:
        for number, (title, frame, key) in enumerate(sections):
            last = number == len(sections) - 1
            if number and fmt in ("table", "latex"):
                out.write("\n")
            write_frame(
                frame,
                out,
                fmt,
                key=key,
                precision=precision,
                signature=signature if last else "",
                title=title,
            )

    _emit(writer, output)


def _keyed(frame, columns: list[str], name: str = "key"):
    """``frame`` with ``columns`` joined by tabs into one leading key column (trec_eval
    layout: ``column<TAB>key fields...<TAB>value``)."""
    keyed = frame.drop(columns=columns)
    keyed.insert(0, name, frame[columns].astype(str).agg("\t".join, axis=1))
    return keyed


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
    measures = [m for m in dict.fromkeys(frame["measure"])]
    return _keyed(wide[["run_a", "run_b", "topic", *measures]], ["run_a", "run_b", "topic"])


@click.command("prefer")
@click.argument("files", nargs=-1, required=True, metavar="RUN... QRELS")
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
@click.option(
    "--correction",
    type=click.Choice(["holm", "bh", "bonferroni", "none"]),
    default="holm",
    show_default=True,
    help="multiple-comparison correction of the sign tests (per measure)",
)
@click.option(
    "--alpha",
    "significance",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="significance level (adjusted p < alpha)",
)
@click.option(
    "-l",
    "--rel-level",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="relevant iff the document's largest grade >= this (pref_eval's -b)",
)
@click.option(
    "-M",
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="keep the first N documents per topic after ordering (pref_eval's --topk)",
)
@click.option(
    "--order",
    type=click.Choice(["score", "rank", "file"]),
    default="score",
    show_default=True,
    help="ranking order (score = pref_eval's and trec_eval's: score desc, docno desc)",
)
@click.option(
    "--dedupe",
    type=click.Choice(["error", "first"]),
    default="error",
    show_default=True,
    help="a docno repeated in a topic: error, or keep the first copy (pref_eval crashes)",
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
@output_options
@click.option("--signature", is_flag=True, help="print the settings signature on stderr")
def prefer_command(
    files,
    measures,
    per_topic,
    no_summary,
    methods,
    correction,
    significance,
    rel_level,
    depth,
    order,
    dedupe,
    run_names,
    which,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Lexicographic preferences between every pair of RUNs (QRELS last): lexirecall,
    lexiprecision and rrlexiprecision exactly as pref_eval computes them. Per pair: wins, ties,
    losses, the mean preference and a two-sided sign test with correction; runs ranked by MC4
    and Borda. Values are +1 when run_a (the earlier run) is preferred, -1 when run_b is."""
    from divaeval import __version__
    from divaeval.errors import UsageError
    from divaeval.preferences import pair_table, preferences, ranking_table

    if len(files) < 3:
        raise UsageError("need at least two RUNs and the QRELS file (qrels last)")
    fmt = _default_format(output_format)
    methods = list(methods) or ["mc4", "borda"]
    if which is None:
        which = "all" if fmt in ("table", "latex") else "values"
    if which == "all" and fmt not in ("table", "latex"):
        raise UsageError(f"--table all needs -f table or latex; with -f {fmt} choose one table")
    prefs = preferences(
        list(files[:-1]),
        files[-1],
        measures,
        rel_level=rel_level,
        depth=depth,
        order=order,
        dedupe=dedupe,
        run_names=run_names,
    )
    sig = (
        f"divaeval {__version__}|prefer|order={order}|rel={rel_level}|"
        f"depth={depth or 'all'}|dedupe={dedupe}|topics={len(prefs.topics)}|"
        f"test=sign|correction={correction}|alpha={significance}|"
        f"aggregate={','.join(methods)}|measures={','.join(prefs.measures)}"
    )
    if signature:
        click.echo(sig, err=True)
    parts = list(_SECTIONS) if which == "all" else [which]
    sections = []
    for part in parts:
        if part == "values":
            if which == "all" and not per_topic:
                continue  # the means are in the pairs table
            frame = prefs.long_frame(per_topic=per_topic, summary=not no_summary)
            if fmt == "trec_eval":
                sections.append(("preferences", _values_for_trec_eval(frame), "key"))
            else:
                sections.append(("preferences", frame, "run_a"))
        elif part == "pairs":
            frame = pair_table(prefs, correction=correction, alpha=significance)
            if fmt == "trec_eval":
                frame = _keyed(frame, ["measure", "run_a", "run_b"])
                sections.append(("pairs", frame, "key"))
            else:
                sections.append(("pairs: sign test", frame, "measure"))
        else:
            frame = ranking_table(prefs, methods)
            if fmt == "trec_eval":
                frame = _keyed(frame, ["measure", "method", "rank"])
                sections.append(("ranking", frame, "key"))
            else:
                sections.append(("ranking", frame, "measure"))
    _write_sections(sections, fmt, output, precision=precision, signature=sig)


@click.command("sensitivity")
@click.argument("qrels", metavar="QRELS")
@click.option(
    "-m",
    "--measure",
    "measures",
    multiple=True,
    required=True,
    metavar="MEASURE",
    help="NAME[(p=v,...)][@k,...]; repeatable; without @k the -k cutoffs apply",
)
@click.option(
    "-k",
    "--cutoff",
    "cutoffs",
    multiple=True,
    type=click.IntRange(min=1),
    help="cutoff for measures given without @k; repeatable [default: 20]",
)
@click.option(
    "--samples",
    "-L",
    type=click.IntRange(min=2),
    default=1000,
    show_default=True,
    help="random permutations of each topic's relevant documents",
)
@click.option("--seed", type=int, default=None, help="random seed (default 42; always reported)")
@click.option(
    "--mean",
    type=click.Choice(["avg", "geom", "dd"]),
    default="avg",
    show_default=True,
    help="topic average: arithmetic, geometric, or weighted by 1 - diversity difficulty",
)
@click.option(
    "-l",
    "--rel-level",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="relevant iff the document's largest grade >= this",
)
@click.option("--intents", type=str, default=None, metavar="FILE", help="intent probabilities")
@click.option("--topics", "topics_file", type=str, default=None, metavar="FILE", help="topics XML")
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@output_options
@click.option("--signature", is_flag=True, help="print the settings signature on stderr")
def sensitivity_command(
    qrels,
    measures,
    cutoffs,
    samples,
    seed,
    mean,
    rel_level,
    intents,
    topics_file,
    per_topic,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Document selection sensitivity of each measure on QRELS (Golbus et al. 2013, §7,
    Eq. 11): per topic, the coefficient of variation of the measure over random permutations
    of the topic's relevant documents, averaged over topics. The seed and the number of
    samples are reported."""
    from divaeval import __version__
    from divaeval.meta.sensitivity import DEFAULT_CUTOFF, sensitivity

    fmt = _default_format(output_format)
    result = sensitivity(
        qrels,
        measures,
        cutoffs=list(cutoffs) or [DEFAULT_CUTOFF],
        samples=samples,
        seed=seed,
        mean=mean,
        rel_level=rel_level,
        intents=intents,
        topics=topics_file,
    )
    sig = f"divaeval {__version__}|{result.signature}"
    if signature:
        click.echo(sig, err=True)
    if fmt == "trec_eval":
        frame, key = result.wide_frame(per_topic=per_topic), "topic"
    else:
        frame, key = result.frame(per_topic=per_topic), "measure"
        frame.insert(frame.columns.get_loc("samples") + 1, "seed", result.seed)
    _write_sections(
        [("document selection sensitivity", frame, key)],
        fmt,
        output,
        precision=precision,
        signature=sig,
    )
