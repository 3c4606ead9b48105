"""ACP prompt blocks → the adapter's Prompt (refusing what the agent cannot take), and back for replay."""

from __future__ import annotations

from typing import Any

import pytest

from acp_mux.core.run.prompt import AudioPart, ImagePart, Prompt, ResourcePart, TextPart
from acp_mux.translation.content import UnsupportedContent, prompt_to_blocks, to_prompt

ALL = {"images": True, "audio": True, "embedded": True}
TEXT_ONLY = {"images": False, "audio": False, "embedded": False}


def convert(blocks: Any, **caps: bool) -> Prompt:
    return to_prompt(blocks, agent="demo", **{**ALL, **caps})


def test_every_supported_block_kind_becomes_a_part_in_order() -> None:
    blocks = [
        {"type": "text", "text": "Look at this"},
        {"type": "image", "data": "iVBOR", "mimeType": "image/jpeg", "uri": "file:///w/shot.jpg"},
        {"type": "audio", "data": "UklGR", "mimeType": "audio/mp3"},
        {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py", "mimeType": "text/x-python"},
        {"type": "resource", "resource": {"uri": "file:///w/b.py", "text": "print(1)\n", "mimeType": "text/x-python"}},
        {"type": "resource", "resource": {"uri": "file:///w/c.png", "blob": "AAAA", "mimeType": "image/png"}},
    ]
    assert convert(blocks).parts == (
        TextPart("Look at this"),
        ImagePart(data="iVBOR", mime_type="image/jpeg", uri="file:///w/shot.jpg"),
        AudioPart(data="UklGR", mime_type="audio/mp3"),
        ResourcePart(uri="file:///w/a.py", name="a.py", mime_type="text/x-python"),
        ResourcePart(uri="file:///w/b.py", text="print(1)\n", mime_type="text/x-python"),
        ImagePart(data="AAAA", mime_type="image/png", uri="file:///w/c.png"),
    )


def test_defaults_for_missing_fields() -> None:
    assert convert([{"type": "image", "data": "x"}, {"type": "text"}]).parts == (
        ImagePart(data="x", mime_type="image/png"),
        TextPart(""),
    )


@pytest.mark.parametrize(
    ("blocks", "caps", "message"),
    [
        (
            [{"type": "text", "text": "hi"}, {"type": "image", "data": "x"}],
            {"images": False},
            "demo cannot take images (prompt block 1)",
        ),
        ([{"type": "audio", "data": "x"}], {"audio": False}, "demo cannot take audio (prompt block 0)"),
        (
            [{"type": "resource", "resource": {"uri": "file:///a", "text": "t"}}],
            {"embedded": False},
            "demo cannot take embedded resources (prompt block 0)",
        ),
        (
            [{"type": "resource", "resource": {"uri": "file:///a.png", "blob": "AA", "mimeType": "image/png"}}],
            {"images": False},
            "demo cannot take binary resource 'file:///a.png' (image/png)",
        ),
        (
            [{"type": "resource", "resource": {"uri": "file:///a.pdf", "blob": "AA", "mimeType": "application/pdf"}}],
            {},
            "demo cannot take binary resource 'file:///a.pdf' (application/pdf)",
        ),
        (
            [{"type": "resource", "resource": {"uri": "file:///x", "blob": "AA"}}],
            {},
            "demo cannot take binary resource 'file:///x' (unknown type)",
        ),
        ([{"type": "video"}], {}, "unknown prompt content type 'video' (block 0)"),
        ([{"type": "text", "text": "a"}, "plain string"], {}, "prompt block 1 is not an object"),
        ([], {}, "the prompt is empty"),
        ("not a list", {}, "the prompt is empty"),
    ],
)
def test_content_the_agent_cannot_take_is_refused_with_a_reason(
    blocks: Any, caps: dict[str, bool], message: str
) -> None:
    with pytest.raises(UnsupportedContent) as info:
        convert(blocks, **caps)
    assert str(info.value) == message


def test_text_only_agent_still_takes_text_and_links() -> None:
    prompt = to_prompt(
        [{"type": "text", "text": "see"}, {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"}],
        agent="x",
        **TEXT_ONLY,
    )
    assert prompt.parts == (TextPart("see"), ResourcePart(uri="file:///w/a.py", name="a.py"))


def test_prompt_to_blocks_for_replay() -> None:
    prompt = Prompt(
        (
            TextPart("hi"),
            ImagePart(data="iVBOR", mime_type="image/png"),
            ResourcePart(uri="file:///w/b.py", text="x = 1\n"),
            ResourcePart(uri="file:///w/a.py", name="a.py"),
            ResourcePart(uri="file:///w/c.py"),
        )
    )
    assert prompt_to_blocks(prompt) == [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///w/b.py", "text": "x = 1\n"}},
        {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
        {"type": "resource_link", "uri": "file:///w/c.py", "name": "file:///w/c.py"},  # a link always has a name
    ]


def test_round_trip_keeps_text_images_and_resources() -> None:
    blocks = [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///w/b.py", "text": "x"}},
        {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
    ]
    assert prompt_to_blocks(convert(blocks)) == blocks


def test_replayed_blocks_are_valid_acp_content() -> None:
    from acp.schema import UserMessageChunk

    prompt = convert(
        [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///w/b.py", "text": "x"}},
            {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
        ]
    )
    for block in prompt_to_blocks(prompt):
        UserMessageChunk.model_validate({"sessionUpdate": "user_message_chunk", "content": block})


# ── the codec's other directions and file URIs ─────────────────────────────────────────────────────────────────
from acp_mux.core.run.prompt import file_uri_to_path, path_to_file_uri  # noqa: E402
from acp_mux.translation.content import block_text  # noqa: E402


def test_file_uris_are_percent_decoded():
    assert file_uri_to_path("file:///home/me/My%20Project/a.py") == "/home/me/My Project/a.py"
    assert file_uri_to_path("file://localhost/tmp/x%23y") == "/tmp/x#y"
    assert file_uri_to_path("file://otherhost/tmp/x") is None
    assert file_uri_to_path("https://example.com/a.py") is None
    assert file_uri_to_path(path_to_file_uri("/a b/c#d%e.py")) == "/a b/c#d%e.py"


def test_a_linked_file_with_spaces_reaches_a_text_agent_as_its_real_path():
    prompt = to_prompt(
        [{"type": "resource_link", "uri": "file:///home/me/My%20Project/a.py", "name": "a.py"}],
        agent="x",
        images=False,
        audio=False,
        embedded=True,
    )
    assert prompt.as_text() == "@/home/me/My Project/a.py"


def test_every_prompt_block_survives_the_round_trip():
    blocks = [
        {"type": "text", "text": "look"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png", "uri": "file:///x.png"},
        {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.py", "name": "a.py", "mimeType": "text/x-python"},
        {"type": "resource", "resource": {"uri": "file:///b.py", "text": "print(1)", "mimeType": "text/x-python"}},
    ]
    prompt = to_prompt(blocks, agent="x", images=True, audio=True, embedded=True)
    assert prompt_to_blocks(prompt) == blocks


def test_a_resource_block_without_a_resource_object_is_refused_clearly():
    with pytest.raises(UnsupportedContent, match="resource object"):
        to_prompt([{"type": "resource", "resource": "nope"}], agent="x", images=False, audio=False, embedded=True)


def test_agent_content_blocks_read_as_text():
    assert block_text({"type": "text", "text": "hi"}) == "hi"
    assert (
        block_text({"type": "resource_link", "uri": "file:///a%20b.py", "name": "a b.py"})
        == "[a b.py](file:///a%20b.py)"
    )
    assert "print(1)" in block_text({"type": "resource", "resource": {"uri": "file:///b.py", "text": "print(1)"}})
    assert block_text({"type": "image", "data": "x", "mimeType": "image/png"}) == ""
    assert block_text("junk") == ""
