"""Output names: a measure prints under the name it was asked for by, the same in every
format (trec_eval's printed names, ir_measures' names, else divaeval's display names), and its
resolved form (every parameter bound) says how a stored value was computed."""

from __future__ import annotations

import csv
import io
import json

import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.errors import UsageError
from divaeval.metrics import all_specs, parse_measures
from divaeval.metrics.dialects import IR_MEASURES, TREC_EVAL, trec_base

RUN = SAMPLE_DATA / "run.txt"
QRELS = SAMPLE_DATA / "qrels.txt"


@pytest.mark.parametrize(
    ("typed", "printed", "dialect"),
    [
        # trec_eval: printed as trec_eval prints (meas_init.c: name_k, name_%3.2f, name_PARAMS)
        ("map", ["map"], TREC_EVAL),
        ("P.10,5", ["P_5", "P_10"], TREC_EVAL),
        ("P_010", ["P_10"], TREC_EVAL),
        ("ndcg_cut.10,20,23.4", ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"], TREC_EVAL),
        ("iprec_at_recall.0.1,1", ["iprec_at_recall_0.10", "iprec_at_recall_1.00"], TREC_EVAL),
        ("Rprec_mult.5.0", ["Rprec_mult_5.00"], TREC_EVAL),
        ("utility.2,-1,0,0", ["utility_2,-1,0,0"], TREC_EVAL),
        ("utility", ["utility"], TREC_EVAL),
        ("set_F.0.5", ["set_F_0.5"], TREC_EVAL),
        ("rbp.p=0.95", ["rbp_p=0.95"], TREC_EVAL),
        ("recip_rank", ["recip_rank"], TREC_EVAL),
        ("num_rel_ret", ["num_rel_ret"], TREC_EVAL),
        ("success", ["success_1", "success_5", "success_10"], TREC_EVAL),
        # ir_measures: as ir_measures prints (MAP -> AP)
        ("nDCG@10", ["nDCG@10"], IR_MEASURES),
        ("P@10", ["P@10"], IR_MEASURES),
        ("AP", ["AP"], IR_MEASURES),
        ("MAP", ["AP"], IR_MEASURES),
        ("NDCG@10", ["nDCG@10"], IR_MEASURES),
        ("alpha_nDCG@20", ["alpha_nDCG@20"], IR_MEASURES),
        ("AP_IA", ["AP_IA"], IR_MEASURES),
        ("StRecall@20", ["StRecall@20"], IR_MEASURES),
        ("SetP", ["SetP"], IR_MEASURES),
        ("P(rel=2)@5", ["P(rel=2)@5"], IR_MEASURES),
        ("P(rel=1)@5", ["P(rel=1)@5"], IR_MEASURES),
        ("IPrec@0.2", ["IPrec@0.2"], IR_MEASURES),
        # divaeval's own names (and spellings that are neither tool's)
        ("rbu", ["RBU"], "divaeval"),
        ("alpha-ndcg@5,10", ["alpha-nDCG@5", "alpha-nDCG@10"], "divaeval"),
        ("ndcg@10", ["nDCG@10"], "divaeval"),
        ("P@all", ["P@all"], "divaeval"),
        ("nDCG@5,10", ["nDCG@5", "nDCG@10"], "divaeval"),
    ],
)
def test_output_name_is_the_name_asked_for(typed, printed, dialect):
    measures = parse_measures([typed])
    assert [m.name for m in measures] == printed
    assert {m.dialect for m in measures} == {dialect}
    for measure in measures:  # the output name means the same measure
        assert parse_measures([measure.name]) == [measure]


def test_one_measure_asked_for_twice_keeps_its_first_name():
    assert [m.name for m in parse_measures(["MAP", "map", "AP"])] == ["AP"]
    assert [m.name for m in parse_measures(["map", "AP"])] == ["map"]


def test_two_measures_never_share_an_output_name():
    # set_F (beta 1) and set_F.0.5 would both be set_F_... no: trec_eval names differ; but
    # utility with other weights printed by its display name where two would collide
    measures = parse_measures(["ndcg", "nDCG"])  # one measure
    assert [m.name for m in measures] == ["ndcg"]
    measures = parse_measures(["SetP", "P@all"])
    assert [m.name for m in measures] == ["SetP"]


def test_trec_eval_names_alone_print_in_trec_evals_order():
    names = [m.name for m in parse_measures(["ndcg_cut.10", "P.5", "num_q", "map"])]
    assert names == ["num_q", "map", "P_5", "ndcg_cut_10"]
    names = [m.name for m in parse_measures(["ndcg_cut.10", "P@5", "map"])]
    assert names == ["ndcg_cut_10", "P@5", "map"]  # mixed: the -m order


def test_trec_base_of_printed_names():
    assert trec_base("P_10") == "P"
    assert trec_base("ndcg_cut_10") == "ndcg_cut"
    assert trec_base("ndcg_1=3,2=9") == "ndcg"
    assert trec_base("num_rel_ret") == "num_rel_ret"
    assert trec_base("Rprec_mult_0.20") == "Rprec_mult"
    assert trec_base("set_relative_P") == "set_relative_P"
    assert trec_base("nDCG@10") is None


def test_runid_is_a_line_not_a_measure(capsys):
    measures = parse_measures(["runid", "map"])
    assert [m.name for m in measures] == ["map"] and measures[0].runid
    with pytest.raises(UsageError, match="runid line comes with another measure"):
        parse_measures(["runid"])
    code, out, err = run_cli(capsys, RUN, QRELS, "-m", "runid")
    assert code == 2 and out == "" and "runid line comes with another measure" in err


def test_rbp_spelled_as_trec_eval_is_trec_evals():
    """trec_eval's rbp is p = 0.9 with graded gains; divaeval's RBP (any other spelling) p =
    0.8, binary."""
    (trec,) = parse_measures(["rbp"])
    (own,) = parse_measures(["RBP"])
    assert trec.param_dict["p"] == 0.9 and trec.param_dict["gain"] == "graded"
    assert own.param_dict["p"] == 0.8 and own.param_dict["gain"] == "binary"


def test_resolved_names_round_trip_for_every_metric(collected_warnings):
    measures = parse_measures(["all@10"]) + parse_measures(["all"])
    assert len(measures) > 200
    for measure in measures:
        assert parse_measures([measure.resolved]) == [measure], measure.resolved
    specs = {m.spec.name for m in measures}
    assert len(specs) >= len(all_specs()) - 10  # (the few that need a parameter)


def test_resolved_names_bind_every_parameter():
    (rbu,) = parse_measures(["RBU@20"])
    assert rbu.resolved == "RBU(p=0.8,e=0.03,form=code,rel=aspect,G=0)@20"
    (alpha,) = parse_measures(["alpha-nDCG@20"])
    assert alpha.resolved == "alpha-nDCG(alpha=0.5,weights=uniform,gain=binary)@20"
    (ap,) = parse_measures(["map"])  # rel unset: it follows -l (in the signature)
    assert ap.resolved == "AP(judged_only=False)@all"


def _formats(capsys, *measures: str) -> dict[str, list[str]]:
    """Measure names in the trec_eval, csv, tsv, jsonl, json and table outputs."""
    args = [RUN, QRELS, *(a for m in measures for a in ("-m", m))]
    names: dict[str, list[str]] = {}
    for fmt in ("trec_eval", "csv", "tsv", "jsonl", "json", "table", "ndeval"):
        code, out, err = run_cli(capsys, *args, "-f", fmt)
        assert code == 0, err
        if fmt == "trec_eval":
            names[fmt] = [line.split("\t")[0].strip() for line in out.splitlines()[2:]]
        elif fmt in ("csv", "tsv"):
            rows = list(csv.reader(io.StringIO(out), delimiter="," if fmt == "csv" else "\t"))
            assert rows[0] == ["run", "topic", "measure", "value", "params"]
            names[fmt] = [row[2] for row in rows[1:]]
        elif fmt == "jsonl":
            names[fmt] = [json.loads(line)["measure"] for line in out.splitlines()]
        elif fmt == "json":
            names[fmt] = [record["measure"] for record in json.loads(out)["results"]]
        elif fmt == "ndeval":
            names[fmt] = out.splitlines()[0].split(",")[2:]
        else:
            names[fmt] = [name for name in names["jsonl"] if name in out]
    return names


def test_names_are_the_same_in_every_format(capsys):
    names = _formats(capsys, "nDCG@10", "map", "alpha-ndcg@20", "P_5", "alpha_nDCG@5")
    expected = ["nDCG@10", "map", "alpha-nDCG@20", "P_5", "alpha_nDCG@5"]
    assert all(found == expected for found in names.values()), names


def test_long_formats_carry_the_resolved_measure(capsys):
    code, out, err = run_cli(capsys, RUN, QRELS, "-m", "map", "-m", "RBU@20", "-f", "jsonl")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r["measure"], r["params"]) for r in records] == [
        ("map", "AP(judged_only=False)@all"),
        ("RBU@20", "RBU(p=0.8,e=0.03,form=code,rel=aspect,G=0)@20"),
    ]
    code, out, err = run_cli(capsys, RUN, QRELS, "-m", "alpha-nDCG@20", "-f", "csv")
    assert out.splitlines()[1].endswith(',"alpha-nDCG(alpha=0.5,weights=uniform,gain=binary)@20"')


def test_complete_with_rel_level_sums_num_rel_over_topics(capsys, tmp_path):
    """A deliberate difference: trec_eval's -c summary of num_rel counts every qrels line with
    a grade > 0 whatever -l (561 on its qrels.test with -l 2, its per-topic values sum to 0);
    divaeval's summary is the sum of its per-topic values."""
    from test_trec_eval_outputs import DATA, _divaeval_output

    out = _divaeval_output(
        capsys,
        tmp_path,
        [DATA / "results.test.gz", DATA / "qrels.test.gz"],
        ["-q", "-c", "-l2", "-m", "num_rel"],
    )
    values = [int(line.split("\t")[2]) for line in out.splitlines()]
    assert values[-1] == sum(values[:-1]) == 0


def test_signature_lists_every_measure_resolved(capsys):
    code, _, err = run_cli(
        capsys, RUN, QRELS, "-m", "rbu@20", "-m", "map", "-m", "alpha-nDCG@20", "--signature"
    )
    assert code == 0
    (signature,) = [line for line in err.splitlines() if line.startswith("divaeval ")]
    assert signature.endswith(
        "|measures=RBU(p=0.8,e=0.03,form=code,rel=aspect,G=0)@20,map=AP(judged_only=False)@all,"
        "alpha-nDCG(alpha=0.5,weights=uniform,gain=binary)@20"
    )
