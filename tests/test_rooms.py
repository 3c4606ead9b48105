"""The rooms import one way, there is no import cycle of any kind between files, and only ``acp_mux`` is installed.

Rooms: cli → api → server → adapters / translation → core, and protocol (the typed ACP edge) on the side: it imports
nothing of ours, and server, adapters, translation and cli may import it (core may not: core knows no ACP).
Inside adapters, the transport families (acp_agents, stream_agents, rpc_agents) are rooms too: each builds on the
shared pieces at the adapters root and the rooms below; across families only a module of the same agent
(rpc_agents.codex → stream_agents.codex_exec), and the shared pieces reach a family only through the registry's rows.
The launcher (the ``acp-mux`` entry point and what answers ``initialize`` before the bridge loads) sits above the
command line it hands over to; the server and the command line read its answers (``initialize_result``, ``Early``). Every
kind of import counts (tests/import_graph.py says which and how they are read): absolute and relative statements,
``from acp_mux import server``, imports inside functions, strings handed to ``importlib.import_module`` /
``__import__`` / the lazy helper (``lazy_module("acp_mux.core.events.union")``), the registry's ``"module:Class"``
strings, and any string that is exactly the name of a module of ours (``sys.modules[...]``, ``-m`` targets).

Imports under ``TYPE_CHECKING`` count for the rooms: a type naming a higher room is still a dependency on it, and
mypy follows it. Every import counts for cycles too, at load, under ``TYPE_CHECKING``, inside a function or through
the lazy helper: a lazy import keeps a module from being seen half-loaded, but two files that need each other are
still one piece a reader cannot take apart. A lower module states what it needs of a higher one as a Protocol
(the adapter contract of the run, the tracker of a process, the launcher's slot of a started agent). Only a module
named by a string (a registry row's ``"module:Class"``) is data for the cycle check: the registry names every
adapter, and every adapter reads its own row. A failure draws the circle (a → b → a) and lists each import in it.

Run: ``.venv/bin/python -m pytest -q tests/test_rooms.py``. A failure names the file, line, import and rule.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import sys
import tempfile
import textwrap
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.import_graph import (
    EVERY_KIND,
    Families,
    Graph,
    Rooms,
    Violation,
    cycle_violations,
    cycles,
    family_violations,
    problems_as_violations,
    read_graph,
    room_violations,
    strongly_connected,
)

ROOT = Path(__file__).resolve().parents[1]
TOP = "acp_mux"

FAMILIES = Families(
    packages={
        "acp_mux.adapters.acp_agents": "acp_agents",
        "acp_mux.adapters.stream_agents": "stream_agents",
        "acp_mux.adapters.rpc_agents": "rpc_agents",
    },
    shared="acp_mux.adapters",
)
ADAPTER_ROOMS = frozenset({"adapters", *FAMILIES.packages.values()})
BELOW_ADAPTERS = frozenset({"core", "translation", "protocol"})

# The adapter families are rooms of their own: each may import the shared pieces (room "adapters") and the rooms
# below; across families the room table allows it, and test_adapter_families_keep_to_their_agents narrows it to
# a module of the same agent.
ROOMS = Rooms(
    packages={
        "acp_mux.core": "core",
        "acp_mux.protocol": "protocol",
        "acp_mux.translation": "translation",
        "acp_mux.adapters": "adapters",
        **FAMILIES.packages,
        "acp_mux.server": "server",
        "acp_mux.api": "api",
        "acp_mux.cli": "cli",
        "acp_mux.launcher": "launcher",
    },
    exact={"acp_mux": "package", "acp_mux.version": "package", "acp_mux.__main__": "main"},
    allowed={
        "core": frozenset(),
        "protocol": frozenset(),
        "translation": frozenset({"core", "protocol"}),
        **{room: BELOW_ADAPTERS | (ADAPTER_ROOMS - {room}) for room in ADAPTER_ROOMS},
        "server": BELOW_ADAPTERS | ADAPTER_ROOMS | {"launcher"},
        "api": BELOW_ADAPTERS | ADAPTER_ROOMS | {"server"},  # the Python API: the runtime plus the session store
        "cli": BELOW_ADAPTERS | ADAPTER_ROOMS | {"server", "api", "launcher"},
        "launcher": BELOW_ADAPTERS | ADAPTER_ROOMS | {"server", "api", "cli"},
        "main": frozenset({"cli", "launcher"}),
        # ``import acp_mux`` stays free: every module of ours loads it. Its only import is the API's, inside the
        # module ``__getattr__`` (PEP 562), so it runs when a public name is first read, never at load time.
        "package": frozenset({"api"}),
    },
    everyone=frozenset({"package"}),
)

# Known, reviewed exceptions: (file, import text or target module) → why it is tolerated. Each entry must still
# match something (test_allow_lists_are_not_stale), so a fixed one is removed, and anything new fails.
ALLOWED_PROBLEMS: dict[tuple[str, str], str] = {
    # The lazy helper itself: it imports whatever name its callers give it. Those callers' string literals are
    # read and checked as imports (``lazy_module("acp_mux.core.events.union")``), so nothing escapes through here.
    ("acp_mux/core/events/lazy.py", "importlib.import_module(self.__name)"): "the lazy helper; its callers are checked",
    # get_adapter (adapters/base.py) imports the registry row's "module:Class" target; every such string in the
    # registry is read and checked as an import of acp_mux.adapters.registry (deferred), so its targets are seen.
    ("adapters/base.py", "importlib.import_module(module_name)"): "registry targets are checked as strings",
}
ALLOWED_ROOM_VIOLATIONS: dict[tuple[str, str], str] = {}


def installed_packages(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Path]:
    """Import name → source folder, as setuptools installs them (from pyproject.toml, so the two cannot drift)."""
    tool = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
    mapped = {name: ROOT / folder for name, folder in tool.get("package-dir", {}).items()}
    return {TOP: ROOT / TOP, **mapped}


@functools.cache
def real_graph() -> Graph:
    """The graph of the work tree as installed: adapters/ and translation/ under acp_mux (read once per run)."""
    packages = installed_packages()
    strays = {path.relative_to(ROOT).parts[0] for name, path in packages.items() if name != TOP}
    return read_graph(packages, TOP, strays)


def not_allowed(found: list[Violation], allowed: dict[tuple[str, str], str]) -> list[str]:
    """The messages of the violations no reviewed allow-list entry covers: what a failing run prints."""
    return [v.message(ROOT) for v in found if v.key not in allowed]


def test_the_mapping_matches_the_packages_setuptools_installs() -> None:
    """A package pyproject installs from a folder the checker does not read would escape every rule."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    modules = real_graph().modules
    assert [p for p in tool["packages"] if p not in modules] == []
    assert {TOP, "acp_mux.adapters", "acp_mux.translation"} <= set(installed_packages())


def test_every_import_resolves_to_a_module_of_ours_and_is_read() -> None:
    """Stray top-level names, relative imports out of the package, unknown modules and non-literal names fail."""
    assert not_allowed(problems_as_violations(real_graph(), ROOT), ALLOWED_PROBLEMS) == []


def test_each_room_imports_only_the_rooms_below_it() -> None:
    assert not_allowed(room_violations(real_graph(), ROOMS, ROOT), ALLOWED_ROOM_VIOLATIONS) == []


def test_adapter_families_keep_to_their_agents() -> None:
    """acp_agents, stream_agents and rpc_agents import across families only a module of the same agent, and the
    shared pieces (base, registry, mcp, json_rpc_peer) load no family."""
    assert [v.message(ROOT) for v in family_violations(real_graph(), FAMILIES, ROOT)] == []


def test_the_family_rule_sees_the_real_cross_family_imports() -> None:
    """Guards the rule against judging nothing: a same-agent import across families is in the graph."""
    graph = real_graph()
    across = {
        (imp.source, t)
        for imp in graph.imports
        for t in graph.targets(imp)
        if FAMILIES.family_of(imp.source) not in (None, FAMILIES.family_of(t)) and FAMILIES.family_of(t)
    }
    assert ("acp_mux.adapters.rpc_agents.codex", "acp_mux.adapters.stream_agents.codex_exec") in across


# Modules that still hold their own ``ev = lazy_module("acp_mux.core.events.union")`` (Any to mypy): each switches to the
# one line ``from acp_mux.core.events.lazy_events import ev`` and leaves this set; nothing may join it.
LAZY_EVENTS_NOT_YET_TYPED = {"acp_mux.adapters.acp_agents.openclaw.retries"}


def test_events_are_loaded_lazily_through_the_one_typed_stand_in() -> None:
    """Only ``acp_mux.core.events.lazy_events`` holds ``lazy_module("acp_mux.core.events.union")``: a module with a stand-in of its
    own would build events mypy reads as Any."""
    graph = real_graph()
    holders = {
        imp.source
        for imp in graph.imports
        if imp.when == "deferred" and "lazy_module" in imp.text and graph.target(imp) == "acp_mux.core.events.union"
    }
    assert "acp_mux.core.events.lazy_events" in holders  # the rule reads the real stand-in, so it would see another
    left = holders - {"acp_mux.core.events.lazy_events"} - LAZY_EVENTS_NOT_YET_TYPED
    assert sorted(left) == [], "use: from acp_mux.core.events.lazy_events import ev"


def test_no_import_cycles_of_any_kind() -> None:
    """No two files depend on each other, however late one import runs (load, type, in a function, lazy)."""
    messages = [v.message(ROOT) for v in cycle_violations(real_graph(), ROOT, EVERY_KIND)]
    assert messages == [], "\n".join(messages)


def test_allow_lists_are_not_stale() -> None:
    graph = real_graph()
    seen = {v.key for v in problems_as_violations(graph, ROOT) + room_violations(graph, ROOMS, ROOT)}
    assert [k for k in {**ALLOWED_PROBLEMS, **ALLOWED_ROOM_VIOLATIONS} if k not in seen] == []


def test_the_real_tree_is_read_in_full() -> None:
    """Guards the checker against reading nothing: the tree's known imports of every kind are in the graph."""
    graph = real_graph()
    by_kind = {(imp.source, graph.target(imp), imp.when) for imp in graph.imports}
    assert ("acp_mux.core.events.lazy_events", "acp_mux.core.events.union", "deferred") in by_kind  # lazy_module string
    assert any(  # `from acp_mux.core.events import union as ev` under TYPE_CHECKING: what mypy sees instead
        imp.source == "acp_mux.core.events.lazy_events"
        and imp.when == "type"
        and "acp_mux.core.events.union" in graph.targets(imp)
        for imp in graph.imports
    )
    assert (
        "acp_mux.server.sessions.bridge",
        "acp_mux.core.events.union",
        "deferred",
    ) in by_kind  # import_module in a function
    assert (
        "acp_mux.adapters.registry",
        "acp_mux.adapters.stream_agents.claude",
        "deferred",
    ) in by_kind  # "module:Class"
    assert ("acp_mux.__main__", "acp_mux.launcher.entry", "load") in by_kind
    assert len(graph.modules) > 90 and {ROOMS.room_of(m) for m in graph.modules} == set(ROOMS.allowed)


# ---- the checker itself, on synthetic trees --------------------------------------------------------------------

ROOM_PACKAGE = {  # room → (import name of its package, folder relative to the tree root)
    "core": ("acp_mux.core", "acp_mux/core"),
    "protocol": ("acp_mux.protocol", "acp_mux/protocol"),
    "server": ("acp_mux.server", "acp_mux/server"),
    "cli": ("acp_mux.cli", "acp_mux/cli"),
    "adapters": ("acp_mux.adapters", "adapters"),
    "translation": ("acp_mux.translation", "translation"),
}


def make_tree(root: Path, files: dict[str, str]) -> None:
    """A tree like the repository: every room a package with ``a.py`` and ``b.py``, plus ``files`` (path → source)."""
    base = {"acp_mux/__init__.py": "", "acp_mux/__main__.py": "from acp_mux.cli.a import x\n"}
    for _, folder in ROOM_PACKAGE.values():
        base |= {f"{folder}/__init__.py": "", f"{folder}/a.py": "x = 1\n", f"{folder}/b.py": "y = 2\n"}
    # a stand-in for the lazy helper, named apart from the real one (acp_mux/core/events/lazy.py) so a move of that leaves it
    base["acp_mux/core/lazy_helper.py"] = "def lazy_module(name):\n    return name\n"
    for rel, source in (base | files).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(source))


def tree_graph(root: Path) -> Graph:
    packages = {
        "acp_mux": root / "acp_mux",
        "acp_mux.adapters": root / "adapters",
        "acp_mux.translation": root / "translation",
    }
    return read_graph(packages, "acp_mux", ["adapters", "translation"])


def check(root: Path, files: dict[str, str]) -> list[str]:
    """Every rule's failures for a synthetic tree, as messages."""
    make_tree(root, files)
    graph = tree_graph(root)
    found = (
        problems_as_violations(graph, root)
        + room_violations(graph, ROOMS, root)
        + cycle_violations(graph, root, EVERY_KIND)
    )
    return [v.message(root) for v in found]


def test_a_clean_tree_has_nothing_to_report(tmp_path: Path) -> None:
    clean = {
        "acp_mux/cli/a.py": "from acp_mux.server import a\nfrom ..protocol import b\nx = 1\n",
        "acp_mux/server/a.py": "import acp_mux.adapters.a\nfrom acp_mux import translation\n",
        "adapters/a.py": """\
            from typing import TYPE_CHECKING
            from ..translation.a import x
            from . import b
            from acp_mux.core.lazy_helper import lazy_module
            ev = lazy_module("acp_mux.core.a")
            if TYPE_CHECKING:
                from acp_mux.protocol import a
            ENTRY = "acp_mux.adapters.b:B"
            def later():
                import importlib
                return importlib.import_module("acp_mux.core.b")
            """,
        "translation/a.py": "from acp_mux.core import a, b\nfrom acp_mux import __version__\nx = 1\n",
        "acp_mux/core/a.py": "from . import b\nfrom .b import y\nimport json\n",
        "acp_mux/protocol/b.py": "from .a import x\nfrom pydantic import BaseModel\n",
        # dotted text that names no module of ours is no import (a logger name, a version, a class path)
        "acp_mux/core/b.py": "import logging\nlog = logging.getLogger('acp_mux.wire')\nV = 'acp_mux.server.a.X'\n",
    }
    assert check(tmp_path, clean) == []


# Each case: (file, source, the module of ours it must be read as importing, a word the message must contain).
VIOLATIONS = {
    "absolute": ("acp_mux/core/a.py", "import acp_mux.server.a\n", "acp_mux.server.a", "load"),
    "from-absolute": ("acp_mux/core/a.py", "from acp_mux.server.a import x\n", "acp_mux.server.a", "load"),
    "from-package": ("adapters/a.py", "from acp_mux import server\n", "acp_mux.server", "load"),
    "relative-up": ("adapters/a.py", "from ..server import a\n", "acp_mux.server.a", "load"),
    "relative-up-module": ("translation/a.py", "from ..adapters.a import x\n", "acp_mux.adapters.a", "load"),
    "relative-mapped": ("acp_mux/protocol/a.py", "from ..translation import a\n", "acp_mux.translation.a", "load"),
    "in-function": ("acp_mux/core/a.py", "def f():\n    from acp_mux.cli import a\n", "acp_mux.cli.a", "deferred"),
    "in-method": (
        "acp_mux/core/a.py",
        "class C:\n    def f(self):\n        import acp_mux.server\n",
        "acp_mux.server",
        "deferred",
    ),
    "in-lambda": ("acp_mux/core/a.py", "f = lambda: __import__('acp_mux.server.a')\n", "acp_mux.server.a", "deferred"),
    "type-checking": (
        "acp_mux/core/a.py",
        "import typing\nif typing.TYPE_CHECKING:\n    from acp_mux.protocol import a\n",
        "acp_mux.protocol.a",
        "type",
    ),
    "import_module": (
        "acp_mux/core/a.py",
        "import importlib\nm = importlib.import_module('acp_mux.server.b')\n",
        "acp_mux.server.b",
        "load",
    ),
    "import_module-alias": (
        "acp_mux/core/a.py",
        "from importlib import import_module as im\nm = im('acp_mux.cli.b')\n",
        "acp_mux.cli.b",
        "load",
    ),
    "import_module-relative": (
        "acp_mux/core/a.py",
        "import importlib\nm = importlib.import_module('..server.a', package='acp_mux.core')\n",
        "acp_mux.server.a",
        "load",
    ),
    "__import__": ("translation/a.py", "m = __import__('acp_mux.server.a')\n", "acp_mux.server.a", "load"),
    "lazy_module": (
        "adapters/a.py",
        "from acp_mux.core.lazy_helper import lazy_module\nbr = lazy_module('acp_mux.server.a')\n",
        "acp_mux.server.a",
        "deferred",
    ),
    "lazy_module-alias": (
        "acp_mux/core/a.py",
        "from .lazy_helper import lazy_module as lz\nbr = lz(name='acp_mux.cli.a')\n",
        "acp_mux.cli.a",
        "deferred",
    ),
    "entry-point": ("acp_mux/core/a.py", "ROW = {'x': 'acp_mux.adapters.a:Thing'}\n", "acp_mux.adapters.a", "deferred"),
    "relative-in-init": ("acp_mux/core/__init__.py", "from ..server import a\n", "acp_mux.server.a", "load"),
    "sys-modules": (
        "acp_mux/core/a.py",
        "import sys\nm = sys.modules.get('acp_mux.server.a')\n",
        "acp_mux.server.a",
        "deferred",
    ),
    "child-process": (
        "translation/a.py",
        "import sys\nARGS = [sys.executable, '-m', 'acp_mux.cli']\n",
        "acp_mux.cli",
        "deferred",
    ),
    "__import__-level": (
        "acp_mux/core/a.py",
        "m = __import__('server.a', globals(), None, ['x'], 2)\n",
        "acp_mux.server.a",
        "load",
    ),
    "main-skips": ("acp_mux/__main__.py", "from acp_mux.server.a import x\n", "acp_mux.server.a", "load"),
    "package-imports": ("acp_mux/__init__.py", "from acp_mux.core.a import x\n", "acp_mux.core.a", "load"),
}


@pytest.mark.parametrize("case", list(VIOLATIONS))
def test_the_checker_finds_each_kind_of_forbidden_import(tmp_path: Path, case: str) -> None:
    rel, source, target, when = VIOLATIONS[case]
    messages = check(tmp_path, {rel: source})
    assert len(messages) == 1, messages
    lines = source.splitlines()
    where, text, rule = messages[0].split("`", 2)
    assert where == f"{rel}:{len(lines)}: " and text in lines[-1], messages  # the file, line and import as written
    assert f"({target}, {when})" in rule and "may not import room" in rule, messages


PROBLEMS = {
    "stray-absolute": ("acp_mux/server/a.py", "import adapters.a\n", "installs as acp_mux.adapters"),
    "stray-from": ("acp_mux/cli/a.py", "from translation.a import x\n", "installs as acp_mux.translation"),
    "stray-string": ("acp_mux/cli/a.py", "E = 'adapters.a:A'\n", "installs as acp_mux.adapters"),
    "relative-above-top": ("acp_mux/core/a.py", "from ... import x\n", "climbs above the top package"),
    "relative-above-mapped": ("adapters/a.py", "from ...x import y\n", "climbs above the top package"),
    "unknown-module": ("acp_mux/server/a.py", "from acp_mux.srever import a\n", "no module of ours"),
    "unknown-lazy": (
        "adapters/a.py",
        "from acp_mux.core.lazy_helper import lazy_module\nev = lazy_module('acp_mux.core.evnts')\n",
        "no module of ours",
    ),
    "dynamic": (
        "adapters/a.py",
        "import importlib\nname = 'acp_mux.' + 'server'\nm = importlib.import_module(name)\n",
        "dynamic",
    ),
    "dynamic-lazy": (
        "adapters/a.py",
        "from acp_mux.core.lazy_helper import lazy_module\nm = lazy_module(f'acp_mux.{1}')\n",
        "dynamic",
    ),
    "__import__-dynamic-level": (
        "acp_mux/core/a.py",
        "L = 1\nm = __import__('b', level=L)\n",
        "level that is not a literal",
    ),
    "relative-string-no-package": (
        "acp_mux/core/a.py",
        "import importlib\nimportlib.import_module('.b')\n",
        "without a literal package",
    ),
}


@pytest.mark.parametrize("case", list(PROBLEMS))
def test_the_checker_reports_imports_it_cannot_place(tmp_path: Path, case: str) -> None:
    rel, source, words = PROBLEMS[case]
    messages = check(tmp_path, {rel: source})
    assert len(messages) == 1 and messages[0].startswith(f"{rel}:") and words in messages[0], messages


def test_a_module_outside_every_room_is_reported(tmp_path: Path) -> None:
    messages = check(tmp_path, {"acp_mux/util/__init__.py": "", "acp_mux/util/x.py": "from acp_mux.core import a\n"})
    assert sorted(m.split(":")[0] for m in messages) == ["acp_mux/util/__init__.py", "acp_mux/util/x.py"]
    assert all("in no room" in m for m in messages)


def test_a_load_time_cycle_is_reported_with_every_import_that_closes_it(tmp_path: Path) -> None:
    messages = check(
        tmp_path,
        {
            "acp_mux/server/a.py": "from acp_mux.server.b import y\nx = 1\n",
            "acp_mux/server/b.py": "from . import c\ny = 2\n",
            "acp_mux/server/c.py": "import acp_mux.server.a\n",
        },
    )
    assert len(messages) == 1, messages
    assert "import cycle between acp_mux.server.a, acp_mux.server.b, acp_mux.server.c" in messages[0]
    for closing in ("acp_mux/server/a.py:1", "acp_mux/server/b.py:1", "acp_mux/server/c.py:1"):
        assert closing in messages[0]


def test_a_cycle_through_a_package_import_is_reported(tmp_path: Path) -> None:
    """``from acp_mux.core import a`` loads ``acp_mux.core.a``: the edge goes to the submodule, not the package."""
    messages = check(
        tmp_path,
        {"acp_mux/core/a.py": "from acp_mux.core import b\n", "acp_mux/core/b.py": "from acp_mux.core import a\n"},
    )
    assert len(messages) == 1 and "import cycle between acp_mux.core.a, acp_mux.core.b" in messages[0], messages


@pytest.mark.parametrize(
    "breaker",
    [
        "def f():\n    from acp_mux.core import a\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from acp_mux.core import a\n",
        "from .lazy_helper import lazy_module\na = lazy_module('acp_mux.core.a')\n",
    ],
)
def test_a_cycle_through_a_lazy_type_only_or_in_function_import_is_one(tmp_path: Path, breaker: str) -> None:
    """Not a load-time cycle (none of these imports runs while b loads), and still two files that need each other:
    reported, with the circle drawn."""
    make_tree(tmp_path, {"acp_mux/core/a.py": "from acp_mux.core import b\n", "acp_mux/core/b.py": breaker})
    graph = tree_graph(tmp_path)
    assert cycle_violations(graph, tmp_path) == []  # the load-only view sees none
    messages = [v.message(tmp_path) for v in cycle_violations(graph, tmp_path, EVERY_KIND)]
    assert len(messages) == 1, messages
    assert "acp_mux.core.a → acp_mux.core.b → acp_mux.core.a" in messages[0]
    assert "acp_mux/core/a.py:1" in messages[0] and "acp_mux/core/b.py:" in messages[0]


def test_a_module_named_by_a_registry_row_makes_no_cycle(tmp_path: Path) -> None:
    """A ``"module:Class"`` string is data (the registry's rows name the adapters that read them): counted for the
    rooms, not for cycles."""
    make_tree(
        tmp_path,
        {"adapters/a.py": "ROW = 'acp_mux.adapters.b:B'\n", "adapters/b.py": "from acp_mux.adapters.a import ROW\n"},
    )
    graph = tree_graph(tmp_path)
    assert cycle_violations(graph, tmp_path, EVERY_KIND) == []
    assert [c for c, _ in cycles(graph, EVERY_KIND, counts=lambda imp: True)] == [
        ["acp_mux.adapters.a", "acp_mux.adapters.b"]
    ]


# ---- properties: an attacker's imports, and the cycle finder against brute force ---------------------------------

FORMS = {  # how module ``src`` can name module ``{mod}`` (absolute) — each must be seen
    "import": "import {mod}\n",
    "from": "from {pkg} import {leaf}\n",
    "from-attr": "from {mod} import x\n",
    "relative": "from {rel} import {leaf}\n",
    "function": "def f():\n    import {mod}\n",
    "type": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from {mod} import x\n",
    "import_module": "import importlib as il\ndef f():\n    return il.import_module({mod!r})\n",
    "__import__": "m = __import__({mod!r}, fromlist=['x'])\n",
    "lazy": "from acp_mux.core.lazy_helper import lazy_module\nm = lazy_module({mod!r})\n",
    "entry": "U = '{mod}:Thing'\n",
    "from-top": "from acp_mux import {room_leaf}\n",
}


def relative_name(src_pkg: str, target: str) -> str:
    """``from <this> import leaf`` written relative to ``src_pkg``: dots up to the common ``acp_mux``, then down."""
    down = target.split(".")[1:-1]
    return "." * len(src_pkg.split(".")) + ".".join(down)


@settings(max_examples=150, deadline=None)
@given(
    src=st.sampled_from(sorted(ROOM_PACKAGE)),
    dst=st.sampled_from(sorted(ROOM_PACKAGE)),
    leaf=st.sampled_from(["a", "b"]),
    form=st.sampled_from(sorted(FORMS)),
)
def test_every_form_of_import_between_any_two_rooms_is_judged_by_the_rules(
    src: str, dst: str, leaf: str, form: str
) -> None:
    src_pkg, src_folder = ROOM_PACKAGE[src]
    dst_pkg, _ = ROOM_PACKAGE[dst]
    mod = f"{dst_pkg}.{leaf}"
    source = FORMS[form].format(
        mod=mod, pkg=dst_pkg, leaf=leaf, rel=relative_name(src_pkg, mod), room_leaf=dst_pkg.split(".")[-1]
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, {f"{src_folder}/b.py": source} if src != dst or leaf != "b" else {f"{src_folder}/a.py": source})
        graph = tree_graph(root)
        assert problems_as_violations(graph, root) == []
        src_module = f"{src_pkg}.{'a' if src == dst and leaf == 'b' else 'b'}"
        targets = {t for imp in graph.imports if imp.source == src_module for t in graph.targets(imp)}
        expected = dst_pkg if form == "from-top" else mod
        assert expected in targets, (source, targets)  # the import is seen, whatever its form
        # only the violations about the target (the lazy form also imports core's helper, judged on its own)
        messages = [v.message(root) for v in room_violations(graph, ROOMS, root) if v.key[1] == expected]
        forbidden = src != dst and dst not in ROOMS.allowed[src]
        assert bool(messages) == forbidden, (source, messages)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 7), st.sets(st.integers(0, 7), max_size=4), max_size=8))
def test_the_cycle_finder_agrees_with_brute_force_reachability(edges: dict[int, set[int]]) -> None:
    named = {f"m{k}": {f"m{t}" for t in v} for k, v in edges.items()}
    nodes = set(named) | {t for v in named.values() for t in v}

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in named.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {n: reach(n) for n in nodes}
    expected = {frozenset(m for m in nodes if m in reachable[n] and n in reachable[m]) | {n} for n in nodes}
    expected = {c for c in expected if len(c) > 1 or next(iter(c)) in named.get(next(iter(c)), ())}
    assert {frozenset(c) for c in strongly_connected(named)} == expected


# ---- property: the graph's load-time edges are what Python itself loads ------------------------------------------

PY_MODULES = ["a", "p", "p.b", "p.q", "p.q.c", "r", "r.d"]  # under a fresh root package per example
_roots = itertools.count()


def written_import(source: str, source_is_package: bool, target: str, form: str) -> str:
    """A module-level import of ``target`` written in ``form``, from module ``source`` (both absolute)."""
    *parent, leaf = target.split(".")
    if form == "import" or not parent:
        return f"import {target}\n"
    if form == "from":
        return f"from {'.'.join(parent)} import {leaf}\n"
    if form == "import_module":
        return f"import importlib\nimportlib.import_module({target!r})\n"
    package = source.split(".") if source_is_package else source.split(".")[:-1]
    common = next((i for i, (x, y) in enumerate(zip(package, parent)) if x != y), min(len(package), len(parent)))
    return f"from {'.' * (len(package) - common + 1)}{'.'.join(parent[common:])} import {leaf}\n"


NOT_AT_LOAD = [  # imports that must not run while the module loads, and must not count as load edges
    "def later():\n    import {target}\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import {target}\n",
    "NAME = {target!r}\n",
]


@settings(max_examples=60, deadline=None)
@given(
    edges=st.lists(
        st.tuples(
            st.sampled_from(PY_MODULES),
            st.sampled_from(PY_MODULES),
            st.sampled_from(["import", "from", "relative", "import_module", "later"]),
        ),
        max_size=10,
    ),
    start=st.sampled_from(PY_MODULES),
)
def test_load_edges_are_exactly_what_python_loads(edges: list[tuple[str, str, str]], start: str) -> None:
    """Import a random tree for real and compare: the modules Python loaded are the graph's load-time closure.

    An import the checker misreads (a relative level off by one, a package taken for its submodule) loads a
    different module than the graph says, and this fails."""
    root_name = f"h8rooms{next(_roots)}"
    packages = {m for m in PY_MODULES if any(o.startswith(m + ".") for o in PY_MODULES)}
    sources: dict[str, str] = dict.fromkeys(PY_MODULES, "")
    for source, target, form in edges:
        if source == target:
            continue
        src, tgt = f"{root_name}.{source}", f"{root_name}.{target}"
        if form == "later":
            sources[source] += NOT_AT_LOAD[len(sources[source]) % 3].format(target=tgt)
        else:
            sources[source] += written_import(src, source in packages, tgt, form)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / root_name
        files = {base / "__init__.py": ""} | {
            base / (m.replace(".", "/") + ("/__init__.py" if m in packages else ".py")): s for m, s in sources.items()
        }
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        graph = read_graph({root_name: base}, root_name)
        assert graph.problems == []
        load: dict[str, set[str]] = {}
        for imp in graph.imports:
            if imp.when == "load":
                load.setdefault(imp.source, set()).update(graph.targets(imp))

        def parents(module: str) -> set[str]:
            parts = module.split(".")
            return {".".join(parts[:i]) for i in range(1, len(parts))}

        expected, todo = set(), [f"{root_name}.{start}"]
        while todo:
            module = todo.pop()
            if module not in expected:
                expected.add(module)
                todo.extend(load.get(module, set()) | parents(module))
        sys.path.insert(0, tmp)
        try:
            importlib.import_module(f"{root_name}.{start}")
            loaded = {m for m in sys.modules if m == root_name or m.startswith(root_name + ".")}
        finally:
            sys.path.remove(tmp)
            for m in [m for m in sys.modules if m == root_name or m.startswith(root_name + ".")]:
                del sys.modules[m]
        assert loaded == expected, (sources, start)


# ---- the adapter families, on synthetic trees ----------------------------------------------------------------------

FAMILY_FOLDERS = {name: "adapters/" + name for name in FAMILIES.packages.values()}
AGENTS = ["codex", "openclaw", "claude", "pi", "acp"]
FAMILY_FORMS = {  # how a module names ``{mod}``, and whether that import runs only later (deferred)
    "load": ("from {mod} import x\n", False),
    "type": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from {mod} import x\n", False),
    "function": ("def f():\n    from {mod} import x\n", True),
    "entry": ("ROW = '{mod}:Thing'\n", True),
}


def family_tree(root: Path, files: dict[str, str]) -> list[str]:
    """A synthetic tree with the three family packages, plus ``files``: the family rule's messages for it."""
    make_tree(root, {f"{folder}/__init__.py": "" for folder in FAMILY_FOLDERS.values()} | files)
    graph = tree_graph(root)
    assert problems_as_violations(graph, root) == []
    return [v.message(root) for v in family_violations(graph, FAMILIES, root)]


@settings(max_examples=120, deadline=None)
@given(
    src=st.sampled_from(sorted(FAMILY_FOLDERS)),
    dst=st.sampled_from(sorted(FAMILY_FOLDERS)),
    src_agent=st.sampled_from(AGENTS),
    dst_agent=st.sampled_from(AGENTS),
    suffix=st.sampled_from(["_exec", "_tools", "_asks", "_2"]),
    form=st.sampled_from(sorted(FAMILY_FORMS)),
)
def test_across_families_only_the_same_agent_passes_in_any_import_form(
    src: str, dst: str, src_agent: str, dst_agent: str, suffix: str, form: str
) -> None:
    """An attacker's import from one family into another: whatever its form, it passes only when both modules
    belong to the same agent (within one family anything goes)."""
    target = f"{dst_agent}{suffix}"  # never the importing module itself (that one has no suffix)
    mod = f"acp_mux.adapters.{dst}.{target}"
    files = {
        f"{FAMILY_FOLDERS[dst]}/{target}.py": "x = 1\n",
        f"{FAMILY_FOLDERS[src]}/{src_agent}.py": FAMILY_FORMS[form][0].format(mod=mod),
    }
    with tempfile.TemporaryDirectory() as tmp:
        messages = family_tree(Path(tmp), files)
    allowed = src == dst or src_agent == dst_agent
    assert (messages == []) == allowed, (src, dst, src_agent, dst_agent, messages)


@pytest.mark.parametrize("form", sorted(FAMILY_FORMS))
def test_a_shared_piece_reaches_a_family_only_through_a_deferred_import(tmp_path: Path, form: str) -> None:
    """base.py loading (or typing against) an agent module would make every adapter load it: only a registry row
    or an import inside a function may name one."""
    source, deferred = FAMILY_FORMS[form]
    files = {
        "adapters/stream_agents/claude.py": "x = 1\n",
        "adapters/base.py": source.format(mod="acp_mux.adapters.stream_agents.claude"),
    }
    messages = family_tree(tmp_path, files)
    assert (messages == []) == deferred, messages
    assert deferred or ("adapters/base.py:" in messages[0] and "registry row" in messages[0])


def test_a_family_importing_another_familys_package_is_reported(tmp_path: Path) -> None:
    """``from acp_mux.adapters.stream_agents import codex_exec`` names the package too: the package belongs to no
    agent, so the import is judged by its module and the package alike."""
    files = {
        "adapters/stream_agents/codex_exec.py": "x = 1\n",
        "adapters/rpc_agents/codex.py": "from acp_mux.adapters import stream_agents\n",
    }
    messages = family_tree(tmp_path, files)
    assert len(messages) == 1 and "not acp_mux.adapters.stream_agents" in messages[0], messages
