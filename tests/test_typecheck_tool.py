"""tools/typecheck.py: mypy must see adapters/ and translation/ as acp_mux.adapters / acp_mux.translation, and every
error it reports must name the real file (a wrong mapping would send a person to a file that does not exist, or hide
errors by filtering them under the wrong folder)."""

from __future__ import annotations

import os
import textwrap
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tools import typecheck

ROOT = Path(__file__).resolve().parents[1]

segment = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=8)
subpackage = st.lists(segment, min_size=1, max_size=3).map(lambda parts: ".".join(["acp_mux", *parts]))
folder = st.lists(segment, min_size=1, max_size=3).map(lambda parts: "/".join(parts))
mapping = st.dictionaries(subpackage, folder, max_size=4)
rest = st.lists(segment, min_size=1, max_size=4).map(lambda parts: "/".join(parts) + ".py")


def test_every_file_of_the_package_is_in_the_view_and_maps_back_to_itself() -> None:
    """Walk the committed view (not rebuilt here: plain `mypy` reads it as the clone has it): each .py under
    tools/typecheck_view/acp_mux is a link to the very file real_path names, and every file of the package is in it."""
    dirs = typecheck.package_dirs(ROOT / "pyproject.toml")
    assert dirs == {"acp_mux.adapters": "adapters", "acp_mux.translation": "translation"}
    view = ROOT / typecheck.VIEW
    links = typecheck.view_links(ROOT, dirs)
    stale = sorted(p.name for p in (view / "acp_mux").iterdir() if Path("acp_mux", p.name) not in links)
    assert stale == [], "links to nothing of the package: remove them (python tools/typecheck.py does)"
    for inside, target in links.items():
        assert (view / inside).is_symlink(), f"{inside}: run python tools/typecheck.py and `git add typecheck`"
        assert (view / inside).resolve() == target.resolve(), inside
    seen: set[Path] = set()
    for dirpath, _dirs, files in os.walk(view / "acp_mux", followlinks=True):
        for name in files:
            if not name.endswith(".py"):
                continue
            inside = (Path(dirpath) / name).relative_to(view).as_posix()
            real = ROOT / typecheck.real_path(inside, dirs)
            assert real.is_file(), inside
            assert (view / inside).resolve() == real.resolve(), inside
            seen.add(real.resolve())
    sources = {p.resolve() for top in ("acp_mux", "adapters", "translation") for p in (ROOT / top).rglob("*.py")}
    assert sources == seen, "files the view misses: " + ", ".join(sorted(map(str, sources - seen)))


def test_plain_mypy_reads_the_whole_package_through_the_view() -> None:
    """What a contributor types first, `mypy` with no arguments, checks the whole package as it installs: its
    config names the package and finds it through the view, never the bare folders (where adapters/ is a stray)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["mypy_path"] == typecheck.VIEW
    assert config["packages"] == [typecheck.PACKAGE]
    assert "files" not in config and "modules" not in config
    assert ".venv/bin/mypy\n" in (ROOT / ".ci" / "run").read_text()  # CI runs the very same command


@given(mapping, rest)
def test_a_path_under_a_mapped_package_lands_in_its_folder(dirs: dict[str, str], tail: str) -> None:
    """The deepest mapped package wins; a path under none of them is left as it was."""
    for name, target in dirs.items():
        reported = "/".join(name.split(".")) + "/" + tail
        deeper = [n for n in dirs if n.startswith(name + ".") and reported.startswith(n.replace(".", "/") + "/")]
        if deeper:
            continue
        assert typecheck.real_path(reported, dirs) == f"{target}/{tail}"
    plain = "acp_mux/" + tail
    if not any(plain.startswith(n.replace(".", "/") + "/") for n in dirs):
        assert typecheck.real_path(plain, dirs) == plain


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n\r"), max_size=40), max_size=8))
def test_lines_that_name_no_python_file_pass_through_untouched_and_count_as_nothing(raw: list[str]) -> None:
    """Summary lines, mypy's crash text, anything without `file.py:N:` is printed as it came and is never an error."""
    lines = [line for line in raw if typecheck.REPORT_LINE.match(line) is None]
    mapped = typecheck.map_report(lines, {"acp_mux.adapters": "adapters"})
    assert [m.text for m in mapped] == lines
    assert not any(m.is_error or m.path for m in mapped)


def test_errors_and_notes_are_told_apart_and_mapped() -> None:
    """Only `error:` lines count; notes keep their (mapped) path so that filtering by folder keeps them together."""
    out = typecheck.map_report(
        [
            "acp_mux/adapters/base.py:3: error: Bad  [assignment]",
            "acp_mux/adapters/base.py:3: note: See here",
            "acp_mux/core/x.py:7:2: error: Worse  [misc]",
        ],
        {"acp_mux.adapters": "adapters"},
    )
    assert [(m.path, m.is_error) for m in out] == [
        ("adapters/base.py", True),
        ("adapters/base.py", False),
        ("acp_mux/core/x.py", True),
    ]
    assert out[0].text == "adapters/base.py:3: error: Bad  [assignment]"


@given(st.lists(segment, min_size=1, max_size=4), st.lists(st.lists(segment, min_size=1, max_size=4), max_size=3))
def test_a_filter_keeps_exactly_the_paths_inside_it(path: list[str], wanted: list[list[str]]) -> None:
    """`adapters/rpc` must not match `adapters/rpc_agents/pi.py`: whole path components, never string prefixes."""
    expected = not wanted or any(path[: len(w)] == w for w in wanted)
    assert typecheck.under("/".join(path), ["/".join(w) for w in wanted]) is expected


@given(st.dictionaries(rest, st.integers(0, 50), max_size=5), st.dictionaries(rest, st.integers(0, 50), max_size=5))
def test_the_baseline_lets_no_file_grow(counts: dict[str, int], allowed: dict[str, int]) -> None:
    """A file over its allowance, or missing from the baseline with any error, is named; nothing else is."""
    named = {line.split(":", 1)[0] for line in typecheck.over_baseline(counts, allowed)}
    assert named == {name for name, n in counts.items() if n > allowed.get(name, 0)}


def test_the_baseline_file_round_trips(tmp_path: Path) -> None:
    """What --write-baseline writes, --baseline reads back as the same counts (comments ignored)."""
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("# comment\n3 adapters/base.py\n1 acp_mux/cli/main.py  # shrinking\n")
    assert typecheck.read_baseline(baseline) == {"adapters/base.py": 3, "acp_mux/cli/main.py": 1}


def write(path: Path, text: str) -> None:
    """Create ``path`` (and its folders) with dedented ``text``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A miniature of the project's layout: acp_mux/ plus a top-level adapters/ installed as acp_mux.adapters."""
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.setuptools.package-dir]
        "acp_mux.adapters" = "adapters"
        [tool.mypy]
        strict = true
        """,
    )
    write(tmp_path / "acp_mux" / "__init__.py", "")
    write(tmp_path / "acp_mux" / "core.py", "from acp_mux.adapters.base import count\n\nlabel: str = count\n")
    write(tmp_path / "adapters" / "__init__.py", "")
    write(tmp_path / "adapters" / "base.py", "count: int = 3\n\n\ndef untyped(x):\n    return x\n")
    return tmp_path


def test_mypy_follows_the_mapped_folder_and_reports_real_paths(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The import through acp_mux.adapters is resolved (so `str = int` is caught), the mapped folder is checked
    strictly, and both errors name the files as they are in the repository."""
    assert typecheck.main([], root=project) == 1
    out = capsys.readouterr().out
    assert 'acp_mux/core.py:3: error: Incompatible types in assignment (expression has type "int"' in out
    assert "adapters/base.py:4: error: Function is missing a type annotation" in out
    assert "acp_mux/adapters" not in out
    assert "typecheck: 2 errors in 2 files" in out


def test_a_filter_and_a_baseline_decide_the_exit_status(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Filtered to a folder, only its errors show and count; a baseline that allows them passes, one less fails."""
    assert typecheck.main([str(project / "adapters")], root=project) == 1
    out = capsys.readouterr().out
    assert "acp_mux/core.py" not in out and "typecheck: 1 errors in 1 files" in out
    baseline = project / "baseline.txt"
    assert typecheck.main(["--write-baseline", str(baseline)], root=project) == 0
    assert typecheck.main(["--baseline", str(baseline)], root=project) == 0
    baseline.write_text("1 acp_mux/core.py\n")
    assert typecheck.main(["--baseline", str(baseline)], root=project) == 1
    assert "adapters/base.py: 1 errors, baseline allows 0" in capsys.readouterr().err
