"""``divaeval check``: the TREC submission checker. Every rule at its exact location, exit codes
(0 clean, 4 failed, 1 unreadable, 2 usage) from real processes, every report format parsed
(JUnit by an XML parser), --fix, and the rules held to the readers by properties."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import ROOT, SAMPLE_DATA, examples, run_cli

from divaeval.errors import DataError
from divaeval.io import read_run
from divaeval.io.check import CheckOptions, check_runs, fixed_run

QRELS = SAMPLE_DATA / "qrels.txt"
#: a run breaking every rule, one line each (line 7 is a comment)
BAD = (
    "151 Q0 d1 1 3.0 runA\n"  # 1
    "151 Q0 d2 2 nan runA\n"  # 2 score
    "151 Q0 d1 3 1.0 runA\n"  # 3 duplicate of line 1; tie with 4
    "151 X d4 x 1.0 runA\n"  # 4 rank, Q0
    "999 Q0 d5 1 2.0 runB\n"  # 5 tag, topic outside the set
    "151 Q0 d6 5\n"  # 6 fields
    "# a comment\n"  # 7
    "151 Q0 e7 6 2.5 runA extra\n"  # 8 fields (7); order: rank 6 but the second best score
)
#: one example line of each rule (the closing note of issue 24 lists them)
EXPECTED = {
    "fields": "bad.run:6: error: expected 6 columns (topic Q0 docno rank score tag), found 4",
    "fields7": "bad.run:8: error: expected 6 columns (topic Q0 docno rank score tag), found 7",
    "rank": "bad.run:4: error: rank 'x' is not an integer",
    "score": "bad.run:2: error: score 'nan' is not a finite number",
    "duplicate": (
        "bad.run:3: error: docno d1 is repeated in topic 151 (first at line 1): trec_eval and "
        "ndeval stop at it; divaeval's --dedupe first keeps the best-ranked copy"
    ),
    "tag": (
        "bad.run:5: error: run tag 'runB' differs from the file's first tag 'runA' (line 1) on "
        "1 line(s): a run file holds one run"
    ),
    "topic": "bad.run:5: error: topic 999 is not in the topic set of q.txt (1 line(s))",
    "missing-topic": (
        "bad.run: topic 152: error: no documents for this topic of the topic set of q.txt"
    ),
    "depth": (
        "bad.run:4: error: topic 151 has 5 documents, more than --depth 3 (this line is the "
        "first beyond it)"
    ),
    "order": (
        "bad.run:8: warning: topic 151: ranks and scores disagree: docno e7 (rank 6, score 2.5) "
        "is #2 by score (trec_eval, divaeval's default --order score) but #3 by rank (ndeval, "
        "--order rank); 2 of 3 documents are placed differently"
    ),
    "ties": (
        "bad.run:3: warning: topic 151: score 1.0 is shared with line 4 (2 documents of this "
        "topic share a score): trec_eval and divaeval order ties by docno (descending), ndeval "
        "by rank, NTCIREVAL and the RBU code as listed"
    ),
    "q0": "bad.run:4: warning: second column 'X' is not Q0 (trec_eval and divaeval ignore it)",
    "docno": ("bad.run:8: warning: docno 'e7' does not match --docno 'd\\d+'"),
    "tag-name": (
        "long.run:1: warning: run tag 'a-very-long-run-tag-name' is 24 characters long, more "
        "than --max-tag-length 20"
    ),
}


#: a run without any finding: distinct scores, ranks in their order, Q0, one plain tag
CLEAN = "".join(f"{t} Q0 d{t}-{i} {i} {100 - i}.5 clean_run\n" for t in (1, 2) for i in range(1, 6))


def divaeval(*args, cwd=None) -> subprocess.CompletedProcess:
    """A real ``divaeval`` process (exit codes and output as a CI job sees them)."""
    return subprocess.run(
        [sys.executable, "-m", "divaeval", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


@pytest.fixture
def bad(tmp_path):
    (tmp_path / "bad.run").write_text(BAD)
    (tmp_path / "q.txt").write_text(QRELS.read_text())
    return tmp_path


def test_every_rule_at_its_line(bad):
    done = divaeval(
        "check", "bad.run", "--qrels", "q.txt", "--depth", "3", "--docno", r"d\d+", cwd=bad
    )
    assert done.returncode == 4, done.stderr
    lines = done.stdout.splitlines()
    for rule, line in EXPECTED.items():
        if not line.startswith("long.run"):
            assert line in lines, rule
    # in line order, the topics' findings after the lines'
    located = [int(m.group(1)) for m in map(re.compile(r"bad\.run:(\d+):").match, lines) if m]
    assert located == sorted(located)
    assert lines[-1] == "divaeval check: 17 errors, 4 warnings: failed"
    assert done.stderr == ""


def test_tag_name_rules(tmp_path):
    (tmp_path / "long.run").write_text("1 Q0 d1 1 2.0 a-very-long-run-tag-name\n")
    done = divaeval("check", "long.run", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == EXPECTED["tag-name"]
    (tmp_path / "odd.run").write_text("1 Q0 d1 1 2.0 run/1+x\n")
    done = divaeval("check", "odd.run", "--strict", cwd=tmp_path)
    assert done.returncode == 4
    assert done.stdout.splitlines()[0] == (
        "odd.run:1: warning: run tag 'run/1+x' has characters other than letters, digits, _ - "
        "and . ('+/')"
    )


def test_clean_runs_pass_and_strict_fails_on_warnings(tmp_path):
    (tmp_path / "clean.run").write_text(CLEAN)
    done = divaeval("check", "clean.run", "--strict", "--depth", "5", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "divaeval check: 0 errors, 0 warnings: passed\n")
    # the official run has tied scores: warnings, which --strict fails
    done = divaeval("check", SAMPLE_DATA / "run.txt", "--qrels", QRELS)
    assert done.returncode == 0
    assert "warning: topic 155: score -12.5386 is shared with line 462" in done.stdout
    assert divaeval("check", SAMPLE_DATA / "run.txt", "--strict").returncode == 4


def test_several_runs_get_a_summary_each(bad):
    (bad / "clean.run").write_text(CLEAN)
    done = divaeval("check", "bad.run", "clean.run", cwd=bad)
    assert done.returncode == 4
    assert done.stdout.splitlines()[-3:] == [
        "bad.run: 6 errors, 3 warnings: failed",
        "clean.run: 0 errors, 0 warnings: passed",
        "divaeval check: 6 errors, 3 warnings: failed",
    ]


def test_topic_sets_from_topic_files(tmp_path):
    run = "151 Q0 d1 1 2.0 t\n999 Q0 d2 1 2.0 t\n"
    (tmp_path / "r.txt").write_text(run)
    (tmp_path / "queries.txt").write_text("151:403b\n152:angular cheilitis\n")
    done = divaeval(
        "check", "r.txt", "--topics", "queries.txt", "--max-per-rule", "0", cwd=tmp_path
    )
    assert done.returncode == 4
    assert "r.txt:2: error: topic 999 is not in the topic set of queries.txt (1 line(s))" in (
        done.stdout
    )
    assert "r.txt: topic 152: error: no documents for this topic" in done.stdout
    from divaeval.io import read_topic_types

    xml_topics = set(read_topic_types(str(SAMPLE_DATA / "topics.xml"))["topic"])
    done = divaeval(
        "check",
        "r.txt",
        "--topics",
        SAMPLE_DATA / "topics.xml",
        "--max-per-rule",
        "0",
        cwd=tmp_path,
    )
    assert done.stdout.count("error: no documents for this topic") == len(xml_topics) - 1
    assert "r.txt:2: error: topic 999 is not in the topic set" in done.stdout
    assert done.returncode == 4


def test_findings_beyond_the_cap_are_counted(tmp_path):
    (tmp_path / "r.txt").write_text("".join(f"1 X d{i} {i} {-i} t\n" for i in range(1, 26)))
    done = divaeval("check", "r.txt", "--max-per-rule", "3", cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert sum("is not Q0" in line for line in lines) == 3
    assert "r.txt: warning: 22 more finding(s) of rule q0 not listed (--max-per-rule)" in lines
    assert lines[-1] == "divaeval check: 0 errors, 25 warnings: passed"


# ---------------------------------------------------------------------------------------------
# the formats


def test_jsonl_report(bad):
    done = divaeval("check", "bad.run", "-f", "jsonl", cwd=bad)
    assert done.returncode == 4
    records = [json.loads(line) for line in done.stdout.splitlines()]
    findings = [r for r in records if r["kind"] == "finding"]
    cases = [r for r in records if r["kind"] == "case"]
    assert {
        "kind": "finding",
        "suite": "bad.run",
        "check": "score",
        "severity": "error",
        "file": "bad.run",
        "line": 2,
        "topic": None,
        "message": "score 'nan' is not a finite number",
    } in findings
    assert [c["check"] for c in cases] == [
        "fields", "rank", "score", "duplicate", "tag", "order", "ties", "tag-name", "q0",
    ]  # fmt: skip
    assert {c["check"]: c["passed"] for c in cases}["tag-name"] is True


def test_junit_report_parses_as_junit(bad):
    (bad / "clean.run").write_text(CLEAN)
    done = divaeval("check", "bad.run", "clean.run", "-f", "junit", cwd=bad)
    assert done.returncode == 4
    root = ElementTree.fromstring(done.stdout)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["bad.run", "clean.run"]
    first = suites[0]
    assert (first.get("tests"), first.get("failures")) == ("9", "5")
    cases = {c.get("name"): c for c in first.findall("testcase")}
    failure = cases["score"].find("failure")
    assert failure is not None and failure.get("message") == (
        "bad.run:2: error: score 'nan' is not a finite number"
    )
    assert cases["order"].find("failure") is None  # a warning: passed, its text kept
    assert "ranks and scores disagree" in cases["order"].findtext("system-out")
    assert root.get("tests") == "18" and root.get("failures") == "5"
    assert all(c.find("failure") is None for c in suites[1].findall("testcase"))
    strict = divaeval("check", "bad.run", "-f", "junit", "--strict", cwd=bad)
    root = ElementTree.fromstring(strict.stdout)
    assert root.get("failures") == "8"


def test_github_workflow_commands(bad):
    done = divaeval("check", "bad.run", "-f", "github", cwd=bad)
    assert done.returncode == 4
    lines = done.stdout.splitlines()
    assert (
        "::error file=bad.run,line=2,title=divaeval check%3A score::"
        "score 'nan' is not a finite number" in lines
    )
    assert any(
        line.startswith("::warning file=bad.run,line=4,title=divaeval check%3A q0::")
        for line in lines
    )
    assert lines[-1] == "::notice title=divaeval check::6 errors, 3 warnings: failed"
    command = re.compile(r"::(error|warning|notice) [^:]+::.+")
    assert all(command.fullmatch(line) for line in lines)


def test_markdown_report(bad):
    done = divaeval("check", "bad.run", "-f", "markdown", cwd=bad)
    assert done.returncode == 4
    lines = done.stdout.splitlines()
    assert lines[0] == "### ❌ divaeval check: 6 errors, 3 warnings: failed"
    assert "| bad.run | score | failed | 1 | 0 |" in lines
    assert "| `bad.run:2` | error | score 'nan' is not a finite number |" in lines
    (bad / "clean.run").write_text(CLEAN)
    clean = divaeval("check", "clean.run", "-f", "markdown", cwd=bad)
    assert clean.stdout.startswith("### ✅ divaeval check: 0 errors, 0 warnings: passed")


def test_report_to_a_file(bad):
    done = divaeval("check", "bad.run", "-f", "junit", "-o", "report.xml", cwd=bad)
    assert done.returncode == 4 and done.stdout == ""
    ElementTree.parse(bad / "report.xml")


# ---------------------------------------------------------------------------------------------
# --fix


def test_fix_writes_a_normalised_run(bad):
    done = divaeval(
        "check", "bad.run", "--qrels", "q.txt", "--depth", "2", "--fix", "-o", "fixed.run", cwd=bad
    )
    assert (bad / "fixed.run").read_text() == ("151 Q0 d1 1 3.0 runA\n151 Q0 e7 2 2.5 runA\n")
    lines = done.stdout.splitlines()
    for change in (
        "fixed: bad.run: 1 line(s) without 6 fields dropped",
        "fixed: bad.run: fields after the sixth dropped on 1 line(s)",
        "fixed: bad.run: 1 line(s) whose score is not a finite number dropped",
        "fixed: bad.run: 1 line(s) of topics outside the topic set dropped (999)",
        "fixed: bad.run: 1 repeated docno(s) dropped (the best-ranked copy kept)",
        "fixed: bad.run: 1 document(s) beyond --depth 2 dropped",
        "fixed: bad.run: 1 rank(s) renumbered in trec_eval's order (score, then docno)",
    ):
        assert change in lines
    # the written run is checked: topics 152-160 of the qrels have no documents
    assert done.returncode == 4
    assert "fixed.run: topic 152: error: no documents for this topic" in done.stdout
    done = divaeval("check", "bad.run", "--fix", "-o", "fixed.run", cwd=bad)
    assert done.returncode == 0, done.stdout
    assert (bad / "fixed.run").read_text() == (
        "151 Q0 d1 1 3.0 runA\n151 Q0 e7 2 2.5 runA\n151 Q0 d4 3 1.0 runA\n999 Q0 d5 1 2.0 runA\n"
    )
    assert "fixed: bad.run: 1 other run tag(s) replaced by 'runA'" in done.stdout


def test_fix_of_a_clean_run_changes_nothing(tmp_path):
    (tmp_path / "clean.run").write_text(CLEAN.replace(" Q0 ", "   Q0\t"))
    done = divaeval("check", "clean.run", "--fix", "-o", "same.txt", cwd=tmp_path)
    assert done.returncode == 0
    assert "fixed: clean.run: nothing to change" in done.stdout.splitlines()
    assert (tmp_path / "same.txt").read_text() == CLEAN


# ---------------------------------------------------------------------------------------------
# usage and unreadable files


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--depth", "0"], "Invalid value for '--depth': 0 is not in the range x>=1."),
        (["--max-tag-length", "0"], "Invalid value for '--max-tag-length'"),
        (["--max-per-rule", "-1"], "Invalid value for '--max-per-rule'"),
        (["--docno", "("], "--docno '(' is not a regular expression"),
        (["-f", "xml"], "Invalid value for '-f' / '--format'"),
        (["--qrels", "q.txt", "--topics", "q.txt"], "give the topic set by --qrels or by --topics"),
        (["--fix"], "--fix writes the normalised run to -o FILE: give -o"),
        (["--fix", "-o", "bad.run"], "-o bad.run is the input bad.run (the same file)"),
        (["bad.run", "--fix", "-o", "x.run"], "--fix normalises one run at a time (got 2)"),
    ],
)
def test_bad_options_are_usage_errors(bad, args, message):
    done = divaeval("check", "bad.run", *args, cwd=bad)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr and done.stderr.startswith("divaeval: ")
    assert len(done.stderr.splitlines()) == 1


def test_unreadable_files_are_data_errors(tmp_path):
    done = divaeval("check", "missing.run", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        1,
        "divaeval: missing.run: cannot open run file: no such file\n",
    )
    (tmp_path / "binary.run").write_bytes(b"1 Q0 d1 1 2.0 t\n\x00\x01")
    done = divaeval("check", "binary.run", cwd=tmp_path)
    assert done.returncode == 1 and "looks binary" in done.stderr
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 2.0 t\n")
    (tmp_path / "q.txt").write_text("1 0 d1\n")
    done = divaeval("check", "r.txt", "--qrels", "q.txt", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("divaeval: q.txt:1: ")


def test_an_empty_run_fails(tmp_path):
    (tmp_path / "empty.run").write_text("# nothing\n\n")
    done = divaeval("check", "empty.run", cwd=tmp_path)
    assert done.returncode == 4
    assert done.stdout.splitlines()[0] == "empty.run: error: run file has no lines"


def test_gzip_and_stdin(capsys, tmp_path, monkeypatch):
    import gzip
    import io

    (tmp_path / "r.gz").write_bytes(gzip.compress(b"1 Q0 d1 1 nan t\n"))
    code, out, _ = run_cli(capsys, "check", tmp_path / "r.gz")
    assert code == 4 and f"{tmp_path / 'r.gz'}:1: error: score 'nan'" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 Q0 d1 1 x t\n")))
    code, out, _ = run_cli(capsys, "check", "-")
    assert code == 4 and "<stdin>:1: error: score 'x' is not a number" in out


# ---------------------------------------------------------------------------------------------
# properties: the rules agree with the readers, and --fix leaves nothing to fix

TOKENS = st.sampled_from(
    ["1", "2.5", "-3", "1e5", "1e999", "nan", "inf", "-inf", "x", "1_0", "0x10", ".5", "5.",
     "+7", "1e-999", "12345678901234567890", "9" * 30, "1.0000000001", "--1", "1e", "Infinity"]
)  # fmt: skip


@settings(max_examples=examples(60), deadline=None)
@given(scores=st.lists(TOKENS, min_size=1, max_size=6))
def test_score_rule_is_the_readers(tmp_path_factory, scores):
    """A run is read (read_run) exactly when check finds no score error, and the line the
    reader names is one check flags."""
    path = tmp_path_factory.mktemp("p") / "r.txt"
    path.write_text("".join(f"1 Q0 d{i} {i + 1} {s} t\n" for i, s in enumerate(scores)))
    report = check_runs([str(path)], CheckOptions())
    flagged = [f.line for case in report.cases if case.name == "score" for f in case.findings]
    try:
        read_run(str(path))
        assert flagged == []
    except DataError as error:
        assert error.line in flagged


RANKINGS = st.lists(
    st.tuples(
        st.sampled_from(["1", "2", "10"]),
        st.sampled_from(["a", "b", "c", "d", "e"]),
        st.sampled_from([1.0, 2.0, 2.5, 3.0]),
        st.integers(1, 6),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=examples(60), deadline=None)
@given(lines=RANKINGS)
def test_fix_leaves_nothing_to_fix_and_keeps_trec_evals_ranking(tmp_path_factory, lines):
    """After --fix: no error, ranks and scores agree (no order warning), and divaeval's
    default order (trec_eval's) ranks the fixed run as it ranks the original with --dedupe
    first."""
    import divaeval as api

    folder = tmp_path_factory.mktemp("f")
    original = folder / "r.txt"
    original.write_text("".join(f"{t} Q0 {d} {r} {s} t\n" for t, d, s, r in lines))
    fixed = fixed_run(str(original), CheckOptions())
    (folder / "fixed.txt").write_text(fixed.text)
    report = check_runs([str(folder / "fixed.txt")], CheckOptions())
    assert not report.count("error")
    assert not [f for c in report.cases if c.name == "order" for f in c.findings]
    grades = dict(zip("abcde", (1, 0, 2, 1, 0), strict=True))
    qrels = "".join(f"{t} 0 {d} {g}\n" for t in ("1", "2", "10") for d, g in grades.items())
    (folder / "q.txt").write_text(qrels)
    measures = ["P@2", "AP", "nDCG@3"]
    qrels = str(folder / "q.txt")
    with warnings.catch_warnings():  # (repeated docnos dropped, topics missing: expected)
        warnings.simplefilter("ignore", api.DivaevalWarning)
        before = api.evaluate(str(original), qrels, measures, dedupe="first", complete=True)
        after = api.evaluate(str(folder / "fixed.txt"), qrels, measures, complete=True)
        by_rank = api.evaluate(
            str(folder / "fixed.txt"), qrels, measures, order="rank", complete=True
        )
    assert before.frame["value"].tolist() == after.frame["value"].tolist()
    assert by_rank.frame["value"].tolist() == after.frame["value"].tolist()


def test_python_api(bad):
    import divaeval as api

    result = api.check(str(bad / "bad.run"), qrels=str(bad / "q.txt"), depth=3)
    assert not result.passed and result.exit_code == 4
    assert len(result.frame) == 17 + 3
    assert set(result.frame.columns) == {
        "run", "check", "severity", "file", "line", "topic", "message",
    }  # fmt: skip
    assert result.write("github").startswith("::error file=")
    assert "|check|topics=" in result.signature and "|depth=3|" in result.signature
    with pytest.raises(api.UsageError, match="never writes over an input"):
        api.check(str(bad / "bad.run"), fix=str(bad / "bad.run"))
    with pytest.raises(api.UsageError, match="unknown report format"):
        result.write("xml")
    fixed = api.check(str(bad / "bad.run"), fix=str(bad / "fixed.run"))
    assert fixed.passed and (bad / "fixed.run").exists()
    assert "fixed: " in fixed.write("markdown")
