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


# A diff carries the whole file before and after up to this size (characters, either side): an editor shows it as
# the file with the change in place. A larger file shows each change with this many lines around it.
WHOLE_FILE_CHARS = 256_000
CONTEXT_LINES = 3


def diffs_for(
    specs: Iterable[DiffLike],
    cwd: str,
    *,
    read_old_for_new: bool = True,
    read: Callable[[str], str | None] = read_existing,
) -> list[acp.ToolCallContent]:
    """DiffSpec-like objects (path, new_text, old_text) → ACP diff contents with absolute paths, one per file.

    Agents describe an edit as a fragment (``beta`` → ``gamma``, no newline, no surrounding lines), which an editor
    shows as a two-line file; so each file's edits are put in place in the file as ``read`` gives it (the disk, live;
    what the session log recorded of it, in a replay): the diff is the whole file before and after. When the file is
    already changed (the agent wrote it before acp-mux read it), the fragments are put back to find the "before".
    Beyond :data:`WHOLE_FILE_CHARS`, each edit shows with :data:`CONTEXT_LINES` lines around it; a file that cannot
    be read, or that holds no fragment, keeps the fragments as the agent gave them. A write (``old_text`` None) shows
    the file it replaces (``read_old_for_new``; None: a new file)."""
    # in order; a file's edits (old → new fragments) go together, where its first one was
    parts: list[acp.ToolCallContent | tuple[str, list[tuple[str, str]]]] = []
    edits: dict[str, list[tuple[str, str]]] = {}
    for spec in specs:
        path = resolve(spec.path, cwd)
        if spec.old_text is None:  # a whole new content: what it replaces is the file as it is
            parts.append(diff_content(path, spec.new_text, read(path) if read_old_for_new else None))
        elif path in edits:
            edits[path].append((spec.old_text, spec.new_text))
        else:
            edits[path] = [(spec.old_text, spec.new_text)]
            parts.append((path, edits[path]))
    out: list[acp.ToolCallContent] = []
    for part in parts:
        if isinstance(part, tuple):
            out += _in_place(part[0], part[1], read(part[0]))
        else:
            out.append(part)
    return out


def _in_place(path: str, edits: list[tuple[str, str]], current: str | None) -> list[acp.ToolCallContent]:
    """Diffs of ``edits`` (old fragment, new fragment, in order) to the file whose content is ``current``."""
    if current is not None and all(old for old, _ in edits):
        before_after = _apply(current, edits)
        if before_after is None:  # already changed on disk: take the fragments back out to find the "before"
            undone = _apply(current, [(new, old) for old, new in reversed(edits)])
            before_after = (undone[1], current) if undone is not None else None
        if before_after is not None:
            before, after = before_after
            if len(before) <= WHOLE_FILE_CHARS and len(after) <= WHOLE_FILE_CHARS:
                return [diff_content(path, after, before)]
            return [diff_content(path, *_with_context(before, old, new)) for old, new in edits]
    return [diff_content(path, new, old) for old, new in edits]


def _apply(text: str, edits: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(text, text with each old fragment replaced by its new one, first occurrence, in order); None when a
    fragment is not there (or is empty)."""
    result = text
    for old, new in edits:
        if not old or old not in result:
            return None
        result = result.replace(old, new, 1)
    return text, result


def _with_context(before: str, old: str, new: str) -> tuple[str, str]:
    """(new, old) of one edit widened to whole lines and :data:`CONTEXT_LINES` lines around it, as ``diff_content``
    takes them; the fragment alone when it is not in ``before``."""
    at = before.find(old)
    if at < 0:
        return new, old
    start = before.rfind("\n", 0, at) + 1  # the start of the edit's first line, then CONTEXT_LINES lines up
    for _ in range(CONTEXT_LINES):
        if start == 0:
            break
        start = before.rfind("\n", 0, start - 1) + 1
    end = at + len(old)
    if not before.endswith("\n", 0, end) or end == at:  # the rest of the edit's last line
        newline = before.find("\n", end)
        end = len(before) if newline < 0 else newline + 1
    for _ in range(CONTEXT_LINES):
        newline = before.find("\n", end)
        if newline < 0:
            end = len(before)
            break
        end = newline + 1
    head, tail = before[start:at], before[at + len(old) : end]
    return head + new + tail, head + old + tail


def relative_title(path: str, cwd: str) -> str:
    """Human form of a path in titles: relative when under the session's cwd."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path
