"""``divaeval meta ...``: meta-evaluation of metrics. Discriminative power, rank correlation,
intuitiveness and unanimity work on the score tables of runs over every qrels topic;
document selection sensitivity on the qrels alone."""

from __future__ import annotations

import click

from divaeval.cli.options import (
    MAX_RESAMPLES,
    analysis_inputs,
    measure_option,
    output_options,
    plot_option,
    resampling_options,
    runs_and_qrels,
    scores_option,
    seed_option,
    settings_from,
    settings_options,
)
from divaeval.cli.output import progress_bar, resolve_format, write_table, write_tables
from divaeval.cli.paths import INPUT
from divaeval.errors import UsageError
from divaeval.settings import COMPARING, JUDGING


@click.group("meta")
def meta_group() -> None:
    """Meta-evaluation of metrics: on a set of runs (discriminative power, rank correlation,
    intuitiveness, metric unanimity), on the qrels (document selection sensitivity), or on
    generated cases (formal constraints, tie probabilities)."""


@meta_group.command("discriminative-power")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@resampling_options("bootstrap", ("bootstrap", "tukey-hsd"))
@plot_option("the ASL curves")
@click.option(
    "--overlap",
    is_flag=True,
    help="print, for every pair of metrics, the run pairs significant under the first only, "
    "both, and the second only (Sakai 2012, Table 4)",
)
@settings_options(*JUDGING)
@output_options
def discriminative_power_command(
    files,
    measures,
    score_files,
    test,
    B,
    seed,
    significance,
    plot,
    overlap,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Share of run pairs each metric finds significant, and the estimated performance
    difference required (Sakai 2012, Figures 3 and 5)."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    fmt = resolve_format(output_format, output)
    settings = settings_from(options)
    with progress_bar("resampling each metric") as bar:
        result = api.discriminative_power(
            **analysis_inputs(files, score_files, settings),
            measures=measures,
            test=test,
            samples=B,
            seed=seed,
            alpha=significance,
            plot=plot,
            progress=None if bar is None else (lambda metric, done, total: bar(done, total)),
            settings=settings,
        )
    write_table(
        result.overlap if overlap else result.frame,
        fmt,
        output,
        key="metric_a" if overlap else "metric",
        precision=precision,
        signature=result.signature,
        title="significant pairs shared" if overlap else "discriminative power",
        show_signature=signature,
        resampled=True,
    )


@meta_group.command("correlation")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--matrix",
    type=click.Choice(["tau_b", "tau_a", "tau_ap", "tau_ap_sym"]),
    default=None,
    help="print one coefficient as a metric x metric matrix "
    "(default: a long table with every coefficient)",
)
@plot_option("each pair of metrics' run means against each other, with Kendall's tau")
@settings_options(*JUDGING)
@output_options
def correlation_command(
    files,
    measures,
    score_files,
    matrix,
    plot,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Kendall's tau (tau-b, tau-a) and tau_ap (Yilmaz et al.; and its symmetric version)
    between the system rankings induced by each pair of metrics."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    api.check_plot(plot)  # before any work
    settings = settings_from(options)
    result = api.correlation(
        **analysis_inputs(files, score_files, settings),
        measures=measures,
        matrix=matrix,
        settings=settings,
    )
    if plot:
        result.plot(plot)
    write_table(
        result.frame,
        resolve_format(output_format, output),
        output,
        key="metric" if matrix else "metric_a",
        precision=precision,
        signature=result.signature,
        title="rank correlation",
        show_signature=signature,
    )


@meta_group.command("intuitiveness")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--gold",
    "golds",
    multiple=True,
    required=True,
    metavar="MEASURE",
    help="gold-standard measure (e.g. I-rec@10 or strec@10, EfP@10); one or two",
)
@settings_options(*JUDGING)
@output_options
def intuitiveness_command(
    files, measures, score_files, golds, output_format, precision, output, signature, **options
) -> None:
    """Sakai's intuitiveness test (2012, Figure 6): for each pair of metrics, of the run pairs
    on which they disagree, how often each agrees with the gold standard(s)."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    settings = settings_from(options)
    result = api.intuitiveness(
        **analysis_inputs(files, score_files, settings),
        measures=measures,
        gold=list(golds),
        settings=settings,
    )
    write_table(
        result.frame,
        resolve_format(output_format, output),
        output,
        key="metric_1",
        precision=precision,
        signature=result.signature,
        title="intuitiveness",
        show_signature=signature,
    )


@meta_group.command("unanimity")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@click.option(
    "--simulate",
    default=None,
    metavar="SCENARIO",
    help="alter runs and qrels at random first (Amigó et al. §6.3, Table 2): shorter, "
    "cutoff50, or grades, weights, lengths=run, lengths=N joined with +",
)
@seed_option()
@plot_option("each metric's unanimity as a bar")
@settings_options(*JUDGING)
@output_options
def unanimity_command(
    files,
    measures,
    score_files,
    simulate,
    seed,
    plot,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Metric Unanimity (Amigó et al. 2018, §6.1): PMI (base 2) between a metric's
    preferences and the unanimous preferences of the other metrics; ties count 0.5."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    api.check_plot(plot)  # before any work
    settings = settings_from(options)
    result = api.unanimity(
        **analysis_inputs(files, score_files, settings),
        measures=measures,
        simulate=simulate,
        seed=seed,
        settings=settings,
    )
    if plot:
        result.plot(plot)
    write_table(
        result.frame,
        resolve_format(output_format, output),
        output,
        key="metric",
        precision=precision,
        signature=result.signature,
        title="unanimity",
        show_signature=signature,
        resampled=simulate is not None,
    )


@meta_group.command("agreement")
@click.argument("files", nargs=-1, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@settings_options(*COMPARING)
@output_options
def agreement_command(files, measures, output_format, precision, output, signature, **options):
    """Agreement of lexirecall with other metrics (Diaz, Ekstrand & Mitra, Figs. 8-10): per
    metric, the share of its decided ranking comparisons on which lexirecall prefers the same
    run, Kendall's tau-b between its ordering of the runs and lexirecall's MC4 ordering, and
    its share of ties [default metrics: R@1000, Rprec, AP, nDCG, RR, nDCG@10]."""
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval import api

    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files, at_least=2)
    result = api.agreement(runs, qrels, measures, settings=settings)
    write_table(
        result.frame,
        resolve_format(output_format, output),
        output,
        key="measure",
        precision=precision,
        signature=result.signature,
        title="agreement with lexirecall",
        show_signature=signature,
    )


@meta_group.command("degradation")
@click.argument("files", nargs=-1, metavar="RUN... QRELS", type=INPUT)
@measure_option()
@click.option(
    "--fractions",
    default="0.1,0.3,0.5,0.7,0.9",
    show_default=True,
    metavar="F,...",
    help="shares of each topic's relevant documents to remove (one is always kept)",
)
@click.option(
    "--sampling",
    type=click.Choice(["uniform", "popular"]),
    default="uniform",
    show_default=True,
    help="draw the removed documents uniformly, or weighted by the number of runs retrieving them",
)
@click.option(
    "-B",
    "--samples",
    type=click.IntRange(1, MAX_RESAMPLES),
    default=None,
    help="samples per fraction [default: 10]",
)
@seed_option()
@settings_options(*COMPARING)
@output_options
def degradation_command(
    files,
    measures,
    fractions,
    sampling,
    samples,
    seed,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Label degradation (Diaz, Ekstrand & Mitra §6.2.4, Figs. 12-13): remove a share of
    every topic's relevant documents, and report per metric and lexirecall the share of tied
    ranking comparisons and the agreement of the decided ones with the complete labels,
    averaged over seeded samples [default metrics: R@1000, Rprec, AP, nDCG, RR, nDCG@10]."""
    # divaeval's library is loaded once the command runs: --help stays free of numpy
    from divaeval import api

    settings = settings_from(options)
    runs, qrels = runs_and_qrels(files, at_least=2)
    result = api.degradation(
        runs,
        qrels,
        measures,
        fractions=_fractions(fractions),
        sampling=sampling,
        samples=samples,
        seed=seed,
        settings=settings,
    )
    write_table(
        result.frame,
        resolve_format(output_format, output),
        output,
        key="fraction",
        precision=precision,
        signature=result.signature,
        title="label degradation",
        show_signature=signature,
        resampled=True,
    )


def _fractions(text: str) -> list[float]:
    """``--fractions``: comma-separated numbers in [0, 1]."""
    values = []
    for piece in text.split(","):
        try:
            value = float(piece)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"--fractions: {piece.strip()!r} is not a number between 0 and 1")
        values.append(value)
    return values


@meta_group.command("sensitivity")
@click.argument("qrels", metavar="QRELS", type=INPUT)
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
    "-B",
    "--samples",
    "-L",
    "samples",
    type=click.IntRange(2, MAX_RESAMPLES),
    default=1000,
    show_default=True,
    help="random permutations of each topic's relevant documents",
)
@seed_option()
@settings_options(
    "mean",
    "dd_exponent",
    "rel_level",
    "intents",
    "topics",
    help={"rel_level": "relevant iff the document's largest grade >= this"},
)
@click.option("-q", "--per-topic", is_flag=True, help="also print per-topic values")
@click.option(
    "--grid",
    "grids",
    multiple=True,
    metavar="NAME=START:STOP:STEP,...",
    help="evaluate each measure at every point of a parameter grid (e.g. "
    "alpha=0:1:0.1,lambda=0:1:0.1) on the same sampled lists and report the largest topic "
    "average and its argmax (Golbus Table 10); repeatable",
)
@click.option(
    "--all-points",
    is_flag=True,
    help="with --grid: print the topic average at every grid point (Golbus Figure 7)",
)
@plot_option("the measures x topics grid of dss")
@settings_options("jobs", "scheduler")
@output_options
def sensitivity_command(
    qrels,
    measures,
    cutoffs,
    samples,
    seed,
    per_topic,
    grids,
    all_points,
    plot,
    output_format,
    precision,
    output,
    signature,
    **options,
) -> None:
    """Document selection sensitivity of each measure on QRELS (Golbus et al. 2013, §7,
    Eq. 11): per topic, the coefficient of variation of the measure over random permutations
    of the topic's relevant documents, averaged over topics. With --grid, the largest average
    over a grid of the measures' parameters and where it is reached. The seed and the number
    of samples are reported."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    api.check_plot(plot)  # before any work
    fmt = resolve_format(output_format, output)
    settings = settings_from(options)
    if not grids and all_points:
        raise UsageError("--all-points needs --grid")
    if grids and per_topic:
        raise UsageError("-q prints one measure's per-topic values; with --grid use --all-points")
    with progress_bar("sampling rankings of each topic") as progress:
        result = api.sensitivity(
            qrels,
            measures,
            cutoff=list(cutoffs),
            samples=samples,
            seed=seed,
            grid=list(grids),
            progress=progress,
            settings=settings,
        )
    if plot:  # drawn before the table is printed: a closed pipe cannot lose it
        result.plot(plot)
    if grids:
        frame, key = result.grid(all_points=all_points), "measure"
    elif fmt == "trec_eval":
        frame, key = result.wide(per_topic=per_topic), "topic"
    else:
        frame, key = result.table(per_topic=per_topic), "measure"
    write_table(
        frame,
        fmt,
        output,
        key=key,
        precision=precision,
        signature=result.signature,
        title="document selection sensitivity",
        show_signature=signature,
        resampled=True,
    )


@meta_group.command("axioms")
@measure_option()
@click.option(
    "--table1",
    is_flag=True,
    help="also check the 20 metrics of Amigó et al.'s Table 1 and print the paper's verdicts "
    "beside divaeval's",
)
@click.option(
    "--constraint",
    "constraints",
    multiple=True,
    metavar="NAME",
    help="Pri, Deep, DeepTh, CloseTh, Conf, AspDiv, Red, MRed, Sat, AspRel; repeatable "
    "[default: all ten]",
)
@seed_option()
@click.option(
    "--cases",
    type=click.IntRange(min=0),
    default=400,
    show_default=True,
    help="seeded random cases per constraint (besides the enumerated small ones)",
)
@click.option(
    "--max-length",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="longest ranking searched",
)
@click.option(
    "--top-grade",
    type=click.IntRange(4, 16),
    default=10,
    show_default=True,
    help="the aspects' top grade: ranked grades 1-3 are low against it (r << 1)",
)
@output_options
def axioms_command(
    measures,
    table1,
    constraints,
    seed,
    cases,
    max_length,
    top_grade,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """The ten formal constraints of Amigó et al. (SIGIR 2018, Eqs. 1-10) checked on each
    measure: a measure x constraint matrix (● satisfied, ○ not), a counterexample (qrels, both
    rankings, both scores) for every ○, and the search space of each check. Universal
    constraints are tested on enumerated and seeded random cases, DeepTh, CloseTh and Sat by
    bounded search."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    fmt = resolve_format(output_format, output)
    if not measures and not table1:
        raise UsageError("meta axioms: give -m MEASURE (repeatable) or --table1")
    result = api.axioms(
        list(measures),
        table1=table1,
        constraint=list(constraints),
        seed=seed,
        cases=cases,
        max_length=max_length,
        top_grade=top_grade,
    )
    report, sig = result.report, result.signature
    if fmt in ("jsonl", "json", "csv", "tsv"):
        frame = report.frame(flat=fmt in ("csv", "tsv"))
        write_table(
            frame,
            fmt,
            output,
            key="measure",
            precision=precision,
            signature=sig,
            show_signature=signature,
            resampled=True,
        )
        return
    sections = [
        (
            "axioms (● satisfied, ○ not)",
            result.verdicts(symbols=fmt != "trec_eval"),
            "measure",
        )
    ]
    if fmt == "table":
        examples = result.counterexamples
        if len(examples):
            sections.append(("counterexamples (topic q)", examples, "measure"))
        sections.append(("search spaces", result.spaces, "constraint"))
    write_tables(
        sections,
        fmt,
        output,
        precision=precision,
        signature=sig,
        show_signature=signature,
        resampled=True,
    )


@meta_group.command("ties")
@click.option(
    "--n",
    "sizes_n",
    multiple=True,
    required=True,
    type=click.IntRange(min=1),
    help="number of items ranked; repeatable",
)
@click.option(
    "--m",
    "sizes_m",
    multiple=True,
    type=click.IntRange(min=1),
    help="number of relevant items; repeatable (not with --worst-case)",
)
@click.option(
    "-k",
    "--cutoff",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="k of the analytic R@k",
)
@measure_option()
@click.option(
    "-B",
    "--samples",
    type=click.IntRange(1, MAX_RESAMPLES),
    default=None,
    help="Monte Carlo pairs [default: 1000; 10000 with --worst-case]",
)
@seed_option()
@click.option(
    "--depth",
    "depths",
    multiple=True,
    type=click.IntRange(min=0),
    help="cut the rankings at this depth and impute the missed relevant items at the bottom "
    "(Diaz et al. §2.2); repeatable; without --m, their Figure 6 (m ~ U(5, 50) per request)",
)
@click.option(
    "--requests",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="requests averaged by --depth without --m (Figure 6)",
)
@click.option(
    "--worst-case",
    is_flag=True,
    help="Diaz et al.'s Table 2: m ~ U(5, 50) per pair; the fraction of pairs tied in the "
    "worst case and each measure's agreement with it [default measures: TSE-ap, R@1000, "
    "Rprec, AP, nDCG over the whole ranking]",
)
@output_options
def ties_command(
    sizes_n,
    sizes_m,
    cutoff,
    measures,
    samples,
    seed,
    depths,
    requests,
    worst_case,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Tie probabilities for two random complete rankings of n items with m relevant (Diaz,
    Ekstrand & Mitra, §5.3): exact for TSE, R@k, R-precision and lexirecall, Monte Carlo
    (seeded) for any measure given with -m; or, with --worst-case, their Table 2."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval import api

    if worst_case and (sizes_m or depths):
        raise UsageError("meta ties: --worst-case draws m ~ U(5, 50); do not give --m or --depth")
    if not worst_case and not sizes_m and not depths:
        raise UsageError("meta ties: give --m M (the number of relevant items) or --depth")
    fmt = resolve_format(output_format, output)
    result = api.ties(
        list(sizes_n),
        list(sizes_m),
        cutoff=cutoff,
        measures=list(measures),
        samples=samples,
        seed=seed,
        worst_case=worst_case,
        depth=list(depths),
        requests=requests,
    )
    frame, sig, title = result.frame, result.signature, result.title
    write_table(
        frame,
        fmt,
        output,
        key="n",
        precision=precision,
        signature=sig,
        title=title,
        show_signature=signature,
        resampled=worst_case or bool(measures) or bool(depths),
    )
