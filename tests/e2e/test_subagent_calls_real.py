"""A subagent's write and its permission question name the real call, on the real pinned CLIs (claude 2.1.332,
codex 0.169.0) through acp-mux and the SDK client.

The scripted model makes the parent start a subagent (claude's Agent tool, codex's ``collaboration.spawn_agent``)
whose first step writes ``made.txt`` (claude's Write, codex's apply_patch). For an editor that declared
``subagents`` the question comes in the subagent's child session, about the write: its kind, title, path and diff;
the write is a tool call of that child session. For any other editor both are in the parent session, the write
nested under the call that started the subagent. Each is run with the ids the real model APIs give (unique) and
with the subagent's write given its starting call's id (``repeated``: a model endpoint that numbers calls per
conversation; before the fix the question was asked about the Agent/spawn call, in the parent session, and the
write was never shown).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_mux.translation.child_sessions import child_session_id
from acp_mux.translation.updates import PARENT_META
from tests.e2e import subagent_wire as sw
from tests.e2e.harness import RealAgent, require_cli

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

WRITTEN = "made by the subagent\n"
MULTI_AGENT = ("--", "-c", "features.multi_agent_v2=true")
CLAUDE_WRITE = {"name": "Write", "input": {"file_path": "{cwd}/made.txt", "content": WRITTEN}}
CODEX_PATCH = {"name": "apply_patch", "custom": True, "input": "*** Begin Patch\n*** Add File: made.txt\n+made by the subagent\n*** End Patch\n"}  # fmt: skip
# per agent: its scenario, the subagent's write, the title of the call that starts the subagent, and the id the
# "repeated" runs give both that call and the write
AGENTS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "claude": ("claude_subagent", CLAUDE_WRITE, "Inspect notes", "toolu_fake_0_1"),
    "codex": ("codex_subagent", CODEX_PATCH, "Subagent inspect", "call_same"),
}


@pytest.fixture(params=["claude", "codex"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    name = request.param
    real = RealAgent(name, require_cli(name), tmp_path, extra_args=MULTI_AGENT if name == "codex" else ())
    (real.cwd / "notes.txt").write_text("hello\n")
    yield real
    real.close()


def serve_write(agent: RealAgent, repeated: bool) -> str:
    """Serve the agent's subagent scenario with the subagent writing made.txt first; returns the starting call's
    title."""
    scenario, write, title, same = AGENTS[agent.name]
    script = sw.scenario(scenario)
    block = {"tool_use": dict(write)}
    if repeated:
        block["tool_use"]["id"] = same
        if agent.name == "codex":  # claude's scripted Agent call has that id already
            script["steps"][0]["blocks"][1]["tool_use"]["id"] = same
    script["scripts"][sw.MARKER]["steps"][0]["blocks"][1] = block
    sw.serve(agent, script)
    return title


def the_write(updates: list[dict[str, Any]]) -> dict[str, Any]:
    (call,) = [u for u in updates if u["sessionUpdate"] == "tool_call" and u["kind"] == "edit"]
    return call


def assert_asked_about_the_write(agent: RealAgent, client: sw.SessionRecordingClient, write: dict[str, Any], starter: str) -> None:  # fmt: skip
    """One question, about the write: its id, kind, the file and the diff, linked to the call that started it."""
    path = str(agent.cwd / "made.txt")
    assert len(client.permissions) == 1, agent.log()[-3000:]
    asked = client.permissions[0][0].model_dump(by_alias=True, exclude_none=True)
    assert asked["toolCallId"] == write["toolCallId"] != starter
    assert asked["kind"] == "edit" and "made.txt" in asked["title"]
    assert asked["locations"] == [{"path": path}]
    assert asked["content"] == [{"type": "diff", "path": path, "newText": WRITTEN}]  # (None oldText left out)
    assert asked["_meta"][PARENT_META] == {"tool_call_id": starter}
    assert asked["rawInput"] == write["rawInput"]  # what runs
    assert (agent.cwd / "made.txt").read_text() == WRITTEN  # allowed, and written


async def write_turn(
    agent: RealAgent, repeated: bool, children: bool
) -> tuple[Any, str, sw.SessionRecordingClient, str]:
    """One turn in which the subagent writes made.txt (the person allows it): the wire, the session, the client
    (its questions) and the id of the call that started the subagent."""
    title = serve_write(agent, repeated)
    client = sw.SessionRecordingClient()
    wire, sid, _ = await sw.one_turn(agent, "Make a file with a subagent.", children=children, client=client)
    return wire, sid, client, sw.call_titled(wire.updates(sid), title)


@pytest.mark.parametrize("repeated", [False, True], ids=["unique", "repeated"])
async def test_with_the_capability_the_write_and_its_question_are_in_the_child_session(
    agent: RealAgent, repeated: bool
) -> None:
    wire, sid, client, starter = await write_turn(agent, repeated, children=True)
    child = child_session_id(sid, starter)
    write = the_write(wire.updates(child))  # the write is a call of the child session
    assert write["_meta"][PARENT_META] == {"tool_call_id": starter}
    assert write["toolCallId"] not in {u.get("toolCallId") for u in wire.updates(sid)}
    assert client.asked_in == [child]
    assert_asked_about_the_write(agent, client, write, starter)
    assert sw.last_status(wire.updates(child), write["toolCallId"]) == "completed"
    assert sw.last_status(wire.updates(sid), starter) == "completed"


@pytest.mark.parametrize("repeated", [False, True], ids=["unique", "repeated"])
async def test_without_the_capability_the_write_is_nested_and_asked_about_in_the_parent(
    agent: RealAgent, repeated: bool
) -> None:
    wire, sid, client, starter = await write_turn(agent, repeated, children=False)
    updates = wire.updates(sid)
    write = the_write(updates)
    assert write["_meta"][PARENT_META] == {"tool_call_id": starter}
    assert {m["sessionId"] for m in wire.messages} == {sid} and client.asked_in == [sid]
    assert_asked_about_the_write(agent, client, write, starter)
    assert sw.last_status(updates, write["toolCallId"]) == "completed"
    assert sw.last_status(updates, starter) == "completed"


OTHER = "[[subagent:other]]"


def two_writers() -> dict[str, Any]:
    """claude's parent starts two subagents in one message; each writes its own file first, and both writes carry
    the id of the parent's first Agent call (``toolu_fake_0_1``)."""
    script = sw.scenario("claude_subagent")
    second = copy.deepcopy(script["steps"][0]["blocks"][1])
    second["tool_use"]["input"].update(description="Other notes", prompt=f"{OTHER} Write other.txt.")
    script["steps"][0]["blocks"].append(second)
    first_sub = script["scripts"][sw.MARKER]
    other_sub = copy.deepcopy(first_sub)
    for sub, name in ((first_sub, "made.txt"), (other_sub, "other.txt")):
        write = {"name": "Write", "id": "toolu_fake_0_1", "input": {"file_path": "{cwd}/" + name, "content": WRITTEN}}
        sub["steps"][0]["blocks"][1] = {"tool_use": write}
    script["scripts"][OTHER] = other_sub
    return script


async def test_two_claude_subagents_at_once_each_asks_about_its_own_write_in_its_own_child(tmp_path: Path) -> None:
    agent = RealAgent("claude", require_cli("claude"), tmp_path)
    try:
        sw.serve(agent, two_writers())
        client = sw.SessionRecordingClient()
        wire, sid, _ = await sw.one_turn(agent, "Two subagents.", children=True, client=client)
    finally:
        agent.close()
    parent = wire.updates(sid)
    for title, name in (("Inspect notes", "made.txt"), ("Other notes", "other.txt")):
        starter = sw.call_titled(parent, title)
        child = child_session_id(sid, starter)
        write = the_write(wire.updates(child))
        assert write["title"] == f"Write {name}" and write["_meta"][PARENT_META] == {"tool_call_id": starter}
        (i,) = [i for i, (c, _) in enumerate(client.permissions) if c.tool_call_id == write["toolCallId"]]
        asked = client.permissions[i][0]
        assert client.asked_in[i] == child  # its question, in its own child session
        assert asked.locations is not None and [loc.path for loc in asked.locations] == [str(agent.cwd / name)]
        assert sw.last_status(wire.updates(child), write["toolCallId"]) == "completed"
        assert (agent.cwd / name).read_text() == WRITTEN
    assert len(client.permissions) == 2 and len({c.tool_call_id for c, _ in client.permissions}) == 2
