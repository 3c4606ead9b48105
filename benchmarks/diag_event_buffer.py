"""Look inside acp-mux's per-run EventBuffer: events dropped, and events (with their payload bytes) kept alive.

Run:  .venv/bin/python benchmarks/diag_event_buffer.py [burst-text|big-line|wide-lines] [--turns N] [--lossy]

Why this exists: bench.py sees symptoms from outside (text missing, RSS growing turn after turn); this script shows
the buffer itself. It starts the real bridge through a wrapper (``--serve``) that patches ``EventBuffer`` in memory
(no acp_mux file is changed) to count dropped events, and to report, after every turn (on SIGUSR1) and at exit, how
many events the buffers still hold and the string bytes those events reference. It drives that bridge with
bench.py's raw client, checks delivery the way bench.py does, and prints both sides together.

What to expect since the lossless consumer (``EventBuffer.iterate(lossless=True)`` + ``room()``): "dropped" is 0 and
the events held between turns stay a small, bounded tail of the last turn, not a growing history.

``--lossy`` makes every iterator lossy again (the behaviour before that fix), to show that the delivery check in
bench.py catches event loss: expect "complete: False" and a non-zero "dropped" for burst-text.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

DIAG_PREFIX = "EVENT_BUFFER_DIAG "


def serve_instrumented(argv: list[str], lossy: bool) -> int:
    """The bridge itself, with EventBuffer.append wrapped to record drops and keep a handle on the buffers."""
    import atexit

    import acp_mux.core.events.buffer as event_buffer
    from acp_mux.cli.main import main

    buffers: list[Any] = []
    stats = {"dropped": 0, "max_len": 0}
    original_append = event_buffer.EventBuffer.append
    original_iterate = event_buffer.EventBuffer.iterate

    def append(self: Any, item: Any) -> None:
        dropped_before = self.dropped
        original_append(self, item)  # drops (and reports) unconsumed events only past the high-water mark
        stats["dropped"] += self.dropped - dropped_before
        stats["max_len"] = max(stats["max_len"], len(self._items))
        if not buffers or buffers[-1] is not self:
            buffers.append(self)

    def iterate(self: Any, from_start: bool = True, lossless: bool = False) -> Any:
        return original_iterate(self, from_start, lossless=False)

    def report(label: str) -> None:
        sizes = [(item, _string_bytes(item.__dict__)) for buffer in buffers for item in buffer._items]
        summary = {
            "at": label,
            **stats,
            "items": len(sizes),
            "retained_string_bytes": sum(size for _, size in sizes),
            "largest_item_bytes": max((size for _, size in sizes), default=0),
            "kinds_over_100kB": sorted({getattr(item, "type", "?") for item, size in sizes if size > 100_000}),
            **(_process_memory() if label == "probe" else {}),
        }
        sys.stderr.write(DIAG_PREFIX + json.dumps(summary) + "\n")
        sys.stderr.flush()

    event_buffer.EventBuffer.append = append  # type: ignore[method-assign]
    if lossy:
        event_buffer.EventBuffer.iterate = iterate  # type: ignore[method-assign]
    signal.signal(signal.SIGUSR1, lambda *_: report("probe"))
    atexit.register(report, "exit")
    return main(argv)


def _process_memory() -> dict[str, Any]:
    """Beyond the buffer: large strings anything still references, and RSS before and after glibc's malloc_trim.

    If RSS falls back to idle after the trim and no large string is referenced, what looked like retention is
    freed memory the allocator had kept, not a leak.
    """
    import ctypes
    import gc

    gc.collect()
    large = sorted(
        (
            len(ref)
            for obj in gc.get_objects()
            for ref in gc.get_referents(obj)
            if isinstance(ref, (str, bytes, bytearray)) and len(ref) > 1_000_000
        ),
        reverse=True,
    )
    before = _rss_mib()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    return {"referenced_strings_over_1MB": large[:10], "rss_mib": before, "rss_mib_after_malloc_trim": _rss_mib()}


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def _string_bytes(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_string_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_string_bytes(v) for v in value)
    return 0


def _diag_lines(bridge: Any, seen: int) -> list[str]:
    lines = [line for line in bridge.stderr_tail(64_000).splitlines() if line.startswith(DIAG_PREFIX)]
    return [line[len(DIAG_PREFIX) :] for line in lines[seen:]]


SCENARIOS = {
    "burst-text": lambda bench: bench.text_case(8_000, 0),
    "big-line": lambda bench: bench.shell_case(1, 20_000_000, label="20 MB line"),
    "wide-lines": lambda bench: bench.shell_case(2_500, 19_999, label="2,500 lines of 20 kB"),
}


def drive(scenario: str, turns: int, lossy: bool) -> None:
    import tempfile

    import bench

    wrapper = [bench.PYTHON, __file__, "--serve", *(["--lossy"] if lossy else []), "--agent", "demo"]
    bench.LAUNCHERS["python -m acp_mux"] = wrapper
    case = SCENARIOS[scenario](bench)
    with tempfile.TemporaryDirectory(prefix="acp-mux-diag-") as tmp:
        bridge, session_id = bench.ready_bridge(Path(tmp), **case.knobs)
        seen = 0
        try:
            for turn in range(1, turns + 1):
                run = bench.measured_prompt(bridge, session_id, case)
                print(
                    f"turn {turn}: delivered {run.delivered_pct:.1f}%, complete: {run.complete} ({run.check}), "
                    f"{run.updates:,} updates, bridge RSS {run.bridge_rss_kib / 1024:.1f} MiB "
                    f"(peak {run.bridge_hwm_kib / 1024:.1f})"
                )
                os.kill(bridge.pid, signal.SIGUSR1)
                time.sleep(0.3)
                probes = _diag_lines(bridge, seen)
                seen += len(probes)
                for probe in probes:
                    print("  event buffer after the turn:", probe)
        finally:
            bridge.close()
        for line in _diag_lines(bridge, seen):
            print("event buffer at exit:", line)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        lossy = len(sys.argv) > 2 and sys.argv[2] == "--lossy"
        return serve_instrumented(sys.argv[3 if lossy else 2 :], lossy)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?", default="burst-text", choices=list(SCENARIOS))
    parser.add_argument(
        "--turns", type=int, default=None, help="prompt turns in one session (default: 1 for burst-text, else 6)"
    )
    parser.add_argument("--lossy", action="store_true", help="make every iterator lossy (the behaviour before the fix)")
    args = parser.parse_args()
    drive(args.scenario, args.turns or (1 if args.scenario == "burst-text" else 6), args.lossy)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
