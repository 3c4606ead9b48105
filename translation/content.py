"""The one ACP content codec: editor prompt blocks ↔ the adapters' :class:`Prompt`, and agent content → text.

Used by the server (prompts in, replay out), by agents that speak ACP themselves (the prompt goes back out as ACP
blocks, losslessly) and by translation. Nothing is dropped silently: an image for a text-only agent is an error that
names the agent and the block. ``file:`` URIs are percent-decoded in one place
(:func:`acp_mux.core.run.prompt.file_uri_to_path`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from acp_mux.core.run.prompt import AudioPart, ImagePart, Part, Prompt, ResourcePart, TextPart, file_uri_to_path

if TYPE_CHECKING:
    from acp_mux.protocol import v1_dicts as acp


class UnsupportedContent(ValueError):
    """The prompt holds content this agent cannot accept (the message is shown to the user)."""


def to_prompt(blocks: Sequence[object], *, agent: str, images: bool, audio: bool, embedded: bool) -> Prompt:
    if not isinstance(blocks, list) or not blocks:
        raise UnsupportedContent("the prompt is empty")
    parts: list[Part] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise UnsupportedContent(f"prompt block {index} is not an object")
        parts.append(_part(index, block, agent=agent, images=images, audio=audio, embedded=embedded))
    return Prompt(tuple(parts))


def _part(index: int, block: dict[str, object], *, agent: str, images: bool, audio: bool, embedded: bool) -> Part:
    """One editor block as a part, the block itself kept on it (``wire``): an agent that speaks ACP gets it back
    field for field (annotations, ``_meta``, a link's title, size and description), the others read the part."""
    part = _read_part(index, block, agent=agent, images=images, audio=audio, embedded=embedded)
    return dataclasses.replace(part, wire=block)


def _read_part(index: int, block: dict[str, object], *, agent: str, images: bool, audio: bool, embedded: bool) -> Part:
    kind = block.get("type")
    for key in ("text", "data", "mimeType", "uri", "name"):
        if block.get(key) is not None and not isinstance(block[key], str):
            raise UnsupportedContent(f"prompt block {index}: {key} must be a string")
    if kind == "text":
        return TextPart(str(block.get("text", "")))
    if kind == "image":
        if not images:
            raise UnsupportedContent(f"{agent} cannot take images (prompt block {index})")
        uri = block.get("uri")  # a string or absent: checked above
        return ImagePart(
            data=str(block.get("data", "")),
            mime_type=str(block.get("mimeType", "image/png")),
            uri=uri if isinstance(uri, str) else None,
        )
    if kind == "audio":
        if not audio:
            raise UnsupportedContent(f"{agent} cannot take audio (prompt block {index})")
        return AudioPart(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", "audio/wav")))
    if kind == "resource_link":
        return ResourcePart(
            uri=str(block.get("uri", "")), name=str(block.get("name", "")), mime_type=_opt_str(block.get("mimeType"))
        )
    if kind == "resource":
        return _embedded(index, block.get("resource"), agent=agent, images=images, embedded=embedded)
    raise UnsupportedContent(f"unknown prompt content type {kind!r} (block {index})")


def _embedded(index: int, resource: object, *, agent: str, images: bool, embedded: bool) -> Part:
    if not isinstance(resource, dict):
        raise UnsupportedContent(f"prompt block {index}: a resource block needs a resource object")
    for key in ("uri", "text", "blob", "mimeType"):
        if resource.get(key) is not None and not isinstance(resource[key], str):
            raise UnsupportedContent(f"prompt block {index}: resource.{key} must be a string")
    if not embedded:
        raise UnsupportedContent(f"{agent} cannot take embedded resources (prompt block {index})")
    if "blob" in resource and "text" not in resource:
        mime = str(resource.get("mimeType") or "")
        if mime.startswith("image/") and images:
            return ImagePart(data=str(resource["blob"]), mime_type=mime, uri=resource.get("uri"))
        raise UnsupportedContent(
            f"{agent} cannot take binary resource {resource.get('uri', '')!r} ({mime or 'unknown type'})"
        )
    return ResourcePart(
        uri=str(resource.get("uri", "")),
        text=str(resource.get("text", "")),
        mime_type=_opt_str(resource.get("mimeType")),
    )


def prompt_to_blocks(prompt: Prompt) -> list[acp.ContentBlock]:
    """Back to ACP blocks: for replaying the user's side on session/load, and for agents that take ACP prompts.
    A part that came as an editor's block is that block (lossless); one acp-mux made (context it adds) is built."""
    out: list[acp.ContentBlock] = []
    for part in prompt.parts:
        if part.wire is not None:  # the editor's own block: every field it had, as it had them (checked at the edge)
            out.append(cast("acp.ContentBlock", dict(part.wire)))
        elif isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart):
            image: acp.ContentBlockImage = {"type": "image", "data": part.data, "mimeType": part.mime_type}
            if part.uri:
                image["uri"] = part.uri
            out.append(image)
        elif isinstance(part, AudioPart):
            out.append({"type": "audio", "data": part.data, "mimeType": part.mime_type})
        elif isinstance(part, ResourcePart):
            if part.text is not None or part.blob is not None:
                resource: acp.EmbeddedResourceResource
                if part.text is not None:
                    resource = {"uri": part.uri, "text": part.text}
                else:
                    resource = {"uri": part.uri, "blob": part.blob or ""}
                if part.mime_type:
                    resource["mimeType"] = part.mime_type
                out.append({"type": "resource", "resource": resource})
            else:
                link: acp.ContentBlockResourceLink = {
                    "type": "resource_link",
                    "uri": part.uri,
                    "name": part.name or part.uri,
                }
                if part.mime_type:
                    link["mimeType"] = part.mime_type
                out.append(link)
    return out


def block_text(block: object) -> str:
    """What a content block an agent sent says, as text for the conversation: text as is, a link as a Markdown
    link, an embedded text resource fenced with its path; images and audio are not text ("")."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if kind == "resource_link":
        uri = str(block.get("uri") or "")
        name = str(block.get("name") or block.get("title") or file_uri_to_path(uri) or uri)
        return f"[{name}]({uri})" if uri else name
    if kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, dict) and isinstance(resource.get("text"), str):
            uri = str(resource.get("uri") or "")
            return f"\n```{file_uri_to_path(uri) or uri}\n{resource['text']}\n```\n"
    return ""


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
