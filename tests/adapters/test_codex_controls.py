"""codex's own controls, commands and extra roots through app-server (``codex_settings``, ``codex_commands``):
synthetic protocol messages in the shapes codex 0.169.0 sends (checked on the real CLI by
``tests/e2e/test_codex_controls_real.py``)."""

from __future__ import annotations

from typing import Any

from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import BaseEvent, CommandsUpdateEvent, SessionOptionsEvent
from acp_mux.core.run.parse_context import ParseContext
from acp_mux.core.run.prompt import Prompt
from acp_mux.adapters.rpc_agents.codex import CodexAdapter
from tests.adapters.helpers import AsTheRunDrives, feed, make_ctx, sent, types

CWD = "/home/user/project"
EFFORTS = [{"reasoningEffort": e, "description": f"{e} effort"} for e in ("low", "medium", "high")]
MODELS = {
    "data": [
        {
            "id": "gpt-5.5",
            "model": "gpt-5.5",
            "displayName": "GPT-5.5",
            "description": "Frontier.",
            "hidden": False,
            "isDefault": True,
            "supportedReasoningEfforts": EFFORTS,
            "defaultReasoningEffort": "medium",
            "additionalSpeedTiers": ["fast"],
        },
        {
            "id": "gpt-6-luna",
            "model": "gpt-6-luna",
            "displayName": "GPT-6-Luna",
            "description": "Fast.",
            "hidden": False,
            "isDefault": False,
            "supportedReasoningEfforts": EFFORTS[:2],
            "defaultReasoningEffort": "low",
            "additionalSpeedTiers": [],
        },
        {"id": "secret", "model": "secret", "displayName": "S", "hidden": True, "supportedReasoningEfforts": []},
    ]
}
THREAD = {
    "thread": {"id": "T1"},
    "model": "gpt-5.5",
    "reasoningEffort": None,
    "serviceTier": None,
    "sandbox": {"type": "workspaceWrite", "writableRoots": ["/extra"]},
}
SKILLS = {
    "data": [
        {
            "cwd": CWD,
            "skills": [
                {"name": "imagegen", "description": "long", "interface": {"shortDescription": "Make images"}},
                {"name": "off", "description": "disabled", "enabled": False},
            ],
        }
    ]
}


def started(
    caps: dict[str, Any] | None = None, models: Any = MODELS, prompt: Prompt | None = None
) -> tuple[Any, ParseContext, list[BaseEvent]]:
    """The handshake answered: initialize, thread/start, then model/list and skills/list."""
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex", CWD)
    adapter.start(RunOptions(agent="codex", cwd=CWD, prompt=prompt, client_capabilities=caps or {}), ctx)
    sent(ctx)
    events = feed(adapter, [{"id": 1, "result": {}}, {"id": 2, "result": THREAD}], ctx)
    answers: list[dict[str, Any]] = [{"id": "acp-mux-skills", "result": SKILLS}]
    if models is not None:
        answers.insert(0, {"id": "acp-mux-models", "result": models})
    events += feed(adapter, answers, ctx)
    sent(ctx)
    return adapter, ctx, events


def options_of(events: list[BaseEvent]) -> SessionOptionsEvent:
    found = [e for e in events if isinstance(e, SessionOptionsEvent)]
    assert found, types(events)
    return found[-1]


def by_id(event: SessionOptionsEvent) -> dict[str, dict[str, Any]]:
    return {o["id"]: o for o in event.config_options or []}


def test_the_handshake_asks_codex_for_its_models_and_skills_under_side_ids() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex", CWD)
    adapter.start(RunOptions(agent="codex", cwd=CWD), ctx)
    assert sent(ctx)[0]["params"]["capabilities"] == {"experimentalApi": True}  # thread/settings/update, plan mode
    feed(adapter, [{"id": 1, "result": {}}], ctx)
    assert [(m.get("id"), m.get("method")) for m in sent(ctx)] == [
        (None, "initialized"),
        (2, "thread/start"),
        ("acp-mux-models", "model/list"),
        ("acp-mux-skills", "skills/list"),
    ]


def test_codexs_models_and_controls_reach_the_editor_once_it_listed_them() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex", CWD)
    adapter.start(RunOptions(agent="codex", cwd=CWD), ctx)
    sent(ctx)
    events = feed(adapter, [{"id": 1, "result": {}}, {"id": 2, "result": THREAD}], ctx)
    assert "session_options" not in types(events)  # the fixed table stays until codex listed its models
    event = options_of(feed(adapter, [{"id": "acp-mux-models", "result": MODELS}], ctx))
    assert [(m.id, m.name) for m in event.models or []] == [("gpt-5.5", "GPT-5.5"), ("gpt-6-luna", "GPT-6-Luna")]
    assert event.current_model == "gpt-5.5"
    options = by_id(event)
    assert list(options) == ["collaboration_mode", "reasoning_effort", "fast-mode"]
    effort = options["reasoning_effort"]
    assert (effort["category"], effort["currentValue"]) == ("thought_level", "medium")  # the model's default
    assert [o["value"] for o in effort["options"]] == ["low", "medium", "high"]
    fast = options["fast-mode"]
    assert (fast["category"], fast["type"], fast["currentValue"]) == ("model_config", "select", "off")
    assert options["collaboration_mode"]["currentValue"] == "default"


def test_an_editor_that_takes_boolean_options_gets_fast_mode_as_one() -> None:
    _, _, events = started(caps={"session": {"configOptions": {"boolean": {}}}})
    fast = by_id(options_of(events))["fast-mode"]
    assert (fast["type"], fast["currentValue"]) == ("boolean", False)


def test_without_a_model_list_the_fixed_models_stay_and_plan_mode_is_still_offered() -> None:
    adapter, ctx, events = started(models=None)
    event = options_of(feed(adapter, [{"id": "acp-mux-models", "error": {"code": -1, "message": "no"}}], ctx))
    assert event.models is None and list(by_id(event)) == ["collaboration_mode"]


def test_a_choice_goes_to_codex_by_thread_settings_update_and_its_answer_updates_the_editor() -> None:
    adapter, ctx, _ = started()
    assert adapter.set_config_option("reasoning_effort", "high", ctx)
    assert adapter.set_config_option("fast-mode", "on", ctx)
    assert adapter.set_config_option("collaboration_mode", "plan", ctx)
    updates = sent(ctx)
    assert [m["method"] for m in updates] == ["thread/settings/update"] * 3
    assert updates[-1]["id"] == "acp-mux-settings-3"
    assert updates[-1]["params"] == {
        "threadId": "T1",
        "effort": "high",
        "serviceTier": "fast",
        "model": "gpt-5.5",
        "collaborationMode": {
            "mode": "plan",
            "settings": {"model": "gpt-5.5", "reasoning_effort": "high", "developer_instructions": None},
        },
    }
    options = by_id(options_of(feed(adapter, [{"id": "acp-mux-settings-3", "result": {}}], ctx)))
    assert [options[k]["currentValue"] for k in ("reasoning_effort", "fast-mode", "collaboration_mode")] == [
        "high",
        "on",
        "plan",
    ]


def test_choices_codex_does_not_offer_are_refused() -> None:
    adapter, ctx, _ = started()
    assert not adapter.set_config_option("reasoning_effort", "ultra", ctx)  # not one of gpt-5.5's
    assert not adapter.set_config_option("collaboration_mode", "pair", ctx)
    assert not adapter.set_config_option("fast-mode", "maybe", ctx)
    assert not adapter.set_config_option("temperature", "1", ctx)
    assert sent(ctx) == []


def test_a_new_model_drops_an_effort_and_a_speed_it_does_not_have() -> None:
    adapter, ctx, _ = started()
    adapter.set_config_option("reasoning_effort", "high", ctx)
    adapter.set_config_option("fast-mode", "on", ctx)
    sent(ctx)
    assert adapter.set_model("gpt-6-luna", ctx)  # in-protocol: no new process
    params = sent(ctx)[-1]["params"]
    assert (params["model"], params["effort"], params["serviceTier"]) == ("gpt-6-luna", None, None)
    options = by_id(options_of(feed(adapter, [{"id": "acp-mux-settings-3", "result": {}}], ctx)))
    assert options["reasoning_effort"]["currentValue"] == "low" and "fast-mode" not in options


def test_a_choice_before_the_thread_exists_is_sent_once_it_does_and_codex_does_not_undo_it() -> None:
    adapter, ctx = AsTheRunDrives(CodexAdapter()), make_ctx("codex", CWD)
    adapter.start(RunOptions(agent="codex", cwd=CWD), ctx)
    feed(adapter, [{"id": 1, "result": {}}, {"id": "acp-mux-models", "result": MODELS}], ctx)
    assert adapter.set_config_option("reasoning_effort", "low", ctx)
    assert [m["method"] for m in sent(ctx)] == [
        "initialize",
        "initialized",
        "thread/start",
        "model/list",
        "skills/list",
    ]
    events = feed(adapter, [{"id": 2, "result": {**THREAD, "reasoningEffort": "high"}}], ctx)
    assert [(m["method"], m["params"]["effort"]) for m in sent(ctx)] == [("thread/settings/update", "low")]
    assert by_id(options_of(events))["reasoning_effort"]["currentValue"] == "low"


def test_the_commands_are_codexs_built_ins_then_its_enabled_skills() -> None:
    _, _, events = started()
    update = next(e for e in events if isinstance(e, CommandsUpdateEvent))
    names = [c["name"] for c in update.wire or []]
    assert names[:3] == ["plan", "mcp", "skills"] and names[-1] == "$imagegen" and "$off" not in names
    assert {"status", "review", "review-branch", "review-commit", "compact", "rename"} <= set(names)
    review = next(c for c in update.wire or [] if c["name"] == "review-branch")
    assert review["input"] == {"hint": "branch name"}
    assert next(c for c in update.wire or [] if c["name"] == "$imagegen")["description"] == "Make images"


def test_compact_and_review_run_codex_turns_by_their_own_methods() -> None:
    adapter, ctx, _ = started()
    adapter.send_prompt(Prompt.of_text("/compact"), ctx)
    assert [(m["method"], m["params"]) for m in sent(ctx)] == [("thread/compact/start", {"threadId": "T1"})]
    for text, target in [
        ("/review", {"type": "uncommittedChanges"}),
        ("/review look at the parser", {"type": "custom", "instructions": "look at the parser"}),
        ("/review-branch main", {"type": "baseBranch", "branch": "main"}),
        ("/review-commit abc123", {"type": "commit", "sha": "abc123", "title": None}),
    ]:
        adapter.send_prompt(Prompt.of_text(text), ctx)
        assert [(m["method"], m["params"]) for m in sent(ctx)] == [("review/start", {"threadId": "T1", "target": target})]  # fmt: skip


def test_a_command_codex_rejects_still_ends_its_turn_with_an_error() -> None:
    adapter, ctx, _ = started()
    adapter.send_prompt(Prompt.of_text("/compact"), ctx)
    request = sent(ctx)[0]
    events = feed(adapter, [{"id": request["id"], "error": {"code": -32600, "message": "no thread"}}], ctx)
    assert types(events)[0] == "turn_start" and types(events)[-1] == "turn_end" and "error" in types(events)


def test_status_is_answered_from_codexs_state_in_one_short_turn() -> None:
    adapter, ctx, _ = started()
    adapter.set_config_option("reasoning_effort", "high", ctx)
    adapter.send_prompt(Prompt.of_text("/status"), ctx)
    request = sent(ctx)[-1]
    assert request["method"] == "account/read"
    events = feed(adapter, [{"id": request["id"], "result": {"account": {"type": "apiKey"}}}], ctx)
    assert types(events) == ["turn_start", "message_start", "text_delta", "message_stop", "turn_end"]
    text = events[2].delta  # type: ignore[attr-defined]
    assert "**Model:** gpt-5.5" in text and "**Reasoning effort:** high" in text and "API key configured" in text
    assert "**Sandbox:** workspace-write" in text and "`T1`" in text


def test_skills_mcp_rename_and_a_missing_argument_are_short_turns() -> None:
    adapter, ctx, _ = started()
    cases = [
        ("/skills", "skills/list", SKILLS, "- imagegen: Make images"),
        (
            "/mcp",
            "mcpServerStatus/list",
            {"data": [{"name": "docs", "tools": {"a": {}}, "authStatus": "ok"}]},
            "- docs (1 tools, ok)",
        ),  # fmt: skip
        ("/rename Notes work", "thread/name/set", {}, "Renamed the session to 'Notes work'."),
        ("/review-branch", "account/read", {}, 'Command "/review-branch" requires branch name.'),
    ]
    for text, method, answer, shown in cases:
        adapter.send_prompt(Prompt.of_text(text), ctx)
        request = sent(ctx)[-1]
        assert request["method"] == method
        if method == "thread/name/set":
            assert request["params"] == {"threadId": "T1", "name": "Notes work"}
        events = feed(adapter, [{"id": request["id"], "result": answer}], ctx)
        assert shown in "".join(getattr(e, "delta", "") for e in events) and types(events)[-1] == "turn_end"


def test_plan_toggles_codexs_collaboration_mode() -> None:
    adapter, ctx, _ = started()
    adapter.send_prompt(Prompt.of_text("/plan"), ctx)
    request = sent(ctx)[-1]
    assert request["method"] == "thread/settings/update"
    assert request["params"]["collaborationMode"]["mode"] == "plan"
    events = feed(adapter, [{"id": request["id"], "result": {}}], ctx)
    assert by_id(options_of(events))["collaboration_mode"]["currentValue"] == "plan"
    assert types(events)[-1] == "turn_end" and "Plan mode is on." in "".join(getattr(e, "delta", "") for e in events)


def test_other_slash_text_is_a_prompt_for_codex() -> None:
    adapter, ctx, _ = started()
    for text in ("/unknown thing", "/$imagegen a cat", "please /compact"):
        adapter.send_prompt(Prompt.of_text(text), ctx)
        assert [m["method"] for m in sent(ctx)] == ["turn/start"]


def test_plan_modes_proposed_plan_is_shown_and_a_review_is_said_once() -> None:
    adapter, ctx, _ = started()
    plan = {"type": "plan", "id": "p1", "text": "# Plan\n1. Do it\n"}
    events = feed(adapter, [{"method": "item/completed", "params": {"threadId": "T1", "item": plan}}], ctx)
    assert "".join(getattr(e, "delta", "") for e in events) == "# Plan\n1. Do it\n"
    exited = {"type": "exitedReviewMode", "id": "r1", "review": "Fine."}  # codex repeats it as an agentMessage
    assert feed(adapter, [{"method": "item/completed", "params": {"threadId": "T1", "item": exited}}], ctx) == []


def test_extra_roots_are_writable_roots_of_codexs_sandbox_and_survive_a_mode_change() -> None:
    assert CodexAdapter().extra_directory_args(["/a b", "/c"]) == [
        "-c",
        'sandbox_workspace_write.writable_roots=["/a b", "/c"]',
    ]
    assert CodexAdapter().extra_directory_args([]) == []
    adapter, ctx, _ = started(prompt=None)
    assert adapter.set_mode("auto", ctx)
    adapter.send_prompt(Prompt.of_text("hi"), ctx)
    params = sent(ctx)[-1]["params"]
    assert params["sandboxPolicy"] == {"type": "workspaceWrite", "writableRoots": ["/extra"]}
