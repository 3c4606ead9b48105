"""What the typed ACP edge (acp_mux/protocol) costs: importing the generated model, and validating + dumping one
message of each common kind, against the official SDK's own generated schema module for scale.

Import times are medians of fresh interpreters (each imports pydantic first, which the bridge loads anyway, so
the number is the model's own cost). Per-message times are medians over many rounds, after the first use (the
models build their validators lazily, so the first message of a kind pays that once; reported separately).

    .venv/bin/python benchmarks/protocol_cost.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Any

IMPORT_PROBE = """
import time, pydantic
t = time.perf_counter()
import {module}
print((time.perf_counter() - t) * 1000)
"""

MESSAGES: dict[str, tuple[str, dict[str, Any]]] = {
    "session/update agent_message_chunk": (
        "session/update",
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "text", "text": "word "},
            },
        },
    ),
    "session/update tool_call": (
        "session/update",
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Write notes.txt",
                "kind": "edit",
                "status": "pending",
                "locations": [{"path": "/w/notes.txt"}],
                "rawInput": {"path": "/w/notes.txt", "content": "alpha\n"},
            },
        },
    ),
    "session/prompt (text + resource_link)": (
        "session/prompt",
        {
            "sessionId": "s",
            "prompt": [
                {"type": "text", "text": "Fix the bug", "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "resource_link", "name": "a.py", "uri": "file:///w/a.py", "title": "a.py", "_meta": {"k": 1}},
            ],
        },
    ),
    "session/request_permission": (
        "session/request_permission",
        {
            "sessionId": "s",
            "toolCall": {"toolCallId": "t1", "title": "Write notes.txt", "kind": "edit"},
            "options": [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ],
        },
    ),
}


def import_ms(module: str, runs: int = 11) -> tuple[float, float]:
    """(fastest, median) milliseconds to import ``module`` in a fresh interpreter that has pydantic loaded already.
    The fastest is the figure on a busy machine (other work only ever adds time)."""
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", IMPORT_PROBE.format(module=module)], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return min(times), statistics.median(times)


def per_message_us(method: str, params: dict[str, Any], rounds: int = 2000) -> tuple[float, float, float]:
    """(first use ms, parse µs, dump µs) for one message: parse_params then dump, medians over ``rounds``."""
    from acp_mux.protocol import wire

    t = time.perf_counter()
    model = wire.parse_params(method, params)
    first = (time.perf_counter() - t) * 1000
    assert model is not None and wire.dump(model) == params
    parse, dump = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        model = wire.parse_params(method, params)
        t1 = time.perf_counter()
        wire.dump(model)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        parse.append((t1 - t0) * 1e6)
        dump.append((t2 - t1) * 1e6)
    return first, statistics.median(parse), statistics.median(dump)


def main() -> None:
    rows = {
        "import acp_mux.protocol.v1": import_ms("acp_mux.protocol.v1"),
        "import acp_mux.protocol.wire": import_ms("acp_mux.protocol.wire"),
        "import acp.schema (the SDK's generated models)": import_ms("acp.schema"),
        "import acp_mux.server.sessions.bridge (for scale)": import_ms("acp_mux.server.sessions.bridge"),
    }
    for name, (fastest, median) in rows.items():
        print(f"{name:55s} {fastest:7.1f} ms fastest, {median:7.1f} ms median")
    raw = json.dumps(MESSAGES["session/update agent_message_chunk"][1])
    t = time.perf_counter()
    for _ in range(2000):
        json.loads(raw)
    loads_us = (time.perf_counter() - t) / 2000 * 1e6
    print(f"{'(json.loads of a text chunk, for scale)':55s} {loads_us:7.1f} µs")
    for name, (method, params) in MESSAGES.items():
        first, parse, dump = per_message_us(method, params)
        print(f"{name:55s} first {first:6.1f} ms, then parse {parse:5.1f} µs + dump {dump:5.1f} µs")


if __name__ == "__main__":
    main()
