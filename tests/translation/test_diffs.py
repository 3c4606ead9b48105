"""ACP diff contents: absolute paths, the old text of a file being overwritten, titles relative to cwd."""

from __future__ import annotations

from pathlib import Path

from acp_mux.adapters.base import DiffSpec
from acp_mux.translation import diffs
from acp_mux.translation.diffs import diff_content, diffs_for, relative_title, resolve


def test_diff_content_always_carries_old_text_even_when_none() -> None:
    assert diff_content("/a", "new", None) == {"type": "diff", "path": "/a", "newText": "new", "oldText": None}
    assert diff_content("/a", "new", "old") == {"type": "diff", "path": "/a", "newText": "new", "oldText": "old"}


def test_resolve_makes_relative_paths_absolute_and_normal() -> None:
    assert resolve("src/../lib/a.py", "/w") == "/w/lib/a.py"
    assert resolve("/etc/hosts", "/w") == "/etc/hosts"
    assert resolve("", "/w") == ""


def test_diffs_for_reads_the_current_file_when_old_text_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "exists.txt").write_text("before\n")
    specs = [
        DiffSpec("exists.txt", "after\n", None),
        DiffSpec("new.txt", "fresh\n", None),
        DiffSpec(str(tmp_path / "exists.txt"), "x", "given"),
    ]
    assert diffs_for(specs, str(tmp_path)) == [
        {"type": "diff", "path": str(tmp_path / "exists.txt"), "newText": "after\n", "oldText": "before\n"},
        {"type": "diff", "path": str(tmp_path / "new.txt"), "newText": "fresh\n", "oldText": None},
        {"type": "diff", "path": str(tmp_path / "exists.txt"), "newText": "x", "oldText": "given"},
    ]
    assert diffs_for(specs[:1], str(tmp_path), read_old_for_new=False)[0]["oldText"] is None


def test_huge_files_are_not_read_for_old_text(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "big.txt").write_text("0123456789")
    monkeypatch.setattr(diffs, "MAX_DIFF_FILE_BYTES", 5)
    assert diffs_for([DiffSpec("big.txt", "x")], str(tmp_path))[0]["oldText"] is None


def test_relative_title_only_shortens_paths_under_cwd() -> None:
    assert relative_title("/w/src/a.py", "/w") == "src/a.py"
    assert relative_title("/w/src/a.py", "/w/") == "src/a.py"
    assert relative_title("/work/a.py", "/w") == "/work/a.py"  # a sibling with a common prefix is not "under"
    assert relative_title("/w", "/w") == "/w"
    assert relative_title("rel.py", "/w") == "rel.py"


def test_an_edit_shows_the_whole_file_before_and_after(tmp_path: Path) -> None:
    """A fragment (``beta`` → ``gamma``, no newline) is shown as the file with the change in place: an editor shows
    ``oldText``/``newText`` as the file, so a fragment looked like a two-line file."""
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    assert diffs_for([DiffSpec("notes.txt", "gamma", "beta")], str(tmp_path)) == [
        {"type": "diff", "path": str(tmp_path / "notes.txt"), "newText": "alpha\ngamma\n", "oldText": "alpha\nbeta\n"}
    ]


def test_several_edits_of_one_file_are_one_whole_file_diff(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    specs = [DiffSpec("a.py", "TWO", "two"), DiffSpec("a.py", "THREE", "three"), DiffSpec("b.txt", "x", None)]
    out = diffs_for(specs, str(tmp_path))
    assert out == [
        {
            "type": "diff",
            "path": str(tmp_path / "a.py"),
            "newText": "one\nTWO\nTHREE\n",
            "oldText": "one\ntwo\nthree\n",
        },
        {"type": "diff", "path": str(tmp_path / "b.txt"), "newText": "x", "oldText": None},
    ]


def test_an_edit_already_on_disk_is_taken_back_out_for_the_before(tmp_path: Path) -> None:
    """The agent wrote the change before acp-mux read the file (or its diff came with the result)."""
    (tmp_path / "notes.txt").write_text("alpha\ngamma\n")
    [diff] = diffs_for([DiffSpec("notes.txt", "gamma", "beta")], str(tmp_path))
    assert (diff["oldText"], diff["newText"]) == ("alpha\nbeta\n", "alpha\ngamma\n")


def test_beyond_the_bound_an_edit_shows_with_its_surrounding_lines(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(diffs, "WHOLE_FILE_CHARS", 50)
    (tmp_path / "long.txt").write_text("".join(f"line{i}\n" for i in range(40)))
    [diff] = diffs_for([DiffSpec("long.txt", "LINE20", "line20")], str(tmp_path))
    assert diff["oldText"] == "line17\nline18\nline19\nline20\nline21\nline22\nline23\n"
    assert diff["newText"] == "line17\nline18\nline19\nLINE20\nline21\nline22\nline23\n"


def test_a_file_that_cannot_be_read_or_lacks_the_fragment_keeps_the_fragment(tmp_path: Path) -> None:
    assert diffs_for([DiffSpec("gone.txt", "b", "a")], str(tmp_path))[0]["oldText"] == "a"
    (tmp_path / "other.txt").write_text("nothing here\n")
    [diff] = diffs_for([DiffSpec("other.txt", "b", "a")], str(tmp_path))
    assert (diff["oldText"], diff["newText"]) == ("a", "b")
