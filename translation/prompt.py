"""ACP prompt content blocks → the adapter's :class:`Prompt`, refusing what the agent cannot take.

Nothing is dropped silently: an image for a text-only agent is an error that names the agent and the block.
"""

from __future__ import annotations

from typing import Any

from acp_mux.core.prompt import AudioPart, ImagePart, Part, Prompt, ResourcePart, TextPart


class UnsupportedContent(ValueError):
    """The prompt holds content this agent cannot accept (the message is shown to the user)."""


def to_prompt(blocks: list[Any], *, agent: str, images: bool, audio: bool, embedded: bool) -> Prompt:
    if not isinstance(blocks, list) or not blocks:
        raise UnsupportedContent("the prompt is empty")
    parts: list[Part] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise UnsupportedContent(f"prompt block {index} is not an object")
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(str(block.get("text", ""))))
        elif kind == "image":
            if not images:
                raise UnsupportedContent(f"{agent} cannot take images (prompt block {index})")
            parts.append(ImagePart(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "image/png")), uri=block.get("uri")))
        elif kind == "audio":
            if not audio:
                raise UnsupportedContent(f"{agent} cannot take audio (prompt block {index})")
            parts.append(AudioPart(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "audio/wav"))))
        elif kind == "resource_link":
            parts.append(ResourcePart(uri=str(block.get("uri", "")), name=str(block.get("name", "")), mime_type=block.get("mimeType")))
        elif kind == "resource":
            resource = block.get("resource") or {}
            if not embedded:
                raise UnsupportedContent(f"{agent} cannot take embedded resources (prompt block {index})")
            if "blob" in resource and "text" not in resource:
                mime = str(resource.get("mimeType") or "")
                if mime.startswith("image/") and images:
                    parts.append(ImagePart(data=str(resource["blob"]), mime_type=mime, uri=resource.get("uri")))
                    continue
                raise UnsupportedContent(f"{agent} cannot take binary resource {resource.get('uri', '')!r} ({mime or 'unknown type'})")
            parts.append(
                ResourcePart(uri=str(resource.get("uri", "")), text=str(resource.get("text", "")), mime_type=resource.get("mimeType"))
            )
        else:
            raise UnsupportedContent(f"unknown prompt content type {kind!r} (block {index})")
    return Prompt(tuple(parts))


def prompt_to_blocks(prompt: Prompt) -> list[dict[str, Any]]:
    """Back to ACP blocks, for replaying the user's side of a conversation on session/load."""
    out: list[dict[str, Any]] = []
    for part in prompt.parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            out.append({"type": "image", "data": part.data, "mimeType": part.mime_type})
        elif isinstance(part, ResourcePart):
            if part.text is not None:
                out.append({"type": "resource", "resource": {"uri": part.uri, "text": part.text}})
            else:
                out.append({"type": "resource_link", "uri": part.uri, "name": part.name or part.uri})
    return out
