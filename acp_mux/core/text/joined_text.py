"""Text built from many small deltas, kept as a few joined pieces rather than one string object per delta.

Why this exists: a streamed message arrives as up to hundreds of thousands of deltas of a few characters each.
Kept as one ``str`` per delta (a list of parts), a 100,000-delta message held ~5.6 MB of small objects in pymalloc
until it ended; freed all at once, that memory left pymalloc arenas pinned by the few long-lived objects allocated
meanwhile, so the bridge's RSS rose ~7 MB with the first big message and never came back
(benchmarks/mem_turns.py). Here every ``PIECE_DELTAS`` deltas are joined into one piece: at most that many small
strings are alive at a time, the text costs about its characters, and each character is copied once more (linear).

Positions are character offsets, which joining does not move, so a delta event can keep ``(text, offset)`` and give
its ``accumulated`` prefix whenever it is asked (spec 000), however much was appended or joined since.
"""

from __future__ import annotations

PIECE_DELTAS = 1024  # deltas joined into one piece


class JoinedText:
    """Append-only text: :meth:`append` is the streaming path (a list append and a length update)."""

    __slots__ = ("_pieces", "_recent", "length", "__weakref__")  # (weakref: tests check it is released)

    def __init__(self, initial: str = "") -> None:
        self._pieces: list[str] = [initial] if initial else []  # everything before _recent, joined in order
        self._recent: list[str] = []  # the latest deltas, not yet joined
        self.length = len(initial)  # characters appended in all

    def append(self, delta: str) -> int:
        """Add ``delta``; returns the length of the text so far (the offset that ends this delta)."""
        recent = self._recent
        recent.append(delta)
        self.length += len(delta)
        if len(recent) >= PIECE_DELTAS:
            self._pieces.append("".join(recent))
            recent.clear()
        return self.length

    def text(self) -> str:
        """The whole text. Joined once: the pieces are replaced by the result, so asking again costs nothing."""
        pieces = self._pieces
        if self._recent:
            pieces.append("".join(self._recent))
            self._recent.clear()
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0] if pieces else ""

    def prefix(self, end: int) -> str:
        """The first ``end`` characters (what the text was when its length was ``end``)."""
        whole = self.text()
        return whole if end >= len(whole) else whole[:end]

    def pieces(self) -> int:
        """How many string objects hold the text now (joined pieces and deltas not yet joined)."""
        return len(self._pieces) + len(self._recent)
