"""openclaw asks before every write, edit and command (issue 21), on the real CLI (2026.9.6) through acp-mux's
private gateway, with the config of a person who set nothing about approvals.

One bridge serves three sessions (a gateway start costs a minute on a loaded machine): allowed once (a request
before each change, about the announced call, each change applied and shown as a diff), rejected (nothing written,
every asked call failed), and "always allow" for the file, given after 20 s (the write waits for it; the edit that
follows is answered by the bridge).
A second bridge with ``ACP_MUX_OPENCLAW_ASK=bypass`` asks nothing and does the work.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.e2e.test_real_agents import (
    WRITE_EDIT,
    AskedWhile,
    assert_asked_about_announced_calls,
    final_statuses,
    prompt,
)
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

FIRST_TURN_TIMEOUT = 240  # the gateway and `openclaw acp` start behind the first prompt
TURN_TIMEOUT = 120
SLOW_ANSWER_S = 20  # longer than OpenClaw's default budget for a before_tool_call hook (15 s)
KEEP = Path("/tmp/acp-mux-openclaw-asks-logs")  # the gateway's log of a failed run, for whoever debugs it


@dataclass
class SlowToAnswer(RecordingClient):
    """Answers a question about a file change only after ``edit_delay_s`` (a person reading the dialog)."""

    edit_delay_s: float = 0.0

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
        if tool_call.kind == "edit" and self.edit_delay_s:
            await asyncio.sleep(self.edit_delay_s)
        return await super().request_permission(options, session_id, tool_call, **kwargs)


class Answers(AskedWhile):
    """AskedWhile with one answer per tool kind (``execute`` or ``edit``)."""

    def __init__(self, cwd: Path, by_kind: dict[str, str]) -> None:
        super().__init__(cwd, "")
        self.by_kind = by_kind

    def client(self) -> SlowToAnswer:
        return SlowToAnswer(choose=self.choose)

    def choose(self, options: list[Any], call: Any) -> str:
        self.answer = self.by_kind.get(call.kind or "", self.by_kind.get("*", "reject_once"))
        return super().choose(options, call)


def diffs_of(client: RecordingClient, tool_call_id: str) -> list[Any]:
    """The diffs the editor shows for a call at the end: an update's ``content`` replaces the call's, so those of
    the last update that carried content."""
    contents = [
        u.content
        for u in client.updates
        if u.session_update in ("tool_call", "tool_call_update")
        and u.tool_call_id == tool_call_id
        and u.content is not None
    ]
    return [c for c in (contents[-1] if contents else []) if c.type == "diff"]


async def new_session(agent: RealAgent, conn: Any) -> str:
    return (await conn.new_session(cwd=str(agent.cwd), mcp_servers=[])).session_id


async def test_openclaw_asks_before_each_write_edit_and_command(tmp_path: Path) -> None:
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    agent.serve("openclaw_write_edit", delta_delay=0)
    notes = agent.cwd / "notes.txt"
    answers = Answers(agent.cwd, {"*": "allow_once"})
    client = answers.client()
    try:
        async with agent.bridge(client) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)

            # ── allowed once: a request before each change; both changes applied and shown ──
            sid = await new_session(agent, conn)
            result = await prompt(conn, sid, WRITE_EDIT, timeout=FIRST_TURN_TIMEOUT)
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert notes.read_text() == "alpha\ngamma\n"
            starts = {u.tool_call_id: u for u in client.of("tool_call")}
            assert sorted(u.kind for u in starts.values()) == ["edit", "edit", "execute"], starts
            asked = assert_asked_about_announced_calls(client)
            assert set(starts) == asked, (set(starts), asked)  # the command, the write and the edit: each asked
            write, edit = [u for u in starts.values() if u.kind == "edit"]
            held = dict(answers.held)
            assert held[write.tool_call_id] is None and held[edit.tool_call_id] == "alpha\nbeta\n", held
            assert set(final_statuses(client).values()) == {"completed"}
            assert any(d.new_text == "alpha\nbeta\n" and not d.old_text for d in diffs_of(client, write.tool_call_id))
            assert any(
                d.old_text == "alpha\nbeta\n" and d.new_text == "alpha\ngamma\n"
                for d in diffs_of(client, edit.tool_call_id)
            ), diffs_of(client, edit.tool_call_id)
            assert "notes.txt now contains alpha and gamma" in client.text()

            # ── rejected: nothing written, every asked call failed ──
            notes.unlink()
            client.updates.clear()
            client.permissions.clear()
            answers.by_kind, answers.held = {"*": "reject_once"}, []
            sid = await new_session(agent, conn)
            result = await prompt(conn, sid, WRITE_EDIT, timeout=TURN_TIMEOUT)
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert not notes.exists()
            rejected = assert_asked_about_announced_calls(client)
            assert all(h is None for _, h in answers.held), answers.held
            status = final_statuses(client)
            edits = [u.tool_call_id for u in client.of("tool_call") if u.kind == "edit"]
            assert edits and set(edits) <= rejected, (edits, rejected)
            assert all(status[tid] == "failed" for tid in rejected), status

            # ── "always allow" the file, answered after 20 s (OpenClaw's own hook budget is 15 s, then it blocks):
            # the write runs, and the edit after it is answered by the bridge ──
            client.updates.clear()
            client.permissions.clear()
            answers.by_kind, answers.held = {"execute": "allow_once", "edit": "allow_always"}, []
            client.edit_delay_s = SLOW_ANSWER_S
            sid = await new_session(agent, conn)
            started = time.monotonic()
            result = await prompt(conn, sid, WRITE_EDIT, timeout=TURN_TIMEOUT)
            assert time.monotonic() - started >= SLOW_ANSWER_S  # the answer really came that late
            assert result.stop_reason == "end_turn", agent.log()[-3000:]
            assert notes.read_text() == "alpha\ngamma\n"
            edits = [u.tool_call_id for u in client.of("tool_call") if u.kind == "edit"]
            asked = assert_asked_about_announced_calls(client)
            assert len(edits) == 2 and edits[0] in asked and edits[1] not in asked, (edits, asked)
            assert all(final_statuses(client)[tid] == "completed" for tid in edits)
    except BaseException:
        logs = agent.root / "state" / "openclaw" / "gateway" / "logs"
        if logs.is_dir():
            shutil.rmtree(KEEP, ignore_errors=True)
            shutil.copytree(logs, KEEP)
        raise
    finally:
        agent.close()


async def test_openclaw_with_bypass_asks_nothing(tmp_path: Path) -> None:
    agent = RealAgent("openclaw", require_cli("openclaw"), tmp_path)
    agent.serve("openclaw_write_edit", delta_delay=0)
    agent.extra_env["ACP_MUX_OPENCLAW_ASK"] = "bypass"
    client = RecordingClient(choose=lambda options, call: "reject_once")
    try:
        async with agent.bridge(client) as (conn, _):
            sid = await agent.session(conn)
            result = await prompt(conn, sid, WRITE_EDIT, timeout=FIRST_TURN_TIMEOUT)
        assert result.stop_reason == "end_turn", agent.log()[-3000:]
        assert (agent.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
        assert client.permissions == []
        assert set(final_statuses(client).values()) == {"completed"}
    finally:
        agent.close()
