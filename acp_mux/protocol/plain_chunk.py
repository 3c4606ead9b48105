"""The one ``session/update`` whose fit to the schema a few dict lookups prove: a plain text chunk.

Why this exists: an agent's reply streams as thousands of ``agent_message_chunk`` / ``agent_thought_chunk``
updates, and validating each against the pinned model (``wire.parse_params``) walks the whole ``SessionUpdate``
union, several times what the rest of the chunk's path costs. A chunk of exactly this shape
``{"sessionId": str, "update": {"sessionUpdate": <kind>, "content": {"type": "text", "text": str}, "messageId"?:
str | None}}`` fits the model by construction (every required field present with its type, no optional field whose
value would need checking), so the edge may skip the model for it. Anything else (another kind, other content, an
``annotations`` or ``_meta``, an extra key, a value of another type) is not judged here: it goes through the full
validation as before. tests/protocol/test_plain_chunk.py holds that every shape this accepts the model accepts.

No imports: the bridge reads chunks before the models load (wire.py imports them lazily), and this must not pull
them in.
"""

from __future__ import annotations

PLAIN_KINDS = ("agent_message_chunk", "agent_thought_chunk")  # a tuple: ``in`` compares, never hashes the value


def is_plain_text_chunk(params: object) -> bool:
    """Whether ``session/update`` params are a plain text chunk (see the module doc): True proves they fit the
    schema; False says only "not proven here", for the full validation to decide."""
    if type(params) is not dict or len(params) != 2 or type(params.get("sessionId")) is not str:
        return False
    update = params.get("update")
    if (
        type(update) is not dict
        or type(update.get("sessionUpdate")) is not str
        or update["sessionUpdate"] not in PLAIN_KINDS
    ):
        return False
    size = len(update)
    if "messageId" in update:
        message_id = update["messageId"]
        if message_id is not None and type(message_id) is not str:
            return False
        size -= 1
    if size != 2:
        return False
    content = update.get("content")
    return (
        type(content) is dict
        and len(content) == 2
        and content.get("type") == "text"
        and type(content.get("text")) is str
    )
