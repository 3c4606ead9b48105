"""openclaw's private gateway: one per user, shared by every running acp-mux bridge, on loopback, with its own state.

OpenClaw streams, runs tools and asks for exec approvals only through its Gateway; ``openclaw acp --url ws://…`` is
an ACP bridge to a running one, and exits at once ("ECONNREFUSED") when none listens. The person may run their own
gateway (channels, cron, a fixed port): acp-mux never touches it. It runs a private one:

- **shared**: starting a gateway costs half a minute of CPU on two cores, so a second editor window (a second
  bridge process) must not pay it again. The first bridge that needs it starts it; later ones find it through a
  registration file and attach (``registry.py``: an ``flock`` around "find or start", so two bridges
  starting at once end with one gateway; pid *and* start time checked, so a recycled pid is never taken for it).
- **lifetime**: the gateway runs under a detached keeper (``keeper.py``), not under any bridge. Each
  attached bridge holds a shared lease (an ``flock`` the kernel drops however the bridge ends, SIGKILL included);
  the keeper stops the gateway and everything under it ``ACP_MUX_OPENCLAW_GRACE_S`` (default 15) seconds after the
  last lease is gone, within about 2 s more. If the keeper itself is killed, the kernel kills the gateway
  (``PR_SET_PDEATHSIG``), and a bridge that finds a registered gateway without its keeper ends it.
- **ports are not trusted by position** (``loopback_owner.py``): before ``openclaw acp`` is handed the token (which it
  sends to whatever answers on the port), every listener a connection to 127.0.0.1:PORT can reach must be a socket
  of the gateway process or its descendants. A port taken first by another program gets nothing: that gateway is
  stopped and a new one starts on another port; a listener that is not the gateway's at a later turn fails that
  turn with a readable error.
- **state**: ``<acp-mux state dir>/openclaw/gateway/`` (0700). The same folder for every gateway generation, so the
  gateway's sessions (``agent:main:acp-bridge:<uuid>``) resume after every bridge restarted; ``openclaw acp`` keeps
  its ACP ledger there too. Its stdout and stderr go to ``gateway/logs/gateway.out`` (0600), which every attached
  bridge tails for the failures OpenClaw's ACP bridge does not forward.
- **nothing there is trusted by its name**: these folders are fixed, so what is found at each is checked, never
  repaired: a symlink, another user's folder or one open to others is refused with a :class:`GatewayError` that
  names it (:func:`_private_dir`). Files written whole (token, config, registration) are replaced by a fresh 0600
  file; files used in place (lock, lease, the log the keeper writes) are opened only as regular files of ours,
  without following a link or waiting on a FIFO (:mod:`acp_mux.core.files.own_files`).
- **temp files**: the gateway and ``openclaw acp`` run with ``TMPDIR`` in a 0700 folder of ours
  (:func:`private_tmp_dir`), so OpenClaw's compiled-code cache (``os.tmpdir()/node-compile-cache``, else one folder
  for every user of the machine) is ours, and warm for the next gateway (:func:`private_tmp_env`).
- **config**: ``gateway/openclaw.json`` (0600) ``$include``s the person's config (``$OPENCLAW_CONFIG_PATH`` or
  ``~/.openclaw/openclaw.json``: providers, models, agents, tool policy) and overrides only the gateway section:
  local mode, loopback, a free port, token auth, no Tailscale; logs go to its folder, not ``/tmp/openclaw``.
- **token**: 32 random bytes, given to the gateway in its environment (``OPENCLAW_GATEWAY_TOKEN``) and to
  ``openclaw acp`` as ``--token-file gateway/gateway.token`` (0600); never on a command line.
- **what it does not start**: channels (the person's Telegram bot must not answer twice), cron jobs, the Gmail
  watcher, the canvas host, the browser control server (``OPENCLAW_SKIP_*``; ``OPENCLAW_SKIP_STARTUP_MODEL_PREWARM``
  is read by no code of 2026.9.6 and kept for other releases). No Control UI (``gateway.controlUi.enabled: false``):
  nobody opens a private gateway's dashboard, and preparing its assets is a post-ready task of 6-20 s that
  competes for the CPU just while ``openclaw acp`` starts and the first turn runs (about 3.5 of the ~54
  CPU-seconds before the first words). No update check or auto-update (``OPENCLAW_NO_AUTO_UPDATE``): a private
  gateway must neither call the npm registry at every start nor update the person's install.
- **one attachment per bridge**: :func:`gateway_for` keeps one :class:`Gateway` per bridge process and binary,
  shared by every session (also when one editor entry serves every agent and each session gets its own adapter).
- **start**: in the background, from the first run's ``prepare`` (the editor's ``initialize`` never waits); a run
  waits until the gateway's own socket listens on its port. 2026.9.6 needs 14-27 s to listen on a loaded two-core
  machine; a second window attaches in well under a second (then ``openclaw acp``'s own start, 5-11 s, remains).
- **the first turn's minute** is CPU, not a wait: with strace, the gateway makes two DNS lookups and one connect
  (to the dead proxy) and none of them waits; from the gateway's spawn to the first words, the gateway and
  ``openclaw acp`` use ~50 CPU-seconds: the gateway's bootstrap (the config validated six times, state
  migrations, the plugin plan, the worker store: 14-27 s to listen), ``openclaw acp``'s own start after that
  (5-11 s; it exits if no gateway listens, so it cannot start sooner), then the first turn's lazy set-up before
  the model is asked (7-16 s: the session-diff baseline in a git worker thread, the SQLite session store and its
  integrity check, the tool catalog, the memory index). On two cores shared with other work that is 33-57 s
  from Enter; the second prompt takes 1-5 s. No config key or variable of 2026.9.6 turns those steps off.

Things the person should know (also in the README): the gateway's agent runs shell commands in its own workspace
(``gateway/workspace``, with OpenClaw's AGENTS.md/SOUL.md), not in the editor's folder, unless the model passes
``workdir``; ``openclaw acp`` tells the model the folder (``[Working directory: …]`` before each prompt). Credentials
must come from the config or the environment: logins kept in the person's own OpenClaw state directory are not seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import signal
import socket
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from acp_mux.adapters.acp_agents.loopback_owner import listener_owned_by, listeners, socket_inodes
from acp_mux.adapters.acp_agents.openclaw.registry import (
    Registration,
    find_or_start_lock,
    forget_registration,
    process_start,
    read_registration,
    take_lease,
    write_registration,
)
from acp_mux.adapters.acp_agents.openclaw.asks import gateway_overrides
from acp_mux.adapters.acp_agents.openclaw.refusals import names_session
from acp_mux.core.run.log_follow import LogFollower
from acp_mux.core.files.paths import state_dir
from acp_mux.core.files.private import ensure_private_dir, shared_private_dir
from acp_mux.core.files.state_files import open_state_file
from acp_mux.core.process.spawn import SpawnError, SpawnSpec, resolve_command
from acp_mux.core.process import supervisor as agent_supervisor
from acp_mux.core.process.supervisor import descendants
from acp_mux.core.files.own_files import write_atomic

log = logging.getLogger(__name__)

START_TIMEOUT_S = 180.0
GRACE_ENV = "ACP_MUX_OPENCLAW_GRACE_S"
DEFAULT_GRACE_S = 15.0  # the shared gateway outlives the last bridge by this much (a window closed and reopened)
PORT_ATTEMPTS = 3  # new ports tried when another program takes the chosen one first
LOG_POLL_S = 0.25  # how often an attached bridge reads the gateway's log
KEEPER = Path(__file__).with_name("keeper.py")
SKIPPED = ("CHANNELS", "CRON", "GMAIL_WATCHER", "CANVAS_HOST", "BROWSER_CONTROL_SERVER", "STARTUP_MODEL_PREWARM")
# The gateway's log line for a run that failed (2026.9.6): openclaw's ACP bridge then ends the turn as `end_turn` with
# no text at all, so this line is the only place the failure (a provider's 401, a rate limit) is said.
_LANE_ERROR = re.compile(r'lane task error: lane=session:(\S+) .*?\berror="((?:[^"\\]|\\.)*)"')
QUIET = {"OPENCLAW_HIDE_BANNER": "1", "OPENCLAW_SUPPRESS_NOTES": "1", "NO_COLOR": "1"}


@dataclass(frozen=True)
class Endpoint:
    """How ``openclaw acp`` reaches the gateway."""

    url: str
    token_file: Path
    state: Path  # OPENCLAW_STATE_DIR
    config: Path  # OPENCLAW_CONFIG_PATH
    include_root: Path | None = None  # OPENCLAW_INCLUDE_ROOTS: where the person's included config lives
    tmp: Path | None = None  # TMPDIR: a private folder of ours instead of the shared /tmp (see private_tmp_env)

    def acp_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """``openclaw acp``'s environment: the gateway's state (its ACP ledger lives there) and config (which
        openclaw validates, ``$include`` and all, before it connects)."""
        env = {k: v for k, v in base.items() if k != "OPENCLAW_GATEWAY_TOKEN"}
        env.update(QUIET, OPENCLAW_STATE_DIR=str(self.state), OPENCLAW_CONFIG_PATH=str(self.config))
        if self.include_root is not None:
            env["OPENCLAW_INCLUDE_ROOTS"] = str(self.include_root)
        if self.tmp is not None:
            env.update(private_tmp_env(self.tmp))
        return env


def private_tmp_env(tmp: Path) -> dict[str, str]:
    """The environment that moves node's ``os.tmpdir()`` into ``tmp`` (a 0700 folder of ours). OpenClaw 2026.9.6
    keeps its compiled-code cache in ``os.tmpdir()/node-compile-cache`` (one folder for every user of the machine:
    another user's folder there would be refused by node, or worse, a folder open to all would feed our agents
    code); with ``TMPDIR`` set it goes here instead, kept warm across gateways. ``NODE_COMPILE_CACHE`` is not
    set: OpenClaw restarts itself when node starts with a cache folder other than the one it derives."""
    return {"TMPDIR": str(tmp)}


class GatewayError(SpawnError):
    """The private gateway could not start; the message says why, for the person."""


def user_config(env: Mapping[str, str]) -> Path | None:
    """The person's own OpenClaw config, if there is one."""
    explicit = env.get("OPENCLAW_CONFIG_PATH")
    home = env.get("HOME") or os.path.expanduser("~")
    candidates = [Path(explicit)] if explicit else []
    state = env.get("OPENCLAW_STATE_DIR")
    candidates += [Path(state) / "openclaw.json"] if state else []
    candidates.append(Path(home) / ".openclaw" / "openclaw.json")
    return next((p for p in candidates if p.is_file()), None)


def gateway_config(port: int, included: Path | None, slot: Path) -> dict[str, object]:
    """The private config: the person's, with only the gateway part (and log file) overridden."""
    config: dict[str, object] = {}
    if included is not None:
        config["$include"] = str(included)
    config["gateway"] = {
        "mode": "local",
        "port": port,
        "bind": "loopback",
        "auth": {"mode": "token"},
        "tailscale": {"mode": "off"},
        "controlUi": {"enabled": False},
    }
    config["logging"] = {"file": str(slot / "logs" / "openclaw.log")}
    config.update(gateway_overrides(included))  # acp-mux's asking: exec approvals on, the gate plugin (asks.py)
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _private_dir(path: Path) -> Path:
    """``path`` as a folder only we can enter, made 0700 if missing. The gateway's folders have fixed names (its
    sessions must resume after every restart), so what is found there is checked, never repaired: a symlink,
    another user's folder or one open to others (someone could have planted a plugin or config in it) is refused
    with a :class:`GatewayError` that says what to do, and nothing is written into it or changed."""
    with contextlib.suppress(OSError):  # the state dir above; if it cannot be made, the check below says why
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not ensure_private_dir(str(path)):
        raise GatewayError(
            f"{path} {_not_private_because(path)}; acp-mux does not keep OpenClaw's gateway state "
            "there. Remove it (or, if it is yours, check what is in it and chmod 700 it)."
        )
    return path


def private_tmp_dir(fallback: Path) -> Path:
    """OpenClaw's TMPDIR: ``openclaw-tmp`` in acp-mux's per-user folder (``$XDG_RUNTIME_DIR/acp-mux`` or
    ``<tmp>/acp-mux-<uid>``, each used only if ours and private), kept across gateways so the compile cache stays
    warm, and outside the state folder, which a gateway's exit (it writes its cache then) must not race with
    whoever removes that folder. ``fallback`` (in the state, checked) when no such folder is ours."""
    shared = shared_private_dir("openclaw-tmp")
    return Path(shared) if shared else _private_dir(fallback)


def _not_private_because(path: Path) -> str:
    """Why ``path`` is not a private folder of ours, in words for the person."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be made ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symlink"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if info.st_uid != os.getuid():
        return f"belongs to another user (uid {info.st_uid})"
    return f"is open to other users (mode {stat.S_IMODE(info.st_mode):o})"


def _write_private(path: Path, text: str) -> None:
    """A fixed-name file of the gateway's (its token, its config), replaced in one step by a fresh 0600 file: a
    FIFO or symlink planted at the name is replaced, never waited on or followed."""
    write_atomic(path, text.encode())


def grace_seconds(env: Mapping[str, str]) -> float:
    """How long the shared gateway outlives the last bridge (``ACP_MUX_OPENCLAW_GRACE_S``, default 15 s); a value
    that is not a number from 0 to 3600 is refused with a readable error, never reinterpreted."""
    raw = env.get(GRACE_ENV)
    if raw is None or raw == "":
        return DEFAULT_GRACE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:  # also refuses nan and inf
        raise GatewayError(f"{GRACE_ENV}={raw!r} is not a number of seconds from 0 to 3600")
    return value


class PortNotOurs(GatewayError):
    """Something other than our gateway listens where its port leads: the token is not sent there."""


class Gateway:
    """This bridge's attachment to the user's one shared private gateway: found or started on first need, held by a
    lease; ``ready()`` waits until it listens and checks that the listener is the gateway's before each use."""

    def __init__(self, binary: str, env: Mapping[str, str], root: Path | None = None) -> None:
        self.binary = binary
        self.env = dict(env)
        self.root = root or state_dir(env) / "openclaw"
        self.state = self.root / "gateway"
        self.registration: Registration | None = None
        self.endpoint: Endpoint | None = None
        self._starting: asyncio.Task[Endpoint] | None = None
        self._lease_fd: int | None = None  # held open: our lease on the shared gateway
        self.failures: dict[str, str] = {}  # session key -> the last failure the gateway logged for it
        self._tail: asyncio.Task[None] | None = None
        self._follower: LogFollower | None = None
        self.tmp: Path | None = None  # OpenClaw's TMPDIR (private_tmp_dir), found with the gateway

    @property
    def log_path(self) -> Path:
        return self.state / "logs" / "gateway.out"

    def note_line(self, line: str) -> None:
        """Read one line of the gateway's log for what its ACP bridge does not forward (a failed run)."""
        found = _LANE_ERROR.search(line)
        if found and "abort" not in found.group(2).lower():  # a cancelled run is not a failure
            self.failures[found.group(1)] = found.group(2).replace('\\"', '"')

    def take_failure(self, session: str) -> str | None:
        """The failure logged for ``session`` (an ACP session id, or the gateway key it is named by), forgotten once
        taken. The log is read up to its end first: the turn's end may come before the next poll would."""
        self._read_log()
        for key in list(self.failures):
            if names_session(key, session):
                return self.failures.pop(key)
        return None

    async def ready(self, timeout: float = START_TIMEOUT_S) -> Endpoint:
        """The shared gateway's endpoint (found, or started if none runs), its listener checked to be the gateway's
        right now: :class:`PortNotOurs` if it is not (the token must not go there), :class:`GatewayError` if it
        cannot run."""
        if self._starting is None or (self._starting.done() and not self._alive()):
            self._starting = asyncio.ensure_future(self._attach(timeout))
        endpoint = await asyncio.shield(self._starting)
        registration = self.registration
        assert registration is not None
        try:  # at once when its own socket listens; a moment while it re-binds (nothing else listens meanwhile)
            await self._wait_listening(registration, timeout)
        except PortNotOurs:
            self.endpoint = None
            await asyncio.to_thread(self._retire, registration)
            raise PortNotOurs(
                f"something else now listens on 127.0.0.1:{registration.port}, OpenClaw's gateway "
                "port; its token was not sent there. The next message starts a new gateway."
            ) from None
        return endpoint

    def _alive(self) -> bool:
        return self.endpoint is not None and self.registration is not None and self.registration.alive()

    @staticmethod
    def _owner(registration: Registration) -> bool | None:
        """Whether every listener 127.0.0.1:PORT leads to is the gateway's (None: this system cannot tell)."""
        return listener_owned_by(registration.port, Gateway._pids(registration))

    @staticmethod
    def _pids(registration: Registration) -> list[int]:
        """The gateway and its descendants: who may hold its port."""
        return [registration.gateway_pid, *descendants(registration.gateway_pid)]

    async def _attach(self, timeout: float) -> Endpoint:
        for _ in range(PORT_ATTEMPTS):
            registration = await asyncio.to_thread(self._find_or_start)
            try:
                await self._wait_listening(registration, timeout)
            except PortNotOurs as exc:  # taken before the gateway could bind it: a new gateway on another port
                log.warning("%s", exc)
                await asyncio.to_thread(self._retire, registration)
                continue
            self._follow(registration)
            self.endpoint = Endpoint(
                f"ws://127.0.0.1:{registration.port}",
                self.state / "gateway.token",
                self.state,
                self.state / "openclaw.json",
                Path(registration.include_root) if registration.include_root else None,
                self.tmp,
            )
            return self.endpoint
        raise PortNotOurs(
            f"OpenClaw's gateway port was taken by another program {PORT_ATTEMPTS} times in a row; "
            "its token was not sent. Something on this machine is racing for loopback ports."
        )

    # ── find or start (blocking: run in a thread) ────────────────────────────────────────────────────────────────
    def _find_or_start(self) -> Registration:
        """The running shared gateway, or a new one; a file of its state that is not ours (a FIFO, a symlink,
        another user's) is a :class:`GatewayError` that names it, never a hang or a write through it."""
        try:
            return self._find_or_start_checked()
        except GatewayError:
            raise
        except OSError as exc:
            raise GatewayError(f"OpenClaw's private gateway cannot use its state: {exc}") from exc

    def _find_or_start_checked(self) -> Registration:
        _private_dir(self.root)
        self.tmp = private_tmp_dir(self.root / "tmp")
        with find_or_start_lock(self.root):
            if self._lease_fd is None:
                self._lease_fd = take_lease(self.root)
            found = read_registration(self.root)
            if found is not None and found.alive():
                log.info(
                    "openclaw: attached to the shared gateway on 127.0.0.1:%d (pid %d)", found.port, found.gateway_pid
                )
                return found
            if found is not None:  # its keeper died (SIGKILL) but the gateway lives on: it is ours, end it
                _kill_if_same(found.gateway_pid, found.gateway_start)
            return self._start_keeper()

    def _start_keeper(self) -> Registration:
        state = _private_dir(self.state)
        _private_dir(state / "logs")
        port = free_port()
        token_file, config_path = state / "gateway.token", state / "openclaw.json"
        token = secrets.token_hex(32)
        _write_private(token_file, token + "\n")
        included = user_config(self.env)
        _write_private(config_path, json.dumps(gateway_config(port, included, state), indent=2) + "\n")
        env = {
            **self.env,
            **QUIET,
            "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_CONFIG_PATH": str(config_path),
            "OPENCLAW_GATEWAY_TOKEN": token,
            "OPENCLAW_ALLOW_MULTI_GATEWAY": "1",
            "OPENCLAW_NO_AUTO_UPDATE": "1",
        }
        env.update({f"OPENCLAW_SKIP_{name}": "1" for name in SKIPPED})
        if self.tmp is not None:
            env.update(private_tmp_env(self.tmp))
        if included is not None:
            env["OPENCLAW_INCLUDE_ROOTS"] = str(included.parent)
        program = resolve_command(SpawnSpec(self.binary, [], env=env, cwd=str(state)))
        args = ["gateway", "run", "--port", str(port), "--bind", "loopback", "--auth", "token"]
        keeper_pid, gateway_pid = start_keeper(
            self.root, grace_seconds(self.env), self.log_path, program, args, env, str(state)
        )
        registration = Registration(
            keeper_pid,
            process_start(keeper_pid) or 0,
            gateway_pid,
            process_start(gateway_pid) or 0,
            port,
            str(included.parent) if included is not None else None,
        )
        write_registration(self.root, registration)
        log.info("openclaw gateway starting on 127.0.0.1:%d (pid %d, state %s)", port, gateway_pid, state)
        return registration

    def _retire(self, registration: Registration) -> None:
        """Stop trusting a gateway whose port is not its own: forget it and stop its keeper (and so the gateway)."""
        with find_or_start_lock(self.root):
            forget_registration(self.root, registration)
            _kill_if_same(registration.keeper_pid, registration.keeper_start, signal.SIGTERM)

    # ── waiting and following its log ──────────────────────────────────────────────────────────────────────────
    async def _wait_listening(self, registration: Registration, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        port = registration.port
        while loop.time() < deadline:
            # One snapshot of the listeners decides: reading them twice raced with the gateway's own listen (nobody
            # in the first read, the gateway in the second, taken for another program under load).
            found = listeners(port)
            owner = None if found is None else bool(found) and found <= socket_inodes(self._pids(registration))
            if owner:
                return
            if found:  # something listens there and not all of it is the gateway's
                raise PortNotOurs(
                    f"another program took 127.0.0.1:{port} before OpenClaw's gateway could listen "
                    "there; its token was not sent to it"
                )
            if not registration.alive():
                tail = self._log_tail()
                raise GatewayError(
                    "OpenClaw's gateway exited before it listened" + (": " + " | ".join(tail) if tail else "")
                )
            if owner is None and await _accepts(port):  # no /proc to ask: a connection is all there is
                return
            await asyncio.sleep(0.2)
        await asyncio.to_thread(self._retire, registration)
        raise GatewayError(f"OpenClaw's gateway did not listen on 127.0.0.1:{port} within {timeout:.0f} s")

    def _log_tail(self, lines: int = 3) -> list[str]:
        try:
            with os.fdopen(open_state_file(self.log_path), "rb") as fh:  # a FIFO there must not hang the bridge
                fh.seek(0, os.SEEK_END)
                fh.seek(max(0, fh.tell() - 4096))
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            return []
        return [line for line in text.splitlines() if line.strip()][-lines:]

    def _follow(self, registration: Registration) -> None:
        """Tail the gateway's log (its stdout and stderr, written by the keeper) for as long as we are attached:
        from where it ends now, so what it logged for other bridges' turns before is never taken for ours."""
        self.registration = registration
        if self._follower is None:
            self._follower = LogFollower(lambda: str(self.log_path))
            self._read_log()  # the first read only notes where the log ends now
        if self._tail is None or self._tail.done():
            self._tail = asyncio.ensure_future(self._tail_log())

    def _read_log(self) -> None:
        if self._follower is not None:
            for line in self._follower.poll():
                self._on_line(line)

    async def _tail_log(self) -> None:
        while True:
            self._read_log()
            await asyncio.sleep(LOG_POLL_S)

    def _on_line(self, line: str) -> None:
        log.debug("openclaw gateway: %s", line)
        self.note_line(line)

    async def stop(self) -> None:
        """Detach: stop following the log and give up our lease (the keeper stops the gateway after its grace
        period when no other bridge holds one)."""
        if self._tail is not None:
            self._tail.cancel()
        if self._follower is not None:
            self._follower.close()
            self._follower = None
        if self._lease_fd is not None:
            os.close(self._lease_fd)
            self._lease_fd = None
        self.endpoint = None


async def _accepts(port: int) -> bool:
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


def _kill_if_same(pid: int, start: int, sig: int = signal.SIGKILL) -> None:
    """Signal ``pid`` only if it is still the process that started at ``start`` (never a recycled pid)."""
    if pid > 0 and process_start(pid) == start:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def start_keeper(
    root: Path, grace: float, log_path: Path, program: str, args: list[str], env: Mapping[str, str], cwd: str
) -> tuple[int, int]:
    """Start the detached keeper (``keeper.py``), which starts the gateway: (keeper pid, gateway pid)."""
    read_fd, write_fd = os.pipe()
    try:
        command = [
            sys.executable,
            "-I",
            "-S",
            str(KEEPER),
            str(root),
            repr(grace),
            str(write_fd),
            str(log_path),
            str(agent_supervisor.__file__),
            "--",
            program,
            *args,
        ]
        first = subprocess.Popen(
            command,
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=(write_fd,),
        )
    except OSError as exc:
        os.close(read_fd)
        raise GatewayError(f"cannot start OpenClaw's gateway keeper: {exc}") from exc
    finally:
        os.close(write_fd)
    first.wait()  # it forks the keeper and exits at once: no bridge stays the keeper's parent
    with os.fdopen(read_fd, "rb") as status:
        report = status.read(512).decode("utf-8", "replace").split()
    if len(report) == 3 and report[0] == "ok":
        return int(report[1]), int(report[2])
    raise GatewayError("OpenClaw's gateway could not be started: " + (" ".join(report[2:]) or "its keeper died"))


_GATEWAYS: dict[str, Gateway] = {}


def gateway_for(binary: str, env: Mapping[str, str]) -> Gateway:
    """This bridge's gateway for ``binary`` (created, not started, on first call): one per bridge process."""
    gateway = _GATEWAYS.get(binary)
    if gateway is None:
        gateway = _GATEWAYS[binary] = Gateway(binary, env)
    return gateway
