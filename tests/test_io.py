"""Readers: every run/qrels/intent/topic-file variant and every error path.

Errors are asserted exactly as the CLI prints them: one line on stderr,
``divaeval: FILE:LINE: message``, no traceback, exit code 1 for bad data and 2 for usage.
"""

from __future__ import annotations

import _thread
import gzip
import io
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import examples

import divaeval
from divaeval.cli import main
from divaeval.errors import DataError, set_warning_sink
from divaeval.topics import sort_topics

QRELS = "1 1 d1 1\n1 2 d2 1\n1 1 d3 0\n2 1 e1 1\n10 1 f1 1\n"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Every test works in its own directory, so file names in messages are short."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def warnings():
    collected: list[str] = []
    previous = set_warning_sink(collected.append)
    yield collected
    set_warning_sink(previous)


def write(name: str, text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    Path(name).write_bytes(data)
    return name


def cli(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_error(capsys, args, message: str, code: int = 1) -> None:
    """The CLI fails with exactly ``divaeval: message`` on stderr and nothing on stdout."""
    got, out, err = cli(capsys, *args)
    assert (got, out, err) == (code, "", f"divaeval: {message}\n")


def per_topic(capsys, *args: str) -> dict[tuple[str, str], float]:
    """(topic, measure) -> value from ``-q -n --format tsv``."""
    code, out, err = cli(capsys, *args, "-q", "-n", "-f", "tsv")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    return {(topic, measure): float(value) for _, topic, measure, value, _ in rows}


def stdin_bytes(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


# ---------------------------------------------------------------------------------------------
# runs: accepted variants


def test_run_whitespace_crlf_comments_blank_lines(warnings):
    write("q.txt", QRELS)
    text = (
        "# produced by a system\r\n"
        "1\tQ0  d1 1 3.0   tagA\r\n"
        "\r\n"
        "   # an indented comment line\n"
        "  1 Q0\t\td#2 2 2.0 tagA\n"  # '#' inside a docno is data
        "\n"
        "1 Q0 d2 3 1.0 tagA\x0b\n"
        "# trailing comment without newline"
    )
    run = divaeval.read_run(write("r.txt", text))
    assert run.tag == "tagA"
    assert run.frame["docno"].tolist() == ["d1", "d#2", "d2"]
    assert run.frame["score"].tolist() == [3.0, 2.0, 1.0]
    assert run.frame["rank"].tolist() == ["1", "2", "3"]
    # physical line numbers survive comments and blank lines
    assert [run.line_of(i) for i in range(3)] == [2, 5, 7]


def test_run_hash_docno_is_judged(warnings, capsys):
    # MS MARCO-style docids contain '#': only a line whose first non-blank char is '#' is a
    # comment
    write("q.txt", "1 1 doc#1 1\n1 1 doc#2 1\n")
    write("r.txt", "#comment\n1 Q0 doc#1 1 2 t\n1 Q0 doc#2 2 1 t\n")
    values = per_topic(capsys, "r.txt", "q.txt", "-m", "P-IA@2")
    assert values[("1", "P-IA@2")] == 1.0


def test_run_line_without_final_newline():
    run = divaeval.read_run(write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t"))
    assert run.frame["docno"].tolist() == ["d1", "d2"]


def test_run_extra_columns_ignored():
    # trec_eval and ndeval ignore fields after the sixth, also when the first line has them
    run = divaeval.read_run(write("r.txt", "1 Q0 d1 1 3.0 t extra\n1 Q0 d2 2 2.0 t\n"))
    assert run.frame["docno"].tolist() == ["d1", "d2"]
    assert run.frame["score"].tolist() == [3.0, 2.0]
    assert run.tag == "t"


def test_run_topic_ids_are_strings(capsys, warnings):
    write("q.txt", "0101 1 d1 1\n101 1 d2 1\n")
    write("r.txt", "0101 Q0 d1 1 1.0 t\n101 Q0 d1 1 1.0 t\n")
    run = divaeval.read_run("r.txt")
    assert run.frame["topic"].tolist() == ["0101", "101"]
    values = per_topic(capsys, "r.txt", "q.txt", "-m", "strec@1")
    # '0101' keeps its leading zero and is a different topic from '101'
    assert values == {("0101", "strec@1"): 1.0, ("101", "strec@1"): 0.0}


def test_topic_sort_numeric_when_all_integers(capsys, warnings):
    write("q.txt", "".join(f"{t} 1 d1 1\n" for t in ("10", "9", "100", "2")))
    write("r.txt", "".join(f"{t} Q0 d1 1 1.0 t\n" for t in ("100", "2", "10", "9")))
    code, out, _ = cli(capsys, "r.txt", "q.txt", "-q", "-n", "-m", "strec@1")
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["2", "9", "10", "100"]


def test_topic_sort_strings_otherwise(capsys, warnings):
    write("q.txt", "".join(f"{t} 1 d1 1\n" for t in ("q10", "q9", "2")))
    write("r.txt", "".join(f"{t} Q0 d1 1 1.0 t\n" for t in ("q9", "2", "q10")))
    code, out, _ = cli(capsys, "r.txt", "q.txt", "-q", "-n", "-m", "strec@1")
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["2", "q10", "q9"]
    assert sort_topics(["10", "9", "010"]) == ["9", "010", "10"]
    assert sort_topics(["b", "a10", "a9"]) == ["a10", "a9", "b"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(["1", "01", "+1", "-1", "10", "2", "-02", "+09", "x", "", "²"])))
def test_topic_sort_is_its_definition(ids):
    # numerically (ties of spellings in string order) when every id is an integer
    integer = all(re.fullmatch(r"[+-]?[0-9]+", t) for t in ids)
    expected = sorted(ids, key=lambda t: (int(t), t)) if ids and integer else sorted(ids)
    assert sort_topics(ids) == expected


def test_run_gzip_by_magic_bytes(capsys, warnings):
    write("q.txt", QRELS)
    plain = "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n"
    write("plain.txt", plain)
    write("packed.txt", gzip.compress(plain.encode()))  # no .gz suffix
    write("packed.gz", gzip.compress(plain.encode()))
    expected = cli(capsys, "plain.txt", "q.txt", "-m", "ndeval")
    assert expected[0] == 0
    assert cli(capsys, "packed.txt", "q.txt", "-m", "ndeval") == expected
    assert cli(capsys, "packed.gz", "q.txt", "-m", "ndeval") == expected


def test_qrels_gzip(capsys, warnings):
    write("q.bin", gzip.compress(QRELS.encode()))
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    values = per_topic(capsys, "r.txt", "q.bin", "-m", "strec@1")
    assert values[("1", "strec@1")] == 0.5


def test_corrupt_gzip(capsys):
    write("q.txt", QRELS)
    write("r.gz", gzip.compress(b"1 Q0 d1 1 3.0 t\n")[:15])
    code, out, err = cli(capsys, "r.gz", "q.txt")
    assert code == 1 and out == ""
    assert err.startswith("divaeval: r.gz: corrupt gzip data in run file: ")
    assert err.count("\n") == 1


@pytest.mark.parametrize("packed", [False, True])
def test_run_from_stdin(capsys, monkeypatch, warnings, packed):
    write("q.txt", QRELS)
    data = b"1 Q0 d1 1 3.0 t\r\n1 Q0 d2 2 2.0 t\r\n"
    write("r.txt", data)
    expected = cli(capsys, "r.txt", "q.txt", "-m", "strec@1,2", "-q")
    stdin_bytes(monkeypatch, gzip.compress(data) if packed else data)
    assert cli(capsys, "-", "q.txt", "-m", "strec@1,2", "-q") == expected


def test_qrels_from_stdin(capsys, monkeypatch, warnings):
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    stdin_bytes(monkeypatch, gzip.compress(QRELS.encode()))
    values = per_topic(capsys, "r.txt", "-", "-m", "strec@1")
    assert values[("1", "strec@1")] == 0.5


def test_stdin_error_names_stdin(capsys, monkeypatch):
    write("q.txt", QRELS)
    stdin_bytes(monkeypatch, b"1 Q0 d1 1 x t\n")
    assert_error(capsys, ["-", "q.txt"], "<stdin>:1: score 'x' is not a number")


def test_only_one_stdin(capsys):
    assert_error(capsys, ["-", "-"], "only one input can be '-' (stdin)", code=2)


def test_gzip_stdin_subprocess(tmp_path):
    # the installed entry point, a real pipe: `zcat`-free gzip on stdin
    write("q.txt", QRELS)
    data = gzip.compress(b"1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n")
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", "-", "q.txt", "-m", "strec@2", "-f", "jsonl"],
        input=data,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        b'{"run": "t", "topic": "all", "measure": "strec@2", "value": 1.0, "params": "strec@2"}\n'
    )


@pytest.mark.skipif(
    not hasattr(select, "poll") or not os.path.isdir("/dev/fd"), reason="POSIX pipes"
)
def test_a_ctrl_c_while_a_pipe_is_read_is_raised_without_more_data():
    # A SIGINT that lands while a read() of the pipe returns data is only noted by Python's
    # C-level handler (as interrupt_main notes it here): the reader must raise it without
    # waiting for data, which never comes while the writer (a process the Ctrl-C did not
    # reach) keeps the pipe open. The reader of a BufferedReader raised it only at the end.
    from divaeval.io._text import text_pieces

    read_end, write_end = os.pipe()
    os.write(write_end, b"1 Q0 d1 1 3.0 t\n")  # a first read() returns this; then it waits
    caught = threading.Event()

    def interrupt_then_end() -> None:
        _thread.interrupt_main()
        caught.wait(10)
        os.write(write_end, b"1 Q0 d2 2 2.0 t\n")
        os.close(write_end)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupter = threading.Timer(0.2, interrupt_then_end)
    try:
        pieces = text_pieces(f"/dev/fd/{read_end}", what="run")
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            interrupter.start()
            next(pieces)
        waited = time.monotonic() - start
    finally:
        caught.set()
        interrupter.join()
        signal.signal(signal.SIGINT, previous)
        os.close(read_end)
    assert waited < 5  # 0.2 s and at most PIPE_WAIT_SECONDS (before: at the end, 10 s)


def test_several_runs_per_call(capsys, warnings):
    write("q.txt", QRELS)
    write("a.txt", "1 Q0 d1 1 3.0 runA\n")
    write("b.txt", "1 Q0 d2 1 3.0 runB\n1 Q0 d1 2 2.0 runB\n")
    write("c.txt", gzip.compress(b"1 Q0 d3 1 3.0 runC\n"))
    code, out, _ = cli(capsys, "a.txt", "b.txt", "c.txt", "q.txt", "-m", "strec@2", "-f", "csv")
    assert code == 0
    assert out.splitlines() == [
        "run,topic,measure,value,params",
        "runA,all,strec@2,0.5,strec@2",
        "runB,all,strec@2,1.0,strec@2",
        "runC,all,strec@2,0.0,strec@2",
    ]


# ---------------------------------------------------------------------------------------------
# runs: duplicates and errors


def test_duplicate_docno_is_an_error(capsys):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n# c\n1 Q0 d2 2 2.0 t\n1 Q0 d1 3 1.0 t\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt"],
        "r.txt:4: duplicate docno d1 for topic 1 (also at line 1); "
        "use --dedupe first to keep the first copy",
    )


def test_dedupe_first_keeps_first_and_warns(capsys):
    write("q.txt", QRELS)
    # d1 twice: the first copy (rank 1) is kept, so the relevant d2 stays at rank 2
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d3 2 2.5 t\n1 Q0 d1 3 2.0 t\n1 Q0 d2 4 1.0 t\n")
    code, out, err = cli(
        capsys,
        "r.txt",
        "q.txt",
        "--dedupe",
        "first",
        "-m",
        "strec@3",
        "-m",
        "P-IA@3",
        "-q",
        "-n",
        "-f",
        "tsv",
    )
    assert code == 0
    assert err.splitlines()[0] == (
        "divaeval: warning: r.txt: 1 repeated docnos dropped (kept the highest-ranked copy)"
    )
    rows = {tuple(line.split("\t")[1:3]): line.split("\t")[3] for line in out.splitlines()[1:]}
    assert float(rows[("1", "strec@3")]) == 1.0  # d1 d3 d2: both subtopics
    assert float(rows[("1", "P-IA@3")]) == pytest.approx(2 / 6)
    assert "warning" not in out


def test_duplicate_docno_below_depth_is_tolerated(capsys, warnings):
    # as ndeval: the check runs after -M truncation
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n1 Q0 d1 3 1.0 t\n")
    code, _, err = cli(capsys, "r.txt", "q.txt", "-M", "2", "-m", "strec@2")
    assert code == 0, err


def test_duplicate_docno_in_another_topic_is_fine(capsys, warnings):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n2 Q0 d1 1 3.0 t\n")
    assert cli(capsys, "r.txt", "q.txt", "-m", "strec@1")[0] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 Q0 d1 1 3.0 t\n1 Q0 d2 2 abc t\n", "r.txt:2: score 'abc' is not a number"),
        ("1 Q0 d1 1 inf t\n", "r.txt:1: score 'inf' is not a finite number"),
        (
            "1 Q0 d1 1 3.0 t\n\n1 Q0 d2 2 2.0\n",
            "r.txt:3: expected 6 columns (topic Q0 docno rank score tag), found 5",
        ),
        ("1 Q0 d1 1 3.0\n", "r.txt:1: expected 6 columns (topic Q0 docno rank score tag), found 5"),
        (
            "1 Q0 d1 1 3.0 t\n1 Q0 d2\n",
            "r.txt:2: expected 6 columns (topic Q0 docno rank score tag), found 3",
        ),
        (  # a control byte is data, not a delimiter (it was read as one: docno d2, rank 2)
            "1 Q0 d1 1 3.0 t\n1 Q0 d2\x012 2.0 t\n",
            "r.txt:2: expected 6 columns (topic Q0 docno rank score tag), found 5",
        ),
        ("", "r.txt: run file has no lines"),
        ("# nothing\n\n   \n", "r.txt: run file has no lines"),
    ],
)
def test_run_errors(capsys, text, message):
    write("q.txt", QRELS)
    write("r.txt", text)
    assert_error(capsys, ["r.txt", "q.txt"], message)


def test_swapped_arguments_hint(capsys):
    # trec_eval's order (qrels first) is caught on the qrels-shaped first line
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    hint = (
        "; this looks like a qrels file: divaeval takes RUN... QRELS (qrels last, unlike trec_eval)"
    )
    assert_error(
        capsys,
        ["q.txt", "r.txt"],
        "q.txt:1: expected 6 columns (topic Q0 docno rank score tag), found 4" + hint,
    )
    write("typed.txt", "1 1 d1 1 nav\n")
    assert_error(
        capsys,
        ["typed.txt", "r.txt"],
        "typed.txt:1: expected 6 columns (topic Q0 docno rank score tag), found 5" + hint,
    )


@pytest.mark.parametrize(
    "start, line",
    [("", 1), ("\ufeff# a comment\r\n\r\n", 3), ("  \t\n   # note\n", 3), ("\n" * 5000, 5001)],
)
def test_swapped_arguments_are_told_before_the_qrels_are_read(capsys, start, line):
    # the first content line of a run is checked first (after a BOM, blank and comment lines,
    # with any line end); the qrels given last, a run here, would be an error of its own
    write("q.txt", start + QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    assert_error(
        capsys,
        ["q.txt", "r.txt"],
        f"q.txt:{line}: expected 6 columns (topic Q0 docno rank score tag), found 4; "
        "this looks like a qrels file: divaeval takes RUN... QRELS (qrels last, unlike trec_eval)",
    )


def test_run_given_as_qrels(capsys):
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    assert_error(
        capsys,
        ["r.txt", "r.txt"],
        "r.txt:1: expected 4 or 5 columns (topic subtopic docno grade [inf|nav]), "
        "found 6; this looks like a run file: divaeval takes RUN... QRELS (qrels last)",
    )


def test_rank_order_errors(capsys):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 x 2.0 t\n")
    assert_error(
        capsys, ["r.txt", "q.txt", "--order", "rank"], "r.txt:2: rank 'x' is not an integer"
    )
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 1 2.0 t\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt", "--order", "rank"],
        "r.txt:2: duplicate rank 1 for topic 1 (also at line 1); --order rank needs distinct ranks",
    )
    # the rank column is not read in the default (score) order
    assert cli(capsys, "r.txt", "q.txt", "-m", "strec@1")[0] == 0


def test_missing_files(capsys):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    assert_error(capsys, ["nope.txt", "q.txt"], "nope.txt: cannot open run file: no such file")
    assert_error(capsys, ["r.txt", "nope.txt"], "nope.txt: cannot open qrels file: no such file")
    Path("dir").mkdir()
    assert_error(capsys, ["dir", "q.txt"], "dir: cannot open run file: is a directory")


def test_binary_input(capsys):
    write("q.txt", QRELS)
    write("r.bin", b"\x00\x01\x02garbage")
    assert_error(capsys, ["r.bin", "q.txt"], "r.bin: run file looks binary (NUL byte), not text")


def test_no_common_topic(capsys):
    write("q.txt", QRELS)
    write("r.txt", "77 Q0 d1 1 3.0 t\n")
    code, out, err = cli(capsys, "r.txt", "q.txt", "-m", "strec@1")
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        "divaeval: r.txt: no topic of run t is in the qrels (qrels topics look like '1')"
    )


def test_usage_errors_exit_2(capsys):
    write("q.txt", QRELS)
    assert_error(capsys, ["q.txt"], "need at least one RUN and the QRELS file (qrels last)", 2)
    code, out, err = cli(capsys, "q.txt", "q.txt", "--order", "foo")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("divaeval: Invalid value for '--order'")


# ---------------------------------------------------------------------------------------------
# qrels


@pytest.mark.parametrize(
    ("topics", "order"),
    [(["10", "2", "1", "2"], ["1", "2", "10"]), (["b", "a10", "a9", "b"], ["a10", "a9", "b"])],
)
def test_qrels_topics_are_read_in_topic_order(topics, order):
    # the qrels index numbers topics in this order, and takes read qrels' codes as they are
    text = "".join(f"{topic} 1 d{i} 1\n" for i, topic in enumerate(topics))
    qrels = divaeval.read_qrels(write("q.txt", text))
    assert qrels.topic_names.tolist() == order
    assert qrels.topic_names[qrels.topic_codes].tolist() == topics
    assert qrels.frame["topic"].tolist() == topics


def test_qrels_variants():
    text = (
        "# comment\r\n"
        "0101\t1  d1 2\r\n"
        "0101 1 d2 -2\r\n"  # negative = judged, not relevant (Web track spam)
        "\r\n"
        "0101 2 d1 1 nav\r\n"
        "0101 3 d3 0 inf\r\n"
    )
    qrels = divaeval.read_qrels(write("q.txt", text))
    frame = qrels.frame
    assert frame["topic"].tolist() == ["0101"] * 4
    assert frame["subtopic"].tolist() == ["1", "1", "2", "3"]
    assert frame["grade"].tolist() == [2, -2, 1, 0]
    assert frame["type"].tolist() == ["", "", "nav", "inf"]
    assert [qrels.line_of(i) for i in range(4)] == [2, 3, 5, 6]
    assert qrels.topics() == ["0101"]


def test_negative_grades_are_not_relevant(capsys, warnings):
    write("q.txt", "1 1 d1 -2\n1 1 d2 1\n1 2 d3 1\n")
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 2 2.0 t\n")
    values = per_topic(capsys, "r.txt", "q.txt", "-m", "P-IA@1", "-m", "strec@2")
    assert values[("1", "P-IA@1")] == 0.0
    assert values[("1", "strec@2")] == 0.5


def test_ntcir_dqrels_grades():
    qrels = divaeval.read_qrels(write("x.Dqrels", "0101 1 d1 L2\n0101 2 d2 L0\n0102 1 d1 L10\n"))
    assert qrels.frame["grade"].tolist() == [2, 0, 10]


def test_adhoc_qrels_single_aspect(capsys, warnings):
    # ad hoc qrels (subtopic 0 everywhere) are single-aspect topics: S = 1
    write("q.txt", "1 0 d1 1\n1 0 d2 2\n1 0 d3 0\n")
    write("r.txt", "1 Q0 d3 1 3.0 t\n1 Q0 d2 2 2.0 t\n1 Q0 d1 3 1.0 t\n")
    values = per_topic(capsys, "r.txt", "q.txt", "-m", "strec@1,2", "-m", "P-IA@3", "-m", "MAP-IA")
    assert values[("1", "strec@1")] == 0.0
    assert values[("1", "strec@2")] == 1.0
    assert values[("1", "P-IA@3")] == pytest.approx(2 / 3)
    assert values[("1", "MAP-IA")] == pytest.approx((1 / 2 + 2 / 3) / 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1 1 d1 1\n1 1 d2 1 foo\n",
            "q.txt:2: intent type 'foo' in column 5 is not 'inf' or 'nav'",
        ),
        ("1 1 d1 1\n1 1 d2 1.5\n", "q.txt:2: grade '1.5' is not an integer"),
        ("1 1 d1 1\n1 1 d2 high\n", "q.txt:2: grade 'high' is not an integer"),
        ("1 1 d1 L1\n1 1 d2 2\n", "q.txt:2: grade '2' mixes with NTCIR-style L<k> grades"),
        (
            "1 1 d1 1\n\n1 1 d2\n",
            "q.txt:3: expected 4 or 5 columns (topic subtopic docno grade [inf|nav]), found 3",
        ),
        (
            "1 1 d1 1\n1 1 d2 1 inf 7\n",
            "q.txt:2: expected 4 or 5 columns (topic subtopic docno grade [inf|nav]), found 6",
        ),
        ("1 1 d1 99999\n", "q.txt:1: grade '99999' is out of range (|grade| <= 32767)"),
        ("", "q.txt: qrels file has no judgments"),
        ("# only a comment", "q.txt: qrels file has no judgments"),
        (
            "1 1 d1 1\n1 2 d1 1\n# c\n1 1 d1 1\n",
            "q.txt:4: duplicate judgment for topic 1 subtopic 1 docno d1 (also at line 1)",
        ),
        (
            "1 1 d1 1\n1 2 d1 1\n1 1 d1 0\n",
            "q.txt:3: conflicting judgments for topic 1 subtopic 1 docno d1: grade 0 here, "
            "grade 1 at line 1",
        ),
    ],
)
def test_qrels_errors(capsys, text, message):
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("q.txt", text)
    assert_error(capsys, ["r.txt", "q.txt"], message)
    with pytest.raises(DataError) as caught:
        divaeval.read_qrels("q.txt")
    assert str(caught.value) == message


def test_same_docno_in_two_subtopics_or_topics_is_fine():
    qrels = divaeval.read_qrels(write("q.txt", "1 1 d1 1\n1 2 d1 1\n2 1 d1 0\n"))
    assert len(qrels.frame) == 3


# ---------------------------------------------------------------------------------------------
# intent files and topic XML


def test_intents_file():
    text = "# NTCIR DINprob\n0101 1 0.5 inf\n0101 2 0.3 nav\n0101\t3\t0.2\r\n"
    intents = divaeval.read_intents(write("x.DINprob", text))
    frame = intents.frame
    assert frame["topic"].tolist() == ["0101"] * 3
    assert frame["subtopic"].tolist() == ["1", "2", "3"]
    assert frame["probability"].tolist() == [0.5, 0.3, 0.2]
    assert frame["type"].tolist() == ["inf", "nav", ""]
    assert intents.line_of(2) == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 1 0.5\n1 1 0.5\n", "i.txt:2: intent 1 of topic 1 is listed twice"),
        ("1 1 1.5\n", "i.txt:1: probability '1.5' is not a number in [0, 1]"),
        ("1 1 -0.1\n", "i.txt:1: probability '-0.1' is not a number in [0, 1]"),
        ("1 1 p\n", "i.txt:1: probability 'p' is not a number in [0, 1]"),
        # the unreadable value after a good line and a comment: located at its own line
        ("1 1 0.5\n# c\n1 2 p\n", "i.txt:3: probability 'p' is not a number in [0, 1]"),
        ("1 1 0.5 xx\n", "i.txt:1: intent type 'xx' is not 'inf' or 'nav'"),
        (
            "1 1 0.5\n1 2\n",
            "i.txt:2: expected 3 or 4 columns (topic subtopic probability [inf|nav])",
        ),
        (
            "1 1 0.5 inf 7\n",
            "i.txt:1: expected 3 or 4 columns (topic subtopic probability [inf|nav])",
        ),
        ("", "i.txt: intent file has no lines"),
    ],
)
def test_intent_errors(capsys, text, message):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("i.txt", text)
    assert_error(capsys, ["r.txt", "q.txt", "--intents", "i.txt", "-m", "strec@1"], message)


TOPICS_XML = """<webtrack2011>
<topic number="101" type="faceted">
  <query>ritz carlton lake las vegas</query>
  <subtopic number="1" type="nav">a</subtopic>
  <subtopic number="2" type="inf">b</subtopic>
  <subtopic number="3" type="inv">c</subtopic>
  <subtopic number="4" type="inav">d</subtopic>
  <subtopic number="5">e</subtopic>
</topic>
</webtrack2011>
"""


def test_topics_xml_and_2011_typos(warnings):
    table = divaeval.read_topic_types(write("topics.xml", TOPICS_XML))
    # no type attribute: untyped (""), the default inf applies unless another file types it
    assert table.values.tolist() == [
        ["101", "1", "nav", 4],
        ["101", "2", "inf", 5],
        ["101", "3", "inf", 6],
        ["101", "4", "inf", 7],
        ["101", "5", "", 8],
    ]
    assert table.attrs["source"] == "topics.xml"
    assert warnings == [
        "topics.xml:6: topic 101 subtopic 3: unknown subtopic type 'inv', read as 'inf'",
        "topics.xml:7: topic 101 subtopic 4: unknown subtopic type 'inav', read as 'inf'",
    ]


def test_topics_xml_warning_on_stderr(capsys):
    write("q.txt", "101 1 d1 1\n101 3 d2 1\n")
    write("r.txt", "101 Q0 d1 1 3.0 t\n")
    write("topics.xml", TOPICS_XML)
    code, out, err = cli(capsys, "r.txt", "q.txt", "--topics", "topics.xml", "-m", "strec@1")
    assert code == 0
    assert (
        "divaeval: warning: topics.xml:6: topic 101 subtopic 3: unknown subtopic type 'inv', "
        "read as 'inf'\n" in err
    )
    assert "warning" not in out


def test_topics_real_2012_file():
    table = divaeval.read_topic_types(
        str(Path(__file__).parent / "fixtures" / "trec2012" / "full-topics.xml")
    )
    assert table["topic"].nunique() == 50
    assert set(table["type"]) == {"inf", "nav"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<a><topic number="1">\n<subtopic', "t.xml:2: not well-formed topic XML: "),
        ("<a></a>", "t.xml: no <topic>/<subtopic> elements found"),
        (
            '<a><topic><subtopic number="1"/></topic></a>',
            "t.xml:1: <topic> without a number attribute",
        ),
        (
            '<a><topic number="7"><subtopic/></topic></a>',
            "t.xml:1: <subtopic> of topic 7 without a number attribute",
        ),
    ],
)
def test_topics_xml_errors(capsys, text, message):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("t.xml", text)
    code, out, err = cli(capsys, "r.txt", "q.txt", "--topics", "t.xml", "-m", "strec@1")
    assert code == 1 and out == ""
    assert err.startswith(f"divaeval: {message}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_debug_shows_traceback(capsys):
    write("q.txt", QRELS)
    with pytest.raises(DataError):
        main(["nope.txt", "q.txt", "--debug"])


# ---------------------------------------------------------------------------------------------
# line ends, byte-order marks, numbers at the edges, long tokens, subtopic types (issue 9)

CR_QRELS = "1 1 a 1\n1 1 b 1\n1 1 c 1\n"  # three relevant documents of one subtopic


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_comment_ended_by_any_line_end(capsys, warnings, end):
    # A '#' comment ended by a lone CR used to swallow the CR-ended lines after it (P@3 =
    # 0.667). Every line end ends the comment: a, b, c all ranked -> P-IA@3 = 3/3 = 1.
    write("q.txt", CR_QRELS.replace("\n", end))
    run = f"# a comment{end}1 Q0 a 1 3 t{end}1 Q0 b 2 2 t{end}  # indented{end}1 Q0 c 3 1 t{end}"
    write("r.txt", run)
    assert per_topic(capsys, "r.txt", "q.txt", "-m", "P-IA@3") == {("1", "P-IA@3"): 1.0}
    assert [divaeval.read_run("r.txt").line_of(i) for i in range(3)] == [2, 3, 5]
    write("i.txt", f"# c{end}1 1 1.0{end}")
    assert divaeval.read_intents("i.txt").frame["probability"].tolist() == [1.0]


def test_comment_lines_in_qrels_and_intents_end_at_cr():
    qrels = divaeval.read_qrels(write("q.txt", "# c\r1 1 a 1\r# d\r1 1 b 2\r"))
    assert qrels.frame["docno"].tolist() == ["a", "b"]
    assert [qrels.line_of(i) for i in range(2)] == [2, 4]
    intents = divaeval.read_intents(write("i.txt", "# c\r1 1 0.5\r1 2 0.5\r"))
    assert intents.frame["subtopic"].tolist() == ["1", "2"]


BOM = b"\xef\xbb\xbf"


def test_byte_order_mark_is_stripped_in_every_reader(capsys, warnings):
    # The BOM used to become part of the first topic id ('\ufeff1'), so topic 1 of the run
    # and of the qrels differed. With it stripped: a, b relevant and ranked -> P-IA@2 = 1.
    write("q.txt", BOM + b"1 1 a 1\n1 1 b 1\n")
    write("r.txt", BOM + b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    write("i.txt", BOM + b"1 1 1.0\n")
    write(
        "t.xml",
        BOM + b'<?xml version="1.0"?><t><topic number="1"><subtopic number="1"/></topic></t>',
    )
    assert divaeval.read_run("r.txt").topics.tolist() == ["1"]
    assert divaeval.read_qrels("q.txt").topic_names.tolist() == ["1"]
    assert divaeval.read_intents("i.txt").frame["topic"].tolist() == ["1"]
    assert divaeval.read_topic_types("t.xml")["topic"].tolist() == ["1"]
    values = per_topic(
        capsys, "r.txt", "q.txt", "--intents", "i.txt", "--topics", "t.xml", "-m", "P-IA@2"
    )
    assert values == {("1", "P-IA@2"): 1.0}
    # gzip around a BOM
    write("r.gz", gzip.compress(BOM + b"1 Q0 a 1 2 t\n"))
    assert divaeval.read_run("r.gz").topics.tolist() == ["1"]


def test_bom_only_at_the_start():
    # a BOM inside the file is data (part of a token), not removed
    run = divaeval.read_run(write("r.txt", b"1 Q0 a 1 2 t\n1 Q0 " + BOM + b"b 2 1 t\n"))
    assert run.frame["docno"].tolist() == ["a", "\ufeffb"]


def test_rank_beyond_int64_is_an_error(capsys):
    # It used to wrap around and rank the document first.
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 99999999999999999999 2.0 t\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt", "--order", "rank"],
        "r.txt:2: rank '99999999999999999999' is beyond the 64-bit integer range",
    )
    write("r.txt", "1 Q0 d1 1 3.0 t\n1 Q0 d2 -9223372036854775809 2.0 t\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt", "--order", "rank"],
        "r.txt:2: rank '-9223372036854775809' is beyond the 64-bit integer range",
    )


def test_ranks_are_exact_beyond_float_precision(capsys, warnings):
    # 2^53 + 1 and 2^53 are distinct ranks (a detour through float64 made them equal).
    # Rank order: d2 (2^53) then d1 (2^53 + 1): only d2 is relevant to subtopic 2 -> strec@1 = 1/2
    # for d2, and P-IA@1 = (0 + 1)/2 = 1/2; the score order would rank d1 first.
    write("q.txt", "1 1 d1 1\n1 2 d2 1\n")
    write("r.txt", "1 Q0 d1 9007199254740993 3.0 t\n1 Q0 d2 9007199254740992 2.0 t\n")
    run = divaeval.read_run("r.txt")
    assert divaeval.io.parse_ranks(run).tolist() == [2**53 + 1, 2**53]
    values = per_topic(capsys, "r.txt", "q.txt", "--order", "rank", "-m", "strec@1")
    assert values == {("1", "strec@1"): 0.5}
    write("r.txt", "1 Q0 d1 9223372036854775807 3.0 t\n1 Q0 d2 -9223372036854775808 2.0 t\n")
    assert divaeval.io.parse_ranks(divaeval.read_run("r.txt")).tolist() == [2**63 - 1, -(2**63)]


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("1e999", "score '1e999' is not a finite number (beyond the range of a double)"),
        ("-1e400", "score '-1e400' is not a finite number (beyond the range of a double)"),
        ("inf", "score 'inf' is not a finite number"),
        ("-Infinity", "score '-Infinity' is not a finite number"),
        ("nan", "score 'nan' is not a finite number"),
    ],
)
def test_scores_must_be_finite(capsys, score, message):
    write("q.txt", QRELS)
    write("r.txt", f"1 Q0 d1 1 3.0 t\n1 Q0 d2 2 {score} t\n")
    assert_error(capsys, ["r.txt", "q.txt"], f"r.txt:2: {message}")


def test_tiny_scores_underflow_to_zero(capsys, warnings):
    # 1e-999 is 0.0 (as strtod reads it): a tie with 0, broken by docno descending: d2, d1
    write("q.txt", "1 1 d1 1\n1 2 d2 1\n")
    write("r.txt", "1 Q0 d1 1 1e-999 t\n1 Q0 d2 2 0 t\n")
    assert divaeval.read_run("r.txt").score.tolist() == [0.0, 0.0]
    assert per_topic(capsys, "r.txt", "q.txt", "-m", "P-IA@1") == {("1", "P-IA@1"): 0.5}


def test_bad_tokens_are_cut_in_messages(capsys):
    write("q.txt", QRELS)
    long = "x" * 1_000_000
    write("r.txt", f"1 Q0 d1 1 3.0 t\n1 Q0 d2 2 {long} t\n")
    shown = f"'{'x' * 40}…' (1000000 characters)"
    assert_error(capsys, ["r.txt", "q.txt"], f"r.txt:2: score {shown} is not a number")
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("q2.txt", f"1 1 d1 1\n1 1 d2 {long}\n")
    assert_error(capsys, ["r.txt", "q2.txt"], f"q2.txt:2: grade {shown} is not an integer")
    write("q3.txt", f"1 1 d1 1 {long}\n")
    assert_error(
        capsys,
        ["r.txt", "q3.txt"],
        f"q3.txt:1: intent type {shown} in column 5 is not 'inf' or 'nav'",
    )
    write("q4.txt", f"{long} 1 d1 1\n{long} 1 d1 1\n")
    assert_error(
        capsys,
        ["r.txt", "q4.txt"],
        f"q4.txt:2: duplicate judgment for topic {'x' * 40}… subtopic 1 docno d1 (also at line 1)",
    )


def test_long_docnos_and_topics_are_exact(capsys, warnings):
    # Docnos and topic ids of any length are legal. Two 200-byte docnos sharing their first
    # 150 bytes are distinct; a score tie between them breaks by docno descending (bytes):
    # ...b before ...a. Relevant: ...a for subtopic 1, ...b for subtopic 2, and "short".
    prefix = "d" * 150
    a, b = prefix + "a" * 50, prefix + "b" * 50
    topic = "t" * 300
    write("q.txt", f"{topic} 1 {a} 1\n{topic} 2 {b} 1\n{topic} 2 short 1\n")
    write("r.txt", f"{topic} Q0 {a} 1 1.0 r\n{topic} Q0 {b} 2 1.0 r\n{topic} Q0 x 3 0.5 r\n")
    values = per_topic(capsys, "r.txt", "q.txt", "-m", "P-IA@1", "-m", "strec@1,2")
    # rank 1 = b (subtopic 2): P-IA@1 = (0 + 1)/2, strec@1 = 1/2, strec@2 = 2/2
    assert values == {
        (topic, "P-IA@1"): 0.5,
        (topic, "strec@1"): 0.5,
        (topic, "strec@2"): 1.0,
    }
    qrels = divaeval.read_qrels("q.txt")
    assert sorted(qrels.frame["docno"]) == sorted([a, b, "short"])


def test_qrels_typing_a_subtopic_inf_and_nav_is_an_error(capsys):
    write("r.txt", "1 Q0 a 1 3.0 t\n")
    write("q.txt", "1 1 a 1 inf\n1 2 a 1 nav\n1 1 b 1\n# c\n1 1 c 1 nav\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt"],
        "q.txt:5: conflicting intent types for topic 1 subtopic 1: nav here, inf at line 1",
    )
    # the same type on several lines, or left out on some, is fine
    qrels = divaeval.read_qrels(write("q.txt", "1 1 a 1 nav\n1 1 b 1\n1 1 c 0 nav\n"))
    assert qrels.frame["type"].tolist() == ["nav", "", "nav"]


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (
            '<t><topic number="1">\n<subtopic number="1" type="inf"/>\n'
            '<subtopic number="1" type="nav"/></topic></t>',
            "t.xml:3: conflicting types for topic 1 subtopic 1: nav here, inf at line 2",
        ),
        (
            '<t><topic number="1">\n<subtopic number="1" type="inf"/></topic>\n'
            '<topic number="1"><subtopic number="1" type="inf"/></topic></t>',
            "t.xml:3: topic 1 subtopic 1 is listed twice (also at line 2)",
        ),
    ],
)
def test_topics_xml_repeated_subtopic_is_an_error(capsys, xml, message):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("t.xml", xml)
    assert_error(capsys, ["r.txt", "q.txt", "--topics", "t.xml"], message)


EFP_RUN = "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n"  # a and b: both relevant to subtopic s1


@pytest.mark.parametrize(
    ("qrels_type", "intent_type", "xml_type", "value", "warning"),
    [
        # EfP@2 counts a navigational intent's first relevant document only:
        # s1 inf -> a, b effective -> 2/2 = 1; s1 nav -> a only -> 1/2.
        ("", "", "", 1.0, None),
        ("", "", "nav", 0.5, None),
        ("nav", "", "", 0.5, None),
        ("inf", "", "inf", 1.0, None),
        (
            "inf",
            "",
            "nav",
            1.0,
            "t.xml:1: 1 subtopic type differs from q.txt (e.g. topic 1 subtopic s1: nav here, "
            "inf in q.txt); q.txt wins (precedence: intent file, qrels, topics file)",
        ),
        (
            "nav",
            "inf",
            "",
            1.0,
            "q.txt:1: 1 subtopic type differs from i.txt (e.g. topic 1 subtopic s1: nav here, "
            "inf in i.txt); i.txt wins (precedence: intent file, qrels, topics file)",
        ),
        (
            "",
            "nav",
            "inf",
            0.5,
            "t.xml:1: 1 subtopic type differs from i.txt (e.g. topic 1 subtopic s1: inf here, "
            "nav in i.txt); i.txt wins (precedence: intent file, qrels, topics file)",
        ),
    ],
)
def test_subtopic_type_sources_and_conflicts(
    capsys, qrels_type, intent_type, xml_type, value, warning
):
    write("r.txt", EFP_RUN)
    write("q.txt", f"1 s1 a 1 {qrels_type}\n1 s1 b 1\n")
    write("i.txt", f"1 s1 1.0 {intent_type}\n")
    kind = f' type="{xml_type}"' if xml_type else ""
    write("t.xml", f'<t><topic number="1"><subtopic number="s1"{kind}/></topic></t>')
    code, out, err = cli(
        capsys,
        "r.txt",
        "q.txt",
        "--intents",
        "i.txt",
        "--topics",
        "t.xml",
        "-m",
        "EfP@2",
        "-f",
        "tsv",
    )
    assert code == 0, err
    assert out.splitlines()[-1] == f"t\tall\tEfP@2\t{value}\tEfP(gain=linear,gains=)@2"
    warnings = [line for line in err.splitlines() if "subtopic type" in line]
    assert warnings == ([f"divaeval: warning: {warning}"] if warning else [])


def test_type_conflicts_counted_with_one_example(warnings):
    from divaeval.judged import QrelsIndex

    qrels = divaeval.read_qrels(
        write("q.txt", "1 1 a 1 nav\n1 2 b 1 nav\n1 2 c 1 nav\n2 1 a 1 inf\n2 3 a 1\n")
    )
    xml = (
        '<t><topic number="1"><subtopic number="1" type="inf"/><subtopic number="2" '
        'type="inf"/></topic>\n<topic number="2"><subtopic number="1" type="inf"/>'
        '<subtopic number="3" type="nav"/></topic></t>'
    )
    types = divaeval.read_topic_types(write("t.xml", xml))
    index = QrelsIndex(qrels, topic_types=types)
    # topic 1: both subtopics nav (qrels wins over the XML's inf); topic 2: 1 inf, 3 nav (XML)
    assert index.material_all.intent_nav.tolist() == [[True, True], [False, True]]
    assert warnings == [
        "t.xml:1: 2 subtopic types differ from q.txt (e.g. topic 1 subtopic 1: inf here, "
        "nav in q.txt); q.txt wins (precedence: intent file, qrels, topics file)"
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'<?xml version="1.0" encoding="foo-bar"?><t/>', "t.xml:1: cannot decode the topic XML"),
        (b'<?xml version="1.0" encoding="rot13"?><t/>', "t.xml:1: cannot decode the topic XML"),
        (b'<?xml version="1.0" encoding="shift_jis"?><t/>', "t.xml:1: cannot decode the topic XML"),
        (b'<?xml version="1.0" encoding="idna"?><t/>', "t.xml:1: cannot decode the topic XML"),
        (b'<?xml version="1.0" encoding="UTF-16"?><t/>', "t.xml:1: not well-formed topic XML"),
        (b'<?xml version="1.0" encoding="ascii"?>\n<t a="\xe9"/>', "t.xml:2: not well-formed"),
        (b'<t a="\xff"/>', "t.xml:1: not well-formed topic XML"),
        (b"", "t.xml:1: not well-formed topic XML: no element found"),
        (  # an external entity is never fetched
            b'<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><t>&x;</t>',
            "t.xml: no <topic>/<subtopic> elements found",
        ),
        (
            b'<!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
            b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;'
            b'&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;'
            b'&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;'
            b'&g;&g;&g;&g;&g;">]><t>&h;</t>',
            "t.xml:1: not well-formed topic XML",  # expat's amplification limit
        ),
        (b'<t><topic number="  "><subtopic number="1"/></topic></t>', "t.xml:1: <topic> without"),
        (b"\x00<t/>", "t.xml: topics file looks binary"),
    ],
)
def test_malformed_topics_xml_exits_1(capsys, data, message):
    write("q.txt", QRELS)
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("t.xml", data)
    code, out, err = cli(capsys, "r.txt", "q.txt", "--topics", "t.xml", "-m", "strec@1")
    assert (code, out) == (1, "")
    assert err.startswith(f"divaeval: {message}"), err
    assert err.count("\n") == 1


def test_topics_xml_other_encodings_and_nesting(warnings):
    # latin-1 declared and used; a subtopic outside any topic is reported and ignored
    data = (
        '<?xml version="1.0" encoding="latin-1"?>\n<t><subtopic number="9"/>'
        '<topic number="1"><q>caf\xe9</q><subtopic number="1" type="nav"/></topic></t>'
    ).encode("latin-1")
    table = divaeval.read_topic_types(write("t.xml", data))
    assert table[["topic", "subtopic", "type"]].values.tolist() == [["1", "1", "nav"]]
    assert warnings == ["t.xml:2: <subtopic> outside a <topic> ignored"]


def test_undecodable_bytes_in_messages_print_as_escapes(capsys):
    # Ids are bytes; one that is not UTF-8 must still print in a message (stderr is UTF-8).
    write("r.txt", "1 Q0 d1 1 3.0 t\n")
    write("q.txt", b"1 1 d\xa9 1\n1 1 d\xa9 1\n")
    assert_error(
        capsys,
        ["r.txt", "q.txt"],
        "q.txt:2: duplicate judgment for topic 1 subtopic 1 docno d\\xa9 (also at line 1)",
    )
    write("q.txt", b"1 1 d1 \xa9\n")
    assert_error(capsys, ["r.txt", "q.txt"], "q.txt:1: grade '\\xa9' is not an integer")


def test_topic_types_from_text():
    xml = '<t><topic number="1">\n<subtopic number="2" type="nav"/></topic></t>'
    table = divaeval.io.read_topic_types("given.xml", text=xml)  # (the text-level reader)
    assert table.values.tolist() == [["1", "2", "nav", 2]]
    assert table.attrs["source"] == "given.xml"


#: (bound, keys in [0, bound)): few or many keys next to their bound, so that the qrels'
#: keys are counted in a table or sorted
_KEYS_UNDER_A_BOUND = st.integers(1, 3000).flatmap(
    lambda bound: st.tuples(st.just(bound), st.lists(st.integers(0, bound - 1), max_size=200))
)


@settings(max_examples=examples(60), deadline=None)
@given(_KEYS_UNDER_A_BOUND)
def test_unique_keys_is_numpys_unique_with_inverse(case):
    # the qrels index's keys: counted where the bound is small next to their number, sorted
    # where it is not (both ways are drawn)
    from divaeval.judged.pools import unique_keys

    bound, keys = case
    key = np.array(keys, dtype=np.int64)
    uniques, inverse = unique_keys(key, bound)
    want_uniques, want_inverse = np.unique(key, return_inverse=True)
    assert uniques.tolist() == want_uniques.tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "7", "40", "101"]),
            st.sampled_from(["1", "2", "3"]),
            st.sampled_from(["d1", "d10", "d9", "d5", "e", "clueweb12-0000tw-05-12345", "x" * 9]),
            st.integers(-2, 3),
        ),
        min_size=1,
        max_size=60,
        unique_by=lambda line: line[:3],
    )
)
def test_the_pools_in_docno_order_are_each_topics_positive_docnos_descending(lines):
    # literally: per topic, the docnos with a grade > 0 on some subtopic, in byte order
    # descending, each with its grade per subtopic column, its judged row and its first line
    from divaeval.judged.index import QrelsIndex

    text = "".join(f"{t} {s} {d} {g}\n" for t, s, d, g in lines)
    index = QrelsIndex(divaeval.io.read_qrels("q.txt", text=text))
    material = index.material_all
    grades, (rows, first_lines) = material.pool_grades, material.pool_positions()
    for code, topic in enumerate(material.topics.tolist()):
        docs = {d for t, _, d, g in lines if t == topic and g > 0}
        ordered = sorted(docs, key=lambda d: d.encode(), reverse=True)
        columns = material.subtopics[code].tolist()
        for p, doc in enumerate(ordered):
            want = [0] * len(columns)
            for t, s, d, g in lines:
                if t == topic and d == doc:
                    want[columns.index(s)] = g
            assert grades[code, p].tolist() == want
            assert index.judged_grades[rows[code, p]].tolist() == want
            first = next(i for i, (t, _, d, _) in enumerate(lines) if t == topic and d == doc)
            assert first_lines[code, p] == first
        assert (grades[code, len(ordered) :] == 0).all() and (
            rows[code, len(ordered) :] == -1
        ).all()


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 3000).flatmap(
        lambda bound: st.tuples(
            st.just(bound), st.lists(st.integers(0, bound - 1), max_size=200, unique=True)
        )
    )
)
def test_the_order_of_distinct_keys_is_their_argsort(case):
    # by a table where the bound is small next to their number, by a sort where it is not
    from divaeval.judged.pools import _order_of_distinct

    bound, keys = case
    key = np.array(keys, dtype=np.int64)
    assert _order_of_distinct(key, bound).tolist() == np.argsort(key).tolist()


@settings(max_examples=examples(60), deadline=None)
@given(_KEYS_UNDER_A_BOUND)
def test_repeated_keys_are_found_by_table_and_by_sort(case):
    # the qrels' duplicate check: a table where the bound is small next to the keys' number,
    # a sort where it is not (both ways are drawn)
    from divaeval.io._words import has_repeats

    bound, keys = case
    assert has_repeats(np.array(keys, dtype=np.int64), bound) == (len(set(keys)) < len(keys))


def test_the_qrels_index_takes_the_topic_order_as_read_or_sorts_it():
    # read_qrels gives the topics in topic order ("2" before "10"), with their codes; a Qrels
    # without that order known gets the same index (the topics sorted there)
    import dataclasses

    from divaeval.judged.index import QrelsIndex

    qrels = divaeval.io.read_qrels("q.txt", text="10 1 d1 1\n2 1 d1 2\n2 2 d2 1\n10 1 d3 0\n")
    assert qrels.topic_names.tolist() == ["2", "10"] and qrels.topic_order == {"2": 0, "10": 1}
    as_read = QrelsIndex(qrels)
    shuffled = dataclasses.replace(
        qrels,
        topic_names=qrels.topic_names[::-1].copy(),
        topic_codes=1 - qrels.topic_codes,
        topic_order=None,
    )
    sorted_there = QrelsIndex(shuffled)
    assert as_read.topics.tolist() == sorted_there.topics.tolist() == ["2", "10"]
    assert as_read.topic_code_of == sorted_there.topic_code_of
    for name in ("max_grade", "relevant_count", "pool_grades_any_order", "judged_count"):
        a, b = getattr(as_read.material_all, name), getattr(sorted_there.material_all, name)
        assert a.tolist() == b.tolist(), name


def test_a_dropped_qrels_index_is_freed_at_once():
    # no reference cycle holds its arrays until the cyclic collector runs (a closure over the
    # index in its pools did: read_qrels of a 1M-line file 45 -> 50-150 ms, called in a loop)
    import gc
    import weakref

    from divaeval.judged.index import QrelsIndex

    qrels = divaeval.io.read_qrels("q.txt", text="1 1 d1 1\n1 2 d2 2\n2 1 d1 0\n")
    gc.disable()
    try:
        index = QrelsIndex(qrels)
        assert len(index.material_all.pool_grades) == 2  # (the pools in docno order, built)
        dropped = weakref.ref(index)
        del index
        assert dropped() is None
    finally:
        gc.enable()


def test_a_small_file_is_one_piece_and_a_large_one_is_read_in_pieces(tmp_path):
    # with 16-byte pieces: a file of at most 4 pieces (64 bytes) is read at once; a larger one
    # (and the same small text given in memory) piece by piece
    from divaeval.io._text import SMALL_FILE_PIECES, text_pieces

    assert SMALL_FILE_PIECES == 4
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    small.write_bytes(b"1 Q0 d1 1 0.5 t\n" * 4)  # 64 bytes
    large.write_bytes(b"1 Q0 d1 1 0.5 t\n" * 5)  # 80 bytes
    assert list(text_pieces(str(small), what="run", piece_bytes=16)) == [small.read_bytes()]
    pieces = list(text_pieces(str(large), what="run", piece_bytes=16))
    assert len(pieces) == 5 and b"".join(pieces) == large.read_bytes()
    given = list(text_pieces("x", what="run", text=small.read_bytes(), piece_bytes=16))
    assert len(given) == 4


# Lines with every line end (\n, \r\n, a lone \r), blank and comment lines, a byte-order mark,
# and maybe no final newline: what padded_pieces must give whole and \n-ended.
_LINE_TEXTS = st.tuples(
    st.booleans(),
    st.lists(
        st.tuples(
            st.sampled_from([b"", b"1 Q0 d1 1 0.5 t", b"# note", b"x" * 40, b"\xef\xbb\xbfy"]),
            st.sampled_from([b"\n", b"\r\n", b"\r"]),
        ),
        max_size=12,
    ),
    st.booleans(),
).map(
    lambda t: (
        (b"\xef\xbb\xbf" if t[0] else b"")
        + b"".join(line + end for line, end in t[1])
        + (b"tail" if t[2] else b"")
    )
)


def _expected_lines(data: bytes) -> bytes:
    """``data`` as padded_pieces should give it: no byte-order mark, \\n line ends, the last
    line ended."""
    text = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text + b"\n" if text and not text.endswith(b"\n") else text


@settings(max_examples=examples(150), deadline=None)
@given(_LINE_TEXTS, st.integers(1, 24), st.sampled_from(["file", "gzip", "memory", "grew"]))
def test_pieces_read_into_a_buffer_are_whole_lines_padded_with_zeros(
    tmp_path_factory, data, piece_bytes, how
):
    # every piece: whole \n-ended lines, the pad after it zero (the buffer is reused, and a
    # longer piece before left its bytes there); joined, the text with \n line ends. "grew":
    # the file is longer than its size when it was opened (read whole all the same)
    from divaeval.io import _text
    from divaeval.io._words import _PAD

    path = tmp_path_factory.mktemp("pieces") / "run.txt"
    path.write_bytes(gzip.compress(data) if how == "gzip" else data)
    text = data if how == "memory" else None
    sizes = {"grew": lambda _: 1}.get(how, _text._file_size)
    original = _text._file_size
    _text._file_size = sizes
    try:
        pieces = []
        for piece in _text.padded_pieces(str(path), what="run", text=text, piece_bytes=piece_bytes):
            assert len(piece.buffer) >= piece.size + _PAD
            assert bytes(piece.buffer[piece.size : piece.size + _PAD]) == bytes(_PAD)
            assert piece.size and piece.buffer[piece.size - 1] == ord("\n")
            pieces.append(piece.tobytes())
    finally:
        _text._file_size = original
    assert b"".join(pieces) == _expected_lines(data)


def test_a_piece_is_split_alike_from_a_buffer_with_bytes_after_its_pad():
    # split_piece reads a piece's text no further than its size (and pad): what a reused buffer
    # holds after them is never read as data, by either path
    from divaeval import native
    from divaeval.io._text import Piece
    from divaeval.io._tokens import split_piece
    from divaeval.io._words import _PAD

    for data in (b"1 Q0 d1 1 0.5 t\n2 Q0 d2 2 0.25 t\n", b"1  Q0 d1 1 0.5 t\n# c\n\n2 Q0 d2\n"):
        buffer = bytearray(data + bytes(_PAD) + b"9 Q0 dx 3 \t\r\v7 t\n#\n" * 50)
        for kernels in {native.kernels, None}:
            saved, native.kernels = native.kernels, kernels
            try:
                want = split_piece(data, (0, 2, 3), (4, 5), 1, True, (4,))
                got = split_piece(Piece(buffer, len(data)), (0, 2, 3), (4, 5), 1, True, (4,))
            finally:
                native.kernels = saved
            assert got.n_rows == want.n_rows and got.n_lines == want.n_lines
            assert got.n_bytes == want.n_bytes == len(data)
            assert all(np.array_equal(got.columns[j], want.columns[j]) for j in (0, 2, 3))
            assert np.array_equal(got.numbers[4], want.numbers[4], equal_nan=True)
            assert got.first_row == want.first_row
            assert all(map(np.array_equal, got.lines, want.lines))


def test_a_line_too_long_is_located_when_read_into_a_growing_buffer(tmp_path, monkeypatch):
    # with 16-byte pieces and lines of at most 40 bytes: a line of 40 spans three reads (the
    # buffer grown for it) and is read; the third line of 103 bytes is an error at its line
    from divaeval.io import _text
    from divaeval.io.runs import read_run

    monkeypatch.setattr(_text, "MAX_LINE_BYTES", 40)
    monkeypatch.setattr(_text, "PIECE_BYTES", 16)
    longest = b"1 Q0 " + b"d" * 26 + b" 2 0.25 t"  # 40 bytes
    (tmp_path / "ok.txt").write_bytes((b"1 Q0 d1 1 0.5 t\n" + longest + b"\n") * 4)
    run = read_run(str(tmp_path / "ok.txt"))
    assert len(run.frame) == 8 and run.frame["docno"][1] == "d" * 26
    (tmp_path / "r.txt").write_bytes((b"1 Q0 d1 1 0.5 t\n\n1 Q0 " + b"d" * 89 + b" 2 0.25 t\n") * 3)
    with pytest.raises(_text.LineTooLong) as error:
        read_run(str(tmp_path / "r.txt"))
    assert error.value.line == 3
