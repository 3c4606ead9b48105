"""Secrets never reach a log: known secret values are replaced at every level, on every handler.

Why by value: a secret can reach a log through many paths — the protocol log of ``session/new`` (MCP env values and
headers), an agent's stderr echoing its config, an error message quoting a header. Redacting the formatted record
catches all of them. Values become known when they arrive (:func:`register`, called for MCP servers the editor
sends) or at start-up (:func:`register_environment`: variables whose names say they hold a credential).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any, Iterable, Mapping

MASK = "[redacted]"
MIN_LENGTH = 4  # shorter values ("1", "yes") would mask ordinary words
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|BEARER|PRIVATE", re.I)

_lock = threading.Lock()
_secrets: tuple[str, ...] = ()


def register(values: Iterable[Any]) -> None:
    """Remember ``values`` as secrets (longest first, so a secret containing another is masked whole)."""
    global _secrets
    new = {v for v in values if isinstance(v, str) and len(v) >= MIN_LENGTH}
    if not new:
        return
    with _lock:
        _secrets = tuple(sorted(set(_secrets) | new, key=len, reverse=True))


def register_environment(environ: Mapping[str, str]) -> None:
    """Secrets from the environment: values of variables named like credentials (``*_API_KEY``, ``*TOKEN*``...)."""
    register(value for name, value in environ.items() if _SECRET_NAME.search(name))


def redact(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def forget_all() -> None:
    """For tests."""
    global _secrets
    with _lock:
        _secrets = ()


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
