"""openclaw's private folders and fixed-name files are never trusted by their position (issue 21, fault class 6).

Everything the private gateway keeps has a fixed name (its sessions must resume after every restart): the state
folders, the lock and lease files, the registration, the token, the config, the gateway's log, the relay's
per-session registrations. Here an attacker (or an accident) plants, at each of those names, a FIFO (a plain
``open`` for writing would block forever), a symlink (a write would land where it points), another user's folder
or file (``os.chown``: the tests run as root) or a folder open to everyone, and the bridge must neither hang, nor
follow, nor use it: it refuses with a readable :class:`GatewayError`, or replaces a file of its own in one step.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.adapters.acp_agents.openclaw import keeper as openclaw_keeper, relay as openclaw_relay
from acp_mux.adapters.acp_agents.openclaw.gateway import Endpoint, Gateway, GatewayError, _private_dir, private_tmp_dir
from acp_mux.adapters.acp_agents.openclaw.registry import LEASE, LOCK, REGISTRY, Registration, open_lock_file
from acp_mux.core.files import own_files
from acp_mux.core.files.own_files import NotOurFile, open_own
from tests.adapters.test_openclaw_asks import RelayUnderTest
from tests.adapters.test_openclaw_shared_gateway import env_for, install_fake, starts

OTHER_UID = 65534  # nobody
needs_root = pytest.mark.skipif(os.getuid() != 0, reason="planting another user's file needs root (os.chown)")


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    """The stand-in for ``openclaw gateway run`` of test_openclaw_shared_gateway (it records each start)."""
    return install_fake(tmp_path)


@pytest.fixture
def no_hang() -> Iterator[None]:
    """Fail (instead of hanging the suite) if anything here blocks for 20 s: a FIFO opened the plain way would."""

    def expired(*_: object) -> None:
        raise TimeoutError("blocked: something waited on a planted file")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def snapshot(path: Path) -> tuple[int, int, int, tuple[str, ...]]:
    """What must not change about a planted thing we refused: its kind and mode, its owner, what is in it."""
    info = os.lstat(path)
    inside = tuple(sorted(os.listdir(path))) if stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode) else ()
    return info.st_mode, info.st_uid, info.st_size if not stat.S_ISDIR(info.st_mode) else 0, inside


# ── a planted thing where a folder should be ───────────────────────────────────────────────────────────────────
def plant_dir(kind: str, path: Path, outside: Path) -> None:
    """Put ``kind`` at ``path``: what someone could have left at a fixed folder name before us."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "symlink":
        outside.mkdir(mode=0o700, exist_ok=True)
        path.symlink_to(outside)
    elif kind == "other user's":
        path.mkdir(mode=0o700)
        os.chown(path, OTHER_UID, OTHER_UID)
    elif kind == "open to all":
        path.mkdir()
        path.chmod(0o777)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "file":
        path.write_text("x")


FOLDER_KINDS = ["symlink", "other user's", "open to all", "fifo", "file"]


@needs_root
@pytest.mark.parametrize("where", ["openclaw", "openclaw/gateway", "openclaw/gateway/logs"])
@pytest.mark.parametrize("kind", FOLDER_KINDS)
async def test_a_gateway_folder_that_is_not_ours_is_refused_readably_and_left_alone(
    tmp_path: Path, fake: Path, where: str, kind: str, no_hang: None
) -> None:
    env = env_for(tmp_path)
    target = tmp_path / "state" / where
    outside = tmp_path / "outside"
    for parent in reversed(target.relative_to(tmp_path / "state").parents[:-1]):
        (tmp_path / "state" / parent).mkdir(mode=0o700, parents=True)  # the folders above are ours and private
    plant_dir(kind, target, outside)
    before = snapshot(target)
    gateway = Gateway(str(fake), env)
    try:
        with pytest.raises(GatewayError) as failure:
            await gateway.ready(timeout=20)
    finally:
        await gateway.stop()
    message = str(failure.value)
    assert str(target) in message and "acp-mux does not keep OpenClaw's gateway state there" in message
    assert snapshot(target) == before  # not chmod-ed, not written into
    assert starts(tmp_path) == []  # no gateway was started on it
    if kind == "symlink":
        assert os.listdir(outside) == []  # nothing written where the link points


@needs_root
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(["missing", "ours", *FOLDER_KINDS]),
    mode=st.integers(0, 0o777),
    uid=st.sampled_from([0, 1, OTHER_UID]),
)
def test_only_a_folder_of_ours_no_one_else_can_enter_is_used(
    tmp_path_factory: pytest.TempPathFactory, kind: str, mode: int, uid: int
) -> None:
    """Property: whatever kind, mode and owner is found at the name, the folder is used only when it is a real
    folder of ours with no access for group or others (or did not exist and is made so); else it is refused and
    left exactly as it was."""
    base = tmp_path_factory.mktemp("planted")
    path = base / "gateway"
    if kind == "ours":
        path.mkdir()
        path.chmod(mode)
        os.chown(path, uid, uid)
    elif kind != "missing":
        plant_dir(kind, path, base / "outside")
    before = snapshot(path) if kind != "missing" else None
    ok = kind == "missing" or (kind == "ours" and uid == os.getuid() and not mode & 0o077)
    if ok:
        assert _private_dir(path) == path
        info = os.lstat(path)
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not stat.S_IMODE(info.st_mode) & 0o077
    else:
        with pytest.raises(GatewayError):
            _private_dir(path)
        assert snapshot(path) == before


# ── a planted thing where a file should be ─────────────────────────────────────────────────────────────────────
def plant_file(kind: str, path: Path, outside: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        outside.write_text("the person's file\n")
        path.symlink_to(outside)
    elif kind == "other user's":
        path.write_text("someone else's\n")
        os.chown(path, OTHER_UID, OTHER_UID)


def ours_and_regular(path: Path) -> bool:
    info = os.lstat(path)
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid()


@needs_root
@pytest.mark.parametrize("name", ["gateway/gateway.token", "gateway/openclaw.json", REGISTRY])
@pytest.mark.parametrize("kind", ["fifo", "symlink", "other user's"])
async def test_a_file_the_bridge_writes_whole_is_replaced_never_followed_or_waited_on(
    tmp_path: Path, fake: Path, name: str, kind: str, no_hang: None
) -> None:
    """The token, the config and the registration are written as a fresh 0600 file renamed over the name."""
    root = tmp_path / "state" / "openclaw"
    root.mkdir(parents=True, mode=0o700)
    (root / "gateway").mkdir(mode=0o700)
    outside = tmp_path / "outside.txt"
    plant_file(kind, root / name, outside)
    gateway = Gateway(str(fake), env_for(tmp_path))
    try:
        await gateway.ready(timeout=20)
        assert ours_and_regular(root / name) and stat.S_IMODE(os.lstat(root / name).st_mode) == 0o600
        if kind == "symlink":
            assert outside.read_text() == "the person's file\n"
    finally:
        await gateway.stop()


@needs_root
@pytest.mark.parametrize("name", [LOCK, LEASE, "gateway/logs/gateway.out"])
@pytest.mark.parametrize("kind", ["fifo", "symlink", "other user's"])
async def test_a_lock_lease_or_log_that_is_not_ours_stops_the_start_readably(
    tmp_path: Path, fake: Path, name: str, kind: str, no_hang: None
) -> None:
    """Files opened in place (locked, appended to by the keeper) must be regular files of ours: anything else
    there is a GatewayError naming it, and no gateway runs (the keeper refuses the log before it starts one)."""
    root = tmp_path / "state" / "openclaw"
    for folder in (root, root / "gateway", root / "gateway" / "logs"):
        folder.mkdir(parents=True, mode=0o700, exist_ok=True)
    outside = tmp_path / "outside.txt"
    plant_file(kind, root / name, outside)
    before = snapshot(root / name)
    gateway = Gateway(str(fake), env_for(tmp_path))
    try:
        with pytest.raises(GatewayError, match=os.path.basename(name)):
            await gateway.ready(timeout=20)
    finally:
        await gateway.stop()
    assert snapshot(root / name) == before
    assert starts(tmp_path) == []
    if kind == "symlink":
        assert outside.read_text() == "the person's file\n"


@needs_root
@pytest.mark.parametrize("kind", ["fifo", "symlink", "other user's"])
def test_the_keeper_reads_the_registration_only_if_it_is_a_file_of_ours(
    tmp_path: Path, kind: str, no_hang: None
) -> None:
    """The keeper removes the registration at its stop only if it names the keeper: read without waiting."""
    openclaw_keeper._OWN_FILES = own_files
    outside = tmp_path / "outside.txt"
    plant_file(kind, tmp_path / REGISTRY, outside)
    naming_us = Registration(os.getpid(), 1, 2, 3, 4).to_json()  # what would make the keeper remove it, if read
    if kind == "symlink":
        outside.write_text(naming_us)
    elif kind == "other user's":
        (tmp_path / REGISTRY).write_text(naming_us)
    before = snapshot(tmp_path / REGISTRY)
    openclaw_keeper._forget_registry(str(tmp_path))  # returns at once, removes nothing it could not read
    assert snapshot(tmp_path / REGISTRY) == before
    (tmp_path / REGISTRY).unlink()
    (tmp_path / REGISTRY).write_text(Registration(os.getpid(), 1, 2, 3, 4).to_json())
    openclaw_keeper._forget_registry(str(tmp_path))
    assert not (tmp_path / REGISTRY).exists()  # its own registration, a plain file of ours: removed


def test_the_log_tail_of_a_fifo_is_nothing_not_a_hang(tmp_path: Path, no_hang: None) -> None:
    gateway = Gateway("openclaw", env_for(tmp_path))
    gateway.log_path.parent.mkdir(parents=True)
    os.mkfifo(gateway.log_path)
    assert gateway._log_tail() == []


# ── the one opener: property test ──────────────────────────────────────────────────────────────────────────────
PLANTS: dict[str, Callable[[Path, Path], None]] = {
    "nothing": lambda p, o: None,
    "ours": lambda p, o: p.write_text("ours\n"),
    "ours, open to all": lambda p, o: (p.write_text("ours\n"), p.chmod(0o666), None)[-1],
    "other user's": lambda p, o: (p.write_text("theirs\n"), os.chown(p, OTHER_UID, OTHER_UID), None)[-1],
    "fifo": lambda p, o: os.mkfifo(p),
    "symlink to ours": lambda p, o: (o.write_text("ours\n"), p.symlink_to(o), None)[-1],
    "dangling symlink": lambda p, o: p.symlink_to(o),
    "folder": lambda p, o: p.mkdir(),
}
FLAGS = {
    "read": os.O_RDONLY,
    "lock": os.O_RDWR | os.O_CREAT,
    "log": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "append": os.O_WRONLY | os.O_APPEND,
}


@needs_root
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plant=st.sampled_from(sorted(PLANTS)), use=st.sampled_from(sorted(FLAGS)))
def test_open_own_opens_only_a_regular_file_of_ours_and_never_blocks(
    tmp_path_factory: pytest.TempPathFactory, plant: str, use: str
) -> None:
    """Property: whatever is planted at the name and however we open it, we get a descriptor of a regular file of
    ours (never through a link), or OSError, at once; and what we refuse is left exactly as it was (``O_TRUNC``
    never empties someone else's file)."""
    base = tmp_path_factory.mktemp("open-own")
    path, outside = base / "name", base / "outside"
    PLANTS[plant](path, outside)
    before = snapshot(path) if os.path.lexists(path) else None
    done = threading.Event()
    result: list[object] = []

    def attempt() -> None:
        try:
            result.append(open_own(path, FLAGS[use]))
        except OSError as exc:
            result.append(exc)
        done.set()

    threading.Thread(target=attempt, daemon=True).start()
    assert done.wait(10), f"open_own blocked on {plant}"
    got = result[0]
    usable = plant in ("ours", "ours, open to all") or (plant == "nothing" and FLAGS[use] & os.O_CREAT)
    if usable:
        assert isinstance(got, int)
        info = os.fstat(got)
        os.close(got)
        assert stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and os.path.samestat(info, os.lstat(path))
    else:
        assert isinstance(got, OSError)
        assert (snapshot(path) if os.path.lexists(path) else None) == before
        if plant == "symlink to ours":
            assert outside.read_text() == "ours\n"
    if plant in ("other user's", "fifo", "folder"):
        assert isinstance(got, NotOurFile) or isinstance(got, IsADirectoryError)


@needs_root
def test_a_lock_file_planted_by_another_user_is_not_locked(tmp_path: Path) -> None:
    (tmp_path / LEASE).write_text("")
    os.chown(tmp_path / LEASE, OTHER_UID, OTHER_UID)
    with pytest.raises(NotOurFile, match="another user"):
        open_lock_file(tmp_path, LEASE)


# ── the relay's asks folder and registrations ──────────────────────────────────────────────────────────────────
@needs_root
@pytest.mark.parametrize("kind", FOLDER_KINDS)
def test_an_asks_folder_that_is_not_ours_is_not_used_nor_changed(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "acp-mux-asks"
    plant_dir(kind, target, tmp_path / "outside")
    before = snapshot(target)
    assert openclaw_relay._private_dir(target) is False
    assert snapshot(target) == before
    assert (
        openclaw_relay._private_dir(tmp_path / "fresh") and stat.S_IMODE(os.lstat(tmp_path / "fresh").st_mode) == 0o700
    )


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_registration_is_replaced_never_written_through_and_a_fifo_is_not_ours(
    tmp_path: Path, kind: str, no_hang: None
) -> None:
    outside = tmp_path / "outside.txt"
    plant_file(kind, tmp_path / "reg", outside)
    assert openclaw_relay._still_ours(tmp_path / "reg", "@acp-mux-ask-x") is False  # read without waiting
    openclaw_relay._write_private(tmp_path / "reg", "@acp-mux-ask-x")
    assert ours_and_regular(tmp_path / "reg") and (tmp_path / "reg").read_text() == "@acp-mux-ask-x"
    assert openclaw_relay._still_ours(tmp_path / "reg", "@acp-mux-ask-x")
    if kind == "symlink":
        assert outside.read_text() == "the person's file\n"


async def test_the_relay_neither_hangs_on_nor_writes_through_a_planted_registration(tmp_path: Path) -> None:
    """A whole relay: a FIFO where its session's registration goes is replaced by the registration (the gate can
    ask); a FIFO put there while it runs does not hold up its exit."""
    relay = RelayUnderTest(tmp_path)
    from acp_mux.adapters.acp_agents.openclaw.asks import registration_path

    registration = registration_path(str(relay.state), "uuid-1")
    registration.parent.mkdir(mode=0o700)
    os.mkfifo(registration)
    await relay.start()
    try:
        assert await relay.open_session() == registration
        for _ in range(200):  # the FIFO counts as "exists" for open_session: wait for the relay's own file
            if ours_and_regular(registration):
                break
            await asyncio.sleep(0.05)
        assert ours_and_regular(registration) and registration.read_text().startswith("@acp-mux-ask-")
        registration.unlink()
        os.mkfifo(registration)
        await relay.stop()  # within 10 s, the FIFO left in place (it is not ours to remove)
        assert stat.S_ISFIFO(os.lstat(registration).st_mode)
    finally:
        if relay.proc is not None and relay.proc.returncode is None:
            relay.proc.kill()


def test_the_gateway_and_openclaw_acp_get_a_private_tmpdir(tmp_path: Path) -> None:
    """node's os.tmpdir() (where OpenClaw keeps its compile cache) is moved into a 0700 folder of ours, for the
    gateway and for ``openclaw acp``; NODE_COMPILE_CACHE is not set (OpenClaw would restart itself)."""
    endpoint = Endpoint("ws://127.0.0.1:1", tmp_path / "t", tmp_path, tmp_path / "c.json", None, tmp_path / "tmp")
    env = endpoint.acp_env({"TMPDIR": "/tmp", "HOME": "/h"})
    assert env["TMPDIR"] == str(tmp_path / "tmp") and "NODE_COMPILE_CACHE" not in env


@needs_root
@pytest.mark.parametrize("kind", ["fine", *FOLDER_KINDS])
def test_openclaws_tmpdir_is_a_private_folder_of_ours_or_the_checked_one_in_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """``openclaw-tmp`` in acp-mux's per-user runtime folder, used only if ours and private; anything else planted
    there is left alone and the state's own ``tmp`` (checked the same way) is used instead."""
    runtime, temp = tmp_path / "run", tmp_path / "tmp"
    runtime.mkdir(mode=0o700)
    temp.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    bases = [runtime / "acp-mux", temp / f"acp-mux-{os.getuid()}"]  # the two per-user folders, tried in order
    for base in bases:
        base.mkdir(mode=0o700)
        if kind != "fine":
            plant_dir(kind, base / "openclaw-tmp", tmp_path / f"outside-{base.name}")
    before = [snapshot(base / "openclaw-tmp") for base in bases] if kind != "fine" else None
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    chosen = private_tmp_dir(state / "tmp")
    if kind == "fine":
        assert chosen == bases[0] / "openclaw-tmp"
    else:  # neither per-user folder has one of ours: the state's own, and what was planted is left as it was
        assert chosen == state / "tmp" and [snapshot(base / "openclaw-tmp") for base in bases] == before
    info = os.lstat(chosen)
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
