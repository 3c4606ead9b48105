"""The tokens of one prompt turn, for the ``usage`` of its ``session/prompt`` answer (unstable ACP ``Usage``).

Every agent's adapter reports what it spent as ``token_usage`` events (per model request or per turn: claude's
``result.usage``, codex's ``thread/tokenUsage/updated`` ``last``, pi's and openclaw's message usage, an ACP agent's
own prompt-response ``usage``); a turn's events add up. ``input_tokens`` there include the cached ones (OpenAI's
convention); ACP's ``inputTokens`` leaves them out, as claude-agent-acp and codex-acp count, so they are taken off
here and go as ``cachedReadTokens``/``cachedWriteTokens``. A turn in which no tokens were reported has no usage:
the answer says nothing rather than zero.

This is not ``usage_update`` (:mod:`acp_mux.translation.updates`): that one says how full the context window is
and what the session cost so far; this one what this turn spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_mux.core.events import union as ev
    from acp_mux.protocol.unstable_dicts import Usage


class TurnUsage:
    """The sum of one turn's ``token_usage`` events (constant work per event)."""

    __slots__ = ("seen", "input", "output", "thinking", "cached", "cache_write", "total")

    def __init__(self) -> None:
        self.seen = False
        self.input = self.output = self.total = 0
        self.thinking: int | None = None
        self.cached: int | None = None
        self.cache_write: int | None = None

    def add(self, e: ev.TokenUsageEvent) -> None:
        self.seen = True
        self.input += e.input_tokens
        self.output += e.output_tokens
        self.total += e.total_tokens if e.total_tokens is not None else e.input_tokens + e.output_tokens
        if e.thinking_tokens is not None:
            self.thinking = (self.thinking or 0) + e.thinking_tokens
        if e.cached_tokens is not None:
            self.cached = (self.cached or 0) + e.cached_tokens
        if e.cache_write_tokens is not None:
            self.cache_write = (self.cache_write or 0) + e.cache_write_tokens

    def usage(self) -> Usage | None:
        """The turn's ``usage`` in ACP's shape, or None when the agent reported no tokens in it."""
        if not self.seen:
            return None
        usage: Usage = {
            "totalTokens": max(self.total, 0),
            "inputTokens": max(self.input - (self.cached or 0) - (self.cache_write or 0), 0),
            "outputTokens": max(self.output, 0),
        }
        if self.thinking is not None:
            usage["thoughtTokens"] = max(self.thinking, 0)
        if self.cached is not None:
            usage["cachedReadTokens"] = max(self.cached, 0)
        if self.cache_write is not None:
            usage["cachedWriteTokens"] = max(self.cache_write, 0)
        return usage
