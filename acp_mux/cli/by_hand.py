"""A bridge started by hand in a terminal: say what it is, and answer a typed line in words as well as in JSON-RPC.

Why: ``acp-mux --agent claude`` typed at a shell otherwise waits silently for JSON-RPC that a person does not type,
and a typed line gets only ``-32700 Parse error``. When stdin is a terminal (never the case when an editor starts
the bridge: it talks over pipes), stderr gets a short hint at start and after each line that is no JSON. stdout
stays JSON-RPC only: the ``-32700`` answer still goes there, as the protocol says.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from acp_mux.server.wire.rpc import Connection


def hint(agent: str, log: Path | None) -> str:
    """The lines shown once when the bridge starts with a terminal on stdin (each under 80 columns)."""
    logged = f"\n  its log: {log}" if log is not None else ""
    return (
        f"acp-mux: serving {agent} over ACP (JSON-RPC) on stdin/stdout.\n"
        "  An editor starts this command and talks to it; typing here does nothing useful.\n"
        "  try acp-mux in this terminal: acp-mux demo\n"
        f"  which agents are ready here:  acp-mux doctor{logged}\n"
        "  quit: Ctrl-C or Ctrl-D"
    )


def typed_line_hint() -> str:
    """Said on stderr after a line that is no JSON-RPC, wrapped to the terminal."""
    from acp_mux.cli.terminal import fill

    return fill(
        "acp-mux: that line is not JSON-RPC, so it was answered with a parse error (-32700). This command is for "
        "an editor; `acp-mux demo` shows it at work. Ctrl-C or Ctrl-D quits."
    )


def looks_typed(line: bytes) -> bool:
    """A line a person typed rather than one a client sent: every JSON-RPC message is an object or a batch."""
    text = line.strip()
    return bool(text) and text[:1] not in (b"{", b"[")


def terminal_connection(in_fd: int, out_fd: int, already_read: bytes = b"") -> Connection:
    """A connection that also says, on stderr, why a typed line got a parse error."""
    from acp_mux.server.wire.rpc import Connection

    class TerminalConnection(Connection):
        def _dispatch_line(self, line: bytes) -> None:
            super()._dispatch_line(line)
            if looks_typed(line):
                print(typed_line_hint(), file=sys.stderr, flush=True)

    return TerminalConnection(in_fd, out_fd, already_read)
