"""Reading an ACP session update back from a record (the session log, an old transcript, the conversation so far).

What a record holds was written by this or an older version, may be damaged, and anyone who can write the state
folder can forge it. Readers take each update through the typed ACP model here, the one edge, and work with the
model: a line that is no update this version knows reads as None and is skipped, never half-read.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from acp_mux.protocol import v1


@cache
def _reader() -> TypeAdapter[v1.SessionUpdate]:
    """The validator for one update, built on first use (pydantic and the model load only when a record is read)."""
    from pydantic import TypeAdapter

    from acp_mux.protocol import v1

    return TypeAdapter(v1.SessionUpdate)


def read_update(raw: object) -> v1.SessionUpdate | None:
    """``raw`` as the typed ACP update it is; None when it is none this version knows, or it is damaged."""
    from pydantic import ValidationError

    try:
        return _reader().validate_python(raw)
    except ValidationError:
        return None
