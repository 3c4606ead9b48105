"""UpdateTranslator: normalized events → exact ACP ``session/update`` payloads (wire-form dicts).

Events are the real pydantic models from ``acp_mux.core.events.union``; tool kinds, titles, locations and diffs come from the
adapters' real tool tables (Claude's, Codex's, the scripted demo's). Every payload is also validated with the ACP
SDK's schema (``helpers.acp_valid``).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from acp_mux.core.events import union as ev
from acp_mux.adapters.stream_agents.claude_tools import CLAUDE_TOOLS
from acp_mux.adapters.stream_agents.codex_exec import CODEX_TOOLS
from acp_mux.adapters.stream_agents.scripted import TOOLS as SCRIPTED_TOOLS
from tests.translation.helpers import acp_valid
from acp_mux.translation import updates as updates_module
from acp_mux.translation.updates import UpdateTranslator

CWD = "/w"


def run(tr: UpdateTranslator, *events: ev.BaseEvent) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in events:
        out += tr.translate(event)
    return acp_valid(out)


def claude(cwd: str = CWD, **kw: Any) -> UpdateTranslator:
    return UpdateTranslator(CLAUDE_TOOLS, cwd, **kw)


def codex(cwd: str = CWD, **kw: Any) -> UpdateTranslator:
    return UpdateTranslator(CODEX_TOOLS, cwd, **kw)


def start(tool_id: str, name: str, tool_input: Any = None) -> ev.ToolCallStartEvent:
    accumulated = json.dumps(tool_input) if tool_input is not None else ""
    return ev.ToolCallStartEvent(tool_call_id=tool_id, tool_name=name, input_accumulated=accumulated)


def ready(tool_id: str, name: str, tool_input: Any) -> ev.ToolCallReadyEvent:
    return ev.ToolCallReadyEvent(tool_call_id=tool_id, tool_name=name, input=tool_input)


def result(tool_id: str, name: str, output: Any) -> ev.ToolResultEvent:
    return ev.ToolResultEvent(tool_call_id=tool_id, tool_name=name, output=output)


def text(t: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": t}}


def console(t: str) -> dict[str, Any]:
    return text(f"```console\n{t}\n```")


def in_progress(tool_id: str) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": "in_progress"}


class Clock:
    """Stands in for ``time`` in acp_mux.translation.updates so the live-output throttle is deterministic."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(updates_module, "time", SimpleNamespace(monotonic=c.monotonic))
    return c


# ── text, thoughts, commands ────────────────────────────────────────────────────────────────────────────────────
def test_text_and_thinking_deltas_become_message_and_thought_chunks() -> None:
    out = run(claude(), ev.TextDeltaEvent(delta="Hel"), ev.ThinkingDeltaEvent(delta="hmm"))
    assert out == [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}},
        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}},
    ]


def test_session_start_with_commands_becomes_available_commands_update() -> None:
    commands = [ev.SlashCommand(name="review", description="Review the diff"), ev.SlashCommand(name="init")]
    out = run(claude(), ev.SessionStartEvent(session_id="s1", commands=commands))
    assert out == [
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [
                {"name": "review", "description": "Review the diff"},
                {"name": "init", "description": ""},
            ],
        }
    ]


@pytest.mark.parametrize("commands", [None, []])
def test_session_start_without_commands_sends_nothing(commands: Any) -> None:
    assert run(claude(), ev.SessionStartEvent(session_id="s1", commands=commands)) == []


def test_events_without_an_acp_form_send_nothing() -> None:
    tr = claude()
    assert run(tr, ev.DebugEvent(message="x"), ev.TurnStartEvent(turn_index=0), ev.MessageStopEvent(text="x")) == []
    assert run(tr, ev.SubagentSpawnEvent(subagent_id="t", agent_name="a", prompt="p")) == []


# ── tool calls: announce, refine, finish ────────────────────────────────────────────────────────────────────────
def test_streamed_tool_is_announced_once_then_refined_when_its_input_completes() -> None:
    tr = claude()
    announced = run(tr, start("t1", "Read"), start("t1", "Read"))  # started twice: shown once
    assert announced == [
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read", "status": "pending"}
    ]
    tool_input = {"file_path": "src/a.py", "offset": 10, "limit": 5}
    assert run(tr, ready("t1", "Read", tool_input)) == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "Read src/a.py (10 - 14)",
            "rawInput": tool_input,
            "locations": [{"path": "/w/src/a.py", "line": 10}],
        }
    ]
    assert run(tr, result("t1", "Read", "line ten")) == [
        in_progress("t1"),
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "completed",
            "rawOutput": "line ten",
            "content": [text("line ten")],
        },
    ]
    assert tr.tool_status("t1") is None  # finished tools are forgotten
    assert run(tr, result("t1", "Read", "again")) == []  # a late duplicate result changes nothing


def test_tool_whose_input_arrives_whole_is_titled_at_announce_and_not_retitled() -> None:
    tr = claude()
    tool_input = {"file_path": "/w/pkg/mod.py"}
    assert run(tr, start("t1", "Read", tool_input)) == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Read pkg/mod.py",
            "kind": "read",
            "status": "pending",
            "rawInput": tool_input,
        }
    ]
    assert run(tr, ready("t1", "Read", tool_input)) == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "rawInput": tool_input,
            "locations": [{"path": "/w/pkg/mod.py"}],
        }
    ]


def test_ready_without_start_announces_then_refines() -> None:
    tr = claude()
    assert run(tr, ready("t1", "Glob", {"pattern": "*.py", "path": "src"})) == [
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Glob", "kind": "search", "status": "pending"},
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "Find *.py in src",
            "rawInput": {"pattern": "*.py", "path": "src"},
            "locations": [{"path": "/w/src"}],
        },
    ]


def test_paths_outside_cwd_stay_absolute_in_titles_and_locations() -> None:
    out = run(
        claude(), start("t1", "Read", {"file_path": "/etc/hosts"}), ready("t1", "Read", {"file_path": "/etc/hosts"})
    )
    assert out[0]["title"] == "Read /etc/hosts"
    assert out[1]["locations"] == [{"path": "/etc/hosts"}]


def test_relative_location_is_normalized_against_cwd() -> None:
    out = run(claude(cwd="/w/proj"), ready("t1", "Read", {"file_path": "../lib/./x.py"}))
    assert out[1]["locations"] == [{"path": "/w/lib/x.py"}]


def test_long_titles_are_one_line_and_bounded() -> None:
    command = "echo " + "word\n" * 60
    out = run(claude(), start("t1", "Bash", {"command": command}))
    title = out[0]["title"]
    assert "\n" not in title
    assert len(title) <= 120 and title.endswith("…") and title.startswith("echo word word")


def test_unknown_tool_uses_the_table_default_and_its_name() -> None:
    out = run(claude(), start("t1", "Frobnicate", {"x": 1}))
    assert out == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Frobnicate",
            "kind": "other",
            "status": "pending",
            "rawInput": {"x": 1},
        }
    ]


def test_huge_tool_input_is_capped_in_raw_input() -> None:
    big = "x" * 20_000
    items = list(range(250))
    out = run(claude(), start("t1", "Write", {"file_path": "/w/a", "content": big, "items": items}))
    raw = out[0]["rawInput"]
    assert raw["content"] == "x" * 8000 + "\n… [4000 characters omitted] …\n" + "x" * 8000
    assert raw["items"] == items[:200] + ["… [50 more items]"]
    assert raw["file_path"] == "/w/a"


def test_result_text_from_content_blocks_and_json_output() -> None:
    tr = claude()
    run(tr, start("t1", "WebFetch", {"url": "https://x"}), start("t2", "WebSearch", {"query": "acp"}))
    blocks = [{"type": "text", "text": "one"}, {"type": "image", "data": "AAA"}, {"type": "text", "text": "two"}]
    assert run(tr, result("t1", "WebFetch", blocks))[-1]["content"] == [text("one\ntwo")]
    assert run(tr, result("t2", "WebSearch", {"hits": 2}))[-1]["content"] == [text('{\n "hits": 2\n}')]


def test_tool_result_without_output_has_no_content() -> None:
    tr = claude()
    run(tr, start("t1", "LS", {"path": "/w"}))
    assert run(tr, result("t1", "LS", None)) == [
        in_progress("t1"),
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
    ]


def test_failed_tool_reports_failed_with_the_error_as_content() -> None:
    tr = claude()
    run(tr, start("t1", "Read", {"file_path": "/w/missing.py"}), ready("t1", "Read", {"file_path": "/w/missing.py"}))
    out = run(tr, ev.ToolErrorEvent(tool_call_id="t1", tool_name="Read", error="File does not exist."))
    assert out == [  # a tool that never ran goes straight from pending to failed
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "failed",
            "rawOutput": "File does not exist.",
            "content": [text("File does not exist.")],
        },
    ]


def test_failed_command_without_shell_events_shows_its_error_fenced() -> None:
    tr = codex()
    run(tr, start("c1", "shell", {"command": "make"}))
    out = run(tr, ev.ToolErrorEvent(tool_call_id="c1", tool_name="shell", error="make: *** no rule"))
    assert out[-1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "failed",
        "rawOutput": "make: *** no rule",
        "content": [console("make: *** no rule")],
    }


def test_huge_result_is_capped_in_content_and_raw_output() -> None:
    tr = claude()
    run(tr, start("t1", "Read", {"file_path": "/w/a"}))
    big = "y" * 40_000
    capped = "y" * 8000 + "\n… [24000 characters omitted] …\n" + "y" * 8000
    final = run(tr, result("t1", "Read", big))[-1]
    assert final["rawOutput"] == capped
    assert final["content"] == [text(capped)]


# ── edits and diffs ─────────────────────────────────────────────────────────────────────────────────────────────
def test_write_of_a_new_file_shows_a_diff_with_no_old_text(tmp_path: Any) -> None:
    tr = claude(cwd=str(tmp_path))
    tool_input = {"file_path": "new.txt", "content": "hello\n"}
    out = run(tr, start("t1", "Write"), ready("t1", "Write", tool_input))
    path = str(tmp_path / "new.txt")
    assert out[1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "title": "Write new.txt",
        "rawInput": tool_input,
        "content": [{"type": "diff", "path": path, "newText": "hello\n", "oldText": None}],
        "locations": [{"path": path}],
    }


def test_write_over_an_existing_file_diffs_against_its_current_content(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("old body\n")
    tr = claude(cwd=str(tmp_path))
    out = run(
        tr,
        start("t1", "Write", {"file_path": str(tmp_path / "a.txt"), "content": "new body\n"}),
        ready("t1", "Write", {"file_path": str(tmp_path / "a.txt"), "content": "new body\n"}),
    )
    assert out[0]["title"] == "Write a.txt"
    assert out[1]["content"] == [
        {"type": "diff", "path": str(tmp_path / "a.txt"), "newText": "new body\n", "oldText": "old body\n"}
    ]


def test_edit_shows_old_and_new_strings_and_keeps_the_diff_when_completed() -> None:
    tr = claude()
    tool_input = {"file_path": "/w/src/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    out = run(tr, start("t1", "Edit", tool_input), ready("t1", "Edit", tool_input))
    assert out == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Edit src/a.py",
            "kind": "edit",
            "status": "pending",
            "rawInput": tool_input,
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "rawInput": tool_input,
            "content": [{"type": "diff", "path": "/w/src/a.py", "newText": "x = 2", "oldText": "x = 1"}],
            "locations": [{"path": "/w/src/a.py"}],
        },
    ]
    # completion must not replace the diff with the tool's "file updated" text
    assert run(tr, result("t1", "Edit", "The file has been updated.")) == [
        in_progress("t1"),
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "completed",
            "rawOutput": "The file has been updated.",
        },
    ]


def test_failed_edit_keeps_its_diff_and_adds_the_error() -> None:
    tr = claude()
    tool_input = {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"}
    run(tr, start("t1", "Edit", tool_input), ready("t1", "Edit", tool_input))
    out = run(tr, ev.ToolErrorEvent(tool_call_id="t1", tool_name="Edit", error="String to replace not found"))
    assert out[-1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "status": "failed",
        "rawOutput": "String to replace not found",
        "content": [
            {"type": "diff", "path": "/w/a.py", "newText": "b", "oldText": "a"},
            text("String to replace not found"),
        ],
    }


def test_multi_edit_shows_one_diff_per_edit() -> None:
    tool_input = {
        "file_path": "/w/a.py",
        "edits": [{"old_string": "a", "new_string": "A"}, {"old_string": "b", "new_string": "B"}],
    }
    out = run(claude(), start("t1", "MultiEdit", tool_input), ready("t1", "MultiEdit", tool_input))
    assert out[0]["title"] == "Edit a.py (2 edits)"
    assert out[1]["content"] == [
        {"type": "diff", "path": "/w/a.py", "newText": "A", "oldText": "a"},
        {"type": "diff", "path": "/w/a.py", "newText": "B", "oldText": "b"},
    ]
    assert out[1]["locations"] == [{"path": "/w/a.py"}]


def test_malformed_edit_input_keeps_the_tool_without_a_diff() -> None:
    out = run(claude(), start("t1", "Edit"), ready("t1", "Edit", {"old_string": "a"}))  # no file_path
    assert out[1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "title": "Edit …",
        "rawInput": {"old_string": "a"},
    }


def test_codex_apply_patch_takes_diffs_and_locations_from_its_changes() -> None:
    update_diff = "@@ -1,2 +1,2 @@\n keep\n-old\n+new\n@@ -10 +10 @@\n-x\n+y\n"
    tool_input = {
        "changes": [
            {"path": "src/a.py", "kind": "update", "diff": update_diff},
            {"path": "/w/notes.md", "kind": "add", "diff": "# notes\n"},
        ]
    }
    out = run(codex(), start("p1", "apply_patch", tool_input), ready("p1", "apply_patch", tool_input))
    assert out[0] == {
        "sessionUpdate": "tool_call",
        "toolCallId": "p1",
        "title": "Edit src/a.py, /w/notes.md",
        "kind": "edit",
        "status": "pending",
        "rawInput": tool_input,
    }
    assert out[1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "p1",
        "rawInput": tool_input,
        "content": [
            {"type": "diff", "path": "/w/src/a.py", "newText": "keep\nnew\n", "oldText": "keep\nold\n"},
            {"type": "diff", "path": "/w/src/a.py", "newText": "y\n", "oldText": "x\n"},
            {"type": "diff", "path": "/w/notes.md", "newText": "# notes\n", "oldText": None},
        ],
        "locations": [{"path": "/w/src/a.py"}, {"path": "/w/notes.md"}],  # one per file, in order
    }


def test_codex_delete_change_shows_the_file_emptied() -> None:
    tool_input = {"changes": [{"path": "gone.txt", "kind": "delete", "diff": "bye\n"}]}
    out = run(codex(), ready("p1", "apply_patch", tool_input))
    assert out[1]["content"] == [{"type": "diff", "path": "/w/gone.txt", "newText": "", "oldText": "bye\n"}]
    assert out[1]["locations"] == [{"path": "/w/gone.txt"}]


def test_patch_without_diff_text_still_points_at_its_files() -> None:
    tool_input = {"changes": [{"path": "a.txt", "kind": "update"}]}  # codex exec mode: no diff text
    out = run(codex(), ready("p1", "apply_patch", tool_input))
    assert out[1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "p1",
        "title": "Edit a.txt",
        "rawInput": tool_input,
        "locations": [{"path": "/w/a.txt"}],
    }


def test_moved_file_is_located_at_its_destination() -> None:
    tool_input = {
        "changes": [
            {"path": "old.py", "kind": {"type": "update", "move_path": "new.py"}, "diff": "@@ -1 +1 @@\n-a\n+b\n"}
        ]
    }
    out = run(codex(), ready("p1", "apply_patch", tool_input))
    assert out[1]["title"] == "Edit new.py"
    assert out[1]["content"] == [{"type": "diff", "path": "/w/new.py", "newText": "b\n", "oldText": "a\n"}]
    assert out[1]["locations"] == [{"path": "/w/new.py"}]


# ── shell output ────────────────────────────────────────────────────────────────────────────────────────────────
def bash(tr: UpdateTranslator, command: str = "make test") -> list[dict[str, Any]]:
    tool_input = {"command": command}
    return run(
        tr,
        start("b1", "Bash", tool_input),
        ready("b1", "Bash", tool_input),
        ev.ShellStartEvent(command=command, cwd=CWD),
    )


def stdout(delta: str) -> ev.ShellStdoutDeltaEvent:
    return ev.ShellStdoutDeltaEvent(delta=delta)


def live(tool_id: str, body: str) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "content": [console(body)]}


def test_shell_start_moves_its_command_tool_to_in_progress(clock: Clock) -> None:
    out = bash(claude())
    assert out[-1] == in_progress("b1")
    assert [u["sessionUpdate"] for u in out] == ["tool_call", "tool_call_update", "tool_call_update"]


def test_live_output_is_throttled_and_flushed_when_the_stream_goes_quiet(clock: Clock) -> None:
    tr = claude()
    bash(tr)
    assert run(tr, stdout("one\n")) == [live("b1", "one")]
    clock.now += 0.05
    assert run(tr, stdout("two\n"), ev.ShellStderrDeltaEvent(delta="warn\n")) == []  # within 100 ms: held back
    assert acp_valid(tr.flush_live_output()) == [live("b1", "one\ntwo\nwarn")]
    assert tr.flush_live_output() == []  # nothing new since
    clock.now += 0.1
    assert run(tr, stdout("three")) == [live("b1", "one\ntwo\nwarn\nthree")]  # a partial line is shown too
    clock.now += 0.01
    run(tr, stdout("!\n"))
    assert run(tr, ev.ShellExitEvent(exit_code=0)) == [live("b1", "one\ntwo\nwarn\nthree!")]  # exit forces a flush
    assert run(tr, result("b1", "Bash", "one\ntwo\nthree!\n")) == [
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "b1",
            "status": "completed",
            "rawOutput": "one\ntwo\nthree!\n",
            "content": [console("one\ntwo\nwarn\nthree!")],
        }
    ]
    assert tr.flush_live_output() == []


def test_live_output_shows_the_latest_lines_and_the_result_the_bounded_head_and_tail(clock: Clock) -> None:
    tr = claude()
    bash(tr)
    lines = [f"line {i}" for i in range(1000)]
    # while running: only the latest 50 lines (a few KB per refresh, however long the command has been going)
    assert run(tr, stdout("\n".join(lines[:500]) + "\n")) == [
        live("b1", "\n".join(["… [450 earlier lines] …"] + lines[450:500]))
    ]
    clock.now += 1
    assert run(tr, stdout("\n".join(lines[500:]) + "\n")) == [
        live("b1", "\n".join(["… [950 earlier lines] …"] + lines[950:]))
    ]
    # at the end: the first 200 and last 200 lines, with what was left out counted
    expected = "\n".join(lines[:200] + ["… [600 lines omitted] …"] + lines[800:])
    final = run(tr, ev.ShellExitEvent(exit_code=0), result("b1", "Bash", "\n".join(lines)))
    assert final[-1]["content"] == [console(expected)]


def test_output_containing_a_fence_gets_a_longer_fence(clock: Clock) -> None:
    tr = claude()
    bash(tr)
    out = run(tr, stdout("```py\nx\n```\n"))
    assert out[0]["content"] == [text("````console\n```py\nx\n```\n````")]


def test_shell_output_without_a_running_command_is_ignored() -> None:
    tr = claude()
    assert run(tr, stdout("stray\n"), ev.ShellExitEvent(exit_code=0)) == []
    assert tr.flush_live_output() == []


def test_command_that_printed_nothing_ends_with_its_result_text(clock: Clock) -> None:
    tr = claude()
    bash(tr, "true")
    assert run(tr, ev.ShellExitEvent(exit_code=0)) == []
    assert run(tr, result("b1", "Bash", "")) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "completed", "rawOutput": ""}
    ]


def test_terminal_meta_streams_append_only_deltas_coalesced_per_interval(clock: Clock) -> None:
    tr = claude(terminal_output_meta=True)
    out = bash(tr)
    assert out[-2:] == [
        in_progress("b1"),
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "b1",
            "content": [{"type": "terminal", "terminalId": "b1"}],
            "_meta": {"terminal_info": {"terminal_id": "b1", "cwd": CWD}},
        },
    ]

    def term(data: str) -> dict:
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "b1",
            "_meta": {"terminal_output": {"terminal_id": "b1", "data": data}},
        }

    # the first delta goes at once; more within 100 ms are held and sent together, each byte exactly once
    assert run(tr, stdout("a\n"), stdout("b\n"), ev.ShellStderrDeltaEvent(delta="c")) == [term("a\n")]
    assert tr.flush_live_output() == [term("b\nc")]
    assert tr.flush_live_output() == []
    clock.now += 0.1
    assert run(tr, stdout("d\n")) == [term("d\n")]
    clock.now += 0.01
    assert run(tr, stdout("e\n")) == []
    assert run(tr, ev.ShellExitEvent(exit_code=3)) == [  # exit flushes what was held, then closes the terminal
        term("e\n"),
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "b1",
            "_meta": {"terminal_exit": {"terminal_id": "b1", "exit_code": 3, "signal": None}},
        },
    ]
    # the terminal already shows the output: the final update does not repeat it
    assert run(tr, ev.ToolErrorEvent(tool_call_id="b1", tool_name="Bash", error="Exit code 3")) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "failed", "rawOutput": "Exit code 3"}
    ]


def test_terminal_output_held_back_is_sent_when_the_tool_ends_without_an_exit_event(clock: Clock) -> None:
    tr = claude(terminal_output_meta=True)
    bash(tr)
    run(tr, stdout("a\n"))
    assert run(tr, stdout("tail")) == []
    final = run(tr, result("b1", "Bash", "a\ntail"))
    assert final[0]["_meta"]["terminal_output"]["data"] == "tail" and final[-1]["status"] == "completed"


def test_terminal_info_uses_the_translator_cwd_when_the_command_has_none(clock: Clock) -> None:
    tr = codex(terminal_output_meta=True)
    run(tr, start("c1", "shell", {"command": "ls"}))
    out = run(tr, ev.ShellStartEvent(command="ls"))
    assert out[-1]["_meta"] == {"terminal_info": {"terminal_id": "c1", "cwd": CWD}}


@pytest.mark.parametrize("table", [SCRIPTED_TOOLS, CLAUDE_TOOLS], ids=["scripted", "claude"])
def test_command_without_a_tool_call_gets_a_synthetic_execute_tool(table: Any, clock: Clock) -> None:
    tr = UpdateTranslator(table, CWD)
    out = run(tr, ev.ShellStartEvent(command="ls  -la\n", cwd=CWD))
    assert out == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "shell-1",
            "title": "ls -la",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"command": "ls  -la\n"},
        },
        in_progress("shell-1"),
    ]
    clock.now += 1
    run(tr, stdout("x\n"))
    clock.now += 0.01
    run(tr, stdout("y\n"))
    assert run(tr, ev.ShellExitEvent(exit_code=2)) == [
        live("shell-1", "x\ny"),
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "shell-1",
            "status": "failed",
            "content": [console("x\ny")],
        },
    ]
    assert tr.tool_status("shell-1") is None
    second = run(tr, ev.ShellStartEvent(command="pwd"), ev.ShellExitEvent(exit_code=0))
    assert [(u["toolCallId"], u.get("status")) for u in second] == [
        ("shell-2", "pending"),
        ("shell-2", "in_progress"),
        ("shell-2", "completed"),
    ]


def test_nested_output_goes_to_the_innermost_running_command(clock: Clock) -> None:
    tr = codex()
    run(tr, start("c1", "shell", {"command": "outer"}), ev.ShellStartEvent(command="outer"))
    run(tr, start("c2", "shell", {"command": "inner"}), ev.ShellStartEvent(command="inner"))
    assert run(tr, stdout("from inner\n")) == [live("c2", "from inner")]
    run(tr, result("c2", "shell", "from inner"))
    clock.now += 1
    assert run(tr, stdout("from outer\n")) == [live("c1", "from outer")]


# ── plans ───────────────────────────────────────────────────────────────────────────────────────────────────────
def test_todo_write_becomes_a_plan_and_never_a_tool_call() -> None:
    todos = {
        "todos": [
            {"content": "Read code", "status": "completed", "activeForm": "Reading"},
            {"content": "Write tests", "status": "in_progress", "priority": "high"},
            {"content": "Ship", "status": "pending"},
        ]
    }
    tr = claude()
    assert run(tr, start("p1", "TodoWrite")) == []
    assert run(tr, ready("p1", "TodoWrite", todos)) == [
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Read code", "priority": "medium", "status": "completed"},
                {"content": "Write tests", "priority": "high", "status": "in_progress"},
                {"content": "Ship", "priority": "medium", "status": "pending"},
            ],
        }
    ]
    assert run(tr, result("p1", "TodoWrite", "Todos have been modified")) == []
    assert tr.close_open_tools() == []
    # an agent that reports the todo tool only once its input is complete still updates the plan
    late = claude()
    assert [u["sessionUpdate"] for u in run(late, ready("p2", "TodoWrite", todos))] == ["plan"]
    assert run(late, result("p2", "TodoWrite", "ok")) == [] and late.close_open_tools() == []


def test_codex_update_plan_steps_become_plan_entries() -> None:
    plan = {
        "plan": [{"step": "Inspect", "status": "completed"}, {"step": "Fix", "status": "in_progress"}],
        "explanation": "why",
    }
    out = run(
        codex(),
        start("u1", "update_plan", plan),
        ready("u1", "update_plan", plan),
        result("u1", "update_plan", "Plan updated"),
    )
    assert out == [
        {
            "sessionUpdate": "plan",
            "entries": [
                {"content": "Inspect", "priority": "medium", "status": "completed"},
                {"content": "Fix", "priority": "medium", "status": "in_progress"},
            ],
        }
    ]


def test_plan_tool_with_input_that_is_not_a_plan_sends_nothing() -> None:
    assert run(claude(), start("p1", "TodoWrite"), ready("p1", "TodoWrite", {"unexpected": True})) == []


# ── usage and cost ──────────────────────────────────────────────────────────────────────────────────────────────
def test_token_usage_and_cost_become_usage_updates() -> None:
    """The input tokens include the cached ones (events.py): the context used counts them once."""
    tr = claude(context_window=100_000)
    usage = ev.TokenUsageEvent(input_tokens=1000, cached_tokens=500, output_tokens=250)
    assert run(tr, usage) == [{"sessionUpdate": "usage_update", "used": 1250, "size": 100_000}]
    cost = ev.CostEvent(cost=ev.CostRecord(total_usd=0.0123, input_tokens=1, output_tokens=1))
    assert run(tr, cost) == [
        {"sessionUpdate": "usage_update", "used": 1250, "size": 100_000, "cost": {"amount": 0.0123, "currency": "USD"}}
    ]


def test_cost_without_prior_usage_counts_its_own_tokens() -> None:
    cost = ev.CostEvent(cost=ev.CostRecord(total_usd=1.5, input_tokens=10, cached_tokens=5, output_tokens=2))
    assert run(claude(), cost) == [
        {"sessionUpdate": "usage_update", "used": 12, "size": 200_000, "cost": {"amount": 1.5, "currency": "USD"}}
    ]


def test_the_window_an_agent_reports_with_its_usage_is_the_size() -> None:
    usage = ev.TokenUsageEvent(input_tokens=120, cached_tokens=20, output_tokens=30, context_window=258_400)
    assert run(claude(), usage) == [{"sessionUpdate": "usage_update", "used": 150, "size": 258_400}]


def test_a_subagents_tokens_count_for_the_turn_but_not_for_the_context_window() -> None:
    tr = claude()
    child = ev.TokenUsageEvent(input_tokens=900, output_tokens=9, parent_tool_call_id="task-1")
    assert run(tr, child) == []
    assert run(tr, ev.TokenUsageEvent(input_tokens=100, output_tokens=10)) == [
        {"sessionUpdate": "usage_update", "used": 110, "size": 200_000}
    ]
    assert tr.take_turn_usage() == {"totalTokens": 1019, "inputTokens": 1000, "outputTokens": 19}
    assert tr.take_turn_usage() is None  # the next turn counts afresh


def test_context_limit_warning_sets_the_window_for_later_updates() -> None:
    tr = claude()
    warning = ev.ContextLimitWarningEvent(used_tokens=90_000, max_tokens=128_000, pct_used=0.7)
    assert run(tr, warning) == [{"sessionUpdate": "usage_update", "used": 90_000, "size": 128_000}]
    assert run(tr, ev.TokenUsageEvent(input_tokens=5, output_tokens=5)) == [
        {"sessionUpdate": "usage_update", "used": 10, "size": 128_000}
    ]


# ── notices ─────────────────────────────────────────────────────────────────────────────────────────────────────
def notice(t: str) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": t}}


def test_rate_limit_retry_and_compaction_are_visible_notices() -> None:
    out = run(
        claude(),
        ev.RateLimitedEvent(retry_after_ms=30_000),
        ev.RateLimitedEvent(),
        ev.RetryEvent(attempt=2, max_attempts=5, reason="overloaded"),
        ev.ContextCompactedEvent(summary="kept the plan"),
        ev.ContextCompactedEvent(),
    )
    assert out == [
        notice("\n\n_(rate limited by the model provider; waiting for 30s)_\n\n"),
        notice("\n\n_(rate limited by the model provider; waiting)_\n\n"),
        notice("\n\n_(retrying, attempt 2/5: overloaded)_\n\n"),
        notice("\n\n_(context compacted: kept the plan)_\n\n"),
        notice("\n\n_(context compacted)_\n\n"),
    ]


# ── MCP, approvals, end of turn ─────────────────────────────────────────────────────────────────────────────────
def test_claude_mcp_tool_is_not_announced_twice() -> None:
    tr = claude()
    first = run(tr, start("m1", "mcp__github__search", {"q": "bug"}))
    assert first == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "m1",
            "title": "github: search",
            "kind": "other",
            "status": "pending",
            "rawInput": {"q": "bug"},
        }
    ]
    again = ev.McpToolCallStartEvent(tool_call_id="m1", server="github", tool_name="search", input={"q": "bug"})
    assert run(tr, again) == []
    done = run(
        tr,
        result("m1", "mcp__github__search", "3 issues"),
        ev.McpToolResultEvent(tool_call_id="m1", server="github", tool_name="search", output="3 issues"),
    )
    assert [u.get("status") for u in done] == ["in_progress", "completed"]  # the MCP result does not finish it twice


def test_mcp_start_alone_announces_and_readies_the_tool() -> None:
    tr = codex()
    out = run(tr, ev.McpToolCallStartEvent(tool_call_id="m1", server="gh", tool_name="issue", input={"n": 1}))
    assert out == [
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "m1",
            "title": "mcp__gh__issue",
            "kind": "other",
            "status": "pending",
            "rawInput": {"n": 1},
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "m1", "rawInput": {"n": 1}},
    ]
    assert run(tr, ev.McpToolErrorEvent(tool_call_id="m1", server="gh", tool_name="issue", error="denied"))[-1] == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "m1",
        "status": "failed",
        "rawOutput": "denied",
        "content": [text("denied")],
    }


def test_approval_grant_moves_the_linked_tool_to_in_progress_once() -> None:
    tr = claude()
    run(tr, start("t1", "Write", {"file_path": "/w/a", "content": ""}))
    tr.remember_approval("ask-1", "t1")
    assert run(tr, ev.ApprovalGrantedEvent(interaction_id="ask-1")) == [in_progress("t1")]
    assert tr.tool_status("t1") == "in_progress"
    assert run(tr, ev.ApprovalGrantedEvent(interaction_id="ask-1")) == []
    assert run(tr, ev.ApprovalGrantedEvent(interaction_id="unknown")) == []
    assert run(tr, result("t1", "Write", "ok"))[0]["status"] == "completed"  # no second in_progress


def test_close_open_tools_ends_every_visible_tool() -> None:
    tr = claude()
    run(tr, start("t1", "Read", {"file_path": "/w/a"}), start("t2", "Grep", {"pattern": "x"}), start("p1", "TodoWrite"))
    tr.remember_approval("ask", "t2")
    run(tr, ev.ApprovalGrantedEvent(interaction_id="ask"))
    assert acp_valid(tr.close_open_tools("failed")) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t2", "status": "failed"},
    ]
    assert tr.close_open_tools() == []
