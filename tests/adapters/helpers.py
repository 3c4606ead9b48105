"""Drive any adapter over native lines without a process: the adapter tests' common harness.

``feed`` pushes lines through ``adapter.parse_line`` with one :class:`ParseContext` (and optionally the adapter's
``finish``), exactly as the run runtime does, and returns the events. ``capture_lines`` reads a recorded
transcript, dropping the recorder's ``#`` annotations. ``brief`` reduces events to comparable tuples so tests can
assert exact sequences without timestamps and durations. ``sent`` parses what the adapter queued for stdin.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import BaseEvent
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.process.spawn import ExitStatus
from acp_mux.core.run.prompt import Prompt
from acp_mux.core.run.waiting_prompts import WaitingPrompts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# The field(s) that identify each event type in ``brief`` (besides its type).
KEY_FIELDS: dict[str, tuple[str, ...]] = {
    "session_start": ("session_id", "resumed"),
    "turn_start": ("turn_index",),
    "turn_end": ("turn_index",),
    "text_delta": ("delta",),
    "message_stop": ("text",),
    "thinking_delta": ("delta",),
    "thinking_stop": ("thinking",),
    "tool_call_start": ("tool_call_id", "tool_name"),
    "tool_input_delta": ("tool_call_id", "delta"),
    "tool_call_ready": ("tool_call_id", "input"),
    "tool_result": ("tool_call_id", "output"),
    "tool_error": ("tool_call_id", "error"),
    "file_read": ("path",),
    "file_write": ("path", "byte_count"),
    "file_create": ("path", "byte_count"),
    "file_patch": ("path", "diff"),
    "shell_start": ("command", "cwd"),
    "shell_stdout_delta": ("delta",),
    "shell_stderr_delta": ("delta",),
    "shell_exit": ("exit_code",),
    "mcp_tool_call_start": ("tool_call_id", "server", "tool_name"),
    "mcp_tool_result": ("tool_call_id", "output"),
    "mcp_tool_error": ("tool_call_id", "error"),
    "subagent_spawn": ("subagent_id", "agent_name"),
    "subagent_result": ("subagent_id", "summary"),
    "approval_request": ("interaction_id", "tool_call_id"),
    "token_usage": ("input_tokens", "output_tokens"),
    "cost": ("cost",),
    "auth_error": ("message",),
    "rate_limit_error": ("message",),
    "context_exceeded": ("used_tokens", "max_tokens"),
    "error": ("code", "recoverable"),
    "turn_limit": ("max_turns",),
    "retry": ("attempt", "reason"),
    "rate_limited": (),
}


def make_ctx(agent: str = "test", cwd: str = "/home/user/project") -> ParseContext:
    return ParseContext(run_id="run-test", agent=agent, cwd=cwd)


def capture_lines(path: str | Path) -> list[str]:
    """A recorded transcript's agent stdout lines (the recorder's ``#`` annotations removed)."""
    text = Path(path).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def stdin_annotations(path: str | Path) -> list[dict[str, Any]]:
    """What the recording driver wrote to the agent's stdin (``# >>> STDIN {...}`` lines), parsed."""
    prefix = "# >>> STDIN "
    text = Path(path).read_text(encoding="utf-8")
    return [json.loads(line[len(prefix) :]) for line in text.splitlines() if line.startswith(prefix)]


def feed(
    adapter: Any,
    lines: Iterable[str | dict[str, Any]],
    ctx: ParseContext | None = None,
    *,
    exit_code: int | None = None,
) -> list[BaseEvent]:
    """Parse ``lines`` (strings, or dicts dumped as JSON) with one context; ``exit_code`` also runs ``finish``."""
    ctx = ctx if ctx is not None else make_ctx(getattr(adapter, "name", "test"))
    events: list[BaseEvent] = []
    for item in lines:
        events.extend(adapter.parse_line(json.dumps(item) if isinstance(item, dict) else item, ctx))
    if exit_code is not None:
        events.extend(adapter.finish(ExitStatus(code=exit_code, signal=None), ctx))
    return events


class AsTheRunDrives:
    """An adapter with the run's part in its prompts played as :class:`~acp_mux.core.run.handle.RunHandle` plays it (with
    the same :class:`~acp_mux.core.run.waiting_prompts.WaitingPrompts`), for tests that feed it lines without a process:
    the first prompt and any sent before the agent takes prompts wait, go out after the line that made it ready
    (their withdrawn turns' events follow that line's), and a cancel before then withdraws them. Everything else
    is the adapter's own (attributes pass through)."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self._waiting: dict[int, WaitingPrompts] = {}  # by context: one per run, as the run has it

    def __getattr__(self, name: str) -> Any:
        return getattr(self.adapter, name)

    def waiting(self, ctx: ParseContext) -> WaitingPrompts:
        if id(ctx) not in self._waiting:
            self._waiting[id(ctx)] = WaitingPrompts(self.adapter, ctx)
        return self._waiting[id(ctx)]

    def start(self, options: RunOptions, ctx: ParseContext) -> None:
        self.adapter.start(options, ctx)
        self.waiting(ctx).after_start(options.prompt)

    def parse_line(self, line: str, ctx: ParseContext) -> list[BaseEvent]:
        events = list(self.adapter.parse_line(line, ctx))
        return events + self.waiting(ctx).release().events

    def send_prompt(self, prompt: Prompt, ctx: ParseContext) -> None:
        waiting = self.waiting(ctx)
        waiting.hold(prompt)
        waiting.release()

    def interrupt(self, ctx: ParseContext) -> bool:
        return True if self.waiting(ctx).withdraw() else bool(self.adapter.interrupt(ctx))


def types(events: Iterable[BaseEvent]) -> list[str]:
    return [e.type for e in events]


def brief(events: Iterable[BaseEvent]) -> list[tuple[Any, ...]]:
    """``(type, key fields...)`` per event, for exact-sequence assertions."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        fields = KEY_FIELDS.get(e.type, ())
        out.append((e.type, *(getattr(e, f) for f in fields)))
    return out


def sent(ctx: ParseContext) -> list[dict[str, Any]]:
    """Take and parse every JSON line the adapter queued for the agent's stdin."""
    return [json.loads(chunk) for chunk in ctx.take_outbox()]


def assert_ordering(events: list[BaseEvent]) -> None:
    """The ordering contract every adapter must keep (spec 000 §25), checked on one run's events.

    session_start at most once and before any turn; turns alternate start/end with matching indices; text and
    thinking are bracketed; each tool call goes start → deltas → ready (once) → result|error (once); an approval
    request names an announced tool call; nothing but diagnostics follows a terminal error.
    """
    from acp_mux.core.events.union import is_terminal_event

    sessions = 0
    turn: int | None = None
    text_open = thinking_open = False
    tools: dict[str, str] = {}  # id → "started" | "ready" | "done"
    terminal: str | None = None
    for i, e in enumerate(events):
        where = f"event {i} ({e.type})"
        if terminal is not None:
            assert e.type in ("debug", "log", "session_end"), f"{where} after terminal {terminal}"
        t = e.type
        if t == "session_start":
            sessions += 1
            assert sessions == 1 and turn is None, where
        elif t == "turn_start":
            assert turn is None, f"{where}: turn {turn} still open"
            turn = e.turn_index  # type: ignore[attr-defined]
        elif t == "turn_end":
            assert turn == e.turn_index, f"{where}: no matching turn_start"  # type: ignore[attr-defined]
            assert not text_open and not thinking_open, where
            assert all(s == "done" for s in tools.values()), f"{where}: open tools {tools}"
            turn = None
        elif t == "message_start":
            assert turn is not None and not text_open, where
            text_open = True
        elif t == "text_delta":
            assert text_open, where
        elif t == "message_stop":
            assert text_open, where
            text_open = False
        elif t == "thinking_start":
            assert turn is not None and not thinking_open, where
            thinking_open = True
        elif t == "thinking_delta":
            assert thinking_open, where
        elif t == "thinking_stop":
            assert thinking_open, where
            thinking_open = False
        elif t == "tool_call_start":
            tid = e.tool_call_id  # type: ignore[attr-defined]
            assert turn is not None and tid not in tools, where
            tools[tid] = "started"
        elif t == "tool_input_delta":
            assert tools.get(e.tool_call_id) == "started", where  # type: ignore[attr-defined]
        elif t == "tool_call_ready":
            tid = e.tool_call_id  # type: ignore[attr-defined]
            assert tools.get(tid) == "started", where
            tools[tid] = "ready"
        elif t in ("tool_result", "tool_error"):
            tid = e.tool_call_id  # type: ignore[attr-defined]
            assert tools.get(tid) == "ready", where
            tools[tid] = "done"
        elif t == "approval_request":
            tid = e.tool_call_id  # type: ignore[attr-defined]
            assert tid is None or tid in tools, f"{where}: approval for unannounced tool {tid}"
        if is_terminal_event(e) and t != "interrupted":  # as the runtime: a persistent agent goes on after a cancel
            terminal = t


class AcpWire:
    """An ACP-family adapter fed as the run feeds it, without a process: what it sent the agent (parsed), the
    events it made, and the agent's side of the handshake (:meth:`open_session`) written by the test."""

    def __init__(self, adapter: Any, ctx: ParseContext) -> None:
        self.adapter, self.ctx = adapter, ctx
        self.sent: list[dict[str, Any]] = []
        self.events: list[Any] = []

    def open_session(self) -> None:
        """The agent answers ``initialize`` and ``session/new`` (its session is ``S``)."""
        self.flush()
        self.answer("initialize", {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}})
        self.answer("session/new", {"sessionId": "S"})

    def flush(self) -> None:
        self.sent += [json.loads(chunk) for chunk in self.ctx.take_outbox()]

    def feed(self, message: dict[str, Any]) -> None:
        self.events += list(self.adapter.parse_line(json.dumps({"jsonrpc": "2.0", **message}), self.ctx))
        self.flush()

    def request(self, method: str) -> dict[str, Any] | None:
        return next((m for m in self.sent if m.get("method") == method and "id" in m), None)

    def answer(self, method: str, result: dict[str, Any]) -> None:
        request = self.request(method)
        assert request is not None, (method, self.sent)
        self.feed({"id": request["id"], "result": result})
