"""The result objects' base: every public function returns a :class:`Result`, the table the
command line prints (:attr:`~Result.frame`), the settings signature, and the shared display
(``repr``, Jupyter's HTML, rich, ``.plot()``); :class:`TableResult` is an analysis whose
result is one table."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from divaeval.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

    from divaeval.plots.figure import Figure


@dataclass(eq=False)
class Result:
    """What every function of the API returns: :attr:`frame`, the table the command line
    prints, and :attr:`signature`, the settings it was computed with (the command line's
    ``--signature``); subclasses add the fields of their analysis."""

    signature: str

    @property
    def frame(self) -> pd.DataFrame:
        raise NotImplementedError  # pragma: no cover

    @property
    def display(self) -> pd.DataFrame:
        """The table shown in Jupyter and in a terminal (default: :attr:`frame`)."""
        return self.frame

    def __repr__(self) -> str:
        return f"{type(self).__name__} ({self.signature})\n{self.display!r}"

    def _repr_html_(self) -> str:
        from html import escape  # Jupyter only: not on the main job's start-up

        return f"<p><code>{escape(self.signature)}</code></p>{self.display._repr_html_()}"

    def __rich__(self) -> Any:
        """A rich table (``rich.print(result)`` in a terminal)."""
        from rich.table import Table  # rich: only when a result is printed with it

        frame = self.display.reset_index() if self.display.index.name else self.display
        table = Table(title=type(self).__name__, caption=self.signature)
        for column in frame.columns:
            table.add_column(str(column))
        for row in frame.itertuples(index=False):
            table.add_row(*(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
        return table

    def figure(self) -> Figure:
        """The result's figure as plain data (:class:`divaeval.plots.figure.Figure`: its
        panels and, in ``data``, the numbers it draws)."""
        raise UsageError(f"{type(self).__name__} has no figure")

    def plot(self, path: str | os.PathLike | None = None) -> Any:
        """The result's figure drawn with matplotlib (the ``plot`` extra): a matplotlib Figure
        to show in a notebook, or, with ``path``, written to that PNG, SVG or PDF file (its
        suffix chooses; the old file stays whole on failure) and None."""
        from divaeval.plots import draw  # pandas, matplotlib: only when a figure is asked for

        if path is None:
            draw.pyplot()  # a missing extra is a usage error before any work
            return draw.draw(self.figure())
        draw.check_plot_file(path)
        draw.save(self.figure(), path)
        return None


@dataclass(eq=False, repr=False)
class TableResult(Result):
    """An analysis whose result is one table; ``picture`` builds its figure, where it has one
    (what the figure needs besides the table is bound in it)."""

    table: pd.DataFrame
    picture: Callable[[], Figure] | None = None

    @property
    def frame(self) -> pd.DataFrame:
        return self.table

    def figure(self) -> Figure:
        if self.picture is None:
            return super().figure()
        return self.picture()


def check_plot(path: str | os.PathLike | None) -> None:
    """Before any work: a figure file ``path`` (None: none asked for) has a suffix that names
    its format (.png, .svg, .pdf) and the ``plot`` extra (matplotlib) is installed."""
    if path is not None:
        from divaeval.plots.draw import check_plot_file  # pandas: only for a figure

        check_plot_file(path)
