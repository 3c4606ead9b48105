"""hermes (``hermes acp`` 0.19.0) on the ACP-client family, over the recorded transcripts in tests/fixtures/hermes:
every run keeps the ordering contract, every question is linked to the tool call hermes announced (its own ids match
none), write_file/patch calls hermes never finishes are settled truthfully, 401/429 are typed errors, a cancel while
asking answers hermes' own "deny", and resume's history replay is not news."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents import hermes_plugins
from acp_mux.adapters.acp_agents.hermes import NOT_ASKING, HermesAdapter, plugin_command
from acp_mux.core.run.contract import ApprovalDecision, RunOptions
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from tests.adapters.acp_replay import Replay, replay
from tests.adapters.helpers import AsTheRunDrives, assert_ordering
from tests.fixtures.acp_transcripts import fixture_names

# `resume` re-attached with session/load; the adapter resumes with session/resume (`resume_with_session_resume`).
# `cancel_at_ask` goes on with the broken process the bridge replaces (see its own test).
REPLAYABLE = [n for n in fixture_names("hermes") if n not in ("resume", "cancel_at_ask")]


def writes_like_hermes(cwd: Path) -> Any:
    """After an allowed edit question, do what hermes does: write the diff's new text."""

    def on_answer(request: dict[str, Any], approved: bool) -> None:
        tool_call = request["params"].get("toolCall") or {}
        if not approved or not str(tool_call.get("toolCallId", "")).startswith("edit-approval"):
            return
        for item in tool_call.get("content") or ():
            if item.get("type") == "diff":
                Path(item["path"]).write_text(item["newText"])

    return on_answer


def run(name: str, cwd: Path, **kwargs: Any) -> Replay:
    return replay(HermesAdapter(), "hermes", name, cwd=str(cwd), on_answer=writes_like_hermes(cwd), **kwargs)


@pytest.mark.parametrize("name", REPLAYABLE)
def test_every_recording_keeps_the_ordering_contract_and_ends_every_tool_call(name: str, tmp_path: Path) -> None:
    result = run(name, tmp_path)
    started = result.assert_contract()
    assert all(tid.startswith("tc-") for tid in started), started  # no call invented for hermes' synthetic ids


def test_each_question_is_about_the_tool_call_hermes_announced(tmp_path: Path) -> None:
    result = run("write_edit_allow", tmp_path)
    starts = {e.tool_call_id: e for e in result.of_type("tool_call_start")}
    asks = result.of_type("approval_request")
    assert len(asks) == 4 and len(starts) == 5  # echo is never asked
    titles = [starts[a.tool_call_id].display.title for a in asks]
    assert titles == [
        f"write: {tmp_path}/notes.txt",
        f"patch (replace): {tmp_path}/notes.txt",
        f"terminal: rm -rf {tmp_path}/scratch-a",
        f"terminal: rm -rf {tmp_path}/scratch-b",
    ]
    assert [a.input.get("path") or a.input.get("command") for a in asks] == [
        f"{tmp_path}/notes.txt",
        f"{tmp_path}/notes.txt",
        f"rm -rf {tmp_path}/scratch-a",
        f"rm -rf {tmp_path}/scratch-b",
    ]
    # the question's diff reaches the call, hermes' own title stays
    shown = [e for e in result.of_type("tool_update") if e.tool_call_id == asks[1].tool_call_id and e.display]
    assert shown and shown[0].display.diffs[0].new_text == "alpha\ngamma\n" and shown[0].display.title is None
    answers = result.answers()
    assert answers[0]["result"] == {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


def test_write_and_patch_calls_hermes_never_finishes_complete_when_the_file_holds_the_new_text(tmp_path: Path) -> None:
    result = run("write_edit_allow", tmp_path)
    asks = result.of_type("approval_request")
    outcome = result.endings()
    assert outcome[asks[0].tool_call_id].type == "tool_result" and outcome[asks[1].tool_call_id].type == "tool_result"
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"


def test_an_allowed_write_that_did_not_land_ends_failed_saying_so(tmp_path: Path) -> None:
    result = replay(HermesAdapter(), "hermes", "write_edit_allow", cwd=str(tmp_path))  # nothing writes the file
    first = result.of_type("approval_request")[0].tool_call_id
    error = result.endings()[first]
    assert error.type == "tool_error" and "notes.txt" in error.error


def test_refusals_end_failed_and_a_patch_of_the_missing_file_fails_too(tmp_path: Path) -> None:
    result = run("write_edit_reject", tmp_path)
    outcome = result.endings()
    asked = [a.tool_call_id for a in result.of_type("approval_request")]
    assert asked and all(outcome[tid].type == "tool_error" for tid in asked)
    patch = next(e.tool_call_id for e in result.of_type("tool_call_start") if e.display.title.startswith("patch"))
    assert patch not in asked and outcome[patch].type == "tool_error"  # hermes failed it without asking or saying
    assert result.answers()[0]["result"]["outcome"]["optionId"] == "deny"


def test_text_after_a_tool_starts_without_blank_lines(tmp_path: Path) -> None:
    result = run("write_edit_allow", tmp_path)
    messages = [e.text for e in result.of_type("message_stop")]
    assert messages[1] == "Creating notes.txt." and not any(m.startswith("\n") for m in messages)


@pytest.mark.parametrize(
    ("name", "kind", "start"),
    [
        ("auth_error", "auth_error", "HTTP 401"),
        ("rate_limit", "rate_limit_error", "API call failed after 1 retries: HTTP 429"),
    ],
)
def test_a_failed_model_request_is_a_typed_error_never_a_plain_end_turn(
    name: str, kind: str, start: str, tmp_path: Path
) -> None:
    result = run(name, tmp_path)
    (error,) = result.of_type(kind)
    assert error.message.startswith(start)


def test_cancel_while_asking_ends_the_turn_cancelled_then_ends_the_broken_run(tmp_path: Path) -> None:
    result = run("cancel_at_ask", tmp_path)
    assert result.answers()[0]["result"] == {"outcome": {"outcome": "cancelled"}}
    ends = [i for i, e in enumerate(result.events) if e.type == "turn_end"]
    first_turn = result.events[: ends[0] + 1]
    assert_ordering(first_turn)
    assert {e.tool_call_id for e in first_turn if e.type == "tool_call_start"} <= {
        e.tool_call_id for e in first_turn if e.type in ("tool_result", "tool_error")
    }
    error = result.events[ends[0] + 1]  # right after the cancelled turn: hermes must be restarted
    assert error.type == "error" and not error.recoverable


def test_a_cancel_mid_stream_leaves_hermes_running(tmp_path: Path) -> None:
    result = run("cancel", tmp_path)
    assert not result.of_type("error") and len(result.of_type("turn_end")) == 2


def test_resume_replays_history_that_is_not_shown_again(tmp_path: Path) -> None:
    result = run("resume_with_session_resume", tmp_path, process=2)
    assert [m.get("method") for m in result.sent if m.get("method", "").startswith("session/")][0] == "session/resume"
    first = result.events[0]
    assert first.type == "session_start" and first.resumed
    texts = [e.text for e in result.of_type("message_stop")]
    assert texts == ["Done: notes.txt now contains alpha and gamma."]  # the new turn only
    assert not result.of_type("tool_call_start")


# ── retries of a failing model: only in hermes' log on stderr ────────────────────────────────────────────────────
# Recorded from hermes 0.19.0 (default agent.api_max_retries) while the model endpoint answered HTTP 500 every time.
_TAIL = "thread=acp-agent_0:140227653920448 provider=custom base_url=http://127.0.0.1:41413/v1 model=fake-model"
FAILED_1 = (
    "2026-11-23 15:20:59 [WARNING] agent.conversation_loop: API call failed (attempt 1/3) "
    f"error_type=InternalServerError {_TAIL} summary=HTTP 500: The server had an error while processing your "
    "request (fake)."
)
RETRYING_1 = (
    "2026-11-23 15:20:59 [WARNING] agent.conversation_loop: Retrying API call in 2.3310065322797557s "
    f"(attempt 1/3) {_TAIL} policy=default error=Error code: 500 - {{'error': {{'message': 'The server had "
    "an error while processing your request (fake).', 'type': 'server_error'}}}}"
)
FAILED_3 = FAILED_1.replace("attempt 1/3", "attempt 3/3")
GAVE_UP = (
    "2026-11-23 15:21:08 [ERROR] agent.conversation_loop: API call failed after 3 retries. HTTP 500: The "
    "server had an error while processing your request (fake). | provider=custom model=fake-model msgs=2"
)
UNRELATED = (
    "2026-11-23 15:20:59 [INFO] agent.chat_completion_helpers: Streaming failed before delivery: Error code: "
    "500 - {'error': {'message': 'The server had an error while processing your request (fake).'}}"
)


def hermes_prompting() -> tuple[HermesAdapter, ParseContext]:
    """A hermes run whose session is open and whose prompt is in flight."""
    adapter, ctx = AsTheRunDrives(HermesAdapter()), ParseContext(run_id="r1", agent="hermes", cwd="/p")
    adapter.start(RunOptions(agent="hermes", cwd="/p", prompt=Prompt.of_text("hello")), ctx)
    for reply in (
        {"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}},
        {"id": 2, "result": {"sessionId": "s1"}},
    ):
        list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", **reply}), ctx))
    assert any(json.loads(m).get("method") == "session/prompt" for m in ctx.take_outbox())
    return adapter, ctx


def test_each_retry_hermes_schedules_is_a_retry_note_with_the_failures_summary_and_its_wait() -> None:
    adapter, ctx = hermes_prompting()
    events = [
        e for text in (UNRELATED, FAILED_1, RETRYING_1, FAILED_3, GAVE_UP) for e in adapter.stderr_events(text, ctx)
    ]
    (retry,) = [e for e in events if e.type == "retry"]  # the last attempt's failure schedules nothing
    assert (retry.attempt, retry.max_attempts, retry.delay_ms) == (1, 3, 2331)
    assert retry.reason == "HTTP 500: The server had an error while processing your request (fake)."


# Recorded from hermes 0.19.0 (agent.api_max_retries 1) with nothing listening at the model's address: after the
# failed attempt it prints (plainly, not through its logger) that it tries once more, 4 s later, then gives up.
CONNECT_FAILED = (
    "2026-11-29 02:28:12 [WARNING] agent.conversation_loop: API call failed (attempt 1/1) "
    f"error_type=APIConnectionError {_TAIL} summary=Connection error."
)
LAST_TRY = "🔁 Transient APIConnectionError on custom — rebuilt client, waiting 4s before one last primary attempt."


def test_hermes_one_more_try_after_a_connection_failure_is_a_retry_note_at_once() -> None:
    """Shown when it starts (4.5 s before hermes' own end of the turn: the unreachable model is shown within
    10 s also on a loaded machine, where hermes took 2.4 s before its first request)."""
    adapter, ctx = hermes_prompting()
    events = [e for text in (CONNECT_FAILED, LAST_TRY) for e in adapter.stderr_events(text, ctx)]
    (retry,) = [e for e in events if e.type == "retry"]
    assert (retry.attempt, retry.max_attempts, retry.delay_ms) == (1, 1, 4000)
    assert retry.reason == "Connection error."


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=200),
            st.sampled_from([CONNECT_FAILED, LAST_TRY, FAILED_1, RETRYING_1]),
            st.builds(lambda a, b: a + b, st.sampled_from([LAST_TRY, RETRYING_1, FAILED_1]), st.text(max_size=40)),
            st.builds(
                lambda a, n: LAST_TRY.replace("4s", f"{n}s"), st.just(LAST_TRY), st.text("0123456789.e-", max_size=12)
            ),
        ),
        max_size=8,
    )
)
def test_any_stderr_line_of_hermes_never_raises_and_a_note_says_a_sane_wait(lines: list[str]) -> None:
    adapter, ctx = hermes_prompting()
    for line in lines:
        for event in adapter.stderr_events(line, ctx):
            if event.type == "retry":
                assert event.delay_ms is None or 0 <= event.delay_ms <= 3_600_000, event


def test_hermes_log_lines_outside_a_prompt_say_nothing() -> None:
    adapter, ctx = hermes_prompting()
    list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}), ctx))
    assert [e for text in (FAILED_1, RETRYING_1) for e in adapter.stderr_events(text, ctx)] == []


# ── hermes asks before every command: acp-mux's plugin (issue 21, item 1) ──────────────────────────────────────────


def load_plugin() -> types.ModuleType:
    """The plugin as hermes loads it: a module from the file, with nothing of acp-mux on hand."""
    spec = importlib.util.spec_from_file_location("acp_mux_asks_under_test", hermes_plugins.SOURCE / "acp_mux_asks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLUGIN = load_plugin()
ASKS_FOR = {"terminal", "execute_code"}
commands = st.text(min_size=1, max_size=80)


def hermes_question(rpc_id: int, tool_name: str, reason: str) -> dict[str, Any]:
    """The request_permission hermes 0.19.0 sends for a plugin's "approve" (tools.approval.request_tool_approval,
    then acp_adapter.permissions: label "<tool> (plugin approval rule)", the plugin's message as description)."""
    target = f"<{tool_name}> (plugin approval rule)"
    options = [
        {"optionId": o, "name": o, "kind": k}
        for o, k in (
            ("allow_once", "allow_once"),
            ("allow_session", "allow_always"),
            ("allow_always", "allow_always"),
            ("deny", "reject_once"),
            ("deny_always", "reject_always"),
        )
    ]
    return {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "session/request_permission",
        "params": {
            "sessionId": "s1",
            "options": options,
            "toolCall": {
                "toolCallId": f"perm-check-{rpc_id}",
                "title": f"{reason}: {target}",
                "kind": "execute",
                "status": "pending",
                "content": [{"type": "content", "content": {"type": "text", "text": f"{reason}\n$ {target}"}}],
                "rawInput": {"command": target, "description": reason},
            },
        },
    }


def update(body: dict[str, Any]) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": body}})


def answers(ctx: ParseContext) -> list[Any]:
    return [json.loads(m)["result"] for m in ctx.take_outbox() if "result" in json.loads(m)]


@given(tool=st.sampled_from(sorted(ASKS_FOR)), command=commands)
def test_the_plugin_asks_before_every_command_naming_it_exactly(tool: str, command: str) -> None:
    args = {"command": command} if tool == "terminal" else {"code": command}
    directive = PLUGIN.ask_first(tool_name=tool, args=args, task_id="t", session_id="s")
    assert directive is not None and directive["action"] == "approve"
    assert directive["message"].endswith(command) and directive["message"].startswith(PLUGIN.MARK)
    assert plugin_command(
        {"rawInput": {"command": f"<{tool}> (plugin approval rule)", "description": directive["message"]}}
    ) == PLUGIN.what_runs(tool, args)


@given(a=commands, b=commands)
def test_an_always_key_of_the_plugin_covers_one_command_only(a: str, b: str) -> None:
    keys = [PLUGIN.ask_first(tool_name="terminal", args={"command": c})["rule_key"] for c in (a, b)]
    assert (keys[0] == keys[1]) == (a == b)


@given(
    tool=st.text(max_size=20).filter(lambda t: t not in ASKS_FOR | {"process"}),
    args=st.dictionaries(st.text(max_size=8), st.text(max_size=8)),
)
def test_the_plugin_leaves_tools_that_run_nothing_alone(tool: str, args: dict[str, str]) -> None:
    assert PLUGIN.ask_first(tool_name=tool, args=args) is None


@pytest.mark.parametrize(
    ("action", "asked"),
    [
        ("list", False),
        ("poll", False),
        ("log", False),
        ("wait", False),
        ("kill", True),
        ("write", True),
        ("submit", True),
        ("close", True),
    ],
)
def test_the_plugin_asks_before_process_actions_that_act(action: str, asked: bool) -> None:
    assert (PLUGIN.ask_first(tool_name="process", args={"action": action, "session_id": "p1"}) is not None) == asked


@given(command=commands, description=st.text(max_size=60))
def test_a_question_hermes_asks_of_its_own_never_passes_for_the_plugins(command: str, description: str) -> None:
    """An attacker writes the command (even hermes' plugin label itself); hermes writes the description of a
    dangerous-command question from its own patterns, never the plugin's words."""
    own = {"rawInput": {"command": command, "description": description}}
    if not description.startswith("acp-mux asks before every command: "):
        assert plugin_command(own) is None
    assert plugin_command({"rawInput": {"command": command, "description": f"{PLUGIN.MARK}: x"}}) in (None, "x")
    if not command.startswith("<") or "(plugin approval rule)" not in command:
        assert plugin_command({"rawInput": {"command": command, "description": f"{PLUGIN.MARK}: x"}}) is None


def hermes_asking(mode: str | None = None) -> tuple[HermesAdapter, ParseContext]:
    adapter, ctx = AsTheRunDrives(HermesAdapter()), ParseContext(run_id="r1", agent="hermes", cwd="/p")
    adapter.start(RunOptions(agent="hermes", cwd="/p", mode=mode, prompt=Prompt.of_text("touch it")), ctx)
    for reply in (
        {"id": 1, "result": {"protocolVersion": 1, "agentCapabilities": {}}},
        {"id": 2, "result": {"sessionId": "s1"}},
    ):
        list(adapter.parse_line(json.dumps({"jsonrpc": "2.0", **reply}), ctx))
    ctx.take_outbox()
    return adapter, ctx


def test_an_allowed_command_is_one_call_asked_then_run_then_completed() -> None:
    adapter, ctx = hermes_asking()
    reason = PLUGIN.ask_first(tool_name="terminal", args={"command": "touch /p/made.txt"})["message"]
    events = list(adapter.parse_line(json.dumps(hermes_question(7, "terminal", reason)), ctx))
    (start,) = [e for e in events if e.type == "tool_call_start"]
    (ask,) = [e for e in events if e.type == "approval_request"]
    assert ask.tool_call_id == start.tool_call_id and ask.input == {"command": "touch /p/made.txt"}
    assert ask.action == "touch /p/made.txt"
    adapter.respond_approval(ask.interaction_id, ApprovalDecision(approve=True), ctx)
    assert answers(ctx) == [{"outcome": {"outcome": "selected", "optionId": "allow_once"}}]  # never hermes' "always"
    events = list(
        adapter.parse_line(
            update(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "tc-1",
                    "kind": "execute",
                    "title": "terminal: touch /p/made.txt",
                }
            ),
            ctx,
        )
    )
    assert not [e for e in events if e.type == "tool_call_start"], events  # hermes' own call is the asked one
    events = list(
        adapter.parse_line(
            update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "tc-1",
                    "kind": "execute",
                    "status": "completed",
                    "content": [],
                }
            ),
            ctx,
        )
    )
    assert [e.tool_call_id for e in events if e.type == "tool_result"] == [start.tool_call_id]


def test_a_rejected_command_fails_and_hermes_gets_its_deny() -> None:
    adapter, ctx = hermes_asking()
    reason = PLUGIN.ask_first(tool_name="terminal", args={"command": "touch /p/made.txt"})["message"]
    events = list(adapter.parse_line(json.dumps(hermes_question(7, "terminal", reason)), ctx))
    (ask,) = [e for e in events if e.type == "approval_request"]
    adapter.respond_approval(ask.interaction_id, ApprovalDecision(approve=False), ctx)
    assert answers(ctx) == [{"outcome": {"outcome": "selected", "optionId": "deny"}}]
    later = list(
        adapter.parse_line(
            update({"sessionUpdate": "tool_call", "toolCallId": "tc-2", "kind": "execute", "title": "terminal: ls"}),
            ctx,
        )
    )
    assert [e.tool_call_id for e in later if e.type == "tool_call_start"] == [
        "tc-2"
    ]  # never merged into the refused one


def test_mode_dont_ask_answers_the_plugins_question_but_not_hermes_own() -> None:
    adapter, ctx = hermes_asking("dont_ask")
    reason = PLUGIN.ask_first(tool_name="terminal", args={"command": "touch /p/made.txt"})["message"]
    assert list(adapter.parse_line(json.dumps(hermes_question(7, "terminal", reason)), ctx)) == []
    assert answers(ctx) == [{"outcome": {"outcome": "selected", "optionId": "allow_once"}}]
    own = hermes_question(8, "terminal", "delete in root path")
    own["params"]["toolCall"]["rawInput"] = {"command": "rm -rf /p/x", "description": "delete in root path"}
    events = list(adapter.parse_line(json.dumps(own), ctx))
    assert [e.type for e in events if e.type == "approval_request"] == ["approval_request"]
    assert answers(ctx) == []


def fake_hermes_install(root: Path) -> Path:
    """A pip-style install: <venv>/bin/hermes with a #! line, and hermes' bundled plugins in site-packages."""
    bundled = root / "venv" / "lib" / "python3.11" / "site-packages" / "plugins"
    for name in ("image_gen", "security-guidance"):
        (bundled / name).mkdir(parents=True)
    (bundled / "plugin_utils.py").write_text("")
    script = root / "venv" / "bin" / "hermes"
    script.parent.mkdir(parents=True)
    script.write_text(f"#!{root}/venv/bin/python\nimport sys\n")
    return script


def test_the_overlay_keeps_hermes_bundled_plugins_and_adds_ours_privately(tmp_path: Path) -> None:
    script = fake_hermes_install(tmp_path)
    bundled = hermes_plugins.bundled_dir(str(script), {})
    assert bundled == str(tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "plugins")
    made = hermes_plugins.overlay(bundled)
    info = os.lstat(made)
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
    assert sorted(os.listdir(made)) == ["acp-mux-asks", "image_gen", "plugin_utils.py", "security-guidance"]
    assert os.readlink(os.path.join(made, "image_gen")) == os.path.join(bundled, "image_gen")
    ours = Path(made) / "acp-mux-asks"
    assert (ours / "__init__.py").read_text() == (hermes_plugins.SOURCE / "acp_mux_asks.py").read_text()
    assert "kind: backend" in (ours / "plugin.yaml").read_text()  # bundled backends load without plugins.enabled
    assert hermes_plugins.overlay(bundled) == made  # once per bundled folder


def test_hermes_is_started_on_the_overlay_and_the_persons_own_setting_is_mirrored(tmp_path: Path) -> None:
    script = fake_hermes_install(tmp_path)
    theirs = tmp_path / "their-plugins"
    (theirs / "mine").mkdir(parents=True)
    env = {"PATH": "/usr/bin", "HERMES_BUNDLED_PLUGINS": str(theirs)}
    spec = HermesAdapter().build_spawn(RunOptions(agent="hermes", cwd=str(tmp_path), binary=str(script), env=env))
    assert spec.env is not None and spec.env["PATH"] == "/usr/bin"
    overlay = spec.env["HERMES_BUNDLED_PLUGINS"]
    assert sorted(os.listdir(overlay)) == ["acp-mux-asks", "mine"]
    assert env["HERMES_BUNDLED_PLUGINS"] == str(theirs)  # the options' env is not changed


@given(first=st.binary(max_size=60))
def test_any_first_line_of_the_hermes_script_gives_a_folder_or_nothing(first: bytes) -> None:
    with tempfile.NamedTemporaryFile("wb", delete=False) as fh:
        fh.write(first + b"\n")
    try:
        assert isinstance(hermes_plugins.bundled_dir(fh.name, {}), str)
    finally:
        os.unlink(fh.name)


def test_the_rule_key_is_a_digest_of_the_command() -> None:
    key = PLUGIN.ask_first(tool_name="terminal", args={"command": "ls"})["rule_key"]
    assert key == "acp-mux:terminal:" + hashlib.sha256("terminal\0ls".encode()).hexdigest()[:24]


def test_a_hermes_without_the_plugin_that_runs_a_command_unasked_is_said_once(tmp_path: Path) -> None:
    """The recordings are of hermes before acp-mux's plugin: its echo ran unasked. The person is told once."""
    result = run("write_edit_allow", tmp_path)
    assert result.text().count(NOT_ASKING) == 1
    assert result.text().index(NOT_ASKING) < result.text().index("Creating notes.txt")


def test_a_command_the_plugin_asked_about_or_a_dont_ask_session_says_nothing_of_it() -> None:
    for mode, answer in ((None, True), ("dont_ask", None)):
        adapter, ctx = hermes_asking(mode)
        reason = PLUGIN.ask_first(tool_name="terminal", args={"command": "ls"})["message"]
        events = list(adapter.parse_line(json.dumps(hermes_question(7, "terminal", reason)), ctx))
        for ask in (e for e in events if e.type == "approval_request"):
            adapter.respond_approval(ask.interaction_id, ApprovalDecision(approve=bool(answer)), ctx)
        if mode == "dont_ask":  # nothing asked: hermes announces the call itself
            events = []
        events += adapter.parse_line(
            update({"sessionUpdate": "tool_call", "toolCallId": "tc-1", "kind": "execute", "title": "terminal: ls"}),
            ctx,
        )
        assert not any(NOT_ASKING in getattr(e, "delta", "") for e in events), (mode, events)


def test_switching_to_dont_ask_and_back_mid_session_stops_then_resumes_asking() -> None:
    adapter, ctx = hermes_asking()
    reason = PLUGIN.ask_first(tool_name="terminal", args={"command": "ls"})["message"]
    asked = []
    for rpc_id, mode in ((7, "dont_ask"), (8, "default")):
        assert adapter.set_mode(mode, ctx)
        ctx.take_outbox()
        events = list(adapter.parse_line(json.dumps(hermes_question(rpc_id, "terminal", reason)), ctx))
        asked.append([e.type for e in events if e.type == "approval_request"])
    assert asked == [[], ["approval_request"]]
