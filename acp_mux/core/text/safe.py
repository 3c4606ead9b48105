"""Text that survives any code point, and JSON that is always valid: the one place that decides both.

Why this exists: a JSON string may carry a lone UTF-16 surrogate (``"\\ud83d"``, what a JavaScript editor sends
when it truncates an emoji, or what an agent echoes back). Python decodes it into a ``str`` that cannot be encoded
as UTF-8, so the next write — to the agent's stdin, to the transcript, to the editor — raises, and a turn stalls
with nobody answering. JSON also admits ``NaN``/``Infinity`` (Python's extension) and numbers like ``1e400`` that
become infinities: echoing one back would emit invalid JSON. So every JSON text that enters the bridge (from the
editor or from an agent) goes through :func:`loads`, and every one that leaves through :func:`dumps`:

* lone surrogates become U+FFFD (the replacement character) — deliberately, visibly, once, at the boundary;
* non-finite numbers are refused on the way in (a parse error) and written as ``null`` on the way out;
* invalid UTF-8 bytes become U+FFFD instead of rejecting the whole message.

Nesting deeper than the parser's recursion limit raises :class:`ValueError` like any other malformed text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A \u escape naming a surrogate half: the only way a decoded JSON string can hold a lone surrogate once the raw
# bytes were decoded with errors="replace" (json joins valid pairs into one astral character).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def safe_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a no-op for text that encodes as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def safe_value(value: Any) -> Any:
    """A JSON value (dicts, lists, strings, numbers) with :func:`safe_text` applied to every string and key.

    Iterative, so a value nested as deep as the parser allowed cannot exhaust the stack here.
    """
    if isinstance(value, str):
        return safe_text(value)
    if not isinstance(value, (dict, list)):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]  # (container, key in container, value to clean)
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, str):
            parent[key] = safe_text(item)
        elif isinstance(item, list):
            copy = list(item)
            parent[key] = copy
            stack.extend((copy, i, v) for i, v in enumerate(copy) if isinstance(v, (str, list, dict)))
        elif isinstance(item, dict):
            copy_d = {safe_text(k) if isinstance(k, str) else k: v for k, v in item.items()}
            parent[key] = copy_d
            stack.extend((copy_d, k, v) for k, v in copy_d.items() if isinstance(v, (str, list, dict)))
    return root[0]


def _finite(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        raise ValueError(f"number out of range: {literal[:40]}")
    return number


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# One reused strict decoder: json.loads with options builds a new decoder on every call, and every line an agent
# writes is parsed here.
_STRICT = json.JSONDecoder(parse_float=_finite, parse_constant=_no_constant)


def loads(data: str | bytes | bytearray) -> Any:
    """Parse JSON strictly (no NaN/Infinity, finite numbers only) into values whose strings all encode as UTF-8.

    Raises :class:`ValueError` for anything that is not such JSON, including nesting too deep to parse.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
    try:
        value = _STRICT.decode(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if ("\\u" in text and _SURROGATE_ESCAPE.search(text)) or (not text.isascii() and _SURROGATE.search(text)):
        value = safe_value(value)
    return value


def _finite_value(value: Any) -> Any:
    """``value`` with non-finite floats replaced by None (iteratively, like :func:`safe_value`)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (dict, list)):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
    while stack:
        parent, key, item = stack.pop()
        if isinstance(item, float):
            parent[key] = item if math.isfinite(item) else None
        elif isinstance(item, list):
            copy = list(item)
            parent[key] = copy
            stack.extend((copy, i, v) for i, v in enumerate(copy) if isinstance(v, (float, list, dict)))
        elif isinstance(item, dict):
            copy_d = dict(item)
            parent[key] = copy_d
            stack.extend((copy_d, k, v) for k, v in copy_d.items() if isinstance(v, (float, list, dict)))
    return root[0]


# One reused encoder for the compact form: json.dumps with options builds a new encoder on every call, and the bridge
# encodes one message per streamed event.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _compact(value: Any) -> str:
    try:
        return _COMPACT.encode(value)
    except ValueError:
        return _COMPACT.encode(_finite_value(value))


def dumps_bytes(value: Any) -> bytes:
    """:func:`dumps` as UTF-8 bytes, encoded once: what goes on a wire."""
    return encode(_compact(value))


def dumps(value: Any, **kwargs: Any) -> str:
    """Compact JSON that is valid and encodes as UTF-8, whatever ``value`` holds (non-finite floats → null,
    lone surrogates → U+FFFD). Keyword arguments go to :func:`json.dumps` (e.g. ``indent``, ``default``)."""
    if not kwargs:
        return safe_text(_compact(value))
    kwargs.setdefault("separators", (",", ":"))
    kwargs.setdefault("ensure_ascii", False)
    try:
        text = json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        text = json.dumps(_finite_value(value), allow_nan=False, **kwargs)
    return safe_text(text)


def encode(text: str) -> bytes:
    """UTF-8 bytes of ``text``; lone surrogates become U+FFFD instead of failing the write."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text).encode("utf-8")
