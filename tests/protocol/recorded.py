"""Every ACP message in the project's recordings, as (method, part, payload), for the round-trip tests.

Three recording shapes exist, and each is turned into the same JSON-RPC stream with a sender per line:
- tests/fixtures/<cli>/*.jsonl (capture_acp): ``{"from": "client" | "agent", "msg": {...}}`` entries;
- tests/protocol/data/*-acp-allow.jsonl and the acpx capture (copies of /work/shared/captures): raw JSON-RPC lines,
  the client's prefixed with ``# >>> `` (acpx's unprefixed, sender unknown);
- tests/protocol/data/claude-agent-acp-turn*.jsonl (an SDK client's log): ``{"method", "params"}`` for what the
  agent sent, ``{"response": method, "result"}`` for its answers; the log names the method, no ids needed.

A response is matched to its request by id, looked up among the requests of the other side (or of either side
when the sender is unknown), so its method, and with it its result type, is known.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
ACP_FIXTURE_CLIS = ("gemini", "omp", "hermes", "opencode", "copilot")

Sender = Literal["client", "agent"] | None


@dataclass(frozen=True)
class Recorded:
    """One params or result payload, with where it came from (for a failure message that points at the line)."""

    source: str
    method: str
    part: Literal["params", "result", "error"]
    payload: Any


def capture_acp_stream(path: Path) -> Iterator[tuple[Sender, dict[str, Any]]]:
    for line in path.read_text().splitlines():
        if line.strip():
            entry = json.loads(line)
            if "msg" in entry:
                yield entry["from"], entry["msg"]


def raw_stream(path: Path) -> Iterator[tuple[Sender, dict[str, Any]]]:
    prefixed = any(line.startswith("# >>> ") for line in path.read_text().splitlines())
    for line in path.read_text().splitlines():
        if line.startswith("# >>> "):
            yield "client", json.loads(line.removeprefix("# >>> "))
        elif line.startswith("{"):
            yield ("agent" if prefixed else None), json.loads(line)


def jsonrpc_messages(source: str, stream: Iterator[tuple[Sender, dict[str, Any]]]) -> Iterator[Recorded]:
    """Requests, notifications, results and errors of a JSON-RPC stream, responses named by their request's method."""
    pending: dict[tuple[Sender, Any], str] = {}
    for sender, msg in stream:
        if "method" in msg:
            if "id" in msg:
                pending[(sender, msg["id"])] = msg["method"]
            yield Recorded(source, msg["method"], "params", msg.get("params"))
            continue
        asker: list[Sender] = (
            [None, "client", "agent"] if sender is None else ["client" if sender == "agent" else "agent"]
        )
        method = next((pending.pop((s, msg.get("id"))) for s in asker if (s, msg.get("id")) in pending), None)
        if method is None:
            raise AssertionError(f"{source}: a response to no recorded request: {msg}")
        if "error" in msg:
            yield Recorded(source, method, "error", msg["error"])
        else:
            yield Recorded(source, method, "result", msg["result"])


def sdk_log(path: Path) -> Iterator[Recorded]:
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if "response" in entry:
            yield Recorded(path.name, entry["response"], "result", entry["result"])
        elif "method" in entry:
            yield Recorded(path.name, entry["method"], "params", entry["params"])
        elif "ext_notification" in entry:
            yield Recorded(path.name, entry["ext_notification"], "params", entry["params"])


def recordings() -> dict[str, list[Recorded]]:
    """Every recording file (by its path under the repo) -> its messages in order."""
    found: dict[str, list[Recorded]] = {}
    for cli in ACP_FIXTURE_CLIS:
        for path in sorted((ROOT / "tests" / "fixtures" / cli).glob("*.jsonl")):
            name = str(path.relative_to(ROOT))
            found[name] = list(jsonrpc_messages(name, capture_acp_stream(path)))
    for path in sorted(DATA.glob("*.jsonl")):
        name = str(path.relative_to(ROOT))
        if "tsclient" in path.name or path.name == "claude-agent-acp-turn.jsonl":
            found[name] = list(sdk_log(path))
        else:
            found[name] = list(jsonrpc_messages(name, raw_stream(path)))
    return found
