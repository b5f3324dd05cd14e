"""What the main job loads (issue 27): ``divaeval RUN QRELS -m ...`` imports no package but
numpy and click, and none of the standard library's heavy modules (the network stack that
``xml.sax.saxutils`` or ``urllib.request`` pull in, multiprocessing, asyncio). Start-up time is
``make bench``'s to measure (a timed test fails on a loaded machine); what makes it slow is
checked here, exactly."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support import SAMPLE_DATA

#: the packages a main job may load besides the standard library
PACKAGES = {"numpy", "click", "divaeval"}
#: standard-library modules that would each cost the main job milliseconds of start-up
HEAVY_STANDARD = {
    "asyncio",
    "concurrent",
    "email",
    "http",
    "multiprocessing",
    "socket",
    "ssl",
    "urllib.request",
    "xml.sax",
}
#: modules that only other paths use, loaded where they are needed (Jupyter's HTML, the worker
#: pool's pipes and processes at -j N, a Dask cluster, a topics XML file, shell completion, the
#: risk measures of --baseline): about 3 ms of start-up together.
#: (difflib, for "did you mean", is loaded where needed too; but click loads it whenever the
#: group's parser meets the main job's options, as here.)
NOT_ON_THE_MAIN_JOB = {
    "html",
    "selectors",
    "pyexpat",
    "click.shell_completion",
    "divaeval.parallel.local",
    "divaeval.parallel.cluster",
    "divaeval.risk_measures",
}

#: (what the interpreter loaded before the command, such as an environment's .pth files, is
#: not the command's)
_PROBE = """
import sys, io, contextlib
before = set(sys.modules)
from divaeval.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
loaded = set(sys.modules) - before
third = sorted({m.split(".")[0] for m in loaded} - set(sys.stdlib_module_names))
print(code, " ".join(third))
print(" ".join(sorted(loaded)))
"""


def _loaded(*args: str) -> tuple[int, set[str], set[str]]:
    """(exit code, top-level packages outside the standard library, every module) that the
    command line ``divaeval ARGS`` loads, run in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SAMPLE_DATA,  # (not the checkout: python -c would import divaeval from there)
    )
    code, *packages = done.stdout.splitlines()[0].split()
    return int(code), set(packages), set(done.stdout.splitlines()[1].split())


def test_the_main_job_loads_numpy_and_click_only():
    run, qrels = str(SAMPLE_DATA / "run.txt"), str(SAMPLE_DATA / "qrels.txt")
    code, packages, modules = _loaded(run, qrels, "-m", "rbu", "-m", "alpha-ndcg")
    assert code == 0
    assert packages <= PACKAGES, packages - PACKAGES
    heavy = {m for m in modules if m in HEAVY_STANDARD or m.split(".")[0] in HEAVY_STANDARD}
    assert not heavy, sorted(heavy)
    assert not modules & NOT_ON_THE_MAIN_JOB, sorted(modules & NOT_ON_THE_MAIN_JOB)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "json", "trec_eval"])
@pytest.mark.parametrize("table", ["pairs", "runs"])
def test_compare_in_a_machine_format_loads_no_pandas(fmt, table):
    """``compare`` (issue 27: ≤ 1.5 × a plain numpy Tukey HSD) prints its columns in the
    machine formats: pandas (and pyarrow, which it loads) cost more than the test itself."""
    runs = [str(SAMPLE_DATA / name) for name in ("run.txt", "run2.txt", "run3.txt")]
    args = [*runs, str(SAMPLE_DATA / "qrels.txt"), "-m", "alpha-nDCG@20", "--test", "tukey-hsd"]
    code, packages, _ = _loaded("compare", *args, "-B", "100", "-f", fmt, "--table", table)
    assert code == 0
    assert not packages & {"pandas", "pyarrow", "scipy", "rich", "matplotlib"}, packages
