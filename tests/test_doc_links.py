"""Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a ``#anchor`` names a heading
of that file (GitHub's slugs). The README was split into docs/ files; a moved section must not leave dead links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

# [text](target) outside code spans; images too. The target stops at whitespace or the closing parenthesis.
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^(```|~~~)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans, where a bracket is code, not a link."""
    lines, inside = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            inside = not inside
            continue
        if not inside:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(lines)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(path.read_text()).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    out |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", path.read_text()))
    return out


def relative_links(path: Path) -> list[str]:
    return [t for t in _LINK.findall(_prose(path.read_text())) if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def test_slugs_follow_githubs_rules() -> None:
    assert slug("Claude: first-message work before Enter") == "claude-first-message-work-before-enter"
    assert slug("What an editor can ask, per agent") == "what-an-editor-can-ask-per-agent"
    assert slug("acp-mux from Python, and `acp-mux run`") == "acp-mux-from-python-and-acp-mux-run"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in relative_links(doc):
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(REPO)}")
    assert not broken, f"{doc.relative_to(REPO)}:\n  " + "\n  ".join(broken)
