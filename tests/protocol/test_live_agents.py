"""The pinned ACP-speaking CLIs, live: each runs a write-and-edit turn against the scripted model server, driven by
the capture client (tests/fixtures/capture_acp.py, raw JSON-RPC both ways), and every message either side wrote fits
the v1 model and round-trips. The recordings in tests/fixtures show the same for the versions they were made
with; this shows it for the CLIs installed now (a CLI bump that sends something the pinned schema lacks fails here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_mux.protocol import wire
from tests.e2e.harness import require_cli
from tests.fixtures.capture_acp import capture, read_transcript
from tests.protocol.recorded import ACP_FIXTURE_CLIS, capture_acp_stream, jsonrpc_messages

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("cli", ACP_FIXTURE_CLIS)
def test_a_live_write_edit_turn_fits_the_model_both_ways(cli: str, tmp_path: Path) -> None:
    require_cli(cli)
    out = tmp_path / f"{cli}.jsonl"
    results, _ = capture(cli, f"{cli}_write_edit", out, "allow", timeout=180)
    assert results[0].stop_reason == "end_turn", results[0]
    messages = list(jsonrpc_messages(out.name, capture_acp_stream(out)))
    assert len(messages) > 5 and any(m.method == "session/update" for m in messages), read_transcript(out)[-3:]
    for m in messages:
        if m.part == "error" or m.method.startswith("_"):
            continue
        model = (wire.parse_params if m.part == "params" else wire.parse_result)(m.method, m.payload)
        assert model is not None, f"{cli}: {m.method} {m.part} has no model"
        assert wire.dump(model) == (m.payload if m.payload is not None else {}), f"{cli}: {m.method} {m.part}"
