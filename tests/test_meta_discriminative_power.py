"""Discriminative power, Δ estimates and ASL curves (meta-evaluation.md §4, §8)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from divaeval.errors import UsageError
from divaeval.meta.discriminative_power import discriminative_power, plot_asl_curves

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


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is not None, reason="matplotlib present")
def test_plot_without_matplotlib_is_a_usage_error(tmp_path):
    result = discriminative_power({"M": WORKED}, RUNS, test="ttest")
    with pytest.raises(UsageError, match="matplotlib"):
        plot_asl_curves(result, str(tmp_path / "asl.png"))


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_plot_writes_a_file(tmp_path):
    result = discriminative_power({"M": WORKED}, RUNS, test="ttest")
    path = tmp_path / "asl.png"
    plot_asl_curves(result, str(path))
    assert path.stat().st_size > 0


def test_errors():
    with pytest.raises(UsageError):
        discriminative_power({}, RUNS)
    with pytest.raises(UsageError):
        discriminative_power({"M": WORKED}, RUNS, test="sign")
    with pytest.raises(UsageError):
        discriminative_power({"M": WORKED}, ["A", "B"])
