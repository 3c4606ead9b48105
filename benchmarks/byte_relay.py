"""The floor of any proxy written in Python: relay bytes both ways between this process's stdio and the agent
it starts, with no parsing, one thread per direction. ``python byte_relay.py AGENT ARGS...``.

Why: a 3,000-chunk reply through acp-mux is compared with the agent's own ACP mode (issue 26); this relay shows how
much of the difference any extra process hop costs on the machine (its wake-ups and scheduling), and how much is
acp-mux's own work. Used by :mod:`relay_floor`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def pump(source: int, target: int) -> None:
    """Copy ``source`` to ``target`` until EOF, each read written out at once."""
    while data := os.read(source, 1 << 16):
        view = memoryview(data)
        while view:
            view = view[os.write(target, view) :]


def main(argv: list[str]) -> int:
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def editor_to_agent() -> None:
        pump(0, child.stdin.fileno())  # type: ignore[union-attr]
        child.stdin.close()  # type: ignore[union-attr]

    threading.Thread(target=editor_to_agent, daemon=True).start()
    pump(child.stdout.fileno(), 1)
    return child.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
