"""BoundedOutput keeps head and tail in O(head + tail) memory; cap_text/cap_value bound raw payloads."""

from __future__ import annotations

from acp_mux.translation.output import MAX_LINE_CHARS, BoundedOutput, cap_text, cap_value


def test_short_output_renders_whole() -> None:
    out = BoundedOutput(head_lines=3, tail_lines=2)
    out.append("a\nb\n")
    assert out.render() == "a\nb"
    assert (out.total_lines, out.total_chars, out.omitted) == (2, 4, 0)


def test_long_output_keeps_head_and_tail_with_an_elision_marker() -> None:
    out = BoundedOutput(head_lines=3, tail_lines=2)
    for i in range(10):
        out.append(f"l{i}\n")
    assert out.render() == "l0\nl1\nl2\n… [5 lines omitted] …\nl8\nl9"
    assert out.omitted == 5 and out.total_lines == 10


def test_memory_stays_bounded_however_long_the_stream() -> None:
    out = BoundedOutput(head_lines=2, tail_lines=2)
    out.append("".join(f"{i}\n" for i in range(100_000)))
    assert len(out._head) == 2 and len(out._tail) == 2
    assert out.render() == "0\n1\n… [99996 lines omitted] …\n99998\n99999"


def test_lines_split_across_chunks_are_joined_and_a_partial_line_is_shown() -> None:
    out = BoundedOutput()
    out.append("hel")
    assert out.render() == "hel" and out.total_lines == 0
    out.append("lo\nwor")
    assert out.render() == "hello\nwor"
    out.append("ld\n")
    assert out.render() == "hello\nworld" and out.total_lines == 2


def test_empty_chunks_change_nothing() -> None:
    out = BoundedOutput()
    out.append("")
    assert (out.render(), out.total_chars, out.total_lines) == ("", 0, 0)


def test_overlong_line_is_cut_with_a_count_of_what_was_left_out() -> None:
    out = BoundedOutput()
    out.append("x" * (MAX_LINE_CHARS + 500) + "\n")
    assert out.render() == "x" * MAX_LINE_CHARS + "… [500 more characters]"


def test_a_never_ending_line_is_flushed_in_pieces() -> None:
    out = BoundedOutput()
    out.append("y" * (MAX_LINE_CHARS * 4 + 1))  # no newline ever arrives
    assert out.total_lines == 1
    assert out.render() == "y" * MAX_LINE_CHARS + f"… [{MAX_LINE_CHARS * 3 + 1} more characters]"
    out.append("z" * 10)
    assert out.render().endswith("\n" + "z" * 10)


def test_partial_line_is_bounded_in_render() -> None:
    out = BoundedOutput()
    out.append("p" * (MAX_LINE_CHARS * 3))  # under the flush threshold: kept as a partial line
    assert out.total_lines == 0
    assert out.render() == "p" * MAX_LINE_CHARS


def test_cap_text_keeps_both_ends_and_counts_the_cut() -> None:
    assert cap_text("short", limit=10) == "short"
    assert cap_text("a" * 10, limit=10) == "a" * 10
    assert cap_text("0123456789abcdefghij", limit=10) == "01234\n… [10 characters omitted] …\nfghij"


def test_cap_value_caps_strings_anywhere_and_long_lists() -> None:
    value = {"stdout": "s" * 30, "nested": [{"x": "t" * 30}], "n": 3, "ok": True, "none": None}
    assert cap_value(value, limit=10) == {
        "stdout": "sssss\n… [20 characters omitted] …\nsssss",
        "nested": [{"x": "ttttt\n… [20 characters omitted] …\nttttt"}],
        "n": 3,
        "ok": True,
        "none": None,
    }
    assert cap_value(list(range(203))) == list(range(200)) + ["… [3 more items]"]
    assert cap_value(list(range(200))) == list(range(200))
