"""Private folders are never trusted by their name (issue 21, class 6): whatever another party put at the fixed
path (a symlink, their own folder, a folder everyone may write, a file) is left alone, and the secrets go into a
fresh folder of ours instead, so the agents still start and nothing lands where someone else can read it."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.core.files import private

OTHER_UID = 54321


@pytest.fixture
def temp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp dir of the test's own (never the machine's /tmp: other bridges run there) and a fresh module state."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(private, "_dir", None)
    yield root


def _symlink(path: Path, elsewhere: Path) -> None:
    elsewhere.mkdir()
    path.symlink_to(elsewhere)


def _world_writable(path: Path, elsewhere: Path) -> None:
    path.mkdir()
    os.chmod(path, 0o777)


def _other_users(path: Path, elsewhere: Path) -> None:
    path.mkdir(mode=0o700)
    os.chown(path, OTHER_UID, OTHER_UID)


def _file(path: Path, elsewhere: Path) -> None:
    path.write_text("not a folder\n")


PLANTS: dict[str, Callable[[Path, Path], None]] = {
    "symlink": _symlink,
    "mode_0777": _world_writable,
    "other_uid": _other_users,
    "file": _file,
}


def _snapshot(path: Path) -> tuple[int, int, int, list[str]]:
    info = os.lstat(path)
    listing = sorted(os.listdir(path)) if stat.S_ISDIR(info.st_mode) else []
    return info.st_mode, info.st_uid, info.st_ino, listing


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root (the test machine runs as root)")
@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_folder_at_the_fixed_path_is_never_used(temp_root: Path, tmp_path: Path, plant: str) -> None:
    fixed = temp_root / f"acp-mux-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    PLANTS[plant](fixed, elsewhere)
    before = _snapshot(fixed)
    path = private.private_path("mcp.json")
    written = private.write_private_files(((path, "secret"),))
    real = os.path.realpath(path)
    assert not real.startswith(os.path.realpath(fixed) + os.sep) and not real.startswith(str(elsewhere))
    assert private.is_private_dir(os.path.dirname(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and Path(path).read_text() == "secret"
    assert _snapshot(fixed) == before  # left as it was: not tightened, not written in
    if elsewhere.exists():
        assert list(elsewhere.iterdir()) == []
    private.remove_private_files(written)


def test_our_own_private_fixed_folder_is_used(temp_root: Path) -> None:
    path = private.private_path("x.json")
    fixed = temp_root / f"acp-mux-{os.getuid()}"
    assert Path(path).parent.parent == fixed and private.is_private_dir(str(fixed))


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root")
def test_the_runtime_dir_is_used_only_when_it_is_ours(
    temp_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert private.private_path("a").startswith(str(runtime / "acp-mux") + os.sep)
    monkeypatch.setattr(private, "_dir", None)
    os.chown(runtime, OTHER_UID, OTHER_UID)  # someone else's runtime dir named in our environment
    path = private.private_path("b")
    assert not path.startswith(str(runtime)) and path.startswith(str(temp_root))


def test_is_private_dir_checks_the_link_not_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(real)
    assert private.is_private_dir(str(real)) and not private.is_private_dir(str(tmp_path / "link"))
    os.chmod(real, 0o750)
    assert not private.is_private_dir(str(real))


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mode=st.integers(0, 0o777), other_owner=st.booleans())
def test_a_fixed_folder_is_used_exactly_when_it_is_ours_and_closed(
    temp_root: Path, mode: int, other_owner: bool
) -> None:
    fixed = temp_root / f"acp-mux-{os.getuid()}"
    shutil.rmtree(fixed, ignore_errors=True)
    fixed.mkdir()
    os.chmod(fixed, mode)
    if other_owner:
        os.chown(fixed, OTHER_UID, OTHER_UID)
    private._dir = None
    path = private.private_path("f")
    used = Path(path).parent.parent == fixed
    assert used == (not other_owner and not mode & 0o077)
    assert stat.S_IMODE(os.lstat(fixed).st_mode) == mode  # never changed, used or not
    assert private.is_private_dir(os.path.dirname(path))


def test_a_fixed_folder_of_ours_we_cannot_write_in_falls_back_to_a_fresh_one(
    temp_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_mkdtemp = tempfile.mkdtemp

    def refusing(suffix: str | None = None, prefix: str | None = None, dir: str | None = None) -> str:
        if dir is not None:  # (as root, mode bits do not stop us: simulate a 0500 folder of a normal user)
            raise PermissionError(13, "Permission denied", dir)
        return real_mkdtemp(suffix, prefix, dir)

    monkeypatch.setattr(tempfile, "mkdtemp", refusing)
    path = private.private_path("g")
    assert Path(path).parent.parent == temp_root and Path(path).parent.name.startswith(f"acp-mux-{os.getuid()}-")


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another uid needs root (the test machine runs as root)")
@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_copilots_tmpdir_is_a_folder_of_ours_never_a_planted_one(temp_root: Path, tmp_path: Path, plant: str) -> None:
    """copilot keeps node's compile cache under its TMPDIR: a folder of ours, never one planted at its name (or
    at the fixed folder above it), and the person's own TMPDIR is left alone."""
    from acp_mux.adapters.acp_agents.copilot import CopilotAdapter
    from acp_mux.core.run.contract import RunOptions

    fixed = temp_root / f"acp-mux-{os.getuid()}"
    fixed.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    PLANTS[plant](fixed / "copilot-tmp", elsewhere)
    before = _snapshot(fixed / "copilot-tmp")
    env = CopilotAdapter().build_spawn(RunOptions(agent="copilot", cwd="/p", env={"PATH": "/bin"})).env
    assert env is not None
    assert env.get("TMPDIR") != str(fixed / "copilot-tmp")  # the planted name is never used
    assert private.is_private_dir(env["TMPDIR"])
    assert _snapshot(fixed / "copilot-tmp") == before
    kept = CopilotAdapter().build_spawn(RunOptions(agent="copilot", cwd="/p", env={"TMPDIR": "/mine"})).env
    assert kept is not None and kept["TMPDIR"] == "/mine"


def test_copilots_tmpdir_is_made_private_when_nothing_is_there(temp_root: Path) -> None:
    from acp_mux.adapters.acp_agents.copilot import CopilotAdapter
    from acp_mux.core.run.contract import RunOptions

    env = CopilotAdapter().build_spawn(RunOptions(agent="copilot", cwd="/p", env={"PATH": "/bin"})).env
    assert env is not None and env["TMPDIR"] == str(temp_root / f"acp-mux-{os.getuid()}" / "copilot-tmp")
    assert private.is_private_dir(env["TMPDIR"])
