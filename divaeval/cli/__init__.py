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
"""

from divaeval.cli.app import cli, entry_point, main

__all__ = ["cli", "entry_point", "main"]
