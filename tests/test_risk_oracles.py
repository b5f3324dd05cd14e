"""Risk-sensitive evaluation against ndeval 4.5's ``-baseline``/``-riskAlpha`` mode.

Oracles (tests/fixtures/ORACLES-README.md §9.11): ``trec2012-risk/`` (8 TREC 2012 runs against
ql-cata, A = 0, 1, 5, default order = ``order="rank"`` and ``-traditional`` = ``order="score"``),
``trec2012-risk/gaps/`` (a run and a baseline with missing and run-only topics, with and without
``-c``), ``small/{ndeval_ex,edge}/risk_*`` (both directions; edge has an S = 0 topic, whose NaN
nNRBP needs ``compat="ndeval"``). Every value must agree to the last bit (``==``, NaN = NaN), and
the ndeval CSV byte for byte.

Most cases go through :func:`divaeval.evaluate` with ``baseline=``; the sweep over every A and
``-c`` on the 9 real runs applies :func:`~divaeval.risk_measures.relative_to_baseline` to one
scoring of the runs per order (the same code the API runs), to keep the suite fast.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import shutil

import numpy as np
import pytest
from support import FIXTURES, TREC2012, TREC2012_RUNS, read_oracle, run_cli

import divaeval
from divaeval.errors import UsageError, set_warning_sink
from divaeval.evaluation import load_inputs, run_evaluation, score_runs
from divaeval.metrics import parse_measures
from divaeval.report import ReportOptions, write_report
from divaeval.risk_measures import RISK_COLUMNS, relative_to_baseline
from divaeval.scores import means
from divaeval.settings import Settings

pytestmark = pytest.mark.usefixtures("collected_warnings")

RISK = FIXTURES / "trec2012-risk"
QRELS_2012 = TREC2012 / "qrels-for-ndeval.txt.gz"
BASELINE = "ql-cata"
OTHER_RUNS = tuple(name for name in TREC2012_RUNS if name != BASELINE)
NDEVAL_HEADER = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,"
    "alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,"
    "P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20"
)
NDEVAL_COLUMNS = NDEVAL_HEADER.split(",")[2:]
ORDERS = {"rank": "rank", "trec": "score"}  # oracle file name -> divaeval --order


def oracle_name(alpha: int, order: str, complete: bool = False) -> str:
    return f"a{alpha}{'_c-flag' if complete else ''}_{order}-order"


def bit_equal(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def mismatches(oracle: dict, got: dict) -> list:
    """Oracle keys whose value differs from ``got`` (topic ``amean`` = divaeval's ``all``),
    plus keys only one side has."""
    bad = [
        (key, got.get((key[0], "all" if key[1] == "amean" else key[1], key[2])), value)
        for key, value in oracle.items()
        if not bit_equal(
            got.get((key[0], "all" if key[1] == "amean" else key[1], key[2]), -9.0), value
        )
    ]
    if len(got) != len(oracle):
        bad.append(("row count", len(got), len(oracle)))
    return bad


def values_of(table, strip_label: bool = True) -> dict:
    """(run, topic, measure) -> value of a long table; ndeval's label cut back to the run."""
    return {
        (run.split(" (rel to. ")[0] if strip_label else run, str(topic), measure): float(value)
        for run, topic, measure, value in table.itertuples(index=False, name=None)
    }


def ndeval_csv(evaluation) -> str:
    out = io.StringIO()
    write_report(evaluation, out, ReportOptions(format="ndeval", per_topic=True))
    return out.getvalue()


def oracle_csv(oracle: dict, run: str, label: str) -> str:
    """The text ndeval prints for ``run`` of an oracle (``%.6f``, ``-nan``)."""
    topics = sorted({t for r, t, _ in oracle if r == run and t != "amean"}, key=int)
    lines = [NDEVAL_HEADER]
    for topic in [*topics, "amean"]:
        cells = [oracle[(run, topic, m)] for m in NDEVAL_COLUMNS]
        text = ["-nan" if math.isnan(v) else f"{v:.6f}" for v in cells]
        lines.append(",".join([label, topic, *text]))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# TREC 2012: 8 runs against ql-cata


@pytest.mark.parametrize("order", ["trec"])  # rank order: the CLI byte test and the sweep
def test_trec2012_api_a1(order):
    # the whole API path: 8 runs + --baseline, A typed as "1"
    oracle = read_oracle(RISK / f"ndeval-risk_{oracle_name(1, order)}.tsv.gz")
    table = divaeval.evaluate(
        [str(TREC2012_RUNS[run]) for run in OTHER_RUNS],
        str(QRELS_2012),
        NDEVAL_COLUMNS,
        baseline=str(TREC2012_RUNS[BASELINE]),
        risk_alpha="1",
        order=ORDERS[order],
    ).table()
    # all runs share the tag "indri": runs and baseline are named by their files
    assert set(table["run"]) == {f"{run} (rel to. ql-cata; rs=1+a; a=1)" for run in OTHER_RUNS}
    assert len(oracle) == 8 * 51 * 21
    assert not mismatches(oracle, values_of(table))


@pytest.fixture(scope="module")
def trec2012_scores():
    """order -> (run scores of the 9 runs, measures, qrels topics): one scoring per order."""
    paths = [str(TREC2012_RUNS[run]) for run in (BASELINE, *OTHER_RUNS)]
    previous = set_warning_sink(lambda message: None)
    try:
        runs, index = load_inputs(paths, str(QRELS_2012))
        measures = parse_measures(NDEVAL_COLUMNS)
        scored = {
            order: score_runs(runs, index, measures, Settings(order=setting))
            for order, setting in ORDERS.items()
        }
    finally:
        set_warning_sink(previous)
    return scored, measures, list(index.topics)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("alpha", [0, 1, 5])
@pytest.mark.parametrize("order", list(ORDERS))
def test_trec2012_every_alpha_and_c(trec2012_scores, order, alpha, complete):
    # every run covers the 50 qrels topics, so ndeval prints the same with and without -c
    oracle = read_oracle(RISK / f"ndeval-risk_{oracle_name(alpha, order)}.tsv.gz")
    scored, measures, qrels_topics = trec2012_scores
    baseline, *others = scored[order]
    assert baseline.name == BASELINE
    got = {}
    for run in others:
        relative = relative_to_baseline(
            run, baseline, measures, qrels_topics, alpha=alpha, complete=complete, name=run.name
        )
        assert relative.denominator == 50
        for measure in measures:
            for topic, value in zip(relative.topics, relative.values[measure], strict=True):
                got[(run.name, str(topic), measure.name)] = float(value)
        averaged = means(relative, measures)
        got.update({(run.name, "all", m.name): value for m, value in averaged.items()})
    assert not mismatches(oracle, got)


def test_trec2012_alpha0_is_the_plain_difference(trec2012_scores):
    # A = 0: every risk value is r - b to the last bit
    scored, measures, qrels_topics = trec2012_scores
    baseline, run = scored["rank"][0], scored["rank"][5]
    relative = relative_to_baseline(
        run, baseline, measures, qrels_topics, alpha=0.0, complete=False, name=run.name
    )
    for measure in measures:
        assert np.array_equal(
            relative.values[measure], run.values[measure] - baseline.values[measure]
        )


def test_trec2012_printed_csv_byte_for_byte(tmp_path):
    # ndeval -baseline ql-cata.txt -riskAlpha 1 qrels-for-ndeval.txt rm-cata.txt, as printed;
    # one run, so both keep their tag "indri", as ndeval names them
    with gzip.open(RISK / "ndeval-printed_rm-cata_a1_rank-order.csv.gz", "rt") as handle:
        expected = handle.read()
    evaluation = run_evaluation(
        [str(TREC2012 / "rm-cata.txt.gz")],
        str(QRELS_2012),
        ["ndeval"],
        settings=Settings(order="rank"),
        baseline=str(TREC2012 / "ql-cata.txt.gz"),
        risk_alpha="1",
    )
    assert expected.splitlines()[1].startswith("indri (rel to. indri; rs=1+a; a=1),151,0.030257,")
    assert ndeval_csv(evaluation) == expected


# ---------------------------------------------------------------------------------------------
# gaps: missing topics on both sides, a run-only topic, and ndeval's max() denominator


@pytest.fixture(scope="module")
def gaps_files(tmp_path_factory):
    """The derived runs of ORACLES-README §9.11 (the awk filters, in Python)."""
    directory = tmp_path_factory.mktemp("gaps")

    def derive(source: str, target: str, keep, rename=None) -> str:
        lines = []
        with gzip.open(TREC2012 / f"{source}.txt.gz", "rt") as handle:
            for line in handle:
                fields = line.split()
                topic = int(fields[0])
                if keep(topic):
                    if rename and topic in rename:
                        fields[0] = str(rename[topic])
                    lines.append(" ".join(fields) + "\n")
        path = directory / target
        path.write_text("".join(lines))
        return str(path)

    run = derive("rm-cata", "rm-cata-gaps.txt", lambda t: t <= 195, rename={195: 201})
    baseline = derive("ql-cata", "ql-cata-gaps.txt", lambda t: t > 155 and t != 200)
    return run, baseline


@pytest.fixture(scope="module")
def gaps_scores(gaps_files):
    run_path, baseline_path = gaps_files
    previous = set_warning_sink(lambda message: None)
    try:
        runs, index = load_inputs([run_path, baseline_path], str(QRELS_2012))
        measures = parse_measures(NDEVAL_COLUMNS)
        scored = {
            (order, complete): score_runs(
                runs, index, measures, Settings(order=setting, complete=complete)
            )
            for order, setting in ORDERS.items()
            for complete in (False, True)
        }
    finally:
        set_warning_sink(previous)
    return scored, measures, list(index.topics)


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("alpha", [0, 1, 5])
@pytest.mark.parametrize("order", list(ORDERS))
def test_gaps_every_alpha_and_c(gaps_scores, order, alpha, complete):
    oracle = read_oracle(
        RISK / "gaps" / f"ndeval-risk_{oracle_name(alpha, order, complete)}.tsv.gz"
    )
    scored, measures, qrels_topics = gaps_scores
    run, baseline = scored[(order, complete)]
    relative = relative_to_baseline(
        run, baseline, measures, qrels_topics, alpha=alpha, complete=complete, name="rm-cata-gaps"
    )
    # without -c: run topics 151-194 and 201 (no qrels), / 45 rows; with -c: the union of
    # run and baseline topics, 151-199 and 201, / max(50 qrels topics, 50 rows) = 50
    expected_rows = [*range(151, 195), 201] if not complete else [*range(151, 200), 201]
    assert [int(t) for t in relative.topics] == expected_rows
    assert relative.denominator == (45 if not complete else 50)
    got = {
        ("rm-cata-gaps", str(t), m.name): float(v)
        for m in measures
        for t, v in zip(relative.topics, relative.values[m], strict=True)
    }
    averaged = means(relative, measures)
    got.update({("rm-cata-gaps", "all", m.name): v for m, v in averaged.items()})
    assert not mismatches(oracle, got)


@pytest.mark.parametrize(
    ("alpha", "complete", "order"), [("5", True, "trec"), ("0", False, "rank")]
)
def test_gaps_api(gaps_files, alpha, complete, order):
    run_path, baseline_path = gaps_files
    oracle = read_oracle(
        RISK / "gaps" / f"ndeval-risk_{oracle_name(int(alpha), order, complete)}.tsv.gz"
    )
    evaluation = run_evaluation(
        [run_path],
        str(QRELS_2012),
        ["ndeval"],
        settings=Settings(order=ORDERS[order], complete=complete),
        baseline=baseline_path,
        risk_alpha=alpha,
    )
    got = {
        ("rm-cata-gaps", topic, measure): value
        for (_, topic, measure), value in values_of(evaluation.table()).items()
    }
    assert not mismatches(oracle, got)
    label = f"indri (rel to. indri; rs=1+a; a={alpha})"
    assert ndeval_csv(evaluation) == oracle_csv(oracle, "rm-cata-gaps", label)
    if complete:
        with gzip.open(RISK / "gaps" / "ndeval-printed_a5_c-flag_trec-order.csv.gz", "rt") as f:
            assert ndeval_csv(evaluation) == f.read()


def test_gaps_warns_that_run_only_topics_count(gaps_files, collected_warnings):
    run_path, baseline_path = gaps_files
    run_evaluation([run_path], str(QRELS_2012), ["strec@5"], baseline=baseline_path)
    assert any(
        "1 topics are not in the qrels" in w and "count as 0" in w for w in collected_warnings
    )


# ---------------------------------------------------------------------------------------------
# small cases: both directions, every setting, values and printed CSV


SMALL_CASES = {
    # directory: (qrels, {run name: (run file, baseline file, ndeval label stem)})
    "ndeval_ex": (
        "qrels.div.txt",
        {
            "runB": ("runB.txt", "runA.txt", "runB (rel to. runA"),
            "runA": ("runA.txt", "runB.txt", "runA (rel to. runB"),
        },
    ),
    "edge": (
        "edge.qrels",
        {
            "edge_run1": ("edge_run1.txt", "edge_run2.txt", "E1 (rel to. E2"),
            "edge_run2": ("edge_run2.txt", "edge_run1.txt", "E2 (rel to. E1"),
        },
    ),
}


def _small_files():
    for directory in SMALL_CASES:
        for path in sorted((FIXTURES / "small" / directory).glob("risk_*.tsv")):
            yield pytest.param(directory, path.name, id=f"{directory}/{path.name}")


@pytest.mark.parametrize(("directory", "file_name"), list(_small_files()))
def test_small_oracles(directory, file_name):
    folder = FIXTURES / "small" / directory
    oracle = read_oracle(folder / file_name)
    alpha = file_name.split("_")[1][1:]
    complete = "c-flag" in file_name
    order = "rank" if "rank-order" in file_name else "score"
    qrels, runs = SMALL_CASES[directory]
    for name, (run_file, baseline_file, label) in runs.items():
        evaluation = run_evaluation(
            [str(folder / run_file)],
            str(folder / qrels),
            ["ndeval"],
            settings=Settings(order=order, complete=complete, compat="ndeval"),
            baseline=str(folder / baseline_file),
            risk_alpha=alpha,
        )
        part = {k: v for k, v in oracle.items() if k[0] == name}
        got = {(name, t, m): v for (_, t, m), v in values_of(evaluation.table()).items()}
        assert not mismatches(part, got), (name, file_name)
        text = oracle_csv(oracle, name, f"{label}; rs=1+a; a={alpha})")
        assert ndeval_csv(evaluation) == text


def test_small_files_are_all_there():
    assert len(list(_small_files())) == 16


def test_small_worked_values():
    # ndeval.md §10.5: runB against runA, A = 1, default order: topic 1
    # ERR-IA@5 = 2·(0.514372 − 0.609178) = −0.189612; MAP-IA = 0.666667 − 0.594444 = +0.072222
    # (gains are not scaled); rows 1, 2, 4 (4 is run-only: 0 − 0); denominator 3
    folder = FIXTURES / "small" / "ndeval_ex"
    table = divaeval.evaluate(
        [str(folder / "runB.txt")],
        str(folder / "qrels.div.txt"),
        ["ERR-IA@5", "MAP-IA"],
        baseline=str(folder / "runA.txt"),
        risk_alpha=1,
        order="rank",
    ).table()
    got = values_of(table)
    assert got[("runB", "1", "ERR-IA@5")] == pytest.approx(-0.189612, abs=1e-6)
    assert got[("runB", "1", "MAP-IA")] == pytest.approx(0.072222, abs=1e-6)
    assert got[("runB", "4", "ERR-IA@5")] == 0.0
    rows = [got[("runB", t, "ERR-IA@5")] for t in ("1", "2", "4")]
    assert got[("runB", "all", "ERR-IA@5")] == (rows[0] + rows[1] + rows[2]) / 3
    assert set(table["run"]) == {"runB (rel to. runA; rs=1+a; a=1)"}


# ---------------------------------------------------------------------------------------------
# API behaviour around the mode


def test_baseline_that_is_one_of_the_runs_is_reused():
    # the same file as a run: its scores are reused, and the result equals reading it anew
    runs = [str(TREC2012_RUNS[run]) for run in ("ql-cata", "rm-cata")]
    copy_result = divaeval.evaluate(
        runs, str(QRELS_2012), ["alpha-nDCG@20"], baseline=runs[0]
    ).table()
    values = values_of(copy_result)
    assert all(v == 0.0 for (r, _, _), v in values.items() if r == "ql-cata")
    assert any(v < 0 for (r, _, _), v in values.items() if r == "rm-cata")


def test_baseline_copy_gives_the_same_values(tmp_path):
    shutil.copy(TREC2012 / "ql-cata.txt.gz", tmp_path / "base.txt.gz")
    runs = [str(TREC2012_RUNS[run]) for run in ("ql-cata", "rm-cata")]
    reused = divaeval.evaluate(runs, str(QRELS_2012), ["NRBP"], baseline=runs[0], order="rank")
    fresh = divaeval.evaluate(
        runs, str(QRELS_2012), ["NRBP"], baseline=str(tmp_path / "base.txt.gz"), order="rank"
    )
    reused, fresh = reused.table(), fresh.table()
    assert values_of(fresh) == values_of(reused)
    # renamed runs: the baseline shares their tag, so it is named by its file too
    assert set(fresh["run"]) == {
        "ql-cata (rel to. base; rs=1+a; a=0)",
        "rm-cata (rel to. base; rs=1+a; a=0)",
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"risk_alpha": 1}, "--risk-alpha needs --baseline"),
        ({"baseline": "B", "risk_alpha": -1}, "risk alpha must be a finite number >= 0"),
        ({"baseline": "B", "risk_alpha": "1x"}, "risk alpha must be a number >= 0"),
        ({"baseline": "B", "risk_alpha": "nan"}, "risk alpha must be a finite number >= 0"),
        ({"baseline": "B", "mean": "geom"}, "--mean geom cannot average risk values"),
        ({"baseline": "B", "mean": "dd"}, "--mean dd cannot average risk values"),
    ],
)
def test_usage_errors(kwargs, message):
    folder = FIXTURES / "small" / "ndeval_ex"
    if kwargs.get("baseline") == "B":
        kwargs = {**kwargs, "baseline": str(folder / "runA.txt")}
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        divaeval.evaluate([str(folder / "runB.txt")], str(folder / "qrels.div.txt"), **kwargs)


def test_trec_eval_num_q_is_the_risk_denominator():
    # ndeval's -c rule on the small case: rows 1-4, denominator max(3 qrels topics, 4 rows) = 4
    folder = FIXTURES / "small" / "ndeval_ex"
    evaluation = run_evaluation(
        [str(folder / "runB.txt")],
        str(folder / "qrels.div.txt"),
        ["strec@5"],
        settings=Settings(order="rank", complete=True),
        baseline=str(folder / "runA.txt"),
    )
    out = io.StringIO()
    write_report(evaluation, out, ReportOptions(format="trec_eval", per_topic=True))
    lines = out.getvalue().splitlines()
    assert [line.split("\t")[1] for line in lines if line.startswith("strec@5")] == [
        "1",
        "2",
        "3",
        "4",
        "all",
    ]
    assert "num_q                 \tall\t4" in lines
    assert "runid                 \tall\trunB (rel to. runA; rs=1+a; a=0)" in lines


# ---------------------------------------------------------------------------------------------
# divaeval.risk(): URisk, TRisk, ZRisk, GeoRisk of real runs


def test_risk_api_agrees_with_ndeval_and_the_t_test():
    # every run covers all 50 qrels topics, so URisk is ndeval's risk amean to the last bit and
    # TRisk is the one-sample t test of ndeval's per-topic risk values
    import scipy.stats

    oracle = read_oracle(RISK / f"ndeval-risk_{oracle_name(1, 'trec')}.tsv.gz")
    runs = ["rm-cata", "ql-catb", "dssa-wt2012"]
    frame = divaeval.risk(
        [str(TREC2012_RUNS[run]) for run in runs],
        str(QRELS_2012),
        ["alpha-nDCG@20", "MAP-IA"],
        baseline=str(TREC2012 / "ql-cata.txt.gz"),
        risk_alpha=1,
    ).frame
    assert list(frame.columns) == ["measure", *RISK_COLUMNS]
    assert sorted(set(frame["run"])) == sorted(runs)  # the baseline's own row left out
    for row in frame.to_dict("records"):
        assert row["URisk"] == oracle[(row["run"], "amean", row["measure"])]
        per_topic = [oracle[(row["run"], str(t), row["measure"])] for t in range(151, 201)]
        reference = scipy.stats.ttest_1samp(per_topic, 0.0)
        assert row["TRisk"] == pytest.approx(reference.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
        assert row["wins"] == sum(v > 0 for v in per_topic)
        assert row["losses"] == sum(v < 0 for v in per_topic)
    # ZRisk and GeoRisk are against all four runs: the same whatever order they come in
    reordered = divaeval.risk(
        [str(TREC2012_RUNS[run]) for run in reversed(runs)],
        str(QRELS_2012),
        ["alpha-nDCG@20", "MAP-IA"],
        baseline=str(TREC2012 / "ql-cata.txt.gz"),
        risk_alpha=1,
    ).frame
    key = ["measure", "run"]
    first = frame.sort_values(key).reset_index(drop=True)
    second = reordered.sort_values(key).reset_index(drop=True)
    for column in ("ZRisk", "GeoRisk", "URisk", "TRisk"):
        assert second[column].to_numpy() == pytest.approx(first[column].to_numpy(), rel=1e-12)


def test_risk_api_without_baseline_and_with_negative_scores(collected_warnings):
    folder = FIXTURES / "small" / "ndeval_ex"
    frame = divaeval.risk(
        [str(folder / "runA.txt"), str(folder / "runB.txt")],
        str(folder / "qrels.div.txt"),
        ["alpha-nDCG@5"],
    ).frame
    assert list(frame.columns) == ["measure", "run", "mean", "ZRisk", "GeoRisk"]
    # RBU's cost makes a run that finds nothing score below 0
    frame = divaeval.risk(
        [str(folder / "runA.txt"), str(folder / "runB.txt")],
        str(folder / "qrels.div.txt"),
        ["RBU(e=0.5)@5"],
        baseline=str(folder / "runA.txt"),
    ).frame
    assert frame["ZRisk"].isna().all() and frame["URisk"].notna().all()
    assert any("negative values" in w for w in collected_warnings)


# ---------------------------------------------------------------------------------------------
# the command line: divaeval RUN... QRELS --baseline BASE --risk-alpha A, and divaeval risk


def test_cli_prints_ndevals_csv_byte_for_byte(capsys, gaps_files):
    with gzip.open(RISK / "ndeval-printed_rm-cata_a1_rank-order.csv.gz", "rt") as handle:
        expected = handle.read()
    args = [TREC2012_RUNS["rm-cata"], QRELS_2012, "--baseline", TREC2012_RUNS["ql-cata"]]
    code, out, err = run_cli(capsys, *args, "--risk-alpha", "1", "--order", "rank", "-f", "ndeval")
    assert (code, out) == (0, expected), err
    # --compat ndeval defaults to the rank order
    code, out, _ = run_cli(capsys, *args, "--risk-alpha", "1", "--compat", "ndeval", "-f", "ndeval")
    assert (code, out) == (0, expected)
    run_path, baseline_path = gaps_files
    with gzip.open(RISK / "gaps" / "ndeval-printed_a5_c-flag_trec-order.csv.gz", "rt") as handle:
        expected = handle.read()
    code, out, err = run_cli(
        capsys,
        run_path,
        QRELS_2012,
        "--baseline",
        baseline_path,
        "--risk-alpha",
        "5",
        "-c",
        "-f",
        "ndeval",
    )
    assert (code, out) == (0, expected), err


@pytest.mark.parametrize(
    "fmt", ["trec_eval", "ndeval", "ntcir", "csv", "tsv", "jsonl", "json", "table"]
)
def test_cli_every_format(capsys, fmt):
    # runB against runA, A = 1, rank order: every format prints the risk values and mean
    folder = FIXTURES / "small" / "ndeval_ex"
    oracle = read_oracle(folder / "risk_a1_rank-order.tsv")
    code, out, err = run_cli(
        capsys,
        folder / "runB.txt",
        folder / "qrels.div.txt",
        "--baseline",
        folder / "runA.txt",
        "--risk-alpha",
        "1",
        "--order",
        "rank",
        "-m",
        "ERR-IA@5",
        "-q",
        "-f",
        fmt,
        "--precision",
        "6",
    )
    assert code == 0, err
    assert f"{oracle[('runB', '1', 'ERR-IA@5')]:.6f}" == "-0.189612"
    for topic in ("1", "2", "amean"):  # topic 4 (no qrels) is a row of 0 − 0
        assert f"{oracle[('runB', topic, 'ERR-IA@5')]:.6f}" in out, (fmt, topic)
    if fmt not in ("trec_eval", "ntcir", "table"):  # these do not print the name per row
        assert "runB (rel to. runA; rs=1+a; a=1)" in out
    if fmt == "trec_eval":
        assert "num_q                 \tall\t3\n" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--risk-alpha", "1"],
            "divaeval: --risk-alpha needs --baseline (the run to compare against)\n",
        ),
        (
            ["--baseline", "B", "--risk-alpha", "-1"],
            "divaeval: risk alpha must be a finite number >= 0, not '-1'\n",
        ),
        (
            ["--baseline", "B", "--risk-alpha", "x"],
            "divaeval: risk alpha must be a number >= 0, not 'x'\n",
        ),
        (
            ["--baseline", "B", "--mean", "geom"],
            "divaeval: --mean geom cannot average risk values (they are differences); use --mean "
            "arith with --baseline\n",
        ),
    ],
)
def test_cli_usage_errors(capsys, extra, message):
    folder = FIXTURES / "small" / "ndeval_ex"
    extra = [str(folder / "runA.txt") if e == "B" else e for e in extra]
    code, out, err = run_cli(capsys, folder / "runB.txt", folder / "qrels.div.txt", *extra)
    assert (code, out, err) == (2, "", message)


def test_cli_signature_names_the_baseline(capsys):
    folder = FIXTURES / "small" / "ndeval_ex"
    code, _, err = run_cli(
        capsys,
        folder / "runB.txt",
        folder / "qrels.div.txt",
        "--baseline",
        folder / "runA.txt",
        "--risk-alpha",
        "0.50",
        "--signature",
        "-m",
        "strec@5",
    )
    assert code == 0
    assert "|baseline=runA|risk_alpha=0.50|mean=arith|measures=strec@5" in err


def test_cli_risk_command(capsys):
    runs = [TREC2012_RUNS[name] for name in ("rm-cata", "ql-catb")]
    args = [*runs, QRELS_2012, "-m", "alpha-nDCG@20", "-m", "MAP-IA", "-f", "jsonl"]
    code, out, err = run_cli(
        capsys,
        "risk",
        *args,
        "--baseline",
        TREC2012_RUNS["ql-cata"],
        "--risk-alpha",
        "5",
        "--signature",
    )
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    frame = divaeval.risk(
        [str(r) for r in runs],
        str(QRELS_2012),
        ["alpha-nDCG@20", "MAP-IA"],
        baseline=str(TREC2012_RUNS["ql-cata"]),
        risk_alpha=5,
    ).frame
    assert rows == frame.to_dict("records")
    assert [r["run"] for r in rows[:2]] == ["rm-cata", "ql-catb"]
    assert "ql-cata" not in {r["run"] for r in rows}  # the baseline's own row left out
    assert "baseline=ql-cata|risk_alpha=5|" in err  # --signature: on stderr for jsonl
    # URisk at A = 5 is ndeval's amean with -riskAlpha 5
    oracle = read_oracle(RISK / f"ndeval-risk_{oracle_name(5, 'trec')}.tsv.gz")
    assert rows[0]["URisk"] == oracle[("rm-cata", "amean", rows[0]["measure"])]
    # without a baseline only ZRisk and GeoRisk
    code, out, _ = run_cli(capsys, "risk", *args)
    assert code == 0
    assert set(json.loads(out.splitlines()[0])) == {"measure", "run", "mean", "ZRisk", "GeoRisk"}


def test_metrics_lists_the_risk_measures_with_their_papers(capsys):
    code, out, _ = run_cli(capsys, "metrics", "--long")
    assert code == 0
    section = out.split("[risk-sensitive comparison", 1)[1].split("\n[", 1)[0]
    for name in ("URisk", "TRisk", "ZRisk", "GeoRisk"):
        assert f"\n  {name}\n" in section
    assert "SIGIR 2014" in section and "SIGIR 2016" in section and "ndeval 4.5" in section
    code, short, _ = run_cli(capsys, "metrics")  # one line each by default
    section = short.split("[risk-sensitive comparison", 1)[1].split("\n[", 1)[0]
    assert all(f"\n  {name} " in section for name in ("URisk", "TRisk", "ZRisk", "GeoRisk"))


def test_measures_with_their_own_summary_take_ndevals_mean_as_risk_values(capsys):
    # NumRet is summed and gm_map geometric in a plain evaluation; risk values are differences,
    # averaged as ndeval averages every column. runB against runA, A = 0.5: NumRet per topic
    # 1: 1.5·(4 − 6) = −3, 2: 1.5·(3 − 4) = −1.5, 4: 0 − 0 = 0 (no qrels); mean −4.5/3 = −1.5
    folder = FIXTURES / "small" / "ndeval_ex"
    args = [folder / "runB.txt", folder / "qrels.div.txt", "--baseline", folder / "runA.txt"]
    code, out, err = run_cli(
        capsys, *args, "--risk-alpha", "0.5", "-m", "NumRet", "-m", "gm_map", "-q"
    )
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    num_ret = {topic: value for name, topic, value in rows if name.strip() == "NumRet"}
    assert num_ret == {"1": "-3.0000", "2": "-1.5000", "4": "0.0000", "all": "-1.5000"}
    gm_map = {topic: float(v) for name, topic, v in rows if name.strip() == "gm_map"}
    assert gm_map["all"] == pytest.approx((gm_map["1"] + gm_map["2"] + gm_map["4"]) / 3, abs=1e-4)


def test_cli_missing_baseline_is_one_line_before_any_work(capsys, tmp_path):
    folder = FIXTURES / "small" / "ndeval_ex"
    missing = tmp_path / "none.txt"
    code, out, err = run_cli(
        capsys, folder / "runB.txt", folder / "qrels.div.txt", "--baseline", missing
    )
    assert (code, out, err) == (1, "", f"divaeval: {missing}: cannot open run file: no such file\n")
    # stdin may be one input only: here the baseline and the qrels (the last file)
    code, _, err = run_cli(
        capsys, folder / "runB.txt", folder / "qrels.div.txt", "--baseline", "-", "-"
    )
    assert code == 2 and "divaeval: only one input can be '-' (stdin)" in err
