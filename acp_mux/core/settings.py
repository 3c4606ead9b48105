"""The ``ACP_MUX_*`` settings that take a number or one of a few words: checked in one place, refused when wrong.

Why refuse instead of guessing: a value read loosely does something nobody asked for. ``ACP_MUX_SESSION_MAX_AGE_DAYS
=-1`` used to be read as "older than minus one day", which deleted every session; ``7.5``, ``1e9`` or ``٣`` (an
Arabic-Indic three, which Python's ``int`` accepts) are other ways to mean something by accident. So each setting
has one grammar, a value outside it (negative, a fraction, too large, empty, a word it does not know) is an error
that names the variable and what it accepts, and nothing reads these variables except through :func:`read_setting`.

How the error is shown: as for an agent that cannot start, acp-mux still answers ``initialize`` and every
``session/new`` (``load``, ``resume``) fails with the message, which editors show (they hide stderr). Standard
library only: the launcher checks the settings before it answers ``session/new`` early.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is one of the imports the launcher avoids
if TYPE_CHECKING:
    from typing import Callable, Mapping

    Parser = Callable[[str], "int | str | None"]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_AGE_DAYS = 36_500  # a century: anything larger is a typo
MAX_SESSIONS = 10_000_000
_WHOLE = re.compile(r"[0-9]{1,12}", re.ASCII)


class SettingError(ValueError):
    """A setting's value outside its grammar; the message names the variable and the values it accepts."""


def _whole_or_off(maximum: int) -> Parser:
    """A whole number 0..``maximum`` (ASCII digits only) or ``off``; 0 and ``off`` read as None (no limit)."""

    def parse(text: str) -> int | None:
        if text.lower() == "off":
            return None
        if not _WHOLE.fullmatch(text) or int(text) > maximum:
            raise ValueError(text)
        return int(text) or None

    return parse


def _one_of(words: tuple[str, ...], fold_case: bool) -> Parser:
    def parse(text: str) -> str:
        value = text.upper() if fold_case else text
        if value not in words:
            raise ValueError(text)
        return value

    return parse


_AGENT_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}", re.ASCII)


def _failover(text: str) -> str:
    """``ask``, ``never`` or an agent's name (always carry on with it at a usage limit). Only its shape is checked
    here (core knows no agents); the server refuses a name that is no agent's (:mod:`acp_mux.server.branches.failover`)."""
    if text in ("ask", "never") or _AGENT_NAME.fullmatch(text):
        return text
    raise ValueError(text)


# name -> (what it accepts, said to the person; the parser). Values are read with surrounding blanks stripped.
SETTINGS: dict[str, tuple[str, Parser]] = {
    "ACP_MUX_SESSION_MAX_AGE_DAYS": (
        f"a whole number of days from 0 to {MAX_AGE_DAYS}, or off (0 and off keep sessions however old)",
        _whole_or_off(MAX_AGE_DAYS),
    ),
    "ACP_MUX_SESSION_MAX_COUNT": (
        f"a whole number from 0 to {MAX_SESSIONS}, or off (0 and off keep every session)",
        _whole_or_off(MAX_SESSIONS),
    ),
    "ACP_MUX_LOG_LEVEL": (", ".join(LOG_LEVELS), _one_of(LOG_LEVELS, fold_case=True)),
    "ACP_MUX_CLAUDE_PREWARM": ("0 (off) or 1 (on)", _one_of(("0", "1"), fold_case=False)),  # unset: where safe
    "ACP_MUX_FAILOVER": (
        (
            "ask (ask whether to carry on with another agent at a usage limit), never, or an agent's name (always carry "
            "on with that agent, e.g. codex)"
        ),
        _failover,
    ),
}


def read_setting(name: str, environ: Mapping[str, str], default: int | str | None = None) -> int | str | None:
    """The parsed value of setting ``name`` (``default`` when it is not set at all); :class:`SettingError` when
    it is set to anything outside its grammar, empty included."""
    allowed, parse = SETTINGS[name]
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        return parse(raw.strip())
    except ValueError:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise SettingError(
            f"{name}={shown!r} is not a value acp-mux accepts: use {allowed}. Change it in the "
            "editor's settings for acp-mux (its env) and start the agent again."
        ) from None


def settings_problem(environ: Mapping[str, str]) -> str | None:
    """Every badly set setting, one message (None when all are fine): what a new session fails with."""
    problems = []
    for name in SETTINGS:
        try:
            read_setting(name, environ)
        except SettingError as exc:
            problems.append(str(exc))
    return "\n".join(problems) or None
