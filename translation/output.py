"""Bounded tool output: keep the head and the tail, count what was left out, never copy the whole stream.

Shell output can be tens of MB. The editor sees the first ``head_lines`` lines, an "N lines omitted" marker, and
the last ``tail_lines`` lines; memory stays O(head + tail) however long the command runs.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_mux.protocol.v1_dicts import JsonValue

HEAD_LINES = 200
TAIL_LINES = 200
LIVE_LINES = 50  # while a command runs, the editor shows its latest lines, like a terminal pane
MAX_LINE_CHARS = 2000
RAW_OUTPUT_CHARS = 16_000


class BoundedOutput:
    def __init__(self, head_lines: int = HEAD_LINES, tail_lines: int = TAIL_LINES) -> None:
        self._head: list[str] = []
        self._tail: deque[str] = deque(maxlen=tail_lines)
        self._head_lines = head_lines
        self._partial = ""
        self.total_lines = 0
        self.total_chars = 0

    def append(self, chunk: str) -> None:
        if not chunk:
            return
        self.total_chars += len(chunk)
        text = self._partial + chunk
        lines = text.split("\n")
        self._partial = lines.pop()
        if len(self._partial) > MAX_LINE_CHARS * 4:  # a never-ending line: cut it into pieces
            lines.append(self._partial)
            self._partial = ""
        for line in lines:
            self._add_line(line)

    def _add_line(self, line: str) -> None:
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f"… [{len(line) - MAX_LINE_CHARS} more characters]"
        self.total_lines += 1
        if len(self._head) < self._head_lines:
            self._head.append(line)
        else:
            self._tail.append(line)

    @property
    def omitted(self) -> int:
        return self.total_lines - len(self._head) - len(self._tail)

    def render(self) -> str:
        parts = list(self._head)
        if self.omitted:
            parts.append(f"… [{self.omitted} lines omitted] …")
        parts.extend(self._tail)
        if self._partial:
            parts.append(self._partial[:MAX_LINE_CHARS])
        return "\n".join(parts)

    def render_recent(self, lines: int = LIVE_LINES) -> str:
        """The latest ``lines`` lines (and the unfinished one): the live view, re-sent while a command runs, so it
        stays a few KB however much output came before (the full head-and-tail view comes with the result)."""
        recent = list(self._tail)[-lines:] if lines > 0 else []
        if len(recent) < lines:  # the tail is short: the rest comes from the end of the head
            recent = self._head[max(0, len(self._head) - (lines - len(recent))) :] + recent
        earlier = self.total_lines - len(recent)
        parts = [f"… [{earlier} earlier lines] …"] if earlier else []
        parts.extend(recent)
        if self._partial:
            parts.append(self._partial[:MAX_LINE_CHARS])
        return "\n".join(parts)


def cap_text(text: str, limit: int = RAW_OUTPUT_CHARS) -> str:
    """Cap one string for rawInput/rawOutput, saying how much was cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - limit} characters omitted] …\n{text[-half:]}"


def cap_value(value: JsonValue, limit: int = RAW_OUTPUT_CHARS) -> JsonValue:
    """Cap strings inside a JSON-like value (rawOutput may be a dict with a huge stdout)."""
    if isinstance(value, str):
        return cap_text(value, limit)
    if isinstance(value, dict):
        return {k: cap_value(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        capped: list[JsonValue] = [cap_value(v, limit) for v in value[:200]]
        if len(value) > 200:
            capped.append(f"… [{len(value) - 200} more items]")
        return capped
    return value
