"""The one exception type the runtime raises to callers, carrying a machine-readable code."""

from __future__ import annotations


class AgentMuxError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"AgentMuxError({self.code!r}, {self.message!r})"
