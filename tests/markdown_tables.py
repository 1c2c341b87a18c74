"""What the comment and job summary tests ask of a cut Markdown text: that no table in it is cut."""

from __future__ import annotations


def broken_tables(text: str) -> list[str]:
    """The tables of `text` that are not whole, each by its first line: a table is a header row, a
    separator row and rows, each with the header's number of cells, ending before a blank line or
    the end of the text (a cut that kept whole rows can still end a table mid-way before a note)."""
    lines = text.split("\n")
    broken = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
        table = lines[start:i]
        cells = [row.replace("\\|", "").strip().count("|") for row in table]
        whole = (len(table) >= 2 and set(table[1].replace("|", "")) <= set("-: ")
                 and all(row.rstrip().endswith("|") for row in table) and len(set(cells)) == 1
                 and (i == len(lines) or lines[i] == ""))
        if not whole:
            broken.append(table[0])
    return broken
