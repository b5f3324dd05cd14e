"""The first ten minutes of a new user (issue 29): the top-level help shows the main job's
options, a mistyped subcommand says so, option suggestions are close matches only, and shell
completion offers measure names, option values and file names."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.cli.app import MAIN_JOB_OPTIONS, close_options

RUN = SAMPLE_DATA / "run.txt"
QRELS = SAMPLE_DATA / "qrels.txt"


def test_the_top_level_help_shows_the_main_jobs_ten_options(capsys):
    code, out, err = run_cli(capsys, "--help")
    assert (code, err) == (0, "")
    section = out.split("Main job options (all of them: divaeval evaluate --help):\n")[1]
    section = section.split("\n\n")[0]
    for flags in ("-m, --measure MEASURE", "-q, --per-topic", "-c, --complete", "-M, --depth",
                  "-l, --rel-level", "--order [score|", "--compat [ndeval|", "-f, --format [",
                  "-o, --output FILE"):  # fmt: skip
        assert flags in section, flags
    assert len(MAIN_JOB_OPTIONS) == 10
    assert "NAME[(p=v,...)][@k,...] or a preset" in section
    assert "ranking order" in section and "score = trec_eval" not in section  # one clause each
    assert out.index("Main job options") < out.index("Commands:")


@pytest.mark.parametrize(
    ("typed", "meant"), [("compaer", "compare"), ("metircs", "metrics"), ("evalute", "evaluate")]
)
def test_a_mistyped_subcommand_is_a_usage_error(capsys, typed, meant):
    code, out, err = run_cli(capsys, typed, RUN, QRELS)
    assert (code, out, err) == (
        2,
        "",
        f"divaeval: {typed}: no such file; did you mean '{meant}'?\n",
    )


def test_a_missing_run_file_far_from_any_subcommand_is_still_bad_data(
    capsys, tmp_path, monkeypatch
):
    code, _, err = run_cli(capsys, tmp_path / "nope.txt", QRELS)
    assert code == 1 and "cannot open run file" in err
    # a file named like a subcommand's typo is a run file when it exists
    typo = tmp_path / "compaer"
    typo.write_text(RUN.read_text())
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "compaer", QRELS, "-m", "P@5")
    assert code == 0, err


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("--bogus", None),  # click suggested --jobs
        ("--xyz", None),
        ("--precison", "'--precision'"),
        ("--ouput", "'--output'"),
        ("--base", "'--baseline'"),
        ("--per-topc", "'--per-topic'"),
    ],
)
def test_option_suggestions_are_close_matches_only(capsys, typed, suggested):
    code, out, err = run_cli(capsys, RUN, QRELS, typed)
    assert (code, out) == (2, "")
    if suggested is None:
        assert err == f"divaeval: No such option '{typed}'.\n"
    else:
        assert err == f"divaeval: No such option '{typed}'. Did you mean {suggested}?\n"


def test_close_options_of_an_analysis(capsys):
    code, _, err = run_cli(capsys, "compare", RUN, QRELS, "--sed", "3")
    assert (code, err) == (2, "divaeval: No such option '--sed'. Did you mean '--seed'?\n")
    assert close_options("-x", None) == []


def _completions(words: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("_DIVAEVAL")}
    env.update(_DIVAEVAL_COMPLETE="bash_complete", COMP_WORDS=words,
               COMP_CWORD=str(len(words.split()) - 1))  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "divaeval"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_shell_completion_offers_measures_values_and_files():
    assert "plain,alpha-nDCG" in _completions("divaeval run.txt qrels.txt -m alpha-n")
    assert _completions("divaeval compare a b -m offi") == ["plain,official"]  # presets too
    assert "plain,ndeval" in _completions("divaeval a b -m nd")
    assert _completions("divaeval a b --order score-") == [
        "plain,score-docno-asc",
        "plain,score-file",
    ]
    assert _completions("divaeval a b -f js") == ["plain,jsonl", "plain,json"]
    assert _completions("divaeval run.txt qr") == ["file,qr"]  # RUN... QRELS: file names
    assert _completions("divaeval a b -o ou") == ["file,ou"]
    assert _completions("divaeval meta sensitivity qr") == ["file,qr"]
    assert _completions("divaeval me") == ["plain,meta", "plain,metrics", "file,me"]


def test_a_slow_step_goes_to_the_status_sink():
    from divaeval.errors import set_status_sink, status

    seen: list[str | None] = []
    previous = set_status_sink(seen.append)
    try:
        with status("starting"):
            seen.append("inside")
    finally:
        set_status_sink(previous)
    assert seen == ["starting", "inside", None]
    with status("nobody listens"):  # no sink: nothing happens
        pass


#: divaeval's command line with a local Dask cluster that fails to start at once
FAILING_CLUSTER = """
import sys
import dask.distributed

def boom(*args, **kwargs):
    raise RuntimeError("boom")

dask.distributed.LocalCluster = boom
from divaeval.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_starting_a_dask_cluster_shows_a_status_line_on_a_terminal_only():
    pytest.importorskip("dask.distributed")
    pty = pytest.importorskip("pty")
    args = [sys.executable, "-c", FAILING_CLUSTER, RUN, QRELS, "--scheduler", "local:1"]
    master, slave = pty.openpty()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    process.wait(timeout=120)
    os.close(master)
    assert process.returncode == 2
    assert shown.decode().startswith(
        "\r\x1b[Kdivaeval: starting a local Dask cluster of 1 worker …\r\x1b[K"
        "divaeval: cannot use the Dask scheduler local:1: RuntimeError: boom"
    )
    piped = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert piped.stderr == "divaeval: cannot use the Dask scheduler local:1: RuntimeError: boom\n"
