"""Command-line options shared by every command that evaluates runs (evaluate, compare,
meta, prefer): how runs are judged. One definition, so the commands cannot drift apart."""

from __future__ import annotations

import click

_ORDER_HELP = (
    "ranking order: score = trec_eval's (score desc, ties by docno desc), rank = the rank "
    "column (ndeval's default), file = file order (NTCIREVAL, RBU) "
    "[default: score; rank with --compat ndeval]"
)

_JUDGING_OPTIONS = (
    click.option(
        "-M",
        "--depth",
        type=click.IntRange(min=1),
        default=None,
        help="keep the first N documents per topic after ordering",
    ),
    click.option(
        "-l",
        "--rel-level",
        type=int,
        default=1,
        show_default=True,
        help="minimum grade that binary measures count as relevant",
    ),
    click.option(
        "--order", type=click.Choice(["score", "rank", "file"]), default=None, help=_ORDER_HELP
    ),
    click.option(
        "--dedupe",
        type=click.Choice(["error", "first"]),
        default="error",
        show_default=True,
        help="a docno repeated in a topic: error, or keep the first copy",
    ),
    click.option(
        "--compat",
        type=click.Choice(["ndeval", "ntcireval"]),
        default=None,
        help="reproduce the named tool's quirks (documented per metric)",
    ),
    click.option(
        "--intents",
        type=str,
        default=None,
        metavar="FILE",
        help="intent probabilities: topic subtopic probability [inf|nav]",
    ),
    click.option(
        "--topics",
        "topics_file",
        type=str,
        default=None,
        metavar="FILE",
        help="TREC Web Track topics XML (subtopic types inf/nav)",
    ),
    click.option(
        "--normalize-intents",
        is_flag=True,
        help="rescale intent probabilities that do not sum to 1",
    ),
)

JUDGING_KEYS = (
    "depth",
    "rel_level",
    "order",
    "dedupe",
    "compat",
    "intents",
    "topics_file",
    "normalize_intents",
)


def judging_options(command):
    """Decorate a click command with the shared judging options."""
    for option in reversed(_JUDGING_OPTIONS):
        command = option(command)
    return command


def split_judging(kwargs: dict) -> tuple[dict, dict]:
    """(judging options, the rest) from a command's keyword arguments."""
    judging = {k: kwargs.pop(k) for k in JUDGING_KEYS}
    return judging, kwargs


def evaluation_from(files, measures, judging: dict, *, complete: bool):
    """Run the evaluation the judging options describe (the qrels file is the last file)."""
    from divaeval.api import run_evaluation
    from divaeval.errors import UsageError
    from divaeval.judged import EvalSettings

    if len(files) < 2:
        raise UsageError("need at least one RUN and the QRELS file (qrels last)")
    order = judging["order"] or ("rank" if judging["compat"] == "ndeval" else "score")
    settings = EvalSettings(
        order=order,
        depth=judging["depth"],
        rel_level=judging["rel_level"],
        complete=complete,
        dedupe=judging["dedupe"],
        compat=judging["compat"],
        normalize_intents=judging["normalize_intents"],
    )
    return run_evaluation(
        list(files[:-1]),
        files[-1],
        measures,
        intents=judging["intents"],
        topics=judging["topics_file"],
        settings=settings,
    )


def measure_option(required: bool = False):
    return click.option(
        "-m",
        "--measure",
        "measures",
        multiple=True,
        metavar="MEASURE",
        required=required,
        help="NAME[(p=v,...)][@k,...] or a preset; repeatable (see 'divaeval metrics')",
    )
