"""The generated model is what the generator makes of the checked-in schema (so nobody edits it by hand and a
schema bump cannot be half done), and the editor's `initialize` path never loads it.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # tools/ is not installed
from tools import gen_acp_models  # noqa: E402


@pytest.mark.skipif(
    importlib.util.find_spec("datamodel_code_generator") is None,
    reason="datamodel-code-generator (the test extra) is not installed",
)
def test_the_checked_in_model_is_a_fresh_generation_of_the_checked_in_schema() -> None:
    fresh = gen_acp_models.generate(1)
    assert (ROOT / "acp_mux" / "protocol" / "v1.py").read_text() == fresh, (
        "acp_mux/protocol/v1.py is stale or edited by hand: run python tools/gen_acp_models.py"
    )


@pytest.mark.skipif(
    importlib.util.find_spec("datamodel_code_generator") is None,
    reason="datamodel-code-generator (the test extra) is not installed",
)
def test_the_checked_in_typed_dicts_are_a_fresh_generation_of_the_checked_in_schema() -> None:
    assert (ROOT / "acp_mux" / "protocol" / "v1_dicts.py").read_text() == gen_acp_models.generate_dicts(1), (
        "acp_mux/protocol/v1_dicts.py is stale or edited by hand: run python tools/gen_acp_models.py"
    )


def test_each_typed_dict_has_the_keys_and_required_keys_of_the_model_of_the_same_name() -> None:
    """Two generators read one schema: where both name a type, the TypedDict's keys are the model's wire names and a
    key is required in one exactly when it is in the other (so a dict typed by v1_dicts validates as the model)."""
    import typing

    from pydantic import BaseModel

    from acp_mux.protocol import v1, v1_dicts

    compared = 0
    for name, typed in vars(v1_dicts).items():
        model = getattr(v1, name, None)
        if not (typing.is_typeddict(typed) and isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        fields = model.model_fields
        assert typed.__required_keys__ | typed.__optional_keys__ == {f.alias or n for n, f in fields.items()}, name
        assert typed.__required_keys__ == {f.alias or n for n, f in fields.items() if f.is_required()}, name
        compared += 1
    assert compared > 100  # the session updates, content blocks, tool calls, permission request and prompt among them
    for name in ("SessionUpdateToolCall", "ContentBlockText", "ToolCallUpdate", "RequestPermissionRequest"):
        assert typing.is_typeddict(getattr(v1_dicts, name)), name


@given(st.text())
def test_a_generated_literal_holds_any_text_literally(value: str) -> None:
    """Schema strings land in ``Literal[...]`` inside a string annotation: whatever the text (quotes, backslashes,
    control characters), the annotation must parse, and parse back to the same text."""
    from acp_dicts_source import literal, quoted

    annotation = ast.literal_eval(quoted(f"Literal[{literal(value)}]"))
    parsed = ast.parse(annotation, mode="eval").body
    assert isinstance(parsed, ast.Subscript) and isinstance(parsed.slice, ast.Constant)
    assert parsed.slice.value == value


def test_the_schema_files_are_the_named_release() -> None:
    folder = ROOT / "acp_mux" / "protocol" / "schema" / "v1"
    source = json.loads((folder / "source.json").read_text())
    meta = json.loads((folder / "meta.json").read_text())
    schema = json.loads((folder / "schema.json").read_text())
    assert source["release"].startswith("schema-v1.") and len(source["commit"]) == 40
    assert meta["version"] == 1 and schema["title"] == "Agent Client Protocol"
    header = (ROOT / "acp_mux" / "protocol" / "v1.py").read_text().splitlines()[0]
    assert source["release"] in header and source["commit"] in header


def test_method_tables_are_read_from_the_schema_envelopes() -> None:
    schema = json.loads((ROOT / "acp_mux" / "protocol" / "schema" / "v1" / "schema.json").read_text())
    tables = gen_acp_models.method_tables(schema)
    assert tables["AGENT_METHOD_PARAMS"]["session/prompt"] == "PromptRequest"
    assert tables["CLIENT_METHOD_RESULTS"]["session/request_permission"] == "RequestPermissionResponse"
    assert tables["CLIENT_NOTIFICATION_PARAMS"] == {
        "elicitation/complete": "CompleteElicitationNotification",
        "session/update": "SessionNotification",
    }
    assert tables["PROTOCOL_NOTIFICATION_PARAMS"] == {"$/cancel_request": "CancelRequestNotification"}


# Runs the real launcher on initialize + session/new (answered early, the bridge's background import switched off so
# the answers come from the launcher alone) and notes which protocol modules were loaded as each answer was written.
PROBE = """
import json, os, sys
import acp_mux.launcher.entry as launch
watched = ("acp_mux.protocol", "acp_mux.protocol.v1", "acp_mux.protocol.wire", "pydantic")
loaded = []
real_write = os.write
def write(fd, data):
    if fd == 1 and len(loaded) < 2:
        loaded.append(sorted(m for m in watched if m in sys.modules))
    return real_write(fd, data)
os.write = write
launch.load_bridge_in_background = lambda args: (lambda: None)
code = launch.main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


def test_the_initialize_and_session_new_answers_load_no_protocol_model(tmp_path: Path) -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}},
    ]
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "--agent", "demo"],
        input="".join(json.dumps(m) + "\n" for m in lines),
        capture_output=True,
        text=True,
        env={**os.environ, "ACP_MUX_STATE_DIR": str(tmp_path / "state")},
        timeout=60,
    )
    answers = {m["id"]: m for m in map(json.loads, out.stdout.splitlines()) if "id" in m}
    assert "result" in answers[1] and "result" in answers[2], out.stderr
    report = json.loads(out.stderr.splitlines()[-1])
    assert report["loaded"] == [[], []], f"loaded before the early answers: {report}"


def test_no_code_names_a_numbered_generated_type() -> None:
    """Inline schema variants the generator could not name come out numbered (CreateElicitationRequest11) and may
    be renumbered by the next schema release. Code uses the schema's named types and aliases (CreateElicitationRequest,
    SessionUpdate, ContentBlock) and narrows on the tag field (`mode`, `session_update`, `type`) instead."""
    import re

    from acp_mux.protocol import v1

    numbered = {name for name in vars(v1) if re.fullmatch(r"[A-Z][A-Za-z]*[a-z]\d+", name)}
    assert "CreateElicitationRequest11" in numbered  # the rule has something to hold
    pattern = re.compile(r"\b(" + "|".join(sorted(numbered)) + r")\b")
    users = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for folder in ("acp_mux", "adapters", "translation", "tests", "tools")
        for path in (ROOT / folder).rglob("*.py")
        if path not in (ROOT / "acp_mux" / "protocol" / "v1.py", Path(__file__).resolve())
        for match in [pattern.search(path.read_text())]
        if match
    ]
    assert users == [], users
