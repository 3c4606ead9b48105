"""A module reference that imports the module on first use.

The bridge must answer ``initialize`` fast, and that answer needs the adapter's class attributes, so every adapter
module (and the parse context it builds on) is imported first. Those modules name event classes only when they
build events, so they hold ``ev = lazy_module("acp_mux.core.events.union")`` and write ``ev.TextDeltaEvent(...)``: pydantic,
about half of cold start, then loads with the first event, after ``initialize`` has been answered.
"""

from __future__ import annotations

import importlib
from typing import Any


class _LazyModule:
    def __init__(self, name: str) -> None:
        self.__name = name

    def __getattr__(self, attr: str) -> Any:
        """Runs once per name: the value is then kept here, so later reads cost what an attribute read costs."""
        value = getattr(importlib.import_module(self.__name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self.__name!r}>"


def lazy_module(name: str) -> Any:
    """Stand-in for module ``name``: reading any attribute imports the module (once) and returns its value."""
    return _LazyModule(name)
