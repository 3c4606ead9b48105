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
