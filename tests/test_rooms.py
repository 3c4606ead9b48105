"""The rooms import one way: cli → server → adapters / translation → core, and only ``acp_mux`` is installed.

Read from the source with ``ast`` (imports under ``TYPE_CHECKING`` count too: a type-only cycle is still a cycle a
reader has to untangle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOMS = {
    "core": ROOT / "acp_mux" / "core",
    "translation": ROOT / "translation",
    "adapters": ROOT / "adapters",
    "server": ROOT / "acp_mux" / "server",
    "cli": ROOT / "acp_mux" / "cli",
}
# room -> the rooms it may import (besides itself)
ALLOWED = {
    "core": set(),
    "translation": {"core"},
    "adapters": {"core", "translation"},
    "server": {"core", "translation", "adapters"},
    "cli": {"core", "translation", "adapters", "server"},
}


def imported_rooms(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] in ("adapters", "translation"):
                raise AssertionError(f"{path}: imports {name!r}; everything imports under acp_mux")
            if parts[0] == "acp_mux" and len(parts) > 1 and parts[1] in ROOMS:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("room", list(ROOMS))
def test_each_room_imports_only_the_rooms_below_it(room: str) -> None:
    bad = {
        str(path.relative_to(ROOT)): sorted(imported_rooms(path) - ALLOWED[room] - {room})
        for path in ROOMS[room].rglob("*.py")
    }
    assert {k: v for k, v in bad.items() if v} == {}
