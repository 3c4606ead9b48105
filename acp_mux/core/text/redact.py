"""Secrets never reach a log: known secret values are replaced at every level, on every handler.

Why by value: a secret can reach a log through many paths — the protocol log of ``session/new`` (MCP env values and
headers), an agent's stderr echoing its config, an error message quoting a header. Redacting the formatted record
catches all of them. Values become known when they arrive (:func:`register`, called for MCP servers the editor
sends) or at start-up (:func:`register_environment`: variables whose names say they hold a credential).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any, Iterable, Mapping

MASK = "[redacted]"
MIN_LENGTH = 4  # shorter values ("1", "yes") would mask ordinary words
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|BEARER|PRIVATE", re.I)

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()


_json_forms: tuple[str, ...] = ()  # each secret as it appears inside a JSON string (escaped, ASCII-escaped)


def register(values: Iterable[Any]) -> None:
    """Remember ``values`` as secrets (longest first, so a secret containing another is masked whole)."""
    global _secrets, _json_forms
    new = {v for v in values if isinstance(v, str) and len(v) >= MIN_LENGTH}
    if not new:
        return
    with _lock:
        _secrets = tuple(sorted(set(_secrets) | new, key=len, reverse=True))
        _json_forms = tuple(
            {json.dumps(s, ensure_ascii=ascii_only)[1:-1] for s in _secrets for ascii_only in (False, True)}
        )


def register_environment(environ: Mapping[str, str]) -> None:
    """Secrets from the environment: values of variables named like credentials (``*_API_KEY``, ``*TOKEN*``...)."""
    register(value for name, value in environ.items() if _SECRET_NAME.search(name))


def redact(text: str) -> str:
    """``text`` with every known secret masked. Repeated until none is left: a mask followed by the rest of the
    text can spell a secret again (``]abc…`` after ``[redacted``); each round consumes text, so this ends."""
    secrets = _secrets
    while True:
        found = False
        for secret in secrets:
            if secret in text:
                text, found = text.replace(secret, MASK), True
        if not found:
            return text


def redact_value(value: Any) -> Any:
    """A JSON-shaped value (dicts, lists, strings, numbers) with every known secret masked in every string value
    (keys are names, kept as they are): what the session store keeps of prompts, tool input and output."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    return value


def in_json(text: str) -> bool:
    """Whether serialized JSON ``text`` may hold a known secret in one of its strings (a cheap test that lets the
    common case, no secret at all, skip :func:`redact_value`)."""
    forms = _json_forms
    return any(form in text for form in forms)


def forget_all() -> None:
    """For tests."""
    global _secrets, _json_forms
    with _lock:
        _secrets = ()
        _json_forms = ()


class RedactingFilter(logging.Filter):
    """Put on every handler: the record's message (and traceback text) with every known secret masked."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:
            return True
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
