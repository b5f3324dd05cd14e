"""The README and the documentation site stay true: every command line and Python example in
them runs (on sample_data/) and exits 0, every file path they name exists, and the generated
references (docs/hooks/reference.py) cover every command, option, metric and module.

Commands are the lines of ``sh`` blocks that start with ``divaeval`` (run in this process, as
``main(argv)``: no start-up per example) or that pipe into it (run by bash, with ``divaeval``
as ``python -m divaeval`` on this tree). In docs/ pages, ``RUN...``, ``QRELS`` and ``BASE``
stand for sample_data's runs, qrels and baseline. ``text`` blocks are synopses, not run.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from support import ROOT, SAMPLE_DATA

from divaeval.cli import cli, main

DOCS = ROOT / "docs"
README = ROOT / "README.md"
#: pages whose examples run here; docs/reproducing.md's reproduce whole papers (minutes each)
#: on data outside sample_data/, so they are left to that page's own tests
PAGES = [README, *sorted(p for p in DOCS.glob("*.md") if p.name != "reproducing.md")]

RUNS = [f"sample_data/{name}" for name in ("run.txt", "run2.txt", "run3.txt")]
PLACEHOLDERS = {
    "RUN...": RUNS,
    "QRELS": ["sample_data/qrels.txt"],
    "BASE": ["sample_data/run3.txt"],
}
#: options whose examples need what the suite does not start: a Dask cluster (covered by
#: tests/test_cluster.py) or a machine named HOST
NOT_RUN = ("--scheduler", "HOST")


def _load_reference():
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


def fenced_blocks(path: Path) -> list[tuple[str, int, str]]:
    """(language, first line number, text) of every fenced block of a Markdown file."""
    blocks, language, start, lines = [], None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = re.match(r"^\s*```(\w*)", line)
        if fence and language is None:
            language, start, lines = fence.group(1) or "text", number + 1, []
        elif fence:
            blocks.append((language, start, "\n".join(lines)))
            language = None
        elif language is not None:
            lines.append(line)
    return blocks


def command_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, command) of every divaeval command of the page's ``sh`` blocks."""
    found = []
    for language, start, text in fenced_blocks(path):
        if language not in ("sh", "bash", "console"):
            continue
        for offset, line in enumerate(text.splitlines()):
            line = line.strip()
            if re.search(r"(^|\|\s*)(divaeval|python -m divaeval)\s", line):
                found.append((start + offset, line))
    return found


def without_comment(line: str) -> str:
    """``line`` without its shell comment: a ``#`` outside quotes that starts a word
    (``-m D#-nDCG`` keeps its ``#``, as the shell does)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line


def _substituted(tokens: list[str], page: Path, scores: Path | None) -> list[str]:
    if page == README:
        return tokens  # the README's examples are written to run as they are
    table = {**PLACEHOLDERS, "official.tsv": [str(scores or "official.tsv")]}
    return [part for token in tokens for part in table.get(token, [token])]


def _examples() -> list:
    """One test per distinct command (the README and the pages repeat some), named by its
    first place."""
    places: dict[tuple[str, ...], list[tuple[Path, int, str]]] = {}
    for page in PAGES:
        for number, line in command_lines(page):
            if not any(word in line for word in NOT_RUN):
                key = tuple(_substituted(shlex.split(without_comment(line)), page, None))
                places.setdefault(key, []).append((page, number, line))
    return [
        pytest.param(found, id=f"{found[0][0].name}:{found[0][1]}") for found in places.values()
    ]


@pytest.fixture(scope="module")
def scores_file(tmp_path_factory) -> Path:
    """``official.tsv`` of the docs' ``--scores`` example: per-topic scores as divaeval -q
    -f tsv writes them."""
    path = tmp_path_factory.mktemp("scores") / "official.tsv"
    code = main(
        [*RUNS, "sample_data/qrels.txt", "-q", "-f", "tsv", "-m", "ERR-IA@20"]
        + ["-m", "alpha-nDCG@20", "-o", str(path)]
    )
    assert code == 0
    return path


@pytest.mark.parametrize("places", _examples())
def test_example_command_runs(places, capsys, monkeypatch, scores_file):
    page, number, line = places[0]
    monkeypatch.chdir(ROOT)
    tokens = _substituted(shlex.split(without_comment(line)), page, scores_file)
    where = "; ".join(f"{p.name}:{n}" for p, n, _ in places) + f": {line}"
    if "|" in tokens or "<(" in line or tokens[0] != "divaeval":
        # a pipeline: bash, with divaeval this tree's python -m divaeval
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        script = (
            f'divaeval() {{ "{sys.executable}" -m divaeval "$@"; }}\n'
            f"set -o pipefail\n{shlex.join(tokens).replace(chr(39) + '|' + chr(39), '|')}"
        )
        done = subprocess.run(
            ["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{where}\n{done.stderr}"
        assert done.stdout, where
        return
    capsys.readouterr()
    code = main(tokens[1:])
    out, err = capsys.readouterr()
    assert code == 0, f"{where}\n{err}"
    assert out, where
    assert "Traceback" not in err, where


def test_comments_are_cut_as_the_shell_cuts_them():
    assert (
        without_comment("divaeval x -m D#-nDCG@10   # it's a comment") == "divaeval x -m D#-nDCG@10"
    )
    assert without_comment("divaeval x -m 'a #b'") == "divaeval x -m 'a #b'"


def test_readme_has_an_example_of_every_command():
    """One example per subcommand (and per meta subcommand) in the README."""
    ctx = click.Context(cli, info_name="divaeval")
    wanted = set()
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            wanted |= {f"{name} {sub}" for sub in command.list_commands(sub_ctx)}
        else:
            wanted.add(name)
    lines = [line for _, line in command_lines(README)]
    shown = {
        " ".join(words[1:3]) if words[1] == "meta" else words[1]
        for words in (line.split() for line in lines)
        if words[0] == "divaeval"
    }
    assert wanted - {"evaluate"} <= shown, wanted - shown
    assert any(line.startswith("divaeval sample_data/") for line in lines)  # the main job


def test_readme_python_example_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    for page in (README, DOCS / "python-api.md"):
        namespace: dict = {}
        for language, start, text in fenced_blocks(page):
            if language == "python":
                exec(compile(text, f"{page.name}:{start}", "exec"), namespace)


def test_readme_stays_short():
    """About 200 lines: what a newcomer needs, the rest on the docs site (230: the speed table
    joined the CI jobs; the next addition moves something to docs/)."""
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 230


# ---------------------------------------------------------------------------------------------
# what the pages say exists


PATH_IN_CODE = re.compile(r"`((?:divaeval|tests|bench|docs|sample_data)/[\w./-]*)`")


@pytest.mark.parametrize("page", [*PAGES, DOCS / "reproducing.md"], ids=lambda p: p.name)
def test_paths_named_in_the_docs_exist(page):
    text = page.read_text(encoding="utf-8")
    missing = [p for p in PATH_IN_CODE.findall(text) if not (ROOT / p.rstrip("/")).exists()]
    assert not missing, f"{page.name} names files that do not exist: {missing}"


@pytest.mark.parametrize("page", [*PAGES, DOCS / "reproducing.md"], ids=lambda p: p.name)
def test_docs_cite_no_machine_paths(page):
    text = page.read_text(encoding="utf-8")
    assert "/work/" not in text and "shared/" not in text, page.name


def test_readme_links_to_pages_that_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", text)
    assert links
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_every_page_is_in_the_site_navigation():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert [p.name for p in DOCS.glob("*.md") if f": {p.name}" not in config] == []


# ---------------------------------------------------------------------------------------------
# the generated references


def test_every_marker_is_on_its_page():
    for page, marker in reference.MARKERS.items():
        assert marker in (DOCS / page).read_text(encoding="utf-8"), page
    assert set(reference.MARKERS) == set(reference.GENERATORS)


def _commands(group: click.Group, ctx: click.Context, prefix: str):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        yield f"{prefix} {name}", command
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            yield from _commands(command, sub_ctx, f"{prefix} {name}")


def test_cli_reference_has_every_command_and_option():
    text = reference.cli_reference()
    ctx = click.Context(cli, info_name="divaeval")
    for path, command in _commands(cli, ctx, "divaeval"):
        assert f"\n## {path}\n" in text, path
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for flag in param.opts:
                    assert re.search(rf"\| `[^`]*{re.escape(flag)}\b", text), (path, flag)


def test_metric_reference_has_every_metric_and_preset():
    from divaeval.metrics import all_specs
    from divaeval.metrics.registry import presets

    text = reference.metric_reference()
    anchors = [reference.anchor(spec.name) for spec in all_specs()]
    assert len(set(anchors)) == len(anchors)  # every metric its own heading id
    for spec, anchor in zip(all_specs(), anchors, strict=True):
        assert f"{{ #{anchor} }}" in text and f"(#{anchor})" in text, spec.name
        assert reference.escape(spec.reference) in text, spec.name
    for name in presets():
        assert f"`-m {name}`" in text, name


def test_metric_families_table_names_registered_metrics():
    """The hand-written overview in docs/metrics.md names no metric that does not exist."""
    from divaeval.metrics.registry import is_known

    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    table = text[text.index("## Families") : text.index("## Reference")]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    # the metrics column: the second cell (a code span may hold a |)
    cells = [re.findall(r"(?:`[^`]*`|[^|`])+", row)[1] for row in rows]
    spans = [span for cell in cells for span in re.findall(r"`([^`]*)`", cell)]
    # a measure string's name; parameters alone (weights=intents), options (-f ntcir) and
    # globs (TSE-*) are no names
    names = [re.split(r"[(@]", span)[0] for span in spans]
    names = [n for n in names if not re.search(r"[=* ]", n) and not n.startswith("-")]
    assert names and [n for n in names if not is_known(n)] == []


def test_module_map_has_every_module():
    text = reference.module_map()
    for path in (ROOT / "divaeval").rglob("*.py"):
        assert f"`{path.relative_to(ROOT).as_posix()}`" in text, path
    assert ".md §" not in text  # spec files the repository does not hold are not cited


def test_summary_line_drops_spec_file_citations():
    doc = "Discriminative power (Sakai WWW 2012 §4.1; meta-evaluation.md §4). More text."
    assert reference.summary_line(doc) == "Discriminative power (Sakai WWW 2012 §4.1)."
    assert reference.summary_line("Spec only (``reference/x.md`` §2).") == "Spec only."
    assert reference.summary_line("``divaeval compare RUN... QRELS``: tests.") == (
        "`divaeval compare RUN... QRELS`: tests."
    )
    assert reference.summary_line("Golbus et al. 2013 (IR 16(4), 2013; x.md §1): a.") == (
        "Golbus et al. 2013 (IR 16(4), 2013): a."
    )


def test_sample_data_is_where_the_examples_say():
    assert {p.name for p in SAMPLE_DATA.iterdir()} >= {
        "run.txt",
        "run2.txt",
        "run3.txt",
        "qrels.txt",
        "topics.xml",
    }
