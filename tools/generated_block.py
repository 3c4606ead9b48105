"""One way to put a generated block into a hand-written file: between a BEGIN and an END marker line, so the text
around it stays the person's and the block can be checked for staleness by regenerating it."""

from __future__ import annotations


def splice(text: str, begin: str, end: str, block: str, where: str) -> str:
    """``text`` with what lies between the ``begin`` and ``end`` markers replaced by ``block`` (markers kept)."""
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{where} lacks the markers {begin!r} … {end!r}")
    return text[: start + len(begin)] + "\n" + block + "\n" + text[stop:]
