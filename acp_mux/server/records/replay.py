"""A stored session → the ``session/update`` payloads that show its conversation again (``session/load``).

The log holds normalized events, so replay translates them now, with today's translator, through the same
per-event step as a live turn (:func:`acp_mux.translation.conversation.updates_for_event`). What a replay adds:

* prompts (``user.message``, a queued one too: it is logged when its turn starts, so it replays in the order it
  ran) become ``user_message_chunk``s, as ACP's load asks; so does a message steered into a running turn
  (``user.steer``), in its place among that turn's events;
* a message whose deltas the log folded into its ``message_stop`` is shown from that text (one chunk instead of
  many: the same conversation modulo chunk coalescing), with the ``messageId`` the live chunks carried (the log
  keeps it on every message event and folded delta; a log older than that names each message after its
  ``message_start`` envelope, the same ids on every load);
* agent events are shown only inside a turn — from its ``user.message`` to its ``turn_end`` (or ``turn.ended``) —
  because that is what the live turn showed: what a run emits between turns (its start-up, its exit after the
  editor left) is in the log for the record, not in the conversation;
* ``turn.ended`` closes the tool calls a turn left open, as the live turn did; ``user.cancel`` silences the
  turn-ending notices that a cancel makes moot, as it did live;
* a diff's "before" text is what the live turn read from disk, recorded as ``file.snapshot`` (the disk has moved
  on since): :class:`Snapshots` hands those back to the translator, in the order they were read;
* ``gap.*`` markers become a visible line saying history is missing; old-format transcripts (``acp.update``) are
  shown as stored; bridge records of types this version does not know are skipped, and so are agent events the
  translator has no mapping for (they were not shown live either; ``acp-mux sessions show`` prints them).

Updates about the session's *current* state (usage, commands, mode, config options, title) are not replayed:
the answer to ``session/load`` and the announcements after it describe the session as it is now.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Literal, cast

from acp_mux.server.records.event_log import GAP_PRUNED, LEGACY_TYPE, event_from_envelope
from acp_mux.translation.conversation import failed_turn_text, updates_for_event
from acp_mux.translation.updates import UpdateTranslator, notice, text_chunk

if TYPE_CHECKING:
    from acp_mux.adapters.base import ToolTable
    from acp_mux.core.events.union import BaseEvent
    from acp_mux.protocol.v1_dicts import ContentBlock, SessionUpdate
    from acp_mux.server.records.event_log import Envelope
    from acp_mux.server.records.store import SessionStore

MESSAGE_ID_PREFIX = "replay-"  # a message from a log without message ids: named after its message_start's event
STATE_UPDATES = frozenset(
    {"usage_update", "available_commands_update", "current_mode_update", "config_option_update", "session_info_update"}
)
_STREAMS: dict[str, tuple[str, str, str, Literal["agent_message_chunk", "agent_thought_chunk"]]] = {
    "message": ("text_delta", "message_stop", "text", "agent_message_chunk"),
    "thinking": ("thinking_delta", "thinking_stop", "thinking", "agent_thought_chunk"),
}
_STARTS = {"message_start": "message", "thinking_start": "thinking"}
_DELTAS = {"text_delta": "message", "thinking_delta": "thinking"}
_STOPS = {"message_stop": "message", "thinking_stop": "thinking"}


SNAPSHOT = "file.snapshot"
STEERED_META = {"acp-mux": {"steered": True}}  # a replayed user message that was steered into a running turn


def steered(update: Mapping[str, object]) -> bool:
    """A user message chunk that was steered into the turn it sits in (:data:`STEERED_META`), not a new prompt."""
    meta = update.get("_meta")
    ours = meta.get("acp-mux") if isinstance(meta, dict) else None
    return isinstance(ours, dict) and ours.get("steered") is True


class Snapshots:
    """The file contents a live turn read for its diffs, handed back to a replay's translator (``read_file``) per
    path in the order they were read; a path never recorded reads as absent: a replay never reads today's disk."""

    def __init__(self, envelopes: Iterable[Envelope]) -> None:
        self._by_path: dict[str, deque[str | None]] = {}
        for envelope in envelopes:
            path = envelope["data"].get("path")
            if envelope["type"] == SNAPSHOT and isinstance(path, str):
                text = envelope["data"].get("text")
                self._by_path.setdefault(path, deque()).append(text if isinstance(text, str) else None)

    def __call__(self, path: str) -> str | None:
        queue = self._by_path.get(path)
        return queue.popleft() if queue else None


class Replay:
    """Feeds envelopes, oldest first, and returns the updates each one shows."""

    def __init__(
        self,
        translator: UpdateTranslator,
        login_command: str | None = None,
        tool_table_for: Callable[[str], ToolTable] | None = None,
    ) -> None:
        self.translator = translator
        self.login_command = login_command
        self.tool_table_for = tool_table_for  # each turn's tool calls are shown by the table of the agent that ran them
        self.cancelled = False
        self.in_turn = False
        self._streamed: dict[str, bool] = {}  # "message"/"thinking" -> a delta of the open one was shown
        self._message_ids: dict[str, str] = {}  # "message"/"thinking" -> the open one's id

    def envelope(self, envelope: Envelope) -> list[SessionUpdate]:
        kind = envelope["type"]
        data = envelope["data"]
        if kind == LEGACY_TYPE:  # an update an old version stored as it sent it (read: a dict with a sessionUpdate)
            return [cast("SessionUpdate", data)]
        if kind in ("user.message", "turn.resent"):  # turn.resent: the failed prompt, to the agent chosen at a limit
            self.cancelled = False
            self.in_turn = True
            agent = data.get("agent")
            if self.tool_table_for is not None and isinstance(agent, str):
                self.translator.tools_table = self.tool_table_for(agent)
            blocks = data.get("content") if kind == "user.message" else None
            return [
                {"sessionUpdate": "user_message_chunk", "content": cast("ContentBlock", b)}
                for b in (blocks if isinstance(blocks, list) else [])
                if isinstance(b, dict)  # the prompt's blocks as the editor sent them (validated then)
            ]
        if kind == "user.steer":  # a message the person put into the running turn: shown where it landed, marked
            blocks = data.get("content")  # (so a handover reads it as part of that turn, not a turn of its own)
            return [
                cast(
                    "SessionUpdate",
                    {"sessionUpdate": "user_message_chunk", "content": b, "_meta": STEERED_META},
                )
                for b in (blocks if isinstance(blocks, list) else [])
                if isinstance(b, dict)
            ]
        if kind == "bridge.notice":
            text = data.get("text")
            return [notice(text)] if isinstance(text, str) else []
        if kind == "user.cancel":
            self.cancelled = True
            return []
        if kind == "turn.ended":
            self.cancelled = self.in_turn = False
            shown = self.translator.close_open_tools("failed")
            error = data.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            if isinstance(message, str) and message:  # live, the prompt's error showed it; here nothing else does
                shown.append(notice(failed_turn_text(message)))
            return shown
        if kind.startswith("gap."):
            return [notice(gap_text(kind, data))]
        if "." in kind or not self.in_turn:
            return []  # a bridge record with nothing to show, or an agent event from between turns
        return self._event(event_from_envelope(envelope), envelope)

    def _event(self, event: BaseEvent, envelope: Envelope) -> list[SessionUpdate]:
        t = event.type
        extra: list[SessionUpdate] = []
        if t in _STARTS:
            stream = _STARTS[t]
            self._streamed[stream] = False
            self._message_ids[stream] = getattr(event, "message_id", None) or _old_message_id(envelope)
        elif t in _DELTAS:
            stream = _DELTAS[t]
            self._streamed[stream] = True
            self._name_message(event, stream)
        elif t in _STOPS:
            stream = _STOPS[t]
            message_id = self._name_message(event, stream)
            if not self._streamed.get(stream):  # the log kept the message whole in its stop event
                text = getattr(event, _STREAMS[stream][2], "")
                if text:
                    extra.append(text_chunk(_STREAMS[stream][3], text, message_id))
            self._streamed[stream] = False
        updates, _ = updates_for_event(
            self.translator, event, login_command=self.login_command, cancelled=self.cancelled
        )
        if t == "turn_end":
            self.in_turn = False  # the live turn stopped reading here
        return [u for u in extra + updates if u["sessionUpdate"] not in STATE_UPDATES]

    def _name_message(self, event: BaseEvent, stream: str) -> str | None:
        """The id of the message ``event`` belongs to: its own (the live turn's, from the log), else its message's
        (a log written before messages had ids: the id its ``message_start`` stands for, the same on every load)."""
        message_id: str | None = getattr(event, "message_id", None)
        if not message_id:
            message_id = self._message_ids.get(stream)
            if message_id:
                event.__dict__["message_id"] = message_id
        return message_id


def _old_message_id(envelope: Envelope) -> str:
    """The id of a message a log older than message ids holds: named after its ``message_start`` envelope."""
    event_id = envelope.get("event_id")
    name = event_id if isinstance(event_id, str) and event_id else f"{envelope['run_id']}-{envelope['sequence']}"
    return MESSAGE_ID_PREFIX + name


def gap_text(kind: str, data: Mapping[str, object]) -> str:
    if kind == GAP_PRUNED:
        count = data.get("events")
        what = f"{count} earlier events" if isinstance(count, int) else "Earlier events"
        return f"_({what} of this session were removed by retention.)_\n\n"
    return f"_(Part of this session's history is missing: {kind}.)_\n\n"


def replay_updates(
    envelopes: Iterable[Envelope], translator: UpdateTranslator, login_command: str | None = None
) -> Iterator[SessionUpdate]:
    replay = Replay(translator, login_command)
    for envelope in envelopes:
        yield from replay.envelope(envelope)


def session_history(
    store: SessionStore,
    session_id: str,
    make_translator: Callable[[Callable[[str], str | None]], UpdateTranslator],
    login_command: str | None = None,
    tool_table_for: Callable[[str], ToolTable] | None = None,
) -> Iterator[SessionUpdate]:
    """A stored session's conversation as updates: ``make_translator(read_file)`` builds today's translator, fed
    the recorded file snapshots (a first pass over the log) instead of the disk."""
    snapshots = Snapshots(store.envelopes(session_id, warn=lambda message: None))
    replay = Replay(make_translator(snapshots), login_command, tool_table_for)
    for envelope in store.envelopes(session_id):
        yield from replay.envelope(envelope)


def folded_conversation(updates: Iterable[Mapping[str, object]]) -> list[dict[str, object]]:
    """Updates with each tool call's later updates folded into its ``tool_call`` (its final title and status) and
    consecutive text chunks of one kind joined: the conversation in the compact form a summary reads."""
    out: list[dict[str, object]] = []
    calls: dict[str, dict[str, object]] = {}
    for update in updates:
        kind = update.get("sessionUpdate")
        tool_id = update.get("toolCallId")
        if kind == "tool_call_update" and isinstance(tool_id, str) and tool_id in calls:
            calls[tool_id].update((k, v) for k, v in update.items() if k not in ("sessionUpdate", "_meta"))
            continue
        content = update.get("content")
        last = out[-1] if out else None
        last_content = last.get("content") if last is not None else None
        if (
            kind in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
            and last is not None
            and last.get("sessionUpdate") == kind
            and isinstance(content, dict)
            and content.get("type") == "text"
            and isinstance(last_content, dict)
            and last_content.get("type") == "text"
        ):
            last["content"] = {"type": "text", "text": str(last_content["text"]) + str(content.get("text", ""))}
            continue
        entry = dict(update)
        if kind == "tool_call" and isinstance(tool_id, str):
            calls[tool_id] = entry
        out.append(entry)
    return out
