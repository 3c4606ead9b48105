"""Native output as lines, in bounded memory.

Agents print line-oriented text (JSON lines, logs) over pipes; these
helpers cut a byte stream into lines in linear time and keep only the tail of
a stream (stderr) that nobody consumes line by line.
"""

from __future__ import annotations


class LineSplitter:
    """Splits a byte stream on b"\\n" in linear time (never rescans).

    ``max_line`` (optional) force-flushes an over-long partial line so memory
    stays bounded where we do not need lines intact (stderr).
    """

    def __init__(self, max_line: int | None = None) -> None:
        self._pending = bytearray()
        self._max = max_line

    def feed(self, data: bytes) -> list[bytes | bytearray]:
        out: list[bytes | bytearray] = []
        start = 0
        while (i := data.find(b"\n", start)) >= 0:
            if self._pending:
                self._pending += data[start:i]
                out.append(_chop_cr(self._pending))
                self._pending = bytearray()
            else:
                end = i - 1 if i > start and data[i - 1] == 0x0D else i
                out.append(data[start:end])
            start = i + 1
        if start < len(data):
            self._pending += data[start:]
            if self._max is not None and len(self._pending) > self._max:
                out.append(self._pending)
                self._pending = bytearray()
        return out

    def flush(self) -> bytes | bytearray | None:
        """The final unterminated line, if any."""
        line, self._pending = self._pending, bytearray()
        return _chop_cr(line) if line else None


def _chop_cr(buf: bytearray) -> bytearray:
    if buf.endswith(b"\r"):
        del buf[-1:]
    return buf


class TailBuffer:
    """Keeps the last ``limit`` bytes of a stream (the 64 KB ring of spec §24.3)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._buf = bytearray()
        self.total = 0  # bytes ever fed
        self.dropped = 0  # bytes discarded from the front

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self._buf += data[-self.limit :] if self.limit else b""
        del self._buf[: max(0, len(self._buf) - self.limit)]
        self.dropped = self.total - len(self._buf)

    def text(self) -> str:
        data = bytes(self._buf)
        if self.dropped:  # skip a UTF-8 sequence cut in half at the front
            data = data[next((i for i in range(min(3, len(data))) if not 0x80 <= data[i] <= 0xBF), min(3, len(data))) :]
        return data.decode("utf-8", "replace")
