"""The generated parts of the documentation site (an MkDocs hook, see mkdocs.yml).

Three pages are written from the code at build time, so that they cannot drift from it:

- ``cli.md``: every command's ``--help`` (its text and every option), read from click;
- ``metrics.md``: every measure of the registry (name, definition, parameters, cutoffs, other
  tools' names, source, notes), the risk measures and the presets;
- ``architecture.md``: the module map, every module of the package with the first sentence of
  its docstring.

Each page holds a marker comment (:data:`MARKERS`) that the hook replaces with the generated
Markdown. ``tests/test_docs.py`` checks the markers and the generated text.
"""

from __future__ import annotations

import re
from typing import Any

import click

#: page (relative to docs/) -> the marker its generated text replaces
MARKERS = {
    "cli.md": "<!-- generated: cli reference -->",
    "metrics.md": "<!-- generated: metric reference -->",
    "architecture.md": "<!-- generated: module map -->",
}

#: width of the help text, as a terminal of this many columns shows it
HELP_WIDTH = 78

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]>|#])")


def escape(text: str) -> str:
    """``text`` as literal Markdown (table cells included: ``|`` is escaped too; ``<`` is an
    entity, as Python-Markdown has no escape for it)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("<", "&lt;")


def code(text: str) -> str:
    """``text`` as inline code (long enough a fence for backquotes inside); in a table cell
    too, where ``|`` stays as it is (Python-Markdown's tables do not split code spans)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# ---------------------------------------------------------------------------------------------
# the command line


def _commands(
    command: click.Command, ctx: click.Context
) -> list[tuple[click.Command, click.Context]]:
    """``command`` and every subcommand under it, depth first, in the order of ``--help``."""
    found = [(command, ctx)]
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            found.extend(_commands(sub, _context(sub, name, ctx)))
    return found


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """The context ``--help`` would have (the command's own settings: ``-h``), at a fixed
    width."""
    settings = {"terminal_width": HELP_WIDTH, "max_content_width": HELP_WIDTH}
    settings.update(command.context_settings)
    return click.Context(command, info_name=name, parent=parent, **settings)


def _help_text(command: click.Command, ctx: click.Context) -> str:
    formatter = ctx.make_formatter()
    command.format_usage(ctx, formatter)
    command.format_help_text(ctx, formatter)
    return formatter.getvalue().rstrip()


def cli_reference() -> str:
    """Every command: its usage and help text as ``--help`` prints them, its options as a
    table (the flags, and the help with its default as ``--help`` gives it)."""
    from divaeval.cli import cli

    parts: list[str] = []
    for command, ctx in _commands(cli, _context(cli, "divaeval", None)):
        path = ctx.command_path
        parts += [f"## {path}", "", "```text", _help_text(command, ctx), "```", ""]
        if isinstance(command, click.Group):
            subs = [
                (name, sub)
                for name in command.list_commands(ctx)
                if (sub := command.get_command(ctx, name)) is not None and not sub.hidden
            ]
            parts += ["| command | what it does |", "|---|---|"]
            for name, sub in subs:
                anchor = f"{path} {name}".replace(" ", "-")
                summary = summary_line(sub.help)
                parts.append(f"| [{code(f'{path} {name}')}](#{anchor}) | {escape(summary)} |")
            parts.append("")
        records = [
            record
            for param in command.get_params(ctx)
            if (record := param.get_help_record(ctx)) is not None
        ]
        if records:
            parts += ["| option | meaning |", "|---|---|"]
            for flags, meaning in records:
                text = " ".join(meaning.split())
                parts.append(f"| {code(flags)} | {escape(text)} |")
            parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# the metrics


def _signature(spec: Any) -> str:
    from divaeval.metrics.spec import format_value

    params = ", ".join(f"{p.name}={format_value(p.default)}" for p in spec.params)
    cut = {"none": "", "optional": "[@k]", "required": "@k"}[spec.cutoff]
    if spec.level_param is not None:
        cut = f"[@{spec.level_param}]"
    return f"{spec.name}{f'({params})' if params else ''}{cut}"


def anchor(name: str) -> str:
    """The id of a metric's heading: its name in lowercase letters, digits and ``-``
    (``D#-nDCG`` -> ``m-dsharp-ndcg``, ``P+Q`` -> ``m-pplusq``)."""
    spelled = name.lower().replace("#", "sharp").replace("+", "plus")
    return "m-" + re.sub(r"[^a-z0-9]+", "-", spelled).strip("-")


def _metric(spec: Any, other_names: list[str]) -> list[str]:
    from divaeval.metrics.spec import format_value

    heading = f"#### {escape(spec.name)} {{ #{anchor(spec.name)} }}"
    lines = [heading, "", code(_signature(spec)), "", escape(spec.summary), ""]
    facts: list[str] = []
    if spec.aliases:
        facts.append("aliases: " + ", ".join(code(a) for a in spec.aliases))
    if other_names:
        facts.append("also named: " + ", ".join(code(n) for n in other_names))
    if spec.trec_eval:
        facts.append(f"trec_eval: {escape(spec.trec_eval)}")
    if spec.ir_measures:
        facts.append(f"ir_measures: {escape(spec.ir_measures)}")
    if spec.aggregate != "mean":
        how = "sum" if spec.aggregate == "sum" else "geometric mean"
        facts.append(f"summary over topics: the {how} (whatever `--mean`)")
    if spec.level_param is not None:
        levels = ", ".join(format_value(v) for v in spec.default_levels)
        facts.append(f"`@x` sets {code(spec.level_param)}; default levels: {levels}")
    elif spec.cutoff != "none":
        cutoffs = ",".join("all" if k is None else str(k) for k in spec.default_cutoffs)
        needs = "required" if spec.cutoff == "required" else "optional"
        facts.append(f"cutoff `@k`: {needs}; default cutoffs: {cutoffs}")
    else:
        facts.append("no cutoff")
    for param in spec.params:
        facts.append(
            f"parameter {code(param.name)} (default {code(format_value(param.default))}): "
            + escape(param.help)
        )
    facts.append(f"follows: {escape(spec.reference)}")
    if spec.notes:
        facts.append(f"notes: {escape(spec.notes)}")
    lines += [f"- {fact}" for fact in facts]
    lines.append("")
    return lines


def metric_reference() -> str:
    """Every registered metric by family (in the order of ``divaeval metrics``), then the risk
    measures and the presets."""
    from divaeval.metrics import all_specs
    from divaeval.metrics.registry import all_forms, presets
    from divaeval.risk_measures import RISK_MEASURES

    other_names: dict[str, list[str]] = {}
    for form in all_forms():
        other_names.setdefault(form.spec, []).append(form.name)
    specs = all_specs()
    families: dict[str, list[Any]] = {}
    for spec in specs:
        families.setdefault(spec.family, []).append(spec)
    parts = [f"{len(specs)} metrics in {len(families)} families.", ""]
    for family, members in families.items():
        parts += [f"### {escape(family)}", "", "| metric | definition |", "|---|---|"]
        parts += [f"| [{code(s.name)}](#{anchor(s.name)}) | {escape(s.summary)} |" for s in members]
        parts.append("")
        for spec in members:
            parts += _metric(spec, other_names.get(spec.name, []))
    parts += [
        "### Risk-sensitive evaluation",
        "",
        "Values of `divaeval RUN... QRELS --baseline B` and of `divaeval risk`.",
        "",
        "| measure | definition | follows |",
        "|---|---|---|",
    ]
    parts += [
        f"| {escape(name)} | {escape(definition)} | {escape(source)} |"
        for name, definition, source in RISK_MEASURES
    ]
    parts += ["", "### Presets", "", "| preset | what | measures |", "|---|---|---|"]
    for name, (members, summary) in presets().items():
        listed = code(" ".join(members)) if name != "all" else "every metric above"
        parts.append(f"| `-m {name}` | {escape(summary)} | {listed} |")
    parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# the module map

_ROLE = re.compile(r":(?:func|mod|class|data|meth|attr|exc):`~?([^`<]*?)(?:\s*<([^>]*)>)?`")
#: a sentence ends at a full stop and a space before a capital, a backquote or a parenthesis,
#: but not after "et al.", "Eq.", "e.g.", "i.e.", "Fig.", "cf." or an ellipsis ("RUN... QRELS")
_SENTENCE_END = re.compile(
    r"(?<!\bal)(?<!\bEq)(?<!\be\.g)(?<!\bi\.e)(?<!\bFig)(?<!\bcf)(?<!\.)\.\s+(?=[A-Z`(])"
)


def _plain(docstring_text: str) -> str:
    """reStructuredText roles and literals as Markdown code."""
    text = _ROLE.sub(lambda m: f"``{(m.group(2) or m.group(1)).split('.')[-1]}``", docstring_text)
    return text.replace("``", "`")


def _without_spec_files(text: str) -> str:
    """``text`` without the parts of its outermost parentheses that cite spec files the
    repository does not hold (``meta-evaluation.md §4``): the papers and tools stay."""
    result, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                result.append(text[start:i])
                start = i
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                parts = [part for part in inner.split(";") if ".md" not in part]
                if parts:
                    result.append("(" + ";".join(parts).strip() + ")")
                elif result:
                    result[-1] = result[-1].rstrip()
                start = i + 1
    result.append(text[start:])
    return "".join(result)


def summary_line(docstring: str | None) -> str:
    """The first sentence of a module's docstring, as Markdown."""
    paragraph = " ".join((docstring or "").strip().split("\n\n")[0].split())
    sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0].rstrip(".")
    return _without_spec_files(_plain(sentence)).rstrip(".:") + "."


def module_map(root: Any = None) -> str:
    """Every module of the package with the first sentence of its docstring, by folder."""
    import ast
    from pathlib import Path

    package = Path(root) if root is not None else Path(__file__).resolve().parents[2] / "divaeval"
    folders: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent)
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        row = f"| `{relative.as_posix()}` | {summary_line(docstring)} |"
        folders.setdefault(relative.parent.as_posix() + "/", []).append(row)
    parts: list[str] = []
    for folder, rows in folders.items():
        parts += [f"### `{folder}`", "", "| module | what lives there |", "|---|---|", *rows, ""]
    return "\n".join(parts)


GENERATORS = {
    "cli.md": cli_reference,
    "metrics.md": metric_reference,
    "architecture.md": module_map,
}


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """MkDocs hook: a page's marker replaced by its generated reference."""
    name = page.file.src_uri
    if name not in MARKERS:
        return markdown
    if MARKERS[name] not in markdown:
        raise ValueError(f"docs/{name} has lost its marker {MARKERS[name]!r}")
    return markdown.replace(MARKERS[name], GENERATORS[name]())
