"""Spawn → ``initialize``, spawn → ``session/new``, and spawn → the answer to a third request (``session/list``), on
the bundled demo agent: what the typed editor edge (issue 23) may not slow down.

The launcher answers the first two before the bridge is imported; the third is the server's, so it shows what
parsing with the v1 model costs a request that the launcher does not answer. The machine is shared, so compare two
builds by alternating them: ``--launcher`` runs another acp-mux (e.g. a script running ``python -m acp_mux`` with a
``pip install --target`` of an older revision first on PYTHONPATH), as benchmarks/ab.py does for CPU per delta.

Run:  .venv/bin/python benchmarks/editor_open.py [--runs 20] [--launcher PATH]

Measured 2026-11-25 (N=15, two alternated rounds, medians in ms), before issue 23 (1f663c0) → after:
initialize 29/31 → 27/29, session/new 45/45 → 43/45, session/list 256/271 → 333/330 (the first request the server
answers now waits for pydantic and the v1 models, imported with the bridge on the launcher's background thread).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402
from bench import demo_bridge, initialize, new_session  # noqa: E402
from rawclient import ms, spread, summary, table  # noqa: E402


def once(workdir: Path) -> tuple[float, float, float]:
    """One cold bridge: the three times from its spawn, in ms."""
    bridge = demo_bridge(workdir)
    try:
        initialize(bridge)
        init_ms = ms(time.perf_counter() - bridge.started)
        new_session(bridge)
        new_ms = ms(time.perf_counter() - bridge.started)
        bridge.request("session/list", {})
        list_ms = ms(time.perf_counter() - bridge.started)
    finally:
        bridge.close(wait=1.0)
    return init_ms, new_ms, list_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--launcher", default=str(Path(sys.executable).parent / "acp-mux"), help="the acp-mux to run")
    args = parser.parse_args()
    bench.LAUNCHER[:] = [args.launcher, "--agent", "demo"]  # this work tree's (editable) install
    runs: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        once(Path(tmp))  # warm the page cache
        runs = [once(Path(tmp)) for _ in range(args.runs)]
    cols = list(zip(*runs))
    table(
        f"Spawn → answer on the demo agent (ms, median (min–max), N={args.runs})",
        ["initialize", "session/new", "session/list"],
        [[spread(summary(list(c))) for c in cols]],
    )


if __name__ == "__main__":
    main()
