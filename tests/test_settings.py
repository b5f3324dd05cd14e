"""The settings object (:mod:`divaeval.settings`): one record per option, from which the command
line's shared options are generated and against which the API's keywords are checked; bad
values are usage errors naming the option as the caller spelled it."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import fields

import pytest
from support import SAMPLE_DATA, run_cli

import divaeval
from divaeval.errors import UsageError
from divaeval.settings import JUDGING, Settings, option_of

QRELS = str(SAMPLE_DATA / "qrels.txt")
RUN = str(SAMPLE_DATA / "run.txt")
RUN2 = str(SAMPLE_DATA / "run2.txt")

BAD_VALUES = [
    ("depth", "x", "depth must be an integer >= 1 or None, got 'x'"),
    ("depth", 0, "depth must be an integer >= 1 or None, got 0"),
    ("rel_level", 1.5, "relevance level rel_level must be an integer, got 1.5"),
    ("order", "best", "order must be one of score, score-docno-asc, score-file, rank, file"),
    ("dedupe", None, "dedupe must be one of error, first, got None"),
    ("compat", "trec", "compat must be one of ndeval, ntcireval, pref_eval, trec_eval, got 'trec'"),
    ("complete", "yes", "complete must be True or False, got str"),
    ("normalize_intents", 1, "normalize_intents must be True or False, got int"),
    ("intents", 42, "intents must be a path (str), a DataFrame or a dict, got int"),
    ("topics", b"/path", "topics must be a path (str), a DataFrame or a dict, got bytes"),
    ("mean", "median", "mean must be one of arith, geom, dd, got 'median'"),
    ("chunk_size", "8Q", "chunk_size must be a positive size such as 64M, not '8Q'"),
    ("chunk_size", 0, "chunk_size must be a positive size such as 64M, not 0"),
    ("jobs", -1, "jobs must be a non-negative integer or 'auto', not -1"),
    ("jobs", "many", "jobs must be a non-negative integer or 'auto', not 'many'"),
    ("scheduler", 5, "scheduler must be a string, got int"),
]


@pytest.mark.parametrize(("name", "value", "message"), BAD_VALUES)
def test_a_bad_value_is_a_usage_error_naming_the_setting(name, value, message):
    with pytest.raises(UsageError) as caught:
        Settings(**{name: value})
    assert str(caught.value).startswith(message)


def test_every_setting_has_a_bad_value_tested():
    assert {f.name for f in fields(Settings)} - {"dd_exponent"} == {n for n, _, _ in BAD_VALUES}


def test_values_are_normalized():
    settings = Settings(chunk_size="64K", intents=SAMPLE_DATA / "qrels.txt", rel_level=True + 1)
    assert settings.chunk_size == 65536 and settings.intents == QRELS
    assert settings.rel_level == 2 and Settings(jobs="auto").jobs == "auto"


def test_the_dd_exponent_needs_the_dd_mean():
    with pytest.raises(UsageError, match="^dd_exponent applies to mean dd, not mean arith$"):
        Settings(dd_exponent="xi+1")
    assert Settings(mean="dd", dd_exponent="xi+1").exponent == "xi+1"
    assert Settings(mean="dd").exponent == "xi"


def test_the_order_follows_compat_until_given():
    assert Settings().ranking_order == "score"
    assert Settings(compat="ndeval").ranking_order == "rank"
    # given as None, the order still follows a compat set later
    assert Settings().merged({"compat": "ndeval"}, ["compat"]).ranking_order == "rank"
    assert Settings(order="file", compat="ndeval").ranking_order == "file"


def test_signature_parts():
    assert Settings().signature() == "order=score|rel=1|depth=all|topic_set=common|dedupe=error"
    assert Settings(compat="ndeval", complete=True, depth=20).signature() == (
        "order=rank|rel=1|depth=20|topic_set=qrels|dedupe=error|compat=ndeval"
    )
    assert Settings(mean="dd").mean_signature() == "mean=dd|dd_exponent=xi"
    # the topic set evaluated is not the --topics file (subtopic types), which has its own part
    given = Settings(topics="sample_data/topics.xml", intents={"1": {"1": 1.0}}, complete=True)
    assert given.signature() == (
        "order=score|rel=1|depth=all|topic_set=qrels|dedupe=error|intents=memory|"
        "topic_types=topics.xml"
    )
    assert given.signature(("rel_level", "topics", "mean")) == "rel=1|topic_types=topics.xml"


def test_evaluate_and_sensitivity_sign_the_settings_they_use():
    topics = str(SAMPLE_DATA / "topics.xml")
    result = divaeval.evaluate(RUN, QRELS, "nDCG-IA@20", topics=topics, complete=True)
    assert "|topic_set=qrels|dedupe=error|topic_types=topics.xml|mean=arith|" in result.signature
    dss = divaeval.sensitivity(QRELS, "alpha-nDCG@20", samples=5, mean="dd", topics=topics)
    assert dss.signature.startswith(
        f"divaeval {divaeval.__version__}|meta sensitivity|rel=1|topic_types=topics.xml|"
        "mean=dd|dd_exponent=xi|dss|samples=5|seed=42|rng=PCG64|measures=alpha-nDCG@20"
    )


def test_an_unknown_api_keyword_names_it_and_the_valid_ones():
    with pytest.raises(UsageError) as caught:
        divaeval.evaluate(RUN, QRELS, "P@5", rel_levle=2)
    assert str(caught.value).startswith("unknown option 'rel_levle'; the options here are depth,")
    with pytest.raises(UsageError, match="unknown option 'mean'; the options here are rel_level"):
        divaeval.prefer([RUN, RUN], QRELS, mean="geom")
    with pytest.raises(UsageError, match="settings must be a divaeval.Settings, got dict"):
        divaeval.evaluate(RUN, QRELS, "P@5", settings={"depth": 5})


def test_settings_and_keywords_combine_and_keywords_win():
    by_keywords = divaeval.evaluate(RUN, QRELS, "P@5", depth=3, mean="geom")
    combined = divaeval.evaluate(
        RUN, QRELS, "P@5", settings=Settings(depth=3, mean="arith"), mean="geom"
    )
    assert by_keywords.signature == combined.signature
    assert by_keywords.means.equals(combined.means)


def test_the_command_line_names_the_flags(capsys):
    code, _, err = run_cli(capsys, RUN, QRELS, "--chunk-size", "8Q")
    assert code == 2
    assert err == "divaeval: --chunk-size must be a positive size such as 64M, not '8Q'\n"
    code, _, err = run_cli(capsys, RUN, QRELS, "--dd-exponent", "xi+1")
    assert code == 2 and err == "divaeval: --dd-exponent applies to --mean dd, not --mean arith\n"


def test_every_setting_of_a_command_is_one_of_its_options(capsys):
    # the options are generated from the settings: evaluate has every one, compare the judging
    for command, names in [
        (["evaluate"], [f.name for f in fields(Settings)]),
        (["compare"], list(JUDGING)),
    ]:
        code, out, _ = run_cli(capsys, *command, "--help")
        assert code == 0
        for name in names:
            assert option_of(name).long_flag in out, (command, name)


@pytest.mark.parametrize(
    "command",
    [["evaluate"], ["compare"], ["risk"], ["prefer"], ["report"], ["meta", "correlation"]],
)
def test_depth_reads_as_n_and_compat_offers_the_commands_tools(capsys, command):
    code, out, _ = run_cli(capsys, *command, "--help")
    assert code == 0
    assert "-M, --depth N " in out and "INTEGER RANGE  " not in out.split("-M, --depth")[1][:20]
    tools = "[pref_eval]" if command == ["prefer"] else "[ndeval|ntcireval|trec_eval]"
    assert f"--compat {tools}" in out


def test_settings_import_no_numpy():
    code = "import sys, divaeval.settings; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_compat_tool_applies_where_its_work_is_done():
    """pref_eval's arithmetic applies to the preferences, the scoring tools' quirks to the
    scores: each API function refuses the others' tools, naming its own."""
    with pytest.raises(UsageError, match="^compat 'pref_eval' does not apply here; the tools "):
        divaeval.evaluate(RUN, QRELS, "P@5", compat="pref_eval")
    with pytest.raises(UsageError, match="compat 'ndeval' does not apply here.*pref_eval$"):
        divaeval.prefer([RUN, RUN2], QRELS, compat="ndeval")
    with pytest.raises(UsageError, match="compat 'pref_eval' does not apply here"):
        divaeval.compare([RUN, RUN2], QRELS, "P@5", settings=Settings(compat="pref_eval"))
    result = divaeval.prefer([RUN, RUN2], QRELS, "lexiprecision", compat="pref_eval")
    assert "|compat=pref_eval|" in result.signature
    assert result.pairs["mean"].tolist() == [-2.7755575615628914e-17]
    assert divaeval.prefer([RUN, RUN2], QRELS, "lexiprecision").pairs["mean"].tolist() == [0.0]


def test_every_analysis_of_runs_signs_how_they_were_judged(tmp_path):
    """compare and the meta analyses of runs name the judging settings (-M 5 changes every
    number); from --scores files, which no judging setting applies to, they name the files."""
    runs = [RUN, RUN2, str(SAMPLE_DATA / "run3.txt")]
    judged = "|order=score|rel=1|depth=5|topic_set=qrels|dedupe=error|"
    results = [
        divaeval.compare(runs, QRELS, "alpha-nDCG@20", depth=5),
        divaeval.correlation(runs, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], depth=5),
        divaeval.discriminative_power(runs, QRELS, "alpha-nDCG@20", samples=20, depth=5),
        divaeval.intuitiveness(
            runs, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], gold="I-rec@20", depth=5
        ),
        divaeval.unanimity(runs, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], depth=5),
    ]
    for result in results:
        assert judged in result.signature + "|", result.signature
    scores = tmp_path / "scores.tsv"
    divaeval.evaluate(runs, QRELS, ["alpha-nDCG@20", "ERR-IA@20"], complete=True).table(
        summary=False
    )[["run", "topic", "measure", "value"]].to_csv(scores, sep="\t", index=False)
    from_scores = divaeval.correlation(scores=str(scores))
    assert from_scores.signature.endswith("|runs=3|scores=scores.tsv")


@pytest.mark.parametrize(
    ("command", "constant"),
    [
        (["evaluate"], "divaeval.evaluation:DEFAULT_MEASURES"),
        (["report"], "divaeval.api.report:REPORT_MEASURES"),
        (["meta", "agreement"], "divaeval.meta.agreement:DIAZ_MEASURES"),
        (["meta", "degradation"], "divaeval.meta.agreement:DIAZ_MEASURES"),
    ],
)
def test_the_measures_help_says_the_commands_own_default(capsys, command, constant):
    # the help writes the defaults out (--help imports no analysis): they must not drift
    module, name = constant.split(":")
    defaults = getattr(importlib.import_module(module), name)
    code, out, _ = run_cli(capsys, *command, "--help")
    assert code == 0
    assert f"[default: {', '.join(defaults)}" in " ".join(out.split())
