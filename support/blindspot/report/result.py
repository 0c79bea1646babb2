"""What :func:`blindspot.analyze` returns: the report, shown in Jupyter and saved as the command saves it.

:class:`AnalysisReport` is :class:`blindspot.report.report_data.ReportData` (the numbers, the readings, ``to_json``)
with what needs the renderer and the writer: the HTML page (:meth:`AnalysisReport.to_html`, also what
Jupyter shows through :meth:`AnalysisReport._repr_html_`: the very text of ``report.html``, self-contained,
its styles scoped to the report), the top of the ranking as a DataFrame, and :meth:`AnalysisReport.save`,
the staged both-or-neither writer of ``blindspot analyze --out`` (:mod:`blindspot.report.output`).
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from blindspot.core.theme import not_drawn
from blindspot.report import report_data
from blindspot.report.output import stage_output
from blindspot.report.render import ranking_frame, to_html

__all__ = ["AnalysisReport"]


@dataclass(repr=False)
class AnalysisReport(report_data.ReportData):
    """The report of :func:`blindspot.analyze` (and of ``blindspot analyze``).

    Attributes beyond the data: :attr:`d_eff`, :attr:`d_eff_interval` (see
    :class:`~blindspot.report.report_data.ReportData`), :attr:`ranking_table`; methods :meth:`quantities`
    and :meth:`displayed` (the headline numbers by name), :meth:`figure_images` (the figures by name),
    :meth:`readings`, :meth:`to_json`, :meth:`to_html`, :meth:`save`.
    """

    @property
    def ranking_table(self) -> pd.DataFrame:
        """The top of the ranking, indexed by rank (model, aggregate z, gap, rank class, P(overtaken), measured share)."""
        return ranking_frame(self)

    def figure_images(self) -> dict[str, object]:
        """Every figure of the report by name (:data:`~blindspot.report.report_data.FIGURES`), ready to show.

        A drawn figure is an ``IPython.display.Image`` of its PNG; a figure the report did not draw on this
        file (too few models for a bootstrap, say) is a :func:`~blindspot.core.theme.not_drawn` box that says
        so, so a page keeps every figure, caption and cross-reference.

        Raises
        ------
        ValueError
            The report holds a figure :data:`~blindspot.report.report_data.FIGURES` does not name.
        """
        from IPython.display import Image  # the notebook's dependency, not the command's

        unnamed = sorted(set(self.figures) - set(report_data.FIGURES.values()))
        if unnamed:
            raise ValueError(f"the report holds figures FIGURES does not name: {unnamed}")
        return {
            name: Image(data=base64.b64decode(self.figures[title]))
            if self.figures.get(title)
            else not_drawn(f"the report drew no {title.lower()}")
            for name, title in report_data.FIGURES.items()
        }

    def to_html(self) -> str:
        """The text of ``report.html``: one self-contained page (figures embedded, no external resource)."""
        return to_html(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def save(self, folder: str | os.PathLike) -> tuple[Path, Path]:
        """Write ``report.html`` and ``report.json`` into ``folder``, both or neither, as ``blindspot analyze --out``.

        The folder is checked first as the command checks ``--out`` (never the input file or a
        folder in which a report file is the input; never over a report file that is a folder or
        read-only); then both files are staged and renamed into place. Returns their paths.

        Raises
        ------
        ValueError
            ``folder`` is refused; nothing was written.
        blindspot.report.output.WriteError
            A file could not be written; the files already in ``folder`` are as they were.
        """
        staged = stage_output(folder, inputs=tuple(self.inputs))
        try:
            staged.write(self)
            return staged.commit()
        finally:
            staged.discard()
