"""Diagnose acp-mux's per-run EventBuffer: events dropped on overflow, and payload bytes it keeps alive.

Run:  .venv/bin/python benchmarks/diag_event_buffer.py [burst-text|big-line] [--turns N]

Why this exists: bench.py sees the symptoms from outside (text missing, RSS growing turn after turn); this script
shows the cause. It starts the real bridge through a wrapper (``--serve``) that patches ``EventBuffer`` in memory
(no acp_mux file is changed) to count dropped events and, at exit, the string bytes still referenced by buffered
events. It then drives that bridge with bench.py's raw client and prints the two sides together.
"""

from __future__ import annotations

import argparse
import atexit
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

DIAG_PREFIX = "EVENT_BUFFER_DIAG "


def serve_instrumented(argv: list[str]) -> int:
    """The bridge itself, with EventBuffer.append/_evict wrapped to record drops and keep a handle on the buffers."""
    import acp_mux.event_buffer as event_buffer
    from acp_mux.cli import main

    buffers: list[Any] = []
    stats = {"dropped": 0, "max_len": 0}
    original_append = event_buffer.EventBuffer.append

    def append(self: Any, item: Any) -> None:
        dropped_before = self.dropped
        original_append(self, item)  # calls _evict past the high-water mark
        stats["dropped"] += self.dropped - dropped_before
        stats["max_len"] = max(stats["max_len"], len(self._items))
        if not buffers or buffers[-1] is not self:
            buffers.append(self)

    def report() -> None:
        items = [item for buffer in buffers for item in buffer._items]
        retained = sum(_string_bytes(item.__dict__) for item in items)
        sys.stderr.write(DIAG_PREFIX + json.dumps({**stats, "items": len(items), "retained_string_bytes": retained}) + "\n")

    event_buffer.EventBuffer.append = append  # type: ignore[method-assign]
    atexit.register(report)
    return main(argv)


def _string_bytes(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_string_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_string_bytes(v) for v in value)
    return 0


def drive(scenario: str, turns: int) -> None:
    import tempfile

    import bench

    bench.LAUNCHERS["python -m acp_mux"] = [bench.PYTHON, __file__, "--serve", "--agent", "demo"]
    case = bench.text_case(8_000, 0) if scenario == "burst-text" else bench.shell_case(1, 20_000_000, label="20 MB line")
    with tempfile.TemporaryDirectory(prefix="acp-mux-diag-") as tmp:
        bridge, session_id = bench.ready_bridge(Path(tmp), **case.knobs)
        try:
            for turn in range(1, turns + 1):
                run = bench.measured_prompt(bridge, session_id, case)
                print(f"turn {turn}: delivered {run.delivered_pct:.1f}%, {run.updates:,} updates, "
                      f"bridge RSS {run.bridge_rss_kib / 1024:.1f} MiB (peak {run.bridge_hwm_kib / 1024:.1f})")
        finally:
            bridge.close()
        for line in bridge.stderr_tail(8000).splitlines():
            if line.startswith(DIAG_PREFIX):
                print("event buffer at exit:", line[len(DIAG_PREFIX):])


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve_instrumented(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?", default="burst-text", choices=["burst-text", "big-line"])
    parser.add_argument("--turns", type=int, default=None, help="prompt turns in one session (default 1 / 6)")
    args = parser.parse_args()
    drive(args.scenario, args.turns or (1 if args.scenario == "burst-text" else 6))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
