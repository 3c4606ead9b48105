"""``acp-mux sessions`` never prints a control character it read from the store (issue 21, class 5): ESC
sequences, carriage returns, C1 controls and bidi overrides come out as visible escapes; only a message body's
newlines and tabs are kept. Hypothesis writes the hostile text into every stored field it can reach."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.cli.sessions import run_sessions
from acp_mux.core.text.visible import visible
from acp_mux.server.records.event_log import read_envelopes
from acp_mux.server.records.store import SessionRecord, SessionStore

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
HOSTILE = ["\x1b[2J", "\x1b]0;owned\x07", "\r", "\x9b31m", "\u202e", "\u2066", "\x00", "\x7f", "\x1bP", "\u2028"]
# text biased toward what attacks a terminal: generated characters mixed with known escape sequences
hostile_text = st.lists(
    st.one_of(
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=6), st.sampled_from(HOSTILE + ["\n", "\t"])
    ),
    max_size=12,
).map("".join)


def _controls(text: str, allowed: str) -> list[str]:
    return [c for c in CONTROL.findall(text) if c not in allowed]


@given(hostile_text, st.sampled_from(["", "\n", "\n\t"]))
def test_visible_leaves_no_control_but_the_kept_ones(text: str, keep: str) -> None:
    shown = visible(text, keep)
    assert _controls(shown, keep) == []
    if "\\" not in text:  # nothing lost: decoding the escapes gives the text back
        assert re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m[1], 16)), shown) == text


@given(hostile_text)
def test_visible_keeps_a_json_string_the_same_value(text: str) -> None:
    inner = json.dumps(text, ensure_ascii=False)[1:-1]
    assert json.loads(f'"{visible(inner)}"') == text


@given(hostile_text)
def test_text_without_controls_is_printed_as_it_is(text: str) -> None:
    plain = CONTROL.sub("", text)
    assert visible(plain) == plain


def _store(root: Path, text: str) -> SessionStore:
    store = SessionStore(root)
    assert store.save(SessionRecord(session_id="s1", agent=f"demo{text}", cwd=f"/w{text}", title=f"t{text}"))
    log = store.event_log("s1")
    run = "run1"
    for n, (kind, data) in enumerate(
        [
            ("user.message", {"content": [{"type": "text", "text": f"ask{text}"}], "agent": "demo"}),
            ("turn_start", {"turnIndex": 0}),
            ("message_stop", {"text": f"answer{text}"}),
            (
                "tool_call_ready",
                {"toolCallId": f"t{text}", "toolName": f"Bash{text}", "input": {"command": f"ls{text}"}},
            ),
            ("tool_result", {"toolCallId": f"t{text}", "toolName": f"Bash{text}", "output": f"out{text}"}),
            ("approval.resolved", {"decision": f"allow{text}", "by": "person", "scope": "once", "reason": text}),
            ("x.unknown", {"payload": text}),
            ("turn_end", {"turnIndex": 0}),
            ("turn.ended", {"error": {"code": -32603, "message": f"broke{text}"}}),
        ]
    ):
        log.record(run, kind, data, n + 1)
    log.flush()
    return store


def _run(store: SessionStore, *argv: str) -> str:
    out = io.StringIO()
    assert run_sessions(list(argv), store, out) == 0
    return out.getvalue()


@settings(max_examples=60, deadline=None)
@given(text=hostile_text)
def test_sessions_output_never_carries_a_control_character(tmp_path_factory, text: str) -> None:
    store = _store(tmp_path_factory.mktemp("s"), text)
    assert _controls(_run(store, "show", "s1"), "\n\t") == []
    for argv in (["list"], ["list", "--json"], ["export", "s1"]):
        assert _controls(_run(store, *argv), "\n") == [], argv
    exported = [json.loads(line) for line in _run(store, "export", "s1").splitlines()]
    assert exported == list(read_envelopes(store.log_path("s1")))  # escaped, yet the same JSON values
    listed = [json.loads(line) for line in _run(store, "list", "--json").splitlines()]
    assert listed[0]["title"] == f"t{text}"


def test_an_escape_sequence_in_a_title_is_shown_not_obeyed(tmp_path: Path) -> None:
    store = _store(tmp_path, "\x1b]0;owned\x07\u202egnp.exe")
    shown = _run(store, "list")
    assert "\\u001b]0;owned\\u0007\\u202egnp.exe" in shown and "\x1b" not in shown
