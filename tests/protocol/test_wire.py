"""The typed edge (acp_mux/protocol/wire.py): the method tables come from the schema and cover meta.json, every
method's type is a model, a malformed message is a typed error, and content blocks of every kind survive a round
trip field for field, with annotations, ``_meta``, a link's title and fields no schema version knows.
"""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_mux.protocol import unstable, v1, wire
from acp_mux.protocol.base import AcpModel

SCHEMA_DIR = Path(v1.__file__).resolve().parent / "schema" / "v1"
META = json.loads((SCHEMA_DIR / "meta.json").read_text())


def _members(target: Any) -> list[Any]:
    """The classes a generated type stands for: the class itself, or every member of a (type-aliased) union."""
    value = getattr(target, "__value__", target)
    if typing.get_origin(value) is typing.Annotated:
        value = typing.get_args(value)[0]
    if typing.get_origin(value) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(value) for m in _members(arg)]
    return [value]


def test_the_tables_hold_every_method_meta_json_names_and_on_the_right_side() -> None:
    # the stable schema's methods, and the unstable ones typed by hand (acp_mux/protocol/unstable.py)
    assert wire.methods("agent") == frozenset(META["agentMethods"].values()) | set(unstable.AGENT_METHOD_PARAMS)
    assert wire.methods("client") == frozenset(META["clientMethods"].values())
    assert set(v1.PROTOCOL_NOTIFICATION_PARAMS) == set(META["protocolMethods"].values())
    assert not wire.methods("agent") & wire.methods("client"), "a method name on both sides: parse needs a side"
    notifications = {"session/cancel", "session/update", "elicitation/complete"}
    assert (
        wire.methods("agent", "result") | wire.methods("client", "result")
        == (wire.methods("agent") | wire.methods("client")) - notifications
    )


@pytest.mark.parametrize(
    "table",
    [
        "AGENT_METHOD_PARAMS",
        "AGENT_METHOD_RESULTS",
        "AGENT_NOTIFICATION_PARAMS",
        "CLIENT_METHOD_PARAMS",
        "CLIENT_METHOD_RESULTS",
        "CLIENT_NOTIFICATION_PARAMS",
        "PROTOCOL_NOTIFICATION_PARAMS",
    ],
)
def test_every_method_type_is_a_model_or_a_union_of_models(table: str) -> None:
    for method, target in getattr(v1, table).items():
        for member in _members(target):
            assert isinstance(member, type) and issubclass(member, AcpModel), (method, member)


def test_params_that_do_not_fit_are_a_typed_error_naming_method_and_fields() -> None:
    with pytest.raises(wire.AcpShapeError) as caught:
        wire.parse_params("session/prompt", {"sessionId": 7})
    assert caught.value.method == "session/prompt" and caught.value.part == "params"
    assert "sessionId" in caught.value.reason and "prompt" in caught.value.reason
    with pytest.raises(wire.AcpShapeError):
        wire.parse_params("session/update", {"sessionId": "s", "update": {"sessionUpdate": "no_such_update"}})
    with pytest.raises(wire.AcpShapeError):
        wire.parse_result("session/prompt", {"stopReason": "because"})
    with pytest.raises(wire.AcpShapeError):
        wire.parse_params("initialize", [1, 2])


def test_methods_outside_the_schema_are_left_to_the_caller() -> None:
    assert wire.parse_params("_zed/whatever", {"x": 1}) is None
    assert wire.parse_result("_zed/whatever", {"x": 1}) is None
    assert wire.parse_result("session/update", {}) is None, "a notification has no result"
    assert wire.side_of("fs/read_text_file") == "client" and wire.side_of("session/cancel") == "agent"
    assert wire.side_of("$/cancel_request") is None
    assert wire.dump(wire.parse_params("$/cancel_request", {"requestId": 3}) or v1.Error(code=0, message="")) == {
        "requestId": 3
    }


def test_null_keeps_its_meaning_and_is_not_dropped() -> None:
    """`"title": null` clears a session's title (schema): the edge must pass the null on, not drop the field."""
    sent = {"sessionId": "s", "update": {"sessionUpdate": "session_info_update", "title": None, "updatedAt": None}}
    parsed = wire.parse_params("session/update", sent)
    assert parsed is not None and wire.dump(parsed) == sent


def test_models_built_inside_dump_to_the_wire_names() -> None:
    block = v1.ContentBlockResourceLink(type="resource_link", name="a", uri="file:///a", title="A", mime_type="x/y")
    request = v1.PromptRequest(session_id="s", prompt=[block], field_meta={"trace": 1})
    assert wire.dump(request) == {
        "sessionId": "s",
        "_meta": {"trace": 1},
        "prompt": [{"type": "resource_link", "name": "a", "uri": "file:///a", "title": "A", "mimeType": "x/y"}],
    }


# ---- content blocks, generated: every kind, every optional field, and fields nobody has defined yet ----

JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
META_DICT = st.dictionaries(st.text(max_size=8), JSON, max_size=3)
# Keys no ACP version defines (the prefix keeps them off the schema's own names, which would change their type).
EXTRA = st.dictionaries(st.text(max_size=6).map(lambda k: "x-" + k), JSON, max_size=2)


def _block(required: dict[str, Any], optional: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {k: st.just(v) if not isinstance(v, st.SearchStrategy) else v for k, v in required.items()},
        optional=optional,
    ).flatmap(lambda block: EXTRA.map(lambda extra: {**extra, **block}))


ANNOTATIONS = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "audience": st.none() | st.lists(st.sampled_from(["user", "assistant"]), max_size=2),
        "priority": st.none() | st.floats(0, 1) | st.integers(0, 1),
        "lastModified": st.none() | st.text(max_size=20),
        "_meta": st.none() | META_DICT,
    },
).flatmap(lambda a: EXTRA.map(lambda extra: {**extra, **a}))
COMMON = {"annotations": ANNOTATIONS, "_meta": st.none() | META_DICT}
TEXTISH = st.text(max_size=30)
RESOURCE = st.one_of(
    _block({"uri": TEXTISH, "text": TEXTISH}, {"mimeType": st.none() | TEXTISH, "_meta": st.none() | META_DICT}),
    _block({"uri": TEXTISH, "blob": TEXTISH}, {"mimeType": st.none() | TEXTISH, "_meta": st.none() | META_DICT}),
)
CONTENT_BLOCK = st.one_of(
    _block({"type": "text", "text": TEXTISH}, COMMON),
    _block({"type": "image", "data": TEXTISH, "mimeType": TEXTISH}, {**COMMON, "uri": st.none() | TEXTISH}),
    _block({"type": "audio", "data": TEXTISH, "mimeType": TEXTISH}, COMMON),
    _block(
        {"type": "resource_link", "name": TEXTISH, "uri": TEXTISH},
        {
            **COMMON,
            "title": st.none() | TEXTISH,
            "description": st.none() | TEXTISH,
            "mimeType": st.none() | TEXTISH,
            "size": st.none() | st.integers(0, 2**62),
        },
    ),
    _block({"type": "resource", "resource": RESOURCE}, COMMON),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CONTENT_BLOCK, min_size=1, max_size=4), st.none() | META_DICT)
def test_generated_prompts_round_trip_field_for_field(blocks: list[dict[str, Any]], meta: Any) -> None:
    sent: dict[str, Any] = {"sessionId": "s", "prompt": blocks}
    if meta is not None:
        sent["_meta"] = meta
    parsed = wire.parse_params("session/prompt", sent)
    assert parsed is not None and wire.dump(parsed) == sent
    assert json.loads(json.dumps(wire.dump(parsed))) == sent  # and it is plain JSON


@settings(max_examples=100)
@given(
    CONTENT_BLOCK,
    st.sampled_from(["agent_message_chunk", "user_message_chunk", "agent_thought_chunk"]),
    st.none() | st.text(max_size=10),
)
def test_generated_chunks_from_an_agent_round_trip(block: dict[str, Any], kind: str, message_id: str | None) -> None:
    update: dict[str, Any] = {"sessionUpdate": kind, "content": block}
    if message_id is not None:
        update["messageId"] = message_id
    sent = {"sessionId": "s", "update": update}
    parsed = wire.parse_params("session/update", sent)
    assert parsed is not None and wire.dump(parsed) == sent


@settings(max_examples=100)
@given(CONTENT_BLOCK, st.text(max_size=12))
def test_a_block_of_an_unknown_kind_or_missing_a_required_field_is_refused(block: dict[str, Any], kind: str) -> None:
    """An attacker's view: nothing that is not a content block gets through as one."""
    if kind not in {"text", "image", "audio", "resource_link", "resource"}:
        with pytest.raises(wire.AcpShapeError):
            wire.parse_params("session/prompt", {"sessionId": "s", "prompt": [{**block, "type": kind}]})
    required = {"text": "text", "image": "data", "audio": "mimeType", "resource_link": "uri", "resource": "resource"}
    broken = {k: v for k, v in block.items() if k != required[block["type"]]}
    with pytest.raises(wire.AcpShapeError):
        wire.parse_params("session/prompt", {"sessionId": "s", "prompt": [broken]})


WARM_PROBE = """
import sys, time
from acp_mux.protocol import wire
if sys.argv[1] == "warm":
    wire.warm()
message = {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}}
t = time.perf_counter()
wire.parse_params("session/update", message)
print(time.perf_counter() - t)
"""


def test_warm_moves_the_validator_build_off_the_first_streamed_chunk() -> None:
    """Cold, the first session/update builds the SessionUpdate validators (milliseconds); warmed, it is a parse."""
    import subprocess
    import sys

    def first_parse(mode: str) -> float:
        return min(
            float(
                subprocess.run(
                    [sys.executable, "-c", WARM_PROBE, mode], capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(3)
        )

    cold, warmed = first_parse("cold"), first_parse("warm")
    assert warmed * 10 < cold, (cold, warmed)


def test_a_kind_from_a_newer_acp_is_told_apart_from_a_broken_message() -> None:
    """ACP adds update kinds and content types in minor releases: a peer ahead of the pinned schema is not broken."""
    with pytest.raises(wire.AcpShapeError) as newer:
        wire.parse_params("session/update", {"sessionId": "s", "update": {"sessionUpdate": "compaction", "n": 1}})
    assert newer.value.unknown_kinds == ("compaction",)
    with pytest.raises(wire.AcpShapeError) as newer_block:
        wire.parse_params(
            "session/update",
            {
                "sessionId": "s",
                "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "video", "url": "x"}},
            },
        )
    assert newer_block.value.unknown_kinds == ("video",)
    with pytest.raises(wire.AcpShapeError) as broken:
        wire.parse_params("session/update", {"sessionId": 5, "update": {"sessionUpdate": "compaction"}})
    assert broken.value.unknown_kinds == (), "a broken field as well: not just newer"


@settings(max_examples=100)
@given(
    st.text(min_size=1, max_size=12).filter(
        lambda k: (
            k
            not in {
                "user_message_chunk",
                "agent_message_chunk",
                "agent_thought_chunk",
                "tool_call",
                "tool_call_update",
                "plan",
                "available_commands_update",
                "current_mode_update",
                "config_option_update",
                "session_info_update",
                "usage_update",
            }
        )
    ),
    META_DICT,
)
def test_any_update_kind_v1_lacks_is_reported_as_newer_never_accepted(kind: str, fields: dict[str, Any]) -> None:
    with pytest.raises(wire.AcpShapeError) as caught:
        wire.parse_params("session/update", {"sessionId": "s", "update": {**fields, "sessionUpdate": kind}})
    assert caught.value.unknown_kinds == (kind,)


DUMP_PROBE = """
import sys
from acp_mux.protocol import wire
prompt = wire._type_for("session/prompt", "params")
before = prompt.__pydantic_complete__
if sys.argv[1] == "warm":
    wire.warm()
print(before, prompt.__pydantic_complete__)
"""


def test_warm_builds_the_serializer_of_the_prompt_the_bridge_sends_an_agent() -> None:
    """The first session/prompt sent to an ACP agent is dumped (wire.dump), which builds its model's serializer on
    first use unless warm() built it while the person typed."""
    import subprocess
    import sys

    def probe(mode: str) -> str:
        done = subprocess.run([sys.executable, "-c", DUMP_PROBE, mode], capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert probe("cold") == "False False"  # deferred: nothing built at import
    assert probe("warm") == "False True"


BLOCKS_PROBE = """
import sys
from acp_mux.protocol import v1, wire
blocks = wire.models_within(v1.PromptRequest.model_fields["prompt"].annotation)
if sys.argv[1] == "warm":
    wire.warm()
print(sorted(b.__name__ for b in blocks), all(b.__pydantic_complete__ for b in blocks))
"""


def test_warm_builds_the_serializers_of_the_prompt_blocks_the_bridge_dumps() -> None:
    """The bridge dumps each block of an editor's prompt (AcpServer.prompt); each block's model builds its serializer
    on its first dump (~2 ms on the first prompt, measured) unless warm() built it while the person typed."""
    import subprocess
    import sys

    def probe(mode: str) -> str:
        done = subprocess.run([sys.executable, "-c", BLOCKS_PROBE, mode], capture_output=True, text=True, check=True)
        return done.stdout.strip()

    every = "['ContentBlockAudio', 'ContentBlockImage', 'ContentBlockResource', 'ContentBlockResourceLink', 'ContentBlockText']"
    assert probe("cold") == f"{every} False"
    assert probe("warm") == f"{every} True"
