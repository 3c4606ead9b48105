"""Process layer: spawn agent CLIs in their own process group and talk to them.

Every agent runs on pipes (the spec's PTY mode was dropped: no supported CLI needs a terminal; openclaw, the one
the spec marked ``requires_pty``, is driven through ``openclaw acp``).  Everything is plain asyncio (no reader
threads); stdout is split into lines where the pipe's reads arrive (:mod:`acp_mux.core.pipe_lines`).
Our own stdin/stdout carry JSON-RPC, so a child never inherits them.
Line splitting is in :mod:`acp_mux.core.lines`, end-of-output in
:mod:`acp_mux.core.linger`, group signalling in :mod:`acp_mux.core.pgroup`, and the
kill-everything-at-exit registry in :mod:`acp_mux.core.tracker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from .linger import LingeringReader
from .lines import LineSplitter, TailBuffer
from .pipe_lines import PipeLines
from . import pgroup
from . import supervision
from .private import remove_private_files, write_private_files
from .text import encode
from .tracker import TRACKER

log = logging.getLogger(__name__)

CHUNK = 1 << 20  # read size; also the StreamReader limit (pauses at 2x)
# What one read of the agent's stdout or stderr asks for. asyncio's pipe transport asks for 256 KiB, and os.read
# allocates what it asks for before it knows what came: above glibc's 128 KiB mmap threshold that is an mmap, a page
# fault, an mremap and a munmap around every read, four system calls for a 200-byte chunk (strace of a streamed
# reply). 64 KiB is a whole pipe buffer (Linux's default), served from the heap.
PIPE_READ_SIZE = 64 * 1024
DEFAULT_EOF_LINGER = 0.5  # seconds to wait for pipe EOF once the leader exited
# Dispositions a child must not inherit as SIG_IGN (nohup/`cmd &` set some).
_RESET_SIGNALS = tuple(
    getattr(signal, n) for n in ("SIGINT", "SIGQUIT", "SIGTERM", "SIGHUP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGPIPE")
)


@dataclass(frozen=True)
class SpawnSpec:
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None  # full environment; None = inherit
    cwd: str | None = None
    # (path, text) written 0600 before the agent starts and removed when it ends (by the supervisor too, if the
    # bridge is killed): how secrets reach an agent without its command line (see acp_mux.core.private)
    private_files: tuple[tuple[str, str], ...] = ()


class SpawnError(Exception):
    """The agent could not be started; the message is meant for humans."""

    def __init__(self, message: str, command: str = "") -> None:
        super().__init__(message)
        self.command = command  # SpawnSpec.command as given


class ProcessInputClosed(ConnectionError):
    """The child's stdin/pty is gone; raised instead of BrokenPipe & co."""


@dataclass(frozen=True)
class ExitStatus:
    code: int | None  # None when killed by a signal
    signal: str | None  # e.g. "SIGTERM"; None on a normal exit

    @classmethod
    def from_returncode(cls, rc: int) -> "ExitStatus":
        """Popen-style rc (negative = signal number) to an ExitStatus."""
        if rc >= 0:
            return cls(rc, None)
        try:
            return cls(None, signal.Signals(-rc).name)
        except ValueError:
            return cls(None, f"SIG{-rc}")


# ------------------------------------------------------------------- base API
class AgentProcess:
    """What the runtime drives: line output, stdin, and group-wide signals."""

    pid: int
    pgid: int
    on_stderr_line: Callable[[str], None] | None

    def __init__(self, pid: int, *, stderr_tail_bytes: int = 65536) -> None:
        self.pid = pid  # the supervisor's pid (acp_mux.core.supervisor): it mirrors the agent's exit
        self.pgid = pid  # it leads a new session and process group, which the agent shares
        self.agent_pid = pid  # the agent program itself, once the supervisor reported it
        self.private_files: tuple[str, ...] = ()
        self.on_stderr_line = None
        self.eof_linger = DEFAULT_EOF_LINGER
        self._loop = asyncio.get_running_loop()
        self._exit: asyncio.Future[ExitStatus] = self._loop.create_future()
        self._exit.add_done_callback(lambda _f: TRACKER.release(self))
        self._exit.add_done_callback(lambda _f: remove_private_files(self.private_files))
        self._rc: int | None = None
        self._tail = TailBuffer(stderr_tail_bytes)
        self._stdout: PipeLines | None = None  # set by subclasses
        self._terminating: asyncio.Future[ExitStatus] | None = None

    # --- output
    async def lines(self) -> AsyncIterator[str]:
        """stdout lines, decoded with errors="replace", without line endings.

        One consumer at a time; a later call resumes where the last one stopped.
        """
        async for batch in self.line_batches(1):
            yield batch[0]

    async def line_batches(self, most: int) -> AsyncIterator[list[str]]:
        """stdout lines as :meth:`lines`, but every line already arrived at once (at most ``most``): a consumer that
        does per-batch work (the run's flush, the editor's write) does it once per burst of output, not per line."""
        assert self._stdout is not None
        decode = self._decode
        async for batch in self._stdout.batches(self._exit.done, lambda: self.eof_linger, self._abandon_stdout, most):
            yield [decode(line) for line in batch]

    def hold_output(self, seconds: float) -> None:
        """Read no more of stdout for ``seconds`` (see :meth:`PipeLines.hold`): what the agent writes meanwhile
        waits in the pipe and comes as one read."""
        if self._stdout is not None:
            self._stdout.hold(seconds)

    def _abandon_stdout(self) -> None:
        """The leader is gone and the pipe stayed silent for ``eof_linger`` s: stop waiting for it."""
        raise NotImplementedError

    def _decode(self, line: bytes | bytearray) -> str:
        return line.decode("utf-8", "replace")

    def stderr_tail(self) -> str:
        return self._tail.text()

    @property
    def stderr_dropped_bytes(self) -> int:
        """Bytes that fell out of the tail ring (for a 'data loss' warn event)."""
        return self._tail.dropped

    def _emit_stderr(self, line: bytes | bytearray) -> None:
        if (cb := self.on_stderr_line) is not None:
            try:
                cb(line.decode("utf-8", "replace"))
            except Exception:  # a bad callback must not stop the drain
                log.exception("on_stderr_line callback failed")

    # --- input (subclasses)
    async def write(self, data: str | bytes) -> None:
        raise NotImplementedError

    async def close_stdin(self) -> None:
        raise NotImplementedError

    # --- signals
    def send_signal_to_group(self, sig: int) -> None:
        pgroup.killpg(self.pgid, sig)

    def interrupt(self) -> None:
        self.send_signal_to_group(signal.SIGINT)

    def kill(self) -> None:
        self.send_signal_to_group(signal.SIGKILL)

    def group_alive(self) -> bool:
        return pgroup.group_alive(self.pgid)

    # --- lifecycle
    def _set_exit(self, rc: int) -> None:
        if not self._exit.done():
            self._rc = rc
            self._exit.set_result(ExitStatus.from_returncode(rc))

    @property
    def exited(self) -> bool:
        return self._exit.done()

    @property
    def returncode(self) -> int | None:
        """Popen-style: negative signal number when signalled; None while running."""
        return self._rc

    async def wait(self) -> ExitStatus:
        """Exit of the leader; does not wait for pipes held by grandchildren."""
        return await asyncio.shield(self._exit)

    async def terminate(self, grace: float = 5.0) -> ExitStatus:
        """SIGTERM the group, SIGKILL whatever is left after ``grace`` s. Idempotent."""
        if self._terminating is None:
            self._terminating = asyncio.ensure_future(self._terminate(grace))
        return await asyncio.shield(self._terminating)

    async def _terminate(self, grace: float) -> ExitStatus:
        if self.group_alive() or not self.exited:
            deadline = self._loop.time() + grace
            self.send_signal_to_group(signal.SIGTERM)
            self.send_signal_to_group(signal.SIGCONT)  # stopped processes can't die of TERM
            await asyncio.wait([self._exit], timeout=grace)
            while self.group_alive() and self._loop.time() < deadline:
                await asyncio.sleep(0.02)
            if self.group_alive() or not self.exited:
                self.kill()
            await asyncio.wait([self._exit], timeout=2.0)
            if not self.exited:  # the leader left its group (setpgid/setsid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
        status = await self.wait()
        for _ in range(50):  # SIGKILL is asynchronous; give the group <= 1 s
            if not self.group_alive():
                break
            await asyncio.sleep(0.02)
        TRACKER.release(self)  # forgotten now if the sweep emptied the group
        return status


# ------------------------------------------------------------------ pipe mode
class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Reports the leader's exit at once; Process.wait() also waits for pipes."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[int] = loop.create_future()
        # stdout goes to its lines as it arrives (output can come before PipeProcess exists), not to a StreamReader
        self.out = PipeLines(2 * limit, self._pause_stdout)

    def _pause_stdout(self, pause: bool) -> None:
        transport = getattr(self, "_transport", None)
        pipe = transport.get_pipe_transport(1) if transport else None
        if isinstance(pipe, asyncio.ReadTransport) and not pipe.is_closing():
            if pause:
                pipe.pause_reading()
            else:
                pipe.resume_reading()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 1 and isinstance(data, bytes):
            self.out.feed(data)
        else:
            super().pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.out.feed_eof()
        super().pipe_connection_lost(fd, exc)

    def process_exited(self) -> None:
        transport = getattr(self, "_transport", None)  # set by asyncio, not declared in its stubs
        rc = transport.get_returncode() if transport else None
        if not self.exited.done():
            self.exited.set_result(-1 if rc is None else rc)
        super().process_exited()


class PipeProcess(AgentProcess):
    def __init__(self, transport: asyncio.SubprocessTransport, proto: _Protocol, *, stderr_tail_bytes: int) -> None:
        super().__init__(transport.get_pid(), stderr_tail_bytes=stderr_tail_bytes)
        self._transport, self._proto = transport, proto
        proto.exited.add_done_callback(lambda f: self._set_exit(f.result()))
        assert proto.stdout and proto.stderr and proto.stdin
        self._stdin = proto.stdin
        self._stdout = proto.out
        self._exit.add_done_callback(lambda _f: proto.out.wake())  # a consumer waiting for output starts lingering
        err = proto.stderr
        self._stderr = LingeringReader(
            lambda: err.read(CHUNK), self._exit, lambda: self.eof_linger, lambda: self._close_pipe(2)
        )
        self._drain = asyncio.ensure_future(self._drain_stderr())

    def _abandon_stdout(self) -> None:
        self._close_pipe(1)

    def _close_pipe(self, fd: int) -> None:
        if (pipe := self._transport.get_pipe_transport(fd)) is not None:
            pipe.close()

    async def _drain_stderr(self) -> None:
        """Always running, so a chatty child never blocks on a full stderr pipe."""
        splitter = LineSplitter(max_line=max(self._tail.limit, 4096))
        while chunk := await self._stderr.read():
            self._tail.feed(chunk)
            for line in splitter.feed(chunk):
                self._emit_stderr(line)
        if (last := splitter.flush()) is not None:
            self._emit_stderr(last)

    async def write(self, data: str | bytes) -> None:
        if isinstance(data, str):
            data = encode(data)  # a lone surrogate must not fail the write and stall the turn
        if self._stdin.is_closing():  # asyncio would silently drop the data
            raise ProcessInputClosed(f"stdin of pid {self.pid} is closed")
        try:
            self._stdin.write(data)
            await self._stdin.drain()
        except (BrokenPipeError, ConnectionResetError, OSError) as e:
            raise ProcessInputClosed(f"stdin of pid {self.pid} is closed: {e}") from e

    async def close_stdin(self) -> None:
        if not self._stdin.is_closing():
            self._stdin.close()
            with contextlib.suppress(OSError):
                await self._stdin.wait_closed()


# ---------------------------------------------------------------------- spawn
def _read_at_most(pipe: asyncio.BaseTransport | None, size: int) -> None:
    """Make a pipe transport ask for ``size`` bytes a read (see PIPE_READ_SIZE). ``max_size`` is what asyncio's
    Unix pipe transport reads with (a class attribute, so one instance can differ); a transport without it (another
    event loop's) is left as it is."""
    if pipe is not None and isinstance(getattr(pipe, "max_size", None), int):
        setattr(pipe, "max_size", size)  # noqa: B010 (not in asyncio's typed interface: mypy would refuse pipe.max_size)


def resolve_command(spec: SpawnSpec) -> str:
    """Absolute path of the executable, or SpawnError saying what is wrong."""
    if spec.cwd is not None and not os.path.isdir(spec.cwd):
        what = "is not a directory" if os.path.exists(spec.cwd) else "does not exist"
        raise SpawnError(f"working directory '{spec.cwd}' {what}", spec.command)
    cmd = spec.command
    if not cmd:
        raise SpawnError("empty agent command", cmd)
    if os.sep in cmd:
        path = os.path.join(spec.cwd or os.getcwd(), cmd)
        if not os.path.exists(path):
            raise SpawnError(f"agent binary '{cmd}' not found", cmd)
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            raise SpawnError(f"permission denied executing {path}", cmd)
        return os.path.abspath(path)
    env_path = (spec.env if spec.env is not None else os.environ).get("PATH", os.defpath)
    found = shutil.which(cmd, path=env_path)
    if found:
        return os.path.abspath(found)
    for d in env_path.split(os.pathsep):  # present but not executable?
        cand = os.path.join(d or ".", cmd)
        if os.path.isfile(cand):
            raise SpawnError(f"permission denied executing {cand}", cmd)
    raise SpawnError(f"agent binary '{cmd}' not found on PATH", cmd)


def spawn_error_from_os(exc: OSError, path: str, spec: SpawnSpec) -> SpawnError:
    command = spec.command
    if spec.cwd is not None and exc.filename == spec.cwd:
        return SpawnError(f"cannot use working directory '{spec.cwd}': {exc.strerror}", command)
    if isinstance(exc, PermissionError):
        return SpawnError(f"permission denied executing {path}", command)
    if isinstance(exc, FileNotFoundError):
        return SpawnError(f"agent binary '{command}' not found ({exc.strerror or exc})", command)
    if exc.errno == errno.ENOEXEC:
        return SpawnError(f"cannot execute {path}: exec format error (missing #! line?)", command)
    return SpawnError(f"failed to start {path}: {exc.strerror or exc}", command)


def child_preexec() -> Callable[[], None] | None:
    """Undo SIG_IGN dispositions we would otherwise pass on (None if none)."""
    ignored = [s for s in _RESET_SIGNALS if signal.getsignal(s) is signal.SIG_IGN]
    if not ignored:
        return None

    def reset() -> None:
        for s in ignored:
            signal.signal(s, signal.SIG_DFL)

    return reset


async def spawn(
    spec: SpawnSpec, *, stderr_tail_bytes: int = 65536, on_stderr_line: Callable[[str], None] | None = None
) -> AgentProcess:
    """Start the agent under a supervisor (:mod:`acp_mux.core.supervisor`) in a new session and process group,
    and register it.

    The supervisor ends the agent and what it started if this process dies in any way, even by SIGKILL; it exits the
    way the agent does, so ``wait()`` reports the agent's own status. ``on_stderr_line`` may also be assigned right
    after this returns (before the next await) without missing a line.
    """
    path = resolve_command(spec)
    written = write_private_files(spec.private_files)
    status_r, status_w = supervision.status_pipe()
    argv = supervision.command(path, list(spec.args), status_w, written)
    try:
        loop = asyncio.get_running_loop()
        try:
            transport, proto = await loop.subprocess_exec(
                lambda: _Protocol(CHUNK, loop),
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                env=spec.env,
                cwd=spec.cwd,
                pass_fds=(supervision.watch_fd(), status_w),
            )
        except OSError as e:
            raise spawn_error_from_os(e, path, spec) from e
        for fd in (1, 2):
            _read_at_most(transport.get_pipe_transport(fd), PIPE_READ_SIZE)
        proc: AgentProcess = PipeProcess(transport, proto, stderr_tail_bytes=stderr_tail_bytes)
    except BaseException:
        os.close(status_r)
        remove_private_files(written)
        raise
    finally:
        os.close(status_w)
    proc.private_files = written
    try:
        proc.agent_pid = await supervision.read_status(status_r)
    except supervision.StartFailed as e:
        await proc.wait()
        raise spawn_error_from_os(OSError(e.errno, e.strerror, path), path, spec) from e
    proc.on_stderr_line = on_stderr_line
    if not proc.exited:
        TRACKER.register(proc)
    return proc
