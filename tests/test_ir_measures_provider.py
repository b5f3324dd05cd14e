"""divaeval inside ir_measures and PyTerrier (issue 25): ``divaeval.ir_measures.measure`` in
ir_measures' ``calc_aggregate``, ``iter_calc`` and ``evaluator`` on ir_measures' own data gives
the command line's values; ir_measures' diversity measures computed by the ``divaeval``
provider are its pyndeval provider's; PyTerrier's ``pt.Experiment`` takes divaeval's measures
(PyTerrier runs without a JVM for this)."""

from __future__ import annotations

import json
import logging
import warnings

import pandas as pd
import pytest
from support import FIXTURES, SAMPLE_DATA, TREC2012, TREC2012_RUNS, run_cli

import divaeval
from divaeval.errors import DivaevalWarning, UsageError

ir_measures = pytest.importorskip("ir_measures")
from divaeval.ir_measures import DivaevalMeasure, measure  # noqa: E402

logging.getLogger("ir_measures").setLevel(logging.ERROR)
pytestmark = pytest.mark.usefixtures("collected_warnings")

QRELS_2012 = str(TREC2012 / "qrels-for-ndeval.txt.gz")
SPECS = ["RBU(p=0.9)@20", "D#-nDCG@10", "alpha-nDCG@20", "ERR-IA@20", "strec@10"]


def cli_values(capsys, run, qrels, specs, *options) -> dict[tuple[str, str], float]:
    """(measure, topic) -> value as the command line prints them (-c -q, jsonl)."""
    args = [run, qrels, *[a for s in specs for a in ("-m", s)], "-c", "-q", "-f", "jsonl"]
    code, out, err = run_cli(capsys, *args, *options)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    return {(row["measure"], row["topic"]): row["value"] for row in rows}


def test_measures_in_ir_measures_give_the_command_lines_values(capsys):
    run = str(TREC2012_RUNS["dssa-wt2012"])
    expected = cli_values(capsys, run, QRELS_2012, SPECS)
    chosen = [measure(spec) for spec in SPECS]
    qrels = list(ir_measures.read_trec_qrels(QRELS_2012))  # the subtopic in `iteration`
    per_topic = {
        (m.measure.divaeval_spec, m.query_id): m.value
        for m in ir_measures.iter_calc(chosen, iter(qrels), ir_measures.read_trec_run(run))
    }
    assert per_topic == {key: value for key, value in expected.items() if key[1] != "all"}
    means = ir_measures.calc_aggregate(chosen, qrels, ir_measures.read_trec_run(run))
    for spec, value in zip(SPECS, chosen, strict=True):
        assert means[value] == pytest.approx(expected[(spec, "all")], rel=1e-12)
    # the other data types of ir_measures: DataFrames and dicts; an evaluator for many runs
    frame = pd.DataFrame(qrels)
    run_frame = pd.DataFrame(ir_measures.read_trec_run(run))
    evaluator = ir_measures.evaluator(chosen, frame)
    assert evaluator.calc_aggregate(run_frame) == means
    as_dict: dict = {}
    for row in run_frame.itertuples():
        as_dict.setdefault(row.query_id, {})[row.doc_id] = row.score
    assert evaluator.calc_aggregate(as_dict) == means


def test_judging_settings_and_intents_in_memory_reach_the_provider(capsys):
    folder = FIXTURES / "small" / "ntcir_ex"
    qrels, run, intents = (str(folder / n) for n in ("example.Dqrels", "RUNA", "example.DINprob"))
    options = ["--order", "file", "--compat", "ntcireval"]
    expected = cli_values(capsys, run, qrels, ["D#-nDCG@5"], "--intents", intents, *options)
    frame = pd.read_csv(intents, sep=r"\s+", header=None, dtype=str)
    frame.columns = ["topic", "subtopic", "probability", "type"][: len(frame.columns)]
    frame["probability"] = frame["probability"].astype(float)
    chosen = measure("D#-nDCG@5", intents=frame, order="file", compat="ntcireval")
    run_records = list(ir_measures.read_trec_run(run))
    got = {
        m.query_id: m.value
        for m in ir_measures.iter_calc([chosen], divaeval.read_qrels(qrels).frame.rename(
            columns={"topic": "query_id", "docno": "doc_id", "grade": "relevance",
                     "subtopic": "iteration"}), run_records)
    }  # fmt: skip
    # file order: ir_measures' records keep the file's order of each topic
    assert got == {topic: value for (_, topic), value in expected.items() if topic != "all"}
    plain = measure("D#-nDCG@5", order="file", compat="ntcireval")
    assert plain != chosen and repr(chosen).startswith("divaeval:D#-nDCG@5[")


def test_ir_measures_diversity_measures_are_pyndevals_through_the_divaeval_provider():
    chosen = [
        ir_measures.alpha_nDCG @ 20,
        # (alpha_nDCG(alpha=0.3) is left out: ir_measures 0.4.3's pyndeval provider gives 0.0)
        ir_measures.ERR_IA @ 20,
        ir_measures.NRBP,
        ir_measures.nNRBP,
        ir_measures.AP_IA,
        ir_measures.P_IA @ 10,
        ir_measures.StRecall @ 10,
    ]
    provider = ir_measures.providers.registry["divaeval"]
    for name in ("ql-cata", "dssa-wt2012", "rm-cata-filtered"):
        run = str(TREC2012_RUNS[name])
        ours = provider.calc_aggregate(
            chosen, ir_measures.read_trec_qrels(QRELS_2012), ir_measures.read_trec_run(run)
        )
        theirs = ir_measures.pyndeval.calc_aggregate(
            chosen, ir_measures.read_trec_qrels(QRELS_2012), ir_measures.read_trec_run(run)
        )
        for value in chosen:  # pyndeval's tie order (docno ascending): the same doubles
            assert ours[value] == pytest.approx(theirs[value], rel=1e-12, abs=1e-15), value
    # by default ir_measures keeps its own provider for them
    assert not isinstance(chosen[0], DivaevalMeasure)


def test_measure_objects_anywhere_a_measure_string_is_taken():
    files = [str(SAMPLE_DATA / "run.txt")], str(SAMPLE_DATA / "qrels.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DivaevalWarning)
        by_object = divaeval.evaluate(*files, [ir_measures.alpha_nDCG(alpha=0.5) @ 20,
                                               measure("RBU@20")]).aggregate()  # fmt: skip
        by_text = divaeval.evaluate(*files, ["alpha_nDCG(alpha=0.5)@20", "RBU@20"]).aggregate()
    assert list(by_object.values()) == list(by_text.values())
    with pytest.raises(divaeval.DivaevalError, match="unknown measure 'Accuracy'"):
        divaeval.evaluate(*files, ir_measures.Accuracy())


@pytest.mark.parametrize(
    ("name", "message"),
    [("alpha-nDCG@5,10", "is 2 measures"), ("ndeval", "is 21 measures"), (42, "got int")],
)
def test_measure_is_one_divaeval_measure(name, message):
    with pytest.raises(UsageError, match=message):
        measure(name)
    with pytest.raises(UsageError, match="unknown option 'alpha'"):
        measure("RBU@20", alpha=0.5)


def test_pyterrier_experiment_takes_divaevals_measures():
    pt = pytest.importorskip("pyterrier")
    qrels = pd.DataFrame(ir_measures.read_trec_qrels(str(SAMPLE_DATA / "qrels.txt")))
    qrels = qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})

    def results(name: str):
        frame = pd.read_csv(SAMPLE_DATA / f"{name}.txt", sep=r"\s+", header=None, dtype=str)
        frame.columns = ["qid", "Q0", "docno", "rank", "score", "tag"]
        frame["score"] = frame["score"].astype(float)
        return pt.Transformer.from_df(frame[["qid", "docno", "score"]], uniform=False)

    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": "q"})
    specs = ["RBU@20", "alpha-nDCG@20", "ERR-IA@20"]
    table = pt.Experiment(
        [results("run"), results("run2")],
        topics,
        qrels,
        eval_metrics=[measure(spec) for spec in specs],
        names=["run", "run2"],
    )
    assert not pt.java.started()  # no JVM was needed
    expected = divaeval.evaluate(
        [str(SAMPLE_DATA / "run.txt"), str(SAMPLE_DATA / "run2.txt")],
        str(SAMPLE_DATA / "qrels.txt"),
        specs,
        complete=True,
    ).wide
    table = table.set_index("name")
    for name, run in [("run", "ql-cata"), ("run2", "rm-cata")]:
        for spec in specs:
            got = table.loc[name, f"divaeval:{spec}"]
            assert got == pytest.approx(expected.loc[run, spec], rel=1e-12)
