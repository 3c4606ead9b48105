"""Message ids and turn usage through acp-mux with the real CLIs (claude, codex, and opencode for the ACP family)
against the scripted model server, driven by the SDK's client (which validates every message, the prompt
response's unstable ``usage`` included).

What claude-agent-acp 0.101 and codex-acp 2.6 give an editor, acp-mux gives it for every agent: each
``agent_message_chunk``/``agent_thought_chunk`` names its message (``messageId``), a new message has a new id, the
``session/prompt`` answer carries the turn's ``usage`` with the model server's token counts, and ``session/load``
shows each message with the id it had live."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterator

import acp
import pytest

from tests.e2e.harness import RealAgent, require_cli
from tests.fakes.model_server import ANTHROPIC_USAGE, RESPONSES_USAGE
from tests.server.client import RecordingClient

pytestmark = [pytest.mark.asyncio, pytest.mark.e2e]

CHUNKS = ("agent_message_chunk", "agent_thought_chunk")


def per_request(api: str) -> dict[str, int]:
    """The ACP usage of one model request as the scripted model server reports it (inputTokens without the cache,
    as claude-agent-acp and codex-acp count)."""
    if api == "responses":
        cached = RESPONSES_USAGE["input_tokens_details"]["cached_tokens"]  # type: ignore[index]
        return {
            "totalTokens": RESPONSES_USAGE["total_tokens"],  # type: ignore[dict-item]
            "inputTokens": RESPONSES_USAGE["input_tokens"] - cached,  # type: ignore[operator]
            "outputTokens": RESPONSES_USAGE["output_tokens"],  # type: ignore[dict-item]
            "thoughtTokens": RESPONSES_USAGE["output_tokens_details"]["reasoning_tokens"],  # type: ignore[index]
            "cachedReadTokens": cached,  # type: ignore[dict-item]
        }
    output = 17  # the message_delta's output_tokens (model_server's Anthropic stream)
    return {
        "totalTokens": ANTHROPIC_USAGE["input_tokens"] + output,
        "inputTokens": ANTHROPIC_USAGE["input_tokens"],
        "outputTokens": output,
        "cachedReadTokens": ANTHROPIC_USAGE["cache_read_input_tokens"],
    }


def named_messages(updates: list[Any]) -> list[tuple[str, str | None]]:
    """(kind, messageId) of each run of chunks of one message, in order."""
    out: list[tuple[str, str | None]] = []
    for u in updates:
        if u.session_update in CHUNKS:
            key = (u.session_update, u.message_id)
            if not out or out[-1] != key:
                out.append(key)
    return out


@pytest.fixture(params=["claude", "codex", "opencode"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RealAgent]:
    real = RealAgent(request.param, require_cli(request.param), tmp_path)
    yield real
    real.close()


async def test_every_chunk_names_its_message_and_the_answer_says_what_the_turn_spent(agent: RealAgent) -> None:
    server = agent.serve(f"{agent.name}_write_edit", delta_delay=0)
    client = RecordingClient()
    async with agent.bridge(client) as (conn, _):
        sid = await agent.session(conn)
        answer = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=[acp.text_block("Write notes.txt")]), 180)
    assert answer.stop_reason == "end_turn"
    chunks = [u for u in client.updates if u.session_update in CHUNKS]
    assert chunks and all(isinstance(u.message_id, str) and u.message_id for u in chunks)
    said = named_messages([u for u in chunks if u.session_update == "agent_message_chunk"])
    ids = [message_id for _, message_id in said]
    assert len(ids) >= 2 and len(set(ids)) == len(ids)  # a new message, a new id; a message's chunks, one id
    assert any(u.session_update == "agent_thought_chunk" for u in chunks) or agent.name == "opencode"

    steps = [r for r in server.requests if r["kind"] == "step" and r["status"] == 200]
    apis = {r["api"] for r in steps}
    assert len(apis) == 1 and steps
    one = per_request(apis.pop())
    assert answer.usage is not None
    usage = answer.usage.model_dump(by_alias=True, exclude_none=True)
    if agent.name == "opencode":  # its own usage, passed on as it wrote it: opencode counts its last request's
        assert usage == {"totalTokens": one["totalTokens"], "inputTokens": 11, "outputTokens": 17}
        return
    assert usage["totalTokens"] == one["totalTokens"] * len(steps), (usage, len(steps))
    assert usage["inputTokens"] == one["inputTokens"] * len(steps)
    assert usage["outputTokens"] == one["outputTokens"] * len(steps)
    if agent.name in ("claude", "codex"):
        assert usage["cachedReadTokens"] == one["cachedReadTokens"] * len(steps)
    if agent.name == "codex":
        assert usage["thoughtTokens"] == one["thoughtTokens"] * len(steps)
    # the context window's use is what the last request filled it with, not the turn's requests summed
    last = client.of("usage_update")[-1]
    assert last.used == one["totalTokens"] and last.size > 0, last

    if agent.name in ("claude", "codex"):  # session/load shows each message with its live id
        live = named_messages(client.updates)
        again = RecordingClient()
        async with agent.bridge(again) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=None)
            await conn.load_session(session_id=sid, cwd=str(agent.cwd), mcp_servers=[])
        assert named_messages(again.updates) == live
