"""The event union: the 55 built of spec 000's 67 types in 18 categories, lossless JSONL round trip, unknown types tolerated."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_mux.core.events import union as ev
from acp_mux.core.text.joined_text import JoinedText

SAMPLES: dict[str, dict[str, Any]] = {
    "session_start": {"sessionId": "s1", "resumed": True, "forkedFrom": "s0"},
    "session_end": {"sessionId": "s1", "turnCount": 2, "cost": {"totalUsd": 0.5, "inputTokens": 10, "outputTokens": 5}},
    "turn_start": {"turnIndex": 0},
    "turn_end": {
        "turnIndex": 0,
        "cost": {"totalUsd": 0.1, "inputTokens": 1, "outputTokens": 2, "thinkingTokens": 3, "cachedTokens": 4},
    },
    "message_start": {},
    "text_delta": {"delta": "lo", "accumulated": "hello"},
    "message_stop": {"text": "hello"},
    "thinking_start": {"effort": "high"},
    "thinking_delta": {"delta": "hm", "accumulated": "hmm"},
    "thinking_stop": {"thinking": "hmm"},
    "tool_call_start": {"toolCallId": "t1", "toolName": "Write", "inputAccumulated": '{"a"'},
    "tool_input_delta": {"toolCallId": "t1", "delta": ":1}", "inputAccumulated": '{"a":1}'},
    "tool_call_ready": {"toolCallId": "t1", "toolName": "Write", "input": {"a": 1}},
    "tool_result": {"toolCallId": "t1", "toolName": "Write", "output": {"ok": True}, "durationMs": 12},
    "tool_error": {"toolCallId": "t1", "toolName": "Write", "error": "denied"},
    "file_read": {"path": "/a"},
    "file_write": {"path": "/a", "byteCount": 3},
    "file_create": {"path": "/a", "byteCount": 3},
    "file_delete": {"path": "/a"},
    "file_patch": {"path": "/a", "diff": "--- a\n+++ b\n"},
    "shell_start": {"command": "ls", "cwd": "/w"},
    "shell_stdout_delta": {"delta": "out"},
    "shell_stderr_delta": {"delta": "err"},
    "shell_exit": {"exitCode": 1, "durationMs": 5},
    "mcp_tool_call_start": {"toolCallId": "m1", "server": "fs", "toolName": "read", "input": [1]},
    "mcp_tool_result": {"toolCallId": "m1", "server": "fs", "toolName": "read", "output": "x"},
    "mcp_tool_error": {"toolCallId": "m1", "server": "fs", "toolName": "read", "error": "boom"},
    "subagent_spawn": {"subagentId": "a1", "agentName": "explorer", "prompt": "look", "description": "Explore"},
    "subagent_result": {
        "subagentId": "a1",
        "agentName": "explorer",
        "summary": "found",
        "cost": {"totalUsd": 0, "inputTokens": 0, "outputTokens": 0},
    },
    "subagent_error": {"subagentId": "a1", "agentName": "explorer", "error": "lost"},
    "plugin_loaded": {"pluginId": "p", "pluginName": "P", "version": "1.0"},
    "skill_loaded": {"skillName": "s", "source": "/skills/s.md"},
    "skill_invoked": {"skillName": "s"},
    "image_output": {"mimeType": "image/png", "base64": "aGk=", "filePath": "/i.png"},
    "cost": {"cost": {"totalUsd": 1.5, "inputTokens": 100, "outputTokens": 50}},
    "token_usage": {"inputTokens": 100, "outputTokens": 50, "thinkingTokens": 5, "cachedTokens": 7},
    "approval_request": {
        "interactionId": "i2",
        "action": "Run",
        "detail": "ls",
        "toolName": "Bash",
        "riskLevel": "high",
        "toolCallId": "t1",
        "input": {"command": "ls"},
    },
    "approval_granted": {"interactionId": "i2"},
    "approval_denied": {"interactionId": "i2", "reason": "no"},
    "rate_limited": {"retryAfterMs": 1000},
    "context_limit_warning": {"usedTokens": 900, "maxTokens": 1000, "pctUsed": 90.0},
    "context_compacted": {"summary": "older turns", "tokensSaved": 400},
    "retry": {"attempt": 1, "maxAttempts": 3, "reason": "rate_limited", "delayMs": 500},
    "interrupted": {},
    "aborted": {},
    "timeout": {"kind": "inactivity"},
    "turn_limit": {"maxTurns": 5},
    "auth_error": {"message": "401", "guidance": "log in"},
    "rate_limit_error": {"message": "429", "retryAfterMs": 2000, "kind": "quota", "resetsAt": 1900000000},
    "context_exceeded": {"usedTokens": 1001, "maxTokens": 1000},
    "crash": {"exitCode": 3, "stderr": "panic"},
    "error": {"code": "AGENT_ERROR", "message": "bad", "recoverable": True},
    "debug": {"level": "warn", "message": "careful"},
    "log": {"source": "stderr", "line": "hello"},
    # extensions
    "tool_update": {
        "toolCallId": "t1",
        "display": {"title": "Edit a.py", "diffs": [{"path": "/p/a.py", "newText": "b", "oldText": "a"}]},
        "running": True,
    },
    "tool_progress": {"toolCallId": "t1", "status": "running", "progress": 2.0, "total": 5.0, "message": "2 of 5"},
    "session_options": {
        "modes": [{"id": "default", "name": "Default", "description": ""}],
        "currentMode": "default",
        "models": [{"id": "m1", "name": "Model 1", "description": ""}],
        "currentModel": "m1",
        "configOptions": [{"id": "effort", "name": "Effort", "type": "select", "currentValue": "low", "options": []}],
    },
    "mode_change": {"modeId": "autoEdit"},
    "commands_update": {"commands": [{"name": "review", "description": "Review the diff"}]},
    "plan_update": {"entries": [{"content": "write tests", "status": "in_progress", "priority": "high"}]},
    "client_request": {"requestId": "7", "method": "fs/read_text_file", "params": {"path": "/p/a.py"}},
    "client_notification": {"method": "elicitation/complete", "params": {"elicitationId": "e1", "_meta": {"k": 1}}},
    "agent_update": {"update": {"sessionUpdate": "session_info_update", "title": None, "_meta": {"k": 1}}},
    "subagent_text": {"subagentId": "toolu_1", "text": "looking", "parentToolCallId": "toolu_1"},
}


def test_the_spec_67_types_in_18_categories_plus_the_extensions():
    assert len(ev.EVENT_TYPES - ev.EXTENSION_TYPES) == 54  # spec 000's 67 but the thirteen nothing builds
    assert ev.EXTENSION_TYPES <= ev.EVENT_TYPES
    assert len(ev.CATEGORIES) == 19  # the spec's 18 and session_state
    assert sum(len(group) for group in ev.CATEGORIES.values()) == len(ev.EVENT_TYPES)
    assert set(SAMPLES) == set(ev.EVENT_TYPES)
    assert ev.AgentEventType.TOOL_CALL_READY == "tool_call_ready"
    assert sorted(ev.AgentEventType) == sorted(ev.EVENT_TYPES)


@pytest.mark.parametrize("event_type", sorted(SAMPLES))
def test_every_type_round_trips_through_jsonl(event_type):
    wire = {
        "type": event_type,
        "runId": "01J0000000000000000000000A",
        "agent": "claude",
        "timestamp": 1700000000000,
        **SAMPLES[event_type],
    }
    event = ev.parse_event_json(json.dumps(wire))
    assert type(event) is ev.EVENT_CLASSES[event_type]
    assert ev.category_of(event) is not None
    line = ev.event_to_json(event)
    assert json.loads(line) == wire
    assert ev.parse_event_json(line) == event


def test_unknown_future_types_do_not_crash_a_reader():
    event = ev.parse_event({"type": "hologram_output", "runId": "r", "agent": "x", "timestamp": 1, "frames": 3})
    assert isinstance(event, ev.UnknownEvent)
    assert event.type == "hologram_output"
    assert ev.dump_event(event)["frames"] == 3
    assert ev.category_of(event) is None and not ev.is_terminal_event(event)


def test_terminal_guard_and_category_guards():
    assert ev.is_terminal_event(ev.CrashEvent(exit_code=1))
    assert ev.is_terminal_event(ev.ErrorEvent(code="X", message="m", recoverable=False))
    assert not ev.is_terminal_event(ev.ErrorEvent(code="X", message="m", recoverable=True))
    assert not ev.is_terminal_event(ev.RateLimitErrorEvent(message="429"))
    assert ev.is_tool_event(ev.ToolErrorEvent(tool_call_id="t", tool_name="n", error="e"))
    assert ev.is_skill_event(ev.SkillInvokedEvent(skill_name="review"))
    assert not ev.is_text_event(ev.ThinkingDeltaEvent(delta="x"))


def test_accumulated_text_is_shared_not_copied():
    parts = JoinedText()
    parts.append("a")
    first = ev.TextDeltaEvent.lazy("a", parts)
    parts.append("b")
    second = ev.TextDeltaEvent.lazy("b", parts)
    assert first.accumulated == "a" and second.accumulated == "ab"
    assert ev.dump_event(second)["accumulated"] == "ab"


@pytest.mark.parametrize("cls", [ev.TextDeltaEvent, ev.ThinkingDeltaEvent])
def test_a_delta_built_for_the_stream_is_indistinguishable_from_a_validated_one(cls):
    parts = JoinedText("one ")
    parts.append("two")
    fast = cls.lazy("two", parts)
    slow = cls(delta="two")
    slow._parts, slow._count = parts, parts.length
    assert fast == slow and repr(fast) == repr(slow)
    assert ev.event_to_json(fast) == ev.event_to_json(slow)  # same fields, same order
    assert ev.parse_event(ev.dump_event(fast)) == ev.parse_event(ev.dump_event(slow))
    assert fast.model_copy(update={"run_id": "r"}).run_id == "r" and fast.run_id == ""
    fast.timestamp = 5  # assignment still works as on any event
    assert fast.timestamp == 5


def test_a_streamed_delta_must_be_text():
    with pytest.raises(TypeError):
        ev.TextDeltaEvent.lazy(None, JoinedText())  # type: ignore[arg-type]


def test_the_schemas_a_turn_uses_can_be_built_before_the_first_prompt():
    """In a fresh interpreter (this one has built them already): deferred until prepare_turn, then all built."""
    import subprocess
    import sys

    code = (
        "from acp_mux.core.events import union as ev\n"
        "built = lambda: [type(c.__dict__.get('__pydantic_validator__')).__name__ == 'SchemaValidator'"
        " for c in ev.TURN_EVENT_CLASSES]\n"
        "before = built(); ev.prepare_turn(); print(any(before), all(built()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
