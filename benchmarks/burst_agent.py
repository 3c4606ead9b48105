"""A synthetic ACP agent for measuring the bridge alone: every ``session/prompt`` is answered with
``BURST_CHUNKS`` ``agent_message_chunk`` lines (opencode's line shape: compact JSON, one ``messageId``) written
``BURST_SIZE`` lines at a time, ``BURST_GAP`` seconds apart, then ``end_turn``; other requests get ``{}``.

Why: a real CLI's reply time and the scripted model's pacing move by ±15 % between runs on two cores; this agent
writes the same bursts every time, so the bridge's CPU per chunk for a given burst size and cadence (the two things
that decide it: see ``acp_mux.core.run.handle.STREAM_PACE_S``) can be compared across builds (``ab.py --agent
bursts:opencode``).
"""

from __future__ import annotations

import json
import os
import sys
import time

CHUNKS = int(os.environ.get("BURST_CHUNKS", "3000"))
SIZE = int(os.environ.get("BURST_SIZE", "4"))
GAP = float(os.environ.get("BURST_GAP", "0.0005"))
MESSAGE_ID = "prt_207c5a2be001Lubbi4j6vF79aE"


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def chunk(session_id: str, index: int) -> bytes:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": MESSAGE_ID,
        "content": {"type": "text", "text": f"w{index} "},
    }
    return line({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}})


def main() -> None:
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if request_id is None or method is None:
            continue
        result: dict[str, object] = {}
        if method == "initialize":
            result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
        elif method == "session/new":
            result = {"sessionId": "ses_bursts"}
        elif method == "session/prompt":
            session_id = message["params"]["sessionId"]
            for start in range(0, CHUNKS, SIZE):
                out.write(b"".join(chunk(session_id, i) for i in range(start, min(CHUNKS, start + SIZE))))
                out.flush()
                if GAP:
                    time.sleep(GAP)
            result = {"stopReason": "end_turn"}
        out.write(line({"jsonrpc": "2.0", "id": request_id, "result": result}))
        out.flush()


if __name__ == "__main__":
    main()
