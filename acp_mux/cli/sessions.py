"""``acp-mux sessions list|show|export|prune``: the session store, readable by a person.

``list`` shows the stored sessions, newest first, under a header with their count (``--limit N``: only the newest
N); ``show ID`` prints one conversation as text (prompts, answers,
thinking, tool calls with their results and progress, how each turn ended), translated from the event log the same
way ``session/load`` replays it; ``export ID`` writes the log's envelopes as canonical JSONL (the same bytes on
every run: stored ids and times, fixed key order); ``prune`` applies retention by age, count and log length. An ID
may be given by any unique prefix. Corrupt lines and records are skipped with a warning on stderr, never fatal.
Everything printed is stored text from agents and models: control characters (ESC sequences, carriage returns, bidi
overrides) are printed as ``\\uXXXX`` escapes (:mod:`acp_mux.core.text.visible`); only the newlines and tabs of a message
body are kept as layout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TextIO

from acp_mux.core.text.shapes import as_dict
from acp_mux.core.text.visible import visible
from acp_mux.server.records.event_log import LEGACY_TYPE, envelope_line
from acp_mux.server.records.store import SessionRecord, SessionStore
from acp_mux.translation.stored_updates import read_update

if TYPE_CHECKING:
    from acp_mux.adapters.base import ToolTable
    from acp_mux.protocol import v1


def run_sessions(argv: Sequence[str], store: SessionStore | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="acp-mux sessions", description="Read and prune the bridge's session store.")
    sub = parser.add_subparsers(dest="command", metavar="{list,show,export,prune}")
    listing = sub.add_parser("list", help="stored sessions, newest first")
    listing.add_argument("--limit", type=_positive, metavar="N", help="only the N most recently updated")
    listing.add_argument("--agent", help="only this agent's sessions")
    listing.add_argument("--cwd", help="only sessions in this directory")
    listing.add_argument("--json", action="store_true", help="one JSON object per session")
    show = sub.add_parser("show", help="a session's conversation as text")
    show.add_argument("id", help="session id (or a unique prefix)")
    export = sub.add_parser("export", help="a session's event log as canonical JSONL (stable bytes)")
    export.add_argument("id", help="session id (or a unique prefix)")
    prune = sub.add_parser("prune", help="remove old sessions and cut long logs (a gap marker stays)")
    prune.add_argument("--older-than", type=float, metavar="DAYS", help="remove sessions not updated for DAYS days")
    prune.add_argument("--keep", type=int, metavar="N", help="keep only the N most recently updated sessions")
    prune.add_argument("--max-events", type=int, metavar="N", help="cut each log to its newest N events")
    prune.add_argument("--dry-run", action="store_true", help="say what would be removed, remove nothing")
    args = parser.parse_args(list(argv))
    store = store or SessionStore()
    out = out or sys.stdout
    if args.command is None:  # `acp-mux sessions` alone: what it can do, not a usage error
        parser.print_help(out)
        return 0

    def warn(message: str) -> None:
        print(f"acp-mux: warning: {message}", file=sys.stderr)

    if args.command == "list":
        return _list(store, out, args.agent, args.cwd, args.json, args.limit)
    if args.command == "prune":
        return _prune(store, out, args)
    session_id = store.resolve(args.id)
    if session_id is None:
        print(
            f"acp-mux: no session {args.id!r} (or the prefix is not unique); see `acp-mux sessions list`",
            file=sys.stderr,
        )
        return 1
    if args.command == "export":
        for line in export_lines(store, session_id, warn):
            _write(out, line + "\n", keep="\n")
        return 0
    record = store.get(session_id)
    assert record is not None
    for line in show_lines(store, record, warn):
        _write(out, line + "\n")
    return 0


def _write(out: TextIO, text: str, keep: str = "\n\t") -> None:
    """Print stored text with its control characters made visible (``keep``: the ones that are layout here)."""
    text = visible(text, keep)
    try:
        out.write(text)
    except UnicodeEncodeError:  # a lone surrogate kept from an editor: shown replaced, never a crash
        out.write(text.encode("utf-8", "replace").decode("utf-8"))


def _positive(text: str) -> int:
    """``--limit``'s value: a whole number from 1 (argparse turns the ValueError into a usage error)."""
    if not (text.isascii() and text.isdigit() and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"N must be a whole number from 1, not {text!r}")
    return int(text)


def when(iso: str) -> str:
    """A stored time (ISO 8601, UTC) as ``list`` and ``show`` both print it: ``2026-11-25 23:26:00 UTC``. A time
    that does not parse is shown as it is stored (visible), never an error."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except (ValueError, AttributeError, TypeError):
        return visible(str(iso))
    if moment.tzinfo is None:  # stored without a zone: the store writes UTC, so it is read as UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def agents_of(record: SessionRecord) -> str:
    """The agent of a session in plain words: for a session that switched agents, each that answered, in order."""
    answered = list(dict.fromkeys(record.turn_agents))
    return ", ".join(visible(name) for name in (answered if len(answered) > 1 else [record.agent]))


def forked_note(record: SessionRecord) -> str:
    """Where a fork came from (`` · forked from ID``), or nothing for a session that is no fork."""
    return f" · forked from {visible(record.forked_from)}" if record.forked_from else ""


# ── list ───────────────────────────────────────────────────────────────────────────────────────────────────────
def _list(
    store: SessionStore, out: TextIO, agent: str | None, cwd: str | None, as_json: bool, limit: int | None = None
) -> int:
    found = store.list(agent=agent, cwd=cwd)
    records = found[:limit] if limit else found
    if as_json:
        for r in records:
            _write(
                out,
                json.dumps(
                    {
                        "sessionId": r.session_id,
                        "agent": r.agent,
                        "cwd": r.cwd,
                        "title": r.title,
                        "createdAt": r.created_at,
                        "updatedAt": r.updated_at,
                        **({"forkedFrom": r.forked_from} if r.forked_from else {}),
                    },
                    ensure_ascii=False,
                )
                + "\n",
                keep="\n",
            )
        return 0
    which = " ".join(
        part for part in (f"of {visible(agent)}" if agent else "", f"in {visible(cwd)}" if cwd else "") if part
    )
    if not records:
        _write(out, f"no sessions{' ' + which if which else ''} in {store.root}\n")
        return 0
    count = f"{len(found)} session{'s' if len(found) != 1 else ''}" + (f" {which}" if which else "")
    shown = f"the newest {len(records)} shown" if len(records) < len(found) else "newest first"
    _write(out, f"{count} in {store.root} ({shown})\n\n")
    _write(out, f"{'ID':<26}  {'UPDATED':<23}  TITLE\n{'':<28}AGENT · FOLDER\n")
    for r in records:
        title = visible(r.title or "(untitled)")[:60]
        _write(
            out,
            f"{r.session_id:<26}  {when(r.updated_at):<23}  {title}\n{'':<28}{agents_of(r)} · {visible(r.cwd)}"
            f"{forked_note(r)}\n",
            keep="\n",
        )
    return 0


# ── export ─────────────────────────────────────────────────────────────────────────────────────────────────────
def export_lines(store: SessionStore, session_id: str, warn: Callable[[str], None] | None = None) -> Iterator[str]:
    """The session's envelopes as canonical lines (old-format transcripts included as ``acp.update`` envelopes)."""
    for envelope in store.envelopes(session_id, warn):
        yield envelope_line(envelope)


# ── show ───────────────────────────────────────────────────────────────────────────────────────────────────────
def show_lines(store: SessionStore, record: SessionRecord, warn: Callable[[str], None] | None = None) -> Iterator[str]:
    from acp_mux.core.events.union import EVENT_TYPES
    from acp_mux.server.records.replay import Replay, Snapshots
    from acp_mux.translation.updates import UpdateTranslator

    yield f"# {visible(record.title or '(untitled)')}"
    yield visible(
        f"session {record.session_id} · {agents_of(record)} · {record.cwd} · created {when(record.created_at)} · "
        f"updated {when(record.updated_at)}{forked_note(record)}"
    )
    view = _TextView()
    snapshots = Snapshots(store.envelopes(record.session_id, lambda message: None))
    replay = Replay(
        UpdateTranslator(_tool_table(record.agent), record.cwd, read_file=snapshots), tool_table_for=_tool_table
    )
    for envelope in store.envelopes(record.session_id, warn):
        kind, data = envelope["type"], envelope["data"]
        for update in replay.envelope(envelope):
            yield from view.update(update)
        if kind == "turn.ended":
            yield from view.close()
            error = data.get("error")
            ended = (
                f"error {error.get('code')}: {error.get('message')}"
                if isinstance(error, dict)
                else data.get("stopReason")
            )
            yield f"--- turn ended: {visible(str(ended))}"
        elif kind == "user.command" and isinstance(text := data.get("text"), str):  # `/agent NAME`: their own line
            yield from view.close()
            yield "## You"
            yield visible(text)
        elif kind == "user.cancel":
            yield from view.close()
            yield "--- cancelled by the user"
        elif kind == "approval.resolved":
            yield from view.close()
            reason = f": {data['reason']}" if data.get("reason") else ""
            yield visible(f"    [{data.get('decision')} by {data.get('by')}, {data.get('scope')}{reason}]")
        elif kind not in EVENT_TYPES and kind not in _SHOWN_RECORDS and not kind.startswith("gap."):
            yield from view.close()  # a type this version does not know: shown as it is, never an error
            yield visible(f"[{kind}] {json.dumps(data, ensure_ascii=False, sort_keys=True)[:400]}")
    yield from view.close()


_SHOWN_RECORDS = frozenset(
    {
        "user.message",
        "user.steer",
        "user.command",
        "user.cancel",
        "turn.ended",
        "turn.resent",
        "approval.resolved",
        "file.snapshot",
        "bridge.notice",
        LEGACY_TYPE,
    }
)


def _tool_table(agent: str) -> ToolTable:
    """The agent's tool table (titles, kinds) when its adapter loads here, else a neutral one."""
    try:
        from acp_mux.adapters.base import get_adapter

        return get_adapter(agent).tool_table
    except Exception:
        from acp_mux.adapters.base import ToolTable

        return ToolTable()  # a neutral table: the transcript still shows every tool, by its own name


class _TextView:
    """ACP updates → lines of text: consecutive chunks of one kind joined, tool calls with status and output.

    Each update is read into the typed ACP model first (``read_update``, the edge): what a stored log holds may
    be old, damaged or hostile, and a line that is no ACP update this version knows shows nothing, as an unknown
    kind always did."""

    _HEADINGS = {
        "user_message_chunk": "## You",
        "agent_message_chunk": "## Agent",
        "agent_thought_chunk": "## Thinking",
    }

    def __init__(self) -> None:
        self._kind: str | None = None
        self._parts: list[str] = []
        self._titles: dict[str, str] = {}

    def close(self) -> Iterator[str]:
        if self._kind is not None:
            text = "".join(self._parts).strip("\n")
            if text:
                yield self._HEADINGS[self._kind]
                yield text
            self._kind, self._parts = None, []

    def update(self, raw: Mapping[str, object]) -> Iterator[str]:
        from acp_mux.protocol import v1

        update = read_update(raw)
        match update:
            case (
                v1.SessionUpdateUserMessageChunk()
                | v1.SessionUpdateAgentMessageChunk()
                | (v1.SessionUpdateAgentThoughtChunk())
            ):
                if update.session_update != self._kind:
                    yield from self.close()
                    self._kind = update.session_update
                self._parts.append(_block_text(update.content))
                return
        yield from self.close()
        match update:
            case v1.SessionUpdateToolCall():
                title = visible(update.title or update.tool_call_id)
                self._titles[update.tool_call_id] = title
                yield f"> tool [{update.kind or 'other'}] {title}"
            case v1.SessionUpdateToolCallUpdate():
                yield from self._tool_update(update)
            case v1.SessionUpdatePlan():
                yield "> plan"
                for entry in update.entries:
                    yield visible(f"    [{entry.status}] {entry.content}")

    def _tool_update(self, update: v1.SessionUpdateToolCallUpdate) -> Iterator[str]:
        """Progress as it comes, the edits while the call runs, then how it ended and what it returned."""
        from acp_mux.protocol import v1

        title = self._titles.get(update.tool_call_id, visible(update.tool_call_id))
        progress = as_dict((update.field_meta or {}).get("tool_call_progress"))
        if progress:  # acp-mux's own _meta (translation/updates.py); free-form to ACP, so read with care
            done_so_far, total = _number(progress.get("progress")), _number(progress.get("total"))
            amount = "" if done_so_far is None else f" {done_so_far:g}" + ("" if total is None else f"/{total:g}")
            what = progress.get("message") or progress.get("status")
            yield visible(f"  … {title}:{amount} {what}".rstrip())
        done = update.status in ("completed", "failed")
        for item in update.content or []:
            if not done and isinstance(item, v1.ToolCallContentDiff):
                yield visible(f"    edit {item.path}")
                for sign, text in (("-", item.old_text), ("+", item.new_text)):
                    yield from (f"      {sign} {line}" for line in (text or "").splitlines()[:20])
        if done:
            yield f"  {'✓' if update.status == 'completed' else '✗'} {title} {visible(str(update.status))}"
            for item in update.content or []:
                text = _content_text(item)
                if text:
                    yield "\n".join("    " + line for line in text.splitlines()[:40])


def _number(value: object) -> float | None:
    """A JSON number (not a bool) as a float; None for anything else."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _block_text(block: v1.ContentBlock) -> str:
    from acp_mux.protocol import v1

    match block:
        case v1.ContentBlockText():
            return block.text
        case v1.ContentBlockResourceLink():
            return f"[{block.name or block.uri}]"
        case v1.ContentBlockResource():
            return f"[{block.resource.uri}]"
    return f"[{block.type}]"


def _content_text(item: v1.ToolCallContent) -> str:
    from acp_mux.protocol import v1

    match item:
        case v1.ToolCallContentContent():
            return _block_text(item.content)
        case v1.ToolCallContentDiff():
            return f"diff {item.path}"
    return ""


# ── prune ──────────────────────────────────────────────────────────────────────────────────────────────────────
def _prune(store: SessionStore, out: TextIO, args: argparse.Namespace) -> int:
    if args.older_than is None and args.keep is None and args.max_events is None:
        from acp_mux.core.settings import SettingError
        from acp_mux.server.records.store import retention_from_env

        try:
            args.older_than, args.keep = retention_from_env()
        except SettingError as exc:  # refused, never guessed at: -1 once meant "delete everything"
            print(f"acp-mux: {exc}", file=sys.stderr)
            return 2
        _write(out, f"using the automatic retention: older than {args.older_than} days, keep {args.keep}\n")
    report = store.prune(
        older_than_days=args.older_than, keep_sessions=args.keep, max_events=args.max_events, dry_run=args.dry_run
    )
    verb = "would remove" if args.dry_run else "removed"
    _write(out, f"{verb} {len(report.removed_sessions)} sessions\n")
    for session_id in report.removed_sessions:
        _write(out, f"  {session_id}\n")
    for session_id, count in report.pruned_events.items():
        _write(out, f"{verb} {count} old events of {session_id} (a gap marker stays)\n")
    if report.orphans:
        _write(out, f"{verb} {len(report.orphans)} files of deleted sessions\n")
    return 0
