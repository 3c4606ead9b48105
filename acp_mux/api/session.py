"""A conversation with one agent, driven from Python: :func:`run` (a handle), :func:`query` (one turn's events).

Why it is built on :class:`~acp_mux.core.run.handle.RunHandle` and not on the ACP server: a script wants the typed events
themselves, not ``session/update`` payloads. What the editor path adds around a handle is reused, not rewritten:
the turn's outcome (stop reason or typed error) comes from the same translation (``updates_for_event``), the tool
kind a permission rule sees from the same translator, the rules from :mod:`acp_mux.translation.permissions`, and
every event goes to the same session store and event log, so a session started here is listed by ``acp-mux
sessions`` and opened by an editor, and one started in an editor is resumed here (``resume=ID``).

One process at a time per :class:`Run`, and none after it: leaving the ``async with`` block — normally, by an
exception, or by cancellation — stops the agent's whole process group.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator, Callable, Coroutine, Sequence, cast

from acp_mux.adapters.registry import AgentNotAvailable, UnknownAgent
from acp_mux.adapters.base import get_adapter
from acp_mux.api.approvals import Answer, ApprovalRequest, Approvals, decide, deny
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.events.codes import ErrorCode
from acp_mux.core.run.interaction import Approve, Deny
from acp_mux.core.run.prompt import Prompt
from acp_mux.server.branches.fork_fallback import fallback_prompt, fell_back
from acp_mux.server.records.store import SessionRecord, SessionStore
from acp_mux.translation.content import prompt_to_blocks
from acp_mux.translation.conversation import approval_tool_id, updates_for_event
from acp_mux.translation.stop_reasons import TurnOutcome, outcome_for
from acp_mux.translation.updates import UpdateTranslator

if TYPE_CHECKING:
    from acp_mux.adapters.base import AgentAdapter
    from acp_mux.core.events.union import ApprovalRequestEvent, BaseEvent
    from acp_mux.core.run.interaction import PendingInteraction
    from acp_mux.core.run.handle import RunHandle
    from acp_mux.protocol.v1_dicts import SessionUpdate
    from acp_mux.protocol.v1_dicts import JsonValue
    from acp_mux.server.records.event_log import EventLogWriter

CANCEL_WAIT_S = 3.0  # how long an interrupted agent gets to end its turn before its process group is terminated
STOP_GRACE_S = 1.5  # SIGTERM → SIGKILL
INACTIVITY_TIMEOUT_S = 600.0  # the editor path's default: a turn in which the agent says nothing this long ends


@dataclass(frozen=True)
class TurnError:
    """Why a turn failed: the JSON-RPC error an editor would have been answered with (code, message, data)."""

    code: int
    message: str
    data: dict[str, JsonValue] | None = None


@dataclass(frozen=True)
class TurnResult:
    """How a turn ended. ``stop_reason`` is ACP's (``end_turn``, ``cancelled``, ``refusal``, ``max_tokens``,
    ``max_turn_requests``), or ``"error"`` with ``error`` set. ``session_id`` is acp-mux's (``resume=`` takes it)."""

    stop_reason: str
    text: str
    error: TurnError | None
    session_id: str
    native_session_id: str | None


class Run:
    """One conversation with one agent. Use as ``async with acp_mux.run(...) as run:``; iterate it for the current
    turn's events (the iteration ends with the turn), then :meth:`continue_` for the next turn."""

    def __init__(
        self,
        agent: str | None,
        prompt: str | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        model: str | None = None,
        mode: str | None = None,
        mcp_servers: Sequence[dict[str, object]] = (),
        approvals: Approvals | None = None,
        resume: str | None = None,
        env: dict[str, str] | None = None,
        binary: str | None = None,
        transport: str | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        inactivity_timeout: float | None = INACTIVITY_TIMEOUT_S,
        time_limit: float | None = None,
    ) -> None:
        """A conversation with ``agent`` (``claude``, ``codex``, ... or ``demo``, the bundled scripted agent), started
        with ``prompt`` when the ``async with`` block is entered.

        ``approvals`` decides the agent's questions (default :func:`~acp_mux.deny`: nothing is allowed silently);
        ``resume`` continues a stored session (``run.session_id`` of an earlier run, or an editor's session id from
        ``acp-mux sessions list``); ``mcp_servers`` are ACP ``mcpServers`` entries; ``env`` is the agent's whole
        environment (default: this process's); ``binary`` its executable; ``state_dir`` the session store's folder
        (default: the editor path's, ``ACP_MUX_STATE_DIR`` or ``~/.local/state/acp-mux``); ``inactivity_timeout`` ends a
        turn in which the agent says nothing that long; ``time_limit`` is the agent process's budget in seconds,
        all turns together (a CI job's): when it runs out the turn ends with the typed timeout error. Raises
        :class:`~acp_mux.AgentMuxError` (code ``SPAWN_ERROR``) when the agent cannot run here, saying how to fix it."""
        self._store = SessionStore(Path(state_dir) if state_dir is not None else None)
        self._record = self._session(agent, resume, cwd, model, mode)
        self.agent = self._record.agent
        self._adapter = self._adapter_for(self.agent, transport, binary, env)
        self._first_prompt = prompt
        self._options = (list(mcp_servers), env, binary, inactivity_timeout, time_limit)
        self._policy = approvals if approvals is not None else deny()
        self._rules = self._policy.rules(self._record.cwd)  # a rule that names nothing fails here, before any spawn
        self._translator = UpdateTranslator(self._adapter.tool_table, self._record.cwd)
        self._log: EventLogWriter | None = None
        self._handle: RunHandle | None = None
        self._events: AsyncIterator[BaseEvent] | None = None  # the current turn's events (None: no turn running)
        self._outcome: TurnOutcome | None = None
        self._text: list[str] = []
        self._turn_over = asyncio.Event()
        self._cancelled = False
        self._tasks: set[asyncio.Task[None]] = set()
        # Prompts queued behind the current turn (queue()): each waits in its own task, holding its prompt, and
        # starts when the one before it has (acp-mux keeps no list of prompts: see core/run/waiting_prompts.py).
        self._queued: list[asyncio.Task[None]] = []
        self._queued_error: BaseException | None = None  # a queued prompt that could not start, said at next read
        self._no_turn = asyncio.Event()  # no turn is being read: the next queued prompt may start
        self._reading_from_start = False  # the iteration under way has not read an event yet
        self._queued_turn = False  # the prompt being sent waited behind a turn (queue())
        self._no_turn.set()
        self._closed = False
        self.result: TurnResult | None = None  # the last finished turn's result
        self.on_update: Callable[[SessionUpdate], None] | None = None  # the ACP updates an editor would get

    # ── opening ────────────────────────────────────────────────────────────────────────────────────────────────
    def _session(
        self,
        agent: str | None,
        resume: str | None,
        cwd: str | os.PathLike[str] | None,
        model: str | None,
        mode: str | None,
    ) -> SessionRecord:
        """A new session record, or the stored one ``resume`` names (an id or a unique prefix of one)."""
        if resume is None:
            if not agent:
                raise ValueError("name the agent (e.g. run('claude', ...)) or a session to resume")
            from acp_mux.core.ids import new_ulid

            folder = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
            return SessionRecord(session_id=new_ulid(), agent=agent, cwd=folder, mode=mode, model=model)
        session_id = self._store.resolve(resume)
        record = self._store.get(session_id) if session_id is not None else None
        if record is None:
            raise AgentMuxError(ErrorCode.INVALID_STATE_TRANSITION, f"no stored session {resume!r}")
        if agent and agent != record.agent:  # a session's native session belongs to the agent that made it
            if record.native_session_id:
                record.native_sessions[record.agent] = record.native_session_id
            record.agent, record.native_session_id = agent, record.native_sessions.get(agent) or None
            record.native_fork_from = None  # the original's agent's fork: this agent is handed the turns instead
        if cwd is not None and os.path.abspath(os.fspath(cwd)) != record.cwd:
            raise ValueError(f"session {record.session_id} belongs to {record.cwd}, not {os.fspath(cwd)}")
        record.mode, record.model = mode or record.mode, model or record.model
        return record

    @staticmethod
    def _adapter_for(agent: str, transport: str | None, binary: str | None, env: dict[str, str] | None) -> AgentAdapter:
        """The agent's adapter, refused with the install hint when its CLI is not here (as ``session/new`` is)."""
        try:
            adapter = get_adapter(agent, transport)
        except (UnknownAgent, AgentNotAvailable) as exc:
            raise AgentMuxError(ErrorCode.SPAWN_ERROR, str(exc)) from exc
        problem = adapter.startup_problem(binary, env)
        if problem:
            raise AgentMuxError(ErrorCode.SPAWN_ERROR, problem)
        return adapter

    async def __aenter__(self) -> Run:
        self._log = self._store.event_log(self._record.session_id)
        self._store.save(self._record)
        if self._first_prompt is not None:
            try:
                await self.continue_(self._first_prompt)
            except BaseException:  # __aexit__ does not run for a failed __aenter__: nothing may be left running
                await self.close()
                raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ── what a caller reads ────────────────────────────────────────────────────────────────────────────────────
    @property
    def session_id(self) -> str:
        """acp-mux's id of this conversation in the session store (``resume=`` and ``acp-mux sessions`` take it)."""
        return self._record.session_id

    @property
    def native_session_id(self) -> str | None:
        """The agent's own session id, once it has said it."""
        return self._record.native_session_id

    @property
    def cwd(self) -> str:
        return self._record.cwd

    @property
    def pending(self) -> list[str]:
        """Interaction ids of the questions waiting for :meth:`answer` (``manual()`` approvals)."""
        handle = self._handle
        return [p.id for p in handle.interaction.pending] if handle is not None else []

    def __aiter__(self) -> Run:
        self._reading_from_start = True  # an iteration begun between turns may start the first queued prompt's
        return self

    async def __anext__(self) -> BaseEvent:
        """The current turn's next event; the iteration ends after its ``turn_end`` (or when the agent ended). With
        no turn running and a prompt queued, its turn is the current one (it starts now)."""
        if self._events is None and self._reading_from_start:
            await self._next_queued_started()
        self._reading_from_start = False  # one iteration reads one turn: the next queued one is the next iteration's
        events = self._events
        if events is None:
            raise StopAsyncIteration
        try:
            event = await events.__anext__()
        except StopAsyncIteration:
            await self._finish_turn()
            raise
        if event.type == "turn_end":
            await self._finish_turn()
        return event

    async def wait(self) -> TurnResult:
        """Read the current turn to its end (answering questions by the policy meanwhile); its result. With no turn
        running and a prompt queued, that prompt's turn."""
        async for _event in self:
            pass
        if self.result is None:
            raise AgentMuxError(ErrorCode.INVALID_STATE_TRANSITION, "no turn has been sent yet")
        return self.result

    # ── what a caller does ─────────────────────────────────────────────────────────────────────────────────────
    async def continue_(self, prompt: str) -> None:
        """Send the next prompt of the conversation (spec 002's ``continue``); iterate the run for its events. The
        live process takes it where the agent keeps one; otherwise a new process resumes the agent's session."""
        if self._closed or self._log is None:
            raise AgentMuxError(ErrorCode.RUN_NOT_ACTIVE, "the run is closed (or was never entered with `async with`)")
        if self._events is not None:
            raise AgentMuxError(
                ErrorCode.INVALID_STATE_TRANSITION, "a turn is running: read it to its end (or cancel it) first"
            )
        message = Prompt.of_text(prompt)
        self._outcome, self._text, self._cancelled, self.result = None, [], False, None
        self._turn_over.clear()
        # both before the person's message is logged: it is no earlier turn
        fallback = fallback_prompt(self._record, message, self._conversation)  # if the agent's own fork fails
        sent = self._agent_turn(message)
        handle = self._handle
        if handle is not None and handle.usable:
            self._events = self._turn_events(handle.events(from_start=False, lossless=True), fallback)
            self._log_prompt(handle.run_id, message)
            try:
                await handle.continue_(sent)
                return
            except Exception:  # the process died between turns: a new one resumes the session
                await self._close_events()
                await handle.stop(STOP_GRACE_S)
        elif handle is not None:
            await handle.stop(STOP_GRACE_S)
        handle = self._start(sent)
        self._events = self._turn_events(handle.events(from_start=True, lossless=True), fallback)
        self._log_prompt(handle.run_id, message)

    async def queue(self, prompt: str) -> None:
        """Send ``prompt`` to run as the next turn, after the current one (at once when none runs); never refused,
        as an editor's prompt sent during a turn is queued (``agentCapabilities._meta.claudeCode.promptQueueing``).
        Queued prompts run in the order queued, each once the turn before it has been read to its end (iterate the
        run, or :meth:`wait`); then iterate again, or :meth:`wait`, for its own turn. :meth:`cancel` withdraws every
        prompt still queued: nothing of it reaches the agent."""
        if self._closed or self._log is None:
            raise AgentMuxError(ErrorCode.RUN_NOT_ACTIVE, "the run is closed (or was never entered with `async with`)")
        if self._events is None and not self._queued:
            await self.continue_(prompt)
            return
        before = self._queued[-1] if self._queued else None
        waiting = asyncio.ensure_future(self._start_queued(prompt, before))
        self._queued.append(waiting)
        waiting.add_done_callback(self._queued_done)

    async def _start_queued(self, prompt: str, before: asyncio.Task[None] | None) -> None:
        """One queued prompt: after the one queued before it has started, and once no turn is being read."""
        if before is not None:
            await asyncio.wait({before})
        while self._events is not None:
            self._no_turn.clear()
            await self._no_turn.wait()
        self._queued_turn = True  # logged as queued, as the editor path logs a prompt that waited behind a turn
        try:
            await self.continue_(prompt)
        finally:
            self._queued_turn = False

    def _queued_done(self, waiting: asyncio.Task[None]) -> None:
        if waiting in self._queued:
            self._queued.remove(waiting)
        if not waiting.cancelled() and waiting.exception() is not None:  # surfaced by the next read of the run
            self._queued_error = waiting.exception()

    async def _next_queued_started(self) -> None:
        """With no turn being read: let the first queued prompt start its turn (a failure to start is raised)."""
        if self._queued:
            await asyncio.wait({self._queued[0]})
        failed, self._queued_error = self._queued_error, None
        if failed is not None:
            raise failed

    async def steer(self, prompt: str) -> bool:
        """Put ``prompt`` into the turn the agent is running now: it reads it at its next step (claude, codex, pi and
        the demo agent; ``_session/steering`` on the editor path). True when the running turn took it; False, with
        nothing sent, when no turn of the agent's runs (:meth:`queue` it instead). Raises
        :class:`~acp_mux.AgentMuxError` (``INVALID_STATE_TRANSITION``) for an agent that cannot take a message
        during its turn."""
        handle = self._handle
        if self._events is None or handle is None or not handle.usable:
            return False
        if not self._adapter.steers:
            raise AgentMuxError(
                ErrorCode.INVALID_STATE_TRANSITION,
                f"{self._adapter.display_name} cannot take a message during its turn: queue() it as the next turn",
            )
        message = Prompt.of_text(prompt)
        if not await handle.steer(message):
            return False
        self._journal.record(handle.run_id, "user.steer", {"content": prompt_to_blocks(message), "agent": self.agent})
        return True

    def _agent_turn(self, prompt: Prompt) -> Prompt:
        """What the agent is sent for the person's ``prompt``: as the editor path sends it, the turns of this
        session it has not seen go before the message (a session another agent answered in an editor, a fork the
        agent has no copy of); the turn is then counted as this agent's."""
        from acp_mux.server.sessions.handoff import with_missed_turns

        record = self._record
        upto = len(record.turn_agents)
        sent = with_missed_turns(
            prompt, self._conversation, record.turn_agents, record.seen_turns.get(self.agent, 0), upto
        )
        if record.turn_agents:  # a session whose turns are counted by agent (an editor's): this one is this agent's
            record.turn_agents.append(self.agent)
            record.seen_turns[self.agent] = upto + 1
        return sent

    def _conversation(self) -> list[dict[str, object]]:
        """The stored conversation, folded, as the editor path reads it for a handover."""
        from acp_mux.server.records.replay import folded_conversation, session_history

        def translator(read_file: Callable[[str], str | None]) -> UpdateTranslator:
            return UpdateTranslator(self._adapter.tool_table, self._record.cwd, read_file=read_file)

        if self._log is not None:
            self._log.flush()
        history = session_history(self._store, self.session_id, translator, self._adapter.login_command)
        return folded_conversation(history)

    async def answer(self, interaction_id: str, response: Answer) -> None:
        """Answer a question left pending (``manual()`` approvals): ``Approve()``, ``Deny(reason=...)`` or a bool;
        ``always=True`` remembers the answer for the rest of the session, as the editor's "Always" does."""
        handle = self._handle
        if handle is None:
            raise AgentMuxError(ErrorCode.NO_PENDING_INTERACTION, "no question is pending")
        answer = response if isinstance(response, (Approve, Deny)) else (Approve() if response else Deny())
        question = handle.interaction.get(interaction_id)  # the run's one record of it
        if answer.always and question is not None:
            scope = self._request(question).scope
            if scope is not None:
                self._rules.remember(scope, "allow" if isinstance(answer, Approve) else "reject")
        await self._respond(handle, interaction_id, answer, "user", strict=True)

    async def cancel(self) -> None:
        """Cancel the current turn: the agent is interrupted; if its turn has not ended within a few seconds, its
        process group is terminated. The turn then ends with stop reason ``cancelled``; the run stays usable. Every
        prompt still queued (:meth:`queue`) is withdrawn: it never reaches the agent."""
        for waiting in list(self._queued):
            waiting.cancel()
        self._queued.clear()
        handle = self._handle
        if self._events is None or handle is None or handle.done:
            return
        if not self._cancelled:
            self._cancelled = True
            self._journal.record(handle.run_id, "user.cancel", {})
        try:  # first: an agent whose protocol says how a cancel answers its open questions (ACP: "cancelled") ...
            await handle.interrupt()
        except Exception:  # the process ended meanwhile
            pass
        for interaction in handle.interaction.pending:  # ... and whatever is still open, nobody will answer: "no"
            await self._respond(handle, interaction.id, Deny(reason="The turn was cancelled."), "cancel")
        await handle.end_interrupted_turn(self._turn_over.is_set, CANCEL_WAIT_S, STOP_GRACE_S)

    async def close(self) -> None:
        """End the conversation: the agent's process group is gone when this returns (also when cancelled)."""
        if self._closed:
            return
        self._closed = True
        for task in [*self._tasks, *self._queued]:
            task.cancel()
        handle, self._handle = self._handle, None
        stopping = asyncio.ensure_future(self._stop(handle))
        while not stopping.done():  # a second cancellation must not leave the agent running
            try:
                await asyncio.shield(stopping)
            except asyncio.CancelledError:
                if not stopping.done():
                    continue
                raise

    async def _stop(self, handle: RunHandle | None) -> None:
        if self._events is not None and self.result is None:
            self._outcome = self._outcome or TurnOutcome(stop_reason="cancelled")
            self._cancelled = True
        await self._close_events()
        if handle is not None:
            await handle.stop(STOP_GRACE_S)
        if self._log is not None:
            self._log.flush()
            self._store.save(self._record)

    # ── the turn ───────────────────────────────────────────────────────────────────────────────────────────────
    def _start(self, prompt: Prompt) -> RunHandle:
        from acp_mux.core.run.handle import (
            start_run,
        )  # deferred like the editor path's: run.py loads with the first turn

        mcp_servers, env, binary, inactivity, time_limit = self._options
        record = self._record
        options = RunOptions(
            agent=self.agent,
            cwd=record.cwd,
            prompt=prompt,
            model=record.model,
            mode=record.mode,
            session_id=record.native_session_id or record.native_fork_from,  # a fork: the agent forks it first
            fork_session=record.native_fork_pending,
            binary=binary,
            env=env,
            mcp_servers=mcp_servers,
            agent_options={o["id"]: o["currentValue"] for o in record.chosen_options},  # chosen in an editor
            collect_text=False,  # the turn's text is kept per turn here (TurnResult.text), not for the process
            inactivity_timeout_s=inactivity,
            timeout_s=time_limit,
            grace_period_s=STOP_GRACE_S,
        )
        handle = self._handle = start_run(self._adapter, options)
        handle.on("*", self._journal.event)
        handle.on("*", self._on_event)
        return handle

    def _turn_events(self, events: AsyncIterator[BaseEvent], fallback: Prompt | None) -> AsyncIterator[BaseEvent]:
        """The turn's events; those of a fork's turn that may yet fall back (``fallback``) pass through
        :meth:`_falling_back`, every other turn's come straight from the run."""
        return events if fallback is None else self._falling_back(events, fallback)

    async def _falling_back(self, events: AsyncIterator[BaseEvent], fallback: Prompt) -> AsyncIterator[BaseEvent]:
        """A turn in a fork whose agent has not made its own fork yet. When that fork fails (the run fails before the
        agent started its session), the turn is not over, as on the editor path (:mod:`acp_mux.server.branches.fork_fallback`):
        the line saying so goes to the log, to ``on_update`` and, as a ``debug`` event (level ``warn``), to the
        caller in place of the failure, which is held back (it is in the log); then the events of ``fallback``, the
        message again with the conversation so far handed over, to a new session of the agent. Any other failure is
        passed on as it came."""
        login = self._adapter.login_command
        held: list[BaseEvent] = []  # from the first failure while the agent's fork is not made yet
        try:
            async for event in events:
                outcome = outcome_for(event, login) if not held and self._record.native_fork_pending else None
                if held or (outcome is not None and outcome.error_code is not None):
                    held.append(event)
                    if event.type == "turn_end":  # a live process's stream goes on past the turn: the turn ends here
                        break
                else:
                    yield event
        finally:
            await _aclose(events)
        failed = (
            bool(held) and not self._cancelled and self._outcome is not None and self._outcome.error_code is not None
        )
        said = fell_back(self._record, self._store, self._adapter) if failed else None
        if said is None:
            for event in held:
                yield event
            return
        from acp_mux.core.events.union import DebugEvent
        from acp_mux.translation.updates import notice

        failed_run = self._handle
        run_id = failed_run.run_id if failed_run is not None else ""
        self._journal.record(run_id, "bridge.notice", {"text": said})
        if self.on_update is not None:
            self.on_update(notice(said))
        if failed_run is not None:
            await failed_run.stop(STOP_GRACE_S)
        if self._cancelled or self._closed:  # cancelled meanwhile: the turn ends cancelled, nothing more is sent
            return
        self._outcome = None
        self._turn_over.clear()
        # the new run is started before the caller hears of it, so a cancel from then on reaches it
        retry = self._start(fallback).events(from_start=True, lossless=True)
        try:
            yield DebugEvent(level="warn", message=said.strip(), run_id=run_id, agent=self.agent)
            async for event in retry:
                yield event
        finally:
            await _aclose(retry)

    def _log_prompt(self, run_id: str, prompt: Prompt) -> None:
        message: dict[str, object] = {"content": prompt_to_blocks(prompt), "agent": self.agent}
        if self._queued_turn:
            message["queued"] = True
        self._journal.record(run_id, "user.message", message)
        if not self._record.title:
            self._record.title = " ".join(prompt.as_text().split())[:80] or None

    def _on_event(self, event: BaseEvent) -> None:
        """Every event of the process, as it is emitted: the turn's outcome and text, the agent's session id, and
        its questions (answered by the policy at once, whether or not the caller is reading the stream yet)."""
        payloads, outcome = updates_for_event(
            self._translator, event, login_command=self._adapter.login_command, cancelled=self._cancelled
        )
        if outcome is not None:
            self._outcome = outcome
        self._follow(event)
        if self.on_update is not None:  # last: a caller's callback that raises fails the turn (RunHandle), but
            for payload in payloads:  # the turn's outcome and record are already taken from this event
                self.on_update(payload)

    def _follow(self, event: BaseEvent) -> None:
        """What the run keeps from ``event``: the turn's text, the agent's session id and mode, its questions."""
        match event.type:
            case "text_delta":
                self._text.append(getattr(event, "delta", ""))
            case "session_start":
                native = getattr(event, "session_id", None)
                if native and self._record.adopt_native(native):
                    self._store.save(self._record)
            case "mode_change":
                self._record.mode = getattr(event, "mode_id", self._record.mode)
            case "approval_request":
                handle = self._handle
                if handle is not None:
                    self._task(self._approve(handle, cast("ApprovalRequestEvent", event)))
            case "turn_end":
                self._turn_over.set()

    @property
    def _journal(self) -> EventLogWriter:
        """The session's event log, open from the first prompt on (every caller runs after ``__aenter__``)."""
        if self._log is None:
            raise RuntimeError("the run has not started: use it inside `async with`")
        return self._log

    def _task(self, coro: Coroutine[object, object, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish_turn(self) -> None:
        """The turn is over: its result, and its end in the log (what ``acp-mux sessions show`` reads)."""
        handle = self._handle
        await self._close_events()
        outcome = self._outcome
        if self._cancelled:
            outcome = TurnOutcome(stop_reason="cancelled")
        elif outcome is None and not self._turn_over.is_set():  # no turn_end, no typed failure: never end_turn
            outcome = TurnOutcome(error_code=-32603, error_message="the agent ended without finishing its turn")
        elif outcome is None:
            outcome = TurnOutcome(stop_reason="end_turn")
        error = None
        if outcome.error_code is not None:
            error = TurnError(outcome.error_code, outcome.error_message or "agent error", outcome.error_data)
        self.result = TurnResult(
            stop_reason="error" if error else outcome.stop_reason,
            text="".join(self._text),
            error=error,
            session_id=self.session_id,
            native_session_id=self.native_session_id,
        )
        ended: dict[str, object] = (
            {"error": {"code": error.code, "message": error.message}} if error else {"stopReason": outcome.stop_reason}
        )
        if handle is not None:
            self._journal.record(handle.run_id, "turn.ended", ended)
        self._turn_over.set()
        self._journal.flush()
        self._store.save(self._record)

    async def _close_events(self) -> None:
        events, self._events = self._events, None
        self._no_turn.set()  # the next queued prompt may start
        if events is not None:
            await _aclose(events)

    # ── questions ──────────────────────────────────────────────────────────────────────────────────────────────
    async def _approve(self, handle: RunHandle, event: ApprovalRequestEvent) -> None:
        """Decide one question by the policy; whatever goes wrong, the agent hears "no" rather than waiting. After a
        cancel nothing is decided: an agent that asks again before it reads the cancel (omp does) hears "no"."""
        try:
            question = handle.interaction.get(event.interaction_id)
            if question is None:
                return  # settled already (the agent withdrew it)
            if self._cancelled:
                await self._respond(handle, question.id, Deny(reason="The turn was cancelled."), "cancel")
                return
            request = self._request(question)
            decision = await decide(self._policy, self._rules, request, self._read_only_mode())
        except Exception as exc:
            await self._respond(handle, event.interaction_id, Deny(reason=f"acp-mux could not decide: {exc}"), "policy")
            return
        if decision.answer is not None:
            await self._respond(handle, event.interaction_id, decision.answer, decision.by)

    def _request(self, question: PendingInteraction) -> ApprovalRequest:
        """The callback's view of the run's open ``question`` (made when needed, never kept: the run owns it)."""
        view = self._translator.tools.get(approval_tool_id(question.tool_call_id, question.id))
        kind = view.kind if view is not None else "other"
        scope = self._rules.scope(question.tool_name, kind, question.input)
        return ApprovalRequest(
            interaction_id=question.id,
            tool_name=question.tool_name,
            kind=kind,
            title=view.title if view is not None else question.description,
            input=question.input,
            always_covers=scope.label(),
            choices=list(question.choices) if question.choices is not None else None,
            scope=scope,
        )

    def _read_only_mode(self) -> str | None:
        """The current mode's name when it is read-only (edits and commands are then refused without asking)."""
        mode = next((m for m in self._adapter.modes if m.id == self._record.mode), None)
        return mode.name if mode is not None and mode.read_only else None

    async def _respond(
        self, handle: RunHandle, interaction_id: str, answer: Approve | Deny, by: str, strict: bool = False
    ) -> None:
        resolved: dict[str, object] = {
            "interactionId": interaction_id,
            "decision": "approved" if isinstance(answer, Approve) else "denied",
            "by": by,
            "scope": "always" if answer.always else "once",
        }
        if isinstance(answer, Deny):
            resolved["reason"] = answer.reason
        try:
            await handle.interaction.respond(interaction_id, answer)
        except AgentMuxError:
            if strict:
                raise
            return  # settled meanwhile (the agent withdrew it, or the run ended)
        self._journal.record(handle.run_id, "approval.resolved", resolved)


async def _aclose(events: AsyncIterator[BaseEvent]) -> None:
    """Close a stream of events (a run's, or a turn's that may fall back) so its run stops feeding it."""
    aclose = getattr(events, "aclose", None)
    if aclose is not None:
        await aclose()


run = Run
"""``acp_mux.run(agent, prompt, ...)``: a :class:`Run` (the class itself, so its one signature is the API's)."""


async def query(
    agent: str,
    prompt: str,
    *,
    cwd: str | os.PathLike[str] | None = None,
    model: str | None = None,
    mode: str | None = None,
    mcp_servers: Sequence[dict[str, object]] = (),
    approvals: Approvals | None = None,
    resume: str | None = None,
    env: dict[str, str] | None = None,
    state_dir: str | os.PathLike[str] | None = None,
) -> AsyncIterator[BaseEvent]:
    """One prompt, one turn: its events as they come; the agent is gone when the iteration ends (or is left)."""
    async with run(
        agent,
        prompt,
        cwd=cwd,
        model=model,
        mode=mode,
        mcp_servers=mcp_servers,
        approvals=approvals,
        resume=resume,
        env=env,
        state_dir=state_dir,
    ) as conversation:
        async for event in conversation:
            yield event
