"""OpenCode (``opencode acp``, npm ``opencode-ai``) through its own ACP mode, on the ACP-client family.

What is only opencode's (everything else is the family's, ``acp_client.py``; the facts are pinned by the recorded
transcripts in ``tests/fixtures/opencode``, opencode 1.18.33):
- opencode's own defaults never ask (its ``build`` agent allows everything), so a "rejected" write would land
  anyway. The bridge starts it with permission rules that ask, through ``OPENCODE_CONFIG_CONTENT`` (opencode
  merges that JSON over the user's global and project config, last): no file of the user's is touched. The rules
  sit on opencode's agents, which are its modes (``mode`` config option): ``build`` (default) and the ``general``
  subagent ask for ``edit`` (write, edit, patch), ``bash`` and ``webfetch``; ``explore`` asks for ``bash`` and
  ``webfetch``; ``plan`` asks for ``bash``/``webfetch`` and keeps its own edit deny (a top-level ``permission``
  would override every agent's rules and turn that deny into a question). A third mode, ``allow-all``, is an agent
  the bridge defines with ``{"*": "allow"}``: nothing is asked, as the name says (the person's own deny rules
  included). ``default_agent`` is ``build``. Primary agents of the person's own config are modes too and keep their
  own rules (opencode's default for them is to allow);
- a tool call is announced ``pending`` with an empty input (its title the tool name, ``bash``/``write``/``edit``);
  its first ``in_progress`` update carries the real input while the call still waits for its question (which may
  also come before it). That first update makes the call ready (input and title shown), not running: a refused
  call is never shown running;
- after an allowed edit question opencode sends ``fs/write_text_file`` with the whole new file, whatever the
  client's capabilities, and its own tool writes the file too. Offered by the editor: relayed (the editor's buffer
  follows). Not offered: answered without writing (opencode writes it; the bridge writing it as well would be a
  second write);
- a refused model request is a JSON-RPC error ``-32603`` whose message is the provider's ("Internal error: invalid
  x-api-key" for Anthropic's 401, "Rate limited …"): typed as auth / rate-limit errors by its words;
- cancel: opencode goes on streaming 0.5–3 s before it answers ``cancelled`` (0.4 s through the bridge on the
  real CLI); the bridge's cancel escalation (``LiveSession.cancel``) bounds that;
- mode and model are config options (no ACP ``modes``/``models``): :meth:`set_mode` and :meth:`set_model` set them;
- session ids are opencode's own (``ses_…``); ``session/resume`` (no replay) reopens one after a bridge restart;
- startup is slow (4–14 s to ``initialize`` on a loaded box): the bridge's warm start at ``session/new`` hides it;
- a failing model (HTTP 500, 429) is retried by opencode itself, with nothing over ACP: 5 retries
  (``RETRY_MAX_RETRIES``), 2 s × 2ⁿ apart ±25 % (at most 30 s; a 429's ``retry-after`` instead), so a 500 that
  persists ends ~70 s later as a JSON-RPC error (the typed failure; a 429 as the rate-limit error). Each failed
  request is only an ``ERROR`` line of its log (``message="stream error" … session.id=ses_… small=false …
  error.error="AI_APICallError: <the provider's message>"``). The bridge starts it with ``--print-logs
  --log-level WARN`` (its log on stderr, warnings and errors only, instead of the file under
  ``~/.local/share/opencode/log``) and makes the first five such lines of this session's prompt retry notes
  (:meth:`stderr_events`); the sixth is the last, the error follows it at once.
"""

from __future__ import annotations

from acp_mux.core.text.shapes import as_dict, as_str
import json
import logging
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun, tool_display
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import RequestId
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.core.run.prompt import Prompt


log = logging.getLogger(__name__)

CONFIG_ENV = "OPENCODE_CONFIG_CONTENT"
ALLOW_ALL_MODE = "allow-all"
_ASK = {"edit": "ask", "bash": "ask", "webfetch": "ask"}
# opencode's agents (its modes and subagents) → the rules acp-mux adds over the user's own.
AGENT_PERMISSIONS: dict[str, dict[str, Any]] = {
    "build": _ASK,
    "general": _ASK,
    "explore": {"bash": "ask", "webfetch": "ask"},  # its own default runs any command unasked
    "plan": {"bash": "ask", "webfetch": "ask"},  # edits stay denied by plan's own rules
}
# Words of a provider's refusal that name a bad key (Anthropic: "invalid x-api-key").
_AUTH_WORDS = ("x-api-key", "api-key", "invalid api key", "incorrect api key")
# opencode's log line for one failed model request (1.18.33, ``--print-logs``); ``small=true`` is a title/summary
# request of its own, not the person's turn.
_STREAM_ERROR = 'message="stream error"'
_FIELD = re.compile(r'(session\.id|small|error\.error)=("(?:[^"\\]|\\.)*"|\S+)')
_ERROR_CLASS = re.compile(r"^AI_\w+:\s*")
MAX_REASON = 300
MAX_RETRIES = 5  # opencode 1.18.33's RETRY_MAX_RETRIES: the sixth failed request ends the prompt


@dataclass
class OpencodeRun(AcpRun):
    """The family's run state, plus the count of failed model requests in this prompt (its retries)."""

    failed_requests: int = 0


def stream_error(line: str) -> tuple[str, str] | None:
    """(session id, the provider's message) of opencode's log line for a failed model request of a person's turn;
    None for any other line. Constant cost per line: one substring test rules out nearly every line."""
    if _STREAM_ERROR not in line or "level=ERROR" not in line:
        return None
    fields = {key: value.strip('"') for key, value in _FIELD.findall(line)}
    session, error = fields.get("session.id"), fields.get("error.error")
    if not session or error is None or fields.get("small") != "false":
        return None
    message = _ERROR_CLASS.sub("", error.replace('\\"', '"')).strip() or "the model request failed"
    return session, message[:MAX_REASON]


def permission_config() -> WireObject:
    """The opencode config acp-mux adds (``OPENCODE_CONFIG_CONTENT``): asking rules on opencode's own agents, and
    the ``allow-all`` agent for the mode that asks nothing."""
    agents: dict[str, Any] = {name: {"permission": dict(rules)} for name, rules in AGENT_PERMISSIONS.items()}
    agents[ALLOW_ALL_MODE] = {
        "mode": "primary",  # a mode, never a subagent the task tool could hand work to
        "description": "Build without asking: edits, commands, fetches and paths outside the folder all run "
        "without a permission question (set by acp-mux).",
        "permission": {"*": "allow"},
    }
    return {"default_agent": "build", "agent": agents}


def merged_config_content(existing: str | None) -> str:
    """``OPENCODE_CONFIG_CONTENT`` with acp-mux's rules over what the user's environment already had in it (JSON;
    content that is not a JSON object is replaced, with a warning: opencode would reject a broken one anyway)."""
    base: dict[str, Any] = {}
    if existing:
        try:
            parsed = json.loads(existing)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            base = parsed
        else:
            log.warning("%s is not a JSON object; acp-mux replaces it with its permission rules", CONFIG_ENV)
    return json.dumps(_merge(base, permission_config()), separators=(",", ":"))


def _merge(base: WireObject, over: WireObject) -> WireObject:
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            out[key] = _merge(below, value)
        else:
            out[key] = value
    return out


class OpencodeAdapter(AcpClientAdapter):
    name = "opencode"
    # its log on stderr (WARN and up): the only place its retries of a failing model show (stderr_events)
    acp_args = ("acp", "--print-logs", "--log-level", "WARN")
    run_type = OpencodeRun
    joins_text_chunks = True  # on_update reads tool calls only: text chunks go to the family's
    native_fork = True  # it advertises sessionCapabilities.fork: session/fork is forwarded (acp_client)
    capabilities = AgentCapabilities(
        persistent_process=True, supports_images=True, supports_mcp_http=True, supports_mcp_sse=True
    )

    def spawn_env(self, options: RunOptions) -> dict[str, str] | None:
        env = dict(options.env) if options.env is not None else dict(os.environ)
        env[CONFIG_ENV] = merged_config_content(env.get(CONFIG_ENV))
        return env

    # ── modes and models: opencode's config options ────────────────────────────────────────────────────────────
    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        return self._set_option("mode", mode, ctx)

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        return self._set_option("model", model, ctx)

    def _set_option(self, option: str, value: str, ctx: ParseContext) -> bool:
        run = AcpRun.find(ctx)
        if run is None:
            return False
        setattr(run.options, option, value)
        if run.ready:  # before the session exists, after_session_opened sends it once it does
            return self.set_config_option(option, value, ctx)
        return True

    # ── tool calls: announced empty, made ready by their first in_progress (or their question) ───────────────
    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        kind = update.get("sessionUpdate")
        tool_id = update.get("toolCallId")
        if not isinstance(tool_id, str) or not tool_id:
            return super().on_update(update, ctx)
        if (
            kind == "tool_call"
            and update.get("status") == "pending"
            and _empty_input(update.get("rawInput"))
            and tool_id not in ctx.tools
        ):
            return self._announce_empty(tool_id, update, ctx)
        state = ctx.tools.get(tool_id)
        if (
            kind == "tool_call_update"
            and state is not None
            and not state.ready
            and update.get("status") == "in_progress"
            and tool_id not in AcpRun.of(ctx).refused
        ):
            return self._made_ready(tool_id, update, ctx)
        return super().on_update(update, ctx)

    def _announce_empty(self, tool_id: str, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """A call announced before its input: shown at once, not ready (its input comes with its first progress)."""
        AcpRun.of(ctx).last_text = ""
        return ctx.tool_start(
            tool_id, self.tool_name_of(update), None, display=tool_display(update, ctx.cwd), ready=False
        )

    def _made_ready(self, tool_id: str, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The first in_progress of a call announced empty: its input is known now."""
        raw = update.get("rawInput")
        events = ctx.tool_ready(tool_id, raw if isinstance(raw, dict) else {})
        display = tool_display(update, ctx.cwd)
        if display is not None:
            events.append(ev.ToolUpdateEvent(tool_call_id=tool_id, display=display, running=False))
        return events

    def on_permission_request(
        self, rpc_id: RequestId, params: acp.RequestPermissionRequest, ctx: ParseContext
    ) -> list[BaseEvent]:
        tool_call = as_dict(params.get("toolCall"))
        tool_id = self.permission_tool_id(tool_call, ctx)
        state = ctx.tools.get(tool_id)
        events: list[BaseEvent] = []
        if state is not None and not state.ready:  # asked before its input came: the question's input is shown
            raw = tool_call.get("rawInput")
            events += ctx.tool_ready(tool_id, raw if isinstance(raw, dict) else {})
        return events + super().on_permission_request(rpc_id, params, ctx)

    # ── fs/write_text_file: opencode writes the file itself ────────────────────────────────────────────────────
    def on_client_request(
        self, rpc_id: RequestId, method: str, params: WireObject, ctx: ParseContext
    ) -> list[BaseEvent]:
        run = AcpRun.of(ctx)
        if method == "fs/write_text_file" and not self.client_capabilities(run.options)["fs"]["writeTextFile"]:
            run.peer.respond(ctx, rpc_id, {})  # opencode's own edit tool writes the same content
            return []
        return super().on_client_request(rpc_id, method, params, ctx)

    # ── retries: only in its log ───────────────────────────────────────────────────────────────────────────────
    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        OpencodeRun.of(ctx).failed_requests = 0

    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        """A failed model request of the prompt in flight: opencode retries it unasked, so the person is told."""
        found = stream_error(line)
        run = OpencodeRun.find(ctx)
        if found is None or run is None or run.prompt_in_flight is None or found[0] != run.session_id:
            return ()
        run.failed_requests += 1
        message = found[1]
        if run.failed_requests > MAX_RETRIES or any(word in message.lower() for word in _AUTH_WORDS):
            return ()  # opencode gives up here (a refused key is never retried): its error follows at once
        reason = f"the model request failed ({message}); opencode tries again"
        return (
            ctx.begin_turn()
            + ctx.end_thinking()
            + ctx.end_text()
            + [ev.RetryEvent(attempt=run.failed_requests, max_attempts=MAX_RETRIES, reason=reason)]
        )

    # ── errors ─────────────────────────────────────────────────────────────────────────────────────────────────
    def failure(self, error: WireObject, ctx: ParseContext, *, during: str) -> list[BaseEvent]:
        message = as_str(error.get("message"))
        if any(word in message.lower() for word in _AUTH_WORDS):  # the provider refused the key
            return ctx.close_open("failed") + [ev.AuthErrorEvent(message=message, guidance=self.auth_hint)]
        return super().failure(error, ctx, during=during)


def _empty_input(raw: object) -> bool:
    """opencode's announcement input: nothing, or only the folder a command would run in."""
    return not isinstance(raw, dict) or not {k for k in raw if k != "cwd"}
