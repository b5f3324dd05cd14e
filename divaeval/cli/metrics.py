"""``divaeval metrics [PATTERN]``: the measure table (compare trec_eval's measure list)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, TextIO

import click

from divaeval.cli.output import emit


def _write_lines(lines: list[str], out: TextIO) -> None:
    out.write("".join(line + "\n" for line in lines))


def _details(spec: Any, forms: list[str], parameters: dict[str, str]) -> list[str]:
    params = ", ".join(f"{name}={value}" for name, value in parameters.items())
    cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
    if spec.level_param is not None:
        cut = f"[@{spec.level_param}]"
    lines = [f"  {spec.name}{f'({params})' if params else ''}{cut}", f"      {spec.summary}"]
    if spec.aliases:
        lines.append(f"      aliases: {', '.join(spec.aliases)}")
    if forms:
        lines.append(f"      also named: {', '.join(forms)}")
    if spec.trec_eval:
        lines.append(f"      trec_eval: {spec.trec_eval}")
    if spec.ir_measures:
        lines.append(f"      ir_measures: {spec.ir_measures}")
    if spec.aggregate != "mean":
        how = "sum" if spec.aggregate == "sum" else "geometric mean"
        lines.append(f"      summary: the {how} over topics (whatever --mean)")
    if spec.cutoff != "none":
        defaults = ",".join("all" if k is None else str(k) for k in spec.default_cutoffs)
        lines.append(f"      default cutoffs: {defaults}")
    for param in spec.params:
        lines.append(f"      {param.name} (default {parameters[param.name]}): {param.help}")
    lines.append(f"      follows: {spec.reference}")
    if spec.notes:
        lines.append(f"      notes: {spec.notes}")
    return lines


def _short(spec: Any) -> str:
    also = f" (also {', '.join(spec.aliases[:3])}{', ...' if len(spec.aliases) > 3 else ''})"
    return f"  {spec.name:<16} {spec.summary}{also if spec.aliases else ''}"


@click.command("metrics")
@click.argument("pattern", required=False, metavar="[PATTERN]")
@click.option("--long", "long_form", is_flag=True, help="every detail of each metric")
@click.option(
    "-f",
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl"]),
    default="text",
    show_default=True,
)
def metrics_command(pattern: str | None, long_form: bool, output_format: str) -> None:
    """List the metrics: one line each (name, definition, aliases); --long, or a PATTERN that
    names one metric, adds parameters, cutoffs, other tools' names, source and notes. PATTERN
    is a glob (*ndcg*) or a substring of a name, alias or family."""
    # the library loads once the command runs: listing the commands (--help) needs no numpy
    from divaeval.api.metrics import list_metrics

    result = list_metrics(pattern)
    specs, forms_of = result.specs, result.forms
    long_form = long_form or result.named  # a metric named exactly: just that one, in full
    lines: list[str] = []
    if output_format == "jsonl":
        lines = [json.dumps(record) for record in result.records]
        emit(partial(_write_lines, lines), None)
        return
    family = None
    for spec in specs:
        if spec.family != family:
            family = spec.family
            lines.append(f"\n[{family}]")
        if long_form:
            lines.extend(_details(spec, forms_of.get(spec.name, []), result.defaults(spec)))
        else:
            lines.append(_short(spec))
    if not pattern:
        lines.append(
            "\n[risk-sensitive comparison: 'divaeval RUN... QRELS --baseline B', 'divaeval risk']"
        )
        for name, definition, source in result.risk_measures:
            if long_form:
                lines += [f"  {name}", f"      {definition}", f"      follows: {source}"]
            else:
                lines.append(f"  {name:<16} {definition}")
        lines.append("\n[presets]")
        for name, (items, summary) in result.presets.items():
            lines.append(f"  {name}: {summary}")
            if long_form:
                lines.append(f"      = {' '.join(items)}")
        if not long_form:
            lines.append("\n'divaeval metrics NAME' or '--long' for parameters, sources and notes.")
    emit(partial(_write_lines, lines), None)
