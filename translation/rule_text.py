"""Permission rules written as text (``acp-mux run --allow RULE``, ``acp_mux.allow(RULE)``), read into the same
scopes the editor's "Always allow" answers remember (:mod:`acp_mux.translation.permissions`).

Why a text form at all: a script or CI job has nobody to answer "Always allow", so it states up front what it
allows. Why no rule language of its own: a rule read here is the very :class:`~acp_mux.translation.permissions.Scope`
an editor's answer would have remembered for the same call, matched by the same :class:`PermissionRules`, so a rule
means the same whichever way it was given, and is never wider than what it names:

* ``execute:COMMAND`` — when COMMAND is exactly its own rule key (``git status``, ``npm run build``, ``pytest``), the
  editor's "`git status` commands" rule: that command with any further arguments; any other command (more words
  than its key, a pipe, inline code, an option that writes files) only ever exactly as written;
* ``edit:PATH``, ``delete:PATH``, ``move:PATH``, ``read:PATH`` — changes to (reading) that real path only, relative
  paths against the run's folder, symlinks and ``..`` resolved;
* ``fetch:URL`` — fetches from that URL's origin (scheme, host, port).

Anything else — an unknown kind, an empty target, a path or URL that cannot be named safely — is refused with a
:class:`ValueError` that says why, never read as a wider rule.
"""

from __future__ import annotations

from dataclasses import replace

from acp_mux.translation.command_scope import analyze, label
from acp_mux.translation.permissions import PATH_KINDS, Scope, scope_for

RULE_TOOL = "rule"  # the tool name a text rule's scope carries (path, command and origin rules ignore it)
KINDS = ("execute", *sorted(PATH_KINDS), "read", "fetch")


def parse_rule(text: str, cwd: str) -> Scope:
    """The scope a rule's text names (``cwd``: the run's folder, absolute); ValueError when it names none."""
    kind, sep, target = text.partition(":")
    kind = kind.strip()
    if not sep or kind not in KINDS:
        raise ValueError(f"rule {text!r}: write KIND:TARGET with KIND one of {', '.join(KINDS)}")
    if not target.strip():
        raise ValueError(f"rule {text!r}: the target after {kind}: is empty")
    if kind == "execute":
        return _command_scope(text, target.strip())
    if kind == "fetch":
        scope = scope_for(RULE_TOOL, kind, {"url": target.strip()}, cwd)
        if scope.origins is None:
            raise ValueError(f"rule {text!r}: {target.strip()!r} is no http(s) URL whose origin can be named")
        return scope
    scope = scope_for(RULE_TOOL, kind, {"path": target}, cwd)
    if scope.paths is None:
        raise ValueError(f"rule {text!r}: {target!r} is no path that can be named safely (no ~, no URI)")
    return scope


def _command_scope(text: str, command: str) -> Scope:
    """A command rule: the editor's key rule when the command is exactly its key, else exactly this command."""
    scope = scope_for(RULE_TOOL, "execute", {"command": command})
    parsed = analyze(command)
    if scope.command_key is not None and (*parsed.assignments, *parsed.words) != scope.command_key:
        # the key is narrower than the text ("rm -rf build" keys on "rm"): a rule never covers more than it names
        return replace(scope, command_key=None, exact_command=parsed.text, command_label=label(parsed, None))
    if scope.command_key is None and not scope.exact_command:
        raise ValueError(f"rule {text!r}: {command!r} is no command")
    return scope
