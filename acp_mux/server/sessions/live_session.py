"""One live ACP session: its agent process, its prompt turns, its permissions, its cancel.

Flow of a turn: ACP content → adapter prompt → RunHandle (new process, or the next turn of a live one) → events →
translator → ``session/update``. The agent's process starts in the background as soon as the session exists
(:meth:`LiveSession.warm`), so the first prompt finds it ready; what the agent reports outside a turn (its modes,
models, settings, commands) and its requests for the editor's files or terminals are handled as they arrive. Approval events become ``session/request_permission`` for the tool call the
editor was already shown; "always" answers are remembered here. Every turn ends: cancel interrupts, then escalates
to terminating the process group within a bounded time, and the prompt answers ``cancelled``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from collections.abc import AsyncGenerator, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Awaitable, Callable, cast

from acp_mux.core.run.contract import RunOptions
from acp_mux.core.settings import SettingError
from acp_mux.core.run.interaction import Approve, Deny, PendingInteraction
from acp_mux.core.events.lazy_events import ev
from acp_mux.server.wire.rpc import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError
from acp_mux.core.run.prompt import Prompt
from acp_mux.server.sessions.agent_choice import AgentChoices
from acp_mux.server.branches import failover as fo
from acp_mux.server.branches.fork_fallback import fallback_prompt, fell_back
from acp_mux.server.sessions.handoff import turns_from_record, with_missed_turns
from acp_mux.server.sessions.heap import release_freed_memory
from acp_mux.server.records.replay import folded_conversation
from acp_mux.server.sessions.session_gate import SessionGate
from acp_mux.server.sessions.session_settings import SessionSettings
from acp_mux.server.wire.settings_shapes import stored_options
from acp_mux.server.records.store import SessionRecord, SessionStore
from acp_mux.adapters.base import AgentAdapter
from acp_mux.translation.permissions import (
    MUTATING_KINDS,
    PermissionRules,
    choice_options,
    chosen_choice,
    chosen_mode,
    decode_outcome,
    mode_exit_options,
    permission_options,
)
from acp_mux.translation.child_sessions import ChildSessions, wants_child_sessions
from acp_mux.translation.content import UnsupportedContent, prompt_to_blocks, to_prompt
from acp_mux.translation.conversation import approval_tool_id, updates_for_event
from acp_mux.translation.diffs import read_existing
from acp_mux.translation.stop_reasons import TurnOutcome
from acp_mux.translation.updates import UpdateTranslator, notice

if TYPE_CHECKING:
    from acp_mux.adapters.base import ModeInfo, ToolTable
    from acp_mux.core.run.handle import RunHandle
    from acp_mux.protocol import v1_dicts as acp
    from acp_mux.protocol.unstable_dicts import PromptResponseWithUsage, Usage
    from acp_mux.protocol.v1_dicts import JsonValue
    from acp_mux.server.branches.compare_turn import CandidateRelay, Comparison, ComparisonFactory, Question
    from acp_mux.translation.permissions import Scope

    # asks the editor (a method, its params); the editor's answer, read at the edge (editor_edge.asking)
    AskEditor = Callable[[str, Mapping[str, object]], Awaitable[object]]

log = logging.getLogger(__name__)

_WITHDRAWN = object()  # a question taken back by the agent (or by cancel, once the agent has heard "no")
_CANCELLED = object()  # a question the turn's cancel took back before the person answered
_RULE_REJECTS = "A rule rejects this."
_USER_REJECTS = "The user rejected this action."
_FAILOVER_DIALOG = "failover"  # the key of the failover question among the open dialogs (no agent's question id)
CANCEL_INTERRUPT_WAIT_S = 3.0  # how long an interrupted agent gets to end its turn before we terminate it
TERMINATE_GRACE_S = 1.5
SWITCH_GRACE_S = 0.5  # how long the agent switched away from gets to end by itself (its stdin closed)
IDLE_FLUSH_S = 0.1


@dataclass(frozen=True)
class EditorQuestion:
    """Where and about what the editor is asked (``session/request_permission``): the session the question shows
    in (a subagent's call: its child session), the tool call it names as the editor sees it, and the key its open
    dialog is kept under (the agent's interaction id), so it can be withdrawn or asked again."""

    session_id: str
    tool_call: acp.ToolCallUpdate
    dialog: str


@dataclass
class BridgeConfig:
    """What the command line fixed for every session of this bridge."""

    agent: str
    binary: str | None = None
    model: str | None = None
    mode: str | None = None
    extra_args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    inactivity_timeout_s: float | None = 600.0
    terminal_output_meta: bool = False
    # ``/compare`` in the every-agent entry: how a comparison is made (the command line hands in the Python API's,
    # which the server does not import); None: the command is not offered
    compare: ComparisonFactory | None = None


class LiveSession:
    def __init__(
        self,
        record: SessionRecord,
        adapter: AgentAdapter,
        config: BridgeConfig,
        store: SessionStore,
        send_update: Callable[[str, acp.SessionUpdate], None],
        request: AskEditor,
        notify: Callable[[str, dict[str, JsonValue]], None] | None = None,
        writable: Callable[[], Awaitable[None]] | None = None,
        mcp_servers: list[dict[str, JsonValue]] | None = None,
        mode_changed: Callable[[str], None] | None = None,
        client_capabilities: dict[str, JsonValue] | None = None,
        choices: AgentChoices | None = None,
        adapter_for: Callable[[str], AgentAdapter] | None = None,
        usable_agents: Callable[[], AgentChoices] | None = None,
    ) -> None:
        self.record = record
        self.adapter = adapter
        self.config = config
        self.store = store
        self._send_update = send_update
        self._request = request
        self._notify = notify  # the editor's connection, for an agent's notification to the client (no answer)
        self._writable = writable  # waits while the editor is not reading what we already sent
        self.mcp_servers = mcp_servers or []
        self._mode_changed = mode_changed  # the server tells the editor (current_mode_update, config options)
        self.client_capabilities = client_capabilities or {}
        self._settings_cache = store.root.parent / "agents"
        self.settings = SessionSettings.remembered(
            adapter, self._settings_cache, record.mode or config.mode, record.model or config.model
        )
        self.settings.reopened(record.chosen_options)  # the agent's own settings the person chose (a reopened session)
        self._side_tasks: set[asyncio.Task[None]] = set()  # editor requests made for the agent (fs, terminal)
        self.choices = choices  # set when one editor entry serves every agent: the person picks per session
        self._adapter_for = adapter_for
        # A single-agent entry: the agents ``doctor`` finds usable, asked for once, when a limit is first offered
        # or the failover option first shown (the every-agent entry has them in ``choices``)
        self._usable_agents = usable_agents
        self._usable: AgentChoices | None = None
        self._limit: ev.RateLimitErrorEvent | None = None  # this turn ended at a usage limit (a quota)
        self._resending = False  # the failed prompt goes to the agent chosen at a limit: not a new message
        self.rules = PermissionRules(cwd=record.cwd)  # relative paths in rules resolve in the session's folder
        self.translator = self._new_translator(self._read_for_diff)
        # an editor that declared subagents sees each subagent as a child session, else nested in this one
        self._children = self._child_sessions() if wants_child_sessions(self.client_capabilities) else None
        self.handle: RunHandle | None = None
        self._gate = SessionGate()  # the one owner of this session's order: turns and switches, one at a time
        self._replace_before_turn = False  # a mode/model the live agent could not take: a new process next turn
        self._turns = 0  # turns begun: a cancel waits for *its* turn, not for the next prompt the editor sends
        self._queued = False  # the current turn's prompt waited behind another (logged with it)
        self._steered_turns: set[asyncio.Future[acp.PromptResponse]] = set()  # turns started by a steer (no request)
        self._cancel = asyncio.Event()
        self._permission_tasks: set[asyncio.Task[None]] = set()
        # The editor's end of each open question: its dialog request, by interaction id (the question itself is the
        # run's, ``handle.interaction``); and the dialogs withdrawn only to be asked again (late answers).
        self._dialogs: dict[str, asyncio.Future[object]] = {}
        self._reasking: set[str] = set()
        self.log = store.event_log(record.session_id)  # every event of every run, and the bridge's side of the turns
        self._turn_run: str | None = None  # the run the current prompt went to
        self._prompted_run: str | None = None  # the last run a prompt went to (kept between turns)
        # The native session a run started before any prompt went to it: recorded with its first prompt
        # (_on_native_session says why).
        self._unprompted_native: ev.SessionStartEvent | None = None
        self._turn_blocks: list[acp.ContentBlock] = []  # the current prompt as the person wrote it (for the log)
        self._turn_marker: str | None = None  # the agent's name shown before its answer (agent picking)
        self._store_trouble_shown = False  # a store that cannot be written is said once per session, not per turn
        self._agent_titled = False  # the agent named (or cleared) the session's title: acp-mux derives none

    @property
    def id(self) -> str:
        return self.record.session_id

    @property
    def turn_running(self) -> bool:
        """A prompt is being answered (a fork made now copies only the turns before it)."""
        return self._gate.turn_running

    def update(self, payload: acp.SessionUpdate) -> None:
        if self._children is None:
            self._send_update(self.id, payload)
            return
        self._children.can_cancel = self.adapter.capabilities.stops_subagents  # the agent answering now
        for session_id, routed in self._children.route(payload):
            self._send_update(session_id, routed)

    def _child_sessions(self) -> ChildSessions:
        return ChildSessions(self.id, self.record.cwd, self.adapter.capabilities.stops_subagents)

    def routed_history(self) -> Iterator[tuple[str, acp.SessionUpdate]]:
        """:meth:`history` addressed as the live turns were: to child sessions too, for an editor that asked."""
        children = self._child_sessions() if self._children is not None else None
        for update in self.history():
            yield from children.route(update) if children is not None else [(self.id, update)]

    async def cancel_child(self, tool_call_id: str) -> None:
        """``session/cancel`` of a child session: stop that subagent alone where the agent can (the parent's turn
        goes on, its Task call ends with the subagent's stop); where it cannot, the child never offered cancel."""
        handle = self.handle
        if handle is None or handle.done or not self._gate.turn_running:
            return
        if self._turn_run is not None:
            self.log.record(self._turn_run, "user.cancel_subagent", {"tool_call_id": tool_call_id})
        try:
            await handle.stop_subagent(tool_call_id)
        except Exception as exc:
            log.debug("stopping subagent %s failed: %s", tool_call_id, exc)

    def history(self) -> Iterator[acp.SessionUpdate]:
        """The stored conversation as ``session/update`` payloads, translated now (session/load). Flushes first:
        what a running turn has logged so far belongs to the history."""
        from acp_mux.server.records.replay import session_history  # deferred: needed only by session/load

        self.log.flush()
        return session_history(
            self.store, self.id, self._new_translator, self.adapter.login_command, self._tool_table_for
        )

    def _tool_table_for(self, agent: str) -> ToolTable:
        """The tool table of the agent that answered a turn (sessions where the person picks agents mix them)."""
        if agent != self.adapter.name and self._adapter_for is not None:
            try:
                return self._adapter_for(agent).tool_table
            except Exception:  # an agent no longer offered here: its turns show with the current table
                pass
        return self.adapter.tool_table

    def _new_translator(self, read_file: Callable[[str], str | None]) -> UpdateTranslator:
        return UpdateTranslator(
            self.adapter.tool_table,
            self.record.cwd,
            terminal_output_meta=self.config.terminal_output_meta,
            read_file=read_file,
            tables=self._tool_table_for,  # a comparison's candidates are shown by their own agents' tables
        )

    def _read_for_diff(self, path: str) -> str | None:
        """A file's content before an edit, for the live diff; recorded (``file.snapshot``) so that a replay shows
        the diff the person saw, not one against today's disk."""
        text = read_existing(path)
        run_id = self._turn_run or (self.handle.run_id if self.handle is not None else "bridge")
        self.log.record(run_id, "file.snapshot", {"path": path, "text": text})
        return text

    # ── the turn ───────────────────────────────────────────────────────────────────────────────────────────────
    async def prompt(self, blocks: Sequence[object]) -> acp.PromptResponse:
        """One prompt, after the switches and the turns sent before it (so it reaches the agent the person picked
        last; one sent while a turn runs is queued and runs as the next turn); a cancel while it waits answers
        ``cancelled`` and nothing reaches any agent."""
        queued = self._gate.prompt_accepted  # it waits behind a turn (or a switch): the log says it was queued
        async with self._gate.turn() as started:
            if not started:
                return {"stopReason": "cancelled"}
            self._queued = queued
            return await self._prompt(blocks)

    def _to_prompt(self, blocks: Sequence[object]) -> Prompt:
        """The editor's content blocks for the agent answering now (content it cannot take is refused, -32602)."""
        caps = self.adapter.capabilities
        try:
            return to_prompt(
                blocks,
                agent=self.adapter.name,
                images=caps.supports_images,
                audio=caps.supports_audio,
                embedded=caps.supports_embedded_context,
            )
        except UnsupportedContent as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from exc

    async def steer(self, blocks: Sequence[object], *, prompt_required: bool = False) -> dict[str, str]:
        """``_session/steering`` (:mod:`acp_mux.server.sessions.steering`): the message goes into the running turn through
        the adapter's ``steer`` hook, and is logged where it landed (``user.steer``: replayed in its place). With no
        turn running it starts one of its own, queued like any prompt (or, ``prompt_required``, is left to the
        editor). Nothing is kept here: a steer either reached the agent or was answered as not sent."""
        from acp_mux.server.sessions import steering  # deferred: only an editor that steers needs it

        handle = self.handle
        # (a turn being cancelled is ending: a steer then waits for a turn of its own, as with none running)
        running = self._gate.turn_running and handle is not None and self._turn_run == handle.run_id
        running = running and not self._cancel.is_set()
        if running and handle is not None:
            if not self.adapter.steers:
                raise RpcError(
                    INVALID_PARAMS,
                    f"{self.adapter.display_name} cannot take a message during its turn; send it as a prompt "
                    "instead: it is queued and runs as the next turn",
                )
            prompt = self._to_prompt(blocks)
            if await handle.steer(prompt):
                content = prompt_to_blocks(prompt)
                self.log.record(handle.run_id, "user.steer", {"content": content, "agent": self.adapter.name})
                self.log.flush_soon()
                return steering.INJECTED
        if prompt_required:
            return steering.PROMPT_REQUIRED
        self._to_prompt(blocks)  # refused now, in the steer's answer, if the agent cannot take this content
        turn = asyncio.ensure_future(self.prompt(blocks))
        self._steered_turns.add(turn)
        turn.add_done_callback(self._steered_turn_done)
        return steering.STARTED_NEW_TURN

    def _steered_turn_done(self, turn: asyncio.Future[acp.PromptResponse]) -> None:
        """A turn a steer started has no request to answer: its end is only logged."""
        self._steered_turns.discard(turn)
        if not turn.cancelled() and turn.exception() is not None:
            log.info("the turn a steer started failed: %s", turn.exception())

    async def _prompt(self, blocks: Sequence[object]) -> acp.PromptResponse:
        prompt = self._to_prompt(blocks)
        command = prompt.as_text().strip().split(" ", 1)[0] if self.choices is not None else ""
        if command == "/agent":
            return await self._agent_command(prompt.as_text().strip())
        if command == "/compare" and self.config.compare is not None:
            return await self._compare_command(prompt.as_text().strip())
        self._begin_turn()
        self._maybe_title(prompt.as_text())
        ended: dict[str, JsonValue] = {"error": {"code": -32603, "message": "the turn did not end normally"}}
        self._turn_blocks, self._turn_marker = prompt_to_blocks(prompt), None
        written = prompt  # as the person wrote it: what is sent again if another agent carries on at a limit
        # the agent's own fork may yet fail: then the whole conversation so far is handed over (fork_fallback)
        fallback = fallback_prompt(self.record, prompt, lambda: folded_conversation(self.history()))
        prompt = self._agent_turn(prompt)
        try:
            try:
                result = await self._first_run(prompt, fallback)
            except RpcError as exc:
                result = await self._carry_on(exc, written)
            ended = {"stopReason": result["stopReason"]}
            return result
        except RpcError as exc:
            ended = {"error": {"code": exc.code, "message": exc.message}}
            raise
        finally:
            await self._end_permissions()
            for payload in self.translator.close_open_tools("failed"):
                self.update(payload)
            if self._turn_run is not None:  # the log's record of how the editor's prompt was answered
                self.log.record(self._turn_run, "turn.ended", ended)
            self.log.flush()
            self.store.save(self.record)
            self._store_trouble()
            release_freed_memory()  # the turn's freed heap back to the system (<1 ms; after the last update)

    def _begin_turn(self) -> None:
        """A new turn: counted (a cancel waits for its own turn), not cancelled, not yet sent to a run."""
        self._turns += 1
        self._cancel.clear()
        self._turn_run = None
        self._limit = None
        self.translator.take_turn_usage()  # tokens reported between turns are no turn's

    def _agent_turn(self, prompt: Prompt, resent: bool = False) -> Prompt:
        """The turns this agent missed (after a switch, or in a fork it has no copy of) go before the person's
        message; where the person picks agents, its name goes before its answer and the turn is counted as its own.
        ``resent``: the failed prompt again, to the agent chosen at a limit; the failed turn (already in the record)
        becomes this agent's, not a missed one."""
        record = self.record
        prompt = self._with_missed_turns(prompt, len(record.turn_agents) - (1 if resent else 0))
        if self.choices is not None:
            if resent and record.turn_agents:
                record.turn_agents[-1] = self.adapter.name
            else:
                record.turn_agents.append(self.adapter.name)
            self._turn_marker = f"**{self.adapter.display_name}:** "
            self.update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": self._turn_marker}}
            )
        if record.turn_agents:
            record.seen_turns[self.adapter.name] = len(record.turn_agents)
        return prompt

    async def _first_run(self, prompt: Prompt, fallback: Prompt | None) -> acp.PromptResponse:
        """The turn; in a fork whose agent's own fork fails, once more with the copied turns handed over, said in
        the conversation and the log (:mod:`acp_mux.server.branches.fork_fallback`, as the Python API does)."""
        try:
            return await self._run_turn(prompt)
        except RpcError:
            said = fell_back(self.record, self.store, self.adapter) if fallback is not None else None
            if fallback is None or said is None:
                raise
            self._notice(said)
            await self._stop_handle(SWITCH_GRACE_S)  # alive still (claude answers the error and waits): no fork here
            return await self._run_turn(fallback)

    async def _run_turn(self, prompt: Prompt) -> acp.PromptResponse:
        if self._replace_before_turn:  # a setting asked for during the last turn needs a new process
            self._replace_before_turn = False
            await self._stop_handle(SWITCH_GRACE_S)
        handle = self.handle
        if handle is not None and handle.usable:
            events = handle.events(from_start=False, lossless=True)
            self._log_prompt(handle.run_id, prompt)
            self._prompt_goes_to(handle.run_id)
            try:
                await handle.continue_(prompt)
            except Exception as exc:  # the process died between turns: start a fresh one
                log.info("live process unusable (%s); starting a new one", exc)
                await handle.abort(0.5)
                handle = None
        else:
            handle = None
        if handle is None:
            if self.handle is not None:
                await self.handle.abort(0.5)
            handle = self._start_handle(prompt)
            self._prompt_goes_to(handle.run_id)
            events = handle.events(from_start=True, lossless=True)
            if self._turn_run is None:  # (a prompt that went to a process found dead is not logged twice)
                self._log_prompt(handle.run_id, prompt)
        return await self._consume(handle, events)

    def _prompt_goes_to(self, run_id: str) -> None:
        """A prompt is handed to this run: its native session, if it started one before, is now the record's."""
        self._prompted_run = run_id
        early, self._unprompted_native = self._unprompted_native, None
        if early is not None and early.run_id == run_id:
            self._record_native(early)

    def _log_prompt(self, run_id: str, prompt: Prompt) -> None:
        """The person's prompt (as they wrote it, without context the bridge added), and the agent's name shown
        before the answer when the person picks agents."""
        self._turn_run = run_id
        if self._resending:  # the prompt sent again at a limit is the same message: kept once, its answer shown
            self.log.record(run_id, "turn.resent", {"agent": self.adapter.name})
        else:
            message: dict[str, object] = {"content": self._turn_blocks, "agent": self.adapter.name}
            if self._queued:
                message["queued"] = True  # sent while another turn ran: it waited for it (session_gate.py)
            self.log.record(run_id, "user.message", message)
        if self._turn_marker:
            self.log.record(run_id, "bridge.notice", {"text": self._turn_marker})
        self.log.flush_soon()  # on the loop's next turn, once the prompt is with the agent (see flush_soon)

    # ── one entry for every agent ─────────────────────────────────────────────────────────────────────────────
    def config_options(self) -> list[acp.SessionConfigOption]:
        """What the editor shows next to the conversation: the agent (when the person picks it), mode, model, and
        the agent's own settings."""
        options = self.settings.config_options()
        if self.choices is not None:
            options.insert(0, self.choices.option(self.adapter.name))
        # a single-agent entry shows it once the usable agents are known (at the first limit, or a setting asked
        # for): finding them costs ~0.3 s, which session/new does not wait for
        usable = self.choices if self.choices is not None else self._usable
        others = [(n, usable.label(n)) for n in usable.names if n != self.adapter.name] if usable else []
        if others or self.choices is not None:
            options.append(fo.option(self.failover, others))
        return cast("list[acp.SessionConfigOption]", options)  # built to the schema by session_settings

    async def switch_agent(self, name: str) -> None:
        """Between prompts: stop the current agent (its native session kept, so switching back resumes it), start
        the chosen one warm with its own native session, and show its modes, models and commands. The permission
        rules stay: they are about commands and paths, not agents. Switches run one at a time in the order sent;
        a prompt sent meanwhile waits for them (:class:`~acp_mux.server.sessions.session_gate.SessionGate`)."""
        if self.choices is None or self._adapter_for is None or name not in self.choices.names:
            choices = ", ".join(self.choices.names) if self.choices else "none (this session has one agent)"
            raise RpcError(INVALID_PARAMS, f"unknown agent {name!r}; choose one of {choices}")
        async with self._gate.switch(f"The switch to {self.choices.label(name)}"):
            await self._switch_to(name)

    async def _switch_to(self, name: str) -> None:
        """The switch itself, with the session held (by a switch, or by the ``/agent`` prompt). Nothing changes
        when the chosen agent cannot start; the agent switched away from is gone, process group and all, before
        the chosen one starts: one agent process per session."""
        assert self.choices is not None and self._adapter_for is not None
        if name == self.adapter.name:
            return
        try:
            adapter = self._adapter_for(name)
        except Exception as exc:  # an agent this version cannot run any more
            raise RpcError(
                RESOURCE_NOT_FOUND, f"{self.choices.label(name)} cannot be used: {exc}", {"agent": name}
            ) from exc
        problem = adapter.startup_problem(self.config.binary if name == self.config.agent else None, self.config.env)
        if problem:
            raise RpcError(RESOURCE_NOT_FOUND, problem, {"agent": name})
        await self._stop_handle(SWITCH_GRACE_S)
        record = self.record
        if record.native_session_id:
            record.native_sessions[self.adapter.name] = record.native_session_id
        elif record.native_fork_from is not None:  # a fork left before its agent forked: handed over on return
            record.native_fork_from = None
            record.seen_turns.pop(self.adapter.name, None)
        self.adapter = adapter
        record.agent, record.native_session_id = name, record.native_sessions.get(name)
        record.mode = record.model = None  # modes and models belong to each agent; it starts in its own default
        record.chosen_options = []  # so do its own settings
        self.settings = SessionSettings.remembered(
            adapter, self._settings_cache, self.config.mode if name == self.config.agent else None, None
        )
        self.translator = self._new_translator(self._read_for_diff)
        self.store.save(record)
        self.choices.remember(name)
        self._send_update(self.id, {"sessionUpdate": "config_option_update", "configOptions": self.config_options()})
        current = self.settings.mode_info()
        if current is not None:
            self._send_update(self.id, {"sessionUpdate": "current_mode_update", "currentModeId": current.id})
        self._on_commands(None)
        self.warm()

    async def _agent_command(self, text: str) -> acp.PromptResponse:
        """``/agent NAME``: the switch for editors without a config-option menu; ``/agent`` alone lists them."""
        assert self.choices is not None
        from acp_mux.core.ids import new_ulid

        # the person's own line, kept in the log (``acp-mux sessions show`` prints it); not a turn of the conversation
        self.log.record(f"bridge-{new_ulid()}", "user.command", {"text": text})
        parts = text.split()
        if len(parts) == 2:
            try:
                if parts[1] not in self.choices.names:
                    raise RpcError(
                        INVALID_PARAMS, f"unknown agent {parts[1]!r}; choose one of {', '.join(self.choices.names)}"
                    )
                await self._switch_to(parts[1])  # this prompt holds the session: the switch runs in its place
                self._notice(f"Now talking to {self.adapter.display_name}.\n")
            except RpcError as exc:
                self._notice(f"{exc.message}\n")
        else:
            names = ", ".join(f"{n} ({self.choices.label(n)})" for n in self.choices.names)
            self._notice(f"Current agent: {self.adapter.name}. Switch with /agent NAME; choose from: {names}.\n")
        self.log.flush()
        return {"stopReason": "end_turn"}

    # ── several agents on one task ────────────────────────────────────────────────────────────────────────────
    async def _compare_command(self, text: str) -> acp.PromptResponse:
        """``/compare A B [C D] [--check CMD] [--judge AGENT] PROMPT``: one turn in which every named agent works on
        the prompt in its own copy of the folder (shown as one call each, nested or as a child session), then the
        table and diffs, one question (keep which change), and the kept change applied; the conversation then goes
        on with that agent, which is handed this turn like a switch. Nothing reaches the folder before the pick."""
        from acp_mux.core.ids import new_ulid
        from acp_mux.server.branches import compare_turn as ct
        from acp_mux.server.branches.compare_copies import CompareError

        assert self.choices is not None and self.config.compare is not None
        try:
            request = ct.parse_compare(text, self.choices.names)
        except ValueError as exc:
            raise RpcError(INVALID_PARAMS, str(exc)) from exc
        self._begin_turn()
        run_id = self._turn_run = f"compare-{new_ulid()}"
        self._turn_blocks = [{"type": "text", "text": text}]
        self.log.record(run_id, "user.message", {"content": self._turn_blocks, "agent": self.adapter.name})
        self._maybe_title(request.prompt)
        relays = {a: ct.CandidateRelay(a, self.choices.label(a), request.prompt, run_id) for a in request.agents}
        ended: dict[str, JsonValue] = {"error": {"code": -32603, "message": "the comparison did not end normally"}}
        kept: str | None = None
        try:
            comparison = self.config.compare(
                request.agents,
                request.prompt,
                ask=self._compare_question,
                cwd=self.record.cwd,
                check=request.check,
                judge=request.judge,
                env=self.config.env,
                state_dir=self.store.root.parent,
            )
            async with comparison:
                for relay in relays.values():
                    self._show(relay.started())
                cancelled = await self._follow(comparison, relays)
                candidates = await comparison.wait()
                for candidate in candidates:
                    self._show(relays[candidate.agent].ended(candidate))
                if cancelled:
                    ended = {"stopReason": "cancelled"}
                    return {"stopReason": "cancelled"}
                self._notice(ct.report(comparison))
                kept = await self._ask_keep(run_id, candidates)
                if kept is None:
                    self._notice("Kept none: your folder is as it was.\n")
                else:
                    try:
                        written = await comparison.apply(kept)
                    except CompareError as exc:
                        raise RpcError(INVALID_PARAMS, f"{kept}'s change was not applied: {exc}") from exc
                    self._notice(f"Kept {kept}'s change: {', '.join(written) or 'no file changed'}.\n")
            if kept is not None and kept != self.adapter.name:
                await self._switch_to(kept)  # this turn holds the session: the switch runs in its place
                self._notice(f"Now talking to {self.adapter.display_name}.\n")
            self.record.turn_agents.append(self.adapter.name)  # the turn is the kept agent's (or the current one's)
            ended = {"stopReason": "end_turn"}
            return {"stopReason": "end_turn"}
        except RpcError as exc:
            ended = {"error": {"code": exc.code, "message": exc.message}}
            raise
        except Exception as exc:  # a comparison that cannot run here (too large a folder, an agent missing)
            message = getattr(exc, "message", None) or str(exc)
            ended = {"error": {"code": INVALID_PARAMS, "message": message}}
            raise RpcError(INVALID_PARAMS, f"The comparison could not run: {message}") from exc
        finally:
            for payload in self.translator.close_open_tools("failed"):
                self.update(payload)
            self.log.record(run_id, "turn.ended", ended)
            self.log.flush()
            self.store.save(self.record)

    def _show(self, events: list[ev.BaseEvent]) -> None:
        """Session events the bridge makes (a comparison's): logged, then shown, as an agent's are."""
        for event in events:
            self.log.event(event)
            payloads, _ = updates_for_event(self.translator, event, login_command=None, cancelled=self._cancel.is_set())
            for payload in payloads:
                self.update(payload)

    async def _follow(self, comparison: Comparison, relays: Mapping[str, CandidateRelay]) -> bool:
        """Show every candidate's events as they come; a cancel stops them all. True when cancelled."""
        stream = comparison.__aiter__()
        cancel = asyncio.ensure_future(self._cancel.wait())
        cancelled = False
        try:
            while True:
                step = asyncio.ensure_future(stream.__anext__())
                await asyncio.wait({step, cancel}, return_when=asyncio.FIRST_COMPLETED)
                if cancel.done() and not cancelled:
                    cancelled = True
                    await comparison.cancel()
                try:
                    agent, event = await step
                except StopAsyncIteration:
                    return cancelled
                self._show(relays[agent].relay(event))
        finally:
            cancel.cancel()

    async def _compare_question(self, question: Question) -> Approve | Deny:
        """A candidate's question that the comparison does not answer itself (a command, a fetch): decided as any
        agent's (:meth:`_permission_decision`: the session's rules, then the person), named as the candidate's
        call. Asked in this (the parent) session: the question does not say which of the candidate's calls it is
        about, so it has no child session to go to."""
        tool_call: acp.ToolCallUpdate = {
            "toolCallId": f"compare-question:{question.interaction_id}",
            "title": question.title,
            "kind": cast("acp.ToolKind", question.kind),
            "status": "pending",
            "rawInput": question.input,
        }
        asked = EditorQuestion(self.id, tool_call, tool_call["toolCallId"])
        decided = await self._permission_decision(
            asked, question.tool_name, question.kind, question.input, question.scope
        )
        return decided[0] if decided is not None else Deny(reason="The question was withdrawn.")

    async def _ask_keep(self, run_id: str, candidates: Sequence[object]) -> str | None:
        """The one question after a comparison: which candidate's change to keep (None: keep none, or no answer)."""
        from acp_mux.server.branches import compare_turn as ct

        options = ct.pick_options(cast("Sequence[ct.Candidate]", candidates))
        tool_call: acp.ToolCallUpdate = {
            "toolCallId": f"compare-pick:{run_id}",
            "title": "Keep which agent's change? (the diffs are above)",
            "kind": "edit",
            "status": "pending",
        }
        raw = await self._ask_editor(EditorQuestion(self.id, tool_call, tool_call["toolCallId"]), options)
        if raw is None or raw is _CANCELLED or raw is _WITHDRAWN:
            return None
        kept = ct.picked(raw)
        self.log.record(run_id, "compare.kept", {"agent": kept})
        return kept

    # ── at a usage limit: carry on with another agent ─────────────────────────────────────────────────────────
    @property
    def failover(self) -> str:
        """The session's failover setting: ``ask``, ``never`` or an agent (:mod:`acp_mux.server.branches.failover`)."""
        if self.record.failover:
            return self.record.failover
        try:
            return fo.session_default()
        except SettingError as exc:  # (a session the launcher opened early): ask, so nothing goes anywhere unchosen
            log.warning("%s", exc)
            return fo.ASK

    def usable(self) -> AgentChoices | None:
        """The agents this session may carry on with: the entry's own when it serves every agent, else those
        ``doctor`` finds usable here, asked for once (None when nobody can tell)."""
        if self.choices is not None:
            return self.choices
        if self._usable is None and self._usable_agents is not None:
            try:
                self._usable = self._usable_agents()
            except Exception as exc:  # an offer that cannot be made is no reason to fail the session
                log.info("could not find the usable agents: %s", exc)
                self._usable_agents = None
        return self._usable

    def set_failover(self, value: object) -> None:
        """The failover option set by the editor: ``ask``, ``never`` or a usable agent; remembered with the session."""
        usable = self.usable()
        names = [n for n in usable.names if n != self.adapter.name] if usable else []
        if not isinstance(value, str) or value not in (fo.ASK, fo.NEVER, *names):
            raise RpcError(
                INVALID_PARAMS, f"unknown failover value {value!r}; choose one of {[fo.ASK, fo.NEVER, *names]}"
            )
        self.record.failover = value
        self.store.save(self.record)

    async def _carry_on(self, error: RpcError, prompt: Prompt) -> acp.PromptResponse:
        """The turn failed with ``error``. At a usage limit, the person may carry on with another usable agent:
        asked (or the setting names the agent), switched with the switch and handover every switch uses, and the
        failed prompt sent again to it, once. Each agent is tried once per prompt: if the chosen one hits its limit
        too, the agents left are offered; Stop, a declined or failed question, ``never`` or nobody left: the limit's
        own error. A cancel while asked answers ``cancelled``."""
        tried: set[str] = set()
        while True:
            limit, self._limit = self._limit, None
            at_limit = isinstance(error.data, dict) and error.data.get("limit") == "quota"
            if limit is None or not at_limit or self._cancel.is_set():
                raise error
            limited = self.adapter.name
            tried.add(limited)
            target = await self._failover_target(limit, tried)
            if self._cancel.is_set():
                return {"stopReason": "cancelled"}
            if target is None:
                raise error
            if self._turn_run is not None:
                self.log.record(self._turn_run, "turn.ended", {"error": {"code": error.code, "message": error.message}})
            label = self.adapter.display_name
            try:
                await self._take_over(target)
            except RpcError as exc:
                self._notice(f"\nacp-mux could not carry on with {target}: {exc.message}\n")
                raise error from exc
            self.record.seen_turns[limited] = len(self.record.turn_agents) - 1  # it did not see how this turn ended
            self._notice(f"\n{label} hit its usage limit; {self.adapter.display_name} carries on.\n")
            try:
                return await self._resend(prompt)
            except RpcError as exc:
                error = exc

    async def _failover_target(self, limit: ev.RateLimitErrorEvent, tried: set[str]) -> str | None:
        """The agent to carry on with: the one the setting names, or the person's choice among the usable ones."""
        usable = self.usable()
        agents = fo.candidates(usable.names if usable else (), tried, self.failover)
        if not agents or usable is None:
            return None
        if self.failover != fo.ASK:  # the person named the agent in the setting: no question
            return agents[0]
        offer = fo.Offer(
            self.adapter.name, self.adapter.display_name, tuple((n, usable.label(n)) for n in agents), limit.resets_at
        )
        by_form = fo.can_ask_by_form(self.client_capabilities)
        return await fo.ask(offer, self.id, by_form, self._failover_dialog, self.update, self._cancel)

    async def _failover_dialog(self, method: str, params: Mapping[str, object]) -> object:
        """The failover question to the editor, asked again when the editor reopens the session meanwhile
        (:meth:`reask_pending`), like the agent's own questions: reopening a thread never strands it."""
        while True:
            request = asyncio.ensure_future(self._request(method, params))
            self._dialogs[_FAILOVER_DIALOG] = request
            try:
                return await request
            except asyncio.CancelledError:
                if _FAILOVER_DIALOG not in self._reasking:
                    raise
                self._reasking.discard(_FAILOVER_DIALOG)
            finally:
                self._dialogs.pop(_FAILOVER_DIALOG, None)

    async def _take_over(self, name: str) -> None:
        """Switch to ``name`` at a limit. A single-agent session first becomes one where the person picks agents
        (the Agent option appears with the switch's ``config_option_update``), its turns so far the first agent's."""
        if self.choices is None:
            usable = self.usable()
            assert usable is not None  # the target came from it
            self.choices = AgentChoices(tuple(dict.fromkeys((self.adapter.name, *usable.names))), usable.state_dir)
            turns = len(turns_from_record(folded_conversation(self.history()), []))
            self.record.turn_agents = [self.adapter.name] * turns
            self.record.seen_turns = {self.adapter.name: turns}
            self.record.entry = self.record.entry or self.adapter.name  # before its first answer, turns are none
        await self._switch_to(name)

    async def _resend(self, prompt: Prompt) -> acp.PromptResponse:
        """The failed prompt, as the person wrote it, to the agent now active (with the turns it missed before it)."""
        self._resending, self._turn_run = True, None
        try:
            return await self._run_turn(self._agent_turn(prompt, resent=True))
        finally:
            self._resending = False

    def _store_trouble(self) -> None:
        """Once per session: why the conversation is not being kept (the store cannot be written). The turn itself
        goes on and is answered as usual; the reason is in the log file too (once per distinct reason)."""
        problem = self.log.failed or self.store.write_error
        if problem and not self._store_trouble_shown:
            self._store_trouble_shown = True
            self.update(
                notice(
                    f"\n[acp-mux: this conversation is not being saved ({problem}); the session goes on, "
                    "but `session/load` and `acp-mux sessions` will miss what is not saved.]\n"
                )
            )

    def _notice(self, text: str) -> None:
        """A line the bridge itself shows in the conversation, kept in the log (``bridge.notice``) for replays."""
        self.update(notice(text))
        if self.handle is not None:
            run_id = self.handle.run_id
        else:
            from acp_mux.core.ids import new_ulid

            run_id = f"bridge-{new_ulid()}"
        self.log.record(run_id, "bridge.notice", {"text": text})

    def _with_missed_turns(self, prompt: Prompt, upto: int) -> Prompt:
        """The turns this agent has not seen among the first ``upto`` (answered by others since it last spoke, or
        all of them when it is new here, or copied into a fork it has no native copy of), put before the person's
        message."""
        record = self.record
        seen = record.seen_turns.get(self.adapter.name, 0)
        return with_missed_turns(prompt, lambda: folded_conversation(self.history()), record.turn_agents, seen, upto)

    def warm(self) -> None:
        """Start the agent now, without a prompt, so the first prompt finds it ready (agents that keep one process
        for the whole session). A failure here (missing binary, auth) surfaces on the first prompt, as without it."""
        if not self.adapter.capabilities.persistent_process or self.handle is not None:
            return
        try:
            self._start_handle(None)
        except Exception as exc:  # never let warming break the session: the first prompt will try again
            log.info("warming %s failed: %s", self.adapter.name, exc)
            self.handle = None

    def _start_handle(self, prompt: Prompt | None) -> RunHandle:
        from acp_mux.core.run.handle import (
            start_run,
        )  # deferred until a session exists: run.py (and ulid) slow cold start

        handle = self.handle = start_run(self.adapter, self._run_options(prompt))
        # each process gets the person's choices: at its start (agent_values) where its adapter takes them, else
        # once it reports each option (_on_settings)
        self.settings.restoring = {o["id"]: o["currentValue"] for o in self.record.chosen_options}
        handle.on("*", self.log.event)
        handle.on("session_start", self._on_native_session)
        for event_type in ("session_options", "mode_change"):
            handle.on(event_type, self._on_settings)
        handle.on("commands_update", self._on_commands)
        handle.on("agent_update", self._on_agent_update)
        handle.on("client_request", lambda event: self._side_task(self._serve_client_request(handle, event)))
        handle.on("client_notification", self._pass_notification)
        return handle

    async def _consume(self, handle: RunHandle, events: AsyncGenerator[ev.BaseEvent, None]) -> acp.PromptResponse:
        outcome: TurnOutcome | None = None
        flusher = asyncio.ensure_future(self._flush_held_output())
        login_command = self.adapter.login_command  # the agent's, fixed: read once a turn, not once a chunk
        try:
            async for event in events:
                if isinstance(event, ev.ApprovalRequestEvent):
                    self._ask_permission(handle, event)
                elif isinstance(event, (ev.ApprovalGrantedEvent, ev.ApprovalDeniedEvent)):
                    self._withdraw_question(event.interaction_id)
                payloads, turn_outcome = updates_for_event(
                    self.translator, event, login_command=login_command, cancelled=self._cancel.is_set()
                )
                for payload in payloads:
                    self.update(payload)
                if turn_outcome is not None:
                    outcome = turn_outcome
                if isinstance(event, ev.RateLimitErrorEvent) and event.kind == "quota":
                    self._limit = event
                if event.type == "turn_end":
                    break
                if self._writable is not None:  # a slow editor slows the agent down instead of filling our memory
                    await self._writable()
        finally:
            flusher.cancel()
            await events.aclose()
        usage = self.translator.take_turn_usage()  # what the agent said this turn spent (claude-agent-acp's usage)
        if self._cancel.is_set():
            return with_usage({"stopReason": "cancelled"}, usage)
        if outcome is not None and outcome.error_code is not None:
            raise RpcError(outcome.error_code, outcome.error_message or "agent error", outcome.error_data)
        return with_usage({"stopReason": outcome.stop_reason if outcome else "end_turn"}, usage)

    async def _flush_held_output(self) -> None:
        """While a turn runs, let live output the throttle held back through, so a command that goes quiet still
        shows its latest lines (beside the event loop above, not per event: events cost no extra task)."""
        while True:
            await asyncio.sleep(IDLE_FLUSH_S)
            for payload in self.translator.flush_live_output():
                self.update(payload)

    def _run_options(self, prompt: Prompt | None) -> RunOptions:
        return RunOptions(
            agent=self.adapter.name,
            cwd=self.record.cwd,
            prompt=prompt,
            model=self.record.model or self.config.model,
            mode=self.record.mode or self.config.mode,
            session_id=self.record.native_session_id or self.record.native_fork_from,
            fork_session=self.record.native_fork_pending,
            binary=self.config.binary,
            env=self.config.env,
            extra_args=[*self.config.extra_args, *self._extra_directory_args()],
            mcp_servers=self.mcp_servers,
            client_capabilities=self.client_capabilities,
            agent_options=self.settings.agent_values(),
            collect_text=False,  # the editor got the text as it streamed; a session-long run must not hoard it
            inactivity_timeout_s=self.config.inactivity_timeout_s,
            grace_period_s=TERMINATE_GRACE_S,
        )

    def _extra_directory_args(self) -> list[str]:
        """The session's additional workspace roots as this agent's flags (the bridge refused roots it cannot take)."""
        return self.adapter.extra_directory_args(self.record.additional_directories) or []

    def _on_native_session(self, event: ev.BaseEvent) -> None:
        """The agent's own session, kept in the record (what a later load resumes) once a prompt has gone to the
        run that started it: before that, nothing in it can be resumed (claude answers "No conversation found"
        for a session named with ``--session-id`` that never had a message), and an unprompted session keeps the
        record as it was (a fork's copy not yet made is still to be made from the original)."""
        assert isinstance(event, ev.SessionStartEvent)  # registered for session_start only
        if event.run_id != self._prompted_run:
            self._unprompted_native = event
            return
        self._record_native(event)

    def _record_native(self, event: ev.SessionStartEvent) -> None:
        if self.record.adopt_native(event.session_id):
            self.store.save(self.record)
        elif self.record.native_fork_from == event.session_id:
            log.warning("%s reported the original session %s for a fork", self.adapter.name, event.session_id)

    # ── what the agent reports outside the turn ────────────────────────────────────────────────────────────────
    def _on_settings(self, event: ev.BaseEvent) -> None:
        assert isinstance(event, (ev.SessionOptionsEvent, ev.ModeChangeEvent))  # registered for these two only
        mode_before = self.settings.current_mode
        changed = self.settings.apply(event)
        self._keep_choices(self.settings.to_restore())
        if not changed:
            return
        self.settings.remember(self.adapter.name, self._settings_cache)
        if self.settings.current_mode != mode_before and self.settings.current_mode:
            self.record.mode = self.settings.current_mode
            self._send_update(
                self.id, {"sessionUpdate": "current_mode_update", "currentModeId": self.settings.current_mode}
            )
        self._send_update(self.id, {"sessionUpdate": "config_option_update", "configOptions": self.config_options()})

    def _keep_choices(self, due: dict[str, object]) -> None:
        """After an agent report: the person's kept choices it lacks go to it (``due``); the record follows what the
        session now shows for the options the person chose."""
        kept = stored_options(self.settings.kept(self.record.chosen_options))
        if kept != self.record.chosen_options:
            self.record.chosen_options = kept
            self.store.save(self.record)
        handle = self.handle
        if due and handle is not None:
            self._side_task(self._restore_choices(handle, due))

    async def _restore_choices(self, handle: RunHandle, due: dict[str, object]) -> None:
        restored = False
        for option_id, value in due.items():
            if handle is self.handle and handle.usable and await handle.set_config_option(option_id, value):
                self.settings.chosen(option_id, value)
                restored = True
            else:
                log.info("%s did not take the kept setting %s=%r", self.adapter.name, option_id, value)
        if restored:
            self._send_update(
                self.id, {"sessionUpdate": "config_option_update", "configOptions": self.config_options()}
            )

    def _on_commands(self, event: ev.BaseEvent | None) -> None:
        """The agent's commands (``commands_update``; None: the current adapter's none, after a switch)."""
        assert event is None or isinstance(event, ev.CommandsUpdateEvent)  # registered for commands_update only
        commands: list[acp.AvailableCommand]
        if event is not None and event.wire is not None:  # an ACP agent's own commands: input hints and _meta kept
            commands = [cast("acp.AvailableCommand", dict(c)) for c in event.wire]  # validated at the agent's edge
        else:
            commands = [{"name": c.name, "description": c.description} for c in event.commands] if event else []
        if self.choices is not None:
            names = ", ".join(self.choices.names)
            commands.insert(
                0,
                {"name": "agent", "description": f"switch the coding agent ({names})", "input": {"hint": "agent name"}},
            )
            if self.config.compare is not None:
                commands.insert(
                    1,
                    {
                        "name": "compare",
                        "description": "the same prompt to 2-4 agents, each in its own copy; then keep the best",
                        "input": {"hint": "AGENT AGENT [--check CMD] [--judge AGENT] PROMPT"},
                    },
                )
        self._send_update(self.id, {"sessionUpdate": "available_commands_update", "availableCommands": commands})

    def _side_task(self, coro: Coroutine[object, object, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _serve_client_request(self, handle: RunHandle, event: ev.BaseEvent) -> None:
        """The agent asks for something the editor offers (a file from its buffers, a terminal): ask the editor in
        this session's name, and always answer the agent, with the editor's result or its error."""
        assert isinstance(event, ev.ClientRequestEvent)  # registered for client_request only
        try:
            result = await self._request(event.method, {**event.params, "sessionId": self.id})
        except Exception as exc:
            error = {
                "code": getattr(exc, "code", -32603),
                "message": getattr(exc, "message", None) or str(exc) or "the editor failed",
            }
            await handle.answer_client_request(event.request_id, error=error)
            return
        await handle.answer_client_request(event.request_id, result=result)

    def _pass_notification(self, event: ev.BaseEvent) -> None:
        """The agent tells the editor something the editor declared it shows (``elicitation/complete`` of a url it
        was shown): sent as the adapter handed it, validated at the agent's edge; nothing comes back."""
        assert isinstance(event, ev.ClientNotificationEvent)  # registered for client_notification only
        if self._notify is not None:
            self._notify(event.method, event.params)

    def _on_agent_update(self, event: ev.BaseEvent) -> None:
        """An ACP agent's own update, to the editor as it wrote it, in a turn or between turns. Its title (or its
        clearing of it) names the session from then on: the agent knows what the conversation is about better
        than the first prompt's words acp-mux titles it with."""
        assert isinstance(event, ev.AgentUpdateEvent)  # registered for agent_update only
        update = cast("acp.SessionUpdate", event.update)  # validated at the agent's edge (the ACP family's parse)
        if update["sessionUpdate"] == "session_info_update" and "title" in update:
            title = update["title"]
            self._agent_titled = True
            if self.record.title != title:
                self.record.title = title if isinstance(title, str) else None
                self.store.save(self.record)
        for payload in self.translator.forward(update):
            self.update(payload)

    def _maybe_title(self, text: str) -> None:
        if self.record.title or self._agent_titled or not text.strip():
            return
        title = " ".join(text.split())[:80]
        self.record.title = title
        self._send_update(self.id, {"sessionUpdate": "session_info_update", "title": title})

    # ── permissions ────────────────────────────────────────────────────────────────────────────────────────────
    def _ask_permission(self, handle: RunHandle, event: ev.ApprovalRequestEvent) -> None:
        task = asyncio.ensure_future(self._permission_or_deny(handle, event))
        self._permission_tasks.add(task)
        task.add_done_callback(self._permission_tasks.discard)

    async def _permission_or_deny(self, handle: RunHandle, event: ev.ApprovalRequestEvent) -> None:
        """Whatever goes wrong while asking, the agent hears "no" at once instead of waiting for ever."""
        try:
            question = handle.interaction.get(event.interaction_id)
            if question is None:  # answered or withdrawn before its turn came: nothing to ask
                return
            await self._permission(handle, question)
        except Exception:
            log.exception("asking for permission failed; denying")
            await self._answer(handle, event.interaction_id, False, reason="acp-mux could not ask the user.")

    async def _permission(self, handle: RunHandle, question: PendingInteraction) -> None:
        """Ask the editor about the run's open ``question`` (its one record), unless a mode or rule answers it.
        Once the person cancelled the turn nothing more is asked: an agent that goes on to its next step before it
        reads the cancel (omp does) hears "no" from acp-mux, and no rule or mode allows anything after a stop."""
        if self._cancel.is_set():
            await self._answer(handle, question.id, False, reason="The turn was cancelled.", by="cancel")
            return
        tool_id = question.tool_call_id
        if not tool_id or tool_id not in self.translator.tools:  # never ask about a tool the editor has not seen
            tool_id = approval_tool_id(tool_id, question.id)
            for payload in self.translator.announce(
                tool_id, question.tool_name or question.description, question.input
            ):
                self.update(payload)
        view = self.translator.tools.get(tool_id)
        kind = view.kind if view else "other"
        if question.choices:  # a question, not a permission: no rules, no mode applies
            await self._ask_choice(handle, question, tool_id)
            return
        mode = self.mode_info()
        if mode is not None and mode.read_only and kind in MUTATING_KINDS:
            reason = f"{mode.name} is read-only: switch modes to let the agent change files or run commands."
            await self._answer(handle, question.id, False, reason=reason, by="mode")
            return
        if mode is not None and mode.read_only and kind == "switch_mode" and self.adapter.plan_exit_modes:
            await self._leave_read_only_mode(handle, question, tool_id)
            return
        scope = self.rules.scope(question.tool_name, kind, question.input)
        asked = self._about_call(question.id, tool_id)
        decided = await self._permission_decision(asked, question.tool_name, kind, question.input, scope)
        if decided is not None:
            await self._deliver(handle, question.id, *decided)

    async def _permission_decision(
        self,
        asked: EditorQuestion,
        tool_name: str | None,
        kind: str,
        tool_input: JsonValue,
        scope: Scope | None,
    ) -> tuple[Approve | Deny, str] | None:
        """The one permission flow, for the agent's questions and a comparison candidate's alike: a remembered rule
        answers, else the person is asked with the options ``scope`` names, and an "always" answer is remembered
        for the session. The answer and who gave it (``rule``, ``user``, ``cancel``, ``policy``); None when the
        question was withdrawn (there is nothing to answer)."""
        remembered = self.rules.match(tool_name, kind, tool_input)
        if remembered is not None:
            if remembered == "allow":
                return Approve(always=True), "rule"
            return Deny(reason=_RULE_REJECTS, always=True), "rule"
        if scope is None:
            return Deny(reason="acp-mux could not name what this question covers."), "policy"
        options = permission_options(scope)
        response = await self._ask_editor(asked, options)
        if response is _CANCELLED:
            return Deny(reason="The turn was cancelled."), "cancel"
        if response is _WITHDRAWN:
            return None
        answer = decode_outcome(response, options)  # only an option we offered counts; anything else is "no"
        if answer.always:
            self.rules.remember(scope, "allow" if answer.approve else "reject")
        if answer.approve:
            return Approve(always=answer.always), "user"
        return Deny(reason=_USER_REJECTS, always=answer.always), "user"

    async def _ask_choice(self, handle: RunHandle, question: PendingInteraction, tool_id: str) -> None:
        """The agent asks the person to pick an answer (cursor/ask_question): one option per choice, or skip."""
        options = choice_options(question.choices or ())
        response = await self._ask_about_call(handle, question.id, tool_id, options)
        if response is _WITHDRAWN:
            return
        picked = chosen_choice(response, options)
        if picked is None:
            await self._answer(handle, question.id, False, reason="The user skipped the question.")
            return
        await self._answer(handle, question.id, True, updated_input={"choice": picked})

    async def _leave_read_only_mode(self, handle: RunHandle, question: PendingInteraction, tool_id: str) -> None:
        """The agent asks to leave plan mode: the user picks the mode to continue in, or keeps planning."""
        names = {m.id: m.name for m in self.settings.modes}
        targets = [(m, names.get(m, m)) for m in self.adapter.plan_exit_modes]
        options = mode_exit_options(targets)
        response = await self._ask_about_call(handle, question.id, tool_id, options)
        if response is _WITHDRAWN:
            return
        target = chosen_mode(response, options)
        if target not in names:
            await self._answer(handle, question.id, False, reason="The user wants to keep planning.")
            return
        await self.set_mode(target)  # first: the agent is in the chosen mode before it carries on with the plan
        await self._answer(handle, question.id, True, mode=target)
        if self._mode_changed is not None:
            self._mode_changed(target)

    def _about_call(self, interaction_id: str, tool_id: str) -> EditorQuestion:
        """The agent's question about its announced tool call: in the session the call belongs to (a subagent's
        child session, for an editor that declared subagents), naming the call as shown (kind, title, files, diff)."""
        tool_call = self.translator.permission_call(tool_id)
        session_id = self._children.session_of(tool_id) if self._children is not None else self.id
        return EditorQuestion(session_id, tool_call, interaction_id)

    async def _ask_about_call(
        self, handle: RunHandle, interaction_id: str, tool_id: str, options: list[acp.PermissionOption]
    ) -> object:
        """:meth:`_ask_editor` about the agent's call; a cancel meanwhile tells the agent "no" (``_WITHDRAWN``)."""
        response = await self._ask_editor(self._about_call(interaction_id, tool_id), options)
        if response is _CANCELLED:
            await self._answer(handle, interaction_id, False, reason="The turn was cancelled.", by="cancel")
            return _WITHDRAWN
        return response

    async def _ask_editor(self, asked: EditorQuestion, options: list[acp.PermissionOption]) -> object:
        """The one way a question reaches the editor (``session/request_permission``), the agent's and a
        comparison's alike: its dialog is kept open under ``asked.dialog`` (asked again when the editor reopens the
        session, :meth:`reask_pending`; closed when the agent withdraws it, :meth:`_withdraw_question`) until the
        person answers or the turn is cancelled. The raw answer; ``None`` if the client failed; ``_CANCELLED`` when
        cancel took the question back; ``_WITHDRAWN`` when the question was withdrawn."""
        key = asked.dialog
        params: acp.RequestPermissionRequest = {
            "sessionId": asked.session_id,
            "toolCall": asked.tool_call,
            "options": options,
        }
        cancelled = asyncio.ensure_future(self._cancel.wait())
        try:
            while True:  # asked again when the editor reopens the session (``reask_pending``): late answers
                request = asyncio.ensure_future(self._request("session/request_permission", params))
                self._dialogs[key] = request
                try:
                    await asyncio.wait({request, cancelled}, return_when=asyncio.FIRST_COMPLETED)
                except asyncio.CancelledError:  # the turn is over: close the dialog nobody will read ($/cancel_request)
                    request.cancel()
                    raise
                if request.cancelled() and key in self._reasking:
                    self._reasking.discard(key)
                    continue
                break
        finally:
            cancelled.cancel()
            self._dialogs.pop(key, None)
            self._reasking.discard(key)
        if not request.done():  # cancel took the question back
            request.cancel()
            return _CANCELLED
        if request.cancelled():  # the agent withdrew the question: there is nothing to answer
            return _WITHDRAWN
        try:
            return request.result()
        except Exception as exc:  # the client errored or went away: deny, never approve by accident
            log.warning("permission request failed: %s", exc)
            return None

    def reask_pending(self) -> int:
        """The editor (re)opened this session while the turn waits on the person: withdraw the dialog of each of the
        run's open questions (``$/cancel_request``) and ask it again, so reopening a thread never strands one (spec
        003: pending approvals replayed to a late subscriber). The answer to the new question goes to the agent."""
        handle = self.handle
        count = 0
        asked = [q.id for q in handle.interaction.pending] if handle is not None else []
        for key in (*asked, _FAILOVER_DIALOG):
            dialog = self._dialogs.get(key)
            if dialog is not None and not dialog.done():
                self._reasking.add(key)
                dialog.cancel()
                count += 1
        return count

    def _withdraw_question(self, interaction_id: str) -> None:
        """An approval was settled elsewhere (the agent withdrew it): close the editor's dialog if still open."""
        dialog = self._dialogs.pop(interaction_id, None)
        if dialog is not None and not dialog.done():
            dialog.cancel()

    async def _answer(
        self,
        handle: RunHandle,
        interaction_id: str,
        approve: bool,
        *,
        always: bool = False,
        reason: str | None = None,
        by: str = "user",
        updated_input: dict[str, JsonValue] | None = None,
        mode: str | None = None,
    ) -> None:
        response = (
            Approve(always=always, updated_input=updated_input, mode=mode)
            if approve
            else Deny(reason=reason or _USER_REJECTS, always=always)
        )
        await self._deliver(handle, interaction_id, response, by)

    async def _deliver(self, handle: RunHandle, interaction_id: str, response: Approve | Deny, by: str) -> None:
        """The answer to the agent's question, logged (who decided, once or always) and handed to the run."""
        always = response.always
        resolved = {
            "interactionId": interaction_id,
            "decision": "approved" if isinstance(response, Approve) else "denied",
            "by": by,
            "scope": "always" if always else "once",
        }
        self.log.record(
            handle.run_id,
            "approval.resolved",
            {**resolved, "reason": response.reason} if isinstance(response, Deny) else resolved,
        )
        try:
            await handle.interaction.respond(interaction_id, response)
        except Exception as exc:  # the run ended meanwhile
            log.debug("approval answer not delivered: %s", exc)

    async def _end_permissions(self) -> None:
        for task in list(self._permission_tasks):
            task.cancel()
        if self._permission_tasks:
            await asyncio.wait(list(self._permission_tasks), timeout=1.0)

    # ── cancel, modes, close ───────────────────────────────────────────────────────────────────────────────────
    async def cancel(self) -> None:
        """Interrupt the agent; if the turn has not ended soon, terminate the process group. Every prompt still
        waiting (queued behind the turn, or behind a switch) is withdrawn and answered ``cancelled`` at once."""
        self._gate.withdraw_waiting_prompts()
        if not self._gate.turn_running:
            return
        if self._turn_run is not None and not self._cancel.is_set():
            self.log.record(self._turn_run, "user.cancel", {})
        self._cancel.set()
        handle = self.handle
        if handle is None or handle.done:
            return
        try:
            await handle.interrupt()
        except Exception as exc:
            log.debug("interrupt failed: %s", exc)
        cancelled_turn = self._turns

        def over() -> bool:  # the editor may send its next prompt as soon as this turn ends: not ours
            return not (self._gate.turn_running and self._turns == cancelled_turn)

        if await handle.end_interrupted_turn(over, CANCEL_INTERRUPT_WAIT_S, TERMINATE_GRACE_S):
            log.info("agent ignored the interrupt; its process group was terminated")

    def mode_info(self) -> ModeInfo | None:
        """The session's current mode (``ModeInfo``), or None when the agent has no modes."""
        return self.settings.mode_info()

    async def set_mode(self, mode: str) -> None:
        self.record.mode = self.settings.current_mode = mode
        self.store.save(self.record)
        if self.handle is not None and self.handle.usable:
            if not await self.handle.set_mode(mode):
                await self._replace_process()  # the next prompt starts a process in the new mode

    async def set_model(self, model: str) -> None:
        self.record.model = self.settings.current_model = model
        self.store.save(self.record)
        if self.handle is not None and self.handle.usable and await self.handle.set_model(model):
            return
        if self.handle is not None and not self.handle.done:
            await self._replace_process()  # a spawn argument for this agent: the next prompt resumes with the new one

    async def set_agent_option(self, option_id: str, value: JsonValue) -> bool:
        """A setting the agent itself offered (not mode or model): passed through to the live agent."""
        handle = self.handle
        if handle is None or not handle.usable or not await handle.set_config_option(option_id, value):
            return False
        self.settings.chosen(option_id, value)
        self.record.chosen_options = stored_options(self.settings.chosen_option(self.record.chosen_options, option_id))
        self.store.save(self.record)  # kept for a reopened session (session/load, session/resume)
        return True

    async def close(self) -> None:
        for task in list(self._side_tasks):
            task.cancel()
        await self.cancel()
        async with self._gate.closing():  # after a switch under way: it may have started an agent
            await self._stop_handle(1.0)
        self.log.flush()

    async def _replace_process(self) -> None:
        """The live agent cannot take a new mode or model in place: its process goes, and the next prompt starts
        one with the setting. Held like a switch (never beside one, so never two processes); during a prompt, after
        it — never in the middle of the turn."""
        if self._gate.prompt_accepted:
            self._replace_before_turn = True
            return
        async with self._gate.switch("Restarting the agent for the new setting"):
            await self._stop_handle(SWITCH_GRACE_S)

    async def _stop_handle(self, grace_s: float) -> None:
        """The session's agent process gone, with everything it started (its process group)."""
        handle, self.handle = self.handle, None
        if handle is not None:
            await handle.stop(grace_s)

    async def switches_done(self) -> None:
        """Wait for the switches sent so far (a setting asked for after a switch is about the agent it chose)."""
        await self._gate.switches_done()


def with_usage(response: PromptResponseWithUsage, usage: Usage | None) -> PromptResponseWithUsage:
    """The prompt's answer with the turn's ``usage`` (unstable ACP) when the agent reported tokens in the turn."""
    if usage is not None:
        response["usage"] = usage
    return response
