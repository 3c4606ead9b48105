"""The persistent session store: ACP session → the agent's native session, cwd, mode, model, title, event log.

Per session, under ``<state>/sessions/`` (0700): ``<id>.json``, the record (written atomically, 0600), and
``<id>.events.jsonl``, the session's event log (0600; format and rules in :mod:`acp_mux.server.records.event_log`).
Sessions written before the event log also have ``<id>.transcript.jsonl`` (the ACP updates shown), which is read
and never rewritten. So ``session/list``, ``session/load`` and ``session/resume`` work after the bridge restarts,
for every agent, including those that start a process per turn.

The store trusts none of its files: a session id is checked before it becomes part of a path (and a record's id must
match its file name), nothing is opened through a symlink, only regular files owned by this user are read (opened
without blocking, so a FIFO or device planted there costs nothing; records capped at ``MAX_RECORD_BYTES``, log lines
at ``event_log.MAX_LINE_BYTES``), and a record of the wrong shape or a corrupt log line is skipped with a warning
instead of breaking every other session. Nor does it fail the conversation: a store that cannot be written (a full
disk, a file where the folder should be) makes :meth:`SessionStore.save` return False and the session say so once,
while every turn is answered as usual. Retention (:meth:`SessionStore.prune`) removes sessions by age and count
(settings checked by :mod:`acp_mux.core.settings`), and old events of long sessions, leaving a
``gap.events_pruned`` marker.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import re
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from acp_mux.core.files import paths
from acp_mux.core.text import redact
from acp_mux.core.settings import read_setting
from acp_mux.server.records.private_files import UnsafePath, is_plain_dir, private_dir, read_bytes, remove, write_atomic
from acp_mux.server.wire.settings_shapes import stored_options

if TYPE_CHECKING:
    from acp_mux.server.records.event_log import Envelope, EventLogWriter

log = logging.getLogger(__name__)

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
RECORD_SUFFIX = ".json"
LOG_SUFFIX = ".events.jsonl"
LEGACY_SUFFIX = ".transcript.jsonl"
DEFAULT_MAX_AGE_DAYS = 90
DEFAULT_MAX_SESSIONS = 1000
MAX_RECORD_BYTES = 4 << 20  # a record is a few hundred bytes; more was not written by us


def state_dir() -> Path:
    return paths.state_dir()


def iso_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def valid_session_id(session_id: Any) -> bool:
    """Letters, digits, ``_.-``, at most 128, not starting with a dot or dash: safe as a file name, never a path."""
    return isinstance(session_id, str) and bool(_SAFE_ID.match(session_id))


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
    # A fork (``session/fork``): the session it was copied from, and, until the agent's own fork of it exists, the
    # native session that fork starts from (:mod:`acp_mux.server.branches.fork`). Never the original's native id as this
    # session's own: a prompt here must not reach the original's conversation.
    forked_from: str | None = None
    native_fork_from: str | None = None
    failover: str | None = None  # the session's failover setting (ask, never, an agent); None: ACP_MUX_FAILOVER
    # The single-agent editor entry (``--agent NAME``) of a session that carried on with another agent at a limit:
    # it stays listed and loadable there, also when the limit came before that agent answered any turn.
    entry: str | None = None
    # The agent's own settings the person chose in this session (effort, Fast mode, a thinking level: every agent's
    # config options but mode and model, which have their fields above), each as an ACP ``SessionConfigOption``
    # as last shown, ``currentValue`` the choice: a reopened session shows them at once and gives them to its agent.
    # Belongs to the session's agent, like mode and model (a switch clears it). Read back through
    # :func:`~acp_mux.server.wire.settings_shapes.stored_options`: a stored option of a bad shape is dropped.
    chosen_options: list[dict[str, Any]] = field(default_factory=list)

    @property
    def native_fork_pending(self) -> bool:
        """A fork whose agent has not made its own fork of ``native_fork_from`` yet: its next run makes it."""
        return self.native_fork_from is not None and self.native_session_id is None

    def adopt_native(self, native: str) -> bool:
        """``native``, the session the agent reports, as this session's own; True when the record changed. A fork
        whose agent has not forked yet never takes the original's session (a prompt would reach the original's
        conversation); once the agent's fork exists, it is this session's (the editor path and the Python API)."""
        if self.native_fork_pending:
            if native == self.native_fork_from:
                return False
            self.native_fork_from = None
        if self.native_session_id == native:
            return False
        self.native_session_id = native
        return True

    @classmethod
    def from_json(cls, data: Any) -> "SessionRecord":
        """A record from its stored JSON, checking every field's type (ValueError names the first bad one)."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            if f.name == "chosen_options":  # settings, not identity: what is not an option is dropped, never fatal
                values[f.name] = stored_options(value)
                continue
            if f.name in ("additional_directories", "turn_agents"):
                if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                    raise ValueError(f"{f.name} is not a list of strings")
            elif f.name in ("native_sessions", "seen_turns"):
                kind = str if f.name == "native_sessions" else int
                if not (
                    isinstance(value, dict)
                    and all(isinstance(v, kind) and not isinstance(v, bool) for v in value.values())
                ):
                    raise ValueError(f"{f.name} is not a map of {kind.__name__}s")
            elif value is not None and not isinstance(value, str):
                raise ValueError(f"{f.name} is not a string")
            values[f.name] = value
        for required in ("session_id", "agent", "cwd"):
            if not isinstance(values.get(required), str):
                raise ValueError(f"{required} is missing")
        if not valid_session_id(values["session_id"]):
            raise ValueError(f"session_id {values['session_id']!r} is not a valid id")
        return cls(**values)


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None


@dataclass
class PruneReport:
    removed_sessions: list[str] = field(default_factory=list)
    pruned_events: dict[str, int] = field(default_factory=dict)  # session id -> envelopes removed
    orphans: list[str] = field(default_factory=list)  # files left by deleted sessions


class SessionStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or state_dir()) / "sessions"
        self.write_error: str | None = None  # why the last save failed (None once one succeeds): shown by sessions

    # ── paths ──────────────────────────────────────────────────────────────────────────────────────────────────
    def _path(self, session_id: str, suffix: str) -> Path:
        if not valid_session_id(session_id):
            raise KeyError(session_id)
        return self.root / f"{session_id}{suffix}"

    def log_path(self, session_id: str) -> Path:
        return self._path(session_id, LOG_SUFFIX)

    def legacy_path(self, session_id: str) -> Path:
        return self._path(session_id, LEGACY_SUFFIX)

    def ensure_root(self) -> Path:
        return private_dir(self.root)

    # ── records ────────────────────────────────────────────────────────────────────────────────────────────────
    def save(self, record: SessionRecord) -> bool:
        """Write the record; False when it could not be written (a full disk, a read-only or refused folder).

        Never raises OSError: the store is a record of the conversation, and losing it must not fail the turn the
        editor is waiting for. The failure is logged once per distinct reason and kept in :attr:`write_error` for
        the session to show the person once. A title is stored with known secrets masked, as the log masks them."""
        path = self._path(record.session_id, RECORD_SUFFIX)  # KeyError for an id that must not become a file name
        record.updated_at = iso_now()
        data = asdict(record)
        data["title"] = redact.redact_value(data["title"])
        try:
            self.ensure_root()
            write_atomic(path, json.dumps(data, ensure_ascii=False).encode("utf-8", "backslashreplace"))
        except OSError as exc:
            problem = f"session {record.session_id} could not be saved in {self.root}: {exc}"
            if problem != self.write_error:
                log.warning("%s", problem)
            self.write_error = problem
            return False
        self.write_error = None
        return True

    def get(self, session_id: str) -> SessionRecord | None:
        """The stored record, or None (unknown, unsafe id, unreadable, or not a valid record: then with a warning)."""
        if not valid_session_id(session_id):
            return None
        path = self.root / f"{session_id}{RECORD_SUFFIX}"
        try:
            raw = read_bytes(path, MAX_RECORD_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("session record %s skipped: %s", path.name, exc)
            return None
        try:
            record = SessionRecord.from_json(json.loads(raw))
        except ValueError as exc:
            log.warning("session record %s skipped: %s", path.name, exc)
            return None
        if record.session_id != session_id:
            log.warning("session record %s skipped: it names another session (%r)", path.name, record.session_id)
            return None
        return record

    def delete(self, session_id: str) -> None:
        if not valid_session_id(session_id):
            return
        for suffix in (RECORD_SUFFIX, LOG_SUFFIX, LEGACY_SUFFIX):
            try:
                remove(self.root / f"{session_id}{suffix}")
            except OSError as exc:
                log.warning("could not remove %s%s: %s", session_id, suffix, exc)

    def ids(self) -> list[str]:
        """Ids of the records present (plain files with a valid id; links and special files are skipped with a
        warning, strays ignored)."""
        if not is_plain_dir(self.root):
            return []
        out = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                name = entry.name
                if not name.endswith(RECORD_SUFFIX) or name.endswith((LOG_SUFFIX, LEGACY_SUFFIX)):
                    continue
                if not entry.is_file(follow_symlinks=False):  # a link, FIFO, device, socket or folder: never opened
                    log.warning("session record %s skipped: not a regular file", name)
                    continue
                stem = name[: -len(RECORD_SUFFIX)]
                if valid_session_id(stem):
                    out.append(stem)
        return out

    def list(self, agent: str | None = None, cwd: str | None = None) -> list[SessionRecord]:
        records = []
        for session_id in self.ids():
            record = self.get(session_id)
            if record is None or (agent and record.agent != agent) or (cwd and record.cwd != cwd):
                continue
            records.append(record)
        records.sort(key=lambda r: r.updated_at, reverse=True)
        return records

    def resolve(self, prefix: str) -> str | None:
        """The one stored session whose id is or starts with ``prefix`` (for people typing ids), else None."""
        if valid_session_id(prefix) and self.get(prefix) is not None:
            return prefix
        matches = [sid for sid in self.ids() if sid.startswith(prefix)]
        return matches[0] if len(matches) == 1 else None

    # ── the event log ──────────────────────────────────────────────────────────────────────────────────────────
    def event_log(self, session_id: str, **kwargs: Any) -> EventLogWriter:
        """The writer of a session's log (:class:`~acp_mux.server.records.event_log.EventLogWriter`)."""
        from acp_mux.server.records.event_log import EventLogWriter

        return EventLogWriter(self.log_path(session_id), session_id, ensure_dir=self.ensure_root, **kwargs)

    def envelopes(self, session_id: str, warn: Callable[[str], None] | None = None) -> Iterator[Envelope]:
        """Everything recorded about a session, oldest first: an old-format transcript (as ``acp.update``
        envelopes), then the event log. Corrupt lines are skipped with a warning."""
        from acp_mux.server.records.event_log import legacy_envelopes, read_envelopes

        if not valid_session_id(session_id):
            return
        record = self.get(session_id)
        created = record.created_at if record is not None else "1970-01-01T00:00:00.000Z"
        yield from legacy_envelopes(self.legacy_path(session_id), session_id, created, warn)
        yield from read_envelopes(self.log_path(session_id), warn)

    # ── retention ──────────────────────────────────────────────────────────────────────────────────────────────
    def prune(
        self,
        *,
        older_than_days: float | None = None,
        keep_sessions: int | None = None,
        max_events: int | None = None,
        protect: frozenset[str] = frozenset(),
        dry_run: bool = False,
        now: datetime | None = None,
    ) -> PruneReport:
        """Remove sessions not updated for ``older_than_days`` and all but the ``keep_sessions`` most recent; cut
        each remaining log to its newest ``max_events`` envelopes (a gap marker in place of the rest); remove logs
        and transcripts whose record is gone. Sessions in ``protect`` (open in this bridge) are never touched."""
        from acp_mux.server.records.event_log import count_lines, prune_log

        report = PruneReport()
        if not is_plain_dir(self.root):
            return report
        now = now or datetime.now(timezone.utc)
        records = [r for r in self.list() if r.session_id not in protect]
        doomed: list[str] = []
        if older_than_days is not None:
            limit = now - timedelta(days=older_than_days)
            for record in records:
                updated = _parse_time(record.updated_at)
                if updated is not None and updated < limit:
                    doomed.append(record.session_id)
        if keep_sessions is not None:
            for record in records[keep_sessions:]:
                if record.session_id not in doomed:
                    doomed.append(record.session_id)
        report.removed_sessions = doomed
        if not dry_run:
            for session_id in doomed:
                self.delete(session_id)
        if max_events is not None:
            stamp = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
            for record in records:
                if record.session_id in doomed:
                    continue
                path = self.log_path(record.session_id)
                if dry_run:
                    excess = count_lines(path) - max_events
                    if excess > 0:
                        report.pruned_events[record.session_id] = excess
                    continue
                removed = prune_log(path, max_events, pruned_at=stamp)
                if removed:
                    report.pruned_events[record.session_id] = removed
        report.orphans = self._orphans(protect)
        if not dry_run:
            for name in report.orphans:
                remove(self.root / name)
        return report

    def _orphans(self, protect: frozenset[str]) -> builtins.list[str]:  # `list` here is the method above
        known = set(self.ids()) | set(protect)
        out = []
        with os.scandir(self.root) as entries:
            for entry in entries:
                for suffix in (LOG_SUFFIX, LEGACY_SUFFIX):
                    if entry.name.endswith(suffix) and entry.name[: -len(suffix)] not in known:
                        out.append(entry.name)
        return sorted(out)


def retention_from_env(env: Mapping[str, str] | None = None) -> tuple[int | None, int | None]:
    """(max age in days, max sessions) for automatic retention: ``ACP_MUX_SESSION_MAX_AGE_DAYS`` (default 90) and
    ``ACP_MUX_SESSION_MAX_COUNT`` (default 1000); 0 or ``off`` disables one. A value outside that grammar raises
    :class:`~acp_mux.core.settings.SettingError` (never read as something else: ``-1`` once deleted every session)."""
    env = os.environ if env is None else env
    age = read_setting("ACP_MUX_SESSION_MAX_AGE_DAYS", env, DEFAULT_MAX_AGE_DAYS)
    count = read_setting("ACP_MUX_SESSION_MAX_COUNT", env, DEFAULT_MAX_SESSIONS)
    assert (age is None or isinstance(age, int)) and (count is None or isinstance(count, int))
    return age, count


__all__ = ["PruneReport", "SessionRecord", "SessionStore", "UnsafePath", "iso_now", "state_dir", "valid_session_id"]
