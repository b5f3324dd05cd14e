"""Document selection sensitivity (Golbus et al. 2013 §7, Eq. 11; meta-evaluation.md §12)."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import FIXTURES  # noqa: E402

from divaeval.errors import UsageError
from divaeval.io import read_qrels
from divaeval.judged import QrelsIndex
from divaeval.meta.sensitivity import (
    coefficient_of_variation,
    evaluate_batch,
    selection_sensitivity,
    sensitivity,
)
from divaeval.metrics import parse_measures
from divaeval.settings import Settings

# meta-evaluation.md §12: subtopics A = {d1, d2, d4}, B = {d3, d4}; relevant set {d1..d4}
TINY_QRELS = """\
7 A d1 1
7 A d2 1
7 A d4 1
7 B d3 1
7 B d4 1
7 B d5 0
"""


def _index(tmp_path: Path, text: str) -> QrelsIndex:
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    return QrelsIndex(read_qrels(str(path)))


def test_exact_enumeration_tiny_case(tmp_path):
    """All 24 orders of {d1, d2, d3, d4}: S-recall@2 = 0.5 only when the top two are {d1, d2}
    (2·2 = 4 orders: both only cover A), else 1. Mean = (4·0.5 + 20·1)/24 = 11/12; population
    variance = (4·(0.5 − 11/12)² + 20·(1 − 11/12)²)/24 = 5/144, sd = 0.186339, CV = 0.203279;
    divisor 23: sd = √(5/138) = 0.190347, CV = 0.207651."""
    index = _index(tmp_path, TINY_QRELS)
    material = index.material_all
    perms = np.array(list(itertools.permutations(range(4))))  # pool positions
    rows = np.zeros(len(perms), dtype=np.int64)
    lengths = np.full(len(perms), 4, dtype=np.int64)
    measures = parse_measures(["strec@2"])
    values = evaluate_batch(material, rows, perms, lengths, measures, Settings(), 1)
    v = values[measures[0]]
    assert sorted(v.tolist()) == [0.5] * 4 + [1.0] * 20
    mean, sd, cv = coefficient_of_variation(v)
    assert mean == pytest.approx(11 / 12)
    assert sd == pytest.approx(math.sqrt(5 / 138))
    assert cv == pytest.approx(0.207651, abs=1e-6)
    assert np.std(v) / np.mean(v) == pytest.approx(0.203279, abs=1e-6)


def test_sampler_lands_near_exact_value(tmp_path):
    """With L = 1000 the sampled CV is within sampling error of 0.2033 (Pr(0.5) = 1/6)."""
    result = selection_sensitivity(_index(tmp_path, TINY_QRELS), ["strec@2"], samples=1000)
    assert result.n_relevant.tolist() == [4]  # d5 (judged 0) is not in the relevant set
    assert abs(result.dss["strec@2"][0] - 0.2033) < 0.03
    share = np.mean(result.values["strec@2"][0] == 0.5)
    assert abs(share - 1 / 6) < 4 * math.sqrt((1 / 6) * (5 / 6) / 1000)


def test_determinism_under_seed(tmp_path):
    index = _index(tmp_path, TINY_QRELS)
    a = selection_sensitivity(index, ["strec@2", "alpha-nDCG@3"], samples=200, seed=7)
    b = selection_sensitivity(index, ["strec@2", "alpha-nDCG@3"], samples=200, seed=7)
    c = selection_sensitivity(index, ["strec@2", "alpha-nDCG@3"], samples=200, seed=8)
    for name in a.measures:
        assert np.array_equal(a.values[name], b.values[name])
    assert not np.array_equal(a.values["alpha-nDCG@3"], c.values["alpha-nDCG@3"])
    assert a.seed == 7 and "seed=7" in a.signature and "samples=200" in a.signature


def test_topic_samples_independent_of_other_topics(tmp_path):
    """Each topic has its own generator (seed, crc32(topic)): adding a topic changes nothing
    for the others."""
    alone = selection_sensitivity(_index(tmp_path, TINY_QRELS), ["alpha-nDCG@2"], samples=100)
    more = TINY_QRELS + "8 A e1 1\n8 B e2 1\n8 B e3 2\n"
    both = selection_sensitivity(_index(tmp_path, more), ["alpha-nDCG@2"], samples=100)
    assert list(both.topics) == ["7", "8"]
    assert np.array_equal(alone.values["alpha-nDCG@2"][0], both.values["alpha-nDCG@2"][0])


def test_interchangeable_documents_give_zero(tmp_path):
    """Every relevant document judged 1 for the same single subtopic: every list is as good
    as any other, so every sample has the same value and dss = 0 exactly."""
    qrels = "".join(f"5 1 d{i} 1\n" for i in range(12))
    result = selection_sensitivity(
        _index(tmp_path, qrels), ["alpha-nDCG", "strec", "ERR-IA"], cutoffs=[5], samples=300
    )
    for name in result.measures:
        assert result.dss[name].tolist() == [0.0]
        assert result.average[name] == 0.0


def test_topic_averages_and_undefined(tmp_path):
    values = np.array([[1.0, 1.0], [0.0, 0.0], [1.0, 3.0]])
    mean, sd, cv = coefficient_of_variation(values)
    assert mean.tolist() == [1.0, 0.0, 2.0]
    assert sd[0] == 0.0 and math.isnan(cv[1]) and cv[2] == pytest.approx(math.sqrt(2) / 2)
    index = QrelsIndex(read_qrels(str(FIXTURES / "small" / "ref_ex" / "div.qrels")))
    avg = selection_sensitivity(index, ["strec@2"], samples=300, mean="arith")
    geom = selection_sensitivity(index, ["strec@2"], samples=300, mean="geom")
    dd = selection_sensitivity(index, ["strec@2"], samples=300, mean="dd")
    per_topic = avg.dss["strec@2"]
    assert avg.average["strec@2"] == pytest.approx(per_topic.mean())
    assert geom.average["strec@2"] == pytest.approx(math.exp(np.log(per_topic).mean()))
    assert min(per_topic) <= dd.average["strec@2"] <= max(per_topic)


def test_cutoff_option_and_refused_metrics(tmp_path):
    index = _index(tmp_path, TINY_QRELS)
    result = selection_sensitivity(index, ["strec", "alpha-nDCG@3"], cutoffs=[2, 4], samples=50)
    assert result.measures == ["strec@2", "strec@4", "alpha-nDCG@3"]  # the -m order
    assert result.dss["strec@4"].tolist() == [0.0]  # 4 documents cover both subtopics
    with pytest.raises(UsageError, match="negative"):
        selection_sensitivity(index, ["RBU@20"], samples=10)


def test_cli_sensitivity_reports_seed():
    from divaeval.cli.meta.sensitivity import sensitivity_command

    qrels = FIXTURES / "small" / "ref_ex" / "div.qrels"
    result = CliRunner().invoke(
        sensitivity_command,
        [str(qrels), "-m", "strec@2", "--samples", "100", "--seed", "3", "-q", "-f", "csv"],
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "measure,topic,relevant,samples,seed,mean,sd,dss"
    assert lines[1].startswith("strec@2,1,6,100,3,") and lines[-1].startswith("strec@2,all,2,")


def test_trec2012_runs_quickly():
    result = sensitivity(
        str(FIXTURES / "trec2012" / "qrels-for-ndeval.txt.gz"), ["strec@20"], samples=50
    )
    assert len(result.topics) == 50
    assert 0 < result.average["strec@20"] < 1


# ---------------------------------------------------------------------------------------------
# --grid: every measure at every point of a parameter grid, on the same sampled lists


def test_parse_grid_values_and_errors():
    from divaeval.metrics.grid import MAX_GRID_POINTS, parse_grid

    grid = parse_grid(["alpha=0:1:0.1,lambda=0:1:0.5", "beta=0.8"])
    assert grid.names == ["alpha", "lambda", "beta"]
    alpha = dict(grid.axes)["alpha"]
    assert alpha == ("0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")
    assert dict(grid.axes)["lambda"] == ("0", "0.5", "1")
    assert len(grid) == 33 and grid.points()[:2] == [("0", "0", "0.8"), ("0", "0.5", "0.8")]
    assert dict(parse_grid(["a=0:1:0.3"]).axes)["a"] == ("0", "0.3", "0.6", "0.9")
    assert dict(parse_grid(["k=2:10:4"]).axes)["k"] == ("2", "6", "10")
    assert parse_grid([]) is None and parse_grid([" , "]) is None
    for text, message in [
        ("alpha", "give NAME=START:STOP:STEP or NAME=VALUE"),
        ("alpha=0:1", "give NAME=START:STOP:STEP or NAME=VALUE"),
        ("alpha=0:1:0", "the step must be > 0"),
        ("alpha=1:0:0.1", "STOP is below START"),
        ("alpha=x", "'x' is not a number"),
        ("alpha=0:inf:1", "not a finite number"),
        ("alpha=0:1:0.1,alpha=0.5", "parameter alpha is given twice"),
        (f"a=1:{MAX_GRID_POINTS + 1}:1", f"at most {MAX_GRID_POINTS}"),
        ("a=1:200:1,b=1:100:1", f"20000 points (at most {MAX_GRID_POINTS})"),
    ]:
        with pytest.raises(UsageError, match=re.escape(message)):
            parse_grid([text])


def test_grid_measures_bind_and_check_parameters():
    from divaeval.metrics import parse_measure
    from divaeval.metrics.grid import grid_measures, parse_grid

    (measure,) = parse_measure("alpha#-nDCG-IA(avg=geom)@5")
    points = grid_measures(measure, parse_grid(["alpha=0:1:0.5,lambda=0.2"]))
    assert [m.name for _, m in points] == [
        "alpha#-nDCG-IA(alpha=0,lambda=0.2,avg=geom)@5",
        "alpha#-nDCG-IA(alpha=0.5,lambda=0.2,avg=geom)@5",
        "alpha#-nDCG-IA(alpha=1,lambda=0.2,avg=geom)@5",
    ]
    assert points[1][0] == {"alpha": 0.5, "lambda": 0.2}
    for text, grid, message in [
        ("D#-ERR@5", "alpha=0:1:0.5", "D#-ERR@5 has no parameter alpha (its parameters: gain,"),
        ("Judged@5", "alpha=0.5", "Judged@5 has no parameter alpha (it has no parameters)"),
        ("strec@5", "alpha=0.5", "strec@5 has no parameter alpha (its parameters: rel)"),
        ("alpha#-nDCG-IA@5", "avg=1", "parameter avg is not numeric; give it in -m"),
        ("alpha#-nDCG-IA(alpha=0.5)@5", "alpha=0:1:0.5", "alpha is given both in"),
        ("alpha#-nDCG-IA@5", "alpha=0:2:1", "alpha='2': must be in [0, 1]"),
    ]:
        with pytest.raises(UsageError, match=re.escape(message)):
            grid_measures(parse_measure(text)[0], parse_grid([grid]))


def test_grid_points_equal_single_evaluations(tmp_path):
    """Every grid point's topic average equals the measure evaluated alone at that point (the
    same seed draws the same lists); the maximum is the largest of them, the argmax the first
    point in grid order reaching it; at lambda = 1 every alpha gives S-recall exactly."""
    from divaeval.metrics.grid import parse_grid

    index = QrelsIndex(read_qrels(str(FIXTURES / "small" / "ref_ex" / "div.qrels")))
    grid = parse_grid(["alpha=0:1:0.5,lambda=0:1:0.5"])
    result = selection_sensitivity(
        index, ["alpha#-ERR-IA(avg=smr)"], cutoffs=[2, 3], samples=200, seed=5, grid=grid
    )
    assert result.values == {}  # not kept with a grid
    strec = selection_sensitivity(index, ["strec"], cutoffs=[2, 3], samples=200, seed=5)
    for found, k in zip(result.grid_maxima, (2, 3), strict=True):
        assert found.measure == f"alpha#-ERR-IA(avg=smr)@{k}" and len(found.points) == 9
        singles = []
        for point in found.points:
            text = f"alpha#-ERR-IA(alpha={point['alpha']},lambda={point['lambda']},avg=smr)@{k}"
            alone = selection_sensitivity(index, [text], samples=200, seed=5)
            singles.append(alone.average[alone.measures[0]])
        assert found.averages.tolist() == singles
        assert found.maximum == max(singles) and found.best == singles.index(max(singles))
        assert found.at_max == singles.count(max(singles))
        recall_points = [v for p, v in zip(found.points, singles, strict=True) if p["lambda"] == 1]
        assert recall_points == [strec.average[f"strec@{k}"]] * 3
    frame = result.grid_frame()
    assert list(frame.columns) == ["measure", "points", "at_max", "dss_max", "alpha", "lambda"] + [
        "samples",
        "seed",
    ]
    assert frame["points"].tolist() == [9, 9] and frame["seed"].tolist() == [5, 5]
    surface = result.grid_frame(all_points=True)
    assert len(surface) == 18 and surface["alpha"].tolist()[:4] == ["0", "0", "0", "0.5"]
    assert "grid=alpha=0:1:0.5,lambda=0:1:0.5" in result.signature


def test_cli_grid(capsys):
    from support import run_cli

    qrels = FIXTURES / "small" / "ref_ex" / "div.qrels"
    base = ["meta", "sensitivity", qrels, "-m", "alpha#-nDCG-IA", "-k", "2", "-B", "100"]
    code, out, err = run_cli(capsys, *base, "--grid", "alpha=0:1:0.5", "--grid", "lambda=0:1:1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "measure,points,at_max,dss_max,alpha,lambda,samples,seed"
    assert lines[1].startswith("alpha#-nDCG-IA@2,6,") and lines[1].endswith(",100,42")
    assert "|grid=alpha=0:1:0.5,lambda=0:1:1" in err  # sampled: the signature is on stderr
    code, out, err = run_cli(capsys, *base, "--grid", "alpha=0:1:0.5", "--all-points", "-f", "tsv")
    assert code == 0, err
    assert out.splitlines()[0] == "measure\tsamples\tseed\talpha\ttopics\tdss"
    assert len(out.splitlines()) == 4
    code, _, err = run_cli(capsys, *base, "--all-points")
    assert code == 2 and "--all-points needs --grid" in err
    code, _, err = run_cli(capsys, *base, "--grid", "alpha=0:1:0.5", "-q")
    assert code == 2 and "with --grid use --all-points" in err
    code, _, err = run_cli(capsys, *base, "--grid", "gamma=0:1:0.5")
    assert code == 2 and "alpha#-nDCG-IA@2 has no parameter gamma" in err
