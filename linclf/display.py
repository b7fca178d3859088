"""Tables that show well everywhere the book is read.

A notebook output made with ``IPython.display.HTML`` is only HTML: the PDF
edition would print ``<IPython.core.display.HTML object>`` in its place.
:func:`table` returns an object with an HTML, a Markdown and a plain-text
representation: the website shows the HTML, the PDF build renders the Markdown
as a real LaTeX table, a terminal prints the text.
"""

from __future__ import annotations

import html

__all__ = ["Table", "table"]

def _markdown(text: str) -> str:
    # a cell of a pipe table: escape what Markdown would read as syntax
    return "".join("\\" + ch if ch in "\\|*_`[]<>$#" else ch for ch in text)


class Table:
    """A table of plain-text cells, displayed as HTML, Markdown or text.

    Parameters
    ----------
    header : sequence of str
        The column titles.
    rows : sequence of sequence
        The cells, row by row; each is shown with ``str``.
    """

    def __init__(self, header, rows):
        self.header = [str(h) for h in header]
        self.rows = [[str(c) for c in row] for row in rows]
        bad = [i for i, row in enumerate(self.rows) if len(row) != len(self.header)]
        if bad:
            raise ValueError(
                f"row {bad[0]} has {len(self.rows[bad[0]])} cells but the header has "
                f"{len(self.header)} columns."
            )

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _repr_markdown_(self) -> str:
        lines = ["| " + " | ".join(_markdown(h) for h in self.header) + " |",
                 "|" + "---|" * len(self.header)]
        lines += ["| " + " | ".join(_markdown(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines)

    def __repr__(self) -> str:
        widths = [max(len(r[k]) for r in [self.header] + self.rows) for k in range(len(self.header))]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        return "\n".join(fmt.format(*r) for r in [self.header] + self.rows)


def table(header, rows):
    """A :class:`Table` of ``rows`` under ``header``.

    Parameters
    ----------
    header : sequence of str
        The column titles.
    rows : sequence of sequence
        The cells, row by row.

    Returns
    -------
    Table
        Displays as an HTML table on the website and as a table in the PDF.
    """
    return Table(header, rows)
