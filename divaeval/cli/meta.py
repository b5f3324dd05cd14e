"""``divaeval meta ...``: meta-evaluation of metrics. Discriminative power, rank correlation,
intuitiveness and unanimity work on the score tables of runs over every qrels topic;
document selection sensitivity on the qrels alone."""

from __future__ import annotations

import click

from divaeval import __version__
from divaeval.cli.options import (
    MAX_RESAMPLES,
    check_dd_exponent,
    dd_exponent_option,
    intents_option,
    judging_options,
    mean_option,
    measure_option,
    output_options,
    rel_level_option,
    resampling_options,
    resolve_format,
    score_tables,
    scores_option,
    seed_option,
    topics_option,
    workers_from,
    workers_options,
)
from divaeval.cli.output import progress_bar, write_table, write_tables, written_atomically
from divaeval.cli.paths import INPUT, OUTPUT


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
@click.option(
    "--plot",
    type=OUTPUT,
    default=None,
    metavar="FILE.png",
    help="draw ASL curves (needs matplotlib: pip install 'divaeval[plot]')",
)
@judging_options
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
    output_format,
    precision,
    output,
    signature,
    **judging,
) -> None:
    """Share of run pairs each metric finds significant, and the estimated performance
    difference required (Sakai 2012, Figures 3 and 5)."""
    from divaeval.meta import discriminative_power, plot_asl_curves
    from divaeval.meta.discriminative_power import check_plotting
    from divaeval.stats.significance import DEFAULT_SEED

    if plot:
        check_plotting()  # before any computing
    fmt = resolve_format(output_format)
    runs_given = files[:-1]
    with workers_from(
        judging["jobs"], judging["scheduler"], runs_given, judging["chunk_size"]
    ) as workers:
        runs, tables = score_tables(files, measures, judging, score_files, workers=workers)
        with progress_bar("resampling each metric") as bar:
            result = discriminative_power(
                tables,
                runs,
                test=test,
                B=B,
                seed=DEFAULT_SEED if seed is None else seed,
                alpha=significance,
                progress=None if bar is None else (lambda metric, done, total: bar(done, total)),
                workers=workers,
            )
    if plot:
        with written_atomically(plot) as temporary:  # (the same suffix: the same format)
            plot_asl_curves(result, temporary)
    write_table(
        result.table(),
        fmt,
        output,
        key="metric",
        precision=precision,
        signature=f"divaeval {__version__}|meta discriminative-power|{result.signature}",
        title="discriminative power",
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
@judging_options
@output_options
def correlation_command(
    files, measures, score_files, matrix, output_format, precision, output, signature, **judging
) -> None:
    """Kendall's tau (tau-b, tau-a) and tau_ap (Yilmaz et al.; and its symmetric version)
    between the system rankings induced by each pair of metrics."""
    from divaeval.meta import rank_correlation_matrix, rank_correlations

    fmt = resolve_format(output_format)
    runs, tables = score_tables(files, measures, judging, score_files)
    if matrix:
        frame = rank_correlation_matrix(tables, runs, matrix).reset_index(names="metric")
    else:
        frame = rank_correlations(tables, runs)
    write_table(
        frame,
        fmt,
        output,
        key="metric" if matrix else "metric_a",
        precision=precision,
        signature=f"divaeval {__version__}|meta correlation|runs={len(runs)}|"
        f"topics={'scores' if score_files else 'qrels'}",
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
@judging_options
@output_options
def intuitiveness_command(
    files, measures, score_files, golds, output_format, precision, output, signature, **judging
) -> None:
    """Sakai's intuitiveness test (2012, Figure 6): for each pair of metrics, of the run pairs
    on which they disagree, how often each agrees with the gold standard(s)."""
    from divaeval.meta import intuitiveness_table
    from divaeval.metrics import parse_measures

    fmt = resolve_format(output_format)
    if score_files:  # names as the files write them; without -m every other measure
        from divaeval.meta.scores import choose_measures

        runs, tables = score_tables(files, (), judging, score_files)
        gold_names = choose_measures(list(tables), golds, "--scores")
        others = [name for name in tables if name not in gold_names]
        compared_names = choose_measures(others, measures, "--scores") if measures else others
    else:
        gold_names = [m.name for m in parse_measures(list(golds))]
        wanted = (list(measures) or ["ndeval"]) + list(golds)
        runs, tables = score_tables(files, wanted, judging)
        compared_names = [m.name for m in parse_measures(list(measures) or ["ndeval"])]
    gold = {name: tables[name] for name in gold_names}
    compared = {name: tables[name] for name in compared_names}
    write_table(
        intuitiveness_table(compared, gold, runs),
        fmt,
        output,
        key="metric_1",
        precision=precision,
        signature=f"divaeval {__version__}|meta intuitiveness|gold={'+'.join(gold_names)}|"
        f"runs={len(runs)}",
        title="intuitiveness",
        show_signature=signature,
    )


@meta_group.command("unanimity")
@click.argument("files", nargs=-1, metavar="[RUN... QRELS]", type=INPUT)
@measure_option()
@scores_option()
@judging_options
@output_options
def unanimity_command(
    files, measures, score_files, output_format, precision, output, signature, **judging
) -> None:
    """Metric Unanimity (Amigó et al. 2018, §6.1): PMI (base 2) between a metric's
    preferences and the unanimous preferences of the other metrics; ties count 0.5."""
    from divaeval.meta import metric_unanimity_table

    fmt = resolve_format(output_format)
    runs, tables = score_tables(files, measures, judging, score_files)
    write_table(
        metric_unanimity_table(tables, runs),
        fmt,
        output,
        key="metric",
        precision=precision,
        signature=f"divaeval {__version__}|meta unanimity|runs={len(runs)}|pmi=log2",
        title="unanimity",
        show_signature=signature,
    )


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
@mean_option("topic average: arithmetic, geometric, or weighted by 1 - diversity difficulty")
@dd_exponent_option()
@rel_level_option("relevant iff the document's largest grade >= this")
@intents_option()
@topics_option()
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
@workers_options
@output_options
def sensitivity_command(
    qrels,
    measures,
    cutoffs,
    samples,
    seed,
    mean,
    dd_exponent,
    rel_level,
    intents,
    topics_file,
    per_topic,
    grids,
    all_points,
    jobs,
    scheduler,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Document selection sensitivity of each measure on QRELS (Golbus et al. 2013, §7,
    Eq. 11): per topic, the coefficient of variation of the measure over random permutations
    of the topic's relevant documents, averaged over topics. With --grid, the largest average
    over a grid of the measures' parameters and where it is reached. The seed and the number
    of samples are reported."""
    from divaeval.errors import UsageError
    from divaeval.meta.sensitivity import DEFAULT_CUTOFF, sensitivity
    from divaeval.metrics.grid import parse_grid

    fmt = resolve_format(output_format)
    dd_exponent = check_dd_exponent(mean, dd_exponent)
    grid = parse_grid(grids)
    if grid is None and all_points:
        raise UsageError("--all-points needs --grid")
    if grid is not None and per_topic:
        raise UsageError("-q prints one measure's per-topic values; with --grid use --all-points")
    with (
        workers_from(jobs, scheduler) as workers,
        progress_bar("sampling rankings of each topic") as progress,
    ):
        result = sensitivity(
            qrels,
            measures,
            cutoffs=list(cutoffs) or [DEFAULT_CUTOFF],
            samples=samples,
            seed=seed,
            mean=mean,
            dd_exponent=dd_exponent,
            rel_level=rel_level,
            intents=intents,
            topics=topics_file,
            grid=grid,
            progress=progress,
            workers=workers,
        )
    sig = f"divaeval {__version__}|meta sensitivity|{result.signature}"
    if grid is not None:
        frame, key = result.grid_frame(all_points=all_points), "measure"
        if all_points:
            frame.insert(1, "samples", result.samples)
            frame.insert(2, "seed", result.seed)
    elif fmt == "trec_eval":
        frame, key = result.wide_frame(per_topic=per_topic), "topic"
    else:
        frame, key = result.frame(per_topic=per_topic), "measure"
        frame.insert(frame.columns.get_loc("samples") + 1, "seed", result.seed)
    write_table(
        frame,
        fmt,
        output,
        key=key,
        precision=precision,
        signature=sig,
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
    from divaeval.errors import UsageError
    from divaeval.meta.axioms import CONSTRAINTS, PAPER_TABLE1, check_axioms, constraint

    fmt = resolve_format(output_format)
    chosen = list(measures) + ([text for text, _ in PAPER_TABLE1.values()] if table1 else [])
    if not chosen:
        raise UsageError("meta axioms: give -m MEASURE (repeatable) or --table1")
    keys = [constraint(k).key for k in constraints] if constraints else list(CONSTRAINTS)
    report = check_axioms(
        chosen,
        keys,
        seed=42 if seed is None else seed,
        random_cases=cases,
        max_length=max_length,
        top_grade=top_grade,
    )
    sig = f"divaeval {__version__}|meta axioms|{report.signature()}"
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
            report.verdict_frame(symbols=fmt != "trec_eval", paper=table1),
            "measure",
        )
    ]
    if fmt == "table":
        examples = report.counterexample_frame()
        if len(examples):
            sections.append(("counterexamples (topic q)", examples, "measure"))
        sections.append(("search spaces", report.space_frame(), "constraint"))
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
    worst_case,
    output_format,
    precision,
    output,
    signature,
) -> None:
    """Tie probabilities for two random complete rankings of n items with m relevant (Diaz,
    Ekstrand & Mitra, §5.3): exact for TSE, R@k, R-precision and lexirecall, Monte Carlo
    (seeded) for any measure given with -m; or, with --worst-case, their Table 2."""
    from divaeval.errors import UsageError
    from divaeval.meta.ties import DEFAULT_SAMPLES, DEFAULT_SEED, ties_frame, worst_case_frame

    fmt = resolve_format(output_format)
    seed = DEFAULT_SEED if seed is None else seed
    if worst_case:
        if sizes_m:
            raise UsageError("meta ties: --worst-case draws m ~ U(5, 50); do not give --m")
        samples = 10_000 if samples is None else samples
        frame = worst_case_frame(sizes_n, measures=measures, samples=samples, seed=seed)
        sig = f"divaeval {__version__}|meta ties|worst-case|m~U(5,50)|samples={samples}|seed={seed}"
        title = "agreement with the worst case (Diaz et al. Table 2)"
    else:
        if not sizes_m:
            raise UsageError("meta ties: give --m M (the number of relevant items)")
        samples = DEFAULT_SAMPLES if samples is None else samples
        frame = ties_frame(
            sizes_n, sizes_m, k=cutoff, measures=measures, samples=samples, seed=seed
        )
        sig = f"divaeval {__version__}|meta ties|k={cutoff}"
        sig += f"|samples={samples}|seed={seed}" if measures else ""
        title = "probability of a tie (exact; Monte Carlo for -m measures)"
    write_table(
        frame,
        fmt,
        output,
        key="n",
        precision=precision,
        signature=sig,
        title=title,
        show_signature=signature,
        resampled=worst_case or bool(measures),
    )
