"""The ndeval family against ndeval 4.5: hand-worked examples and every oracle file.

Sources: reference/ndeval.md §10 (worked example, confirmed CLI output) and the oracle TSVs
copied into tests/fixtures (see tests/fixtures/ORACLES-README.md §4, §9). Oracle file naming:

- ``*_trec-order*`` = ``order="score"`` (trec_eval / ``ndeval -traditional``), ``*_rank-order*``
  = ``order="rank"`` (ndeval's default);
- ``*_a0.9_b0.8_*`` = ``alpha=0.9, beta=0.8`` on every measure that takes them;
- ``*_c-flag_*`` = ``complete=True`` (``ndeval -c``);
- ``quirk_ndeval_at1_unnormalised_*`` = ``compat="ndeval"`` (raw ERR-IA@1 and alpha-DCG@1);
- the S = 0 NaN of nNRBP (small/edge topic 2) also needs ``compat="ndeval"``; natively it is 0.

Tolerance: abs <= 1e-9, NaN == NaN (ORACLES-README §10); printed output byte for byte.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from support import FIXTURES, TREC2012, TREC2012_RUNS, read_oracle

import divaeval
from divaeval.cli import main
from divaeval.errors import set_warning_sink
from divaeval.metrics import get_spec

SMALL = FIXTURES / "small"
TOL = 1e-9

NDEVAL_HEADER = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,"
    "alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,"
    "P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20"
)
NDEVAL_COLUMNS = NDEVAL_HEADER.split(",")[2:]

# Small cases: directory -> (qrels file, {oracle run name: run file}).
SMALL_CASES = {
    "ndeval_ex": ("qrels.div.txt", {"runA": "runA.txt", "runB": "runB.txt"}),
    "ref_ex": ("div.qrels", {"runA": "runA", "runB": "runB", "runC": "runC"}),
    "edge": ("edge.qrels", {"edge_run1": "edge_run1.txt", "edge_run2": "edge_run2.txt"}),
}


# ---------------------------------------------------------------------------------------------
# helpers


pytestmark = pytest.mark.usefixtures("collected_warnings")


def oracle_measures(oracle) -> list[str]:
    """Measure names of an oracle file, in first-seen order."""
    return list(dict.fromkeys(measure for _, _, measure in oracle))


def with_params(measure: str, params: dict[str, float]) -> str:
    """``alpha-nDCG@5`` + {alpha: 0.9} -> ``alpha-nDCG(alpha=0.9)@5`` (only the parameters the
    metric takes)."""
    base, at, cutoff = measure.partition("@")
    spec = get_spec(base)
    given = [f"{name}={value}" for name, value in params.items() if spec.param(name)]
    return base + (f"({','.join(given)})" if given else "") + at + cutoff


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL


def evaluate_values(runs, qrels, measures, **settings) -> dict[tuple[str, str, str], float]:
    """(run, topic, measure) -> value from :func:`divaeval.evaluate`, ``all`` for the mean."""
    table = divaeval.evaluate([str(r) for r in runs], str(qrels), measures, **settings).table()
    return {
        (run, str(topic), measure): float(value)
        for run, topic, measure, value in table.itertuples(index=False, name=None)
    }


def settings_of(file_name: str) -> tuple[dict, dict]:
    """(Settings fields, metric parameters) encoded in an oracle file name."""
    settings = {"order": "rank" if "rank-order" in file_name else "score"}
    if "c-flag" in file_name:
        settings["complete"] = True
    params = {"alpha": 0.9, "beta": 0.8} if "_a0.9_b0.8_" in file_name else {}
    return settings, params


def compare_to_oracle(
    oracle,
    directory: Path,
    qrels: str,
    runs: dict[str, str],
    settings,
    params,
    *,
    compat: str | None,
) -> None:
    """Every oracle value is reproduced; run-only topics (no qrels) are oracle rows of 0."""
    names = oracle_measures(oracle)
    requested = {with_params(m, params): m for m in names}
    mismatches = []
    for run_name, run_file in runs.items():
        got = evaluate_values(
            [directory / run_file], directory / qrels, list(requested), compat=compat, **settings
        )
        got = {(t, requested[m]): v for (_, t, m), v in got.items()}
        got_topics = {t for t, _ in got}
        for (o_run, topic, measure), expected in oracle.items():
            if o_run != run_name:
                continue
            key = ("all" if topic == "amean" else topic, measure)
            if key[0] not in got_topics:
                # ndeval prints run-only topics as zeros; divaeval does not evaluate them
                assert expected == 0.0, (run_name, topic, measure)
                continue
            value = got[key]
            if not same(value, expected):
                mismatches.append((run_name, topic, measure, value, expected))
        # divaeval's extra rows: only -c's missing qrels topics, which count as 0
        oracle_topics = {("all" if t == "amean" else t) for r, t, _ in oracle if r == run_name}
        for topic in got_topics - oracle_topics - {"all"}:
            assert settings.get("complete"), (run_name, topic)
            assert all(v == 0.0 for (t, _), v in got.items() if t == topic)
    assert not mismatches, mismatches[:10]


def ndeval_text(oracle, run_name: str, runid: str, columns, topics: list[str]) -> str:
    """The CSV ndeval 4.5 prints for ``run_name`` of an oracle file (%.6f, -nan)."""

    def fmt(value: float) -> str:
        return "-nan" if math.isnan(value) else f"{value:.6f}"

    lines = []
    for topic in [*topics, "amean"]:
        values = [fmt(oracle[(run_name, topic, m)]) for m in columns]
        lines.append(",".join([runid, topic, *values]))
    return "\n".join(lines) + "\n"


def oracle_topics(oracle, run_name: str) -> list[str]:
    topics = {t for r, t, _ in oracle if r == run_name and t != "amean"}
    return sorted(topics, key=int)


def cli(capsys, args: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# §10.2: topic 1 of run A, alpha = beta = 0.5, rank order, worked by hand

EX = SMALL / "ndeval_ex"


@pytest.fixture(scope="module")
def run_a_topic1():
    """runA topic 1 in rank order: d2 d9 d1 d4 d3 d5 (qrels.div.txt, reference/ndeval.md §10)."""
    measures = [
        "ndeval",
        "ERR-IA@1",
        "alpha-DCG@1",
        "nERR-IA@1",
        "alpha-nDCG@1",
        "P-IA@1",
        "strec@1",
    ]
    previous = set_warning_sink(lambda message: None)
    try:
        values = evaluate_values([EX / "runA.txt"], EX / "qrels.div.txt", measures, order="rank")
    finally:
        set_warning_sink(previous)
    return {m: v for (_, t, m), v in values.items() if t == "1"}


L2 = math.log(2.0)


def disc(r: int) -> float:
    """1/log2(r+1), as ndeval computes it."""
    return L2 / math.log(r + 1.0)


# Subtopics: 1 = {d1, d2} (d2's grade 2 clamps to 1), 2 = {d2, d3}, 3 = {d4}; S = 3.
# Run gains (α = .5): d2 covers 1 and 2 first -> 2; d9 unjudged -> 0; d1 repeats 1 -> .5;
# d4 first for 3 -> 1; d3 repeats 2 -> .5; d5 judged 0 -> 0.
RUN_GAINS = [2.0, 0.0, 0.5, 1.0, 0.5, 0.0]
# Greedy ideal: d2 (2); then d1 .5, d3 .5, d4 1 -> d4; then d1/d3 tie at .5 -> d3 ("d3" > "d1");
# then d1 (.5); d6 and d5 are zero-judged.
IDEAL_GAINS = [2.0, 1.0, 0.5, 0.5, 0.0, 0.0]


def test_worked_alpha_ndcg_at5(run_a_topic1):
    # DCG_5 = 2 + 0 + .5·.5 + 1·.4306766 + .5·.3868528 = 2.874103
    # DCG*_5 = 2 + 1·.6309298 + .5·.5 + .5·.4306766 = 3.096268
    dcg = sum(g * disc(r) for r, g in enumerate(RUN_GAINS[:5], 1))
    ideal = sum(g * disc(r) for r, g in enumerate(IDEAL_GAINS[:5], 1))
    assert dcg == pytest.approx(2.874103, abs=1e-6)
    assert ideal == pytest.approx(3.096268, abs=1e-6)
    assert run_a_topic1["alpha-nDCG@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert run_a_topic1["alpha-nDCG@5"] == pytest.approx(0.9282474680558104, abs=1e-12)
    assert f"{run_a_topic1['alpha-nDCG@5']:.6f}" == "0.928247"


def test_worked_nrbp(run_a_topic1):
    # NRBP = ((1 − .5·.5)/3)·(2·1 + 0·.5 + .5·.25 + 1·.125 + .5·.0625 + 0·.03125)
    #      = .25·2.28125 = 0.5703125 (exact in binary), printed 0.570312 (ties to even)
    assert run_a_topic1["NRBP"] == 0.5703125
    assert f"{run_a_topic1['NRBP']:.6f}" == "0.570312"
    # NRBP* = .25·(2 + 1·.5 + .5·.25 + .5·.125) = .25·2.6875 = 0.671875
    assert run_a_topic1["nNRBP"] == pytest.approx(0.5703125 / 0.671875, abs=1e-15)
    assert f"{run_a_topic1['nNRBP']:.6f}" == "0.848837"


def test_worked_err_ia(run_a_topic1):
    # E_5 = 2/1 + 0/2 + .5/3 + 1/4 + .5/5 = 2.516667; E*_5 = 2 + 1/2 + .5/3 + .5/4 = 2.791667
    e5 = 2 + 0.5 / 3 + 1 / 4 + 0.5 / 5
    e5_ideal = 2 + 1 / 2 + 0.5 / 3 + 0.5 / 4
    assert run_a_topic1["nERR-IA@5"] == pytest.approx(e5 / e5_ideal, abs=1e-12)
    assert f"{run_a_topic1['nERR-IA@5']:.6f}" == "0.901493"
    # II_E(5) = 3·(1 + .5/2 + .25/3 + .125/4 + .0625/5) = 4.131250
    ii_e5 = 3 * (1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4 + 0.0625 / 5)
    assert ii_e5 == pytest.approx(4.131250, abs=1e-6)
    assert run_a_topic1["ERR-IA@5"] == pytest.approx(e5 / ii_e5, abs=1e-12)
    assert f"{run_a_topic1['ERR-IA@5']:.6f}" == "0.609178"
    # II_E(10) = 4.158389 > II_E(5) while E_10 = E_5: ERR-IA@10 = 0.605202 < ERR-IA@5
    ii_e10 = 3 * sum(0.5 ** (r - 1) / r for r in range(1, 11))
    assert run_a_topic1["ERR-IA@10"] == pytest.approx(e5 / ii_e10, abs=1e-12)
    assert f"{run_a_topic1['ERR-IA@10']:.6f}" == "0.605202"
    assert run_a_topic1["ERR-IA@10"] < run_a_topic1["ERR-IA@5"]


def test_worked_alpha_dcg(run_a_topic1):
    # II_D(5) = 3·(1 + .5·.6309298 + .25·.5 + .125·.4306766 + .0625·.3868528) = 4.555434
    ii_d5 = 3 * sum(0.5 ** (r - 1) * disc(r) for r in range(1, 6))
    assert ii_d5 == pytest.approx(4.555434, abs=1e-6)
    dcg = sum(g * disc(r) for r, g in enumerate(RUN_GAINS[:5], 1))
    assert run_a_topic1["alpha-DCG@5"] == pytest.approx(dcg / ii_d5, abs=1e-12)
    assert f"{run_a_topic1['alpha-DCG@5']:.6f}" == "0.630918"


def test_worked_map_ia(run_a_topic1):
    # AP_1 = (1/1 + 2/3)/2 (d2 at 1, d1 at 3); AP_2 = (1/1 + 2/5)/2 (d2 at 1, d3 at 5);
    # AP_3 = (1/4)/1 (d4 at 4); MAP-IA = (.833333 + .7 + .25)/3 = 0.594444
    expected = ((1 + 2 / 3) / 2 + (1 + 2 / 5) / 2 + 1 / 4) / 3
    assert run_a_topic1["MAP-IA"] == pytest.approx(expected, abs=1e-12)
    assert f"{run_a_topic1['MAP-IA']:.6f}" == "0.594444"


def test_worked_p_ia_and_strec(run_a_topic1):
    # relevant (doc, subtopic) pairs in the top 5: d2 2, d9 0, d1 1, d4 1, d3 1 = 5
    # P-IA@k always divides by k·S: 5/15, 5/30, 5/60
    assert run_a_topic1["P-IA@5"] == pytest.approx(5 / 15, abs=1e-15)
    assert run_a_topic1["P-IA@10"] == pytest.approx(5 / 30, abs=1e-15)
    assert run_a_topic1["P-IA@20"] == pytest.approx(5 / 60, abs=1e-15)
    # all three subtopics are covered by rank 4
    assert run_a_topic1["strec@5"] == run_a_topic1["strec@10"] == run_a_topic1["strec@20"] == 1


def test_worked_at_one_native(run_a_topic1):
    # divaeval normalises @1 like every other cutoff: g(1)/II(1) = 2/(3·1) for both
    assert run_a_topic1["ERR-IA@1"] == pytest.approx(2 / 3, abs=1e-15)
    assert run_a_topic1["alpha-DCG@1"] == pytest.approx(2 / 3, abs=1e-15)
    # the ideal starts with d2 too: 1
    assert run_a_topic1["nERR-IA@1"] == 1.0
    assert run_a_topic1["alpha-nDCG@1"] == 1.0
    # P-IA@1 = 2/(1·3); strec@1 = 2/3
    assert run_a_topic1["P-IA@1"] == pytest.approx(2 / 3, abs=1e-15)
    assert run_a_topic1["strec@1"] == pytest.approx(2 / 3, abs=1e-15)


def test_worked_at_one_compat():
    # ndeval skips the normalisation at index 0: ERR-IA@1 = alpha-DCG@1 = g(1) = 2 (§10.6)
    values = evaluate_values(
        [EX / "runA.txt"],
        EX / "qrels.div.txt",
        ["ERR-IA@1", "alpha-DCG@1", "nERR-IA@1"],
        order="rank",
        compat="ndeval",
    )
    assert values[("runA", "1", "ERR-IA@1")] == 2.0
    assert values[("runA", "1", "alpha-DCG@1")] == 2.0
    assert values[("runA", "1", "nERR-IA@1")] == 1.0


# ---------------------------------------------------------------------------------------------
# §10.3: the full CLI output and the confirmed variants

CLI_OUTPUT_RUN_A = """\
runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20
runA,1,0.609178,0.605202,0.605130,0.901493,0.901493,0.901493,0.630918,0.622495,0.622281,0.928247,0.928247,0.928247,0.570312,0.848837,0.594444,0.333333,0.166667,0.083333,1.000000,1.000000,1.000000
runA,2,0.645487,0.641274,0.641198,0.955224,0.955224,0.955224,0.632416,0.623974,0.623759,0.930452,0.930452,0.930452,0.656250,0.976744,0.694444,0.266667,0.133333,0.066667,1.000000,1.000000,1.000000
runA,3,0.877458,0.871732,0.871628,1.000000,1.000000,1.000000,0.844749,0.833472,0.833186,1.000000,1.000000,1.000000,0.890625,1.000000,0.916667,0.400000,0.200000,0.100000,1.000000,1.000000,1.000000
runA,amean,0.710708,0.706069,0.705986,0.952239,0.952239,0.952239,0.702694,0.693314,0.693075,0.952900,0.952900,0.952900,0.705729,0.941860,0.735185,0.333333,0.166667,0.083333,1.000000,1.000000,1.000000
"""  # noqa: E501


def test_cli_output_byte_for_byte(capsys):
    # `ndeval qrels.div.txt runA.txt` (reference/ndeval.md §10.3)
    code, out, err = cli(
        capsys, [EX / "runA.txt", EX / "qrels.div.txt", "--format", "ndeval", "--order", "rank"]
    )
    assert code == 0
    assert out == CLI_OUTPUT_RUN_A
    assert "Traceback" not in err


def test_cli_output_default_measures_are_ndeval(capsys):
    # no -m = the ndeval preset; --compat ndeval implies --order rank
    code, out, _ = cli(
        capsys, [EX / "runA.txt", EX / "qrels.div.txt", "--format", "ndeval", "--compat", "ndeval"]
    )
    assert code == 0
    assert out == CLI_OUTPUT_RUN_A


def test_topic2_subtopic0_is_ordinary():
    # subtopics 0, 1, 2 have relevant docs, 3 only a zero judgment: S = 3;
    # e1 covers 0 and 1 (g 2), e3 covers 2 (g 1), e2 repeats 1 (g .5), e7 unjudged:
    # NRBP = .25·(2 + 1·.5 + .5·.25) = .25·2.625 = 0.65625
    values = evaluate_values(
        [EX / "runA.txt"], EX / "qrels.div.txt", ["NRBP", "strec@5"], order="rank"
    )
    assert values[("runA", "2", "NRBP")] == 0.65625
    assert values[("runA", "2", "strec@5")] == 1.0


def _topic1(measures, **settings):
    values = evaluate_values([EX / "runA.txt"], EX / "qrels.div.txt", measures, **settings)
    return {m: v for (_, t, m), v in values.items() if t == "1"}


def test_traditional_order():
    # -traditional: d4 before d1 ("d4" > "d1" at score 8.0): d2 d9 d4 d1 d3 d5, gains
    # 2, 0, 1, .5, .5, 0 -> NRBP = .25·(2 + 1·.25 + .5·.125 + .5·.0625) = .25·2.34375
    got = _topic1(["alpha-nDCG@5", "NRBP"], order="score")
    assert got["NRBP"] == 0.5859375
    assert f"{got['NRBP']:.6f}" == "0.585938"
    dcg = 2 + 1 * disc(3) + 0.5 * disc(4) + 0.5 * disc(5)
    ideal = sum(g * disc(r) for r, g in enumerate(IDEAL_GAINS[:5], 1))
    assert got["alpha-nDCG@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert f"{got['alpha-nDCG@5']:.6f}" == "0.939442"


def test_alpha_09_beta_08():
    # gains with α = .9: 2, 0, .1, 1, .1; NRBP factor (1 − .1·.8)/3
    got = _topic1(["alpha-nDCG(alpha=0.9)@5", "NRBP(alpha=0.9,beta=0.8)"], order="rank")
    nrbp = (1 - 0.1 * 0.8) / 3 * (2 + 0.1 * 0.8**2 + 1 * 0.8**3 + 0.1 * 0.8**4)
    assert got["NRBP(alpha=0.9,beta=0.8)"] == pytest.approx(nrbp, abs=1e-12)
    assert f"{got['NRBP(alpha=0.9,beta=0.8)']:.6f}" == "0.802534"
    # ideal with α = .9: d2 (2), d4 (1), d3 (.1, tie with d1 -> "d3"), d1 (.1)
    dcg = 2 + 0.1 * disc(3) + 1 * disc(4) + 0.1 * disc(5)
    ideal = 2 + 1 * disc(2) + 0.1 * disc(3) + 0.1 * disc(4)
    assert got["alpha-nDCG(alpha=0.9)@5"] == pytest.approx(dcg / ideal, abs=1e-12)
    assert f"{got['alpha-nDCG(alpha=0.9)@5']:.6f}" == "0.924877"


def test_depth_3():
    # -M 3 keeps d2 d9 d1: DCG_5 = 2 + .5·.5 = 2.25; the ideal is unchanged (all judged docs)
    got = _topic1(["alpha-nDCG@5", "strec@5"], order="rank", depth=3)
    assert got["alpha-nDCG@5"] == pytest.approx(2.25 / 3.096268, abs=1e-6)
    assert f"{got['alpha-nDCG@5']:.6f}" == "0.726681"
    assert got["strec@5"] == pytest.approx(2 / 3, abs=1e-15)  # subtopics 1 and 2 only


def test_alpha_1_beta_0():
    # α = 1: a subtopic counts once: gains 2, 0, 0, 1, 0; II_E(5) = 3·(1 + 0 + ...) = 3
    # ERR-IA@5 = (2 + 1/4)/3 = .75; β = 0: NRBP = (1 − 0)/3·g(1) = 2/3
    got = _topic1(["ERR-IA(alpha=1)@5", "NRBP(alpha=1,beta=0)"], order="rank")
    assert got["ERR-IA(alpha=1)@5"] == pytest.approx(0.75, abs=1e-15)
    assert got["NRBP(alpha=1,beta=0)"] == pytest.approx(2 / 3, abs=1e-15)


# ---------------------------------------------------------------------------------------------
# §10.4: run B, topic 1, three orderings


def test_three_orderings(tmp_path):
    # rank column: d4 d1 d2 d3 (gains 1, 1, 1.5, .5)
    rank = evaluate_values([EX / "runB.txt"], EX / "qrels.div.txt", ["alpha-nDCG@5"], order="rank")[
        ("runB", "1", "alpha-nDCG@5")
    ]
    ideal = 2 + 1 * disc(2) + 0.5 * disc(3) + 0.5 * disc(4)
    assert rank == pytest.approx((1 + disc(2) + 1.5 * disc(3) + 0.5 * disc(4)) / ideal, abs=1e-12)
    assert f"{rank:.6f}" == "0.838515"
    # score desc, docno desc: d2 d1 (tie at 5.0, "d2" > "d1") d3 d4 (gains 2, .5, .5, 1)
    score = evaluate_values(
        [EX / "runB.txt"], EX / "qrels.div.txt", ["alpha-nDCG@5"], order="score"
    )[("runB", "1", "alpha-nDCG@5")]
    assert f"{score:.6f}" == "0.967662"
    # pyndeval's rule (score desc, docno asc): d1 d2 d3 d4 (gains 1, 1.5, .5, 1), given to
    # divaeval in that file order
    lines = (EX / "runB.txt").read_text().splitlines()
    topic1 = sorted(
        (line for line in lines if line.startswith("1 ")),
        key=lambda line: (-float(line.split()[4]), line.split()[2]),
    )
    path = tmp_path / "runB_asc.txt"
    path.write_text("\n".join(topic1) + "\n")
    asc = evaluate_values([path], EX / "qrels.div.txt", ["alpha-nDCG@5"], order="file")[
        ("runB", "1", "alpha-nDCG@5")
    ]
    assert f"{asc:.6f}" == "0.848464"


# ---------------------------------------------------------------------------------------------
# §10.5: topic sets and -c denominators (run B lacks topic 3 and has the run-only topic 4)


def test_denominators():
    default = evaluate_values(
        [EX / "runB.txt"], EX / "qrels.div.txt", ["ERR-IA@5", "strec@5"], order="rank"
    )
    t1, t2 = default[("runB", "1", "ERR-IA@5")], default[("runB", "2", "ERR-IA@5")]
    assert f"{t1:.6f}" == "0.514372" and f"{t2:.6f}" == "0.282400"
    # mean over the topics in both run and qrels: (0.514372 + 0.282400)/2
    assert default[("runB", "all", "ERR-IA@5")] == pytest.approx((t1 + t2) / 2, abs=1e-15)
    assert f"{default[('runB', 'all', 'ERR-IA@5')]:.6f}" == "0.398386"
    assert ("runB", "4", "ERR-IA@5") not in default  # run-only topic: not evaluated
    # -c: denominator 3, the missing topic 3 counts 0
    complete = evaluate_values(
        [EX / "runB.txt"],
        EX / "qrels.div.txt",
        ["ERR-IA@5", "strec@5"],
        order="rank",
        complete=True,
    )
    assert complete[("runB", "3", "ERR-IA@5")] == 0.0
    assert complete[("runB", "all", "ERR-IA@5")] == pytest.approx((t1 + t2 + 0) / 3, abs=1e-15)
    assert f"{complete[('runB', 'all', 'ERR-IA@5')]:.6f}" == "0.265591"
    assert f"{complete[('runB', 'all', 'strec@5')]:.6f}" == "0.666667"


def test_denominators_cli(capsys):
    # ndeval prints rows 1, 2 and the run-only 4 (zeros); -c changes only the amean row
    code, out, _ = cli(
        capsys, [EX / "runB.txt", EX / "qrels.div.txt", "-f", "ndeval", "--order", "rank"]
    )
    assert code == 0
    rows = out.splitlines()
    assert [r.split(",")[1] for r in rows[1:]] == ["1", "2", "4", "amean"]
    assert rows[3] == "runB,4," + ",".join(["0.000000"] * 21)
    assert rows[4].startswith("runB,amean,0.398386,")
    code, out_c, _ = cli(
        capsys, [EX / "runB.txt", EX / "qrels.div.txt", "-f", "ndeval", "--order", "rank", "-c"]
    )
    assert code == 0
    rows_c = out_c.splitlines()
    assert rows_c[:4] == rows[:4]
    assert rows_c[4].startswith("runB,amean,0.265591,")
    assert rows_c[4].endswith(",0.666667,0.666667,0.666667")


# ---------------------------------------------------------------------------------------------
# every small oracle file, full precision


def _small_oracle_files():
    for directory in SMALL_CASES:
        for path in sorted((SMALL / directory).glob("ndeval_*.tsv")):
            yield pytest.param(directory, path.name, id=f"{directory}/{path.name}")


@pytest.mark.parametrize(("directory", "file_name"), list(_small_oracle_files()))
@pytest.mark.parametrize("compat", [None, "ndeval"])
def test_small_oracle(directory, file_name, compat):
    oracle = read_oracle(SMALL / directory / file_name)
    qrels, runs = SMALL_CASES[directory]
    settings, params = settings_of(file_name)
    if compat is None:
        # native mode: nNRBP of an S = 0 topic is 0 instead of NaN, and a mean is no longer
        # poisoned; everything else is identical
        nan_keys = [k for k, v in oracle.items() if math.isnan(v)]
        assert all(m.startswith("nNRBP") for _, _, m in nan_keys)
        oracle = dict(oracle)
        for key in nan_keys:
            oracle.pop(key)
    compare_to_oracle(oracle, SMALL / directory, qrels, runs, settings, params, compat=compat)


@pytest.mark.parametrize("order", ["trec", "rank"])
def test_small_oracles_cover_every_case(order):
    # the parametrisation above really sees 14 files with 297 rows each (sanity)
    files = [p for d in SMALL_CASES for p in (SMALL / d).glob(f"ndeval_*{order}-order.tsv")]
    assert len(files) == 7
    assert all(len(read_oracle(p)) > 200 for p in files)


def test_s0_topic_native_vs_compat(collected_warnings):
    # small/edge topic 2: every judgment is 0, S = 0
    edge = SMALL / "edge"
    native = evaluate_values([edge / "edge_run1.txt"], edge / "edge.qrels", ["nNRBP", "NRBP"])
    assert native[("E1", "2", "nNRBP")] == 0.0
    assert native[("E1", "2", "NRBP")] == 0.0
    assert not math.isnan(native[("E1", "all", "nNRBP")])
    assert any("no document with grade >= 1" in w and "topic 2" in w for w in collected_warnings)
    collected_warnings.clear()
    compat = evaluate_values(
        [edge / "edge_run1.txt"], edge / "edge.qrels", ["nNRBP", "NRBP"], compat="ndeval"
    )
    assert math.isnan(compat[("E1", "2", "nNRBP")])
    assert math.isnan(compat[("E1", "all", "nNRBP")])
    assert compat[("E1", "2", "NRBP")] == 0.0
    assert any("nNRBP is NaN" in w for w in collected_warnings)


@pytest.mark.parametrize("order", ["trec", "rank"])
def test_quirk_at1_unnormalised(order):
    oracle = read_oracle(EX / f"quirk_ndeval_at1_unnormalised_{order}-order.tsv")
    settings, params = settings_of(f"_{order}-order")
    compare_to_oracle(
        oracle, EX, "qrels.div.txt", SMALL_CASES["ndeval_ex"][1], settings, params, compat="ndeval"
    )
    # natively the same cells are normalised: g(1)/(S·1), so they differ from the raw quirk
    native = evaluate_values([EX / "runA.txt"], EX / "qrels.div.txt", ["ERR-IA@1"], **settings)
    assert native[("runA", "1", "ERR-IA@1")] == pytest.approx(2 / 3, abs=1e-15)
    assert oracle[("runA", "1", "ERR-IA@1")] == 2.0


def test_quirk_dup_qrels_line_is_rejected(capsys):
    # ndeval double-counts a repeated qrels line in MAP-IA's R_i
    # (quirk_ndeval_dup-qrels-line_trec-order.tsv); divaeval rejects the file instead
    edge = SMALL / "edge"
    oracle = read_oracle(edge / "quirk_ndeval_dup-qrels-line_trec-order.tsv")
    plain = read_oracle(edge / "ndeval_trec-order.tsv")
    assert oracle[("edge_run1", "1", "MAP-IA")] != plain[("edge_run1", "1", "MAP-IA")]
    qrels = edge / "edge_dupline.qrels"
    code, out, err = cli(capsys, [edge / "edge_run1.txt", qrels])
    assert code == 1
    assert out == ""
    assert err == (
        f"divaeval: {qrels}:10: duplicate judgment for topic 1 subtopic 1 docno a1 "
        "(also at line 1)\n"
    )
    with pytest.raises(divaeval.DivaevalError, match="duplicate judgment"):
        divaeval.evaluate([str(edge / "edge_run1.txt")], str(qrels), ["MAP-IA"])


def test_duplicate_docno_in_run_is_an_error(capsys):
    # ndeval: `duplicate docno (a1) for topic 1 in run file "edge_run_dup.txt"`, exit 1
    edge = SMALL / "edge"
    run = edge / "edge_run_dup.txt"
    lines = run.read_text().splitlines()
    first, second = [i + 1 for i, line in enumerate(lines) if line.split()[:3] == ["1", "Q0", "a1"]]
    code, out, err = cli(capsys, [run, edge / "edge.qrels", "--order", "rank"])
    assert code == 1 and out == ""
    assert err == (
        f"divaeval: {run}:{second}: duplicate docno a1 for topic 1 (also at line "
        f"{first}); use --dedupe first to keep the first copy\n"
    )


# ---------------------------------------------------------------------------------------------
# printed output: ndeval's CSV byte for byte (%.6f, -nan)


def _cli_measures(params) -> list[str]:
    if not params:
        return ["-m", "ndeval"]
    out = []
    for column in NDEVAL_COLUMNS:
        out += ["-m", with_params(column, params)]
    return out


@pytest.mark.parametrize(("directory", "file_name"), list(_small_oracle_files()))
def test_small_ndeval_csv_byte_for_byte(capsys, directory, file_name):
    oracle = read_oracle(SMALL / directory / file_name)
    qrels, runs = SMALL_CASES[directory]
    settings, params = settings_of(file_name)
    order = settings["order"]
    for run_name, run_file in runs.items():
        args = [
            SMALL / directory / run_file,
            SMALL / directory / qrels,
            "-f",
            "ndeval",
            "--order",
            order,
            "--compat",
            "ndeval",
            *_cli_measures(params),
        ]
        if settings.get("complete"):
            args.append("-c")
        code, out, err = cli(capsys, args)
        assert code == 0, err
        header, body = out.split("\n", 1)
        if not params:
            assert header == NDEVAL_HEADER
        runid = body.split(",", 1)[0]
        expected = ndeval_text(
            oracle, run_name, runid, NDEVAL_COLUMNS, oracle_topics(oracle, run_name)
        )
        assert body == expected, (run_name, file_name)


# ---------------------------------------------------------------------------------------------
# TREC Web 2012: 9 runs x 50 topics x 43 measures, both orderings


@pytest.fixture(scope="module")
def trec2012_runs():
    return list(TREC2012_RUNS.values())


@pytest.mark.parametrize("order", ["trec", "rank"])
def test_trec2012_oracle(order, trec2012_runs):
    oracle = read_oracle(TREC2012 / f"ndeval_{order}-order.tsv.gz")
    measures = oracle_measures(oracle)
    assert len(measures) == 43
    assert len(oracle) == 9 * 51 * 43
    got = evaluate_values(
        trec2012_runs,
        TREC2012 / "qrels-for-ndeval.txt.gz",
        measures,
        order="score" if order == "trec" else "rank",
    )
    # all nine runs carry the tag "indri", so divaeval names them by file name (stem)
    assert {run for run, _, _ in got} == set(TREC2012_RUNS)
    mismatches = []
    for (run, topic, measure), expected in oracle.items():
        value = got[(run, "all" if topic == "amean" else topic, measure)]
        if not same(value, expected):
            mismatches.append((run, topic, measure, value, expected))
    assert not mismatches, mismatches[:10]
    assert len(got) == len(oracle)


@pytest.mark.parametrize("order", ["trec", "rank"])
def test_trec2012_ndeval_csv_byte_for_byte(capsys, order, tmp_path):
    oracle = read_oracle(TREC2012 / f"ndeval_{order}-order.tsv.gz")
    qrels = TREC2012 / "qrels-for-ndeval.txt.gz"
    for name in ("ql-cata", "dssa-wt2012"):  # dssa-wt2012 has CRLF line endings
        run = tmp_path / f"{name}.txt.gz"
        shutil.copy(TREC2012_RUNS[name], run)
        code, out, err = cli(
            capsys, [run, qrels, "-f", "ndeval", "--order", "score" if order == "trec" else "rank"]
        )
        assert code == 0, err
        header, body = out.split("\n", 1)
        assert header == NDEVAL_HEADER
        expected = ndeval_text(oracle, name, "indri", NDEVAL_COLUMNS, oracle_topics(oracle, name))
        assert body == expected


def test_trec2012_rank_and_trec_order_differ():
    # ORACLES-README §3: 298 of the 19,737 values differ between the two orderings
    trec = read_oracle(TREC2012 / "ndeval_trec-order.tsv.gz")
    rank = read_oracle(TREC2012 / "ndeval_rank-order.tsv.gz")
    assert sum(1 for k in trec if trec[k] != rank[k]) == 298


def test_oracle_reader_handles_gzip_text():
    # the gz fixtures are real gzip streams (guard against an LFS pointer sneaking in)
    with open(TREC2012 / "ndeval_trec-order.tsv.gz", "rb") as handle:
        assert handle.read(2) == b"\x1f\x8b"
