"""Process layer: spawn agent CLIs in their own process group and talk to them.

Every agent runs on pipes (the spec's PTY mode was dropped: no supported CLI needs a terminal; openclaw, the one
the spec marked ``requires_pty``, is driven through ``openclaw acp``).  An agent is started without an event loop
(:func:`start`: the launcher starts one before the bridge's loop exists, :mod:`acp_mux.core.process.prestart`) and taken up
by one (:func:`attach`); :func:`spawn` does both. Reading is plain asyncio (no reader threads); one thread per
agent waits for its exit, as asyncio's own child watcher does on Python 3.11. stdout is split into lines where the
pipe's reads arrive (:mod:`acp_mux.core.process.pipe_lines`).
Our own stdin/stdout carry JSON-RPC, so a child never inherits them.
Line splitting is in :mod:`acp_mux.core.process.lines`, end-of-output in
:mod:`acp_mux.core.process.linger`, group signalling in :mod:`acp_mux.core.process.pgroup`, and the
kill-everything-at-exit registry in :mod:`acp_mux.core.process.tracker`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from acp_mux.core.process.linger import LingeringReader
from acp_mux.core.process.lines import LineSplitter, TailBuffer
from acp_mux.core.process.pipe_lines import PipeLines
from acp_mux.core.process import pgroup
from acp_mux.core.process import prestart
from acp_mux.core.process import supervision
from acp_mux.core.files.private import remove_private_files, write_private_files
from acp_mux.core.text.safe import encode
from acp_mux.core.process.tracker import TRACKER

log = logging.getLogger(__name__)

CHUNK = 1 << 20  # read size; also the StreamReader limit (pauses at 2x)
# What one read of the agent's stdout or stderr asks for. asyncio's pipe transport asks for 256 KiB, and os.read
# allocates what it asks for before it knows what came: above glibc's 128 KiB mmap threshold that is an mmap, a page
# fault, an mremap and a munmap around every read, four system calls for a 200-byte chunk (strace of a streamed
# reply). 64 KiB is a whole pipe buffer (Linux's default), served from the heap.
PIPE_READ_SIZE = 64 * 1024
DEFAULT_EOF_LINGER = 0.5  # seconds to wait for pipe EOF once the leader exited
# How long past its grace a supervisor told to sweep gets before the group-wide SIGKILL (which ends it too)
SUPERVISOR_SWEEP_MARGIN_S = 0.5


@dataclass(frozen=True)
class SpawnSpec:
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None  # full environment; None = inherit
    cwd: str | None = None
    # (path, text) written 0600 before the agent starts and removed when it ends (by the supervisor too, if the
    # bridge is killed): how secrets reach an agent without its command line (see acp_mux.core.files.private)
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
        self.pid = pid  # the supervisor's pid (acp_mux.core.process.supervisor): it mirrors the agent's exit
        self.pgid = pid  # it leads a new session and process group, which the agent shares
        self.agent_pid = pid  # the agent program itself, once the supervisor reported it
        self.private_files: tuple[str, ...] = ()
        self.lifeline: int | None = (
            None  # its supervisor's lifeline (acp_mux.core.process.supervision): how it is stopped
        )
        self.on_stderr_line = None
        self.eof_linger = DEFAULT_EOF_LINGER
        self._loop = asyncio.get_running_loop()
        self._exit: asyncio.Future[ExitStatus] = self._loop.create_future()
        self._exit.add_done_callback(lambda _f: TRACKER.release(self))
        self._exit.add_done_callback(lambda _f: remove_private_files(self.private_files))
        self._exit.add_done_callback(lambda _f: self._let_go_of_supervisor())
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
    def _let_go_of_supervisor(self) -> None:
        """The supervisor (the leader) exited, having swept what left the group: its lifeline's end is let go."""
        if self.lifeline is not None:
            supervision.stop(self.lifeline)

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
        """End the agent and everything it started: SIGTERM, SIGKILL whatever is left after ``grace`` s. Idempotent.

        Every stop of an agent comes here (a switch, session/close and delete, the end of a run or of the API's
        context, a failover switch, a timeout): its supervisor is told to sweep (:func:`supervision.stop`), the one
        sweep that also finds what left the process group (``setsid``, daemonizing children), the same the bridge's
        death sets off. The group is signalled here too, for what the supervisor cannot reach (it is gone, or this
        is not Linux); the group-wide SIGKILL, which would end the supervisor mid-sweep, waits for its sweep."""
        if self._terminating is None:
            self._terminating = asyncio.ensure_future(self._terminate(grace))
        return await asyncio.shield(self._terminating)

    async def _terminate(self, grace: float) -> ExitStatus:
        swept = self.lifeline is not None and supervision.stop(self.lifeline, grace)
        if self.group_alive() or not self.exited:
            deadline = self._loop.time() + grace + (SUPERVISOR_SWEEP_MARGIN_S if swept else 0.0)
            self.send_signal_to_group(signal.SIGTERM)
            self.send_signal_to_group(signal.SIGCONT)  # stopped processes can't die of TERM
            await asyncio.wait([self._exit], timeout=max(0.0, deadline - self._loop.time()))
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
class _StdoutProtocol(asyncio.Protocol):
    """The agent's stdout: each read goes to its lines as it arrives (:class:`PipeLines`), which pause the pipe
    while too much waits for the consumer."""

    def __init__(self, limit: int) -> None:
        self.out = PipeLines(2 * limit, self._pause)
        self.transport: asyncio.ReadTransport | None = None
        self.closed = False
        self.on_closed: Callable[[], None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, asyncio.ReadTransport):
            self.transport = transport

    def _pause(self, pause: bool) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            if pause:
                transport.pause_reading()
            else:
                transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        self.out.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.out.feed_eof()
        if self.on_closed is not None:
            self.on_closed()


class PipeProcess(AgentProcess):
    """An agent on three pipes. Its exit is reported by a thread that waits for it, as asyncio's own subprocess
    support does on Python 3.11; unlike that support, this takes up a process started without an event loop
    (:func:`start`), so the launcher can start an agent before the bridge's loop exists (:mod:`.prestart`)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: asyncio.StreamWriter,
        stdout: _StdoutProtocol,
        stderr: asyncio.StreamReader,
        pipes: dict[int, asyncio.BaseTransport],
        *,
        stderr_tail_bytes: int,
    ) -> None:
        super().__init__(popen.pid, stderr_tail_bytes=stderr_tail_bytes)
        self._pipes = pipes
        self._open_outputs = {2} if stdout.closed else {1, 2}  # both closed and the leader gone: stdin is closed too
        stdout.on_closed = lambda: self._output_closed(1)
        self._stdin = stdin
        self._stdout = stdout.out
        self._exit.add_done_callback(lambda _f: stdout.out.wake())  # a consumer waiting for output starts lingering
        self._exit.add_done_callback(lambda _f: self._close_when_done())
        self._stderr = LingeringReader(
            lambda: stderr.read(CHUNK), self._exit, lambda: self.eof_linger, lambda: self._close_pipe(2)
        )
        self._drain = asyncio.ensure_future(self._drain_stderr())
        threading.Thread(
            target=_report_exit, args=(popen, self._loop, self._set_exit), name=f"acp-mux-wait-{popen.pid}", daemon=True
        ).start()

    @classmethod
    async def take_up(cls, popen: subprocess.Popen[bytes], *, stderr_tail_bytes: int) -> "PipeProcess":
        """The running ``popen`` (started with three pipes) on this event loop."""
        assert popen.stdin and popen.stdout and popen.stderr
        loop = asyncio.get_running_loop()
        stdout = _StdoutProtocol(CHUNK)
        out_pipe, _ = await loop.connect_read_pipe(lambda: stdout, popen.stdout)
        _read_at_most(out_pipe, PIPE_READ_SIZE)  # before its first read, which the loop's next turn may do
        stderr = asyncio.StreamReader(limit=CHUNK, loop=loop)
        err_pipe, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stderr, loop=loop), popen.stderr
        )
        _read_at_most(err_pipe, PIPE_READ_SIZE)
        # a StreamReaderProtocol is asyncio's public flow-control protocol: it gives the writer its drain()
        in_pipe, in_proto = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop), popen.stdin
        )
        stdin = asyncio.StreamWriter(in_pipe, in_proto, None, loop)
        pipes = {0: in_pipe, 1: out_pipe, 2: err_pipe}
        return cls(popen, stdin, stdout, stderr, pipes, stderr_tail_bytes=stderr_tail_bytes)

    def _abandon_stdout(self) -> None:
        self._close_pipe(1)

    def _close_pipe(self, fd: int) -> None:
        if (pipe := self._pipes.get(fd)) is not None and not pipe.is_closing():
            pipe.close()

    def _output_closed(self, fd: int) -> None:
        self._open_outputs.discard(fd)
        self._close_when_done()

    def _close_when_done(self) -> None:
        """After the leader's exit and the end of both outputs, close stdin too (what asyncio's subprocess transport
        did), so nothing of the agent stays open in the bridge."""
        if self.exited and not self._open_outputs:
            self._close_pipe(0)

    async def _drain_stderr(self) -> None:
        """Always running, so a chatty child never blocks on a full stderr pipe."""
        splitter = LineSplitter(max_line=max(self._tail.limit, 4096))
        while chunk := await self._stderr.read():
            self._tail.feed(chunk)
            for line in splitter.feed(chunk):
                self._emit_stderr(line)
        if (last := splitter.flush()) is not None:
            self._emit_stderr(last)
        self._output_closed(2)

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


def _report_exit(
    popen: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop, report: Callable[[int], None]
) -> None:
    """On its own thread: wait for the leader, then tell the loop its Popen-style return code."""
    rc = popen.wait()
    with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits for this exit any more
        loop.call_soon_threadsafe(report, rc)


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


@dataclass(eq=False)
class Started:
    """An agent started and not yet taken up by an event loop (:func:`start`, then :func:`attach`)."""

    spec: SpawnSpec
    path: str  # the executable, resolved
    popen: subprocess.Popen[bytes]  # the supervisor, the agent's process group leader
    status_r: int  # where the supervisor reports the agent's start (acp_mux.core.process.supervision)
    written: tuple[str, ...]  # the private files written for it, removed when it ends
    lifeline: int  # the write end of its supervisor's lifeline (acp_mux.core.process.supervision)

    def end(self) -> None:
        """:func:`end` this agent (what the launcher's slot calls: :mod:`acp_mux.core.process.prestart`)."""
        end(self)


def start(spec: SpawnSpec) -> Started:
    """Start the agent under a supervisor (:mod:`acp_mux.core.process.supervisor`) in a new session and process group, on
    three pipes, without an event loop: :func:`attach` then takes it up on one. The launcher starts an agent this
    way before the bridge's loop exists (:mod:`acp_mux.core.process.prestart`); :func:`spawn` does both at once."""
    path = resolve_command(spec)
    written = write_private_files(spec.private_files)
    status_r, status_w = supervision.status_pipe()
    watch_r, lifeline = supervision.lifeline()
    argv = supervision.command(path, list(spec.args), watch_r, status_w, written)
    try:
        popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            start_new_session=True,
            env=spec.env,
            cwd=spec.cwd,
            pass_fds=(watch_r, status_w),
        )
    except BaseException as e:
        os.close(status_r)
        supervision.stop(lifeline)
        remove_private_files(written)
        if isinstance(e, OSError):
            raise spawn_error_from_os(e, path, spec) from e
        raise
    finally:
        os.close(status_w)
        os.close(watch_r)
    return Started(spec, path, popen, status_r, written, lifeline)


def end(started: Started) -> None:
    """End an agent :func:`start` started that nothing took up, and everything it started: its supervisor sweeps at
    once (SIGKILL, :func:`supervision.stop`), its private files go, and the supervisor is reaped on a thread
    (nothing waits for it), its group SIGKILLed there should it not have ended by itself within a second."""
    supervision.stop(started.lifeline, 0.0)
    with contextlib.suppress(OSError):
        os.close(started.status_r)
    remove_private_files(started.written)
    threading.Thread(
        target=_reap_ended, args=(started.popen,), name=f"acp-mux-reap-{started.popen.pid}", daemon=True
    ).start()


def _reap_ended(popen: subprocess.Popen[bytes]) -> None:
    try:
        popen.wait(1.0)
    except subprocess.TimeoutExpired:  # (not reaped yet, so its group is still its own)
        pgroup.killpg(popen.pid, signal.SIGKILL)
        popen.wait()


async def attach(
    started: Started, *, stderr_tail_bytes: int = 65536, on_stderr_line: Callable[[str], None] | None = None
) -> AgentProcess:
    """Take up an agent :func:`start` started, on the running loop, and register it (:data:`TRACKER`)."""
    try:
        proc = await PipeProcess.take_up(started.popen, stderr_tail_bytes=stderr_tail_bytes)
    except BaseException:
        end(started)
        raise
    proc.private_files = started.written
    proc.lifeline = started.lifeline
    try:
        proc.agent_pid = await supervision.read_status(started.status_r)
    except supervision.StartFailed as e:
        await proc.wait()
        raise spawn_error_from_os(OSError(e.errno, e.strerror, started.path), started.path, started.spec) from e
    proc.on_stderr_line = on_stderr_line
    if not proc.exited:
        TRACKER.register(proc)
    return proc


async def spawn(
    spec: SpawnSpec, *, stderr_tail_bytes: int = 65536, on_stderr_line: Callable[[str], None] | None = None
) -> AgentProcess:
    """The agent for ``spec``, running under its supervisor and registered: the one the launcher started early for
    exactly this spec, if there is one (:func:`acp_mux.core.process.prestart.claim`), else a new one (:func:`start`).

    The supervisor ends the agent and what it started if this process dies in any way, even by SIGKILL; it exits the
    way the agent does, so ``wait()`` reports the agent's own status. ``on_stderr_line`` may also be assigned right
    after this returns (before the next await) without missing a line.
    """
    kept = prestart.claim(spec)
    if isinstance(kept, Started):  # the slot holds only what start() returned
        log.info("the run takes the agent the launcher started (pid %d)", kept.popen.pid)
        started = kept
    else:
        started = start(spec)
    return await attach(started, stderr_tail_bytes=stderr_tail_bytes, on_stderr_line=on_stderr_line)
