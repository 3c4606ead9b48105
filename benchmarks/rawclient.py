"""The benchmark's ACP client: pipes and newline-delimited JSON, ~200 lines, no SDK and no pydantic.

Why a raw client: the point is to measure the server (acp-mux or a reference adapter), so the client must cost
next to nothing and never share a process with it. It parses only what it needs: ``session/update`` lines are
counted, and only those carrying content are decoded; ``session/request_permission`` is answered with the allow
option. CPU time and memory come from ``/proc/<pid>/stat`` and ``/proc/<pid>/status`` of the server and of its
descendants, read separately, so neither the client nor the agent CLI is billed to the server.

Every server runs in its own process group (``start_new_session``) and :meth:`AcpProcess.close` ends the whole
group and every descendant it can still see, because some servers do not exit on stdin EOF (codex-acp 0.16.0) and
a leftover CLI would steal CPU from the next measurement.
"""

from __future__ import annotations

import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The demo agent echoes a plain prompt only when asked: the benchmarks time replies, not its write-and-edit tour.
os.environ.setdefault("SCRIPTED_AGENT_ECHO", "1")

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
# acp-mux writes compact JSON with its keys in this order; other servers' lines are recognised by parsing them.
NOTIFICATION_PREFIX = b'{"jsonrpc":"2.0","method":"session/update"'
REQUEST_TIMEOUT_S = 300.0


# ── /proc readers ──────────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class CpuTimes:
    """CPU seconds of one process: its own (user+sys) and that of its reaped children (cutime+cstime)."""

    self_s: float = 0.0
    children_s: float = 0.0

    def __sub__(self, other: "CpuTimes") -> "CpuTimes":
        return CpuTimes(self.self_s - other.self_s, self.children_s - other.children_s)


def cpu_times(pid: int | None) -> CpuTimes:
    """From /proc/<pid>/stat; zeros when the process is gone (so a delta never crashes the run)."""
    if pid is None:
        return CpuTimes()
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except OSError:
        return CpuTimes()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])  # fields 14-17 of proc(5), after "pid (comm)"
    return CpuTimes((utime + stime) / CLK_TCK, (cutime + cstime) / CLK_TCK)


def memory_kib(pid: int | None) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) in KiB; VmHWM is the high-water mark since the process started."""
    out = {"VmRSS": 0, "VmHWM": 0}
    if pid is None:
        return out
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key = line.split(":", 1)[0]
                if key in out:
                    out[key] = int(line.split()[1])
    except OSError:
        pass
    return out


def rss_kib(pid: int) -> int:
    """Current RSS from /proc/<pid>/statm: cheaper than parsing status, for reads right after an answer."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * PAGE_KIB
    except OSError:
        return 0


def child_pids(pid: int) -> list[int]:
    """Direct children of ``pid`` (all threads)."""
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid``, nearest first (the agent CLI a server started, and what that started)."""
    found, frontier = [], child_pids(pid)
    while frontier:
        found += frontier
        frontier = [c for p in frontier for c in child_pids(p)]
    return found


def tree_rss_kib(pid: int) -> int:
    """RSS of ``pid`` plus every descendant: what the server costs with the agent CLI it runs."""
    return sum(rss_kib(p) for p in [pid, *descendants(pid)])


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of the live descendants of ``pid`` (not ``pid`` itself)."""
    return sum(cpu_times(p).self_s for p in descendants(pid))


# ── traffic ────────────────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class Traffic:
    """What the server wrote while one request was in flight."""

    bytes_out: int = 0
    lines_out: int = 0
    updates: int = 0
    permissions: int = 0
    max_line: int = 0
    text_bytes: int = 0  # agent_message_chunk text received
    text_chunks: int = 0  # agent_message_chunk updates with non-empty text (acp-mux joins a burst's deltas)
    text_deltas: int = 0  # spaces in that text: every scripted delta ends in one, so this counts deltas however joined
    terminal_lines: int = 0  # lines received as append-only terminal_output deltas
    last_view: bytes = b""  # the last tool_call_update carrying the bounded output view (acp-mux)
    keep: bool = False  # keep the received text and terminal data, for delivery checks
    text_parts: list[str] = field(default_factory=list)
    terminal_parts: list[str] = field(default_factory=list)
    sent_at: float = 0.0  # perf_counter when the request was written
    first_text_at: float | None = None  # perf_counter of the first agent_message_chunk with text: "first words"
    last_text_at: float | None = None  # perf_counter of the last one
    answered_at: float = 0.0  # perf_counter of the response

    def observe(self, line: bytes, message: dict[str, Any] | None = None) -> None:
        """Parse only the updates that carry content, to time the words and check that what was said arrived."""
        if b'"agent_message_chunk"' in line:
            update = (message or json.loads(line))["params"]["update"]
            if update.get("sessionUpdate") != "agent_message_chunk":
                return
            text = (update.get("content") or {}).get("text") or ""
            if not text:
                return  # claude-agent-acp sends an empty chunk before the reply: no words yet
            now = time.perf_counter()
            if self.first_text_at is None:
                self.first_text_at = now
            self.last_text_at = now
            self.text_bytes += len(text.encode())
            self.text_chunks += 1
            self.text_deltas += text.count(" ")
            if self.keep:
                self.text_parts.append(text)
        elif b'"terminal_output"' in line:
            data = (message or json.loads(line))["params"]["update"]["_meta"]["terminal_output"]["data"]
            self.terminal_lines += data.count("\n")
            if self.keep:
                self.terminal_parts.append(data)
        elif b'"tool_call_update"' in line and b'"content":[{"type":"content"' in line:
            self.last_view = line

    @property
    def first_words_s(self) -> float | None:
        return None if self.first_text_at is None else self.first_text_at - self.sent_at

    @property
    def last_words_s(self) -> float | None:
        return None if self.last_text_at is None else self.last_text_at - self.sent_at


# ── one server process ─────────────────────────────────────────────────────────────────────────────────────────
class AcpProcess:
    """One ACP server (acp-mux, a reference adapter, the stdlib responder) driven over its stdio pipes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        self.cwd = cwd
        self._stderr = tempfile.TemporaryFile()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=str(cwd),
            start_new_session=True,
        )
        self.pid = self.proc.pid
        self._next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.proc.stdin.flush()

    def request(
        self, method: str, params: dict[str, Any], timeout: float = REQUEST_TIMEOUT_S, traffic: Traffic | None = None
    ) -> tuple[Any, Traffic]:
        """Send one request; read (and count) everything until its response; answer the server's requests."""
        self._next_id += 1
        request_id = self._next_id
        traffic = Traffic() if traffic is None else traffic
        traffic.sent_at = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        watchdog = threading.Timer(timeout, self.kill)  # a hung server ends this run instead of the benchmark
        watchdog.start()
        try:
            result = self._read_until(request_id, traffic)
            traffic.answered_at = time.perf_counter()
            return result, traffic
        finally:
            watchdog.cancel()

    def _read_until(self, request_id: int, traffic: Traffic) -> Any:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout (exit {self.proc.poll()}): {self.stderr_tail()}")
            traffic.bytes_out += len(line)
            traffic.lines_out += 1
            traffic.max_line = max(traffic.max_line, len(line))
            if line.startswith(NOTIFICATION_PREFIX):
                traffic.updates += 1
                traffic.observe(line)
                continue
            message = json.loads(line)
            if "method" in message and "id" not in message:
                if message["method"] == "session/update":
                    traffic.updates += 1
                    traffic.observe(line, message)
            elif "method" in message:  # a request from the server
                traffic.permissions += message["method"] == "session/request_permission"
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)})
            elif message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"error answer to {request_id}: {message['error']}")
                return message.get("result")

    def agent_pid(self) -> int | None:
        children = child_pids(self.pid)
        return children[0] if children else None

    def close(self, wait: float = 3.0) -> float:
        """Close stdin (how editors stop agents), return the seconds until the server exited (``wait`` if it did not),
        then end its process group and every descendant still alive."""
        started = time.perf_counter()
        family = descendants(self.pid)
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(wait)
            exited = time.perf_counter() - started
        except (subprocess.TimeoutExpired, BrokenPipeError):
            exited = wait
        self.kill(family)
        return exited

    def kill(self, family: list[int] | None = None) -> None:
        for pid in [*(family or []), *descendants(self.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def stderr_tail(self, size: int = 2000) -> str:
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - size))
        return self._stderr.read().decode(errors="replace")

    def stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")


def answer(request: dict[str, Any]) -> Any:
    """Allow every permission (allow_once preferred, as acpx --approve-all does); {} for anything else."""
    if request["method"] != "session/request_permission":
        return {}
    options = request["params"]["options"]
    chosen = next((o for o in options if o.get("kind") == "allow_once"), None)
    chosen = chosen or next((o for o in options if str(o.get("kind", "")).startswith("allow")), options[0])
    return {"outcome": {"outcome": "selected", "optionId": chosen["optionId"]}}


CLIENT_CAPABILITIES: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}


def initialize(server: AcpProcess, capabilities: dict[str, Any] | None = None) -> Any:
    params = {"protocolVersion": 1, "clientCapabilities": capabilities or CLIENT_CAPABILITIES}
    return server.request("initialize", params)[0]


def new_session(server: AcpProcess, cwd: Path | None = None) -> str:
    result, _ = server.request("session/new", {"cwd": str(cwd or server.cwd), "mcpServers": []})
    return result["sessionId"]


def prompt(
    server: AcpProcess, session_id: str, text: str, traffic: Traffic | None = None, timeout: float = REQUEST_TIMEOUT_S
) -> tuple[dict[str, Any], Traffic]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    return server.request("session/prompt", params, traffic=traffic, timeout=timeout)


# ── statistics and printing ────────────────────────────────────────────────────────────────────────────────────
def summary(values: list[float]) -> dict[str, float]:
    """Median, p90, min, max and n: the spread is printed beside every median."""
    ordered = sorted(values)
    if not ordered:
        return {"median": float("nan"), "p90": float("nan"), "min": float("nan"), "max": float("nan"), "n": 0}
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "p90": p90, "min": ordered[0], "max": ordered[-1], "n": len(ordered)}


def spread(stats: dict[str, float], digits: int = 0) -> str:
    """``median (min–max)`` for a table cell."""
    if not stats.get("n"):
        return "–"
    return f"{stats['median']:,.{digits}f} ({stats['min']:,.{digits}f}–{stats['max']:,.{digits}f})"


def table(title: str, header: list[str], rows: list[list[Any]]) -> None:
    """A Markdown pipe table: readable in a terminal and pastes straight into RESULTS.md."""
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    print(f"\n### {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row, raw in zip(cells, rows):  # labels and notes left, numbers right
        print(
            "| "
            + " | ".join(
                c.rjust(w) if i and isinstance(v, (int, float)) else c.ljust(w)
                for i, (c, w, v) in enumerate(zip(row, widths, raw))
            )
            + " |"
        )
    sys.stdout.flush()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def ms(seconds: float) -> float:
    return seconds * 1000


def mib(kib: int | float) -> float:
    return kib / 1024
