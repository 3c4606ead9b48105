"""tools/move_rooms.py rewrites references to moved modules in one pass: nothing twice, imports reshaped where a
module's new home is another package, relative imports made absolute, and nothing else touched.

(This file names the old modules on purpose; the script leaves it, and itself, unrewritten.)
"""

from __future__ import annotations

import textwrap

from tools import move_rooms

MOVES = [
    ("acp_mux/core/run.py", "acp_mux/core/run/handle.py"),
    ("acp_mux/core/events.py", "acp_mux/core/events/union.py"),
    ("acp_mux/core/pgroup.py", "acp_mux/core/process/pgroup.py"),
    ("acp_mux/core/process.py", "acp_mux/core/process/spawn.py"),
    ("adapters/acp_agents/openclaw.py", "adapters/acp_agents/openclaw/adapter.py"),
]
SYMBOLS = {"acp_mux.adapters.registry.get_adapter": "acp_mux.adapters.base.get_adapter"}


def rewrite(path: str, source: str) -> str:
    modules, paths, _ = move_rooms.renames(MOVES)
    renamer = move_rooms.Renamer(modules, paths, SYMBOLS)
    return move_rooms.rewrite(path, textwrap.dedent(source), renamer, SYMBOLS)


def test_a_package_taking_the_name_of_its_module_is_rewritten_once() -> None:
    out = rewrite(
        "acp_mux/api/x.py",
        """\
        from acp_mux.core.run import RunHandle
        import acp_mux.core.run
        patch("acp_mux.core.run.spawn")
        ev = lazy_module("acp_mux.core.events")
        ROW = "acp_mux.adapters.acp_agents.openclaw:OpenclawAdapter"
        keep = "acp_mux.core.run_states"
        """,
    )
    assert out == textwrap.dedent(
        """\
        from acp_mux.core.run.handle import RunHandle
        import acp_mux.core.run.handle
        patch("acp_mux.core.run.handle.spawn")
        ev = lazy_module("acp_mux.core.events.union")
        ROW = "acp_mux.adapters.acp_agents.openclaw.adapter:OpenclawAdapter"
        keep = "acp_mux.core.run_states"
        """
    )
    assert rewrite("acp_mux/api/x.py", "from acp_mux.core.run.handle import RunHandle\n") == (
        "from acp_mux.core.run.handle.handle import RunHandle\n"
    )  # why the script rewrites only the moves it made in this run: a second pass would do this


def test_modules_imported_from_their_package_are_split_by_their_new_package() -> None:
    out = rewrite(
        "acp_mux/api/x.py",
        """\
        from acp_mux.core import events as ev, ids, pgroup, run
        if True:
            from acp_mux.adapters.registry import ENTRIES, get_adapter  # noqa: E402
        """,
    )
    assert out == textwrap.dedent(
        """\
        from acp_mux.core.events import union as ev
        from acp_mux.core import ids
        from acp_mux.core.process import pgroup
        from acp_mux.core.run import handle as run
        if True:
            from acp_mux.adapters.registry import ENTRIES
            from acp_mux.adapters.base import get_adapter  # noqa: E402
        """
    )


def test_relative_imports_of_a_moved_module_become_absolute() -> None:
    out = rewrite("acp_mux/core/process.py", "from . import pgroup\nfrom .ids import new_ulid\nx = 1\n")
    assert out == "from acp_mux.core.process import pgroup\nfrom acp_mux.core.ids import new_ulid\nx = 1\n"
    # a file that stays, importing nothing that moved, keeps its relative imports
    assert rewrite("acp_mux/core/ids.py", "from .settings import x\n") == "from .settings import x\n"


def test_paths_in_docs_full_and_short_but_not_inside_other_paths() -> None:
    out = rewrite(
        "docs/x.md",
        "`acp_mux/core/run.py`, `core/run.py`, `adapters/acp_agents/openclaw.py`, tests/core/run.py, core/run.pyc\n",
    )
    assert out == (
        "`acp_mux/core/run/handle.py`, `core/run/handle.py`, `adapters/acp_agents/openclaw/adapter.py`, "
        "tests/core/run.py, core/run.pyc\n"
    )


def test_every_move_has_a_distinct_target_and_every_new_folder_a_docstring() -> None:
    targets = [new for _, new in move_rooms.MOVES]
    assert len(targets) == len(set(targets))
    folders = {str(__import__("pathlib").Path(new).parent) for new in targets if new.endswith(".py")}
    assert sorted(f for f in folders if f not in move_rooms.NEW_PACKAGES and not f.endswith(("/core", "/server"))) == []


def test_an_import_written_in_a_string_of_code_follows_too() -> None:
    out = rewrite(
        "tests/x.py",
        'code = (\n    "from acp_mux.core import events as ev\\n"\n    "from acp_mux.core import ids, run\\n"\n)\n',
    )
    assert out == (
        'code = (\n    "from acp_mux.core.events import union as ev\\n"\n'
        '    "from acp_mux.core import ids; from acp_mux.core.run import handle as run\\n"\n)\n'
    )


def test_each_fix_follows_a_move_of_the_table() -> None:
    """A fix is applied only in the run that makes its move; one naming no move would never be applied."""
    sources = {old for old, _ in move_rooms.MOVES}
    assert all(len(fix) == 4 and fix[0] in sources for fix in move_rooms.FIXES)
