"""Private files for secrets an agent must read but nobody else may see (an MCP config with tokens).

Why files: a command line is readable by every local user (``/proc/<pid>/cmdline``, ``ps``), so secrets never go
there. An agent that reads its configuration from a file gets one here instead: in a directory only we can enter
(0700, checked to be ours and not a symlink), written 0600, removed when the agent ends — by the bridge, or by the
agent's supervisor if the bridge was killed. The directory is under ``$XDG_RUNTIME_DIR`` (a per-user tmpfs, emptied
at logout) when there is one, else the system temp dir.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading

_lock = threading.Lock()
_dir: str | None = None


def _base() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, "acp-mux")
    return os.path.join(tempfile.gettempdir(), f"acp-mux-{os.getuid()}")


def _own_private_dir(path: str) -> None:
    """Create ``path`` 0700, or accept it only if it is a real directory of ours that nobody else can enter."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise PermissionError(f"{path} is not a private directory of this user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(path, 0o700)


def private_dir() -> str:
    """This bridge's own private directory (created on first use, removed at exit)."""
    global _dir
    with _lock:
        if _dir is None:
            base = _base()
            _own_private_dir(base)
            _dir = tempfile.mkdtemp(prefix="run-", dir=base)  # 0700
            atexit.register(shutil.rmtree, _dir, True)
        return _dir


def private_path(name: str) -> str:
    """A fresh path in :func:`private_dir` ending in ``name`` (the file is created by :func:`write_private_files`)."""
    fd, path = tempfile.mkstemp(prefix="f-", suffix=f"-{name}", dir=private_dir())  # reserves the name, 0600
    os.close(fd)
    return path


def write_private_files(files: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """Write each (path, text) 0600 without following a symlink; the paths written."""
    written: list[str] = []
    try:
        for path, text in files:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(path, flags, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                os.fchmod(fh.fileno(), 0o600)
                fh.write(text)
            written.append(path)
    except BaseException:
        remove_private_files(tuple(written))
        raise
    return tuple(written)


def remove_private_files(paths: tuple[str, ...]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass
