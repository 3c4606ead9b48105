"""Host program for ProcessTracker tests: spawns hang.py through acp_mux.

usage: tracker_host.py MODE [setsid]   (MODE: normal | sigterm | exception | sigkill; setsid: the grandchild
                                       leaves the agent's session and group)

Spawns `hang.py --grandchild --ignore-term --grandchild-ignore-term` via
acp_mux.core.process.spawn.spawn, prints "pids <leader> <grandchild>", then:
normal -> returns (atexit cleans up); sigterm / sigkill -> prints "waiting" and
sleeps until signalled (nothing of ours runs after a SIGKILL: the supervisor must
clean up); exception -> raises RuntimeError uncaught.
Needs acp_mux importable (PYTHONPATH).
"""

import asyncio
import os
import sys

from acp_mux.core.process.spawn import SpawnSpec, spawn
from acp_mux.core.process.tracker import TRACKER

HERE = os.path.dirname(os.path.abspath(__file__))


async def main(mode: str) -> None:
    TRACKER.exit_grace = 0.3
    extra = ["--grandchild-setsid"] if "setsid" in sys.argv[2:] else []
    proc = await spawn(
        SpawnSpec(
            sys.executable,
            [os.path.join(HERE, "hang.py"), "--grandchild", "--ignore-term", "--grandchild-ignore-term", *extra],
        )
    )
    gpid = None
    async for line in proc.lines():
        if line.startswith("grandchild "):
            gpid = int(line.split()[1])
        if line == "ready":
            break
    print(f"pids {proc.pid} {gpid}", flush=True)
    if mode in ("sigterm", "sigkill"):
        print("waiting", flush=True)
        await asyncio.sleep(60)
    elif mode == "exception":
        raise RuntimeError("host crashed on purpose")


asyncio.run(main(sys.argv[1]))
