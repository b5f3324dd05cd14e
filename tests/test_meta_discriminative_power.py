"""Discriminative power, Δ estimates and ASL curves (meta-evaluation.md §4, §8)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support import SAMPLE_DATA, run_cli

from divaeval.errors import UsageError
from divaeval.meta.discriminative_power import (
    discriminative_power,
)
from divaeval.plots import draw
from divaeval.plots.asl import asl_curves

WORKED = np.array(
    [
        [0.50, 0.60, 0.30, 0.80, 0.45],
        [0.40, 0.55, 0.35, 0.60, 0.40],
        [0.30, 0.20, 0.10, 0.40, 0.45],
    ]
)
RUNS = ["A", "B", "C"]


def test_worked_example_bootstrap():
    # exact ASLs 0.1536, 0.0368, 0.0896 → at α = 0.05 only A-C: 1/3
    result = discriminative_power({"M": WORKED}, RUNS, test="bootstrap", seed=42)
    item = result.metrics["M"]
    assert (item.n_significant, item.n_pairs) == (1, 3)
    assert item.power == pytest.approx(1 / 3)
    assert item.required_delta == pytest.approx(item.tests.pair_deltas.max())
    assert result.signature == "test=bootstrap|B=1000|seed=42|rng=PCG64|alpha=0.05"


def test_worked_example_tukey_hsd_and_t_test():
    # HSD: only A-C significant at 0.05 and at 0.10 → 1/3; Fig. 5 Δ = 0.53 − 0.29 = 0.24
    hsd = discriminative_power({"M": WORKED}, RUNS, test="tukey-hsd")
    assert hsd.metrics["M"].n_significant == 1
    assert hsd.metrics["M"].required_delta == pytest.approx(0.24)
    assert "hsd=>" in hsd.signature
    hsd10 = discriminative_power({"M": WORKED}, RUNS, test="tukey-hsd", alpha=0.10)
    assert hsd10.metrics["M"].n_significant == 1
    # t-test p = 0.160, 0.033, 0.067: 1/3 at 0.05, 2/3 at 0.10, no Δ estimate
    t05 = discriminative_power({"M": WORKED}, RUNS, test="ttest")
    t10 = discriminative_power({"M": WORKED}, RUNS, test="ttest", alpha=0.10)
    assert t05.metrics["M"].n_significant == 1 and t10.metrics["M"].n_significant == 2
    assert t05.metrics["M"].required_delta is None
    assert t05.signature == "test=ttest|alpha=0.05"


def test_summary_table_and_asl_curves():
    rng = np.random.default_rng(0)
    strong = np.clip(rng.random((6, 20)) * 0.3 + np.linspace(0, 0.6, 6)[:, None], 0, 1)
    weak = np.clip(strong + rng.normal(0, 0.4, strong.shape), 0, 1)
    runs = [f"r{i}" for i in range(6)]
    result = discriminative_power({"strong": strong, "weak": weak}, runs, B=500)
    table = result.table()
    assert table["metric"].tolist() == ["strong", "weak"]
    assert table["pairs"].tolist() == [15, 15]
    np.testing.assert_allclose(table["power_percent"], 100 * table["significant"] / 15)
    assert table.loc[0, "power"] > table.loc[1, "power"]
    curves = result.asl_curves()
    assert len(curves) == 30
    for _, curve in curves.groupby("metric"):
        assert np.all(np.diff(curve["asl"].to_numpy()) >= 0)
        assert curve["rank"].tolist() == list(range(1, 16))


def test_same_seed_gives_the_same_result():
    rng = np.random.default_rng(1)
    scores = {"m": rng.random((4, 10))}
    runs = list("abcd")
    calls = []
    first = discriminative_power(
        scores, runs, test="tukey-hsd", B=300, seed=3, progress=lambda *a: calls.append(a)
    )
    assert calls == [("m", 1, 1)]
    second = discriminative_power(scores, runs, test="tukey-hsd", B=300, seed=3)
    np.testing.assert_array_equal(
        first.metrics["m"].tests.p_values, second.metrics["m"].tests.p_values
    )


def test_plot_without_matplotlib_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were absent
    result = discriminative_power({"M": WORKED}, RUNS, test="ttest")
    with pytest.raises(UsageError, match=r"pip install 'divaeval\[plot\]'"):
        draw.save(asl_curves(result.asl_curves(), result.alpha), tmp_path / "asl.png")


def test_plot_without_matplotlib_fails_before_computing(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run_cli(
        capsys, "meta", "discriminative-power", SAMPLE_DATA / "run.txt", SAMPLE_DATA / "run2.txt",
        SAMPLE_DATA / "qrels.txt", "-m", "nosuchmeasure", "--plot", tmp_path / "asl.png",
    )  # fmt: skip
    # the unknown measure would be found while computing: the missing extra is reported first
    assert (code, out) == (2, "") and "divaeval[plot]" in err


def test_asl_figure_draws_each_metric_sorted_and_alpha(tmp_path):
    second = WORKED[:, ::-1] * 0.5
    result = discriminative_power({"M": WORKED, "N": second}, RUNS, test="ttest", alpha=0.1)
    figure = draw.draw(asl_curves(result.asl_curves(), result.alpha, title="t"))
    (axes,) = figure.axes
    curves = {line.get_label(): line for line in axes.get_lines() if line.get_label()[0] != "_"}
    assert set(curves) == {"M", "N"}
    for name in ("M", "N"):
        asl = np.sort(result.metrics[name].tests.p_values)
        np.testing.assert_array_equal(curves[name].get_ydata(), asl)
        np.testing.assert_array_equal(curves[name].get_xdata(), np.arange(1, len(asl) + 1))
    alpha_lines = [line for line in axes.get_lines() if line.get_linestyle() == ":"]
    assert [list(line.get_ydata()) for line in alpha_lines] == [[0.1, 0.1]]
    assert axes.get_title() == "t" and axes.get_ylabel() == "ASL (p-value)"
    # the PNG holds a drawn picture, not a blank canvas
    import matplotlib.image

    path = tmp_path / "asl.png"
    draw.save(asl_curves(result.asl_curves(), result.alpha), path)
    pixels = matplotlib.image.imread(str(path))
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100
    assert (pixels[..., :3] < 0.5).any() and (pixels[..., :3] > 0.9).any()


def test_errors():
    with pytest.raises(UsageError):
        discriminative_power({}, RUNS)
    with pytest.raises(UsageError):
        discriminative_power({"M": WORKED}, RUNS, test="sign")
    with pytest.raises(UsageError):
        discriminative_power({"M": WORKED}, ["A", "B"])


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "tukey-hsd"])
def test_a_p_value_equal_to_alpha_is_not_significant(test):
    # Significance is ASL < α (Sakai 2012, Fig. 3), strictly: with α set to an ASL that some
    # pair attains exactly (count/B), that pair does not count.
    first = discriminative_power({"M": WORKED}, RUNS, test=test, B=200, seed=7)
    p_values = first.metrics["M"].tests.p_values
    alpha = float(np.min(p_values[p_values > 0]))
    assert 0 < alpha < 1
    result = discriminative_power({"M": WORKED}, RUNS, test=test, B=200, seed=7, alpha=alpha)
    tests = result.metrics["M"].tests
    assert np.array_equal(tests.p_values, p_values)  # the same resamples
    at_alpha = int(np.count_nonzero(tests.p_values == alpha))
    assert at_alpha >= 1
    assert result.metrics["M"].n_significant == int(np.count_nonzero(p_values < alpha))
    assert result.metrics["M"].n_significant == len(p_values) - at_alpha - int(
        np.count_nonzero(p_values > alpha)
    )
