"""Every public function of ``divaeval`` checks its arguments (issue 22): a wrong type or value
is a :class:`~divaeval.errors.DivaevalError` (``UsageError``, ``DataError``) whose message names
the argument, never a raw ``TypeError``, ``AttributeError``, ``KeyError`` or ``ValueError``.
A property test feeds wrong values to every argument of every name in ``divaeval.__all__``."""

from __future__ import annotations

import contextlib
import inspect
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import SAMPLE_DATA, examples

import divaeval
from divaeval.errors import DivaevalError, DivaevalWarning, UsageError

QRELS = str(SAMPLE_DATA / "qrels.txt")
RUNS = [str(SAMPLE_DATA / name) for name in ("run.txt", "run2.txt")]

#: a valid call of every public function, small enough to be quick
VALID: dict[str, dict] = {
    "evaluate": dict(runs=RUNS[0], qrels=QRELS, measures="P@5"),
    "Evaluator": dict(qrels=QRELS, measures="P@5"),
    "compare": dict(runs=RUNS, qrels=QRELS, measures="P@5"),
    "risk": dict(runs=RUNS, qrels=QRELS, measures="P@5", baseline=RUNS[0]),
    "prefer": dict(runs=RUNS, qrels=QRELS, measures="lexirecall"),
    "discriminative_power": dict(runs=RUNS, qrels=QRELS, measures="P@5", samples=20),
    "correlation": dict(runs=RUNS, qrels=QRELS, measures=["P@5", "P@10"]),
    "intuitiveness": dict(runs=RUNS, qrels=QRELS, measures=["P@5", "P@10"], gold="strec@5"),
    "unanimity": dict(runs=RUNS, qrels=QRELS, measures=["P@5", "P@10", "strec@5"]),
    "agreement": dict(runs=RUNS, qrels=QRELS, measures="P@5"),
    "degradation": dict(runs=RUNS, qrels=QRELS, measures="P@5", fractions=0.5, samples=2),
    "sensitivity": dict(qrels=QRELS, measures="P@5", samples=5),
    "axioms": dict(measures="P@3", constraint="Pri", cases=2, max_length=3),
    "ties": dict(n=20, m=2, cutoff=5),
    "collection_table": dict(qrels=QRELS),
    "report_page": dict(runs=RUNS, qrels=QRELS, measures="P@5"),
    "check": dict(runs=RUNS[0], qrels=QRELS, depth=100),
    "gate": dict(runs=RUNS[0], qrels=QRELS, measures="P@5", fail_under="P@5=0.1"),
    "list_metrics": dict(pattern="rbu"),
    "read_run": dict(source=RUNS[0]),
    "read_qrels": dict(source=QRELS),
    "read_intents": dict(source={"151": {"1": 1.0}}),
    "read_topic_types": dict(source=str(SAMPLE_DATA / "topics.xml")),
    "parse_measures": dict(measures="P@5"),
    "score_matrix": dict(
        table=pd.DataFrame({"run": ["a"], "topic": ["1"], "measure": ["M"], "value": [0.5]}),
        measure="M",
    ),  # fmt: skip
    "Settings": dict(),
}

#: arguments left out: where the work runs (a wrong but valid value would start processes
#: or a Dask cluster) and the plot and fixed-run files (a valid name would write them)
NOT_FUZZED = {"jobs", "scheduler", "plot", "fix"}

WRONG = st.sampled_from(
    [None, 0, -1, 42, 3.5, float("nan"), True, b"/path", "", "nonsense", object(), [None],
     [42], {"x": object()}, (1, 2), pd.DataFrame({"x": [1]})]
)  # fmt: skip


def public_callables() -> list[str]:
    names = []
    for name in divaeval.__all__:
        value = getattr(divaeval, name)
        exception = isinstance(value, type) and issubclass(value, (BaseException, Warning))
        if callable(value) and not exception:
            names.append(name)
    return sorted(names)


def test_every_public_callable_has_a_valid_call():
    assert set(public_callables()) == set(VALID)


def arguments_of(name: str) -> list[str]:
    signature = inspect.signature(getattr(divaeval, name))
    own = [
        p.name
        for p in signature.parameters.values()
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name not in NOT_FUZZED
    ]
    if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
        own += ["depth", "rel_level", "order"]  # settings taken as keywords
    return own


CASES = [(name, argument) for name in sorted(VALID) for argument in arguments_of(name)]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=st.sampled_from(CASES), value=WRONG)
def test_a_wrong_argument_is_a_divaeval_error(case, value, collected_warnings):
    name, argument = case
    call = dict(VALID[name])
    call[argument] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DivaevalWarning)
        with contextlib.suppress(DivaevalError):  # anything else fails the test
            getattr(divaeval, name)(**call)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: divaeval.evaluate(RUNS[0], QRELS, 42), "measures: expected a measure string"),
        (lambda: divaeval.evaluate(RUNS[0], QRELS, ["P@3", None]), "measures: expected measure "
         "strings, got NoneType (None)"),
        (lambda: divaeval.evaluate(RUNS[0], QRELS, "P@3", depth="x"), "depth must be an "
         "integer >= 1 or None, got 'x'"),
        (lambda: divaeval.evaluate(b"/path", QRELS), "runs: a path is a str (or os.PathLike), "
         "got bytes"),
        (lambda: divaeval.read_run(None), "run 'run1': expected a DataFrame, dict or records, "
         "got NoneType"),
        (lambda: divaeval.read_qrels(123), "qrels: expected a path, DataFrame, dict or "
         "records, got int"),
        (lambda: divaeval.read_intents(pd.DataFrame({"topic": ["1"]})), "intents: no column "
         "for the subtopic, probability"),
        (lambda: divaeval.score_matrix(None, "P@5"), "table: expected a DataFrame, got "
         "NoneType"),
        (lambda: divaeval.axioms(["P@5"], cases=-1), "cases: expected an integer >= 0"),
        (lambda: divaeval.intuitiveness(RUNS, QRELS, gold=None), "intuitiveness: give gold"),
        (lambda: divaeval.compare(RUNS, QRELS, "P@5", samples="x"), "samples: expected an "
         "integer >= 1 or None, got 'x'"),
    ],
)  # fmt: skip
def test_the_issue_22_cases_name_the_argument(call, message):
    with pytest.raises(DivaevalError) as caught:
        call()
    assert str(caught.value).startswith(message), str(caught.value)


def test_none_measures_mean_the_default_and_a_string_is_one_specification():
    table = divaeval.evaluate(RUNS[0], QRELS, None).means
    assert len(table) == 21  # ndeval's 21 columns
    assert [m.name for m in divaeval.parse_measures("RR")] == ["RR"]
    assert [m.name for m in divaeval.parse_measures("P@3")] == ["P@3"]
    with pytest.raises(UsageError, match="give at least one measure"):
        divaeval.parse_measures([])


@pytest.mark.parametrize("run", [None, 42, b"/path", [RUNS[0], RUNS[1]]])
def test_an_evaluators_run_is_checked(run):
    evaluator = divaeval.Evaluator(QRELS, "P@5")
    with pytest.raises(UsageError):
        evaluator.evaluate(run)
