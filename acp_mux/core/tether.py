"""A helper process that cannot outlive the bridge, even when the bridge is killed with SIGKILL.

Agents exit when the bridge goes away because their stdin closes. A server the bridge starts beside an agent
(openclaw's gateway) reads no stdin and would live on after a SIGKILL of the bridge, when no exit handler runs.
So it runs under a tether::

    python -m acp_mux.core.tether -- COMMAND [ARGS...]

The tether is spawned like any agent (its own session and process group, tracked by the bridge) and starts COMMAND
in that same group with stdin from /dev/null. It reads its own stdin, a pipe only the bridge holds: when that pipe
closes (the bridge exited, however it died) it sends SIGTERM to the whole group, then SIGKILL after
:data:`GRACE_S`. When COMMAND exits by itself, the tether exits with its status. A SIGTERM or SIGKILL sent to the
group by the bridge reaches COMMAND directly, as for any agent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

GRACE_S = 1.0


def end_group(child: subprocess.Popen[bytes], grace: float = GRACE_S) -> None:
    """TERM everything in our process group, wait for ``child`` up to ``grace``, then KILL the group (us too)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        os.killpg(0, signal.SIGTERM)
    except OSError:
        pass
    deadline = time.monotonic() + grace
    while child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        os.killpg(0, signal.SIGKILL)
    except OSError:
        pass
    os._exit(0)


def _exit_with(child: subprocess.Popen[bytes]) -> None:
    code = child.wait()
    os._exit(code if code >= 0 else 128 - code)


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: python -m acp_mux.core.tether -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1 :]
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"tether: cannot start {command[0]}: {exc}", file=sys.stderr)
        return 127
    threading.Thread(target=_exit_with, args=(child,), daemon=True).start()  # the command's end is ours
    try:  # the main thread watches the pipe (signal dispositions can only be changed here)
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    end_group(child)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
