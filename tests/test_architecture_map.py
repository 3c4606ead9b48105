"""docs/architecture.md's map matches the tree: every file, folder and module it names exists.

The map is how a newcomer walks the house; a path that moved and a map that did not would send them to a room that is
not there. Named in backticks: a path from the repository root (``adapters/base.py``, ``tests/test_rooms.py``), one
under ``acp_mux/`` (``launcher/early_init.py``), or a bare file name in a bullet that opens with its folder
(``- `acp_mux/core/` — `events/union.py` ...``); a dotted module name (``acp_mux.core.events.union.union``) must name a
module or package of ours (a name after it, such as a class, is not checked).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
TICKED = re.compile(r"`([^`\s]+)`")
PATHLIKE = re.compile(r"^[\w.-]+(?:/[\w.-]*)*$")
FILE_SUFFIXES = (".py", ".json", ".md", ".ts", ".mjs", ".sh", ".toml", ".jsonl")
DOTTED = re.compile(r"\bacp_mux(?:\.\w+)+")
PACKAGE_DIRS = {"acp_mux.adapters": ROOT / "adapters", "acp_mux.translation": ROOT / "translation"}


def bullets(text: str) -> list[str]:
    """The doc as blocks: each list item with its continuation lines, each other paragraph line on its own."""
    blocks: list[str] = []
    for line in text.splitlines():
        if line.startswith("- ") or not blocks or not line.startswith("  "):
            blocks.append(line)
        else:
            blocks[-1] += " " + line.strip()
    return blocks


def is_path(name: str) -> bool:
    """A file (by its suffix), a folder (a trailing slash) or a path that starts in a folder of ours; not an ACP
    method such as ``session/new``."""
    first = name.split("/")[0]
    return (
        name.endswith(FILE_SUFFIXES)
        or name.endswith("/")
        or ("/" in name and ((ROOT / first).is_dir() or (ROOT / "acp_mux" / first).is_dir()))
    )


def named_paths(block: str) -> list[tuple[str, Path | None]]:
    """(name as written, the folder the bullet opens with) for each backticked path-like name in the block."""
    names = [n for n in TICKED.findall(block) if PATHLIKE.match(n) and is_path(n)]
    folder = None
    if block.startswith("- ") and names and names[0].endswith("/"):
        folder = ROOT / names[0].split(" ")[0]
    return [(n, folder) for n in names if not n.startswith(("http", "~"))]


def exists(name: str, folder: Path | None) -> bool:
    """Under the root, under acp_mux/, or (a bare name) anywhere in the folder the bullet opens with."""
    if any((base / name).exists() for base in (ROOT, ROOT / "acp_mux")):
        return True
    return folder is not None and ((folder / name).exists() or ("/" not in name and any(folder.rglob(name))))


def module_exists(dotted: str) -> bool:
    """Some prefix of ``dotted`` beyond a room (``acp_mux.x.y``) is a module or package of ours."""
    parts = dotted.split(".")
    for end in range(len(parts), 1, -1):
        name = ".".join(parts[:end])
        base, rest = ROOT, parts[:end]
        for prefix, folder in PACKAGE_DIRS.items():
            if name == prefix or name.startswith(prefix + "."):
                base, rest = folder, parts[2:end]
        path = base.joinpath(*rest)
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return end > 2 or len(parts) == 2
    return False


def test_every_path_the_map_names_exists() -> None:
    text = DOC.read_text()
    missing = [
        name for block in bullets(text) for name, folder in named_paths(block) if not exists(name.rstrip("/"), folder)
    ]
    assert missing == [], f"docs/architecture.md names paths that are not in the tree: {missing}"


def test_every_module_the_map_names_exists() -> None:
    missing = sorted({d for d in DOTTED.findall(DOC.read_text()) if not module_exists(d)})
    assert missing == [], f"docs/architecture.md names modules that are not in the tree: {missing}"


@pytest.mark.parametrize("name", ["acp_mux/core/no_such_room.py", "core/nowhere.py", "adapters/gone.py"])
def test_a_path_that_is_not_there_is_reported(name: str) -> None:
    """The check can fail: a made-up path is not found under any base."""
    assert not exists(name, ROOT / "acp_mux" / "core")


def test_a_module_that_is_not_there_is_reported() -> None:
    assert module_exists("acp_mux.adapters.base.AgentAdapter")
    assert not module_exists("acp_mux.core.no_such_module")
    assert not module_exists("acp_mux.adapters.nothing_here.Thing")
