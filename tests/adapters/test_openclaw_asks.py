"""openclaw asks before it changes a file (issue 21): the gate's question as an ACP permission request, the relay
that carries it between the gate and acp-mux, and the person's setting, without the real CLI
(tests/e2e/test_openclaw.py holds OpenClaw 2026.9.6 to it).

The gate's questions carry what the model chose (paths, contents), so the properties are written as an attacker
would try them: whatever the question holds, the request names only the relay's own session and offers only a
once-answer; only an exactly selected ``allow-once`` lets a call run; no setting string widens what runs unasked.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents.acp_client import AcpRun
from acp_mux.adapters.acp_agents.openclaw.adapter import (
    ACCEPT_EDITS,
    ASK,
    ASK_ENV,
    ASK_SETTINGS,
    BYPASS,
    OpenclawAdapter,
    answered_unasked,
    ask_setting,
)
from acp_mux.adapters.acp_agents.openclaw.asks import (
    ASK_ID_PREFIX,
    PLUGIN_DIR,
    allowed,
    gate_answer,
    gate_loaded,
    gateway_overrides,
    permission_request,
    preview_diff,
    registration_path,
    session_name,
)
from acp_mux.adapters.acp_agents.openclaw.gateway import Endpoint, gateway_config
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.process.spawn import SpawnError
from tests.adapters.helpers import make_ctx, sent

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
QUESTION = st.fixed_dictionaries(
    {},
    optional={
        "toolName": st.one_of(
            st.sampled_from(["write", "edit", "apply_patch", "process", "exec"]), st.text(max_size=12), JSON
        ),
        "toolCallId": st.one_of(st.text(max_size=12), JSON),
        "params": st.one_of(
            st.dictionaries(st.sampled_from(["path", "content", "edits", "file_path", "sessionId"]), JSON, max_size=4),
            JSON,
        ),
        "derivedPaths": st.one_of(st.lists(st.one_of(st.text(max_size=12), JSON), max_size=3), JSON),
        "sessionKey": st.text(max_size=20),
    },
)


# ── the question as an ACP request ─────────────────────────────────────────────────────────────────────────────
@given(QUESTION, st.text(min_size=1, max_size=40))
def test_a_question_becomes_a_request_about_our_session_with_once_answers_only(
    question: dict[str, Any], sid: str
) -> None:
    request = permission_request("acp-mux-ask-7", sid, question, "/project")
    assert request["id"] == "acp-mux-ask-7" and request["method"] == "session/request_permission"
    params = request["params"]
    assert params["sessionId"] == sid  # never a session the question names
    assert [o["kind"] for o in params["options"]] == ["allow_once", "reject_once"]
    call = params["toolCall"]
    assert isinstance(call["toolCallId"], str) and call["toolCallId"]
    assert call["kind"] in ("edit", "delete", "move", "other")
    json.dumps(request)  # it can be sent


@given(st.sampled_from(["write", "edit", "apply_patch"]), st.text(min_size=1, max_size=30))
def test_file_tools_are_edits_of_the_paths_they_touch(tool: str, path: str) -> None:
    """An "always" answer then covers those paths only (acp-mux's path rules), never every call of a kind."""
    params = {"path": path} if tool != "apply_patch" else {"input": "*** Begin Patch"}
    derived = [path] if tool == "apply_patch" else []
    call = permission_request(
        "acp-mux-ask-1", "s", {"toolName": tool, "params": params, "derivedPaths": derived}, "/project"
    )["params"]["toolCall"]
    expected = os.path.normpath(path if os.path.isabs(path) else os.path.join("/project", path))
    assert call["kind"] == "edit" and [loc["path"] for loc in call["locations"]] == [expected]
    assert call["_meta"] == {"toolName": tool}


def test_a_write_and_an_edit_show_the_change_they_would_make(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    write = preview_diff("write", {"content": "alpha\nbeta\n"}, str(target))
    assert write == {"type": "diff", "path": str(target), "oldText": None, "newText": "alpha\nbeta\n"}
    target.write_text("alpha\nbeta\n")
    edit = preview_diff("edit", {"edits": [{"oldText": "beta", "newText": "gamma"}]}, str(target))
    assert edit == {"type": "diff", "path": str(target), "oldText": "alpha\nbeta\n", "newText": "alpha\ngamma\n"}
    assert preview_diff("exec", {"command": "ls"}, str(target)) is None


def test_a_preview_never_follows_a_link_or_reads_a_fifo(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("do not show")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")
    for name in ("link", "fifo"):
        diff = preview_diff("write", {"content": "x"}, str(tmp_path / name))
        assert diff is not None and diff["oldText"] is None


@given(st.text(max_size=60))
def test_a_registration_stays_in_the_asks_folder_and_a_key_finds_its_session(session: str) -> None:
    path = registration_path("/state", session)
    assert path.parent == Path("/state/acp-mux-asks") and len(path.name) == 32
    assert registration_path("/state", f"agent:main:acp-bridge:{session_name(session)}") == path


@given(
    st.dictionaries(st.sampled_from(["result", "error", "id", "jsonrpc"]), JSON, max_size=4)
    | st.builds(
        lambda o, extra: {"result": {"outcome": {"outcome": "selected", "optionId": o}, **extra}},
        st.sampled_from(["allow-once", "allow_once", "allow-always", "reject-once", "allow", ""]),
        st.dictionaries(st.text(max_size=5), JSON, max_size=2),
    )
)
def test_only_a_selected_allow_once_is_an_allow(response: dict[str, Any]) -> None:
    """Whatever comes back for a question, only the exact selection of the one allow offered lets a call run."""
    result = response.get("result")
    outcome = result.get("outcome") if isinstance(result, dict) else None
    exact = outcome == {"outcome": "selected", "optionId": "allow-once"} and "error" not in response
    assert allowed(response) == exact


def test_only_an_approval_lets_the_gate_run_a_call() -> None:
    assert json.loads(gate_answer(True)) == {"allow": True}
    assert json.loads(gate_answer(False)) == {"allow": False}


def test_the_gateway_loads_the_gate_and_asks_for_exec(tmp_path: Path) -> None:
    config = gateway_config(1234, tmp_path / "mine.json", tmp_path)
    assert config["tools"] == {"exec": {"mode": "ask"}}
    assert config["plugins"]["load"]["paths"] == [str(PLUGIN_DIR)]  # type: ignore[index]
    assert json.loads((PLUGIN_DIR / "openclaw.plugin.json").read_text())["activation"] == {"onStartup": True}
    assert gateway_overrides()["plugins"]["entries"] == {"acp-mux-asks": {"enabled": True}}


# ── the person's setting ───────────────────────────────────────────────────────────────────────────────────────
@given(st.text(max_size=20))
def test_no_setting_string_is_read_as_a_wider_one(value: str) -> None:
    try:
        setting = ask_setting({ASK_ENV: value})
    except ValueError:
        assert value.strip() not in ASK_SETTINGS
        return
    assert setting == (value.strip() or ASK)


@given(st.sampled_from(ASK_SETTINGS), st.text(max_size=10))
def test_what_runs_unasked_is_exactly_what_the_setting_says(setting: str, kind: str) -> None:
    unasked = answered_unasked(setting, kind)
    if setting == ASK:
        assert not unasked
    elif setting == ACCEPT_EDITS:
        assert unasked == (kind in ("edit", "delete", "move"))  # commands and other tools still ask
    else:
        assert setting == BYPASS and unasked


def test_an_unknown_setting_stops_the_bridge_at_start_with_a_clear_message() -> None:
    problem = OpenclawAdapter().startup_problem(env={**os.environ, ASK_ENV: "yolo"})
    assert problem is not None and "ACP_MUX_OPENCLAW_ASK='yolo'" in problem


# ── the adapter: asked, or answered by the setting ─────────────────────────────────────────────────────────────
def started(tmp_path: Path, setting: str | None = None) -> tuple[OpenclawAdapter, Any]:
    adapter = OpenclawAdapter()
    env = {k: v for k, v in os.environ.items() if k != ASK_ENV}
    if setting is not None:
        env[ASK_ENV] = setting
    options = RunOptions(agent="openclaw", cwd=str(tmp_path), env=env)
    adapter._endpoints[id(options)] = Endpoint("ws://127.0.0.1:1", tmp_path / "t", tmp_path, tmp_path / "c.json")
    ctx = make_ctx("openclaw", str(tmp_path))
    adapter.start(options, ctx)
    run = AcpRun.of(ctx)
    run.session_id, run.ready = "sid", True
    ctx.take_outbox()
    return adapter, ctx


def ask_line(tmp_path: Path, tool: str = "write") -> str:
    question = {
        "toolName": tool,
        "toolCallId": "call-1",
        "params": {"path": str(tmp_path / "notes.txt"), "content": "a\n"},
    }
    return json.dumps(permission_request("acp-mux-ask-1", "sid", question, str(tmp_path)))


def test_a_gate_question_is_shown_as_its_tool_call_then_asked(tmp_path: Path) -> None:
    adapter, ctx = started(tmp_path)
    events = list(adapter.parse_line(ask_line(tmp_path), ctx))
    assert [e.type for e in events][-3:] == ["tool_call_start", "tool_call_ready", "approval_request"]
    start = events[-3]
    request = events[-1]
    assert start.tool_call_id == request.tool_call_id == "call-1" and request.tool_name == "write"
    adapter.respond_approval(request.interaction_id, ApprovalDecision(approve=False), ctx)
    (answer,) = sent(ctx)
    assert answer["id"] == "acp-mux-ask-1" and answer["result"]["outcome"]["optionId"] == "reject-once"


@pytest.mark.parametrize(
    ("setting", "tool", "asked"),
    [
        (None, "write", True),
        (ACCEPT_EDITS, "write", False),
        (ACCEPT_EDITS, "process", True),
        (BYPASS, "process", False),
    ],
)
def test_the_setting_decides_which_questions_reach_the_person(
    tmp_path: Path, setting: str | None, tool: str, asked: bool
) -> None:
    adapter, ctx = started(tmp_path, setting)
    events = list(adapter.parse_line(ask_line(tmp_path, tool), ctx))
    assert any(e.type == "approval_request" for e in events) == asked
    if not asked:
        (answer,) = sent(ctx)
        assert answer["result"] == {"outcome": {"outcome": "selected", "optionId": "allow-once"}}


def test_openclaws_own_calls_are_named_by_their_tool() -> None:
    adapter = OpenclawAdapter()
    assert adapter.tool_name_of({"title": "exec: command: ls", "kind": "execute"}) == "exec"
    assert adapter.tool_name_of({"_meta": {"toolName": "apply_patch"}, "kind": "other"}) == "apply_patch"


# ── the relay, with a stand-in for `openclaw acp` ──────────────────────────────────────────────────────────────
# Answers session/new with a session id, and writes every other line it gets to a file (what openclaw saw).
FAKE_ACP = f"""#!{sys.executable}
import json, sys
seen = open(sys.argv[1], "a")
for line in sys.stdin:
    seen.write(line); seen.flush()
    msg = json.loads(line)
    if msg.get("method") == "session/new":
        print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": {{"sessionId": "uuid-1"}}}}), flush=True)
"""


class RelayUnderTest:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.state = tmp_path / "state"
        self.state.mkdir()
        self.seen = tmp_path / "seen.jsonl"
        fake = tmp_path / "fake-acp"
        fake.write_text(FAKE_ACP)
        fake.chmod(0o755)
        self.fake = fake
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "OPENCLAW_STATE_DIR": str(self.state)}
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_mux.adapters.acp_agents.openclaw.relay",
            str(self.fake),
            str(self.seen),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            cwd=str(self.tmp),
        )

    async def send(self, msg: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        await self.proc.stdin.drain()

    async def receive(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        return json.loads(await asyncio.wait_for(self.proc.stdout.readline(), 10))

    async def open_session(self) -> Path:
        await self.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": str(self.tmp)}})
        assert (await self.receive())["result"]["sessionId"] == "uuid-1"
        registration = registration_path(str(self.state), "agent:main:acp-bridge:uuid-1")
        for _ in range(100):
            if registration.exists():
                return registration
            await asyncio.sleep(0.05)
        raise AssertionError("no registration")

    async def stop(self) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.close()
        await asyncio.wait_for(self.proc.wait(), 10)


async def gate_asks(registration: Path, question: dict[str, Any]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    address = registration.read_text()
    address = "\0" + address[1:] if address.startswith("@") else address
    reader, writer = await asyncio.open_unix_connection(address)
    writer.write((json.dumps(question) + "\n").encode())
    await writer.drain()
    return reader, writer


@pytest.mark.parametrize(
    ("answer", "allowed"),
    [
        ({"outcome": {"outcome": "selected", "optionId": "allow-once"}}, True),
        ({"outcome": {"outcome": "selected", "optionId": "reject-once"}}, False),
        ({"outcome": {"outcome": "selected", "optionId": "allow-always"}}, False),  # not offered: no
        ({"outcome": {"outcome": "cancelled"}}, False),
        ("allow-once", False),
    ],
)
async def test_the_relay_asks_for_the_gate_and_openclaw_never_sees_the_answer(
    tmp_path: Path, answer: Any, allowed: bool
) -> None:
    relay = RelayUnderTest(tmp_path)
    await relay.start()
    try:
        registration = await relay.open_session()
        assert oct(registration.stat().st_mode & 0o777) == "0o600"
        assert oct(registration.parent.stat().st_mode & 0o777) == "0o700"
        question = {
            "sessionKey": "agent:main:acp-bridge:uuid-1",
            "toolCallId": "call-9",
            "toolName": "write",
            "params": {"path": "notes.txt", "content": "x"},
        }
        reader, writer = await gate_asks(registration, question)
        request = await relay.receive()
        assert request["method"] == "session/request_permission" and request["id"].startswith(ASK_ID_PREFIX)
        assert request["params"]["sessionId"] == "uuid-1" and request["params"]["toolCall"]["toolCallId"] == "call-9"
        await relay.send({"jsonrpc": "2.0", "id": request["id"], "result": answer})
        reply = json.loads(await asyncio.wait_for(reader.readline(), 10))
        assert reply == {"allow": allowed}
        writer.close()
        await relay.send({"jsonrpc": "2.0", "id": 2, "method": "session/cancel", "params": {"sessionId": "uuid-1"}})
        await relay.stop()
        seen = [json.loads(line) for line in relay.seen.read_text().splitlines()]
        assert [m.get("method") for m in seen] == ["session/new", "session/cancel"]  # the answer stayed ours
        assert not registration.exists()  # removed when the relay ends
    finally:
        if relay.proc is not None and relay.proc.returncode is None:
            relay.proc.kill()


async def test_a_gate_that_hangs_up_is_not_waited_for_and_a_late_answer_is_dropped(tmp_path: Path) -> None:
    relay = RelayUnderTest(tmp_path)
    await relay.start()
    try:
        registration = await relay.open_session()
        _, writer = await gate_asks(registration, {"toolName": "edit", "params": {}})
        request = await relay.receive()
        writer.close()  # the call was cancelled in OpenClaw
        await asyncio.sleep(0.2)
        await relay.send({"jsonrpc": "2.0", "id": request["id"], "result": {"outcome": {"outcome": "cancelled"}}})
        await relay.stop()
        assert [json.loads(line).get("method") for line in relay.seen.read_text().splitlines()] == ["session/new"]
    finally:
        if relay.proc is not None and relay.proc.returncode is None:
            relay.proc.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="abstract sockets are Linux's")
async def test_the_socket_name_is_random_and_not_a_file(tmp_path: Path) -> None:
    relay = RelayUnderTest(tmp_path)
    await relay.start()
    try:
        registration = await relay.open_session()
        address = registration.read_text()
        assert address.startswith("@acp-mux-ask-") and len(address) == len("@acp-mux-ask-") + 32
        with socket.socket(socket.AF_UNIX) as squatter:  # the name is held: nobody else can bind it
            with pytest.raises(OSError):
                squatter.bind("\0" + address[1:])
        await relay.stop()
    finally:
        if relay.proc is not None and relay.proc.returncode is None:
            relay.proc.kill()


def test_the_previewed_diff_stays_on_the_call_when_openclaw_reports_its_result(tmp_path: Path) -> None:
    """OpenClaw's result of a write is text only; ACP content replaces what the editor showed, so the diff the
    question carried is kept in front of it."""
    adapter, ctx = started(tmp_path)
    events = list(adapter.parse_line(ask_line(tmp_path), ctx))
    adapter.respond_approval(events[-1].interaction_id, ApprovalDecision(approve=True), ctx)
    done = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "sid",
            "update": {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "call-1",
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "Successfully wrote 2 bytes"}}],
            },
        },
    }
    shown = [e for e in adapter.parse_line(json.dumps(done), ctx) if getattr(e, "display", None) is not None]
    assert shown and shown[-1].display.diffs and shown[-1].display.diffs[0].new_text == "a\n"


# ── no gate, no turn ───────────────────────────────────────────────────────────────────────────────────────────
def test_the_gate_counts_only_as_a_file_of_ours_naming_a_live_process(tmp_path: Path) -> None:
    asks = tmp_path / "acp-mux-asks"
    asks.mkdir()
    assert not gate_loaded(tmp_path)
    for name in ("gate.0", "gate.-1", "gate.abc", "gate.", "gate.99999999", "gate"):
        (asks / name).write_text("")
        assert not gate_loaded(tmp_path), name
    (tmp_path / "elsewhere").write_text("")
    (asks / f"gate.{os.getpid()}").symlink_to(tmp_path / "elsewhere")
    assert not gate_loaded(tmp_path)  # a link is not the gate's marker
    (asks / f"gate.{os.getpid()}").unlink()
    (asks / f"gate.{os.getpid()}").write_text(str(os.getpid()))
    assert gate_loaded(tmp_path)


def test_a_persons_plugin_allowlist_gets_the_gate_and_no_list_is_made_up(tmp_path: Path) -> None:
    mine = tmp_path / "openclaw.json"
    assert "allow" not in gateway_overrides(None)["plugins"]
    mine.write_text(json.dumps({"plugins": {"allow": ["openai"]}}))
    assert gateway_overrides(mine)["plugins"]["allow"] == ["acp-mux-asks"]  # OpenClaw concatenates the two lists
    mine.write_text("{plugins: {allow: ['openai']}}  // JSON5")
    assert "allow" not in gateway_overrides(mine)["plugins"]  # unreadable here: the gate check speaks instead


async def test_without_the_gate_no_turn_runs_and_the_person_is_told_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.adapters.test_openclaw import FAKE_OPENCLAW, env_for

    monkeypatch.setattr(
        "acp_mux.adapters.acp_agents.openclaw.adapter.GATE_WAIT_S", 0.5
    )  # how long a new gateway has to load it

    fake = tmp_path / "bin" / "openclaw"
    fake.parent.mkdir()
    fake.write_text(FAKE_OPENCLAW)
    fake.chmod(0o755)
    adapter = OpenclawAdapter()
    options = RunOptions(agent="openclaw", cwd=str(tmp_path), binary=str(fake), env=env_for(tmp_path))
    try:
        with pytest.raises(SpawnError, match="would run without asking.*ACP_MUX_OPENCLAW_ASK=bypass"):
            await adapter.prepare(options)
    finally:
        if adapter.gateway is not None:
            await adapter.gateway.stop()


# ── the gate itself (node runs the plugin with a stand-in for OpenClaw's plugin API) ──────────────────────────
GATE_DRIVER = """
const { default: plugin } = await import(process.argv[1]);
let handler, options;
plugin.register({ on: (name, h, o) => { if (name === "before_tool_call") { handler = h; options = o; } } });
const results = {};
for (const tool of ["read", "exec", "write", "process"]) {
  results[tool] = await handler({ toolName: tool, toolCallId: "c1", params: { path: "x" } },
                                { sessionKey: "agent:main:acp-bridge:no-such-session" }) ?? null;
}
results.stale = await handler({ toolName: "write", toolCallId: "c2", params: { path: "x" } },
                              { sessionKey: "agent:main:acp-bridge:stale" }) ?? null;
results.timeoutMs = options?.timeoutMs;
console.log(JSON.stringify(results));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_gate_blocks_every_change_when_no_one_can_be_asked(tmp_path: Path) -> None:
    """No relay registered for the session (its editor is gone, or never was), or one that no longer listens:
    write and process are blocked with a reason; read-only tools and exec (OpenClaw's own approvals ask for it) pass to OpenClaw's own policy."""
    stale = registration_path(str(tmp_path), "stale")  # a relay that was killed: nobody listens there
    stale.parent.mkdir(mode=0o700)
    stale.write_text("@acp-mux-ask-" + "0" * 32)
    out = subprocess.run(
        ["node", "--input-type=module", "-e", GATE_DRIVER, str(PLUGIN_DIR / "acp-mux-asks.mjs")],
        env={**os.environ, "OPENCLAW_STATE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert results["read"] is None and results["exec"] is None
    for tool in ("write", "process", "stale"):
        assert results[tool]["block"] is True and "acp-mux" in results[tool]["blockReason"], results
    assert results["timeoutMs"] >= 3600 * 1000  # longer than a person takes to read the dialog
    assert list((tmp_path / "acp-mux-asks").glob("gate.*"))  # it said it is loaded


@pytest.mark.parametrize("stdin", ["devnull", "file"])
def test_the_relay_reads_a_stdin_epoll_refuses_and_ends_with_its_child(tmp_path: Path, stdin: str) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"jsonrpc": "2.0", "method": "x"}\n')
    with open(os.devnull if stdin == "devnull" else source, "rb") as fh:
        out = subprocess.run(
            [sys.executable, "-m", "acp_mux.adapters.acp_agents.openclaw.relay", "cat"],
            stdin=fh,
            capture_output=True,
            timeout=30,
        )
    assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
    assert out.stdout == (b"" if stdin == "devnull" else source.read_bytes())  # carried through, unchanged
