"""Google Gemini CLI through its own ACP mode (``gemini --acp``), on the ACP-client family.

What is only gemini's (everything else is the family's, ``acp_client.py``):
- tool call ids are ``<tool>__<tool>_<timestamp>_<n>`` (``write_file__write_file_1795298003686_0``): the prefix is the
  real tool name, which "always" rules and titles use;
- after an "allow always" answer gemini switches itself to auto-edit and puts a stray ``[MODE_UPDATE] autoEdit``
  line into the conversation. The bridge answers gemini's questions with one-time allows (its own rules remember
  "always"), and strips the marker should it appear anyway;
- settings: a private HOME needs ``security.auth.selectedType`` for API-key auth (see the README), and a folder must
  be trusted (``GEMINI_CLI_TRUST_WORKSPACE``) or gemini refuses to work in it.
"""

from __future__ import annotations

import re
from typing import Any

from acp_mux.adapters.acp_client import AcpClientAdapter
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.contract import RunOptions
from acp_mux.core.parse_context import ParseContext

_MODE_MARKER = re.compile(r"^\s*\[MODE_UPDATE\][^\n]*\n?", re.M)


class GeminiAdapter(AcpClientAdapter):
    name = "gemini"
    acp_args = ("--acp",)
    capabilities = AgentCapabilities(
        supports_thinking=True,
        supports_thinking_streaming=True,
        supports_tool_call_streaming=True,
        native_acp=True,
        supports_approval=True,
        persistent_process=True,
        can_resume=True,
        supports_images=True,
        supports_audio=True,
        supports_interrupt_in_protocol=True,
        supports_mcp_http=True,
        supports_mcp_sse=True,
    )

    def model_args(self, options: RunOptions) -> list[str]:
        return ["--model", options.model] if options.model else []

    def spawn_env(self, options: RunOptions) -> dict[str, str] | None:
        # gemini re-launches itself under a new node process to raise its memory limit; that second process would
        # outlive a hard kill of the first. One process, in our process group, is what the bridge can manage.
        env = dict(options.env) if options.env is not None else None
        if env is None:
            import os

            env = dict(os.environ)
        env.setdefault("GEMINI_CLI_NO_RELAUNCH", "true")
        return env

    def tool_name_of(self, tool_call: dict[str, Any]) -> str:
        tool_id = tool_call.get("toolCallId")
        if isinstance(tool_id, str) and "__" in tool_id:
            return tool_id.split("__", 1)[0]
        return super().tool_name_of(tool_call)

    def repair_text(self, text: str, ctx: ParseContext) -> str:
        return _MODE_MARKER.sub("", text) if "[MODE_UPDATE]" in text else text
