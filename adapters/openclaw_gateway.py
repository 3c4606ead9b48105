"""openclaw's private gateway: one per bridge, on loopback, with its own state directory and config.

OpenClaw streams, runs tools and asks for exec approvals only through its Gateway; ``openclaw acp --url ws://…`` is
an ACP bridge to a running one, and exits at once ("ECONNREFUSED") when none listens. The person may run their own
gateway (channels, cron, a fixed port): acp-mux never touches it. It starts a private one:

- **state**: ``<acp-mux state dir>/openclaw/slot-N/`` (0700). A gateway owns its state directory exclusively, so
  each bridge claims the first free slot with an ``flock`` held for its lifetime (the kernel drops it however the
  bridge dies). Slot 0 is reused after a restart, so the gateway's sessions (``agent:main:acp-bridge:<uuid>``) can be
  resumed; ``openclaw acp`` keeps its ACP ledger there too.
- **config**: ``slot-N/openclaw.json`` (0600) ``$include``s the person's config (``$OPENCLAW_CONFIG_PATH`` or
  ``~/.openclaw/openclaw.json``: providers, models, agents, tool policy) and overrides only the gateway section:
  local mode, loopback, a free port, token auth, no Tailscale; logs go to the slot, not ``/tmp/openclaw``.
- **token**: 32 random bytes, given to the gateway in its environment (``OPENCLAW_GATEWAY_TOKEN``) and to
  ``openclaw acp`` as ``--token-file slot-N/gateway.token`` (0600); never on a command line.
- **what it does not start**: channels (the person's Telegram bot must not answer twice), cron jobs, the Gmail
  watcher, the canvas host, the browser control server (``OPENCLAW_SKIP_*``; ``OPENCLAW_SKIP_STARTUP_MODEL_PREWARM``
  is read by no code of 2026.9.6 and kept for other releases). No Control UI (``gateway.controlUi.enabled: false``):
  nobody opens a private gateway's dashboard, and preparing its assets is a post-ready task of 6-20 s that
  competes for the CPU just while ``openclaw acp`` starts and the first turn runs (about 3.5 of the ~54
  CPU-seconds before the first words). No update check or auto-update (``OPENCLAW_NO_AUTO_UPDATE``): a private
  gateway must neither call the npm registry at every start nor update the person's install.
- **lifetime**: the gateway is spawned like any agent, under the bridge's supervisor
  (:mod:`acp_mux.core.supervisor`), so it is stopped with the bridge and also when the bridge is killed outright
  (the supervisor's lifeline closes). Its spawn broker runs in a session of its own; the supervisor is a child
  subreaper on Linux and sweeps it too.
- **one per bridge**: :func:`gateway_for` keeps one gateway per bridge process and binary, shared by every session
  (also when one editor entry serves every agent and each session gets its own adapter).
- **start**: in the background, from the first run's ``prepare`` (the editor's ``initialize`` never waits); a run
  waits for the port to accept connections. 2026.9.6 needs 14-27 s to listen on a loaded two-core machine.
- **the first turn's minute** is CPU, not a wait: with strace, the gateway makes two DNS lookups and one connect
  (to the dead proxy) and none of them waits; from the gateway's spawn to the first words, the gateway and
  ``openclaw acp`` use ~50 CPU-seconds: the gateway's bootstrap (the config validated six times, state
  migrations, the plugin plan, the worker store: 14-27 s to listen), ``openclaw acp``'s own start after that
  (5-11 s; it exits if no gateway listens, so it cannot start sooner), then the first turn's lazy set-up before
  the model is asked (7-16 s: the session-diff baseline in a git worker thread, the SQLite session store and its
  integrity check, the tool catalog, the memory index). On two cores shared with other work that is 33-57 s
  from Enter; the second prompt takes 1-5 s. No config key or variable of 2026.9.6 turns those steps off.

Things the person should know (also in the README): the gateway's agent runs shell commands in its own workspace
(``slot-N/state/workspace``, with OpenClaw's AGENTS.md/SOUL.md), not in the editor's folder, unless the model passes
``workdir``; ``openclaw acp`` tells the model the folder (``[Working directory: …]`` before each prompt). Credentials
must come from the config or the environment: logins kept in the person's own OpenClaw state directory are not seen.
"""

from __future__ import annotations

import asyncio
import collections
import fcntl
import json
import logging
import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from acp_mux.core.paths import state_dir
from acp_mux.core.process import AgentProcess, SpawnError, SpawnSpec, spawn

log = logging.getLogger(__name__)

START_TIMEOUT_S = 180.0
MAX_SLOTS = 16
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

    def acp_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """``openclaw acp``'s environment: the gateway's state (its ACP ledger lives there) and config (which
        openclaw validates, ``$include`` and all, before it connects)."""
        env = {k: v for k, v in base.items() if k != "OPENCLAW_GATEWAY_TOKEN"}
        env.update(QUIET, OPENCLAW_STATE_DIR=str(self.state), OPENCLAW_CONFIG_PATH=str(self.config))
        if self.include_root is not None:
            env["OPENCLAW_INCLUDE_ROOTS"] = str(self.include_root)
        return env


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
    config["gateway"] = {"mode": "local", "port": port, "bind": "loopback", "auth": {"mode": "token"},
                         "tailscale": {"mode": "off"}, "controlUi": {"enabled": False}}
    config["logging"] = {"file": str(slot / "logs" / "openclaw.log")}
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.is_symlink() or not path.is_dir():
        raise GatewayError(f"{path} is not a plain directory; refusing to keep OpenClaw's state there")
    os.chmod(path, 0o700)
    return path


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o600)


def claim_slot(root: Path) -> tuple[Path, int]:
    """The first slot directory no other bridge holds, and the open lock file that holds it for us."""
    _private_dir(root)
    for n in range(MAX_SLOTS):
        slot = root / f"slot-{n}"
        fd = os.open(root / f"slot-{n}.lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        os.set_inheritable(fd, False)
        return _private_dir(slot), fd
    raise GatewayError(f"all {MAX_SLOTS} OpenClaw gateway slots under {root} are in use by other acp-mux bridges")


class Gateway:
    """The private gateway of this bridge: started once, on first need; ``ready()`` waits for it."""

    def __init__(self, binary: str, env: Mapping[str, str], root: Path | None = None) -> None:
        self.binary = binary
        self.env = dict(env)
        self.root = root or state_dir(env) / "openclaw"
        self.process: AgentProcess | None = None
        self.endpoint: Endpoint | None = None
        self._starting: asyncio.Task[Endpoint] | None = None
        self._slot: Path | None = None
        self._lock_fd: int | None = None  # held open: our claim on the slot
        self.failures: dict[str, str] = {}  # session key -> the last failure the gateway logged for it
        self._drainer: asyncio.Future[None] | None = None
        self.last_lines: collections.deque[str] = collections.deque(maxlen=3)  # its log (stdout and stderr)

    def note_line(self, line: str) -> None:
        """Read one line of the gateway's log for what its ACP bridge does not forward (a failed run)."""
        found = _LANE_ERROR.search(line)
        if found and "abort" not in found.group(2).lower():  # a cancelled run is not a failure
            self.failures[found.group(1)] = found.group(2).replace('\\"', '"')

    def take_failure(self, session: str) -> str | None:
        """The failure logged for ``session`` (an ACP session id, or the gateway key it is named by), forgotten once
        taken."""
        for key in list(self.failures):
            if session and (key == session or key.endswith(":" + session)):
                return self.failures.pop(key)
        return None

    async def ready(self, timeout: float = START_TIMEOUT_S) -> Endpoint:
        """The running gateway's endpoint (starting it if needed); :class:`GatewayError` if it cannot run."""
        if self._starting is None or (self._starting.done() and not self._alive()):
            self._starting = asyncio.ensure_future(self._start(timeout))
        return await asyncio.shield(self._starting)

    def _alive(self) -> bool:
        return self.process is not None and not self.process.exited and self.endpoint is not None

    async def _start(self, timeout: float) -> Endpoint:
        if self._slot is None:
            self._slot, self._lock_fd = claim_slot(self.root)
        slot = self._slot
        port = free_port()
        token_file, config_path = slot / "gateway.token", slot / "openclaw.json"
        token = secrets.token_hex(32)
        _write_private(token_file, token + "\n")
        included = user_config(self.env)
        _write_private(config_path, json.dumps(gateway_config(port, included, slot), indent=2) + "\n")
        _private_dir(slot / "logs")
        env = {**self.env, **QUIET, "OPENCLAW_STATE_DIR": str(slot), "OPENCLAW_CONFIG_PATH": str(config_path),
               "OPENCLAW_GATEWAY_TOKEN": token, "OPENCLAW_ALLOW_MULTI_GATEWAY": "1", "OPENCLAW_NO_AUTO_UPDATE": "1"}
        env.update({f"OPENCLAW_SKIP_{name}": "1" for name in SKIPPED})
        if included is not None:
            env["OPENCLAW_INCLUDE_ROOTS"] = str(included.parent)
        args = ["gateway", "run", "--port", str(port), "--bind", "loopback", "--auth", "token"]
        self.process = proc = await spawn(SpawnSpec(self.binary, args, env=env, cwd=str(slot)))
        proc.on_stderr_line = self._on_line
        self._drainer = asyncio.ensure_future(self._drain(proc))
        log.info("openclaw gateway starting on 127.0.0.1:%d (state %s)", port, slot)
        await self._wait_listening(proc, port, timeout)
        self.endpoint = Endpoint(f"ws://127.0.0.1:{port}", token_file, slot, config_path,
                                 included.parent if included is not None else None)
        return self.endpoint

    async def _drain(self, proc: AgentProcess) -> None:
        async for line in proc.lines():  # the gateway logs on stdout: read it, or it blocks on a full pipe
            self._on_line(line)

    def _on_line(self, line: str) -> None:
        log.debug("openclaw gateway: %s", line)
        self.last_lines.append(line)
        self.note_line(line)

    async def _wait_listening(self, proc: AgentProcess, port: int, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if proc.exited:
                status = await proc.wait()
                if self._drainer is not None:  # its last words on stdout, read to the end (a second at most)
                    await asyncio.wait([self._drainer], timeout=1.0)
                tail = list(self.last_lines)  # why it stopped, as it said it (it logs on stdout and stderr)
                raise GatewayError(f"OpenClaw's gateway exited (code {status.code}) before it listened"
                                   + (": " + " | ".join(tail) if tail else ""))
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                return
            except OSError:
                await asyncio.sleep(0.2)
        await proc.terminate(1.0)
        raise GatewayError(f"OpenClaw's gateway did not listen on 127.0.0.1:{port} within {timeout:.0f} s")

    async def stop(self) -> None:
        if self.process is not None and not self.process.exited:
            await self.process.terminate(2.0)
        self.endpoint = None


_GATEWAYS: dict[str, Gateway] = {}


def gateway_for(binary: str, env: Mapping[str, str]) -> Gateway:
    """This bridge's gateway for ``binary`` (created, not started, on first call): one per bridge process."""
    gateway = _GATEWAYS.get(binary)
    if gateway is None:
        gateway = _GATEWAYS[binary] = Gateway(binary, env)
    return gateway
