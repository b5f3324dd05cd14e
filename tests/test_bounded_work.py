"""Bounded work on any input (issue 22): files of comment lines or of blank lines cost no more
than a data file of the same size, in time and in memory, in every reader (runs, qrels, intent
files) and in the main job, streamed in this process and in worker processes.

Each reading is a subprocess, measured by its CPU time (user + system, its workers' included)
and its peak resident set; the cost of the same command on a one-line file (Python's start-up,
the imports) is taken off, so that what is compared is the work the file's lines cause. A
comment or blank file may cost at most twice the data file's work (and a little more: CPU time
wobbles on a loaded machine by tens of milliseconds). Before this was fixed, 8 MB of blank lines
took a Python step per line when a run was streamed (40 times the data file's time) and the
qrels reader held several copies of them (2.3 times its memory).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: bytes of each file compared
SIZE = 6 << 20
#: each command runs this many times; the smallest CPU time and peak memory count
RUNS = 2
#: the work of a comment or blank file is at most this many times the data file's ...
RATIO = 2.0
#: ... plus this much (noise in CPU time and in the resident set)
SLACK_SECONDS = 0.08
SLACK_MIB = 12.0

_MEASURE = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)\n"
)

_READ = "import sys, divaeval.io as io; getattr(io, sys.argv[1])(sys.argv[2])"

RUN_LINE = b"1 Q0 doc0000001 1 1.5 tag\n"
QRELS_LINE = b"1 1 doc0000001 1\n"
INTENT_LINE = b"1 1 1.0\n"
COMMENT = b"# a comment line, as a tool writes at the top of its output: date, settings\n"


def _data(kind: str) -> bytes:
    """About SIZE bytes of data lines of a run, qrels or intent file (1,000 lines a topic)."""
    lines = []
    size = 0
    i = 0
    while size < SIZE:
        topic, rank = divmod(i, 1000)
        if kind == "run":
            line = b"%d Q0 doc%07d %d %.4f tag\n" % (topic, i, rank + 1, 1000 - rank)
        elif kind == "qrels":
            line = b"%d %d doc%07d %d\n" % (topic, rank % 5 + 1, i, rank % 3)
        else:
            line = b"%d %d 0.001\n" % (topic, rank)
        lines.append(line)
        size += len(line)
        i += 1
    return b"".join(lines)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """(kind, content) -> file: data, comment lines, blank lines (then one data line), and one
    line alone; for runs, qrels and intent files."""
    folder = tmp_path_factory.mktemp("bounded")
    found = {}
    for kind, line in (("run", RUN_LINE), ("qrels", QRELS_LINE), ("intents", INTENT_LINE)):
        contents = {
            "data": _data(kind),
            "comments": COMMENT * (SIZE // len(COMMENT)) + line,
            "blank": b"\n" * SIZE + line,
            "one line": line,
        }
        for name, text in contents.items():
            path = folder / f"{name.replace(' ', '_')}.{kind}"
            path.write_bytes(text)
            found[(kind, name)] = path
    return found


def _cost(command: list[str], folder: Path) -> tuple[float, float]:
    """(CPU seconds, peak MiB) of ``command`` run in ``folder``: the smallest of RUNS runs."""
    seconds, mib = [], []
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-c", _MEASURE, *command],
            check=True,
            capture_output=True,
            text=True,
            cwd=folder,  # (not the checkout: python -c would import divaeval from there)
        ).stdout.split()
        seconds.append(float(out[0]))
        mib.append(float(out[1]))
    return min(seconds), min(mib)


def _commands(files, reader: str) -> dict[str, list[str]]:
    """The command of ``reader`` on each content (data, comments, blank, one line)."""
    python = [sys.executable]
    out = {}
    for content in ("data", "comments", "blank", "one line"):
        if reader in ("read_run", "read_qrels", "read_intents"):
            kind = {"read_run": "run", "read_qrels": "qrels", "read_intents": "intents"}[reader]
            out[content] = [*python, "-c", _READ, reader, str(files[(kind, content)])]
        else:  # the main job: the run streamed in blocks here (-j 1) or in workers (-j 2)
            jobs = reader.rsplit(" ", 1)[1]
            run, qrels = files[("run", content)], files[("qrels", "one line")]
            out[content] = [*python, "-m", "divaeval", str(run), str(qrels), "-m", "P@5",
                            "-j", jobs, "--chunk-size", "1M"]  # fmt: skip
    return out


@pytest.mark.xdist_group("bounded-work")  # alone on its worker: a steadier CPU time
@pytest.mark.parametrize(
    "reader", ["read_run", "read_qrels", "read_intents", "main job -j 1", "main job -j 2"]
)
def test_comment_and_blank_lines_cost_no_more_than_data_lines(files, reader):
    folder = files[("run", "data")].parent
    costs = {
        content: _cost(command, folder) for content, command in _commands(files, reader).items()
    }
    start_seconds, start_mib = costs["one line"]
    data_seconds, data_mib = (costs["data"][0] - start_seconds, costs["data"][1] - start_mib)
    for content in ("comments", "blank"):
        seconds, mib = costs[content][0] - start_seconds, costs[content][1] - start_mib
        assert seconds <= RATIO * data_seconds + SLACK_SECONDS, (content, costs)
        assert mib <= RATIO * data_mib + SLACK_MIB, (content, costs)
