"""Type-check the whole import name ``acp_mux`` with mypy, as it installs: adapters/ and translation/ included.

setuptools installs the top-level folders adapters/ and translation/ as ``acp_mux.adapters`` and
``acp_mux.translation`` ([tool.setuptools.package-dir] in pyproject.toml). mypy has no package-dir mapping: given
the folders, it sees ``adapters`` as a package of its own, so ``from acp_mux.adapters import base`` cannot be
followed and half the package goes unchecked. So the repository holds a view of the installed layout made of
symlinks (``tools/typecheck_view/acp_mux/``: every entry of acp_mux/ plus one link per package-dir entry), and [tool.mypy] in
pyproject.toml points plain ``mypy`` at it (``mypy_path = "tools/typecheck_view"``, ``packages = ["acp_mux"]``): ``mypy`` with
no arguments checks the whole package, and is the command CI runs. This tool keeps the view in step with the tree
(a new folder of acp_mux/ gets its link; ``git add tools/typecheck_view`` commits it), runs the same check, and rewrites the
paths mypy reports back to the real files, so an editor or a person can jump to them; plus filters and baselines.

    python tools/typecheck.py                        # every error, exit 1 when there is one
    python tools/typecheck.py adapters/rpc_agents    # the whole package is checked; only errors under these paths
    python tools/typecheck.py --per-file             # error count per file, most first
    python tools/typecheck.py --baseline FILE        # fail only where a file has more errors than FILE allows
    python tools/typecheck.py --write-baseline FILE  # record today's counts per file

The mapping is read from pyproject.toml, so a new package-dir entry is seen without editing this tool.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "acp_mux"
VIEW = "tools/typecheck_view"  # the committed view of the installed layout, which plain `mypy` reads ([tool.mypy] mypy_path)
# mypy's report lines: `path:line: severity: text` (with `--show-column-numbers`, `path:line:col:`); the summary line
# ("Found 3 errors in 2 files") and blank lines match nothing.
REPORT_LINE = re.compile(r"^(?P<path>[^:\n]+\.pyi?):(?P<rest>\d+:.*)$")
ERROR = re.compile(r"^\d+(?::\d+)?: error:")


def package_dirs(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, str]:
    """Sub-package → source folder, from [tool.setuptools.package-dir] (only entries under the import name)."""
    table = tomllib.loads(pyproject.read_text())["tool"]["setuptools"].get("package-dir", {})
    prefix = PACKAGE + "."
    return {name: folder for name, folder in table.items() if name.startswith(prefix)}


def view_links(root: Path, dirs: Mapping[str, str]) -> dict[Path, Path]:
    """Link path inside the view → the real file or folder it points at.

    Every entry of acp_mux/ (caches aside) and every mapped folder, placed where its module name says
    (``acp_mux.adapters`` → ``acp_mux/adapters``)."""
    links: dict[Path, Path] = {}
    for entry in sorted((root / PACKAGE).iterdir()):
        if entry.name != "__pycache__":
            links[Path(PACKAGE) / entry.name] = entry
    for name, folder in dirs.items():
        links[Path(*name.split("."))] = root / folder
    return links


def build_view(view: Path, links: Mapping[Path, Path]) -> None:
    """Make ``view`` hold exactly ``links`` as relative symlinks; idempotent, and safe when two runs race."""
    for inside, target in links.items():
        link = view / inside
        link.parent.mkdir(parents=True, exist_ok=True)
        wanted = os.path.relpath(target, link.parent)
        if link.is_symlink() and os.readlink(link) == wanted:
            continue
        if link.is_symlink():
            link.unlink(missing_ok=True)
        try:
            link.symlink_to(wanted)
        except FileExistsError:  # another run made the same link a moment ago
            pass
    expected = {view / inside for inside in links}
    for stale in (view / PACKAGE).iterdir():
        if stale.is_symlink() and stale not in expected:
            stale.unlink(missing_ok=True)


def real_path(reported: str, dirs: Mapping[str, str]) -> str:
    """A path mypy reports inside the view → the repository path of the same file.

    ``acp_mux/adapters/base.py`` → ``adapters/base.py``; paths under acp_mux/ proper stay as they are. The longest
    mapped prefix wins, so a nested package-dir entry maps before its parent."""
    parts = Path(reported).parts
    for name in sorted(dirs, key=lambda n: n.count("."), reverse=True):
        prefix = tuple(name.split("."))
        if parts[: len(prefix)] == prefix:
            return Path(dirs[name], *parts[len(prefix) :]).as_posix()
    return Path(*parts).as_posix() if parts else reported


@dataclass(frozen=True)
class Line:
    """One line of mypy's report, its path already mapped to the repository (None for lines naming no file)."""

    path: str | None
    text: str
    is_error: bool  # an error, not a note: what the exit status and the counts are about


def map_report(lines: Iterable[str], dirs: Mapping[str, str]) -> list[Line]:
    """mypy's output with each reported path rewritten to the real file."""
    mapped: list[Line] = []
    for raw in lines:
        match = REPORT_LINE.match(raw)
        if match is None:
            mapped.append(Line(None, raw, False))
            continue
        path = real_path(match["path"], dirs)
        mapped.append(Line(path, f"{path}:{match['rest']}", ERROR.match(match["rest"]) is not None))
    return mapped


def under(path: str, wanted: Sequence[str]) -> bool:
    """True when ``path`` is one of ``wanted`` or inside one of them (all relative to the repository root)."""
    if not wanted:
        return True
    parts = Path(path).parts
    return any(parts[: len(Path(w).parts)] == Path(w).parts for w in wanted)


def relative_to_root(arg: str, root: Path) -> str:
    """A path given on the command line (relative to the cwd, or absolute) → relative to the repository root."""
    absolute = Path(arg).resolve()
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(arg).as_posix()


def run_mypy(view: Path, config: Path, extra: Sequence[str], cache: Path) -> tuple[int, list[str]]:
    """mypy over ``-p acp_mux`` in the view with the project's config; its exit status and output lines."""
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(config),
        "--cache-dir",
        str(cache),
        "--no-error-summary",
        "--no-pretty",
        "-p",
        PACKAGE,
        *extra,
    ]
    done = subprocess.run(command, cwd=view, capture_output=True, text=True, check=False)
    return done.returncode, (done.stdout + done.stderr).splitlines()


def read_baseline(path: Path) -> Counter[str]:
    """``count path`` per line (as ``--write-baseline`` writes it); ``#`` starts a comment."""
    counts: Counter[str] = Counter()
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            count, name = line.split(maxsplit=1)
            counts[name] = int(count)
    return counts


def over_baseline(counts: Mapping[str, int], allowed: Mapping[str, int]) -> list[str]:
    """Files with more errors than the baseline allows (a file missing from it allows none)."""
    return [
        f"{name}: {n} errors, baseline allows {allowed.get(name, 0)}"
        for name, n in sorted(counts.items())
        if n > allowed.get(name, 0)
    ]


def main(argv: Sequence[str] | None = None, root: Path = ROOT) -> int:
    """Check, print the mapped report, and exit 1 on errors (or on errors beyond the baseline), 2 if mypy broke.

    ``root`` is the project (its pyproject.toml, acp_mux/ and mapped folders); the view is its typecheck/."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "paths", nargs="*", help="show only errors in these files or folders (the whole package is still checked)"
    )
    parser.add_argument("--per-file", action="store_true", help="print the error count per file instead of the errors")
    parser.add_argument("--baseline", type=Path, help="fail only where a file has more errors than this file allows")
    parser.add_argument("--write-baseline", type=Path, help="write today's per-file counts to this file and exit 0")
    parser.add_argument("--mypy-arg", action="append", default=[], help="pass one more argument to mypy")
    args = parser.parse_args(argv)

    dirs = package_dirs(root / "pyproject.toml")
    view = root / VIEW
    build_view(view, view_links(root, dirs))
    status, output = run_mypy(view, root / "pyproject.toml", args.mypy_arg, root / "build" / "mypy-cache")
    if status not in (0, 1):
        print("\n".join(output), file=sys.stderr)
        return 2
    wanted = [relative_to_root(p, root) for p in args.paths]
    lines = [line for line in map_report(output, dirs) if line.path is None or under(line.path, wanted)]
    counts = Counter(line.path for line in lines if line.is_error and line.path is not None)
    total = sum(counts.values())

    if args.write_baseline is not None:
        body = "".join(f"{n} {name}\n" for name, n in sorted(counts.items()))
        args.write_baseline.write_text(
            "# errors per file that tools/typecheck.py --baseline tolerates; shrink it, never grow it\n" + body
        )
        print(f"{total} errors in {len(counts)} files written to {args.write_baseline}")
        return 0
    if args.per_file:
        for name, n in counts.most_common():
            print(f"{n:4d} {name}")
    else:
        shown = [line.text for line in lines if line.text]
        if shown:
            print("\n".join(shown))
    print(f"typecheck: {total} errors in {len(counts)} files (mypy strict over the whole package {PACKAGE})")
    if args.baseline is not None:
        worse = over_baseline(counts, read_baseline(args.baseline))
        for complaint in worse:
            print(f"typecheck: {complaint}", file=sys.stderr)
        return 1 if worse else 0
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
