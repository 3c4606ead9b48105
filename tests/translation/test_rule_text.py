"""Text rules (``--allow execute:git status``) are the editor's "always" scopes, never wider than what they name."""

from __future__ import annotations

import os
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_mux.translation.command_scope import analyze, rule_key
from acp_mux.translation.permissions import PermissionRules, scope_for
from acp_mux.translation.rule_text import KINDS, parse_rule

CWD = "/work/project"
WORDS = st.sampled_from(
    [
        "git",
        "status",
        "push",
        "--force",
        "rm",
        "-rf",
        "build",
        "npm",
        "run",
        "test",
        "python3",
        "-c",
        "x",
        "ls",
        "|",
        "wc",
    ]
    + ["bash", "-lc", "FOO=1", "sudo", "find", ".", "-delete", "cat", "notes.txt", ";", "&&", "$HOME", "echo"]
)
COMMANDS = st.lists(WORDS, min_size=1, max_size=5).map(" ".join)


def allows(rule_text: str, command: str) -> bool:
    rules = PermissionRules(cwd=CWD)
    rules.remember(parse_rule(rule_text, CWD), "allow")
    return rules.match("Bash", "execute", {"command": command}) == "allow"


@settings(max_examples=400, deadline=None)
@given(COMMANDS, COMMANDS)
def test_a_command_rule_allows_only_its_own_command_or_its_editor_key(named: str, later: str) -> None:
    try:
        scope = parse_rule(f"execute:{named}", CWD)
    except ValueError:
        return
    if not allows(f"execute:{named}", later):
        return
    if scope.command_key is not None:  # the editor's "`git status` commands", and only when the rule *is* the key
        key = rule_key(analyze(named))
        assert key == scope.command_key
        assert (*analyze(named).assignments, *analyze(named).words) == key
        assert rule_key(analyze(later)) == key
    else:  # exactly the command named
        assert analyze(later).text == analyze(named).text


@settings(max_examples=200, deadline=None)
@given(COMMANDS)
def test_a_command_rule_allows_the_command_it_names(named: str) -> None:
    try:
        parse_rule(f"execute:{named}", CWD)
    except ValueError:
        return
    assert allows(f"execute:{named}", named)


@settings(max_examples=200, deadline=None)
@given(COMMANDS)
def test_a_key_rule_is_what_the_editor_remembers_for_the_same_command(named: str) -> None:
    """Where the text is exactly its key, the rule equals the scope an editor's "Always allow" stores."""
    try:
        scope = parse_rule(f"execute:{named}", CWD)
    except ValueError:
        return
    editor = scope_for("rule", "execute", {"command": named}, CWD)
    if scope.command_key is not None:
        assert scope == editor


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_a_known_kind_of_rule_or_refused(text: str) -> None:
    try:
        scope = parse_rule(text, CWD)
    except ValueError:
        return
    assert scope.kind in KINDS
    assert text.partition(":")[0].strip() == scope.kind
    assert scope.exact_input is None  # never the catch-all "this exact call of a tool"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["edit", "delete", "move", "read"]), st.sampled_from(["a.txt", "src/b.py", "../c", "/etc/x"]))
def test_a_path_rule_covers_that_real_path_only(kind: str, path: str) -> None:
    rules = PermissionRules(cwd=CWD)
    rules.remember(parse_rule(f"{kind}:{path}", CWD), "allow")
    real = os.path.realpath(os.path.join(CWD, path))
    assert rules.match("Write", kind, {"file_path": real}) == "allow"
    assert rules.match("Write", kind, {"file_path": real + ".bak"}) is None
    other = "execute" if kind != "execute" else "edit"
    assert rules.match("Write", other, {"file_path": real, "command": shlex.quote(real)}) is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "KIND:TARGET"),
        ("git status", "KIND:TARGET"),
        ("shell:git status", "KIND:TARGET"),
        ("execute:", "empty"),
        ("edit:~/.bashrc", "named safely"),
        ("fetch:not a url", "origin"),
    ],
)
def test_rules_that_name_nothing_say_why(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_rule(text, CWD)


def test_a_fetch_rule_is_the_origin() -> None:
    rules = PermissionRules(cwd=CWD)
    rules.remember(parse_rule("fetch:https://example.org/docs", CWD), "allow")
    assert rules.match("WebFetch", "fetch", {"url": "https://example.org/other"}) == "allow"
    assert rules.match("WebFetch", "fetch", {"url": "https://example.org.evil.com/"}) is None
