"""The conformance probe: every stable ACP v1 method and capability, asked of one agent through acp-mux.

One bridge process per agent, the SDK client on the editor side, the agent's real CLI (cursor: the replay fake) on
the other, and the scripted model server behind it. Each method is asked the way an editor asks it and its *effect*
is checked, not just its answer: a listed session is the one created, a deleted one is gone from the list, a load
replays the conversation, a cancel ends the turn ``cancelled``. The outcome per method is one of

* ``served``  — answered, and the effect checked;
* ``refused`` — a JSON-RPC error the person can read (its message is kept);
* ``n/a``     — nothing to ask (e.g. an agent with no modes has no mode to switch to).

Whether a served method is the agent's own feature or acp-mux's is a property of the method (``EMULATED``): acp-mux
lists, closes and deletes sessions from its own store for every agent, and keeps their history; everything else is
carried to the agent. The table in the README is rendered from the recorded outcomes (tools/conformance_table.py).
Methods the SDK client (ACP v1.19) has no typed call for are sent through the same SDK connection as raw requests.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.exceptions import RequestError

from tests.server.client import RecordingClient

STORY = "Tell me a long story."  # every scenario streams "Line 001" .. "Line 200" for it (slow when delayed)
HELLO = "Remember the word pelican."
TURN = 240.0  # openclaw's first turn starts its private gateway: minutes on a loaded two-core machine
CANCELLED = -32800  # the schema's RequestCancelled error code

# The stable v1 methods an editor can ask an agent (schema meta.json agentMethods + protocolMethods), in table order.
METHODS: tuple[str, ...] = (
    "initialize",
    "authenticate",
    "logout",
    "session/new",
    "session/load",
    "session/resume",
    "session/close",
    "session/list",
    "session/delete",
    "session/set_mode",
    "session/set_config_option",
    "session/prompt",
    "session/cancel",
    "$/cancel_request",
    "additionalDirectories",
)
# Served by acp-mux itself, from its own session store, for every agent.
EMULATED = frozenset({"session/list", "session/close", "session/delete"})
# Capabilities read from the initialize answer: (label, path in agentCapabilities).
CAPABILITIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("loadSession", ("loadSession",)),
    ("prompt: image", ("promptCapabilities", "image")),
    ("prompt: audio", ("promptCapabilities", "audio")),
    ("prompt: embeddedContext", ("promptCapabilities", "embeddedContext")),
    ("mcp: http", ("mcpCapabilities", "http")),
    ("mcp: sse", ("mcpCapabilities", "sse")),
    ("session: list", ("sessionCapabilities", "list")),
    ("session: delete", ("sessionCapabilities", "delete")),
    ("session: resume", ("sessionCapabilities", "resume")),
    ("session: close", ("sessionCapabilities", "close")),
    ("session: additionalDirectories", ("sessionCapabilities", "additionalDirectories")),
    ("auth: logout", ("auth", "logout")),
)
# A method is advertised by this capability (the check: advertised ⇒ served).
ADVERTISED_BY: dict[str, str] = {
    "session/load": "loadSession",
    "session/list": "session: list",
    "session/delete": "session: delete",
    "session/resume": "session: resume",
    "session/close": "session: close",
    "additionalDirectories": "session: additionalDirectories",
    "logout": "auth: logout",
}


@dataclass
class Outcome:
    result: str  # served | refused | n/a
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"result": self.result, "detail": self.detail}


@dataclass
class Probe:
    """What one agent did with each method and which capabilities it advertised."""

    agent: str
    methods: dict[str, Outcome] = field(default_factory=dict)
    capabilities: dict[str, bool] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "methods": {m: self.methods[m].to_json() for m in METHODS if m in self.methods},
            "capabilities": dict(self.capabilities),
        }


def advertised(caps: dict[str, Any], path: tuple[str, ...]) -> bool:
    """A capability is on when its value is ``true`` or an object (``{}`` means supported), per the schema."""
    value: Any = caps
    for key in path:
        if not isinstance(value, dict):
            return False
        value = value.get(key)
    return value is True or isinstance(value, dict)


async def asked(call: Callable[[], Awaitable[Any]]) -> tuple[Any, Outcome | None]:
    """Run one request: its result, or the refusal (a JSON-RPC error answer) as an outcome."""
    try:
        return await asyncio.wait_for(call(), TURN), None
    except RequestError as error:
        return None, Outcome("refused", f"{error.code}: {error}"[:160])


async def streamed(client: RecordingClient, since: int, text: str, turn: asyncio.Future[Any]) -> None:
    """Wait until the turn started at update ``since`` has streamed ``text`` (it must not end first)."""
    deadline = time.monotonic() + TURN
    while text not in "".join(
        u.content.text for u in client.updates[since:] if u.session_update == "agent_message_chunk"
    ):
        assert time.monotonic() < deadline and not turn.done(), f"no {text!r} before the turn ended"
        await asyncio.sleep(0.02)


async def run_probe(
    agent: str, conn: Any, client: RecordingClient, cwd: Path, extra_dir: Path, slow: Callable[[bool], None]
) -> Probe:
    """Every method in ``METHODS``, in an order where each one has what it needs (a session, a history).

    ``slow(True)`` makes the model stream slowly (for the two cancels), ``slow(False)`` fast again.
    """
    probe = Probe(agent)
    rpc = conn._conn  # the SDK client's own JSON-RPC connection: for methods its v1.19 API has no call for
    record = probe.methods.__setitem__

    init = await rpc.send_request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    caps = init.get("agentCapabilities") or {}
    probe.capabilities = {label: advertised(caps, path) for label, path in CAPABILITIES}
    record("initialize", Outcome("served", f"protocolVersion {init.get('protocolVersion')}"))

    methods = [m.get("id") for m in init.get("authMethods") or [] if isinstance(m, dict)]
    if methods:
        _, refused = await asked(lambda: conn.authenticate(method_id=methods[0]))
        record("authenticate", refused or Outcome("served", f"{len(methods)} method(s); sign-in runs in a terminal"))
    else:
        record("authenticate", Outcome("n/a", "no sign-in method (the agent needs none here)"))

    new, refused = await asked(lambda: conn.new_session(cwd=str(cwd), mcp_servers=[]))
    assert refused is None, refused
    sid = new.session_id
    record("session/new", Outcome("served"))

    result, refused = await asked(lambda: conn.prompt(session_id=sid, prompt=[acp.text_block(HELLO)]))
    assert refused is None and result.stop_reason == "end_turn", (refused, result)
    record("session/prompt", Outcome("served", "end_turn"))

    record("session/set_mode", await set_mode(conn, client, sid, new))
    record("session/set_config_option", await set_config_option(conn, client, sid, new))

    slow(True)
    before = len(client.updates)
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(STORY)]))
    await streamed(client, before, "Line 003", turn)
    await conn.cancel(session_id=sid)
    stop = (await asyncio.wait_for(turn, 10)).stop_reason
    record("session/cancel", Outcome("served" if stop == "cancelled" else "refused", f"stop reason {stop}"))

    before = len(client.updates)
    request_id = rpc._next_request_id  # the id the SDK gives the prompt it sends next
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block(STORY)]))
    await streamed(client, before, "Line 003", turn)
    await rpc.send_notification("$/cancel_request", {"requestId": request_id})
    try:
        answer = (await asyncio.wait_for(turn, 10)).stop_reason
        how = Outcome("served" if answer == "cancelled" else "refused", f"stop reason {answer}")
    except RequestError as error:
        how = Outcome("served" if error.code == CANCELLED else "refused", f"error {error.code}")
    except TimeoutError:
        how = Outcome("refused", "ignored: the turn went on")
        await conn.cancel(session_id=sid)
    record("$/cancel_request", how)
    slow(False)

    listed, refused = await asked(lambda: conn.list_sessions(cwd=str(cwd)))
    ids = [s.session_id for s in listed.sessions] if listed else []
    record("session/list", refused or Outcome("served" if sid in ids else "refused", f"{len(ids)} listed"))

    _, refused = await asked(lambda: conn.close_session(session_id=sid))
    record("session/close", refused or Outcome("served"))

    _, refused = await asked(lambda: conn.resume_session(session_id=sid, cwd=str(cwd), mcp_servers=[]))
    if refused is None:
        again, refused = await asked(lambda: conn.prompt(session_id=sid, prompt=[acp.text_block("Which word?")]))
        refused = refused or (None if again.stop_reason == "end_turn" else Outcome("refused", again.stop_reason))
    record("session/resume", refused or Outcome("served", "a prompt after resume ends end_turn"))

    before = len(client.updates)
    _, refused = await asked(lambda: conn.load_session(session_id=sid, cwd=str(cwd), mcp_servers=[]))
    replayed = "".join(u.content.text for u in client.updates[before:] if u.session_update == "user_message_chunk")
    load = refused or Outcome("served" if HELLO in replayed else "refused", "history replayed")
    record("session/load", load)

    record("additionalDirectories", await additional_directories(rpc, cwd, extra_dir))

    _, refused = await asked(lambda: rpc.send_request("session/delete", {"sessionId": sid}))
    if refused is None:
        listed = await conn.list_sessions(cwd=str(cwd))
        gone = sid not in [s.session_id for s in listed.sessions]
        refused = None if gone else Outcome("refused", "still listed after delete")
    record("session/delete", refused or Outcome("served", "gone from the list"))

    _, refused = await asked(lambda: rpc.send_request("logout", {}))
    record("logout", refused or Outcome("served"))
    return probe


async def set_mode(conn: Any, client: RecordingClient, sid: str, new: Any) -> Outcome:
    """Switch to another offered mode and back (the session keeps asking as it did).

    The modes are those of the session/new answer or, for an agent that reports its own once started, the values of
    its ``mode`` config option (the editor's mode picker shows either)."""
    modes = new.modes
    if modes is not None and len(modes.available_modes) > 1:
        start, ids = modes.current_mode_id, [m.id for m in modes.available_modes]
    else:
        option = next((o for o in latest_options(client, new) if getattr(o, "category", None) == "mode"), None)
        if option is None or len(option.options) < 2:
            return Outcome("n/a", "no second mode offered")
        start, ids = option.current_value, [getattr(v, "value", None) for v in option.options]
    other = next(m for m in ids if m != start)
    _, refused = await asked(lambda: conn.set_session_mode(session_id=sid, mode_id=other))
    if refused:
        return refused
    await conn.set_session_mode(session_id=sid, mode_id=start)
    return Outcome("served", f"{len(ids)} modes")


def latest_options(client: RecordingClient, new: Any) -> list[Any]:
    """The config options the editor was given last: in the session/new answer, or a later config_option_update
    (an ACP agent reports its own once it has started)."""
    latest = new.config_options or []
    for update in client.updates:
        if update.session_update == "config_option_update":
            latest = update.config_options
    return [o.root if hasattr(o, "root") else o for o in latest]


async def set_config_option(conn: Any, client: RecordingClient, sid: str, new: Any) -> Outcome:
    """Set the first select option to the value it has (a real request that changes nothing the test relies on)."""
    options = latest_options(client, new)
    selects = [o for o in options if getattr(o, "type", None) == "select"]
    if not selects:
        return Outcome("n/a", "no config option offered")
    option = selects[0]
    _, refused = await asked(
        lambda: conn.set_config_option(session_id=sid, config_id=option.id, value=option.current_value)
    )
    return refused or Outcome("served", f"{len(options)} option(s)")


async def additional_directories(rpc: Any, cwd: Path, extra_dir: Path) -> Outcome:
    """A new session with one more root: served, or refused with a message naming why."""
    extra_dir.mkdir(parents=True, exist_ok=True)
    params = {"cwd": str(cwd), "mcpServers": [], "additionalDirectories": [str(extra_dir)]}
    _, refused = await asked(lambda: rpc.send_request("session/new", params))
    return refused or Outcome("served")


def write_probe(probe: Probe, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{probe.agent}.json"
    path.write_text(json.dumps(probe.to_json(), indent=2, sort_keys=True) + "\n")
    return path
