"""A tiny supervisor between the bridge and each agent, so the agent's life depends on the bridge's.

Why: an editor may kill the bridge with SIGKILL. Nothing in the bridge runs then, so its process tracker cannot
clean up, and the agent (and whatever it started) would live on, re-parented to init. So every agent is started
through this script, run as ``python -I -S supervisor.py WATCH_FD STATUS_FD [--rm PATH]... -- PROGRAM ARGS...``:

* it is the leader of the agent's process group (the bridge starts it in a new session) and starts the agent in
  that group, with default signal dispositions, on the stdin/stdout/stderr it was given;
* it reports ``ok <pid>`` (or ``err <errno> <message>`` when the program cannot be started) on STATUS_FD, so the
  bridge still raises a readable spawn error;
* it ignores the signals the bridge sends the whole group to interrupt or end the agent (the agent gets them
  directly), reaps children, and when the agent exits it exits the same way (same code, or the same signal), so the
  bridge sees the agent's own exit status;
* it watches WATCH_FD, the read end of this agent's lifeline, a pipe whose only write end lives in the bridge:
  end-of-file means the agent is to end — the bridge stops it (a switch, a close, the end of a run: it may first
  write the seconds of grace it gives), or the bridge is gone (exited, crashed or SIGKILLed — the kernel closes the
  pipe in every case). Then it sends SIGTERM to its group and to every descendant that left it, waits (the grace
  written, else briefly), sends SIGKILL, removes the ``--rm`` files (private files such as an MCP config holding
  secrets) and exits the way the agent did;
* when the agent exits by itself, it ends whatever the agent started that left the group before it exits too: once
  it is gone nothing can find those (its group's members the bridge still can, and ends when it stops the agent).

Why a separate process rather than PR_SET_PDEATHSIG: the death signal reaches only the direct child, fires when the
forking *thread* exits, and does not exist on macOS; a pipe's end-of-file is portable and also lets the supervisor
sweep the agent's own children.

Children that leave the group with ``setsid``: on Linux the supervisor makes itself a child subreaper
(PR_SET_CHILD_SUBREAPER), so descendants orphaned by their parent's death are re-parented to it rather than to init,
and it finds every descendant through /proc — they are swept too. Elsewhere (macOS has no subreaper and no /proc)
only the process group is swept: a descendant that both calls ``setsid`` and outlives its parent escapes. Nothing
launched through another service manager (systemd-run, launchctl, a container daemon) can be reached on any
platform. And a supervisor killed with SIGKILL itself (the bridge's last resort, group-wide) cannot sweep anything.

Standard library only and no imports beyond the interpreter's own, so it starts in a few milliseconds.
"""

from __future__ import annotations

import errno
import os
import select
import signal
import sys
import time

_IGNORED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE", "SIGTTIN", "SIGTTOU", "SIGUSR1", "SIGUSR2")
_RESET = (
    "SIGINT",
    "SIGTERM",
    "SIGHUP",
    "SIGQUIT",
    "SIGPIPE",
    "SIGTSTP",
    "SIGTTIN",
    "SIGTTOU",
    "SIGCHLD",
    "SIGUSR1",
    "SIGUSR2",
    "SIGALRM",
    "SIGWINCH",
)
SWEEP_GRACE_S = 0.5  # between SIGTERM and SIGKILL once the bridge is gone (or gave no grace of its own)
ESCAPED_GRACE_S = 0.3  # between SIGTERM and SIGKILL for what left the group, once the agent exited by itself


def _signals(names: tuple[str, ...]) -> list[int]:
    return [getattr(signal, n) for n in names if hasattr(signal, n)]


def _subreaper() -> None:
    """Linux: become the child subreaper of everything below us (best effort)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:
        pass


def descendants(root: int, outside_group: bool = False) -> list[int]:
    """Every live descendant of ``root`` (Linux /proc), whatever process group or session it moved to; with
    ``outside_group``, only those no longer in the process group ``root`` leads."""
    children: dict[int, list[int]] = {}
    groups: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] in (b"Z", b"X"):
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
        groups[int(name)] = int(fields[2])
    found: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return [pid for pid in found if groups.get(pid) != root] if outside_group else found


def signal_all(sig: int, me: int) -> None:
    """``sig`` to the group ``me`` leads and to every descendant that left it (also used by the openclaw keeper)."""
    try:
        os.killpg(me, sig)  # our group: the agent and everything that stayed in it (us too; we ignore TERM)
    except OSError:
        pass
    for pid in descendants(me):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _remove(paths: list[str]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def _reap(agent: int) -> int | None:
    """Reap every exited child; the agent's wait status if it was among them."""
    status = None
    while True:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        except InterruptedError:
            continue
        if pid == 0:
            return status
        if pid == agent:
            status = code


def _exit_like(status: int, paths: list[str]) -> None:
    """Exit the way the agent did, so the bridge sees its status: the same code, or the same signal."""
    _remove(paths)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the agent may have dumped core; we must not
        except Exception:
            pass
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset (signal() raises)
            try:
                signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            except (OSError, ValueError):
                pass
        try:
            os.kill(os.getpid(), sig)
        except OSError:
            pass
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _sweep(paths: list[str], agent: int, status: int | None, grace: float) -> None:
    """The agent is to end (the bridge stopped it, or is gone): end it and everything it started, then go, the way
    the agent went when it was seen to go (else as SIGKILLed)."""
    me = os.getpid()
    signal_all(signal.SIGTERM, me)
    signal_all(signal.SIGCONT, me)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        status = _reap(agent) if status is None else (_reap(-1) or status)
        if not descendants(me) and sys.platform.startswith("linux"):
            break
        time.sleep(0.02)
    if status is None:  # it may have ended between the reap and the look at /proc (which skips the unreaped)
        status = _reap(agent)
    _remove(paths)
    for pid in descendants(me):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if status is not None and sys.platform.startswith("linux"):  # (elsewhere the group may hold what /proc missed)
        _exit_like(status, paths)
    os.killpg(me, signal.SIGKILL)  # last: this ends us too


def _end_escaped(me: int) -> None:
    """The agent exited by itself: end what it started that left the group (``setsid``, a daemon), which nothing
    can find once we are gone. Its group's members are left to the bridge, which ends them when it stops the agent."""
    escaped = descendants(me, outside_group=True)
    if not escaped:
        return
    for sig in (signal.SIGTERM, signal.SIGCONT):
        for pid in escaped:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
    deadline = time.monotonic() + ESCAPED_GRACE_S
    while escaped and time.monotonic() < deadline:
        time.sleep(0.02)
        _reap(-1)
        escaped = descendants(me, outside_group=True)
    for pid in escaped:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def main(argv: list[str]) -> None:
    watch_fd, status_fd = int(argv[0]), int(argv[1])
    rest = argv[2:]
    paths: list[str] = []
    while rest and rest[0] == "--rm":
        paths.append(rest[1])
        rest = rest[2:]
    if rest and rest[0] == "--":
        rest = rest[1:]
    program, args = rest[0], rest
    if os.getpid() != os.getpgrp():
        try:
            os.setsid()
        except OSError:
            pass
    _subreaper()
    for fd in (watch_fd, status_fd):
        os.set_inheritable(fd, False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd hears about exits
    for sig in _signals(_IGNORED):
        signal.signal(sig, signal.SIG_IGN)
    try:
        agent = os.posix_spawn(program, args, os.environ, setsigdef=_signals(_RESET), setsigmask=[])
    except OSError as exc:
        os.write(status_fd, f"err {exc.errno or errno.EIO} {exc.strerror or exc}\n".encode())
        _remove(paths)
        os._exit(127)
    try:
        os.write(status_fd, f"ok {agent}\n".encode())
    except OSError:  # nobody reads the report any more: the bridge gave this agent up before it started
        _sweep(paths, agent, None, 0.0)
    os.close(status_fd)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the agent owns the stdio pipes now: we must not keep them open
        os.dup2(null, fd)
    os.close(null)
    grace = SWEEP_GRACE_S
    while True:
        status = _reap(agent)
        if status is not None:
            _end_escaped(os.getpid())
            _exit_like(status, paths)
        try:
            ready, _, _ = select.select([watch_fd, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in ready:
            try:
                os.read(wake_r, 512)
            except BlockingIOError:
                pass
        if watch_fd in ready:
            try:
                data = os.read(watch_fd, 512)
            except OSError:
                data = b""
            if not data:
                _sweep(paths, agent, _reap(agent), grace)
            grace = _grace(data, grace)


def _grace(data: bytes, grace: float) -> float:
    """The seconds of grace the bridge wrote on the lifeline before closing it (the last number), else ``grace``."""
    for word in reversed(data.split()):
        try:
            value = float(word)
        except ValueError:
            continue
        if 0.0 <= value <= 3600.0:
            return value
    return grace


if __name__ == "__main__":
    main(sys.argv[1:])
