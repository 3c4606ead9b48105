"""Issue 39, class 5: rules given in code hold like rules given in the editor.

- A deny rule given in code (``acp_mux.allow(..., deny=...)``, ``acp_mux.ask(..., deny=...)``, ``acp-mux run
  --deny``) beats every allow: the allow rules given with it, and any "always" the callback grants later, however
  wide (before: an "always" for ``git push`` replaced the deny rule of the same scope and covered it from then on).
- ``resume=`` of a session an editor forked (or any editor session, also one where several agents answered) hands
  the agent the same conversation the editor path would: the turns it has not seen, once (before: the fork's
  agent started empty, with nothing of the turns copied into the fork).

Hypothesis generates the commands, the rules and the order of the questions; and the shape of the editor's session
(turns, a switch, the fork's agent), whose handover the editor path itself gives for comparison.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import acp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

import acp_mux
from acp_mux.adapters import registry
from acp_mux.api.approvals import ApprovalRequest, decide
from tests.faults.test_handover_forgery import read_back
from tests.server.client import RecordingClient
from tests.server.switching_agents import install
from tests.server.switching_client import switching_bridge


@pytest.fixture(autouse=True, scope="module")
def scripted_agents() -> Iterator[None]:
    """alpha, beta, gamma: the scripted agents the editor side switches between (they echo their prompt), in the
    agent table for this module's tests only (other modules on the same worker must see the real table)."""
    before = registry.ENTRIES
    install()
    yield
    registry.ENTRIES = before


SUBCOMMANDS = hs.sampled_from(["push", "status", "log"])
ARGUMENTS = hs.lists(hs.sampled_from(["--force", "origin", "main", "-v"]), max_size=2)
COMMANDS = hs.tuples(SUBCOMMANDS, ARGUMENTS).map(lambda c: " ".join(["git", c[0], *c[1]]))


def request(rules: Any, command: str) -> ApprovalRequest:
    tool_input = {"command": command}
    scope = rules.scope("Bash", "execute", tool_input)
    return ApprovalRequest("i", "Bash", "execute", command, tool_input, scope.label(), scope=scope)


def covered_by(deny: list[str], command: str) -> bool:
    """The test's own reading of ``execute:<words>`` (``acp-mux run --help``): ``git push`` also with more
    arguments, a longer command exactly as written."""
    words = command.split()
    return any(words[:2] == rule.split() if len(rule.split()) == 2 else command == rule for rule in deny)


@settings(max_examples=300, deadline=None)
@given(
    deny=hs.lists(COMMANDS, min_size=1, max_size=2),
    allow=hs.lists(COMMANDS, max_size=2),
    asked=hs.lists(COMMANDS, min_size=1, max_size=8),
    callback=hs.booleans(),
)
def test_a_deny_rule_given_in_code_beats_every_allow_and_every_later_always(
    deny: list[str], allow: list[str], asked: list[str], callback: bool
) -> None:
    """Whatever was allowed by rule, and whatever the callback answers "always" (for a command, for all its
    arguments), a command a deny rule names is denied, every time it is asked, in any order."""

    def always_yes(request: ApprovalRequest) -> acp_mux.Approve:
        return acp_mux.Approve(always=True)

    deny_rules = [f"execute:{c}" for c in deny]
    allow_rules = [f"execute:{c}" for c in allow]
    policy = (
        acp_mux.ask(always_yes, allow=allow_rules, deny=deny_rules)
        if callback
        else acp_mux.allow(*allow_rules, deny=deny_rules)
    )
    rules = policy.rules("/tmp")

    async def answers() -> list[bool]:
        out = []
        for command in asked:
            decision = await decide(policy, rules, request(rules, command), None)
            out.append(isinstance(decision.answer, acp_mux.Approve))
        return out

    for command, allowed in zip(asked, asyncio.run(answers())):
        if covered_by(deny, command):
            assert not allowed, (command, deny, allow, asked)


async def test_the_always_of_a_manual_answer_does_not_lift_a_deny_rule_either(tmp_path: Path) -> None:
    """``Run.answer(..., always=True)`` remembers like the callback: never over a deny rule."""
    policy = acp_mux.manual(deny=["execute:git push"])
    rules = policy.rules(str(tmp_path))
    rules.remember(rules.scope("Bash", "execute", {"command": "git push"}), "allow")  # what answer(always) does
    decision = await decide(policy, rules, request(rules, "git push --force"), None)
    assert isinstance(decision.answer, acp_mux.Deny)


# ── resume= hands over what the editor path would ──────────────────────────────────────────────────────────────
async def editor_story(root: Path, before: int, switch: bool, fork_to: str | None) -> tuple[str, str]:
    """An editor's session on alpha: ``before`` turns, optionally a switch to beta and one more turn, then a fork
    (into ``fork_to``, or the same agent) and one turn in the original after it. The fork's id and its agent."""
    client = RecordingClient()
    async with switching_bridge(client, root) as (conn, _, sid):
        for n in range(before):
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block(f"turn {n}")]), 60)
        if switch:
            await conn.set_config_option(config_id="agent", session_id=sid, value="beta")
            await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("beta's turn")]), 60)
        meta = {"acp-mux": {"agent": fork_to}} if fork_to else {}
        fork = await conn.fork_session(session_id=sid, cwd=str(root / "project"), **meta)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("after the fork")]), 60)
    return fork.session_id, fork_to or ("beta" if switch else "alpha")


async def editor_reply(root: Path, session_id: str, text: str) -> str:
    """What the editor path sends the fork's agent for ``text`` (the scripted agents echo their whole prompt)."""
    client = RecordingClient()
    async with switching_bridge(client, root) as (conn, _, _new):
        await conn.load_session(session_id=session_id, cwd=str(root / "project"), mcp_servers=[])
        start = len(client.updates)
        await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[acp.text_block(text)]), 60)
    return "".join(u.content.text for u in client.updates[start:] if u.session_update == "agent_message_chunk")


async def api_reply(root: Path, session_id: str, text: str) -> str:
    async with acp_mux.run(None, text, resume=session_id, state_dir=root / "state", binary=sys.executable) as run:
        await run.wait()
        assert run.result is not None and run.result.stop_reason == "end_turn", run.result
        return run.result.text


def handover(reply: str) -> tuple[list[tuple[str, str]], str] | None:
    """(person, agent) of each handed-over turn and the person's message; None when nothing was handed over."""
    if "<earlier-conversation" not in reply:
        return None
    records, message = read_back(reply[reply.index("<earlier-conversation") :])
    return [(r["person"], r["agent"]) for r in records], message.strip()


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=hs.integers(min_value=1, max_value=2),
    switch=hs.booleans(),
    fork_to=hs.sampled_from([None, "beta", "gamma"]),
)
@pytest.mark.asyncio
async def test_resuming_an_editors_fork_from_python_hands_over_what_the_editor_would(
    before: int, switch: bool, fork_to: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        fork, agent = await editor_story(root, before, switch, fork_to)
        twin = Path(folder) / "twin"  # the same store, for the editor path's own answer
        shutil.copytree(root, twin, ignore=shutil.ignore_patterns("twin"))
        by_editor = handover(await editor_reply(twin, fork, "and from here?"))
        by_api = handover(await api_reply(root, fork, "and from here?"))
        assert by_api == by_editor, (by_api, by_editor)
        if by_api is None:  # the agent's own fork of the original's session (the editor path hands nothing over)
            record = json.loads((root / "state" / "sessions" / f"{fork}.json").read_text())
            assert record["native_fork_from"] is None and record["native_session_id"], record  # it forked
            assert record["agent"] == agent
        else:
            assert by_api[1] == "and from here?"
            assert ("after the fork", "alpha") not in by_api[0] and ("after the fork", "beta") not in by_api[0]
        again = await api_reply(root, fork, "once more")  # handed over once
        assert "earlier-conversation" not in again
