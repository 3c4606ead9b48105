#!/usr/bin/env python3
"""A fake ``cursor-agent`` for the cursor replay tests: it speaks Cursor's documented ACP mode (``cursor-agent acp``)
and replays the scripted turns in ``tests/fixtures/cursor/*.jsonl``. It is NOT the real CLI and not a recording:
the README next to the fixtures says where every shape comes from.

What it does, like the documented CLI:
- only ``acp`` as its command (anything else: exit 2); an API key on the command line is refused (exit 3), since
  acp-mux must pass ``CURSOR_API_KEY`` through the environment only;
- ``initialize`` → the handshake fixture's result (auth method ``cursor_login``, ``loadSession``);
  ``authenticate{methodId:"cursor_login"}`` → ``{}`` when ``CURSOR_API_KEY`` is set (or ``$HOME/.config/cursor/auth.json``
  exists), else the ACP ``auth_required`` error (-32000); sessions need it first;
- ``session/new`` / ``session/load`` (the conversation replayed as ``session/update`` before the answer; sessions
  kept in ``$HOME/.cursor/fake-sessions``) / ``session/set_mode`` / ``session/prompt`` / ``session/cancel``;
- a prompt runs the first turn script whose ``match`` is in the prompt's text. Script steps: ``text`` (a message
  chunk), ``update`` (any session/update), ``stream`` (numbered lines, honouring cancel between them),
  ``request`` (a blocking request to the client: session/request_permission or a ``cursor/*`` extension; its
  answer sets the branch later steps test with ``when``: allowed / rejected / answered / skipped / accepted),
  ``notify`` (a notification), ``write`` / ``replace`` (the file change the tool makes, in the session's folder,
  only when the step's branch holds), ``recall`` (what the first prompt of the session said), ``stop``.
  A session/cancel ends the turn ``cancelled`` at the next step, also while a request is open.
"""

from __future__ import annotations

import json
import os
import select
import sys
import uuid
from pathlib import Path
from typing import Any

FIXTURES = Path(os.environ.get("FAKE_CURSOR_FIXTURES") or Path(__file__).resolve().parents[1] / "fixtures" / "cursor")
ALLOW_KINDS = ("allow_once", "allow_always")


class Lines:
    """Newline-delimited JSON from stdin, with a timeout (select on the fd; our own buffer, never Python's)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.fd = sys.stdin.fileno()

    def read(self, timeout: float | None = None) -> dict[str, Any] | None:
        while b"\n" not in self.buffer:
            if timeout is not None and not select.select([self.fd], [], [], timeout)[0]:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise SystemExit(0)  # the client went away
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line) if line.strip() else None


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def load_fixtures() -> tuple[dict[str, Any], list[tuple[str, list[dict[str, Any]]]]]:
    """(handshake answers by method, [(match, steps)]) from every fixture file."""
    handshake: dict[str, Any] = {}
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for raw in path.read_text().splitlines():
            if not raw.strip():
                continue
            line = json.loads(raw)
            if "on" in line:
                handshake[line["on"]] = line
            elif "turn" in line:
                turns.append((line["turn"]["match"], []))
            elif turns:
                turns[-1][1].append(line)
    return handshake, turns


class FakeCursor:
    def __init__(self) -> None:
        self.lines = Lines()
        self.handshake, self.turns = load_fixtures()
        self.authenticated = False
        self.session: str | None = None
        self.cwd = ""
        self.history: list[dict[str, str]] = []
        self.cancelled = False
        self.next_id = 0
        self.store = Path(os.environ.get("HOME", ".")) / ".cursor" / "fake-sessions"

    # ── the main loop ───────────────────────────────────────────────────────────────────────────────────────
    def serve(self) -> None:
        while True:
            message = self.lines.read()
            if message is not None:
                self.handle(message)

    def handle(self, message: dict[str, Any]) -> None:
        method, rpc_id = message.get("method"), message.get("id")
        if method is None:
            return  # a late answer to a request of ours
        params = message.get("params") or {}
        if rpc_id is None:  # notifications: session/cancel outside a turn has nothing to stop
            return
        try:
            result = self.answer(method, params, rpc_id)
        except Failure as failure:
            send({"id": rpc_id, "error": failure.error})
            return
        if result is not None:
            send({"id": rpc_id, "result": result})

    def answer(self, method: str, params: dict[str, Any], rpc_id: Any) -> Any:
        if method == "initialize":
            return self.handshake["initialize"]["result"]
        if method == "authenticate":
            if params.get("methodId") != "cursor_login":
                raise Failure(-32602, f"unknown auth method {params.get('methodId')!r}")
            if (
                not os.environ.get("CURSOR_API_KEY")
                and not (Path(os.environ.get("HOME", ".")) / ".config" / "cursor" / "auth.json").exists()
            ):
                raise Failure(
                    -32000,
                    "Authentication required",
                    {"reason": "not logged in: run `agent login` or set CURSOR_API_KEY"},
                )
            self.authenticated = True
            return {}
        if method in ("session/new", "session/load", "session/prompt", "session/set_mode") and not self.authenticated:
            raise Failure(-32000, "Authentication required")
        if method == "session/new":
            self.session, self.cwd, self.history = f"cursor-{uuid.uuid4().hex[:12]}", params["cwd"], []
            self.save()
            return {**self.handshake["session/new"]["result"], "sessionId": self.session}
        if method == "session/load":
            return self.load(params)
        if method == "session/set_mode":
            self.update({"sessionUpdate": "current_mode_update", "currentModeId": params.get("modeId")})
            return {}
        if method == "session/prompt":
            stop = self.prompt(params)
            return {"stopReason": stop}
        raise Failure(-32601, f"Method not found: {method}")

    # ── sessions ─────────────────────────────────────────────────────────────────────────────────────────────
    def save(self) -> None:
        self.store.mkdir(parents=True, exist_ok=True)
        (self.store / f"{self.session}.json").write_text(json.dumps({"cwd": self.cwd, "history": self.history}))

    def load(self, params: dict[str, Any]) -> Any:
        path = self.store / f"{params.get('sessionId')}.json"
        if not path.exists():
            raise Failure(-32603, f"Session not found: {params.get('sessionId')}")
        saved = json.loads(path.read_text())
        self.session, self.cwd, self.history = params["sessionId"], params.get("cwd") or saved["cwd"], saved["history"]
        for said in self.history:  # ACP: the conversation comes back as updates before the answer
            kind = "user_message_chunk" if said["role"] == "user" else "agent_message_chunk"
            self.update({"sessionUpdate": kind, "content": {"type": "text", "text": said["text"]}})
        return {key: value for key, value in self.handshake["session/new"]["result"].items() if key != "sessionId"}

    # ── a turn ───────────────────────────────────────────────────────────────────────────────────────────────
    def prompt(self, params: dict[str, Any]) -> str:
        text = "".join(b.get("text", "") for b in params.get("prompt") or () if b.get("type") == "text")
        self.history.append({"role": "user", "text": text})
        self.cancelled = False
        steps = next((s for match, s in self.turns if match in text), [{"text": "Nothing scripted for that."}])
        branch, picked, said = "", "", []
        try:
            for scripted in steps:
                if "when" in scripted and scripted["when"] != branch:
                    continue
                self.poll(0)
                if self.cancelled:
                    return "cancelled"
                step = self.fill(scripted, picked)
                if "text" in step:
                    said.append(step["text"])
                    self.update(
                        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": step["text"]}}
                    )
                elif "update" in step:
                    self.update(step["update"])
                elif "stream" in step:
                    for n in range(1, step["stream"]["count"] + 1):
                        if self.poll(step["stream"].get("delay", 0)) or self.cancelled:
                            return "cancelled"
                        line = f"Line {n:03d}\n"
                        said.append(line)
                        self.update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": line}})
                elif "request" in step:
                    reply = self.request(step["request"], step.get("params") or {})
                    if self.cancelled or _answered_cancelled(reply):  # ACP: a client answers "cancelled" only
                        self.poll(0.2)  # while it cancels the turn; its session/cancel follows
                        return "cancelled"
                    branch, picked = outcome(step, reply)
                elif "notify" in step:
                    send({"method": step["notify"], "params": step.get("params") or {}})
                elif "write" in step:
                    self.path(step["write"]["path"]).write_text(step["write"]["content"])
                elif "replace" in step:
                    target = self.path(step["replace"]["path"])
                    target.write_text(target.read_text().replace(step["replace"]["old"], step["replace"]["new"]))
                elif "recall" in step:
                    first = next((h["text"] for h in self.history if h["role"] == "user"), "")
                    reply_text = f"You told me: {first}"
                    said.append(reply_text)
                    self.update(
                        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": reply_text}}
                    )
                elif "stop" in step:
                    return step["stop"]
            return "end_turn"
        finally:
            self.history.append({"role": "agent", "text": "".join(said)})
            self.save()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A blocking request to the client; its response (a session/cancel meanwhile is remembered)."""
        self.next_id += 1
        mine = self.next_id
        send({"id": mine, "method": method, "params": params})
        while True:
            message = self.lines.read()
            if message is None:
                continue
            if message.get("id") == mine and "method" not in message:
                return message
            self.between(message)

    def poll(self, timeout: float) -> bool:
        """Read what the client sent meanwhile (waiting up to ``timeout``); True once a cancel came."""
        message = self.lines.read(timeout)
        while message is not None:
            self.between(message)
            message = self.lines.read(0)
        return self.cancelled

    def between(self, message: dict[str, Any]) -> None:
        """A message during a turn: cancel is remembered, other requests are answered at once."""
        if message.get("method") == "session/cancel":
            self.cancelled = True
        elif message.get("method") is not None and message.get("id") is not None:
            self.handle(message)

    # ── helpers ──────────────────────────────────────────────────────────────────────────────────────────────
    def update(self, update: dict[str, Any]) -> None:
        send({"method": "session/update", "params": {"sessionId": self.session, "update": update}})

    def fill(self, step: dict[str, Any], picked: str) -> dict[str, Any]:
        text = json.dumps(step)
        for key, value in (("{cwd}", self.cwd), ("{sessionId}", self.session or ""), ("{picked}", picked)):
            text = text.replace(key, json.dumps(value)[1:-1])
        return json.loads(text)

    def path(self, relative: str) -> Path:
        target = (Path(self.cwd) / relative).resolve()
        if not str(target).startswith(str(Path(self.cwd).resolve()) + os.sep):
            raise SystemExit(f"fake cursor: {relative} is outside the session folder")
        return target


def outcome(step: dict[str, Any], reply: dict[str, Any]) -> tuple[str, str]:
    """(branch, picked label) from the client's answer to a scripted request."""
    result = reply.get("result") if isinstance(reply.get("result"), dict) else {}
    answer = result.get("outcome") if isinstance(result.get("outcome"), dict) else {}
    kind = answer.get("outcome")
    if step["request"] == "session/request_permission":
        if kind != "selected":
            return "rejected", ""
        chosen = next((o for o in step["params"]["options"] if o["optionId"] == answer.get("optionId")), None)
        return ("allowed" if chosen is not None and chosen["kind"] in ALLOW_KINDS else "rejected"), ""
    if step["request"] == "cursor/ask_question" and kind == "answered":
        labels = {o["id"]: o["label"] for q in step["params"]["questions"] for o in q["options"]}
        picked = [labels.get(i, i) for a in answer.get("answers") or () for i in a.get("selectedOptionIds") or ()]
        return "answered", ", ".join(picked)
    return str(kind or "answered"), ""


def _answered_cancelled(reply: dict[str, Any]) -> bool:
    result = reply.get("result") if isinstance(reply.get("result"), dict) else {}
    answer = result.get("outcome") if isinstance(result.get("outcome"), dict) else {}
    return answer.get("outcome") == "cancelled"


class Failure(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.error = {"code": code, "message": message, **({"data": data} if data is not None else {})}


def main(argv: list[str]) -> int:
    if any("key" in arg.lower() for arg in argv):
        print("fake cursor-agent: an API key on the command line is refused (use CURSOR_API_KEY)", file=sys.stderr)
        return 3
    if argv != ["acp"]:
        print(f"fake cursor-agent: only `acp` is scripted, got {argv}", file=sys.stderr)
        return 2
    FakeCursor().serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
