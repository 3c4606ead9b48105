"""The persistent session store: ACP session → the agent's native session, cwd, mode, model, title, transcript.

One JSON record and one JSONL transcript per session under the user's state directory, written atomically, so
``session/list``, ``session/load`` and ``session/resume`` work after the bridge restarts, for every agent —
including those that start a process per turn. The transcript holds the ACP updates the editor was shown
(message chunks coalesced), which is exactly what ``session/load`` replays.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


def state_dir() -> Path:
    explicit = os.environ.get("ACP_MUX_STATE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "acp-mux"


def iso_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class SessionRecord:
    session_id: str
    agent: str
    cwd: str
    native_session_id: str | None = None
    mode: str | None = None
    model: str | None = None
    title: str | None = None
    created_at: str = field(default_factory=iso_now)
    updated_at: str = field(default_factory=iso_now)
    additional_directories: list[str] = field(default_factory=list)
    # One editor entry for every agent (``acp-mux`` without ``--agent``): each agent's own native session, the agent
    # that answered each turn, and how many turns each agent has seen (what it missed is handed over on switching).
    native_sessions: dict[str, str] = field(default_factory=dict)
    turn_agents: list[str] = field(default_factory=list)
    seen_turns: dict[str, int] = field(default_factory=dict)


class SessionStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or state_dir()) / "sessions"

    def _record_path(self, session_id: str) -> Path:
        if not _SAFE_ID.match(session_id):
            raise KeyError(session_id)
        return self.root / f"{session_id}.json"

    def _transcript_path(self, session_id: str) -> Path:
        return self.root / f"{session_id}.transcript.jsonl"

    def save(self, record: SessionRecord) -> None:
        record.updated_at = iso_now()
        self.root.mkdir(parents=True, exist_ok=True)
        path = self._record_path(record.session_id)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(asdict(record), fh)
        os.replace(tmp, path)

    def get(self, session_id: str) -> SessionRecord | None:
        try:
            with open(self._record_path(session_id), encoding="utf-8") as fh:
                data = json.load(fh)
            return SessionRecord(**{k: v for k, v in data.items() if k in SessionRecord.__dataclass_fields__})
        except (KeyError, OSError, ValueError, TypeError):
            return None

    def delete(self, session_id: str) -> None:
        for path in (self._record_path(session_id), self._transcript_path(session_id)):
            try:
                path.unlink()
            except (OSError, KeyError):
                pass

    def list(self, agent: str | None = None, cwd: str | None = None) -> list[SessionRecord]:
        records = []
        if not self.root.is_dir():
            return records
        for path in self.root.glob("*.json"):
            record = self.get(path.stem)
            if record is None or (agent and record.agent != agent) or (cwd and record.cwd != cwd):
                continue
            records.append(record)
        records.sort(key=lambda r: r.updated_at, reverse=True)
        return records

    def append_transcript(self, session_id: str, updates: list[dict[str, Any]]) -> None:
        if not updates:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self._transcript_path(session_id), "a", encoding="utf-8") as fh:
            for update in updates:
                fh.write(json.dumps(update, ensure_ascii=False, separators=(",", ":")) + "\n")

    def transcript(self, session_id: str) -> Iterator[dict[str, Any]]:
        try:
            fh = open(self._transcript_path(session_id), encoding="utf-8")
        except OSError:
            return
        with fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue


class TranscriptBuffer:
    """Collects one turn's updates for the transcript, in the form a replay needs, in memory linear in the turn.

    Consecutive text chunks of one kind become one message (joined once, at the end); every update of a tool call
    is folded into its ``tool_call`` entry, so a live shell view re-sent every 100 ms is kept once, as its last
    state, instead of once per refresh.
    """

    _CHUNKS = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
    _SKIPPED = ("usage_update", "available_commands_update")

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self._text: tuple[str, list[str]] | None = None  # (kind, parts) of the message being assembled
        self._tools: dict[str, dict[str, Any]] = {}  # toolCallId -> its entry in ``updates``

    def add(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind in self._SKIPPED or "terminal_output" in (update.get("_meta") or {}):
            return
        content = update.get("content")
        if kind in self._CHUNKS and isinstance(content, dict) and content.get("type") == "text":
            if self._text is not None and self._text[0] == kind:
                self._text[1].append(content.get("text", ""))
                return
            self._close_text()
            self._text = (kind, [content.get("text", "")])
            return
        self._close_text()
        tool_id = update.get("toolCallId")
        if kind in ("tool_call", "tool_call_update") and isinstance(tool_id, str):
            entry = self._tools.get(tool_id)
            if entry is not None:  # later state of a known call: fields replace, as they do in ACP
                entry.update((k, v) for k, v in update.items() if k not in ("sessionUpdate", "toolCallId"))
                return
            entry = self._tools[tool_id] = dict(update)
            self.updates.append(entry)
            return
        self.updates.append(update)

    def _close_text(self) -> None:
        if self._text is not None:
            kind, parts = self._text
            self._text = None
            self.updates.append({"sessionUpdate": kind, "content": {"type": "text", "text": "".join(parts)}})

    def take(self) -> list[dict[str, Any]]:
        self._close_text()
        out, self.updates, self._tools = self.updates, [], {}
        return out
