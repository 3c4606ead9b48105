"""The session record as a typed event log: one JSONL file of versioned envelopes per session (spec 001).

Each line is one envelope, keys always in this order, ``data`` keys sorted, compact, UTF-8::

    {"schema_version":"1","event_id":"01K…","run_id":"01K…","session_id":"01K…","sequence":7,
     "occurred_at":"2026-05-03T10:23:45.123Z","type":"tool_call_ready","data":{"input":{…},"toolCallId":"…",…}}

What is stored
    Every normalized event of every run of the session (the same union for all agents, so one format serves all),
    ``type`` being the event's type and ``data`` its wire form without what the envelope already says (``type``,
    ``runId``, ``timestamp``), the session's agent (the session record names it) and the native ``raw`` line.
    Besides the agent's events, the bridge records what happened on its side, under dotted names: ``user.message``
    (the prompt as the person wrote it, ACP content blocks, and the agent it went to; ``queued`` when it waited
    behind another turn), ``user.steer`` (a message put into the running turn, where it landed), ``user.cancel``,
    ``approval.resolved`` (who answered a question: the person, a remembered rule, a read-only mode, a cancel),
    ``file.snapshot`` (a file's content before an edit, read for the diff the editor was shown), ``bridge.notice``
    (text the bridge itself showed), ``turn.ended`` (the stop reason or error the editor was answered), and
    ``gap.events_pruned`` where retention removed events. Unknown types are kept and read back like any other: a
    reader shows them as they are, never fails on them. A run's events between turns (its start-up, its exit) are
    stored too; replay shows only what a live turn showed. Secrets the bridge's log masks (MCP ``env`` and
    ``headers`` values, credentials from the environment: :mod:`acp_mux.core.text.redact`) are masked in every string
    of ``data`` before a line is written, so neither the file nor ``acp-mux sessions`` ever holds them.

What is folded (the rule)
    A run of consecutive deltas of one kind — ``text_delta`` or ``thinking_delta`` of one message (its
    ``messageId`` kept), ``shell_stdout_delta``, ``shell_stderr_delta``, or ``tool_input_delta`` of one tool call —
    is stored as ONE event of that type whose
    ``delta`` is their concatenation (``accumulated`` is never stored: it is derivable). When the ``message_stop``
    (or ``thinking_stop``) that ends a message carries exactly that text, the folded deltas are dropped and the stop
    event alone keeps the message's full text, so thousands of deltas cost one line. A folded delta longer than
    ``FOLD_CAP_CHARS`` keeps its first and last halves with a note of how much was left out (a command's output
    is bounded in the log as it is on screen); so is any string field of an event longer than that (a 60 MB message
    or tool output is kept as its head and tail). Nothing else is folded or dropped.

Sequence
    ``sequence`` counts the envelopes *stored* for one ``run_id`` (a run is one agent process, which may serve many
    turns): 0, 1, 2, … with no gap, assigned when an envelope is written, after folding. The only gap a reader can
    meet is one retention made, and a ``gap.events_pruned`` envelope takes the last pruned sequence number of that
    run and names the range it replaced; a crash can only lose the end of a run, never its middle.

Crash safety and speed
    The streaming path only appends to memory (a delta costs a list append); envelopes are serialized and appended
    in batches at most ``FLUSH_INTERVAL_S`` apart, at turn end and at close, each batch one ``write`` under a lock.
    A bridge killed mid-turn loses at most the last interval; a torn last line is skipped (with a warning) on read,
    and the next append first ends it with a newline, so lines written after it are never lost.

Old sessions
    Sessions written before this log kept the ACP updates shown (``<id>.transcript.jsonl``). They are read, never
    rewritten: :func:`legacy_envelopes` presents each stored update as an ``acp.update`` envelope of a pseudo-run
    ``legacy-<session>``, deterministically (same ids on every read), and replay shows them as they were, before
    anything the new log holds.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
from datetime import datetime, timezone
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NotRequired, TypedDict, TypeGuard, cast

from acp_mux.core.text import redact
from acp_mux.core.text.joined_text import JoinedText
from acp_mux.core.events.lazy_events import ev
from acp_mux.server.records.private_files import append_locked, open_read, rewrite_locked

if TYPE_CHECKING:
    from acp_mux.core.events.union import BaseEvent

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
FLUSH_INTERVAL_S = 0.2
FLUSH_BATCH = 512  # this many envelopes waiting: flush at the next turn of the loop, not after the interval
FOLD_CAP_CHARS = 1_000_000
# the longest line a reader takes: a capped envelope (2 * FOLD_CAP_CHARS characters of JSON, up to 6 bytes each as
# \u escapes) with room to spare; anything longer was not written by us and is skipped without being held whole
MAX_LINE_BYTES = 16 * 2 * FOLD_CAP_CHARS
ENVELOPE_KEYS = ("schema_version", "event_id", "run_id", "session_id", "sequence", "occurred_at", "type", "data")
FOLDED_TYPES = frozenset(
    {"text_delta", "thinking_delta", "shell_stdout_delta", "shell_stderr_delta", "tool_input_delta"}
)
_STOP_OF = {"message_stop": ("text_delta", "text"), "thinking_stop": ("thinking_delta", "thinking")}
_NOT_DATA = frozenset({"type", "runId", "agent", "timestamp", "raw", "accumulated"})
LEGACY_TYPE = "acp.update"
GAP_PRUNED = "gap.events_pruned"


class Envelope(TypedDict):
    """One line of the log, as written and as read back (:func:`valid_envelope` checks the shape on read)."""

    schema_version: NotRequired[str]
    event_id: str
    run_id: str
    session_id: NotRequired[str | None]
    sequence: int
    occurred_at: str
    type: str
    data: dict[str, object]  # the event's wire form (JSON); a bridge record's own fields


# ── envelopes ──────────────────────────────────────────────────────────────────────────────────────────────────
def iso_ms(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def envelope_line(envelope: Envelope) -> str:
    """The canonical line of an envelope (no newline): fixed key order, sorted ``data``, compact, UTF-8 text.

    Lone surrogates (a truncated emoji from a JS editor) cannot be UTF-8: such a line is written with ``\\u``
    escapes instead, which reads back to the same string. Non-finite numbers become null (JSON has none)."""
    try:
        line = _line(envelope, ascii_only=False)
    except ValueError:
        envelope = cast("Envelope", _finite(envelope))  # the same envelope, non-finite numbers as null
        line = _line(envelope, ascii_only=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = _line(envelope, ascii_only=True)
    return line


def _line(envelope: Envelope, *, ascii_only: bool) -> str:
    def dump(value: object, sort: bool) -> str:
        return json.dumps(
            value, ensure_ascii=ascii_only, separators=(",", ":"), sort_keys=sort, allow_nan=False, default=str
        )

    fields: Mapping[str, object] = envelope
    head = {k: fields[k] for k in ENVELOPE_KEYS if k in fields and k != "data"}
    extra = {k: v for k, v in fields.items() if k not in ENVELOPE_KEYS}  # additive envelope fields, kept
    line = dump(head, False)[:-1] + ',"data":' + dump(envelope.get("data", {}), True)
    if extra:
        line += "," + dump(extra, True)[1:-1]
    return line + "}"


def _finite(value: object) -> object:
    """The value with every non-finite float (JSON has none) replaced by None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def valid_envelope(obj: object) -> TypeGuard[Envelope]:
    """The shape every reader relies on; anything else in a log is a corrupt line."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("type"), str)
        and isinstance(obj.get("run_id"), str)
        and isinstance(obj.get("sequence"), int)
        and not isinstance(obj.get("sequence"), bool)
        and isinstance(obj.get("data"), dict)
        and isinstance(obj.get("event_id"), str)
        and isinstance(obj.get("occurred_at"), str)
    )


def _delta_of(event: BaseEvent) -> tuple[str, str | None, str | None]:
    """A folded event's text, the tool call it belongs to (a tool's input is folded per call; others None) and the
    message it belongs to (text and thinking are folded per message: each keeps its ``messageId``; others None)."""
    match event:
        case ev.TextDeltaEvent() | ev.ThinkingDeltaEvent():
            return event.delta, None, event.message_id
        case ev.ShellStdoutDeltaEvent() | ev.ShellStderrDeltaEvent():
            return event.delta, None, None
        case ev.ToolInputDeltaEvent():
            return event.delta, event.tool_call_id, None
    raise TypeError(f"{event.type} is in FOLDED_TYPES but is no delta event")


def event_data(event: BaseEvent) -> dict[str, object]:
    """An event's ``data``: its wire form minus what the envelope carries (and minus debug ``raw``)."""
    dumped = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {k: v for k, v in dumped.items() if k not in _NOT_DATA}


def event_from_envelope(envelope: Envelope) -> BaseEvent:
    """The typed event an envelope holds (UnknownEvent for types this version does not know; an envelope whose
    data no longer validates as its type is read as unknown too, with a warning: old logs never break a load)."""
    from acp_mux.core.events.union import UnknownEvent, parse_event

    data = {**envelope["data"], "type": envelope["type"], "runId": envelope["run_id"]}
    try:
        return parse_event(data)
    except Exception as exc:  # pydantic ValidationError, or anything a bad line can provoke
        log.warning(
            "event %s (%s) does not validate, read as unknown: %s", envelope.get("sequence"), envelope["type"], exc
        )
        return UnknownEvent(type=envelope["type"], run_id=envelope["run_id"])


# ── reading ────────────────────────────────────────────────────────────────────────────────────────────────────
def read_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) of a log, never through a symlink; nothing when there is no log."""
    try:
        fd = open_read(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        log.warning("not reading %s: %s", path, exc)
        return
    with os.fdopen(fd, "rb") as fh:
        number = 0
        while line := fh.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES:  # not a line we wrote: skip it without holding it whole
                log.warning("%s:%d: skipped a line longer than %d bytes", path.name, number, MAX_LINE_BYTES)
                while line and not line.endswith(b"\n"):
                    line = fh.readline(MAX_LINE_BYTES + 1)
                continue
            yield number, line


def read_envelopes(path: Path, warn: Callable[[str], None] | None = None) -> Iterator[Envelope]:
    """The envelopes of a log in file order. A corrupt line (a torn last line after a crash, bad JSON, a wrong
    shape) is skipped with a warning; the lines after it are read as usual."""
    say = warn or log.warning
    for number, raw in read_lines(path):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            torn = "" if raw.endswith(b"\n") else " (torn: the writer stopped mid-line)"
            say(f"{path.name}:{number}: skipped a line that is not JSON{torn}")
            continue
        if not valid_envelope(obj):
            say(f"{path.name}:{number}: skipped a line that is not an event envelope")
            continue
        yield obj


def legacy_envelopes(
    path: Path, session_id: str, created_at: str, warn: Callable[[str], None] | None = None
) -> Iterator[Envelope]:
    """A pre-event-log transcript (ACP updates) read as ``acp.update`` envelopes, the same bytes on every read."""
    say = warn or log.warning
    run_id = f"legacy-{session_id}"
    sequence = 0
    for number, raw in read_lines(path):
        if not raw.strip():
            continue
        try:
            update = json.loads(raw)
        except ValueError:
            say(f"{path.name}:{number}: skipped a line that is not JSON")
            continue
        if not isinstance(update, dict) or not isinstance(update.get("sessionUpdate"), str):
            say(f"{path.name}:{number}: skipped a line that is not an ACP update")
            continue
        digest = hashlib.sha256(f"{session_id}:{sequence}".encode()).hexdigest()[:26].upper()
        yield {
            "schema_version": SCHEMA_VERSION,
            "event_id": f"legacy-{digest}",
            "run_id": run_id,
            "session_id": session_id,
            "sequence": sequence,
            "occurred_at": created_at,
            "type": LEGACY_TYPE,
            "data": update,
        }
        sequence += 1


# ── writing ────────────────────────────────────────────────────────────────────────────────────────────────────
class _Fold:
    """Consecutive deltas of one kind, joined once at the end, memory bounded: past the cap only the first and the
    latest ``cap/2`` characters are kept.

    Both ends are :class:`JoinedText` (a few joined pieces, not one string per delta: a 100,000-delta message kept
    as its deltas pinned ~50 bytes of object each until it ended, and the allocator kept that memory afterwards).
    The tail is cut back to its last ``cap/2`` characters only when it reaches twice that, so cutting costs linear
    time rather than a copy per delta; :meth:`text` makes the final cut."""

    __slots__ = ("run_id", "type", "tool_call_id", "message_id", "timestamp", "head", "tail", "omitted")

    def __init__(
        self, run_id: str, event_type: str, tool_call_id: str | None, message_id: str | None, timestamp: int
    ) -> None:
        self.run_id, self.type, self.tool_call_id, self.timestamp = run_id, event_type, tool_call_id, timestamp
        self.message_id = message_id
        self.head = JoinedText()
        self.tail = JoinedText()
        self.omitted = 0  # characters cut from the front of the tail so far

    def add(self, delta: str) -> None:
        half = FOLD_CAP_CHARS // 2
        if self.head.length < half:
            self.head.append(delta)
            return
        if self.tail.append(delta) > 2 * half:
            kept = self.tail.text()[-half:]
            self.omitted += self.tail.length - len(kept)
            self.tail = JoinedText(kept)

    def _kept_tail(self) -> tuple[str, int]:
        """The tail as stored (its last ``cap/2`` characters) and how many characters were left out in all."""
        half = FOLD_CAP_CHARS // 2
        tail = self.tail.text()
        if len(tail) <= half:
            return tail, self.omitted
        return tail[len(tail) - half :], self.omitted + len(tail) - half

    def text(self) -> str:
        tail, omitted = self._kept_tail()
        if not omitted:
            return self.head.text() + tail
        return f"{self.head.text()}{_omitted(omitted)}{tail}"

    def same_text(self, text: str) -> bool:
        """Whether ``text`` is what these deltas add up to (for a clipped fold: same length, head and tail)."""
        tail, omitted = self._kept_tail()
        head = self.head.text()
        if not omitted:
            return text == head + tail
        total = self.head.length + self.tail.length + self.omitted
        return len(text) == total and text.startswith(head) and text.endswith(tail)


def _omitted(count: int) -> str:
    return f"\n[… {count} characters not kept in the session log …]\n"


def cap_strings(value: object, cap: int) -> object:
    """Every string longer than ``cap`` kept as its first and last ``cap/2`` characters with a note between."""
    if isinstance(value, str):
        if len(value) <= cap:
            return value
        half = cap // 2
        return value[:half] + _omitted(len(value) - 2 * half) + value[-half:]
    if isinstance(value, dict):
        return {k: cap_strings(v, cap) for k, v in value.items()}
    if isinstance(value, list):
        return [cap_strings(v, cap) for v in value]
    return value


class EventLogWriter:
    """Appends one session's envelopes to its log, folding deltas and batching writes off the streaming path.

    ``event`` takes every event of every run of the session (a ``RunHandle`` ``"*"`` handler); ``record`` adds the
    bridge's own envelopes. Both keep call order. ``flush`` writes what is waiting; it runs by itself at most
    ``FLUSH_INTERVAL_S`` after the first envelope waits (inside a running event loop) and must be called at turn
    end and close. ``ids`` mints event ids (ULIDs; injectable for tests).
    """

    def __init__(
        self,
        path: Path,
        session_id: str,
        *,
        ids: Callable[[int], str] | None = None,
        ensure_dir: Callable[[], object] | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self._ids = ids or _ulid_at
        self._ensure_dir = ensure_dir
        self._pending: list[
            tuple[str, str, int, BaseEvent | dict[str, object]]
        ] = []  # (run_id, type, timestamp ms, event | data dict)
        self._fold: _Fold | None = None
        self._sequence: dict[str, int] = {}
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None
        self.failed: str | None = None  # the last write error, once logged (the turn goes on without the log)

    # ── the hot path ───────────────────────────────────────────────────────────────────────────────────────────
    def event(self, event: BaseEvent) -> None:
        event_type = event.type
        if event_type in FOLDED_TYPES:  # one set lookup for the events that are not deltas
            delta, tool_call_id, message_id = _delta_of(event)
            fold = self._fold
            if (
                fold is None
                or fold.type != event_type
                or fold.run_id != event.run_id
                or fold.tool_call_id != tool_call_id
                or fold.message_id != message_id
            ):
                self._close_fold()
                fold = self._fold = _Fold(event.run_id, event_type, tool_call_id, message_id, event.timestamp)
            fold.add(delta)
            return
        stop = _STOP_OF.get(event_type)
        if stop is not None and self._fold is not None:
            fold = self._fold
            if fold.type == stop[0] and fold.run_id == event.run_id and fold.same_text(getattr(event, stop[1])):
                self._fold = None  # the stop event carries the message whole: the deltas need not be kept
        self._close_fold()
        self._pending.append((event.run_id, event_type, event.timestamp, event))
        self._schedule()

    def record(self, run_id: str, event_type: str, data: Mapping[str, object], timestamp_ms: int | None = None) -> None:
        """An envelope of the bridge's own (``user.message``, ``turn.ended``…), in order with the run's events."""
        from acp_mux.core.events.codes import now_ms

        self._close_fold()
        self._pending.append((run_id, event_type, timestamp_ms if timestamp_ms is not None else now_ms(), dict(data)))
        self._schedule()

    def _close_fold(self) -> None:
        fold, self._fold = self._fold, None
        if fold is None:
            return
        data: dict[str, object] = {"delta": fold.text()}
        if fold.tool_call_id is not None:
            data["toolCallId"] = fold.tool_call_id
        if fold.message_id is not None:
            data["messageId"] = fold.message_id
        self._pending.append((fold.run_id, fold.type, fold.timestamp, data))

    def _schedule(self) -> None:
        if self._timer is not None:
            if len(self._pending) >= FLUSH_BATCH:
                self.flush_soon()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (tools, tests): the caller flushes
        self._timer = loop.call_later(FLUSH_INTERVAL_S, self._flush_soon)

    def flush_soon(self) -> None:
        """Write what waits at the next turn of the loop instead of after the interval: when a batch is full, and for
        a record made just before a quiet moment (the person's prompt, which the agent is then working on), whose
        interval would end ~200 ms later, when a slower agent's first words arrive and would wait for the write."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (tools, tests): the caller flushes
        if self._timer is not None and not isinstance(self._timer, asyncio.TimerHandle):
            return  # already due at the next turn
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_soon(self._flush_soon)

    def _flush_soon(self) -> None:
        self._timer = None
        self.flush(close_fold=False)

    # ── writing ────────────────────────────────────────────────────────────────────────────────────────────────
    def flush(self, *, close_fold: bool = True) -> None:
        """Write everything waiting. ``close_fold=False`` (the timer) leaves an open run of deltas open, so a long
        message still becomes one line; turn end and close pass True."""
        if close_fold:
            self._close_fold()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        lines = [self._line(self._envelope(*item)) for item in pending]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        try:
            if self._ensure_dir is not None:
                self._ensure_dir()
            append_locked(self.path, data)
            self.failed = None
        except OSError as exc:  # a full disk or a refused path must not break the session: say so once
            if self.failed != str(exc):
                log.warning("session log %s not written: %s", self.path, exc)
            self.failed = str(exc)

    @staticmethod
    def _line(envelope: Envelope) -> str:
        line = envelope_line(envelope)
        if redact.in_json(line):  # a secret the log masks (an MCP token, an API key) is masked here too
            envelope = {**envelope, "data": redact.redact_value(envelope["data"])}
            line = envelope_line(envelope)
        if len(line) > 2 * FOLD_CAP_CHARS:  # a huge field (a whole message, a tool's raw output): bounded as folds are
            line = envelope_line(
                {**envelope, "data": {k: cap_strings(v, FOLD_CAP_CHARS) for k, v in envelope["data"].items()}}
            )
        return line

    def _envelope(
        self, run_id: str, event_type: str, timestamp: int, payload: BaseEvent | dict[str, object]
    ) -> Envelope:
        sequence = self._sequence.get(run_id, 0)
        self._sequence[run_id] = sequence + 1
        data = payload if isinstance(payload, dict) else event_data(payload)
        return {
            "schema_version": SCHEMA_VERSION,
            "event_id": self._ids(timestamp),
            "run_id": run_id,
            "session_id": self.session_id,
            "sequence": sequence,
            "occurred_at": iso_ms(timestamp),
            "type": event_type,
            "data": data,
        }


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid_at(timestamp_ms: int) -> str:
    """A ULID (48-bit millisecond time, 80 random bits, Crockford base32) for an event of that time: sortable by
    creation, unique; minted here because the ``ulid`` package's constructor costs ~100 µs per id."""
    if not timestamp_ms:
        from acp_mux.core.events.codes import now_ms

        timestamp_ms = now_ms()
    value = ((timestamp_ms & 0xFFFF_FFFF_FFFF) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


class _Span(TypedDict):
    """What retention removed of one run: the sequence range, how many events, the run's session."""

    first: int
    last: int
    events: int
    session_id: str | None


# ── retention ──────────────────────────────────────────────────────────────────────────────────────────────────
def prune_log(path: Path, keep_last: int, *, pruned_at: str, ids: Callable[[int], str] | None = None) -> int:
    """Keep the newest ``keep_last`` envelopes of a log; each run that lost events gets one ``gap.events_pruned``
    envelope in place of them, carrying the last pruned sequence number of that run (so what remains of the run
    is still gap-free from the marker on) and the range it replaced. Returns how many envelopes were removed.
    Corrupt lines are dropped by the rewrite. Runs under the log's lock: a live writer waits, then appends."""
    removed = 0
    mint = ids or _ulid_at

    def transform(old: bytes) -> bytes | None:
        nonlocal removed
        envelopes = [obj for obj in (_loads(raw) for raw in old.splitlines()) if valid_envelope(obj)]
        cut = max(0, len(envelopes) - keep_last)
        if cut == 0:
            return None
        # start what is kept at a prompt when there is one to start at, so the history begins with a whole turn
        cut = next((i for i in range(cut, len(envelopes)) if envelopes[i]["type"] == "user.message"), cut)
        dropped, kept = envelopes[:cut], envelopes[cut:]
        spans: dict[str, _Span] = {}
        for env in dropped:
            span = spans.setdefault(
                env["run_id"],
                {"first": env["sequence"], "last": env["sequence"], "events": 0, "session_id": env.get("session_id")},
            )
            span["last"] = max(span["last"], env["sequence"])
            if env["type"] == GAP_PRUNED:  # an older gap: the new marker covers its range and count too
                first = env["data"].get("first_pruned_sequence")
                span["first"] = min(span["first"], first if isinstance(first, int) else env["sequence"])
                events = env["data"].get("events")
                span["events"] += events if isinstance(events, int) else 0
            else:
                span["first"] = min(span["first"], env["sequence"])
                span["events"] += 1
        markers: list[Envelope] = [
            {
                "schema_version": SCHEMA_VERSION,
                "event_id": mint(0),
                "run_id": run,
                "session_id": span["session_id"],
                "sequence": span["last"],
                "occurred_at": pruned_at,
                "type": GAP_PRUNED,
                "data": {
                    "first_pruned_sequence": span["first"],
                    "last_pruned_sequence": span["last"],
                    "events": span["events"],
                    "pruned_at": pruned_at,
                    "reason": "retention",
                },
            }
            for run, span in spans.items()
        ]
        removed = len(dropped)
        return join_envelopes(markers + kept).encode("utf-8")

    rewrite_locked(path, transform)
    return removed


def _loads(raw: bytes) -> object:
    try:
        value: object = json.loads(raw)
        return value
    except ValueError:
        return None


def count_lines(path: Path) -> int:
    return sum(1 for _, raw in read_lines(path) if raw.strip())


def join_envelopes(lines: Iterable[Envelope]) -> str:
    return "".join(envelope_line(e) + "\n" for e in lines)
