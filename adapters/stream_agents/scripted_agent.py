"""A small scripted coding agent: the bundled agent behind ``acp-mux demo`` and the bridge's own tests.

It is a real subprocess speaking its own JSONL protocol (stdin: prompt / approval / interrupt / mode; stdout:
events), does real work in its cwd (writes and edits files, runs commands), and can misbehave on request, so the
bridge is exercised end to end without any third-party CLI. The scenario is chosen by a keyword in the prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

_inbox: "queue.Queue[dict[str, Any]]" = queue.Queue()
_approvals: dict[str, "queue.Queue[bool]"] = {}
_interrupted = threading.Event()
_steers: "queue.Queue[str]" = queue.Queue()  # messages put into the running turn ("steer"), read at its next step
_mode = "default"

# Size knobs for benchmarks/bench.py; unset, the agent behaves exactly as before.
_TEXT_DELAY = float(os.environ.get("ACP_MUX_DEMO_TEXT_DELAY", "0.01"))  # seconds between streamed words
_BIGSHELL_LINES = int(os.environ.get("ACP_MUX_DEMO_BIGSHELL_LINES", "20000"))  # lines "bigshell" prints
_BIGSHELL_WIDTH = int(os.environ.get("ACP_MUX_DEMO_BIGSHELL_WIDTH", "0"))  # >0: each line is this many chars
_BIGSHELL_DELAY = float(os.environ.get("ACP_MUX_DEMO_BIGSHELL_DELAY", "0"))  # seconds between those lines
_DELTAS = int(os.environ.get("ACP_MUX_DEMO_DELTAS", "100000"))  # text deltas "manydeltas" streams, back to back


def emit(**event: object) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _reader() -> None:
    global _mode
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            emit(type="log", message=f"ignored input: {line.strip()[:80]}")
            continue
        kind = message.get("type")
        if kind == "interrupt":
            _interrupted.set()
        elif kind == "approval":
            _approvals.setdefault(message.get("id", ""), queue.Queue()).put(bool(message.get("allow")))
        elif kind == "mode":
            _mode = str(message.get("mode", "default"))
        elif kind == "steer":
            _steers.put(str(message.get("text", "")))
        else:
            _inbox.put(message)
    _inbox.put({"type": "eof"})


def pause(seconds: float) -> bool:
    """Sleep, but wake up for an interrupt; True when interrupted."""
    return _interrupted.wait(seconds)


def stream_text(text: str, kind: str = "text", delay: float | None = None) -> bool:
    delay = _TEXT_DELAY if delay is None else delay
    for word in text.split(" "):
        emit(type=kind, text=word + " ")
        if pause(delay):
            return True
    return False


def ask(tool_id: str, name: str, tool_input: dict[str, Any], withdraw_after: float | None = None) -> bool:
    """Request approval unless the mode says otherwise; block until answered, interrupted, or (``withdraw_after``
    seconds) the agent changes its mind and withdraws the question, as Claude does with control_cancel_request."""
    if _mode == "bypass":
        return True
    approval_id = uuid.uuid4().hex[:8]
    answers = _approvals.setdefault(approval_id, queue.Queue())
    emit(type="approval_request", id=approval_id, tool_id=tool_id, name=name, input=tool_input)
    deadline = time.monotonic() + withdraw_after if withdraw_after is not None else None
    while not _interrupted.is_set():
        if deadline is not None and time.monotonic() >= deadline:
            emit(type="approval_withdrawn", id=approval_id)
            return False
        try:
            return answers.get(timeout=0.05)
        except queue.Empty:
            continue
    return False


def tool(name: str, tool_input: dict[str, Any], run: Callable[[str], str], withdraw_after: float | None = None) -> bool:
    """Announce a tool, ask, run it; False when rejected or interrupted."""
    tool_id = "tool_" + uuid.uuid4().hex[:10]
    emit(type="tool_use", id=tool_id, name=name, input=tool_input)
    if not ask(tool_id, name, tool_input, withdraw_after):
        emit(type="tool_result", id=tool_id, ok=False, output="The user rejected this action.")
        return False
    try:
        output = run(tool_id)
    except Exception as exc:  # report tool failures like a real agent would
        emit(type="tool_result", id=tool_id, ok=False, output=str(exc))
        return False
    emit(type="tool_result", id=tool_id, ok=True, output=output)
    return True


def run_command(tool_id: str, command: str) -> str:
    emit(type="shell_start", id=tool_id, command=command)
    started = time.monotonic()
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        emit(type="shell_output", id=tool_id, text=line)
    code = proc.wait()
    emit(type="shell_exit", id=tool_id, code=code, ms=int((time.monotonic() - started) * 1000))
    return "".join(lines[-50:])


def scenario_write(cwd: str) -> str:
    path = os.path.join(cwd, "notes.txt")
    if stream_text("The user wants a notes file; write it, then fix the second line.", "thinking"):
        return "cancelled"
    if stream_text("I'll create notes.txt, then edit it."):
        return "cancelled"
    emit(
        type="plan",
        entries=[
            {"content": "Write notes.txt", "status": "in_progress"},
            {"content": "Edit line 2", "status": "pending"},
        ],
    )

    def write(_tool_id: str) -> str:
        with open(path, "w") as fh:
            fh.write("alpha\nbeta\n")
        return f"Wrote {path}"

    if not tool("Write", {"file_path": path, "content": "alpha\nbeta\n"}, write):
        stream_text("\nOkay, I will not write the file.")
        return "cancelled" if _interrupted.is_set() else "end_turn"

    def edit(_tool_id: str) -> str:
        with open(path) as fh:
            text = fh.read()
        with open(path, "w") as fh:
            fh.write(text.replace("beta", "gamma"))
        return f"Edited {path}"

    if not tool("Edit", {"file_path": path, "old_string": "beta", "new_string": "gamma"}, edit):
        stream_text("\nOkay, leaving the file as it is.")
        return "cancelled" if _interrupted.is_set() else "end_turn"
    emit(
        type="plan",
        entries=[
            {"content": "Write notes.txt", "status": "completed"},
            {"content": "Edit line 2", "status": "completed"},
        ],
    )
    tool("Bash", {"command": "cat notes.txt"}, lambda tid: run_command(tid, f"cat {path!r}"))
    stream_text("\nDone: notes.txt now reads alpha, gamma.")
    return "end_turn"


def scenario_shell(lines: int, delay: float, width: int = 0) -> str:
    command = f"{sys.executable} -c \"import time,sys\nfor i in range({lines}):\n print('line', i, flush=True); time.sleep({delay})\""
    if width > 0:  # benchmark output: `lines` lines of exactly `width` characters
        command = f"{sys.executable} -c \"import sys,time\nfor i in range({lines}):\n sys.stdout.write(str(i).ljust({width}, 'x') + '\\n'); sys.stdout.flush(); time.sleep({delay})\""
    tool("Bash", {"command": f"count to {lines}"}, lambda tid: run_command(tid, command))
    stream_text("Counted.")
    return "end_turn"


def scenario_progress(steps: int = 3) -> str:
    """A long-running MCP-style tool that reports progress (as MCP ``notifications/progress`` would) before its
    result: the bridge must show each report on the tool call without it ending the call or the turn."""

    def search(tool_id: str) -> str:
        for step in range(1, steps + 1):
            if pause(0.05):
                raise RuntimeError("interrupted")
            emit(
                type="tool_progress",
                id=tool_id,
                progress=step,
                total=steps,
                message=f"searched {step} of {steps} sources",
            )
        return f"{steps} documents found"

    if not tool("mcp__docs__search", {"query": "event logs"}, search):
        return "cancelled" if _interrupted.is_set() else "end_turn"
    stream_text("Found what I needed.")
    return "end_turn"


# A plain prompt (no keyword below) shows the whole flow: thoughts, a plan, a write and an edit (each asked first)
# and a command, so a person trying an editor set-up with "hello" sees everything. Programs that want a plain prompt
# echoed (the test suite, the benchmarks) set SCRIPTED_AGENT_ECHO=1.
_ECHO = os.environ.get("SCRIPTED_AGENT_ECHO") == "1"


def _said(keyword: str, lowered: str) -> bool:
    """``keyword`` is a whole word of the prompt ("rate" is not in "generate", nor "auth" in "author")."""
    return re.search(rf"\b{keyword}\b", lowered) is not None


def handle_prompt(text: str, cwd: str) -> None:
    _interrupted.clear()
    while not _steers.empty():  # a steer the last turn never read is not this turn's
        _steers.get()
    lowered = text.lower()
    emit(type="turn_start")
    stop = "end_turn"
    if lowered.startswith("askrun"):  # asks to run each following line as a command, runs none of them
        for command in [line.strip() for line in text.splitlines()[1:] if line.strip()]:
            allowed = tool("Bash", {"command": command}, lambda tid: "(not run: the demo only asks)")
            emit(type="text", text=f"{'allowed' if allowed else 'denied'}: {command}\n")
            if _interrupted.is_set():
                break
    elif lowered.startswith("daemon "):  # starts a sleeper that leaves our session and group, named by the prompt
        name = text.split(None, 1)[1].strip()
        sleeper = f"{sys.executable} -c 'import time; time.sleep(300)' {shlex.quote(name)}"
        tool(
            "Bash",
            {"command": f"setsid {name}"},
            lambda tid: run_command(tid, f"setsid {sleeper} </dev/null >/dev/null 2>&1 &"),
        )
        stream_text("Started it in the background.")
    elif _said("auth", lowered):
        emit(type="error", kind="auth", message="401 Unauthorized: invalid API key")
        sys.exit(1)
    elif _said("crash", lowered):
        sys.stderr.write("panic: the scripted agent fell over\nstack: main.go:42\n")
        sys.stderr.flush()
        emit(type="text", text="About to fail...")
        os._exit(3)
    elif _said("modeldown", lowered):  # the model endpoint fails for good mid-answer, after the agent's own retries
        stream_text("Here is the first half of")
        emit(type="error", message="500 Internal Server Error from the model API (gave up after 2 retries)")
    elif _said("sigkill", lowered):  # the agent is killed by a signal mid-answer (an OOM killer, a stray kill -9)
        emit(type="text", text="Working on it...")
        os.kill(os.getpid(), signal.SIGKILL)
    elif lowered.startswith("quota"):  # a usage limit the agent will not retry past (a handover to another: not)
        emit(type="error", kind="quota", message="You have hit your usage limit")
    elif _said("rate", lowered):
        emit(type="error", kind="rate", message="429 Too Many Requests", retry_after_ms=30000)
    elif _said("hang", lowered):
        emit(type="text", text="Thinking very hard...")
        while not _interrupted.is_set():
            time.sleep(0.05)
        stop = "cancelled"
    elif _said("refuse", lowered):
        stream_text("I can't help with that.")
        stop = "refusal"
    elif _said("overflow", lowered):
        stop = "max_tokens"
    elif _said("maxturns", lowered):
        stop = "max_turns"
    elif _said("garbage", lowered):
        sys.stdout.write('not json at all\n{"type": "text", "text": \n[1,2]\n\x00\xff\n')
        sys.stdout.flush()
        emit(type="text", text="Still here.")
    elif _said("flood", lowered):  # as fast as possible: ACP_MUX_DEMO_FLOOD_MB of text in 1 KB deltas
        chunk = "x" * 1023 + " "
        for _ in range(int(float(os.environ.get("ACP_MUX_DEMO_FLOOD_MB", "64")) * 1024)):
            emit(type="text", text=chunk)
            if _interrupted.is_set():
                stop = "cancelled"
                break
    elif _said("manydeltas", lowered):  # many small deltas as fast as possible: the bridge's per-event cost and memory
        for i in range(_DELTAS):
            emit(type="text", text=f"d{i} ")
            if _interrupted.is_set():
                stop = "cancelled"
                break
    elif _said("withdraw", lowered):  # asks, then takes the question back before anyone answers
        tool("Bash", {"command": "rm -rf build"}, lambda tid: "", withdraw_after=0.5)
        stream_text("Never mind, I found another way.")
    elif _said("slow", lowered):
        for i in range(400):
            emit(type="text", text=f"word{i} ")
            if pause(0.02):
                stop = "cancelled"
                break
            if not _steers.empty():  # steered: the message changes what the turn does next (it wraps up)
                emit(type="text", text=f"Steered by: {_steers.get()} ")
                break
    elif _said("progress", lowered):
        stop = scenario_progress()
    elif _said("bigshell", lowered):
        stop = scenario_shell(_BIGSHELL_LINES, _BIGSHELL_DELAY if _BIGSHELL_WIDTH > 0 else 0, _BIGSHELL_WIDTH)
    elif _said("shell", lowered):
        stop = scenario_shell(5, 0.2)
    elif _said("write", lowered) or _said("demo", lowered):
        stop = scenario_write(cwd)
    elif _ECHO:
        stop = "cancelled" if stream_text(f"You said: {text}") else "end_turn"
    else:
        stop = scenario_write(cwd)
    if _interrupted.is_set():
        stop = "cancelled"
    emit(type="usage", input_tokens=1200, output_tokens=80, cost_usd=0.0042)
    emit(type="turn_end", stop=stop)


def main() -> None:
    parser = argparse.ArgumentParser(prog="scripted-agent")
    parser.add_argument("--resume")
    parser.add_argument("--fork-session", action="store_true")  # as claude's: a new session id, not the resumed one
    parser.add_argument("--mode", default="default")
    parser.add_argument("--ignore-sigterm", action="store_true")
    args, _ = parser.parse_known_args()
    global _mode
    _mode = args.mode
    signal.signal(signal.SIGINT, lambda *_: _interrupted.set())
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=_reader, daemon=True).start()
    forked = bool(args.resume) and args.fork_session
    if forked and os.environ.get("SCRIPTED_AGENT_FORK_FAILS"):  # as claude when the session to fork is gone
        gone = f"No conversation found with session ID: {args.resume}"
        if os.environ["SCRIPTED_AGENT_FORK_FAILS"] != "answer":  # at once, as a claude run with the prompt given
            print(gone, file=sys.stderr)
            raise SystemExit(1)
        while True:  # "answer": as claude's live process, each prompt answered with the error, the process waiting
            message = _inbox.get()
            if message.get("type") == "eof":
                return
            if message.get("type") == "prompt":
                emit(type="turn_start")
                emit(type="error", message=gone)
                emit(type="turn_end", stop="end_turn")
    session = str(uuid.uuid4()) if forked or not args.resume else args.resume
    emit(type="ready", session=session, resumed=bool(args.resume) and not forked)
    while True:
        message = _inbox.get()
        if message.get("type") == "eof":
            return
        if message.get("type") == "prompt":
            handle_prompt(str(message.get("text", "")), os.getcwd())


if __name__ == "__main__":
    main()
