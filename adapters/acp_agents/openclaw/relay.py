"""The relay between acp-mux and ``openclaw acp``: it carries ACP both ways unchanged and adds the questions of
acp-mux's gate plugin (see :mod:`asks` for why openclaw asks this way).

Run as ``python -m acp_mux.adapters.acp_agents.openclaw.relay <openclaw> acp …``. It starts ``openclaw acp`` as its child and
copies every line: acp-mux → openclaw (stdin) and openclaw → acp-mux (stdout). On the side it watches which ACP
sessions this process serves (the answer to ``session/new``, the ``sessionId`` of ``session/load`` and
``session/resume``) and opens a Unix socket for each, named in ``$OPENCLAW_STATE_DIR/acp-mux-asks/<hash>``. The gate connects
there when the gateway is about to run a tool; the relay writes a ``session/request_permission`` of its own (id
``acp-mux-ask-N``) on stdout, takes acp-mux's answer to it out of stdin (openclaw never sees it), and gives the gate
``{"allow": true}`` only for a selected ``allow-once``. A gate that goes away (the call was cancelled) is not
waited for. It is a separate process (not the bridge) because the bridge reads an agent only as lines of its
stdout; the relay imports nothing but the standard library, :mod:`asks` and acp-mux's small private-file
helpers (its folder is used only if it is ours and private; registrations are replaced, never written through a
planted link or FIFO), so it starts in tens of ms.

When ``openclaw acp`` exits, the relay removes its sockets and exits with the same code; when the relay is told to
stop (SIGTERM, SIGINT, SIGHUP), it stops ``openclaw acp`` first; when its stdin closes, so does openclaw's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import stat
import struct
import sys
from pathlib import Path
from typing import Any, AsyncIterator

from acp_mux.adapters.acp_agents.openclaw.asks import (
    ASK_ID_PREFIX,
    ASKS_DIR,
    MAX_SOCKET_PATH,
    allowed,
    gate_answer,
    permission_request,
    registration_path,
)
from acp_mux.core.files.private import ensure_private_dir
from acp_mux.core.files.state_files import read_state_file
from acp_mux.core.files.own_files import write_atomic

MAX_QUESTION_BYTES = 4_000_000  # one JSON line from the gate (a write's content travels in it)
_LINUX = sys.platform.startswith("linux")  # (a value, so the other platforms stay type-checked too)


class Relay:
    """One ``openclaw acp`` process and the sockets of the sessions it serves."""

    def __init__(self, argv: list[str], state_dir: str, cwd: str) -> None:
        self.argv = argv
        self.state_dir = state_dir
        self.cwd = cwd
        self.child: asyncio.subprocess.Process | None = None
        self.out = asyncio.Lock()
        self.methods: dict[Any, str] = {}  # acp-mux's request id → method, for the answers that name a session
        self.servers: dict[str, asyncio.AbstractServer] = {}  # ACP session id → its socket's server
        self.paths: list[Path] = []  # socket files (not on Linux)
        self.registrations: list[tuple[Path, str]] = []  # (file, what we wrote there)
        self.pending: dict[str, asyncio.Future[bool]] = {}
        self.seq = 0
        self.serving: set[asyncio.Task[None]] = set()  # held here: the loop keeps only weak references to tasks

    async def run(self) -> int:
        self.child = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=64 * 1024 * 1024
        )
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, self._stop_child)
        upstream = asyncio.ensure_future(self._from_editor())
        try:
            await self._from_openclaw()
            return await self.child.wait()
        finally:
            upstream.cancel()
            self._close_sockets()

    def _stop_child(self) -> None:
        if self.child is not None and self.child.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.child.terminate()

    # ── acp-mux → openclaw ─────────────────────────────────────────────────────────────────────────────────────
    async def _from_editor(self) -> None:
        assert self.child is not None and self.child.stdin is not None
        async for line in _stdin_lines():
            msg = _json(line)
            if msg is not None and self._is_our_answer(msg):
                continue
            if msg is not None and isinstance(msg.get("method"), str) and "id" in msg:
                self.methods[_key(msg["id"])] = msg["method"]
                if msg["method"] in ("session/load", "session/resume"):
                    self._open(str((msg.get("params") or {}).get("sessionId") or ""))
            self.child.stdin.write(line)
            await self.child.stdin.drain()
        self.child.stdin.close()  # acp-mux closed our stdin: openclaw's closes too, and it ends as it would alone

    def _is_our_answer(self, msg: dict[str, Any]) -> bool:
        rpc_id = msg.get("id")
        if "method" in msg or not isinstance(rpc_id, str) or not rpc_id.startswith(ASK_ID_PREFIX):
            return False
        future = self.pending.pop(rpc_id, None)
        if future is not None and not future.done():
            future.set_result(allowed(msg))
        return True

    # ── openclaw → acp-mux ─────────────────────────────────────────────────────────────────────────────────────
    async def _from_openclaw(self) -> None:
        assert self.child is not None and self.child.stdout is not None
        while line := await self.child.stdout.readline():
            msg = _json(line)
            if msg is not None and "method" not in msg and self.methods.pop(_key(msg.get("id")), None) == "session/new":
                result = msg.get("result")
                if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
                    self._open(result["sessionId"])
            await self._write(line)

    async def _write(self, line: bytes) -> None:
        async with self.out:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    # ── the gate's sockets ─────────────────────────────────────────────────────────────────────────────────────
    def _open(self, session_id: str) -> None:
        if not session_id or session_id in self.servers:
            return
        task = asyncio.ensure_future(self._serve(session_id))
        self.serving.add(task)
        task.add_done_callback(self.serving.discard)

    async def _serve(self, session_id: str) -> None:
        registration = registration_path(self.state_dir, session_id)
        if not self.state_dir or not _private_dir(registration.parent):
            print(
                f"acp-mux relay: no private folder at {registration.parent}; openclaw's file tools will be refused",
                file=sys.stderr,
            )
            return
        address = _address(registration)
        if address is None:
            print(
                f"acp-mux relay: no socket address fits under {registration.parent}; openclaw's file tools will be "
                "refused",
                file=sys.stderr,
            )
            return
        server = await asyncio.start_unix_server(
            lambda r, w: self._question(session_id, r, w), path=address, limit=MAX_QUESTION_BYTES
        )
        if not address.startswith("\0"):
            os.chmod(address, 0o600)
            self.paths.append(Path(address))
        text = "@" + address[1:] if address.startswith("\0") else address
        _write_private(registration, text)
        self.servers[session_id] = server
        self.registrations.append((registration, text))

    async def _question(self, session_id: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if not _same_user(writer):
                return  # an abstract socket's name is visible to every local user: only our own may ask
            question = _json(await reader.readline())
            if question is None:
                return
            self.seq += 1
            rpc_id = f"{ASK_ID_PREFIX}{self.seq}"
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self.pending[rpc_id] = future
            request = permission_request(rpc_id, session_id, question, self.cwd)
            await self._write((json.dumps(request) + "\n").encode())
            gone = asyncio.ensure_future(reader.read())  # the gate hangs up: the call was cancelled
            waits: list[asyncio.Future[Any]] = [future, gone]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            gone.cancel()
            writer.write(gate_answer(future.done() and future.result()))
            await writer.drain()
        except (OSError, ValueError):
            pass
        finally:
            writer.close()

    def _close_sockets(self) -> None:
        for server in self.servers.values():
            server.close()
        for path in self.paths:
            with contextlib.suppress(OSError):
                path.unlink()
        for registration, text in self.registrations:  # only if still ours: a newer relay may serve the session now
            if _still_ours(registration, text):
                with contextlib.suppress(OSError):
                    registration.unlink()


def _address(registration: Path) -> str | None:
    """Where this session's socket listens: an abstract name on Linux, else a socket file beside the
    registration (None if that path is too long for the kernel)."""
    if _LINUX:
        return "\0acp-mux-ask-" + secrets.token_hex(16)
    path = str(registration) + ".sock"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        return None
    with contextlib.suppress(FileNotFoundError):
        if Path(path).is_socket():
            os.unlink(path)  # left by a relay that was killed: ours to replace (the folder is ours)
    return path


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """The peer runs as our user (always true where the kernel cannot say: the socket file is 0600 there)."""
    sock = writer.get_extra_info("socket")
    peercred = getattr(socket, "SO_PEERCRED", None)
    if sock is None or peercred is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i")))
    except OSError:
        return False
    return bool(uid == os.getuid())


def _write_private(path: Path, text: str) -> None:
    """Write a registration (0600) atomically: a gate reading it sees the old one or the new one, never a part; a
    FIFO or symlink planted at the name is replaced, never waited on or followed."""
    write_atomic(path, text.encode())


def _private_dir(path: Path) -> bool:
    """The asks folder exists (made 0700 if missing), is a real directory of ours, and only we can use it; anything
    else there is not used (nor changed): the gate then finds no registration and refuses the file tools."""
    return ensure_private_dir(str(path))


def _still_ours(registration: Path, text: str) -> bool:
    """The registration still holds what we wrote (a newer relay may serve the session now); read as a state file,
    so a FIFO put there never hangs the relay's exit."""
    try:
        return read_state_file(registration, MAX_SOCKET_PATH + 2).decode("utf-8", "replace") == text
    except OSError:
        return False


async def _stdin_lines() -> AsyncIterator[bytes]:
    """Our stdin, line by line: through the event loop when it is a pipe, socket or terminal (acp-mux gives a pipe),
    else (a file, /dev/null, which epoll refuses) from a thread, so the relay never hangs on an unpollable stdin."""
    mode = os.fstat(0).st_mode
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(0):
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := await reader.readline():
            yield line
        return
    while line := await asyncio.to_thread(sys.stdin.buffer.readline):
        yield line


def _json(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _key(rpc_id: Any) -> str:
    return json.dumps(rpc_id)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m acp_mux.adapters.acp_agents.openclaw.relay <openclaw> acp …", file=sys.stderr)
        return 2
    state = os.environ.get("OPENCLAW_STATE_DIR", "")
    return asyncio.run(Relay(argv, state, os.getcwd()).run())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


__all__ = ["ASKS_DIR", "Relay", "main"]
