"""Google Gemini CLI through its own ACP mode (``gemini --acp``), on the ACP-client family.

What is only gemini's (everything else is the family's, ``acp_client.py``):
- tool call ids are ``<tool>__<tool>_<timestamp>_<n>`` (``write_file__write_file_1795298003686_0``): the prefix is the
  real tool name, which "always" rules and titles use;
- gemini announces a mode change (after its own "allow always", or ``session/set_mode``) only as a stray
  ``[MODE_UPDATE] autoEdit`` text chunk, never ``current_mode_update``: the marker becomes a ``mode_change`` event
  and never reaches the conversation. The bridge answers gemini's questions with one-time allows (its own rules
  remember "always"), so gemini does not widen an "always" into a whole auto-edit mode behind the person's back;
- a rejected call never gets an update from gemini (the bridge ends it failed, as for every agent);
- ``session/load`` answers before most of its history replay, which then interleaves with what follows: after a
  load, updates are not news until the bridge sends the next prompt (what the replay would repeat, the bridge's own
  record already shows);
- token counts come in the prompt result's ``_meta.quota.token_count``;
- settings: a private HOME needs ``security.auth.selectedType`` for API-key auth (see the README), and a folder must
  be trusted (``GEMINI_CLI_TRUST_WORKSPACE``) or gemini refuses to work in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acp_mux.adapters.acp_client import AcpClientAdapter, AcpRun
from acp_mux.core.lazy import lazy_module
from acp_mux.translation.content import block_text
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.contract import RunOptions
from acp_mux.core.parse_context import ParseContext

if TYPE_CHECKING:
    from acp_mux.core.events import BaseEvent

ev = lazy_module("acp_mux.core.events")

_MODE_MARKER = re.compile(r"^\s*\[MODE_UPDATE\]\s*(\S+)[^\n]*\n?", re.M)


@dataclass
class GeminiRun(AcpRun):
    """The family's run state, plus what gemini's quirks need (``GeminiRun.of(ctx)``)."""

    after_load: bool = False  # a session/load answered: its history replay goes on until the next prompt


class GeminiAdapter(AcpClientAdapter):
    name = "gemini"
    acp_args = ("--acp",)
    run_type = GeminiRun
    capabilities = AgentCapabilities(
        persistent_process=True, supports_images=True, supports_audio=True, supports_mcp_http=True, supports_mcp_sse=True
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

    def on_update(self, update: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        run = GeminiRun.of(ctx)
        if run.after_load and run.prompt_in_flight is None:
            return []  # the rest of a load's history replay
        if update.get("sessionUpdate") == "agent_message_chunk":
            text = block_text(update.get("content"))
            marker = _MODE_MARKER.search(text) if "[MODE_UPDATE]" in text else None
            if marker is not None:
                mode = marker.group(1)
                events: list[BaseEvent] = self._update_current_mode_update({"currentModeId": mode}, ctx)
                rest = _MODE_MARKER.sub("", text)
                return events + (ctx.text_delta(rest) if rest else [])
        return super().on_update(update, ctx)

    def _send_prompt_now(self, prompt: Any, ctx: ParseContext) -> None:
        GeminiRun.of(ctx).after_load = False
        super()._send_prompt_now(prompt, ctx)

    def _session_opened(self, ctx: ParseContext, resumed_id: str | None) -> Any:
        opened = super()._session_opened(ctx, resumed_id)

        def on_result(result: Any, error: dict[str, Any] | None) -> list[BaseEvent]:
            run = GeminiRun.of(ctx)
            if error is None and resumed_id is not None and not run.waiting:
                run.after_load = True
            return opened(result, error)

        return on_result

    def usage_events(self, body: dict[str, Any], ctx: ParseContext) -> list[BaseEvent]:
        quota = body.get("_meta", {}).get("quota") if isinstance(body.get("_meta"), dict) else None
        counts = quota.get("token_count") if isinstance(quota, dict) else None
        if not isinstance(counts, dict):
            return super().usage_events(body, ctx)
        return [
            ev.TokenUsageEvent(
                input_tokens=_count(counts.get("input_tokens")), output_tokens=_count(counts.get("output_tokens"))
            )
        ]


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
