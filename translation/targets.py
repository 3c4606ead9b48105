"""The targets an "always" rule can name: a real path, a web origin, and text shown so that nothing hides in it.

Why: a rule is compared with later requests by its target, so the target must be what the request really reaches.
A path is compared by its real path (``link/../x``, a symlinked folder and ``./notes.txt/../x`` all resolve first);
a URL by its origin (scheme, host, port), parsed strictly enough that no other URL parser can read another host out
of it. Whatever cannot be named that way is ``None``: the caller then remembers only that exact call. Labels show
control and invisible characters escaped, so the label the person reads is the rule.
"""

from __future__ import annotations

import ipaddress
import os
import re
import unicodedata
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*\.?$")


def visible(text: str) -> str:
    """``text`` with every character that is not plainly visible (controls, line and paragraph separators,
    bidirectional overrides, zero-width and other format characters, non-space whitespace) shown as an escape.
    Backslashes are doubled only when something was escaped, so plain text reads as itself and escaped text is
    unambiguous."""
    if not hides_text(text):
        return text
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if char == "\\":
            out.append("\\\\")
        elif char == " " or category[0] not in "CZ":
            out.append(char)
        elif ord(char) < 0x100:
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{ord(char):02x}"))
        else:
            out.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "".join(out)


def hides_text(text: str) -> bool:
    """Does ``text`` hold a character :func:`visible` would escape (backslash aside)?"""
    return any(c != " " and unicodedata.category(c)[0] in "CZ" for c in text)


def real_path(path: object, cwd: str | None) -> str | None:
    """The real path ``path`` names, relative paths against the session's ``cwd``; None when it cannot be named
    safely (not a string, hidden characters, ``~`` or a URI the tool may expand, no absolute cwd for a relative
    path, a symlink loop)."""
    if not isinstance(path, str) or not path or hides_text(path) or path.startswith("~") or "://" in path:
        return None
    if not os.path.isabs(path):
        if not cwd or not os.path.isabs(cwd) or hides_text(cwd):
            return None
        path = os.path.join(cwd, path)
    try:
        resolved = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    probe = resolved
    while True:  # realpath resolved every link it could: one still there is a loop (or changed under us)
        if os.path.islink(probe):
            return None
        parent = os.path.dirname(probe)
        if parent == probe:
            return resolved
        probe = parent


def origin(url: object) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL (default port left out), or None when it cannot be named
    unambiguously: userinfo, backslashes, whitespace or controls, non-ASCII, a host that is not a plain DNS name or
    IP literal, a bad port."""
    if not isinstance(url, str) or not url.isascii() or hides_text(url) or "\\" in url or " " in url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not parts.netloc or "@" in parts.netloc or not host or "%" in parts.netloc:
        return None
    if parts.netloc.startswith("["):
        try:
            host = f"[{ipaddress.IPv6Address(host).compressed}]"
        except ValueError:
            return None
    elif not _HOST.match(host):
        return None
    port = _DEFAULT_PORTS[scheme] if port is None else port
    return f"{scheme}://{host}" + ("" if port == _DEFAULT_PORTS[scheme] else f":{port}")
