"""A message's text kept as joined pieces: every delta still gives its exact ``accumulated`` text (spec 000), the
message's text is whole at ``message_stop``, and neither a streaming nor a finished message keeps a string per delta."""

from __future__ import annotations

import gc
import json
import weakref

from acp_mux.core.text.joined_text import PIECE_DELTAS, JoinedText
from acp_mux.core.run.parse_context import ParseContext


def test_every_offset_gives_the_text_as_it_was_then_across_joins() -> None:
    text = JoinedText()
    deltas = [f"<{i}>" for i in range(3 * PIECE_DELTAS + 5)]
    ends = [text.append(d) for d in deltas]
    whole = "".join(deltas)
    assert text.text() == whole and text.length == len(whole)
    for i in (0, 1, PIECE_DELTAS - 1, PIECE_DELTAS, 2 * PIECE_DELTAS + 3, len(deltas) - 1):
        assert text.prefix(ends[i]) == "".join(deltas[: i + 1])
    text.append("tail")  # appending after a read keeps every earlier offset valid
    assert text.prefix(ends[-1]) == whole and text.text() == whole + "tail"


def test_a_streaming_message_holds_pieces_not_one_string_per_delta() -> None:
    text = JoinedText()
    for i in range(10 * PIECE_DELTAS):
        text.append(f"d{i} ")
    assert text.pieces() == 10  # the old list of parts held 10 × PIECE_DELTAS strings here
    assert JoinedText("start").text() == "start" and JoinedText().text() == ""


def test_deltas_through_the_parse_context_give_accumulated_and_the_message_text() -> None:
    ctx = ParseContext(run_id="r", agent="demo")
    deltas = [f"w{i} " for i in range(PIECE_DELTAS + 10)]
    events = [e for d in deltas for e in ctx.text_delta(d) if e.type == "text_delta"]
    (stop,) = [e for e in ctx.end_text() if e.type == "message_stop"]
    assert stop.text == "".join(deltas)
    for i in (0, PIECE_DELTAS - 1, PIECE_DELTAS, len(deltas) - 1):
        assert events[i].accumulated == "".join(deltas[: i + 1])


def test_a_finished_messages_text_is_released_with_its_delta_events() -> None:
    """Nothing but the delta events keeps a message's text once it has ended: dropping them frees it."""
    ctx = ParseContext(run_id="r", agent="demo")
    events = [e for d in ("a", "b", "c") for e in ctx.text_delta(d)]
    ctx.thinking_delta("then a thought")  # ends the message
    shared = weakref.ref(events[-1]._parts)
    assert shared() is not None
    del events
    gc.collect()
    assert shared() is None


def test_a_tool_inputs_pieces_share_the_input_so_far_instead_of_copying_it() -> None:
    """A large file write streams its input as thousands of pieces: each event gives the input as it was then,
    the call's input is whole when it is ready, and no event holds its own copy until someone asks for it."""
    ctx = ParseContext(run_id="r", agent="test")
    ctx.tool_start("t1", "Write")
    content = "x" * 50_000
    document = json.dumps({"file_path": "/tmp/big.txt", "content": content})
    pieces = [document[i : i + 7] for i in range(0, len(document), 7)]
    deltas = [event for piece in pieces for event in ctx.tool_input_delta("t1", piece)]
    assert len(deltas) == len(pieces)
    assert all(event.__dict__["accumulated_text"] is None for event in deltas), "no copy made while streaming"
    for i in (0, 1, PIECE_DELTAS, len(pieces) // 2, len(pieces) - 1):
        assert deltas[i].input_accumulated == "".join(pieces[: i + 1])
    (ready,) = ctx.tool_ready("t1")
    assert ready.input == {"file_path": "/tmp/big.txt", "content": content}
    assert json.loads(deltas[-1].model_dump_json(by_alias=True))["inputAccumulated"] == document
