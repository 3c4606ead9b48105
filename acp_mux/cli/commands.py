"""The commands a person types (``doctor``, ``sessions``, ``demo``, ``run``), each loaded only when it is the one asked for.

One place for what they share: output piped into ``head`` or a pager that quits early ends the command quietly
(the shell's status for SIGPIPE, 141) instead of with a ``BrokenPipeError`` traceback.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a program whose reader went away


def run_command(name: str, argv: Sequence[str]) -> int:
    """Run ``acp-mux NAME ARGV...`` and return its exit status."""
    try:
        if name == "doctor":
            from acp_mux.cli.doctor import run_doctor

            status = run_doctor(argv)
        elif name == "sessions":
            from acp_mux.cli.sessions import run_sessions

            status = run_sessions(argv)
        elif name == "run":
            from acp_mux.cli.run_command import run_turn

            status = run_turn(argv)
        else:
            from acp_mux.cli.demo import run_demo

            status = run_demo(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # Python would try to flush stdout again at exit and fail the same way: point it at /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE
