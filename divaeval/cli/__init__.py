"""The command line: ``divaeval RUN... QRELS -m MEASURE ...`` and its subcommands.

One module per command (:mod:`.evaluate`, :mod:`.metrics`, :mod:`.compare`, :mod:`.risk`,
:mod:`.prefer`, :mod:`.meta`, :mod:`.collection`), the options they share in :mod:`.options`,
the files they read and write in :mod:`.paths` (no output over an input; atomic replacement),
the writing of their output in :mod:`.output`, and the group with the error handling in
:mod:`.app`. Command modules import :mod:`.options`, :mod:`.paths` and :mod:`.output` only,
never the package or each other; the
work itself is done by the library (:mod:`divaeval.evaluation`, :mod:`divaeval.stats`,
:mod:`divaeval.meta`, :mod:`divaeval.collection`), imported inside the commands so that
``divaeval --help`` stays fast.

This package loads nothing until it is used: the program's :func:`entry_point` sets the
process up before click, numpy and the commands are imported.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from divaeval.cli.app import cli, main

__all__ = ["cli", "entry_point", "main"]

#: container allocations between two collections of the youngest generation (Python's default
#: 700). Importing numpy, click and divaeval creates tens of thousands of functions, classes and
#: tuples but next to no garbage cycles, and the work keeps its data in numpy arrays: with the
#: default, scoring the 9 TREC 2012 runs ran the collector 46 times for 5.3 ms (3 % of the
#: command), and found about 16,000 objects in cycles, most of them the import machinery's.
#: Cycles are still collected, less often; mypy's command line does the same.
COLLECT_AFTER = 100_000


def entry_point() -> None:
    """The ``divaeval`` program (and ``python -m divaeval``): a process of its own, so its
    collector threshold is raised (:data:`COLLECT_AFTER`) before anything is imported; a
    program that imports divaeval keeps its own."""
    gc.set_threshold(COLLECT_AFTER, *gc.get_threshold()[1:])
    from divaeval.cli.app import run_program

    run_program()


def __getattr__(name: str) -> Any:
    """``cli`` and ``main``, loaded when first used (:func:`entry_point` needs neither)."""
    if name in ("cli", "main"):
        from divaeval.cli.app import cli, main

        return cli if name == "cli" else main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
