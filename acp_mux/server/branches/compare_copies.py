"""Private copies of the person's folder, one per candidate of a comparison, and the way back from one of them.

Why copies: when several agents work on the same task side by side, each must edit a tree of its own, and nothing
may reach the person's folder until the person has picked one candidate. So every candidate gets a copy of the
session's folder as it is now — the current commit plus the person's uncommitted changes (tracked, and untracked
files that are not ignored) — in acp-mux's private state folder, and the chosen candidate's changes come back as
one change, merged three ways against whatever the person did meanwhile.

How: every copy is a git repository of its own, made without writing anything into the person's folder or
repository:

* inside a git work tree, a ``git clone --shared`` of the person's repository (its objects are borrowed through
  ``alternates``: no object, ref, worktree entry or hook is added to the person's repository, and a copy left by a
  crash is one folder to delete), checked out detached at the person's ``HEAD``; the uncommitted changes are
  applied to it from ``git diff --binary HEAD`` and the untracked files copied;
* outside git, the files ``git ls-files --others --exclude-standard`` lists for the folder (so ``.gitignore`` rules
  the folder has still leave things out), read through a throwaway git directory of ours, copied into a fresh
  repository.

Either way the copy then commits its starting state as ``base`` (hooks off), so what the candidate changed is
``git diff base`` in the copy, whatever the candidate itself did to the copy's index or branches. A copy over the
size cap is refused with a message that names the cap. The way back (:func:`apply_changes`) merges file by file
against the copy's ``base``: a file the person did not touch since gets the candidate's version, one both changed
goes through ``git merge-file``, and if any file conflicts nothing at all is written and the conflicting files are
named. Only regular files come back: a symlink or a path leaving the folder is refused, never followed.

The copies of a comparison live in ``<state dir>/compare/<id>/``, with ``owner.json`` naming the acp-mux process
(pid and its start time) that made them; :func:`sweep_orphans` removes the folders whose owner is gone, which is how
the copies of a comparison cut short by a crash or SIGKILL go away the next time acp-mux starts.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

# Bytes of files a copy may hold (tracked plus untracked): over it the comparison is refused, by name.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
MAX_BYTES_VARIABLE = "ACP_MUX_COMPARE_MAX_BYTES"
OWNER_FILE = "owner.json"
BASE_TAG = "acp-mux-base"
# Git run with no user or system configuration that could start programs (hooks, fsmonitor, pagers, credential
# helpers) in the copy, and never asking on a terminal.
_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "acp-mux",
    "GIT_AUTHOR_EMAIL": "acp-mux@localhost",
    "GIT_COMMITTER_NAME": "acp-mux",
    "GIT_COMMITTER_EMAIL": "acp-mux@localhost",
}
_GIT_SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "commit.gpgSign=false")


class CompareError(Exception):
    """A comparison cannot go on here; the message says why, for the person."""


class CopyTooLarge(CompareError):
    """The folder holds more than a copy may (the message names the cap and how to raise it)."""


class ApplyConflict(CompareError):
    """The person's tree changed where the candidate changed it, and the two do not merge; nothing was written."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        super().__init__(
            "your folder changed meanwhile where the chosen agent changed it, and the two do not merge: "
            + ", ".join(self.paths)
            + ". Nothing was written."
        )


@dataclass(frozen=True)
class FileChange:
    """One file the candidate changed, relative to the copy's root: its content at the start and now (None:
    absent), and how many lines it added and removed (None for a binary file)."""

    path: str
    before: bytes | None
    after: bytes | None
    added: int | None
    removed: int | None
    plain: bool = True  # a regular file on both sides (not a symlink or a submodule): only such a file comes back
    executable: bool = False  # the candidate's version has the executable bit


@dataclass(frozen=True)
class Changes:
    """What a candidate did to its copy: the files, and the whole diff as text for the person to read."""

    files: tuple[FileChange, ...]
    diff: str

    @property
    def lines_added(self) -> int:
        return sum(f.added or 0 for f in self.files)

    @property
    def lines_removed(self) -> int:
        return sum(f.removed or 0 for f in self.files)


@dataclass
class Copy:
    """One candidate's copy: ``root`` mirrors the folder the session's repository (or folder) starts at, and
    ``cwd`` is the session's folder inside it (the same relative place as in the person's tree)."""

    root: Path
    cwd: Path
    source_root: Path
    kind: str  # "git" (a shared clone of the person's repository) or "folder" (a copy of a plain folder)
    bytes_copied: int = 0
    files_copied: int = 0


@dataclass
class CompareFolder:
    """The private folder of one comparison, its copies inside. Remove it with :meth:`remove`."""

    path: Path
    copies: dict[str, Copy] = field(default_factory=dict)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


# ── the comparison's folder ──────────────────────────────────────────────────────────────────────────────────
def compare_root(state_dir: Path) -> Path:
    """``<state dir>/compare``, made private (0700) if new."""
    root = state_dir / "compare"
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    root.mkdir(mode=0o700, exist_ok=True)
    return root


def new_compare_folder(state_dir: Path, compare_id: str) -> CompareFolder:
    """A fresh private folder for one comparison, stamped with this process as its owner."""
    if not compare_id or "/" in compare_id or compare_id in (".", ".."):
        raise ValueError(f"not a folder name: {compare_id!r}")
    path = compare_root(state_dir) / compare_id
    path.mkdir(mode=0o700)
    (path / OWNER_FILE).write_text(json.dumps({"pid": os.getpid(), "start": _process_start(os.getpid())}))
    os.chmod(path / OWNER_FILE, 0o600)
    return CompareFolder(path)


def sweep_orphans(state_dir: Path) -> list[Path]:
    """Remove every comparison folder whose owner process is gone (a crash, a SIGKILL); return what was removed.
    A folder whose owner file is missing or unreadable counts as orphaned: only a live owner keeps its copies."""
    root = state_dir / "compare"
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if entry.is_symlink() or not entry.is_dir():
            continue
        if _owner_alive(entry / OWNER_FILE):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
        log.info("removed the copies of an ended comparison: %s", entry)
    return removed


def _owner_alive(owner_file: Path) -> bool:
    try:
        owner = json.loads(owner_file.read_text())
        pid, start = int(owner["pid"]), owner["start"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return pid > 0 and _process_start(pid) == start and start is not None


def _process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), so a reused pid is not
    mistaken for the owner; None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself hold spaces or parentheses
    return stat.rsplit(")", 1)[1].split()[19]


# ── making a copy ────────────────────────────────────────────────────────────────────────────────────────────
def max_bytes(env: dict[str, str] | None = None) -> int:
    """The size cap: ``ACP_MUX_COMPARE_MAX_BYTES`` when it is a positive whole number, else the default."""
    raw = (os.environ if env is None else env).get(MAX_BYTES_VARIABLE, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_BYTES


def make_copy(source: Path, dest: Path, *, cap: int = DEFAULT_MAX_BYTES) -> Copy:
    """Copy the session's folder ``source`` to the new folder ``dest`` (which must not exist) and commit its
    starting state. Raises :class:`CopyTooLarge` over ``cap`` bytes, :class:`CompareError` when git is missing
    or the folder cannot be read; ``dest`` is removed on any failure."""
    if shutil.which("git") is None:
        raise CompareError("comparing agents needs git (it keeps each candidate's copy and diff); install git")
    source = source.resolve()
    if not source.is_dir():
        raise CompareError(f"{source} is not a folder")
    top = _git_top(source)
    try:
        made = _clone_repository(top, source, dest, cap) if top else _copy_folder(source, dest, cap)
        _git(dest, "add", "-A")
        _git(dest, "commit", "-q", "--allow-empty", "--no-verify", "-m", "acp-mux: the folder as the comparison began")
        _git(dest, "tag", "-f", BASE_TAG)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return made


def _git_top(folder: Path) -> Path | None:
    """The work tree top of the repository ``folder`` is in, when it has a commit; None otherwise (no git
    repository, or one without a commit yet: both copied as a plain folder)."""
    top = _git_out(folder, "rev-parse", "--show-toplevel", check=False)
    if not top:
        return None
    if not _git_out(folder, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False):
        return None
    return Path(top.decode().strip()).resolve()


def _clone_repository(top: Path, source: Path, dest: Path, cap: int) -> Copy:
    head = _git_out(top, "rev-parse", "HEAD^{commit}").decode().strip()
    tracked = _tracked_size(top)
    untracked = _listed_files(top, ("ls-files", "-z", "--others", "--exclude-standard"), top)
    size = tracked + sum(_size(top / p) for p in untracked)
    _check_cap(size, cap, top)
    subprocess.run(
        ["git", *_GIT_SAFE, "clone", "-q", "--shared", "--no-checkout", str(top), str(dest)],
        check=True,
        capture_output=True,
        env=_git_env(),
        stdin=subprocess.DEVNULL,
    )
    _git(dest, "checkout", "-q", "--detach", head)
    patch = _git_out(top, "diff", "--binary", "HEAD")
    if patch.strip():
        _git(dest, "apply", "--binary", "--whitespace=nowarn", "-", input=patch)
    copied = _copy_listed(top, dest, untracked)
    return Copy(dest, dest / source.relative_to(top), top, "git", size, copied)


def _copy_folder(source: Path, dest: Path, cap: int) -> Copy:
    with tempfile.TemporaryDirectory(prefix="acp-mux-list-") as scratch:
        git_dir = Path(scratch) / "git"
        subprocess.run(
            ["git", "init", "-q", "--bare", str(git_dir)],
            check=True,
            capture_output=True,
            env=_git_env(),
            stdin=subprocess.DEVNULL,
        )
        # the person's folder is read as the work tree of a git directory of ours: nothing is written into it
        listed = _listed_files(
            source,
            (f"--git-dir={git_dir}", f"--work-tree={source}", "ls-files", "-z", "--others", "--exclude-standard"),
            source,
        )
    size = sum(_size(source / p) for p in listed)
    _check_cap(size, cap, source)
    dest.mkdir(mode=0o700, parents=True)
    subprocess.run(
        ["git", "init", "-q", str(dest)], check=True, capture_output=True, env=_git_env(), stdin=subprocess.DEVNULL
    )
    copied = _copy_listed(source, dest, listed)
    return Copy(dest, dest, source, "folder", size, copied)


def _check_cap(size: int, cap: int, folder: Path) -> None:
    if size > cap:
        raise CopyTooLarge(
            f"{folder} holds {_mib(size)} of files that are not ignored, more than a comparison copies "
            f"({_mib(cap)}, {MAX_BYTES_VARIABLE}); each agent would get a copy of it. Ignore what need not be "
            f"copied in .gitignore, or raise {MAX_BYTES_VARIABLE}."
        )


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _tracked_size(top: Path) -> int:
    """Bytes of the tracked files at HEAD (from git's own tree listing: no file is read)."""
    total = 0
    for line in _git_out(top, "ls-tree", "-r", "-l", "-z", "HEAD").split(b"\0"):
        fields = line.split(None, 4)
        if len(fields) == 5 and fields[3].isdigit():
            total += int(fields[3])
    return total


def _listed_files(cwd: Path, args: Sequence[str], root: Path) -> list[str]:
    out = _git_out(cwd, *args)
    return [p for p in out.decode(errors="surrogateescape").split("\0") if p]


def _size(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0


def _copy_listed(source: Path, dest: Path, paths: Iterable[str]) -> int:
    """Copy regular files and symlinks (as links, not followed) listed relative to ``source``; anything else
    (a FIFO, a socket, a device) is left out."""
    count = 0
    for rel in paths:
        src, dst = source / rel, dest / rel
        if not _inside(dst, dest):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        elif src.is_file():
            shutil.copy2(src, dst, follow_symlinks=False)
        else:
            continue
        count += 1
    return count


# ── what a candidate changed ─────────────────────────────────────────────────────────────────────────────────
def changes(copy: Copy) -> Changes:
    """Everything the candidate changed in its copy since it began (new, changed and removed files, including
    ones it left untracked), as files and as one diff."""
    _git(copy.root, "add", "-A")
    diff = _git_out(copy.root, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames", BASE_TAG)
    numstat = _git_out(copy.root, "diff", "--cached", "--numstat", "-z", "--no-renames", BASE_TAG)
    modes = _modes(_git_out(copy.root, "diff", "--cached", "--raw", "-z", "--no-renames", BASE_TAG))
    files = []
    for entry in numstat.split(b"\0"):
        if not entry:
            continue
        added, removed, path = entry.decode(errors="surrogateescape").split("\t", 2)
        old_mode, new_mode = modes.get(path, ("100644", "100644"))
        files.append(
            FileChange(
                path,
                _blob(copy.root, f"{BASE_TAG}:{path}"),
                _blob(copy.root, f":{path}"),
                int(added) if added.isdigit() else None,
                int(removed) if removed.isdigit() else None,
                plain=old_mode in _PLAIN_MODES and new_mode in _PLAIN_MODES,
                executable=new_mode == "100755",
            )
        )
    return Changes(tuple(files), diff.decode(errors="replace"))


# git's modes of a regular file (and "absent", on the side where the file does not exist)
_PLAIN_MODES = frozenset({"100644", "100755", "000000"})


def _modes(raw: bytes) -> dict[str, tuple[str, str]]:
    """``git diff --raw -z``: path → (old mode, new mode)."""
    fields = raw.decode(errors="surrogateescape").split("\0")
    found = {}
    for head, path in zip(fields[0::2], fields[1::2]):
        if head.startswith(":"):
            old_mode, new_mode = head[1:].split(" ", 2)[:2]
            found[path] = (old_mode, new_mode)
    return found


def _blob(repo: Path, spec: str) -> bytes | None:
    proc = subprocess.run(
        ["git", *_GIT_SAFE, "cat-file", "blob", spec],
        cwd=repo,
        capture_output=True,
        env=_git_env(),
        stdin=subprocess.DEVNULL,
    )
    return proc.stdout if proc.returncode == 0 else None


# ── the way back ─────────────────────────────────────────────────────────────────────────────────────────────
def apply_changes(found: Changes, target_root: Path) -> list[str]:
    """Bring a candidate's changes into the person's tree at ``target_root`` (the folder the copy's root
    mirrors), merged three ways file by file; return the paths written. If any file conflicts, or a path is not
    a plain file inside the folder, nothing is written: :class:`ApplyConflict` / :class:`CompareError` say which."""
    target_root = target_root.resolve()
    planned: list[tuple[Path, bytes | None, bool]] = []
    conflicts: list[str] = []
    for change in found.files:
        target = target_root / change.path
        if not _inside(target, target_root) or _through_link(target, target_root):
            raise CompareError(f"{change.path} is not a plain path inside {target_root}; nothing was written")
        if not change.plain:
            raise CompareError(f"{change.path}: the agent made a symlink or submodule there; nothing was written")
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise CompareError(f"{change.path} is not a regular file in your folder; nothing was written")
        ours = target.read_bytes() if target.exists() else None
        merged = _merge(ours, change.before, change.after)
        if merged is _CONFLICT:
            conflicts.append(change.path)
        elif merged is not _UNCHANGED:
            assert not isinstance(merged, _Marker)
            planned.append((target, merged, change.executable))
    if conflicts:
        raise ApplyConflict(conflicts)
    written = []
    for target, content, executable in planned:
        if content is None:
            target.unlink(missing_ok=True)
        else:
            _write_keeping_mode(target, content, executable)
        written.append(str(target.relative_to(target_root)))
    return written


class _Marker:
    pass


_CONFLICT, _UNCHANGED = _Marker(), _Marker()


def _merge(ours: bytes | None, base: bytes | None, theirs: bytes | None) -> bytes | None | _Marker:
    """The file's new content (None: remove it), :data:`_UNCHANGED`, or :data:`_CONFLICT`."""
    if ours == theirs:
        return _UNCHANGED
    if ours == base:
        return theirs
    if ours is None or base is None or theirs is None:
        return _CONFLICT  # removed on one side and changed on the other, or added on both sides differently
    with tempfile.TemporaryDirectory(prefix="acp-mux-merge-") as scratch:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(scratch) / name
            path.write_bytes(data)
            names.append(str(path))
        proc = subprocess.run(
            ["git", "merge-file", "-p", *names], capture_output=True, env=_git_env(), stdin=subprocess.DEVNULL
        )
    return proc.stdout if proc.returncode == 0 else _CONFLICT


def _write_keeping_mode(target: Path, content: bytes, executable: bool) -> None:
    """Replace ``target`` in one step (a temp file beside it renamed over it), keeping its permission bits; a new
    file gets the umask's bits, executable where the candidate's is."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".acp-mux-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            os.chmod(tmp, (0o777 if executable else 0o666) & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` would set it for every thread meanwhile)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _inside(path: Path, root: Path) -> bool:
    try:
        return os.path.normpath(path).startswith(os.path.normpath(root) + os.sep)
    except ValueError:
        return False


def _through_link(path: Path, root: Path) -> bool:
    """Whether any folder between ``root`` and ``path`` is a symlink (writing there would leave the folder)."""
    parent = path.parent
    while parent != root and _inside(parent, root):
        if parent.is_symlink():
            return True
        parent = parent.parent
    return False


# ── git ──────────────────────────────────────────────────────────────────────────────────────────────────────
def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_GIT_ENV)
    return env


def _git(repo: Path, *args: str, input: bytes | None = None) -> None:
    _git_out(repo, *args, input=input)


def _git_out(repo: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    proc = subprocess.run(
        ["git", *_GIT_SAFE, *args],
        cwd=repo,
        input=input,
        capture_output=True,
        env=_git_env(),
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    if check and proc.returncode != 0:
        raise CompareError(f"git {args[0]} failed in {repo}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout if proc.returncode == 0 else b""
