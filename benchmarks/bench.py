"""acp-mux performance benchmark: cold start, session/new, streaming cost, memory under large outputs.

Run:  .venv/bin/python benchmarks/bench.py [--quick] [--json out.json]

Why a raw client: the point is to measure the bridge, so the client here is ~100 lines of pipes and newline-delimited
JSON (no SDK, no pydantic). It only parses the lines that are not ``session/update`` notifications (those are
recognised by their byte prefix and counted), answers ``session/request_permission`` with the allow option, and
never shares a process with the bridge. CPU time and memory come from ``/proc/<pid>/stat`` and
``/proc/<pid>/status`` of the bridge and of its agent child, read separately, so neither the client nor the agent
is billed to the bridge.

The agent is the bundled scripted agent (``--agent demo``). Its size knobs are environment variables the bridge
passes through unchanged: ACP_MUX_DEMO_TEXT_DELAY (seconds between streamed words, default 0.01),
ACP_MUX_DEMO_BIGSHELL_LINES (default 20000) and ACP_MUX_DEMO_BIGSHELL_WIDTH (0 = the usual "line N" lines).

Delivery is checked, not only measured: the scripted agent's output is deterministic, so every turn's received
text, terminal deltas or final output view is compared with what the agent printed (see ``check_delivery``). Any
incomplete turn is listed in the final "Delivery check" table and the script exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python")
LAUNCHERS: dict[str, list[str]] = {
    "acp-mux (console script)": [str(VENV_BIN / "acp-mux"), "--agent", "demo"],
    "python -m acp_mux": [PYTHON, "-m", "acp_mux", "--agent", "demo"],
}
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
NOTIFICATION_PREFIX = b'{"jsonrpc":"2.0","method":"session/update"'  # the bridge writes compact JSON, keys in this order
REQUEST_TIMEOUT_S = 300.0
VIEW_HEAD_LINES = VIEW_TAIL_LINES = 200  # translation/output.py: the final view of a command's output
VIEW_MAX_LINE_CHARS = 2000  # translation/output.py MAX_LINE_CHARS: longer lines are cut, saying by how much


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
    """Current RSS from /proc/<pid>/statm: cheaper than parsing status, for the one read right after initialize."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * PAGE_KIB
    except OSError:
        return 0


def child_pids(pid: int) -> list[int]:
    """Direct children of ``pid`` (all threads): the bridge's agent process."""
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ── the raw JSON-RPC client ────────────────────────────────────────────────────────────────────────────────────
@dataclass
class Traffic:
    """What the bridge wrote while one request was in flight."""

    bytes_out: int = 0
    lines_out: int = 0
    updates: int = 0
    permissions: int = 0
    max_line: int = 0
    text_bytes: int = 0  # agent_message_chunk text received
    text_chunks: int = 0  # agent_message_chunk updates received
    terminal_lines: int = 0  # lines received as append-only terminal_output deltas
    last_view: bytes = b""  # the last tool_call_update carrying the bounded output view
    keep: bool = False  # keep the received text and terminal data, for check_delivery
    text_parts: list[str] = field(default_factory=list)
    terminal_parts: list[str] = field(default_factory=list)
    sent_at: float = 0.0  # perf_counter when the request was written
    first_text_at: float | None = None  # perf_counter of the first agent_message_chunk

    def observe(self, line: bytes) -> None:
        """Parse only the updates that carry content, to check that what the agent said arrived."""
        if b'"agent_message_chunk"' in line:
            if self.first_text_at is None:
                self.first_text_at = time.perf_counter()
            text = json.loads(line)["params"]["update"]["content"]["text"]
            self.text_bytes += len(text.encode())
            self.text_chunks += 1
            if self.keep:
                self.text_parts.append(text)
        elif b'"terminal_output"' in line:
            data = json.loads(line)["params"]["update"]["_meta"]["terminal_output"]["data"]
            self.terminal_lines += data.count("\n")
            if self.keep:
                self.terminal_parts.append(data)
        elif b'"tool_call_update"' in line and b'"content":[{"type":"content"' in line:
            self.last_view = line

    def view(self) -> "OutputView":
        return OutputView.parse(self.last_view)


@dataclass
class OutputView:
    """The last output view of a command: shown lines around a marker (final view: "… [N lines omitted] …" between
    head and tail; live view: "… [N earlier lines] …" before the latest lines)."""

    head: list[str]
    omitted: int
    tail: list[str]

    @classmethod
    def parse(cls, line: bytes) -> "OutputView":
        if not line:
            return cls([], 0, [])
        text = json.loads(line)["params"]["update"]["content"][0]["content"]["text"]
        shown = text.split("\n")[1:-1]  # drop the ``` fences
        for at, row in enumerate(shown):
            if row.startswith("… [") and row.endswith("] …") and ("lines omitted" in row or "earlier lines" in row):
                return cls(shown[:at], int(row.split("[", 1)[1].split()[0]), shown[at + 1 :])
        return cls(shown, 0, [])

    @property
    def lines_accounted(self) -> int:
        """The lines shown plus the lines the marker says were left out."""
        return len(self.head) + self.omitted + len(self.tail)


class Bridge:
    """One ``acp-mux --agent demo`` child driven over its stdio pipes."""

    def __init__(self, argv: list[str], env: dict[str, str], state_dir: Path) -> None:
        self.state_dir = state_dir
        self._stderr = tempfile.TemporaryFile()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env, cwd=str(state_dir)
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
        """Send one request; read (and count) everything until its response; answer permission requests."""
        self._next_id += 1
        request_id = self._next_id
        traffic = Traffic() if traffic is None else traffic
        traffic.sent_at = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        watchdog = threading.Timer(timeout, self.proc.kill)  # a hung bridge ends the run instead of the benchmark
        watchdog.start()
        try:
            return self._read_until(request_id, traffic), traffic
        finally:
            watchdog.cancel()

    def _read_until(self, request_id: int, traffic: Traffic) -> Any:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError(f"the bridge closed stdout (exit {self.proc.poll()}): {self.stderr_tail()}")
            traffic.bytes_out += len(line)
            traffic.lines_out += 1
            traffic.max_line = max(traffic.max_line, len(line))
            if line.startswith(NOTIFICATION_PREFIX):
                traffic.updates += 1
                traffic.observe(line)
                continue
            message = json.loads(line)
            if "method" in message:  # a request from the bridge
                traffic.permissions += message["method"] == "session/request_permission"
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)})
            elif message.get("id") == request_id:
                if "error" in message:
                    raise RuntimeError(f"error answer: {message['error']}")
                return message.get("result")

    def agent_pid(self) -> int | None:
        children = child_pids(self.pid)
        return children[0] if children else None

    def close(self, wait: float = 5.0) -> float:
        """Close stdin (how editors stop agents) and return the seconds until the bridge exited."""
        started = time.perf_counter()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(wait)
        except (subprocess.TimeoutExpired, BrokenPipeError):
            self.proc.kill()
            self.proc.wait()
        return time.perf_counter() - started

    def stderr_tail(self, size: int = 2000) -> str:
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - size))
        return self._stderr.read().decode(errors="replace")


def answer(request: dict[str, Any]) -> Any:
    """Allow every permission (allow_once preferred, as acpx --approve-all does); {} for anything else."""
    if request["method"] != "session/request_permission":
        return {}
    options = request["params"]["options"]
    chosen = next((o for o in options if o.get("kind") == "allow_once"), None)
    chosen = chosen or next((o for o in options if str(o.get("kind", "")).startswith("allow")), options[0])
    return {"outcome": {"outcome": "selected", "optionId": chosen["optionId"]}}


def bridge_env(state_dir: Path, **extra: str) -> dict[str, str]:
    """The bridge's environment: an isolated session store, plus the scripted agent's size knobs."""
    env = dict(os.environ)
    env["ACP_MUX_STATE_DIR"] = str(state_dir / "state")
    env.update(extra)
    return env


def initialize(bridge: Bridge, terminal_output: bool = False) -> Any:
    """``terminal_output`` asks for append-only shell deltas (the ``_meta.terminal_output`` extension) instead of views."""
    caps: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
    if terminal_output:
        caps["_meta"] = {"terminal_output": True}
    return bridge.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})


def new_session(bridge: Bridge) -> str:
    result, _ = bridge.request("session/new", {"cwd": str(bridge.state_dir), "mcpServers": []})
    return result["sessionId"]


def prompt(bridge: Bridge, session_id: str, text: str, traffic: Traffic | None = None) -> tuple[dict[str, Any], Traffic]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    return bridge.request("session/prompt", params, traffic=traffic)


def ready_bridge(workdir: Path, terminal_output: bool = False, **knobs: str) -> tuple[Bridge, str]:
    """A bridge past initialize and session/new, with its agent already spawned by a small warm-up prompt."""
    bridge = Bridge(LAUNCHERS["python -m acp_mux"], bridge_env(workdir, **knobs), workdir)
    initialize(bridge, terminal_output)
    session_id = new_session(bridge)
    prompt(bridge, session_id, "warm up")
    return bridge, session_id


# ── statistics and printing ────────────────────────────────────────────────────────────────────────────────────
def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "p90": p90, "min": ordered[0], "max": ordered[-1], "n": len(ordered)}


def table(title: str, header: list[str], rows: list[list[Any]]) -> None:
    """A Markdown pipe table: readable in a terminal and pastes straight into RESULTS.md."""
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    print(f"\n### {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row, raw in zip(cells, rows):  # labels and notes left, numbers right
        print("| " + " | ".join(c.rjust(w) if i and isinstance(v, (int, float)) else c.ljust(w)
                                for i, (c, w, v) in enumerate(zip(row, widths, raw))) + " |")
    sys.stdout.flush()


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def ms(seconds: float) -> float:
    return seconds * 1000


def mib(kib: int) -> float:
    return kib / 1024


# ── 1. cold start ──────────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class ColdRun:
    init_ms: float
    new_ms: float  # spawn → session/new answered (as in the baselines' t_new)
    rss_init_kib: int
    first_text_ms: float  # first prompt sent → first agent_message_chunk (includes spawning the agent)
    exit_ms: float  # stdin closed → process gone


def cold_start_once(argv: list[str], workdir: Path) -> ColdRun:
    """Spawn, write initialize at once, time the answer; session/new; a first prompt; close stdin, time the exit.

    acp-mux starts the agent at the first prompt, not at session/new (claude-agent-acp starts Claude Code at
    session/new), so the first prompt's time to first text is measured too, for a fair comparison.
    """
    bridge = Bridge(argv, bridge_env(workdir), workdir)
    initialize(bridge)
    init_s = time.perf_counter() - bridge.started
    rss = rss_kib(bridge.pid)
    session_id = new_session(bridge)
    new_s = time.perf_counter() - bridge.started
    _, traffic = prompt(bridge, session_id, "hi")
    first_text_s = (traffic.first_text_at or time.perf_counter()) - traffic.sent_at
    exit_s = bridge.close()
    return ColdRun(ms(init_s), ms(new_s), rss, ms(first_text_s), ms(exit_s))


def interpreter_floor(runs: int) -> dict[str, float]:
    """`python -c pass` in the same venv: the part of cold start no bridge code can remove."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([PYTHON, "-c", "pass"], check=True)
        times.append(ms(time.perf_counter() - started))
    return summary(times)


SERVE_PATH_IMPORTS = ("import sys, acp_mux.cli.main, acp_mux.server.bridge, acp_mux.server.live_session, acp_mux.core.run; "
                      "from acp_mux.adapters.registry import get_adapter; get_adapter('demo'); "
                      "print('\\n'.join(m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)))")


def stale_bytecode() -> list[str]:
    """Project modules of the serve path whose .pyc is missing or older than the source. Every spawn compiles such a
    module again, which bills compile time to cold start: the warm-up cannot write .pyc files where
    PYTHONDONTWRITEBYTECODE is set (as on the project VMs), and an installed package always has them."""
    import importlib.util
    import struct

    listed = subprocess.run([PYTHON, "-c", SERVE_PATH_IMPORTS], capture_output=True, text=True, check=True, cwd=ROOT)
    stale = []
    for source in sorted({Path(f) for f in listed.stdout.split()}):
        if ROOT not in source.parents or ROOT / ".venv" in source.parents or source.suffix != ".py":
            continue
        try:
            header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[4:16]
            flags, mtime, size = struct.unpack("<III", header)
        except (OSError, struct.error):
            stale.append(str(source.relative_to(ROOT)))
            continue
        st = source.stat()
        if flags == 0 and (mtime, size) != (int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF):
            stale.append(str(source.relative_to(ROOT)))
    return stale


def bench_cold_start(workdir: Path, runs: int) -> dict[str, Any]:
    results: dict[str, Any] = {"python -c pass (floor)": {"init_ms": interpreter_floor(runs)}}
    for name, argv in LAUNCHERS.items():
        cold_start_once(argv, workdir)  # untimed warm-up (page cache, .pyc), as the baselines did
        samples = [cold_start_once(argv, workdir) for _ in range(runs)]
        results[name] = {
            key: summary([getattr(s, key) for s in samples]) for key in ("init_ms", "new_ms", "rss_init_kib", "first_text_ms", "exit_ms")
        }
    rows = []
    for name, r in results.items():
        init = r["init_ms"]
        row = [name, init["median"], init["p90"], f"{init['min']:.0f}–{init['max']:.0f}"]
        if "new_ms" in r:
            row += [r["new_ms"]["median"], mib(int(r["rss_init_kib"]["median"])), r["first_text_ms"]["median"],
                    r["exit_ms"]["median"]]
        else:
            row += ["", "", "", ""]
        rows.append(row)
    table(
        f"Cold start (N={runs}; ms, MiB)",
        ["launcher", "initialize median", "p90", "min–max", "spawn→session/new median", "RSS @init",
         "1st prompt→1st text", "stdin EOF→exit"],
        rows,
    )
    stale = stale_bytecode()
    if stale:
        print(f"\nNote: no up-to-date .pyc for {', '.join(stale)}: every spawn compiles them, so cold start is slower "
              "than an installed bridge")
    results["stale_bytecode"] = stale
    return results


# Modules initialize does not need: pydantic (via acp_mux.core.events) and the run/session machinery (via acp_mux.core.run).
WATCHED_IMPORTS = ("acp_mux.core.events", "pydantic", "acp_mux.server.live_session", "acp_mux.core.run", "ulid")


def bench_import_time(workdir: Path, top: int = 10) -> dict[str, Any]:
    """`-X importtime` of the real serve path (up to the initialize answer): which modules cost the most."""
    env = bridge_env(workdir, PYTHONPROFILEIMPORTTIME="1")
    bridge = Bridge(LAUNCHERS["python -m acp_mux"], env, workdir)
    initialize(bridge)
    bridge.close()
    bridge._stderr.seek(0)
    rows, top_level = [], {}
    for line in bridge._stderr.read().decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            self_us, cum_us, module = line[len("import time:"):].split("|")
            name = module.strip()
            rows.append((int(self_us), int(cum_us), name))
            if not module[1:].startswith(" "):  # nested imports are indented by two spaces per level
                top_level[name] = int(cum_us) / 1000
    total_us = sum(r[0] for r in rows)
    by_self = sorted(rows, reverse=True)[:top]
    table(
        f"Imports before initialize (-X importtime; total self time {total_us / 1000:.0f} ms, {len(rows)} modules)",
        ["module", "self ms", "cumulative ms"],
        [[name, s / 1000, c / 1000] for s, c, name in by_self],
    )
    cumulative = {name: c / 1000 for _, c, name in rows}
    watched = {name: cumulative.get(name) for name in WATCHED_IMPORTS}
    print("\nWatched modules (cumulative ms; '-' = not imported before initialize): "
          + ", ".join(f"{name} {'-' if ms_ is None else f'{ms_:.1f}'}" for name, ms_ in watched.items()))
    return {"total_self_ms": total_us / 1000, "modules": len(rows), "top_self": by_self,
            "top_level_cumulative_ms": top_level, "watched_cumulative_ms": watched}


# ── 2. session/new ─────────────────────────────────────────────────────────────────────────────────────────────
def bench_session_new(workdir: Path, runs: int) -> dict[str, Any]:
    """Steady-state session/new on a warm bridge (each one writes a session record to the store)."""
    bridge = Bridge(LAUNCHERS["python -m acp_mux"], bridge_env(workdir), workdir)
    try:
        initialize(bridge)
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            new_session(bridge)
            times.append(ms(time.perf_counter() - started))
    finally:
        bridge.close()
    result = summary(times)
    table(f"session/new on a warm bridge (N={runs}; ms)", ["median", "p90", "min", "max"],
          [[result["median"], result["p90"], result["min"], result["max"]]])
    return result


# ── 3. streaming cost ──────────────────────────────────────────────────────────────────────────────────────────
@dataclass
class StreamCase:
    """One streaming scenario: the prompt, the scripted agent's knobs, and what the agent will emit for it."""

    label: str
    kind: str  # "text" (agent_message_chunk deltas) or "shell" (one Bash tool call)
    prompt: str
    knobs: dict[str, str]
    agent_events: int  # text deltas or output lines the agent emits
    content_bytes: int  # the bytes of text or output those events carry
    terminal_output: bool = False
    width: int = 0  # shell: 0 for the stock "line N" lines, else each line's exact length

    def expected_text(self) -> str:
        """Text: what the demo agent streams ("You said: <prompt>", one "word " delta per word)."""
        return "".join(word + " " for word in f"You said: {self.prompt}".split(" "))

    def output_line(self, i: int, limit: int | None = None) -> str:
        """Shell: line ``i`` as the command prints it (scripted_agent.scenario_shell), without its newline; with
        ``limit``, cut the way the output view cuts it, without building a huge line."""
        if not self.width:
            return f"line {i}"
        number = str(i)
        length = max(len(number), self.width)
        if limit is None or length <= limit:
            return number.ljust(self.width, "x")
        return number.ljust(limit, "x")[:limit] + f"… [{length - limit} more characters]"


def text_case(words: int, delay: float) -> StreamCase:
    """The demo agent echoes the prompt word by word ("You said: w0 w1 ..."), one delta per word."""
    text = " ".join(f"w{i}" for i in range(words))  # no scenario keyword can appear in it
    echoed = f"You said: {text}".split(" ")
    pace = "burst" if delay == 0 else f"paced {delay * 1000:g} ms"
    return StreamCase(
        label=f"{len(echoed):,} deltas, {pace}",
        kind="text",
        prompt=text,
        knobs={"ACP_MUX_DEMO_TEXT_DELAY": str(delay)},
        agent_events=len(echoed),
        content_bytes=sum(len((word + " ").encode()) for word in echoed),
    )


def shell_case(lines: int, width: int = 0, delay: float = 0.0, terminal: bool = False, label: str = "") -> StreamCase:
    """``bigshell`` with ``lines`` lines of ``width`` chars (0: the stock "line N" lines), ``delay`` s apart."""
    content = lines * (width + 1) if width else sum(len(f"line {i}\n") for i in range(lines))
    if not label:
        shape = f"{lines:,} × {width + 1:,} B" if width else f"{lines:,} short lines"
        pace = f", {delay * 1000:g} ms/line" if delay else ""
        label = f"{shape}{pace}{', terminal_output' if terminal else ''}"
    knobs = {"ACP_MUX_DEMO_BIGSHELL_LINES": str(lines), "ACP_MUX_DEMO_BIGSHELL_WIDTH": str(width),
             "ACP_MUX_DEMO_BIGSHELL_DELAY": str(delay)}
    return StreamCase(label, "shell", "bigshell", knobs, lines, content, terminal, width)


@dataclass
class StreamRun:
    """The measurements of one prompt turn."""

    case: str
    kind: str
    agent_events: int
    content_bytes: int
    delivered: int  # text bytes received (text) or output lines accounted for by what the client saw (shell)
    wall_s: float
    updates: int
    bytes_out: int
    max_line: int
    bridge_cpu_s: float
    agent_cpu_s: float
    command_cpu_s: float
    bridge_hwm_kib: int
    bridge_rss_kib: int
    agent_hwm_kib: int
    transcript_bytes: int
    permissions: int
    complete: bool = True  # check_delivery: everything the agent printed arrived, in order
    check: str = ""  # what check_delivery compared, or where it found the first difference

    @property
    def delivered_pct(self) -> float:
        expected = self.content_bytes if self.kind == "text" else self.agent_events
        return 100.0 * self.delivered / max(1, expected)

    @property
    def bytes_per_update(self) -> float:
        return self.bytes_out / max(1, self.updates)

    @property
    def ratio(self) -> float:
        return self.bytes_out / max(1, self.content_bytes)

    @property
    def cpu_us_per_event(self) -> float:
        return self.bridge_cpu_s * 1e6 / max(1, self.agent_events)

    def as_json(self) -> dict[str, Any]:
        return asdict(self) | {"delivered_pct": self.delivered_pct, "bytes_per_update": self.bytes_per_update,
                               "bytes_out_per_content_byte": self.ratio, "bridge_cpu_us_per_agent_event": self.cpu_us_per_event}


def measured_prompt(bridge: Bridge, session_id: str, case: StreamCase) -> StreamRun:
    """One prompt turn with the bridge's and the agent's CPU, memory and output measured around it."""
    agent = bridge.agent_pid()
    store = bridge.state_dir / "state"
    before_bridge, before_agent, before_store = cpu_times(bridge.pid), cpu_times(agent), dir_bytes(store)
    started = time.perf_counter()
    traffic = Traffic(keep=True)
    prompt(bridge, session_id, case.prompt, traffic)
    wall = time.perf_counter() - started
    agent_delta = cpu_times(agent) - before_agent
    memory = memory_kib(bridge.pid)
    if case.kind == "text":
        delivered = traffic.text_bytes
    else:
        delivered = traffic.terminal_lines if case.terminal_output else traffic.view().lines_accounted
    complete, check = check_delivery(case, traffic)
    return StreamRun(
        case=case.label,
        kind=case.kind,
        agent_events=case.agent_events,
        content_bytes=case.content_bytes,
        delivered=delivered,
        wall_s=wall,
        updates=traffic.updates,
        bytes_out=traffic.bytes_out,
        max_line=traffic.max_line,
        bridge_cpu_s=(cpu_times(bridge.pid) - before_bridge).self_s,
        agent_cpu_s=agent_delta.self_s,
        command_cpu_s=agent_delta.children_s,
        bridge_hwm_kib=memory["VmHWM"],
        bridge_rss_kib=memory["VmRSS"],
        agent_hwm_kib=memory_kib(agent)["VmHWM"],
        transcript_bytes=dir_bytes(store) - before_store,
        permissions=traffic.permissions,
        complete=complete,
        check=check,
    )


def check_delivery(case: StreamCase, traffic: Traffic) -> tuple[bool, str]:
    """Compare what arrived with what the agent printed: (complete, a short note saying what matched or what not).

    Text: one agent_message_chunk per delta, and their concatenation equals the agent's text. terminal_output: the
    concatenated deltas equal the command's output byte for byte. Output view: the shown head and tail are the
    command's first and last lines (cut like the view cuts them), and shown + omitted = every line printed.
    """
    if case.kind == "text":
        expected = case.expected_text()
        received = "".join(traffic.text_parts)
        if traffic.text_chunks == case.agent_events and received == expected:
            return True, f"{traffic.text_chunks:,}/{case.agent_events:,} chunks, text identical"
        return False, f"{traffic.text_chunks:,}/{case.agent_events:,} chunks; {_first_difference(expected, received)}"
    if case.terminal_output:
        expected = "".join(case.output_line(i) + "\n" for i in range(case.agent_events))
        received = "".join(traffic.terminal_parts)
        if received == expected:
            return True, f"{traffic.terminal_lines:,}/{case.agent_events:,} lines, output identical"
        return False, f"{traffic.terminal_lines:,}/{case.agent_events:,} lines; {_first_difference(expected, received)}"
    view, total = traffic.view(), case.agent_events
    head = [case.output_line(i, VIEW_MAX_LINE_CHARS) for i in range(min(total, len(view.head)))]
    tail = [case.output_line(i, VIEW_MAX_LINE_CHARS) for i in range(max(0, total - len(view.tail)), total)]
    problems = []
    if view.lines_accounted != total:
        problems.append(f"view accounts for {view.lines_accounted:,}/{total:,} lines")
    if view.head != head:
        problems.append("head lines differ")
    if view.tail != tail:
        problems.append("tail lines differ")
    if total > VIEW_HEAD_LINES + VIEW_TAIL_LINES and (len(view.head), len(view.tail)) != (VIEW_HEAD_LINES, VIEW_TAIL_LINES):
        problems.append(f"final view shows {len(view.head)} + {len(view.tail)} lines, not the head-and-tail view")
    if problems:
        return False, "; ".join(problems)
    return True, f"{len(view.head)} + {len(view.tail)} lines shown and identical, {view.omitted:,} omitted, {total:,} accounted"


def _first_difference(expected: str, received: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(expected, received)) if a != b), min(len(expected), len(received)))
    return f"{len(received):,}/{len(expected):,} chars, first difference at char {at:,}"


def run_cases(workdir: Path, cases: list[StreamCase], repeats: int = 1) -> list[list[StreamRun]]:
    """Each case in a fresh bridge (clean peak RSS), after a warm-up turn that spawns the agent."""
    out = []
    for case in cases:
        bridge, session_id = ready_bridge(workdir, case.terminal_output, **case.knobs)
        try:
            out.append([measured_prompt(bridge, session_id, case) for _ in range(repeats)])
        finally:
            bridge.close()
    return out


def print_stream_table(title: str, runs: list[StreamRun], *, unit: str, scale: float, delivered: str, per: str) -> None:
    """One table for text and shell runs: same columns, sizes in ``unit`` (``scale`` bytes each)."""
    table(
        title,
        ["case", f"content {unit}", delivered, "updates", "wall s", f"bytes out {unit}", "bytes/update", "out/content",
         "bridge CPU s", f"bridge µs/{per}", "agent CPU s", "bridge peak RSS MiB", f"transcript {unit}"],
        [[r.case, r.content_bytes / scale, r.delivered_pct, r.updates, r.wall_s, r.bytes_out / scale, r.bytes_per_update,
          r.ratio, r.bridge_cpu_s, r.cpu_us_per_event, r.agent_cpu_s, mib(r.bridge_hwm_kib), r.transcript_bytes / scale]
         for r in runs],
    )


# ── 4. memory with large outputs ───────────────────────────────────────────────────────────────────────────────
def bench_memory(workdir: Path, cases: list[tuple[StreamCase, int]]) -> list[dict[str, Any]]:
    """Peak RSS of the bridge while one tool call prints a lot, against its idle RSS; repeated turns look for leaks."""
    results = []
    for case, repeats in cases:
        bridge = Bridge(LAUNCHERS["python -m acp_mux"], bridge_env(workdir, **case.knobs), workdir)
        try:
            initialize(bridge)
            session_id = new_session(bridge)
            idle = memory_kib(bridge.pid)
            prompt(bridge, session_id, "warm up")
            warm = memory_kib(bridge.pid)
            turns = [measured_prompt(bridge, session_id, case) for _ in range(repeats)]
        finally:
            bridge.close()
        results.append({"case": case.label, "content_bytes": case.content_bytes, "idle_rss_kib": idle["VmRSS"],
                        "warm_rss_kib": warm["VmRSS"], "peak_rss_kib": turns[-1].bridge_hwm_kib,
                        "turns": [t.as_json() for t in turns]})
    table(
        "Bridge memory with large tool output (MiB; the same prompt repeated in one session)",
        ["case", "idle RSS", "after warm-up", "peak RSS (VmHWM)", "peak − idle", "RSS after each turn",
         "lines accounted %", "updates", "bytes out MB", "wall s", "bridge CPU s", "transcript MB", "agent peak RSS"],
        [
            [r["case"], mib(r["idle_rss_kib"]), mib(r["warm_rss_kib"]), mib(r["peak_rss_kib"]),
             mib(r["peak_rss_kib"] - r["idle_rss_kib"]),
             " / ".join(f"{mib(t['bridge_rss_kib']):.1f}" for t in r["turns"]),
             r["turns"][0]["delivered_pct"], r["turns"][0]["updates"], r["turns"][0]["bytes_out"] / 1e6,
             r["turns"][0]["wall_s"], r["turns"][0]["bridge_cpu_s"],
             sum(t["transcript_bytes"] for t in r["turns"]) / 1e6, mib(r["turns"][0]["agent_hwm_kib"])]
            for r in results
        ],
    )
    return results


# ── main ───────────────────────────────────────────────────────────────────────────────────────────────────────
PACED_TEXT_S = 0.0002  # ≈0.3 ms per delta in practice: ~3,000 deltas/s, far faster than a model, slow enough to keep up
PACED_SHELL_S = 0.002  # a slow command printing wide lines: the live view is re-sent every 100 ms meanwhile


@dataclass
class Plan:
    """How much of each benchmark to run: --quick keeps the whole script under a minute on 2 cores."""

    cold_runs: int
    new_runs: int
    text_cases: list[StreamCase]
    shell_cases: list[StreamCase]
    memory_cases: list[tuple[StreamCase, int]]  # (case, turns in one session)


def quick_plan() -> Plan:
    return Plan(
        cold_runs=5,
        new_runs=15,
        text_cases=[text_case(2_000, 0), text_case(8_000, 0), text_case(2_000, PACED_TEXT_S), text_case(8_000, PACED_TEXT_S)],
        shell_cases=[
            shell_case(20_000), shell_case(20_000, terminal=True),
            shell_case(2_500, 1_999), shell_case(5_000, 1_999),
            shell_case(500, 1_999, PACED_SHELL_S), shell_case(1_000, 1_999, PACED_SHELL_S),
            shell_case(1_000, 1_999, PACED_SHELL_S, terminal=True),
        ],
        memory_cases=[(shell_case(1, 20_000_000, label="20 MB single line"), 4),
                      (shell_case(10_000, 1_999, label="20 MB in 2,000-byte lines"), 2)],
    )


def full_plan() -> Plan:
    return Plan(
        cold_runs=15,
        new_runs=50,
        text_cases=[text_case(n, 0) for n in (2_000, 8_000, 32_000)]
        + [text_case(n, PACED_TEXT_S) for n in (2_000, 8_000, 32_000, 64_000)],
        shell_cases=[
            shell_case(20_000), shell_case(80_000), shell_case(20_000, terminal=True), shell_case(80_000, terminal=True),
            shell_case(2_500, 1_999), shell_case(5_000, 1_999), shell_case(10_000, 1_999),
            shell_case(500, 1_999, PACED_SHELL_S), shell_case(1_000, 1_999, PACED_SHELL_S),
            shell_case(2_000, 1_999, PACED_SHELL_S), shell_case(2_000, 1_999, PACED_SHELL_S, terminal=True),
        ],
        memory_cases=[(shell_case(1, 20_000_000, label="20 MB single line"), 8),
                      (shell_case(25_000, 1_999, label="50 MB in 2,000-byte lines"), 3),
                      (shell_case(500_000, 99, label="50 MB in 100-byte lines"), 2)],
    )


def timed(name: str, fn: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = fn()
    print(f"  ({name}: {time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller sizes (< 60 s)")
    parser.add_argument("--json", metavar="OUT", help="also write every measurement as JSON")
    args = parser.parse_args(argv)
    plan = quick_plan() if args.quick else full_plan()
    started = time.perf_counter()
    print(f"# acp-mux benchmark ({'quick' if args.quick else 'full'}) — {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.2f}")
    results: dict[str, Any] = {"mode": "quick" if args.quick else "full", "cores": os.cpu_count(),
                               "loadavg_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="acp-mux-bench-") as tmp:
        workdir = Path(tmp)
        results["cold_start"] = timed("cold start", lambda: bench_cold_start(workdir, plan.cold_runs))
        results["import_time"] = timed("import time", lambda: bench_import_time(workdir))
        results["session_new"] = timed("session/new", lambda: bench_session_new(workdir, plan.new_runs))
        text_runs = [r[0] for r in timed("text streaming", lambda: run_cases(workdir, plan.text_cases))]
        print_stream_table("Streaming text deltas (agent_message_chunk; one prompt turn each)", text_runs,
                           unit="KB", scale=1e3, delivered="delivered %", per="delta")
        shell_runs = [r[0] for r in timed("shell streaming", lambda: run_cases(workdir, plan.shell_cases))]
        print_stream_table("Streaming shell output (one Bash tool call each)", shell_runs,
                           unit="MB", scale=1e6, delivered="lines accounted %", per="line")
        results["text_streaming"] = [r.as_json() for r in text_runs]
        results["shell_streaming"] = [r.as_json() for r in shell_runs]
        results["memory"] = timed("memory", lambda: bench_memory(workdir, plan.memory_cases))
    checked = [(r["case"], r) for r in results["text_streaming"] + results["shell_streaming"]]
    checked += [(f"{m['case']}, turn {n}", t) for m in results["memory"] for n, t in enumerate(m["turns"], 1)]
    incomplete = print_delivery_check(checked)
    results["incomplete_turns"] = incomplete
    results["loadavg_end"] = os.getloadavg()
    results["total_s"] = time.perf_counter() - started
    print(f"\nTotal {results['total_s']:.1f} s; load average at the end {results['loadavg_end'][0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    if incomplete:
        print(f"DELIVERY INCOMPLETE in {len(incomplete)} turn(s): {', '.join(incomplete)}", file=sys.stderr)
        return 1
    return 0


def print_delivery_check(checked: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """One row per measured turn: did everything the agent printed arrive? Returns the incomplete ones."""
    table(
        "Delivery check (every delta, every line; see check_delivery)",
        ["turn", "complete", "what was compared"],
        [[name, "yes" if run["complete"] else "**NO**", run["check"]] for name, run in checked],
    )
    return [name for name, run in checked if not run["complete"]]


if __name__ == "__main__":
    raise SystemExit(main())
