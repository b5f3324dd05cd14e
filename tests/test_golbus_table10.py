"""Golbus, Aslam & Clarke 2013, Table 10 (maximum document selection sensitivity over α, λ ∈
{0, 0.1, …, 1}) from the public TREC Web 2010 + 2011 diversity qrels (98 judged topics, the
paper's "all 100 TREC topics"), 1,000 lists per topic, seed 42; docs/reproducing.md has the
commands, every cell and the cells that are not reproduced.

The full grids take about a minute per cell group; this test evaluates the points where the
grid maxima lie (found by the documented ``--grid`` commands): the D# rows over the whole γ
grid (cheap: γ only mixes I-rec with the D-measure), the cascade and micro cells at α = 1,
λ = 0 or at λ = 1 (S-recall, where every α gives the same value). A cell agrees when
|divaeval − published| ≤ 0.002: the printed rounding (0.0005) plus two standard deviations of
the Monte Carlo estimate (0.0004–0.0008 between seeds for these averages). Each divaeval value
is also pinned to 4 decimals, so any change of the sampler or the metrics shows here.
"""

from __future__ import annotations

import gzip

import pytest
from support import FIXTURES

from divaeval.evaluation import difficulty_weights
from divaeval.io import read_qrels
from divaeval.judged import QrelsIndex
from divaeval.meta.sensitivity import selection_sensitivity
from divaeval.metrics.grid import parse_grid

GOLBUS = FIXTURES / "golbus"
AGREE = 0.002
MEANS = ("arith", "geom", "dd")
BINARY = "gains=1:1,2:1,3:1"  # the paper's binary judgments (2011 has grades 1-3)
KINDS = {"ERR": "ERR", "DCG": "nDCG", "RBP": "RBP"}

# Table 10, the D# rows: topic average -> discount -> (k = 5, 10, 20); published, divaeval
D_SHARP = {
    "arith": {
        "ERR": ((0.218, 0.152, 0.116), (0.2178, 0.1525, 0.1162)),
        "DCG": ((0.218, 0.152, 0.096), (0.2178, 0.1525, 0.0961)),
        "RBP": ((0.218, 0.152, 0.111), (0.2178, 0.1525, 0.1111)),
    },
    "geom": {
        "ERR": ((0.176, 0.109, 0.081), (0.1741, 0.1086, 0.0808)),
        "DCG": ((0.175, 0.095, 0.057), (0.1732, 0.0951, 0.0573)),
        "RBP": ((0.175, 0.097, 0.077), (0.1730, 0.0966, 0.0776)),
    },
    "dd": {
        "ERR": ((0.260, 0.194, 0.129), (0.2605, 0.1948, 0.1292)),
        "DCG": ((0.260, 0.194, 0.129), (0.2605, 0.1948, 0.1292)),
        "RBP": ((0.260, 0.194, 0.129), (0.2605, 0.1948, 0.1292)),
    },
}
# The cascade rows (every cell) and the micro cells that agree; the maximum is at α = 1,
# λ = 0, or at λ = 1 (S-recall) where marked "S".
CASCADE = {
    "arith": {
        "ERR": ((0.229, 0.210, 0.204), (0.2284, 0.2100, 0.2032), ""),
        "DCG": ((0.218, 0.174, 0.152), (0.2178, 0.1737, 0.1521), "S"),
        "RBP": ((0.218, 0.176, 0.170), (0.2178, 0.1762, 0.1703), "S"),
    },
    "geom": {
        "ERR": ((0.224, 0.205, 0.199), (0.2232, 0.2051, 0.1984), ""),
        "DCG": ((0.204, 0.168, 0.149), (0.2035, 0.1682, 0.1482), ""),
        "RBP": ((0.196, 0.167, 0.162), (0.1952, 0.1663, 0.1614), ""),
    },
    "dd": {
        "ERR": ((0.260, 0.220, 0.211), (0.2605, 0.2191, 0.2101), "S"),
        "DCG": ((0.260, 0.194, 0.163), (0.2605, 0.1948, 0.1625), "SS"),
        "RBP": ((0.260, 0.201, 0.193), (0.2605, 0.2009, 0.1932), "S"),
    },
}
# The SMR rows with smr=exact (miss rates without replacement): published, divaeval; the grid
# maximum lies at λ = 0 and α = 1 or α = 0 (both evaluated). The DCG@20 cells (marked None)
# stay 1.5-4 % below the paper for every seed (docs/reproducing.md).
SMR = {
    "arith": {
        "ERR": ((0.598, 0.518, 0.480), (0.5969, 0.5175, 0.4780)),
        "DCG": ((0.529, 0.404, None), (0.5282, 0.4035, 0.3212)),
        "RBP": ((0.516, 0.422, 0.391), (0.5150, 0.4220, 0.3907)),
    },
    "geom": {
        "ERR": ((0.504, 0.448, 0.425), (0.5034, 0.4482, 0.4236)),
        "DCG": ((0.436, 0.344, None), (0.4357, 0.3429, 0.2868)),
        "RBP": ((0.423, 0.344, 0.323), (0.4225, 0.3430, 0.3218)),
    },
    "dd": {
        "ERR": ((0.719, 0.612, 0.559), (0.7146, 0.6095, 0.5539)),
        "DCG": ((0.642, 0.492, None), (0.6387, 0.4903, 0.3696)),
        "RBP": ((0.629, 0.518, 0.478), (0.6260, 0.5159, 0.4744)),
    },
}
#: the dd-weighted SMR cells vary more between seeds (sd 0.0017-0.0039 over 10 seeds, against
#: 0.0005-0.0023 for the other averages): agreement within 0.006 there
SMR_AGREE = {"arith": AGREE, "geom": AGREE, "dd": 0.006}
# micro (published) where it agrees: (topic average, discount, k) -> published
MICRO = {
    ("arith", "ERR", 5): 0.229,
    ("arith", "ERR", 10): 0.211,
    ("arith", "ERR", 20): 0.204,
    ("arith", "DCG", 5): 0.218,
    ("arith", "DCG", 10): 0.174,
    ("arith", "DCG", 20): 0.154,
    ("arith", "RBP", 5): 0.218,
    ("geom", "ERR", 5): 0.224,
    ("geom", "ERR", 10): 0.206,
    ("geom", "ERR", 20): 0.199,
    ("geom", "DCG", 5): 0.204,
    ("geom", "DCG", 10): 0.169,
    ("dd", "ERR", 5): 0.260,
    ("dd", "ERR", 10): 0.220,
    ("dd", "ERR", 20): 0.211,
    ("dd", "DCG", 5): 0.260,
    ("dd", "DCG", 10): 0.194,
    ("dd", "RBP", 5): 0.260,
}


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> QrelsIndex:
    text = b"".join(
        gzip.decompress(path.read_bytes())
        for path in (
            GOLBUS / "wt2010-diversity.qrels.gz",
            GOLBUS / "wt2011-diversity-relevant.qrels.gz",
        )
    )
    path = tmp_path_factory.mktemp("golbus") / "wt2010-2011.qrels"
    path.write_bytes(text)
    index = QrelsIndex(read_qrels(str(path)))
    assert len(index.topics) == 98
    return index


@pytest.fixture(scope="module")
def weights(index) -> dict[str, dict[str, float] | None]:
    return {"arith": None, "geom": None, "dd": difficulty_weights(index, "xi+1")}


def _check(
    cell: str, value: float, published: float | None, pinned: float, agree: float = AGREE
) -> None:
    if published is not None:
        assert abs(value - published) <= agree, f"{cell}: {value:.4f}, published {published}"
    assert value == pytest.approx(pinned, abs=5e-5), f"{cell}: {value:.6f}, pinned {pinned}"


def test_d_sharp_rows(index, weights):
    """The D# rows: max over γ of D#-X with binary gains, X with discount 1/r (ERR),
    1/log2(r + 1) (nDCG), 0.8^(r−1) (RBP); the dd topic weights use exponent ξ + 1."""
    measures = [f"D#-{name}({BINARY})" for name in KINDS.values()]
    result = selection_sensitivity(
        index, measures, cutoffs=[5, 10, 20], grid=parse_grid(["gamma=0:1:0.1"])
    )
    for mean in MEANS:
        averages = result.averages(mean, weights[mean])
        for found in result.grid_maxima:
            kind = next(k for k, name in KINDS.items() if f"D#-{name}(" in found.measure)
            column = (5, 10, 20).index(int(found.measure.rsplit("@", 1)[1]))
            published, pinned = D_SHARP[mean][kind]
            best = max(averages[name] for name in found.names)
            _check(f"{mean} D# {found.measure}", best, published[column], pinned[column])


def test_cascade_and_micro_rows(index, weights):
    """The cascade rows and the micro cells that agree, at the grid's argmax: α = 1, λ = 0
    (then micro and cascade have the same dss: with α = 1 both credit each subtopic's first
    document only, and per topic they differ by the constant ideal) or λ = 1 (S-recall)."""
    at = "alpha=1,lambda=0"
    names = ["strec"] + [f"alpha#-{name}-IA({at},avg=cascade)" for name in KINDS.values()]
    names += [f"alpha#-{name}-IA({at})" for name in ("ERR", "nDCG", "RBP")]
    result = selection_sensitivity(index, names, cutoffs=[5, 10, 20])
    for k in (5, 10, 20):
        for name in KINDS.values():
            cascade = result.dss[f"alpha#-{name}-IA({at},avg=cascade)@{k}"]
            micro = result.dss[f"alpha#-{name}-IA({at})@{k}"]
            assert micro == pytest.approx(cascade, abs=1e-12, nan_ok=True)
    for mean in MEANS:
        averages = result.averages(mean, weights[mean])
        for kind, name in KINDS.items():
            published, pinned, s_recall = CASCADE[mean][kind]
            for column, k in enumerate((5, 10, 20)):
                at_recall = column < len(s_recall)
                key = f"strec@{k}" if at_recall else f"alpha#-{name}-IA({at},avg=cascade)@{k}"
                value = averages[key]
                _check(f"{mean} cascade {kind}@{k}", value, published[column], pinned[column])
                if (mean, kind, k) in MICRO:
                    micro = f"strec@{k}" if at_recall else f"alpha#-{name}-IA({at})@{k}"
                    assert abs(averages[micro] - MICRO[mean, kind, k]) <= AGREE


def test_smr_rows_with_exact_miss_rates(index, weights):
    """The SMR rows with smr=exact (C(R_T − R_t, ξ)/C(R_T, ξ), the miss probability Eq. 3
    approximates): the maximum over the grid is at λ = 0 with α = 1 (ERR, DCG) or α = 0 (RBP at
    shallow cutoffs, and every RBP/DCG@10+ cell of the dd average)."""
    names = [
        f"alpha#-{name}-IA(alpha={alpha},lambda=0,avg=smr,smr=exact)"
        for name in KINDS.values()
        for alpha in (0, 1)
    ]
    result = selection_sensitivity(index, names, cutoffs=[5, 10, 20])
    for mean in MEANS:
        averages = result.averages(mean, weights[mean])
        for kind, name in KINDS.items():
            published, pinned = SMR[mean][kind]
            for column, k in enumerate((5, 10, 20)):
                best = max(
                    averages[f"alpha#-{name}-IA(alpha={alpha},lambda=0,avg=smr,smr=exact)@{k}"]
                    for alpha in (0, 1)
                )
                _check(
                    f"{mean} smr {kind}@{k}",
                    best,
                    published[column],
                    pinned[column],
                    SMR_AGREE[mean],
                )
