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
  be trusted (``GEMINI_CLI_TRUST_WORKSPACE``) or gemini refuses to work in it;
- a failing model (HTTP 429, 5xx) is retried by gemini itself (``general.maxAttempts`` attempts, default 10, 5 s
  doubling to 30 s apart ±30 %: a 429 or 500 that persists ends after ~3 minutes) and nothing of it reaches ACP
  (its ``retry-attempt`` core event has no ACP mapping) or stderr. Each retry is one ``[WARN] Attempt N failed …
  Retrying …`` line of its debug log, the file ``GEMINI_DEBUG_LOG_FILE`` names. The bridge gives it one (a private
  0600 file, removed with the run) unless the person named their own, follows it (:meth:`side_logs`) and shows
  each retry of the prompt in flight with its reason (:func:`retry_line`); the last attempt has none, its error
  ends the turn. A 401 is not retried: its error comes at once.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import TYPE_CHECKING, Iterable

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun, message_id_of, retry_note
from acp_mux.core.events.lazy_events import ev
from acp_mux.translation.content import block_text
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.log_follow import SideLog
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.files.private import private_path
from acp_mux.core.process.spawn import SpawnSpec

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.core.events.union import BaseEvent


_MODE_MARKER = re.compile(r"^\s*\[MODE_UPDATE\]\s*(\S+)[^\n]*\n?", re.M)
DEBUG_LOG_ENV = "GEMINI_DEBUG_LOG_FILE"
# gemini 0.61's debug-log line for a retry it schedules (retryWithBackoff): "[<time>] [WARN] Attempt 2 failed with
# status 500. Retrying with backoff... _ApiError: {...}" or "... Attempt 1 failed: <message>. Retrying after 5123ms..."
_RETRY_LINE = re.compile(
    r"^\[[^\]]*\] \[WARN\] Attempt (\d+) failed(?: with status (\d{3}))?(?:: (.*?))?\. "
    r"Retrying (?:with backoff|after (\d+)ms)\.\.\.\s*(.*)$"
)
_ERROR_CLASS = re.compile(r"^_?\w*Error:\s*")
DEFAULT_MAX_ATTEMPTS = 10  # general.maxAttempts when the person's settings do not say
MAX_REASON = 300


@dataclass
class GeminiRun(AcpRun):
    """The family's run state, plus what gemini's quirks need (``GeminiRun.of(ctx)``)."""

    after_load: bool = False  # a session/load answered: its history replay goes on until the next prompt


class GeminiAdapter(AcpClientAdapter):
    name = "gemini"
    acp_args = ("--acp",)
    run_type = GeminiRun
    joins_text_chunks = False  # its mode markers are looked for chunk by chunk (on_update)
    starts_early = False  # every spawn has a fresh private debug log (build_spawn)
    capabilities = AgentCapabilities(
        persistent_process=True,
        supports_images=True,
        supports_audio=True,
        supports_mcp_http=True,
        supports_mcp_sse=True,
    )

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        """gemini's own spawn, plus a private debug log to follow (its retries show only there) unless the person
        named one of their own in ``GEMINI_DEBUG_LOG_FILE``, which is then followed instead and left alone."""
        spec = super().build_spawn(options)
        env = dict(spec.env) if spec.env is not None else dict(os.environ)
        if env.get(DEBUG_LOG_ENV):
            return spec
        path = private_path("gemini-debug.log")
        env[DEBUG_LOG_ENV] = path
        return SpawnSpec(
            command=spec.command, args=spec.args, env=env, cwd=spec.cwd, private_files=(*spec.private_files, (path, ""))
        )

    def side_logs(self, spec: SpawnSpec, agent_pid: int) -> list[SideLog]:
        env = spec.env if spec.env is not None else os.environ
        path = env.get(DEBUG_LOG_ENV)
        if not path:
            return []
        limit = max_attempts(env)
        return [SideLog(find=lambda: path, events=lambda line, ctx: self._retry_events(line, limit, ctx))]

    def _retry_events(self, line: str, limit: int, ctx: ParseContext) -> Iterable[BaseEvent]:
        """A retry gemini scheduled for the prompt in flight: shown with its reason while gemini waits."""
        found = retry_line(line)
        run = GeminiRun.find(ctx)
        if found is None or run is None or run.prompt_in_flight is None:
            return ()
        attempt, reason, delay_ms = found  # attempt N failed: this is retry N of maxAttempts - 1
        retry = ev.RetryEvent(
            attempt=attempt, max_attempts=max(limit - 1, 0), reason=f"{reason}; gemini tries again", delay_ms=delay_ms
        )
        return retry_note(retry, ctx)

    def extra_directory_args(self, dirs: list[str]) -> list[str] | None:
        """``--include-directories`` once per root (gemini: "Additional directories to include in the workspace").
        The flag also splits its value on commas, so a folder whose path holds one cannot be given: refused."""
        if any("," in folder for folder in dirs):
            return None
        return [arg for folder in dirs for arg in ("--include-directories", folder)]

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

    def tool_name_of(self, tool_call: WireObject) -> str:
        tool_id = tool_call.get("toolCallId")
        if isinstance(tool_id, str) and "__" in tool_id:
            return tool_id.split("__", 1)[0]
        return super().tool_name_of(tool_call)

    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = GeminiRun.of(ctx)
        if run.after_load and run.prompt_in_flight is None:
            return []  # the rest of a load's history replay
        if update.get("sessionUpdate") == "agent_message_chunk":
            text = block_text(update.get("content"))
            marker = _MODE_MARKER.search(text) if "[MODE_UPDATE]" in text else None
            if marker is not None:
                mode = marker.group(1)
                events = super().on_update({"sessionUpdate": "current_mode_update", "currentModeId": mode}, ctx)
                rest = _MODE_MARKER.sub("", text)
                return events + (ctx.text_delta(rest, message_id_of(update)) if rest else [])
        return super().on_update(update, ctx)

    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        GeminiRun.of(ctx).after_load = False

    def after_session_opened(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """A loaded session with no prompt waiting: what gemini sends until the next prompt is its history."""
        run = GeminiRun.of(ctx)
        if run.options.session_id is not None and not ctx.prompt_waiting():
            run.after_load = True
        return super().after_session_opened(body, ctx)

    def usage_events(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        meta = body.get("_meta")
        quota = meta.get("quota") if isinstance(meta, dict) else None
        counts = quota.get("token_count") if isinstance(quota, dict) else None
        if not isinstance(counts, dict):
            return super().usage_events(body, ctx)
        return [
            ev.TokenUsageEvent(
                input_tokens=_count(counts.get("input_tokens")), output_tokens=_count(counts.get("output_tokens"))
            )
        ]


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def retry_line(line: str) -> tuple[int, str, int] | None:
    """(attempt, reason, delay in ms or 0) of gemini's debug-log line for a retry it scheduled; None for any other
    line. One substring test rules out nearly every line (constant cost per line)."""
    if "Retrying" not in line or "] [WARN] Attempt " not in line[:64]:
        return None
    found = _RETRY_LINE.match(line[:4000])
    if found is None:
        return None
    attempt, status, message, delay, error = found.groups()
    detail = _error_message(error) or (message or "").strip()
    what = f"HTTP {status}" if status else ""
    reason = ": ".join(part for part in (what, detail) if part) or "the request failed"
    return int(attempt), f"the model request failed ({reason[:MAX_REASON]})", int(delay) if delay else 0


def _error_message(error: str) -> str:
    """The provider's message from gemini's ``_ApiError: {"error": {"message": ...}}`` (or the error's text)."""
    text = _ERROR_CLASS.sub("", error.strip())
    if text.startswith("{"):
        try:
            body = json.loads(text)
        except ValueError:
            return text
        inner = body.get("error") if isinstance(body, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"]).strip()
    return text


def max_attempts(env: Mapping[str, str]) -> int:
    """``general.maxAttempts`` from the person's gemini settings (``$GEMINI_CLI_HOME`` or ``$HOME``
    ``/.gemini/settings.json``; gemini's default, 10, when absent or unreadable)."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    try:
        with open(os.path.join(home, ".gemini", "settings.json"), encoding="utf-8") as fh:
            settings = json.loads(fh.read(1_000_000))
    except (OSError, ValueError):
        return DEFAULT_MAX_ATTEMPTS
    general = settings.get("general") if isinstance(settings, dict) else None
    value = general.get("maxAttempts") if isinstance(general, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else DEFAULT_MAX_ATTEMPTS
