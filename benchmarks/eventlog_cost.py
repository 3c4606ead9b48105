"""What keeping the session's event log costs a streaming turn, measured in-process.

The log's writer sits on the bridge's event path (a ``RunHandle`` ``"*"`` handler): every event of a turn goes
through ``EventLogWriter.event`` synchronously, and the writes happen in batches off that path (a timer, turn end).
So the two numbers that matter are the synchronous cost per event (compared with translating the same event to
ACP, the work the bridge does anyway) and the cost of one flush, plus how big the log gets. Measured on one
realistic turn: streamed text, tool calls, a command's output, usage, all stamped as the runtime stamps them.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from rawclient import table


def _turn(deltas: int, tools: int, output_lines: int) -> list[Any]:
    from acp_mux.core.events import union as ev
    from acp_mux.core.text.joined_text import JoinedText

    events: list[Any] = [ev.TurnStartEvent(turn_index=0), ev.MessageStartEvent()]
    parts = JoinedText()
    for i in range(deltas):
        word = f"word{i} "
        parts.append(word)
        events.append(ev.TextDeltaEvent.lazy(word, parts))
    events.append(ev.MessageStopEvent(text=parts.text()))
    for t in range(tools):
        tool_id = f"toolu_{t}"
        events += [
            ev.ToolCallStartEvent(tool_call_id=tool_id, tool_name="Bash"),
            ev.ToolCallReadyEvent(tool_call_id=tool_id, tool_name="Bash", input={"command": f"echo {t}"}),
            ev.ShellStartEvent(command=f"echo {t}", cwd="/tmp"),
            *(ev.ShellStdoutDeltaEvent(delta=f"line {n} of tool {t}\n") for n in range(output_lines)),
            ev.ShellExitEvent(exit_code=0),
            ev.ToolResultEvent(tool_call_id=tool_id, tool_name="Bash", output=f"{output_lines} lines"),
        ]
    events += [ev.TokenUsageEvent(input_tokens=1000, output_tokens=200), ev.TurnEndEvent(turn_index=0)]
    for n, event in enumerate(events):
        event.run_id, event.agent, event.timestamp = "01RUN", "bench", 1_800_000_000_000 + n
    return events


def bench_event_log(deltas: int = 20_000, tools: int = 50, output_lines: int = 400, repeats: int = 5) -> dict[str, Any]:
    from acp_mux.adapters.stream_agents.scripted import TOOLS
    from acp_mux.server.records.event_log import EventLogWriter
    from acp_mux.translation.updates import UpdateTranslator

    events = _turn(deltas, tools, output_lines)
    hot, flush, translate, sizes, lines = [], [], [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="acp-mux-log-") as tmp:
            path = Path(tmp) / "s.events.jsonl"
            writer = EventLogWriter(path, "01SESSION")
            started = time.perf_counter()
            for event in events:
                writer.event(event)
            hot.append(time.perf_counter() - started)
            started = time.perf_counter()
            writer.flush()
            flush.append(time.perf_counter() - started)
            sizes.append(path.stat().st_size)
            lines.append(sum(1 for _ in path.open("rb")))
        translator = UpdateTranslator(TOOLS, "/tmp")
        started = time.perf_counter()
        for event in events:
            translator.translate(event)
        translate.append(time.perf_counter() - started)
    best = {name: min(values) for name, values in (("hot", hot), ("flush", flush), ("translate", translate))}
    result = {
        "events": len(events),
        "log_us_per_event": best["hot"] / len(events) * 1e6,
        "translate_us_per_event": best["translate"] / len(events) * 1e6,
        "flush_ms_per_turn": best["flush"] * 1e3,
        "log_bytes": sizes[0],
        "log_lines": lines[0],
        "repeats": repeats,
    }
    table(
        f"Session event log: one turn of {len(events):,} events ({deltas:,} text deltas, {tools} tool calls with "
        f"{output_lines} output lines each), best of {repeats}",
        [
            "on the event path (µs/event)",
            "translation, for scale (µs/event)",
            "flush at turn end (ms)",
            "log size (KB)",
            "log lines",
        ],
        [
            [
                round(result["log_us_per_event"], 2),
                round(result["translate_us_per_event"], 2),
                round(result["flush_ms_per_turn"], 1),
                round(result["log_bytes"] / 1e3, 1),
                result["log_lines"],
            ]
        ],
    )
    return result
