"""What the ACP-client family costs per line an agent sends: every ``session/update`` the real CLIs sent in the
recorded fixtures (gemini, copilot, hermes, omp, opencode: text, tool calls, plans, usage, titles) fed through one
adapter's ``parse_line``, as a run reads them. Medians over rounds, each round a fresh run (no state carried over),
after one warm-up round (the models build their validators on first use; that cost is the first line's, once).
Then the same for a 3000-chunk text reply (plain ``agent_message_chunk`` lines, the bulk of every long answer: the
edge proves their shape without the model, acp_mux/protocol/plain_chunk.py), line by line and as the run reads it,
in bursts of 1 to 64 lines (``parse_from`` reads a run of chunks of one message as one).

    .venv/bin/python benchmarks/acp_family_parse.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from acp_mux.adapters.acp_agents.acp_client import AcpClientAdapter
from acp_mux.core.run.contract import RunOptions
from acp_mux.core.run.parse_context import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
AGENTS = ("gemini", "copilot", "hermes", "omp", "opencode")
SESSION = "bench-session"


def text_reply(chunks: int = 3000) -> list[str]:
    """A long answer as an ACP agent streams it: one plain text chunk a line, one message."""
    return [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SESSION,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": "m1",
                        "content": {"type": "text", "text": f"c{i} "},
                    },
                },
            }
        )
        for i in range(chunks)
    ]


def recorded_updates() -> list[str]:
    """Every session/update the agents sent in their fixtures, as the line the run reads (one session id)."""
    lines = []
    for agent in AGENTS:
        for path in sorted((FIXTURES / agent).glob("*.jsonl")):
            for raw in path.read_text().splitlines():
                entry = json.loads(raw)
                msg = entry.get("msg")
                if entry.get("from") == "agent" and isinstance(msg, dict) and msg.get("method") == "session/update":
                    msg = {**msg, "params": {**msg["params"], "sessionId": SESSION}}
                    lines.append(json.dumps(msg))
    return lines


class Family(AcpClientAdapter):
    name = "bench"
    binary = "bench"


def fresh_run() -> tuple[Family, ParseContext]:
    adapter, ctx = Family(), ParseContext(run_id="r", agent="bench", cwd="/tmp")
    adapter.start(RunOptions(agent="bench", cwd="/tmp"), ctx)
    for answer in ({"protocolVersion": 1, "agentCapabilities": {}}, {"sessionId": SESSION}):
        request_id = max(AcpRunIds.pending(ctx))
        adapter.parse_line(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": answer}), ctx)
    return adapter, ctx


class AcpRunIds:
    @staticmethod
    def pending(ctx: ParseContext) -> list[int]:
        from acp_mux.adapters.acp_agents.acp_client import AcpRun

        return [int(i) for i in AcpRun.of(ctx).peer.pending]


def one_round(lines: list[str]) -> float:
    adapter, ctx = fresh_run()
    start = time.perf_counter()
    for line in lines:
        for _ in adapter.parse_line(line, ctx):
            pass
    return (time.perf_counter() - start) / len(lines) * 1e6


def by_bursts(lines: list[str], burst: int) -> float:
    """As the run reads a reply that comes ``burst`` lines to a read: ``parse_from`` over each burst (a run of
    chunks of one message is read as one)."""
    adapter, ctx = fresh_run()
    start = time.perf_counter()
    for first in range(0, len(lines), burst):
        chunk = lines[first : first + burst]
        at = 0
        while at < len(chunk):
            events, taken = adapter.parse_from(chunk, at, ctx)
            for _ in events:
                pass
            at += taken
    return (time.perf_counter() - start) / len(lines) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    for what, lines in (("recorded session/update lines", recorded_updates()), ("text chunks", text_reply())):
        one_round(lines)  # warm-up: validators and event schemas built
        times = [one_round(lines) for _ in range(rounds)]
        print(
            f"{len(lines)} {what}, {rounds} rounds: "
            f"median {statistics.median(times):.1f} µs/line (min {min(times):.1f}, max {max(times):.1f})"
        )
    lines = text_reply()
    for burst in (1, 4, 16, 64):
        by_bursts(lines, burst)
        times = [by_bursts(lines, burst) for _ in range(rounds)]
        print(
            f"{len(lines)} text chunks read {burst} to a burst (parse_from), {rounds} rounds: "
            f"median {statistics.median(times):.1f} µs/line (min {min(times):.1f}, max {max(times):.1f})"
        )


if __name__ == "__main__":
    main()
