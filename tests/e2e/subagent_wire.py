"""What the claude and codex real-CLI subagent tests share: the raw wire, the start, the scenario and the checks.

Both agents' subagents come out as the same ACP shapes (nested under their call, or a child session announced by
``subagent_update``), so one piece reads and checks them; each test file keeps only its agent's data (scenario,
call title, words) and the assertions that differ. The SDK does not model ``subagent_update`` (ACP v1.21 has none),
so the raw messages are read with the SDK connection's own stream observer, and the capability is sent in a raw
``initialize`` through the same connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import acp

from acp_mux.translation.child_sessions import child_session_id
from tests.e2e.harness import SCENARIOS, RealAgent
from tests.fakes.model_server import ModelServer
from tests.server.client import RecordingClient

MARKER = "[[subagent:inspect]]"
TURN_S = 90


class Wire:
    """Every raw message the bridge sent the client (the SDK drops what its schema does not know)."""

    def __init__(self, conn: Any) -> None:
        self.messages: list[dict[str, Any]] = []
        conn._conn.add_observer(self._seen)

    def _seen(self, event: Any) -> None:
        if event.direction.value == "incoming" and event.message.get("method") == "session/update":
            self.messages.append(event.message["params"])

    def updates(self, session_id: str) -> list[dict[str, Any]]:
        return [m["update"] for m in self.messages if m["sessionId"] == session_id]

    async def until(self, predicate: Any, timeout: float = 30) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not any(predicate(m) for m in self.messages):
            assert asyncio.get_running_loop().time() < deadline, "the update never came"
            await asyncio.sleep(0.05)


class SessionRecordingClient(RecordingClient):
    """Also notes which session each permission question came in."""

    asked_in: list[str]

    def __init__(self) -> None:
        super().__init__()
        self.asked_in = []

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        self.asked_in.append(session_id)
        return await super().request_permission(options, session_id, tool_call, **kwargs)


def scenario(name: str) -> dict[str, Any]:
    """A subagent scenario's script, to change before serving it."""
    loaded: dict[str, Any] = json.loads((SCENARIOS / f"{name}.json").read_text())
    return loaded


def serve(agent: RealAgent, script: dict[str, Any], *, stall_subagent: bool = False) -> ModelServer:
    """Serve ``script``; ``stall_subagent``: the subagent's first model request never answers (up to 60 s)."""
    if stall_subagent:
        script["scripts"][MARKER]["steps"][0] = {"error": "stall"}
    agent.server = ModelServer(script, variables={"cwd": str(agent.cwd)}, delta_delay=0, stall_max=60)
    return agent.server.start()


def text_of(updates: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk")


def call_titled(updates: list[dict[str, Any]], title: str) -> str:
    """The id of the call that started the subagent (claude's Agent call, codex's spawn_agent)."""
    return next(u["toolCallId"] for u in updates if u.get("title") == title)


def last_status(updates: list[dict[str, Any]], call_id: str) -> str:
    return [u["status"] for u in updates if u.get("toolCallId") == call_id and u.get("status")][-1]


def steps(srv: ModelServer) -> list[str | None]:
    """Which script each model turn request was answered from (None: the parent's own)."""
    return [r["script"] for r in srv.requests if r["kind"] == "step"]


async def start(agent: RealAgent, conn: Any, children: bool) -> tuple[Wire, str]:
    """Initialize (with the ``subagents`` capability when ``children``) and open a session, the wire recorded."""
    wire = Wire(conn)
    if children:  # the SDK's ClientCapabilities has no `subagents`: the same request, raw, with it
        params = {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}}
        await conn._conn.send_request("initialize", params)
    else:
        await conn.initialize(protocol_version=1)
    new = await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])
    return wire, new.session_id


async def turn_in_stalled_subagent(conn: Any, srv: ModelServer, sid: str) -> asyncio.Future[Any]:
    """Start a turn and return it once the subagent's (stalled) model request is under way."""
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("Use a subagent.")]))
    assert await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["events"] > 0, 60)
    return turn


async def announced_child(wire: Wire) -> str:
    """The child session the first ``subagent_update`` names, once it came."""
    await wire.until(lambda m: m["update"]["sessionUpdate"] == "subagent_update")
    return next(m["update"]["sessionId"] for m in wire.messages if m["update"]["sessionUpdate"] == "subagent_update")


async def assert_subagent_dropped(srv: ModelServer) -> None:
    """The subagent's stalled model request was dropped by the CLI: the subagent stopped."""
    sub = await asyncio.to_thread(srv.wait_for, lambda r: r["script"] == MARKER and r["outcome"] is not None, 10)
    assert sub is not None and sub["outcome"] == "disconnected"


def assert_nested(wire: Wire, sid: str, call: str, sub_texts: tuple[str, ...]) -> None:
    """Without the capability: one session, no announcement, and the subagent's words inside its call."""
    updates = wire.updates(sid)
    assert {m["sessionId"] for m in wire.messages} == {sid}
    call_text = [c["content"]["text"] for u in updates if u.get("toolCallId") == call for c in u.get("content") or []]
    assert all(any(t in text for text in call_text) for t in sub_texts)  # the subagent's words, in its call
    assert not any(u["sessionUpdate"] == "subagent_update" for u in updates)


async def one_turn(
    agent: RealAgent, words: str, *, children: bool, client: RecordingClient | None = None, replay: bool = False
) -> tuple[Wire, str, list[dict[str, Any]]]:
    """A session (with the ``subagents`` capability when ``children``) and one whole prompt turn, which must end
    ``end_turn``; with ``replay`` then ``session/load`` of it. Returns the wire (the live messages only), the
    session and the messages the load replayed."""
    async with agent.bridge(client or RecordingClient()) as (conn, _):
        wire, sid = await start(agent, conn, children)
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(words)]), TURN_S)
        live = list(wire.messages)
        if replay:
            await conn.load_session(cwd=str(agent.cwd), session_id=sid, mcp_servers=[])  # replayed from the event log
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    replayed = wire.messages[len(live) :]
    wire.messages = live
    return wire, sid, replayed


def assert_child_session(wire: Wire, replayed: list[dict[str, Any]], sid: str, call: str, title: str) -> str:
    """With the capability: the subagent is a child session, announced before anything it is sent, replayed the
    same way by ``session/load``; returns the child's id."""
    child = child_session_id(sid, call)

    def tree(messages: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
        """The subagent's part: its announcements and states, and everything its child session was sent."""
        return [
            (m["sessionId"], m["update"]["sessionUpdate"], m["update"].get("state") or m["update"].get("content"))
            for m in messages
            if m["sessionId"] == child or m["update"]["sessionUpdate"] == "subagent_update"
        ]

    assert tree(replayed) == tree(wire.messages) and len(tree(wire.messages)) >= 6  # session/load nests it the same
    assert {m["sessionId"] for m in wire.messages} == {sid, child}
    announced = [u for u in wire.updates(sid) if u["sessionUpdate"] == "subagent_update"]
    assert announced[0]["sessionId"] == child and announced[0]["title"] == title
    assert announced[0]["capabilities"] == {"cancel": True}
    assert announced[0]["state"] == {"state": "running"} and announced[-1]["state"] == {"state": "idle"}
    first_child = next(i for i, m in enumerate(wire.messages) if m["sessionId"] == child)
    first_announce = next(i for i, m in enumerate(wire.messages) if m["update"]["sessionUpdate"] == "subagent_update")
    assert first_announce < first_child
    return child


def child_calls(wire: Wire, sid: str, child: str, sub_texts: tuple[str, ...]) -> list[dict[str, Any]]:
    """The child session's own words are the subagent's, never the parent's; returns the child's tool calls."""
    assert text_of(wire.updates(child)) == "".join(sub_texts)
    assert not any(t in text_of(wire.updates(sid)) for t in sub_texts)
    return [u for u in wire.updates(child) if u["sessionUpdate"] == "tool_call"]


async def parent_cancelled_mid_subagent(agent: RealAgent, conn: Any, srv: ModelServer) -> tuple[Wire, str]:
    """A turn whose subagent (a child session) is under way, cancelled in the parent: the turn answers
    ``cancelled``, the subagent's own model request is dropped, and the child is announced idle."""
    wire, sid = await start(agent, conn, children=True)
    turn = await turn_in_stalled_subagent(conn, srv, sid)
    await announced_child(wire)
    await conn.cancel(session_id=sid)
    result = await asyncio.wait_for(turn, 15)
    assert result.stop_reason == "cancelled", agent.log()[-3000:]
    await assert_subagent_dropped(srv)  # the subagent's own turn was interrupted too
    await wire.until(lambda m: m["update"].get("state") == {"state": "idle"}, 10)
    return wire, sid


async def child_cancelled_mid_subagent(
    agent: RealAgent, conn: Any, srv: ModelServer, title: str, within: float
) -> tuple[list[dict[str, Any]], str]:
    """A turn whose subagent is under way, cancelled in its child session only: the parent's turn carries on to
    ``end_turn`` within ``within`` seconds (well before the stalled request would give up, 60 s), the subagent's
    model request is dropped, and the child cancelled is the one of the call titled ``title``; returns the parent
    session's updates and that call's id."""
    wire, sid = await start(agent, conn, children=True)
    turn = await turn_in_stalled_subagent(conn, srv, sid)
    child = await announced_child(wire)
    await conn.cancel(session_id=child)
    result = await asyncio.wait_for(turn, within)
    assert result.stop_reason == "end_turn", agent.log()[-3000:]
    await assert_subagent_dropped(srv)  # the subagent's request was dropped: it stopped
    parent = wire.updates(sid)
    call = call_titled(parent, title)
    assert child == child_session_id(sid, call)
    assert any(u.get("state") == {"state": "idle"} for u in parent)
    return parent, call
