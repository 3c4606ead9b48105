"""The ``acp-mux`` entry point: answer the editor's ``initialize`` (and ``session/new``) first, import the bridge after.

Kept to the standard library's bare minimum on purpose: everything this module imports is paid before the editor
hears anything. :mod:`acp_mux.launcher.early_init` decides whether the first messages can be answered here; the full
command line (:mod:`acp_mux.cli.main`) then runs as always, told what was already read and answered.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from acp_mux.launcher.early_session import EarlySession


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    early = None
    try:
        from acp_mux.launcher.early_init import answer_early

        early = answer_early(
            args, meanwhile=lambda: load_bridge_in_background(args), on_session=lambda s: start_agent_early(args, s)
        )
    except Exception:  # noqa: BLE001 - never let the shortcut stop the bridge: the server answers instead
        early = None
    from acp_mux.cli.main import main as full_main

    return full_main(args, early=early)


def start_agent_early(args: list[str], session: EarlySession) -> None:
    """Start the answered session's agent before the bridge is loaded (:mod:`acp_mux.launcher.early_agent`)."""
    from acp_mux.launcher.early_agent import start_agent

    start_agent(args, session)


def load_bridge_in_background(args: list[str]) -> Callable[[], None]:
    """Import the bridge on a thread while the launcher waits for the editor's next message, so the time between
    ``initialize`` and that message is not lost when it is not a ``session/new`` the launcher answers (a
    ``session/load`` a moment later, say). Returns what waits for the imports to end. The agent's adapter comes
    first: the main thread needs it to start the agent once the session is answered (:func:`start_agent_early`),
    and waits for what this thread is importing rather than importing it beside it.

    While the thread runs, the interpreter switches threads every 0.2 ms instead of 5 ms: the main thread then
    answers a message as soon as it arrives instead of waiting for the importing thread to let go."""
    import threading

    def load() -> None:
        try:
            from acp_mux.launcher.early_agent import adapter_for

            adapter_for(args)  # the agent's adapter, which starting it needs first
            import acp_mux.cli.main  # noqa: F401 - the command line, registry and adapters
            import acp_mux.server.sessions.bridge  # noqa: F401 - the server and its connection
            import acp_mux.server.sessions.live_session  # noqa: F401 - the session machinery
        except BaseException:  # noqa: BLE001 - the main thread imports them again and reports what fails
            pass

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0002)
    loader = threading.Thread(target=load, name="acp-mux-import", daemon=True)
    loader.start()

    def finish() -> None:
        loader.join()
        sys.setswitchinterval(interval)

    return finish
