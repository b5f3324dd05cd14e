"""trec_eval's own regression tests (``make quicktest`` of usnistgov/trec_eval), reproduced:
every value line of the expected outputs of trec_eval 10.0 and 9.0.8 whose measure divaeval
has, compared at trec_eval's printed precision (4 decimals; counts as integers). Data in
tests/fixtures/trec_eval (see its README for the provenance).

The -m arguments are given to divaeval's parser as trec_eval spells them (``P.5,7,3``,
``iprec_at_recall..10,.20``, ``ndcg.1=3,2=9,4=4.5``, ``all_trec``); trec_eval 9.0.8's recall
levels use its rounding (``rounding=v9``). Not compared: runid (a string), relstring (a
string), and the prefs, qrels_jg and z-score outputs (other input formats). trec_eval's rbp
reads uninitialised memory in some builds (reference/other-metrics.md §7.2); on these inputs
its printed values are the intended ones, which divaeval's RBP(p=0.9,gain=graded) reproduces."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.io import read_qrels, read_run
from divaeval.judged import QrelsIndex, judge_run
from divaeval.metrics import compute_measures, parse_measure, parse_measures
from divaeval.scores import summary_of
from divaeval.settings import Settings

DATA = Path(__file__).parent / "fixtures" / "trec_eval"
ALL_TREC = ("all_trec",)
#: (expected output, qrels, results, -m arguments, -q, -c, -M, -l)
CASES = {
    "out.test": ("qrels.test", "results.test", ("official",), False, False, None, 1),
    "out.test.a": ("qrels.test", "results.test", ALL_TREC, False, False, None, 1),
    "out.test.aq": ("qrels.test", "results.test", ALL_TREC, True, False, None, 1),
    "out.test.aqc": ("qrels.test", "results.trunc", ALL_TREC, True, True, None, 1),
    "out.test.aqcM": ("qrels.test", "results.trunc", ALL_TREC, True, True, 100, 1),
    "out.test.aql": ("qrels.rel_level", "results.test", ALL_TREC, True, False, None, 2),
    "out.test.meas_params": (
        "qrels.test",
        "results.test",
        (
            "iprec_at_recall..10,.20,.25,.75,.50",
            "P.5,7,3",
            "recall.20,2000",
            "Rprec_mult.5.0,0.2,0.35",
            "utility.2,-1,0,0",
            "11pt_avg..25,.5,.75",
            "ndcg.1=3,2=9,4=4.5",
            "ndcg_cut.10,20,23.4",
            "success.2,5,20",
        ),
        True,
        False,
        None,
        1,
    ),
}
#: values compared per (version, output): every line but runid and relstring
MINIMUM_COMPARED = {
    **dict.fromkeys([("v10", "out.test"), ("v9.0.8", "out.test")], 29),
    ("v10", "out.test.a"): 98,
    ("v9.0.8", "out.test.a"): 93,
    **dict.fromkeys([("v10", o) for o in ("out.test.aq", "out.test.aqc", "out.test.aqcM")], 383),
    ("v10", "out.test.aql"): 383,
    ("v9.0.8", "out.test.aq"): 363,
    ("v9.0.8", "out.test.aql"): 363,
    **dict.fromkeys([("v9.0.8", "out.test.aqc"), ("v9.0.8", "out.test.aqcM")], 273),
    **dict.fromkeys([("v10", "out.test.meas_params"), ("v9.0.8", "out.test.meas_params")], 88),
}
NOT_COMPARED = {"runid", "relstring", "relstring_20"}
#: trec_eval's nicknames (its measures.c), in the order trec_eval prints them; runid is the
#: trec_eval format's runid line, not a measure
NICKNAMES = {
    "official": [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ],
    "all_trec": [
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
        "recall",
        "infAP",
        "gm_bpref",
        "Rprec_mult",
        "utility",
        "11pt_avg",
        "binG",
        "G",
        "ndcg",
        "ndcg_rel",
        "Rndcg",
        "ndcg_cut",
        "map_cut",
        "relative_P",
        "success",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
        "rbp",
        "rbp_resid",
        "unj",
    ],
}


def _measures(arguments, version: str):
    """(printed name, measure) of the -m arguments: the name is the parser's (the measure's
    output name), which must be trec_eval's printed name to match the expected lines."""
    out = []
    for argument in arguments:
        for measure in parse_measure(argument):
            if version == "v9.0.8" and measure.spec.param("rounding") is not None:
                params = {**measure.param_dict, "rounding": "v9"}
                measure = replace(measure, params=tuple(params.items()))
            out.append((measure.name, measure))
    return out


def _expected(path: Path) -> list[tuple[str, str, str]]:
    with gzip.open(path, "rt") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle if line.strip()]
    return [(name.strip(), topic, value) for name, topic, value in rows]


def _format(value: float, integer: bool) -> str:
    return str(int(round(value))) if integer else f"{value:6.4f}".strip()


@pytest.mark.parametrize("version", ["v10", "v9.0.8"])
@pytest.mark.parametrize("output", sorted(CASES))
def test_trec_eval_expected_outputs(version, output):
    qrels_name, results_name, arguments, per_topic, complete, depth, level = CASES[output]
    index = QrelsIndex(read_qrels(str(DATA / f"{qrels_name}.gz")), rel_level=level)
    settings = Settings(rel_level=level, complete=complete, depth=depth)
    jr = judge_run(read_run(str(DATA / f"{results_name}.gz")), index, settings)
    measures = _measures(arguments, version)
    values = compute_measures(jr, [m for _, m in measures])
    ours: dict[tuple[str, str], str] = {}
    for printed, measure in measures:
        integer = measure.spec.integer
        for i, topic in enumerate(jr.topics):
            ours[(printed, str(topic))] = _format(values[measure][i], integer)
        summary = summary_of(values[measure], measure, "arith", None)
        ours[(printed, "all")] = _format(summary, integer)
    ours[("num_q", "all")] = str(jr.n_topics)
    compared = 0
    mismatches = []
    for name, topic, expected in _expected(DATA / version / f"{output}.gz"):
        if name in NOT_COMPARED:
            continue
        assert (name, topic) in ours, f"{output}: no value for {name} {topic}"
        compared += 1
        if ours[(name, topic)] != expected.strip():
            mismatches.append(
                f"{name} {topic}: divaeval {ours[(name, topic)]}, trec_eval {expected}"
            )
    assert not mismatches, (
        f"{version}/{output}: {len(mismatches)} of {compared} differ:\n"
        + "\n".join(mismatches[:20])
    )
    assert compared == MINIMUM_COMPARED[(version, output)]
    if not per_topic:
        assert all(topic == "all" for _, topic, _ in _expected(DATA / version / f"{output}.gz"))


def test_all_trec_preset_is_trec_evals_list():
    """-m all_trec and -m official expand to trec_eval's measures in trec_eval's order, with
    trec_eval's runid line."""
    for nickname, names in NICKNAMES.items():
        expected = [m for name in names for m in parse_measure(name)]
        measures = parse_measures([nickname])
        assert measures == expected
        assert [m.name for m in measures] == [m.name for m in expected]
        assert all(m.runid for m in measures)
    assert parse_measure("rbp") == parse_measure("RBP(p=0.9,gain=graded)")
    assert parse_measure("rbp_resid") == parse_measure("RBP-resid(p=0.9,rule=trec_eval)")


# --------------------------------------------------------------------------------------------
# the command line's output, byte for byte: trec_eval 10's expected outputs of its own tests,
# and trec_eval 10.0-rc3 on the 2012 sample data (tests/fixtures/trec_eval/sample2012, made
# by its make.sh). Lines of trec_eval's relstring (a string per topic) are the one documented
# difference: divaeval does not print them.

#: trec_eval's make quicktest: expected output -> (qrels, results, trec_eval's options)
QUICKTEST = {
    "out.test": ("qrels.test", "results.test", ["-m", "official"]),
    "out.test.a": ("qrels.test", "results.test", ["-m", "all_trec"]),
    "out.test.aq": ("qrels.test", "results.test", ["-m", "all_trec", "-q"]),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c"]),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-m", "all_trec", "-q", "-c", "-M100"]),
    "out.test.aql": ("qrels.rel_level", "results.test", ["-m", "all_trec", "-q", "-l2"]),
    "out.test.meas_params": (
        "qrels.test",
        "results.test",
        [
            "-q",
            "-miprec_at_recall..10,.20,.25,.75,.50",
            "-m",
            "P.5,7,3",
            "-m",
            "recall.20,2000",
            "-m",
            "Rprec_mult.5.0,0.2,0.35",
            "-mutility.2,-1,0,0",
            "-m",
            "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5",
            "-mndcg_cut.10,20,23.4",
            "-msuccess.2,5,20",
        ],
    ),
}
SAMPLE2012 = DATA / "sample2012"


def _without_relstring(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("relstring"))


def _gunzipped(path: Path) -> str:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return handle.read()


def _divaeval_output(capsys, tmp_path, files, options) -> str:
    """stdout of ``divaeval RUN QRELS OPTIONS`` (the files gunzipped first: trec_eval reads
    plain files, divaeval either)."""
    plain = []
    for path in files:
        target = tmp_path / path.name.removesuffix(".gz")
        if path.suffix == ".gz":
            target.write_text(_gunzipped(path), encoding="utf-8", newline="")
            path = target
        plain.append(path)
    code, out, err = run_cli(capsys, *plain, *options)
    assert code == 0, err
    return out


@pytest.mark.parametrize("output", sorted(QUICKTEST))
def test_trec_eval_quicktest_outputs_byte_for_byte(capsys, tmp_path, output):
    qrels, results, options = QUICKTEST[output]
    files = [DATA / f"{results}.gz", DATA / f"{qrels}.gz"]
    ours = _divaeval_output(capsys, tmp_path, files, options)
    expected = _without_relstring(_gunzipped(DATA / "v10" / f"{output}.gz"))
    assert ours == expected


def _sample_cases() -> list[tuple[str, list[str]]]:
    cases = []
    for line in (SAMPLE2012 / "CASES").read_text().splitlines():
        name, _, options = line.partition("|")
        if name:
            # trec_eval's default is -m official, divaeval's -m ndeval
            cases.append((name, options.split() or ["-m", "official"]))
    return cases


@pytest.mark.parametrize("run", ["run", "run2", "run3"])
@pytest.mark.parametrize(("case", "options"), _sample_cases(), ids=[c for c, _ in _sample_cases()])
def test_trec_eval_on_sample_data_byte_for_byte(capsys, tmp_path, case, options, run):
    files = [SAMPLE_DATA / f"{run}.txt", SAMPLE2012 / "qrels.adhoc.gz"]
    ours = _divaeval_output(capsys, tmp_path, files, options)
    assert ours == _without_relstring(_gunzipped(SAMPLE2012 / f"{case}.{run}.gz"))


@pytest.mark.parametrize("run", ["run", "run2", "run3"])
def test_diversity_qrels_print_trec_evals_output_on_their_largest_grades(capsys, run):
    """divaeval reads diversity qrels for ad hoc measures with each document's largest
    subtopic grade: its output on sample_data/qrels.txt is trec_eval's on that collapse."""
    code, out, err = run_cli(
        capsys, SAMPLE_DATA / f"{run}.txt", SAMPLE_DATA / "qrels.txt", "-q", "-c", "-m", "all_trec"
    )
    assert code == 0, err
    assert out == _without_relstring(_gunzipped(SAMPLE2012 / f"maxgrade.{run}.gz"))
