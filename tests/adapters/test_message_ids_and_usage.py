"""Every message and thought chunk names its message, and the prompt response says what the turn spent, for every
agent family, on real captured lines (tests/fixtures/): claude's stream-json, codex's app-server, pi's RPC and an
ACP agent (copilot).

What claude-agent-acp 0.101 and codex-acp 2.6 send is the reference: claude's chunks carry the Anthropic API
message's ``message.id`` (thinking and text of one API message share it: ``messageIdForGrouping``), codex's the
item id; an ACP agent's own ``messageId`` goes on as it wrote it; an agent that names no message (pi) gets one id of
acp-mux's per message. The turn's ``usage`` counts ``inputTokens`` without the cached tokens, as both reference
adapters do (``totalTokens`` is all of them)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_mux.adapters.acp_agents.copilot import CopilotAdapter
from acp_mux.adapters.acp_agents.opencode import OpencodeAdapter
from acp_mux.adapters.rpc_agents.codex import CodexAdapter
from acp_mux.adapters.stream_agents.claude import ClaudeAdapter
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.events.union import BaseEvent
from acp_mux.core.run.prompt import Prompt
from acp_mux.protocol.unstable import Usage
from acp_mux.translation.updates import UpdateTranslator
from tests.adapters.acp_replay import replay
from tests.adapters.helpers import FIXTURES, capture_lines, feed, make_ctx
from tests.adapters.test_codex import replay_fresh
from tests.adapters.test_pi import run as pi_run
from tests.fixtures.acp_transcripts import load, process_entries, updates

CHUNKS = ("agent_message_chunk", "agent_thought_chunk")
CWD = "/work/project"


def shown(tool_table: Any, events: list[BaseEvent]) -> tuple[list[dict[str, Any]], list[Any]]:
    """The chunks the editor is shown, and each turn's ``usage`` (as the live session takes it at turn end)."""
    translator = UpdateTranslator(tool_table, CWD)
    chunks: list[dict[str, Any]] = []
    usages: list[Any] = []
    for event in events:
        chunks += [u for u in translator.translate(event) if u["sessionUpdate"] in CHUNKS]
        if event.type == "turn_end":
            usages.append(translator.take_turn_usage())
    return chunks, usages


def messages(chunks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(kind, messageId) of each run of chunks of one message, in order."""
    out: list[tuple[str, str]] = []
    for chunk in chunks:
        key = (chunk["sessionUpdate"], chunk["messageId"])
        if not out or out[-1] != key:
            out.append(key)
    return out


def assert_every_chunk_named(chunks: list[dict[str, Any]]) -> None:
    assert chunks
    for chunk in chunks:
        assert isinstance(chunk.get("messageId"), str) and chunk["messageId"], chunk


def assert_valid_usage(usage: Any) -> None:
    assert Usage.model_validate(usage).model_dump(by_alias=True, exclude_none=True) == usage


# ── claude ─────────────────────────────────────────────────────────────────────────────────────────────────────
def claude_events(name: str) -> list[BaseEvent]:
    adapter, ctx = ClaudeAdapter(), make_ctx("claude", CWD)
    adapter.start(RunOptions(agent="claude", cwd=CWD, prompt=Prompt.of_text("hi")), ctx)
    return feed(adapter, capture_lines(FIXTURES / "claude" / f"{name}.jsonl"), ctx)


def claude_results(name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in capture_lines(FIXTURES / "claude" / f"{name}.jsonl")]
    return [m for m in lines if m.get("type") == "result"]


def test_claudes_chunks_carry_the_api_message_id_thinking_and_text_of_one_message_alike() -> None:
    chunks, _ = shown(ClaudeAdapter().tool_table, claude_events("write_edit_allow"))
    assert_every_chunk_named(chunks)
    lines = [json.loads(line) for line in capture_lines(FIXTURES / "claude" / "write_edit_allow.jsonl")]
    api_ids = [m["message"]["id"] for m in lines if m.get("type") == "assistant"]
    named = messages(chunks)
    assert {message_id for _, message_id in named} <= set(api_ids)
    assert len({message_id for _, message_id in named}) > 1  # a new API message, a new id
    first = named[0][1]  # the first API message thinks, then says: one message, one id (claude-agent-acp's way)
    assert ("agent_thought_chunk", first) in named and ("agent_message_chunk", first) in named


def test_claudes_turn_usage_is_its_results_usage_with_the_cache_apart() -> None:
    _, usages = shown(ClaudeAdapter().tool_table, claude_events("text"))
    (result,) = claude_results("text")
    u = result["usage"]
    cache = u["cache_read_input_tokens"]
    total = u["input_tokens"] + u["cache_creation_input_tokens"] + cache + u["output_tokens"]
    assert usages == [
        {
            "totalTokens": total,
            "inputTokens": u["input_tokens"],
            "outputTokens": u["output_tokens"],
            "cachedReadTokens": cache,
            "cachedWriteTokens": u["cache_creation_input_tokens"],
        }
    ]
    assert usages[0]["totalTokens"] == 28  # the scripted model server's 11 in, 17 out
    assert_valid_usage(usages[0])


@pytest.mark.parametrize("name", ["text", "write_edit_allow"])
def test_claudes_cost_window_and_last_requests_context_reach_the_usage_update(name: str) -> None:
    """``used`` is what the last API message filled the context with (11 in + 17 out: message_start's input,
    message_delta's output), as claude-agent-acp says it, not the turn's requests summed (84 for three)."""
    translator = UpdateTranslator(ClaudeAdapter().tool_table, CWD)
    events = claude_events(name)
    updates = [u for e in events for u in translator.translate(e) if u["sessionUpdate"] == "usage_update"]
    (result,) = claude_results(name)
    assert updates[-1] == {
        "sessionUpdate": "usage_update",
        "used": 28,
        "size": 200_000,
        "cost": {"amount": result["total_cost_usd"], "currency": "USD"},
    }


# ── codex (app-server) ─────────────────────────────────────────────────────────────────────────────────────────
def test_codexs_chunks_carry_the_item_id() -> None:
    events, _, _ = replay_fresh("text")
    chunks, _ = shown(CodexAdapter().tool_table, events)
    assert_every_chunk_named(chunks)
    assert messages(chunks) == [("agent_message_chunk", "msg_fake_0_0")]


def test_codexs_turn_usage_is_its_token_usage_as_codex_acp_counts_it() -> None:
    """thread/tokenUsage/updated: total 150 = input 120 (20 of them cached) + output 30 (5 of them reasoning)."""
    events, _, _ = replay_fresh("text")
    chunks, usages = shown(CodexAdapter().tool_table, events)
    assert usages == [
        {
            "totalTokens": 150,
            "inputTokens": 100,
            "outputTokens": 30,
            "thoughtTokens": 5,
            "cachedReadTokens": 20,
            "cachedWriteTokens": 0,
        }
    ]
    assert_valid_usage(usages[0])


def test_codexs_usage_update_has_codexs_context_window() -> None:
    events, _, _ = replay_fresh("text")
    translator = UpdateTranslator(CodexAdapter().tool_table, CWD)
    updates = [u for e in events for u in translator.translate(e) if u["sessionUpdate"] == "usage_update"]
    assert updates == [{"sessionUpdate": "usage_update", "used": 150, "size": 258_400}]


# ── pi (names no message: acp-mux's ids) ──────────────────────────────────────────────────────────────────────
def test_pis_messages_get_an_id_each_the_same_on_every_chunk() -> None:
    events, _, adapter = pi_run("write_edit_allow", answer=True)
    chunks, usages = shown(adapter.tool_table, events)
    assert_every_chunk_named(chunks)
    named = messages(chunks)
    assert len({message_id for _, message_id in named}) == len(named)  # each message its own id
    starts = [e for e in events if e.type in ("message_start", "thinking_start")]
    assert [e.message_id for e in starts] == [message_id for _, message_id in named]
    assert usages == [{"totalTokens": 600, "inputTokens": 500, "outputTokens": 100}]  # five requests of 100 + 20
    assert_valid_usage(usages[0])


# ── ACP agents: opencode names its messages, copilot 1.0.102 does not ────────────────────────────────────────
ACP_AGENTS = {"opencode": OpencodeAdapter, "copilot": CopilotAdapter}


@pytest.mark.parametrize("cli", sorted(ACP_AGENTS))
@pytest.mark.parametrize("name", ["write_edit_allow", "resume"])
def test_an_acp_agents_message_ids_and_usage_go_on_as_it_wrote_them(cli: str, name: str) -> None:
    done = replay(ACP_AGENTS[cli](), cli, name)
    chunks, usages = shown(ACP_AGENTS[cli]().tool_table, done.events)
    assert_every_chunk_named(chunks)
    entries = process_entries(load(cli, name), 1)
    wrote = [u for u in updates(entries) if u["sessionUpdate"] in CHUNKS]
    agent_ids = {u["messageId"] for u in wrote if u.get("messageId")}
    named = messages(chunks)
    if cli == "opencode":  # its own ids, as it wrote them
        assert agent_ids and {message_id for _, message_id in named} == agent_ids
    else:  # none of its own: one of acp-mux's per message
        assert not agent_ids and len({message_id for _, message_id in named}) == len(named)
    results = [e["msg"].get("result") for e in entries if e["from"] == "agent" and "msg" in e]
    responses = [r for r in results if isinstance(r, dict) and "stopReason" in r]
    assert usages == [r["usage"] for r in responses]  # e.g. {"inputTokens": 500, …, "cachedWriteTokens": 0}
    for usage in usages:
        assert_valid_usage(usage)
