"""Where the bridge's memory goes while it streams many deltas: RSS, the allocators and live objects, turn by turn.

Run:  .venv/bin/python benchmarks/mem_turns.py [--turns 6] [--deltas 100000] [--tracemalloc] [--trim-probe]

Why this exists: compare.py's million-event run only sees the bridge's RSS from outside. This script starts the
same bridge (``python -m acp_mux --agent demo`` from this checkout) through a wrapper (``--serve``) that, on
SIGUSR1 after every turn, reports from inside: RSS, glibc's view (``mallinfo2``: bytes in use, free bytes it holds,
mmapped bytes), pymalloc's arenas (from ``sys._debugmallocstats``), the number of live objects, and optionally

* ``--tracemalloc``: the live Python allocations diffed against the previous turn (slow: ~3× the CPU per delta);
* ``--trim-probe``: RSS before and after glibc's ``malloc_trim(0)`` (this changes the process: later turns then
  start from a trimmed heap, so use it to tell retention from leak, not for the RSS series itself).

If RSS grows while the live objects and glibc's "in use" bytes do not, the growth is freed memory an allocator
keeps (fragmentation), not objects the bridge keeps.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import io
import json
import os
import re
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

PREFIX = "MEM_TURNS "
ROOT = Path(__file__).resolve().parent.parent


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _libc() -> Any:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def _mallinfo() -> dict[str, float]:
    libc = _libc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return {}
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    mib = 2**20
    return {
        "glibc_heap_mib": round(info.arena / mib, 1),
        "glibc_in_use_mib": round(info.uordblks / mib, 1),
        "glibc_free_held_mib": round(info.fordblks / mib, 1),
        "glibc_mmapped_mib": round(info.hblkhd / mib, 1),
    }


def _pymalloc() -> dict[str, float]:
    """Arenas pymalloc holds and the bytes in its used blocks, parsed from ``sys._debugmallocstats`` (stderr)."""
    read, write = os.pipe()
    saved = os.dup(2)
    os.dup2(write, 2)
    try:
        sys._debugmallocstats()  # type: ignore[attr-defined]
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(write)
    with io.open(read, "r", encoding="utf-8", errors="replace") as fh:
        text = fh.read()

    def number(label: str) -> int:
        match = re.search(rf"^# {label}\s*=\s*([\d,]+)", text, re.M)
        return int(match.group(1).replace(",", "")) if match else -1

    total = re.search(r"^Total\s*=\s*([\d,]+)", text, re.M)
    return {
        "pymalloc_arenas": number("arenas allocated current"),
        "pymalloc_arenas_highwater": number("arenas highwater mark"),
        "pymalloc_arena_mib": round(int(total.group(1).replace(",", "")) / 2**20, 1) if total else -1,
        "pymalloc_used_blocks_mib": round(number("bytes in allocated blocks") / 2**20, 1),
        "pymalloc_free_blocks_mib": round(number("bytes in available blocks") / 2**20, 1),
    }


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def serve(argv: list[str], trace: bool, trim_probe: bool) -> int:
    """The bridge itself, reporting its memory on SIGUSR1."""
    import tracemalloc

    from acp_mux.cli.main import main

    previous: list[Any] = []
    if trace:
        tracemalloc.start(8)

    def report(*_: Any) -> None:
        gc.collect()
        out: dict[str, Any] = {
            "rss_mib": _rss_mib(),
            "live_objects": len(gc.get_objects()),
            **_mallinfo(),
            **_pymalloc(),
        }
        if trace:
            snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
            current, peak = tracemalloc.get_traced_memory()
            out["traced_mib"], out["traced_peak_mib"] = round(current / 2**20, 2), round(peak / 2**20, 2)
            tracemalloc.reset_peak()
            if previous:
                diff = snapshot.compare_to(previous[0], "traceback")
                out["grew"] = [
                    {
                        "kib": round(d.size_diff / 1024, 1),
                        "count": d.count_diff,
                        "where": [f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno}" for f in d.traceback][-4:],
                    }
                    for d in diff[:8]
                ]
            previous[:] = [snapshot]
        if trim_probe:
            libc = _libc()
            if libc is not None:
                libc.malloc_trim(0)
                out["rss_mib_after_trim"] = _rss_mib()
        sys.stderr.write(PREFIX + json.dumps(out) + "\n")
        sys.stderr.flush()

    signal.signal(signal.SIGUSR1, report)
    return main(argv)


def _fire(pid: int, fired: threading.Event) -> None:
    os.kill(pid, signal.SIGUSR1)
    fired.set()


def drive(turns: int, deltas: int, trace: bool, trim_probe: bool, mid: bool) -> None:
    from rawclient import AcpProcess, initialize, new_session, prompt, rss_kib

    flags = [*(["--trace"] if trace else []), *(["--trim-probe"] if trim_probe else [])]
    with tempfile.TemporaryDirectory(prefix="acp-mux-mem-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            "ACP_MUX_STATE_DIR": str(Path(tmp) / "state"),
            "ACP_MUX_DEMO_TEXT_DELAY": "0",
            "ACP_MUX_DEMO_DELTAS": str(deltas),
        }
        server = AcpProcess([sys.executable, __file__, "--serve", *flags, "--agent", "demo"], env, Path(tmp))
        seen = 0
        took = 0.0

        def reports() -> list[str]:
            return [ln for ln in server.stderr_text().splitlines() if ln.startswith(PREFIX)]

        def show(label: str, wanted: int) -> None:
            """Wait until the bridge has written ``wanted`` reports in all, then print the new ones."""
            nonlocal seen
            deadline = time.monotonic() + 60
            while len(reports()) < wanted and time.monotonic() < deadline:
                time.sleep(0.1)
            lines = reports()
            for n, line in enumerate(lines[seen:]):
                print(f"{label if seen + n == wanted - 1 else 'mid-turn'}: {line[len(PREFIX) :]}", flush=True)
            seen = len(lines)

        expected = 0

        try:
            initialize(server)
            session_id = new_session(server, Path(tmp))
            prompt(server, session_id, "warm up")
            print(f"session open: RSS {rss_kib(server.pid) / 1024:.1f} MiB", flush=True)
            os.kill(server.pid, signal.SIGUSR1)
            expected += 1
            show("open", expected)
            for turn in range(1, turns + 1):
                timer, fired = None, threading.Event()
                if mid and took:  # a probe halfway through the turn: what is alive while it streams
                    timer = threading.Timer(took / 2, _fire, (server.pid, fired))
                    timer.start()
                started = time.monotonic()
                _, traffic = prompt(server, session_id, "manydeltas", timeout=900)
                took = time.monotonic() - started
                if timer is not None:
                    timer.cancel()
                    timer.join()
                    expected += fired.is_set()
                print(
                    f"turn {turn}: {traffic.text_deltas:,} deltas, RSS {rss_kib(server.pid) / 1024:.1f} MiB", flush=True
                )
                os.kill(server.pid, signal.SIGUSR1)
                expected += 1
                show(f"turn {turn}", expected)
        finally:
            server.close(wait=1.0)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        rest = sys.argv[2:]
        trace = "--trace" in rest
        trim_probe = "--trim-probe" in rest
        rest = [a for a in rest if a not in ("--trace", "--trim-probe")]
        return serve(rest, trace, trim_probe)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--deltas", type=int, default=100_000)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--trim-probe", action="store_true")
    parser.add_argument("--mid", action="store_true", help="also probe halfway through each turn after the first")
    args = parser.parse_args()
    drive(args.turns, args.deltas, args.tracemalloc, args.trim_probe, args.mid)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
