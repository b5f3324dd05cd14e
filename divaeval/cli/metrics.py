"""``divaeval metrics [PATTERN]``: the measure table (compare trec_eval's measure list)."""

from __future__ import annotations

import fnmatch
from functools import partial
from typing import Any, TextIO

import click

from divaeval.cli.output import emit


def _write_lines(lines: list[str], out: TextIO) -> None:
    out.write("".join(line + "\n" for line in lines))


def _names(spec: Any, forms: list[str]) -> list[str]:
    return [spec.name, *spec.aliases, *forms]


def _matches(pattern: str, spec: Any, forms: list[str]) -> bool:
    """A glob (``*ndcg*``) or a case-insensitive substring of a name, alias, other tool's
    name or the family."""
    pattern = pattern.lower()
    texts = [text.lower() for text in (*_names(spec, forms), spec.family)]
    if any(ch in pattern for ch in "*?["):
        return any(fnmatch.fnmatchcase(text, pattern) for text in texts)
    return any(pattern in text for text in texts)


def _details(spec: Any, forms: list[str]) -> list[str]:
    from divaeval.metrics.spec import format_value

    params = ", ".join(f"{p.name}={format_value(p.default)}" for p in spec.params)
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
        lines.append(f"      {param.name} (default {format_value(param.default)}): {param.help}")
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
    import json

    from divaeval.errors import UsageError
    from divaeval.metrics import all_specs
    from divaeval.metrics.registry import all_forms, presets

    forms_of: dict[str, list[str]] = {}
    for form in all_forms():
        forms_of.setdefault(form.spec, []).append(form.name)
    specs = [
        s for s in all_specs() if not pattern or _matches(pattern, s, forms_of.get(s.name, []))
    ]
    if not specs:
        raise UsageError(f"no metric matches {pattern!r} (see 'divaeval metrics')")
    if pattern is not None:
        wanted = pattern.lower()
        named = [
            s for s in specs if wanted in (n.lower() for n in _names(s, forms_of.get(s.name, [])))
        ]
        if named:  # a metric named exactly: just that one, in full
            specs, long_form = named, True
    lines: list[str] = []
    if output_format == "jsonl":
        for spec in specs:
            record = {
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
                "other_names": forms_of.get(spec.name, []),
            }
            lines.append(json.dumps(record))
        emit(partial(_write_lines, lines), None)
        return
    family = None
    for spec in specs:
        if spec.family != family:
            family = spec.family
            lines.append(f"\n[{family}]")
        if long_form:
            lines.extend(_details(spec, forms_of.get(spec.name, [])))
        else:
            lines.append(_short(spec))
    if not pattern:
        from divaeval.risk_measures import RISK_MEASURES

        lines.append(
            "\n[risk-sensitive comparison: 'divaeval RUN... QRELS --baseline B', 'divaeval risk']"
        )
        for name, definition, source in RISK_MEASURES:
            if long_form:
                lines += [f"  {name}", f"      {definition}", f"      follows: {source}"]
            else:
                lines.append(f"  {name:<16} {definition}")
        lines.append("\n[presets]")
        for name, (items, summary) in presets().items():
            lines.append(f"  {name}: {summary}")
            if long_form:
                lines.append(f"      = {' '.join(items)}")
        if not long_form:
            lines.append("\n'divaeval metrics NAME' or '--long' for parameters, sources and notes.")
    emit(partial(_write_lines, lines), None)
