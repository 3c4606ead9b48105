"""OpenClaw through its own ACP bridge (``openclaw acp --url ws://…``) to a private gateway, on the ACP-client family.

What is only openclaw's (the family does the rest, ``acp_client.py``; the gateway is ``gateway.py``):

- ``openclaw acp`` needs a listening gateway when it starts, so each run's ``prepare`` waits for this bridge's
  private gateway (started on first need, never on ``initialize``'s path) and the process gets ``--url`` and
  ``--token-file``. If the gateway cannot start, the bridge falls back to ``openclaw agent exec --json``
  (``exec_transport.py``: one final answer per turn, no streaming, no approvals, no memory between turns) and says so
  in the conversation; ``--transport exec`` chooses that from the start.
- Sessions resume by the gateway's session key (``agent:main:acp-bridge:<uuid>``), not by the ACP session id:
  ``session/resume`` with the uuid answers "Session … not found" (2026.9.6). The key arrives in
  ``session_info_update._meta.sessionKey`` (``kind: "direct"``) at the end of the first turn; only then is the
  native session known (before, the key has no ``agent:`` prefix and does not resume either).
- Per-session MCP servers are refused by openclaw's bridge ("configure MCP on the Gateway"): none are passed.
- Asking (``asks.py``): exec asks through OpenClaw's own exec approvals (the private gateway sets
  ``tools.exec.mode: ask``); every other tool not known to be read-only asks through acp-mux's gate plugin in the
  gateway, whose questions reach the bridge through the relay ``openclaw acp`` runs under (``relay.py``) as
  ordinary ``session/request_permission`` requests. ``ACP_MUX_OPENCLAW_ASK`` (``ask``, the default;
  ``accept-edits``: file changes run unasked, commands ask; ``bypass``: nothing asks) is the person's setting; an
  unknown value is refused at start, never read as a wider one.
- Known losses of its bridge (2026.9.6, verified on the real CLI): the text the model writes before its *first* tool
  call in a turn, and its thinking, are not forwarded (text before later tool calls is), also with its
  ``reasoning_level`` option at ``stream`` or ``on``. They are kept only in the gateway's transcript database
  (``agents/main/agent/openclaw-agent.sqlite``, OpenClaw's private schema); acp-mux reads ``openclaw acp``'s output
  and the gateway's log, neither of which carries them, so they are lost. Usage is
  approximate and carries no cost.
- A run that fails at the provider (401, 429) ends as ``end_turn`` with no text; the gateway's log line for the
  session names the error, so :meth:`failed_turn` turns it into the typed failure.
- A model address where nothing answers is retried by OpenClaw for ~60 s with nothing over ACP. The gateway's log
  says so at the first attempt (``refusals.py``); the bridge then cancels openclaw's prompt and ends the
  turn with the typed error (``adapters/unreachable_model.py``), as it does for omp.
"""

from __future__ import annotations

from acp_mux.core.text.shapes import as_dict, as_list, as_str
import asyncio
import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter, AcpRun
from acp_mux.adapters.base import AgentCapabilities
from acp_mux.adapters.acp_agents.openclaw.asks import gate_loaded
from acp_mux.adapters.acp_agents.openclaw.exec_transport import OpenclawExecAdapter
from acp_mux.adapters.acp_agents.openclaw.gateway import Endpoint, Gateway, GatewayError, PortNotOurs, gateway_for
from acp_mux.adapters.acp_agents.openclaw.refusals import Refusal, model_call, names_session, refusal
from acp_mux.adapters.acp_agents.openclaw.retries import retry_events
from acp_mux.adapters.unreachable_model import unreachable_failure
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.log_follow import SideLog
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus, SpawnError, SpawnSpec
from acp_mux.core.run.prompt import Prompt

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.v1_dicts import RequestId
    from acp_mux.core.events.union import BaseEvent

log = logging.getLogger(__name__)

_EXEC = "openclaw_exec"  # ctx.state marker: this run is a fallback `agent exec` run
ASK_ENV = "ACP_MUX_OPENCLAW_ASK"
ASK, ACCEPT_EDITS, BYPASS = "ask", "accept-edits", "bypass"
ASK_SETTINGS = (ASK, ACCEPT_EDITS, BYPASS)
_FILE_KINDS = frozenset({"edit", "delete", "move"})
GATE_MISSING = (
    "OpenClaw's file tools would run without asking: acp-mux's permission gate (the OpenClaw plugin "
    "acp-mux-asks) is not loaded in its private gateway, so this turn was not run. Your OpenClaw config "
    "may keep it out (plugins.enabled, plugins.deny, or a plugins.allow acp-mux could not read); the "
    "gateway's log is in {log}. To let openclaw run without asking, set ACP_MUX_OPENCLAW_ASK=bypass."
)
GATE_WAIT_S = 60.0  # the gateway listens before it has loaded its plugins: the gate's marker may follow a little later
_DIFFS = "openclaw_previewed_diffs"  # ctx.state: tool call id -> the diff the gate's question showed
STAMP_PRECISION_S = 0.001  # the gateway's log times are in whole milliseconds
MAX_SPENT_RUNS = 64  # run ids of refusals that are not the prompt in flight's, remembered (oldest forgotten)


@dataclass
class OpenclawRun(AcpRun):
    """The family's run state, plus what a model nobody answers needs (``OpenclawRun.of(ctx)``)."""

    prompt_sent_at: float = 0.0  # wall clock when the prompt in flight was sent (the gateway's log has wall time)
    unreachable: str = ""  # the prompt's model request got no answer at all (the gateway's log): why
    # gateway run ids whose refusals are not the prompt in flight's: another session's (acp-mux's gateway plugin
    # names each model call's session), seen before it was sent, while the person cancelled, or already taken for
    # an earlier prompt (a late line of theirs must never end a later prompt)
    spent_runs: dict[str, None] = field(default_factory=dict)


def ask_setting(env: dict[str, str] | os._Environ[str] | None) -> str:
    """What openclaw asks about, from ``ACP_MUX_OPENCLAW_ASK``: unset or empty is ``ask``; anything else that is
    not one of :data:`ASK_SETTINGS` is refused (:class:`ValueError`), never taken for a wider setting."""
    value = (env if env is not None else os.environ).get(ASK_ENV, "").strip()
    if not value:
        return ASK
    if value not in ASK_SETTINGS:
        raise ValueError(f"{ASK_ENV}={value!r} is not one of {', '.join(ASK_SETTINGS)}")
    return value


async def _gate_within(endpoint: Endpoint, seconds: float) -> bool:
    """Whether the gate plugin is loaded in the gateway, waiting up to ``seconds`` for it: 2026.9.6 binds its port
    before it registers plugins, so a gateway that just started may show the marker a moment after it listens."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not gate_loaded(endpoint.state):
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def answered_unasked(setting: str, kind: str) -> bool:
    """Whether a question of this tool kind is allowed without reaching the person under ``setting``."""
    return setting == BYPASS or (setting == ACCEPT_EDITS and kind in _FILE_KINDS)


class OpenclawAdapter(AcpClientAdapter):
    name = "openclaw"
    run_type = OpenclawRun
    capabilities = AgentCapabilities(persistent_process=True, supports_images=True)
    joins_text_chunks = True  # on_update reads session info and tool calls only; exec runs go by parse_from
    starts_early = False  # its gateway is prepared first, and the spawn names it

    def __init__(self) -> None:
        self.gateway: Gateway | None = None
        self.gateway_failure: str | None = None  # once the gateway could not start, this bridge uses exec
        self.exec = OpenclawExecAdapter()
        self._endpoints: dict[int, Endpoint | None] = {}  # id(options) → this run's gateway (None: an exec run)

    # ── spawn: the gateway first ───────────────────────────────────────────────────────────────────────────────
    async def prepare(self, options: RunOptions) -> None:
        endpoint: Endpoint | None = None
        if self.gateway_failure is None:
            env = dict(os.environ if options.env is None else options.env)
            if self.gateway is None:
                self.gateway = gateway_for(self.resolve_binary(options.binary, options.env), env)
            try:
                endpoint = await self.gateway.ready()
            except PortNotOurs:  # the token must not go there: this turn fails, readably; the next starts anew
                raise
            except GatewayError as exc:
                log.warning("openclaw gateway failed; falling back to `openclaw agent exec`: %s", exc)
                self.gateway_failure = str(exc)
        if (
            endpoint is not None
            and ask_setting(options.env) != BYPASS
            and not await _gate_within(endpoint, GATE_WAIT_S)
        ):
            raise SpawnError(GATE_MISSING.format(log=endpoint.state / "logs"))
        self._endpoints[id(options)] = endpoint

    def build_spawn(self, options: RunOptions) -> SpawnSpec:
        endpoint = self._endpoints.get(id(options))
        if endpoint is None:
            return self.exec.build_spawn(options)
        command = self.resolve_binary(options.binary, options.env)
        args = ["acp", "--url", endpoint.url, "--token-file", str(endpoint.token_file), *options.extra_args]
        env = endpoint.acp_env(os.environ if options.env is None else options.env)
        relay = [
            "-m",
            "acp_mux.adapters.acp_agents.openclaw.relay",
            command,
        ]  # carries the gate's questions (asks.py)
        return SpawnSpec(command=sys.executable, args=[*relay, *args], env=env, cwd=options.cwd)

    def startup_problem(self, override: str | None = None, env: dict[str, str] | None = None) -> str | None:
        try:
            ask_setting(env)
        except ValueError as exc:
            return str(exc)
        return super().startup_problem(override, env)

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        if self._endpoints.pop(id(options), None) is None:
            ctx.state[_EXEC] = True
            note = f"OpenClaw's gateway could not start ({self.gateway_failure}); " if self.gateway_failure else ""
            self.exec.start(options, ctx, note=note)
            return
        super().start(options, ctx)

    def mcp_servers(self, options: RunOptions) -> list[WireObject]:
        if options.mcp_servers:
            log.warning("openclaw's ACP bridge refuses per-session MCP servers; configure them on the gateway")
        return []

    # ── asking ─────────────────────────────────────────────────────────────────────────────────────────────────
    def tool_name_of(self, tool_call: WireObject) -> str:
        """OpenClaw's own tool name: the gate's questions carry it in ``_meta.toolName``; its bridge titles a call
        ``<name>: <args>``. An "always" for a whole tool then names that tool, never a kind such as ``other``."""
        meta = as_dict(tool_call.get("_meta"))
        name = meta.get("toolName")
        if isinstance(name, str) and name:
            return name
        title = tool_call.get("title")
        if isinstance(title, str) and title.split(":", 1)[0].strip():
            return title.split(":", 1)[0].strip()
        return super().tool_name_of(tool_call)

    def on_permission_request(
        self, rpc_id: RequestId, params: acp.RequestPermissionRequest, ctx: ParseContext
    ) -> list[BaseEvent]:
        """A question the person's setting answers without asking is answered here; the rest are asked."""
        setting = ask_setting(AcpRun.of(ctx).options.env)
        tool_call = as_dict(params.get("toolCall"))
        kind = as_str(tool_call.get("kind")) or "other"
        allow = next(
            (
                o.get("optionId")
                for o in as_list(params.get("options"))
                if isinstance(o, dict) and o.get("kind") == "allow_once" and isinstance(o.get("optionId"), str)
            ),
            None,
        )
        diffs = [c for c in tool_call.get("content") or () if isinstance(c, dict) and c.get("type") == "diff"]
        if diffs and as_str(tool_call.get("toolCallId")):  # the gate's preview: kept on the call's display
            ctx.state.setdefault(_DIFFS, {})[as_str(tool_call.get("toolCallId"))] = diffs
        if allow is not None and answered_unasked(setting, kind):
            AcpRun.of(ctx).peer.respond(ctx, rpc_id, {"outcome": {"outcome": "selected", "optionId": allow}})
            return []
        return super().on_permission_request(rpc_id, params, ctx)

    def _with_diffs(self, update: WireObject, ctx: ParseContext) -> WireObject:
        """An update of a call the gate previewed, with that diff kept in front of OpenClaw's own content: ACP
        content replaces what the editor showed, and OpenClaw's result is only text ("Successfully wrote ...")."""
        diffs = ctx.state.get(_DIFFS, {}).get(update.get("toolCallId"))
        content = update.get("content")
        if not diffs or not isinstance(content, list):
            return update
        return {**update, "content": [*diffs, *content]}

    # ── sessions by gateway key ────────────────────────────────────────────────────────────────────────────────
    def native_session_id(self, acp_session_id: str) -> str | None:
        return acp_session_id if acp_session_id.startswith("agent:") else None  # a resumed session is named by key

    def on_update(self, update: WireObject, ctx: ParseContext) -> list[BaseEvent]:
        if update.get("sessionUpdate") == "session_info_update":  # its _meta names the gateway's session key
            key = as_str(as_dict(update.get("_meta")).get("sessionKey"))
            known = key.startswith("agent:") and ctx.session_id != key
            return (ctx.session_start(key) if known else []) + super().on_update(update, ctx)
        if update.get("sessionUpdate") in ("tool_call", "tool_call_update"):
            update = self._with_diffs(update, ctx)
        return super().on_update(update, ctx)

    # ── failures only the gateway's log tells ──────────────────────────────────────────────────────────────────
    def before_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        run = OpenclawRun.of(ctx)
        run.prompt_sent_at, run.unreachable = time.time(), ""
        if self.gateway is not None:
            self.gateway.take_failure(run.session_id or "")  # an older turn's failure is not this one's

    def side_logs(self, spec: SpawnSpec, agent_pid: int) -> list[SideLog]:
        """The shared gateway's log, where OpenClaw's own retries of a failing model show (``retries.py``):
        each becomes a retry note while a prompt of this run is out; a request nothing answered ends the turn
        (``refusals.py``)."""
        gateway = self.gateway
        if gateway is None or spec.args[:1] == ["agent"]:  # an exec run has no gateway
            return []
        return [SideLog(find=lambda: str(gateway.log_path), events=self._gateway_log_events)]

    def _gateway_log_events(self, line: str, ctx: ParseContext) -> list[BaseEvent]:
        run = OpenclawRun.find(ctx)
        if ctx.state.get(_EXEC) or run is None:
            return []
        call = model_call(line)
        if call is not None:  # acp-mux's gateway plugin names a model call's session: another's run is not ours
            if run.session_id is not None and not names_session(call[1], run.session_id):
                self._spend(run, call[0])
            return []
        found = refusal(line)
        if found is not None:
            return self._refused(found, run, ctx)
        if run.prompt_in_flight is None or run.unreachable:  # once unreachable, its retries are no news
            return []
        return retry_events(line, ctx)

    def _refused(self, found: Refusal, run: OpenclawRun, ctx: ParseContext) -> list[BaseEvent]:
        """Nothing answered at the model's address: OpenClaw would retry in silence for ~60 s. When the line is the
        prompt in flight's (written after it was sent, by a run not spent nor another session's, not while the
        person cancels), the turn is over now: openclaw's prompt is cancelled, and its answer to that becomes the
        typed error."""
        current = (
            run.prompt_in_flight is not None
            and not run.cancelling
            and run.session_id is not None
            and found.at + STAMP_PRECISION_S >= run.prompt_sent_at
            and found.run_id not in run.spent_runs
        )
        self._spend(run, found.run_id)  # its later lines (OpenClaw ending the cancelled run) are no news either
        if not current or run.unreachable:
            return []
        run.unreachable = found.reason
        run.peer.notify(ctx, "session/cancel", {"sessionId": run.session_id})
        return [ev.DebugEvent(level="info", message=f"openclaw: the model could not be reached ({found.reason})")]

    @staticmethod
    def _spend(run: OpenclawRun, run_id: str) -> None:
        """``run_id``'s refusals are never the prompt in flight's (the oldest of many is forgotten: bounded memory)."""
        run.spent_runs.pop(run_id, None)
        run.spent_runs[run_id] = None
        while len(run.spent_runs) > MAX_SPENT_RUNS:
            del run.spent_runs[next(iter(run.spent_runs))]

    def on_prompt_done(self, result: object, error: WireObject | None, ctx: ParseContext) -> list[BaseEvent]:
        """openclaw's answer to the prompt acp-mux cancelled because its model could not be reached (an error, or
        ``cancelled``) is the typed error; every other answer is the family's."""
        run = OpenclawRun.of(ctx)
        if run.unreachable and error is not None and not run.cancelling:
            run.prompt_in_flight = None
            return ctx.begin_turn() + self._unreachable_end(run, ctx)
        return super().on_prompt_done(result, error, ctx)

    def _unreachable_end(self, run: OpenclawRun, ctx: ParseContext) -> list[BaseEvent]:
        if self.gateway is not None:
            self.gateway.take_failure(run.session_id or "")  # the cancelled run's own end is not a second failure
        return unreachable_failure(run.unreachable, ctx)

    def failed_turn(self, stop: object, ctx: ParseContext) -> list[BaseEvent] | None:
        """openclaw's bridge ends a failed run (the provider's 401 or 429) as ``end_turn`` with no text; the
        gateway's log names the session and the error, so the turn becomes the typed failure it was. A turn
        acp-mux ended because nothing answered at the model's address is that typed error, whatever the stop."""
        run = OpenclawRun.of(ctx)
        if run.unreachable and not run.cancelling:
            return self._unreachable_end(run, ctx)
        if stop != "end_turn" or self.gateway is None:
            return None
        message = self.gateway.take_failure(run.session_id or "")
        if message is None:
            return None
        return self.failure({"message": message}, ctx, during="session/prompt")

    # ── exec runs go to the exec adapter ───────────────────────────────────────────────────────────────────────
    def parse_line(self, line: str, ctx: ParseContext) -> Iterable[BaseEvent]:
        return self.exec.parse_line(line, ctx) if ctx.state.get(_EXEC) else super().parse_line(line, ctx)

    def parse_from(self, lines: Sequence[str], start: int, ctx: ParseContext) -> tuple[Iterable[BaseEvent], int]:
        if ctx.state.get(_EXEC):
            return self.exec.parse_line(lines[start], ctx), 1
        return super().parse_from(lines, start, ctx)

    def accepts_prompts(self, ctx: ParseContext) -> bool:
        return self.exec.accepts_prompts(ctx) if ctx.state.get(_EXEC) else super().accepts_prompts(ctx)

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        return self.exec.send_prompt(prompt, ctx) if ctx.state.get(_EXEC) else super().send_prompt(prompt, ctx)

    def interrupt(self, ctx: ParseContext) -> bool:
        return self.exec.interrupt(ctx) if ctx.state.get(_EXEC) else super().interrupt(ctx)

    def respond_approval(self, interaction_id: str, decision: ApprovalDecision, ctx: ParseContext) -> None:
        if not ctx.state.get(_EXEC):
            super().respond_approval(interaction_id, decision, ctx)

    def set_mode(self, mode: str, ctx: ParseContext) -> bool:
        return False if ctx.state.get(_EXEC) else super().set_mode(mode, ctx)

    def set_model(self, model: str, ctx: ParseContext) -> bool:
        return False if ctx.state.get(_EXEC) else super().set_model(model, ctx)

    def set_config_option(self, option_id: str, value: object, ctx: ParseContext) -> bool:
        return False if ctx.state.get(_EXEC) else super().set_config_option(option_id, value, ctx)

    def finish(self, status: ExitStatus, ctx: ParseContext) -> Iterable[BaseEvent]:
        return self.exec.finish(status, ctx) if ctx.state.get(_EXEC) else super().finish(status, ctx)
