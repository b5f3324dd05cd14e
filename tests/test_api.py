"""The Python API (:mod:`divaeval.api`): every public function is listed and callable and
its docstring example runs; in-memory runs and qrels (DataFrames, pytrec_eval-style dicts,
ir_measures' records) give exactly the files' numbers; bad in-memory input gives the files'
one-line messages, located by row; warnings arrive as ``DivaevalWarning``, except where a sink
is installed (tests) and on the command line (stderr)."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
import warnings
from collections import namedtuple

import pandas as pd
import pytest
from support import ROOT, SAMPLE_DATA, run_cli

import divaeval
from divaeval import api
from divaeval.errors import DataError, DivaevalWarning, UsageError
from divaeval.io.memory import MemoryInputs

QRELS = SAMPLE_DATA / "qrels.txt"
RUN_FILES = [SAMPLE_DATA / name for name in ("run.txt", "run2.txt", "run3.txt")]
RUN_COLUMNS = ["topic", "Q0", "docno", "rank", "score", "tag"]
QRELS_COLUMNS = ["topic", "subtopic", "docno", "grade"]
MEASURES = ["all@20"]  # every metric, at k = 20 where a cutoff applies


def read_frame(path, columns):
    """A whitespace-separated file as a DataFrame: ids as text, scores exactly as parsed."""
    frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str)
    frame.columns = columns
    if "score" in columns:
        frame["score"] = frame["score"].astype(float)  # correctly rounded, as the readers
    else:
        frame["grade"] = frame["grade"].astype(int)
    return frame


@pytest.fixture(scope="module")
def frames():
    return {
        "runs": {f.stem: read_frame(f, RUN_COLUMNS) for f in RUN_FILES},
        "qrels": read_frame(QRELS, QRELS_COLUMNS),
    }


@pytest.fixture(scope="module")
def expected():
    with warnings.catch_warnings():  # all@20 leaves out the metrics that need parameters
        warnings.simplefilter("ignore", DivaevalWarning)
        return divaeval.evaluate([str(f) for f in RUN_FILES], str(QRELS), MEASURES).table()


def as_run_dict(frame):
    run: dict = {}
    for topic, docno, score in frame[["topic", "docno", "score"]].itertuples(index=False):
        run.setdefault(topic, {})[docno] = score
    return run


def as_qrels_dict(frame):
    qrels: dict = {}
    for topic, subtopic, docno, grade in frame[QRELS_COLUMNS].itertuples(index=False):
        qrels.setdefault(topic, {}).setdefault(subtopic, {})[docno] = grade
    return qrels


def named_by_tag(runs):
    return {frame["tag"].iloc[0]: frame for frame in runs.values()}


# ---------------------------------------------------------------------------------------------
# every input kind: the files' numbers, exactly


def inputs_of(kind, frames):
    """(runs, qrels) of the sample data in one in-memory form."""
    runs, qrels = frames["runs"], frames["qrels"]
    if kind == "frames":  # a list: named by the tag column
        return list(runs.values()), qrels
    if kind == "frames without column names":  # pandas.read_csv(header=None)
        unnamed = {
            tag: frame.set_axis(range(6), axis=1) for tag, frame in named_by_tag(runs).items()
        }
        return unnamed, qrels.set_axis(range(4), axis=1)
    if kind == "ir_measures frames":
        columns = {"topic": "query_id", "docno": "doc_id", "subtopic": "iteration"}
        renamed = {t: f.rename(columns=columns) for t, f in named_by_tag(runs).items()}
        return renamed, qrels.rename(columns={**columns, "grade": "relevance"})
    if kind == "dicts":
        return {t: as_run_dict(f) for t, f in named_by_tag(runs).items()}, as_qrels_dict(qrels)
    if kind == "ir_measures records":
        ir_measures = pytest.importorskip("ir_measures")
        records = {
            tag: list(ir_measures.read_trec_run(str(f)))
            for tag, f in zip(("ql-cata", "rm-cata", "dssa"), RUN_FILES, strict=True)
        }
        return records, list(ir_measures.read_trec_qrels(str(QRELS)))
    if kind == "plain tuples":
        columns = ["topic", "docno", "score"]
        tuples = {t: list(f[columns].itertuples(index=False, name=None)) for t, f in
                  named_by_tag(runs).items()}  # fmt: skip
        qrels_tuples = list(qrels[["topic", "docno", "grade", "subtopic"]].itertuples(
            index=False, name=None))  # fmt: skip
        return tuples, qrels_tuples
    raise AssertionError(kind)


KINDS = [
    "frames",
    "frames without column names",
    "ir_measures frames",
    "dicts",
    "ir_measures records",
    "plain tuples",
]


@pytest.mark.parametrize("kind", KINDS)
def test_every_input_kind_gives_the_files_numbers(kind, frames, expected, collected_warnings):
    runs, qrels = inputs_of(kind, frames)
    table = divaeval.evaluate(runs, qrels, MEASURES).table()
    assert len(table) == len(expected) > 3000
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


def test_file_order_and_files_mixed_with_memory(frames, collected_warnings):
    # order="file" follows the rows as given; a file and a frame side by side; one run alone
    runs = frames["runs"]
    on_files = divaeval.evaluate([str(f) for f in RUN_FILES[:2]], str(QRELS), MEASURES,
                                 order="file").table()  # fmt: skip
    mixed = divaeval.evaluate([str(RUN_FILES[0]), runs["run2"]], frames["qrels"], MEASURES,
                              order="file").table()  # fmt: skip
    pd.testing.assert_frame_equal(mixed, on_files, check_exact=True)
    alone = divaeval.evaluate(runs["run"], QRELS, "alpha-nDCG@20").table()
    assert set(alone["run"]) == {"ql-cata"}


def test_ad_hoc_qrels_and_generated_ranks():
    # ad hoc qrels (topic, docno, grade) are subtopic 0, as "topic 0 docno grade" in a file;
    # without a rank column the ranks are 1, 2, ... in the given order (order="rank")
    qrels = pd.DataFrame({"topic": [1, 1, 2], "docno": ["a", "b", "c"], "grade": [1, 2, 1]})
    run = pd.DataFrame({"topic": [1, 1, 2], "docno": ["b", "a", "c"], "score": [0.0, 1.0, 5.0]})
    by_rank = divaeval.evaluate({"r": run}, qrels, ["P@1", "nDCG@2"], order="rank").table()
    # P@1: topic 1 ranks b first (relevant) -> 1, topic 2 -> 1; nDCG@2 of topic 1 with gains
    # (2, 1) in the ideal order: 1.0
    assert by_rank.set_index(["topic", "measure"])["value"].to_dict() == {
        ("1", "P@1"): 1.0,
        ("1", "nDCG@2"): 1.0,
        ("2", "P@1"): 1.0,
        ("2", "nDCG@2"): 1.0,
        ("all", "P@1"): 1.0,
        ("all", "nDCG@2"): 1.0,
    }
    by_score = divaeval.evaluate({"r": run}, qrels, "nDCG@2").per_topic
    # by score a (gain 1) comes first: DCG = 1 + 2/log2(3), ideal 2 + 1/log2(3)
    value = by_score.set_index("topic")["value"]["1"]
    assert value == pytest.approx((1 + 2 / 1.584962500721156) / (2 + 1 / 1.584962500721156))


def test_the_analyses_take_memory_as_files(frames):
    runs = named_by_tag(frames["runs"])
    files = [str(f) for f in RUN_FILES]
    qrels = as_qrels_dict(frames["qrels"])
    calls = [
        (
            divaeval.compare,
            dict(measures=["alpha-nDCG@20", "ERR-IA@20"], test="bootstrap", samples=100),
        ),  # fmt: skip
        (divaeval.risk, dict(measures="alpha-nDCG@20", risk_alpha=1)),
        (divaeval.prefer, {}),
        (divaeval.correlation, dict(measures=["alpha-nDCG@20", "P-IA@20"])),
        (divaeval.unanimity, dict(measures=["alpha-nDCG@20", "P-IA@20", "strec@20"])),
        (divaeval.intuitiveness, dict(measures=["alpha-nDCG@10", "D#-nDCG@10"], gold="I-rec@10")),
        (divaeval.discriminative_power, dict(measures="alpha-nDCG@20", samples=50)),
    ]
    for function, options in calls:
        on_files = function(files, str(QRELS), **options)
        in_memory = function(runs, qrels, **options)
        pd.testing.assert_frame_equal(in_memory.frame, on_files.frame, check_exact=True)
        assert in_memory.signature == on_files.signature
        if function is divaeval.prefer:
            pd.testing.assert_frame_equal(in_memory.pairs, on_files.pairs, check_exact=True)
    for function, options in [
        (divaeval.collection_table, {}),
        (divaeval.sensitivity, dict(measures="alpha-nDCG@20", samples=20)),
    ]:
        pd.testing.assert_frame_equal(
            function(frames["qrels"], **options).frame,
            function(str(QRELS), **options).frame,
            check_exact=True,
        )


def test_a_baseline_by_name_by_object_or_by_file(frames):
    runs = named_by_tag(frames["runs"])
    on_files = divaeval.risk([str(f) for f in RUN_FILES], str(QRELS), "alpha-nDCG@20",
                             baseline=str(RUN_FILES[1]), risk_alpha=2).frame  # fmt: skip
    for baseline in ("rm-cata", runs["rm-cata"]):
        frame = divaeval.risk(runs, QRELS, "alpha-nDCG@20", baseline=baseline, risk_alpha=2).frame
        pd.testing.assert_frame_equal(frame, on_files, check_exact=True)
    # ndeval's risk values, and the baseline outside the runs
    expected = divaeval.evaluate(str(RUN_FILES[0]), QRELS, "NRBP", baseline=str(RUN_FILES[1]))
    table = divaeval.evaluate({"ql-cata": runs["ql-cata"]}, QRELS, "NRBP", baseline=runs["rm-cata"])
    expected, table = expected.table(), table.table()
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


# ---------------------------------------------------------------------------------------------
# bad input: the files' one-line messages, located by row


def run_frame(**changes):
    frame = pd.DataFrame(
        {
            "topic": ["151", "151", "152"],
            "docno": ["d1", "d2", "d3"],
            "score": [3.0, 2.0, 1.0],
        }
    )
    for column, values in changes.items():
        frame[column] = pd.Series(values, dtype=object)
    return frame


QRELS_FRAME = pd.DataFrame(
    {"topic": ["151", "151"], "subtopic": ["1", "2"], "docno": ["d1", "d2"], "grade": [1, 2]}
)

BAD_RUNS = [
    (run_frame(score=[3.0, float("nan"), 1.0]),
     "run 'bm25': topic 151, docno d2 (row 1): score 'nan' is not a finite number"),
    (run_frame(score=[3.0, "x1", 1.0]),
     "run 'bm25': topic 151, docno d2 (row 1): score 'x1' is not a number"),
    (run_frame(docno=["d1", "d1", "d3"]),
     "run 'bm25': topic 151, docno d1 (row 1): duplicate docno d1 for topic 151 (also at row "
     "0); use --dedupe first to keep the first copy"),
    (run_frame(docno=["d1", "d 2", "d3"]),
     "run 'bm25': topic 151, docno d 2 (row 1): docno 'd 2' contains whitespace (ids are "
     "single tokens, as in files)"),
    (run_frame(topic=["151", None, "152"]),
     "run 'bm25': topic None, docno d2 (row 1): topic is missing"),
    (run_frame(topic=[151.0, 151.0, 152.0]),
     "run 'bm25': topic 151.0, docno d1 (row 0): topic 151.0 is a float: ids are strings or "
     "integers"),
    (run_frame(topic=["151", "#151", "152"]),
     "run 'bm25': topic #151, docno d2 (row 1): topic '#151' starts with '#' (a comment line "
     "in files)"),
    (run_frame(topic=["\ufeff151", "151", "152"]),
     "run 'bm25': topic \ufeff151, docno d1 (row 0): topic '\\ufeff151' starts with a "
     "byte-order mark"),
    (run_frame(docno=["d1", "", "d3"]),
     "run 'bm25': topic 151, docno  (row 1): docno is empty"),
    (run_frame(tag=["a", "b", "a"]),
     "run 'bm25': the tag column holds 2 runs (a, b); give one run per frame, e.g. "
     "dict(list(frame.groupby('tag')))"),
    (pd.DataFrame({"topic": ["1"], "doc": ["d"], "score": [1.0]}),
     "run 'bm25': no column for the docno (docno: docno or doc_id or docid); the columns are "
     "topic, doc, score"),
    ({"151": {"d1": 1.0, "d2": float("inf")}},
     "run 'bm25': topic 151, docno d2: score 'inf' is not a finite number"),
    ({"151": [("d1", 1.0)]},
     "run 'bm25': expected {topic: {docno: score}}, but topic 151 maps to a list"),
    (pd.DataFrame({"topic": [], "docno": [], "score": []}), "run 'bm25': the run has no rows"),
]  # fmt: skip


@pytest.mark.parametrize(("run", "message"), BAD_RUNS)
def test_bad_runs_give_one_located_line(run, message, collected_warnings):
    with pytest.raises(DataError) as caught:
        divaeval.evaluate({"bm25": run}, QRELS_FRAME, "P@2", order="score")
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


BAD_QRELS = [
    (QRELS_FRAME.assign(grade=[1, 2.5]),
     "qrels: topic 151, subtopic 2, docno d2 (row 1): grade '2.5' is not an integer"),
    (QRELS_FRAME.assign(subtopic=["1", "1"], docno=["d1", "d1"]),
     "qrels: topic 151, subtopic 1, docno d1 (row 1): conflicting judgments for topic 151 "
     "subtopic 1 docno d1: grade 2 here, grade 1 at row 0"),
    (QRELS_FRAME.assign(type=["inf", "web"]),
     "qrels: topic 151, subtopic 2, docno d2 (row 1): intent type 'web' in column 5 is not "
     "'inf' or 'nav'"),
    ({"151": {"d1": 1, "2": {"d2": 1}}},
     "qrels: topic 151 mixes subtopics ({subtopic: {docno: grade}}) with documents "
     "({docno: grade})"),
    (QRELS_FRAME.rename(columns={"grade": "relevance", "docno": "doc_id"}).assign(
        grade=[1, 1]),
     "qrels: columns 'grade', 'relevance' all name the grade; keep one"),
]  # fmt: skip


@pytest.mark.parametrize(("qrels", "message"), BAD_QRELS)
def test_bad_qrels_give_one_located_line(qrels, message):
    with pytest.raises(DataError) as caught:
        divaeval.evaluate({"bm25": run_frame()}, qrels, "P@2")
    assert str(caught.value) == message


def test_the_messages_are_the_files_own(tmp_path):
    # the same defect in a file and in memory: the same message after the location
    cases = [
        ("151 Q0 d1 1 3 t\n151 Q0 d2 2 nan t\n", run_frame(score=[3.0, float("nan"), 1.0])),
        ("151 Q0 d1 1 3 t\n151 Q0 d1 2 2 t\n", run_frame(docno=["d1", "d1", "d3"])),
    ]
    for text, frame in cases:
        path = tmp_path / "run.txt"
        path.write_text(text)
        with pytest.raises(DataError) as in_file:
            divaeval.evaluate(str(path), QRELS_FRAME, "P@2")
        with pytest.raises(DataError) as in_memory:
            divaeval.evaluate(frame, QRELS_FRAME, "P@2")
        assert in_file.value.message.replace("at line 1", "at row 0") == in_memory.value.message
        assert in_file.value.line == 2 and in_memory.value.file.endswith("(row 1)")


@pytest.mark.parametrize(
    ("runs", "qrels", "message"),
    [
        (42, QRELS_FRAME, "runs: expected a run or a list or dict of runs, got int"),
        ([], QRELS_FRAME, "runs: no run given"),
        (run_frame(), 3.5, "qrels: expected a path, DataFrame, dict or records, got float"),
        ({("a", 1): run_frame()}, QRELS_FRAME, "runs: a run's name must be a string, got ('a', 1)"),
    ],
)
def test_wrong_kinds_are_usage_errors(runs, qrels, message):
    with pytest.raises(UsageError) as caught:
        divaeval.evaluate(runs, qrels, "P@2")
    assert str(caught.value) == message


def test_in_memory_warning_locations_are_relocated():
    inputs = MemoryInputs()
    inputs.run(run_frame(), name="bm25")
    relocated = inputs.relocate_message("run 'bm25':3: odd (first seen at line 1)")
    assert relocated == "run 'bm25': topic 152, docno d3 (row 2): odd (first seen at row 0)"
    assert inputs.relocate_message("other.txt:3: odd") == "other.txt:3: odd"


# ---------------------------------------------------------------------------------------------
# warnings: Python's warnings module from the library, the sink when one is installed, stderr
# on the command line

LACKING = {"one": {"151": {"d1": 1.0}}}  # 1 of the 2 qrels topics


def test_library_warnings_are_divaeval_warnings():
    qrels = pd.concat([QRELS_FRAME, QRELS_FRAME.assign(topic="152")], ignore_index=True)
    with pytest.warns(DivaevalWarning, match=r"run one lacks 1 qrels topics \(e\.g\. 152\)") as got:
        divaeval.evaluate(LACKING, qrels, "P@2")
    assert got[0].filename == __file__  # attributed to the caller, not to divaeval
    assert issubclass(DivaevalWarning, UserWarning)


def test_an_installed_sink_keeps_the_warnings(collected_warnings):
    qrels = pd.concat([QRELS_FRAME, QRELS_FRAME.assign(topic="152")], ignore_index=True)
    with warnings.catch_warnings(record=True) as python_warnings:
        warnings.simplefilter("always")
        divaeval.evaluate(LACKING, qrels, "P@2")
    assert [w for w in python_warnings if issubclass(w.category, DivaevalWarning)] == []
    assert any("lacks 1 qrels topics" in message for message in collected_warnings)


def test_the_command_line_keeps_printing_warnings(capsys, tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("151 Q0 clueweb09-en0011-54-30937 1 1 r\n")
    with warnings.catch_warnings(record=True) as python_warnings:
        warnings.simplefilter("always")
        code, _, err = run_cli(capsys, run, QRELS, "-m", "P@5")
    assert code == 0
    assert "divaeval: warning: " in err and "lacks 9 qrels topics" in err
    assert [w for w in python_warnings if issubclass(w.category, DivaevalWarning)] == []


# ---------------------------------------------------------------------------------------------
# the public names


def test_every_public_function_is_listed_and_callable():
    for name in api.__all__:
        assert name in divaeval.__all__ and name in dir(divaeval)
        function = getattr(divaeval, name)
        assert callable(function) and function is getattr(api, name)
        assert ">>> " in (function.__doc__ or ""), f"{name} has no example"
    for name in ("evaluate", "compare", "prefer", "risk", "discriminative_power", "correlation",
                 "intuitiveness", "unanimity", "sensitivity", "axioms", "ties",
                 "collection_table", "DivaevalWarning", "DivaevalError"):  # fmt: skip
        assert name in divaeval.__all__


def test_import_stays_lazy():
    code = "import sys, divaeval; print(sorted({'numpy', 'pandas'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", api.__all__)
def test_docstring_example_runs(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read sample_data/
    found = doctest.DocTestFinder().find(getattr(api, name), name, globs={"divaeval": divaeval})
    (example,) = [test for test in found if test.name == name]  # (a class's own docstring)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DivaevalWarning)  # examples are clean
        runner.run(example)
    assert example.examples and runner.failures == 0


@pytest.mark.parametrize(
    ("command", "function", "options"),
    [
        (["-m", "alpha-nDCG@20", "-c"], divaeval.evaluate, dict(measures="alpha-nDCG@20",
                                                                  complete=True)),
        (["compare", "-m", "ERR-IA@20", "--test", "randomization", "-B", "50"], divaeval.compare,
         dict(measures="ERR-IA@20", test="randomization", samples=50)),
        (["risk", "-m", "strec@10", "--baseline", RUN_FILES[0], "--risk-alpha", "1"],
         divaeval.risk, dict(measures="strec@10", baseline=str(RUN_FILES[0]), risk_alpha="1")),
        (["prefer", "-m", "lexirecall"], divaeval.prefer, dict(measures="lexirecall")),
        (["meta", "unanimity", "-m", "P-IA@5", "-m", "strec@5"], divaeval.unanimity,
         dict(measures=["P-IA@5", "strec@5"])),
    ],
)  # fmt: skip
def test_signatures_are_the_command_lines(capsys, command, function, options):
    code, _, err = run_cli(capsys, *command, *RUN_FILES, QRELS, "-f", "csv", "--signature")
    assert code == 0, err
    result = function([str(f) for f in RUN_FILES], str(QRELS), **options)
    printed = err.strip().splitlines()[-1].removeprefix("divaeval: signature: ")
    assert result.signature == printed


def test_namedtuples_with_other_field_names_are_refused():
    Hit = namedtuple("Hit", ["qid", "docid", "value"])
    with pytest.raises(DataError, match=r"expected \(query_id, doc_id, score\); Hit records"):
        divaeval.evaluate([Hit("151", "d1", 1.0)], QRELS_FRAME, "P@2")


def test_dd_exponent_reaches_the_library(capsys):
    # the same weighted mean as the command line's --dd-exponent xi+1, and not the xi one
    run = RUN_FILES[0]
    plain = divaeval.evaluate(run, QRELS, ["P@5"], mean="dd").means
    golbus = divaeval.evaluate(run, QRELS, ["P@5"], mean="dd", dd_exponent="xi+1").means
    code, out, _ = run_cli(
        capsys, run, QRELS, "-m", "P@5", "--mean", "dd", "--dd-exponent", "xi+1", "-f", "jsonl"
    )
    assert code == 0
    assert json.loads(out.splitlines()[0])["value"] == golbus["value"].iloc[0]
    assert golbus["value"].iloc[0] != plain["value"].iloc[0]


# ---------------------------------------------------------------------------------------------
# issue 29: one summation of every mean; risk leaves the baseline's own row out


def test_the_same_mean_is_the_same_double_everywhere(capsys):
    # rm-cata's alpha-nDCG@20 summed pairwise (numpy's mean) is ...263, in topic order ...264
    files = [str(f) for f in RUN_FILES]
    evaluated = divaeval.evaluate(files, str(QRELS), "alpha-nDCG@20", complete=True).aggregate
    compared = divaeval.compare(files, str(QRELS), "alpha-nDCG@20")
    risked = divaeval.risk(files, str(QRELS), "alpha-nDCG@20").frame.set_index("run")["mean"]
    runs = compared.run_table.set_index("run")["mean"]
    for run in ("ql-cata", "rm-cata", "dssa"):
        mean = evaluated(run)["alpha-nDCG@20"]
        assert runs[run] == risked[run] == mean  # bit for bit
    pairs = compared.pairs.set_index(["run_a", "run_b"])
    assert pairs.loc[("ql-cata", "rm-cata"), "mean_b"] == evaluated("rm-cata")["alpha-nDCG@20"]
    assert repr(evaluated("rm-cata")["alpha-nDCG@20"]) == "0.3025572392529264"
    code, out, _ = run_cli(capsys, "compare", *files, QRELS, "-m", "alpha-nDCG@20", "-f", "jsonl")
    assert code == 0 and json.loads(out.splitlines()[0])["mean_b"] == 0.3025572392529264


def test_risk_leaves_the_baseline_out_whether_or_not_it_is_among_the_runs(capsys):
    files = [str(f) for f in RUN_FILES]
    among = divaeval.risk(files, str(QRELS), "alpha-nDCG@20", baseline=files[2]).frame
    apart = divaeval.risk(files[:2], str(QRELS), "alpha-nDCG@20", baseline=files[2]).frame
    assert list(among["run"]) == list(apart["run"]) == ["ql-cata", "rm-cata"]
    pd.testing.assert_frame_equal(among, apart, check_exact=True)  # ZRisk counts it once
    code, out, _ = run_cli(capsys, "risk", *files, QRELS, "-m", "P@5", "--baseline", files[2])
    assert code == 0 and "dssa" not in out
    code, out, _ = run_cli(capsys, "risk", "--help")
    assert "its own row is left out" in " ".join(out.split())


# ---------------------------------------------------------------------------------------------
# the evaluator and the shapes of a result (issue 25)


def test_an_evaluator_gives_evaluates_numbers_and_reads_the_qrels_once(monkeypatch, frames):
    files = [str(f) for f in RUN_FILES]
    expected = divaeval.evaluate(files, str(QRELS), MEASURES, complete=True)
    evaluator = divaeval.Evaluator(frames["qrels"], MEASURES, complete=True)
    import divaeval.evaluation as pipeline

    def no_second_index(*args, **kwargs):
        raise AssertionError("the qrels were indexed again")

    monkeypatch.setattr(pipeline, "QrelsIndex", no_second_index)
    together = evaluator.evaluate_many(files)
    one_by_one = [evaluator.evaluate(f) for f in files]
    pd.testing.assert_frame_equal(together.table(), expected.table(), check_exact=True)
    assert together.signature == expected.signature
    for run, result in zip(["ql-cata", "rm-cata", "dssa"], one_by_one, strict=True):
        assert result.runs == [run]
        assert result.aggregate() == expected.aggregate(run)
        assert result.to_dict() == expected.to_dict(run)


def test_the_shapes_of_an_evaluation(collected_warnings):
    files = [str(f) for f in RUN_FILES[:2]]
    result = divaeval.evaluate(files, str(QRELS), ["P@5", "alpha-nDCG@10"])
    assert list(result.per_topic.columns) == ["run", "topic", "measure", "value"]
    assert "all" not in set(result.per_topic["topic"])  # no mean mixed into per-topic rows
    assert result.frame is result.per_topic
    assert len(result.per_topic) == 2 * 10 * 2
    means = result.means.set_index(["run", "measure"])["value"]
    assert list(result.wide.index) == ["ql-cata", "rm-cata"]
    assert list(result.wide.columns) == ["P@5", "alpha-nDCG@10"]
    assert result.wide.loc["rm-cata", "P@5"] == means[("rm-cata", "P@5")]
    # pytrec_eval's {topic: {measure: value}} and ir_measures' {measure: mean}, per run
    per_topic = result.to_dict("ql-cata")
    assert set(per_topic) == {str(t) for t in range(151, 161)}
    row = result.per_topic.query("run == 'ql-cata' and topic == '151' and measure == 'P@5'")
    assert per_topic["151"]["P@5"] == row["value"].item()
    assert result.aggregate("ql-cata") == {
        "P@5": means[("ql-cata", "P@5")],
        "alpha-nDCG@10": means[("ql-cata", "alpha-nDCG@10")],
    }
    with pytest.raises(UsageError, match="run: name one of the 2 runs"):
        result.to_dict()
    with pytest.raises(UsageError, match="no run is named 'bm25'"):
        result.aggregate("bm25")


def test_the_notebook_runs():
    # docs/python-api.ipynb, executed as Jupyter would (so that it cannot rot)
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(ROOT / "docs" / "python-api.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("alpha-nDCG@20" in page for page in html)  # the results render as HTML tables


def test_results_show_their_means_and_significance_markers(collected_warnings):
    files = [str(f) for f in RUN_FILES]
    comparison = divaeval.compare(files, str(QRELS), ["alpha-nDCG@20", "P@10"])
    shown = comparison.display
    # dssa beats both on P@10 (paired t-test, Holm): ▲ and the runs beaten, beside its mean
    assert shown.loc["dssa", "P@10"] == "0.5100 ▲ ql-cata, rm-cata"
    assert shown.loc["ql-cata", "P@10"] == "0.2300"
    html = comparison._repr_html_()
    assert "▲ ql-cata, rm-cata" in html and "test=ttest" in html
    evaluation = divaeval.evaluate(files, str(QRELS), ["P@10"])
    assert "<table" in evaluation._repr_html_() and "0.23" in repr(evaluation)
    rich = pytest.importorskip("rich.console")
    console = rich.Console(record=True, width=120)
    console.print(comparison)
    assert "0.5100 ▲ ql-cata, rm-cata" in console.export_text()
    pytest.importorskip("matplotlib")
    assert evaluation.plot().axes  # its heat map (tests/test_plot_commands.py: what it draws)


def test_the_analyses_take_score_tables_in_memory(tmp_path, collected_warnings):
    # the long table evaluate gives, as a DataFrame or as the --scores file divaeval writes
    files = [str(f) for f in RUN_FILES]
    measures = ["alpha-nDCG@20", "P@10", "strec@10"]
    table = divaeval.evaluate(files, str(QRELS), measures, complete=True).table()
    path = tmp_path / "scores.tsv"
    table.to_csv(path, sep="\t", index=False)
    for function, options in [
        (divaeval.compare, {}),
        (divaeval.correlation, {}),
        (divaeval.unanimity, {}),
        (divaeval.discriminative_power, {"samples": 50}),
        (divaeval.intuitiveness, {"gold": "strec@10"}),
    ]:
        in_memory = function(scores=table, **options)
        from_file = function(scores=str(path), **options)
        from_runs = function(files, str(QRELS), measures if function is not divaeval.intuitiveness
                             else ["alpha-nDCG@20", "P@10"], **options)  # fmt: skip
        pd.testing.assert_frame_equal(in_memory.frame, from_file.frame, check_exact=True)
        pd.testing.assert_frame_equal(in_memory.frame, from_runs.frame, check_exact=True)
    with pytest.raises(DataError, match="no column value"):
        divaeval.compare(scores=table.drop(columns="value"))
    with pytest.raises(UsageError, match="depth applies to runs and qrels, not to scores"):
        divaeval.compare(scores=table, depth=5)
