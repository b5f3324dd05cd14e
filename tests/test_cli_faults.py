"""Fault injection on output files (issue 22): a full disk, concurrent writers, and SIGINT,
SIGTERM and SIGHUP during a write with ``-o``. In every case the target is the old file or the
whole new output, never a part, and no temporary file is left behind."""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.atomic import replacing

RUN = SAMPLE_DATA / "run.txt"
QRELS = SAMPLE_DATA / "qrels.txt"
OLD = "the old contents, which must survive whole\n" * 50
ENOSPC = f"cannot write output: {os.strerror(errno.ENOSPC)}"


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if "divaeval-tmp" in p.name)


# ---------------------------------------------------------------------------------------------
# a full disk


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 256 KiB tmpfs (needs root and mount), else None."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is None or done.returncode != 0:
        yield None
        return
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], capture_output=True, timeout=30)


def fill(directory: Path, leave: int) -> None:
    """Fill the file system of ``directory`` but ``leave`` bytes."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as handle, contextlib.suppress(OSError):
        while handle.write(b"x" * 4096):
            pass
    os.truncate(filler, max(0, filler.stat().st_size - leave))


def test_a_full_disk_leaves_the_old_file_whole(capsys, small_disk, tmp_path, monkeypatch):
    if small_disk is None:  # no tmpfs to fill: the write fails as a full disk makes it fail
        import divaeval.report.trec_eval as trec_eval

        def full(evaluation, out, options):
            out.write("P@5\tall\t0.2")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(trec_eval, "write", full)
        directory = tmp_path
    else:
        directory = small_disk
    target = directory / "out.txt"
    target.write_text(OLD)
    if small_disk is not None:
        fill(small_disk, leave=4096)  # the output is about 24 KB
    runs = [RUN, SAMPLE_DATA / "run2.txt", SAMPLE_DATA / "run3.txt"]
    code, out, err = run_cli(capsys, *runs, QRELS, "-q", "-m", "ndeval", "-o", target)
    assert (code, out, err) == (1, "", f"divaeval: {target}: {ENOSPC}\n")
    assert target.read_text() == OLD
    assert leftovers(directory) == []


@pytest.mark.parametrize("failing", ["write", "fsync", "rename"])
def test_any_failure_on_the_way_leaves_the_old_file_whole(capsys, tmp_path, monkeypatch, failing):
    # a full disk reported at the write, at fsync (NFS reports it there) or at the rename
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if failing == "write":
        import divaeval.report.trec_eval as trec_eval

        monkeypatch.setattr(trec_eval, "write", full)
    else:
        monkeypatch.setattr(os, "fsync" if failing == "fsync" else "replace", full)
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    code, out, err = run_cli(capsys, RUN, QRELS, "-m", "P@5", "-o", target)
    assert (code, out, err) == (1, "", f"divaeval: {target}: {ENOSPC}\n")
    assert target.read_text() == OLD and leftovers(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# concurrent writers


def _write_many(target: str, text: str, times: int) -> None:
    for _ in range(times):
        with replacing(target) as temporary, open(temporary, "w") as handle:
            for start in range(0, len(text), 4096):  # in pieces, as a writer does
                handle.write(text[start : start + 4096])


def test_concurrent_writers_leave_one_whole_output(tmp_path):
    # four processes replace one file 40 times each while this one reads it: every read, and
    # the end, is one writer's whole output (an "w" open spliced them in 4 of 20 trials)
    target = tmp_path / "out.txt"
    texts = [f"{k}" * (50_000 + 7_919 * k) for k in range(4)]
    target.write_text(texts[0])
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    writers = [context.Process(target=_write_many, args=(str(target), text, 40)) for text in texts]
    for writer in writers:
        writer.start()
    seen = set()
    while any(writer.is_alive() for writer in writers):
        seen.add(target.read_text())
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0
    seen.add(target.read_text())
    assert seen <= set(texts) and len(seen) >= 2
    assert leftovers(tmp_path) == []


def test_concurrent_commands_leave_one_whole_output(capsys, tmp_path):
    target = tmp_path / "out.txt"
    commands = [
        [RUN, QRELS, "-q", "-m", "ndeval"],
        [RUN, QRELS, "-q", "-m", "P@5", "-m", "AP", "-f", "jsonl"],
        [RUN, QRELS, "-m", "alpha-nDCG@5,10,20", "-f", "csv"],
    ]
    expected = []
    for args in commands:
        code, out, err = run_cli(capsys, *args)
        assert code == 0, err
        expected.append(out.encode())
    for _ in range(2):
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "divaeval", *map(str, args), "-o", str(target)],
                stderr=subprocess.PIPE,
            )
            for args in commands
        ]
        for process in processes:
            _, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
        assert target.read_bytes() in expected
        assert leftovers(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# signals during a write

#: divaeval's command line with a writer that writes part of its output, says so on stderr,
#: and waits to be interrupted
SLOW_WRITER = textwrap.dedent(
    """
    import sys, time
    import divaeval.report.trec_eval as trec_eval

    def slow(evaluation, out, options):
        out.write("P@5\\tall\\t0.2")
        out.flush()
        print("writing", file=sys.stderr, flush=True)
        time.sleep(60)

    trec_eval.write = slow
    from divaeval.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
@pytest.mark.parametrize(
    ("name", "code", "message"),
    [
        ("SIGINT", 130, "divaeval: interrupted"),
        ("SIGTERM", 143, "divaeval: terminated (SIGTERM)"),
        ("SIGHUP", 129, "divaeval: terminated (SIGHUP)"),
    ],
)
def test_a_signal_during_a_write_leaves_the_old_file_whole(tmp_path, name, code, message):
    target = tmp_path / "out.txt"
    target.write_text(OLD)
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER, str(RUN), str(QRELS), "-m", "P@5", "-o", str(target)],
        stderr=subprocess.PIPE,
        text=True,
        # the child must not inherit an ignored SIGINT (a background job's)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    timer = threading.Timer(120, process.kill)
    timer.start()
    try:
        assert process.stderr.readline() == "writing\n"
        assert len(leftovers(tmp_path)) == 1  # the temporary file, partly written
        process.send_signal(getattr(signal, name))
        rest = process.stderr.read()
        process.wait()
    finally:
        timer.cancel()
    assert (process.returncode, rest) == (code, message + "\n")
    assert target.read_text() == OLD
    assert leftovers(tmp_path) == []


def test_a_plot_is_replaced_atomically(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    plot = tmp_path / "asl.png"
    plot.write_bytes(b"old figure")
    args = ["meta", "discriminative-power", RUN, SAMPLE_DATA / "run2.txt", QRELS, "-m", "P@5"]
    args += ["-B", "20", "-f", "csv", "--plot", plot]
    code, _, err = run_cli(capsys, *args)
    assert code == 0, err
    assert plot.read_bytes().startswith(b"\x89PNG") and leftovers(tmp_path) == []

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    plot.write_bytes(b"old figure")
    monkeypatch.setattr(Figure, "savefig", full)
    code, out, err = run_cli(capsys, *args)
    assert code == 1 and err.endswith(
        f"divaeval: {plot}: cannot write output: {os.strerror(errno.ENOSPC)}\n"
    )
    assert plot.read_bytes() == b"old figure" and leftovers(tmp_path) == []
