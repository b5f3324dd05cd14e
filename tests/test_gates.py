"""Quality gates on the main command (``--fail-under``, ``--fail-if-worse``): exit codes and
every report format from real processes (JUnit parsed by an XML parser), the numbers against
scipy and Holm's correction worked by hand, and every bad option value."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from xml.etree import ElementTree

import numpy as np
import pytest
import scipy.stats
import yaml
from support import ROOT, SAMPLE_DATA

import divaeval
from divaeval.ci import ERROR, Case, Finding, Report, write_github
from divaeval.errors import UsageError

RUN, RUN2, RUN3 = (f"sample_data/{name}" for name in ("run.txt", "run2.txt", "run3.txt"))
QRELS = "sample_data/qrels.txt"


def divaeval_process(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "divaeval", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_fail_under_fails_with_one_line_per_failed_gate():
    done = divaeval_process(RUN, QRELS, "-m", "map", "-m", "P.10", "--fail-under", "map=0.1",
                            "--fail-under", "P_10=0.2")  # fmt: skip
    assert done.returncode == 4
    # the scores as always on stdout (trec_eval's names: its layout), the gates on stderr
    assert done.stdout == f"{'map':<22}\tall\t0.0607\n{'P_10':<22}\tall\t0.2300\n"
    assert done.stderr.splitlines() == [
        "sample_data/run.txt: error: map: mean 0.0607 is below 0.1 (--fail-under map=0.1)",
        "divaeval gates: 1 error, 0 warnings: failed",
    ]


def test_fail_under_passes_at_the_bound_on_a_measure_in_any_spelling():
    # run2's P@10 is 0.25, summed to 0.24999999999999997: within the tolerance of equal scores
    done = divaeval_process(RUN2, QRELS, "-m", "alpha-nDCG@20", "-m", "P@10", "--fail-under",
                            "P@10=0.25")  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = [line.split("\t")[0].strip() for line in done.stdout.splitlines()]
    assert names == ["runid", "num_q", "alpha-nDCG@20", "P@10"]
    assert done.stderr == "divaeval gates: 0 errors, 0 warnings: passed\n"
    # the gate's P@10 is -m's P.10, named as printed; the default measures (ndeval's) gate too
    done = divaeval_process(RUN2, QRELS, "-m", "P.10", "--fail-under", "P@10=0.2500001")
    assert done.returncode == 4
    assert done.stdout == f"{'P_10':<22}\tall\t0.2500\n"
    assert done.stderr.splitlines()[0] == (
        "sample_data/run2.txt: error: P_10: mean 0.2500 is below 0.2500001 (--fail-under "
        "P@10=0.2500001)"
    )
    done = divaeval_process(RUN2, QRELS, "--fail-under", "alpha-nDCG@20=0.5")
    assert done.returncode == 4 and "alpha-nDCG@20: mean 0.3026 is below 0.5" in done.stderr


def test_fail_if_worse_equal_runs_pass():
    result = divaeval.gate(RUN, QRELS, ["alpha-nDCG@20", "P@10"], fail_if_worse=RUN)
    assert result.passed
    frame = result.frame
    assert frame["difference"].tolist() == [0.0, 0.0]
    assert frame["p_value"].tolist() == [1.0, 1.0] and frame["p_holm"].tolist() == [1.0, 1.0]


def test_fail_if_worse_is_a_paired_t_test_holm_corrected_across_measures():
    measures = ["alpha-nDCG@20", "P@10", "ERR-IA@20"]
    result = divaeval.gate(RUN, QRELS, measures, fail_if_worse=RUN3)
    scores = divaeval.evaluate([RUN, RUN3], QRELS, measures).per_topic
    raw = []
    for name in measures:
        rows = scores[scores.measure == name]
        ours = rows[rows.run == "ql-cata"].set_index("topic")["value"]
        theirs = rows[rows.run == "dssa"].set_index("topic")["value"].reindex(ours.index)
        raw.append(scipy.stats.ttest_rel(ours, theirs).pvalue)
    # Holm: sort p ascending, multiply the i-th smallest by (m - i + 1), running maximum
    order = np.argsort(raw)
    stepped = np.maximum.accumulate([min(1.0, (3 - i) * raw[j]) for i, j in enumerate(order)])
    holm = np.empty(3)
    holm[order] = stepped
    frame = result.frame
    np.testing.assert_allclose(frame["p_value"], raw, rtol=1e-9)
    np.testing.assert_allclose(frame["p_holm"], holm, rtol=1e-9)
    failed = frame[~frame["passed"]]["measure"].tolist()
    expected = [m for m, p, d in zip(measures, holm, frame["difference"], strict=True)
                if p < 0.05 and d < 0]  # fmt: skip
    assert failed == expected and "P@10" in failed
    assert result.exit_code == 4


def test_fail_if_worse_resampling_tests_report_their_seed():
    first = divaeval.gate(RUN, QRELS, "P@10", fail_if_worse=RUN3, test="bootstrap", seed=7,
                          samples=500)  # fmt: skip
    again = divaeval.gate(RUN, QRELS, "P@10", fail_if_worse=RUN3, test="bootstrap", seed=7,
                          samples=500)  # fmt: skip
    assert first.frame["p_value"].tolist() == again.frame["p_value"].tolist()
    assert "|test=bootstrap|B=500|seed=7|alpha=0.05|correction=holm" in first.signature
    done = divaeval_process(RUN, QRELS, "-m", "P@10", "--fail-if-worse", RUN3, "--test",
                            "randomization", "--signature", "-f", "jsonl")  # fmt: skip
    assert done.returncode == 4
    # 10 topics: the randomization test enumerates all 2^10 sign flips (as compare's), no seed
    assert "|test=randomization|B=exact|alpha=0.05|correction=holm" in done.stderr
    assert "p = 0.01172 (randomization, exact: all 2^10 sign flips, Holm over 1" in done.stderr
    assert "against dssa over 10 topics, p = 0.006 (bootstrap, B=1000, seed 42, Holm" in (
        divaeval_process(
            RUN, QRELS, "-m", "P@10", "--fail-if-worse", RUN3, "--test", "bootstrap"
        ).stderr  # fmt: skip
    )


def test_junit_report_of_the_gates():
    done = divaeval_process(RUN, RUN2, QRELS, "-m", "P@10", "-m", "alpha-nDCG@20",
                            "--fail-under", "alpha-nDCG@20=0.3", "--fail-if-worse", RUN3,
                            "-f", "junit")  # fmt: skip
    assert done.returncode == 4
    root = ElementTree.fromstring(done.stdout)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["ql-cata", "rm-cata"]
    cases = {c.get("name"): c for c in suites[0].findall("testcase")}
    assert list(cases) == [
        "fail-under alpha-nDCG@20=0.3", "fail-if-worse P@10", "fail-if-worse alpha-nDCG@20",
    ]  # fmt: skip
    failure = cases["fail-under alpha-nDCG@20=0.3"].find("failure")
    assert failure is not None
    assert "alpha-nDCG@20: mean 0.2996 is below 0.3" in failure.get("message")
    assert cases["fail-if-worse P@10"].find("failure") is not None
    assert cases["fail-if-worse alpha-nDCG@20"].find("failure") is None
    assert "not significantly worse" in cases["fail-if-worse alpha-nDCG@20"].findtext("system-out")
    rm = {c.get("name"): c for c in suites[1].findall("testcase")}
    assert rm["fail-under alpha-nDCG@20=0.3"].find("failure") is None  # 0.3026


def test_github_and_markdown_reports_of_the_gates():
    done = divaeval_process(RUN, QRELS, "-m", "P@10", "--fail-under", "P@10=0.3", "-f", "github")
    assert done.returncode == 4
    assert done.stdout.splitlines() == [
        "::error file=sample_data/run.txt,title=divaeval gates%3A fail-under P@10=0.3::"
        "P@10: mean 0.2300 is below 0.3 (--fail-under P@10=0.3)",
        "::notice title=divaeval gates::1 error, 0 warnings: failed",
    ]
    done = divaeval_process(RUN, QRELS, "-m", "P@10", "--fail-under", "P@10=0.2", "-f", "markdown")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "| run | topic | P@10 |"  # the scores, then the gates
    assert "### ✅ divaeval gates: 0 errors, 0 warnings: passed" in lines
    assert "| run | gate | result | errors | warnings |" in lines
    assert "| ql-cata | fail-under P@10=0.2 | passed | 0 | 0 |" in lines
    assert done.stderr == ""


def test_gates_with_other_formats_keep_stdout_for_the_scores(tmp_path):
    target = tmp_path / "scores.jsonl"
    done = divaeval_process(RUN, QRELS, "-m", "P@10", "--fail-under", "P@10=0.5", "-o", target)
    assert done.returncode == 4 and done.stdout == ""
    record = json.loads(target.read_text())
    assert (record["measure"], record["value"]) == ("P@10", 0.22999999999999998)
    assert "error: P@10: mean 0.2300 is below 0.5" in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-under", "P@10"], "--fail-under: expected MEASURE=VALUE, got 'P@10'"),
        (["--fail-under", "P@10=high"], "--fail-under P@10=high: the bound 'high' is not a "
         "finite number"),
        (["--fail-under", "P@10=nan"], "the bound 'nan' is not a finite number"),
        (["--fail-under", "=0.2"], "--fail-under =0.2: no measure before '='"),
        (["--fail-under", "nosuch=0.2"], "--fail-under nosuch=0.2: unknown measure 'nosuch'"),
        (["-m", "alpha-nDCG@20", "--fail-under", "P@10=0.2"], "--fail-under P@10=0.2: P@10 "
         "is not among the measures evaluated: add -m P@10"),
        (["--fail-under", "P@10=0.2"], "P@10 is not among the measures evaluated"),
        (["--test", "bootstrap"], "--test applies to --fail-if-worse: give it"),
        (["--seed", "3", "--alpha", "0.1"], "--seed, --alpha apply to --fail-if-worse"),
        (["-f", "junit"], "-f junit reports the quality gates: give --fail-under or "
         "--fail-if-worse"),
        (["-f", "github"], "-f github reports the quality gates"),
        (["--fail-under", "P@10=0.1", "--baseline", RUN3], "--baseline (risk values) and the "
         "quality gates do not go together"),
        (["--fail-if-worse", RUN3, "--alpha", "1"], "Invalid value for '--alpha'"),
        (["--fail-if-worse", RUN3, "-B", "0"], "Invalid value for '-B' / '--samples'"),
        (["--fail-if-worse", RUN3, "--seed", "x"], "Invalid value for '--seed'"),
        (["--fail-if-worse", RUN3, "--test", "tukey-hsd"], "Invalid value for '--test'"),
        (["--fail-if-worse", "missing.txt"], "cannot open run file: no such file"),
    ],
)  # fmt: skip
def test_bad_gate_options(args, message):
    done = divaeval_process(RUN, QRELS, *args)
    assert done.returncode == (1 if "cannot open" in message else 2), done.stderr
    assert message in done.stderr and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1


def test_gate_api_arguments(collected_warnings):
    with pytest.raises(UsageError, match="no gate"):
        divaeval.gate(RUN, QRELS, "P@10")
    with pytest.raises(UsageError, match="test: expected one of"):
        divaeval.gate(RUN, QRELS, "P@10", fail_if_worse=RUN3, test="tukey-hsd")
    with pytest.raises(UsageError, match="share 0 topic"):
        divaeval.gate(
            {"a": {"1": {"d": 1.0}}}, {"1": {"d": 1}, "2": {"d": 1}}, "P@1",
            fail_if_worse={"2": {"d": 1.0}},
        )  # fmt: skip
    with pytest.raises(UsageError, match="fail_if_worse: one baseline run"):
        divaeval.gate(RUN, QRELS, "P@10", fail_if_worse=[RUN2, RUN3])
    with pytest.raises(UsageError, match="fail_under: expected 'MEASURE=VALUE' or a list"):
        divaeval.gate(RUN, QRELS, "P@10", fail_under=0.2)
    result = divaeval.gate(RUN, QRELS, "P@10", fail_under=["P@10=0.2"])
    assert result.passed and result.exit_code == 0
    assert result.write("jsonl").splitlines()[-1].startswith('{"kind": "case"')
    assert SAMPLE_DATA.exists()
    assert any("lacks 1 qrels topics" in w for w in collected_warnings)


def test_github_commands_escape_as_the_runner_reads_them(tmp_path):
    # GitHub's rules: in the message % CR LF are escaped (%25 %0D %0A); in a property also
    # ':' and ',' (%3A %2C), so that a file name cannot end a property or the command
    (tmp_path / "a,b:c%d.run").write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 x t\n")
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", "check", "a,b:c%d.run", "-f", "github"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 4
    assert done.stdout.splitlines()[0] == (
        "::error file=a%2Cb%3Ac%25d.run,line=2,title=divaeval check%3A score::"
        "score 'x' is not a number"
    )
    report = Report("t: x", [Case("r", "c,d", "", [Finding(ERROR, "50%\r\nnext, a:b", "f:1")])])
    out = io.StringIO()
    write_github(report, out)
    assert out.getvalue().splitlines()[0] == (
        "::error file=f%3A1,title=t%3A x%3A c%2Cd::50%25%0D%0Anext, a:b"
    )


def ci_job_commands(page) -> list[str]:
    """The divaeval commands of the page's CI jobs (``yaml`` blocks): GitHub Actions steps'
    ``run`` and GitLab jobs' ``script`` lines."""
    from test_docs import fenced_blocks

    commands: list[str] = []
    for language, _, text in fenced_blocks(page):
        if language != "yaml":
            continue
        for document in yaml.safe_load_all(text):
            for job in (document.get("jobs") or {}).values():  # GitHub Actions
                commands += [step["run"] for step in job["steps"] if "run" in step]
            commands += [line for job in document.values() if isinstance(job, dict)
                         for line in job.get("script", [])]  # fmt: skip
    return [command for command in commands if command.startswith("divaeval ")]


@pytest.mark.parametrize("page", ["README.md", "docs/ci.md"])
def test_the_ci_jobs_of_the_docs_run(page, tmp_path):
    """The GitHub Actions and GitLab CI jobs as written: each divaeval step exits 0 in a clone
    of the repository, the step summary gets the gates' Markdown, the JUnit reports parse."""
    commands = ci_job_commands(ROOT / page)
    assert len(commands) == 4, commands  # check and the gates, on GitHub and on GitLab
    (tmp_path / "sample_data").symlink_to(SAMPLE_DATA)
    summary = tmp_path / "summary.md"
    for command in commands:
        script = f'divaeval() {{ "{sys.executable}" -m divaeval "$@"; }}\nset -e\n{command}'
        done = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                 "GITHUB_STEP_SUMMARY": str(summary)},
        )  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stderr}"
    assert "### ✅ divaeval gates: 0 errors, 0 warnings: passed" in summary.read_text()
    for report, cases in (("check.xml", 12), ("gates.xml", 3)):  # 12 rules (no --docno)
        root = ElementTree.parse(tmp_path / report).getroot()
        assert (root.tag, root.get("tests"), root.get("failures")) == (
            "testsuites",
            str(cases),
            "0",
        )


def test_gates_report_to_a_file_with_the_figure(tmp_path):
    report, figure = tmp_path / "gates.xml", tmp_path / "scores.svg"
    done = divaeval_process(RUN, QRELS, "-m", "P@10", "--fail-under", "P@10=0.5", "-f", "junit",
                            "-o", report, "--plot", figure)  # fmt: skip
    assert done.returncode == 4 and done.stdout == "", done.stderr
    failure = ElementTree.parse(report).getroot().find("testsuite/testcase/failure")
    assert failure is not None and "P@10: mean 0.2300 is below 0.5" in failure.get("message")
    assert figure.read_text().startswith("<?xml")  # the figure is drawn for the gates too
