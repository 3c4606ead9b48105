"""The demo agent's benchmark scenario: ``manydeltas`` streams exactly ACP_MUX_DEMO_DELTAS text deltas, in order.

The benchmark's million-event memory run counts on it: every delta it sends is one event the bridge must carry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_manydeltas_streams_the_configured_number_of_deltas_then_ends_the_turn():
    proc = subprocess.run(
        [sys.executable, "-m", "acp_mux.adapters.stream_agents.scripted_agent"],
        input=json.dumps({"type": "prompt", "text": "manydeltas"}) + "\n",
        env={**os.environ, "ACP_MUX_DEMO_DELTAS": "5"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    texts = [e["text"] for e in events if e["type"] == "text"]
    assert texts == ["d0 ", "d1 ", "d2 ", "d3 ", "d4 "]
    assert events[-1] == {"type": "turn_end", "stop": "end_turn"}
