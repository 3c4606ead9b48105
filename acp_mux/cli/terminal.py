"""The width of the person's terminal, one answer for every command that lays out text for a person.

``COLUMNS`` first (what shells and test harnesses set), then the terminal on stdout, else 80: output piped into a
file or a pager is laid out for the common terminal rather than for no limit at all. Never narrower than 40, so a
label and a few words always fit on a line.
"""

from __future__ import annotations

import shutil
import textwrap

UNKNOWN_WIDTH = 80
NARROWEST = 40


def width() -> int:
    """Columns available for text on stdout (80 when nothing says)."""
    return max(NARROWEST, shutil.get_terminal_size((UNKNOWN_WIDTH, 24)).columns)


def fill(text: str, indent: str = "", later: str | None = None) -> str:
    """``text`` wrapped to the terminal, its later lines indented by ``later`` (default ``indent``); paths and
    commands are never split at a hyphen."""
    return textwrap.fill(
        text,
        width() - 1,
        initial_indent=indent,
        subsequent_indent=indent if later is None else later,
        break_on_hyphens=False,
        break_long_words=False,
    )


def field(label: str, text: str, label_width: int = 12) -> list[str]:
    """``  label     text`` wrapped to the terminal, later lines under the text. A word longer than a line (a path,
    a URL) is kept whole, so it can still be copied, rather than split."""
    return textwrap.wrap(
        text,
        width() - 1,
        initial_indent=f"  {label:<{label_width - 2}}",
        subsequent_indent=" " * label_width,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [f"  {label}"]
