"""Who imports whom in acp_mux, read from the source with ``ast``: the checker behind tests/test_rooms.py.

Why a checker of its own: the rooms (cli → server → adapters / translation → core, protocol on the side) only stay
one way if every kind of import is seen, not just ``import acp_mux.x``. A room can reach another room by a relative
import (``from ..server import y``), through the package (``from acp_mux import server``), inside a function, under
``if TYPE_CHECKING:``, or by a string the lazy helper imports on first use (``lazy_module("acp_mux.server.sessions.bridge")``).
All of them are read here and resolved to a module of ours, so the rules in test_rooms.py hold for all of them.

What counts as an import (each one becomes an :class:`Import` with the file and line it was written on):

- ``import`` and ``from ... import`` statements anywhere in a module, relative ones resolved against the file's
  *installed* package (adapters/ is ``acp_mux.adapters``, translation/ is ``acp_mux.translation``);
- a call to an import-like function (``importlib.import_module``, ``__import__``, the project's ``lazy_module``, or a
  local alias of one of them) with a string literal naming the module; a call whose name is not a literal is
  reported as ``dynamic``: nothing here can tell what it imports, so it needs a reviewed allow-list entry;
- a ``"acp_mux.pkg.module:Name"`` string anywhere (the registry's way of naming an adapter class it imports later);
- any other string that is exactly the dotted name of a module of ours (``sys.modules["acp_mux.x"]``, a name kept
  for a later import, ``-m acp_mux.x`` for a child process: a dependency on that module's room all the same).
  Dotted text that names no module of ours (a logger name such as ``acp_mux.wire``) is not read as an import.

The parent packages an import loads implicitly are not edges: ``import acp_mux.core.events.union`` is one
edge, to ``acp_mux.core.events.union``.

When an import runs decides whether it can make a load-time cycle (see :func:`cycles`):

- ``load``: runs while the importing module is being loaded (module or class level, ``import_module`` at module level);
- ``type``: only under ``if TYPE_CHECKING:``; never runs;
- ``deferred``: runs later, if at all: inside a function or lambda, through the lazy helper (which imports on first
  attribute read), or a module named by a string (``module:Name`` or a bare module name).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, Sequence

When = Literal["load", "type", "deferred"]
EVERY_KIND: frozenset[When] = frozenset({"load", "type", "deferred"})

# Functions that import the module named by their first argument. ``lazy_module`` (acp_mux/core/events/lazy.py) imports on
# first attribute read, so a call to it is deferred even at module level.
IMPORTING_CALLS = frozenset({"import_module", "__import__"})
LAZY_CALLS = frozenset({"lazy_module"})
ENTRY_POINT = re.compile(r"(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+):[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Import:
    """One place where module ``source`` names module ``name`` (absolute, relative already resolved)."""

    source: str
    path: Path
    line: int
    text: str  # the statement or call as written, for the failure message
    name: str  # the module named, absolute (relative names resolved); ``from X import y``: X
    when: When
    names: tuple[str, ...] = ()  # for ``from name import a, b``: the imported names (a submodule if one exists)


@dataclass(frozen=True)
class Problem:
    """An import the checker could not resolve or that breaks a rule by itself (before any room is considered)."""

    path: Path
    line: int
    text: str
    rule: str


@dataclass
class Graph:
    """Every module of ours, every import read from them, and the imports that could not be resolved."""

    root_package: str
    modules: dict[str, Path]
    imports: list[Import] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def target(self, imp: Import) -> str | None:
        """The module of ours ``imp`` names (``from X import y``: X), or None when it names nothing of ours."""
        return imp.name if imp.name in self.modules else None

    def targets(self, imp: Import) -> list[str]:
        """The modules of ours ``imp`` loads: for ``from pkg import a, b`` a submodule ``pkg.a`` where one exists."""
        base = self.target(imp)
        if base is None:
            return []
        subs = [f"{imp.name}.{n}" for n in imp.names if f"{imp.name}.{n}" in self.modules]
        if imp.names and len(subs) == len(imp.names):
            return subs
        return [base, *subs]


def module_files(packages: Mapping[str, Path]) -> dict[str, Path]:
    """Module name → file for every ``.py`` under each package directory (``{"acp_mux": ..., "acp_mux.adapters":
    ROOT / "adapters"}``); a directory mapped to a more specific package belongs to that package only."""
    found: dict[str, Path] = {}
    claimed = {d.resolve() for d in packages.values()}
    for package, given in packages.items():
        directory = given.resolve()
        for path in sorted(directory.rglob("*.py")):
            rel = path.relative_to(directory)
            if any((directory / Path(*rel.parts[:i])).resolve() in claimed for i in range(1, len(rel.parts))):
                continue  # inside another mapped package's directory
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _call_name(func: ast.expr) -> str | None:
    """The last name of a called expression: ``importlib.import_module`` → ``import_module``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _Reader(ast.NodeVisitor):
    """Walks one module, keeping track of whether it is inside a function or a ``TYPE_CHECKING`` block."""

    def __init__(self, graph: Graph, module: str, path: Path, source: str, strays: frozenset[str]) -> None:
        self.graph, self.module, self.path, self.source, self.strays = graph, module, path, source, strays
        self.is_package = path.name == "__init__.py"
        self.lines = source.encode().split(b"\n")  # ast's column offsets count UTF-8 bytes
        self.in_function = 0
        self.in_type_checking = 0
        self.importing = set(IMPORTING_CALLS)
        self.lazy = set(LAZY_CALLS)
        self.consumed: set[int] = set()

    # context -----------------------------------------------------------------------------------------------------
    def _when(self, lazy: bool = False) -> When:
        if self.in_type_checking:
            return "type"
        if self.in_function or lazy:
            return "deferred"
        return "load"

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        # decorators and defaults run at load time; only the body is deferred
        if not isinstance(node, ast.Lambda):
            for deco in node.decorator_list:
                self.visit(deco)
            if node.returns:
                self.visit(node.returns)
        self.visit(node.args)
        self.in_function += 1
        for child in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(child)
        self.in_function -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        if _is_type_checking(node.test):
            self.in_type_checking += 1
            for child in node.body:
                self.visit(child)
            self.in_type_checking -= 1
        else:
            for child in node.body:
                self.visit(child)
        for child in node.orelse:
            self.visit(child)

    # imports -----------------------------------------------------------------------------------------------------
    def _text(self, node: ast.AST) -> str:
        """The node as written, on one line (ast.get_source_segment splits the whole file on every call: too slow
        for the generated ACP model)."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return ast.unparse(node)
        if first == last:
            text = self.lines[first][start:end]
        else:
            text = b" ".join([self.lines[first][start:], *self.lines[first + 1 : last], self.lines[last][:end]])
        return " ".join(text.decode(errors="replace").split())

    def _problem(self, node: ast.AST, rule: str) -> None:
        self.graph.problems.append(Problem(self.path, getattr(node, "lineno", 0), self._text(node), rule))

    def _add(self, node: ast.AST, name: str, when: When, names: tuple[str, ...] = ()) -> None:
        top = name.split(".")[0]
        if top in self.strays:
            self._problem(
                node, f"imports {name!r}: {top}/ installs as {self.graph.root_package}.{top}; import it under that name"
            )
            return
        if top != self.graph.root_package:
            return  # the standard library or a dependency
        if name not in self.graph.modules:  # what follows ``import`` / ``from``, or an import-like call's string
            self._problem(node, f"imports {name!r}, which is no module of ours (a typo fails only when it runs)")
            return
        self.graph.imports.append(
            Import(self.module, self.path, getattr(node, "lineno", 0), self._text(node), name, when, names)
        )

    def _relative(self, node: ast.AST, level: int, name: str | None, package: str | None = None) -> str | None:
        """``from ..x import y`` → the absolute module it names, with the import system's own rule
        (``importlib.util.resolve_name``), from this module's package or the ``package`` given; None (reported)
        when it climbs above the top package."""
        if package is None:
            package = self.module if self.is_package else self.module.rpartition(".")[0]
        try:
            return importlib.util.resolve_name("." * level + (name or ""), package)
        except (ImportError, ValueError) as exc:
            self._problem(node, f"relative import of level {level} from {package} climbs above the top package ({exc})")
            return None

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, alias.name, self._when())

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self._relative(node, node.level, node.module)
            if base is None:
                return
        else:
            base = node.module or ""
        names = tuple(alias.name for alias in node.names if alias.name != "*")
        for alias in node.names:  # ``from importlib import import_module as im`` makes ``im(...)`` an import
            if alias.name in IMPORTING_CALLS:
                self.importing.add(alias.asname or alias.name)
            if alias.name in LAZY_CALLS:
                self.lazy.add(alias.asname or alias.name)
        self._add(node, base, self._when(), names)

    def visit_Call(self, node: ast.Call) -> None:
        name = _call_name(node.func)
        if name in self.importing or name in self.lazy:
            arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
            when = self._when(lazy=name in self.lazy)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                self.consumed.add(id(arg))  # read here as an import; not again as a bare module-name string
                target = self._call_target(node, name, arg.value)
                if target is not None:
                    self._add(node, target, when)
            else:
                self._problem(node, "dynamic: imports a module whose name is not a string literal here")
        self.generic_visit(node)

    def _call_target(self, node: ast.Call, func: str, name: str) -> str | None:
        """The absolute module an import-like call names: ``import_module(".x", package="p")`` is relative to p,
        ``__import__("x", globals(), None, [], 1)`` to this module's package; None (reported) when that cannot be
        told from the call."""
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if func == "__import__":
            level_node = node.args[4] if len(node.args) > 4 else keywords.get("level")
            level = _literal(level_node, int, default=0)
            if level is None:
                self._problem(node, "__import__ with a level that is not a literal: cannot tell what it imports")
            if level is None or level == 0:
                return None if level is None else name
            return self._relative(node, level, name)
        if not name.startswith("."):
            return name
        package = _literal(node.args[1] if len(node.args) > 1 else keywords.get("package"), str)
        if package is None:
            self._problem(node, "relative module name without a literal package: cannot tell what it imports")
            return None
        stripped = name.lstrip(".")
        return self._relative(node, len(name) - len(stripped), stripped, package)

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or id(node) in self.consumed:
            return
        match = ENTRY_POINT.fullmatch(node.value)
        if match and match["module"].split(".")[0] in {self.graph.root_package, *self.strays}:
            self._add(node, match["module"], "type" if self.in_type_checking else "deferred")
        elif node.value in self.graph.modules and "." in node.value:
            # a bare module name of ours (``sys.modules["acp_mux.x"]``, ``-m acp_mux.x``, a name kept for a later
            # import): a dependency on that module all the same. Only names of real modules: a logger name or any
            # other dotted text that is no module is not read as one.
            self._add(node, node.value, "type" if self.in_type_checking else "deferred")


def _literal(node: ast.expr | None, kind: type, default: object = None) -> Any:
    """The value of a literal argument of type ``kind``; ``default`` when the argument is absent, None when it is
    there but not such a literal (its value is only known at run time)."""
    if node is None:
        return default
    if isinstance(node, ast.Constant) and type(node.value) is kind:
        return node.value
    return None


def read_graph(packages: Mapping[str, Path], root_package: str, strays: Iterable[str] = ()) -> Graph:
    """Reads every module under ``packages``; ``strays`` are top-level folder names that must never be imported
    as such (adapters, translation: they install under ``root_package``)."""
    modules = module_files(packages)
    graph = Graph(root_package, modules)
    stray_set = frozenset(strays)
    for module, path in sorted(modules.items()):
        source = path.read_text()
        _Reader(graph, module, path, source, stray_set).visit(ast.parse(source, filename=str(path)))
    return graph


def strongly_connected(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1 (or a module importing itself), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    graph = {k: sorted(set(v)) for k, v in edges.items()}
    nodes = sorted(set(graph) | {t for v in graph.values() for t in v})

    def visit(start: str) -> None:
        # iterative, so a long chain of modules cannot hit the recursion limit
        work: list[tuple[str, Iterator[str]]] = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph.get(node, ()):
                        found.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return sorted(found)


def named_by_string(imp: Import) -> bool:
    """A module named by a string literal that is no import call (a registry row's ``"module:Class"``, a
    ``sys.modules`` key, a ``-m`` target): data that names a module, resolved by whoever reads it."""
    return imp.text[:1] in ("'", '"')


def counts_for_cycles(imp: Import) -> bool:
    """Every import statement and import call counts for cycles (at load, under ``TYPE_CHECKING``, in a function,
    through the lazy helper), since each is a dependency one way; a module merely named by a string does not: the
    registry's rows name every adapter, and every adapter reads its own row."""
    return not named_by_string(imp)


def cycle_path(component: Sequence[str], edges: Mapping[str, Iterable[str]]) -> list[str]:
    """One circle through the component, as modules in import order, the first repeated at the end (a → b → a)."""
    members = set(component)
    start = component[0]
    parent: dict[str, str] = {}
    queue = [start]
    while queue:  # breadth first: the shortest way from start back to start
        node = queue.pop(0)
        for child in sorted(edges.get(node, ())):
            if child not in members:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, node, start]
            if child not in parent:
                parent[child] = node
                queue.append(child)
    return [*component, start]


def cycles(
    graph: Graph, kinds: frozenset[When] = frozenset({"load"}), counts: Callable[[Import], bool] = counts_for_cycles
) -> list[tuple[list[str], list[Import]]]:
    """Import cycles over the imports of the given kinds (and that ``counts``): each as (its modules, the imports
    that close it).

    Only ``load`` imports by default: a cycle of them means a module can be seen half-loaded depending on which one
    is imported first. With every kind (:data:`EVERY_KIND`), what tests/test_rooms.py requires, a cycle is any two
    modules that depend on each other, however late one of the imports runs: the rooms stay a one-way house."""
    edges: dict[str, set[str]] = {}
    for imp in graph.imports:
        if imp.when in kinds and counts(imp):
            for target in graph.targets(imp):
                if target != imp.source:
                    edges.setdefault(imp.source, set()).add(target)
    result = []
    for component in strongly_connected(edges):
        members = set(component)
        closing = [
            imp
            for imp in graph.imports
            if imp.when in kinds
            and counts(imp)
            and imp.source in members
            and any(t in members and t != imp.source for t in graph.targets(imp))
        ]
        result.append((component, closing))
    return result


@dataclass(frozen=True)
class Rooms:
    """Which module belongs to which room, and which rooms each room may import (besides itself).

    ``packages`` maps a package prefix to its room (a module belongs to the longest prefix it is in); ``exact`` maps
    single modules (the top package ``acp_mux`` and ``acp_mux.__main__``) that are rooms of their own. ``everyone``
    lists rooms every room may import (the top package: loading any module of ours loads it anyway)."""

    packages: Mapping[str, str]
    exact: Mapping[str, str]
    allowed: Mapping[str, frozenset[str]]
    everyone: frozenset[str] = frozenset()

    def room_of(self, module: str) -> str | None:
        """The room ``module`` lives in, or None when it is in none (a new package no rule covers yet)."""
        if module in self.exact:
            return self.exact[module]
        best = max((p for p in self.packages if module == p or module.startswith(p + ".")), key=len, default=None)
        return self.packages[best] if best is not None else None


@dataclass(frozen=True)
class Violation:
    """An import that breaks a rule: ``key`` (file, target or text) is what an allow-list entry names."""

    path: Path
    line: int
    text: str
    rule: str
    key: tuple[str, str]

    def message(self, root: Path) -> str:
        """``file:line: the import — the rule it breaks``: enough to find and judge it without running anything."""
        return f"{self.path.relative_to(root)}:{self.line}: `{self.text}` — {self.rule}"


def problems_as_violations(graph: Graph, root: Path) -> list[Violation]:
    """The imports that break a rule by themselves (stray top-level name, unknown module, dynamic name, ...)."""
    return [Violation(p.path, p.line, p.text, p.rule, (str(p.path.relative_to(root)), p.text)) for p in graph.problems]


def room_violations(graph: Graph, rooms: Rooms, root: Path) -> list[Violation]:
    """Every import from one room into a room it may not import, and every module that is in no room."""
    found: list[Violation] = []
    for module, path in sorted(graph.modules.items()):
        if rooms.room_of(module) is None:
            found.append(
                Violation(
                    path,
                    1,
                    module,
                    f"module {module} is in no room: give its package a room and the rooms it may import",
                    (str(path.relative_to(root)), module),
                )
            )
    for imp in graph.imports:
        source_room = rooms.room_of(imp.source)
        if source_room is None:
            continue  # reported above, once per module
        for target in graph.targets(imp):
            target_room = rooms.room_of(target)
            if target_room is None or target_room == source_room or target_room in rooms.everyone:
                continue
            may = rooms.allowed.get(source_room, frozenset())
            if target_room not in may:
                rule = (
                    f"room {source_room} may not import room {target_room} ({target}, {imp.when}); "
                    f"{source_room} may import only: {', '.join(sorted(may)) or 'nothing of ours'}"
                )
                found.append(Violation(imp.path, imp.line, imp.text, rule, (str(imp.path.relative_to(root)), target)))
    return found


def cycle_violations(graph: Graph, root: Path, kinds: frozenset[When] = frozenset({"load"})) -> list[Violation]:
    """One violation per import cycle, at its first closing import: one circle drawn out (a → b → a), then every
    import that closes it (file, line, statement, kind)."""
    found = []
    for component, closing in cycles(graph, kinds):
        first = min(closing, key=lambda i: (str(i.path), i.line))
        edges: dict[str, set[str]] = {}
        for imp in closing:
            edges.setdefault(imp.source, set()).update(t for t in graph.targets(imp) if t in component)
        circle = " → ".join(cycle_path(component, edges))
        where = "; ".join(f"{i.path.relative_to(root)}:{i.line} `{i.text}` ({i.when})" for i in closing)
        rule = (
            f"import cycle between {', '.join(component)}: {circle} (break it: the lower module states what it needs "
            f"as a Protocol, or the shared piece moves below both): {where}"
        )
        found.append(Violation(first.path, first.line, first.text, rule, ("cycle", " ".join(component))))
    return found


@dataclass(frozen=True)
class Families:
    """The adapter rooms by transport family, inside the adapters room: ``packages`` maps each family's package
    (``acp_mux.adapters.acp_agents``) to its name; ``shared`` is the adapters package whose own modules (base,
    registry, mcp, json_rpc_peer) every family builds on.

    Rules (:func:`family_violations`): a family imports the shared pieces and the rooms below adapters; into
    another family it may import only a module of the same agent (``rpc_agents.codex`` → ``stream_agents.codex_exec``:
    the agent is a module's first name part, ``codex_exec`` → ``codex``); the shared pieces reach a family only
    through a deferred import (the registry's ``"module:Class"`` rows), never while loading or for types."""

    packages: Mapping[str, str]
    shared: str

    def family_of(self, module: str) -> str | None:
        """The family package ``module`` is in (None outside every family)."""
        return next((p for p in self.packages if module == p or module.startswith(p + ".")), None)

    def agent_of(self, module: str) -> str | None:
        """The agent a family module belongs to (``...stream_agents.codex_exec`` → ``codex``); None for the
        family's package itself."""
        family = self.family_of(module)
        if family is None or module == family:
            return None
        return module[len(family) + 1 :].split(".")[0].split("_")[0]

    def is_shared(self, module: str) -> bool:
        """A shared adapter piece: in the adapters package, in no family."""
        return (module == self.shared or module.startswith(self.shared + ".")) and self.family_of(module) is None


def family_violations(graph: Graph, families: Families, root: Path) -> list[Violation]:
    """Every import across families that leaves its agent, and every shared piece that loads a family."""
    found: list[Violation] = []
    for imp in graph.imports:
        source_family = families.family_of(imp.source)
        for target in graph.targets(imp):
            target_family = families.family_of(target)
            if target_family is None or target_family == source_family:
                continue
            if source_family is None:
                if families.is_shared(imp.source) and imp.when != "deferred":
                    rule = (
                        f"shared adapter piece {imp.source} {imp.when}-imports {target} from family "
                        f"{families.packages[target_family]}: shared pieces reach a family only through a registry "
                        "row (a deferred import)"
                    )
                    found.append(
                        Violation(imp.path, imp.line, imp.text, rule, (str(imp.path.relative_to(root)), target))
                    )
                continue
            agent, target_agent = families.agent_of(imp.source), families.agent_of(target)
            if agent is None or agent != target_agent:
                rule = (
                    f"family {families.packages[source_family]} may import from family "
                    f"{families.packages[target_family]} only a module of its own agent ({agent}), not {target}"
                )
                found.append(Violation(imp.path, imp.line, imp.text, rule, (str(imp.path.relative_to(root)), target)))
    return found
