"""``ev``: the event models, imported on first use at run time and seen as the real module by mypy.

Adapters and the parse context build events (``ev.TextDeltaEvent(...)``) but must not import pydantic before
``initialize`` is answered (acp_mux/core/events/lazy.py says why). A plain ``lazy_module(...)`` stand-in is ``Any`` to
mypy, so every event an adapter built went unchecked; here the type checker gets the module itself. One line in
each user: ``from acp_mux.core.events.lazy_events import ev``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["ev"]

if TYPE_CHECKING:
    from acp_mux.core.events import union as ev
else:
    from acp_mux.core.events.lazy import lazy_module

    ev = lazy_module("acp_mux.core.events.union")  # pydantic loads with the first event, not on the `initialize` path
