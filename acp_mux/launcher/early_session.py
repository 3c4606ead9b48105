"""Answer the first ``session/new`` in the launcher too, before the bridge is imported; the bridge adopts the session.

After ``initialize`` an editor opens a session at once, and shows nothing until it is answered. Importing the bridge
(asyncio, the server, the adapter) takes several times what the interpreter needs to start, so
:mod:`acp_mux.launcher.early_init` answers ``initialize`` itself and, when the next message is a ``session/new`` this
module fully understands, answers that too: a new id, and the modes and models the bridge would give, built by
the same functions (:mod:`acp_mux.server.wire.settings_shapes`) from the agent facts snapshot and what the agent reported
last time. The bridge then adopts the session (:meth:`acp_mux.server.sessions.bridge.AcpServer.adopt`): saves its record,
opens it and starts the agent while the person types.

The editor's MCP servers are checked as the server checks them (:mod:`acp_mux.server.wire.param_shapes`) and handed to
the bridge, which registers their secrets before anything is logged. Anything else is left to the server,
unanswered: params of a wrong shape, a cwd that is not an existing absolute directory, an agent whose executable
cannot be found (the server's answer says how to install it), a badly set ``ACP_MUX_*`` setting. Standard library
only, like ``early_init``.
"""

from __future__ import annotations

import json
import os
import sys

from acp_mux.core.ids import new_ulid
from acp_mux.core.files.paths import state_dir_name
from acp_mux.core.settings import settings_problem
from acp_mux.server.wire import settings_shapes as shapes
from acp_mux.launcher.early_shapes import fits
from acp_mux.server.wire.param_shapes import mcp_servers_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping


# What an omitted field of session/new means, as the server's edge reads it (editor_edge.OMITTED_MEANS, held equal
# by a test): editors leave out ``mcpServers`` when they have none.
OMITTED_MEANS: dict[str, Any] = {"mcpServers": []}


class EarlySession:
    """A ``session/new`` the launcher answered: the request's id and params, the new session's id, and the answer."""

    __slots__ = ("request_id", "params", "session_id", "cwd", "answer")

    def __init__(
        self, request_id: Any, params: dict[str, Any], session_id: str, cwd: str, answer: dict[str, Any]
    ) -> None:
        self.request_id, self.params, self.session_id, self.cwd, self.answer = (
            request_id,
            params,
            session_id,
            cwd,
            answer,
        )


def answer_new_session(
    message: dict[str, Any],
    agent: str,
    facts: dict[str, Any],
    options: dict[str, Any],
    fd_out: int,
    environ: Mapping[str, str] | None = None,
) -> EarlySession | None:
    """Answer ``message`` (a parsed ``session/new`` request) on ``fd_out`` when it is one this module fully
    understands and the agent can start; None (nothing written) otherwise. ``options``: the command line's
    ``--agent-bin``, ``--mode`` and ``--model``."""
    environ = os.environ if environ is None else environ
    params = message["params"]
    if not fits("session/new", {**OMITTED_MEANS, **params}):
        return None  # the server's -32602 names what does not fit the model
    cwd = params.get("cwd")
    if not isinstance(cwd, str) or "\0" in cwd or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        return None  # the server's -32602 says what is wrong with it
    servers = params.get("mcpServers")
    if servers is not None and (not isinstance(servers, list) or mcp_servers_problem(servers)):
        return None  # the server's -32602 names the problem
    if params.get("additionalDirectories"):
        return None  # extra roots are checked, refused or kept by the server (bridge._extra_roots), never here
    if not executable_found(facts["binary"], options.get("--agent-bin"), environ):
        return None
    if settings_problem(environ):
        return None  # the server's answer names the badly set ACP_MUX_* value
    if environ.get("ACP_MUX_FAILOVER", "ask").strip() not in ("ask", "never"):
        return None  # an agent named there: the server, which knows the agents, checks it is one
    declared = facts["session"]
    saved = None
    if not declared["modes"] and not declared["models"]:  # the agent reports its own: what it said last time
        saved = shapes.read_saved(os.path.join(state_dir_name(environ), "agents"), agent)
    settings = shapes.starting_settings(
        declared["modes"],
        declared["models"],
        declared["default_mode"],
        saved,
        options.get("--mode"),
        options.get("--model"),
    )
    session_id = new_ulid()
    answer = shapes.session_state(session_id, settings, [])
    reply = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer}, separators=(",", ":"))
    os.write(fd_out, reply.encode() + b"\n")
    return EarlySession(message["id"], params, session_id, cwd, answer)


def executable_found(binary: dict[str, str], override: str | None, environ: Mapping[str, str]) -> bool:
    """Whether the agent's executable is there, looked for in the order the run uses (``--agent-bin``,
    ``ACP_MUX_<NAME>_BIN``, the name on PATH, an accepted alternative name): the checks of
    ``adapters.registry.locate_binary`` without importing it. When unsure, False: the server then answers."""
    search = environ.get("PATH")
    if override:
        return _which(override, search) is not None
    configured = environ.get(binary["env_var"])
    if configured:
        return _which(configured, search) is not None
    if _which(binary["name"] or sys.executable, search):  # "": the interpreter running us (the demo agent)
        return True
    alt = _which(binary["alt"], search) if binary["alt"] else None
    return alt is not None and os.path.basename(os.path.realpath(alt)) == binary["alt_target"]


def _which(name: str, search: str | None) -> str | None:
    """``shutil.which`` for an executable file (its import is several times this module's cost)."""
    if os.path.dirname(name):
        candidates = [name]
    else:
        folders = (os.defpath if search is None else search).split(os.pathsep) if search != "" else []
        candidates = [os.path.join(folder, name) for folder in folders]
    return next((c for c in candidates if os.path.isfile(c) and os.access(c, os.X_OK)), None)
