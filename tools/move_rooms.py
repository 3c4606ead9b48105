"""Move acp-mux's modules into rooms that show the architecture (issue 42), and rewrite every reference to them.

One deterministic pass over the tree git tracks, driven by the tables below:

- ``MOVES``: old path → new path (a file or a folder), each done with ``git mv``;
- every reference to a moved module is rewritten in every tracked text file (.py .md .toml .json .cfg .sh .ts .txt
  .mjs .yml .ini and .ci/run): dotted names (``acp_mux.core.run`` → ``acp_mux.core.run.handle``, in imports, in
  ``mock.patch("acp_mux.core.run.spawn")`` strings, registry ``"module:Class"`` rows, ``lazy_module(...)`` and
  ``-m`` targets) and file paths (``acp_mux/core/run.py``, ``core/run.py``); ``from acp_mux.core import events as
  ev`` becomes ``from acp_mux.core.events import union as ev`` (a multi-name ``from X import a, b`` is split when
  its names now live in different modules); relative imports in a moved file, or of a moved module, become
  absolute. All rewriting of one file is one pass (the AST's import statements first, then one regex over the
  rest, its alternatives longest first), so nothing is rewritten twice, even where a package takes the name of the
  module that moved into it (core/run.py → core/run/handle.py);
- ``SYMBOLS``: names that moved from one module to another (``registry.get_adapter`` → ``base.get_adapter``),
  rewritten the same way, so code written against the old place (on another branch) follows;
- ``FIXES``: the few literal texts that name a moved file by its bare name (``with_name("openclaw_keeper.py")``);
- ``NEW_PACKAGES``: the ``__init__.py`` each new folder gets (its docstring says what the room holds); pyproject's
  ``packages`` list gains them, and tools/typecheck.py's view (tools/typecheck_view/acp_mux) gains a link for a new top folder.

Safe to run again: a move whose source is gone and whose target exists is already done and is skipped, and only the
moves done in this run are rewritten, so a second run does nothing. A module of acp_mux/core or acp_mux/server that
no table names (added on another branch meanwhile) stays where it is; the run lists them at the end.

    python tools/move_rooms.py           # on a clean work tree: moves, rewrites, ruff format, `git add`; then commit
    python tools/move_rooms.py --dry-run # print what would move, change nothing
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

C = "acp_mux/core"
S = "acp_mux/server"
OC = "adapters/acp_agents/openclaw"

# old path → new path. Files of core/ and server/ not named here (and not in STAYS) are reported as unmapped.
MOVES: list[tuple[str, str]] = [
    # core/events: the event union, its codes and errors, lazy loading, the fan-out buffer
    (f"{C}/events.py", f"{C}/events/union.py"),
    (f"{C}/event_codes.py", f"{C}/events/codes.py"),
    (f"{C}/errors.py", f"{C}/events/errors.py"),
    (f"{C}/lazy.py", f"{C}/events/lazy.py"),
    (f"{C}/lazy_events.py", f"{C}/events/lazy_events.py"),
    (f"{C}/event_buffer.py", f"{C}/events/buffer.py"),
    (f"{C}/limit_times.py", f"{C}/events/limit_times.py"),
    # core/run: RunHandle, its questions and waiting prompts, the parse context, the adapter contract
    (f"{C}/run.py", f"{C}/run/handle.py"),
    (f"{C}/contract.py", f"{C}/run/contract.py"),
    (f"{C}/interaction.py", f"{C}/run/interaction.py"),
    (f"{C}/waiting_prompts.py", f"{C}/run/waiting_prompts.py"),
    (f"{C}/parse_context.py", f"{C}/run/parse_context.py"),
    (f"{C}/log_follow.py", f"{C}/run/log_follow.py"),
    (f"{C}/prompt.py", f"{C}/run/prompt.py"),
    # core/process: spawn, process groups, the supervisor, the tracker, the launcher's kept agent, pipes
    (f"{C}/process.py", f"{C}/process/spawn.py"),
    (f"{C}/pgroup.py", f"{C}/process/pgroup.py"),
    (f"{C}/supervisor.py", f"{C}/process/supervisor.py"),
    (f"{C}/supervision.py", f"{C}/process/supervision.py"),
    (f"{C}/tracker.py", f"{C}/process/tracker.py"),
    (f"{C}/prestart.py", f"{C}/process/prestart.py"),
    (f"{C}/pipe_lines.py", f"{C}/process/pipe_lines.py"),
    (f"{C}/lines.py", f"{C}/process/lines.py"),
    (f"{C}/linger.py", f"{C}/process/linger.py"),
    # core/files: our own files, state files, private files, where they live
    (f"{C}/own_files.py", f"{C}/files/own_files.py"),
    (f"{C}/state_files.py", f"{C}/files/state_files.py"),
    (f"{C}/private.py", f"{C}/files/private.py"),
    (f"{C}/paths.py", f"{C}/files/paths.py"),
    # core/text: safe text and JSON, JSON shapes, JSON-RPC messages, redaction, joined deltas
    (f"{C}/text.py", f"{C}/text/safe.py"),
    (f"{C}/visible.py", f"{C}/text/visible.py"),
    (f"{C}/joined_text.py", f"{C}/text/joined_text.py"),
    (f"{C}/delta_join.py", f"{C}/text/delta_join.py"),
    (f"{C}/shapes.py", f"{C}/text/shapes.py"),
    (f"{C}/jsonrpc.py", f"{C}/text/jsonrpc.py"),
    (f"{C}/redact.py", f"{C}/text/redact.py"),
    # server/wire: stdio JSON-RPC and the typed edge
    (f"{S}/rpc.py", f"{S}/wire/rpc.py"),
    (f"{S}/editor_edge.py", f"{S}/wire/editor_edge.py"),
    (f"{S}/params.py", f"{S}/wire/params.py"),
    (f"{S}/param_shapes.py", f"{S}/wire/param_shapes.py"),
    (f"{S}/settings_shapes.py", f"{S}/wire/settings_shapes.py"),
    (f"{S}/self_command.py", f"{S}/wire/self_command.py"),
    # server/sessions: the ACP methods, live sessions, the gate, settings, switching
    (f"{S}/bridge.py", f"{S}/sessions/bridge.py"),
    (f"{S}/live_session.py", f"{S}/sessions/live_session.py"),
    (f"{S}/session_gate.py", f"{S}/sessions/session_gate.py"),
    (f"{S}/session_settings.py", f"{S}/sessions/session_settings.py"),
    (f"{S}/agent_choice.py", f"{S}/sessions/agent_choice.py"),
    (f"{S}/steering.py", f"{S}/sessions/steering.py"),
    (f"{S}/sign_out.py", f"{S}/sessions/sign_out.py"),
    (f"{S}/handoff.py", f"{S}/sessions/handoff.py"),
    (f"{S}/heap.py", f"{S}/sessions/heap.py"),
    # server/records: the store, the event log, replay, private files
    (f"{S}/store.py", f"{S}/records/store.py"),
    (f"{S}/event_log.py", f"{S}/records/event_log.py"),
    (f"{S}/replay.py", f"{S}/records/replay.py"),
    (f"{S}/private_files.py", f"{S}/records/private_files.py"),
    # server/branches: failover, fork, compare
    (f"{S}/failover.py", f"{S}/branches/failover.py"),
    (f"{S}/fork.py", f"{S}/branches/fork.py"),
    (f"{S}/fork_fallback.py", f"{S}/branches/fork_fallback.py"),
    (f"{S}/compare_copies.py", f"{S}/branches/compare_copies.py"),
    (f"{S}/compare_turn.py", f"{S}/branches/compare_turn.py"),
    # the launcher's fast path: one room (core/process/prestart stays with the process layer that claims from it)
    ("acp_mux/cli/launch.py", "acp_mux/launcher/entry.py"),
    (f"{S}/early_init.py", "acp_mux/launcher/early_init.py"),
    (f"{S}/early_session.py", "acp_mux/launcher/early_session.py"),
    (f"{S}/early_agent.py", "acp_mux/launcher/early_agent.py"),
    (f"{S}/early_shapes.py", "acp_mux/launcher/early_shapes.py"),
    (f"{S}/early_shapes.json", "acp_mux/launcher/early_shapes.json"),
    (f"{S}/agent_facts.json", "acp_mux/launcher/agent_facts.json"),
    # openclaw: one package
    ("adapters/acp_agents/openclaw.py", f"{OC}/adapter.py"),
    ("adapters/acp_agents/openclaw_gateway.py", f"{OC}/gateway.py"),
    ("adapters/acp_agents/openclaw_keeper.py", f"{OC}/keeper.py"),
    ("adapters/acp_agents/openclaw_relay.py", f"{OC}/relay.py"),
    ("adapters/acp_agents/openclaw_asks.py", f"{OC}/asks.py"),
    ("adapters/acp_agents/openclaw_retries.py", f"{OC}/retries.py"),
    ("adapters/acp_agents/openclaw_registry.py", f"{OC}/registry.py"),
    ("adapters/acp_agents/openclaw_refusals.py", f"{OC}/refusals.py"),
    ("adapters/acp_agents/openclaw_plugin", f"{OC}/plugin"),
    ("adapters/stream_agents/openclaw_exec.py", f"{OC}/exec_transport.py"),
]

# Modules of core/ and server/ that stay where they are, on purpose (shared by every room of theirs).
STAYS = {f"{C}/__init__.py", f"{C}/ids.py", f"{C}/settings.py", f"{S}/__init__.py"}

# Names that moved between modules (module.name → module.name), for code written against the old place.
SYMBOLS: dict[str, str] = {
    "acp_mux.adapters.registry.get_adapter": "acp_mux.adapters.base.get_adapter",
    "acp_mux.cli.health.runnable_agents": "acp_mux.cli.health_cache.runnable_agents",
    "acp_mux.cli.health.usable_here": "acp_mux.cli.health_cache.usable_here",
}

# (the move it follows, file after the move, old text, new text): literal names of a moved file that no module name or path carries.
FIXES: list[tuple[str, str, str, str]] = [
    (
        "adapters/acp_agents/openclaw_keeper.py",
        f"{OC}/gateway.py",
        'with_name("openclaw_keeper.py")',
        'with_name("keeper.py")',
    ),
    ("adapters/acp_agents/openclaw_plugin", f"{OC}/asks.py", 'parent / "openclaw_plugin"', 'parent / "plugin"'),
    # the keeper loads own_files.py by path, from the supervisor's folder: now core/process, own_files in core/files
    (
        f"{C}/own_files.py",
        f"{OC}/keeper.py",
        'os.path.join(os.path.dirname(supervisor), "own_files.py")',
        'os.path.join(os.path.dirname(os.path.dirname(supervisor)), "files", "own_files.py")',
    ),
    (f"{C}/own_files.py", f"{OC}/keeper.py", "and ``own_files.py`` beside it,", "and ``own_files.py`` in core/files,"),
    (
        f"{C}/own_files.py",
        f"{OC}/keeper.py",
        "and, beside it, ``own_files.py``",
        "and, in core/files, ``own_files.py``",
    ),
    (
        "adapters/acp_agents/openclaw_plugin",
        f"{OC}/asks.py",
        "``openclaw_plugin/acp-mux-asks.mjs``",
        "``plugin/acp-mux-asks.mjs``",
    ),
    (
        "adapters/acp_agents/openclaw_plugin",
        "pyproject.toml",
        (
            '"acp_mux.adapters.acp_agents" = ["omp_extension/*.ts", "openclaw_plugin/*", "hermes_plugin/*"]'
            "  # omp's HTTP-failure logger; openclaw's gate plugin; hermes' asking plugin"
        ),
        (
            '"acp_mux.adapters.acp_agents" = ["omp_extension/*.ts", "hermes_plugin/*"]'
            "  # omp's HTTP-failure logger; hermes' asking plugin\n"
            '"acp_mux.adapters.acp_agents.openclaw" = ["plugin/*"]  # openclaw\'s gate plugin'
        ),
    ),
    # the real-CLI test finds the keeper by its command line
    (
        "adapters/acp_agents/openclaw_keeper.py",
        "tests/e2e/test_openclaw_shared_gateway.py",
        'b"openclaw_keeper"',
        'b"openclaw/keeper.py"',
    ),
]

# Inside openclaw's package, its files name each other by bare file name (``openclaw_gateway.py``, :mod:`openclaw_asks`)
OPENCLAW_BARE = re.compile(r"(?<![\w/.])openclaw_(keeper|gateway|relay|asks|retries|refusals|registry|exec)(\.py\b|`)")
OPENCLAW_NEW = {"exec": "exec_transport"}

NEW_PACKAGES: dict[str, str] = {
    f"{C}/events": "The event vocabulary: the normalized AgentEvent union (``union``), its codes and errors, the lazy\n"
    "loading that keeps pydantic off the launcher's path, and the fan-out buffer every reader of a run shares.",
    f"{C}/run": "One run of an agent: RunHandle (``handle``), its questions and waiting prompts, the per-run parse\n"
    "context, and the adapter contract (the lowest piece: what it needs of the run it states as protocols).",
    f"{C}/process": "Agent processes: spawn (``spawn``), process groups, the supervisor that ties an agent's life to\n"
    "the bridge's, the tracker that leaves nothing behind, the agent the launcher started early, and pipes as lines.",
    f"{C}/files": "Files acp-mux writes: its own fixed-name files, the state files it reads back, private files for\n"
    "secrets, and where all of them live.",
    f"{C}/text": "Text and JSON that are always safe: surrogate-proof text and JSON (``safe``), typed reads of JSON,\n"
    "JSON-RPC messages, redaction of secrets, escapes for a terminal, and streamed deltas joined.",
    f"{S}/wire": "The wire and the edge: stdio JSON-RPC (``rpc``), the editor's requests read into the typed ACP model,\n"
    "params checked field by field, and the shapes of a new session's settings.",
    f"{S}/sessions": "Sessions: the ACP methods (``bridge``), one live session's turns, permissions and cancel, the\n"
    "gate that orders its turns and switches, its settings, steering, sign-out and the handoff to another agent.",
    f"{S}/records": "What is kept of a session: the store (``store``), its typed event log, replay into ACP updates,\n"
    "and the private files they are written to.",
    f"{S}/branches": "One conversation, more than one agent: failover at a usage limit, ``session/fork``, and\n"
    "``/compare`` with its private copies of the folder.",
    "acp_mux/launcher": "The launcher's fast path: the ``acp-mux`` entry point (``entry``) answers ``initialize`` and\n"
    "the first ``session/new`` from the standard library only (``early_init``, ``early_session``, ``early_shapes``),\n"
    "starts the session's agent before the bridge loads (``early_agent``), then hands over to the command line.",
    OC: "OpenClaw, one package: the adapter over ``openclaw acp`` (``adapter``), the private gateway it talks to\n"
    "(``gateway``, kept alive by ``keeper``), the gate plugin's asks (``asks``, ``plugin/``) and their ``relay``,\n"
    "retries of a turn the gateway dropped (``retries``), a model nothing answers (``refusals``), the agent\n"
    "registry it keeps (``registry``), and the\n"
    "one-shot ``openclaw agent exec`` transport (``exec_transport``).",
}

TEXT_SUFFIXES = (".py", ".md", ".toml", ".json", ".cfg", ".sh", ".ts", ".txt", ".mjs", ".yml", ".yaml", ".ini")
EXTRA_FILES = {".ci/run"}
# Records of the past keep the names they were written with.
NOT_REWRITTEN = re.compile(r"^(CHANGELOG\.md|benchmarks/(RESULTS[^/]*\.md|HISTORY\.md|results-[^/]*\.json))$")
THIS = {"tools/move_rooms.py", "tests/test_move_rooms.py"}  # they name the old modules on purpose
# ``from acp_mux.x import a, b as c`` written in text (a string of code run by a test, a doc): the AST sees only code
TEXT_IMPORT = re.compile(
    r"\bfrom (?P<mod>acp_mux(?:\.\w+)*) import (?P<names>\w+(?: as \w+)?(?:, \w+(?: as \w+)?)*)(?!\w)"
)
PACKAGE_ROOTS = {"acp_mux": "acp_mux", "adapters": "acp_mux.adapters", "translation": "acp_mux.translation"}


def module_of(path: str) -> str | None:
    """``acp_mux/core/run.py`` → ``acp_mux.core.run``; ``adapters/base.py`` → ``acp_mux.adapters.base``; a
    package's ``__init__.py`` → the package; None for anything outside the installed package."""
    parts = Path(path).parts
    if not parts or parts[0] not in PACKAGE_ROOTS or not path.endswith(".py"):
        return None
    names = [*PACKAGE_ROOTS[parts[0]].split("."), *parts[1:]]
    names[-1] = names[-1][: -len(".py")]
    if names[-1] == "__init__":
        names.pop()
    return ".".join(names)


def git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=check, capture_output=True, text=True).stdout


def pending_moves() -> list[tuple[str, str]]:
    """The moves still to do; refuses when a source and its target both exist (half-applied by hand)."""
    todo = []
    for old, new in MOVES:
        have_old, have_new = (ROOT / old).exists(), (ROOT / new).exists()
        if have_old and have_new:
            sys.exit(f"move_rooms: both {old} and {new} exist: resolve by hand first")
        if have_old:
            todo.append((old, new))
        elif not have_new:
            print(f"move_rooms: {old} is gone and {new} is not there: skipped")
    return todo


def short_forms(path: str) -> list[str]:
    """The shorter ways docs name a file: without acp_mux/ (``core/run.py``), without adapters/
    (``acp_agents/openclaw.py``)."""
    for prefix in ("acp_mux/", "adapters/"):
        if path.startswith(prefix):
            return [path[len(prefix) :]]
    return []


def renames(todo: Iterable[tuple[str, str]]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(old module → new module, old path → new path (full and short forms), old symbol → new symbol)."""
    modules: dict[str, str] = {}
    paths: dict[str, str] = {}
    for old, new in todo:
        old_mod, new_mod = module_of(old), module_of(new)
        if old_mod and new_mod:
            modules[old_mod] = new_mod
        paths[old] = new
        for o, n in zip(short_forms(old), short_forms(new)):
            paths[o] = n
    return modules, paths, dict(SYMBOLS)


class Renamer:
    """One regex over every old name (dotted modules and symbols, full and short paths), longest first."""

    def __init__(self, modules: Mapping[str, str], paths: Mapping[str, str], symbols: Mapping[str, str]) -> None:
        self.table = {**modules, **symbols, **paths}
        self.modules = modules
        self.symbols = symbols
        alternatives = []
        for key in sorted(self.table, key=len, reverse=True):
            if "/" in key or key.endswith(".json"):
                full = key.startswith(("acp_mux/", "adapters/"))
                before = r"(?<![\w.-])" if full else r"(?<![\w./-])"
                alternatives.append(before + re.escape(key) + r"(?![\w-])")
            else:
                alternatives.append(r"(?<![\w.])" + re.escape(key) + r"(?!\w)")
        self.pattern = re.compile("|".join(alternatives)) if alternatives else None

    def text(self, source: str, skip: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int, str]]:
        """Replacements (start, end, new) for every old name outside the ``skip`` spans: first the ``from X import
        a, b`` written in text that must change shape, then every other old name."""
        if self.pattern is None:
            return []
        spans = list(skip)
        edits = []
        for match in TEXT_IMPORT.finditer(source):
            if any(s < match.end() and match.start() < e for s, e in spans):
                continue
            new = self.text_import(match["mod"], match["names"])
            if new is not None:
                edits.append((match.start(), match.end(), new))
                spans.append((match.start(), match.end()))
        for match in self.pattern.finditer(source):
            if any(s < match.end() and match.start() < e for s, e in spans):
                continue
            edits.append((match.start(), match.end(), self.table[match.group(0)]))
        return edits

    def text_import(self, module: str, names: str) -> str | None:
        """``from module import names`` as it must read now, when one of the names is a moved module or symbol
        (several statements joined by ``; ``, which is still one line of Python); None when no name moved."""
        aliases = [tuple(n.split(" as ")) for n in names.split(", ")]
        if not any(f"{module}.{a[0]}" in self.modules or f"{module}.{a[0]}" in self.symbols for a in aliases):
            return None
        groups: dict[str, list[str]] = {}
        for alias in aliases:
            name, local = alias[0], alias[-1]
            target = f"{module}.{name}"
            if target in self.modules or target in self.symbols:
                parent, _, leaf = (self.modules.get(target) or self.symbols[target]).rpartition(".")
                groups.setdefault(parent, []).append(leaf if leaf == local else f"{leaf} as {local}")
            else:
                groups.setdefault(self.module(module), []).append(" as ".join(alias))
        return "; ".join(f"from {m} import {', '.join(n)}" for m, n in groups.items())

    def module(self, name: str) -> str:
        """A module name with its moved prefix renamed (``acp_mux.core.run`` → ``acp_mux.core.run.handle``)."""
        for old in sorted(self.modules, key=len, reverse=True):
            if name == old or name.startswith(old + "."):
                return self.modules[old] + name[len(old) :]
        return name


def char_offsets(source: str) -> list[int]:
    """Start offset (in characters) of each line, 1-based like ast's line numbers."""
    starts = [0, 0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def position(source_lines: list[str], starts: list[int], line: int, byte_col: int) -> int:
    """ast's (line, UTF-8 byte column) → a character offset into the source."""
    text = source_lines[line - 1].encode()[:byte_col].decode(errors="ignore")
    return starts[line] + len(text)


def import_edits(path: str, source: str, renamer: Renamer, symbols: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """New text for each ``from ... import`` statement that must change shape: relative ones in or of a moved module,
    and those importing a moved module from its package or a moved name; the rest is left to the regex."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    own = module_of(path)
    package = (own if path.endswith("__init__.py") else own.rpartition(".")[0]) if own else None
    lines = source.splitlines(keepends=True)
    starts = char_offsets(source)
    edits = []
    moving = own in renamer.modules if own else False
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if package is None:
                continue
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        targets = [f"{module}.{a.name}" for a in node.names]
        reshape = any(t in renamer.modules or t in symbols for t in targets)
        relative_moves = node.level and (
            moving or renamer.module(module) != module or any(t in renamer.modules for t in targets)
        )
        if not reshape and not relative_moves:
            continue
        groups: dict[str, list[str]] = {}
        for alias, target in zip(node.names, targets):
            local = alias.asname or alias.name
            if target in renamer.modules or target in symbols:
                new_parent, _, new_leaf = (renamer.modules.get(target) or symbols[target]).rpartition(".")
                groups.setdefault(new_parent, []).append(new_leaf if new_leaf == local else f"{new_leaf} as {local}")
            else:
                groups.setdefault(renamer.module(module), []).append(
                    alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"
                )
        start = position(lines, starts, node.lineno, node.col_offset)
        end = position(lines, starts, node.end_lineno or node.lineno, node.end_col_offset or 0)
        if "#" in source[start:end]:
            print(f"move_rooms: {path}:{node.lineno}: a comment inside the rewritten import is dropped")
        indent = " " * (start - starts[node.lineno])
        text = f"\n{indent}".join(f"from {m} import {', '.join(names)}" for m, names in groups.items())
        edits.append((start, end, text))
    return edits


def rewrite(path: str, source: str, renamer: Renamer, symbols: Mapping[str, str]) -> str:
    """The file's text with every old name renamed, in one pass."""
    edits = import_edits(path, source, renamer, symbols) if path.endswith(".py") else []
    edits += renamer.text(source, [(s, e) for s, e, _ in edits])
    for start, end, new in sorted(edits, reverse=True):
        source = source[:start] + new + source[end:]
    return source


def tracked_text_files() -> list[str]:
    files = git("ls-files", "-z").split("\0")
    return [
        f
        for f in files
        if f
        and (f.endswith(TEXT_SUFFIXES) or f in EXTRA_FILES)
        and f not in THIS
        and not NOT_REWRITTEN.match(f)
        and (ROOT / f).is_file()
        and not (ROOT / f).is_symlink()
    ]


def add_packages_to_pyproject(new_packages: Iterable[str]) -> None:
    """Each new package joins pyproject's ``packages`` list, right after its parent."""
    path = ROOT / "pyproject.toml"
    text = path.read_text()
    match = re.search(r"^packages = \[(.*)\]$", text, flags=re.M)
    if match is None:
        sys.exit("move_rooms: no `packages = [...]` line in pyproject.toml")
    listed = re.findall(r'"([^"]+)"', match.group(1))
    for name in sorted(new_packages):
        if name in listed:
            continue
        parent = name.rpartition(".")[0]
        at = max(
            (i for i, n in enumerate(listed) if n == parent or n.startswith(parent + ".")), default=len(listed) - 1
        )
        listed.insert(at + 1, name)
    line = "packages = [" + ", ".join(f'"{n}"' for n in listed) + "]"
    path.write_text(text[: match.start()] + line + text[match.end() :])


def unmapped() -> list[str]:
    """Files of core/ and server/ (top level), and openclaw's modules, that no table names: left where they are."""
    mapped = {old for old, _ in MOVES} | STAYS
    found = []
    for folder in (C, S):
        for entry in sorted((ROOT / folder).iterdir()):
            rel = entry.relative_to(ROOT).as_posix()
            if entry.is_file() and entry.suffix in (".py", ".json") and rel not in mapped:
                found.append(rel)
    for folder in ("adapters/acp_agents", "adapters/stream_agents"):  # openclaw's package gathers all of it
        for entry in sorted((ROOT / folder).glob("openclaw_*")):
            rel = entry.relative_to(ROOT).as_posix()
            if rel not in mapped and (entry.suffix == ".py" or entry.is_dir()):
                found.append(rel)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--dry-run", action="store_true", help="print the moves still to do; change nothing")
    args = parser.parse_args(argv)
    todo = pending_moves()
    if args.dry_run:
        for old, new in todo:
            print(f"{old} → {new}")
        print(f"unmapped (stay where they are): {', '.join(unmapped()) or 'none'}")
        return 0
    if not todo:
        print("move_rooms: every move is done already: nothing to do")
        return 0
    if git("status", "--porcelain", "--untracked-files=no").strip():
        sys.exit("move_rooms: the work tree has changes: commit them first (the moves are one commit of their own)")

    modules, paths, symbols = renames(todo)
    renamer = Renamer(modules, paths, symbols)
    changed = []
    for f in tracked_text_files():
        source = (ROOT / f).read_text()
        new = rewrite(f, source, renamer, symbols)
        if any(f == old or f.startswith(old + "/") for old in paths if paths[old].startswith(OC + "/")):
            new = OPENCLAW_BARE.sub(lambda m: OPENCLAW_NEW.get(m[1], m[1]) + m[2], new)
        if new != source:
            (ROOT / f).write_text(new)
            changed.append(f)

    for old, new in todo:
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    moved_to = {new for _, new in todo}
    new_packages = []
    for folder, doc in NEW_PACKAGES.items():
        init = ROOT / folder / "__init__.py"
        if (ROOT / folder).is_dir() and not init.exists() and any(n.startswith(folder + "/") for n in moved_to):
            init.write_text(f'"""{doc}\n"""\n')
            git("add", init.relative_to(ROOT).as_posix())
        if (ROOT / folder).is_dir() and init.exists():
            new_packages.append(module_of(f"{folder}/__init__.py") or "")
    add_packages_to_pyproject(n for n in new_packages if n)

    done_sources = {old for old, _ in todo}
    for source, file, old, new in FIXES:
        if source not in done_sources:
            continue
        text = (ROOT / file).read_text()
        if old in text:
            (ROOT / file).write_text(text.replace(old, new))
        elif new not in text:
            print(f"move_rooms: {file}: neither the old nor the new text of a fix is there: check it ({old!r})")

    sys.path.insert(0, str(ROOT))
    from tools import typecheck  # the view plain `mypy` reads gains a link for a new top folder of acp_mux/

    view = ROOT / typecheck.VIEW
    typecheck.build_view(view, typecheck.view_links(ROOT, typecheck.package_dirs(ROOT / "pyproject.toml")))
    git("add", "-A", typecheck.VIEW)

    py = git("diff", "--name-only", "--cached", "HEAD").split() + git("diff", "--name-only").split()
    targets = sorted({f for f in py if f.endswith(".py") and (ROOT / f).is_file()})
    if targets:
        subprocess.run([sys.executable, "-m", "ruff", "format", "-q", *targets], cwd=ROOT, check=False)
    git("add", "-u")
    git("add", "pyproject.toml")
    print(f"move_rooms: {len(todo)} moves, {len(changed)} files rewritten")
    print("mapped (old → new):")
    for old, new in todo:
        print(f"  {old} → {new}")
    left = unmapped()
    print(f"unmapped modules of core/ and server/ (left where they are): {', '.join(left) or 'none'}")
    print("next: review `git status`, then: git commit -m 'rooms: pure moves (tools/move_rooms.py)'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
