"""Typed reads of parsed JSON: the one place a value from ``json.loads`` is checked for the shape the caller needs.

Agent CLIs print JSON whose fields may be missing, null or of another type on any release. Every parser used to
carry its own ``_dict`` / ``_int`` helper (or an ``x.get(k) if isinstance(x.get(k), dict) else {}`` that mypy
cannot narrow). These give back exactly the type asked for, or the empty value of that type, so a parser reads a
field in one expression and whatever it builds from it is typed.
"""

from __future__ import annotations

from typing import Any


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}`` (a missing or malformed object reads as empty)."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else ``[]``."""
    return value if isinstance(value, list) else []


def as_str(value: object) -> str:
    """``value`` when it is a string, else ``""``."""
    return value if isinstance(value, str) else ""


def as_int(value: object) -> int | None:
    """``value`` when it is an integer (a JSON ``true`` is not one), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_count(value: object) -> int:
    """A count or a token number: ``value`` when it is an integer (not a bool), else 0."""
    return as_int(value) or 0
