"""Todo tool inputs of every common shape → ACP plan entries (the full list each time)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_mux.translation.plans import plan_entries


def test_claude_todos_keep_content_status_and_priority() -> None:
    todos = {
        "todos": [
            {"content": "a", "status": "completed", "activeForm": "A-ing"},
            {"content": "b", "status": "in_progress", "priority": "high"},
            {"content": "c", "status": "pending", "priority": "LOW"},
        ]
    }
    assert plan_entries(todos) == [
        {"content": "a", "priority": "medium", "status": "completed"},
        {"content": "b", "priority": "high", "status": "in_progress"},
        {"content": "c", "priority": "low", "status": "pending"},
    ]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("todo", "pending"),
        ("not_started", "pending"),
        ("in-progress", "in_progress"),
        ("active", "in_progress"),
        ("DONE", "completed"),
        ("complete", "completed"),
        ("cancelled", "pending"),  # unknown statuses fall back to pending
    ],
)
def test_status_synonyms(status: str, expected: str) -> None:
    assert plan_entries({"plan": [{"step": "s", "status": status}]}) == [
        {"content": "s", "priority": "medium", "status": expected}
    ]


def test_other_shapes_and_content_keys() -> None:
    assert plan_entries(
        {"steps": ["first", {"title": "second"}, {"text": "third"}, 42, {"description": "fourth"}]}
    ) == [
        {"content": "first", "priority": "medium", "status": "pending"},
        {"content": "second", "priority": "medium", "status": "pending"},
        {"content": "third", "priority": "medium", "status": "pending"},
        {"content": "fourth", "priority": "medium", "status": "pending"},
    ]
    assert plan_entries({"items": [{"status": "done"}]}) == [
        {"content": "", "priority": "medium", "status": "completed"}
    ]
    assert plan_entries({"todos": []}) == []


@pytest.mark.parametrize("tool_input", [None, "todos", [], {}, {"todos": "not a list"}, {"other": []}])
def test_inputs_that_are_not_plans(tool_input: Any) -> None:
    assert plan_entries(tool_input) is None
