"""The command line's contract with shell pipelines and CI jobs (README, exit codes): 0 ok,
1 bad data (or output that cannot be written), 2 usage, 3 a bug; one line on stderr; a reader
that goes away (``| head``) ends the run quietly with 0. One rule for ``-l`` in every command."""

from __future__ import annotations

import gc
import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import FIXTURES, SAMPLE_DATA, run_cli

import divaeval
from divaeval.errors import UsageError
from divaeval.settings import Settings

RUN = SAMPLE_DATA / "run.txt"
RUN2 = SAMPLE_DATA / "run2.txt"
QRELS = SAMPLE_DATA / "qrels.txt"

# topic 1: a relevant to subtopic 1 at grade 2, b to subtopic 2 at grade 1, c to subtopic 2 at
# grade 2, s (spam) -2 and n (judged not relevant) 0 for subtopic 1; topic 2: d at grade 2,
# e at grade 1.
TINY_QRELS = "1 1 a 2\n1 2 b 1\n1 2 c 2\n1 1 s -2\n1 1 n 0\n2 1 d 2\n2 1 e 1\n"
TINY_RUN1 = "1 Q0 a 1 5 one\n1 Q0 b 2 4 one\n1 Q0 n 3 3 one\n1 Q0 c 4 2 one\n"
TINY_RUN1 += "2 Q0 d 1 2 one\n2 Q0 e 2 1 one\n"
TINY_RUN2 = "1 Q0 b 1 5 two\n1 Q0 s 2 4 two\n1 Q0 c 3 3 two\n1 Q0 a 4 2 two\n"
TINY_RUN2 += "2 Q0 e 1 2 two\n2 Q0 x 2 1 two\n"


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path, Path]:
    qrels, run1, run2 = tmp_path / "q.txt", tmp_path / "one.txt", tmp_path / "two.txt"
    qrels.write_text(TINY_QRELS)
    run1.write_text(TINY_RUN1)
    run2.write_text(TINY_RUN2)
    return run1, run2, qrels


def values(out: str) -> dict[tuple[str, str], float]:
    """(measure, topic) -> value of trec_eval-format lines."""
    rows = [line.split("\t") for line in out.splitlines()]
    return {(name.strip(), topic): float(v) for name, topic, v in rows if name.strip() != "runid"}


# ---------------------------------------------------------------------------------------------
# -l: one rule for every command


@pytest.mark.parametrize("level", ["0", "-1", "-2"])
@pytest.mark.parametrize(
    "command",
    [
        ["{run1}", "{qrels}", "-m", "P@2"],
        ["compare", "{run1}", "{run2}", "{qrels}", "-m", "P@2"],
        ["{run1}", "{qrels}", "-m", "P@2", "--baseline", "{run2}"],
        ["risk", "{run1}", "{run2}", "{qrels}", "-m", "P@2"],
        ["meta", "correlation", "{run1}", "{run2}", "{qrels}", "-m", "P@2", "-m", "AP"],
        ["meta", "unanimity", "{run1}", "{run2}", "{qrels}", "-m", "P@2", "-m", "AP"],
        ["meta", "discriminative-power", "{run1}", "{run2}", "{qrels}", "-m", "P@2"],
        ["meta", "intuitiveness", "{run1}", "{run2}", "{qrels}", "-m", "P@2", "--gold", "AP"],
        ["meta", "sensitivity", "{qrels}", "-m", "strec@2"],
        ["collection", "{qrels}"],
        ["prefer", "{run1}", "{run2}", "{qrels}"],
    ],
)
def test_rel_level_below_one_is_a_usage_error_everywhere(capsys, tiny, command, level):
    run1, run2, qrels = tiny
    args = [a.format(run1=run1, run2=run2, qrels=qrels) for a in command] + ["-l", level]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert err == (
        f"divaeval: relevance level -l must be >= 1, got {level} (grade 0 means judged not "
        "relevant and negative grades spam: they are never relevant)\n"
    )


def test_rel_level_below_one_is_refused_by_the_api():
    with pytest.raises(UsageError, match="must be >= 1"):
        Settings(rel_level=0)
    with pytest.raises(UsageError, match="must be an integer"):
        Settings(rel_level=1.5)  # type: ignore[arg-type]


def test_rel_level_two_is_the_same_rule_in_every_command(capsys, tiny):
    run1, run2, qrels = tiny
    # -l 2: relevant = a (s1) and c (s2); b (grade 1), n (0) and s (-2) are not.
    # run one = a b n c: P@2 = 1/2, strec@2 = 1/2 (s1 only); run two = b s c a: P@2 = 0.
    code, out, err = run_cli(capsys, run1, qrels, "-m", "P@2", "-m", "strec@2", "-l", "2", "-q")
    assert code == 0, err
    assert values(out)[("P@2", "1")] == 0.5 and values(out)[("strec@2", "1")] == 0.5
    # -l 1 (default): a and b relevant at the top: P@2 = 1, strec@2 = 1
    code, out, _ = run_cli(capsys, run1, qrels, "-m", "P@2", "-m", "strec@2", "-q")
    assert values(out)[("P@2", "1")] == 1.0 and values(out)[("strec@2", "1")] == 1.0
    # compare sees the same per-topic values at -l 2: run one P@2 = 1/2 on both topics (a; d),
    # run two 0 on both (b, s; e, x): mean difference 0.5
    code, out, err = run_cli(
        capsys, "compare", run1, run2, qrels, "-m", "P@2", "-l", "2", "-f", "jsonl"
    )
    assert code == 0, err
    assert [row["diff"] for row in map(json.loads, out.splitlines())] == [0.5]
    # collection: topic 1 has 2 relevant documents (a, c) at -l 2, 3 at -l 1 (a, b, c);
    # topic 2 has 1 (d) and 2 (d, e)
    for level, expected in (("2", [2, 1]), ("1", [3, 2])):
        code, out, err = run_cli(capsys, "collection", qrels, "-l", level, "-f", "jsonl")
        assert code == 0, err
        assert [row["n_rel_docs"] for row in map(json.loads, out.splitlines())] == expected


# ---------------------------------------------------------------------------------------------
# --mean dd on topics without relevant documents


def test_mean_dd_topic_without_relevant_document_has_weight_zero(capsys, tmp_path):
    # topic 1: one subtopic, two relevant documents: dd = 1 (every document covers it),
    # weight 1 − dd = 0 ... so use two subtopics: a {s1}, b {s2}: R_T = 2, xi = 2,
    # d_mean = 1 − (1/2)·2·(1 − 1/2)^2 = 3/4, dd = 2·(3/4)/(7/4) = 6/7, weight 1/7.
    # topic 2: only grade-0 lines: no relevant document, weight 0 (warned), so the dd mean is
    # topic 1's value: P@1 = 1 (a at rank 1).
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 1 a 1\n1 2 b 1\n2 1 x 0\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 x 1 1 r\n")
    code, out, err = run_cli(capsys, run, qrels, "-m", "P@1", "--mean", "dd")
    assert code == 0
    assert values(out)[("P@1", "all")] == 1.0
    assert "--mean dd: topic(s) 2 have no document with grade >= 1" in err
    # arithmetic mean for comparison: (1 + 0)/2
    code, out, _ = run_cli(capsys, run, qrels, "-m", "P@1")
    assert values(out)[("P@1", "all")] == 0.5


def test_mean_dd_without_any_relevant_document_is_the_arithmetic_mean(capsys, tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 1 a 0\n2 1 x 0\n")
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 2 r\n2 Q0 x 1 1 r\n")
    code, out, err = run_cli(capsys, run, qrels, "-m", "P@1", "-m", "RBU", "--mean", "dd")
    assert code == 0
    got = values(out)
    arith = values(run_cli(capsys, run, qrels, "-m", "P@1", "-m", "RBU")[1])
    assert got == arith and not math.isnan(got[("RBU", "all")])
    assert "the arithmetic mean is used" in err


# ---------------------------------------------------------------------------------------------
# exit codes


@pytest.mark.parametrize("order", ["score", "rank", "file"])
@pytest.mark.parametrize("extra", [[], ["--compat", "ndeval", "-f", "ndeval"], ["-c"]])
def test_no_topic_in_common_is_bad_data(capsys, tmp_path, order, extra):
    run = tmp_path / "r.txt"
    run.write_text("999 Q0 a 1 1.0 r\n")
    code, out, err = run_cli(capsys, run, QRELS, "--order", order, *extra)
    if extra == ["-c"]:  # every qrels topic is evaluated (as an empty ranking): zeros
        assert code == 0 and "0.0000" in out
        return
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        f"divaeval: {run}: no topic of run r is in the qrels (qrels topics look like '151')"
    )


def test_stdin_twice_is_a_usage_error(capsys, monkeypatch):
    for args in (
        ["-", "-"],
        ["-", str(QRELS), "--topics", "-"],
        ["-", str(QRELS), "--intents", "-"],
    ):
        code, out, err = run_cli(capsys, *args)
        assert (code, out, err) == (2, "", "divaeval: only one input can be '-' (stdin)\n")


def test_the_same_run_twice_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "meta", "correlation", RUN, RUN, QRELS, "-m", "P@5", "-m", "AP")
    assert code == 2 and err.endswith(f"divaeval: the run {RUN} is given twice\n")


def test_correlation_needs_two_distinct_rankings(capsys, tmp_path):
    code, out, err = run_cli(capsys, "meta", "correlation", RUN, QRELS, "-m", "P@5", "-m", "AP")
    assert (code, out, err) == (1, "", "divaeval: P@5: need at least 2 runs, got 1\n")
    copy = tmp_path / "copy.txt"
    copy.write_bytes(RUN.read_bytes())
    code, out, err = run_cli(
        capsys, "meta", "correlation", RUN, copy, QRELS, "-m", "P@5", "-m", "AP"
    )
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == (
        "divaeval: every metric gives all 2 runs the same mean (identical runs?): no rank "
        "correlation is defined"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["compare", RUN, RUN2, QRELS, "-m", "P@5", "--test", "bootstrap", "-B", "1000001"],
        ["compare", RUN, RUN2, QRELS, "-m", "P@5", "-B", "100000000000"],
        ["meta", "discriminative-power", RUN, RUN2, QRELS, "-m", "P@5", "-B", "0"],
        ["meta", "sensitivity", QRELS, "-m", "strec@5", "-L", "1000000000"],
    ],
)
def test_resample_counts_are_bounded(capsys, args):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == "" and err.startswith("divaeval: ") and len(err.splitlines()) == 1


def test_absurd_cutoffs_allocate_only_what_the_rankings_fill(capsys):
    # ql-cata on sample_data: 100 documents per topic. P@k divides by k; D-nDCG, alpha-nDCG and
    # every measure whose running sums stop at the depth give their value at the depth.
    big = 10**9
    code, out, err = run_cli(
        capsys, RUN, QRELS, "-m", f"P@100,{big}", "-m", f"alpha-nDCG@1000,{big}", "-m",
        f"D-nDCG@1000,{big}", "-m", f"P@{10**20}", "-q", "-f", "jsonl",
    )  # fmt: skip
    assert code == 0, err
    got = {
        (row["measure"], row["topic"]): row["value"]
        for row in map(json.loads, out.split("\n")[:-1])
    }
    for topic in ["151", "all"]:
        assert got[(f"P@{big}", topic)] == pytest.approx(got[("P@100", topic)] * 100 / big)
        for name in ("alpha-nDCG", "D-nDCG"):
            assert got[(f"{name}@{big}", topic)] == got[(f"{name}@1000", topic)]
    code, out, err = run_cli(capsys, RUN, QRELS, "-m", f"all@{big}")
    assert code == 0, err


def test_out_of_memory_names_the_input(capsys, monkeypatch):
    import divaeval.streaming

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(divaeval.streaming, "judge_run", exhausted)
    code, out, err = run_cli(capsys, RUN, QRELS)
    assert (code, out) == (1, "")
    assert err == (
        f"divaeval: out of memory while scoring the run {RUN}: the input is too large for this "
        "machine (try fewer runs or measures, smaller cutoffs, or -M)\n"
    )


# ---------------------------------------------------------------------------------------------
# output that goes nowhere: broken pipes, closed and full stdout (real processes)

COMMANDS = {
    "evaluate": [RUN, RUN2, QRELS, "-m", "ndeval", "-q"],
    "table": [RUN, RUN2, QRELS, "-q", "-f", "table"],
    "metrics": ["metrics"],
    "collection": ["collection", QRELS],
    "compare": ["compare", RUN, RUN2, QRELS, "-m", "P@5", "-f", "table"],
    "baseline": [RUN, QRELS, "--baseline", RUN2, "-m", "ndeval", "-f", "ndeval"],
    "risk": ["risk", RUN, RUN2, QRELS, "-m", "P@5", "--baseline", RUN2, "-f", "table"],
    "prefer": ["prefer", RUN, RUN2, QRELS, "-q"],
    "correlation": ["meta", "correlation", RUN, RUN2, QRELS, "-m", "AP", "-m", "alpha-nDCG@20"],
    "sensitivity": ["meta", "sensitivity", QRELS, "-m", "strec@5", "-L", "20"],
}


def _divaeval(args, **kwargs) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.Popen(
        [sys.executable, "-m", "divaeval", *map(str, args)],
        env=env,
        stderr=subprocess.PIPE,
        **kwargs,
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_broken_pipe_ends_quietly_with_zero(name):
    # the reader is gone before divaeval writes (as with `| head -0`, or `| head -1` on a long
    # output): exit 0, nothing on stderr, even with `set -o pipefail`
    process = _divaeval(COMMANDS[name], stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    # machine formats print their settings signature on stderr; nothing else may be there
    lines = [line for line in err.decode().splitlines() if not line.startswith("divaeval: sig")]
    assert (process.returncode, lines) == (0, [])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("name", ["evaluate", "metrics", "collection", "compare"])
def test_full_stdout_is_exit_one(name):
    with open("/dev/full", "w") as full:
        process = _divaeval(COMMANDS[name], stdout=full)
        _, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert err.decode() == (
        "divaeval: <stdout>: cannot write output: No space left on device\n"
    ) or err.decode().endswith("divaeval: <stdout>: cannot write output: No space left on device\n")


def test_closed_stdout_is_exit_one():
    process = subprocess.run(
        f"'{sys.executable}' -m divaeval '{RUN}' '{QRELS}' >&-",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 1
    assert process.stderr == "divaeval: <stdout>: cannot write output: standard output is closed\n"


def test_api_is_unchanged_by_the_cli_contract():
    table = divaeval.evaluate([str(RUN)], str(QRELS), ["P@5"]).table(per_topic=False)
    assert list(table["measure"]) == ["P@5"]


def test_mean_geom_is_trec_eval_gm_map(capsys, tmp_path):
    # trec_eval's own test: results.trunc with -c, where topic 302 has AP = 0, so gm_map's
    # floor ε = 1e-5 is used: exp((ln 0.0324 + ln 1e-5 + ln 0.2723)/3) = 0.0045
    data = FIXTURES / "trec_eval"
    expected = {}
    with gzip.open(data / "v10" / "out.test.aqc.gz", "rt") as handle:
        for line in handle:
            name, topic, value = line.split()
            if topic == "all" and name in ("map", "gm_map"):
                expected[name] = value
    run, qrels = tmp_path / "results.trunc", tmp_path / "qrels.test"
    run.write_bytes(gzip.decompress((data / "results.trunc.gz").read_bytes()))
    qrels.write_bytes(gzip.decompress((data / "qrels.test.gz").read_bytes()))
    for mean, name in (("geom", "gm_map"), ("arith", "map")):
        code, out, err = run_cli(capsys, run, qrels, "-m", "AP", "-c", "--mean", mean)
        assert code == 0, err
        assert out.splitlines()[-1] == f"{'AP':<22}\tall\t{expected[name]}"
    assert expected == {"map": "0.1016", "gm_map": "0.0045"}


def test_several_runs_in_trec_eval_format_carry_the_run_on_every_line(capsys):
    code, one, _ = run_cli(capsys, RUN, QRELS, "-m", "P@5", "-q")
    assert code == 0 and all(len(line.split("\t")) == 3 for line in one.splitlines())
    code, both, _ = run_cli(capsys, RUN, RUN2, QRELS, "-m", "P@5", "-q")
    assert code == 0
    rows = [line.split("\t") for line in both.splitlines()]
    assert all(len(row) == 4 for row in rows)
    # each line stands alone: the first run's lines are the single-run output plus its name
    first = ["\t".join(row[:3]) for row in rows if row[3] == "ql-cata"]
    assert "\n".join(first) + "\n" == one
    assert {row[3] for row in rows} == {"ql-cata", "rm-cata"}
    assert ["runid", "all", "rm-cata", "rm-cata"] in [[c.strip() for c in r] for r in rows]


def test_version_and_shell_completion():
    env = {k: v for k, v in os.environ.items() if not k.startswith("_DIVAEVAL")}
    for flag in ("-V", "--version"):
        done = subprocess.run(
            [sys.executable, "-m", "divaeval", flag], capture_output=True, text=True, env=env
        )
        assert (done.returncode, done.stdout) == (0, f"divaeval, version {divaeval.__version__}\n")
    completion = {**env, "_DIVAEVAL_COMPLETE": "bash_complete", "COMP_WORDS": "divaeval me",
                  "COMP_CWORD": "1"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "divaeval"], capture_output=True, text=True, env=completion
    )
    # subcommands, and file names (the main job's first argument is a run file)
    assert done.returncode == 0
    assert done.stdout.split() == ["plain,meta", "plain,metrics", "file,me"]


def test_every_message_cuts_an_echoed_token(capsys, tmp_path):
    # a duplicate 300-character docno: the message names it, cut to 40 characters
    docno = "d" * 300
    run = tmp_path / "r.txt"
    run.write_text(f"151 Q0 {docno} 1 2 r\n151 Q0 {docno} 2 1 r\n")
    code, out, err = run_cli(capsys, run, QRELS)
    assert code == 1 and out == ""
    assert f"duplicate docno {'d' * 40}… (300 characters) for topic 151" in err
    assert len(err) < 300


def test_undecodable_ids_are_written_back_as_the_same_bytes(tmp_path):
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_bytes(b"1 Q0 d\xff 1 1.0 t\xfeg\n")
    qrels.write_bytes(b"1 0 d\xff 1\n")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # strict UTF-8 stdout
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", str(run), str(qrels), "-m", "P@1"],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == b"runid                 \tall\tt\xfeg"
    assert done.stdout.splitlines()[2] == b"P@1                   \tall\t1.0000"


def test_the_process_ends_with_all_output_written(capsys, tmp_path):
    # entry_point skips the interpreter's teardown (os._exit) once the output is flushed: a
    # long output read through a pipe is whole, and the same as in process
    cutoffs = ",".join(map(str, range(1, 41)))  # (named measures: another test may register)
    args = [RUN, RUN2, QRELS, "-q", "-m", f"alpha-nDCG@{cutoffs}", "-m", f"ERR-IA@{cutoffs}"]
    code, expected, _ = run_cli(capsys, *args)
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", *map(str, args)], capture_output=True, timeout=120
    )
    assert (done.returncode, code) == (0, 0)
    assert done.stdout.decode() == expected
    assert len(expected) > 65_536  # more than a pipe holds
    written = tmp_path / "out.txt"  # and -o FILE: closed, so whole, before the process ends
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", *map(str, args), "-o", str(written)], timeout=120
    )
    assert done.returncode == 0 and written.read_text() == expected


def test_the_fast_exit_runs_atexit_handlers_and_waits_for_threads():
    # what the interpreter's own exit does and os._exit would not: run atexit handlers, and
    # let a (non-daemon) thread still running finish first; the exit code is main's
    code = (
        "import atexit, sys, threading, time\n"
        "from divaeval.cli import entry_point\n"
        "atexit.register(lambda: print('atexit ran', flush=True))\n"
        "if sys.argv[1] == 'thread':\n"
        "    threading.Thread(target=lambda: (time.sleep(0.5), print('thread ran'))).start()\n"
        "sys.argv[1:] = sys.argv[2:]\n"
        "entry_point()\n"
    )
    cases = [("plain", [RUN, QRELS, "-m", "P@5"], 0), ("plain", [RUN, "-m", "P@5"], 2)]
    for mode, args, exit_code in [*cases, ("thread", [RUN, "-m", "P@5"], 2)]:
        done = subprocess.run(
            [sys.executable, "-c", code, mode, *map(str, args)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == exit_code, done.stderr
        assert done.stdout.endswith("atexit ran\n")
        assert ("thread ran" in done.stdout) == (mode == "thread")


def test_a_profile_of_the_command_is_written(tmp_path):
    # python -m cProfile reports after the module returns: not skipped by the fast exit
    profile = tmp_path / "divaeval.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "divaeval", RUN, QRELS],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0 and profile.stat().st_size > 0


def test_the_program_collects_cycles_less_often_and_a_library_user_keeps_his_setting(capsys):
    # entry_point raises the collector's first threshold before click or numpy is imported
    # (the imports are where the collections cost); the package itself loads neither, and
    # running the command line in process changes nothing
    code = (
        "import gc, sys\n"
        "import divaeval.cli\n"
        "assert not {'click', 'numpy'} & set(sys.modules), 'the package loaded them'\n"
        "print('before', gc.get_threshold()[0], file=sys.stderr)\n"
        "def hook(event, args):\n"
        "    if event == 'import' and args[0] in ('click', 'numpy'):\n"
        "        print(args[0], gc.get_threshold()[0], file=sys.stderr, flush=True)\n"
        "sys.addaudithook(hook)\n"
        "divaeval.cli.entry_point()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, [RUN, QRELS, "-m", "P@5"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = dict(line.split() for line in done.stderr.splitlines())
    assert seen == {"before": "700", "click": "100000", "numpy": "100000"}
    before = gc.get_threshold()
    assert run_cli(capsys, RUN, QRELS, "-m", "P@5")[0] == 0
    assert gc.get_threshold() == before
