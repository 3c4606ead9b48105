"""Every ACP message the project has recorded from real agents and clients parses into the generated v1 model and
dumps back to the same dict, field for field: nothing an agent or an editor sends is lost or rewritten at the edge.

The recordings: tests/fixtures/{gemini,omp,hermes,opencode,copilot} (capture_acp, both directions) and copies of the
research captures in tests/protocol/data (claude-agent-acp through acpx and the SDK clients, openclaw, and the five
agents above once more). cursor's fixtures are scripts for a fake agent, not recordings, so they are not here.
"""

from __future__ import annotations

import pytest

from acp_mux.protocol import v1, wire
from tests.protocol.recorded import Recorded, recordings

RECORDINGS = recordings()


def _round_trip(item: Recorded) -> None:
    if item.part == "error":
        error = v1.Error.model_validate(item.payload)
        assert wire.dump(error) == item.payload, item.source
        return
    parse = wire.parse_params if item.part == "params" else wire.parse_result
    model = parse(item.method, item.payload)
    if model is None:  # outside the schema: only extension methods may be
        assert item.method.startswith("_"), f"{item.source}: {item.method} has no model"
        return
    expected = {} if item.payload is None else item.payload  # a void result sent as null reads as {}
    assert wire.dump(model) == expected, f"{item.source}: {item.method} {item.part} changed on a round trip"


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_every_recorded_message_round_trips(name: str) -> None:
    items = RECORDINGS[name]
    assert items, f"{name}: no ACP message read (the reader lost the format?)"
    for item in items:
        _round_trip(item)


def test_the_recordings_cover_both_sides_of_the_protocol() -> None:
    """The round trip above is only worth what it covers: both sides' methods, requests, results and updates."""
    seen = {(item.method, item.part) for items in RECORDINGS.values() for item in items}
    for needed in [
        ("initialize", "params"),
        ("initialize", "result"),
        ("session/new", "params"),
        ("session/new", "result"),
        ("session/prompt", "params"),
        ("session/prompt", "result"),
        ("session/cancel", "params"),
        ("session/load", "params"),
        ("session/resume", "params"),
        ("session/list", "result"),
        ("session/set_mode", "params"),
        ("session/set_config_option", "params"),
        ("session/update", "params"),
        ("session/request_permission", "params"),
        ("session/request_permission", "result"),
        ("fs/write_text_file", "params"),
        ("fs/read_text_file", "result"),
        ("elicitation/create", "params"),
        ("elicitation/create", "result"),
    ]:
        assert needed in seen, needed
    kinds = {
        item.payload["update"]["sessionUpdate"]
        for items in RECORDINGS.values()
        for item in items
        if item.method == "session/update" and item.part == "params"
    }
    assert {"agent_message_chunk", "tool_call", "tool_call_update", "available_commands_update"} <= kinds, kinds
    assert sum(len(items) for items in RECORDINGS.values()) > 4000
