"""Claude's own controls (adapters/stream_agents/claude_settings.py): read from the real CLIs' initialize answers,
set through the control requests the Agent SDK uses, kept for a later process as flags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_mux.adapters.base import ModeInfo
from acp_mux.adapters.config_toggles import takes_boolean_options, toggle_value
from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import SessionModeOption, SessionOptionsEvent
from acp_mux.server.sessions.session_settings import SessionSettings
from tests.adapters.helpers import FIXTURES, capture_lines, feed, make_ctx, sent

CWD = "/tmp/claude-settings"
BOOLEAN_CLIENT = {"session": {"configOptions": {"boolean": {}}}}


def answer(path: Path) -> str:
    """The recorded CLI's answer to our initialize (the line that lists its models)."""
    return next(x for x in capture_lines(path) if "control_response" in x and '"models"' in x)


ANSWER_332 = FIXTURES / "claude" / "2.1.332" / "cancel.jsonl"  # 2.1.332, started with --model claude-sonnet-4-5
ANSWER_197 = FIXTURES / "claude" / "shared-captures" / "claude-control-allow.jsonl"  # 2.1.197


def started(adapter: ClaudeAdapter, fixture: Path = ANSWER_332, **options: Any) -> tuple[Any, SessionOptionsEvent]:
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}, **options), ctx)
    sent(ctx)
    (event,) = [e for e in feed(adapter, [answer(fixture)], ctx) if isinstance(e, SessionOptionsEvent)]
    return ctx, event


def option(event: SessionOptionsEvent, option_id: str) -> dict[str, Any] | None:
    return next((o for o in event.config_options or () if o["id"] == option_id), None)


def requests(ctx: Any) -> list[dict[str, Any]]:
    return [m["request"] for m in sent(ctx) if m["type"] == "control_request"]


def test_the_cli_s_models_modes_and_options_replace_the_fixed_table() -> None:
    """2.1.332 lists default, opus, fable, sonnet, haiku (and the model it was started with); its models support
    auto mode, so ``auto`` is offered; effort lists the model's levels after "default"; Fast mode only on a model
    that supports it; ultracode on a model with xhigh; select on/off for an editor without boolean options."""
    _, event = started(ClaudeAdapter(), model="opus")
    assert [m.id for m in event.models or ()] == ["default", "opus", "fable", "sonnet", "haiku", "claude-sonnet-4-5"]
    assert next(m for m in event.models or () if m.id == "opus").name == "Opus"
    assert [m.id for m in event.modes or ()] == ["default", "acceptEdits", "plan", "auto", "bypassPermissions"]
    assert event.current_model == "opus" and event.current_mode == "default"
    effort = option(event, "effort")
    assert effort is not None and effort["category"] == "thought_level" and effort["currentValue"] == "default"
    assert [o["value"] for o in effort["options"]] == ["default", "low", "medium", "high", "xhigh", "max"]
    for option_id in ("fast", "ultracode"):
        toggle = option(event, option_id)
        assert toggle is not None and toggle["category"] == "model_config"
        assert toggle["type"] == "select" and toggle["currentValue"] == "off"
        assert [o["value"] for o in toggle["options"]] == ["on", "off"]


def test_an_editor_that_takes_boolean_options_gets_booleans() -> None:
    _, event = started(ClaudeAdapter(), model="opus", client_capabilities=BOOLEAN_CLIENT)
    assert option(event, "fast") == {
        "id": "fast",
        "name": "Fast mode",
        "description": "Faster responses on supported models",
        "category": "model_config",
        "type": "boolean",
        "currentValue": False,
    }
    assert (option(event, "ultracode") or {}).get("type") == "boolean"


def test_options_follow_the_model() -> None:
    """sonnet has no Fast mode; a model the CLI lists without effort levels (the one it was started with) has no
    effort and no ultracode either."""
    _, sonnet = started(ClaudeAdapter(), model="sonnet")
    assert option(sonnet, "fast") is None and option(sonnet, "effort") is not None
    _, custom = started(ClaudeAdapter(), model="claude-sonnet-4-5")
    assert custom.config_options == []


def test_an_older_cli_s_own_list() -> None:
    """2.1.197: default, opus[1m], sonnet, sonnet[1m], haiku; its haiku has no effort levels."""
    _, event = started(ClaudeAdapter(), ANSWER_197, model="haiku")
    assert [m.id for m in event.models or ()][:5] == ["default", "opus[1m]", "sonnet", "sonnet[1m]", "haiku"]
    assert option(event, "effort") is None and option(event, "fast") is None


def test_no_auto_mode_where_the_cli_s_models_do_not_support_it() -> None:
    adapter = ClaudeAdapter()
    line = json.loads(answer(ANSWER_332))
    for model in line["response"]["response"]["models"]:
        model.pop("supportsAutoMode", None)
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}), ctx)
    (event,) = [e for e in feed(adapter, [line], ctx) if isinstance(e, SessionOptionsEvent)]
    assert "auto" not in [m.id for m in event.modes or ()]


def test_an_answer_without_models_leaves_the_declared_table() -> None:
    adapter = ClaudeAdapter()
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}), ctx)
    reply = {"type": "control_response", "response": {"subtype": "success", "request_id": "req_1_initialize"}}
    reply["response"]["response"] = {"commands": []}
    assert not [e for e in feed(adapter, [reply], ctx) if isinstance(e, SessionOptionsEvent)]
    assert adapter.models == ("default", "sonnet", "opus", "haiku")


def test_effort_fast_and_ultracode_reach_the_running_cli() -> None:
    """Each goes as ``apply_flag_settings`` (what claude-agent-acp sends); effort carries ``ultracode: true``
    while ultracode is on (since 2.1.284 an effort change without it turns ultracode off); a value the option does
    not offer is refused and nothing is sent."""
    adapter = ClaudeAdapter()
    ctx, _ = started(adapter, model="opus")
    assert adapter.set_config_option("effort", "high", ctx)
    assert adapter.set_config_option("fast", "on", ctx)
    assert adapter.set_config_option("ultracode", True, ctx)
    assert adapter.set_config_option("effort", "default", ctx)
    assert [r["settings"] for r in requests(ctx)] == [
        {"effortLevel": "high"},
        {"fastMode": True},
        {"ultracode": True},
        {"effortLevel": None, "ultracode": True},
    ]
    assert not adapter.set_config_option("effort", "extreme", ctx)
    assert not adapter.set_config_option("fast", "maybe", ctx)
    assert not adapter.set_config_option("thinking", "on", ctx)
    assert requests(ctx) == []


def test_the_cli_s_answer_shows_the_new_state() -> None:
    adapter = ClaudeAdapter()
    ctx, _ = started(adapter, model="opus")
    adapter.set_config_option("effort", "max", ctx)
    (request,) = [m for m in sent(ctx) if m["type"] == "control_request"]
    ok = {"type": "control_response", "response": {"subtype": "success", "request_id": request["request_id"]}}
    (event,) = feed(adapter, [ok], ctx)
    assert isinstance(event, SessionOptionsEvent) and (option(event, "effort") or {})["currentValue"] == "max"
    assert event.modes is None and event.models is None and event.current_mode is None  # never the editor's mode


def test_a_model_change_goes_in_place_and_its_options_follow() -> None:
    """``set_model``; a pinned effort the new model lacks is cleared in the CLI too; the answer brings the new
    model's options (no Fast mode on sonnet)."""
    adapter = ClaudeAdapter()
    ctx, _ = started(adapter, ANSWER_197, model="sonnet")
    adapter.set_config_option("effort", "max", ctx)
    sent(ctx)
    assert adapter.set_model("haiku", ctx)
    calls = [m for m in sent(ctx) if m["type"] == "control_request"]
    assert [c["request"] for c in calls] == [
        {"subtype": "set_model", "model": "haiku"},
        {"subtype": "apply_flag_settings", "settings": {"effortLevel": None}},
    ]
    ok = {"type": "control_response", "response": {"subtype": "success", "request_id": calls[0]["request_id"]}}
    (event,) = feed(adapter, [ok], ctx)
    assert isinstance(event, SessionOptionsEvent) and event.current_model == "haiku" and event.config_options == []


def test_a_mode_change_is_remembered_for_later_events() -> None:
    adapter = ClaudeAdapter()
    ctx, _ = started(adapter, model="opus")
    assert adapter.set_mode("auto", ctx)
    assert requests(ctx) == [{"subtype": "set_permission_mode", "mode": "auto"}]


def test_a_later_process_starts_with_the_editor_s_choices() -> None:
    """The session's last option values come in ``agent_options``: effort as ``--effort``, Fast mode and
    ultracode as ``--settings`` JSON (2.1.332 verified); "default" effort adds nothing; the run starts with them."""
    chosen = {"effort": "xhigh", "fast": "on", "ultracode": False}
    options = RunOptions(agent="claude", cwd=CWD, model="opus", agent_options=chosen)
    args = ClaudeAdapter().build_spawn(options).args
    assert args[args.index("--effort") + 1] == "xhigh"
    assert json.loads(args[args.index("--settings") + 1]) == {"fastMode": True, "ultracode": False}
    plain = ClaudeAdapter().build_spawn(RunOptions(agent="claude", cwd=CWD, agent_options={"effort": "default"}))
    assert "--effort" not in plain.args and "--settings" not in plain.args
    _, event = started(ClaudeAdapter(), model="opus", agent_options=chosen)
    assert (option(event, "effort") or {})["currentValue"] == "xhigh"


def test_toggle_helpers() -> None:
    assert takes_boolean_options(BOOLEAN_CLIENT)
    assert not takes_boolean_options({"session": {"configOptions": {"boolean": None}}})
    assert not takes_boolean_options({})
    assert [toggle_value(v) for v in (True, False, "on", "off", "yes", None)] == [True, False, True, False, None, None]


# ── the session's side (agent-neutral) ─────────────────────────────────────────────────────────────────────────
def test_a_reported_mode_list_keeps_the_declared_read_only_modes() -> None:
    """Claude's plan mode stays read-only (the bridge refuses edits in it) when the CLI's mode list replaces the
    declared one; a new mode (auto) is not read-only."""
    settings = SessionSettings(list(ClaudeAdapter.modes), [], "default", None)
    modes = [SessionModeOption(id=m, name=m) for m in ("default", "plan", "auto")]
    settings.apply(SessionOptionsEvent(modes=modes))
    assert {m.id: m.read_only for m in settings.modes} == {"default": False, "plan": True, "auto": False}


def test_an_option_value_is_checked_and_shown_at_once() -> None:
    settings = SessionSettings([ModeInfo("default", "Default")], [], "default", None)
    _, event = started(ClaudeAdapter(), model="opus", client_capabilities=BOOLEAN_CLIENT)
    settings.apply(event)
    effort, fast = settings.agent_option("effort"), settings.agent_option("fast")
    assert effort is not None and fast is not None
    assert settings.offers(effort, "high") and not settings.offers(effort, "extreme")
    assert settings.offers(fast, True) and not settings.offers(fast, "on")
    settings.chosen("effort", "high")
    assert settings.agent_values() == {"effort": "high", "fast": False, "ultracode": False}


@pytest.mark.parametrize("value", ["on", "off"])
def test_a_select_toggle_takes_on_and_off(value: str) -> None:
    settings = SessionSettings([], [], None, None)
    _, event = started(ClaudeAdapter(), model="opus")
    settings.apply(event)
    fast = settings.agent_option("fast")
    assert fast is not None and settings.offers(fast, value) and not settings.offers(fast, True)


def test_fast_mode_follows_the_cli_s_own_reports() -> None:
    """``fast_mode_state`` on system/init and result: "off" turns the toggle off, "cooldown" keeps it on; on a model
    without Fast mode the reports change nothing (the choice comes back with a model that has it)."""
    adapter = ClaudeAdapter()
    ctx, _ = started(adapter, model="opus")
    adapter.set_config_option("fast", "on", ctx)

    def reported(line: dict[str, Any]) -> list[SessionOptionsEvent]:
        return [e for e in feed(adapter, [line], ctx) if isinstance(e, SessionOptionsEvent)]

    assert reported({"type": "result", "subtype": "success", "fast_mode_state": "cooldown"}) == []
    (event,) = reported({"type": "system", "subtype": "init", "fast_mode_state": "off"})
    assert (option(event, "fast") or {})["currentValue"] == "off"
    adapter.set_model("sonnet", ctx)
    assert reported({"type": "system", "subtype": "init", "fast_mode_state": "on"}) == []


def test_a_mode_the_editor_chose_before_the_clis_first_answer_is_not_put_back() -> None:
    """The editor picks plan right after session/new; the CLI's initialize answer, to a request sent before that,
    still names the mode it started in (default): the session must stay in plan, where nothing is written."""
    adapter = ClaudeAdapter()
    ctx = make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, env={"ACP_MUX_CLAUDE_PREWARM": "0"}), ctx)
    sent(ctx)
    assert adapter.set_mode("plan", ctx)
    assert {"subtype": "set_permission_mode", "mode": "plan"} in requests(ctx)
    (event,) = [e for e in feed(adapter, [answer(ANSWER_332)], ctx) if isinstance(e, SessionOptionsEvent)]
    assert event.current_mode == "plan"
