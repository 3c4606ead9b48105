"""The default log file: private, rotated by size, following a rotation made by another bridge, and never written
through a symlink or into a FIFO planted at its name."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.cli.log_file import RotatingLog, default_log_path, open_default_log
from acp_mux.core.files.own_files import NotOurFile


def record(text: str) -> logging.LogRecord:
    return logging.LogRecord("acp_mux", logging.WARNING, __file__, 1, text, None, None)


def test_the_default_path_is_in_the_state_folder(tmp_path):
    assert default_log_path({"ACP_MUX_STATE_DIR": str(tmp_path)}) == tmp_path / "logs" / "acp-mux.log"
    assert default_log_path({"HOME": "/home/p"}) == Path("/home/p/.local/state/acp-mux/logs/acp-mux.log")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=40), st.integers(64, 2000))
def test_no_file_ever_passes_the_limit_and_nothing_is_lost_beyond_the_backups(tmp_path_factory, lines, limit):
    """Any lines, any limit: each file stays within it (a single line longer than the limit alone in its file),
    at most BACKUPS old files, and the newest lines are all kept, in order."""
    folder = tmp_path_factory.mktemp("logs")
    handler = RotatingLog(folder / "acp-mux.log", max_bytes=limit, backups=3)
    handler.setFormatter(logging.Formatter("%(message)s"))
    for index, text in enumerate(lines):
        handler.emit(record(f"{index}:{text!r}"))
    handler.close()
    files = sorted(folder.iterdir())
    assert {f.name for f in files} <= {"acp-mux.log", "acp-mux.log.1", "acp-mux.log.2", "acp-mux.log.3"}
    for f in files:
        data = f.read_bytes()
        assert len(data) <= limit or data.count(b"\n") == 1, (f.name, len(data))
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
    newest = (folder / "acp-mux.log").read_text(encoding="utf-8").splitlines()
    expected = [f"{i}:{t!r}" for i, t in enumerate(lines)]
    kept = "\n".join(
        (folder / name).read_text(encoding="utf-8")
        for name in ("acp-mux.log.3", "acp-mux.log.2", "acp-mux.log.1", "acp-mux.log")
        if (folder / name).exists()
    ).split("\n")
    kept = [line for line in kept if line]
    assert kept == expected[len(expected) - len(kept) :] and newest == expected[len(expected) - len(newest) :]


def test_a_rotation_by_another_bridge_is_followed(tmp_path):
    path = tmp_path / "acp-mux.log"
    first, second = RotatingLog(path, max_bytes=100), RotatingLog(path, max_bytes=100)
    for handler in (first, second):
        handler.setFormatter(logging.Formatter("%(message)s"))
    first.emit(record("a" * 60))
    second.emit(record("b" * 60))  # rotates: the file now holds only b
    first.emit(record("c"))  # the first bridge still held the old file: it must follow the name
    first.close()
    second.close()
    assert path.read_text() == "b" * 60 + "\nc\n"
    assert (tmp_path / "acp-mux.log.1").read_text() == "a" * 60 + "\n"


def test_a_symlink_or_fifo_at_the_name_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "acp-mux.log").symlink_to(target)
    with pytest.raises(NotOurFile):
        RotatingLog(tmp_path / "acp-mux.log")
    assert target.read_text() == "keep"
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    with pytest.raises(NotOurFile):
        RotatingLog(fifo)  # refused at once, never waiting for a reader


def test_a_folder_that_is_not_ours_alone_means_no_log_and_one_line_why(tmp_path, capsys):
    (tmp_path / "logs").mkdir(mode=0o755)
    os.chmod(tmp_path / "logs", 0o755)
    assert open_default_log({"ACP_MUX_STATE_DIR": str(tmp_path)}) is None
    assert "not logging to" in capsys.readouterr().err
    handler = open_default_log({"ACP_MUX_STATE_DIR": str(tmp_path / "fresh")})
    assert handler is not None
    handler.close()
    assert stat.S_IMODE((tmp_path / "fresh" / "logs").stat().st_mode) == 0o700
