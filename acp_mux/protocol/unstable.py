"""The unstable ACP methods acp-mux serves, typed by hand from the upstream ``schema.unstable.json``.

The generated models (``v1.py``) come from the pinned stable v1.21 schema, which has no ``session/fork``: the
method is still marked **UNSTABLE** upstream (``ForkSessionRequest`` / ``ForkSessionResponse``, capability
``sessionCapabilities.fork``). Rather than generating the whole unstable schema, its two definitions are written here
in the same style as the generated ones, and :mod:`acp_mux.protocol.wire` reads them through the same tables, so
the editor's ``session/fork`` gets the same ``-32602`` answers as every other method. A test compares these fields
with the upstream definitions (tests/protocol/test_unstable_models.py): when the method becomes stable, the
generated models take over and this module goes.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from acp_mux.protocol.base import AcpModel
from acp_mux.protocol.v1 import McpServer, SessionConfigOption, SessionId, SessionModeState


class ForkSessionRequest(AcpModel):
    """``session/fork`` params: the session to fork, the fork's working directory and roots, its MCP servers."""

    session_id: Annotated[SessionId, Field(alias="sessionId")]
    cwd: str
    additional_directories: Annotated[list[str] | None, Field(alias="additionalDirectories")] = None
    mcp_servers: Annotated[list[McpServer] | None, Field(alias="mcpServers")] = None
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


class ForkSessionResponse(AcpModel):
    """``session/fork`` result: the new session's id, and its modes and settings as ``session/new`` gives them."""

    session_id: Annotated[SessionId, Field(alias="sessionId")]
    modes: SessionModeState | None = None
    config_options: Annotated[list[SessionConfigOption] | None, Field(alias="configOptions")] = None
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None


# The unstable methods an agent serves (the editor calls them), as v1.py's tables list the stable ones.
AGENT_METHOD_PARAMS: dict[str, Any] = {"session/fork": ForkSessionRequest}
AGENT_METHOD_RESULTS: dict[str, Any] = {"session/fork": ForkSessionResponse}

__all__ = ["AGENT_METHOD_PARAMS", "AGENT_METHOD_RESULTS", "ForkSessionRequest", "ForkSessionResponse"]


class Usage(AcpModel):
    """``PromptResponse.usage`` (unstable upstream): the tokens of one prompt turn, the shape acp-mux sends
    (:class:`acp_mux.protocol.unstable_dicts.Usage`) and claude-agent-acp and codex-acp send."""

    total_tokens: Annotated[int, Field(alias="totalTokens", ge=0)]
    input_tokens: Annotated[int, Field(alias="inputTokens", ge=0)]
    output_tokens: Annotated[int, Field(alias="outputTokens", ge=0)]
    thought_tokens: Annotated[int | None, Field(alias="thoughtTokens", ge=0)] = None
    cached_read_tokens: Annotated[int | None, Field(alias="cachedReadTokens", ge=0)] = None
    cached_write_tokens: Annotated[int | None, Field(alias="cachedWriteTokens", ge=0)] = None
    field_meta: Annotated[dict[str, Any] | None, Field(alias="_meta")] = None
