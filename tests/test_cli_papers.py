"""The analyses of issue 28 on the command line and in the Python API: meta agreement, meta
degradation, meta ties --depth, meta unanimity --simulate and meta discriminative-power
--overlap; each reports its seed, agrees with the module it calls, and refuses bad values
with one line and exit code 2."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from support import SAMPLE_DATA, run_cli

import divaeval
from divaeval.errors import UsageError
from divaeval.meta.depth_ties import depth_ties

RUNS = [SAMPLE_DATA / name for name in ("run.txt", "run2.txt", "run3.txt")]
QRELS = SAMPLE_DATA / "qrels.txt"


def _csv(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out))


def test_agreement_command_and_api(capsys):
    code, out, err = run_cli(capsys, "meta", "agreement", *RUNS, QRELS, "-m", "AP", "-f", "csv")
    assert code == 0, err
    frame = _csv(out)
    api = divaeval.agreement([str(r) for r in RUNS], str(QRELS), "AP").frame
    assert frame["measure"].tolist() == ["AP", "lexirecall"]
    assert frame["sign_agreement"].tolist() == pytest.approx(api["sign_agreement"].tolist())
    code, out, _ = run_cli(capsys, "meta", "agreement", *RUNS, QRELS, "-f", "csv")
    assert _csv(out)["measure"].tolist() == [
        "R@1000", "Rprec", "AP", "nDCG", "RR", "nDCG@10", "lexirecall"
    ]  # fmt: skip


def test_degradation_command_reports_its_seed(capsys):
    args = ["meta", "degradation", *RUNS, QRELS, "-m", "AP", "--fractions", "0.2,0.6", "-B", "2"]
    code, out, err = run_cli(capsys, *args, "--seed", "5", "--sampling", "popular", "-f", "csv")
    assert code == 0, err
    frame = _csv(out)
    assert sorted(set(frame["fraction"])) == [0.0, 0.2, 0.6]
    assert set(frame["seed"]) == {5} and set(frame["sampling"]) == {"popular"}
    assert "seed=5" in err and "sampling=popular" in err  # a machine format: on stderr
    again = divaeval.degradation(
        [str(r) for r in RUNS], str(QRELS), "AP", fractions=[0.2, 0.6], samples=2, seed=5,
        sampling="popular",
    ).frame  # fmt: skip
    assert frame["agreement"].tolist() == pytest.approx(again["agreement"].tolist(), nan_ok=True)


def test_ties_with_depth(capsys):
    code, out, err = run_cli(
        capsys, "meta", "ties", "--n", 200, "--m", 5, "--depth", 200, "--depth", 20,
        "-B", 50, "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    frame = _csv(out)
    assert frame["depth"].tolist() == [200, 20]
    assert frame["LR"].iloc[1] == pytest.approx(float(depth_ties(200, 5, 20)["LR"]))
    assert "seed=42" in err
    # without --m: Figure 6, m ~ U(5, 50) per request
    code, out, err = run_cli(
        capsys, "meta", "ties", "--n", 5000, "--depth", 1000, "--requests", 3, "-B", 20,
        "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    assert _csv(out)["requests"].tolist() == [3]


def test_unanimity_simulated(capsys):
    args = ["meta", "unanimity", *RUNS, QRELS, "-m", "AP", "-m", "RR", "-m", "P@10"]
    code, out, err = run_cli(capsys, *args, "--simulate", "shorter", "--seed", "3", "-f", "csv")
    assert code == 0, err
    frame = _csv(out)
    assert set(frame["scenario"]) == {"grades+weights+lengths=run"} and set(frame["seed"]) == {3}
    assert "simulate=grades+weights+lengths=run|seed=3" in err


def test_discriminative_power_overlap(capsys):
    code, out, err = run_cli(
        capsys, "meta", "discriminative-power", *RUNS, QRELS, "-m", "AP", "-m", "RR",
        "-m", "P@10", "--test", "tukey-hsd", "-B", 100, "--overlap", "-f", "csv",
    )  # fmt: skip
    assert code == 0, err
    frame = _csv(out)
    assert frame[["metric_a", "metric_b"]].values.tolist() == [
        ["AP", "RR"], ["AP", "P@10"], ["RR", "P@10"]
    ]  # fmt: skip
    assert (frame["only_a"] + frame["both"] + frame["only_b"] <= frame["pairs"]).all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["meta", "degradation", *RUNS, QRELS, "--fractions", "0.5,1.5"], "--fractions"),
        (["meta", "degradation", *RUNS, QRELS, "--fractions", "x"], "--fractions"),
        (["meta", "degradation", *RUNS, QRELS, "--sampling", "random"], "--sampling"),
        (["meta", "degradation", RUNS[0], QRELS], "two"),
        (["meta", "agreement", RUNS[0], QRELS], "two"),
        (["meta", "unanimity", *RUNS, QRELS, "--simulate", "colours"], "scenario"),
        (["meta", "unanimity", *RUNS, QRELS, "--seed", "3"], "simulate"),
        (["meta", "ties", "--n", 100, "--m", 5, "--depth", 101], "depth"),
        (["meta", "ties", "--n", 100, "--m", 5, "--depth", 10, "-m", "AP"], "measures"),
        (["meta", "ties", "--n", 100, "--worst-case", "--depth", 10], "--worst-case"),
        (["meta", "ties", "--n", 100, "--depth", 10, "--requests", 0], "--requests"),
        (["meta", "ties", "--n", 100, "--depth", -1], "--depth"),
        (["meta", "degradation", *RUNS, QRELS, "-B", 0], "--samples"),
        (["meta", "discriminative-power", *RUNS, QRELS, "-m", "AP", "--overlap"], "two metrics"),
    ],
)
def test_bad_values(capsys, args, message):
    code, out, err = run_cli(capsys, *args)
    assert code == 2, (code, err)
    assert message in err and err.startswith("divaeval: ") and "Traceback" not in err
    assert out == ""


def test_api_bad_values():
    runs = [str(r) for r in RUNS]
    with pytest.raises(UsageError, match="samples"):
        divaeval.degradation(runs, str(QRELS), "AP", samples=0)
    with pytest.raises(UsageError, match="give both"):
        divaeval.unanimity(runs, None, "AP", simulate="shorter")
    with pytest.raises(UsageError, match="unknown option"):
        divaeval.agreement(runs, str(QRELS), "AP", jobs=2)
    with pytest.raises(UsageError, match="fractions"):
        divaeval.degradation(runs, str(QRELS), "AP", fractions=["0.5"])
    with pytest.raises(UsageError, match="fractions"):
        divaeval.degradation(runs, str(QRELS), "AP", fractions=1.5)
    with pytest.raises(UsageError, match="sampling"):
        divaeval.degradation(runs, str(QRELS), "AP", sampling="random")
    with pytest.raises(UsageError, match="seed"):
        divaeval.degradation(runs, str(QRELS), "AP", seed=-1)
    with pytest.raises(UsageError, match="simulate"):
        divaeval.unanimity(runs, str(QRELS), "AP", simulate=3)
    with pytest.raises(UsageError, match="depth"):
        divaeval.ties(100, 5, depth="10")
    with pytest.raises(UsageError, match="requests"):
        divaeval.ties(100, depth=10, requests=0)
