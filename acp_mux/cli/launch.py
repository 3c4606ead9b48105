"""The ``acp-mux`` entry point: answer the editor's ``initialize`` first, import the bridge after.

Kept to the standard library's bare minimum on purpose: everything this module imports is paid before the editor
hears anything. :mod:`acp_mux.server.early_init` decides whether the first message can be answered here; the full
command line (:mod:`acp_mux.cli.main`) then runs as always, told what was already read and answered.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    early = None
    try:
        from acp_mux.server.early_init import answer_early

        early = answer_early(args)
    except Exception:  # noqa: BLE001 - never let the shortcut stop the bridge: the server answers instead
        early = None
    from acp_mux.cli.main import main as full_main

    return full_main(args, early=early)
