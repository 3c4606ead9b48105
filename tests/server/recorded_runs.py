"""Recorded CLI transcripts played into the real bridge (AcpServer + LiveSession) without a process.

``events_of(cli, name)`` turns a fixture of ``tests/fixtures/<cli>/`` into the events the adapter makes of it (the
same way the adapter tests drive it). :class:`ScriptedRun` stands in for ``RunHandle``: it plays one run's events
to the session (dispatching ``on`` handlers, ``"*"`` included, as the runtime does) and, like the runtime, emits
``approval_granted``/``approval_denied`` when the session answers a question. :class:`Editor` is the client side:
it records every ``session/update``, answers permission requests, and can send ``session/cancel``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path
from typing import Any, Callable

from acp_mux.core.events import union as ev
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.interaction import Approve, Questions, approval_question
from acp_mux.core.run.prompt import Prompt
from acp_mux.server.sessions.bridge import AcpServer
from acp_mux.server.sessions.live_session import BridgeConfig
from acp_mux.server.records.store import SessionStore
from tests.adapters.helpers import FIXTURES, capture_lines, feed, make_ctx

CWD = "/work/project"  # the recordings' cwd (it need not exist: diffs read as new files, live and replayed)
PROMPTS = {
    "first": "Create notes.txt containing alpha and beta, then change beta to gamma.",
    "resume": "Is anything left to do?",
    "text": "Write two hundred numbered lines.",
}


def manifest(cli: str) -> dict[str, Any]:
    return json.loads((FIXTURES / cli / "manifest.json").read_text())["fixtures"]


def fixture_names(cli: str) -> list[str]:
    return sorted(name.removesuffix(".jsonl") for name in manifest(cli))


def runs_of(cli: str, name: str) -> list[tuple[str, list[ev.BaseEvent]]]:
    """(prompt, events) per recorded process of a fixture (two for ``resume``: the first session, then resumed)."""
    info = manifest(cli)[f"{name}.jsonl"]
    out = []
    native: str | None = None
    for number, run in enumerate(info["runs"]):
        prompt = info["prompt"] if number == 0 else PROMPTS["resume"]
        events = _claude_events(run, prompt, native) if cli == "claude" else _codex_events(run)
        native = next((e.session_id for e in events if e.type == "session_start"), native)  # type: ignore[attr-defined]
        out.append((prompt, events))
    return out


def _claude_events(run: dict[str, Any], prompt: str, resume: str | None) -> list[ev.BaseEvent]:
    from acp_mux.adapters.stream_agents.claude import ClaudeAdapter

    adapter, ctx = ClaudeAdapter(), make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, prompt=Prompt.of_text(prompt), session_id=resume), ctx)
    ctx.take_outbox()
    return feed(adapter, capture_lines(FIXTURES / "claude" / run["file"]), ctx, exit_code=run["exit_code"])


def _codex_events(run: dict[str, Any]) -> list[ev.BaseEvent]:
    from tests.adapters.test_codex import replay_fresh

    name = run["file"].removesuffix(".jsonl")
    events, _, _ = replay_fresh(name, interrupt_at="item/agentMessage/delta" if name == "cancel" else None)
    return events


class ScriptedRun:
    """A ``RunHandle`` stand-in playing a recorded run (one process: unusable once played)."""

    ids = itertools.count()

    def __init__(self, events: list[ev.BaseEvent], options: RunOptions) -> None:
        self.run_id = f"run-{next(self.ids):04d}"
        self.options = options
        self.interaction = self
        self._script = events
        self._handlers: dict[str, list[Callable[[Any], None]]] = {}
        self._answers: dict[str, asyncio.Future[Any]] = {}
        self._questions = Questions(self.run_id)
        self._go = asyncio.Event()
        self._played = False
        self._clock = 1_800_000_000_000
        if options.prompt is not None:
            self._go.set()

    # what LiveSession uses of a RunHandle
    def on(self, event_type: str, handler: Callable[[Any], None]) -> "ScriptedRun":
        self._handlers.setdefault(event_type, []).append(handler)
        return self

    @property
    def usable(self) -> bool:
        return not self._played

    done = property(lambda self: self._played)

    def events(self, *, from_start: bool = True, lossless: bool = False) -> Any:
        return self._play()

    async def continue_(self, prompt: Any) -> None:
        self._go.set()

    def get(self, interaction_id: str) -> Any:
        """The open question (the run's one record of it), as ``RunHandle.interaction.get``."""
        return self._questions.get(interaction_id)

    @property
    def pending(self) -> list[Any]:
        return list(self._questions)

    async def respond(self, interaction_id: str, response: Any) -> None:
        self._questions.take(interaction_id)
        future = self._answers.setdefault(interaction_id, asyncio.get_running_loop().create_future())
        if not future.done():
            future.set_result(response)

    async def interrupt(self) -> None:
        pass

    async def abort(self, grace_s: float | None = None) -> None:
        self._played = True

    async def close(self, grace_s: float = 2.0) -> None:
        self._played = True

    async def set_mode(self, mode: str) -> bool:
        return True

    def _emit(self, event: ev.BaseEvent) -> ev.BaseEvent:
        event.run_id, event.agent = self.run_id, self.options.agent
        self._clock += 7
        event.timestamp = self._clock
        if isinstance(event, ev.ApprovalRequestEvent):
            self._questions.open(approval_question(event, self.run_id))
        for handler in self._handlers.get(event.type, []) + self._handlers.get("*", []):
            handler(event)
        return event

    async def _play(self) -> Any:
        await self._go.wait()
        try:
            for event in self._script:
                yield self._emit(event)
                await asyncio.sleep(0)  # let the editor's side (a cancel) interleave, as a real run does
                if event.type == "approval_request":
                    iid = event.interaction_id  # type: ignore[attr-defined]
                    future = self._answers.setdefault(iid, asyncio.get_running_loop().create_future())
                    answer = await future
                    settled = (
                        ev.ApprovalGrantedEvent(interaction_id=iid)
                        if isinstance(answer, Approve)
                        else ev.ApprovalDeniedEvent(interaction_id=iid, reason=answer.reason)
                    )
                    yield self._emit(settled)
        finally:
            self._played = True  # one recorded process: the next prompt starts the next one


class Editor:
    """The client side of the bridge: records updates, answers permissions, cancels on request."""

    def __init__(self, *, allow: bool = True, cancel_on_text: bool = False) -> None:
        self.updates: list[dict[str, Any]] = []
        self.allow = allow
        self.cancel_on_text = cancel_on_text
        self.server: AcpServer | None = None
        self.session_id: str | None = None
        self._cancelled = False
        self._tasks: set[asyncio.Future[Any]] = set()  # held: the loop keeps only weak references to tasks

    def method(self, name: str, handler: Any) -> None:
        pass

    notification = on_cancel_request = method  # what the bridge registers on its connection: nothing to serve here

    def notify(self, method: str, params: dict[str, Any]) -> None:
        if method != "session/update":
            return
        update = params["update"]
        self.updates.append(update)
        if self.cancel_on_text and not self._cancelled and update.get("sessionUpdate") == "agent_message_chunk":
            self._cancelled = True
            task = asyncio.ensure_future(self.server.call("session/cancel", {"sessionId": self.session_id}))  # type: ignore[union-attr]
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        assert method == "session/request_permission", method
        return {"outcome": {"outcome": "selected", "optionId": "allow_once" if self.allow else "reject_once"}}

    async def writable(self) -> None:
        return None


def server_for(cli: str, state: Path, editor: Editor) -> AcpServer:
    from acp_mux.adapters.base import get_adapter

    server = AcpServer(editor, get_adapter(cli), BridgeConfig(agent=cli, binary=sys.executable), SessionStore(state))  # type: ignore[arg-type]
    editor.server = server
    return server


async def play(cli: str, name: str, state: Path, monkeypatch: Any) -> tuple[str, list[list[dict[str, Any]]], list[Any]]:
    """A new session, then each recorded run as one prompt. Returns the session id, the updates the editor saw
    during each prompt, and each prompt's result (or the RpcError it raised)."""
    import acp_mux.core.run.handle as run_module
    from acp_mux.server.wire.rpc import RpcError

    _recorded_cwd_is_fine(monkeypatch)
    runs = runs_of(cli, name)
    scripts = iter(events for _, events in runs)
    monkeypatch.setattr(run_module, "start_run", lambda adapter, options: ScriptedRun(next(scripts, []), options))
    editor = Editor(allow=not name.endswith("deny"), cancel_on_text=name == "cancel")
    server = server_for(cli, state, editor)
    await server.call("initialize", {"protocolVersion": 1})
    answer = await server.call("session/new", {"cwd": CWD, "mcpServers": []})
    session_id = answer.result["sessionId"]
    editor.session_id = session_id
    await answer.then()
    editor.updates.clear()  # what new_session announced is the session's state, not the conversation
    results: list[Any] = []
    turns: list[list[dict[str, Any]]] = []
    for prompt, _ in runs:
        editor.updates = []
        turns.append(editor.updates)
        try:
            results.append(
                await server.call(
                    "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]}
                )
            )
        except RpcError as exc:
            results.append(exc)
    await server.shutdown()
    return session_id, turns, results


async def load(cli: str, state: Path, session_id: str, monkeypatch: Any) -> list[dict[str, Any]]:
    """A fresh bridge on the same store loads the session: the updates it replays before answering."""
    _recorded_cwd_is_fine(monkeypatch)
    editor = Editor()
    server = server_for(cli, state, editor)
    await server.call("initialize", {"protocolVersion": 1})
    await server.call("session/load", {"sessionId": session_id, "cwd": CWD, "mcpServers": []})
    return editor.updates


def _recorded_cwd_is_fine(monkeypatch: Any) -> None:
    """The recordings ran in /work/project, which need not exist here; the bridge checks cwds exist."""
    import acp_mux.server.sessions.bridge as bridge_module

    monkeypatch.setattr(bridge_module, "_require_cwd", lambda cwd: cwd)
