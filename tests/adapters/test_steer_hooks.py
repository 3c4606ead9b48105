"""Each adapter's ``steer`` hook, fed lines without a process: what it writes to the agent, when it says it cannot,
and (claude) which ``result`` ends a steered turn. The real CLIs are in tests/e2e/test_queue_and_steer_real.py."""

from __future__ import annotations

from acp_mux.adapters.base import get_adapter
from acp_mux.adapters.rpc_agents.codex import CodexAdapter, CodexRun
from acp_mux.adapters.rpc_agents.pi import PiAdapter
from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.prompt import Prompt
from tests.adapters.helpers import feed, make_ctx, sent, types


def result(**fields: object) -> dict[str, object]:
    return {"type": "result", "subtype": "success", "is_error": False, "result": "", "usage": {}, **fields}


def test_the_agents_that_steer_say_so_and_the_others_do_not() -> None:
    assert {name: get_adapter(name).steers for name in ("claude", "codex", "pi", "demo", "gemini", "opencode")} == {
        "claude": True,
        "codex": True,
        "pi": True,
        "demo": True,
        "gemini": False,
        "opencode": False,
    }


def test_claude_steer_is_a_user_line_with_its_own_uuid() -> None:
    adapter, ctx = ClaudeAdapter(), make_ctx("claude")
    assert adapter.steer(Prompt.of_text("look at the tests too"), ctx)
    (line,) = sent(ctx)
    assert line["type"] == "user" and line["message"]["content"] == [{"type": "text", "text": "look at the tests too"}]
    assert isinstance(line["uuid"], str) and line["uuid"]


def test_a_claude_result_before_the_steer_was_read_does_not_end_the_turn() -> None:
    """Steered during the turn's last step: that step's ``result`` does not name the steer, and claude runs one
    more cycle for it; the ``result`` naming its uuid ends the turn (once)."""
    adapter, ctx = ClaudeAdapter(), make_ctx("claude")
    feed(adapter, [{"type": "system", "subtype": "init", "session_id": "s1"}], ctx)
    adapter.send_prompt(Prompt.of_text("hello"), ctx)
    adapter.steer(Prompt.of_text("and then stop"), ctx)
    steer_id = sent(ctx)[-1]["uuid"]
    before = feed(adapter, [result(user_message_uuids=None)], ctx)
    assert "turn_end" not in types(before)
    after = feed(adapter, [result(user_message_uuids=[steer_id])], ctx)
    assert types(after).count("turn_end") == 1
    again = feed(adapter, [result()], ctx)  # nothing steered any more: results end turns as always
    assert "turn_end" in types(again)


def test_a_claude_result_that_read_the_steer_or_failed_ends_the_turn() -> None:
    adapter, ctx = ClaudeAdapter(), make_ctx("claude")
    feed(adapter, [{"type": "system", "subtype": "init", "session_id": "s1"}], ctx)
    adapter.send_prompt(Prompt.of_text("hello"), ctx)
    adapter.steer(Prompt.of_text("one"), ctx)
    read = sent(ctx)[-1]["uuid"]
    assert "turn_end" in types(feed(adapter, [result(user_message_uuids=[read])], ctx))
    adapter.send_prompt(Prompt.of_text("again"), ctx)
    adapter.steer(Prompt.of_text("two"), ctx)
    failed = feed(adapter, [result(subtype="error_during_execution", is_error=True)], ctx)
    assert "turn_end" in types(failed)  # a failed cycle ends the turn: the steer goes with it


def test_codex_steers_the_known_turn_only() -> None:
    adapter, ctx = CodexAdapter(), make_ctx("codex")
    assert not adapter.steer(Prompt.of_text("x"), ctx)  # no thread, no turn: nothing to steer
    run = CodexRun.of(ctx)
    run.thread, run.turn = "thread-1", None
    assert not adapter.steer(Prompt.of_text("x"), ctx)  # turn/start still in flight
    run.turn = "turn-7"
    assert adapter.steer(Prompt.of_text("use the other file"), ctx)
    (request,) = sent(ctx)
    assert request["method"] == "turn/steer"
    assert request["params"] == {
        "threadId": "thread-1",
        "expectedTurnId": "turn-7",
        "input": [{"type": "text", "text": "use the other file"}],
    }


def test_pi_steers_through_its_rpc_steer_command() -> None:
    adapter, ctx = PiAdapter(), make_ctx("pi")
    assert not adapter.steer(Prompt.of_text("x"), ctx)  # not started
    adapter.start(RunOptions(agent="pi", cwd="/tmp"), ctx)
    sent(ctx)
    assert adapter.steer(Prompt.of_text("use the other file"), ctx)
    (command,) = sent(ctx)
    assert {k: v for k, v in command.items() if k != "id"} == {"type": "steer", "message": "use the other file"}
