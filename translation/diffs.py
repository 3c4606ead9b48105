"""Edits shown as ACP ``diff`` content: path, oldText (None for a new file), newText."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from acp_mux.protocol import v1_dicts as acp

MAX_DIFF_FILE_BYTES = 2_000_000


class DiffLike(Protocol):
    """One file edit as an adapter describes it (adapters.base.DiffSpec, an event's ToolDiff)."""

    @property
    def path(self) -> str: ...
    @property
    def new_text(self) -> str: ...
    @property
    def old_text(self) -> str | None: ...


def diff_content(path: str, new_text: str, old_text: str | None) -> acp.ToolCallContentDiff:
    """ACP ``diff`` tool-call content; ``oldText`` is always sent (null for a new file)."""
    return {"type": "diff", "path": path, "newText": new_text, "oldText": old_text}


def resolve(path: str, cwd: str) -> str:
    """ACP wants absolute paths; agents sometimes give relative ones."""
    if not path:
        return path
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(cwd or os.getcwd(), path))


def read_existing(path: str) -> str | None:
    """Current content of a file about to be overwritten, so a Write shows a real diff (None when new)."""
    try:
        if os.path.getsize(path) > MAX_DIFF_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def diffs_for(
    specs: Iterable[DiffLike],
    cwd: str,
    *,
    read_old_for_new: bool = True,
    read: Callable[[str], str | None] = read_existing,
) -> list[acp.ToolCallContent]:
    """DiffSpec-like objects (path, new_text, old_text) → ACP diff contents with absolute paths. ``read`` gives a
    file's content before the edit (the disk, live; what the session log recorded of it, in a replay)."""
    out: list[acp.ToolCallContent] = []
    for spec in specs:
        path = resolve(spec.path, cwd)
        old = spec.old_text
        if old is None and read_old_for_new:
            old = read(path)
        out.append(diff_content(path, spec.new_text, old))
    return out


def relative_title(path: str, cwd: str) -> str:
    """Human form of a path in titles: relative when under the session's cwd."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path
