"""RunHandle: one agent process, observed as events and steered by control calls (spec 002).

A handle is an async iterable of events (fan-out, late iterators replay the buffer), an emitter (``on``/``off``/
``once`` with synchronous handlers), and awaitable for its :class:`RunResult`, which never raises. All I/O with the
agent happens in the handle's own task: native lines go through the adapter into events, and whatever the adapter
queued on the parse context's outbox is written back to the agent's stdin.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, AsyncGenerator, AsyncIterator, Callable, Generator, Literal

from acp_mux.core.ids import new_ulid

from acp_mux.core.events.lazy_events import ev  # the event models load with the first event, after the agent's spawn
from acp_mux.core.run.contract import Adapter, ApprovalDecision, RunOptions
from acp_mux.core.text.delta_join import JOINABLE, join_adjacent_deltas
from acp_mux.core.events.errors import AgentMuxError
from acp_mux.core.events.buffer import EventBuffer
from acp_mux.core.events.codes import ErrorCode, now_ms
from acp_mux.core.run.interaction import (
    Approve,
    InteractionChannel,
    InteractionResponse,
    PendingInteraction,
    approval_question,
)
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.core.run.log_follow import SideLog, follow
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import AgentProcess, ExitStatus, SpawnError, spawn
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.run.waiting_prompts import WaitingPrompts

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

log = logging.getLogger(__name__)


class RunState(StrEnum):
    SPAWNED = "spawned"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    ABORTED = "aborted"
    TIMED_OUT = "timed-out"
    COMPLETED = "completed"
    CRASHED = "crashed"
    KILLED = "killed"


TERMINAL_STATES = frozenset(
    {RunState.ABORTED, RunState.TIMED_OUT, RunState.COMPLETED, RunState.CRASHED, RunState.KILLED}
)
_ALWAYS_DELIVERED = frozenset({"debug", "log", "session_end"})
_ACTIVITY_EXEMPT = frozenset({"debug"})
# Lines of one burst of agent output handled together (their deltas joined, one flush): bounded so that a flood
# still reaches the run's buffer, and its backpressure, in steps.
LINES_PER_BATCH = 256
# After a burst of output that was streamed text and nothing else, the run reads the agent's output again only this
# many seconds later (AgentProcess.hold_output): an agent streaming a reply writes every 0.2–0.6 ms, and each read
# wakes the bridge for its whole per-read path (about 130 µs of CPU on two cores, whatever the read carries), so a
# 3,000-chunk reply cost 30–40 µs a chunk through opencode and ~150 through hermes. Held, the pieces written
# meanwhile arrive as one read: ~10 µs a chunk, the cost of a bare byte relay (benchmarks/relay_floor.py). The
# first text after anything else is read at once (first words are never held), a streamed piece waits at most this
# long, and a person cannot see 2 ms.
STREAM_PACE_S = 0.002
# The events _after_emit follows up (the questions, the busy flag).
_FOLLOWED_UP = frozenset({"approval_request", "approval_granted", "approval_denied", "turn_end"})
# The events the run's result is built from (_Accumulator.add): text, turns, cost, tokens, session ids, failures.
_RESULT_TYPES = frozenset(
    {"text_delta", "turn_end", "cost", "token_usage", "session_start", "timeout"}
    | {"auth_error", "rate_limit_error", "context_exceeded", "crash", "error"}  # events.CATEGORIES["error"]
)


@dataclass(frozen=True)
class TokenUsageSummary:
    input_tokens: int = 0
    output_tokens: int = 0
    thinking_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True)
class RunError:
    code: str
    message: str
    stderr: str = ""
    recoverable: bool = False


@dataclass(frozen=True)
class RunResult:
    run_id: str
    agent: str
    model: str | None
    session_id: str | None
    text: str
    cost: ev.CostRecord | None
    duration_ms: int
    exit_code: int | None
    signal: str | None
    exit_reason: str
    token_usage: TokenUsageSummary | None
    turn_count: int
    error: RunError | None


class _Accumulator:
    """Builds the RunResult from the events as they pass (text, cost, tokens, turns, last error).

    The run's text lives as long as the run, which for a persistent agent is the whole session: it is kept as a
    :class:`JoinedText` (about its characters, not a string object per delta), and not at all when the run's owner
    reads the text from the events instead (``RunOptions.collect_text=False``: the bridge, whose sessions would
    otherwise hold every word the agent said, ~0.7 MB per 100,000 short deltas, for as long as the process lives)."""

    def __init__(self, collect_text: bool = True) -> None:
        self.text: JoinedText | None = JoinedText() if collect_text else None
        self.cost: ev.CostRecord | None = None
        self.tokens: list[int] | None = None
        self.turns = 0
        self.error: RunError | None = None
        self.session_id: str | None = None
        self.saw_cost_event = False

    def add(self, event: BaseEvent) -> None:
        if event.type not in _RESULT_TYPES:  # one set lookup for most events: tool calls, thinking, shell...
            return
        match event:
            case ev.TextDeltaEvent():
                if self.text is not None:
                    self.text.append(event.delta)
            case ev.TurnEndEvent():
                self.turns += 1
                if event.cost is not None and not self.saw_cost_event:
                    self.cost = event.cost
            case ev.CostEvent():  # the authoritative running total (spec 000 §17.1): per-turn costs never overwrite it
                self.saw_cost_event = True
                self.cost = event.cost
            case ev.TokenUsageEvent():
                tokens = self.tokens or [0, 0, 0, 0]
                tokens[0] += event.input_tokens
                tokens[1] += event.output_tokens
                tokens[2] += event.thinking_tokens or 0
                tokens[3] += event.cached_tokens or 0
                self.tokens = tokens
            case ev.SessionStartEvent():
                self.session_id = event.session_id
            case _:
                error = _run_error(event)
                if error is not None:
                    self.error = error

    def joined_text(self) -> str:
        return self.text.text() if self.text is not None else ""


def _run_error(event: BaseEvent) -> RunError | None:
    """The error a failing event gives the run's result (None for an event that is no failure)."""
    match event:
        case ev.AuthErrorEvent():
            return RunError(ErrorCode.AUTH_ERROR, f"{event.message} {event.guidance}".strip())
        case ev.RateLimitErrorEvent():
            return RunError(ErrorCode.RATE_LIMITED, event.message, recoverable=True)
        case ev.ContextExceededEvent():
            return RunError(ErrorCode.CONTEXT_EXCEEDED, "the context window is full")
        case ev.CrashEvent():
            how = f"was killed by {event.signal}" if event.signal else f"exited with code {event.exit_code}"
            return RunError(ErrorCode.AGENT_CRASH, f"agent {how}", stderr=event.stderr)
        case ev.TimeoutEvent():
            return RunError(ErrorCode.TIMEOUT, f"{event.kind} timeout")
        case ev.ErrorEvent():
            return RunError(event.code, event.message, recoverable=event.recoverable)
    return None


# how long an interrupted turn whose prompt never reached the agent waits for the agent's session to open (its
# turn ends then) before the agent counts as stuck and is terminated
BEFORE_START_WAIT_S = 60.0


class RunHandle:
    """Create with :func:`start_run` (needs a running event loop); the process is spawned at once."""

    def __init__(self, adapter: Adapter, options: RunOptions) -> None:
        self.adapter = adapter
        self.options = options
        self.run_id = options.run_id or new_ulid()
        self.agent = options.agent
        self.model = options.model
        self.state = RunState.SPAWNED
        self.ctx = ParseContext(run_id=self.run_id, agent=self.agent, cwd=options.cwd)
        self.interaction = InteractionChannel(self, self.ctx.questions)
        self._buffer: EventBuffer[BaseEvent] = EventBuffer(options.event_buffer_size, self._on_overflow)
        self._handlers: dict[str, list[Callable[[BaseEvent], None]]] = {}
        self._acc = _Accumulator(options.collect_text)
        self._proc: AgentProcess | None = None
        self._write_lock = asyncio.Lock()
        self._last_ts = 0
        self._started = asyncio.get_running_loop().time()
        self._last_activity = self._started
        self._busy = options.prompt is not None  # a turn is expected: inactivity counts only then
        self._waiting = WaitingPrompts(adapter, self.ctx)  # every prompt the agent has not had: their one owner
        self._abort_requested = False
        self._timeout_kind: str | None = None
        self._terminal_emitted = False
        self._terminal_type: str | None = None
        self._turn_failed_by_handler = False  # a handler raised in this turn: the turn already ends failed
        self._interrupted = False
        self._prompt_coming = False  # continue_ waits for the process to start: a prompt it has not handed over
        self._exit: ExitStatus | None = None
        self._result_future: asyncio.Future[RunResult] = asyncio.get_running_loop().create_future()
        self._spawned = asyncio.Event()  # the process runs and the adapter's start() went out: input may follow
        self._spawned_at: float | None = None  # wall clock just before the agent was spawned (side logs)
        self._task = asyncio.get_running_loop().create_task(self._main(), name=f"run-{self.run_id}")

    # ── consumption ────────────────────────────────────────────────────────────────────────────────────────────
    def __aiter__(self) -> AsyncIterator[BaseEvent]:
        return self._buffer.iterate(from_start=True)

    def events(self, *, from_start: bool = True, lossless: bool = False) -> AsyncGenerator[BaseEvent, None]:
        """An independent iterator; ``from_start=False`` sees only events emitted after this call.

        ``lossless=True`` (the bridge's consumer) never loses an event to the high-water mark: reading the agent's
        output pauses instead until this iterator catches up.
        """
        return self._buffer.iterate(from_start=from_start, lossless=lossless)

    def on(self, event_type: str, handler: Callable[[BaseEvent], None]) -> "RunHandle":
        """Call ``handler`` synchronously for each event of ``event_type`` (``"*"``: every event) as it is emitted."""
        self._handlers.setdefault(event_type, []).append(handler)
        return self

    def __await__(self) -> Generator[Any, None, RunResult]:
        return self.result().__await__()

    async def result(self) -> RunResult:
        return await asyncio.shield(self._result_future)

    @property
    def done(self) -> bool:
        return self._result_future.done()

    @property
    def is_terminal(self) -> bool:
        return self.state in TERMINAL_STATES

    @property
    def usable(self) -> bool:
        """Whether the live process can take another prompt (not ended, no terminal event seen, not spent: see
        ``ParseContext.process_spent``)."""
        return not self.done and not self.is_terminal and not self._terminal_emitted and not self.ctx.process_spent

    # ── input ──────────────────────────────────────────────────────────────────────────────────────────────────
    async def continue_(self, prompt: Prompt | str) -> None:
        """Start the next turn in a live process (persistent agents)."""
        self._require_active()
        if isinstance(prompt, str):
            prompt = Prompt.of_text(prompt)
        if self.state == RunState.INTERRUPTED:  # the last turn's interrupt is over: what comes now is this turn's
            self.state = RunState.RUNNING
            self._interrupted = False
        self._prompt_coming = True
        try:
            await self._until_spawned()
        finally:
            self._prompt_coming = False
        self._require_active()
        # behind any still waiting for the agent's session, in the order they came; an interrupt that came while
        # the process was starting was this prompt's: it never goes out, its turn ends as interrupted instead
        withdrawn = self._interrupted
        self._waiting.hold(prompt, withdrawn=withdrawn)
        self._busy = not withdrawn
        for refused, exc in self._release():
            if refused is prompt:
                raise AgentMuxError(ErrorCode.STDIN_NOT_AVAILABLE, str(exc)) from exc
        self._last_activity = asyncio.get_running_loop().time()
        await self._flush()

    async def steer(self, prompt: Prompt | str) -> bool:
        """Put ``prompt`` into the turn the agent is running now (it reads it at its next step: the person steering
        it); False, with nothing sent, when no turn of the agent's runs (none was asked for, it ended, or its prompt
        still waits for the agent's session) or the adapter cannot take one now. Nothing is kept: a steer that could
        not land is its caller's to send as a prompt."""
        if isinstance(prompt, str):
            prompt = Prompt.of_text(prompt)
        if not self.usable or not self._busy or not self._spawned.is_set() or self._waiting.prompt_due():
            return False
        if not self.adapter.steer(prompt, self.ctx):
            return False
        self._last_activity = asyncio.get_running_loop().time()
        await self._flush()
        return True

    async def set_mode(self, mode: str) -> bool:
        """Apply a permission mode to the live process; False when the adapter needs a new process for it."""
        self._require_active()
        self.options.mode = mode  # a process still starting is started in it
        await self._until_spawned()
        applied = self.adapter.set_mode(mode, self.ctx)
        await self._flush()
        return applied

    # ── control ────────────────────────────────────────────────────────────────────────────────────────────────
    async def set_model(self, model: str) -> bool:
        """Switch the live process's model in-protocol; False when the agent needs a restart for it."""
        await self._until_spawned()
        if self.done or not self.adapter.set_model(model, self.ctx):
            return False
        self.model = model
        await self._flush()
        return True

    async def stop_subagent(self, subagent_id: str) -> bool:
        """Stop one subagent of the running turn (a child session's cancel); False when the agent cannot."""
        if self.done or not self.adapter.stop_subagent(subagent_id, self.ctx):
            return False
        await self._flush()
        return True

    async def set_config_option(self, option_id: str, value: Any) -> bool:
        """Pass a setting the agent offered through to it; False when it has no such setting."""
        await self._until_spawned()
        if self.done or not self.adapter.set_config_option(option_id, value, self.ctx):
            return False
        await self._flush()
        return True

    async def answer_client_request(
        self, request_id: str, result: Any = None, error: dict[str, Any] | None = None
    ) -> None:
        """Deliver the editor's answer to a ``client_request`` event (a file read, a terminal) to the agent."""
        if self.done:
            return
        self.adapter.respond_client_request(request_id, result, error, self.ctx)
        await self._flush()

    async def interrupt(self) -> None:
        """Stop the current turn. A prompt :meth:`continue_` has not yet handed over (it waits for the process to
        start) is withdrawn there: nothing of it reaches the agent. Before the process is started and its handshake
        out nothing can hear an interrupt: the run's first prompt is stopped as soon as it can be (:meth:`_drive`)."""
        self._require_active()
        self.state = RunState.INTERRUPTED
        self._interrupted = True
        self._emit(ev.InterruptedEvent())
        if self._spawned.is_set() and not self._prompt_coming:
            self._deliver_interrupt()
            await self._flush()

    @property
    def interrupted_before_the_agent(self) -> bool:
        """The interrupted turn's prompt never reached the agent: it waited for the process to start or for the
        agent's own session, and was withdrawn there. Its turn ends (interrupted) once the agent's session opens;
        nothing runs at the agent that a stop would have to end (a slow start is no ignored interrupt)."""
        if not self._interrupted or self.done:
            return False
        starting = not self._spawned.is_set() and self.options.prompt is not None
        return self._prompt_coming or starting or self._waiting.has_due()

    async def end_interrupted_turn(self, turn_over: Callable[[], bool], wait_s: float, grace_s: float) -> bool:
        """After :meth:`interrupt`: wait until ``turn_over()`` (the caller's view of its turn), at most ``wait_s``,
        then terminate the process group as one that ignored the interrupt; True when it had to. A turn whose prompt
        never reached the agent waits up to :data:`BEFORE_START_WAIT_S` for the agent's session to open instead:
        the agent is not stopped (and restarted) for being slow to start."""
        loop = asyncio.get_running_loop()
        started = loop.time()

        def in_time() -> bool:
            limit = BEFORE_START_WAIT_S if self.interrupted_before_the_agent else wait_s
            return loop.time() - started < limit

        while not turn_over() and not self.done and in_time():
            await asyncio.sleep(0.05)
        if turn_over() or self.done:
            return False
        await self.abort(grace_s)
        return True

    def _deliver_interrupt(self) -> None:
        """The interrupt, to whatever holds the turn: the waiting prompts are withdrawn (nothing of them ran), else
        the adapter interrupts in-protocol, else the process gets SIGINT."""
        if not self._waiting.withdraw():
            if not self.adapter.interrupt(self.ctx) and self._proc is not None:
                self._proc.interrupt()

    async def abort(self, grace_s: float | None = None) -> None:
        """SIGTERM the process group, SIGKILL after the grace period; a no-op once terminal."""
        if self.is_terminal or self._abort_requested:
            await self._wait_quietly()
            return
        self._abort_requested = True
        self.state = RunState.ABORTED
        self._emit_terminal(ev.AbortedEvent())
        await self._stop_process(grace_s)

    async def close(self, grace_s: float = 2.0) -> None:
        """End a live process politely: close stdin, wait a little, then terminate the group."""
        if self.done:
            return
        if self._proc is not None:
            try:
                await self._proc.close_stdin()
            except Exception:
                pass
        try:
            await asyncio.wait_for(asyncio.shield(self._result_future), timeout=grace_s)
        except TimeoutError:
            await self._stop_process(grace_s)

    async def stop(self, grace_s: float = 2.0) -> None:
        """End the run and everything it started, for good: :meth:`close` (politely), then whatever is left of its
        process group is terminated. A run still starting (no process yet) is aborted: its process is terminated as
        soon as it exists, where :meth:`close` would wait for it to end by itself."""
        if self._proc is None and not self.done:
            await self.abort(grace_s)
        else:
            await self.close(grace_s)
        if self._proc is not None:
            await self._proc.terminate(grace_s)  # at once when the group is already gone

    def _require_active(self) -> None:
        if self.is_terminal or self.done:
            raise AgentMuxError(ErrorCode.RUN_NOT_ACTIVE, f"run {self.run_id} is {self.state.value}")

    async def _wait_quietly(self) -> None:
        await asyncio.shield(self._result_future)

    async def _stop_process(self, grace_s: float | None) -> None:
        grace = self.options.grace_period_s if grace_s is None else grace_s
        if self._proc is not None:
            await self._proc.terminate(grace)
        await self._wait_quietly()

    # ── emission ───────────────────────────────────────────────────────────────────────────────────────────────
    def _stamp(self, event: BaseEvent) -> BaseEvent:
        """The enrichment step, once per event: the values are ours and of the fields' types, so they go straight into
        the instance (pydantic's ``__setattr__`` costs ~0.6 µs a field, and these fields need no validation)."""
        ts = now_ms()
        self._last_ts = ts = ts if ts > self._last_ts else self._last_ts
        fields = event.__dict__
        fields["run_id"], fields["agent"], fields["timestamp"] = self.run_id, self.agent, ts
        return event

    def _emit(self, event: BaseEvent) -> None:
        if self._terminal_emitted and event.type not in _ALWAYS_DELIVERED:
            return  # nothing follows a terminal event but session_end and diagnostics
        self._stamp(event)
        if event.type not in _ACTIVITY_EXEMPT:
            self._last_activity = asyncio.get_running_loop().time()
        self._acc.add(event)
        failed = self._dispatch(event)
        ends = event.type == "turn_end" or ev.is_terminal_event(event)
        if failed is not None and ends:  # the failure goes before the end it belongs to
            self._emit(failed)
        self._buffer.append(event)
        if ev.is_terminal_event(event) and event.type != "interrupted":
            self._terminal_emitted = True
            self._terminal_type = event.type
            self.ctx.saw_terminal = True
            if event.type not in ("aborted", "timeout", "crash") and self._proc is not None and not self._proc.exited:
                # a terminal error halts the run (spec 000 §21): a persistent process must not linger
                asyncio.get_running_loop().create_task(self._stop_process(self.options.grace_period_s))
        self._after_emit(event)
        if failed is not None and not ends:
            self._emit(failed)
        if event.type == "turn_end":
            self._turn_failed_by_handler = False

    def _emit_terminal(self, event: BaseEvent) -> None:
        if not self._terminal_emitted:
            self._emit(event)

    def _dispatch(self, event: BaseEvent) -> ev.ErrorEvent | None:
        """Every handler gets the event, whatever an earlier one did (spec 002 §12.2: keep delivering). A handler that
        raises fails the turn: what it did not do (a session's outcome, its log, a reply) is missing, so the turn
        must not look finished. The error event that says so is returned for :meth:`_emit` to place (before the
        turn's end), once a turn; later failures of the same turn, and a failure handling that error, are logged."""
        handlers = self._handlers.get(event.type, [])
        every = self._handlers.get("*")  # ``on("*", h)``: every event, in emission order (the session's log)
        failure: ev.ErrorEvent | None = None
        for handler in handlers + every if every else list(handlers):
            try:
                handler(event)
            except Exception as exc:
                log.exception("run %s: a handler failed on its %s event", self.run_id, event.type)
                if failure is None and not self._turn_failed_by_handler:
                    self._turn_failed_by_handler = True
                    message = f"acp-mux failed handling the agent's {event.type} event: {type(exc).__name__}: {exc}"
                    failure = ev.ErrorEvent(code=ErrorCode.INTERNAL, message=message, recoverable=True)
        return failure

    def _warn(self, message: str) -> None:
        self._emit(ev.DebugEvent(level="warn", message=message))

    def _on_overflow(self, dropped: int) -> None:
        log.warning("run %s: event buffer overflow, %d events dropped", self.run_id, dropped)
        warning = self._stamp(ev.DebugEvent(level="warn", message=f"Event buffer overflow: {dropped} events dropped"))
        failed = self._dispatch(warning)
        if failed is not None:  # the buffer is mid-append here: the failure follows on the loop's next turn
            asyncio.get_running_loop().call_soon(self._emit, failed)

    def _after_emit(self, event: BaseEvent) -> None:
        if event.type not in _FOLLOWED_UP:  # one set lookup for the stream of deltas
            return
        match event:
            case ev.ApprovalRequestEvent():
                self._on_approval_request(event)
            case ev.ApprovalGrantedEvent() | ev.ApprovalDeniedEvent():
                self.interaction._settled(event.interaction_id)
            case ev.TurnEndEvent():
                self._busy = False

    def _on_approval_request(self, event: ev.ApprovalRequestEvent) -> None:
        """The question the adapter registered when it asked (or, from an adapter that did not, one built from the
        event) is shown to the person (the run's owner answers it: the session, or the Python API's policy)."""
        self.ctx.questions.open(approval_question(event, self.run_id))

    def _release(self) -> list[tuple[Prompt, NotImplementedError]]:
        """Give the agent the prompts now due (see :class:`WaitingPrompts`); the ones it could not take."""
        if self.done or not self._waiting.has_due():
            return []
        released = self._waiting.release()
        for event in released.events:
            self._emit(event)
        if released.sent:
            self._busy = True
        for _, exc in released.refused:
            self._warn(f"queued prompt dropped: {exc}")
        return released.refused

    # ── interaction answers ────────────────────────────────────────────────────────────────────────────────────
    def _answer(self, item: PendingInteraction, response: InteractionResponse) -> None:
        """Relay an answer through the adapter (queued on the outbox) and record it as an event."""
        if isinstance(response, Approve):
            decision = ApprovalDecision(
                approve=True, always=response.always, updated_input=response.updated_input, mode=response.mode
            )
        else:
            decision = ApprovalDecision(approve=False, reason=response.reason, always=response.always)
        approve = decision.approve
        self.adapter.respond_approval(item.id, decision, self.ctx)
        self.ctx.questions.take(item.id)  # answered once, whether or not the adapter took it
        if approve:
            self._emit(ev.ApprovalGrantedEvent(interaction_id=item.id))
        else:
            self._emit(ev.ApprovalDeniedEvent(interaction_id=item.id, reason=decision.reason))

    async def _deliver_response(self, item: PendingInteraction, response: InteractionResponse) -> None:
        self._answer(item, response)
        await self._flush()

    # ── I/O ────────────────────────────────────────────────────────────────────────────────────────────────────
    async def _until_spawned(self) -> None:
        """A run started without a prompt (warmed ahead of the first one) may still be spawning when the prompt
        comes: wait until its process runs and its handshake is out, so nothing is written before it."""
        if self._spawned.is_set():
            return
        spawned = asyncio.ensure_future(self._spawned.wait())
        try:
            await asyncio.wait({spawned, self._task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            spawned.cancel()

    async def _flush(self) -> None:
        self._release()  # prompts waiting for the agent's session go out with the rest once it is ready
        out = self.ctx.take_outbox()
        if out:
            await self._write(out)

    async def _write(self, chunks: list[str]) -> None:
        proc = self._proc
        if proc is None or proc.exited:
            return
        async with self._write_lock:
            for chunk in chunks:
                try:
                    await proc.write(chunk)
                except Exception as exc:  # the agent closed its stdin: its exit will tell the story
                    self._warn(f"could not write to the agent: {exc}")
                    return

    def _on_stderr_line(self, line: str) -> None:
        if self.done:
            return
        self._emit(ev.LogEvent(source="stderr", line=line))
        try:
            for event in self.adapter.stderr_events(line, self.ctx):
                self._emit(event)
        except Exception as exc:
            self._warn(f"stderr parse error: {exc}")

    async def _main(self) -> None:
        started = now_ms()
        try:
            await self._drive()
        except Exception as exc:  # the runtime itself failed: still end the run with a readable error
            log.exception("run %s failed", self.run_id)
            self._emit_terminal(ev.ErrorEvent(code=ErrorCode.INTERNAL, message=f"acp-mux internal error: {exc}"))
            if self._proc is not None:
                await self._proc.terminate(0)  # the one stop (its supervisor's sweep): also what left the group
            if self.state not in TERMINAL_STATES:
                self.state = RunState.CRASHED
        finally:
            self._finalize(started)

    async def _drive(self) -> None:
        try:
            await self.adapter.prepare(self.options)  # e.g. a server the agent connects to (openclaw's gateway)
            spec = self.adapter.build_spawn(self.options)
            self._spawned_at = time.time()  # a side log changed since then is this agent's: read from its start
            self._proc = await spawn(spec)
        except SpawnError as exc:
            self.state = RunState.CRASHED
            self._emit_terminal(ev.CrashEvent(exit_code=-1, stderr=str(exc)))
            return
        proc = self._proc
        self.ctx.stderr_tail = proc.stderr_tail
        proc.on_stderr_line = self._on_stderr_line
        if self._abort_requested:
            await proc.terminate(0)
        watchdog = asyncio.get_running_loop().create_task(self._watchdog())
        followers = [
            asyncio.get_running_loop().create_task(self._follow(side))
            for side in self.adapter.side_logs(spec, proc.agent_pid)
        ]
        try:
            self.adapter.start(self.options, self.ctx)
            self._waiting.after_start(self.options.prompt)
            if self._interrupted and self.options.prompt is not None:  # interrupted while the process started
                self._deliver_interrupt()  # (the first prompt's turn; a warm process has none to stop)
            await self._flush()
            self._spawned.set()
            async for lines in proc.line_batches(LINES_PER_BATCH):
                if self.state == RunState.SPAWNED:
                    self.state = RunState.RUNNING
                if self._handle_lines(lines):
                    proc.hold_output(STREAM_PACE_S)
                await self._flush()
                await self._buffer.room()  # backpressure: a lagging lossless consumer pauses our reading
            self._exit = await proc.wait()
        finally:
            watchdog.cancel()
            for follower in followers:
                follower.cancel()
        for event in self._safe_finish(self._exit):
            self._emit(event)
        self._settle_state(self._exit)

    async def _follow(self, side: SideLog) -> None:
        """A log file the agent writes beside its output (where some agents' retries show): its lines become
        events as they appear, until the run ends."""
        async for line in follow(side.find, since=self._spawned_at):
            if self.done:
                return
            try:
                events = list(side.events(line, self.ctx))
            except Exception as exc:  # an odd log line never crashes the bridge
                self._warn(f"could not parse the agent's log ({type(exc).__name__}: {exc}): {line[:200]}")
                continue
            for event in events:
                self._emit(event)
            await self._flush()

    def _handle_lines(self, lines: list[str]) -> bool:
        """The lines of one burst of output, parsed in order; adjacent deltas of one message go on as one
        (core/text/delta_join.py). Only deltas wait for the next line: any other event is emitted before the next line
        is parsed, as when lines came one by one (its handlers may change what the parser sees). The adapter may
        read several lines as one (``parse_from``: a run of text chunks of one message). In debug mode every event
        keeps its own native line, so nothing is joined. True when the burst was streamed deltas and nothing else
        (then more are likely on their way: see STREAM_PACE_S)."""
        held: list[BaseEvent] = []  # deltas of the lines so far, not yet emitted
        streamed = True
        at = 0
        while at < len(lines):
            events, taken = self._parsed(lines, at)
            at += taken
            deltas_only = bool(events) and all(event.type in JOINABLE for event in events)
            streamed = streamed and deltas_only
            if deltas_only and not self.options.debug:
                held += events
                continue
            for event in (*join_adjacent_deltas(held), *events):
                self._emit(event)
            held = []
        for event in join_adjacent_deltas(held):
            self._emit(event)
        return streamed

    def _parsed(self, lines: list[str], at: int) -> tuple[list[BaseEvent], int]:
        """The events of the line at ``at`` (and of the lines after it the adapter read with it), and how many
        lines that was; a line the adapter cannot read costs a warning, never the run (nor the lines after it)."""
        line = lines[at]
        try:
            if self.options.debug:  # each event with its own line
                events, taken = list(self.adapter.parse_line(line, self.ctx)), 1
            else:
                parsed, taken = self.adapter.parse_from(lines, at, self.ctx)
                events = list(parsed)
        except Exception as exc:  # bad agent output never crashes the bridge
            log.debug("parse error on %r", line[:200], exc_info=True)
            message = f"could not parse agent output ({type(exc).__name__}: {exc}): {line[:200]}"
            return [ev.DebugEvent(level="warn", message=message)], 1
        if self.options.debug:
            for event in events:
                if event.raw is None:
                    event.raw = line
        return events, min(max(taken, 1), len(lines) - at)

    def _safe_finish(self, status: ExitStatus) -> list[BaseEvent]:
        try:
            return list(self.adapter.finish(status, self.ctx))
        except Exception as exc:
            self._warn(f"adapter finish failed: {exc}")
            return list(self.ctx.finish(status))

    def _settle_state(self, status: ExitStatus) -> None:
        if self.state in TERMINAL_STATES:
            return
        if status.code == 0:
            self.state = RunState.COMPLETED
        elif status.signal is not None and not self._acc.error:
            self.state = RunState.KILLED
        else:
            self.state = RunState.CRASHED

    async def _watchdog(self) -> None:
        """Run timeout and inactivity timeout: the latter only while a turn is in flight and not waiting
        for the person (an approval or question open: a permission dialog may stay open as long as they like)."""
        loop = asyncio.get_running_loop()
        run_limit, idle_limit = self.options.timeout_s, self.options.inactivity_timeout_s
        if run_limit is None and idle_limit is None:
            return None
        while True:
            now = loop.time()
            waits = []
            if run_limit is not None:
                if now - self._started >= run_limit:
                    return await self._time_out("run")
                waits.append(run_limit - (now - self._started))
            if idle_limit is not None:
                if not self._busy or self.interaction.pending:
                    self._last_activity = now  # idle, or waiting for the person: their time, not the agent's
                elif now - self._last_activity >= idle_limit:
                    return await self._time_out("inactivity")
                waits.append(idle_limit - (now - self._last_activity))
            await asyncio.sleep(max(0.05, min(waits)))

    async def _time_out(self, kind: Literal["run", "inactivity"]) -> None:
        if self.is_terminal:
            return
        self.state = RunState.TIMED_OUT
        self._timeout_kind = kind
        self._emit_terminal(ev.TimeoutEvent(kind=kind))
        if self._proc is not None:
            await self._proc.terminate(self.options.grace_period_s)

    def _finalize(self, started_ms: int) -> None:
        if self.ctx.session_id and self.ctx.session_started and not self.ctx.session_ended:
            self.ctx.session_ended = True
            self._emit(
                ev.SessionEndEvent(session_id=self.ctx.session_id, turn_count=self._acc.turns, cost=self._acc.cost)
            )
        self.interaction._expire_all()
        self._buffer.close()
        status = self._exit or ExitStatus(code=None, signal=None)
        reason = {
            RunState.ABORTED: "aborted",
            RunState.TIMED_OUT: "inactivity" if self._timeout_kind == "inactivity" else "timeout",
            RunState.COMPLETED: "completed",
            RunState.CRASHED: "crashed",
            RunState.KILLED: "killed",
        }.get(self.state, "crashed")
        if self._terminal_type == "turn_limit":
            reason = "turn_limit"
        elif reason == "completed" and self._interrupted:
            reason = "interrupted"
        tokens = self._acc.tokens
        result = RunResult(
            run_id=self.run_id,
            agent=self.agent,
            model=self.model,
            session_id=self._acc.session_id or self.ctx.session_id,
            text=self._acc.joined_text(),
            cost=self._acc.cost,
            duration_ms=now_ms() - started_ms,
            exit_code=status.code,
            signal=status.signal,
            exit_reason=reason,
            token_usage=TokenUsageSummary(*tokens) if tokens else None,
            turn_count=self._acc.turns,
            error=None if reason == "completed" else self._acc.error,
        )
        if not self._result_future.done():
            self._result_future.set_result(result)


def start_run(adapter: Adapter, options: RunOptions) -> RunHandle:
    """Spawn the agent and return its handle at once (call inside a running event loop)."""
    return RunHandle(adapter, options)
