"""pi (``@mariozechner/pi-coding-agent``) through ``pi --mode rpc``: one persistent process per session, and
permission dialogs pi does not have by itself.

pi has no permission system: its tools just run. acp-mux ships a pi extension (``pi_extension/``: ``loader.ts``,
given to ``pi -e``, loads the gate ``permissions.ts`` and never fails itself, since pi exits when an ``-e``
extension does not load) that asks before every tool that may change something, through pi's extension UI
protocol: a ``confirm``
``extension_ui_request`` whose title is ``acp-mux:permission`` and whose message is JSON naming the tool call. Those
questions become ``approval_request`` events, so the editor sees the same four options and "always" rules as for
every agent, and the answer goes back as ``extension_ui_response{confirmed}``. Modes decide which questions reach
the editor: ``ask`` (every change), ``accept-edits`` (file writes and edits are allowed at once; commands ask),
``bypass`` (nothing asks). Whether the gate is in place is read from pi's command list at start (the gate
registers ``acp-mux-permissions``; the loader reports a failure as ``acp-mux-permissions-failed`` with the reason).
Without it the session says so in the conversation and offers only the truthful mode "pi does not ask".

The rpc protocol (pi ``docs/rpc.md``; captures in ``tests/fixtures/pi``): commands on stdin as JSON lines with an
``id``; ``{"type":"response","id","command","success","data"|"error"}`` answers; events without ids. One prompt is
``agent_start`` … ``agent_end``; inside it, ``message_update`` streams deltas (read by :mod:`pi_lines` at a constant
cost per line), ``message_end`` closes each message with its usage and cost, and ``tool_execution_*`` run the tools.

Turn end is settled, not assumed: a failed model call ends with ``agent_end`` *before* pi decides to retry it
(``auto_retry_start`` follows in the same tick, then a new ``agent_start``). So after each ``agent_end`` the adapter
sends ``get_state``; pi answers it only after its retry decision, so by then either a retry has started (the turn
goes on) or the turn is over, with the last error typed (auth, rate limit, other).

pi's own controls (its models from ``get_available_models``, its thinking level) are read at start and changed in
place: :mod:`pi_settings`.

Sessions: ``get_state`` gives ``sessionFile``; that path is the native session id (``--session <path>`` resumes it).
A session file that is gone starts a new pi session, with a note in the conversation.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Self

from acp_mux.adapters.base import AgentAdapter, AgentCapabilities, ModeInfo, PerRun, try_json
from acp_mux.adapters.rpc_agents.pi_lines import Update, line_type, read_update
from acp_mux.adapters.rpc_agents.pi_settings import THINKING, PiControls, spawn_args
from acp_mux.adapters.rpc_agents.pi_tools import EDIT_TOOLS, PI_TOOLS, announce, execution_end, execution_update
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.run.interaction import AgentEnd, PendingInteraction
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.text.shapes import as_count, as_dict

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent


EXTENSION_DIR = Path(__file__).resolve().parent / "pi_extension"
LOADER, GATE = EXTENSION_DIR / "loader.ts", EXTENSION_DIR / "permissions.ts"
EXTENSION_ENV = "ACP_MUX_PI_EXTENSION"  # the bridge's setting: another gate file; empty = run pi without one
GATE_ENV = "ACP_MUX_PI_GATE"  # pi's environment: the gate the loader loads
PERMISSION_TITLE = "acp-mux:permission"
GATE_COMMAND = "acp-mux-permissions"  # registered by the gate, last: its presence proves the gate is in place
GATE_FAILED_COMMAND = "acp-mux-permissions-failed"  # registered by the loader instead; description = the reason
REJECTED = "The user rejected this action."

ASK, ACCEPT_EDITS, BYPASS, UNGATED = "ask", "accept-edits", "bypass", "no-permissions"
MODES = (
    ModeInfo(ASK, "Ask", "pi asks before it changes a file or runs a command."),
    ModeInfo(ACCEPT_EDITS, "Accept edits", "pi writes and edits files without asking; commands still ask."),
    ModeInfo(BYPASS, "Bypass permissions", "pi changes files and runs commands without asking."),
)
UNGATED_MODE = ModeInfo(UNGATED, "pi does not ask", "acp-mux's permission extension is not loaded: every tool runs.")

_AUTH = re.compile(
    r"\b(401|403)\b|unauthori[sz]ed|authentication|invalid[ _-]?api[ _-]?key|incorrect api key|no api key", re.I
)
_RATE = re.compile(r"\b429\b|rate.?limit|too many requests|quota|overloaded", re.I)
_MISSING_SESSION = re.compile(r"No session found matching")
_EXTENSION_FAILED = re.compile(r'Failed to load extension "([^"]+)"(.*)')

# ids of the commands the adapter sends, by purpose
_STATE, _COMMANDS, _MODELS, _SETTLE, _PROMPT, _MODEL = "state", "commands", "models", "settle", "prompt", "model"


@dataclass
class PiRun(PerRun):
    """One pi process's state (``PiRun.of(ctx)``; built in ``start``, with the run's options)."""

    options: RunOptions
    mode: str = ASK
    gated: bool = True  # the extension was loaded with -e (its command list may still prove otherwise)
    seq: int = 0
    waiting: dict[str, str] = field(default_factory=dict)  # command id → purpose
    refused: set[str] = field(default_factory=set)  # tool calls answered "no": they never ran
    notes: list[str] = field(default_factory=list)  # said in the conversation when the next turn starts
    in_agent: bool = False
    settling: bool = False  # agent_end seen; get_state sent to learn whether pi retries
    retrying: bool = False
    aborting: bool = False
    error: tuple[str, str] | None = None  # (kind, message) of the last failed model call of this turn
    cost_usd: float = 0.0
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0])  # input, output, cache read
    context_window: int = 0
    controls: PiControls = field(default_factory=PiControls)  # pi's models and thinking level

    KEY = "pi_run"

    @classmethod
    def fresh(cls) -> Self:
        raise RuntimeError("the pi run has not started")

    def command(self, ctx: ParseContext, purpose: str, body: dict[str, Any]) -> None:
        self.seq += 1
        command_id = f"acp-mux-{purpose}-{self.seq}"
        self.waiting[command_id] = purpose
        ctx.send({"id": command_id, **body})


class PiAdapter(AgentAdapter):
    name = "pi"
    capabilities = AgentCapabilities(persistent_process=True, supports_images=True)
    tool_table = PI_TOOLS
    modes = MODES
    default_mode = ASK

    def __init__(self) -> None:
        # Learnt from a pi that exited because the extension did not load: later processes of this bridge run
        # without it (and say so) instead of failing the same way again.
        self.extension_failure: str | None = None
        self.lost_sessions: set[str] = set()

    # ── spawn ──────────────────────────────────────────────────────────────────────────────────────────────────
    def gate_path(self, env: dict[str, str] | None) -> str | None:
        """The gate the loader should load, or None (turned off, the loader is missing, or pi could not load the
        loader earlier in this bridge)."""
        if self.extension_failure is not None or not LOADER.is_file():
            return None
        source = env if env is not None else os.environ
        if EXTENSION_ENV in source:
            return source[EXTENSION_ENV] or None
        return str(GATE)

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        command = self.resolve_binary(options.binary, options.env)
        args = ["--mode", "rpc"]
        env = options.env
        gate = self.gate_path(options.env)
        if gate is not None:
            args += ["-e", str(LOADER)]
            env = {**(os.environ if env is None else env), GATE_ENV: gate}
        session = options.session_id
        if session and session not in self.lost_sessions and (not os.path.isabs(session) or os.path.exists(session)):
            args += ["--session", session]
        if options.model:
            args += ["--model", options.model]
        args += spawn_args(options)
        return SpawnSpec(command=command, args=[*args, *options.extra_args], env=env, cwd=options.cwd)

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        run = PiRun(options=options, mode=_mode(options.mode), gated=self.gate_path(options.env) is not None)
        if run.gated and run.mode == UNGATED:  # a session that ran without the gate before: ask again now
            run.mode = ASK
        elif not run.gated:
            run.mode = UNGATED
        run.keep(ctx)
        if not run.gated:
            why = self.extension_failure or (
                f"{EXTENSION_ENV} is empty" if LOADER.is_file() else f"{LOADER} is missing"
            )
            run.notes.append(_ungated_note(why))
        session = options.session_id
        if session and (session in self.lost_sessions or (os.path.isabs(session) and not os.path.exists(session))):
            run.notes.append("pi's earlier session is gone; this is a new pi session.")
        run.command(ctx, _STATE, {"type": "get_state"})
        run.command(ctx, _COMMANDS, {"type": "get_commands"})
        run.command(ctx, _MODELS, {"type": "get_available_models"})
        if options.prompt is not None:
            self.send_prompt(options.prompt, ctx)

    # ── control ────────────────────────────────────────────────────────────────────────────────────────────────
    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = PiRun.of(ctx)
        run.aborting, run.error, run.retrying = False, None, False
        body: dict[str, Any] = {"type": "prompt", "message": prompt.as_text()}
        images = [{"type": "image", "data": p.data, "mimeType": p.mime_type} for p in prompt.images]
        if images:
            body["images"] = images
        run.command(ctx, _PROMPT, body)

    def steer(self, prompt: Prompt, ctx: ParseContext) -> bool:
        """pi's RPC ``steer``: the message is delivered to the running agent loop after its current tool call (pi's
        ``follow_up`` would wait for the whole run to end: that is a queued prompt, which the session does itself)."""
        run = PiRun.find(ctx)
        if run is None:
            return False
        body: dict[str, Any] = {"type": "steer", "message": prompt.as_text()}
        images = [{"type": "image", "data": p.data, "mimeType": p.mime_type} for p in prompt.images]
        if images:
            body["images"] = images
        run.command(ctx, "steer", body)
        return True

    def interrupt(self, ctx: ParseContext) -> bool:
        run = PiRun.find(ctx)
        if run is None:
            return False
        run.aborting = True
        for question in ctx.questions:  # open questions end as "no": the tool is blocked
            self._answer(ctx, run, ctx.questions.release(question.id), False, cancelled=True)
        ctx.send({"type": "abort"})
        return True

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        run = PiRun.find(ctx)
        if run is not None:
            run.mode = _mode(mode)
        return True

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        """``provider/id`` → pi's ``set_model``; a bare id is taken as a pattern at the next start instead."""
        run = PiRun.find(ctx)
        provider, _, model_id = model.partition("/")
        if run is None or not model_id:
            return False
        run.options.model = model
        run.command(ctx, _MODEL, {"type": "set_model", "provider": provider, "modelId": model_id})
        return True

    def set_config_option(self, option_id: str, value: Any, ctx: ParseContext) -> bool:
        """``thinking_level`` → pi's ``set_thinking_level`` (from the next model request on); a level the current model
        does not take is refused, as pi would clamp it to another."""
        run = PiRun.find(ctx)
        if run is None or option_id != THINKING or not run.controls.choose_level(value):
            return False
        run.options.agent_options = {**run.options.agent_options, THINKING: value}
        run.command(ctx, "thinking", {"type": "set_thinking_level", "level": value})
        return True

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        self._answer(ctx, PiRun.of(ctx), ctx.questions.take(interaction_id), decision.approve)

    def _answer(
        self,
        ctx: ParseContext,
        run: PiRun,
        question: PendingInteraction | None,
        confirmed: bool,
        cancelled: bool = False,
    ) -> None:
        if question is None or question.agent is None:  # answered already (or cancelled): pi waits for nothing
            return
        request_id, tool_id = question.agent.request_id, question.tool_call_id
        if tool_id is not None and (cancelled or not confirmed):
            run.refused.add(tool_id)
        answer: dict[str, Any] = {"type": "extension_ui_response", "id": request_id}
        answer.update({"cancelled": True} if cancelled else {"confirmed": confirmed})
        ctx.send(answer)

    # ── stdout ─────────────────────────────────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        run = PiRun.of(ctx)
        kind = line_type(line)  # the fast path reads pi's own layout; any other layout is parsed whole below
        msg = None
        if kind is None:
            msg = try_json(line)
            if msg is None:
                return []
            kind = msg.get("type") if isinstance(msg.get("type"), str) else None
        if kind == "message_update":
            update = read_update(line)
            return self._message_update(update, ctx) if update is not None else []
        if kind in ("turn_start", "turn_end", "message_start", "queue_update"):
            return []  # nothing the bridge needs (turn_end and message_start repeat whole messages)
        if kind == "agent_end":
            return self._agent_end(ctx, run)
        msg = msg if msg is not None else try_json(line)
        if msg is None or not kind or not kind.isidentifier():
            return []
        handler = getattr(self, f"_on_{kind}", None)
        return handler(msg, ctx, run) if handler is not None else []

    def _message_update(self, update: Update, ctx: ParseContext) -> list[BaseEvent]:
        if update.kind == "text_delta":
            return ctx.text_delta(update.delta)
        if update.kind == "thinking_delta":
            return ctx.thinking_delta(update.delta)
        call = update.tool_call
        if update.kind == "toolcall_start" and call:
            return announce(ctx, str(call.get("id") or ""), str(call.get("name") or ""))
        if update.kind == "toolcall_end" and call:
            args = as_dict(call.get("arguments"))
            return announce(ctx, str(call.get("id") or ""), str(call.get("name") or ""), args)
        return []

    def _on_response(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        purpose = run.waiting.pop(str(msg.get("id")), None)
        data = as_dict(msg.get("data"))
        failed = msg.get("success") is False
        if purpose == _STATE:
            return [] if failed else self._on_state(data, ctx, run)
        if purpose == _COMMANDS:
            return [] if failed else self._on_commands(data, ctx, run)
        if purpose == _MODELS:
            return [] if failed else run.controls.take_models(data)
        if purpose == _MODEL and not failed:
            return run.controls.take_model(data)
        if purpose == _SETTLE:
            return self._settle(ctx, run)
        if purpose in (_PROMPT, _MODEL) and failed:
            message = str(msg.get("error") or f"pi refused the {msg.get('command')} command")
            if purpose == _MODEL:
                return [ev.DebugEvent(level="warn", message=message)]
            return (
                ctx.begin_turn()
                + [ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=True)]
                + ctx.end_turn()
            )
        return []

    def _on_state(self, data: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        native = data.get("sessionFile") or data.get("sessionId")
        events: list[BaseEvent] = []
        if isinstance(native, str) and native:
            events += ctx.session_start(
                native, resumed=bool(run.options.session_id) and native == run.options.session_id
            )
        model = data.get("model") if isinstance(data.get("model"), dict) else None
        if model:
            window = model.get("contextWindow")
            run.context_window = window if isinstance(window, int) and not isinstance(window, bool) else 0
        return events + run.controls.take_state(data)

    def _on_thinking_level_changed(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        return run.controls.take_level(msg.get("level"))

    def _on_commands(self, data: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        listed = [c for c in data.get("commands") or () if isinstance(c, dict) and isinstance(c.get("name"), str)]
        events: list[BaseEvent] = []
        names = {c["name"]: str(c.get("description") or "") for c in listed}
        if run.gated and GATE_COMMAND not in names:
            run.gated, run.mode = False, UNGATED
            failed = names.get(GATE_FAILED_COMMAND)
            run.notes.append(
                _ungated_note(
                    f"its permission extension did not load: {failed}"
                    if failed is not None
                    else "its permission extension is not among pi's commands"
                )
            )
        if not run.gated:
            events.append(
                ev.SessionOptionsEvent(
                    modes=[
                        ev.SessionModeOption(id=UNGATED, name=UNGATED_MODE.name, description=UNGATED_MODE.description)
                    ],
                    current_mode=UNGATED,
                )
            )
        commands = [
            ev.SlashCommand(name=c["name"], description=str(c.get("description") or ""))
            for c in listed
            if c["name"] not in (GATE_COMMAND, GATE_FAILED_COMMAND)
        ]
        return events + [ev.CommandsUpdateEvent(commands=commands)]

    # ── the turn ───────────────────────────────────────────────────────────────────────────────────────────────
    def _on_agent_start(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        run.in_agent, run.retrying = True, False
        events = ctx.begin_turn()
        for note in run.notes:
            events += ctx.text_delta(f"_({note})_\n\n") + ctx.end_text()
        run.notes.clear()
        return events

    def _on_message_end(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        message = as_dict(msg.get("message"))
        if message.get("role") != "assistant":
            return []
        events = ctx.end_thinking() + ctx.end_text()
        usage = as_dict(message.get("usage"))
        events += self._usage(usage, run)
        stop = message.get("stopReason")
        if stop == "error":
            text = str(message.get("errorMessage") or "the model request failed")
            run.error = (_error_kind(text), text)
        elif stop == "length":
            run.error = ("length", "the model hit its output limit")
        elif stop != "aborted":
            run.error = None
        return events

    def _usage(self, usage: dict[str, Any], run: PiRun) -> list[BaseEvent]:
        if not usage:
            return []
        cache_read, cache_write = as_count(usage.get("cacheRead")), as_count(usage.get("cacheWrite"))
        # pi counts input without the cache (Anthropic's way); the events count it with (OpenAI's: events.py)
        tokens = [as_count(usage.get("input")) + cache_read + cache_write, as_count(usage.get("output")), cache_read]
        if not any(tokens):
            return []
        cost = as_dict(usage.get("cost"))
        total = cost.get("total")
        run.cost_usd += float(total) if isinstance(total, (int, float)) else 0.0
        run.tokens = [a + b for a, b in zip(run.tokens, tokens)]
        stated_total = as_count(usage.get("totalTokens"))
        return [
            ev.TokenUsageEvent(
                input_tokens=tokens[0],
                output_tokens=tokens[1],
                cached_tokens=cache_read or None,
                cache_write_tokens=cache_write or None,
                total_tokens=stated_total or None,
                context_window=run.context_window or None,  # the usage is measured against pi's real window
            )
        ]

    def _agent_end(self, ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        run.in_agent = False
        if not run.settling:
            run.settling = True
            run.command(ctx, _SETTLE, {"type": "get_state"})
        return []

    def _on_auto_retry_start(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        run.retrying, run.error = True, None
        return [
            ev.RetryEvent(
                attempt=as_count(msg.get("attempt")),
                max_attempts=as_count(msg.get("maxAttempts")),
                reason=str(msg.get("errorMessage") or "the model request failed"),
                delay_ms=as_count(msg.get("delayMs")),
            )
        ]

    def _on_auto_retry_end(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        run.retrying = False
        if msg.get("success") is False and msg.get("finalError"):
            text = str(msg["finalError"])
            run.error = (_error_kind(text), text) if text != "Retry cancelled" else None
        return []

    def _settle(self, ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        """pi answered the get_state sent after agent_end: its retry decision is known."""
        run.settling = False
        if run.in_agent or run.retrying:
            return []  # a retry is under way: the turn goes on
        events: list[BaseEvent] = ctx.begin_turn() if not ctx.in_turn else []
        error, run.error = run.error, None
        if run.aborting:
            run.aborting = False
            return events + ctx.end_turn(tool_error="cancelled")
        if error is not None:
            events += ctx.close_open("failed") + _error_events(error, self.auth_hint)
        cost = ev.CostRecord(
            total_usd=run.cost_usd,
            input_tokens=run.tokens[0],
            output_tokens=run.tokens[1],
            cached_tokens=run.tokens[2] or None,
        )
        events.append(ev.CostEvent(cost=cost))
        return events + ctx.end_turn()

    # ── tools and questions ────────────────────────────────────────────────────────────────────────────────────
    def _on_tool_execution_start(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        args = as_dict(msg.get("args"))
        return announce(ctx, str(msg.get("toolCallId") or ""), str(msg.get("toolName") or ""), args)

    def _on_tool_execution_update(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        return execution_update(
            ctx, str(msg.get("toolCallId") or ""), str(msg.get("toolName") or ""), msg.get("partialResult")
        )

    def _on_tool_execution_end(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        tool_id = str(msg.get("toolCallId") or "")
        refused = tool_id in run.refused
        run.refused.discard(tool_id)
        return execution_end(
            ctx, tool_id, str(msg.get("toolName") or ""), msg.get("result"), msg.get("isError") is True, refused
        )

    def _on_extension_ui_request(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        request_id, method = str(msg.get("id") or ""), msg.get("method")
        if method == "confirm" and msg.get("title") == PERMISSION_TITLE:
            return self._permission(request_id, msg.get("message"), ctx, run)
        if method == "confirm":  # another extension's yes/no question: the editor answers it as a permission
            asked = ev.ApprovalRequestEvent(
                interaction_id=f"pi-question-{request_id}",
                action=str(msg.get("title") or "pi extension"),
                detail=str(msg.get("message") or ""),
                tool_name="pi extension",
                input={},
            )
            return ctx.begin_turn() + [ctx.questions.ask(asked, AgentEnd(request_id))]
        if method in ("select", "input", "editor"):  # nothing in ACP answers these: dismissed, never left hanging
            ctx.send({"type": "extension_ui_response", "id": request_id, "cancelled": True})
            return [
                ev.DebugEvent(level="warn", message=f"a pi extension asked {method!r} ({msg.get('title')}); dismissed")
            ]
        if method == "notify" and msg.get("notifyType") in ("warning", "error"):
            return [ev.DebugEvent(level="warn", message=f"pi: {msg.get('message')}")]
        return []

    def _permission(self, request_id: str, message: object, ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        try:
            asked = as_dict(json.loads(message) if isinstance(message, str) else None)
        except ValueError:
            asked = {}
        tool_id = str(asked.get("toolCallId") or f"pi-permission-{request_id}")
        name = str(asked.get("toolName") or "tool")
        tool_input = as_dict(asked.get("input"))
        if run.mode == BYPASS or (run.mode == ACCEPT_EDITS and name in EDIT_TOOLS) or run.mode == UNGATED:
            ctx.send({"type": "extension_ui_response", "id": request_id, "confirmed": True})
            return []
        if run.aborting:  # a question that comes after cancel: the turn is ending, nothing more runs
            ctx.send({"type": "extension_ui_response", "id": request_id, "cancelled": True})
            run.refused.add(tool_id)
            return []
        events = announce(ctx, tool_id, name, tool_input)
        spec = self.tool_table.lookup(name)
        question = ev.ApprovalRequestEvent(
            interaction_id=f"pi-permission-{request_id}",
            action=spec.render_title(name, tool_input),
            tool_name=name,
            tool_call_id=tool_id,
            input=tool_input,
            risk_level="high" if spec.kind == "execute" else "medium",
        )
        return events + [ctx.questions.ask(question, AgentEnd(request_id))]

    def _on_extension_error(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        return [ev.DebugEvent(level="warn", message=f"pi extension error in {msg.get('event')}: {msg.get('error')}")]

    def _on_compaction_end(self, msg: dict[str, Any], ctx: ParseContext, run: PiRun) -> list[BaseEvent]:
        result = msg.get("result") if isinstance(msg.get("result"), dict) else None
        if not result or not ctx.in_turn:
            return []
        return [ev.ContextCompactedEvent(summary="", tokens_saved=as_count(result.get("tokensBefore")))]

    # ── refusals, stderr, exit ─────────────────────────────────────────────────────────────────────────────────
    def stderr_events(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        failed = _EXTENSION_FAILED.search(line)
        run = PiRun.find(ctx)
        if failed and run is not None and run.gated:  # pi exited: the next pi of this bridge runs without it
            self.extension_failure = f"pi could not load acp-mux's extension:{failed.group(2).rstrip()}"
        if _MISSING_SESSION.search(line) and run is not None and run.options.session_id:
            self.lost_sessions.add(run.options.session_id)
        return ()


def _ungated_note(why: str) -> str:
    return f"pi does not ask before changing files or running commands here ({why})."


def _mode(mode: str | None) -> str:
    return mode if mode in (ASK, ACCEPT_EDITS, BYPASS, UNGATED) else ASK


def _error_kind(text: str) -> str:
    if _AUTH.search(text):
        return "auth"
    if _RATE.search(text):
        return "rate"
    return "other"


def _error_events(error: tuple[str, str], auth_hint: str) -> list[BaseEvent]:
    kind, text = error
    if kind == "auth":
        return [ev.AuthErrorEvent(message=text, guidance=auth_hint)]
    if kind == "rate":
        return [ev.RateLimitErrorEvent(message=text)]
    if kind == "length":
        return [ev.ErrorEvent(code=ErrorCode.MAX_TOKENS, message=text, recoverable=True)]
    return [ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=text, recoverable=True)]
