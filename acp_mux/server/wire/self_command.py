"""How to run this very acp-mux again, from anywhere: the command offered to editors for terminal login.

Editors start terminal auth with their own PATH (a desktop session's, not the shell's), so a bare ``acp-mux``
often is not found there. The absolute path of the running program always is.
"""

from __future__ import annotations

import os
import sys


def own_command(argv0: str | None = None) -> list[str]:
    """``[/abs/path/to/acp-mux]`` when we were started as the console script (argv[0] is then the absolute path
    the kernel resolved), else ``[python, -m, acp_mux]`` with this interpreter (``python -m acp_mux``, tests)."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    if argv0 and not argv0.endswith(".py") and os.path.isfile(argv0) and os.access(argv0, os.X_OK):
        return [os.path.abspath(argv0)]
    return [sys.executable, "-m", "acp_mux"]
