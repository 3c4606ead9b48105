"""Per-run parse state shared by every adapter, and the helpers that keep the ordering contract.

Adapters call these helpers instead of building events by hand, so that for every agent: a turn is open before
text or tools, ``message_start`` precedes the first ``text_delta`` and ``message_stop`` closes it, a tool call goes
start → ready → result|error exactly once, and whatever is still open at exit is closed. Messages an adapter must
send to the agent go on :attr:`ParseContext.outbox`; the runtime writes them after each parsed line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from acp_mux.core.events.codes import now_ms
from acp_mux.core.ids import new_ulid
from acp_mux.core.run.interaction import Questions
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.core.events.lazy_events import ev
from acp_mux.core.text import safe as safe_json

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent, CostRecord, ToolDisplay


@dataclass
class ToolState:
    """A tool call between start and result."""

    name: str
    input_json: JoinedText = field(default_factory=JoinedText)  # as streamed: appended to, never copied per delta
    input: Any = None
    ready: bool = False
    started_ms: int = field(default_factory=now_ms)


@dataclass
class ParseContext:
    run_id: str
    agent: str
    cwd: str = ""
    session_id: str | None = None
    turn_index: int = -1
    in_turn: bool = False
    outbox: list[str] = field(default_factory=list)
    tools: dict[str, ToolState] = field(default_factory=dict)
    finished_tools: set[str] = field(default_factory=set)  # ids whose result/error was emitted (this run)
    questions: Questions = field(init=False)  # the run's open questions: their one owner (core/run/interaction.py)
    state: dict[str, Any] = field(default_factory=dict)  # each adapter's typed per-run state, by its KEY (PerRun)
    stderr_tail: Callable[[], str] = lambda: ""
    # Whether the run holds a prompt that goes to the agent as soon as it takes prompts. The run owns every waiting
    # prompt (core/run/waiting_prompts.py); an adapter may ask (e.g. to say why the first answer is late), never keep one.
    prompt_waiting: Callable[[], bool] = lambda: False
    saw_terminal: bool = False
    # The adapter saw the agent's process go bad for further prompts (copilot 1.0.102 never answers the prompt after
    # a turn it stopped by itself): the run is no longer usable, so the next prompt goes to a new process, which
    # resumes the agent's session.
    process_spent: bool = False
    session_started: bool = False  # session_start was emitted (once per run)
    session_ended: bool = False  # session_end was emitted (once per run)
    _text: JoinedText | None = None  # the open message's text (its deltas share it: spec 000 ``accumulated``)
    _thinking: JoinedText | None = None
    _text_id: str = ""  # the open message's id (every chunk of it carries it)
    _thinking_id: str = ""

    def __post_init__(self) -> None:
        self.questions = Questions(self.run_id)

    # ── output to the agent ────────────────────────────────────────────────────────────────────────────────────
    def send(self, message: Any) -> None:
        """Queue a JSON message (one line) for the agent's stdin."""
        self.outbox.append(safe_json.dumps(message) + "\n")

    def take_outbox(self) -> list[str]:
        out, self.outbox = self.outbox, []
        return out

    # ── session and turns ──────────────────────────────────────────────────────────────────────────────────────
    def session_start(self, session_id: str, resumed: bool = False) -> list[BaseEvent]:
        """Emit ``session_start`` once per run; later calls only update the id. (An agent's slash commands go as
        ``commands_update``, which the session sends the editor whenever they come.)"""
        first = self.session_id is None or not self.session_started
        self.session_id = session_id
        if not first:
            return []
        self.session_started = True
        return [ev.SessionStartEvent(session_id=session_id, resumed=resumed)]

    def begin_turn(self) -> list[BaseEvent]:
        if self.in_turn:
            return []
        self.in_turn = True
        self.turn_index += 1
        return [ev.TurnStartEvent(turn_index=self.turn_index)]

    def end_turn(self, cost: CostRecord | None = None, *, tool_error: str = "turn ended") -> list[BaseEvent]:
        """Close open message/thinking/tools, then ``turn_end``. No-op when no turn is open."""
        if not self.in_turn:
            return []
        events = self.close_open(tool_error)
        self.in_turn = False
        events.append(ev.TurnEndEvent(turn_index=self.turn_index, cost=cost))
        return events

    def close_open(self, tool_error: str = "interrupted") -> list[BaseEvent]:
        events = self.end_thinking() + self.end_text()
        for tool_id in list(self.tools):
            events += self.tool_error(tool_id, tool_error)
        return events

    # ── text and thinking ──────────────────────────────────────────────────────────────────────────────────────
    def text_delta(self, delta: str, message_id: str | None = None) -> list[BaseEvent]:
        """A piece of the agent's message. ``message_id``: the agent's own id for the message, where it names one;
        another id than the open message's begins a new message. Without one, the message gets an id of ours when
        it begins (:func:`new_message_id`), so every chunk the editor sees names its message."""
        if not delta:
            return []
        events = self.begin_turn() + self.end_thinking()
        if self._text is not None and message_id is not None and message_id != self._text_id:
            events += self.end_text()
        if self._text is None:
            self._text = JoinedText()
            self._text_id = message_id or new_message_id()
            events.append(ev.MessageStartEvent(message_id=self._text_id))
        self._text.append(delta)
        events.append(_text_delta(delta, self._text, self._text_id))
        return events

    def end_text(self) -> list[BaseEvent]:
        if self._text is None:
            return []
        text, self._text = self._text.text(), None
        return [ev.MessageStopEvent(text=text, message_id=self._text_id)]

    def thinking_delta(self, delta: str, message_id: str | None = None) -> list[BaseEvent]:
        """A piece of the agent's thinking; ``message_id`` as for :meth:`text_delta`."""
        if not delta:
            return []
        events = self.begin_turn() + self.end_text()
        if self._thinking is not None and message_id is not None and message_id != self._thinking_id:
            events += self.end_thinking()
        if self._thinking is None:
            self._thinking = JoinedText()
            self._thinking_id = message_id or new_message_id()
            events.append(ev.ThinkingStartEvent(message_id=self._thinking_id))
        self._thinking.append(delta)
        events.append(_thinking_delta(delta, self._thinking, self._thinking_id))
        return events

    def end_thinking(self) -> list[BaseEvent]:
        if self._thinking is None:
            return []
        text, self._thinking = self._thinking.text(), None
        return [ev.ThinkingStopEvent(thinking=text, message_id=self._thinking_id)]

    # ── tools ──────────────────────────────────────────────────────────────────────────────────────────────────
    def tool_start(
        self,
        tool_id: str,
        name: str,
        tool_input: Any = None,
        *,
        display: ToolDisplay | None = None,
        ready: bool | None = None,
    ) -> list[BaseEvent]:
        """Announce a tool call; with a complete ``tool_input`` (or ``ready=True``) it is also ready at once.

        ``display`` carries the agent's own display hints (:class:`acp_mux.core.events.union.ToolDisplay`)."""
        if tool_id in self.tools:
            return self.tool_ready(tool_id, tool_input) if tool_input is not None else []
        if tool_id in self.finished_tools:  # a call re-announced after its end (late or replayed): already shown
            return []
        events = self.begin_turn() + self.end_thinking() + self.end_text()
        state = ToolState(name=name)
        self.tools[tool_id] = state
        if tool_input is not None:
            state.input_json = JoinedText(_as_json(tool_input))
        events.append(
            ev.ToolCallStartEvent(
                tool_call_id=tool_id, tool_name=name, input_accumulated=state.input_json.text(), display=display
            )
        )
        if ready if ready is not None else tool_input is not None:
            events += self.tool_ready(tool_id, tool_input if tool_input is not None else {})
        return events

    def tool_input_delta(self, tool_id: str, delta: str) -> list[BaseEvent]:
        state = self.tools.get(tool_id)
        if state is None or state.ready or not delta:
            return []
        state.input_json.append(delta)
        return [ev.ToolInputDeltaEvent.lazy(delta, state.input_json, tool_call_id=tool_id)]

    def tool_ready(self, tool_id: str, tool_input: Any = None) -> list[BaseEvent]:
        state = self.tools.get(tool_id)
        if state is None or state.ready:
            return []
        if tool_input is None:
            tool_input = _parse_json(state.input_json.text())
        state.input, state.ready = tool_input, True
        return [ev.ToolCallReadyEvent(tool_call_id=tool_id, tool_name=state.name, input=tool_input)]

    def tool_result(self, tool_id: str, output: Any, *, display: ToolDisplay | None = None) -> list[BaseEvent]:
        state = self.tools.get(tool_id)
        if state is None:
            return []
        events = self.tool_ready(tool_id)
        del self.tools[tool_id]
        self.finished_tools.add(tool_id)
        events.append(
            ev.ToolResultEvent(
                tool_call_id=tool_id,
                tool_name=state.name,
                output=output,
                duration_ms=now_ms() - state.started_ms,
                display=display,
            )
        )
        return events

    def tool_error(self, tool_id: str, error: str, *, display: ToolDisplay | None = None) -> list[BaseEvent]:
        state = self.tools.get(tool_id)
        if state is None:
            return []
        events = self.tool_ready(tool_id)
        del self.tools[tool_id]
        self.finished_tools.add(tool_id)
        events.append(
            ev.ToolErrorEvent(tool_call_id=tool_id, tool_name=state.name, error=error or "tool failed", display=display)
        )
        return events

    def tool_name(self, tool_id: str) -> str | None:
        state = self.tools.get(tool_id)
        return state.name if state else None

    def tool_input(self, tool_id: str) -> Any:
        state = self.tools.get(tool_id)
        return state.input if state else None

    # ── exit ───────────────────────────────────────────────────────────────────────────────────────────────────
    def finish(self, status: Any) -> list[BaseEvent]:
        """Default end of a run: a clean exit closes the turn; a silent failure becomes a ``crash``."""
        code = getattr(status, "code", None)
        if code == 0 or self.saw_terminal:
            return self.end_turn(tool_error="the agent exited")
        events = self.close_open("the agent exited")
        self.in_turn = False
        stderr = self.stderr_tail()
        exit_code = code if code is not None else -1
        events.append(ev.CrashEvent(exit_code=exit_code, stderr=stderr, signal=getattr(status, "signal", None)))
        return events


def new_message_id() -> str:
    """An id for a message the agent did not name: a ULID, unique, made once a message (never once a chunk)."""
    return new_ulid()


def _text_delta(delta: str, text: JoinedText, message_id: str) -> BaseEvent:
    # ``ev`` is the lazily loaded module (Any to mypy)
    event: BaseEvent = ev.TextDeltaEvent.lazy(delta, text, message_id=message_id)
    return event


def _thinking_delta(delta: str, text: JoinedText, message_id: str) -> BaseEvent:
    event: BaseEvent = ev.ThinkingDeltaEvent.lazy(delta, text, message_id=message_id)
    return event


def _as_json(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _parse_json(text: str) -> Any:
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return text
