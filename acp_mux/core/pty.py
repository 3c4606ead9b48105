"""PTY mode (spec §7) for agents that insist on a terminal.

ptyprocess does the fork/setsid/ctty/exec dance; we only keep its master fd
and drive it with ``loop.add_reader`` (non-blocking, no threads).  Output is
one merged stream; lines are stripped of VT escape sequences.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Callable
from typing import Any

from ptyprocess import PtyProcess

from .linger import LingeringReader
from .lines import TailBuffer
from .process import (AgentProcess, ProcessInputClosed, SpawnError, SpawnSpec, child_preexec,
                      spawn_error_from_os)

COLS, ROWS = 120, 40
_READ = 65536
_HIGH_WATER = 1 << 20   # stop reading the pty while this much is unconsumed

_ESCAPES = re.compile(r"""
      (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]          # CSI (incl. 8-bit form)
    | (?:\x1b\]|\x9d) [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)?   # OSC ... BEL/ST
    | \x1b [PX^_] [^\x1b\x9c]* (?:\x1b\\|\x9c)?     # DCS / SOS / PM / APC
    | \x1b [ -/]* [0-~]                             # charset select, ESC 7, ESC =, ...
    | \x1b                                          # stray ESC
""", re.VERBOSE)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # keeps \t; \r handled first


def strip_terminal(line: str) -> str:
    """Plain text of one terminal line.

    Escape sequences go; for carriage returns (spinners, progress bars) the
    last non-empty ``\\r`` segment wins -- what a line parser wants, rather
    than emulating column overwrites.
    """
    line = _ESCAPES.sub("", line)
    if "\r" in line:
        segs = [s for s in line.split("\r") if s]
        line = segs[-1] if segs else ""
    return _CONTROLS.sub("", line)


class _MasterReader:
    """Eagerly reads the master fd into a buffer; pauses above a high-water mark."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, tail: TailBuffer,
                 on_eof: Callable[[], None]) -> None:
        self._loop, self._fd, self._tail, self._on_eof = loop, fd, tail, on_eof
        self._buf = bytearray()
        self._waiter: asyncio.Future[None] | None = None
        self._reading = False
        self.eof = False
        self._resume()

    def _resume(self) -> None:
        if not self._reading and not self.eof:
            self._loop.add_reader(self._fd, self._on_readable)
            self._reading = True

    def _pause(self) -> None:
        if self._reading:
            self._loop.remove_reader(self._fd)
            self._reading = False

    def _on_readable(self) -> None:
        try:
            data = os.read(self._fd, _READ)
        except BlockingIOError:
            return
        except OSError:  # EIO: every slave fd is closed (the child is gone)
            data = b""
        if data:
            self._buf += data
            self._tail.feed(data)
            if len(self._buf) > _HIGH_WATER:
                self._pause()
        else:
            self.close()
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def close(self) -> None:
        """Stop reading for good (EOF, or abandoned after the leader exited)."""
        self._pause()
        if not self.eof:
            self.eof = True
            self._on_eof()
        self._wake()

    async def read(self) -> bytes:
        while not self._buf and not self.eof:
            self._waiter = self._loop.create_future()
            await self._waiter
        data, self._buf = bytes(self._buf), bytearray()
        self._resume()
        return data


class PtyAgentProcess(AgentProcess):
    """An agent on a pseudo-terminal; stdout and stderr are one stream."""

    def __init__(self, pp: PtyProcess, *, stderr_tail_bytes: int) -> None:
        super().__init__(pp.pid, stderr_tail_bytes=stderr_tail_bytes)
        self._pp = pp          # keep it: its file object owns the master fd
        self._fd = pp.fd
        self._fd_closed = False
        os.set_blocking(self._fd, False)
        self._master = _MasterReader(self._loop, self._fd, self._tail, self._maybe_close_fd)
        self._stdout = LingeringReader(self._master.read, self._exit,
                                        lambda: self.eof_linger, self._master.close)
        self._watch_exit()

    # --- exit detection: pidfd where available, else polling waitpid
    def _watch_exit(self) -> None:
        try:
            pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self._poll_exit()
            return

        def on_ready() -> None:
            if self._reap():
                self._loop.remove_reader(pidfd)
                os.close(pidfd)
        self._loop.add_reader(pidfd, on_ready)

    def _poll_exit(self) -> None:
        if not self._reap():
            self._loop.call_later(0.05, self._poll_exit)

    def _reap(self) -> bool:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, 255 << 8   # someone else reaped it
        if pid == 0:
            return False
        rc = os.waitstatus_to_exitcode(status)
        self._pp.terminated = True
        self._set_exit(rc)
        # a grandchild may keep the slave open: don't wait for EIO forever
        self._loop.call_later(self.eof_linger + 0.5, self._abandon_if_quiet)
        self._maybe_close_fd()
        return True

    def _abandon_if_quiet(self) -> None:
        if not self._master.eof and not self._master._buf:
            self._master.close()

    def _maybe_close_fd(self) -> None:
        """Close the master once the child is reaped and output is drained."""
        if self._fd_closed or not (self._exit.done() and self._master.eof):
            return
        self._fd_closed = True
        self._pp.closed = True   # keep ptyprocess' __del__ away from waitpid
        try:
            self._pp.fileobj.close()
        except OSError:
            pass

    # --- output
    def _decode(self, line: bytes | bytearray) -> str:
        return strip_terminal(line.decode("utf-8", "replace"))

    def stderr_tail(self) -> str:
        """stderr is merged into the pty: the tail of all output, escapes stripped."""
        return "\n".join(strip_terminal(s) for s in self._tail.text().split("\n"))

    # --- input
    async def write(self, data: str | bytes) -> None:
        """Write to the pty (note: canonical mode caps a line at ~4 KiB)."""
        view = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
        while view:
            if self._fd_closed or self._exit.done():
                raise ProcessInputClosed(f"pty of pid {self.pid} is closed")
            try:
                n = os.write(self._fd, view)
            except BlockingIOError:
                await self._writable()
                continue
            except OSError as e:
                raise ProcessInputClosed(f"pty of pid {self.pid} is closed: {e}") from e
            view = view[n:]

    async def _writable(self) -> None:
        fut: asyncio.Future[None] = self._loop.create_future()

        def ready() -> None:
            if not fut.done():
                fut.set_result(None)

        self._loop.add_writer(self._fd, ready)
        try:
            waiters: list[asyncio.Future[Any]] = [fut, self._exit]  # writable, or the child is gone
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._loop.remove_writer(self._fd)

    def _send_control(self, byte: bytes) -> bool:
        """Best-effort, synchronous write of one control character."""
        if self._fd_closed:
            return False
        try:
            return os.write(self._fd, byte) == 1
        except OSError:
            return False

    async def close_stdin(self) -> None:
        """Send VEOF (Ctrl-D); a pty has no separate stdin to close."""
        self._send_control(b"\x04")

    # --- signals via the line discipline
    def interrupt(self) -> None:
        """Ctrl-C: the tty turns it into SIGINT (or a raw-mode TUI sees the key)."""
        if not self._send_control(b"\x03"):
            self.send_signal_to_group(signal.SIGINT)

    def suspend(self) -> None:
        """Ctrl-Z, then SIGSTOP: tty-generated SIGTSTP is discarded by the
        kernel for our orphaned session-leader group (see AgentProcess.suspend)."""
        self._send_control(b"\x1a")
        self.send_signal_to_group(signal.SIGSTOP)


async def spawn_pty(spec: SpawnSpec, path: str | None = None, *,
                    stderr_tail_bytes: int = 65536, echo: bool = False,
                    argv: list[str] | None = None, pass_fds: tuple[int, ...] = ()) -> PtyAgentProcess:
    """Spawn ``spec`` on a 120x40 xterm-256color pty in its own session.

    Echo is off by default so text we write is not parsed back as agent output. ``argv`` replaces the command line
    (the supervisor's, from :func:`acp_mux.core.process.spawn`), with ``pass_fds`` kept open for it.
    """
    if path is None:
        from .process import resolve_command
        path = resolve_command(spec)
    env = dict(os.environ if spec.env is None else spec.env)
    env["TERM"] = "xterm-256color"
    reset = child_preexec()
    cwd = spec.cwd

    def preexec() -> None:  # chdir here: ptyprocess' own chdir error escapes the child
        if cwd is not None:
            try:
                os.chdir(cwd)
            except OSError as e:
                raise RuntimeError(f"cannot use working directory '{cwd}': {e.strerror}") from e
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        if reset is not None:
            reset()
        for fd in pass_fds:  # ptyprocess keeps them open but leaves close-on-exec set
            os.set_inheritable(fd, True)
    try:
        pp = PtyProcess.spawn(argv or [path, *spec.args], env=env, echo=echo, preexec_fn=preexec,
                              dimensions=(ROWS, COLS), pass_fds=pass_fds)
    except OSError as e:
        raise spawn_error_from_os(e, path, spec) from e
    except Exception as e:  # ptyprocess re-raises child errors by class name
        raise SpawnError(f"failed to start {path}: {e}", spec.command) from e
    return PtyAgentProcess(pp, stderr_tail_bytes=stderr_tail_bytes)


__all__ = ["PtyAgentProcess", "spawn_pty", "strip_terminal", "COLS", "ROWS"]
