"""Stored text made safe to print on a terminal: every control character shown as an escape, never obeyed.

Why: what the session store holds came from agents, models and tool output. Printed raw, an ESC sequence can
recolour, retitle or rewrite the person's terminal (even feed it input on some terminals), a carriage return can
overwrite what a line seemed to say, and a bidi override (U+202E) makes text read differently from what it is.
``acp-mux sessions`` passes everything it prints through :func:`visible`, so such characters appear as ``\\u001b``
or ``\\u202e`` instead. The escape is also a valid JSON escape, so a JSON line stays the same JSON value.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls; bidi marks, embeddings, overrides and isolates; line and paragraph separators
_CONTROLS = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(keep: str) -> re.Pattern[str]:
    pattern = _PATTERNS.get(keep)
    if pattern is None:
        kept = "".join(re.escape(c) for c in keep)
        pattern = re.compile(f"(?![{kept}])[{_CONTROLS}]" if kept else f"[{_CONTROLS}]")
        _PATTERNS[keep] = pattern
    return pattern


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with each control character (except those in ``keep``, e.g. ``"\\n\\t"`` for a message body)
    replaced by its ``\\uXXXX`` escape."""
    return _pattern(keep).sub(_escape, text)
