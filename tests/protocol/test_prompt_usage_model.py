"""The prompt response's ``usage`` acp-mux sends (unstable ACP ``Usage``) against the upstream unstable schema: the
hand-typed model (acp_mux/protocol/unstable.py) has its fields under its wire names with the same required ones
(tests/protocol/data/unstable_usage.json, copied from the ACP TypeScript SDK 2.4.0's schema.unstable.json that
codex-acp 2.6.0 ships), and whatever a turn's token events add up to, the SDK's client models accept it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp.schema
from hypothesis import given
from hypothesis import strategies as st

from acp_mux.core.events import union as ev
from acp_mux.protocol import unstable
from acp_mux.translation.usage import TurnUsage

UPSTREAM: dict[str, Any] = json.loads((Path(__file__).with_name("data") / "unstable_usage.json").read_text())


def test_the_usage_model_has_the_upstream_fields() -> None:
    definition = UPSTREAM["$defs"]["Usage"]
    fields = unstable.Usage.model_fields.values()
    assert {f.alias for f in fields} == set(definition["properties"])
    assert {f.alias for f in fields if f.is_required()} == set(definition["required"])
    assert "usage" in UPSTREAM["$defs"]["PromptResponse"]["properties"]


counts = st.none() | st.integers(min_value=0, max_value=10**9)
usage_events = st.builds(
    ev.TokenUsageEvent,
    input_tokens=st.integers(min_value=0, max_value=10**9),
    output_tokens=st.integers(min_value=0, max_value=10**9),
    thinking_tokens=counts,
    cached_tokens=counts,
    cache_write_tokens=counts,
    total_tokens=counts,
)


@given(st.lists(usage_events, min_size=1, max_size=5))
def test_any_turns_usage_validates_as_the_sdk_reads_it(events: list[ev.TokenUsageEvent]) -> None:
    turn = TurnUsage()
    for event in events:
        turn.add(event)
    usage = turn.usage()
    assert usage is not None
    response = acp.schema.PromptResponse.model_validate({"stopReason": "end_turn", "usage": usage})
    assert response.usage is not None
    assert response.usage.model_dump(by_alias=True, exclude_none=True) == usage
    assert unstable.Usage.model_validate(usage).model_dump(by_alias=True, exclude_none=True) == usage


def test_a_turn_without_tokens_has_no_usage() -> None:
    assert TurnUsage().usage() is None
