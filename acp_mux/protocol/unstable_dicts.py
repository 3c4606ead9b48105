"""The unstable ACP shapes acp-mux sends, as wire-form TypedDicts beside the generated stable ones (``v1_dicts``).

The pinned stable v1.21 schema's ``PromptResponse`` has only ``stopReason``; the upstream unstable schema adds
``usage`` (``Usage``: the tokens of this turn), which claude-agent-acp and codex-acp send and the SDK's client
reads. The pydantic model of the same shape is :class:`acp_mux.protocol.unstable.Usage`, checked against the
upstream definition (tests/protocol/test_unstable_models.py). Standard library only: the turn's path imports it.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from acp_mux.protocol.v1_dicts import PromptResponse


class Usage(TypedDict):
    """Token usage of one prompt turn. ``inputTokens`` leaves out the cached tokens (``cachedReadTokens``,
    ``cachedWriteTokens``), as claude-agent-acp and codex-acp count; ``totalTokens`` is all of them."""

    totalTokens: int
    inputTokens: int
    outputTokens: int
    thoughtTokens: NotRequired[int | None]
    cachedReadTokens: NotRequired[int | None]
    cachedWriteTokens: NotRequired[int | None]


class PromptResponseWithUsage(PromptResponse):
    """``session/prompt``'s answer with the turn's ``usage`` (unstable), where the agent reported tokens."""

    usage: NotRequired[Usage]
