"""``divaeval metrics``: the measure table (compare trec_eval's measure list)."""

from __future__ import annotations

from functools import partial
from typing import TextIO

import click

from divaeval.cli.output import emit


def _write_lines(lines: list[str], out: TextIO) -> None:
    out.write("".join(line + "\n" for line in lines))


@click.command("metrics")
@click.option(
    "-f",
    "--format",
    "output_format",
    type=click.Choice(["text", "jsonl"]),
    default="text",
    show_default=True,
)
def metrics_command(output_format: str) -> None:
    """List every metric: name, aliases, parameters, cutoffs, definition and source."""
    import json

    from divaeval.metrics import all_specs
    from divaeval.metrics.registry import all_forms, presets
    from divaeval.metrics.spec import format_value

    lines: list[str] = []
    echo = lines.append
    specs = all_specs()
    if output_format == "jsonl":
        for spec in specs:
            echo(
                json.dumps(
                    {
                        "name": spec.name,
                        "family": spec.family,
                        "aliases": list(spec.aliases),
                        "params": {p.name: p.default for p in spec.params},
                        "cutoff": spec.cutoff,
                        "default_cutoffs": list(spec.default_cutoffs),
                        "summary": spec.summary,
                        "reference": spec.reference,
                        "notes": spec.notes,
                        "aggregate": spec.aggregate,
                        "trec_eval": spec.trec_eval,
                        "ir_measures": spec.ir_measures,
                        "other_names": [f.name for f in all_forms() if f.spec == spec.name],
                    }
                )
            )
        emit(partial(_write_lines, lines), None)
        return
    family = None
    for spec in specs:
        if spec.family != family:
            family = spec.family
            echo(f"\n[{family}]")
        params = ", ".join(f"{p.name}={format_value(p.default)}" for p in spec.params)
        cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
        if spec.level_param is not None:
            cut = f"[@{spec.level_param}]"
        defaults = ",".join("all" if k is None else str(k) for k in spec.default_cutoffs)
        echo(f"  {spec.name}{f'({params})' if params else ''}{cut}")
        echo(f"      {spec.summary}")
        if spec.aliases:
            echo(f"      aliases: {', '.join(spec.aliases)}")
        forms = [form.name for form in all_forms() if form.spec == spec.name]
        if forms:
            echo(f"      also named: {', '.join(forms)}")
        if spec.trec_eval:
            echo(f"      trec_eval: {spec.trec_eval}")
        if spec.ir_measures:
            echo(f"      ir_measures: {spec.ir_measures}")
        if spec.aggregate != "mean":
            how = "sum" if spec.aggregate == "sum" else "geometric mean"
            echo(f"      summary: the {how} over topics (whatever --mean)")
        if spec.cutoff != "none":
            echo(f"      default cutoffs: {defaults}")
        for param in spec.params:
            echo(f"      {param.name} (default {format_value(param.default)}): {param.help}")
        echo(f"      follows: {spec.reference}")
        if spec.notes:
            echo(f"      notes: {spec.notes}")
    echo("\n[presets]")
    for name, (items, summary) in presets().items():
        echo(f"  {name}: {summary}")
        echo(f"      = {' '.join(items)}")
    emit(partial(_write_lines, lines), None)
