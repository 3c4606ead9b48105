"""``session/fork``: a new session that starts as a copy of another's conversation, the original untouched.

What the fork is made of (the bridge's ``fork_session`` puts it together):

- a new record with its own id, ``forked_from`` naming the original, and none of the original's native sessions:
  a prompt in the fork must never reach the original's conversation in the agent;
- its own event log, starting with the original's envelopes up to the end of its last *completed* turn (a turn
  still running in the original when the fork is made is not copied: what it says after the fork is not the fork's)
  and a ``session.forked`` envelope saying where it came from and how the agent got the conversation;
- the agent's copy of the conversation: the agent's own fork where it has one (``AgentAdapter.native_fork``:
  claude ``--resume ID --fork-session``), started from the original's native session on the fork's first run, else
  the handover (:mod:`acp_mux.server.sessions.handoff`) of the copied turns before the fork's first prompt.

The agent may be another one: ``_meta: {"acp-mux": {"agent": "codex"}}`` on the request (:func:`fork_agent`). The
conversation is then handed over, as on a switch of agents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from acp_mux.server.wire.rpc import INVALID_PARAMS, RpcError

if TYPE_CHECKING:
    from acp_mux.server.records.event_log import Envelope
    from acp_mux.server.records.store import SessionStore

META_KEY = "acp-mux"  # acp-mux's own namespace in ``_meta`` (the name it gives in ``agentInfo``)
FORKED = "session.forked"  # the fork's log entry: where it came from, which agent, native fork or handover


def fork_agent(meta: object, current: str, usable: Sequence[str], one_agent: bool) -> str:
    """The agent the fork runs: ``_meta["acp-mux"]["agent"]`` when the request names one, else ``current`` (the
    original's agent). Anything but a usable agent's name there is refused (-32602 naming the usable agents), as is
    another agent in an entry that serves one agent only (``one_agent``): its sessions could not be opened there.
    Other ``_meta`` keys are the editor's business and ignored, whatever their shape."""
    ours = meta.get(META_KEY) if isinstance(meta, dict) else None
    if ours is None:
        return current
    if not isinstance(ours, dict) or "agent" not in ours:
        raise RpcError(INVALID_PARAMS, f'session/fork: _meta["{META_KEY}"] must be an object like {{"agent": "codex"}}')
    name = ours["agent"]
    if one_agent and name != current:
        raise RpcError(
            INVALID_PARAMS,
            f"session/fork: this acp-mux entry serves {current} only; fork into another agent from the entry for "
            f"every agent (acp-mux without --agent)",
        )
    if not isinstance(name, str) or name not in usable:
        shown = repr(name)[:60] if isinstance(name, (str, int, float, bool)) or name is None else type(name).__name__
        raise RpcError(INVALID_PARAMS, f"session/fork: unknown agent {shown}; choose one of {', '.join(usable)}")
    return name


def completed_part(envelopes: Iterable[Envelope]) -> list[Envelope]:
    """The envelopes up to the end of the last completed turn (its ``turn.ended``; an old-format transcript's
    updates are all complete). What follows — a turn still running, a process's start-up — is left out."""
    from acp_mux.server.records.event_log import LEGACY_TYPE  # deferred, as the whole log machinery: the bridge reads
    # META_KEY from this module at start-up

    kept = list(envelopes)
    end = 0
    for index, envelope in enumerate(kept):
        if envelope["type"] in ("turn.ended", LEGACY_TYPE):
            end = index + 1
    return kept[:end]


def copy_conversation(store: SessionStore, source_id: str, fork_id: str, forked: dict[str, object]) -> int:
    """Write the fork's log: the original's completed turns (each envelope as it was, now under the fork's id),
    then a ``session.forked`` envelope with ``forked``. Returns how many envelopes were copied. The original's
    files are only read."""
    from acp_mux.core.events.codes import now_ms
    from acp_mux.core.ids import new_ulid
    from acp_mux.server.records.event_log import envelope_line, iso_ms
    from acp_mux.server.records.private_files import write_atomic

    copied: list[Envelope] = [{**e, "session_id": fork_id} for e in completed_part(store.envelopes(source_id))]
    stamp = now_ms()
    marker: Envelope = {
        "schema_version": "1",
        "event_id": new_ulid(),
        "run_id": f"bridge-{new_ulid()}",
        "session_id": fork_id,
        "sequence": 0,
        "occurred_at": iso_ms(stamp),
        "type": FORKED,
        "data": forked,
    }
    store.ensure_root()
    data = "".join(envelope_line(e) + "\n" for e in [*copied, marker])
    write_atomic(store.log_path(fork_id), data.encode("utf-8"))
    return len(copied)


__all__ = ["FORKED", "META_KEY", "completed_part", "copy_conversation", "fork_agent"]
