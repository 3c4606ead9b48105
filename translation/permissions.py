"""Permission options, the one decoder of the person's answer, and the per-session "always" rules.

Every agent gets the same four options. The answer is decoded in one place (:func:`decode_outcome`): only an option
id the bridge offered for that question counts, anything else — a string, a number, a list, a look-alike id such as
``allow`` or ``approve_for_session`` — is a denial, so nothing is granted without the person.

"Always" answers are remembered for the session and are exactly as wide as their label, whichever tool or agent
asks next (one policy across agents when the editor switches):

* shell commands by the command that really runs (``command_scope.py``: system shells and ``env`` unwrapped,
  subcommands kept; inline code, compound commands, hidden characters and options that write files or run programs
  (``risky_options.py``) only ever exactly);
* edits, deletes, moves and reads by the real paths they touch (``targets.real_path``: relative paths against the
  session's cwd, ``..`` and symlinks resolved; a path that cannot be resolved safely is no target);
* fetches by the origin (scheme, host, port) of the URL (``targets.origin``);
* anything else — searches, MCP tools, a call whose target cannot be named — by the tool and that exact input:
  "always" then covers that identical call only, and the label says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from acp_mux.translation.command_scope import analyze, label as command_label, rule_key, segments
from acp_mux.translation.targets import origin, real_path, visible

if TYPE_CHECKING:
    from acp_mux.protocol.v1_dicts import JsonValue, PermissionOption

Decision = Literal["allow", "reject"]

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = "allow_once", "allow_always", "reject_once", "reject_always"
_PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "target", "absolute_path")
_URL_KEYS = ("url", "uri", "href")
_COMMAND_KEYS = ("command", "cmd")
PATH_KINDS = frozenset({"edit", "delete", "move"})
_PATH_VERBS = {"edit": "changes to", "delete": "deleting", "move": "moving", "read": "reading"}


@dataclass(frozen=True)
class Scope:
    """What an "always" answer covers: a command key, one exact command, a set of real paths, a set of web
    origins, or one exact call of a tool."""

    tool: str
    kind: str
    command_key: tuple[str, ...] | None = None  # allow: a later command whose own key is equal
    exact_command: str | None = None  # allow: only this identical command text
    paths: tuple[str, ...] | None = None  # allow: a later change of these real paths only (any edit tool)
    command_label: str | None = None
    origins: tuple[str, ...] | None = None  # allow: a later fetch from these origins only (any fetch tool)
    exact_input: str | None = None  # allow: this tool with this identical input only

    def label(self) -> str:
        if self.command_label:
            return self.command_label
        if self.paths:
            return f"{_PATH_VERBS.get(self.kind, 'changes to')} {', '.join(visible(p) for p in self.paths)}"
        if self.origins:
            return f"fetches from {', '.join(self.origins)}"
        return f"exactly this call of {visible(self.tool)}"


def command_of(tool_input: JsonValue) -> str | list[str] | None:
    """The command a shell tool input runs: a string (through a shell) or an argv list."""
    args = tool_input if isinstance(tool_input, dict) else {}
    value = args.get("command")
    if isinstance(value, list) and value:
        words = [w for w in value if isinstance(w, str)]
        if len(words) == len(value):
            return words
    return _first_str(args, _COMMAND_KEYS)


def raw_paths_of(tool_input: JsonValue) -> tuple[str, ...]:
    """Every path an input names as given (one ``file_path``, or codex's ``changes`` list with moves)."""
    args = tool_input if isinstance(tool_input, dict) else {}
    found: list[str] = []
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            found.append(value)
    changes = args.get("changes")
    if isinstance(changes, list):
        for change in changes:
            if isinstance(change, dict):
                for key in ("path", "move_path"):
                    path = change.get(key)
                    if isinstance(path, str) and path:
                        found.append(path)
    return tuple(found)


def paths_of(tool_input: JsonValue, cwd: str | None = None) -> tuple[str, ...] | None:
    """The real paths an input touches, sorted; None when it names none or one cannot be resolved safely."""
    found = raw_paths_of(tool_input)
    resolved = [real_path(p, cwd) for p in found]
    if not found or any(p is None for p in resolved):
        return None
    return tuple(sorted({p for p in resolved if p is not None}))


def origins_of(tool_input: JsonValue) -> tuple[str, ...] | None:
    """The web origins a fetch input reaches (``url``, or a ``urls`` list); None when one cannot be named."""
    args = tool_input if isinstance(tool_input, dict) else {}
    urls = [args[k] for k in _URL_KEYS if k in args]
    more = args.get("urls")
    if isinstance(more, list):
        urls += more
    named = [origin(u) for u in urls]
    if not urls or any(o is None for o in named):
        return None
    return tuple(sorted({o for o in named if o is not None}))


def exact_input(tool_input: JsonValue) -> str:
    """The input as one canonical text: equal only for the same call."""
    return json.dumps(tool_input, sort_keys=True, ensure_ascii=True, default=repr)


def scope_for(tool_name: str | None, kind: str, tool_input: JsonValue, cwd: str | None = None) -> Scope:
    """What an "always" answer to this call would cover (``cwd``: the session's folder, for relative paths)."""
    tool = tool_name or "this tool"
    if kind == "execute":
        command = command_of(tool_input)
        if command:
            parsed = analyze(command)
            key = rule_key(parsed)
            return Scope(
                tool,
                kind,
                command_key=key,
                exact_command=None if key else parsed.text,
                command_label=command_label(parsed, key),
            )
        return Scope(tool, kind, exact_command="", command_label="exactly this command")
    if kind in PATH_KINDS or kind == "read":
        paths = paths_of(tool_input, cwd)
        if paths:
            return Scope(tool, kind, paths=paths)
    if kind == "fetch":
        origins = origins_of(tool_input)
        if origins:
            return Scope(tool, kind, origins=origins)
    return Scope(tool, kind, exact_input=exact_input(tool_input))


def command_prefix(command: str) -> str | None:
    """The rule key of ``command`` as text (None: only the exact command), for messages and tests."""
    key = rule_key(analyze(command))
    return " ".join(key) if key else None


def _first_str(args: dict[str, JsonValue], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# Tool kinds that change the user's files or run commands: what a read-only (plan) mode never lets through.
MUTATING_KINDS = frozenset({"edit", "delete", "move", "execute"})
MODE_OPTION_PREFIX = "mode:"


def mode_exit_options(modes: list[tuple[str, str]]) -> list[PermissionOption]:
    """Options for an agent asking to leave plan mode: continue in one of ``modes`` (id, name), or keep planning."""
    options: list[PermissionOption] = [
        {
            "optionId": MODE_OPTION_PREFIX + mode_id,
            "name": f"Yes, continue in {name}",
            "kind": "allow_always" if i == 0 else "allow_once",
        }
        for i, (mode_id, name) in enumerate(modes)
    ]
    return options + [{"optionId": REJECT_ONCE, "name": "No, keep planning", "kind": "reject_once"}]


def chosen_mode(response: object, options: Iterable[PermissionOption]) -> str | None:
    """The mode picked from :func:`mode_exit_options` (``options`` as offered), or None (rejected, cancelled,
    malformed, or an option we did not offer)."""
    option = selected_option(response, options)
    if option is None or not option.startswith(MODE_OPTION_PREFIX):
        return None
    return option[len(MODE_OPTION_PREFIX) :] or None


CHOICE_OPTION_PREFIX = "choice:"


def choice_options(choices: Iterable[dict[str, str]]) -> list[PermissionOption]:
    """Options for an agent's multiple-choice question: one per choice (``{"id", "label"}``), then "skip". ACP has
    no question dialog, so the permission dialog carries it; picking a choice is an allow, skipping a reject."""
    options: list[PermissionOption] = [
        {"optionId": CHOICE_OPTION_PREFIX + str(c["id"]), "name": str(c.get("label") or c["id"]), "kind": "allow_once"}
        for c in choices
        if isinstance(c, dict) and c.get("id")
    ]
    return options + [{"optionId": REJECT_ONCE, "name": "Skip this question", "kind": "reject_once"}]


def chosen_choice(response: object, options: Iterable[PermissionOption]) -> str | None:
    """The choice id picked from :func:`choice_options` (``options`` as offered); None when skipped, cancelled,
    malformed, or an option we did not offer."""
    option = selected_option(response, options)
    if option is None or not option.startswith(CHOICE_OPTION_PREFIX):
        return None
    return option[len(CHOICE_OPTION_PREFIX) :] or None


def permission_options(scope: Scope) -> list[PermissionOption]:
    what = scope.label()
    return [
        {"optionId": ALLOW_ONCE, "name": "Allow once", "kind": "allow_once"},
        {"optionId": ALLOW_ALWAYS, "name": f"Always allow {what} (this session)", "kind": "allow_always"},
        {"optionId": REJECT_ONCE, "name": "Reject", "kind": "reject_once"},
        {"optionId": REJECT_ALWAYS, "name": f"Always reject {what} (this session)", "kind": "reject_always"},
    ]


@dataclass(frozen=True)
class Answer:
    """The person's choice, decoded from an ACP permission outcome."""

    approve: bool
    always: bool = False
    cancelled: bool = False


def selected_option(response: object, options: Iterable[PermissionOption]) -> str | None:
    """The option id the person selected, if — and only if — the response has the ACP shape
    ``{"outcome": {"outcome": "selected", "optionId": <one of ours>}}``; None for anything else."""
    if not isinstance(response, dict):
        return None
    outcome = response.get("outcome")
    if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
        return None
    option = outcome.get("optionId")
    offered = {o.get("optionId") for o in options if isinstance(o, dict)}
    return option if isinstance(option, str) and option in offered else None


def decode_outcome(response: object, options: Iterable[PermissionOption]) -> Answer:
    """The one decoder of a ``session/request_permission`` answer. ``options`` are the ones offered with the
    question: the chosen option's *kind* says allow/reject and once/always. Cancelled, malformed, or an id we did not
    offer: a denial (``cancelled`` when the client said so or the answer was unusable)."""
    options = list(options)
    option = selected_option(response, options)
    if option is None:
        return Answer(approve=False, cancelled=True)
    kind = next((str(o.get("kind", "")) for o in options if isinstance(o, dict) and o.get("optionId") == option), "")
    return Answer(approve=kind.startswith("allow"), always=kind.endswith("always"))


@dataclass
class PermissionRules:
    """The session's remembered "always" answers; ``cwd`` is the session's folder (relative paths resolve there)."""

    rules: list[tuple[Scope, Decision]] = field(default_factory=list)
    cwd: str | None = None
    # Rejections given in code (``acp_mux.allow(..., deny=...)``, ``acp-mux run --deny``): no answer given later,
    # however wide its "always", allows what one of them names.
    forbidden: list[Scope] = field(default_factory=list)

    def scope(self, tool_name: str | None, kind: str, tool_input: JsonValue) -> Scope:
        """What an "always" answer to this call would cover, in this session."""
        return scope_for(tool_name, kind, tool_input, self.cwd)

    def remember(self, scope: Scope, decision: Decision) -> None:
        self.rules = [(s, d) for s, d in self.rules if s != scope]
        self.rules.append((scope, decision))

    def forbid(self, scope: Scope) -> None:
        """Reject what ``scope`` names, whatever is remembered before or after (a deny rule given in code)."""
        if scope not in self.forbidden:
            self.forbidden.append(scope)

    def match(self, tool_name: str | None, kind: str, tool_input: JsonValue) -> Decision | None:
        """The decision for this call, or None (ask): a forbidden scope rejects; else the latest matching rule."""
        scope = self.scope(tool_name, kind, tool_input)
        if any(_covers(rule, "reject", scope, tool_input) for rule in self.forbidden):
            return "reject"
        for rule, decision in reversed(self.rules):
            if _covers(rule, decision, scope, tool_input):
                return decision
        return None


def _covers(rule: Scope, decision: Decision, scope: Scope, tool_input: JsonValue) -> bool:
    if rule.kind != scope.kind:
        return False
    # Command, path and origin rules are about what runs, what changes and where a fetch goes, whichever tool (or
    # agent) asks; an exact-call rule names the tool.
    if rule.paths is not None:  # allow: only paths the rule names; reject: any of them
        if scope.paths is None:
            return False
        return set(scope.paths) <= set(rule.paths) if decision == "allow" else bool(set(scope.paths) & set(rule.paths))
    if rule.origins is not None:
        if scope.origins is None:
            return False
        return (
            set(scope.origins) <= set(rule.origins)
            if decision == "allow"
            else bool(set(scope.origins) & set(rule.origins))
        )
    if rule.command_key is not None:
        if scope.command_key == rule.command_key:
            return True
        if decision == "reject":  # a rejected command stays rejected when chained with others
            command = command_of(tool_input)
            text = command if isinstance(command, str) else " ".join(command or ())
            return any(rule_key(part) == rule.command_key for part in segments(text))
        return False
    if rule.exact_command is not None:  # the identical command (a text rule may name one that has a key too)
        command = command_of(tool_input)
        return bool(rule.exact_command) and bool(command) and analyze(command or "").text == rule.exact_command
    return rule.exact_input is not None and rule.tool == scope.tool and rule.exact_input == scope.exact_input
