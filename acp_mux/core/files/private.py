"""Private files for secrets an agent must read but nobody else may see (an MCP config with tokens).

Why files: a command line is readable by every local user (``/proc/<pid>/cmdline``, ``ps``), so secrets never go
there. An agent that reads its configuration from a file gets one here instead: in a directory only we can enter
(0700), written 0600, removed when the agent ends — by the bridge, or by the agent's supervisor if the bridge was
killed.

Where: ``$XDG_RUNTIME_DIR/acp-mux`` (a per-user tmpfs, emptied at logout) when that folder is ours, else
``<tmp>/acp-mux-<uid>``. Neither is trusted by its name: in a shared temp folder anyone can create that path first
(as a symlink, as their own folder, as a folder everyone may write). A fixed folder is used only when
:func:`is_private_dir` says it is a real directory (not a symlink) owned by us that nobody else can enter; anything
else there is left alone and a fresh folder is made with ``mkdtemp`` instead, so a planted folder neither blocks
the agents nor sees their secrets. :func:`ensure_private_dir` is the one check for every such folder.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import stat
import tempfile
import threading

log = logging.getLogger(__name__)

_lock = threading.Lock()
_dir: str | None = None


def is_private_dir(path: str) -> bool:
    """Whether ``path`` itself (not a symlink's target) is a directory owned by this user with no access for
    group or others."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not stat.S_IMODE(info.st_mode) & 0o077


def ensure_private_dir(path: str) -> bool:
    """Create ``path`` 0700 (its parent must exist), or accept what is there only if :func:`is_private_dir`.
    False, with a warning, when something else holds the name: the caller must not use it (nor change it)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        log.warning("not using %s for private files: %s", path, exc)
        return False
    if is_private_dir(path):
        return True
    log.warning("not using %s for private files: it is not a folder of this user that only this user can enter", path)
    return False


def fixed_bases() -> list[str]:
    """The fixed folders tried in order: the runtime dir's (only when that folder is ours), then the temp dir's."""
    bases = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and is_private_dir(runtime):
        bases.append(os.path.join(runtime, "acp-mux"))
    bases.append(os.path.join(tempfile.gettempdir(), f"acp-mux-{os.getuid()}"))
    return bases


def shared_private_dir(name: str) -> str | None:
    """``name`` in the first fixed folder that is ours (kept across bridges: an agent's TMPDIR, where node keeps its
    compile cache warm), created 0700, or None when no fixed folder is ours. Why: node agents otherwise share
    ``/tmp/node-compile-cache`` with every user of the machine, which another user can take first."""
    for base in fixed_bases():
        path = os.path.join(base, name)
        if ensure_private_dir(base) and ensure_private_dir(path):
            return path
    return None


def private_dir() -> str:
    """This bridge's own private directory (created on first use, removed at exit): a fresh ``run-*`` folder in
    the first fixed folder that is ours, or a fresh ``mkdtemp`` folder when none is."""
    global _dir
    with _lock:
        if _dir is None:
            for base in fixed_bases():
                if ensure_private_dir(base):
                    try:
                        _dir = tempfile.mkdtemp(prefix="run-", dir=base)  # 0700
                        break
                    except OSError as exc:  # ours but unusable (no write bit for us): the next, or a fresh one
                        log.warning("not using %s for private files: %s", base, exc)
            if _dir is None:
                _dir = tempfile.mkdtemp(prefix=f"acp-mux-{os.getuid()}-")  # 0700, new, ours
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
