"""How openclaw asks before it changes a file: acp-mux's gate plugin in the private gateway, and what it asks.

Research (OpenClaw 2026.9.6, its installed JS and docs): OpenClaw asks a human only for host exec (exec approvals,
``tools.exec.mode``), and ``openclaw acp`` relays only those (``exec.approval.requested`` → ACP
``session/request_permission``). Its file tools (``write``, ``edit``, ``apply_patch``) never ask. A plugin's
``before_tool_call`` hook can pause a call for a *plugin approval* (``requireApproval``), but ``openclaw acp`` does
not relay plugin approvals (no ``plugin.approval`` handling in its translator), so such a request would find no
approval route and be denied: the person could never say yes. The same hook can also simply block a call
(``{block: true, blockReason}``) after awaiting anything it likes. So:

- **exec** asks through OpenClaw's own approvals: the private gateway's config sets ``tools.exec.mode: "ask"``
  (commands off its allowlist ask; the allowlist of a fresh private state holds only OpenClaw's read-only safe bins).
- **every other tool not known to be read-only** (write, edit, apply_patch, process, ...) asks through acp-mux's gate
  plugin (``plugin/acp-mux-asks.mjs``, loaded with ``plugins.load.paths``): its hook sends the call to the
  Unix socket that acp-mux's relay (:mod:`relay`, which runs ``openclaw acp``) opened for that session, and
  blocks the call unless the answer is exactly ``{"allow": true}``. The relay puts the question to acp-mux as an
  ordinary ACP ``session/request_permission`` about the tool call (its id is the id of OpenClaw's tool call), so the
  bridge's four options, "always" rules and modes serve it as for any ACP agent.

This was chosen over denying OpenClaw's own file tools and giving it an MCP server of acp-mux's: OpenClaw's own
tools keep their behaviour (``edit``'s ``edits`` list, ``apply_patch``), the model sees no new tool names, and the
hook already knows the gateway session key (which names the ACP session) and the tool call id, so the question is
linked to the announced call without guessing.

Routing: one gateway may serve several bridges, so each session has its own socket, named in a registration file
``$OPENCLAW_STATE_DIR/acp-mux-asks/<hash>`` (0600, in a 0700 folder of ours), the hash taken of the session id that
ends the gateway's session key (``agent:main:acp-bridge:<uuid>`` for a new session; a resumed session is named by
its whole key, whose last segment is the same uuid). On Linux the socket is an abstract one with a random name
(``@acp-mux-ask-<128 bits>``: no path-length limit, nothing left on disk); a name can be bound only once, so
nothing can take it over once the relay holds it, and the relay answers only peers of its own user
(``SO_PEERCRED``). Elsewhere it is a socket file next to the registration. No registration, no socket, or any
failure: the gate blocks the call, so a change is never made unasked.
"""

from __future__ import annotations

from acp_mux.core.text.shapes import as_dict, as_list, as_str
import difflib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_mux.adapters.acp_agents.acp_client import WireObject

PLUGIN_ID = "acp-mux-asks"
PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"  # a native plugin: manifest, package.json, entry
ASKS_DIR = "acp-mux-asks"
ASK_ID_PREFIX = "acp-mux-ask-"  # the relay's own JSON-RPC request ids: acp-mux's answers to them go to the gate
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
MAX_PREVIEW_BYTES = 1_000_000  # a file larger than this is not read to show a diff
_EDIT_WORDS = ("write", "edit", "patch")


def gateway_overrides(included: Path | None = None) -> WireObject:
    """What the private gateway's config adds to the person's (``included``; OpenClaw deep-merges these over it,
    arrays concatenated): exec asks, and the gate plugin is loaded. A ``plugins.allow`` list in the person's config
    loads only what it names, so the gate is added to it; without such a list none is written (one would shut out
    every plugin it does not name)."""
    plugins: dict[str, Any] = {"load": {"paths": [str(PLUGIN_DIR)]}, "entries": {PLUGIN_ID: {"enabled": True}}}
    if _has_plugin_allowlist(included):
        plugins["allow"] = [PLUGIN_ID]
    return {"tools": {"exec": {"mode": "ask"}}, "plugins": plugins}


def _has_plugin_allowlist(included: Path | None) -> bool:
    """Whether the person's config (plain JSON; JSON5 it cannot read) sets ``plugins.allow``. Unreadable: no; the
    gate then may not load, and :func:`gate_loaded` says so before any turn runs."""
    if included is None:
        return False
    try:
        config = json.loads(included.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    plugins = config.get("plugins") if isinstance(config, dict) else None
    return isinstance(plugins, dict) and isinstance(plugins.get("allow"), list)


def gate_loaded(state_dir: Path) -> bool:
    """The gate plugin is in place: a marker ``acp-mux-asks/gate.<pid>`` (written by each process that loads it) is
    a regular file of ours whose pid is a live process. Without one, OpenClaw's file tools would run unasked."""
    try:
        names = os.listdir(state_dir / ASKS_DIR)
    except OSError:
        return False
    return any(
        _live_marker(state_dir / ASKS_DIR / name) for name in names if name.startswith("gate.") and name[5:].isdigit()
    )


def _live_marker(path: Path) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        return False
    pid = int(path.name[5:])
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def session_name(session: str) -> str:
    """What names a session on both sides: the last ``:`` segment of its id or gateway key (the bridge's uuid)."""
    return session.rsplit(":", 1)[-1]


def registration_path(state_dir: str, session: str) -> Path:
    """The file that tells the gate where to ask for ``session`` (an ACP session id or a gateway session key)."""
    digest = hashlib.sha256(session_name(session).encode()).hexdigest()[:32]
    return Path(state_dir) / ASKS_DIR / digest


def tool_kind(tool: str) -> str:
    """The ACP kind acp-mux's rules use for an OpenClaw tool the gate asks about: file changers are edits (so
    "always" covers the paths they touch), anything else is ``other`` (an "always" names the tool)."""
    lowered = tool.lower()
    if any(word in lowered for word in _EDIT_WORDS):
        return "edit"
    if "delete" in lowered or "remove" in lowered:
        return "delete"
    if "move" in lowered or "rename" in lowered:
        return "move"
    return "other"


def question_paths(params: WireObject, derived: list[object]) -> list[str]:
    """The files a call changes: its ``path`` (or ``file_path``), else what OpenClaw derived (``apply_patch``)."""
    found = [path for key in ("path", "file_path", "filePath") if (path := as_str(params.get(key)))]
    found += [p for p in derived if isinstance(p, str) and p and p not in found]
    return found


def permission_request(rpc_id: str, session_id: str, question: WireObject, cwd: str) -> WireObject:
    """The ACP ``session/request_permission`` the relay sends acp-mux for one question of the gate."""
    tool = str(question.get("toolName") or "tool")
    params = as_dict(question.get("params"))
    derived = as_list(question.get("derivedPaths"))
    call_id = question.get("toolCallId")
    paths = [_absolute(p, cwd) for p in question_paths(params, derived)]
    raw_input = dict(params)
    if paths and not isinstance(raw_input.get("path"), str):
        raw_input["paths"] = paths  # apply_patch: the paths it touches, for the rule and the dialog
    tool_call: dict[str, Any] = {
        "toolCallId": call_id if isinstance(call_id, str) and call_id else rpc_id,
        "title": f"{tool} {', '.join(paths)}" if paths else tool,
        "kind": tool_kind(tool),
        "status": "pending",
        "rawInput": raw_input,
        "locations": [{"path": p} for p in paths],
        "_meta": {"toolName": tool},
    }
    diff = preview_diff(tool, params, paths[0] if paths else None)
    if diff is not None:
        tool_call["content"] = [diff]
    return {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "session/request_permission",
        "params": {
            "sessionId": session_id,
            "toolCall": tool_call,
            "options": [
                {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
            ],
        },
    }


def preview_diff(tool: str, params: WireObject, path: str | None) -> WireObject | None:
    """The change a ``write`` or ``edit`` would make, as an ACP diff (shown with the question); None when the
    call is not one of those or its input is not understood."""
    if path is None:
        return None
    if tool == "write" and isinstance(params.get("content"), str):
        old = _read_small(path)
        return {"type": "diff", "path": path, "oldText": old, "newText": params["content"]}
    if tool == "edit":
        edits = params.get("edits")
        if not isinstance(edits, list):
            edits = [params]
        read = [
            (e.get("oldText", e.get("old_string")), e.get("newText", e.get("new_string")))
            for e in edits
            if isinstance(e, dict)
        ]
        pairs = [(o, n) for o, n in read if isinstance(o, str) and isinstance(n, str)]
        if not pairs or len(pairs) != len(read):
            return None
        old = _read_small(path)
        if old is None:
            return {
                "type": "diff",
                "path": path,
                "oldText": "\n".join(o for o, _ in pairs),
                "newText": "\n".join(n for _, n in pairs),
            }
        new = old
        for before, after in pairs:
            if before and before in new:
                new = new.replace(before, after, 1)
        return {"type": "diff", "path": path, "oldText": old, "newText": new}
    return None


def unified(diff: WireObject) -> str:
    """A diff as unified text (tests and logs)."""
    old, new = as_str(diff.get("oldText")), as_str(diff.get("newText"))
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a", "b"))


def allowed(response: WireObject) -> bool:
    """acp-mux's JSON-RPC answer to a question of the gate: an allow only if it is exactly a result that selected
    ``allow-once`` (the one allow offered); an error, a cancel, another option or any other shape is a no."""
    result = response.get("result")
    outcome = result.get("outcome") if isinstance(result, dict) else None
    return (
        isinstance(outcome, dict)
        and outcome.get("outcome") == "selected"
        and outcome.get("optionId") == "allow-once"
        and "error" not in response
    )


def gate_answer(approve: bool) -> bytes:
    """The one line the gate reads: only ``{"allow": true}`` lets a call run."""
    return b'{"allow": true}\n' if approve else b'{"allow": false}\n'


def _absolute(path: str, cwd: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))


def _read_small(path: str) -> str | None:
    """The file's text if it is a regular file small enough to show; None if it does not exist or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_PREVIEW_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_PREVIEW_BYTES).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
