"""The package layout's import rule (README, Development): every module imports only from
layers below its own (or from its own package), so the data flow io → judged → metrics →
scores/risk/report → evaluation → analyses → api → cli has no import back up."""

from __future__ import annotations

import ast

from support import ROOT

#: Layer of each part of divaeval (the longest matching module prefix wins).
LAYERS = {
    "divaeval": 0,  # __init__: the version and the lazy public names
    "divaeval.errors": 0,
    "divaeval.settings": 0,  # the settings object (no numpy: --help builds its options from it)
    "divaeval.atomic": 0,  # atomic replacement of output files
    "divaeval.ci": 0,  # check and gate results (cases, findings) and their CI formats
    "divaeval.topics": 0,
    "divaeval.parallel": 0,  # where work runs (in process, processes, Dask)
    "divaeval.io": 1,
    "divaeval.collection": 1,  # qrels statistics, used by metrics and --mean dd
    "divaeval.judged": 2,
    "divaeval.metrics": 3,
    "divaeval.scores": 4,  # per-topic scores and their means
    "divaeval.risk_measures": 4,  # risk values against a baseline; URisk, TRisk, ZRisk, GeoRisk
    "divaeval.report": 4,
    "divaeval.plots": 4,  # figures as data from score tables, their SVG and matplotlib drawings
    "divaeval.evaluation": 5,
    "divaeval.streaming": 5,  # a run scored block by block of topics
    "divaeval.stats": 6,
    "divaeval.meta": 7,
    "divaeval.api": 8,  # the public functions (divaeval.evaluate, compare, ...)
    "divaeval.ir_measures": 8,  # divaeval as an ir_measures provider (over the API)
    "divaeval.cli": 9,
    "divaeval.__main__": 9,
}


def layer_of(module: str) -> tuple[int, str]:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best], best


def imports(path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "divaeval":
            found.extend(f"divaeval.{alias.name}" for alias in node.names)  # submodules
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return [name for name in found if name == "divaeval" or name.startswith("divaeval.")]


def test_no_import_reaches_up_a_layer():
    package = ROOT / "divaeval"
    violations = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        level, home = layer_of(module)
        for target in imports(path):
            target_level, target_home = layer_of(target)
            if target_level > level and target_home != home:
                violations.append(f"{module} (layer {level}) imports {target} ({target_level})")
    assert not violations, "\n".join(violations)


def test_cli_command_modules_import_only_shared_cli_modules():
    # (and a command group's package, its own commands)
    for path in (ROOT / "divaeval" / "cli").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 3:
            shared = {".".join(parts[:-1])}
        elif parts[-1] in ("__init__", "app"):
            continue
        else:
            shared = {"divaeval.cli.options", "divaeval.cli.output", "divaeval.cli.paths"}
        cli_imports = [
            m for m in imports(path) if m == "divaeval.cli" or m.startswith("divaeval.cli.")
        ]
        assert set(cli_imports) <= shared, path.name


def test_every_command_module_has_its_module_of_the_api():
    cli = {
        ".".join(p.relative_to(ROOT / "divaeval" / "cli").with_suffix("").parts)
        for p in (ROOT / "divaeval" / "cli").rglob("*.py")
    }
    shared = {"__init__", "app", "options", "output", "paths", "meta.__init__"}
    assert cli - shared == set(COMMAND_API)
    for module in COMMAND_API.values():
        assert (ROOT / "divaeval" / "api" / f"{module.replace('.', '/')}.py").exists(), module


#: the meta analyses, one module each in divaeval.cli.meta and in divaeval.api.meta
META = (
    "agreement", "axioms", "correlation", "degradation", "intuitiveness", "power", "sensitivity",
    "ties", "unanimity",
)  # fmt: skip

#: each command module of divaeval.cli -> the module of divaeval.api that does its work
COMMAND_API = {
    "collection": "collection",
    "compare": "comparison",
    "evaluate": "evaluator",
    "metrics": "metrics",
    "prefer": "preferences",
    "report": "report",
    "risk": "risk_comparison",
    "check": "checking",
    **{f"meta.{name}": f"meta.{name}" for name in META},
}

#: The places where a divaeval module is imported inside a function, and why (issue 23: imports
#: you can see). Each rule: (the module, the functions or "*" for any, the divaeval modules it
#: may import there). Nowhere else: an import inside a function hides the import graph.
LAZY_IMPORTS = [
    # the program sets the process up (its collector threshold) before the command line and
    # what it imports load; the package's cli and main load when first used
    ("divaeval.cli", "*", {"divaeval.cli.app"}),
    # the command modules are imported to list the commands (--help); a command imports its
    # module of the API (and the plot check) when it runs, so that --help loads no numpy
    *(
        (f"divaeval.cli.{command}", "*", {f"divaeval.api.{module}", "divaeval.api.results"})
        for command, module in COMMAND_API.items()
    ),
    # the main job imports the API's evaluator and the result objects' base, which load the
    # figures' package (pandas; matplotlib when drawn) and -f latex's tests (scipy) when asked
    ("divaeval.api.results", "Result.plot", {"divaeval.plots"}),
    ("divaeval.api.results", "check_plot", {"divaeval.plots.draw"}),
    ("divaeval.api.evaluator", "EvaluationResult.latex", {"divaeval.stats.tables"}),
    ("divaeval.api.evaluator", "EvaluationResult.figure", {"divaeval.plots"}),
    # the quality gates (significance tests) load when asked, not for every main job
    ("divaeval.cli.evaluate", "evaluate_command", {"divaeval.api.gating"}),
    # compare's figure loads the figures' package (pandas), which its machine formats do not
    ("divaeval.api.comparison", "ComparisonResult.figure", {"divaeval.plots"}),
    # the score files' reader loads (with divaeval.meta) for --scores, not for runs and qrels
    ("divaeval.api._tables", "_analysed_tables", {"divaeval.meta.scores"}),
    # the sensitivity analysis (on divaeval.collection: pandas) loads when first named, not
    # when compare reads score files through divaeval.meta.scores
    ("divaeval.meta", "__getattr__", {"divaeval.meta.sensitivity"}),
    # completing -m in the shell loads the measure registry (numpy), not every start-up
    ("divaeval.cli.options", "complete_measure", {"divaeval.metrics"}),
    # the analysis tables' writers (on pandas) load when an analysis writes, not for the main
    # job, whose score tables have their own writers
    ("divaeval.cli.output", "write_tables", {"divaeval.report.frames"}),
    # only a run scored against a --baseline loads the risk measures
    ("divaeval.evaluation", "risk_settings", {"divaeval.risk_measures"}),
    ("divaeval.evaluation", "score_evaluation", {"divaeval.risk_measures"}),
    # only -j N > 1 or --scheduler loads the worker processes' and the cluster's machinery
    ("divaeval.parallel", "workers_for", {"divaeval.parallel"}),
    ("divaeval.parallel", "__getattr__", {"divaeval.parallel"}),
    # only --mean dd pays for the collection analysis (pandas)
    ("divaeval.evaluation", "difficulty_weights", {"divaeval.collection"}),
    # only the alpha#-IA smr average pays for the collection analysis (pandas)
    ("divaeval.metrics.families.alpha_sharp", "_smr_table", {"divaeval.collection"}),
]


def imports_in_functions(path) -> list[tuple[str, str]]:
    """(function, divaeval module) of every import of a divaeval module inside a function of
    the file (methods named Class.method)."""
    found: list[tuple[str, str]] = []

    def visit(node, scope: str, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{scope}.{child.name}" if scope else child.name
                visit(child, name, in_function or not isinstance(child, ast.ClassDef))
                continue
            if in_function and isinstance(child, ast.ImportFrom) and child.level == 0:
                if child.module == "divaeval":
                    found.extend((scope, f"divaeval.{alias.name}") for alias in child.names)
                elif child.module and child.module.startswith("divaeval."):
                    found.append((scope, child.module))
            elif in_function and isinstance(child, ast.Import):
                found.extend((scope, a.name) for a in child.names if a.name.startswith("divaeval"))
            visit(child, scope, in_function)

    visit(ast.parse(path.read_text(encoding="utf-8")), "", False)
    return found


def _allowed(module: str, function: str, target: str) -> bool:
    return any(
        module == where
        and functions in ("*", function)
        and any(target == home or target.startswith(home + ".") for home in homes)
        for where, functions, homes in LAZY_IMPORTS
    )


def test_divaeval_modules_are_imported_inside_functions_only_where_named():
    hidden = []
    for path in sorted((ROOT / "divaeval").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        for function, target in imports_in_functions(path):
            if not _allowed(module, function, target):
                hidden.append(f"{module}.{function}: {target}")
    assert not hidden, "\n".join(hidden)


def test_every_family_registers_its_metrics():
    from divaeval.metrics import FAMILIES, all_specs, get_spec

    families = {spec.family.replace("-", "_") for spec in all_specs()}
    assert set(FAMILIES) <= families, set(FAMILIES) - families
    for name in ("alpha-nDCG", "D#-nDCG", "RBU", "alpha#-nDCG-IA", "nDCG-IA", "AP", "TSE-ap"):
        assert get_spec(name).name == name


def test_the_main_job_and_the_metrics_list_import_neither_pandas_nor_scipy():
    # start-up matters for shell pipelines: the evaluate path stays on numpy, and off
    # numpy.ma (15 ms), which numpy 2.4's np.unique and np.setdiff1d import on first use;
    # `divaeval metrics` (which lists the risk measures of divaeval.risk_measures) loads no pandas
    # (0.8 s of its 1.2 s before). Of the API, the main job loads its evaluator alone, and none
    # of the analyses' packages.
    import subprocess
    import sys

    code = (
        "import sys; from divaeval.cli import main; "
        f"codes = [main([{str(ROOT / 'sample_data' / 'run.txt')!r}, "
        f"{str(ROOT / 'sample_data' / 'qrels.txt')!r}, '-m', 'ndeval', '-m', 'all@20', "
        "'-o', '/dev/null'])]; "
        "parts = ('divaeval.api.', 'divaeval.stats', 'divaeval.meta', 'divaeval.plots', "
        "'divaeval.collection', 'divaeval.report.frames'); "
        "print(sorted(m for m in sys.modules if m.startswith(parts)), file=sys.stderr); "
        "codes.append(main(['metrics', '--long'])); "
        "print(codes, sorted(m for m in ('pandas', 'scipy', 'numpy.ma') if m in sys.modules), "
        "file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stderr.splitlines()[-1] == "[0, 0] []", done.stderr
    loaded = ["divaeval.api._common", "divaeval.api.evaluator", "divaeval.api.results"]
    assert done.stderr.splitlines()[-2] == str(loaded), done.stderr
    assert "[risk-sensitive comparison" in done.stdout


def test_the_api_package_loads_its_modules_on_first_use():
    import subprocess
    import sys

    code = (
        "import sys, divaeval.api; print(sorted(m for m in sys.modules if m.startswith("
        "('numpy', 'divaeval.api.'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_measure_names_resolve_alike_however_few_families_are_imported():
    # Families are imported one by one until a looked-up name is registered: -m ndeval imports
    # the first family only, and names from later families, looked up first, mean the same
    # metrics and leave the registration order (the order of -m all) as importing all does.
    import json
    import subprocess
    import sys

    code = (
        "import json, sys; import divaeval.metrics as m; "
        "first = [x.spec.name for x in m.parse_measures(sys.argv[1:])]; "
        "loaded = m.registry._loaded; "
        "print(json.dumps([first, loaded, [s.name for s in m.all_specs()]]))"
    )

    def run(*names: str) -> list:
        done = subprocess.run(
            [sys.executable, "-c", code, *names], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    ndeval = run("ndeval")
    assert ndeval[1] == 1  # the ndeval family only
    last_first = run("alpha#-nDCG-IA@5", "P_10", "nDCG-IA@5")
    assert last_first[0] == ["alpha#-nDCG-IA", "P", "nDCG-IA"]
    assert last_first[2] == run("all@5")[2] == ndeval[2]


def test_a_name_with_measure_syntax_is_refused():
    # what makes the lazy lookup sound: text with -m syntax in it is never a registered name
    import pytest

    from divaeval.metrics.registry import register_preset

    for name in ("x@5", "x(a=1)", "x,y"):
        with pytest.raises(ValueError, match="holds one of"):
            register_preset(name, ["ERR-IA@5"], "never registered")


def test_no_submodule_shadows_a_public_name():
    # importing divaeval.X sets the attribute X of the package: a module named like a public
    # function (divaeval.risk) would replace that function once anything imported the module
    import divaeval

    modules = {p.stem for p in (ROOT / "divaeval").glob("*.py")}
    modules |= {p.name for p in (ROOT / "divaeval").iterdir() if (p / "__init__.py").exists()}
    assert not modules & set(divaeval.__all__)
    # the same within divaeval.api, whose modules are named for what they hold (evaluator.py
    # holds evaluate): a module divaeval.api.compare would replace the function api.compare
    from divaeval import api

    package = ROOT / "divaeval" / "api"
    modules = {p.stem for p in package.glob("*.py")}
    modules |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert not modules & {*api.__all__, *api._LAZY}
