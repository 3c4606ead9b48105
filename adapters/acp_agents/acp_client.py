"""The ACP-client transport family: agents that speak ACP themselves (gemini, copilot, opencode, omp, hermes,
cursor; openclaw through its gateway).

acp-mux is an ACP *client* toward these agents and an ACP agent toward the editor. Their ``session/update``
notifications are not passed through: they become events of the one union (text, thoughts, tool calls with the
agent's own display hints, plans, modes, commands, settings), so the same translation, permission rules, output
bounds, errors and session store serve them as every other agent. What the agent sends is never shown less: every
field the union cannot derive from a tool table travels as a display hint.

The client side, as a careful ACP client does it:
- ``initialize`` advertises only the capabilities the editor really has (``fs``, ``terminal``); requests for them
  are relayed to the editor as ``client_request`` events. An agent that asks anyway gets a local answer for
  ``fs/*`` confined to the session's cwd, and an error for anything else. Every request is answered.
- ``session/new`` carries the editor's MCP servers; a run with a native session id resumes it
  (``session/resume`` when offered, else ``session/load`` with the agent's replay suppressed: the bridge has its
  own record), falling back to a new session with a visible note when the agent cannot.
- What the agent sends is read at one edge (:meth:`AcpClientAdapter.parse_line`): every ``session/update`` and
  every request of the schema is validated with the pinned v1 model there; a request outside ACP is answered
  ``-32602`` naming the fields, an update outside it is shown as far as it goes but never forwarded as written.
  Our own requests are validated and dumped (``wire.dump``), their answers validated before a handler reads them.
- Without loss: ``messageId`` rides on every message and thought chunk; ``usage_update``, ``session_info_update``
  (the agent's title names the session) and update kinds from a newer ACP reach the editor as the agent wrote
  them (``agent_update``); plans and commands carry the agent's own form beside the union's view.
- Permission requests become ``approval_request`` about a tool call the editor has been shown (announced first
  when the agent asks before describing it); the question is registered with the run's one record of open questions (``ctx.questions``, with the agent's
  end: request id, offered options, form field), which the answer reads back.
  Elicitations (``elicitation/create``) go to the editor when it declared that mode (form or url), its answer back
  unchanged; the url mode's later ``elicitation/complete`` follows it to that editor as the agent wrote it
  (``client_notification``), and is dropped where the editor never saw the url. Where it did not, an agent that asks for approvals through a form (one field whose enum is an
  approve/deny pair, e.g. omp's write tools; its adapter sets :attr:`AcpClientAdapter.elicitation_form`) gets the
  permission treatment: a tool call built from the question (:meth:`AcpClientAdapter.elicitation_tool_call`) is
  announced, asked about, and the agent's own ``tool_call`` that follows the answer is linked to it (same path,
  else the oldest one waiting), so the editor sees one call; any other elicitation is declined. A call the person
  refused shows no more progress, only its end. The bridge's answer is mapped onto the option ids the agent offered.
  "Always" is remembered by the bridge and answered to the agent as a one-time allow, so an agent's own "always"
  (which may mean far more, e.g. gemini switching to auto-edit mode) never widens what the person's label said.
- Cancel is ``session/cancel``; questions still open are answered ``cancelled``. The bridge escalates if the agent
  does not stop (see ``LiveSession.cancel``).
- A prompt that fails with a JSON-RPC error becomes a typed error event (auth, rate limit, other), never
  ``end_turn``.

Per-agent modules subclass :class:`AcpClientAdapter` and set only what is theirs: binary and ACP arguments, login,
environment, and the family's public hooks, each documented where it is defined. The moments of a run:
``on_initialized`` (after ``initialize``; cursor authenticates here), ``after_session_opened`` (the session exists,
before waiting prompts go out), ``before_prompt`` (per-turn state), ``on_prompt_done`` (the prompt's answer). What the
agent sends: ``on_update`` (a ``session/update``), ``on_permission_request``, ``on_client_request`` (fs/terminal),
``on_extension_request`` / ``on_extension_notification`` (its own methods). Quirks: ``tool_name_of``,
``permission_tool_id``, ``elicitation_tool_call``, ``failed_turn``, ``usage_events``, ``native_session_id``,
``resume_replays``. Subclasses override only these (and the AgentAdapter methods), never an ``_``-method of the
family: tests/adapters/test_acp_hooks.py fails on one. ``AcpRun.last_text``
(the agent's text since its last tool call) serves agents that report a failed model request only as text.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Literal, Self, TypeAlias, TypeVar, cast

from acp_mux.version import __version__
from acp_mux.adapters.base import AgentAdapter, AgentCapabilities, PerRun, try_json
from acp_mux.adapters.json_rpc_peer import INTERNAL_ERROR, METHOD_NOT_FOUND, JsonRpcPeer, error_message
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.text.delta_join import MOST_JOINED
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.events.lazy import lazy_module
from acp_mux.core.run.interaction import AgentEnd
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnSpec
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.text.shapes import as_count, as_dict, as_int, as_list, as_str
from acp_mux.protocol.plain_chunk import is_plain_text_chunk
from acp_mux.translation.content import block_text, prompt_to_blocks

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent, PlanEntry, ToolDisplay
    from acp_mux.protocol import wire
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import ContentBlock, PermissionOption, RequestId

    # A JSON object as the agent (or the editor) sent it: checked against the pinned schema at the edge, read
    # defensively past it (an update outside ACP is still shown as far as it can be read, so no TypedDict promises
    # more than the bytes hold).
    WireObject: TypeAlias = dict[str, object]
else:
    wire = lazy_module("acp_mux.protocol.wire")  # the schema's models load with the first update they check


log = logging.getLogger(__name__)

OnResult = Callable[[object, "WireObject | None"], "list[BaseEvent]"]  # what a request's answer is handed to

ACP_PROTOCOL_VERSION = 1
CLIENT_INFO = {"name": "acp-mux", "title": "acp-mux", "version": __version__}
MAX_LOCAL_READ_BYTES = 5_000_000
_RATE_WORDS = ("429", "rate limit", "rate_limit", "quota", "resource_exhausted", "too many requests")
_AUTH_WORDS = ("401", "403", "unauthorized", "unauthenticated", "api key", "api_key", "authentication", "auth_required")
# ACP permission option kinds, by what the bridge wants to answer (first found wins).
_ANSWER_KINDS = {
    "allow": ("allow_once", "allow_always"),
    "reject": ("reject_once", "reject_always"),
}


_PERMISSION, _ELICITATION = "session/request_permission", "elicitation/create"  # the requests that ask the person


@dataclass
class AcpRun(PerRun):
    """Everything one run of an ACP agent keeps (``AcpRun.of(ctx)``). An agent whose quirk hooks must remember
    more subclasses it with typed fields and names the subclass in :attr:`AcpClientAdapter.run_type`."""

    peer: JsonRpcPeer
    options: RunOptions
    agent_capabilities: WireObject = field(default_factory=dict)
    session_id: str | None = None
    ready: bool = False  # the agent's session exists: prompts may go out (``accepts_prompts``; the run holds them)
    loading: bool = False  # session/load in flight: the agent's replay of old turns is not news
    prompt_in_flight: int | None = None
    cancelling: bool = False
    awaiting_call: list[tuple[str, str | None, str]] = field(
        default_factory=list
    )  # elicited calls: (shown id, path, kind)
    aliases: dict[str, str] = field(default_factory=dict)  # the agent's tool call id → the id the editor was shown
    refused: set[str] = field(default_factory=set)  # tool calls the person refused: only their end is news
    said: JoinedText = field(default_factory=JoinedText)  # the agent's text since its last tool call: last_text
    client_requests: dict[str, tuple[RequestId, str, WireObject]] = field(
        default_factory=dict
    )  # ours → (rpc id, method, params)
    # the update the edge last validated, and its AcpShapeError (or None)
    checked: tuple[object, wire.AcpShapeError | None] = (None, None)

    KEY = "acp_run"

    @property
    def last_text(self) -> str:
        """The agent's text since its last tool call (agents that report failures as text read it at the turn's
        end). Kept as :class:`JoinedText`: each chunk appends (``said.append``), never copies what came before."""
        return self.said.text()

    @last_text.setter
    def last_text(self, text: str) -> None:
        self.said = JoinedText(text)

    @classmethod
    def fresh(cls) -> Self:
        raise RuntimeError("the ACP run has not started")  # it is built in start(), with its peer and options


class AcpClientAdapter(AgentAdapter):
    """Base of every agent that speaks ACP on stdio. Subclasses set ``name``, ``binary``, ``acp_args`` and the
    discovery fields, and override the quirk hooks they need."""

    acp_args: tuple[str, ...] = ("acp",)
    # The agent asks for approvals through form elicitations (ACP unstable): advertise them and show them as
    # permission dialogs. The bridge really can answer them, so this is no capability the editor lacks.
    elicitation_form: ClassVar[bool] = False
    # session/resume replays the history before answering, as session/load does (hermes): suppress it likewise.
    resume_replays: ClassVar[bool] = False
    run_type: ClassVar[type[AcpRun]] = AcpRun  # the per-run state start() builds (a subclass adds an agent's fields)
    # Adjacent plain text chunks of one message, read together, reach on_update as one chunk (parse_from). True
    # while on_update treats a chunk's text the same whole or split, and nothing else reads lines: an agent whose
    # hook reads chunk by chunk (a marker or prefix that must begin a chunk) or whose parse_line does more than the
    # family's sets it False (then every line goes through parse_line). Every class that overrides on_update or
    # parse_line says which in its own body (tests/adapters/test_text_chunk_runs.py).
    joins_text_chunks: ClassVar[bool] = True
    capabilities = AgentCapabilities(persistent_process=True)
    starts_early = True  # the family's spawn is the binary, its ACP arguments and the environment

    # ── spawn and handshake ────────────────────────────────────────────────────────────────────────────────────
    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        command = self.resolve_binary(options.binary, options.env)
        args = [*self.acp_args, *self.model_args(options), *options.extra_args]
        return SpawnSpec(command=command, args=args, env=self.spawn_env(options), cwd=options.cwd)

    def model_args(self, options: RunOptions) -> list[str]:
        """Command-line arguments that pick the model at start (agents that only take it in-protocol: none)."""
        return []

    def spawn_env(self, options: RunOptions) -> dict[str, str] | None:
        """The agent's environment (None = the bridge's own). Subclasses add what the agent needs."""
        return options.env

    def client_capabilities(self, options: RunOptions) -> acp.ClientCapabilities:
        """What we tell the agent we can do: exactly what the editor offered, no more."""
        editor = options.client_capabilities or {}
        fs = as_dict(editor.get("fs"))
        offered: acp.ClientCapabilities = {
            "fs": {"readTextFile": bool(fs.get("readTextFile")), "writeTextFile": bool(fs.get("writeTextFile"))},
            "terminal": bool(editor.get("terminal")),
        }
        elicitation = editor_elicitation(editor)  # the modes the editor shows itself: forwarded to it
        if self.elicitation_form and "form" not in elicitation:  # asked as a permission dialog instead
            elicitation["form"] = {}
        if elicitation:
            offered["elicitation"] = cast("acp.ElicitationCapabilities", elicitation)  # the editor's, as it declared
        return offered

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        self.run_type(peer=JsonRpcPeer(), options=options).keep(ctx)  # its first prompt waits in the run until ready
        params = {
            "protocolVersion": ACP_PROTOCOL_VERSION,
            "clientCapabilities": self.client_capabilities(options),
            "clientInfo": CLIENT_INFO,
        }
        self.call_agent(ctx, "initialize", params, lambda result, error: self.on_initialized(result, error, ctx))

    def call_agent(self, ctx: ParseContext, method: str, params: Mapping[str, object], on_result: OnResult) -> int:
        """Send the agent a request of ours; its id. Both ends are checked against the pinned schema: what we send
        is validated and dumped (``wire.dump``: the schema's names, nothing invented), and the agent's answer is
        validated before ``on_result`` sees it, so an answer outside ACP reaches it as a typed error
        (``-32602``, naming the fields), never as a half-read result. Methods outside the schema (extensions,
        unstable ones such as ``session/set_model``) pass as they are."""
        try:
            model = wire.parse_params(method, params)
        except wire.AcpShapeError as error:  # the editor's part of it (e.g. its MCP servers) does not fit: its to say
            log.warning("%s: sending %s as it is, though it does not fit ACP: %s", self.name, method, error.reason)
            model = None
        payload = wire.dump(model) if model is not None else dict(params)

        def checked(result: object, error: WireObject | None) -> list[BaseEvent]:
            if error is None:
                try:
                    wire.parse_result(method, result)
                except wire.AcpShapeError as shape:
                    message = f"{self.display_name or self.name} answered {method} outside ACP: {shape.reason}"
                    return on_result(None, {"code": wire.SHAPE_ERROR_CODE, "message": message})
            return on_result(result, error)

        return AcpRun.of(ctx).peer.request(ctx, method, payload, checked)

    def on_initialized(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        """Hook: the agent answered ``initialize``. Default: keep its capabilities and open the session. An agent
        that must authenticate first (cursor) does that here, then calls this default."""
        run = AcpRun.of(ctx)
        if error is not None:
            return self.failure(error, ctx, during="initialize")
        run.agent_capabilities = as_dict(as_dict(result).get("agentCapabilities"))
        return self._open_session(ctx)

    def _open_session(self, ctx: ParseContext) -> list[BaseEvent]:
        run = AcpRun.of(ctx)
        options = run.options
        base: WireObject = {"cwd": options.cwd, "mcpServers": self.mcp_servers(options)}
        native = options.session_id
        caps = run.agent_capabilities
        if native and options.fork_session:  # the agent's own fork (an unstable ACP method it advertises)
            return self._fork_session(ctx, native, base)
        if native and "resume" in as_dict(caps.get("sessionCapabilities")):
            run.loading = self.resume_replays
            self.call_agent(ctx, "session/resume", {**base, "sessionId": native}, self._session_opened(ctx, native))
        elif native and caps.get("loadSession"):
            run.loading = True
            self.call_agent(ctx, "session/load", {**base, "sessionId": native}, self._session_opened(ctx, native))
        else:
            self.call_agent(ctx, "session/new", base, self._session_opened(ctx, None))
        return []

    def _fork_session(self, ctx: ParseContext, native: str, base: WireObject) -> list[BaseEvent]:
        """``session/fork`` of the agent's session ``native``: the new session it answers is this run's. An agent
        that does not advertise ``sessionCapabilities.fork``, or fails the fork, fails the run (never a fresh
        session in its place, which would lack the conversation): acp-mux then hands the conversation over."""
        run = AcpRun.of(ctx)
        if "fork" not in as_dict(run.agent_capabilities.get("sessionCapabilities")):
            refusal = {"code": INTERNAL_ERROR, "message": f"{self.name} does not offer session/fork"}
            return self.failure(refusal, ctx, during="session/fork")
        run.loading = True  # whatever the agent replays of the copied history is not news
        self.call_agent(
            ctx, "session/fork", {**base, "sessionId": native}, self._session_opened(ctx, None, "session/fork")
        )
        return []

    def mcp_servers(self, options: RunOptions) -> list[WireObject]:
        """The editor's MCP servers as ACP has them (the agent speaks ACP: nothing to convert)."""
        return list(options.mcp_servers)

    def _session_opened(self, ctx: ParseContext, resumed_id: str | None, during: str = "session/new") -> OnResult:
        def on_result(result: object, error: WireObject | None) -> list[BaseEvent]:
            run = AcpRun.of(ctx)
            run.loading = False
            if error is not None and resumed_id is not None:
                # The agent lost or cannot reopen its session: start afresh, and say so in the conversation.
                log.info("%s could not resume session %s: %s", self.name, resumed_id, error_message(error))
                run.options.session_id = None
                self._open_session(ctx)
                note = f"{self.display_name or self.name} could not resume its earlier session; starting a new one."
                if ctx.prompt_waiting():  # a prompt is about to run: say it in the conversation
                    return ctx.text_delta(f"_({note})_\n\n") + ctx.end_text()
                return [ev.DebugEvent(level="warn", message=note)]
            if error is not None:
                return self.failure(error, ctx, during=during)
            body = as_dict(result)
            session_id = body.get("sessionId") if isinstance(body.get("sessionId"), str) else resumed_id
            if not session_id:
                return self.failure(
                    {"code": INTERNAL_ERROR, "message": "the agent opened no session"}, ctx, during=during
                )
            run.session_id, run.ready = session_id, True
            native = self.native_session_id(session_id)
            events = ctx.session_start(native, resumed=resumed_id is not None) if native else []
            options_event = session_options(body.get("modes"), body.get("models"), body.get("configOptions"))
            if options_event is not None:
                events.append(options_event)
            return events + self.after_session_opened(body, ctx)  # the prompts waiting in the run go out next

        return on_result

    def native_session_id(self, acp_session_id: str) -> str | None:
        """The id the bridge stores to resume this session later: the ACP session id. Quirk hook for agents that
        resume by another name (openclaw: its gateway session key, known only after the first turn; None defers
        ``session_start`` until the agent reports it)."""
        return acp_session_id

    def after_session_opened(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """Hook: the agent's session exists (``body``: its answer to session/new, load or resume; a resumed one
        keeps ``run.options.session_id``), before the prompts that waited for it go out. Default: ask for the mode
        and model the session record wants, when the agent started in others. An agent that sets more (copilot's
        asking mode) or remembers that it loaded (gemini) adds to it."""
        run = AcpRun.of(ctx)
        options = run.options
        current_mode = as_dict(body.get("modes")).get("currentModeId")
        if options.mode and options.mode != current_mode:
            self.set_mode(options.mode, ctx)
        current_model = as_dict(body.get("models")).get("currentModelId")
        if options.model and options.model != current_model:
            self.set_model(options.model, ctx)
        return []

    # ── prompts, modes, cancel ────────────────────────────────────────────────────────────────────────────────
    def accepts_prompts(self, ctx: ParseContext) -> bool:
        """The agent's session is open (until then the run holds the prompts, the first one included)."""
        run = AcpRun.find(ctx)
        return run is not None and run.ready

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        if not self.accepts_prompts(ctx):
            raise RuntimeError(f"{self.name}: a prompt before its session is open (the run holds those)")
        self._send_prompt_now(prompt, ctx)

    def prompt_blocks(self, prompt: Prompt) -> list[ContentBlock]:
        return prompt_to_blocks(prompt)

    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        """Hook: a prompt is about to go out as ``session/prompt`` (its session exists). Agents reset what they
        keep per turn here (retry counters, held text, the gateway's last failure). Default: nothing."""

    def _send_prompt_now(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = AcpRun.of(ctx)
        run.cancelling = False
        run.last_text = ""
        self.before_prompt(prompt, ctx)
        params = {"sessionId": run.session_id, "prompt": self.prompt_blocks(prompt)}
        run.prompt_in_flight = self.call_agent(
            ctx, "session/prompt", params, lambda result, error: self.on_prompt_done(result, error, ctx)
        )

    def on_prompt_done(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        """Hook: the agent answered ``session/prompt`` (its stop reason, or an error). Default: the turn's end as
        events, a failure typed (:meth:`failed_turn` decides first). An agent that holds text until it knows
        whether the turn failed (copilot) or closes calls of its own (hermes) wraps this default."""
        run = AcpRun.of(ctx)
        run.prompt_in_flight = None
        events: list[BaseEvent] = ctx.begin_turn()
        if error is not None:
            if run.cancelling:  # some agents answer a cancel with an error: it is still a cancel
                return events + ctx.end_turn(tool_error="cancelled")
            return events + self.failure(error, ctx, during="session/prompt")
        body = as_dict(result)
        stop = body.get("stopReason")
        events += self.usage_events(body, ctx)
        failure = self.failed_turn(stop, ctx)
        if failure is not None:
            return events + failure
        if stop == "cancelled" or run.cancelling:
            return events + ctx.close_open("cancelled") + [ev.InterruptedEvent()] + ctx.end_turn()
        if stop == "max_tokens":
            return (
                events
                + ctx.close_open("stopped")
                + [ev.ErrorEvent(code=ErrorCode.MAX_TOKENS, message="the model hit its output limit", recoverable=True)]
                + ctx.end_turn()
            )
        if stop == "max_turn_requests":
            return events + ctx.close_open("stopped") + [ev.TurnLimitEvent(max_turns=0)]
        if stop == "refusal":
            return (
                events
                + ctx.close_open("refused")
                + [ev.ErrorEvent(code=ErrorCode.REFUSAL, message="The agent refused to continue.", recoverable=True)]
                + ctx.end_turn()
            )
        return events + ctx.end_turn()

    def failed_turn(self, stop: object, ctx: ParseContext) -> list[BaseEvent] | None:
        """Quirk hook: an agent that ends a failed turn as ``end_turn`` (the error only in its text or stderr)
        returns the typed failure here. Default: trust the stop reason."""
        return None

    def usage_events(self, body: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """Token usage the prompt result carries (``usage``, or agents' own ``_meta``). ACP's ``inputTokens`` leaves
        the cached tokens out, the event's input has them in (events.py): they are added here and taken off again
        for the editor (translation/usage.py), so the agent's usage reaches it as the agent wrote it."""
        usage = as_dict(body.get("usage"))
        if not usage:
            return []
        cached, cache_write = as_int(usage.get("cachedReadTokens")), as_int(usage.get("cachedWriteTokens"))
        return [
            ev.TokenUsageEvent(
                input_tokens=as_count(usage.get("inputTokens")) + (cached or 0) + (cache_write or 0),
                output_tokens=as_count(usage.get("outputTokens")),
                thinking_tokens=as_int(usage.get("thoughtTokens")),
                cached_tokens=cached,
                cache_write_tokens=cache_write,
                total_tokens=as_int(usage.get("totalTokens")),
            )
        ]

    def interrupt(self, ctx: ParseContext) -> bool:
        run = AcpRun.find(ctx)
        if run is None or run.session_id is None:
            return False
        run.cancelling = True
        for request_id, (rpc_id, method, _) in list(run.client_requests.items()):  # the editor's forms: cancelled
            if method == "elicitation/create":
                del run.client_requests[request_id]
                self.answer_agent(ctx, rpc_id, "elicitation/create", {"action": "cancel"})
        for question in ctx.questions:  # ACP: open questions are answered "cancelled"
            ask = question.agent
            if ask is not None and ask.method in (_PERMISSION, _ELICITATION):
                ctx.questions.release(question.id)
                self._answer_cancelled(ask, ctx)
        run.peer.notify(ctx, "session/cancel", {"sessionId": run.session_id})
        return True

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        """Switch the mode in-protocol (ACP ``session/set_mode``)."""
        return self._set_in_session(ctx, "mode", mode, "session/set_mode", "modeId")

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        """Switch the model in-protocol (ACP ``session/set_model``)."""
        return self._set_in_session(ctx, "model", model, "session/set_model", "modelId")

    def _set_in_session(self, ctx: ParseContext, option: str, value: str, method: str, param: str) -> bool:
        """Remember ``value`` as the run's ``option`` (a session opened later asks for it) and, once the agent's
        session is open, ask the agent for it now; ``False`` when no run is there to take it."""
        run = AcpRun.find(ctx)
        if run is None:
            return False
        setattr(run.options, option, value)
        if run.ready:
            self.call_agent(
                ctx, method, {"sessionId": run.session_id, param: value}, _log_failure(f"{self.name} {method}")
            )
        return True

    def set_config_option(self, option_id: str, value: object, ctx: ParseContext) -> bool:
        """Pass a setting the agent offered through to it; its answer (the new options) becomes an event."""
        run = AcpRun.find(ctx)
        if run is None or not run.ready:
            return False

        def on_result(result: object, error: WireObject | None) -> list[BaseEvent]:
            if error is not None:
                log.warning("%s set_config_option %s failed: %s", self.name, option_id, error_message(error))
                return []
            event = session_options(None, None, as_dict(result).get("configOptions"))
            return [event] if event is not None else []

        params = {"sessionId": run.session_id, "configId": option_id, "value": value}
        self.call_agent(ctx, "session/set_config_option", params, on_result)
        return True

    # ── incoming ───────────────────────────────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        msg = try_json(line)
        return self._on_message(msg, _plain_chunk(msg), line, ctx)

    def parse_from(self, lines: Sequence[str], start: int, ctx: ParseContext) -> tuple[Iterable[BaseEvent], int]:
        """A run of plain text chunks of one message (the bulk of every long reply, often dozens to one read) goes
        to on_update as one chunk with their joined text, as ``join_adjacent_deltas`` would have joined their
        events: each line then costs its decoding and a few comparisons, not a handler's work and an event of its
        own. Up to :data:`MOST_JOINED` characters, like any joined delta; anything else goes line by line."""
        if not self.joins_text_chunks:
            return self.parse_line(lines[start], ctx), 1
        msg = try_json(lines[start])
        update = _plain_chunk(msg)
        if update is None or AcpRun.of(ctx).loading:
            return self._on_message(msg, update, lines[start], ctx), 1
        texts = [_chunk_text(update)]
        size, taken = len(texts[0]), 1
        for at in range(start + 1, len(lines)):  # (no slice: each line is looked at once, however long the burst)
            after = _plain_chunk(try_json(lines[at]))
            if after is None:
                break
            text = _chunk_text(after)
            same = after["sessionUpdate"] == update["sessionUpdate"] and after.get("messageId") == update.get(
                "messageId"
            )
            if not same or size + len(text) > MOST_JOINED:
                break
            texts.append(text)
            size += len(text)
            taken += 1
        if taken > 1:
            update = {**update, "content": {"type": "text", "text": "".join(texts)}}
        return self._on_plain_chunk(update, ctx), taken

    def _on_message(
        self, msg: WireObject | None, plain: WireObject | None, line: str, ctx: ParseContext
    ) -> Iterable[BaseEvent]:
        """One decoded line (None: not a JSON object) → events; ``plain``: its update when it is a plain text chunk
        (:func:`_plain_chunk`, found by the caller)."""
        if msg is None:
            return []
        if plain is not None:
            return self._on_plain_chunk(plain, ctx)
        run = AcpRun.of(ctx)
        kind = run.peer.classify(msg)
        if kind == "response":
            return run.peer.handle_response(msg)
        if kind == "notification":
            method = str(msg["method"])  # (the peer classified it: a string method)
            if method == "session/update":
                if run.loading:
                    return []  # the agent replays its history: the bridge shows its own record instead
                update = as_dict(as_dict(msg.get("params")).get("update"))
                return self._check_update(msg.get("params"), update, run) + self.on_update(update, ctx)
            if method == "elicitation/complete":
                return self._elicitation_complete(msg.get("params"), run)
            return self._extension_notification(method, as_dict(msg.get("params")), ctx)
        if kind == "request":
            return self._on_request(msg, ctx)
        log.debug("%s sent an invalid JSON-RPC message: %s", self.name, line[:200])
        run.peer.answer_invalid(ctx, msg)  # a request of the wrong shape is still answered, never left waiting
        return []

    def _on_request(self, msg: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        run = AcpRun.of(ctx)
        # the peer classified it a request: a string method and a JSON-RPC id
        method, rpc_id, params = str(msg["method"]), cast("RequestId", msg["id"]), as_dict(msg.get("params"))
        if wire.side_of(method) == "client":  # a method of the schema's: it must fit it before anything reads it
            try:
                wire.parse_params(method, msg.get("params"))
            except wire.AcpShapeError as error:
                run.peer.respond_error(
                    ctx, rpc_id, wire.SHAPE_ERROR_CODE, f"acp-mux cannot read {method}: {error.reason}"
                )
                return [ev.DebugEvent(level="warn", message=f"{self.name} sent {method} outside ACP: {error.reason}")]
        try:
            if method == "session/request_permission":
                # validated above (a method of the schema's fits it before anything reads it)
                return self.on_permission_request(rpc_id, cast("acp.RequestPermissionRequest", params), ctx)
            if method == "elicitation/create":
                return self._elicitation(rpc_id, params, ctx)
            if method.startswith(("fs/", "terminal/")):
                return self.on_client_request(rpc_id, method, params, ctx)
            events = self.on_extension_request(rpc_id, method, params, ctx)
            if events is not None:
                return events
        except Exception as exc:  # a malformed request is answered, never left waiting
            log.debug("%s request %s failed", self.name, method, exc_info=True)
            run.peer.respond_error(ctx, rpc_id, INTERNAL_ERROR, f"acp-mux could not handle {method}: {exc}")
            return []
        run.peer.respond_error(ctx, rpc_id, METHOD_NOT_FOUND, f"acp-mux does not offer {method}")
        return []

    def on_extension_request(
        self, rpc_id: RequestId, method: str, params: WireObject, ctx: ParseContext
    ) -> list[BaseEvent] | None:
        """Hook: a request outside what the family serves (an agent's own methods, e.g. ``cursor/ask_question``).
        Return its events after answering ``rpc_id`` (every request is answered), or None for "not mine": the
        family then answers method-not-found. An exception is answered as an internal error. Default: None."""
        return None

    def on_extension_notification(self, method: str, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """Hook: a notification other than ``session/update`` (an agent's own, e.g. ``cursor/update_todos``).
        Default: ignored. An exception drops the notification, never the run."""
        return []

    def _extension_notification(self, method: str, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        try:
            return self.on_extension_notification(method, params, ctx)
        except Exception:  # a malformed notification is dropped, never the run
            log.debug("%s notification %s not understood", self.name, method, exc_info=True)
            return []

    # ── session/update → events ────────────────────────────────────────────────────────────────────────────────
    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """Hook: one ``session/update`` (its ``update``) → events. An agent that says things its own way (gemini's
        mode markers, copilot's status lines, opencode's empty announcements) handles those and passes the rest
        to this default."""
        kind = update.get("sessionUpdate")
        handler = getattr(self, f"_update_{kind}", None)
        if handler is not None:
            return handler(update, ctx)  # type: ignore[no-any-return]
        if isinstance(kind, str) and kind != "user_message_chunk":  # a kind from a newer ACP: the editor's to read
            return self._forwarded(update, ctx)
        return []  # the agent's echo of the person's words: the editor wrote them

    def _on_plain_chunk(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The bulk of every reply: a ``session/update`` notification whose params a few lookups prove fit ACP
        (protocol/plain_chunk.py) goes straight to its handler, with the edge's verdict kept (:meth:`_fits`) as
        :meth:`_check_update` keeps it for any other; the model is not walked for it."""
        run = AcpRun.of(ctx)
        if run.loading:
            return []  # the agent replays its history: the bridge shows its own record instead
        run.checked = (update, None)
        return self.on_update(update, ctx)

    def _check_update(self, params: object, update: WireObject, run: AcpRun) -> list[BaseEvent]:
        """The edge for ``session/update``: validated once, where the line is read; the verdict is kept for the
        handlers (:meth:`_fits`). One outside ACP is still shown as far as the handlers can read it, never
        forwarded as written, and said in the log; one only of a newer kind goes on to the editor. (A plain text
        chunk never comes here: :meth:`_on_plain_chunk`.)"""
        try:
            wire.parse_params("session/update", params)
            run.checked = (update, None)
        except wire.AcpShapeError as error:
            run.checked = (update, error)
            if not error.unknown_kinds:
                message = f"{self.name} sent a session/update outside ACP: {error.reason}"
                return [ev.DebugEvent(level="warn", message=message)]
        return []

    def _forwarded(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """An update the editor gets as the agent wrote it, when it fits the schema (or is only of a newer kind)."""
        return [ev.AgentUpdateEvent(update=update)] if self._fits(update, ctx, newer_ok=True) else []

    def _fits(self, update: WireObject, ctx: ParseContext, *, newer_ok: bool = False) -> bool:
        """Whether an update may reach the editor as the agent wrote it: it fits the pinned schema, or (``newer_ok``)
        its only fault is a kind from a newer ACP. The edge's verdict when it checked this update; else (an update
        a hook made, a test's) checked here."""
        run = AcpRun.find(ctx)
        if run is not None and run.checked[0] is update:
            error = run.checked[1]
        else:
            try:
                wire.parse_params("session/update", {"sessionId": "", "update": update})
                error = None
            except wire.AcpShapeError as shape:
                error = shape
        return error is None or (newer_ok and bool(error.unknown_kinds))

    def _update_session_info_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The session's title and timestamps: the editor's to show, and the agent's title names the session."""
        return self._forwarded(update, ctx)

    def _update_agent_message_chunk(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        content = update.get("content")
        if isinstance(content, dict) and content.get("type") == "image" and isinstance(content.get("data"), str):
            return ctx.begin_turn() + [
                ev.ImageOutputEvent(mime_type=str(content.get("mimeType") or "image/png"), base64=content["data"])
            ]
        text = block_text(content)
        AcpRun.of(ctx).said.append(text)
        return ctx.text_delta(text, message_id_of(update))

    def _update_agent_thought_chunk(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        return ctx.thinking_delta(block_text(update.get("content")), message_id_of(update))

    def tool_name_of(self, tool_call: WireObject) -> str:
        """A stable name for an ACP tool call (ACP has none): used by "always" rules and tool tables. Default: its
        kind. Agents whose ids or meta carry the real tool name override this."""
        kind = tool_call.get("kind")
        return kind if isinstance(kind, str) and kind else "tool"

    def _update_tool_call(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        tool_id = self._shown_id(update, ctx, new_call=True)
        if tool_id is None:
            return []
        AcpRun.of(ctx).last_text = ""
        if tool_id in AcpRun.of(ctx).refused:
            return self._refused_progress(tool_id, update, ctx)
        display = tool_display(update, ctx.cwd)
        raw_input = update.get("rawInput")
        if tool_id in ctx.tools:  # announced earlier (e.g. by a permission request that came first)
            return self._tool_progress(tool_id, update, display, ctx)
        events = ctx.tool_start(tool_id, self.tool_name_of(update), raw_input, display=display, ready=True)
        return events + self._tool_status(tool_id, update.get("status"), update, None, ctx)

    def _update_tool_call_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        tool_id = self._shown_id(update, ctx, new_call=False)
        if tool_id is None:
            return []
        if tool_id in AcpRun.of(ctx).refused:
            return self._refused_progress(tool_id, update, ctx)
        display = tool_display(update, ctx.cwd)
        if tool_id not in ctx.tools:
            if update.get("status") in ("completed", "failed") and not (update.get("title") or update.get("kind")):
                return []  # the end of a call we never saw (already closed, or from an old turn): nothing to show
            events = ctx.tool_start(
                tool_id, self.tool_name_of(update), update.get("rawInput"), display=display, ready=True
            )
            return events + self._tool_status(tool_id, update.get("status"), update, None, ctx)
        return self._tool_progress(tool_id, update, display, ctx)

    def _shown_id(self, update: WireObject, ctx: ParseContext, *, new_call: bool) -> str | None:
        """The id the editor knows this agent tool call by: its own, or the elicited call it was linked to."""
        tool_id = update.get("toolCallId")
        if not isinstance(tool_id, str) or not tool_id:
            return None
        run = AcpRun.of(ctx)
        if tool_id in run.aliases:
            return run.aliases[tool_id]
        if new_call and tool_id not in ctx.tools and run.awaiting_call:
            linked = _awaited(run.awaiting_call, _paths_of(update), update.get("kind"))
            if linked is not None:
                run.awaiting_call.remove(linked)
                run.aliases[tool_id] = linked[0]
                return linked[0]
        return tool_id

    def _refused_progress(self, tool_id: str, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """A refused call: the editor already shows it failed; only the agent's end of it closes our record."""
        if update.get("status") in ("completed", "failed") or tool_id not in ctx.tools:
            AcpRun.of(ctx).refused.discard(tool_id)
            return ctx.tool_error(tool_id, _failure_text(update) if update.get("status") == "failed" else "rejected")
        return []

    def _tool_progress(
        self, tool_id: str, update: WireObject, display: ToolDisplay | None, ctx: ParseContext
    ) -> list[BaseEvent]:
        status = update.get("status")
        if status in ("completed", "failed"):
            return self._tool_status(tool_id, status, update, display, ctx)
        running = status == "in_progress"
        if display is None and not running:
            return []
        return [ev.ToolUpdateEvent(tool_call_id=tool_id, display=display, running=running)]

    def _tool_status(
        self, tool_id: str, status: object, update: WireObject, display: ToolDisplay | None, ctx: ParseContext
    ) -> list[BaseEvent]:
        if status == "in_progress":
            return [ev.ToolUpdateEvent(tool_call_id=tool_id, running=True)]
        if status == "completed":
            return ctx.tool_result(tool_id, update.get("rawOutput"), display=display)
        if status == "failed":
            return ctx.tool_error(tool_id, _failure_text(update), display=display)
        return []

    def _update_plan(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        entries = []
        for item in as_list(update.get("entries")):
            if not isinstance(item, dict) or not isinstance(item.get("content"), str):
                continue
            entries.append(plan_entry(item["content"], item.get("status"), item.get("priority")))
        wire_plan = update if self._fits(update, ctx) else None  # the editor gets the agent's own plan, _meta and all
        return ctx.begin_turn() + [ev.PlanUpdateEvent(entries=entries, wire=wire_plan)]

    def _update_current_mode_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        mode = update.get("currentModeId")
        if not isinstance(mode, str) or not mode:
            return []
        AcpRun.of(ctx).options.mode = mode
        return [ev.ModeChangeEvent(mode_id=mode)]

    def _update_available_commands_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        commands = [
            ev.SlashCommand(name=c["name"], description=str(c.get("description") or ""))
            for c in as_list(update.get("availableCommands"))
            if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"]
        ]
        fits = self._fits(update, ctx)
        wire_commands = list(as_list(update["availableCommands"])) if fits else None  # input hints, _meta
        return [ev.CommandsUpdateEvent(commands=commands, wire=wire_commands)]

    def _update_config_option_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        event = session_options(None, None, update.get("configOptions"))
        return [event] if event is not None else []

    def _update_usage_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """The context window and cost, to the editor as the agent wrote them (any currency, its ``_meta``); a cost
        in US dollars also counts toward the run's cost."""
        events = self._forwarded(update, ctx)
        cost = as_dict(update.get("cost"))
        amount = cost.get("amount")
        if (
            events
            and isinstance(amount, (int, float))
            and not isinstance(amount, bool)
            and cost.get("currency") == "USD"
        ):
            events.append(ev.CostEvent(cost=ev.CostRecord(total_usd=float(amount))))
        return events

    # ── permissions ────────────────────────────────────────────────────────────────────────────────────────────
    def on_permission_request(
        self, rpc_id: RequestId, params: acp.RequestPermissionRequest, ctx: ParseContext
    ) -> list[BaseEvent]:
        """Hook: ``session/request_permission``. Default: announce the tool call if the editor has not seen it and
        ask the person (:class:`~acp_mux.core.events.union.ApprovalRequestEvent`); the answer comes back through
        :meth:`respond_approval`. An agent retitles the question, answers it itself where the person's setting
        says so (openclaw, hermes), or makes its call ready first (opencode), then calls this default."""
        tool_call = as_dict(params.get("toolCall"))
        options: list[PermissionOption] = [
            o for o in as_list(params.get("options")) if isinstance(as_dict(o).get("optionId"), str)
        ]
        if not options:
            self.answer_agent(ctx, rpc_id, "session/request_permission", {"outcome": {"outcome": "cancelled"}})
            return []
        tool_id = self.permission_tool_id(tool_call, ctx)
        return self._ask(f"acp-permission-{rpc_id}", rpc_id, tool_id, tool_call, options, ctx)

    def _ask(
        self,
        interaction_id: str,
        rpc_id: RequestId,
        tool_id: str,
        tool_call: WireObject,
        options: list[PermissionOption],
        ctx: ParseContext,
        form_field: str | None = None,
    ) -> list[BaseEvent]:
        """Announce the tool call if the editor has not seen it, then ask about it."""
        display = tool_display(tool_call, ctx.cwd)
        events: list[BaseEvent] = []
        if tool_id not in ctx.tools:  # the editor must see the tool call before the question about it
            events += ctx.tool_start(
                tool_id, self.tool_name_of(tool_call), tool_call.get("rawInput"), display=display, ready=True
            )
        elif display is not None:
            events.append(ev.ToolUpdateEvent(tool_call_id=tool_id, display=display))
        title = as_str(tool_call.get("title"))
        asked = ev.ApprovalRequestEvent(
            interaction_id=interaction_id,
            action=title or self.tool_name_of(tool_call),
            tool_name=ctx.tool_name(tool_id) or self.tool_name_of(tool_call),
            tool_call_id=tool_id,
            input=rule_input(tool_call, ctx.tool_input(tool_id)),
        )
        method = _ELICITATION if form_field is not None else _PERMISSION
        events.append(ctx.questions.ask(asked, AgentEnd(rpc_id, method, tuple(options), form_field)))
        return events

    def _elicitation(self, rpc_id: RequestId, params: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        """``elicitation/create``: forwarded to the editor when it declared that mode (form or url), its answer
        going back to the agent unchanged; the question then lives in one place, the session's request to the
        editor, and the run keeps only the agent's request id. Where the editor did not declare the mode: a form
        that is an approve/deny choice becomes a permission dialog (omp's writes); anything else is declined."""
        run = AcpRun.of(ctx)
        mode = params.get("mode") if isinstance(params.get("mode"), str) else "form"
        if mode in editor_elicitation(run.options.client_capabilities or {}):
            return self._relay(rpc_id, "elicitation/create", self._editor_elicitation(params, run), run, keep=None)
        choice = approval_form(params) if self.elicitation_form else None
        tool_call = self.elicitation_tool_call(params, ctx) if choice is not None else None
        if choice is None or tool_call is None:
            self.answer_agent(ctx, rpc_id, "elicitation/create", {"action": "decline"})
            return []
        name, approve, deny = choice
        tool_id = as_str(tool_call.get("toolCallId")) or f"elicitation-{rpc_id}"
        tool_call = {**tool_call, "toolCallId": tool_id}
        interaction_id = f"acp-elicitation-{rpc_id}"
        paths = _paths_of(tool_call)
        kind = as_str(tool_call.get("kind")) or "other"
        run.awaiting_call.append((tool_id, paths[0] if paths else None, kind))
        options: list[PermissionOption] = [
            {"optionId": approve, "name": approve, "kind": "allow_once"},
            {"optionId": deny, "name": deny, "kind": "reject_once"},
        ]
        return self._ask(interaction_id, rpc_id, tool_id, tool_call, options, ctx, form_field=name)

    def _elicitation_complete(self, params: object, run: AcpRun) -> list[BaseEvent]:
        """``elicitation/complete``: the agent's word that a url elicitation's out-of-band flow is over. It reaches
        an editor that declared the url mode (the one that was shown the url) as the agent wrote it, so the editor
        can close what it opened; elsewhere it is dropped, the editor never saw the url. One outside ACP is
        dropped and said; the run goes on."""
        try:
            wire.parse_params("elicitation/complete", params)
        except wire.AcpShapeError as error:
            message = f"{self.name} sent elicitation/complete outside ACP: {error.reason}"
            return [ev.DebugEvent(level="warn", message=message)]
        if "url" not in editor_elicitation(run.options.client_capabilities or {}):
            return []
        return [ev.ClientNotificationEvent(method="elicitation/complete", params=as_dict(params))]

    def elicitation_tool_call(self, params: WireObject, ctx: ParseContext) -> WireObject | None:
        """The tool call an approval elicitation is about, as an ACP ``ToolCall`` (title, kind, locations, content,
        rawInput; ``toolCallId`` optional). Quirk hook: agents whose message names the tool and file say so.
        Default: a call titled with the message's first line. None declines the elicitation."""
        message = as_str(params.get("message"))
        return {"title": message.splitlines()[0] if message else "approval", "kind": "other"}

    def permission_tool_id(self, tool_call: Mapping[str, object], ctx: ParseContext) -> str:
        """Which tool call a permission request is about. Quirk hook for agents whose ids do not match."""
        tool_id = tool_call.get("toolCallId")
        return tool_id if isinstance(tool_id, str) and tool_id else f"permission-{len(ctx.questions) + 1}"

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        run = AcpRun.of(ctx)
        question = ctx.questions.take(interaction_id)
        ask = question.agent if question is not None else None
        if question is None or ask is None:  # answered already, or "cancelled" at cancel: the agent waits for nothing
            return
        if not decision.approve and question.tool_call_id is not None:
            run.refused.add(question.tool_call_id)
        if not decision.approve and run.cancelling:
            self._answer_cancelled(ask, ctx)
            return
        option_id = choose_option(
            cast("list[PermissionOption]", list(ask.options)), "allow" if decision.approve else "reject"
        )
        if ask.form_field is not None and option_id is not None:
            self.answer_agent(
                ctx, ask.request_id, ask.method, {"action": "accept", "content": {ask.form_field: option_id}}
            )
            return
        if option_id is None:  # the agent offered no way to say this: a refusal is "cancelled", never an allow
            self._answer_cancelled(ask, ctx)
            return
        self.answer_agent(ctx, ask.request_id, ask.method, {"outcome": {"outcome": "selected", "optionId": option_id}})

    def _answer_cancelled(self, ask: AgentEnd, ctx: ParseContext) -> None:
        """The agent's request answered "cancelled", in the shape of the request (a form, or a permission)."""
        cancelled = {"action": "cancel"} if ask.form_field is not None else {"outcome": {"outcome": "cancelled"}}
        self.answer_agent(ctx, ask.request_id, ask.method, cancelled)

    # ── fs/* and terminal/* ────────────────────────────────────────────────────────────────────────────────────
    def answer_agent(self, ctx: ParseContext, rpc_id: RequestId, method: str, result: Mapping[str, object]) -> None:
        """Answer the agent's ``method`` request with ``result``, validated by the v1 model of that answer and
        dumped by ``wire.dump``. An answer of ours that does not fit is a bug here: logged, and still sent, since an
        agent left waiting stalls its turn."""
        try:
            model = wire.parse_result(method, result)
        except wire.AcpShapeError as error:
            log.error("%s: our answer to %s does not fit ACP: %s", self.name, method, error.reason)
            model = None
        AcpRun.of(ctx).peer.respond(ctx, rpc_id, wire.dump(model) if model is not None else dict(result))

    def _relay(
        self, rpc_id: RequestId, method: str, relayed: WireObject, run: AcpRun, *, keep: WireObject | None
    ) -> list[BaseEvent]:
        """Ask the editor (the session adds its own session id); the answer comes back through
        :meth:`respond_client_request`. ``keep``: what that answer needs of the request (a read's path), else
        only the agent's request id is kept here."""
        request_id = f"{self.name}-{rpc_id}"
        run.client_requests[request_id] = (rpc_id, method, keep or {})
        return [ev.ClientRequestEvent(request_id=request_id, method=method, params=relayed)]

    @staticmethod
    def _editor_elicitation(params: WireObject, run: AcpRun) -> WireObject:
        """The agent's elicitation as the editor must see it: in the editor's session (the session adds its id;
        a request scope names a request of ours to the agent, which the editor never saw), about the tool call
        by the id the editor was shown; every other field as the agent wrote it."""
        relayed = {k: v for k, v in params.items() if k not in ("sessionId", "requestId")}
        tool_id = relayed.get("toolCallId")
        if isinstance(tool_id, str) and tool_id in run.aliases:
            relayed["toolCallId"] = run.aliases[tool_id]
        return relayed

    def on_client_request(
        self, rpc_id: RequestId, method: str, params: WireObject, ctx: ParseContext
    ) -> list[BaseEvent]:
        """Hook: an ``fs/*`` or ``terminal/*`` request. Default: relayed to the editor when it offers that
        capability, else answered here (files inside the session's folder) or refused. Every request is answered."""
        run = AcpRun.of(ctx)
        offered = self.client_capabilities(run.options)
        relay = (
            (method == "fs/read_text_file" and offered["fs"]["readTextFile"])
            or (method == "fs/write_text_file" and offered["fs"]["writeTextFile"])
            or (method.startswith("terminal/") and offered["terminal"])
        )
        if relay:
            return self._relay(rpc_id, method, {k: v for k, v in params.items() if k != "sessionId"}, run, keep=params)
        if method == "fs/read_text_file":
            self.answer_agent(ctx, rpc_id, method, local_read(params, ctx.cwd))
        elif method == "fs/write_text_file":
            self.answer_agent(ctx, rpc_id, method, local_write(params, ctx.cwd))
        else:
            run.peer.respond_error(ctx, rpc_id, METHOD_NOT_FOUND, f"the editor offers no {method}")
        return []

    def respond_client_request(
        self, request_id: str, result: object, error: WireObject | None, ctx: ParseContext
    ) -> None:
        run = AcpRun.of(ctx)
        entry = run.client_requests.pop(request_id, None)
        if entry is None:
            return
        rpc_id, method, params = entry
        if error is not None and method == "fs/read_text_file" and _missing(params.get("path")):
            # "Does it exist?" is asked by reading: a missing file reads as empty, or agents (gemini) fail the write
            # they were about to ask permission for.
            self.answer_agent(ctx, rpc_id, method, {"content": ""})
        elif error is not None:
            run.peer.respond_error(
                ctx,
                rpc_id,
                as_count(error.get("code")) or INTERNAL_ERROR,
                str(error.get("message") or "the editor failed"),
            )
        else:
            run.peer.respond(ctx, rpc_id, result if result is not None else {})

    # ── errors and exit ────────────────────────────────────────────────────────────────────────────────────────
    def failure(self, error: WireObject, ctx: ParseContext, *, during: str) -> list[BaseEvent]:
        """A failed request as a typed error: auth and rate limits recognised by code and words."""
        message = error_message(error, f"{during} failed")
        detail = f"{message} {_data_text(error)}".lower()
        code = error.get("code")
        events = ctx.close_open("failed")
        if code == 429:  # agents that put the HTTP status in the JSON-RPC code (gemini)
            detail += " 429"
        if code in (-32000, 401, 403) or any(w in detail for w in _AUTH_WORDS):
            events.append(ev.AuthErrorEvent(message=message, guidance=self.auth_hint))
            return events
        if any(w in detail for w in _RATE_WORDS):
            events.append(ev.RateLimitErrorEvent(message=message))
            return events + ctx.end_turn()
        recoverable = during == "session/prompt"
        events.append(ev.ErrorEvent(code=ErrorCode.AGENT_ERROR, message=message, recoverable=recoverable))
        return events + (ctx.end_turn() if recoverable else [])

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        run = AcpRun.find(ctx)
        events: list[BaseEvent] = []
        if run is not None:
            if run.prompt_in_flight is not None and not ctx.saw_terminal and status.code != 0:
                run.peer.pending.clear()  # the crash below says it; no second error for the lost prompt
            else:
                events += run.peer.fail_pending("the agent exited")
        return events + list(ctx.finish(status))


# ── helpers shared by the family (and its tests) ───────────────────────────────────────────────────────────────
def tool_display(tool_call: Mapping[str, object], cwd: str) -> ToolDisplay | None:
    """The display hints an ACP ``ToolCall``/``ToolCallUpdate`` carries, or None when it carries none."""
    hints: dict[str, Any] = {}  # ToolDisplay's fields, each checked as it is read
    if isinstance(tool_call.get("kind"), str) and tool_call["kind"]:
        hints["kind"] = tool_call["kind"]
    if isinstance(tool_call.get("title"), str) and tool_call["title"]:
        hints["title"] = tool_call["title"]
    locations = [
        ev.ToolLocation(path=loc["path"], line=loc.get("line") if isinstance(loc.get("line"), int) else None)
        for loc in as_list(tool_call.get("locations"))
        if isinstance(loc, dict) and isinstance(loc.get("path"), str) and loc["path"]
    ]
    if locations:
        hints["locations"] = locations
    diffs, blocks, terminal = [], [], None
    for item in as_list(tool_call.get("content")):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "diff" and isinstance(item.get("path"), str) and isinstance(item.get("newText"), str):
            old = item.get("oldText")
            diffs.append(
                ev.ToolDiff(path=item["path"], new_text=item["newText"], old_text=old if isinstance(old, str) else None)
            )
        elif item.get("type") == "content" and isinstance(item.get("content"), dict):
            blocks.append(item["content"])
        elif item.get("type") == "terminal" and isinstance(item.get("terminalId"), str):
            terminal = item["terminalId"]
    if diffs:
        hints["diffs"] = diffs
    if blocks:
        hints["content"] = blocks
    if terminal:
        hints["terminal_id"] = terminal
    return ev.ToolDisplay(**hints) if hints else None


def rule_input(tool_call: WireObject, known_input: object = None) -> WireObject:
    """The input "always" rules match on: the agent's raw input, completed with the command (from the title of an
    execute call) or the path (from its first location) when the raw input does not name them."""
    raw = tool_call.get("rawInput")
    base = raw if isinstance(raw, dict) else known_input if isinstance(known_input, dict) else {}
    out = dict(base)
    kind = tool_call.get("kind")
    if kind == "execute" and not any(isinstance(out.get(k), (str, list)) for k in ("command", "cmd")):
        title = tool_call.get("title")
        if isinstance(title, str) and title:
            out["command"] = title
    if kind in ("edit", "delete", "move") and not any(
        isinstance(out.get(k), str) for k in ("path", "file_path", "filePath")
    ):
        for loc in as_list(tool_call.get("locations")):
            if isinstance(loc, dict) and isinstance(loc.get("path"), str):
                out["path"] = loc["path"]
                break
        else:
            for item in as_list(tool_call.get("content")):
                if isinstance(item, dict) and item.get("type") == "diff" and isinstance(item.get("path"), str):
                    out["path"] = item["path"]
                    break
    return out


_APPROVE_WORDS = ("approve", "allow", "accept", "yes", "ok", "proceed")
_DENY_WORDS = ("deny", "reject", "decline", "no", "refuse", "cancel")


def approval_form(params: WireObject) -> tuple[str, str, str] | None:
    """(field, approve value, deny value) when an elicitation is a form with one required choice between an
    approve-like and a deny-like value (omp: ``value`` ∈ ["Approve", "Deny"]); None for any other form."""
    if params.get("mode", "form") != "form":
        return None
    schema = as_dict(params.get("requestedSchema"))
    properties = as_dict(schema.get("properties"))
    if len(properties) != 1:
        return None
    ((name, prop),) = properties.items()
    values = [v for v in as_dict(prop).get("enum") or () if isinstance(v, str)]
    approve = [v for v in values if v.strip().lower() in _APPROVE_WORDS]
    deny = [v for v in values if v.strip().lower() in _DENY_WORDS]
    if len(values) != 2 or len(approve) != 1 or len(deny) != 1:
        return None
    return name, approve[0], deny[0]


def _paths_of(tool_call: WireObject) -> list[str]:
    """The files a tool call names: its locations, diffs and raw input's path."""
    paths = [
        loc["path"]
        for loc in as_list(tool_call.get("locations"))
        if isinstance(loc, dict) and isinstance(loc.get("path"), str)
    ]
    paths += [
        c["path"]
        for c in as_list(tool_call.get("content"))
        if isinstance(c, dict) and c.get("type") == "diff" and isinstance(c.get("path"), str)
    ]
    raw = as_dict(tool_call.get("rawInput"))
    for key in ("path", "file_path", "filePath"):
        if isinstance(raw.get(key), str):
            paths.append(raw[key])
    return paths


def _awaited(
    awaiting: list[tuple[str, str | None, str]], paths: list[str], kind: object
) -> tuple[str, str | None, str] | None:
    """The elicited call an agent's new tool call carries out: of the same kind (or either unknown), about the same
    file; a call that names no file carries out the oldest one waiting."""
    fitting = [e for e in awaiting if not isinstance(kind, str) or kind in (e[2], "other") or e[2] == "other"]
    if paths:
        return next((entry for entry in fitting if entry[1] in paths), None)
    return fitting[0] if fitting else None


_PLAN_STATUSES: dict[object, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}
_PLAN_PRIORITIES: dict[object, Literal["high", "medium", "low"]] = {"high": "high", "medium": "medium", "low": "low"}


def plan_entry(content: str, status: object, priority: object = "medium") -> PlanEntry:
    """One entry of the union's plan: an ACP status and priority, an unknown one read as pending / medium."""
    return ev.PlanEntry(
        content=content,
        status=_PLAN_STATUSES.get(status if isinstance(status, str) else None, "pending"),
        priority=_PLAN_PRIORITIES.get(priority if isinstance(priority, str) else None, "medium"),
    )


def editor_elicitation(client_capabilities: WireObject) -> WireObject:
    """The elicitation modes (``form``, ``url``) an editor declared in ``clientCapabilities``, as it declared them."""
    declared = as_dict(client_capabilities.get("elicitation"))
    return {mode: declared[mode] for mode in ("form", "url") if isinstance(declared.get(mode), dict)}


def choose_option(options: list[PermissionOption], answer: str) -> str | None:
    """The agent's option id for a one-time allow or reject (its "always" variant only when nothing else says it;
    the bridge keeps its own "always" rules). None when the agent offered no option of that kind."""
    for kind in _ANSWER_KINDS[answer]:
        for option in options:
            if option.get("kind") == kind:
                return str(option["optionId"])
    return None


def session_options(modes: object, models: object, config_options: object) -> BaseEvent | None:
    """ACP ``modes``/``models``/``configOptions`` → one ``session_options`` event (None when nothing is known).

    A config option of category ``mode`` or ``model`` (the newer way to say the same) fills modes or models when
    the older fields are absent; the other options pass through."""
    fields: dict[str, Any] = {}  # SessionOptionsEvent's fields, each checked as it is read
    modes_d = as_dict(modes)
    if isinstance(modes_d.get("availableModes"), list):
        fields["modes"] = _choices(modes_d["availableModes"], "id", ev.SessionModeOption)
        if isinstance(modes_d.get("currentModeId"), str):
            fields["current_mode"] = modes_d["currentModeId"]
    models_d = as_dict(models)
    if isinstance(models_d.get("availableModels"), list):
        fields["models"] = _choices(models_d["availableModels"], "modelId", ev.SessionModelOption)
        if isinstance(models_d.get("currentModelId"), str):
            fields["current_model"] = models_d["currentModelId"]
    if isinstance(config_options, list):
        rest = []
        for option in config_options:
            if not isinstance(option, dict) or not isinstance(option.get("id"), str):
                continue
            category = option.get("category")
            if category == "mode" and "modes" not in fields:
                fields["modes"] = _choices(option.get("options"), "value", ev.SessionModeOption)
                fields["current_mode"] = (
                    option.get("currentValue") if isinstance(option.get("currentValue"), str) else None
                )
            elif category == "model" and "models" not in fields:
                fields["models"] = _choices(option.get("options"), "value", ev.SessionModelOption)
                fields["current_model"] = (
                    option.get("currentValue") if isinstance(option.get("currentValue"), str) else None
                )
            elif category not in ("mode", "model"):
                rest.append(option)
        fields["config_options"] = rest
    return ev.SessionOptionsEvent(**fields) if fields else None


def retry_note(event: BaseEvent, ctx: ParseContext) -> list[BaseEvent]:
    """A retry an agent announced out of band (in a side log, not on its ACP stream), as its own message: whatever
    text or thinking was open ends first, inside the current turn."""
    return ctx.begin_turn() + ctx.end_thinking() + ctx.end_text() + [event]


_Choice = TypeVar("_Choice")


def _choices(items: object, id_key: str, make: Callable[..., _Choice]) -> list[_Choice]:
    """The entries of an ACP list of choices (modes, models, a select option's values) that carry a string id under
    ``id_key``, as ``make(id=, name=, description=)``: a missing name reads as the id, a missing description as ""."""
    return [
        make(id=c[id_key], name=str(c.get("name") or c[id_key]), description=str(c.get("description") or ""))
        for c in as_list(items)
        if isinstance(c, dict) and isinstance(c.get(id_key), str)
    ]


def local_read(params: WireObject, cwd: str) -> WireObject:
    """``fs/read_text_file`` answered by the bridge: only inside the session's cwd; a missing file reads as empty
    (agents check "does it exist" this way, and an error made gemini's write_file fail)."""
    path = _inside(params.get("path"), cwd)
    try:
        if os.path.getsize(path) > MAX_LOCAL_READ_BYTES:
            raise ValueError(f"{path} is larger than {MAX_LOCAL_READ_BYTES} bytes")
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except FileNotFoundError:
        return {"content": ""}
    line, limit = as_int(params.get("line")), as_int(params.get("limit"))
    if line is not None or limit is not None:
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        text = "".join(lines[start : start + limit] if limit is not None else lines[start:])
    return {"content": text}


def local_write(params: WireObject, cwd: str) -> WireObject:
    """``fs/write_text_file`` answered by the bridge: only inside the session's cwd (the agent asked permission
    before; this only carries out what was allowed)."""
    path = _inside(params.get("path"), cwd)
    content = params.get("content")
    if not isinstance(content, str):
        raise ValueError("fs/write_text_file needs string content")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(content)
    return {}


def _inside(path: object, cwd: str) -> str:
    if not isinstance(path, str) or not os.path.isabs(path):
        raise ValueError("the path must be absolute")
    real, root = os.path.realpath(path), os.path.realpath(cwd)
    if real != root and not real.startswith(root.rstrip("/") + "/"):
        raise PermissionError(f"{path} is outside the session's folder {cwd}")
    return real


def _missing(path: object) -> bool:
    return isinstance(path, str) and os.path.isabs(path) and not os.path.lexists(path)


def _failure_text(update: WireObject) -> str:
    for item in as_list(update.get("content")):
        if isinstance(item, dict) and item.get("type") == "content":
            text = block_text(item.get("content"))
            if text:
                return text
    raw = update.get("rawOutput")
    if isinstance(raw, str) and raw:
        return raw
    for key in ("error", "message", "output"):
        said = as_str(as_dict(raw).get(key))
        if said:
            return said
    return "the tool failed"


def _data_text(error: WireObject) -> str:
    data = error.get("data")
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return " ".join(str(v) for v in data.values() if isinstance(v, (str, int)))
    return ""


def _log_failure(what: str) -> OnResult:
    def on_result(result: object, error: WireObject | None) -> list[BaseEvent]:
        if error is not None:
            log.warning("%s failed: %s", what, error_message(error))
        return []

    return on_result


def message_id_of(update: WireObject) -> str | None:
    """The chunk's ``messageId``, when the agent names its message: the parse context keeps it on the message's
    events (a new id begins a new message; a chunk without one continues the open message or gets an id of ours)."""
    message_id = update.get("messageId")
    return message_id if isinstance(message_id, str) and message_id else None


def _plain_chunk(msg: WireObject | None) -> WireObject | None:
    """The update of ``msg`` when it is a ``session/update`` notification proven a plain text chunk
    (protocol/plain_chunk.py), else None."""
    if msg is None or "id" in msg or msg.get("method") != "session/update":
        return None
    params = msg.get("params")
    return cast("dict[str, WireObject]", params)["update"] if is_plain_text_chunk(params) else None


def _chunk_text(update: WireObject) -> str:
    """A plain text chunk's text (:func:`_plain_chunk` proved it: a ``content`` of type text with a string)."""
    return cast("dict[str, str]", update["content"])["text"]
