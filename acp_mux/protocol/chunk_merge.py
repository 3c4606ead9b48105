"""Text chunks of one message that wait together for the editor go out as one chunk.

Why: an agent that streams a long reply sends thousands of tiny deltas; the bridge reads them in bursts (one read
of its pipe holds dozens), and each one written on its own costs a JSON encoding, a hand-over to the writer thread
and the editor's parsing of one more message. Deltas that are queued in the same burst and not yet written reach
the editor no later when they are joined, and their joined text is the same, so the editor cannot tell, except that
it has less to do.

What is merged: runs of *adjacent* ``session/update`` notifications that are plain text chunks
(:func:`acp_mux.protocol.plain_chunk.is_plain_text_chunk`: ``agent_message_chunk`` or ``agent_thought_chunk``,
content exactly ``{"type": "text", "text": ...}``, nothing else) of the same session, kind and ``messageId``. Their
texts are joined in order into one new message; the messages handed in are never changed. Everything else
(another update kind, annotations, ``_meta``, a response, a request) stays where it is, and nothing is merged
across it, so the order of everything the editor sees is kept. Only what is handed in together is merged: text
already written is never sent again.
"""

from __future__ import annotations

from typing import Any

from acp_mux.protocol.plain_chunk import is_plain_text_chunk

NOTIFICATION_KEYS = frozenset({"jsonrpc", "method", "params"})


def _merge_key(message: Any) -> tuple[str, str, object] | None:
    """(session, kind, messageId) of a plain text chunk notification; None for anything that is not one."""
    if (
        type(message) is not dict
        or message.get("method") != "session/update"
        or message.keys() != NOTIFICATION_KEYS
        or not is_plain_text_chunk(params := message["params"])
    ):
        return None
    update = params["update"]
    return params["sessionId"], update["sessionUpdate"], update.get("messageId", _ABSENT)


_ABSENT = object()  # no messageId: merges only with chunks that have none either


def merge_text_chunks(messages: list[Any]) -> list[Any]:
    """``messages`` in order, with every run of adjacent mergeable text chunks (same session, kind and messageId)
    replaced by one chunk whose text is theirs joined. A list without such a run is returned as it came."""
    out: list[Any] = []
    run_key: tuple[str, str, object] | None = None
    texts: list[str] = []
    for message in messages:
        key = _merge_key(message)
        if key is not None and key == run_key:
            texts.append(message["params"]["update"]["content"]["text"])
            continue
        if len(texts) > 1:
            out[-1] = _joined(out[-1], texts)
        out.append(message)
        run_key = key
        texts = [message["params"]["update"]["content"]["text"]] if key is not None else []
    if len(texts) > 1:
        out[-1] = _joined(out[-1], texts)
    return out


def _joined(first: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """A new message like ``first`` whose text is ``texts`` joined (``first`` itself is left as it is)."""
    params = first["params"]
    update = {**params["update"], "content": {"type": "text", "text": "".join(texts)}}
    return {**first, "params": {"sessionId": params["sessionId"], "update": update}}
