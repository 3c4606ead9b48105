"""A user prompt as adapters receive it: ordered parts, independent of ACP's wire shapes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias
from urllib.parse import quote, unquote, urlsplit


@dataclass(frozen=True)
class TextPart:
    text: str
    wire: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)  # the ACP block, if it came as one


@dataclass(frozen=True)
class ImagePart:
    data: str  # base64
    mime_type: str
    uri: str | None = None
    wire: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)  # the ACP block, if it came as one


@dataclass(frozen=True)
class AudioPart:
    data: str  # base64
    mime_type: str
    wire: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)  # the ACP block, if it came as one


@dataclass(frozen=True)
class ResourcePart:
    """A file the user attached: embedded (``text``/``blob`` present) or only linked (``uri``)."""

    uri: str
    name: str = ""
    text: str | None = None
    blob: str | None = None
    mime_type: str | None = None
    wire: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)  # the ACP block, if it came as one


Part: TypeAlias = TextPart | ImagePart | AudioPart | ResourcePart


@dataclass(frozen=True)
class Prompt:
    parts: tuple[Part, ...]

    @classmethod
    def of_text(cls, text: str) -> "Prompt":
        return cls((TextPart(text),))

    def as_text(self) -> str:
        """Flatten to plain text for agents that take only text: resources become tagged context blocks."""
        chunks: list[str] = []
        for part in self.parts:
            if isinstance(part, TextPart):
                chunks.append(part.text)
            elif isinstance(part, ResourcePart):
                if part.text is not None:
                    chunks.append(f'<context uri="{part.uri}">\n{part.text}\n</context>')
                else:
                    chunks.append(f"@{_path_of(part.uri)}")
        return "\n\n".join(c for c in chunks if c)

    @property
    def images(self) -> list[ImagePart]:
        return [p for p in self.parts if isinstance(p, ImagePart)]


def file_uri_to_path(uri: str) -> str | None:
    """The local path a ``file:`` URI names, percent-decoded (``file:///a/My%20Project`` is ``/a/My Project``);
    None for any other scheme. ``file://localhost/x`` is ``/x``; another host is not a local file."""
    if not uri.startswith("file:"):
        return None
    parts = urlsplit(uri)
    if parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path) or None


def path_to_file_uri(path: str) -> str:
    """The ``file://`` URI of an absolute path (percent-encoded), the inverse of :func:`file_uri_to_path`."""
    return "file://" + quote(path)


def _path_of(uri: str) -> str:
    return file_uri_to_path(uri) or uri
