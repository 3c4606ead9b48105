"""Fault classes 3, 4 and 5 through the real stdio of ``acp-mux --agent demo``.

3. A permission answer of any shape is a denial, answered to the agent at once, and the turn goes on; only option
   ids the bridge offered count.
4. Time the person spends deciding does not count toward the inactivity watchdog.
5. A remembered "always allow" never lets a different command through without asking the person.
Each with the raw client (any shape on the wire) and with the SDK client (what real editors send).
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import acp
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.faults.raw import RawBridge, no_answer
from tests.server.client import RecordingClient, bridge as sdk_bridge

WRITE = [{"type": "text", "text": "write the demo"}]


def prompt(raw: RawBridge, sid: str, text: str | list[dict[str, Any]], timeout: float = 20) -> dict[str, Any]:
    blocks = [{"type": "text", "text": text}] if isinstance(text, str) else text
    return raw.call("session/prompt", {"sessionId": sid, "prompt": blocks}, timeout=timeout)


# ── 3: answers of any shape ──────────────────────────────────────────────────────────────────────────────────
MALFORMED: list[Any] = [
    {"outcome": "selected"},
    {"outcome": "allow_once"},
    {"outcome": 1},
    {"outcome": ["selected"]},
    {"outcome": None},
    {"outcome": {"outcome": "selected", "optionId": "allow"}},
    {"outcome": {"outcome": "selected", "optionId": "approve"}},
    {"outcome": {"outcome": "selected", "optionId": "approve_for_session"}},
    {"outcome": {"outcome": "selected", "optionId": "allow-always"}},
    {"outcome": {"outcome": "selected", "optionId": 0}},
    {"outcome": {"outcome": "selected", "optionId": ["allow_once"]}},
    {"outcome": {"outcome": "selected"}},
    {"outcome": {"outcome": "chosen", "optionId": "allow_once"}},
    "allow_once",
    1,
    None,
    [],
    ["allow_once"],
    True,
    {"optionId": "allow_once"},
]


class Answers:
    """A permission policy for the raw client: the next answer from a list (or a function of the request)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.asked: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else {"outcome": {"outcome": "cancelled"}}


def test_malformed_permission_answers_are_denials_and_the_turn_goes_on(tmp_path: Path) -> None:
    answers = Answers([])
    raw = RawBridge(tmp_path, answer=answers)
    raw.initialize()
    sid = raw.new_session()
    for answer in MALFORMED:
        answers.answers = [answer]
        before = len(answers.asked)
        response = prompt(raw, sid, WRITE)
        assert response.get("result", {}).get("stopReason") == "end_turn", (answer, response)
        assert len(answers.asked) == before + 1
        assert not (raw.cwd / "notes.txt").exists(), f"{answer!r} granted a write"
    assert raw.text(sid).count("Okay, I will not write the file.") == len(MALFORMED)
    assert raw.serves()
    assert raw.close() == 0


def test_an_error_answer_is_a_denial(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path)
    raw.initialize()
    sid = raw.new_session()

    def error_answer(request: dict[str, Any]) -> Any:
        raw.write({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32000, "message": "dialog broke"}})
        return no_answer(request)

    raw.answer = error_answer
    assert prompt(raw, sid, WRITE)["result"]["stopReason"] == "end_turn"
    raw.answer = lambda request: (
        raw.write({"jsonrpc": "2.0", "id": request["id"], "error": "not an object"}) or no_answer(request)
    )
    assert prompt(raw, sid, WRITE)["result"]["stopReason"] == "end_turn"
    assert not (raw.cwd / "notes.txt").exists()
    assert raw.close() == 0


def test_generated_answers_never_grant_unless_they_name_an_offered_allow_option(tmp_path: Path) -> None:
    answers = Answers([])
    raw = RawBridge(tmp_path, answer=answers)
    raw.initialize()
    json_values = st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12)),
        lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=10), inner, max_size=3)),
        max_leaves=8,
    )
    option_ids = st.one_of(
        st.sampled_from(["allow_once", "allow_always", "reject_once", "reject_always", "allow", "mode:default"]),
        json_values,
    )
    answer_shapes = st.one_of(
        json_values,
        st.builds(lambda o: {"outcome": o}, json_values),
        st.builds(
            lambda o, i: {"outcome": {"outcome": o, "optionId": i}},
            st.sampled_from(["selected", "cancelled", "x"]),
            option_ids,
        ),
    )

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(answer=answer_shapes)
    @example(answer={"outcome": {"outcome": "selected", "optionId": "allow_always"}})
    @example(answer="allow_once")  # after an "allow always" in another session: still a denial here
    def check(answer: Any) -> None:
        (raw.cwd / "notes.txt").unlink(missing_ok=True)
        answers.answers = [answer, {"outcome": {"outcome": "cancelled"}}, {"outcome": {"outcome": "cancelled"}}]
        sid = raw.new_session()  # a fresh session: an earlier example's "allow always" must not answer this one
        response = prompt(raw, sid, "askrun\nuname -a")
        assert response.get("result", {}).get("stopReason") == "end_turn", response
        offered_allow = (
            isinstance(answer, dict)
            and isinstance(answer.get("outcome"), dict)
            and answer["outcome"].get("outcome") == "selected"
            and answer["outcome"].get("optionId") in ("allow_once", "allow_always")
        )
        last = raw.text(sid).rstrip().splitlines()[-1]
        assert last == ("allowed: uname -a" if offered_allow else "denied: uname -a"), (answer, last)

    check()
    assert raw.serves()
    assert raw.close() == 0


async def test_sdk_client_with_a_look_alike_option_id_is_denied(tmp_path: Path) -> None:
    client = RecordingClient(choose=lambda options, call: "allow")
    (tmp_path / "project").mkdir()
    async with sdk_bridge(
        client, "--agent", "demo", cwd=str(tmp_path / "project"), state_dir=str(tmp_path / "state")
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(tmp_path / "project"), mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")]), 20)
    assert result.stop_reason == "end_turn"
    assert not (tmp_path / "project" / "notes.txt").exists()
    assert "will not write" in client.text()


# ── 4: the person's time is not the agent's inactivity ─────────────────────────────────────────────────────────
def test_a_long_permission_dialog_does_not_trip_the_inactivity_watchdog(tmp_path: Path) -> None:
    raw = RawBridge(tmp_path, "--inactivity-timeout", "1")
    raw.initialize()
    sid = raw.new_session()

    def answer_later(request: dict[str, Any]) -> Any:
        reply = {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}},
        }
        threading.Timer(2.5, raw.write, args=(reply,)).start()  # the person thinks for 2.5 watchdog periods
        return no_answer(request)

    raw.answer = answer_later
    response = prompt(raw, sid, WRITE, timeout=40)
    assert response.get("result", {}).get("stopReason") == "end_turn", response
    assert (raw.cwd / "notes.txt").read_text() == "alpha\ngamma\n"
    # the watchdog still works when nobody is asked: an agent silent for longer than the limit is stopped
    raw.answer = None
    timed_out = prompt(raw, sid, "hang", timeout=20)
    assert timed_out["error"]["code"] == -32603 and "no output" in timed_out["error"]["message"]
    assert raw.close() == 0


async def test_sdk_client_deciding_slowly_keeps_the_turn(tmp_path: Path) -> None:
    async def slow_choice() -> None:
        await asyncio.sleep(2.5)

    class Slow(RecordingClient):
        async def request_permission(self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any) -> Any:
            await slow_choice()
            return await super().request_permission(options, session_id, tool_call, **kwargs)

    client = Slow(choose=lambda options, call: "allow_once")
    (tmp_path / "project").mkdir()
    async with sdk_bridge(
        client,
        "--agent",
        "demo",
        "--inactivity-timeout",
        "1",
        cwd=str(tmp_path / "project"),
        state_dir=str(tmp_path / "state"),
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(tmp_path / "project"), mcp_servers=[])).session_id
        result = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")]), 40)
    assert result.stop_reason == "end_turn"
    assert (tmp_path / "project" / "notes.txt").read_text() == "alpha\ngamma\n"


# ── 5: "always" is never wider than its label ──────────────────────────────────────────────────────────────────
ASKED_AGAIN = [
    (
        "/bin/bash -lc 'ls -la'",
        ["/bin/bash -lc 'rm -rf ~/x'", "/bin/bash -lc 'ls; rm -rf ~/x'", "bash -c 'ls > /etc/hosts'"],
    ),
    ("git -C repo status", ["git -C repo push --force", "git push --force", "git -c core.pager=evil -C repo status"]),
    ("python3 script.py", ["python3 -c 'import os'", "python3 other.py", "PYTHONSTARTUP=x python3 script.py"]),
]


@pytest.mark.parametrize("granted, later", ASKED_AGAIN)
def test_always_allow_never_lets_another_command_through_without_asking(
    tmp_path: Path, granted: str, later: list[str]
) -> None:
    answers = Answers([{"outcome": {"outcome": "selected", "optionId": "allow_always"}}])
    raw = RawBridge(tmp_path, answer=answers)
    raw.initialize()
    sid = raw.new_session()
    assert prompt(raw, sid, "askrun\n" + "\n".join([granted, granted, *later]))["result"]["stopReason"] == "end_turn"
    asked = [r["params"]["toolCall"] for r in answers.asked]
    assert len(asked) == 1 + len(later), (
        "the repeat of the granted command is answered by the rule; every other one is asked"
    )
    label = next(o["name"] for o in answers.asked[0]["params"]["options"] if o["optionId"] == "allow_always")
    assert "`" in label and "/bin/bash" not in label and label != "Always allow `git` commands (this session)"
    lines = raw.text(sid).splitlines()
    assert lines[:2] == [f"allowed: {granted}", f"allowed: {granted}"]
    assert all(line.startswith("denied: ") for line in lines[2:]) and len(lines) == 2 + len(later)
    assert raw.close() == 0


async def test_sdk_client_write_then_edit_of_the_same_path_asks_once(tmp_path: Path) -> None:
    client = RecordingClient(
        choose=lambda options, call: "allow_always" if "notes.txt" in (call.title or "") else "reject_once"
    )
    (tmp_path / "project").mkdir()
    async with sdk_bridge(
        client, "--agent", "demo", cwd=str(tmp_path / "project"), state_dir=str(tmp_path / "state")
    ) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=None)
        sid = (await conn.new_session(cwd=str(tmp_path / "project"), mcp_servers=[])).session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("write the demo")]), 20)
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("askrun\nrm -rf ~/x")]), 20)
    titles = [call.title for call, _ in client.permissions]
    assert [t for t in titles if "notes.txt" in t and "cat" not in t] == [titles[0]], titles  # the Edit was not asked
    assert titles[-1] == "rm -rf ~/x"  # nothing allowed before covers an unrelated command
    assert "denied: rm -rf ~/x" in client.text()
