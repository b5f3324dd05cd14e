"""Output files (issue 22): ``-o`` (and ``--plot``) never names an input, by file identity,
in every command; an output file is replaced atomically with the mode a user expects. (Full
disks, concurrent writers and signals: ``test_cli_faults.py``.)"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click
import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.cli import cli
from divaeval.cli.app import COMMANDS
from divaeval.cli.paths import InputPath, OutputPath

QRELS = "1 1 a 1\n1 2 b 1\n2 1 c 1\n"
RUN = "1 Q0 a 1 2 one\n1 Q0 b 2 1 one\n2 Q0 c 1 1 one\n"
RUN2 = "1 Q0 b 1 2 two\n1 Q0 a 2 1 two\n2 Q0 c 1 1 two\n"
INTENTS = "1 1 0.5\n1 2 0.5\n2 1 1\n"
TOPICS = '<webtrack2012><topic number="1"><subtopic number="1" type="inf"/></topic></webtrack2012>'
SCORES = "one 1 P@1 1\none 2 P@1 1\ntwo 1 P@1 0\ntwo 2 P@1 1\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    texts = {"run": RUN, "run2": RUN2, "qrels": QRELS, "intents": INTENTS,
             "topics": TOPICS, "scores": SCORES}  # fmt: skip
    paths = {}
    for name, text in texts.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text)
    return paths


# (command line, the input that -o names); {name} is that file's path
CASES = [
    (["{run}", "{qrels}"], "run"),
    (["{run}", "{qrels}"], "qrels"),
    (["{run}", "{qrels}", "--topics", "{topics}"], "topics"),
    (["{run}", "{qrels}", "--intents", "{intents}"], "intents"),
    (["{run}", "{qrels}", "--baseline", "{run2}"], "run2"),
    (["evaluate", "{run}", "{qrels}"], "qrels"),
    (["compare", "{run}", "{run2}", "{qrels}"], "run2"),
    (["compare", "{run}", "{run2}", "{qrels}", "--intents", "{intents}"], "intents"),
    (["risk", "{run}", "{qrels}", "--baseline", "{run2}"], "run2"),
    (["risk", "{run}", "{run2}", "{qrels}", "--topics", "{topics}"], "topics"),
    (["prefer", "{run}", "{run2}", "{qrels}"], "run"),
    (["collection", "{qrels}"], "qrels"),
    (["collection", "{qrels}", "--topics", "{topics}"], "topics"),
    (["meta", "discriminative-power", "{run}", "{run2}", "{qrels}"], "qrels"),
    (["meta", "discriminative-power", "--scores", "{scores}"], "scores"),
    (["meta", "correlation", "--scores", "{scores}"], "scores"),
    (["meta", "correlation", "{run}", "{run2}", "{qrels}"], "run"),
    (["meta", "intuitiveness", "--scores", "{scores}", "--gold", "P@1"], "scores"),
    (["meta", "unanimity", "--scores", "{scores}"], "scores"),
    (["meta", "unanimity", "{run}", "{run2}", "{qrels}", "--intents", "{intents}"], "intents"),
    (["meta", "sensitivity", "{qrels}", "-m", "P@1"], "qrels"),
    (["meta", "sensitivity", "{qrels}", "-m", "P@1", "--intents", "{intents}"], "intents"),
    (["meta", "sensitivity", "{qrels}", "-m", "P@1", "--topics", "{topics}"], "topics"),
]


def _filled(args: list[str], files: dict[str, Path]) -> list[str]:
    return [a.format(**files) for a in args]


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize(("args", "target"), CASES, ids=lambda v: " ".join(v)[:40])
def test_an_output_naming_an_input_is_refused(capsys, files, tmp_path, args, target, link):
    before = {name: path.read_bytes() for name, path in files.items()}
    output = files[target]
    if link == "symlink":
        output = tmp_path / "link"
        output.symlink_to(files[target])
    elif link == "hardlink":
        output = tmp_path / "hard"
        os.link(files[target], output)
    command = _filled(args, files)
    # -o before the inputs for hard links: the check does not depend on the order
    command = ["-o", str(output), *command] if link == "hardlink" and args[0] == "{run}" else [
        *command, "-o", str(output)]  # fmt: skip
    code, out, err = run_cli(capsys, *command)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"divaeval: -o {output} is the ")
    assert f" {files[target]} (the same file): divaeval never writes over an input" in err
    assert {name: path.read_bytes() for name, path in files.items()} == before


def test_the_message_names_the_option_of_the_input(capsys, files):
    code, _, err = run_cli(
        capsys, files["run"], files["qrels"], "--topics", files["topics"], "-o", files["topics"]
    )
    assert (code, err) == (
        2,
        f"divaeval: -o {files['topics']} is the --topics file {files['topics']} (the same "
        "file): divaeval never writes over an input; choose another output file\n",
    )


def test_a_plot_naming_an_input_or_the_output_is_refused(capsys, files, tmp_path):
    args = ["meta", "discriminative-power", files["run"], files["run2"], files["qrels"]]
    code, _, err = run_cli(capsys, *args, "--plot", files["run2"])
    assert code == 2 and err.startswith(f"divaeval: --plot {files['run2']} is the input ")
    code, _, err = run_cli(capsys, *args, "--plot", tmp_path / "x.png", "-o", tmp_path / "x.png")
    assert (code, err) == (
        2,
        f"divaeval: --plot {tmp_path / 'x.png'} and -o {tmp_path / 'x.png'} are the same file: "
        "give each output its own file\n",
    )
    assert not (tmp_path / "x.png").exists()


def test_an_output_elsewhere_is_written(capsys, files, tmp_path):
    # the same name in another directory, a new file, and stdin as an input: no conflict
    other = tmp_path / "elsewhere"
    other.mkdir()
    code, out, err = run_cli(capsys, files["run"], files["qrels"], "-o", other / "run.txt")
    assert (code, out) == (0, ""), err
    assert "P@5" not in (other / "run.txt").read_text()  # ndeval's columns
    assert "alpha-nDCG@20" in (other / "run.txt").read_text()


def _parameters(command: click.Command, path: str = "divaeval"):
    """Every (command path, parameter) of the command tree."""
    ctx = click.Context(cli)
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from _parameters(sub, f"{path} {name}")
    else:
        for param in command.params:
            yield path, param


FILE_ARGUMENTS = {"files", "qrels"}


def test_every_file_parameter_is_an_input_or_an_output_path():
    # a FILE option or a RUN/QRELS argument that is not marked would escape the -o check
    seen = {InputPath: 0, OutputPath: 0}
    for path, param in _parameters(cli):
        metavar = param.metavar or ""
        is_file = "FILE" in metavar or (
            isinstance(param, click.Argument) and param.name in FILE_ARGUMENTS
        )
        if not is_file:
            assert not isinstance(param.type, (InputPath, OutputPath)), (path, param.name)
            continue
        writes = param.name in ("output", "plot")
        expected = OutputPath if writes else InputPath
        assert isinstance(param.type, expected), (path, param.name, param.type)
        seen[expected] += 1
    assert seen[InputPath] > 30 and seen[OutputPath] > 10
    assert set(COMMANDS) >= {"evaluate", "compare", "meta"}


# ---------------------------------------------------------------------------------------------
# atomic replacement: what the user sees of the file


def test_an_existing_file_keeps_its_mode_and_a_new_one_follows_the_umask(capsys, files, tmp_path):
    kept = tmp_path / "kept.txt"
    kept.write_text("old\n")
    kept.chmod(0o640)
    code, _, err = run_cli(capsys, files["run"], files["qrels"], "-m", "P@1", "-o", kept)
    assert code == 0, err
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and "P@1" in kept.read_text()
    previous = os.umask(0o027)
    try:
        code, _, err = run_cli(
            capsys, files["run"], files["qrels"], "-m", "P@1", "-o", tmp_path / "new.txt"
        )
    finally:
        os.umask(previous)
    assert code == 0, err
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640  # 0666 & ~027
    assert sorted(p.name for p in tmp_path.iterdir() if "divaeval-tmp" in p.name) == []


def test_a_symlinked_output_replaces_the_file_it_names(capsys, files, tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    code, _, err = run_cli(capsys, files["run"], files["qrels"], "-m", "P@1", "-o", link)
    assert code == 0, err
    assert link.is_symlink() and "P@1" in real.read_text()


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_an_output_that_is_not_a_regular_file_is_written_in_place(capsys):
    # /dev/null cannot be replaced (and must not be, even by root): it is written to
    run = SAMPLE_DATA / "run.txt"
    code, out, err = run_cli(capsys, run, SAMPLE_DATA / "qrels.txt", "-o", "/dev/null")
    assert (code, out, err) == (0, "", "")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_an_unwritable_directory_is_exit_one_and_the_old_file_stays(capsys, files, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into any directory")
    directory = tmp_path / "locked"
    directory.mkdir()
    old = directory / "out.txt"
    old.write_text("old\n")
    directory.chmod(0o500)
    try:
        code, _, err = run_cli(capsys, files["run"], files["qrels"], "-o", old)
    finally:
        directory.chmod(0o700)
    assert code == 1 and err == f"divaeval: {old}: cannot write output: Permission denied\n"
    assert old.read_text() == "old\n"


# ---------------------------------------------------------------------------------------------
# the format of -o FILE: -f, else the extension, else the command's default; never the TTY

RUNS3 = [SAMPLE_DATA / "run.txt", SAMPLE_DATA / "run2.txt", SAMPLE_DATA / "run3.txt"]
SAMPLE_QRELS = SAMPLE_DATA / "qrels.txt"


def _first_line(path: Path) -> str:
    return path.read_text().splitlines()[0]


@pytest.fixture
def terminal(monkeypatch):
    """stdout says it is a terminal (what changed the file's format before)."""
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)


EXTENSION_STARTS = {
    "x.csv": "measure,run_a,run_b,",
    "x.tsv": "measure\trun_a\trun_b\t",
    "x.jsonl": '{"measure": "P@5", "run_a": "ql-cata"',
    "x.json": "{",
    "x.tex": "\\begin{tabular}",
    "x.md": "| measure | run_a | run_b |",
    "x.html": "<!DOCTYPE html>",
    "x.HTML": "<!DOCTYPE html>",
    "x.txt": "measure,run_a,run_b,",  # the command's default for a file: csv
    "x": "measure,run_a,run_b,",
}


@pytest.mark.parametrize("name", sorted(EXTENSION_STARTS))
def test_the_extension_chooses_the_format_of_an_analysis(capsys, tmp_path, terminal, name):
    target = tmp_path / name
    args = ["compare", *RUNS3[:2], SAMPLE_QRELS, "-m", "P@5", "--table", "pairs"]
    code, out, err = run_cli(capsys, *args, "-o", target)
    assert (code, out) == (0, ""), err
    assert target.read_text().startswith(EXTENSION_STARTS[name])
    assert "┃" not in target.read_text()  # a terminal on stdout no longer matters


@pytest.mark.parametrize(
    ("name", "start"),
    [
        ("s.csv", "run,topic,measure,value"),
        ("s.tsv", "run\ttopic\tmeasure\tvalue"),
        ("s.jsonl", '{"run": "ql-cata", "topic": "all", "measure": "P@5"'),
        ("s.json", '{\n "signature": "divaeval '),
        ("s.tex", "\\begin{tabular}{rlr}"),
        ("s.md", "| run | topic | P@5 |"),
        ("s.html", "<!DOCTYPE html>"),
        ("s.txt", "runid                 \tall\tql-cata"),  # the main job's default: trec_eval
    ],
)
def test_the_extension_chooses_the_format_of_the_main_job(capsys, tmp_path, terminal, name, start):
    target = tmp_path / name
    code, out, err = run_cli(capsys, RUNS3[0], SAMPLE_QRELS, "-m", "P@5", "-o", target)
    assert (code, out) == (0, ""), err
    assert target.read_text().startswith(start)


def test_f_wins_over_the_extension(capsys, tmp_path):
    target = tmp_path / "scores.csv"
    code, _, err = run_cli(capsys, RUNS3[0], SAMPLE_QRELS, "-m", "P@5", "-f", "jsonl", "-o", target)
    assert code == 0, err
    assert target.read_text().startswith('{"run": "ql-cata"')
    code, _, err = run_cli(capsys, "collection", SAMPLE_QRELS, "-f", "tsv", "-o", target)
    assert code == 0, err
    assert _first_line(target).startswith("topic\t")


def test_markdown_and_html_hold_every_section(capsys, tmp_path):
    md, page = tmp_path / "p.md", tmp_path / "p.html"
    args = ["prefer", *RUNS3, SAMPLE_QRELS, "--table", "pairs"]
    assert run_cli(capsys, *args, "-o", md)[0] == 0
    text = md.read_text()
    assert text.startswith("**pairs: sign test**\n\n| measure | run_a | run_b |")
    assert text.rstrip().endswith("`") and "`divaeval " in text
    assert run_cli(capsys, *args, "-o", page)[0] == 0
    html = page.read_text()
    assert html.count("<table>") == 1 and html.rstrip().endswith("</body></html>")
    assert "<caption>pairs: sign test</caption>" in html


def test_a_bad_format_for_a_file_is_a_usage_error(capsys, tmp_path):
    code, out, err = run_cli(capsys, RUNS3[0], SAMPLE_QRELS, "-f", "nope", "-o", tmp_path / "x.csv")
    assert (code, out) == (2, "") and err.startswith("divaeval: Invalid value for '-f'")
    assert not (tmp_path / "x.csv").exists()


def test_dev_stdout_is_the_open_descriptor_where_the_shell_writes(tmp_path):
    # /dev/stdout on a file the shell opened: the output goes after what the shell wrote and
    # before what it writes next (not renamed over the file, not written from its start)
    import subprocess
    import sys

    log = tmp_path / "log.txt"
    command = (
        f"echo before; '{sys.executable}' -m divaeval '{SAMPLE_DATA / 'run.txt'}' "
        f"'{SAMPLE_QRELS}' -m P@5 -o /dev/stdout; echo after"
    )
    for redirect in (">", ">>"):
        done = subprocess.run(f"({command}) {redirect} '{log}'", shell=True, timeout=120)
        assert done.returncode == 0
        lines = log.read_text().splitlines()
        assert (lines[0], lines[-1]) == ("before", "after")
        assert lines[1].startswith("runid") and lines[3].startswith("P@5")
        log.unlink()
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", SAMPLE_DATA / "run.txt", SAMPLE_QRELS, "-o",
         "/dev/fd/9"], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (
        1,
        "divaeval: /dev/fd/9: cannot write output: Bad file descriptor\n",
    )
