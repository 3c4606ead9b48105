"""``acp-mux sessions list|show|export|prune``: the session store, readable by a person.

``list`` shows the stored sessions, newest first; ``show ID`` prints one conversation as text (prompts, answers,
thinking, tool calls with their results and progress, how each turn ended), translated from the event log the same
way ``session/load`` replays it; ``export ID`` writes the log's envelopes as canonical JSONL (the same bytes on
every run: stored ids and times, fixed key order); ``prune`` applies retention by age, count and log length. An ID
may be given by any unique prefix. Corrupt lines and records are skipped with a warning on stderr, never fatal.
Everything printed is stored text from agents and models: control characters (ESC sequences, carriage returns, bidi
overrides) are printed as ``\\uXXXX`` escapes (:mod:`acp_mux.core.visible`); only the newlines and tabs of a message
body are kept as layout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TextIO

from acp_mux.core.visible import visible
from acp_mux.server.event_log import LEGACY_TYPE, envelope_line
from acp_mux.server.store import SessionRecord, SessionStore

if TYPE_CHECKING:
    from acp_mux.adapters.base import ToolTable


def run_sessions(argv: Sequence[str], store: SessionStore | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="acp-mux sessions", description="Read and prune the bridge's session store.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{list,show,export,prune}")
    listing = sub.add_parser("list", help="stored sessions, newest first")
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

    def warn(message: str) -> None:
        print(f"acp-mux: warning: {message}", file=sys.stderr)

    if args.command == "list":
        return _list(store, out, args.agent, args.cwd, args.json)
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


# ── list ───────────────────────────────────────────────────────────────────────────────────────────────────────
def _list(store: SessionStore, out: TextIO, agent: str | None, cwd: str | None, as_json: bool) -> int:
    records = store.list(agent=agent, cwd=cwd)
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
                    },
                    ensure_ascii=False,
                )
                + "\n",
                keep="\n",
            )
        return 0
    if not records:
        _write(out, f"no sessions in {store.root}\n")
        return 0
    for r in records:
        title = visible(r.title or "(untitled)")[:60]
        _write(
            out,
            f"{r.session_id}  {visible(r.updated_at[:19]).replace('T', ' ')}  {visible(r.agent):<8}  {title}\n"
            f"    {visible(r.cwd)}\n",
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
    from acp_mux.core.events import EVENT_TYPES
    from acp_mux.server.replay import Replay, Snapshots
    from acp_mux.translation.updates import UpdateTranslator

    yield f"# {visible(record.title or '(untitled)')}"
    yield visible(
        f"session {record.session_id} · {record.agent} · {record.cwd} · created {record.created_at} · "
        f"updated {record.updated_at}"
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
    {"user.message", "user.cancel", "turn.ended", "approval.resolved", "file.snapshot", "bridge.notice", LEGACY_TYPE}
)


def _tool_table(agent: str) -> ToolTable:
    """The agent's tool table (titles, kinds) when its adapter loads here, else a neutral one."""
    try:
        from acp_mux.adapters.registry import get_adapter

        return get_adapter(agent).tool_table
    except Exception:
        from acp_mux.adapters.base import ToolTable

        return ToolTable()  # a neutral table: the transcript still shows every tool, by its own name


class _TextView:
    """ACP updates → lines of text: consecutive chunks of one kind joined, tool calls with status and output."""

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

    def update(self, u: dict[str, Any]) -> Iterator[str]:
        kind = u.get("sessionUpdate")
        if kind in self._HEADINGS:
            if kind != self._kind:
                yield from self.close()
                self._kind = kind
            self._parts.append(_block_text(u.get("content")))
            return
        yield from self.close()
        if kind == "tool_call":
            title = visible(str(u.get("title") or u.get("toolCallId")))
            self._titles[str(u.get("toolCallId"))] = title
            yield f"> tool [{u.get('kind', 'other')}] {title}"
        elif kind == "tool_call_update":
            tool_id = str(u.get("toolCallId"))
            title = self._titles.get(tool_id, visible(tool_id))
            progress = ((u.get("_meta") or {}).get("tool_call_progress")) or None
            if progress:
                amount = (
                    f" {progress['progress']:g}" + (f"/{progress['total']:g}" if "total" in progress else "")
                    if "progress" in progress
                    else ""
                )
                yield visible(f"  … {title}:{amount} {progress.get('message') or progress.get('status')}".rstrip())
            status = u.get("status")
            for item in u.get("content") or [] if status not in ("completed", "failed") else []:
                if isinstance(item, dict) and item.get("type") == "diff":
                    yield visible(f"    edit {item.get('path')}")
                    for sign, key in (("-", "oldText"), ("+", "newText")):
                        lines = str(item.get(key) or "").splitlines()
                        yield from (f"      {sign} {line}" for line in lines[:20])
            if status in ("completed", "failed"):
                yield f"  {'✓' if status == 'completed' else '✗'} {title} {visible(str(status))}"
                for item in u.get("content") or []:
                    text = _content_text(item)
                    if text:
                        yield "\n".join("    " + line for line in text.splitlines()[:40])
        elif kind == "plan":
            yield "> plan"
            for entry in u.get("entries") or []:
                yield visible(f"    [{entry.get('status')}] {entry.get('content')}")


def _block_text(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return str(block.get("text", ""))
    if block.get("type") == "resource_link":
        return f"[{block.get('name') or block.get('uri')}]"
    if block.get("type") == "resource":
        return f"[{(block.get('resource') or {}).get('uri', 'resource')}]"
    return f"[{block.get('type')}]"


def _content_text(item: Any) -> str:
    if not isinstance(item, dict):
        return ""
    if item.get("type") == "content":
        return _block_text(item.get("content"))
    if item.get("type") == "diff":
        return f"diff {item.get('path')}"
    return ""


# ── prune ──────────────────────────────────────────────────────────────────────────────────────────────────────
def _prune(store: SessionStore, out: TextIO, args: argparse.Namespace) -> int:
    if args.older_than is None and args.keep is None and args.max_events is None:
        from acp_mux.core.settings import SettingError
        from acp_mux.server.store import retention_from_env

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
