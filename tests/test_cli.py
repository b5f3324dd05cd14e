"""The command line end to end: the main job on sample_data, output formats, options, the
metric list, display-name round trips, errors and warnings."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from support import FIXTURES, ROOT, SAMPLE_DATA, TREC2012

from divaeval.cli import main
from divaeval.errors import UsageError
from divaeval.metrics import all_specs, parse_measures
from divaeval.metrics.dialects import TREC_FORMS
from divaeval.metrics.spec import format_value

SAMPLE_RUN = SAMPLE_DATA / "run.txt"
SAMPLE_RUN2 = SAMPLE_DATA / "run2.txt"
SAMPLE_QRELS = SAMPLE_DATA / "qrels.txt"
EX = FIXTURES / "small" / "ndeval_ex"
TREC_LINE = re.compile(r"^(?P<name>.{22,})\t(?P<topic>[^\t]+)\t(?P<value>.+)$")


def cli(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def subprocess_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def oracle_2012(run: str) -> dict[tuple[str, str], float]:
    with gzip.open(TREC2012 / "ndeval_trec-order.tsv.gz", "rt") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle][1:]
    return {(topic, measure): float(value) for name, topic, measure, value in rows if name == run}


# ---------------------------------------------------------------------------------------------
# the main job


def test_readme_main_command(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = cli(
        capsys, "sample_data/run.txt", "sample_data/qrels.txt", "-m", "rbu", "-m", "alpha-ndcg"
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == [f"{'runid':<22}\tall\tql-cata", f"{'num_q':<22}\tall\t10"]
    names = [line.split("\t")[0].rstrip() for line in lines[2:]]
    assert {"alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20", "RBU"} <= set(names)


def test_main_job_numbers_match_ndeval(capsys):
    # sample_data is ql-cata cut to 10 topics x 100 docs with the official diversity qrels;
    # @k <= 20 values equal the full-run ndeval oracle (trec order) for those topics
    code, out, err = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "alpha-ndcg", "-m", "err-ia", "-q", "-f", "jsonl"
    )
    assert code == 0, err
    records = jsonl(out)
    oracle = oracle_2012("ql-cata")
    per_topic = [r for r in records if r["topic"] != "all"]
    assert len(per_topic) == 10 * 6
    for record in per_topic:
        assert record["value"] == pytest.approx(
            oracle[(record["topic"], record["measure"])], abs=1e-9
        )
    for record in records:
        if record["topic"] == "all":
            topic_values = [r["value"] for r in per_topic if r["measure"] == record["measure"]]
            assert record["value"] == pytest.approx(sum(topic_values) / 10, abs=1e-12)


def test_issue_examples(capsys, monkeypatch, tmp_path):
    # divaeval run1.txt run2.txt.gz qrels.txt -m ndeval -q
    packed = tmp_path / "run2.txt.gz"
    packed.write_bytes(gzip.compress(SAMPLE_RUN2.read_bytes()))
    code, out, err = cli(capsys, SAMPLE_RUN, packed, SAMPLE_QRELS, "-m", "ndeval", "-q")
    assert code == 0, err
    assert [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")] == [
        "ql-cata",
        "rm-cata",
    ]
    assert out.count("\n") == 2 * (21 * 10 + 2 + 21)
    # zcat run.gz | divaeval - qrels.txt -m alpha-ndcg@5,10,20 --format jsonl
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(packed.read_bytes())))
    code, out, err = cli(capsys, "-", SAMPLE_QRELS, "-m", "alpha-ndcg@5,10,20", "--format", "jsonl")
    assert code == 0, err
    assert [(r["run"], r["topic"], r["measure"]) for r in jsonl(out)] == [
        ("rm-cata", "all", f"alpha-nDCG@{k}") for k in (5, 10, 20)
    ]


def test_python_dash_m(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "divaeval",
            str(SAMPLE_RUN),
            str(SAMPLE_QRELS),
            "-m",
            "strec@5",
            "-f",
            "jsonl",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(),
    )
    assert done.returncode == 0, done.stderr
    assert jsonl(done.stdout)[0]["measure"] == "strec@5"


def test_installed_entry_point():
    exe = shutil.which("divaeval")
    if exe is None:
        pytest.skip("the divaeval console script is not on PATH")
    done = subprocess.run(
        [exe, "nope.txt", str(SAMPLE_QRELS)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr == "divaeval: nope.txt: cannot open run file: no such file\n"


def test_help_is_lean():
    # start-up is timed by `make bench`, not here (a timed test fails on a loaded machine);
    # what makes it slow, loading numpy, pandas, rich or scipy for --help, is checked exactly
    done = subprocess.run(
        [sys.executable, "-m", "divaeval", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(),
    )
    assert done.returncode == 0
    assert "RUN... QRELS" in done.stdout and done.stderr == ""
    probe = (
        "import sys; from divaeval.cli import main; code = main(['--help']); "
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pandas', 'numpy', 'rich', 'scipy')); print(code, heavy, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(),
    )
    assert done.stderr.strip() == "0 []"


def test_version(capsys):
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.startswith("divaeval, version ")


# ---------------------------------------------------------------------------------------------
# formats


def test_trec_eval_layout(capsys):
    code, out, err = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "alpha-ndcg@5", "-m", "strec@5", "-q"
    )
    assert code == 0, err
    lines = out.splitlines()
    # per-topic blocks first (numeric topic order), then runid, num_q and the summary
    assert len(lines) == 10 * 2 + 2 + 2
    for line in lines:
        assert TREC_LINE.match(line), line
    topics = [line.split("\t")[1] for line in lines[:20]]
    assert topics == [t for t in map(str, range(151, 161)) for _ in range(2)]
    assert lines[20] == f"{'runid':<22}\tall\tql-cata"
    assert lines[21] == f"{'num_q':<22}\tall\t10"
    values = jsonl(
        cli(
            capsys,
            SAMPLE_RUN,
            SAMPLE_QRELS,
            "-m",
            "alpha-ndcg@5",
            "-m",
            "strec@5",
            "-q",
            "-f",
            "jsonl",
        )[1]
    )
    expected = [f"{r['measure']:<22}\t{r['topic']}\t{r['value']:6.4f}" for r in values]
    assert [line for line in lines if not line.startswith(("runid", "num_q"))] == expected


def test_trec_eval_no_summary_and_precision(capsys):
    code, out, _ = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "strec@5", "-q", "-n", "--precision", "6"
    )
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 10
    assert all(re.fullmatch(r"strec@5 {15}\t\d+\t\d\.\d{6}", line) for line in lines)
    code, out, _ = cli(capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "strec@5", "-n")
    assert (code, out) == (0, "")


def test_long_formats_round_trip(capsys):
    args = [SAMPLE_RUN, SAMPLE_RUN2, SAMPLE_QRELS, "-m", "ndeval", "-q"]
    records = jsonl(cli(capsys, *args, "-f", "jsonl")[1])
    assert all(set(r) == {"run", "topic", "measure", "value", "params"} for r in records)
    assert len(records) == 2 * 21 * 11
    assert {r["topic"] for r in records} == {*map(str, range(151, 161)), "all"}
    key = [(r["run"], r["topic"], r["measure"]) for r in records]
    values = [r["value"] for r in records]
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        code, out, _ = cli(capsys, *args, "-f", fmt)
        assert code == 0
        rows = [line.split(sep) for line in out.splitlines()]
        assert rows[0] == ["run", "topic", "measure", "value", "params"]
        assert [tuple(r[:3]) for r in rows[1:]] == key
        assert [float(r[3]) for r in rows[1:]] == values  # full precision: exact round trip
    code, out, _ = cli(capsys, *args, "-f", "json")
    document = json.loads(out)
    assert document["results"] == records
    assert "order=score" in document["signature"]


def test_jsonl_nan_is_null(capsys):
    edge = ROOT / "tests" / "fixtures" / "small" / "edge"
    code, out, _ = cli(
        capsys,
        edge / "edge_run2.txt",
        edge / "edge.qrels",
        "-m",
        "nNRBP",
        "-q",
        "-f",
        "jsonl",
        "--compat",
        "ndeval",
    )
    assert code == 0
    records = {r["topic"]: r["value"] for r in jsonl(out)}
    assert records["2"] is None and records["all"] is None
    code, out, _ = cli(
        capsys,
        edge / "edge_run2.txt",
        edge / "edge.qrels",
        "-m",
        "nNRBP",
        "-q",
        "-f",
        "csv",
        "--compat",
        "ndeval",
    )
    assert "E2,2,nNRBP,NaN" in out.splitlines() or ",2,nNRBP,NaN" in out


def test_precision_in_long_formats(capsys):
    code, out, _ = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "alpha-ndcg@5", "-f", "csv", "--precision", "3"
    )
    assert code == 0
    value = out.splitlines()[1].split(",")[3]
    assert value == "0.252"


def test_output_file(capsys, tmp_path):
    target = tmp_path / "out.jsonl"
    code, out, err = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "strec@5", "-f", "jsonl", "-o", target
    )
    assert (code, out) == (0, "")
    assert jsonl(target.read_text())[0]["measure"] == "strec@5"
    code, out, err = cli(
        capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "strec@5", "-o", tmp_path / "missing-dir" / "x.txt"
    )
    assert code == 1 and out == ""
    assert err.startswith(f"divaeval: {tmp_path / 'missing-dir' / 'x.txt'}: cannot write output")


def test_ndeval_format_for_several_runs(capsys):
    code, out, _ = cli(
        capsys,
        EX / "runA.txt",
        EX / "runB.txt",
        EX / "qrels.div.txt",
        "-f",
        "ndeval",
        "--order",
        "rank",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("runid,topic,ERR-IA@5,")
    assert [",".join(line.split(",")[:2]) for line in lines[1:]] == [
        "runA,1",
        "runA,2",
        "runA,3",
        "runA,amean",
        "runB,1",
        "runB,2",
        "runB,4",
        "runB,amean",
    ]


def test_table_without_colour_when_not_a_tty(capsys, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    code, out, _ = cli(
        capsys, SAMPLE_RUN, SAMPLE_RUN2, SAMPLE_QRELS, "-m", "alpha-ndcg@5", "-f", "table"
    )
    assert code == 0
    assert "\x1b" not in out
    assert "alpha-nDCG@5" in out and "ql-cata" in out and "rm-cata" in out
    assert "0.2520" in out


def _run_in_pty(args: list[str], env: dict[str, str]) -> bytes:
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "divaeval", *args], stdout=slave, stderr=subprocess.DEVNULL, env=env
    )
    os.close(slave)
    output = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    process.wait(timeout=60)
    os.close(master)
    return output


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_table_on_a_tty_and_no_color():
    args = [str(SAMPLE_RUN), str(SAMPLE_QRELS), "-m", "alpha-ndcg@5", "-f", "table"]
    styled = _run_in_pty(args, subprocess_env(TERM="xterm-256color"))
    assert b"\x1b[" in styled  # a terminal gets styles
    plain = _run_in_pty(args, subprocess_env(TERM="xterm-256color", NO_COLOR="1"))
    assert b"0.2520" in plain
    # NO_COLOR: no colour codes (foreground/background 30-49, 90-107, 38;/48; extended)
    colour = re.compile(rb"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m")
    assert not colour.search(plain)


# ---------------------------------------------------------------------------------------------
# run names, warnings, errors


def test_shared_tags_use_file_names(capsys, tmp_path):
    first, second = tmp_path / "first.txt", tmp_path / "second.txt.gz"
    shutil.copy(SAMPLE_RUN, first)
    second.write_bytes(gzip.compress(SAMPLE_RUN.read_bytes()))
    code, out, err = cli(capsys, first, second, SAMPLE_QRELS, "-m", "strec@5", "-f", "jsonl")
    assert code == 0
    assert [r["run"] for r in jsonl(out)] == ["first", "second"]
    assert err == (
        "divaeval: warning: runs share the tag(s) ql-cata; named by their file names instead\n"
    )


def test_warnings_go_to_stderr_only(capsys, tmp_path):
    # a run lacking qrels topics, with a run-only topic: two warnings, clean jsonl on stdout
    run = tmp_path / "run.txt"
    run.write_text(
        "".join(
            line
            for line in SAMPLE_RUN.read_text().splitlines(keepends=True)
            if line.startswith("151 ")
        )
        + "999 Q0 x 1 1.0 ql-cata\n"
    )
    code, out, err = cli(capsys, run, SAMPLE_QRELS, "-m", "strec@5", "-f", "jsonl", "-q")
    assert code == 0
    assert [r["topic"] for r in jsonl(out)] == ["151", "all"]
    warnings = err.splitlines()
    assert len(warnings) == 2 and all(w.startswith("divaeval: warning: ") for w in warnings)
    assert "999" in err and "lacks 9 qrels topics" in err


def test_complete_counts_missing_topics(capsys, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text(
        "".join(
            line
            for line in SAMPLE_RUN.read_text().splitlines(keepends=True)
            if line.startswith("151 ")
        )
    )
    code, out, _ = cli(capsys, run, SAMPLE_QRELS, "-m", "strec@5", "-c", "-q", "-f", "jsonl")
    assert code == 0
    records = jsonl(out)
    assert [r["topic"] for r in records] == [*map(str, range(151, 161)), "all"]
    assert all(r["value"] == 0 for r in records[1:10])
    assert records[-1]["value"] == pytest.approx(records[0]["value"] / 10)


def test_unknown_metric_lists_close_matches(capsys):
    code, out, err = cli(capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", "alpha-ndgc")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("divaeval: unknown measure 'alpha-ndgc'; did you mean ")
    assert "alpha-ndcg" in err


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("alpha-ndcg@0", "'alpha-ndcg@0': cutoff 0 must be >= 1"),
        ("alpha-ndcg@5,5", "'alpha-ndcg@5,5': duplicate cutoff 5"),
        ("alpha-ndcg@x", "'alpha-ndcg@x': cutoff 'x' is not a positive integer"),
        ("alpha-ndcg(alpha=2)@5", "alpha-nDCG: parameter alpha='2': must be in [0, 1]"),
        ("alpha-ndcg(alpha=x)@5", "alpha-nDCG: parameter alpha='x' is not a valid float"),
    ],
)
def test_bad_measure_is_a_usage_error(capsys, measure, message):
    code, out, err = cli(capsys, SAMPLE_RUN, SAMPLE_QRELS, "-m", measure)
    assert (code, out, err) == (2, "", f"divaeval: {message}\n")


def test_bad_option_is_a_usage_error(capsys):
    code, out, err = cli(capsys, SAMPLE_RUN, SAMPLE_QRELS, "--no-such-option")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("divaeval: ")


# ---------------------------------------------------------------------------------------------
# the registry: `divaeval metrics` and display-name round trips


def test_metrics_lists_every_metric(capsys):
    code, out, _ = cli(capsys, "metrics")
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    names = [spec.name for spec in all_specs()]
    assert [n for n in listed if n in names] == names  # one line each, in registry order
    code, long_out, _ = cli(capsys, "metrics", "--long")
    detailed = {
        line.strip().split("(")[0].split("[@")[0].split("@k")[0]
        for line in long_out.splitlines()
        if line.startswith("  ") and not line.startswith("      ")
    }
    assert set(names) <= detailed and "      follows: " in long_out
    for name in (
        "ERR-IA",
        "nERR-IA",
        "alpha-DCG",
        "alpha-nDCG",
        "NRBP",
        "nNRBP",
        "MAP-IA",
        "P-IA",
        "strec",
    ):
        assert name in names
    assert "ndeval: ndeval's 21 default columns" in out
    # a pattern filters; a metric named exactly is shown in full
    code, out, _ = cli(capsys, "metrics", "*-ia")
    assert {line.split()[0] for line in out.splitlines() if line.startswith("  ")} >= {
        "ERR-IA",
        "nERR-IA",
        "MAP-IA",
        "P-IA",
    } and "alpha-nDCG" not in out
    code, out, _ = cli(capsys, "metrics", "a-ndcg")
    assert code == 0 and out.splitlines()[2].startswith("  alpha-nDCG(") and "follows:" in out
    assert cli(capsys, "metrics", "zzz")[0] == 2
    code, out, _ = cli(capsys, "metrics", "-f", "jsonl")
    assert code == 0
    assert [json.loads(line)["name"] for line in out.splitlines()] == [
        spec.name for spec in all_specs()
    ]


def _non_default(param):
    """A valid value different from the default, or None."""
    if param.choices:
        others = [c for c in param.choices if c != param.default]
        return others[0] if others else None
    if param.kind is float:
        candidates = (0.3, 0.7, 0.25, 0.9, 2.0, 1.5)
    elif param.kind is int:
        candidates = (1, 2, 3, 5)
    else:
        return None  # free-form strings (e.g. gain tables) have their own syntax
    for value in candidates:
        if value == param.default:
            continue
        try:
            param.parse(format_value(value), "probe")
        except Exception:
            continue
        return value
    return None


def _texts(spec) -> list[str]:
    cut = "" if spec.cutoff == "none" else "@3,10"
    if spec.level_param is not None:
        cut = "@0.3,0.5"
    texts = [spec.name + cut, spec.name]
    if spec.cutoff == "required":
        texts = [spec.name + cut]
    for alias in spec.aliases:
        texts.append(alias.upper() + cut if spec.cutoff == "required" else alias.upper())
    required = [f"{p.name}={format_value(_non_default(p))}" for p in spec.params if p.required]
    changed = [(p.name, _non_default(p)) for p in spec.params if p.name != spec.level_param]
    changed = [(name, value) for name, value in changed if value is not None]
    for name, value in changed:
        own = f"{name}={format_value(value)}"
        inner = ",".join(dict.fromkeys([*required, own]))
        texts.append(f"{spec.name}({inner}){cut}")
    if len(changed) > 1:
        inner = ",".join(f"{name}={format_value(value)}" for name, value in changed)
        texts.append(f"{spec.name}({inner}){cut}")
    return texts


def _needs_parameter(text: str) -> bool:
    """Metrics whose parameter has no usable default (e.g. a collection size) reject the
    bare name with 'NAME needs PARAM ...'."""
    try:
        parse_measures([text])
    except UsageError as exc:
        return " needs " in str(exc)
    return False


@pytest.mark.parametrize("spec", all_specs(), ids=lambda spec: spec.name)
def test_display_names_round_trip(spec):
    texts = _texts(spec)
    checked = 0
    for text in texts:
        if "(" not in text and _needs_parameter(text):
            continue
        measures = parse_measures([text])
        assert measures, text
        for measure in measures:
            checked += 1
            assert measure.spec.name == spec.name
            back = parse_measures([measure.name])
            assert back == [measure], (text, measure.name)
            # metric names are case-insensitive and '-'/'_' are interchangeable (but trec_eval's
            # rbp and rbp_resid, spelled as trec_eval does, are trec_eval's)
            name, paren, rest = measure.display.partition("(")
            spelled = name.lower().replace("-", "_")
            if spelled not in TREC_FORMS:
                assert parse_measures([spelled + paren + rest]) == [measure]
    assert checked


def test_default_display_names_are_ndevals():
    names = [m.name for m in parse_measures(["ndeval"])]
    assert ",".join(["runid", "topic", *names]) == (
        "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,"
        "alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,"
        "P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20"
    )
    assert [m.name for m in parse_measures(["alpha-ndcg(alpha=0.3)@20"])] == [
        "alpha-nDCG(alpha=0.3)@20"
    ]
    for alias in ("alpha-ndcg", "alpha_ndcg", "a-ndcg", "ALPHA-NDCG"):
        assert [m.name for m in parse_measures([f"{alias}@5"])] == ["alpha-nDCG@5"]
    # ir_measures' spelling prints as ir_measures prints it
    assert [m.name for m in parse_measures(["alpha_nDCG@5"])] == ["alpha_nDCG@5"]
    for alias in ("strec", "s-recall", "S_RECALL"):
        assert [m.name for m in parse_measures([f"{alias}@5"])] == ["strec@5"]


def test_display_names_round_trip_through_the_cli(capsys):
    # every ndeval-family name, default and non-default, comes back unchanged from -m
    texts = [
        "ndeval",
        "alpha-ndcg(alpha=0.3)@1,25",
        "err-ia(alpha=0.9)@2",
        "nrbp(alpha=0.2,beta=0.9)",
        "nnrbp(beta=0.7)",
        "strec@30",
        "p-ia@7",
        "alpha-dcg(alpha=1)@4",
        "nerr-ia(alpha=0)@6",
    ]
    args = [SAMPLE_RUN, SAMPLE_QRELS, "-f", "jsonl"]
    for text in texts:
        args += ["-m", text]
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    first = jsonl(out)
    names = [r["measure"] for r in first]
    assert "alpha-nDCG(alpha=0.3)@25" in names and "NRBP(alpha=0.2,beta=0.9)" in names
    again = [SAMPLE_RUN, SAMPLE_QRELS, "-f", "jsonl"]
    for name in names:
        again += ["-m", name]
    code, out, err = cli(capsys, *again)
    assert code == 0, err
    assert jsonl(out) == first


@pytest.mark.parametrize("fmt", ["trec_eval", "ndeval", "ntcir", "table", "csv", "jsonl", "json"])
def test_difficulty_weighted_mean_in_every_format(capsys, fmt):
    # --mean dd = Σ_t (1 − dd_t)·v_t / Σ_t (1 − dd_t) (Golbus et al. 2013 §6.2), from the
    # per-topic values and the collection analysis, computed here independently.
    import divaeval
    from divaeval.collection import collection_table, difficulty_weights

    table = divaeval.evaluate([str(SAMPLE_RUN)], str(SAMPLE_QRELS), ["strec@5"]).per_topic
    weights = difficulty_weights(collection_table(divaeval.read_qrels(str(SAMPLE_QRELS)).frame))
    values = dict(zip(table["topic"], table["value"], strict=True))
    expected = sum(values[t] * weights[t] for t in values) / sum(weights[t] for t in values)

    code = main([str(SAMPLE_RUN), str(SAMPLE_QRELS), "-m", "strec@5", "--mean", "dd", "-f", fmt])
    out = capsys.readouterr().out
    assert code == 0
    if fmt == "jsonl":
        (record,) = [json.loads(line) for line in out.splitlines()]
        assert record["value"] == pytest.approx(expected, abs=1e-12)
    elif fmt == "ndeval":
        assert out.splitlines()[-1] == f"ql-cata,amean,{expected:.6f}"
    elif fmt == "trec_eval":
        assert out.splitlines()[-1].split("\t") == [
            "strec@5               ",
            "all",
            f"{expected:.4f}",
        ]
    elif fmt == "csv":
        assert float(out.splitlines()[-1].split(",")[3]) == pytest.approx(expected, abs=1e-12)
    elif fmt == "json":
        (record,) = json.loads(out)["results"]
        assert record["value"] == pytest.approx(expected, abs=1e-12)
    else:
        assert f"{expected:.4f}" in out
