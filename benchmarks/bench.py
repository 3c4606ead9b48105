"""acp-mux performance benchmark, in one command: the comparison with the reference adapters on the real CLIs
(``compare.py``), then the bridge's own costs with the bundled demo agent (streaming, memory, delivery).

Run:  .venv/bin/python benchmarks/bench.py [--quick]
      [--only compare|demo|eventlog|second-window|acp-agents|compare-overhead]
      [--agents gemini,opencode] [--json OUT]

The first run installs what it compares, pinned, into ``~/.cache/acp-mux-clis`` (or ``$ACP_MUX_CLI_CACHE``): the agent
CLIs (``tests/e2e/install_clis.sh``), ``@zed-industries/claude-agent-acp`` 0.23.1 and ``@zed-industries/codex-acp``
0.16.0 from npm, and a virtual environment with a regular install of this checkout (``subjects.py``). Every number
printed is also written as JSON (default ``benchmarks/results-<full|quick>.json``).

The demo sections drive ``acp-mux --agent demo`` through the raw client in ``rawclient.py``. The agent's size knobs
are environment variables the bridge passes through unchanged: ACP_MUX_DEMO_TEXT_DELAY (seconds between streamed
words, default 0.01), ACP_MUX_DEMO_BIGSHELL_LINES (default 20000), ACP_MUX_DEMO_BIGSHELL_WIDTH (0 = the usual
"line N" lines) and ACP_MUX_DEMO_DELTAS (deltas the "manydeltas" prompt streams).

Delivery is checked, not only measured: the scripted agent's output is deterministic, so every turn's received
text, terminal deltas or final output view is compared with what the agent printed (see ``check_delivery``). Any
incomplete turn is listed in the final "Delivery check" table and the script exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
from rawclient import (  # noqa: E402
    AcpProcess,
    Traffic,
    cpu_times,
    memory_kib,
    mib,
    ms,
    summary,
    table,
)
from subjects import bench_venv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER: list[str] = []  # [<bench venv>/bin/acp-mux, "--agent", "demo"], set by main() once the venv is ready
VIEW_HEAD_LINES = VIEW_TAIL_LINES = 200  # translation/output.py: the final view of a command's output
VIEW_MAX_LINE_CHARS = 2000  # translation/output.py MAX_LINE_CHARS: longer lines are cut, saying by how much


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


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


def bridge_env(state_dir: Path, **extra: str) -> dict[str, str]:
    """The bridge's environment: an isolated session store, plus the scripted agent's size knobs."""
    env = dict(os.environ)
    env["ACP_MUX_STATE_DIR"] = str(state_dir / "state")
    env.update(extra)
    return env


def demo_bridge(workdir: Path, **knobs: str) -> AcpProcess:
    return AcpProcess(LAUNCHER, bridge_env(workdir, **knobs), workdir)


def initialize(bridge: AcpProcess, terminal_output: bool = False) -> Any:
    """``terminal_output`` asks for append-only shell deltas (the ``_meta.terminal_output`` extension) instead of views."""
    caps: dict[str, Any] = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
    if terminal_output:
        caps["_meta"] = {"terminal_output": True}
    return bridge.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})


def new_session(bridge: AcpProcess) -> str:
    result, _ = bridge.request("session/new", {"cwd": str(bridge.cwd), "mcpServers": []})
    return result["sessionId"]


def prompt(
    bridge: AcpProcess, session_id: str, text: str, traffic: Traffic | None = None
) -> tuple[dict[str, Any], Traffic]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    return bridge.request("session/prompt", params, traffic=traffic)


def ready_bridge(workdir: Path, terminal_output: bool = False, **knobs: str) -> tuple[AcpProcess, str]:
    """A bridge past initialize and session/new, with its agent already spawned by a small warm-up prompt."""
    bridge = demo_bridge(workdir, **knobs)
    initialize(bridge, terminal_output)
    session_id = new_session(bridge)
    prompt(bridge, session_id, "warm up")
    return bridge, session_id


WATCHED_IMPORTS = (
    "asyncio",
    "acp_mux.server.sessions.bridge",
    "acp_mux.server.sessions.live_session",
    "acp_mux.core.events.union",
    "pydantic",
    "acp_mux.core.run.handle",
)


def bench_import_time(workdir: Path, top: int = 10) -> dict[str, Any]:
    """`-X importtime` of the real serve path up to the session/new answer (the launcher answers initialize before
    any of it): which modules cost the most."""
    env = bridge_env(workdir, PYTHONPROFILEIMPORTTIME="1")
    bridge = AcpProcess(LAUNCHER, env, workdir)
    initialize(bridge)
    new_session(bridge)
    bridge.close()
    bridge._stderr.seek(0)
    rows, top_level = [], {}
    for line in bridge._stderr.read().decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line and "self" not in line:
            self_us, cum_us, module = line[len("import time:") :].split("|")
            name = module.strip()
            rows.append((int(self_us), int(cum_us), name))
            if not module[1:].startswith(" "):  # nested imports are indented by two spaces per level
                top_level[name] = int(cum_us) / 1000
    total_us = sum(r[0] for r in rows)
    by_self = sorted(rows, reverse=True)[:top]
    table(
        f"Imports before session/new is answered (-X importtime; total self time {total_us / 1000:.0f} ms, "
        f"{len(rows)} modules)",
        ["module", "self ms", "cumulative ms"],
        [[name, s / 1000, c / 1000] for s, c, name in by_self],
    )
    cumulative = {name: c / 1000 for _, c, name in rows}
    watched = {name: cumulative.get(name) for name in WATCHED_IMPORTS}
    print(
        "\nWatched modules (cumulative ms; '-' = not imported before session/new is answered): "
        + ", ".join(f"{name} {'-' if ms_ is None else f'{ms_:.1f}'}" for name, ms_ in watched.items())
    )
    return {
        "total_self_ms": total_us / 1000,
        "modules": len(rows),
        "top_self": by_self,
        "top_level_cumulative_ms": top_level,
        "watched_cumulative_ms": watched,
    }


# ── 2. session/new ─────────────────────────────────────────────────────────────────────────────────────────────
def bench_session_new(workdir: Path, runs: int) -> dict[str, Any]:
    """Steady-state session/new on a warm bridge (each one writes a session record to the store)."""
    bridge = demo_bridge(workdir)
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
    table(
        f"session/new on a warm bridge (N={runs}; ms)",
        ["median", "p90", "min", "max"],
        [[result["median"], result["p90"], result["min"], result["max"]]],
    )
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
    knobs = {
        "ACP_MUX_DEMO_BIGSHELL_LINES": str(lines),
        "ACP_MUX_DEMO_BIGSHELL_WIDTH": str(width),
        "ACP_MUX_DEMO_BIGSHELL_DELAY": str(delay),
    }
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
        return asdict(self) | {
            "delivered_pct": self.delivered_pct,
            "bytes_per_update": self.bytes_per_update,
            "bytes_out_per_content_byte": self.ratio,
            "bridge_cpu_us_per_agent_event": self.cpu_us_per_event,
        }


def measured_prompt(bridge: AcpProcess, session_id: str, case: StreamCase) -> StreamRun:
    """One prompt turn with the bridge's and the agent's CPU, memory and output measured around it."""
    agent = bridge.agent_pid()
    store = bridge.cwd / "state"
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
        delivered = (
            traffic.terminal_lines if case.terminal_output else OutputView.parse(traffic.last_view).lines_accounted
        )
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

    Text: the agent_message_chunks' concatenation equals the agent's text (deltas may arrive joined). terminal_output: the
    concatenated deltas equal the command's output byte for byte. Output view: the shown head and tail are the
    command's first and last lines (cut like the view cuts them), and shown + omitted = every line printed.
    """
    if case.kind == "text":
        expected = case.expected_text()
        received = "".join(traffic.text_parts)
        if received == expected:  # every delta's text, in order (the bridge may join deltas queued together)
            return True, f"{case.agent_events:,} deltas in {traffic.text_chunks:,} chunks, text identical"
        return False, f"{traffic.text_chunks:,} chunks; {_first_difference(expected, received)}"
    if case.terminal_output:
        expected = "".join(case.output_line(i) + "\n" for i in range(case.agent_events))
        received = "".join(traffic.terminal_parts)
        if received == expected:
            return True, f"{traffic.terminal_lines:,}/{case.agent_events:,} lines, output identical"
        return False, f"{traffic.terminal_lines:,}/{case.agent_events:,} lines; {_first_difference(expected, received)}"
    view, total = OutputView.parse(traffic.last_view), case.agent_events
    head = [case.output_line(i, VIEW_MAX_LINE_CHARS) for i in range(min(total, len(view.head)))]
    tail = [case.output_line(i, VIEW_MAX_LINE_CHARS) for i in range(max(0, total - len(view.tail)), total)]
    problems = []
    if view.lines_accounted != total:
        problems.append(f"view accounts for {view.lines_accounted:,}/{total:,} lines")
    if view.head != head:
        problems.append("head lines differ")
    if view.tail != tail:
        problems.append("tail lines differ")
    if total > VIEW_HEAD_LINES + VIEW_TAIL_LINES and (len(view.head), len(view.tail)) != (
        VIEW_HEAD_LINES,
        VIEW_TAIL_LINES,
    ):
        problems.append(f"final view shows {len(view.head)} + {len(view.tail)} lines, not the head-and-tail view")
    if problems:
        return False, "; ".join(problems)
    return (
        True,
        f"{len(view.head)} + {len(view.tail)} lines shown and identical, {view.omitted:,} omitted, {total:,} accounted",
    )


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
        [
            "case",
            f"content {unit}",
            delivered,
            "updates",
            "wall s",
            f"bytes out {unit}",
            "bytes/update",
            "out/content",
            "bridge CPU s",
            f"bridge µs/{per}",
            "agent CPU s",
            "bridge peak RSS MiB",
            f"transcript {unit}",
        ],
        [
            [
                r.case,
                r.content_bytes / scale,
                r.delivered_pct,
                r.updates,
                r.wall_s,
                r.bytes_out / scale,
                r.bytes_per_update,
                r.ratio,
                r.bridge_cpu_s,
                r.cpu_us_per_event,
                r.agent_cpu_s,
                mib(r.bridge_hwm_kib),
                r.transcript_bytes / scale,
            ]
            for r in runs
        ],
    )


# ── 4. memory with large outputs ───────────────────────────────────────────────────────────────────────────────
def bench_memory(workdir: Path, cases: list[tuple[StreamCase, int]]) -> list[dict[str, Any]]:
    """Peak RSS of the bridge while one tool call prints a lot, against its idle RSS; repeated turns look for leaks."""
    results = []
    for case, repeats in cases:
        bridge = demo_bridge(workdir, **case.knobs)
        try:
            initialize(bridge)
            session_id = new_session(bridge)
            idle = memory_kib(bridge.pid)
            prompt(bridge, session_id, "warm up")
            warm = memory_kib(bridge.pid)
            turns = [measured_prompt(bridge, session_id, case) for _ in range(repeats)]
        finally:
            bridge.close()
        results.append(
            {
                "case": case.label,
                "content_bytes": case.content_bytes,
                "idle_rss_kib": idle["VmRSS"],
                "warm_rss_kib": warm["VmRSS"],
                "peak_rss_kib": turns[-1].bridge_hwm_kib,
                "turns": [t.as_json() for t in turns],
            }
        )
    table(
        "Bridge memory with large tool output (MiB; the same prompt repeated in one session)",
        [
            "case",
            "idle RSS",
            "after warm-up",
            "peak RSS (VmHWM)",
            "peak − idle",
            "RSS after each turn",
            "lines accounted %",
            "updates",
            "bytes out MB",
            "wall s",
            "bridge CPU s",
            "transcript MB",
            "agent peak RSS",
        ],
        [
            [
                r["case"],
                mib(r["idle_rss_kib"]),
                mib(r["warm_rss_kib"]),
                mib(r["peak_rss_kib"]),
                mib(r["peak_rss_kib"] - r["idle_rss_kib"]),
                " / ".join(f"{mib(t['bridge_rss_kib']):.1f}" for t in r["turns"]),
                r["turns"][0]["delivered_pct"],
                r["turns"][0]["updates"],
                r["turns"][0]["bytes_out"] / 1e6,
                r["turns"][0]["wall_s"],
                r["turns"][0]["bridge_cpu_s"],
                sum(t["transcript_bytes"] for t in r["turns"]) / 1e6,
                mib(r["turns"][0]["agent_hwm_kib"]),
            ]
            for r in results
        ],
    )
    return results


# ── main ───────────────────────────────────────────────────────────────────────────────────────────────────────
PACED_TEXT_S = 0.0002  # ≈0.3 ms per delta in practice: ~3,000 deltas/s, far faster than a model, slow enough to keep up
PACED_SHELL_S = 0.002  # a slow command printing wide lines: the live view is re-sent every 100 ms meanwhile


@dataclass
class DemoPlan:
    """How much of the demo-agent sections to run."""

    new_runs: int
    text_cases: list[StreamCase]
    shell_cases: list[StreamCase]
    memory_cases: list[tuple[StreamCase, int]]  # (case, turns in one session)


def quick_plan() -> DemoPlan:
    return DemoPlan(
        new_runs=15,
        text_cases=[
            text_case(2_000, 0),
            text_case(8_000, 0),
            text_case(2_000, PACED_TEXT_S),
            text_case(8_000, PACED_TEXT_S),
        ],
        shell_cases=[
            shell_case(20_000),
            shell_case(20_000, terminal=True),
            shell_case(2_500, 1_999),
            shell_case(5_000, 1_999),
            shell_case(500, 1_999, PACED_SHELL_S),
            shell_case(1_000, 1_999, PACED_SHELL_S),
            shell_case(1_000, 1_999, PACED_SHELL_S, terminal=True),
        ],
        memory_cases=[
            (shell_case(1, 20_000_000, label="20 MB single line"), 4),
            (shell_case(10_000, 1_999, label="20 MB in 2,000-byte lines"), 2),
        ],
    )


def full_plan() -> DemoPlan:
    return DemoPlan(
        new_runs=50,
        text_cases=[text_case(n, 0) for n in (2_000, 8_000, 32_000)]
        + [text_case(n, PACED_TEXT_S) for n in (2_000, 8_000, 32_000, 64_000)],
        shell_cases=[
            shell_case(20_000),
            shell_case(80_000),
            shell_case(20_000, terminal=True),
            shell_case(80_000, terminal=True),
            shell_case(2_500, 1_999),
            shell_case(5_000, 1_999),
            shell_case(10_000, 1_999),
            shell_case(500, 1_999, PACED_SHELL_S),
            shell_case(1_000, 1_999, PACED_SHELL_S),
            shell_case(2_000, 1_999, PACED_SHELL_S),
            shell_case(2_000, 1_999, PACED_SHELL_S, terminal=True),
        ],
        memory_cases=[
            (shell_case(1, 20_000_000, label="20 MB single line"), 8),
            (shell_case(25_000, 1_999, label="50 MB in 2,000-byte lines"), 3),
            (shell_case(500_000, 99, label="50 MB in 100-byte lines"), 2),
        ],
    )


def timed(name: str, fn: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = fn()
    print(f"  ({name}: {time.perf_counter() - started:.1f} s)", file=sys.stderr, flush=True)
    return result


def machine() -> dict[str, Any]:
    """What the numbers were measured on: printed in the header and kept in the JSON."""
    try:
        with open("/proc/meminfo") as fh:
            mem_gib = int(fh.readline().split()[1]) / 1024**2
    except OSError:
        mem_gib = 0.0
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip() or "none"
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_gib, 1),
        "python": sys.version.split()[0],
        "node": node,
        "kernel": platform.release(),
        "commit": commit + ("+changes" if dirty else ""),
        "loadavg_start": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller sizes")
    parser.add_argument(
        "--only",
        choices=["compare", "demo", "eventlog", "second-window", "acp-agents", "compare-overhead"],
        help="run one part only",
    )
    parser.add_argument(
        "--agents", metavar="A,B", help="acp-agents: only these ACP-speaking agents (default: all of them)"
    )
    parser.add_argument(
        "--json", metavar="OUT", help="where to write every measurement (default benchmarks/results-<full|quick>.json)"
    )
    parser.add_argument(
        "--no-doc", action="store_true", help="do not add this run's table to docs/performance.md (it does by default)"
    )
    args = parser.parse_args(argv)
    mode = "quick" if args.quick else "full"
    json_path = Path(args.json) if args.json else Path(__file__).resolve().with_name(f"results-{mode}.json")
    started = time.perf_counter()
    results: dict[str, Any] = {"mode": mode, "machine": machine()}
    m = results["machine"]
    print(
        f"# acp-mux benchmark ({mode}) — {m['date']}, {m['cores']} cores, {m['memory_gib']} GiB, Python "
        f"{m['python']}, Node {m['node']}, commit {m['commit']}, load {m['loadavg_start'][0]:.2f}"
    )
    incomplete: list[str] = []
    # ignore_cleanup_errors: openclaw's shared gateway may still write in its grace period after the last window
    with tempfile.TemporaryDirectory(prefix="acp-mux-bench-", ignore_cleanup_errors=True) as tmp:
        workdir = Path(tmp)
        if args.only in (None, "compare"):
            plan = compare.QUICK if args.quick else compare.FULL
            results["compare"] = timed("comparison", lambda: compare.run(workdir / "compare", plan))
        if args.only == "second-window":  # also part of compare; alone: openclaw's second editor window
            results["second_window"] = timed(
                "second window", lambda: compare.second_window(workdir / "compare", 1 if args.quick else 3)
            )
        if args.only in (None, "acp-agents"):  # every ACP-speaking agent against its own ACP mode (issue 26)
            import acp_agents

            agent_plan = acp_agents.QUICK if args.quick else acp_agents.FULL
            results["acp_agents"] = timed(
                "ACP agents", lambda: acp_agents.run(workdir / "acp-agents", agent_plan, args.agents)
            )
        if args.only in (None, "compare-overhead"):  # several agents on one task: the comparison's own cost
            from compare_overhead import measure

            results["compare_overhead"] = timed(
                "comparison overhead", lambda: measure(2_000 if args.quick else 10_000, 3 if args.quick else 5)
            )
        if args.only in (None, "eventlog"):
            from eventlog_cost import bench_event_log

            results["event_log"] = timed("event log", lambda: bench_event_log(repeats=3 if args.quick else 5))
        if args.only in (None, "demo"):
            LAUNCHER[:] = [str(bench_venv() / "acp-mux"), "--agent", "demo"]
            incomplete = run_demo(workdir / "demo", quick_plan() if args.quick else full_plan(), results)
    results["loadavg_end"] = os.getloadavg()
    results["total_s"] = time.perf_counter() - started
    print(
        f"\nTotal {results['total_s']:.1f} s; load average at the start {m['loadavg_start'][0]:.2f}, "
        f"at the end {results['loadavg_end'][0]:.2f}; JSON in {json_path}"
    )
    json_path.write_text(json.dumps(results, indent=1, default=str))
    if not args.no_doc:  # one table per run, written by the run itself: date, machine, commit, ratios
        import perf_doc

        perf_doc.add_run(results)
        print(f"This run's table is now first in {perf_doc.DOC}")
    if incomplete:
        print(f"DELIVERY INCOMPLETE in {len(incomplete)} turn(s): {', '.join(incomplete)}", file=sys.stderr)
        return 1
    return 0


def run_demo(workdir: Path, plan: DemoPlan, results: dict[str, Any]) -> list[str]:
    """The bridge's own costs with the demo agent; returns the turns whose delivery check failed."""
    workdir.mkdir(parents=True, exist_ok=True)
    results["import_time"] = timed("import time", lambda: bench_import_time(workdir))
    results["session_new"] = timed("session/new", lambda: bench_session_new(workdir, plan.new_runs))
    text_runs = [r[0] for r in timed("text streaming", lambda: run_cases(workdir, plan.text_cases))]
    print_stream_table(
        "Streaming text deltas (agent_message_chunk; one prompt turn each)",
        text_runs,
        unit="KB",
        scale=1e3,
        delivered="delivered %",
        per="delta",
    )
    shell_runs = [r[0] for r in timed("shell streaming", lambda: run_cases(workdir, plan.shell_cases))]
    print_stream_table(
        "Streaming shell output (one Bash tool call each)",
        shell_runs,
        unit="MB",
        scale=1e6,
        delivered="lines accounted %",
        per="line",
    )
    results["text_streaming"] = [r.as_json() for r in text_runs]
    results["shell_streaming"] = [r.as_json() for r in shell_runs]
    results["memory"] = timed("memory", lambda: bench_memory(workdir, plan.memory_cases))
    checked = [(r["case"], r) for r in results["text_streaming"] + results["shell_streaming"]]
    checked += [(f"{m['case']}, turn {n}", t) for m in results["memory"] for n, t in enumerate(m["turns"], 1)]
    incomplete = print_delivery_check(checked)
    results["incomplete_turns"] = incomplete
    return incomplete


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
