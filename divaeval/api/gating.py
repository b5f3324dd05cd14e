"""Quality gates on the main command (``--fail-under``, ``--fail-if-worse``): :func:`gate`
scores the runs as :func:`~divaeval.api.evaluator.evaluate` does and judges them, for CI jobs
that must fail (exit 4) when a run falls short.

- ``fail_under=["MEASURE=VALUE", ...]``: a run fails when its mean of MEASURE (the mean the
  main command prints, by the settings' ``mean``) is below VALUE by more than the tolerance of
  equal scores (1e-12 relative: 0.24999999999999997 reaches 0.25); a NaN mean fails.
- ``fail_if_worse=BASELINE``: each run is compared with the baseline run on every measure by a
  paired test over the topics both were scored on (every qrels topic with ``complete``), the
  p-values Holm-corrected across the measures (Holm 1979); a run fails on a measure when its
  mean is below the baseline's and the corrected p-value is below ``alpha``. Equal runs pass
  (every test gives them p = 1).

A gate judges a measure of ``measures`` (in any spelling: ``--fail-under P@10=0.2`` gates
``-m P.10``); a gate on a measure not among them is a usage error, so that the output stays
what ``-m`` asked for. The result holds the scores (:attr:`GateResult.evaluation`, what the
command line prints) and the judgement (:attr:`GateResult.report`, one case per run and gate,
in the CI formats of :mod:`divaeval.ci`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from divaeval import __version__
from divaeval.api._common import _library_call, _measures, _no_bytes, _resampling, _settings
from divaeval.api.evaluator import EVALUATING, EvaluationResult, Evaluator
from divaeval.api.results import Result
from divaeval.ci import ERROR, NOTE, Case, Finding, Report, report_in
from divaeval.errors import UsageError
from divaeval.evaluation import DEFAULT_MEASURES
from divaeval.metrics import Measure, parse_measures
from divaeval.scores import EQUAL_TOLERANCE
from divaeval.settings import Settings
from divaeval.stats import holm, pairwise_tests
from divaeval.stats.significance import DEFAULT_SEED, default_B

if TYPE_CHECKING:
    import pandas as pd

#: the tests of --fail-if-worse (``t`` is the paired t-test)
GATE_TESTS = {"t": "ttest", "ttest": "ttest", "randomization": "randomization",
              "bootstrap": "bootstrap"}  # fmt: skip


@dataclass(frozen=True)
class Bound:
    """One ``--fail-under MEASURE=VALUE``: the text given, its measures and the bound."""

    text: str
    measures: tuple[Measure, ...]
    value: float

    @property
    def value_text(self) -> str:
        """The bound as given (``0.2500001``, not ``0.25``)."""
        return self.text.rpartition("=")[2].strip()


def parse_bound(text: object) -> Bound:
    """``MEASURE=VALUE`` (the value after the last ``=``: a measure may hold ``=``, as
    ``alpha-nDCG(alpha=0.3)@20=0.4``); MEASURE as ``-m`` reads it (``P@5,10=0.2`` is two
    gates)."""
    if not isinstance(text, str) or "=" not in text:
        raise UsageError(f"--fail-under: expected MEASURE=VALUE, got {text!r}")
    name, _, value = text.rpartition("=")
    try:
        bound = float(value)
    except ValueError:
        bound = math.nan
    if not math.isfinite(bound):
        raise UsageError(f"--fail-under {text}: the bound {value!r} is not a finite number")
    if not name.strip():
        raise UsageError(f"--fail-under {text}: no measure before '='")
    try:
        measures = tuple(parse_measures([name]))
    except UsageError as error:  # named with the gate it came from
        raise UsageError(f"--fail-under {text}: {error}") from None
    return Bound(text, measures, bound)


@dataclass(eq=False, repr=False)
class GateResult(Result):
    """The runs scored (:attr:`evaluation`, as :func:`~divaeval.evaluate` returns them; the
    baseline's in :attr:`baseline`) and judged by the gates: :attr:`report` (one case per run
    and gate), :attr:`frame` (one row per run and gate: the value, the bound or the baseline's
    mean, the p-values), :attr:`passed` and the command line's :attr:`exit_code` (0 or 4)."""

    evaluation: EvaluationResult
    baseline: EvaluationResult | None
    report: Report
    rows: list[dict[str, Any]]

    @property
    def frame(self) -> pd.DataFrame:
        import pandas as pd  # (the main job prints the scores, not this table)

        columns = ["run", "gate", "measure", "value", "bound", "difference", "p_value",
                   "p_holm", "passed"]  # fmt: skip
        return pd.DataFrame(self.rows, columns=columns)

    @property
    def passed(self) -> bool:
        return not self.report.failed

    @property
    def exit_code(self) -> int:
        return self.report.exit_code

    def write(self, fmt: str = "text", out: TextIO | None = None) -> str | None:
        """The gates' report in ``fmt`` (text, jsonl, junit, github, markdown), written to
        ``out``, or returned as a string without one."""
        return report_in(self.report, fmt, out)


def gate(
    runs: Any,
    qrels: Any,
    measures: str | Sequence[str] | None = (),
    *,
    fail_under: str | Sequence[str] = (),
    fail_if_worse: Any = None,
    test: str = "t",
    samples: int | None = None,
    seed: int | None = None,
    alpha: float = 0.05,
    settings: Settings | None = None,
    **options: Any,
) -> GateResult:
    """Score ``runs`` (as :func:`~divaeval.evaluate`) and judge them by the gates: a mean of
    a ``fail_under`` measure below its bound, or significantly worse than the baseline run
    ``fail_if_worse`` (``test``: t, randomization or bootstrap, with ``samples`` resamples and
    ``seed``, default 42; Holm-corrected across the measures; level ``alpha``). The options
    are the settings of :func:`~divaeval.evaluate`.

    >>> result = divaeval.gate("sample_data/run.txt", "sample_data/qrels.txt", "alpha-nDCG@20",
    ...                        fail_under="alpha-nDCG@20=0.35",
    ...                        fail_if_worse="sample_data/run2.txt")
    >>> result.passed, result.frame[["gate", "value", "bound", "p_holm", "passed"]].round(4)
    (False,                     gate   value  bound  p_holm  passed
    0        fail-under 0.35  0.2996   0.35     NaN   False
    1  fail-if-worse rm-cata  0.2996    NaN  0.8447    True)
    """
    if not isinstance(test, str) or test not in GATE_TESTS:
        raise UsageError(f"test: expected one of {', '.join(GATE_TESTS)}, got {test!r}")
    _resampling(GATE_TESTS[test], samples, seed, alpha)
    chosen = _measures(measures) or list(DEFAULT_MEASURES)
    bounds = _gates(fail_under, fail_if_worse, runs, qrels)
    settings = _settings(settings, options, EVALUATING)
    with _library_call() as inputs:
        evaluator = Evaluator._from(inputs, qrels, chosen, settings)
        bounds = [_requested(bound, evaluator.measures) for bound in bounds]
        evaluation = evaluator.evaluate_many(runs)
        baseline = None if fail_if_worse is None else evaluator.evaluate(fail_if_worse)
    seed = DEFAULT_SEED if seed is None else seed
    samples = default_B(GATE_TESTS[test]) if samples is None else samples
    cases: list[Case] = []
    rows: list[dict[str, Any]] = []
    for run in evaluation.evaluation.runs:
        means = evaluation.evaluation.means(run, settings.mean)
        for bound in bounds:
            cases.append(_under(run, means, bound, rows))
        if baseline is not None:
            cases.extend(
                _worse(
                    run,
                    baseline,
                    evaluation.evaluation.measures,
                    GATE_TESTS[test],
                    samples,
                    seed,
                    alpha,
                    rows,
                )  # fmt: skip
            )
    signature = (
        f"{evaluation.signature} ; divaeval {__version__}|gates|"
        f"{_gates_signature(bounds, baseline, GATE_TESTS[test], samples, seed, alpha, rows)}"
    )
    report = Report("divaeval gates", cases, case_kind="gate")
    return GateResult(signature, evaluation, baseline, report, rows)


def _gates(fail_under: Any, fail_if_worse: Any, runs: Any, qrels: Any) -> list[Bound]:
    """The ``fail_under`` bounds (one ``MEASURE=VALUE`` text or a list of them), checked with
    ``fail_if_worse`` (one baseline run) and the inputs: at least one gate is given, and no
    path is bytes."""
    if fail_under is None:
        texts = []
    elif isinstance(fail_under, str):
        texts = [fail_under]
    elif isinstance(fail_under, (list, tuple)):
        texts = list(fail_under)
    else:
        raise UsageError(
            f"fail_under: expected 'MEASURE=VALUE' or a list of them, got {fail_under!r}"
        )
    bounds = [parse_bound(text) for text in texts]
    if not bounds and fail_if_worse is None:
        raise UsageError("no gate: give fail_under (--fail-under) or fail_if_worse")
    _no_bytes(runs, "runs")
    _no_bytes(qrels, "qrels")
    _no_bytes(fail_if_worse, "fail_if_worse")
    if isinstance(fail_if_worse, (list, tuple)) and not (
        fail_if_worse and isinstance(fail_if_worse[0], tuple)  # (a run's records)
    ):
        raise UsageError("fail_if_worse: one baseline run (a path or a run in memory)")
    return bounds


def _gates_signature(
    bounds: list[Bound],
    baseline: Any,
    test: str,
    samples: int | None,
    seed: int,
    alpha: float,
    rows: list[dict[str, Any]],
) -> str:
    """The gates' part of the signature: the bounds, and the baseline's test (its B and seed
    unless every randomization test enumerated its sign flips)."""
    parts = [f"fail_under={','.join(b.text for b in bounds)}"] if bounds else []
    if baseline is not None:
        exact = all(row.get("exact") for row in rows if "p_value" in row)
        if test == "ttest":
            resampled = ""
        elif exact:  # every randomization test enumerated its sign flips: no seed in play
            resampled = "|B=exact"
        else:
            resampled = f"|B={samples}|seed={seed}"
        parts.append(
            f"fail_if_worse={baseline.runs[0]}|test={test}{resampled}|alpha={alpha}|correction=holm"
        )
    return "|".join(parts)


def _computed(measure: Measure) -> tuple:
    """What a measure computes, whatever its spelling (``P@10``, ``P.10`` and ``P_10`` are one
    measure printed under three names)."""
    return measure.spec.name, measure.params, measure.cutoff


def _requested(bound: Bound, measures: Sequence[Measure]) -> Bound:
    """``bound`` on the measures as they are evaluated (under the names ``-m`` gave them); a
    usage error for a gate on a measure not evaluated: the gates judge the numbers printed,
    they never add a measure to them."""
    evaluated = {_computed(measure): measure for measure in measures}
    found = []
    for measure in bound.measures:
        if _computed(measure) not in evaluated:
            raise UsageError(
                f"--fail-under {bound.text}: {measure.name} is not among the measures "
                f"evaluated: add -m {measure.name} (a gate judges a measure the command prints)"
            )
        found.append(evaluated[_computed(measure)])
    return Bound(bound.text, tuple(found), bound.value)


def _under(run: Any, means: dict, bound: Bound, rows: list[dict[str, Any]]) -> Case:
    """One ``--fail-under`` gate on one run: a case failed by each of its measures whose mean
    is below the bound (or NaN)."""
    case = Case(run.name, f"fail-under {bound.text}", f"the mean is at least {bound.value_text}")
    for measure in bound.measures:
        mean = float(means[measure])
        # within the tolerance of equal scores (sums in another order differ in their last
        # bits: a mean of P@10 0.25 may be 0.24999999999999997); False for NaN
        passed = mean >= bound.value - EQUAL_TOLERANCE * max(1.0, abs(bound.value))
        rows.append({"run": run.name, "gate": f"fail-under {bound.value_text}",
                     "measure": measure.name, "value": mean, "bound": bound.value,
                     "passed": passed})  # fmt: skip
        if not passed:
            case.findings.append(
                Finding(
                    ERROR,
                    f"{measure.name}: mean {_mean_text(mean, bound.value)} is below "
                    f"{bound.value_text} "
                    f"(--fail-under {bound.text})",
                    file=run.path,
                )
            )
    return case


def _mean_text(mean: float, bound: float) -> str:
    """``mean`` to 4 decimals, or to 12 digits where 4 would round it up to the bound."""
    rounded = f"{mean:.4f}"
    return f"{mean:.12g}" if float(rounded) >= bound else rounded


def _worse(
    run: Any,
    baseline: EvaluationResult,
    measures: list[Measure],
    test: str,
    samples: int | None,
    seed: int,
    alpha: float,
    rows: list[dict[str, Any]],
) -> list[Case]:
    """``--fail-if-worse`` on one run: per measure, the mean difference from the baseline over
    the topics both were scored on, the paired test's p-value and its Holm-corrected value
    (across the measures); a case per measure, failed where the run is significantly worse."""
    base = baseline.evaluation.runs[0]
    topics = [str(t) for t in run.topics]
    at = {str(t): i for i, t in enumerate(base.topics)}
    common = [i for i, t in enumerate(topics) if t in at]
    if len(common) < 2:
        raise UsageError(
            f"--fail-if-worse: run {run.name} and the baseline {base.name} share "
            f"{len(common)} topic(s); a paired test needs at least 2"
        )
    theirs = [at[topics[i]] for i in common]
    differences, p_values, exacts = [], [], []
    for measure in measures:
        table = np.vstack([run.values[measure][common], base.values[measure][theirs]])
        differences.append(float(table[0].mean() - table[1].mean()))
        tested = pairwise_tests(table, test, samples, seed, alpha)
        p_values.append(float(tested.p_values[0]))
        exacts.append(bool(getattr(tested, "exact", False)))  # randomization on few topics
    adjusted = holm(np.nan_to_num(np.array(p_values), nan=1.0))
    cases = []
    for measure, diff, p, p_holm, exact in zip(
        measures, differences, p_values, adjusted, exacts, strict=True
    ):
        worse = diff < 0 and p_holm < alpha
        case = Case(run.name, f"fail-if-worse {measure.name}",
                    f"not significantly worse than {base.name}")  # fmt: skip
        verdict = "significantly worse" if worse else "not significantly worse"
        if test == "ttest":
            how = "paired t-test"
        elif exact:
            how = f"{test}, exact: all 2^{len(common)} sign flips"
        else:
            how = f"{test}, B={samples}, seed {seed}"
        case.findings.append(
            Finding(
                ERROR if worse else NOTE,
                f"{measure.name}: mean difference {diff:+.4f} against {base.name} over "
                f"{len(common)} topics, p = {p_holm:.4g} ({how}, Holm over {len(measures)} "
                f"measure{'s' if len(measures) > 1 else ''}; uncorrected {p:.4g}): {verdict} at "
                f"alpha {alpha:g}",
                file=run.path,
            )
        )
        rows.append({"run": run.name, "gate": f"fail-if-worse {base.name}",
                     "measure": measure.name, "value": float(run.values[measure][common].mean()),
                     "difference": diff, "p_value": p, "p_holm": float(p_holm),
                     "passed": not worse, "exact": exact})  # fmt: skip
        cases.append(case)
    return cases
